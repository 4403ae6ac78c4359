#!/usr/bin/env bash
# `hvready-aggregator canary` step rwx and its cleanup (docs/canary.md)
# against the fake kube-apiserver's canary simulation (tests/tools/fake_canary.py):
#  - success: canary.rwx PASS with the token read back, canary.cleanup PASS,
#    zero labelled objects left (nor the Longhorn volume behind the PVC);
#  - share-manager image pull fails, the PVC never binds, the reader reads
#    something else, a 500 on a POST mid-run, SIGTERM mid-run: each the right
#    status and message naming the broken link, never PASS, within --timeout,
#    zero objects left;
#  - preconditions (a cordoned --node, a migratable --rwx-class: UNKNOWN; one
#    node: SKIP) create nothing;
#  - a namespace holding someone else's pod is refused (exit 2) and untouched;
#  - --keep leaves the objects, `canary --cleanup` removes them.
# ctest: serial
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"

. "$HVREADY_SRC/tests/tools/canary_test_lib.sh"
canary_test_init
# left() lists these: the labelled objects still in the fake, and Longhorn's
# volumes and share-manager pods behind them.
LEFT_PATHS=("/api/v1/pods?$SEL" "/api/v1/persistentvolumeclaims?$SEL" "/api/v1/namespaces?$SEL"
	"/apis/longhorn.io/v1beta2/volumes" "/apis/longhorn.io/v1beta2/sharemanagers"
	"/api/v1/namespaces/longhorn-system/pods")

# 1. success
run ok 30 --
[ $RC -eq 0 ] || fail "ok: exit $RC: $(cat "$TMP/ok.stderr")"
expect ok canary.rwx PASS "a token written on hv-node-1 was read back on hv-node-2 through an RWX volume of StorageClass longhorn-rwx (*s)"
expect ok canary.cleanup PASS "removed 4 objects in *s"
grep -q '"reader_result": "read-ok [0-9a-f]\{32\}"' "$TMP/ok.json" || fail "ok: no reader_result evidence"
grep -q '"image": "registry.example.com/hvready/hvready-agent:0.9.0"' "$TMP/ok.json" ||
	fail "ok: the pods do not use the agent DaemonSet's image"
nothing_left ok

# 1b. the same run --in-cluster, as the CronJob of deploy/overlays/canary runs it: the API
#     server from KUBERNETES_SERVICE_HOST/PORT, the pod's ServiceAccount token and CA
#     (HVREADY_SA_DIR stands for /var/run/secrets/kubernetes.io/serviceaccount), the token
#     required by the fake and never printed.
kt_cleanup
SA_TOKEN="hvready-canary-sa-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
kt_fake incluster --fixtures "$FIX" --canary-sim --token "$SA_TOKEN" --require-auth \
	--client-ca "$TMP/pki/client-ca.crt"
mkdir -p "$TMP/sa"
cp "$TMP/pki/server-ca.crt" "$TMP/sa/ca.crt"
printf '%s' "$SA_TOKEN" >"$TMP/sa/token"
printf 'hvready-system' >"$TMP/sa/namespace"
RC=0
KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$FAKE_PORT HVREADY_SA_DIR="$TMP/sa" \
	kt_run_timeout 40 "$AGG" canary --in-cluster --timeout 30s --format json \
	>"$TMP/incluster.json" 2>"$TMP/incluster.stderr" || RC=$?
[ $RC -eq 0 ] || fail "incluster: exit $RC: $(cat "$TMP/incluster.stderr")"
expect incluster canary.rwx PASS "a token written on hv-node-1 was read back on hv-node-2 *"
expect incluster canary.cleanup PASS "removed 4 objects in *s"
out=$(cat "$TMP/incluster.json" "$TMP/incluster.stderr")
[[ $out != *"$SA_TOKEN"* ]] || fail "incluster: the ServiceAccount token in the output"
nothing_left incluster

# 2. the share-manager image cannot be pulled: the first broken link, quoted
run smpull 20 --canary-fault share-manager-pull --
[ $RC -eq 1 ] || fail "smpull: exit $RC, want 1"
expect smpull canary.rwx FAIL '*share-manager pod longhorn-system/share-manager-pvc-* is not running (Pending, ErrImagePull): "Failed: Failed to pull image "longhornio/longhorn-share-manager:v1.9.1": rpc error: code = NotFound*'
expect smpull canary.cleanup PASS "removed 3 objects in *s"
within smpull 20
nothing_left smpull

# 3. the PVC never binds
run nobind 20 --canary-fault pvc-never-binds --
[ $RC -eq 1 ] || fail "nobind: exit $RC, want 1"
expect nobind canary.rwx FAIL "the PVC hvready-canary/hvready-canary-rwx-* is not Bound after *s (Pending): \"ExternalProvisioning: Waiting for a volume to be created either by the external provisioner 'driver.longhorn.io'*"
within nobind 20
nothing_left nobind

# 4. the reader reads something else
run mismatch 30 --canary-fault read-mismatch --
[ $RC -eq 1 ] || fail "mismatch: exit $RC, want 1"
expect mismatch canary.rwx FAIL 'the reader on hv-node-2 did not see what the writer on hv-node-1 wrote: read-mismatch want * got "stale" (5 bytes)'
nothing_left mismatch

# 5. a 500 mid-run (the second pod's POST): UNKNOWN, cleaned up
run api500 30 --fail-post 'pods:1:100' --
[ $RC -eq 3 ] || fail "api500: exit $RC, want 3"
expect api500 canary.rwx UNKNOWN "cannot create the read pod: POST /api/v1/namespaces/hvready-canary/pods: HTTP 500: Internal error occurred: *"
expect api500 canary.cleanup PASS "removed 3 objects in *s"
nothing_left api500

