# shellcheck shell=bash
# Shared by the canary's integration tests (sourced; it sources kube_test_lib.sh;
# then canary_test_init): requests to the fake, one canary run against a fresh fake,
# and what the fake still holds.
#   FIX          the fixture directory run() serves (canary_test_init sets the
#                canary fixtures; fixture_variant points it at a changed copy
#                until fixture_reset)
#   LEFT_PATHS   the API paths left() lists (the caller sets them; for the
#                snapshot tests canary_test_init snapshot does)
#   SEL          a labelSelector query of the canary's objects

# shellcheck source=kube_test_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/kube_test_lib.sh"

# canary_test_init [snapshot]: test_init (the fakes stopped at exit), the fake's
# PKI in $TMP/pki, FIX at the canary fixtures. With "snapshot" (the snapshot
# tests): STEPS, the steps vm, snapshot and restore, and LEFT_PATHS every kind
# they make or lead to (CANARY_SNAPSHOT_PATHS).
canary_test_init() {
	test_init
	kt_pki "$TMP/pki"
	FIX="$HVREADY_SRC/tests/fixtures/canary"
	if [ "${1:-}" = snapshot ]; then
		# shellcheck disable=SC2034 # the caller's
		STEPS=(--steps "vm,snapshot,restore")
		LEFT_PATHS=("${CANARY_SNAPSHOT_PATHS[@]}")
	fi
}

SEL="labelSelector=app.kubernetes.io%2Fmanaged-by%3Dhvready-canary"
# The kinds the vm, snapshot and restore steps make or lead to (the fixtures hold none).
CANARY_SNAPSHOT_PATHS=("/api/v1/namespaces?$SEL" "/api/v1/pods" "/api/v1/persistentvolumeclaims"
	"/apis/kubevirt.io/v1/virtualmachines" "/apis/kubevirt.io/v1/virtualmachineinstances"
	"/apis/cdi.kubevirt.io/v1beta1/datavolumes"
	"/apis/snapshot.kubevirt.io/v1beta1/virtualmachinesnapshots"
	"/apis/snapshot.kubevirt.io/v1beta1/virtualmachinesnapshotcontents"
	"/apis/snapshot.kubevirt.io/v1beta1/virtualmachinerestores"
	"/apis/snapshot.storage.k8s.io/v1/volumesnapshots"
	"/apis/snapshot.storage.k8s.io/v1/volumesnapshotcontents"
	"/apis/longhorn.io/v1beta2/volumes" "/apis/longhorn.io/v1beta2/replicas"
	"/apis/longhorn.io/v1beta2/snapshots" "/apis/longhorn.io/v1beta2/backups")

# api METHOD PATH [BODY]: a request to the fake with the admin certificate; prints the answer.
api() {
	"$PY" - "$FAKE_PORT" "$TMP/pki" "$@" <<'PYEOF'
import json, ssl, sys, urllib.request, urllib.error
port, pki, method, path = sys.argv[1:5]
body = sys.argv[5].encode() if len(sys.argv) > 5 else None
ctx = ssl.create_default_context(cafile=pki + "/server-ca.crt")
ctx.load_cert_chain(pki + "/client.crt", pki + "/client.key")
req = urllib.request.Request("https://127.0.0.1:%s%s" % (port, path), data=body, method=method,
                             headers={"Content-Type": "application/json"})
try:
    print(urllib.request.urlopen(req, context=ctx, timeout=10).read().decode())
except urllib.error.HTTPError as e:
    print(e.read().decode())
PYEOF
}

# left: the objects still in the fake at LEFT_PATHS, one "Kind/ns/name" a line.
left() {
	local p
	for p in "${LEFT_PATHS[@]}"; do
		api GET "$p"
	done | "$PY" -c '
import json, sys
for v in map(json.loads, filter(str.strip, sys.stdin)):
    for o in v.get("items") or []:
        m = o["metadata"]
        print("%s/%s/%s" % (v["kind"][:-4], m.get("namespace", ""), m["name"]))'
}

