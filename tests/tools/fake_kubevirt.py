"""What KubeVirt's and CDI's controllers make observable, for fake_canary.py.

Shaped by the upstream types and controllers (docs/canary.md):
- kubevirt/kubevirt pkg/virt-controller/watch/vm.go: a VirtualMachine's
  dataVolumeTemplates become DataVolumes owned by the VM, with the template's
  labels; with runStrategy Always and its DataVolumes ready, a VMI named
  after the VM, labelled from spec.template.metadata.labels.
- CDI pkg/controller/datavolume: a DataVolume gets a PVC of its name with its
  labels; phases Pending -> ImportScheduled -> Succeeded (a blank source
  needs no importer image), conditions Bound/Ready/Running.
- staging/src/kubevirt.io/api/core/v1/types.go: VMI phases Pending,
  Scheduling, Scheduled, Running; status.nodeName; conditions Ready,
  LiveMigratable; status.migrationState {sourceNode, targetNode,
  startTimestamp, endTimestamp, completed, failed, failureReason,
  migrationUid, mode}; VirtualMachineInstanceMigration phases Pending,
  Scheduling, Scheduled, PreparingTarget, TargetReady, Running, Succeeded,
  Failed.
- The VMI's virt-launcher pod carries the VMI's labels and
  kubevirt.io=virt-launcher, and uses the DataVolume's PVC.

Faults (--canary-fault): vm-unschedulable (the launcher pod cannot be
scheduled: VMI Scheduling with PodScheduled False/Unschedulable),
not-migratable (LiveMigratable False/DisksNotLiveMigratable),
migrate-fails (the source reports failure: migrationState.failed with
libvirt's failureReason, migration phase Failed), migrate-stuck (the
target pod never schedules: phase Scheduling), volume-stuck (in
fake_canary.py: Longhorn never deletes the volume). --migrate-seconds:
how long a migration runs.
"""
import copy
import secrets
import time

import fake_canary as fc

KV, CDI = "kubevirt.io", "cdi.kubevirt.io"

MIGRATE_FAILURE = ("Live migration failed error encountered during MigrateToURI3 libvirt api "
                   "call: virError(Code=1, Domain=10, Message='internal error: unable to execute "
                   "QEMU command 'migrate': Unable to write to socket: Broken pipe')")


def cond(typ, status, reason="", message=""):
    return {"type": typ, "status": status, "reason": reason, "message": message,
            "lastProbeTime": None, "lastTransitionTime": fc.now()}


def owner(o, kind, api="kubevirt.io/v1"):
    m = o["metadata"]
    return [{"apiVersion": api, "kind": kind, "name": m["name"], "uid": m["uid"],
             "controller": True, "blockOwnerDeletion": True}]


