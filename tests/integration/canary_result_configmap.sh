#!/usr/bin/env bash
# The in-cluster route of a canary's result (docs/canary.md#in-the-cluster-a-configmap),
# against the fake kube-apiserver's canary simulation, in a namespace made beforehand
# as deploy/overlays/canary makes it (labelled managed-by hvready-canary, no run id):
#  - `canary --result-configmap NAME` creates the ConfigMap NAME in --namespace with
#    exactly what `--format json` printed (key result.json) and its own labels;
#  - a second run replaces it (PUT: the resourceVersion changes, the new run's result;
#    the ConfigMap of the first does not make it refuse its namespace);
#  - a forced conflict (another writer first: 409) is read again and retried; one that
#    never ends gives up after 5 writes: one line on stderr, exit 2, the printed result
#    kept; a ConfigMap of that name without the labels is never overwritten; the fake
#    refuses a ConfigMap above 1 MiB as kube-apiserver does (the canary's own refusal
#    is tests/unit/test_canary_result.c's);
#  - a failing step's result is written too (its exit status stays 1); a refused
#    namespace (someone else's pod in it) gets nothing;
#  - `canary --cleanup` leaves the result ConfigMap and the namespace;
#  - `report --canary-result configmap:NS/NAME` (through the API) shows the proof in
#    the gates; a missing ConfigMap, bad JSON in it, one without the key: exit 2, one line;
#  - `serve --canary-result configmap:NS/NAME` shows it and picks up a changed ConfigMap
#    on its next refresh without a restart; bad JSON is `canary.error` (no findings),
#    serve keeps running;
#  - usage: a bad configmap: reference, with --cluster-state, --cleanup with it: exit 2.
# ctest: serial
# shellcheck disable=SC2015 # "A && B || fail": fail when either is false, as meant
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
. "$HVREADY_SRC/tests/tools/canary_test_lib.sh"
canary_test_init
NS=hvready-canary
CM=hvready-canary-result
CMP=/api/v1/namespaces/$NS/configmaps/$CM
REF=configmap:$NS/$CM
# left(): the canary's labelled objects still in the fake
LEFT_PATHS=("/api/v1/pods?$SEL" "/api/v1/persistentvolumeclaims?$SEL" "/api/v1/namespaces?$SEL")

# fake NAME FAKE_ARGS...: a fresh fake with the canary's namespace made as the overlay makes it
fake() {
	local name=$1
	fresh_fake "$@"
	KC="$TMP/$name.kc"
	LOG="$TMP/$name.log"
	api POST /api/v1/namespaces '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "'$NS'",
		"labels": {"app.kubernetes.io/managed-by": "hvready-canary"}}}' >/dev/null
}

# canary NAME ARGS...: one run into $TMP/NAME.json; RC
canary() {
	local name=$1
	shift
	RC=0
	kt_run_timeout 40 "$AGG" canary --kubeconfig "$KC" --namespace "$NS" --timeout 30s \
		--format json "$@" >"$TMP/$name.json" 2>"$TMP/$name.stderr" || RC=$?
}

# cm NAME: the ConfigMap into $TMP/NAME.cm, its result.json into $TMP/NAME.cm.json
cm() {
	api GET "$CMP" >"$TMP/$1.cm"
	[ "$(field "$TMP/$1.cm" 'd.get("kind")')" = ConfigMap ] || fail "$1: no ConfigMap: $(cat "$TMP/$1.cm")"
	"$PY" -c 'import json, sys
sys.stdout.write(json.load(open(sys.argv[1]))["data"]["result.json"])' "$TMP/$1.cm" >"$TMP/$1.cm.json"
}

# puts NAME [STATUS]: PUTs of configmaps the fake answered (with that status)
puts() {
	"$PY" - "$LOG" "${2:-}" <<'EOF'
import json, sys
print(sum(1 for e in map(json.loads, open(sys.argv[1]))
          if e["method"] == "PUT" and e["resource"] == "configmaps"
          and (not sys.argv[2] or str(e["status"]) == sys.argv[2])))
EOF
}

