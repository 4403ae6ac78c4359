#!/usr/bin/env bash
# `hvready-aggregator canary` steps snapshot and restore and their cleanup
# (docs/canary.md) against the fake kube-apiserver's KubeVirt, CSI snapshot
# and Longhorn simulation (tests/tools/fake_snapshot.py):
#  - success with a type snap class (a Longhorn Snapshot) and a type bak class
#    (a Longhorn Backup), and at snapshot.kubevirt.io/v1alpha1 (KubeVirt <=
#    1.2): canary.snapshot PASS, canary.restore PASS (the new VM runs, the
#    restored volume's four facts), canary.cleanup PASS, zero objects left (nor
#    the snapshot content, VolumeSnapshots, Longhorn snapshots or backups); a
#    class that retains them (deletionPolicy Retain): the cleanup names both;
#  - the snapshot never becomes ready or fails (its deadline passed), the restore's clone source gone (the
#    clone failed, or stuck initiated), a 500
#    on the restore's POST, a dropped connection mid-snapshot, SIGTERM
#    mid-snapshot, a restored VM without the canary's labels: each the right
#    status per step, never PASS, within --timeout, zero objects left;
#  - preconditions (the Snapshot gate off for the release, on by default from
#    KubeVirt 1.9, no VolumeSnapshotClass, snapshot without vm, restore
#    without snapshot) create no snapshot.
# ctest: serial
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
. "$HVREADY_SRC/tests/tools/canary_test_lib.sh"
# STEPS: vm, snapshot, restore; left() lists every object of the kinds they
# make or lead to (the fixtures hold none of these).
canary_test_init snapshot

BAK='
p = os.path.join(d, "volumesnapshotclasses.json"); c = json.load(open(p))
c["metadata"]["name"] = "longhorn"; c["parameters"]["type"] = "bak"
json.dump(c, open(p, "w"))'
posted() { grep -q "\"POST\", \"path\": \"/apis/snapshot.kubevirt.io/v1[a-z0-9]*/namespaces/hvready-canary/$2\"" "$TMP/$1.log"; }

# 1. success, type snap: a Longhorn Snapshot, the restored volume a clone
run ok 60 -- "${STEPS[@]}"
[ $RC -eq 0 ] || fail "ok: exit $RC: $(cat "$TMP/ok.json" "$TMP/ok.stderr")"
expect ok canary.vm.start PASS "*"
expect ok canary.snapshot PASS "the VirtualMachineSnapshot hvready-canary/hvready-canary-snap-* of VM hvready-canary-vm-* is ready in *s: 1 VolumeSnapshot of class longhorn-snapshot (type snap) ready, each with its Longhorn snapshot"
expect ok canary.restore PASS "the snapshot hvready-canary-snap-* restored to the new VM hvready-canary/hvready-canary-restored-*, which runs on hv-node-*; its volume converged in *s: pvc-*: state attached, robustness healthy, replicas 3/3 running, clone state completed"
expect ok canary.cleanup PASS "removed * objects in *s"
for want in '"api": "snapshot.kubevirt.io/v1beta1"' '"snapshot_gate": "listed in featureGates"' \
	'"content": "vmsnapshot-content-' 'readyToUse=true, content snapcontent-' \
	'"Snapshot longhorn-system/snapshot-' '"VirtualMachine/hvready-canary/hvready-canary-restored-' \
	'"VirtualMachineRestore/hvready-canary/hvready-canary-restore-'; do
	grep -qF "$want" "$TMP/ok.json" || fail "ok: no $want in the evidence: $(cat "$TMP/ok.json")"
done
nothing_left ok

# 2. success, type bak: a Longhorn Backup, the restored volume from it
fixture_variant bak "$BAK"
run bak 60 -- "${STEPS[@]}"
[ $RC -eq 0 ] || fail "bak: exit $RC: $(cat "$TMP/bak.json")"
expect bak canary.snapshot PASS "*1 VolumeSnapshot of class longhorn (type bak) ready, each with its Longhorn backup"
expect bak canary.restore PASS "*replicas 3/3 running, restore from backup done"
grep -qF '"Backup longhorn-system/backup-' "$TMP/bak.json" || fail "bak: no Longhorn Backup in the evidence"
nothing_left bak