# 6. SIGTERM while the writer runs
fresh_fake sigterm --pod-seconds 60
"$AGG" canary --kubeconfig "$TMP/sigterm.kc" --timeout 60s --format json >"$TMP/sigterm.json" 2>"$TMP/sigterm.stderr" &
sigterm_when sigterm $! 15 "the writer pod to be created" grep -q '"POST", "path": "/api/v1/namespaces/hvready-canary/pods"' "$TMP/sigterm.log"
expect sigterm canary.rwx UNKNOWN "interrupted by signal 15 after *s, waiting for the write pod on hv-node-1"
expect sigterm canary.cleanup PASS "removed 3 objects in *s"
nothing_left sigterm

# 6b. a pod that never goes (a finalizer nobody removes): the residue is a FAIL naming it,
# within --timeout
run stuck 20 --canary-fault stuck-finalizer --
[ $RC -eq 1 ] || fail "stuck: exit $RC, want 1"
expect stuck canary.rwx PASS "*"
expect stuck canary.cleanup FAIL "* left after *s: Pod/hvready-canary/hvready-canary-rwx-write-* (Terminating), Pod/hvready-canary/hvready-canary-rwx-read-* (Terminating), Namespace/hvready-canary (Terminating)"
within stuck 20

# 7. usage errors: exit 2, nothing created
rc=0
"$AGG" canary >/dev/null 2>"$TMP/usage.err" || rc=$?
[ $rc -eq 2 ] || fail "canary without --kubeconfig/--in-cluster: exit $rc, want 2"
n_before=$(grep -c '"POST"' "$TMP/stuck.log")
for args in "--steps nfs" "--node hv-node-1" "--timeout 5s" "--cleanup --keep" "--namespace Bad_NS"; do
	rc=0
	# shellcheck disable=SC2086
	"$AGG" canary --kubeconfig "$TMP/stuck.kc" $args >/dev/null 2>"$TMP/usage.err" || rc=$?
	[ $rc -eq 2 ] || fail "canary $args: exit $rc, want 2"
done
[ "$(grep -c '"POST"' "$TMP/stuck.log")" -eq "$n_before" ] || fail "a usage error created objects"

# 7b. preconditions: nothing is created
run cordoned 20 -- --node hv-node-1 --node hv-node-3
[ $RC -eq 3 ] || fail "cordoned: exit $RC, want 3"
expect cordoned canary.rwx UNKNOWN "--node: hv-node-3 (cordoned) cannot run the canary's pods"
expect cordoned canary.cleanup PASS "nothing to remove"
if grep -q '"POST"' "$TMP/cordoned.log"; then fail "cordoned: the canary created objects"; fi
run migratable 20 -- --rwx-class harvester-longhorn
[ $RC -eq 3 ] || fail "migratable: exit $RC, want 3"
expect migratable canary.rwx UNKNOWN "--rwx-class harvester-longhorn: it is migratable *"
if grep -q '"POST"' "$TMP/migratable.log"; then fail "migratable: the canary created objects"; fi

# a one-node cluster: SKIP, nothing created
fixture_variant one-node '
p = os.path.join(d, "nodes.json"); n = json.load(open(p))
n["items"] = n["items"][:1]
json.dump(n, open(p, "w"))'
run onenode 20 --
fixture_reset
[ $RC -eq 0 ] || fail "onenode: exit $RC, want 0"
expect onenode canary.rwx SKIP "the cluster has 1 node: a share between two nodes cannot be tested"
if grep -q '"POST"' "$TMP/onenode.log"; then fail "onenode: the canary created objects"; fi

# 8. a namespace with someone else's pod: refused, untouched
fresh_fake refuse
api POST /api/v1/namespaces '{"metadata":{"name":"team-a"}}' >/dev/null
api POST /api/v1/namespaces/team-a/pods '{"metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}' >/dev/null
RC=0
"$AGG" canary --kubeconfig "$TMP/refuse.kc" --namespace team-a --timeout 20s --format json >"$TMP/refuse.json" 2>"$TMP/refuse.stderr" || RC=$?
[ $RC -eq 2 ] || fail "refuse: exit $RC, want 2"
expect refuse canary.rwx UNKNOWN "refused: namespace team-a holds objects the canary did not create (Pod/team-a/web)*"
api GET /api/v1/namespaces/team-a/pods/web | grep -q '"web"' || fail "refuse: the foreign pod is gone"
if grep -q '"DELETE"' "$TMP/refuse.log"; then fail "refuse: the canary deleted something"; fi
[ "$(grep -c '"POST"' "$TMP/refuse.log")" -eq 2 ] || fail "refuse: the canary created objects"

# 9. --keep, then canary --cleanup
run keep 30 -- --keep
[ $RC -eq 0 ] || fail "keep: exit $RC"
expect keep canary.cleanup SKIP "--keep: left 4 objects: *"
[ "$(left | grep -c hvready-canary)" -ge 4 ] || fail "keep: objects not left: $(left)"
RC=0
"$AGG" canary --kubeconfig "$TMP/keep.kc" --cleanup --timeout 20s --format json >"$TMP/cleanup.json" 2>"$TMP/cleanup.stderr" || RC=$?
[ $RC -eq 0 ] || fail "cleanup: exit $RC: $(cat "$TMP/cleanup.stderr")"
expect cleanup canary.cleanup PASS "removed 4 objects in *s"
nothing_left cleanup

# 10. the other formats render the findings
for fmt in text markdown html; do
	"$AGG" canary --kubeconfig "$TMP/keep.kc" --cleanup --timeout 10s --format $fmt >"$TMP/f.$fmt" ||
		fail "--format $fmt: exit $?"
	grep -q "canary.cleanup" "$TMP/f.$fmt" || fail "--format $fmt: no canary.cleanup"
done
echo PASS
