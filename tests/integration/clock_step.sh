#!/usr/bin/env bash
# ctest: serial
# Wall clocks stepped back and forth while agents and the aggregator run
# (docs/robustness.md). libfaketime (LD_PRELOAD, a timestamp file this test
# rewrites, the monotonic clock left alone) steps the realtime clock of two
# agents, then of the aggregator, by +1 h and -1 h; a third agent keeps the
# true time. Checks, after every step:
# - every running agent keeps reporting at its interval (its seq grows): its
#   timers are monotonic, and the aggregator keeps its reports (a report sent
#   "an hour earlier" than the previous one is still the newer one);
# - no age is negative or off by the step in /v1/verdict and /v1/nodes, and a
#   reporting node stays fresh;
# - staleness still works: an agent stopped while its clock is an hour ahead,
#   and one stopped while the aggregator's clock is stepped, go UNKNOWN after
#   3 intervals, and stay so when the aggregator's clock steps back;
# - cluster.clock.skew reports the step (±3,600,000 ms, the sign of who is
#   ahead), nothing else;
# - the aggregator still re-reads the cluster state every interval.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
AGENT="$HVREADY_BIN/hvready-agent"
INTERVAL=2
FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
[ -r "$FAKETIME_LIB" ] || {
	echo "FAIL: $FAKETIME_LIB missing (Debian package faketime, scripts/install-deps.sh)"
	exit 1
}
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init