# field FILE PYEXPR: a value of the JSON in FILE (d is the document); a dict,
# list or tuple as JSON.
field() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(v if not isinstance(v, (dict, list, tuple)) else json.dumps(v))' "$1" "$2"
}

# fresh_fake NAME FAKE_ARGS...: a fresh fake (its log $TMP/NAME.log) serving FIX
# with the canary simulation, and its kubeconfig $TMP/NAME.kc.
fresh_fake() {
	local name=$1
	shift
	kt_cleanup
	kt_fake "$name" --fixtures "$FIX" --canary-sim "$@"
	kt_kubeconfig "$TMP/$name.kc" "https://127.0.0.1:$FAKE_PORT" inline-cert
}

# run NAME TIMEOUT_S FAKE_ARGS... -- CANARY_ARGS...: a fresh fake and one canary
# run; sets RC, ELAPSED (whole seconds, rounded up) and $TMP/NAME.json.
# shellcheck disable=SC2034 # RC and ELAPSED are the caller's
run() {
	local name=$1 tmo=$2
	shift 2
	local fake=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		fake+=("$1")
		shift
	done
	shift
	fresh_fake "$name" ${fake[@]+"${fake[@]}"}
	local t0 t1
	t0=$(date +%s%N)
	RC=0
	kt_run_timeout $((tmo + 10)) "$AGG" canary --kubeconfig "$TMP/$name.kc" --timeout "${tmo}s" \
		--format json "$@" >"$TMP/$name.json" 2>"$TMP/$name.stderr" || RC=$?
	t1=$(date +%s%N)
	ELAPSED=$(((t1 - t0 + 999999999) / 1000000000))
}

# sigterm_when NAME PID WAIT_S WHAT CMD...: once CMD holds (wait_for WAIT_S, WHAT
# names it), SIGTERM to the canary run PID (its stderr $TMP/NAME.stderr): it must
# end within 20 s, with exit 3 (UNKNOWN).
sigterm_when() {
	local name=$1 pid=$2 wait_s=$3 what=$4 t0 rc=0
	shift 4
	wait_for "$wait_s" "$what" "$@"
	sleep 0.5
	t0=$SECONDS
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ $((SECONDS - t0)) -le 20 ] || fail "$name: took $((SECONDS - t0))s after the signal"
	[ $rc -eq 3 ] || fail "$name: exit $rc, want 3: $(cat "$TMP/$name.stderr")"
}

# expect NAME CHECK STATUS MESSAGE-GLOB
expect() {
	local got
	got=$(kt_finding "$TMP/$1.json" "$2")
	[ -n "$got" ] || fail "$1: no $2 finding: $(cat "$TMP/$1.json" "$TMP/$1.stderr")"
	[[ ${got%%$'\t'*} == "$3" ]] || fail "$1: $2 is ${got%%$'\t'*}, want $3: ${got#*$'\t'}"
	# shellcheck disable=SC2053
	[[ ${got#*$'\t'} == $4 ]] || fail "$1: $2 says: ${got#*$'\t'}"
}

# nothing_left NAME: zero objects of the canary in the fake.
nothing_left() {
	local l
	l=$(left)
	[ -z "$l" ] || fail "$1: objects left in the cluster: $l"
}

# within NAME SECONDS: the run took at most SECONDS.
within() {
	[ "$ELAPSED" -le "$2" ] || fail "$1: took ${ELAPSED}s, more than --timeout ${2}s"
}

# fixture_variant NAME PYTHON: a copy of the fixtures changed by PYTHON (which
# sees the directory as d); FIX names it until fixture_reset.
fixture_variant() {
	FIX_SAVED=${FIX_SAVED:-$FIX}
	mkdir -p "$TMP/$1"
	cp "$FIX_SAVED"/*.json "$TMP/$1/"
	"$PY" -c "import json, os; d='$TMP/$1'
$2"
	FIX="$TMP/$1"
}
fixture_reset() { FIX=${FIX_SAVED:-$FIX}; }
