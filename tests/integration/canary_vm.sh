#!/usr/bin/env bash
# `hvready-aggregator canary` steps vm and migrate and their cleanup
# (docs/canary.md) against the fake kube-apiserver's KubeVirt, CDI and
# Longhorn simulation (tests/tools/fake_kubevirt.py):
#  - success: canary.vm.start PASS (the VMI Running on a node), canary.migrate
#    PASS (on the other node, timed), canary.cleanup PASS, zero objects left
#    (nor the DataVolume's PVC, the launcher pods or the Longhorn volume);
#  - the launcher pod cannot be scheduled, the DataVolume's PVC never binds,
#    the VMI is not live-migratable, the migration fails, the migration never
#    finishes, a 500 on the migration's POST, a dropped connection mid-run,
#    SIGTERM mid-migration, a Longhorn volume that is never deleted: each the
#    right status and message, never PASS, within --timeout, zero objects
#    left (the stuck volume: a cleanup FAIL naming it);
#  - preconditions (KubeVirt absent, one KVM node, no migratable class,
#    migrate without vm) create nothing.
# ctest: serial
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
VMSTEPS=(--steps "vm,migrate")

. "$HVREADY_SRC/tests/tools/canary_test_lib.sh"
canary_test_init
# left() lists these: the canary's namespace, every pod, PVC, VM, VMI,
# migration and DataVolume in the fake, and Longhorn's volumes (the fixtures
# hold none of these).
LEFT_PATHS=("/api/v1/namespaces?$SEL" "/api/v1/pods" "/api/v1/persistentvolumeclaims"
	"/apis/kubevirt.io/v1/virtualmachines" "/apis/kubevirt.io/v1/virtualmachineinstances"
	"/apis/kubevirt.io/v1/virtualmachineinstancemigrations"
	"/apis/cdi.kubevirt.io/v1beta1/datavolumes"
	"/apis/longhorn.io/v1beta2/volumes" "/apis/longhorn.io/v1beta2/sharemanagers")

# 1. success
run ok 40 -- "${VMSTEPS[@]}"
[ $RC -eq 0 ] || fail "ok: exit $RC: $(cat "$TMP/ok.json" "$TMP/ok.stderr")"
expect ok canary.vm.start PASS "the VM hvready-canary/hvready-canary-vm-* runs on hv-node-1 (VMI Running after *s; its blank DataVolume on StorageClass harvester-longhorn)"
expect ok canary.migrate PASS "the VM hvready-canary/hvready-canary-vm-* live-migrated from hv-node-1 to hv-node-2 in *s"
expect ok canary.cleanup PASS "removed * objects in *s"
grep -q '"migration_ms": [0-9]' "$TMP/ok.json" || fail "ok: no migration_ms evidence"
grep -q '"VirtualMachine/hvready-canary/hvready-canary-vm-' "$TMP/ok.json" || fail "ok: the VM is not among the deleted"
nothing_left ok

# 2. the launcher pod cannot be scheduled: the VMI's condition is quoted
run unsched 20 --canary-fault vm-unschedulable -- "${VMSTEPS[@]}"
[ $RC -eq 1 ] || fail "unsched: exit $RC, want 1"
expect unsched canary.vm.start FAIL "the VMI hvready-canary/hvready-canary-vm-* is Scheduling after *s, not Running: *PodScheduled=False (Unschedulable): 0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient devices.kubevirt.io/kvm*"
expect unsched canary.migrate SKIP "the VM did not start (canary.vm.start is FAIL)"
within unsched 20
nothing_left unsched

# 3. the DataVolume's PVC never binds
run dvpend 20 --canary-fault pvc-never-binds -- "${VMSTEPS[@]}"
[ $RC -eq 1 ] || fail "dvpend: exit $RC, want 1"
expect dvpend canary.vm.start FAIL "the VM's DataVolume hvready-canary/hvready-canary-vm-*-disk is Pending after *s: Bound=False (Pending): PVC hvready-canary-vm-*-disk Pending*"
within dvpend 20
nothing_left dvpend

# 4. the VMI is not live-migratable: not attempted, FAIL quoting the condition
run notmig 30 --canary-fault not-migratable -- "${VMSTEPS[@]}"
[ $RC -eq 1 ] || fail "notmig: exit $RC, want 1"
expect notmig canary.vm.start PASS "*"
expect notmig canary.migrate FAIL "the VMI hvready-canary/hvready-canary-vm-* is not live-migratable: DisksNotLiveMigratable: cannot migrate VMI: PVC *"
if grep -q '"POST", "path": "/apis/kubevirt.io/v1/namespaces/hvready-canary/virtualmachineinstancemigrations"' "$TMP/notmig.log"; then
	fail "notmig: a migration was attempted"
fi
nothing_left notmig

# 5. the migration fails: failureReason, phase and conditions quoted
run migfail 30 --canary-fault migrate-fails -- "${VMSTEPS[@]}"
[ $RC -eq 1 ] || fail "migfail: exit $RC, want 1"
expect migfail canary.migrate FAIL "the live migration of hvready-canary/hvready-canary-vm-* from hv-node-1 to hv-node-2 failed after *s: Live migration failed error encountered during MigrateToURI3 libvirt api call: * (migration phase Failed; Failed=True: source node reported migration failed): \"FailedMigration: source node reported migration failed\""
nothing_left migfail

