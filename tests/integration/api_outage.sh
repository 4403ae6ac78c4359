#!/usr/bin/env bash
# `serve` while the Kubernetes API goes bad (issue: faults). One aggregator
# re-reads the API every 2 s through the fake kube-apiserver, which is then
#   1. killed: the verdict keeps the last complete state, says how old it is
#      and why it was not re-read; /readyz stays 200;
#   2. back, but answering 500 for Nodes: the state is re-read without them and
#      the checks that need Nodes are UNKNOWN (never PASS); the error is gone;
#   3. back, but answering VirtualMachines slower than HVREADY_API_TIMEOUT:
#      the same for the checks that need VMs, within the retry bound (Nodes
#      answer after 0.4 s, within the timeout: still read);
#   4. killed in the middle of a read (Nodes and VirtualMachines in flight):
#      the lists that then cannot connect make the whole read fail, so the
#      last complete state (3.) is kept, not one without Nodes.
# Loopback only; every process is stopped on exit.
set -euo pipefail
export LC_ALL=C
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init

INTERVAL=2
TOKEN=outage-test-token
kt_pki "$TMP/pki"
kt_fake api --fixtures "$FIXTURES" --token "$TOKEN" --require-auth
PORT=$FAKE_PORT
FAKE_PID=${KT_PIDS[-1]}
kt_kubeconfig "$TMP/kubeconfig" "https://127.0.0.1:$PORT" inline-token "$TOKEN"
printf 'agent-token-%s\n' "$RANDOM$RANDOM" >"$TMP/agent.token"
chmod 600 "$TMP/agent.token"
HVREADY_API_TIMEOUT=1 start_aggregator "$TMP/agg.log" --kubeconfig "$TMP/kubeconfig" \
	--token-file "$TMP/agent.token" --interval "$INTERVAL" ||
	kt_fail "the aggregator did not start: $(tail -n 3 "$TMP/agg.log")"