# 2b. the class retains what its snapshots make (deletionPolicy Retain): the
# VolumeSnapshotContent and the Longhorn Backup outlive the VolumeSnapshot. The
# cleanup does not delete what it did not label, but names both as left (a
# canary that leaves backups in the backup target is not clean); the test
# removes them.
run retain 60 --canary-fault snapshot-retain -- "${STEPS[@]}"
[ $RC -eq 1 ] || fail "retain: exit $RC, want 1: $(cat "$TMP/retain.json")"
expect retain canary.snapshot PASS "*"
expect retain canary.cleanup FAIL "2 objects left after *s: VolumeSnapshotContent/snapcontent-* (deletionPolicy Retain), Backup/longhorn-system/backup-*"
grep -qF 'deletionPolicy Retain): delete the VolumeSnapshotContent named here' "$TMP/retain.json" ||
	fail "retain: no remedy for the retained content"
for p in "/apis/snapshot.storage.k8s.io/v1/volumesnapshotcontents" "/apis/longhorn.io/v1beta2/backups"; do
	api GET "$p" | "$PY" -c '
import json, sys
for o in json.load(sys.stdin).get("items") or []:
    m = o["metadata"]
    print(m["name"] if "namespace" not in m else m["namespace"] + "/" + m["name"])' |
		while read -r n; do
			case $n in
			*/*) api DELETE "/apis/longhorn.io/v1beta2/namespaces/${n%%/*}/backups/${n#*/}" >/dev/null ;;
			*) api DELETE "$p/$n" >/dev/null ;;
			esac
		done
done
nothing_left retain

# 3. the snapshot never becomes ready (no backup target for a bak class): a FAIL
#    quoting the phase, conditions and the CSI error; restore not attempted
run neverready 25 --canary-fault snapshot-never-ready -- "${STEPS[@]}"
fixture_reset
[ $RC -eq 1 ] || fail "neverready: exit $RC, want 1: $(cat "$TMP/neverready.json")"
expect neverready canary.snapshot FAIL "the VirtualMachineSnapshot hvready-canary/hvready-canary-snap-* did not become ready within *s (phase InProgress; Progressing=True (Source locked and operation in progress); Ready=False (Not ready)); VolumeSnapshots: vmsnapshot-*-volume-disk0: readyToUse=false, error: Failed to check and update snapshot content: failed to take snapshot of the volume pvc-*: \"rpc error: code = Aborted desc = backup target default is not available\""
expect neverready canary.restore SKIP "the snapshot was not taken (canary.snapshot is FAIL)"
expect neverready canary.cleanup PASS "removed * objects in *s"
within neverready 25
if posted neverready virtualmachinerestores; then fail "neverready: a restore was attempted"; fi
nothing_left neverready

# 3b. the snapshot fails (KubeVirt's failureDeadline passed): a FAIL at once,
#     with the phase, the Failure condition and the VolumeSnapshots' errors
run deadline 40 --canary-fault snapshot-deadline -- "${STEPS[@]}"
[ $RC -eq 1 ] || fail "deadline: exit $RC, want 1: $(cat "$TMP/deadline.json")"
expect deadline canary.snapshot FAIL "the VirtualMachineSnapshot hvready-canary/hvready-canary-snap-* failed after *s (phase Failed; Failure=True (snapshot deadline exceeded); Progressing=False (Operation failed); Ready=False (Not ready)); VolumeSnapshots: vmsnapshot-*-volume-disk0: readyToUse=false, error: Failed to check and update snapshot content: *"
expect deadline canary.restore SKIP "the snapshot was not taken (canary.snapshot is FAIL)"
expect deadline canary.cleanup PASS "removed * objects in *s"
within deadline 30
nothing_left deadline