# 1. a run creates the ConfigMap with exactly the printed JSON and its own labels
fake one
canary one --result-configmap "$CM"
[ $RC -eq 0 ] || fail "one: exit $RC: $(cat "$TMP/one.stderr")"
[ ! -s "$TMP/one.stderr" ] || fail "one: stderr: $(cat "$TMP/one.stderr")"
cm one
cmp -s "$TMP/one.json" "$TMP/one.cm.json" || fail "one: the ConfigMap is not what --format json printed: $(diff "$TMP/one.json" "$TMP/one.cm.json" | head -5)"
[ "$(field "$TMP/one.cm" 'd["metadata"]["labels"]')" = \
	'{"app.kubernetes.io/component": "canary-result", "app.kubernetes.io/managed-by": "hvready-canary-result"}' ] ||
	fail "one: labels: $(field "$TMP/one.cm" 'd["metadata"]["labels"]')"
RUN1=$(field "$TMP/one.json" 'd["run"]')
RV1=$(field "$TMP/one.cm" 'd["metadata"]["resourceVersion"]')
[ "$(grep -c '"POST", "path": "/api/v1/namespaces/'$NS'/configmaps"' "$LOG")" -eq 1 ] || fail "one: not one POST"
[ "$(puts one)" -eq 0 ] || fail "one: a PUT for a new ConfigMap"
l=$(left)
[ "$l" = "Namespace//$NS" ] || fail "one: objects left: $l"

# 2. a second run replaces it: a new resourceVersion, the new run's result
canary two --result-configmap "$CM"
[ $RC -eq 0 ] || fail "two: exit $RC: $(cat "$TMP/two.stderr")"
cm two
cmp -s "$TMP/two.json" "$TMP/two.cm.json" || fail "two: the ConfigMap is not the second run's"
RV2=$(field "$TMP/two.cm" 'd["metadata"]["resourceVersion"]')
[ "$RV2" != "$RV1" ] || fail "two: the resourceVersion did not change ($RV1)"
[ "$(field "$TMP/two.json" 'd["run"]')" != "$RUN1" ] || fail "two: the same run id"
[ "$(puts two 200)" -eq 1 ] || fail "two: not one PUT answered 200"
[ "$(field "$TMP/two.cm" 'd["metadata"]["uid"]')" = "$(field "$TMP/one.cm" 'd["metadata"]["uid"]')" ] ||
	fail "two: the ConfigMap was recreated, not updated"

# 3. --cleanup leaves the result ConfigMap and the namespace the overlay made
RC=0
kt_run_timeout 30 "$AGG" canary --kubeconfig "$KC" --namespace "$NS" --cleanup --timeout 20s \
	--format json >"$TMP/cleanup.json" 2>"$TMP/cleanup.stderr" || RC=$?
[ $RC -eq 0 ] || fail "cleanup: exit $RC: $(cat "$TMP/cleanup.stderr")"
sleep 0.5 # a namespace deleted by mistake would take its ConfigMap with it within a tick
cm cleanup
cmp -s "$TMP/two.cm" "$TMP/cleanup.cm" || fail "cleanup: the ConfigMap changed"
api GET /api/v1/namespaces/$NS >"$TMP/ns.json"
[ "$(field "$TMP/ns.json" '"deletionTimestamp" in d["metadata"]')" = False ] ||
	fail "cleanup: the namespace made beforehand is being deleted"
if grep -q '"DELETE", "path": "/api/v1/namespaces/'$NS'"' "$LOG"; then fail "cleanup: deleted the namespace"; fi
if grep -q '"DELETE", "path": "[^"]*configmaps' "$LOG"; then fail "cleanup: deleted a ConfigMap"; fi
# the usage: --cleanup writes no result (it would replace the last run's proof)
RC=0
"$AGG" canary --kubeconfig "$KC" --cleanup --result-configmap "$CM" >/dev/null 2>"$TMP/u.err" || RC=$?
[ $RC -eq 2 ] || fail "--cleanup --result-configmap: exit $RC, want 2"