class KubeVirtSim:
    def __init__(self, sim):
        self.sim = sim
        self.st = sim.st
        self.r = sim.r
        self.t = {}  # uid -> monotonic time of the last phase change
        import fake_snapshot
        self.snap = fake_snapshot.SnapshotSim(self)

    def faults(self):
        return self.st.args.canary_fault

    def since(self, o):
        return time.monotonic() - self.t.setdefault(o["metadata"]["uid"], time.monotonic())

    def mark(self, o):
        self.t[o["metadata"]["uid"]] = time.monotonic()

    def kvm_nodes(self):
        out = []
        for n in self.r("", "Node").objects:
            ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                        for c in (n.get("status") or {}).get("conditions") or [])
            kvm = ((n.get("status") or {}).get("allocatable") or {}).get("devices.kubevirt.io/kvm")
            if ready and not (n.get("spec") or {}).get("unschedulable") and kvm not in (None, "0"):
                out.append(n["metadata"]["name"])
        return out

    def tick(self):
        for vm in list(self.r(KV, "VirtualMachine").objects):
            self.vm(vm)
        for dv in list(self.r(CDI, "DataVolume").objects):
            self.dv(dv)
        for vmi in list(self.r(KV, "VirtualMachineInstance").objects):
            self.vmi(vmi)
        for mig in list(self.r(KV, "VirtualMachineInstanceMigration").objects):
            self.migration(mig)
        self.snap.tick()

    # -- virt-controller: VM -> DataVolumes, VMI
    def vm(self, vm):
        m = vm["metadata"]
        if m.get("deletionTimestamp"):
            return
        ns = m["namespace"]
        spec = vm.get("spec") or {}
        ready = True
        for t in spec.get("dataVolumeTemplates") or []:
            name = t["metadata"]["name"]
            dv = fc.find(self.r(CDI, "DataVolume"), ns, name)
            if dv is None:
                dv = fc.insert(self.st, self.r(CDI, "DataVolume"), {
                    "metadata": {"name": name,
                                 "labels": dict(t["metadata"].get("labels") or {},
                                                **{"kubevirt.io/created-by": m["uid"]}),
                                 "ownerReferences": owner(vm, "VirtualMachine")},
                    "spec": copy.deepcopy(t.get("spec") or {}),
                    "status": {"phase": "Pending"}}, ns)
            ready = ready and dv["status"].get("phase") == "Succeeded"
        vm.setdefault("status", {})
        vmi = fc.find(self.r(KV, "VirtualMachineInstance"), ns, m["name"])
        if not ready:
            vm["status"].update({"printableStatus": "Provisioning", "ready": False})
            return
        if vmi is None and spec.get("runStrategy") == "Always":
            tpl = spec.get("template") or {}
            vmi = fc.insert(self.st, self.r(KV, "VirtualMachineInstance"), {
                "metadata": {"name": m["name"],
                             "labels": dict((tpl.get("metadata") or {}).get("labels") or {}),
                             "ownerReferences": owner(vm, "VirtualMachine")},
                "spec": copy.deepcopy(tpl.get("spec") or {}),
                "status": {"phase": "Pending"}}, ns)
            vm["status"]["created"] = True
        phase = (vmi or {}).get("status", {}).get("phase")
        vm["status"].update({"printableStatus": "Running" if phase == "Running" else "Starting",
                             "ready": phase == "Running"})

    # -- CDI: DataVolume -> PVC -> Succeeded
    def dv(self, dv):
        m = dv["metadata"]
        if m.get("deletionTimestamp"):
            return
        ns = m["namespace"]
        pvcs = self.r("", "PersistentVolumeClaim")
        pvc = fc.find(pvcs, ns, m["name"])
        storage = (dv.get("spec") or {}).get("storage") or (dv.get("spec") or {}).get("pvc") or {}
        if pvc is None:
            pvc = fc.insert(self.st, pvcs, {
                "metadata": {"name": m["name"],
                             "labels": dict(m.get("labels") or {},
                                            **{"app": "containerized-data-importer"}),
                             "finalizers": [fc.PVC_PROTECTION],
                             "ownerReferences": owner(dv, "DataVolume", "cdi.kubevirt.io/v1beta1")},
                "spec": {"accessModes": storage.get("accessModes"),
                         "volumeMode": storage.get("volumeMode", "Filesystem"),
                         "storageClassName": storage.get("storageClassName"),
                         "resources": storage.get("resources")},
                "status": {"phase": "Pending"}}, ns)
        ann = (pvc["metadata"].get("annotations") or {}).get("cdi.kubevirt.io/storage.populatedFor")
        if ann == m["name"] and not pvc["metadata"].get("ownerReferences"):
            # a PVC populated for this DataVolume (a VM restore): CDI adopts it
            pvc["metadata"]["ownerReferences"] = owner(dv, "DataVolume", "cdi.kubevirt.io/v1beta1")
        st = dv["status"]
        if pvc["status"].get("phase") != "Bound":
            st.update({"phase": "Pending", "conditions": [
                cond("Bound", "False", "Pending", "PVC %s Pending" % m["name"]),
                cond("Ready", "False"), cond("Running", "False")]})
            return
        if st.get("phase") == "Pending":
            st.update({"phase": "ImportScheduled", "conditions": [
                cond("Bound", "True", "Bound", "PVC %s Bound" % m["name"]),
                cond("Ready", "False"), cond("Running", "False", "Pending")]})
            self.mark(dv)
        elif st.get("phase") == "ImportScheduled" and self.since(dv) > 0.2:
            st.update({"phase": "Succeeded", "progress": "100.0%", "conditions": [
                cond("Bound", "True", "Bound", "PVC %s Bound" % m["name"]),
                cond("Ready", "True"), cond("Running", "False", "Completed")]})

    # -- virt-controller and virt-handler: VMI -> launcher pod on a node -> Running
    def vmi(self, vmi):
        m, st = vmi["metadata"], vmi["status"]
        if m.get("deletionTimestamp"):
            return
        ns = m["namespace"]
        if st.get("phase") == "Pending":
            st["phase"] = "Scheduling"
            st["conditions"] = [cond("Ready", "False", "GuestNotRunning", "Guest VM is not reported as running")]
            self.mark(vmi)
            return
        if st.get("phase") == "Scheduling":
            if "vm-unschedulable" in self.faults():
                st["conditions"] = [
                    cond("Ready", "False", "GuestNotRunning", "Guest VM is not reported as running"),
                    cond("PodScheduled", "False", "Unschedulable",
                         "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient "
                         "devices.kubevirt.io/kvm. preemption: 0/3 nodes are available: 1 "
                         "Preemption is not helpful for scheduling, 2 No preemption victims "
                         "found for incoming pod.")]
                return
            nodes = self.kvm_nodes()
            if not nodes or self.since(vmi) < 0.2:
                return
            node = nodes[0]
            # the scheduler honours a preferred node affinity on metadata.name
            aff = ((vmi["spec"].get("affinity") or {}).get("nodeAffinity") or {})
            for term in aff.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
                for mf in (term.get("preference") or {}).get("matchFields") or []:
                    if mf.get("key") == "metadata.name" and mf.get("operator") == "In":
                        pick = [n for n in mf.get("values") or [] if n in nodes]
                        if pick:
                            node = pick[0]
            self.launcher(vmi, node)
            migratable = cond("LiveMigratable", "True")
            if "not-migratable" in self.faults():
                vol = ((vmi["spec"].get("volumes") or [{}])[0].get("dataVolume") or {}).get("name")
                migratable = cond("LiveMigratable", "False", "DisksNotLiveMigratable",
                                  "cannot migrate VMI: PVC %s is not shared, live migration "
                                  "requires that all PVCs must be shared (using ReadWriteMany "
                                  "access mode)" % vol)
            st.update({"phase": "Running", "nodeName": node, "migrationMethod": "LiveMigration",
                       "conditions": [cond("Ready", "True"), migratable]})
            m.setdefault("labels", {})["kubevirt.io/nodeName"] = node
            for v in (fc.find(self.r("longhorn.io", "Volume"), fc.LH_NS, p["spec"]["volumeName"])
                      for p in self.claims(vmi)):
                if v is not None:
                    v["status"].update({"state": "attached", "robustness": "healthy",
                                        "currentNodeID": node})

    def claims(self, vmi):
        out = []
        for v in vmi["spec"].get("volumes") or []:
            name = (v.get("dataVolume") or {}).get("name") or \
                (v.get("persistentVolumeClaim") or {}).get("claimName")
            pvc = fc.find(self.r("", "PersistentVolumeClaim"), vmi["metadata"]["namespace"], name)
            if pvc is not None and pvc["spec"].get("volumeName"):
                out.append(pvc)
        return out

    def launcher(self, vmi, node):
        m = vmi["metadata"]
        claims = [{"name": "vol%d" % i, "persistentVolumeClaim": {"claimName": p["metadata"]["name"]}}
                  for i, p in enumerate(self.claims(vmi))]
        labels = dict(m.get("labels") or {}, **{"kubevirt.io": "virt-launcher",
                                                 "kubevirt.io/created-by": m["uid"]})
        return fc.insert(self.st, self.r("", "Pod"), {
            "metadata": {"name": "virt-launcher-%s-%s" % (m["name"], secrets.token_hex(3)[:5]),
                         "labels": labels, "ownerReferences": owner(vmi, "VirtualMachineInstance")},
            "spec": {"nodeName": node, "containers": [{"name": "compute",
                                                       "image": "registry.suse.com/suse/sles/15.7/virt-launcher:1.5.2"}],
                     "volumes": claims},
            "status": {"phase": "Running", "startTime": fc.now()}}, m["namespace"])

    # -- virt-controller and virt-handler: the migration
    def migration(self, mig):
        m = mig["metadata"]
        st = mig.setdefault("status", {})
        if m.get("deletionTimestamp") or st.get("phase") in ("Succeeded", "Failed"):
            return
        ns = m["namespace"]
        vmi = fc.find(self.r(KV, "VirtualMachineInstance"), ns, (mig.get("spec") or {}).get("vmiName"))
        if not st.get("phase"):
            st["phase"] = "Pending"
            self.mark(mig)
            return
        if vmi is None or vmi["status"].get("phase") != "Running":
            return
        vst = vmi["status"]
        if st["phase"] == "Pending":
            st["phase"] = "Scheduling"
            self.mark(mig)
            return
        if "migrate-stuck" in self.faults():
            return  # the target pod never schedules
        targets = [n for n in self.kvm_nodes() if n != vst.get("nodeName")]
        sel = (mig.get("spec") or {}).get("addedNodeSelector")
        if sel and "prune-added-node-selector" in self.faults():
            del mig["spec"]["addedNodeSelector"]  # a KubeVirt < 1.6 CRD prunes it
            sel = None
        if sel:  # restricts the targets to the nodes whose labels match
            labels = {n["metadata"]["name"]: n["metadata"].get("labels") or {}
                      for n in self.r("", "Node").objects}
            targets = [n for n in targets
                       if all(labels.get(n, {}).get(k) == v for k, v in sel.items())]
        if st["phase"] == "Scheduling":
            if not targets:
                return
            st["phase"] = "Running"
            vst["migrationState"] = {"sourceNode": vst["nodeName"], "targetNode": targets[0],
                                     "startTimestamp": fc.now(), "migrationUid": m["uid"],
                                     "mode": "PreCopy"}
            st["migrationState"] = copy.deepcopy(vst["migrationState"])
            self.mark(mig)
            return
        if st["phase"] == "Running" and self.since(mig) >= self.st.args.migrate_seconds:
            ms = vst["migrationState"]
            ms.update({"endTimestamp": fc.now(), "completed": True})
            if "migrate-fails" in self.faults():
                ms.update({"failed": True, "failureReason": MIGRATE_FAILURE})
                st["phase"] = "Failed"
                st["conditions"] = [cond("Failed", "True", "", "source node reported migration failed")]
                self.sim.event(ns, "VirtualMachineInstanceMigration", m["name"], m["uid"],
                               "FailedMigration", "source node reported migration failed")
            else:
                target = ms["targetNode"]
                for p in self.r("", "Pod").objects:
                    if ((p["metadata"].get("labels") or {}).get("kubevirt.io/created-by")
                            == vmi["metadata"]["uid"]):
                        p["status"]["phase"] = "Succeeded"  # the source launcher ends
                vst["nodeName"] = target
                vmi["metadata"].setdefault("labels", {})["kubevirt.io/nodeName"] = target
                self.launcher(vmi, target)
                st["phase"] = "Succeeded"
            st["migrationState"] = copy.deepcopy(ms)
