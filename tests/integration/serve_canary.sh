#!/usr/bin/env bash
# serve --canary-interval (docs/canary.md#results-in-the-gates) against the fake
# kube-apiserver's canary simulation:
#  - the first run starts at once; its result is in /v1/verdict ("canary" member,
#    gates.rwx.canary "proved by canary run RUN, ...") and in /metrics;
#  - runs never overlap: a run still going when the next is due skips it (one
#    namespace created, the skip counted and logged);
#  - SIGTERM during a run: serve stops the canary, which cleans up: serve exits 0
#    and the fake holds zero canary objects;
#  - the --canary-* options reach the run (--canary-storage-class);
#  - --canary-result: a file written later is read (and a bad one named, no proof);
#  - usage: --canary-* without --canary-interval, --canary-interval offline: exit 2.
# ctest: serial
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
. "$HVREADY_SRC/tests/tools/serve_lib.sh"

. "$HVREADY_SRC/tests/tools/canary_test_lib.sh"
canary_test_init
# left(): the canary's objects still in the fake (and Longhorn's behind them)
LEFT_PATHS=("/api/v1/pods?$SEL" "/api/v1/persistentvolumeclaims?$SEL" "/api/v1/namespaces?$SEL"
	"/apis/longhorn.io/v1beta2/volumes" "/apis/longhorn.io/v1beta2/sharemanagers"
	"/api/v1/namespaces/longhorn-system/pods")

verdict_has_run() {
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$TMP/verdict.json" 2>/dev/null &&
		[ "$(field "$TMP/verdict.json" '(d.get("canary") or {}).get("run")')" != None ]
}

# 1. the first run's result in /v1/verdict and /metrics
fresh_fake one
start_aggregator "$TMP/one.serve.log" --kubeconfig "$TMP/one.kc" --insecure-no-auth \
	--canary-interval 1h --canary-timeout 30s --canary-steps rwx ||
	fail "serve did not start: $(cat "$TMP/one.serve.log")"
wait_for 40 "the first canary result in /v1/verdict" verdict_has_run
RUN=$(field "$TMP/verdict.json" 'd["canary"]["run"]')
[ "$(field "$TMP/verdict.json" '[d["canary"][k] for k in ("source", "status", "stale")]')" = \
	'["serve --canary-interval", "PASS", false]' ] || fail "one: the canary member: $(field "$TMP/verdict.json" 'd["canary"]')"
[ "$(field "$TMP/verdict.json" 'd["canary"]["schedule"]["interval_seconds"]')" = 3600 ] ||
	fail "one: no schedule: $(field "$TMP/verdict.json" 'd["canary"]')"
got=$(field "$TMP/verdict.json" 'd["gates"]["rwx"].get("canary")')
[[ $got == "proved by canary run $RUN, "*" ago" ]] || fail "one: gates.rwx.canary is \"$got\""
got=$(field "$TMP/verdict.json" '[f["status"] for f in d["findings"] if f["check"] == "canary.rwx"]')
[ "$got" = '["PASS"]' ] || fail "one: canary.rwx findings: $got"
curl -fsS --max-time 5 "$AGG_URL/metrics" >"$TMP/one.metrics"
grep -q "^hvready_canary_last_run_timestamp_seconds{run=\"$RUN\"} [0-9]" "$TMP/one.metrics" ||
	fail "one: no hvready_canary_last_run_timestamp_seconds: $(grep canary "$TMP/one.metrics")"
grep -q '^hvready_canary_step_status{check="canary.rwx",status="PASS"} 1$' "$TMP/one.metrics" ||
	fail "one: no canary.rwx step status metric"