# 4. report through the API: the proof in the gates
RC=0
kt_run_timeout 30 "$AGG" report --kubeconfig "$KC" --canary-result "$REF" --format json \
	>"$TMP/report.json" 2>"$TMP/report.err" || RC=$?
[ $RC -ne 2 ] || fail "report: exit $RC: $(cat "$TMP/report.err")"
RUN2=$(field "$TMP/two.json" 'd["run"]')
[[ $(field "$TMP/report.json" 'd["gates"]["rwx"].get("canary")') == "proved by canary run $RUN2, "*" ago" ]] ||
	fail "report: gates.rwx.canary is $(field "$TMP/report.json" 'd["gates"]["rwx"].get("canary")')"
[ "$(field "$TMP/report.json" '[d["canary"][k] for k in ("source", "run")]')" = "[\"$REF\", \"$RUN2\"]" ] ||
	fail "report: the canary member: $(field "$TMP/report.json" 'd["canary"]')"
grep -q '"GET", "path": "'$CMP'", "query": "", "status": 200' "$LOG" || fail "report: no GET of the ConfigMap"

# 5. serve shows it, and a changed ConfigMap on its next refresh, without a restart
start_aggregator "$TMP/serve.log" --kubeconfig "$KC" --insecure-no-auth --interval 1 \
	--canary-result "$REF" || fail "serve did not start: $(cat "$TMP/serve.log")"
SPID=$AGG_PID
serve_run() { # serve_run RUN: /v1/verdict's canary run is RUN
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$TMP/verdict.json" 2>/dev/null &&
		[ "$(field "$TMP/verdict.json" '(d.get("canary") or {}).get("run")')" = "$1" ]
}
wait_for 20 "serve: run $RUN2 from the ConfigMap" serve_run "$RUN2"
[[ $(field "$TMP/verdict.json" 'd["gates"]["rwx"].get("canary")') == "proved by canary run $RUN2, "* ]] ||
	fail "serve: no proof on the rwx gate: $(field "$TMP/verdict.json" 'd["gates"]["rwx"]')"
[ "$(field "$TMP/verdict.json" 'd["canary"]["source"]')" = "$REF" ] || fail "serve: the source"
canary three --result-configmap "$CM"
[ $RC -eq 0 ] || fail "three: exit $RC: $(cat "$TMP/three.stderr")"
RUN3=$(field "$TMP/three.json" 'd["run"]')
wait_for 20 "serve: the new run $RUN3" serve_run "$RUN3"
# bad JSON in it: canary.error with the reason, no canary findings, serve still answers
cm three
"$PY" - "$TMP/three.cm" >"$TMP/bad.cm" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["data"]["result.json"] = '{"schema": "hvready.canary/v1", "run": '
print(json.dumps(d))
EOF
api PUT "$CMP" "$(cat "$TMP/bad.cm")" >/dev/null
serve_error() {
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$TMP/verdict.json" 2>/dev/null &&
		[[ $(field "$TMP/verdict.json" '(d.get("canary") or {}).get("error")') == "$REF: not JSON: "* ]]
}
wait_for 20 "serve: the bad ConfigMap named in canary.error" serve_error
[ "$(field "$TMP/verdict.json" '[f for f in d["findings"] if f["check"].startswith("canary.")]')" = "[]" ] ||
	fail "serve: a bad ConfigMap still gives findings"
