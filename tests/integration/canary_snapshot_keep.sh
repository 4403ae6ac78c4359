#!/usr/bin/env bash
# `hvready-aggregator canary --keep` with the snapshot and restore steps, then
# `canary --cleanup` (docs/canary.md#cleanup), against the fake kube-apiserver's
# KubeVirt, CSI snapshot and Longhorn simulation (tests/tools/fake_snapshot.py):
#  - --keep: every step PASS, canary.cleanup SKIP naming what it left; the
#    VirtualMachineSnapshot, the VirtualMachineRestore, the VM and the restored VM
#    stay, each with the canary's labels (managed-by and the run id), and so do
#    the snapshot's content, its VolumeSnapshots and the Longhorn volumes;
#  - --cleanup of a later process (a new run id): canary.cleanup PASS, exit 0, and
#    once it has exited zero labelled objects are left, nor anything they led to
#    (VolumeSnapshots and contents, Longhorn volumes, replicas, snapshots): the
#    cleanup waits until the Longhorn volumes are gone, as a run's own does;
#  - Longhorn never deleting them (volume-stuck): that --cleanup waits, then names
#    both volumes (the VM's and the restored VM's) as left, FAIL.
# ctest: serial
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
. "$HVREADY_SRC/tests/tools/canary_test_lib.sh"
canary_test_init snapshot

# labelled PATH RUN: the names of the objects at PATH labelled by run RUN, one a line
labelled() {
	api GET "$1?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dhvready-canary%2Chvready.io%2Fcanary-run%3D$2" |
		"$PY" -c 'import json, sys
for o in json.load(sys.stdin).get("items") or []:
    print(o["metadata"]["name"])'
}
# count PATH: the objects at PATH, whatever their labels
count() { api GET "$1" | "$PY" -c 'import json, sys; print(len(json.load(sys.stdin).get("items") or []))'; }

# 1. --keep: the steps pass, their objects stay, labelled
run keep 60 -- "${STEPS[@]}" --keep
[ $RC -eq 0 ] || fail "keep: exit $RC: $(cat "$TMP/keep.json" "$TMP/keep.stderr")"
expect keep canary.vm.start PASS "*"
expect keep canary.snapshot PASS "*is ready in *s*"
expect keep canary.restore PASS "*restored to the new VM hvready-canary/hvready-canary-restored-*, which runs on *"
expect keep canary.cleanup SKIP "--keep: left * objects: *"
RUN=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"])' "$TMP/keep.json")
NS=/apis/snapshot.kubevirt.io/v1beta1/namespaces/hvready-canary
[ "$(labelled "$NS/virtualmachinesnapshots" "$RUN")" = "hvready-canary-snap-$RUN" ] ||
	fail "keep: the VirtualMachineSnapshot is not left labelled: $(labelled "$NS/virtualmachinesnapshots" "$RUN")"
[ "$(labelled "$NS/virtualmachinerestores" "$RUN")" = "hvready-canary-restore-$RUN" ] ||
	fail "keep: the VirtualMachineRestore is not left labelled: $(labelled "$NS/virtualmachinerestores" "$RUN")"
vms=$(labelled /apis/kubevirt.io/v1/namespaces/hvready-canary/virtualmachines "$RUN" | sort | tr '\n' ' ')
[ "$vms" = "hvready-canary-restored-$RUN hvready-canary-vm-$RUN " ] ||
	fail "keep: the VM and the restored VM are not both left labelled: $vms"
for p in /apis/snapshot.storage.k8s.io/v1/volumesnapshots /apis/longhorn.io/v1beta2/volumes; do
	[ "$(count "$p")" -ge 1 ] || fail "keep: nothing left at $p"
done
[ "$(count /apis/longhorn.io/v1beta2/volumes)" -ge 2 ] ||
	fail "keep: the source and the restored Longhorn volume are not both left"
# what --keep reports left names them
for want in "VirtualMachineSnapshot/hvready-canary/hvready-canary-snap-$RUN" \
	"VirtualMachineRestore/hvready-canary/hvready-canary-restore-$RUN" \
	"VirtualMachine/hvready-canary/hvready-canary-restored-$RUN"; do
	grep -qF "$want" "$TMP/keep.json" || fail "keep: the report does not name $want"
done

# 2. a later --cleanup removes all of it, and exits only when the Longhorn volumes are gone
RC=0
kt_run_timeout 50 "$AGG" canary --kubeconfig "$TMP/keep.kc" --cleanup --timeout 40s --format json \
	>"$TMP/cleanup.json" 2>"$TMP/cleanup.stderr" || RC=$?
[ $RC -eq 0 ] || fail "cleanup: exit $RC: $(cat "$TMP/cleanup.json" "$TMP/cleanup.stderr")"
expect cleanup canary.cleanup PASS "removed * objects in *s"
for want in "VirtualMachineSnapshot/hvready-canary/hvready-canary-snap-$RUN" \
	"VirtualMachineRestore/hvready-canary/hvready-canary-restore-$RUN" \
	"VirtualMachine/hvready-canary/hvready-canary-restored-$RUN" \
	"VirtualMachine/hvready-canary/hvready-canary-vm-$RUN"; do
	grep -qF "$want" "$TMP/cleanup.json" || fail "cleanup: does not name $want as deleted: $(cat "$TMP/cleanup.json")"
done
nothing_left cleanup
[ "$(grep -c '"DELETE"' "$TMP/keep.log")" -ge 4 ] || fail "cleanup: fewer than 4 DELETEs"

# 3. Longhorn never deletes the volumes: the --cleanup of a kept run finds the
#    volumes behind the kept PVCs (the VM's and the restored VM's), waits for
#    them, then names both as left (FAIL); the test removes them.
run stuck 60 --canary-fault volume-stuck -- "${STEPS[@]}" --keep
[ $RC -eq 0 ] || fail "stuck: exit $RC: $(cat "$TMP/stuck.json" "$TMP/stuck.stderr")"
expect stuck canary.restore PASS "*"
RC=0
t0=$(date +%s%N)
kt_run_timeout 30 "$AGG" canary --kubeconfig "$TMP/stuck.kc" --cleanup --timeout 20s --format json \
	>"$TMP/stuckclean.json" 2>"$TMP/stuckclean.stderr" || RC=$?
waited=$((($(date +%s%N) - t0) / 1000000000))
[ $RC -eq 1 ] || fail "stuckclean: exit $RC, want 1: $(cat "$TMP/stuckclean.json")"
expect stuckclean canary.cleanup FAIL "2 objects left after *s: Volume/longhorn-system/pvc-* (Longhorn), Volume/longhorn-system/pvc-* (Longhorn)"
[ "$waited" -ge 5 ] || fail "stuckclean: did not wait for the volumes (${waited}s)"
[ "$waited" -le 21 ] || fail "stuckclean: took ${waited}s, past its --timeout"
for v in $(api GET /apis/longhorn.io/v1beta2/volumes | "$PY" -c 'import json, sys
for o in json.load(sys.stdin)["items"]: print(o["metadata"]["name"])'); do
	api DELETE "/apis/longhorn.io/v1beta2/namespaces/longhorn-system/volumes/$v" >/dev/null
done
nothing_left stuck
echo PASS