grep -q '^hvready_canary_runs_total 1$' "$TMP/one.metrics" || fail "one: runs_total is not 1"
grep -q '^hvready_canary_running 0$' "$TMP/one.metrics" || fail "one: running is not 0"
grep -q '^hvready_canary_result_stale 0$' "$TMP/one.metrics" || fail "one: stale is not 0"
curl -fsS --max-time 5 "$AGG_URL/v1/verdict?format=text" >"$TMP/one.txt"
grep -Eq "^  rwx +[A-Z]+ .*proved by canary run $RUN, " "$TMP/one.txt" || fail "one: text has no proof"
curl -fsS --max-time 5 "$AGG_URL/" >"$TMP/one.html"
grep -q "<p class=\"canary\" id=\"canary\" data-stale=\"false\">Canary: run $RUN (PASS) ended " "$TMP/one.html" ||
	fail "one: the dashboard has no canary line"
grep -q "<p class=\"canary\">proved by canary run $RUN, " "$TMP/one.html" ||
	fail "one: the dashboard's rwx card has no proof"
[ -z "$(left)" ] || fail "one: objects left: $(left)"
stop_aggregator || fail "one: serve did not exit cleanly: $(tail -5 "$TMP/one.serve.log")"
kt_cleanup

# 1b. the canary options reach the run: --canary-storage-class names a class
# that does not exist, so the VM step says so (and creates nothing)
fresh_fake opts
start_aggregator "$TMP/opts.serve.log" --kubeconfig "$TMP/opts.kc" --insecure-no-auth \
	--canary-interval 1h --canary-timeout 30s --canary-steps vm --canary-storage-class nope ||
	fail "serve did not start: $(cat "$TMP/opts.serve.log")"
wait_for 40 "the canary result in /v1/verdict" verdict_has_run
got=$(field "$TMP/verdict.json" '[(f["status"], f["message"]) for f in d["findings"] if f["check"] == "canary.vm.start"]')
# (a step that could not decide is "not proved", WARN, in the gates)
[[ $got == '[["WARN", "not proved: canary run '*', could not decide: --storage-class nope: no such StorageClass"]]' ]] ||
	fail "opts: canary.vm.start is $got"
stop_aggregator || fail "opts: serve did not exit cleanly: $(tail -5 "$TMP/opts.serve.log")"
kt_cleanup

# 2. a slow run: the next interval is skipped, not overlapped; SIGTERM mid-run cleans up
fresh_fake slow --pod-seconds 120
start_aggregator "$TMP/slow.serve.log" --kubeconfig "$TMP/slow.kc" --insecure-no-auth \
	--canary-interval 10s --canary-timeout 90s ||
	fail "serve did not start: $(cat "$TMP/slow.serve.log")"
wait_for 20 "the writer pod" grep -q '"POST", "path": "/api/v1/namespaces/hvready-canary/pods"' "$TMP/slow.log"
wait_for 20 "a skipped interval" grep -q "still going: this interval's run is skipped" "$TMP/slow.serve.log"
[ "$(grep -c 'canary: run started' "$TMP/slow.serve.log")" -eq 1 ] ||
	fail "slow: more than one run started: $(grep canary "$TMP/slow.serve.log")"
[ "$(grep -c '"POST", "path": "/api/v1/namespaces"' "$TMP/slow.log")" -eq 1 ] ||
	fail "slow: two runs created namespaces"
curl -fsS --max-time 5 "$AGG_URL/metrics" >"$TMP/slow.metrics"
grep -q '^hvready_canary_running 1$' "$TMP/slow.metrics" || fail "slow: running is not 1"
grep -Eq '^hvready_canary_runs_skipped_total [1-9]' "$TMP/slow.metrics" || fail "slow: no skipped run counted"
CPID=$(grep -o 'canary: run started (pid [0-9]*' "$TMP/slow.serve.log" | grep -o '[0-9]*$')
kill -0 "$CPID" || fail "slow: the canary (pid $CPID) is not running"
[ -n "$(left)" ] || fail "slow: the canary made nothing in the fake"
t0=$SECONDS
kill -TERM "$AGG_PID"
rc=0
for _ in $(seq 1 300); do
	kill -0 "$AGG_PID" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$AGG_PID" 2>/dev/null && fail "slow: serve still running 30 s after SIGTERM"