# 6. report of the bad one: exit 2, one line
RC=0
kt_run_timeout 30 "$AGG" report --kubeconfig "$KC" --canary-result "$REF" >/dev/null 2>"$TMP/bad.err" || RC=$?
[ $RC -eq 2 ] || fail "report bad: exit $RC, want 2"
[ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -q "$REF: not JSON: " "$TMP/bad.err" ||
	fail "report bad: $(cat "$TMP/bad.err")"
# a ConfigMap without the key, then none at all: report exit 2, serve canary.error
api PUT "$CMP" '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "'$CM'", "labels": {"app.kubernetes.io/managed-by": "hvready-canary-result"}}, "data": {"other": "x"}}' >/dev/null
RC=0
kt_run_timeout 30 "$AGG" report --kubeconfig "$KC" --canary-result "$REF" >/dev/null 2>"$TMP/nokey.err" || RC=$?
[ $RC -eq 2 ] && [ "$(wc -l <"$TMP/nokey.err")" -eq 1 ] && grep -q "$REF: no data key result.json" "$TMP/nokey.err" ||
	fail "report nokey: exit $RC: $(cat "$TMP/nokey.err")"
api DELETE "$CMP" >/dev/null
RC=0
kt_run_timeout 30 "$AGG" report --kubeconfig "$KC" --canary-result "$REF" >/dev/null 2>"$TMP/gone.err" || RC=$?
[ $RC -eq 2 ] && [ "$(wc -l <"$TMP/gone.err")" -eq 1 ] && grep -q "$REF: no such ConfigMap" "$TMP/gone.err" ||
	fail "report gone: exit $RC: $(cat "$TMP/gone.err")"
serve_gone() {
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$TMP/verdict.json" 2>/dev/null &&
		[[ $(field "$TMP/verdict.json" '(d.get("canary") or {}).get("error")') == "$REF: no such ConfigMap"* ]]
}
wait_for 20 "serve: the missing ConfigMap named in canary.error" serve_gone
kill -0 "$SPID" || fail "serve died"
stop_aggregator || fail "serve did not exit cleanly: $(tail -5 "$TMP/serve.log")"

# 7. a forced conflict: another writer updates it before the PUT; read again, retried
fake race --race-put 'configmaps:2'
canary r1 --result-configmap "$CM"
[ $RC -eq 0 ] || fail "r1: exit $RC: $(cat "$TMP/r1.stderr")"
canary r2 --result-configmap "$CM"
[ $RC -eq 0 ] || fail "r2: exit $RC after conflicts: $(cat "$TMP/r2.stderr")"
[ "$(puts r2 409)" -eq 2 ] && [ "$(puts r2 200)" -eq 1 ] ||
	fail "r2: PUTs $(puts r2 409) x 409, $(puts r2 200) x 200; want 2 and 1"
cm r2
cmp -s "$TMP/r2.json" "$TMP/r2.cm.json" || fail "r2: the ConfigMap is not the retried run's"
# a conflict that never ends: 5 writes, then one line, exit 2, the printed result kept
fake endless --race-put 'configmaps:100'
canary e1 --result-configmap "$CM"
canary e2 --result-configmap "$CM"
[ $RC -eq 2 ] || fail "e2: exit $RC, want 2"
[ "$(puts e2 409)" -eq 5 ] || fail "e2: $(puts e2 409) PUTs, want 5"
[ "$(wc -l <"$TMP/e2.stderr")" -eq 1 ] && grep -q "still in conflict after 5 attempts" "$TMP/e2.stderr" ||
	fail "e2: stderr: $(cat "$TMP/e2.stderr")"
[ "$(field "$TMP/e2.json" 'd["status"]')" = PASS ] || fail "e2: the printed result was lost"
# someone else's ConfigMap of that name is never overwritten
api DELETE "$CMP" >/dev/null
api POST /api/v1/namespaces/$NS/configmaps '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "'$CM'"}, "data": {"x": "y"}}' >/dev/null
canary foreign --result-configmap "$CM"
[ $RC -eq 2 ] && grep -q "exists and is not a canary result" "$TMP/foreign.stderr" ||
	fail "foreign: exit $RC: $(cat "$TMP/foreign.stderr")"
api GET "$CMP" >"$TMP/foreign.cm"
[ "$(field "$TMP/foreign.cm" 'd["data"]')" = '{"x": "y"}' ] || fail "foreign: overwritten"

# 8. a failing step's result is written too, and its exit status stays 1
fake mismatch --canary-fault read-mismatch
canary mm --result-configmap "$CM"
[ $RC -eq 1 ] || fail "mm: exit $RC, want 1: $(cat "$TMP/mm.stderr")"
cm mm
cmp -s "$TMP/mm.json" "$TMP/mm.cm.json" || fail "mm: the failing run's result is not in the ConfigMap"
[ "$(field "$TMP/mm.cm.json" '[f["status"] for f in d["findings"] if f["check"] == "canary.rwx"]')" = '["FAIL"]' ] ||
	fail "mm: canary.rwx is not FAIL in the ConfigMap"

# 8b. a refused namespace (someone else's pod in it): nothing written there
api POST /api/v1/namespaces/$NS/pods '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}' >/dev/null
n_cm=$(grep -c '"path": "/api/v1/namespaces/'$NS'/configmaps' "$LOG" || true)
canary refused --result-configmap "$CM"
[ $RC -eq 2 ] || fail "refused: exit $RC, want 2: $(cat "$TMP/refused.stderr")"
grep -q "result-configmap $CM: not written: namespace $NS was refused" "$TMP/refused.stderr" ||
	fail "refused: stderr: $(cat "$TMP/refused.stderr")"
[ "$(grep -c '"path": "/api/v1/namespaces/'$NS'/configmaps' "$LOG" || true)" = "$n_cm" ] ||
	fail "refused: the canary touched ConfigMaps in a refused namespace"

# 9. the 1 MiB limit of a ConfigMap: the fake holds it as kube-apiserver does (keys
#    and values together), for a create and a replace
"$PY" - "$FAKE_PORT" "$TMP/pki" "$NS" >"$TMP/big.out" <<'EOF'
import json, ssl, sys, urllib.request, urllib.error
port, pki, ns = sys.argv[1:4]
ctx = ssl.create_default_context(cafile=pki + "/server-ca.crt")
ctx.load_cert_chain(pki + "/client.crt", pki + "/client.key")
def call(method, path, obj):
    req = urllib.request.Request("https://127.0.0.1:%s%s" % (port, path), method=method,
                                 data=json.dumps(obj).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        return urllib.request.urlopen(req, context=ctx, timeout=10).status
    except urllib.error.HTTPError as e:
        return e.code
cm = lambda n: {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"},
                "data": {"k": "x" * n}}
base = "/api/v1/namespaces/%s/configmaps" % ns
# "k" is one byte of the 1 MiB
print(call("POST", base, cm(1 << 20)), call("POST", base, cm((1 << 20) - 1)),
      call("PUT", base + "/big", cm(1 << 20)))
EOF
[ "$(cat "$TMP/big.out")" = "422 201 422" ] || fail "the fake's 1 MiB limit: $(cat "$TMP/big.out")"
kt_cleanup

# 10. usage: exit 2
for args in "report --kubeconfig $KC --canary-result configmap:$NS" \
	"report --kubeconfig $KC --canary-result configmap:Bad_NS/x" \
	"report --cluster-state $HVREADY_SRC/examples/cluster --canary-result $REF" \
	"serve --cluster-state $HVREADY_SRC/examples/cluster --insecure-no-auth --listen 127.0.0.1:0 --canary-result $REF" \
	"serve --kubeconfig $KC --insecure-no-auth --listen 127.0.0.1:0 --canary-result configmap:/x" \
	"canary --kubeconfig $KC --result-configmap Bad_Name"; do
	RC=0
	# shellcheck disable=SC2086
	kt_run_timeout 10 "$AGG" $args >/dev/null 2>"$TMP/usage.err" || RC=$?
	[ $RC -eq 2 ] || fail "$args: exit $RC, want 2"
	[ "$(wc -l <"$TMP/usage.err")" -eq 1 ] || fail "$args: $(cat "$TMP/usage.err")"
done
echo "PASS: canary --result-configmap, --canary-result configmap:"
