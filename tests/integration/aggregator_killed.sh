#!/usr/bin/env bash
# ctest: serial
# The aggregator SIGKILLed in the middle of ingest and restarted on the same
# port (docs/robustness.md). Three agents report every 2 s and a flood of POSTs
# (tests/tools/report_flood.py) keeps requests in flight when the kill lands.
# Checks: the agents back off while it is down (1 s, then 2 s, ...: growing
# delays in their logs) and every node is back within two intervals of the
# restart; a report generated before the kill and delivered after the restart
# is shown as old as it is (its age counts from its generation, not from its
# new send time), in /v1/nodes and /v1/verdict; no age is negative; the
# restarted server is healthy and the flood's POSTs are accepted again.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
AGENT="$HVREADY_BIN/hvready-agent"
INTERVAL=2
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
FAIL_TAIL=15
FLOOD_PID=""

printf 'restart-test-token-%s\n' "$$" >"$tmp/token"
chmod 600 "$tmp/token"
api() { curl -s --max-time 5 "$@"; }
# start LOG: the aggregator; a restart keeps the port of the first start.
start() {
	start_aggregator "$tmp/$1" --token-file "$tmp/token" \
		--cluster-state "$HVREADY_SRC/examples/cluster" --interval "$INTERVAL" ||
		fail "the aggregator did not become ready"
	URL=$AGG_URL
	port=${URL##*:}
	AGG_LISTEN="127.0.0.1:$port"
}
# node-name report-age-seconds from /v1/nodes, one per line
ages() {
	api "$URL/v1/nodes" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    sys.exit(0)
for n in d["nodes"]:
    print(n["name"], n["report_age_seconds"])'
}

start aggregator.log
roots=(a-debian-intel b-rhel9 b-slemicro55-harvester)
start_agent() { # i interval
	"$AGENT" run --aggregator "$URL" --token-file "$tmp/token" --node "harvester-node-$1" \
		--host-root "$HVREADY_SRC/tests/fixtures/hostroots/${roots[$((($1 - 1) % 3))]}" \
		--interval "$2" --timeout 5 --skip host.image.share-manager,host.nfs.probe \
		2>>"$tmp/agent-$1.log" &
	pids+=($!)
}
for i in 1 2 3; do start_agent "$i" "$INTERVAL"; done
three() { [ "$(ages | grep -c '^harvester-node-[123] ')" = 3 ]; }
wait_for 30 "three nodes reporting" three
echo "three agents report every ${INTERVAL}s"

# A flood of POSTs keeps the ingest path busy: the kill lands mid-request.
"$AGENT" check --node template --host-root "$HVREADY_SRC/tests/fixtures/hostroots/b-rhel9" \
	--skip host.image.share-manager,host.nfs.probe --format msgpack --output "$tmp/template.msgpack" \
	>/dev/null 2>"$tmp/check.log" || [ -s "$tmp/template.msgpack" ] || fail "no template report"
python3 "$HVREADY_SRC/tests/tools/report_flood.py" --port "$port" --template "$tmp/template.msgpack" \
	--token-file "$tmp/token" --nodes 40 --threads 3 --pause-ms 10 >"$tmp/flood.json" 2>"$tmp/flood.log" &
FLOOD_PID=$!
pids+=("$FLOOD_PID")
flooded() { api "$URL/v1/nodes" | grep -q '"flood-node-40"'; }
wait_for 20 "the flood's reports accepted" flooded

kill -9 "$AGG_PID"
wait "$AGG_PID" 2>/dev/null || true
killed_at=$(date +%s.%N)
echo "aggregator SIGKILLed during the flood"

# Node 4 starts while the aggregator is down: its first report is generated
# now, cannot be delivered, and is resent with backoff (interval 60 s: the
# resends, at 1, 2, 4, 8, 16 s, all come before its next cycle).
gen4_after=$(date +%s.%N)
start_agent 4 60
sleep 5.5
# The other agents have failed a few times: their delays grow.
for i in 1 4; do
	grep -q "retrying in" "$tmp/agent-$i.log" || fail "agent $i logged no retry while the aggregator was down"
done
python3 - "$tmp/agent-4.log" <<'PY' || fail "agent 4's retry delays do not grow"
import re, sys
d = [float(x) for x in re.findall(r"retrying in ([0-9.]+)s", open(sys.argv[1]).read())]
assert len(d) >= 2 and all(b > a for a, b in zip(d, d[1:])), d
print("agent 4 backed off: %s s" % ", ".join("%.1f" % x for x in d))
PY

start aggregator-restarted.log
restarted_at=$(date +%s.%N)
t0=$SECONDS
# Two intervals, and 2 s for a loaded machine.
wait_for $((2 * INTERVAL + 2)) "nodes 1-3 back after the restart" three
echo "nodes 1-3 back $((SECONDS - t0))s after the restart"

node4() { ages | grep -q '^harvester-node-4 '; }
wait_for 30 "node 4's resent report delivered" node4
seen_at=$(date +%s.%N)
age4=$(ages | sed -n 's/^harvester-node-4 //p')
python3 - "$age4" "$gen4_after" "$seen_at" "$killed_at" "$restarted_at" <<'PY' || fail "node 4's age does not count from its generation"
import sys
age, gen_after, seen, killed, restarted = int(sys.argv[1]), *map(float, sys.argv[2:])
# Generated after gen_after (the agent's first cycle), delivered after the
# restart: at least seen - restarted + the 5.5 s it waited, at most seen - gen_after.
oldest = seen - gen_after
assert seen - restarted >= 0 and oldest >= 5.5, (seen, restarted, gen_after)
assert oldest - 2.5 <= age <= oldest + 1, \
    "report_age_seconds %d; it was generated %.1f s before it was seen" % (age, oldest)
print("node 4: generated before the restart, %.1f s before it was seen; "
      "report_age_seconds %d" % (oldest, age))
PY
grep -q "report delivered again after backoff" "$tmp/agent-4.log" || fail "agent 4 did not log its recovery"

# The verdict agrees, and no age anywhere is negative.
sleep 1.2
api "$URL/v1/verdict" >"$tmp/verdict.json"
python3 - "$tmp/verdict.json" "$age4" <<'PY' || fail "verdict after the restart"
import json, sys
v = json.load(open(sys.argv[1]))
ages = {n["name"]: n["report_age_seconds"] for n in v["nodes"] if "report_age_seconds" in n}
assert all(a >= 0 for a in ages.values()), ages
for n in ("harvester-node-1", "harvester-node-2", "harvester-node-3"):
    assert ages[n] <= 2 * 2 + 1, (n, ages[n])
assert ages["harvester-node-4"] >= int(sys.argv[2]), ages
rep = [f for f in v["findings"] if f["check"] == "cluster.nodes.reporting" and "node" not in f]
assert rep and rep[0]["status"] in ("PASS", "WARN"), rep
print("verdict: nodes 1-3 fresh, node 4 %ds old, no negative age" % ages["harvester-node-4"])
PY
curl -sf --max-time 5 "$URL/healthz" >/dev/null || fail "healthz after the restart"

kill "$FLOOD_PID"
wait "$FLOOD_PID" 2>/dev/null || true
python3 - "$tmp/flood.json" <<'PY' || fail "flood outcome"
import json, sys
f = json.load(open(sys.argv[1]))
st, err = f["status"], f["errors"]
assert st.get("200", 0) > 0 and set(st) == {"200"}, f
# While it was down the flood saw refusals; a request in flight at the kill, a reset.
assert err["refused"] > 0, f
print("flood: %d accepted, connection errors %s (no other status)" % (st["200"], err))
PY
echo PASS