wait "$AGG_PID" || rc=$?
AGG_PID=""
[ "$rc" -eq 0 ] || fail "slow: serve exited $rc: $(tail -5 "$TMP/slow.serve.log")"
[ $((SECONDS - t0)) -le 30 ] || fail "slow: serve took $((SECONDS - t0))s to stop"
kill -0 "$CPID" 2>/dev/null && fail "slow: the canary (pid $CPID) outlived serve"
grep -q "stopping the running canary (pid $CPID)" "$TMP/slow.serve.log" || fail "slow: the canary was not stopped by serve"
l=$(left)
[ -z "$l" ] || fail "slow: objects left after SIGTERM: $l"
kt_cleanup

# 3. --canary-result in serve: a file that appears later is read; a bad one is named
fresh_fake three
kt_run_timeout 40 "$AGG" canary --kubeconfig "$TMP/three.kc" --timeout 30s --format json \
	>"$TMP/result.json" 2>"$TMP/three.canary.err" || true
FRUN=$(field "$TMP/result.json" 'd["run"]')
start_aggregator "$TMP/three.serve.log" --kubeconfig "$TMP/three.kc" --insecure-no-auth \
	--canary-result "$TMP/later.json" || fail "serve did not start: $(cat "$TMP/three.serve.log")"
curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$TMP/three0.json"
[ "$(field "$TMP/three0.json" '"canary" in d')" = False ] || fail "three: a canary member without a file"
cp "$TMP/result.json" "$TMP/later.json.tmp" && mv "$TMP/later.json.tmp" "$TMP/later.json"
got_run() {
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$TMP/three.json" 2>/dev/null &&
		[ "$(field "$TMP/three.json" '(d.get("canary") or {}).get("run")')" = "$FRUN" ]
}
wait_for 20 "the file's result in /v1/verdict" got_run
[[ $(field "$TMP/three.json" 'd["gates"]["rwx"]["canary"]') == "proved by canary run $FRUN, "* ]] ||
	fail "three: no proof on the rwx gate"
echo '{"schema": "hvready.canary/v1", "run": ' >"$TMP/later.json.tmp"
mv "$TMP/later.json.tmp" "$TMP/later.json"
got_error() {
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$TMP/three.json" 2>/dev/null &&
		[[ $(field "$TMP/three.json" '(d.get("canary") or {}).get("error")') == *"later.json: not JSON: "* ]]
}
wait_for 20 "the bad file named in /v1/verdict" got_error
[ "$(field "$TMP/three.json" '[f for f in d["findings"] if f["check"].startswith("canary.")]')" = "[]" ] ||
	fail "three: a bad file still gives findings"
stop_aggregator || fail "three: serve did not exit cleanly"
kt_cleanup

# 4. usage
for args in "--canary-steps rwx" "--canary-node a --canary-interval 1m" "--canary-interval 5s" \
	"--canary-interval 1m --canary-namespace Bad_NS" "--canary-interval 1m --canary-steps nfs"; do
	rc=0
	# shellcheck disable=SC2086
	"$AGG" serve --kubeconfig "$TMP/three.kc" --insecure-no-auth --listen 127.0.0.1:0 $args \
		>/dev/null 2>"$TMP/usage.err" || rc=$?
	[ $rc -eq 2 ] || fail "serve $args: exit $rc, want 2"
done
rc=0
"$AGG" serve --cluster-state "$HVREADY_SRC/examples/cluster" --insecure-no-auth --listen 127.0.0.1:0 \
	--canary-interval 1m >/dev/null 2>"$TMP/usage.err" || rc=$?
[ $rc -eq 2 ] || fail "serve --cluster-state --canary-interval: exit $rc, want 2"
echo "PASS: serve --canary-interval and --canary-result"