# 4. the clone's source volume is gone: the root cause, not a pass
run srcgone 40 --canary-fault restore-source-gone -- "${STEPS[@]}"
[ $RC -eq 1 ] || fail "srcgone: exit $RC, want 1: $(cat "$TMP/srcgone.json")"
expect srcgone canary.snapshot PASS "*"
expect srcgone canary.restore FAIL "the restored volume pvc-* (PVC hvready-canary/restore-*-disk0) did not converge within *s (state attached, robustness faulted, replicas 3/3 running, clone state failed): root cause: its source volume pvc-* is gone; its source snapshot snapshot-* is gone; the VolumeSnapshotClass longhorn-snapshot uses type: snap (a Longhorn snapshot inside the source volume: it cannot restore once the source is gone)"
expect srcgone canary.cleanup PASS "removed * objects in *s"
within srcgone 40
nothing_left srcgone

# 4b. the same, but the clone stays initiated: the root cause when the steps' time is up
run clonestuck 30 --canary-fault restore-clone-stuck -- "${STEPS[@]}"
[ $RC -eq 1 ] || fail "clonestuck: exit $RC, want 1: $(cat "$TMP/clonestuck.json")"
expect clonestuck canary.restore FAIL "the restored volume pvc-* (PVC hvready-canary/restore-*-disk0) did not converge within *s (state attached, robustness healthy, replicas 3/3 running, clone state initiated): root cause: its source volume pvc-* is gone; its source snapshot snapshot-* is gone; the VolumeSnapshotClass longhorn-snapshot uses type: snap*"
within clonestuck 30
nothing_left clonestuck

# 5. a 500 on the restore's POST: UNKNOWN, cleaned up
run post500 40 --fail-post 'virtualmachinerestores.snapshot.kubevirt.io:0:100' -- "${STEPS[@]}"
[ $RC -eq 3 ] || fail "post500: exit $RC, want 3"
expect post500 canary.snapshot PASS "*"
expect post500 canary.restore UNKNOWN "cannot create the VirtualMachineRestore: POST /apis/snapshot.kubevirt.io/v1beta1/namespaces/hvready-canary/virtualmachinerestores: HTTP 500: Internal error occurred: *"
expect post500 canary.cleanup PASS "removed * objects in *s"
nothing_left post500

# 6. the connection drops mid-snapshot (the snapshot's first poll): UNKNOWN, cleaned up
run drop 40 --drop 'virtualmachinesnapshots.snapshot.kubevirt.io:1:1' -- "${STEPS[@]}"
[ $RC -eq 3 ] || fail "drop: exit $RC, want 3: $(cat "$TMP/drop.json")"
expect drop canary.snapshot UNKNOWN "API error while waiting for the snapshot: *"
expect drop canary.restore SKIP "the snapshot was not taken (canary.snapshot is UNKNOWN)"
expect drop canary.cleanup PASS "removed * objects in *s"
within drop 40
nothing_left drop

# 7. SIGTERM while the VolumeSnapshot is being taken
fresh_fake sigterm --snapshot-seconds 60
"$AGG" canary --kubeconfig "$TMP/sigterm.kc" --timeout 60s --format json "${STEPS[@]}" >"$TMP/sigterm.json" 2>"$TMP/sigterm.stderr" &
sigterm_when sigterm $! 20 "the snapshot to be created" posted sigterm virtualmachinesnapshots
expect sigterm canary.snapshot UNKNOWN "interrupted by signal 15 after *s, waiting for the snapshot"
expect sigterm canary.restore UNKNOWN "not run: interrupted by signal 15"
expect sigterm canary.cleanup PASS "removed * objects in *s"
nothing_left sigterm