verdict() { curl -fsS --max-time 5 "$AGG_URL/v1/verdict" -o "$1"; }
# field FILE PYTHON-EXPR: a value of the verdict (v) as text.
field() { python3 -c 'import json, sys; v = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# verdict_is PYTHON-EXPR: the verdict, kept in $TMP/v.json, makes the
# expression true; if not, its start goes to stderr (wait_for shows it).
verdict_is() {
	verdict "$TMP/v.json" || return 1
	[ "$(field "$TMP/v.json" "$1")" = True ] && return 0
	echo "last verdict: $(head -c 400 "$TMP/v.json" | tr '\n' ' ')" >&2
	return 1
}
# wait_verdict WHAT PYTHON-EXPR: poll the verdict until the expression is true
# (bounded: the re-read takes an interval, the evaluation a few seconds more).
wait_verdict() { wait_for 30 "$1: not seen" verdict_is "$2"; }
# statuses FILE CHECK-PREFIX: "check status" of every finding of those checks.
statuses() {
	python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for f in v["findings"]:
    if f["check"].startswith(sys.argv[2]):
        print(f["check"], f["status"], f.get("object", ""))' "$1" "$2" | sort
}

# --- 0. healthy -------------------------------------------------------------------
wait_verdict "a first verdict from the API" \
	'v["mode"] == "live" and "age_seconds" in v["cluster_state"] and "last_refresh_error" not in v["cluster_state"]'
kt_findings "$TMP/v.json" >"$TMP/healthy.findings"
[ -s "$TMP/healthy.findings" ] || kt_fail "the healthy verdict has no findings"
grep -q '^cluster\.nodes\.count	\(PASS\|WARN\|FAIL\)' "$TMP/healthy.findings" ||
	kt_fail "cluster.nodes.count is not decided on the healthy fixture: $(grep nodes.count "$TMP/healthy.findings")"
echo "ok 0 - healthy: $(wc -l <"$TMP/healthy.findings") findings"

# --- 1. the API server is gone ----------------------------------------------------
# Between two reads (the refresher waits an interval after each): once the
# fake's request log has been quiet for 0.6 s. Killed in the middle of a read,
# the lists that fail make their checks UNKNOWN (as in 2.), not this case.
python3 - "$TMP/api.log" "$FAKE_PID" <<'PY' || kt_fail "the fake API server was never quiet for 0.6 s"
import os, signal, sys, time
end = time.monotonic() + 20
while time.monotonic() < end:
    if time.time() - os.stat(sys.argv[1]).st_mtime >= 0.6:
        os.kill(int(sys.argv[2]), signal.SIGKILL)
        sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
PY
wait "$FAKE_PID" 2>/dev/null || true
wait_verdict "the failed re-read in the verdict" \
	'"last_refresh_error" in v["cluster_state"] and v["cluster_state"]["age_seconds"] >= 2 * '"$INTERVAL"
err=$(field "$TMP/v.json" 'v["cluster_state"]["last_refresh_error"]')
age1=$(field "$TMP/v.json" 'v["cluster_state"]["age_seconds"]')
kt_findings "$TMP/v.json" >"$TMP/down.findings"
# Only ages in messages may move; the findings are those of the last complete state.
diff <(cut -f1-4 "$TMP/healthy.findings") <(cut -f1-4 "$TMP/down.findings") >"$TMP/down.diff" ||
	kt_fail "with the API down the findings changed: $(head -c 600 "$TMP/down.diff")"
curl -fsS --max-time 5 -o /dev/null "$AGG_URL/readyz" || kt_fail "/readyz failed while the API is down"
sleep $((2 * INTERVAL))
verdict "$TMP/v.json"
age2=$(field "$TMP/v.json" 'v["cluster_state"]["age_seconds"]')
[ "$age2" -gt "$age1" ] || kt_fail "the state's age did not grow ($age1 → $age2)"
grep -q 'reading the cluster state failed' "$TMP/agg.log" || kt_fail "no warning in the log"
echo "ok 1 - API down: last state kept, age $age1 → $age2 s, error \"$err\""

# --- 2. back, with 500 for Nodes ----------------------------------------------------
kt_fake api2 --port "$PORT" --fixtures "$FIXTURES" --token "$TOKEN" --require-auth --fail nodes:1000000
wait_verdict "a re-read without Nodes" \
	'"last_refresh_error" not in v["cluster_state"] and any(f["check"] == "cluster.nodes.count" and f["status"] == "UNKNOWN" for f in v["findings"])'
line=$(kt_finding "$TMP/v.json" cluster.nodes.count)
case $line in *nodes*) ;; *) kt_fail "cluster.nodes.count does not say which resource: $line" ;; esac
[ "$(kt_requests api2 nodes 500)" -ge 1 ] || kt_fail "the fake answered no 500 for nodes"
# Nothing decided on Nodes may pass: every finding about a Node object is UNKNOWN.
bad=$(python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
print(" ".join(f["check"] for f in v["findings"] if f.get("object", "").startswith("Node/") and f["status"] == "PASS"))' "$TMP/v.json")
[ -z "$bad" ] || kt_fail "PASS on Node objects while Nodes answer 500: $bad"
echo "ok 2 - Nodes answer 500: $line"
kill "${KT_PIDS[-1]}"
wait "${KT_PIDS[-1]}" 2>/dev/null || true

# --- 3. back, with VirtualMachines too slow -----------------------------------------
kt_fake api3 --port "$PORT" --fixtures "$FIXTURES" --token "$TOKEN" --require-auth \
	--slow virtualmachines.kubevirt.io:5 --slow nodes:0.4
API3_PID=${KT_PIDS[-1]}
wait_verdict "a re-read without VirtualMachines" \
	'"last_refresh_error" not in v["cluster_state"] and not any(f["check"] == "cluster.nodes.count" and f["status"] == "UNKNOWN" for f in v["findings"]) and any(f["check"].startswith("api.vm.") and f["status"] == "UNKNOWN" for f in v["findings"])'
statuses "$TMP/v.json" api.vm. >"$TMP/vm.statuses"
if grep -v ' UNKNOWN' "$TMP/vm.statuses" | grep -q .; then
	kt_fail "VM checks decided without VirtualMachines: $(grep -v ' UNKNOWN' "$TMP/vm.statuses" | head -5 | tr '\n' ';')"
fi
echo "ok 3 - VirtualMachines slower than the timeout: $(wc -l <"$TMP/vm.statuses") VM findings, all UNKNOWN"
kt_findings "$TMP/v.json" >"$TMP/slow.findings"

# --- 4. gone in the middle of a read -----------------------------------------------
# A read starts with GET /version; 0.25 s later Nodes (0.4 s) and VirtualMachines
# (5 s) are still being answered when the server is killed. Their retries then
# cannot connect.
python3 - "$TMP/api3.log" "$API3_PID" <<'PY' || kt_fail "no new read of the API within 20 s"
import os, signal, sys, time
log, pid = sys.argv[1], int(sys.argv[2])
seen = os.path.getsize(log)
end = time.monotonic() + 20
while time.monotonic() < end:
    with open(log) as f:
        f.seek(seen)
        new = f.read()
    if '"path": "/version"' in new:
        time.sleep(0.25)
        os.kill(pid, signal.SIGKILL)
        sys.exit(0)
    time.sleep(0.02)
sys.exit(1)
PY
wait "$API3_PID" 2>/dev/null || true
wait_for 30 "the read cut short: no warning in the log" \
	grep -q 'reading the cluster state failed: the API server stopped answering during the read' "$TMP/agg.log"
wait_verdict "the failed re-read in the verdict" '"last_refresh_error" in v["cluster_state"]'
kt_findings "$TMP/v.json" >"$TMP/cut.findings"
diff <(cut -f1-4 "$TMP/slow.findings") <(cut -f1-4 "$TMP/cut.findings") >"$TMP/cut.diff" ||
	kt_fail "a read cut short replaced the last complete state: $(head -c 600 "$TMP/cut.diff")"
echo "ok 4 - killed during a read: last complete state kept ($(grep -o 'stopped answering during the read: [^;]*' "$TMP/agg.log" | head -n 1))"

stop_aggregator || kt_fail "the aggregator did not stop cleanly"
echo "PASS: api_outage"