# 6. the migration never finishes: a stall is a FAIL, within --timeout
run migstuck 20 --canary-fault migrate-stuck -- "${VMSTEPS[@]}"
[ $RC -eq 1 ] || fail "migstuck: exit $RC, want 1"
expect migstuck canary.migrate FAIL "the live migration of hvready-canary/hvready-canary-vm-* from hv-node-1 did not finish within *s (migration phase Scheduling)"
within migstuck 20
nothing_left migstuck

# 7. a 500 on the migration's POST: UNKNOWN, cleaned up
run mig500 30 --fail-post 'virtualmachineinstancemigrations.kubevirt.io:0:100' -- "${VMSTEPS[@]}"
[ $RC -eq 3 ] || fail "mig500: exit $RC, want 3"
expect mig500 canary.migrate UNKNOWN "cannot create the migration: POST /apis/kubevirt.io/v1/namespaces/hvready-canary/virtualmachineinstancemigrations: HTTP 500: Internal error occurred: *"
expect mig500 canary.cleanup PASS "removed * objects in *s"
nothing_left mig500

# 8. the connection drops mid-run (the VMI's second GET gets no answer): UNKNOWN, cleaned up
run drop 30 --drop 'virtualmachineinstances.kubevirt.io:1:1' -- "${VMSTEPS[@]}"
[ $RC -eq 3 ] || fail "drop: exit $RC, want 3: $(cat "$TMP/drop.json")"
expect drop canary.vm.start UNKNOWN "API error while waiting for the VM to run: *"
expect drop canary.cleanup PASS "removed * objects in *s"
within drop 30
nothing_left drop

# 9. SIGTERM while the VM migrates
fresh_fake sigterm --migrate-seconds 60
"$AGG" canary --kubeconfig "$TMP/sigterm.kc" --timeout 60s --format json "${VMSTEPS[@]}" >"$TMP/sigterm.json" 2>"$TMP/sigterm.stderr" &
sigterm_when sigterm $! 20 "the migration to be created" grep -q '"POST", "path": "/apis/kubevirt.io/v1/namespaces/hvready-canary/virtualmachineinstancemigrations"' "$TMP/sigterm.log"
expect sigterm canary.vm.start PASS "*"
expect sigterm canary.migrate UNKNOWN "interrupted by signal 15 after *s, waiting for the migration"
expect sigterm canary.cleanup PASS "removed * objects in *s"
nothing_left sigterm

# 10. Longhorn never deletes the volume: the cleanup waits for it, then names it
run volstuck 20 --canary-fault volume-stuck -- --steps vm
[ $RC -eq 1 ] || fail "volstuck: exit $RC, want 1"
expect volstuck canary.vm.start PASS "*"
expect volstuck canary.cleanup FAIL "1 object left after *s: Volume/longhorn-system/pvc-* (Longhorn)"
within volstuck 20

# 11. preconditions: SKIP/UNKNOWN with the reason, nothing created
run nokv 20 --not-installed 'kubevirts.kubevirt.io' -- "${VMSTEPS[@]}"
[ $RC -eq 0 ] || fail "nokv: exit $RC, want 0"
expect nokv canary.vm.start SKIP "KubeVirt is not installed (kubevirt.io/v1 is not served): there is no VM to start"
expect nokv canary.migrate SKIP "the VM did not start (canary.vm.start is SKIP)"
expect nokv canary.cleanup PASS "nothing to remove"
if grep -q '"POST"' "$TMP/nokv.log"; then fail "nokv: the canary created objects"; fi

fixture_variant onekvm '
p = os.path.join(d, "nodes.json"); n = json.load(open(p))
del n["items"][1]["status"]["allocatable"]["devices.kubevirt.io/kvm"]
json.dump(n, open(p, "w"))'
run onekvm 30 -- "${VMSTEPS[@]}"
fixture_reset
[ $RC -eq 3 ] || fail "onekvm: exit $RC, want 3"
expect onekvm canary.vm.start PASS "*runs on hv-node-1*"
expect onekvm canary.migrate UNKNOWN "no node but hv-node-1 can take the VM (Ready, schedulable, with KVM): hv-node-2 (no devices.kubevirt.io/kvm (KVM) allocatable), hv-node-3 (cordoned)"
if grep -q '"POST", "path": "/apis/kubevirt.io/v1/namespaces/hvready-canary/virtualmachineinstancemigrations"' "$TMP/onekvm.log"; then
	fail "onekvm: a migration was attempted"
fi
nothing_left onekvm

fixture_variant noclass '
p = os.path.join(d, "storageclasses.json"); s = json.load(open(p))
s["items"] = [c for c in s["items"] if (c.get("parameters") or {}).get("migratable") != "true"]
json.dump(s, open(p, "w"))'
run noclass 20 -- "${VMSTEPS[@]}"
fixture_reset
[ $RC -eq 3 ] || fail "noclass: exit $RC, want 3"
expect noclass canary.vm.start UNKNOWN "no StorageClass of driver.longhorn.io with parameters.migratable \"true\": the VM's RWX Block disk needs one"
if grep -q '"POST"' "$TMP/noclass.log"; then fail "noclass: the canary created objects"; fi