# 8. the restored VM without the canary's labels: a FAIL naming it (the cleanup
#    would not find it; the test removes it)
run nolabels 40 --canary-fault restore-drops-labels -- "${STEPS[@]}"
[ $RC -eq 1 ] || fail "nolabels: exit $RC, want 1: $(cat "$TMP/nolabels.json")"
expect nolabels canary.restore FAIL "the restore made object* the cleanup would not remove (no canary labels, not owned by the canary's objects): VirtualMachine/hvready-canary/hvready-canary-restored-*"
api DELETE "/apis/kubevirt.io/v1/namespaces/hvready-canary/virtualmachines/$(sed -n 's/.*"target_vm": "\([^"]*\)".*/\1/p' "$TMP/nolabels.json" | head -1)" >/dev/null
gone() { [ -z "$(left)" ]; }
wait_for 10 "the unlabelled VM's objects to go" gone
nothing_left nolabels

# 9. preconditions: SKIP/UNKNOWN with the reason, no snapshot created
fixture_variant gateoff '
p = os.path.join(d, "kubevirts.json"); k = json.load(open(p))
k["spec"]["configuration"]["developerConfiguration"]["featureGates"] = ["LiveMigration"]
k["status"]["observedKubeVirtVersion"] = "v1.8.1"
json.dump(k, open(p, "w"))'
run gateoff 30 -- "${STEPS[@]}"
[ $RC -eq 0 ] || fail "gateoff: exit $RC, want 0"
expect gateoff canary.snapshot SKIP "KubeVirt v1.8.1's Snapshot feature gate is off (not listed in featureGates (Beta in KubeVirt 1.8: Beta gates are off unless listed before 1.9)): a VirtualMachineSnapshot would be refused"
expect gateoff canary.restore SKIP "the snapshot was not taken (canary.snapshot is SKIP)"
if posted gateoff virtualmachinesnapshots; then fail "gateoff: a snapshot was attempted"; fi
nothing_left gateoff

fixture_variant gate19 '
p = os.path.join(d, "kubevirts.json"); k = json.load(open(p))
k["spec"]["configuration"]["developerConfiguration"]["featureGates"] = ["LiveMigration"]
k["status"]["observedKubeVirtVersion"] = "v1.9.0"
json.dump(k, open(p, "w"))'
run gate19 60 -- --steps vm,snapshot
[ $RC -eq 0 ] || fail "gate19: exit $RC, want 0: $(cat "$TMP/gate19.json")"
expect gate19 canary.snapshot PASS "*"
grep -qF '"snapshot_gate": "Beta in KubeVirt 1.9: on by default' "$TMP/gate19.json" || fail "gate19: the gate's reason is not in the evidence"
nothing_left gate19

fixture_variant novsc 'os.remove(os.path.join(d, "volumesnapshotclasses.json"))'
run novsc 30 -- "${STEPS[@]}"
fixture_reset
[ $RC -eq 0 ] || fail "novsc: exit $RC, want 0"
expect novsc canary.snapshot SKIP "no VolumeSnapshotClass of driver.longhorn.io: KubeVirt would leave the VM's disk (StorageClass harvester-longhorn) out of a snapshot"
if posted novsc virtualmachinesnapshots; then fail "novsc: a snapshot was attempted"; fi
nothing_left novsc

run onlysnap 20 -- --steps snapshot
[ $RC -eq 0 ] || fail "onlysnap: exit $RC, want 0"
expect onlysnap canary.snapshot SKIP "needs the vm step in the same run (--steps vm,snapshot)"
if grep -q '"POST"' "$TMP/onlysnap.log"; then fail "onlysnap: the canary created objects"; fi

run norestore 30 -- --steps vm,restore
[ $RC -eq 0 ] || fail "norestore: exit $RC, want 0"
expect norestore canary.restore SKIP "needs the snapshot step in the same run (--steps vm,snapshot,restore)"
if posted norestore virtualmachinerestores; then fail "norestore: a restore was attempted"; fi
nothing_left norestore

# 10. KubeVirt <= 1.2 serves snapshot.kubevirt.io at v1alpha1 only
LEFT_PATHS=("${LEFT_PATHS[@]//snapshot.kubevirt.io\/v1beta1/snapshot.kubevirt.io/v1alpha1}")
run alpha 60 --serve-version snapshot.kubevirt.io=v1alpha1 -- "${STEPS[@]}"
[ $RC -eq 0 ] || fail "alpha: exit $RC: $(cat "$TMP/alpha.json")"
expect alpha canary.snapshot PASS "*"
expect alpha canary.restore PASS "*"
grep -qF '"api": "snapshot.kubevirt.io/v1alpha1"' "$TMP/alpha.json" || fail "alpha: not at v1alpha1"
nothing_left alpha
echo PASS
