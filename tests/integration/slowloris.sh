#!/usr/bin/env bash
# ctest: serial
# Slow clients against the aggregator (docs/robustness.md), with
# tests/tools/slowloris.py: 800 connections sending headers one byte every 2 s
# (faster than the 10 s read timeout, so only a connection age limit stops
# them), 50 sending a body one byte every 12 s (slower than the read timeout),
# 100 idle ones, and requests with a 20 KB header line. The aggregator runs
# with 512 file descriptors (prlimit), so the attack is more than it can hold.
# Checks, during the attack: /healthz answers within 3 s, a real agent's
# reports keep being accepted, the aggregator's open files stay under its
# limit and its log is not flooded; afterwards: the server closed every
# attacking connection (the header trickles within 30 s + slack, the slow
# bodies within the read timeout), the oversized headers got a 4xx, and the
# open files are back to the baseline.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
AGENT="$HVREADY_BIN/hvready-agent"
TOOL="$HVREADY_SRC/tests/tools/slowloris.py"
NOFILE=512
ATTACK_S=40
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init

printf 'slowloris-token-%s\n' "$$" >"$tmp/token"
chmod 600 "$tmp/token"
AGG_WRAP=(prlimit "--nofile=$NOFILE:$NOFILE")
start_aggregator "$tmp/aggregator.log" --token-file "$tmp/token" \
	--cluster-state "$HVREADY_SRC/examples/cluster" --interval 2 ||
	fail "the aggregator did not start"
URL=$AGG_URL
port=${URL##*:}

"$AGENT" run --aggregator "$URL" --token-file "$tmp/token" --node harvester-node-1 \
	--host-root "$HVREADY_SRC/tests/fixtures/hostroots/b-rhel9" --interval 2 --timeout 5 \
	--skip host.image.share-manager,host.nfs.probe 2>"$tmp/agent.log" &
pids+=($!)
seq_of_node() {
	curl -s --max-time 3 "$URL/v1/nodes/harvester-node-1" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"])' 2>/dev/null || echo 0
}
for _ in $(seq 1 100); do [ "$(seq_of_node)" -ge 1 ] && break; sleep 0.2; done
[ "$(seq_of_node)" -ge 1 ] || fail "the agent's first report was not accepted"
fds() { find "/proc/$AGG_PID/fd" -mindepth 1 -maxdepth 1 | wc -l; }
base_fds=$(fds)
seq0=$(seq_of_node)
echo "before the attack: $base_fds open files, node seq $seq0"

attack() { # name args...
	local name=$1
	shift
	python3 "$TOOL" --port "$port" --duration "$ATTACK_S" "$@" >"$tmp/$name.json" 2>"$tmp/$name.log" &
	pids+=($!)
	attackers+=($!)
}
attackers=()
attack headers --mode headers --connections 800 --every 2
attack body --mode body --connections 50 --every 12 --token "$(cat "$tmp/token")"
attack idle --mode idle --connections 100
attack oversized --mode oversized --connections 5 --header-size 20000

max_fds=0
health_fail=0
t_end=$((SECONDS + ATTACK_S - 2))
while [ $SECONDS -lt $t_end ]; do
	n=$(fds)
	[ "$n" -gt "$max_fds" ] && max_fds=$n
	if ! curl -sf --max-time 3 -o /dev/null "$URL/healthz"; then
		health_fail=$((health_fail + 1))
		echo "  healthz did not answer within 3 s ($n open files)"
	fi
	sleep 1
done
seq1=$(seq_of_node)
echo "during the attack: at most $max_fds open files (limit $NOFILE), node seq $seq0 -> $seq1, healthz failures: $health_fail"
[ "$max_fds" -lt "$NOFILE" ] || fail "open files reached the limit ($max_fds)"
[ "$health_fail" -le 1 ] || fail "/healthz failed $health_fail times during the attack"
[ "$seq1" -ge $((seq0 + ATTACK_S / 2 / 2)) ] || fail "the agent's reports were not accepted during the attack ($seq0 -> $seq1)"

for p in "${attackers[@]}"; do wait "$p" || fail "an attacker failed: $(cat "$tmp"/*.log)"; done
python3 - "$tmp" <<'PY' || fail "attack outcome"
import json, os, sys
d = sys.argv[1]
r = {m: json.load(open(os.path.join(d, m + ".json"))) for m in ("headers", "body", "idle", "oversized")}
for m, x in r.items():
    print("  %-9s opened %4d, closed by the server %4d, still open %d, lifetimes %s, statuses %s"
          % (m, x["opened"], x["closed_by_server"], x["open_at_end"], x["lifetimes_s"], x["statuses"]))
h = r["headers"]
# Every header trickle that got in was closed by the server, none lived much
# beyond the 30 s age limit (the kernel backlog adds its wait).
assert h["opened"] >= 400 and h["open_at_end"] == 0 and h["closed_by_server"] == h["opened"], h
assert h["max_lifetime_s"] <= 30 + 8, h
b = r["body"]
assert b["opened"] == 50 and b["closed_by_server"] == 50 and b["max_lifetime_s"] <= 10 + 4, b
i = r["idle"]
assert i["closed_by_server"] == i["opened"] and i["opened"] > 0 and i["max_lifetime_s"] <= 10 + 4, i
o = r["oversized"]
assert o["opened"] == 5 and o["closed_by_server"] == 5, o
assert sum(o["statuses"].values()) == 5 and set(o["statuses"]) <= {"400", "413", "431"}, o
PY
# The attackers' connections are all gone (the sweep runs every 250 ms).
for _ in $(seq 1 20); do [ "$(fds)" -le $((base_fds + 4)) ] && break; sleep 0.25; done
[ "$(fds)" -le $((base_fds + 4)) ] || fail "open files after the attack: $(fds), before: $base_fds"
lines=$(wc -l <"$tmp/aggregator.log")
[ "$lines" -lt 50 ] || fail "the aggregator's log grew by $lines lines during the attack"
curl -sf --max-time 3 -o /dev/null "$URL/healthz" || fail "healthz after the attack"
kill "$AGG_PID"
wait "$AGG_PID" || fail "the aggregator did not exit cleanly after the attack"
echo "after the attack: $base_fds open files again, $lines log lines"
echo PASS
