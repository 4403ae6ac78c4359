#!/usr/bin/env bash
# api.vm.live-migratable through the fake kube-apiserver with
# VirtualMachineInstanceMigrations: the live client lists them, `collect`
# writes them, and a VMIM that failed before it reached the VMI (the VMI has no
# migrationState) makes the VMI WARN with the time and nodes, live and offline
# alike. With the VMIM list forbidden (403) the VMI's own state still counts,
# and the part that needs the VMIMs is UNKNOWN with the reason, never PASS.
set -euo pipefail
source "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
test_init

TOKEN=vm-migrations-token
LM=api.vm.live-migratable
kt_pki "$TMP/pki"

live() { # live NAME KUBECONFIG: NAME.json
	local r=0
	kt_run_timeout 120 "$AGG" report --kubeconfig "$2" --format json >"$TMP/$1.json" \
		2>"$TMP/$1.err" || r=$?
	[ "$r" != 2 ] && [ "$r" -le 3 ] || kt_fail "$1: exit $r: $(cat "$TMP/$1.err")"
}
offline() { # offline NAME DIR: NAME.json
	local r=0
	kt_run_timeout 120 "$AGG" report --cluster-state "$2" --format json >"$TMP/$1.json" \
		2>"$TMP/$1.err" || r=$?
	[ "$r" != 2 ] && [ "$r" -le 3 ] || kt_fail "$1: exit $r: $(cat "$TMP/$1.err")"
}

# The Harvester fixture, with the VMIMs of its one running VMI (default/vm-ubuntu-01
# on hv-node-1): an older one that succeeded, the last one Failed in Scheduling
# (the target pod never scheduled), as KubeVirt v1.2-v1.9 write them.
cp -r "$FIXTURES/harvester" "$TMP/state"
cat >"$TMP/state/virtualmachineinstancemigrations.kubevirt.io.json" <<'EOF'
{"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [
 {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstanceMigration",
  "metadata": {"name": "vm-ubuntu-01-upgrade-8kq2x", "namespace": "default",
   "uid": "0d1e2f30-1111-4c5d-8e9f-a0b1c2d3e4f5", "creationTimestamp": "2026-08-21T10:00:00Z",
   "labels": {"kubevirt.io/vmi-name": "vm-ubuntu-01"}},
  "spec": {"vmiName": "vm-ubuntu-01"},
  "status": {"phase": "Succeeded", "phaseTransitionTimestamps": [
   {"phase": "Succeeded", "phaseTransitionTimestamp": "2026-08-21T10:01:30Z"}]}},
 {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstanceMigration",
  "metadata": {"name": "kubevirt-evacuation-t5w7d", "namespace": "default",
   "uid": "7a8b9c0d-2222-4e1f-9a2b-3c4d5e6f7a8b", "creationTimestamp": "2026-09-04T22:15:00Z",
   "labels": {"kubevirt.io/vmi-name": "vm-ubuntu-01"}},
  "spec": {"vmiName": "vm-ubuntu-01"},
  "status": {"phase": "Failed", "phaseTransitionTimestamps": [
   {"phase": "Pending", "phaseTransitionTimestamp": "2026-09-04T22:15:00Z"},
   {"phase": "Scheduling", "phaseTransitionTimestamp": "2026-09-04T22:15:01Z"},
   {"phase": "Failed", "phaseTransitionTimestamp": "2026-09-04T22:20:01Z"}]}}
]}
EOF

kt_fake main --fixtures "$TMP/state" --token "$TOKEN"
mkdir -p "$TMP/kc"
kt_kubeconfig "$TMP/kc/config" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"
live failed "$TMP/kc/config"
[ "$(kt_requests main virtualmachineinstancemigrations.kubevirt.io 200)" -ge 1 ] ||
	kt_fail "the live client did not list virtualmachineinstancemigrations.kubevirt.io"
line=$(kt_finding "$TMP/failed.json" "$LM")
want="WARN	default/vm-ubuntu-01 may not live-migrate: its last live migration failed at 2026-09-04T22:20:01Z from hv-node-1 to a target not chosen yet (VirtualMachineInstanceMigration kubevirt-evacuation-t5w7d, phase Failed)"
case "$line" in "$want"*) ;; *) kt_fail "failed VMIM: \"$line\"" ;; esac
"$PY" - "$TMP/failed.json" <<'EOF' || kt_fail "failed VMIM: finding"
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["check"] == "api.vm.live-migratable"]
assert len(f) == 1 and f[0]["object"] == "VirtualMachineInstance/default/vm-ubuntu-01", f
assert f[0]["node"] == "hv-node-1", f[0]
assert "kubevirt-evacuation-t5w7d" in f[0]["evidence"]["last_migration"], f[0]["evidence"]
assert "kubevirt.io/vmi-name=vm-ubuntu-01" in f[0]["remediation"], f[0]["remediation"]
EOF
# the same from files, and collect writes the VMIMs as listed
offline failed-files "$TMP/state"
kt_same "$TMP/failed-files.json" "$TMP/failed.json" "failed VMIM: live vs files"
kt_run_timeout 120 "$AGG" collect --kubeconfig "$TMP/kc/config" --output "$TMP/dump" \
	2>"$TMP/collect.err" || kt_fail "collect: $(cat "$TMP/collect.err")"
kt_same_state "$TMP/state" "$TMP/dump" "collect with VMIMs"
[ "$(kt_collect_status "$TMP/dump" virtualmachineinstancemigrations.kubevirt.io)" = served ] ||
	kt_fail "collect: VMIMs not marked collected"

# The VMIM list forbidden: UNKNOWN, the forbidden part named; the VMI's own
# status still read (its PVC and condition), so not the engine's blanket UNKNOWN.
kt_fake forbid --fixtures "$FIXTURES/harvester" --token "$TOKEN" \
	--forbid virtualmachineinstancemigrations.kubevirt.io
mkdir -p "$TMP/kc-forbid"
kt_kubeconfig "$TMP/kc-forbid/config" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"
live forbidden "$TMP/kc-forbid/config"
[ "$(kt_requests forbid virtualmachineinstancemigrations.kubevirt.io 403)" -ge 1 ] ||
	kt_fail "the fake did not answer 403 for the VMIMs"
line=$(kt_finding "$TMP/forbidden.json" "$LM")
want="UNKNOWN	the 1 running VMI can live-migrate by its own status, but whether a recent migration failed before it reached the VMI (target pod never scheduled, rejected by a quota) is not known: virtualmachineinstancemigrations.kubevirt.io forbidden"
case "$line" in "$want"*) ;; *) kt_fail "forbidden VMIMs: \"$line\"" ;; esac
# collected with the 403 recorded, the dump says the same offline
kt_run_timeout 120 "$AGG" collect --kubeconfig "$TMP/kc-forbid/config" --output "$TMP/dump-forbid" \
	2>"$TMP/collect.err" || kt_fail "collect (403): $(cat "$TMP/collect.err")"
[ "$(kt_collect_status "$TMP/dump-forbid" virtualmachineinstancemigrations.kubevirt.io)" = forbidden ] ||
	kt_fail "collect: the 403 on VMIMs is not recorded"
offline forbidden-files "$TMP/dump-forbid"
[ "$(kt_finding "$TMP/forbidden-files.json" "$LM")" = "$line" ] ||
	kt_fail "forbidden VMIMs offline: \"$(kt_finding "$TMP/forbidden-files.json" "$LM")\""
echo "ok"