run onlymig 20 -- --steps migrate
[ $RC -eq 0 ] || fail "onlymig: exit $RC, want 0"
expect onlymig canary.migrate SKIP "needs the vm step in the same run (--steps vm,migrate)"
if grep -q '"POST"' "$TMP/onlymig.log"; then fail "onlymig: the canary created objects"; fi

# 12. rwx and the VM steps in one run; `--steps vm.start` names the same step
run all 60 -- --steps rwx,vm.start,migrate
[ $RC -eq 0 ] || fail "all: exit $RC: $(cat "$TMP/all.json")"
expect all canary.rwx PASS "*"
expect all canary.vm.start PASS "*"
expect all canary.migrate PASS "*"
nothing_left all

# 13. --node A --node B with three KVM nodes: the VM prefers A, the migration
# targets B (spec.addedNodeSelector), where the default would pick hv-node-1;
# a KubeVirt older than 1.6 prunes the selector: said, not hidden.
fixture_variant threekvm '
p = os.path.join(d, "nodes.json"); n = json.load(open(p))
n["items"][2]["spec"].pop("unschedulable", None)
n["items"][2]["spec"]["taints"] = []
json.dump(n, open(p, "w"))'
run nodes 40 -- "${VMSTEPS[@]}" --node hv-node-2 --node hv-node-3
[ $RC -eq 0 ] || fail "nodes: exit $RC: $(cat "$TMP/nodes.json" "$TMP/nodes.stderr")"
expect nodes canary.vm.start PASS "the VM hvready-canary/hvready-canary-vm-* runs on hv-node-2 (VMI Running after *s; its blank DataVolume on StorageClass harvester-longhorn)"
expect nodes canary.migrate PASS "the VM hvready-canary/hvready-canary-vm-* live-migrated from hv-node-2 to hv-node-3 in *s"
nothing_left nodes
run pruned 40 --canary-fault prune-added-node-selector -- "${VMSTEPS[@]}" --node hv-node-2 --node hv-node-3
[ $RC -eq 0 ] || fail "pruned: exit $RC: $(cat "$TMP/pruned.json")"
expect pruned canary.migrate PASS "*from hv-node-2 to hv-node-1 in *s; --node B was not honoured: this KubeVirt's VirtualMachineInstanceMigration has no spec.addedNodeSelector (KubeVirt 1.6 and later)"
run samenode 30 -- "${VMSTEPS[@]}" --node hv-node-2 --node hv-node-2
expect samenode canary.migrate UNKNOWN "--node hv-node-2 cannot take the VM (the VM runs there already)"
fixture_reset
run badnode 20 -- "${VMSTEPS[@]}" --node hv-node-3 --node hv-node-1
[ $RC -eq 3 ] || fail "badnode: exit $RC, want 3"
expect badnode canary.vm.start UNKNOWN "--node hv-node-3 cannot run a VM (cordoned)"
if grep -q '"POST", "path": "/apis/kubevirt.io' "$TMP/badnode.log"; then fail "badnode: a VM was created"; fi

# 14. --storage-class: a missing class or a Longhorn class that is not
# migratable is refused before anything is created; a named one is used.
run noclassarg 20 -- "${VMSTEPS[@]}" --storage-class nope
[ $RC -eq 3 ] || fail "noclassarg: exit $RC, want 3"
expect noclassarg canary.vm.start UNKNOWN "--storage-class nope: no such StorageClass"
run rwxclass 20 -- "${VMSTEPS[@]}" --storage-class longhorn-rwx
expect rwxclass canary.vm.start UNKNOWN "--storage-class longhorn-rwx: a Longhorn class without parameters.migratable \"true\"*share-manager*"
if grep -q '"POST", "path": "/apis/kubevirt.io' "$TMP/rwxclass.log"; then fail "rwxclass: a VM was created"; fi
run namedclass 40 -- --steps vm --storage-class harvester-longhorn
expect namedclass canary.vm.start PASS "*on StorageClass harvester-longhorn)"
nothing_left namedclass
# 15. The default class by the beta annotation (Kubernetes reads both): it wins
# over a migratable class without one that sorts first.
fixture_variant betadefault '
p = os.path.join(d, "storageclasses.json"); s = json.load(open(p))
hl = [c for c in s["items"] if c["metadata"]["name"] == "harvester-longhorn"][0]
other = json.loads(json.dumps(hl))
other["metadata"] = {"name": "aa-longhorn-migratable"}
hl["metadata"]["annotations"] = {"storageclass.beta.kubernetes.io/is-default-class": "true"}
s["items"].append(other)
json.dump(s, open(p, "w"))'
run betadefault 40 -- --steps vm
fixture_reset
expect betadefault canary.vm.start PASS "*on StorageClass harvester-longhorn)"
nothing_left betadefault
echo PASS
