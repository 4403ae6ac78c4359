#!/usr/bin/env bash
# KubeVirt <= 1.2 (Harvester 1.2-1.3) serves snapshot.kubevirt.io only at
# v1alpha1; hvready lists v1beta1 and falls back to v1alpha1 when the CRD
# serves it (the counts it reads are the same in both). Against a fake
# kube-apiserver that
#   1. serves snapshot.kubevirt.io only at v1alpha1: the VM snapshots are read
#      there (paged), the findings equal the offline ones, the report's source
#      and collect.json say v1alpha1, and collect's dump loads as files;
#   2. serves it only at v1 (neither version): today's message, no v1alpha1
#      request;
#   3. lists v1alpha1 in the CRD but answers 404 for it too: the message
#      names both versions.
# Loopback only; every process is stopped on exit.
set -euo pipefail
export LC_ALL=C
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
test_init

TOKEN=altver-test-token-5d1e
GATE=api.kubevirt.snapshot-gate
VMS=virtualmachinesnapshots.snapshot.kubevirt.io
kt_pki "$TMP/pki"

# The Harvester fixture with three VirtualMachineSnapshots as KubeVirt 1.2
# stores them (v1alpha1): with a list limit of 2 the fallback list pages.
STATE="$TMP/state"
cp -r "$FIXTURES/harvester" "$STATE"
"$PY" - "$HVREADY_SRC/tests/fixtures/cluster/kubevirt/vmsnapshot-vm-cirros.json" \
	"$STATE/$VMS.json" <<'EOF' || kt_fail "cannot build the VM snapshot fixture"
import copy, json, sys
src = [o for o in json.load(open(sys.argv[1]))["items"] if o["kind"] == "VirtualMachineSnapshot"]
items = []
for i in range(3):
    o = copy.deepcopy(src[0])
    o["apiVersion"] = "snapshot.kubevirt.io/v1alpha1"
    o["metadata"]["name"] += "-%d" % i
    o["metadata"]["uid"] = o["metadata"]["uid"][:-1] + str(i)
    items.append(o)
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, open(sys.argv[2], "w"))
EOF

# field REPORT PYTHON-EXPR: a value of the snapshot-gate finding (f) as text.
gate() {
	"$PY" -c '
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["check"] == sys.argv[2]][0]
ev = f.get("evidence") or {}
print(eval(sys.argv[3]))' "$1" "$GATE" "$2"
}
# requests NAME PATH STATUS: how many requests for PATH the fake answered so.
requests() {
	"$PY" - "$TMP/$1.log" "$2" "$3" <<'EOF'
import json, sys
print(sum(1 for l in open(sys.argv[1])
          if json.loads(l)["path"] == sys.argv[2] and str(json.loads(l)["status"]) == sys.argv[3]))
EOF
}
live() { # live NAME ARGS...: report on the fake NAME; NAME.json
	local name=$1 r=0
	shift
	kt_kubeconfig "$TMP/$name.kubeconfig" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"
	HVREADY_LIST_LIMIT=2 kt_run_timeout 120 "$AGG" report --kubeconfig "$TMP/$name.kubeconfig" \
		--format json "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" || r=$?
	if [ "$r" = 2 ] || [ "$r" -gt 3 ]; then
		cat "$TMP/$name.err" >&2
		kt_fail "$name: exit $r"
	fi
}
V1B1=/apis/snapshot.kubevirt.io/v1beta1/virtualmachinesnapshots
V1A1=/apis/snapshot.kubevirt.io/v1alpha1/virtualmachinesnapshots

# The reference: the same objects read from files (any apiVersion loads).
rc=0
"$AGG" report --cluster-state "$STATE" --format json >"$TMP/files.json" || rc=$?
[ "$rc" != 2 ] || kt_fail "report --cluster-state $STATE failed"
[ "$(gate "$TMP/files.json" 'ev.get("virtualmachinesnapshots")')" = 3 ] ||
	kt_fail "files: the gate check did not count 3 VM snapshots"

# 1. Served at v1alpha1 only.
kt_fake alpha --fixtures "$STATE" --token "$TOKEN" --require-auth \
	--serve-version snapshot.kubevirt.io=v1alpha1