# step FILE OFFSET: the faked clock of the processes reading FILE, e.g. +3600.
# Written whole and renamed: a process never reads half of it.
step() {
	printf '%s\n' "$2" >"$1.new"
	mv "$1.new" "$1"
}
step "$tmp/agg.clock" +0
step "$tmp/agents.clock" +0
# faked CLOCKFILE COMMAND...: run with libfaketime on that file. The cache
# is short so that a step is seen within a second; CLOCK_MONOTONIC is real.
# (Under ASan, libfaketime comes first in the library list: allow that.)
# exec: "faked ... &" runs in a subshell, whose PID $! must be the program's.
faked() {
	local f=$1
	shift
	exec env LD_PRELOAD="$FAKETIME_LIB" FAKETIME_TIMESTAMP_FILE="$f" FAKETIME_CACHE_DURATION=1 \
		FAKETIME_DONT_FAKE_MONOTONIC=1 NO_FAKE_STAT=1 \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
(faked "$tmp/agents.clock" date +%s) >"$tmp/date" || fail "libfaketime does not load"

printf 'clock-test-token-%s\n' "$$" >"$tmp/token"
chmod 600 "$tmp/token"
AGG_WRAP=(faked "$tmp/agg.clock")
start_aggregator "$tmp/aggregator.log" --token-file "$tmp/token" \
	--cluster-state "$HVREADY_SRC/examples/cluster" --interval "$INTERVAL" ||
	fail "the aggregator did not start"
URL=$AGG_URL

roots=(a-debian-intel b-rhel9 b-slemicro55-harvester)
declare -A agent_pid
start_agent() { # i clockfile|-
	local cmd=("$AGENT" run --aggregator "$URL" --token-file "$tmp/token" --node "harvester-node-$1"
		--host-root "$HVREADY_SRC/tests/fixtures/hostroots/${roots[$(($1 - 1))]}"
		--interval "$INTERVAL" --timeout 5 --skip "host.image.share-manager,host.nfs.probe")
	if [ "$2" = - ]; then
		"${cmd[@]}" 2>>"$tmp/agent-$1.log" &
	else
		faked "$2" "${cmd[@]}" 2>>"$tmp/agent-$1.log" &
	fi
	agent_pid[$1]=$!
	pids+=($!)
}
start_agent 1 "$tmp/agents.clock"
start_agent 2 "$tmp/agents.clock"
start_agent 3 -

# state NAME: /v1/verdict, /v1/nodes and /metrics into $tmp/NAME.*
state() {
	curl -s --max-time 5 "$URL/v1/verdict" >"$tmp/$1.verdict"
	curl -s --max-time 5 "$URL/v1/nodes" >"$tmp/$1.nodes"
	curl -s --max-time 5 "$URL/metrics" >"$tmp/$1.metrics"
}
# check NAME 'python expectations' [args]: the expectations see v (verdict),
# nodes ({name: summary}), seq ({name: seq}), skew ({node: skew_ms}), status
# (cluster.nodes.reporting status per node), fresh(n), state_ts (metrics).
check() {
	local name=$1 code=$2
	shift 2
	python3 - "$tmp/$name" "$@" <<PY
import json, re, sys
base = sys.argv[1]
args = sys.argv[2:]
v = json.load(open(base + ".verdict"))
nodes = {n["name"]: n for n in json.load(open(base + ".nodes"))["nodes"]}
seq = {k: n["seq"] for k, n in nodes.items()}
skew = {f["node"]: f["evidence"]["skew_ms"] for f in v["findings"]
        if f["check"] == "cluster.clock.skew" and "node" in f}
skew_overall = [f for f in v["findings"] if f["check"] == "cluster.clock.skew" and "node" not in f][0]
status = {f["node"]: f["status"] for f in v["findings"]
          if f["check"] == "cluster.nodes.reporting" and "node" in f}
vages = {n["name"]: n["report_age_seconds"] for n in v["nodes"] if "report_age_seconds" in n}
state_ts = float(re.search(r"^hvready_cluster_state_timestamp_seconds (\S+)$",
                           open(base + ".metrics").read(), re.M).group(1))
# No negative age, and none off by an hour, anywhere.
for k, a in list(vages.items()) + [(k, n["report_age_seconds"]) for k, n in nodes.items()]:
    assert 0 <= a < 3000, ("age", k, a)
def fresh(n):
    return nodes[n]["report_age_seconds"] <= 3 * $INTERVAL and vages[n] <= 3 * $INTERVAL + 2 \
        and n not in status
def near(ms, want):
    return abs(ms - want) <= 10000
$code
PY
}
wait_check() { # seconds what name code...
	local secs=$1 what=$2 name=$3
	shift 3
	local end=$((SECONDS + secs))
	while :; do
		state "$name"
		check "$name" "$@" 2>"$tmp/check.err" && return 0
		[ $SECONDS -lt $end ] || fail "$what (within ${secs}s): $(tail -n 3 "$tmp/check.err")"
		sleep 0.5
	done
}
# keeps_reporting BEFORE AFTER NODES...: each node's seq grew by 2 or more
keeps_reporting() {
	local before=$1 after=$2
	shift 2
	python3 - "$tmp/$before.nodes" "$tmp/$after.nodes" "$@" <<'PY'
import json, sys
a, b = ({n["name"]: n["seq"] for n in json.load(open(p))["nodes"]} for p in sys.argv[1:3])
for n in sys.argv[3:]:
    assert b[n] >= a[n] + 2, (n, a[n], b[n])
print("  seq kept growing: " + ", ".join("%s %d -> %d" % (n, a[n], b[n]) for n in sys.argv[3:]))
PY
}

wait_check 30 "three fresh nodes, skew PASS" s0 '
assert all(fresh(n) for n in ("harvester-node-1", "harvester-node-2", "harvester-node-3")), nodes
assert skew_overall["status"] == "PASS" and not skew, skew_overall'
echo "three agents report every ${INTERVAL}s, clocks agree"

echo "== the agents' clocks (nodes 1 and 2) step one hour ahead"
step "$tmp/agents.clock" +3600
sleep 1.5
state a0
wait_check 15 "skew of nodes 1 and 2 about -3600000 ms" a1 '
assert near(skew.get("harvester-node-1", 0), -3600000) and near(skew.get("harvester-node-2", 0), -3600000), skew
assert "harvester-node-3" not in skew and skew_overall["status"] == "FAIL", (skew, skew_overall)
assert all(fresh(n) for n in ("harvester-node-1", "harvester-node-2", "harvester-node-3")), nodes'
sleep $((2 * INTERVAL + 1))
state a2
keeps_reporting a0 a2 harvester-node-1 harvester-node-2 harvester-node-3 || fail "reporting stopped after the step ahead"
check a2 'assert all(fresh(n) for n in nodes if n.startswith("harvester-node-")), nodes' ||
	fail "a node not fresh after the step ahead"
echo "  skew -3600 s on nodes 1 and 2, every node fresh"

# Stopped with its clock an hour ahead: its last report's sent_ns is in the
# aggregator's future, yet the node must go stale after 3 intervals.
kill "${agent_pid[1]}"
t0=$SECONDS
wait_check $((3 * INTERVAL + 20)) "node 1 (clock ahead, agent stopped) UNKNOWN" a3 '
assert status.get("harvester-node-1") == "UNKNOWN", status'
[ $((SECONDS - t0)) -ge $((2 * INTERVAL)) ] || fail "node 1 went stale too early"
echo "  agent 1 stopped: node 1 UNKNOWN after $((SECONDS - t0))s"

echo "== the agents' clocks step back two hours (one hour behind)"
state b0
step "$tmp/agents.clock" -3600
sleep $((2 * INTERVAL + 2))
wait_check 15 "node 2 fresh with skew about +3600000 ms" b1 '
assert near(skew.get("harvester-node-2", 0), 3600000), skew
assert fresh("harvester-node-2") and fresh("harvester-node-3"), nodes
assert status.get("harvester-node-1") == "UNKNOWN", status'
keeps_reporting b0 b1 harvester-node-2 harvester-node-3 ||
	fail "the reports sent 'two hours earlier' were dropped"
echo "  node 2 keeps reporting (its reports are the newer ones), skew +3600 s"

echo "== the agents' clock right again; the aggregator's steps one hour ahead"
step "$tmp/agents.clock" +0
step "$tmp/agg.clock" +3600
sleep 1.5
state c0
wait_check 15 "skew of nodes 2 and 3 about +3600000 ms" c1 '
assert near(skew.get("harvester-node-2", 0), 3600000) and near(skew.get("harvester-node-3", 0), 3600000), skew
assert fresh("harvester-node-2") and fresh("harvester-node-3"), nodes'
sleep $((2 * INTERVAL))
state c2
keeps_reporting c0 c2 harvester-node-2 harvester-node-3 || fail "reporting stopped after the aggregator's step"
check c2 'assert fresh("harvester-node-2") and fresh("harvester-node-3"), nodes' ||
	fail "nodes not fresh after the aggregator's step"
echo "  nodes 2 and 3 fresh, skew +3600 s (the aggregator is ahead)"
kill "${agent_pid[3]}"
t0=$SECONDS
wait_check $((3 * INTERVAL + 20)) "node 3 (agent stopped) UNKNOWN" c3 '
assert status.get("harvester-node-3") == "UNKNOWN" and fresh("harvester-node-2"), status'
echo "  agent 3 stopped: node 3 UNKNOWN after $((SECONDS - t0))s"

echo "== the aggregator's clock steps back two hours (one hour behind)"
state d0
step "$tmp/agg.clock" -3600
sleep $((2 * INTERVAL + 2))
wait_check 15 "after the aggregator's step back" d1 '
assert near(skew.get("harvester-node-2", 0), -3600000), skew
assert fresh("harvester-node-2"), nodes
# Stale nodes stay stale: their reports are not an hour in the future now.
assert status.get("harvester-node-1") == "UNKNOWN" and status.get("harvester-node-3") == "UNKNOWN", status'
keeps_reporting d0 d1 harvester-node-2 || fail "reporting stopped after the aggregator's step back"
# The cluster state is still re-read every interval (a wait on the wall clock
# would now sleep an hour).
check d0 'print(state_ts)' >"$tmp/ts0"
sleep $((2 * INTERVAL + 1))
state d2
check d2 "assert state_ts != float(args[0]), state_ts" "$(cat "$tmp/ts0")" ||
	fail "the cluster state was not re-read after the aggregator's clock stepped back"
echo "  node 2 fresh, nodes 1 and 3 stay UNKNOWN, skew -3600 s, cluster state re-read"

kill "$AGG_PID"
wait "$AGG_PID" 2>/dev/null || fail "the aggregator did not exit cleanly"
echo PASS