live alpha
kt_same "$TMP/files.json" "$TMP/alpha.json" "v1alpha1 only"
[ "$(gate "$TMP/alpha.json" 'f["status"]')" != UNKNOWN ] ||
	kt_fail "v1alpha1 only: $GATE is UNKNOWN: $(gate "$TMP/alpha.json" 'f["message"]')"
[ "$(gate "$TMP/alpha.json" 'ev.get("virtualmachinesnapshots")')" = 3 ] ||
	kt_fail "v1alpha1 only: the VM snapshots were not all read"
grep -q '"source": "https://127.0.0.1:[0-9]* (Kubernetes [^)]*); read at an older API version: snapshot.kubevirt.io/v1alpha1 virtualmachinesnapshots, snapshot.kubevirt.io/v1alpha1 virtualmachinerestores"' \
	"$TMP/alpha.json" || kt_fail "v1alpha1 only: the report's source does not say v1alpha1: $(grep '"source"' "$TMP/alpha.json")"
[ "$(requests alpha "$V1B1" 404)" = 1 ] || kt_fail "v1alpha1 only: v1beta1 not asked once"
[ "$(requests alpha "$V1A1" 200)" = 2 ] ||
	kt_fail "v1alpha1 only: the v1alpha1 list did not take 2 pages"

# collect writes what was read, says which version, and its dump loads.
HVREADY_LIST_LIMIT=2 kt_run_timeout 120 "$AGG" collect --kubeconfig "$TMP/alpha.kubeconfig" \
	--output "$TMP/dump" >/dev/null 2>"$TMP/collect.err" ||
	{ cat "$TMP/collect.err" >&2; kt_fail "collect failed"; }
"$PY" - "$TMP/dump" "$VMS" <<'EOF' || kt_fail "collect: the dump does not say v1alpha1"
import json, sys
d, vms = sys.argv[1], sys.argv[2]
items = json.load(open("%s/%s.json" % (d, vms)))["items"]
assert len(items) == 3 and all(o["apiVersion"] == "snapshot.kubevirt.io/v1alpha1" for o in items), items
e = [e for e in json.load(open(d + "/collect.json"))["resources"] if e["resource"] == vms][0]
assert e["status"] == "served", e
assert e["error"] == "read at snapshot.kubevirt.io/v1alpha1 (v1beta1 answered 404)", e
EOF
rc=0
"$AGG" report --cluster-state "$TMP/dump" --format json >"$TMP/dump.json" || rc=$?
[ "$rc" != 2 ] || kt_fail "report --cluster-state on collect's dump failed"
kt_same "$TMP/files.json" "$TMP/dump.json" "collect's dump of v1alpha1"

# 2. Neither version served: today's message, and v1alpha1 is not tried.
kt_fake neither --fixtures "$STATE" --token "$TOKEN" --require-auth \
	--serve-version snapshot.kubevirt.io=v1
live neither
want="$VMS failed: the CRD $VMS exists but snapshot.kubevirt.io/v1beta1 answered 404 (served versions: v1); hvready reads v1beta1"
[ "$(gate "$TMP/neither.json" 'f["status"] + " " + f["message"]')" = "UNKNOWN $want" ] ||
	kt_fail "neither: got $(gate "$TMP/neither.json" 'f["status"] + " " + f["message"]')"
[ "$(requests neither "$V1A1" 404)" = 0 ] || kt_fail "neither: v1alpha1 was asked for"
grep -q '"source": "https://127.0.0.1:[0-9]* (Kubernetes [^)]*)"' "$TMP/neither.json" ||
	kt_fail "neither: the source names an older version"

# 3. The CRD lists v1alpha1 but the API answers 404 for it as well.
kt_fake broken --fixtures "$STATE" --token "$TOKEN" --require-auth \
	--serve-version snapshot.kubevirt.io=v1alpha1 --not-installed "$VMS"
live broken
want="$VMS failed: the CRD $VMS exists but snapshot.kubevirt.io/v1beta1 and v1alpha1 answered 404 (served versions: v1alpha1); hvready reads v1beta1"
[ "$(gate "$TMP/broken.json" 'f["status"] + " " + f["message"]')" = "UNKNOWN $want" ] ||
	kt_fail "broken: got $(gate "$TMP/broken.json" 'f["status"] + " " + f["message"]')"
[ "$(requests broken "$V1A1" 404)" = 1 ] || kt_fail "broken: v1alpha1 not asked once"
echo "PASS"
