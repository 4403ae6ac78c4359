"""VM snapshots and restores as KubeVirt, the CSI snapshotter and Longhorn make
them observable, for fake_kubevirt.py (docs/canary.md).

Shaped by the upstream types and controllers:
- kubevirt/kubevirt staging/src/kubevirt.io/api/snapshot/v1beta1/types.go and
  pkg/storage/snapshot/snapshot.go: a VirtualMachineSnapshot gets status
  {sourceUID, virtualMachineSnapshotContentName, phase InProgress|Succeeded,
  readyToUse, creationTime, indications, conditions Progressing/Ready with the
  reasons "Source locked and operation in progress", "Not ready", "Operation
  complete", "Ready"}; its content "vmsnapshot-content-UID" holds
  spec.source.virtualMachine and spec.volumeBackups[{volumeName,
  persistentVolumeClaim{metadata,spec}, volumeSnapshotName}]; the
  VolumeSnapshots "vmsnapshot-UID-volume-VOLUME" are labelled
  snapshot.kubevirt.io/source-vm-name/-namespace and owned by the content,
  which KubeVirt deletes with its snapshot (deletionPolicy Delete).
- pkg/storage/snapshot/restore.go: a VirtualMachineRestore's PVCs
  "restore-RESTOREUID-VOLUME" take the source PVC's labels plus
  restore.kubevirt.io/source-vm-name(-namespace), a dataSource of the
  VolumeSnapshot and cdi.kubevirt.io/storage.populatedFor (CDI adopts it for
  the DataVolume of that name); a target VM that does not exist is created
  with the snapshot VM's labels, Halted, its DataVolume templates renamed,
  then spec.patches applied; status {restores[], restoreTime, complete,
  conditions}, owned by the new VM.
- kubernetes-csi/external-snapshotter: a VolumeSnapshot binds a cluster-scoped
  VolumeSnapshotContent "snapcontent-UID" with status.snapshotHandle.
- longhorn/longhorn-manager (csi/controller_server.go, k8s/pkg/apis/longhorn/
  v1beta2): class type snap gives handle snap://VOL/SNAP and a Snapshot CR,
  type bak bak://VOL/BACKUP and a Backup CR (state Completed); a PVC from a
  snap handle is a clone: spec.dataSource snap://VOL/SNAP, status.cloneStatus
  {sourceVolume, snapshot, state initiated -> completed | failed,
  attemptCount}; from a bak handle spec.fromBackup and status.restoreRequired.

Faults: snapshot-deadline (the VolumeSnapshot never ready and, after 1 s
for KubeVirt's failureDeadline, the snapshot phase Failed with
Failure=True "snapshot deadline exceeded"), snapshot-retain (the class's deletionPolicy Retain: the
VolumeSnapshotContent and the Longhorn snapshot or backup stay after the
VolumeSnapshot is deleted), snapshot-never-ready (Longhorn cannot take the backup: the
VolumeSnapshot stays readyToUse false with the CSI error),
restore-source-gone (the clone's source volume and its snapshots are deleted
when the restore starts: clone state failed), restore-clone-stuck (the same,
but the clone stays initiated), restore-drops-labels (the new
VM without the snapshot VM's labels, so the cleanup would not find it). --snapshot-seconds: how long a
VolumeSnapshot takes.
"""
import copy
import json
import secrets
import time

import fake_canary as fc

KV, SNAP, VS = "kubevirt.io", "snapshot.kubevirt.io", "snapshot.storage.k8s.io"
LH = "longhorn.io"

BACKUP_TARGET_ERROR = ('Failed to check and update snapshot content: failed to take snapshot of '
                       'the volume %s: "rpc error: code = Aborted desc = backup target default '
                       'is not available"')


def cond(typ, status, reason):
    return {"type": typ, "status": status, "reason": reason, "lastProbeTime": None,
            "lastTransitionTime": fc.now()}


def owner(o, kind, api):
    m = o["metadata"]
    return [{"apiVersion": api, "kind": kind, "name": m["name"], "uid": m["uid"],
             "controller": True, "blockOwnerDeletion": True}]


def json_patch(obj, patches):
    """The replace/add operations of RFC 6902 patches (each a JSON string)."""
    for p in patches:
        op = json.loads(p)
        parts = [x.replace("~1", "/").replace("~0", "~") for x in op["path"].split("/")[1:]]
        tgt = obj
        for k in parts[:-1]:
            tgt = tgt[int(k)] if isinstance(tgt, list) else tgt.setdefault(k, {})
        if op["op"] in ("replace", "add"):
            tgt[parts[-1]] = op["value"]
    return obj


class SnapshotSim:
    def __init__(self, kv):
        self.kv = kv
        self.st = kv.st
        self.r = kv.r

    def faults(self):
        return self.st.args.canary_fault

    def tick(self):
        for s in list(self.r(SNAP, "VirtualMachineSnapshot").objects):
            self.snapshot(s)
        for vs in list(self.r(VS, "VolumeSnapshot").objects):
            self.volume_snapshot(vs)
        for rs in list(self.r(SNAP, "VirtualMachineRestore").objects):
            self.restore(rs)
        for v in list(self.r(LH, "Volume").objects):
            self.clone(v)
        self.collect()

    def vsc(self):
        """The Longhorn VolumeSnapshotClass KubeVirt takes: the only one, else the default."""
        cls = [c for c in self.r(VS, "VolumeSnapshotClass").objects
               if c.get("driver") == "driver.longhorn.io"]
        for c in cls:
            if "snapshot.storage.kubernetes.io/is-default-class" in (
                    c["metadata"].get("annotations") or {}):
                return c
        return cls[0] if len(cls) == 1 else None

    # -- virt-controller: VirtualMachineSnapshot -> content, VolumeSnapshots -> ready
    def snapshot(self, s):
        m = s["metadata"]
        if m.get("deletionTimestamp"):
            return
        ns = m["namespace"]
        st = s.setdefault("status", {})
        if st.get("phase") == "Succeeded":
            return
        contents = self.r(SNAP, "VirtualMachineSnapshotContent")
        if not st:
            vm = fc.find(self.r(KV, "VirtualMachine"), ns, s["spec"]["source"]["name"])
            if vm is None:
                st.update({"phase": "InProgress", "readyToUse": False, "conditions": [
                    cond("Progressing", "False", "Source does not exist"),
                    cond("Ready", "False", "Not ready")]})
                return
            cname = "vmsnapshot-content-" + m["uid"]
            backups = []
            for t in vm["spec"].get("dataVolumeTemplates") or []:
                dvname = t["metadata"]["name"]
                vol = next((v["name"] for v in vm["spec"]["template"]["spec"].get("volumes") or []
                            if (v.get("dataVolume") or {}).get("name") == dvname), dvname)
                pvc = fc.find(self.r("", "PersistentVolumeClaim"), ns, dvname)
                if pvc is None:
                    continue
                pm = pvc["metadata"]
                backups.append({"volumeName": vol, "volumeSnapshotName":
                                "vmsnapshot-%s-volume-%s" % (m["uid"], vol),
                                "persistentVolumeClaim": {
                                    "metadata": {"name": pm["name"], "namespace": ns,
                                                 "labels": copy.deepcopy(pm.get("labels") or {}),
                                                 "ownerReferences": copy.deepcopy(
                                                     pm.get("ownerReferences") or [])},
                                    "spec": copy.deepcopy(pvc["spec"])}})
            vmm = vm["metadata"]
            content = fc.insert(self.st, contents, {
                "metadata": {"name": cname, "_snap": m["uid"],
                             "finalizers": []},
                "spec": {"virtualMachineSnapshotName": m["name"],
                         "source": {"virtualMachine": {
                             "metadata": {"name": vmm["name"], "namespace": ns, "uid": vmm["uid"],
                                          "labels": copy.deepcopy(vmm.get("labels") or {})},
                             "spec": copy.deepcopy(vm["spec"])}},
                         "volumeBackups": backups},
                "status": {"readyToUse": False}}, ns)
            cls = self.vsc()
            for b in backups:
                fc.insert(self.st, self.r(VS, "VolumeSnapshot"), {
                    "metadata": {"name": b["volumeSnapshotName"],
                                 "labels": {"snapshot.kubevirt.io/source-vm-name": vmm["name"],
                                            "snapshot.kubevirt.io/source-vm-namespace": ns},
                                 "ownerReferences": owner(content, "VirtualMachineSnapshotContent",
                                                          contents.api_version)},
                    "spec": {"source": {"persistentVolumeClaimName":
                                        b["persistentVolumeClaim"]["metadata"]["name"]},
                             "volumeSnapshotClassName": cls["metadata"]["name"] if cls else None},
                    "status": {"readyToUse": False}}, ns)
            st.update({"sourceUID": vmm["uid"], "virtualMachineSnapshotContentName": cname,
                       "phase": "InProgress", "readyToUse": False,
                       "indications": ["Online", "NoGuestAgent"],
                       "conditions": [
                           cond("Progressing", "True", "Source locked and operation in progress"),
                           cond("Ready", "False", "Not ready")]})
            self.kv.sim.event(ns, "VirtualMachineSnapshot", m["name"], m["uid"],
                              "SuccessfulVirtualMachineSnapshotContentCreate",
                              "Successfully created VirtualMachineSnapshotContent %s" % cname,
                              "Normal")
            return
        content = fc.find(contents, ns, st.get("virtualMachineSnapshotContentName"))
        if content is None or st.get("phase") == "Failed":
            return
        if ("snapshot-deadline" in self.faults() and
                time.monotonic() - self.kv.t.setdefault(m["uid"], time.monotonic()) >= 1):
            # virt-controller past spec.failureDeadline (vmSnapshotDeadlineExceeded)
            st.update({"phase": "Failed", "conditions": [
                cond("Failure", "True", "snapshot deadline exceeded"),
                cond("Progressing", "False", "Operation failed"),
                cond("Ready", "False", "Not ready")]})
            return
        vss, statuses = [], []
        for b in content["spec"]["volumeBackups"]:
            vs = fc.find(self.r(VS, "VolumeSnapshot"), ns, b["volumeSnapshotName"])
            vss.append(vs)
            one = {"volumeSnapshotName": b["volumeSnapshotName"],
                   "readyToUse": bool(vs and vs["status"].get("readyToUse"))}
            if vs and vs["status"].get("error"):
                one["error"] = vs["status"]["error"]
            statuses.append(one)
        content["status"]["volumeSnapshotStatus"] = statuses
        if vss and all(v and v["status"].get("readyToUse") for v in vss):
            content["status"].update({"readyToUse": True, "creationTime": fc.now()})
            st.update({"phase": "Succeeded", "readyToUse": True, "creationTime": fc.now(),
                       "conditions": [cond("Progressing", "False", "Operation complete"),
                                      cond("Ready", "True", "Ready")]})

    # -- snapshot-controller, csi-snapshotter, Longhorn CSI: VolumeSnapshot -> ready
    def volume_snapshot(self, vs):
        m, st = vs["metadata"], vs.setdefault("status", {})
        if m.get("deletionTimestamp") or st.get("readyToUse"):
            return
        ns = m["namespace"]
        pvc = fc.find(self.r("", "PersistentVolumeClaim"), ns,
                      vs["spec"]["source"].get("persistentVolumeClaimName"))
        vol = (pvc or {}).get("spec", {}).get("volumeName")
        if vol is None:
            return
        if "snapshot-never-ready" in self.faults() or "snapshot-deadline" in self.faults():
            st.update({"readyToUse": False,
                       "error": {"time": fc.now(), "message": BACKUP_TARGET_ERROR % vol}})
            return
        t = self.kv.t.setdefault(m["uid"], time.monotonic())
        if time.monotonic() - t < self.st.args.snapshot_seconds:
            return
        cls = fc.find(self.r(VS, "VolumeSnapshotClass"), None, vs["spec"].get("volumeSnapshotClassName"))
        typ = ((cls or {}).get("parameters") or {}).get("type") or "bak"
        size = ((pvc["spec"].get("resources") or {}).get("requests") or {}).get("storage", "64Mi")
        if typ == "snap":
            lname = "snapshot-" + secrets.token_hex(4) + "-" + secrets.token_hex(2)
            handle = "snap://%s/%s" % (vol, lname)
            lh = {"metadata": {"name": lname, "labels": {"longhornvolume": vol}},
                  "spec": {"volume": vol, "createSnapshot": True},
                  "status": {"readyToUse": True, "creationTime": fc.now(), "size": "0"}}
            kind = "Snapshot"
        else:
            lname = "backup-" + secrets.token_hex(8)
            handle = "bak://%s/%s" % (vol, lname)
            lh = {"metadata": {"name": lname, "labels": {"backup-volume": vol}},
                  "spec": {"snapshotName": "snapshot-" + secrets.token_hex(4)},
                  "status": {"state": "Completed", "progress": 100, "volumeName": vol,
                             "backupCreatedAt": fc.now()}}
            kind = "Backup"
        content = fc.insert(self.st, self.r(VS, "VolumeSnapshotContent"), {
            "metadata": {"name": "snapcontent-" + m["uid"], "_vs": m["uid"]},
            "spec": {"volumeSnapshotRef": {"kind": "VolumeSnapshot", "namespace": ns,
                                           "name": m["name"], "uid": m["uid"]},
                     "deletionPolicy": "Retain" if "snapshot-retain" in self.faults()
                     else "Delete", "driver": "driver.longhorn.io",
                     "volumeSnapshotClassName": vs["spec"].get("volumeSnapshotClassName"),
                     "source": {"volumeHandle": vol}},
            "status": {"snapshotHandle": handle, "readyToUse": True,
                       "creationTime": time.time_ns(), "restoreSize": 67108864}})
        lh["metadata"]["_vsc"] = content["metadata"]["uid"]
        fc.insert(self.st, self.r(LH, kind), lh, fc.LH_NS)
        st.update({"boundVolumeSnapshotContentName": content["metadata"]["name"],
                   "creationTime": fc.now(), "readyToUse": True, "restoreSize": size})

    # -- virt-controller: VirtualMachineRestore -> PVCs -> a new VM -> complete
    def restore(self, rs):
        m = rs["metadata"]
        st = rs.setdefault("status", {})
        if m.get("deletionTimestamp") or st.get("complete"):
            return
        ns = m["namespace"]
        if not st:
            st.update({"complete": False, "conditions": [
                cond("Progressing", "True", "Initializing VirtualMachineRestore"),
                cond("Ready", "False", "Initializing VirtualMachineRestore")]})
            return
        snap = fc.find(self.r(SNAP, "VirtualMachineSnapshot"), ns,
                       rs["spec"].get("virtualMachineSnapshotName"))
        content = fc.find(self.r(SNAP, "VirtualMachineSnapshotContent"), ns,
                          ((snap or {}).get("status") or {}).get("virtualMachineSnapshotContentName"))
        if content is None or not (snap.get("status") or {}).get("readyToUse"):
            return
        src = content["spec"]["source"]["virtualMachine"]
        if "restores" not in st:
            st["restores"] = []
            for b in content["spec"]["volumeBackups"]:
                name = "restore-%s-%s" % (m["uid"], b["volumeName"])
                sp = b["persistentVolumeClaim"]
                ds = {"apiGroup": VS, "kind": "VolumeSnapshot", "name": b["volumeSnapshotName"]}
                fc.insert(self.st, self.r("", "PersistentVolumeClaim"), {
                    "metadata": {"name": name,
                                 "labels": dict(sp["metadata"].get("labels") or {}, **{
                                     "restore.kubevirt.io/source-vm-name": src["metadata"]["name"],
                                     "restore.kubevirt.io/source-vm-namespace": ns}),
                                 "annotations": {"restore.kubevirt.io/name": m["name"],
                                                 "cdi.kubevirt.io/storage.populatedFor": name},
                                 "finalizers": [fc.PVC_PROTECTION]},
                    "spec": dict(copy.deepcopy(sp["spec"]), dataSource=ds, dataSourceRef=ds,
                                 volumeName=None),
                    "status": {"phase": "Pending"}}, ns)
                st["restores"].append({"volumeName": b["volumeName"],
                                       "persistentVolumeClaim": name,
                                       "volumeSnapshotName": b["volumeSnapshotName"],
                                       "dataVolumeName": name})
                if {"restore-source-gone", "restore-clone-stuck"} & set(self.faults()):
                    self.remove_source(sp["metadata"]["name"], ns)
            st["conditions"] = [cond("Progressing", "True", "Creating new PVCs"),
                                cond("Ready", "False", "Waiting for new PVCs")]
            return
        target = rs["spec"]["target"]["name"]
        vm = fc.find(self.r(KV, "VirtualMachine"), ns, target)
        if vm is None:
            spec = copy.deepcopy(src["spec"])
            spec["runStrategy"] = "Halted"
            names = {}
            for t in spec.get("dataVolumeTemplates") or []:
                for v in spec["template"]["spec"].get("volumes") or []:
                    if (v.get("dataVolume") or {}).get("name") == t["metadata"]["name"]:
                        new = next(x["dataVolumeName"] for x in st["restores"]
                                   if x["volumeName"] == v["name"])
                        names[t["metadata"]["name"]] = new
                        v["dataVolume"]["name"] = new
                t["metadata"]["name"] = names.get(t["metadata"]["name"], t["metadata"]["name"])
            labels = copy.deepcopy(src["metadata"].get("labels") or {})
            if "restore-drops-labels" in self.faults():
                labels = {}  # a restore controller that does not copy them
            new_vm = json_patch({"metadata": {
                "name": target, "labels": labels,
                "annotations": {"restore.kubevirt.io/lastRestoreUID": "%s-%s" % (m["name"], m["uid"])}},
                "spec": spec}, rs["spec"].get("patches") or [])
            vm = fc.insert(self.st, self.r(KV, "VirtualMachine"), new_vm, ns)
            m["ownerReferences"] = owner(vm, "VirtualMachine", "kubevirt.io/v1")
            st["conditions"] = [cond("Progressing", "True", "Updating target spec"),
                                cond("Ready", "False", "Waiting for target update")]
            return
        st.update({"complete": True, "restoreTime": fc.now(), "conditions": [
            cond("Progressing", "False", "Operation complete"),
            cond("Ready", "True", "Operation complete")]})
        self.kv.sim.event(ns, "VirtualMachineRestore", m["name"], m["uid"],
                          "VirtualMachineRestoreComplete",
                          "Successfully completed VirtualMachineRestore %s" % m["name"], "Normal")

    def remove_source(self, pvc_name, ns):
        """The fault: the source volume (and the snapshots inside it) deleted."""
        pvc = fc.find(self.r("", "PersistentVolumeClaim"), ns, pvc_name)
        vol = ((pvc or {}).get("spec") or {}).get("volumeName")
        for k in ("Volume", "Snapshot", "Replica"):
            res = self.r(LH, k)
            res.objects = [o for o in res.objects
                           if o["metadata"]["name"] != vol
                           and (o["metadata"].get("labels") or {}).get("longhornvolume") != vol]

    def restore_source(self, pvc, vol):
        """Longhorn CSI CreateVolume from a VolumeSnapshot: a clone or a restore."""
        ds = (pvc.get("spec") or {}).get("dataSource") or {}
        if ds.get("kind") != "VolumeSnapshot":
            return
        vs = fc.find(self.r(VS, "VolumeSnapshot"), pvc["metadata"]["namespace"], ds.get("name"))
        content = fc.find(self.r(VS, "VolumeSnapshotContent"), None,
                          ((vs or {}).get("status") or {}).get("boundVolumeSnapshotContentName"))
        handle = ((content or {}).get("status") or {}).get("snapshotHandle", "")
        scheme, _, rest = handle.partition("://")
        src, _, name = rest.partition("/")
        if scheme == "snap":
            vol["spec"]["dataSource"] = handle
            vol["status"]["cloneStatus"] = {"sourceVolume": src, "snapshot": name,
                                            "state": "initiated", "attemptCount": 0,
                                            "nextAllowedAttemptAt": ""}
        elif scheme == "bak":
            vol["spec"]["fromBackup"] = "nfs://backupstore:/opt/backupstore?backup=%s&volume=%s" % (
                name, src)
            vol["status"]["restoreRequired"] = True

    # -- longhorn-manager: the clone (or the restore from a backup) of a volume
    def clone(self, v):
        cs = v["status"].get("cloneStatus") or {}
        t = self.kv.t.setdefault(v["metadata"]["uid"], time.monotonic())
        if cs.get("state") == "initiated" and "restore-clone-stuck" in self.faults():
            return  # the clone never leaves initiated
        if cs.get("state") == "initiated":
            if fc.find(self.r(LH, "Volume"), fc.LH_NS, cs["sourceVolume"]) is None:
                cs.update({"state": "failed", "attemptCount": 1,
                           "nextAllowedAttemptAt": fc.now()})
            elif time.monotonic() - t > 0.3:
                cs["state"] = "completed"
        if cs.get("state") == "failed":
            v["status"]["robustness"] = "faulted"
        if v["status"].get("restoreRequired") and time.monotonic() - t > 0.3:
            v["status"]["restoreRequired"] = False

    def collect(self):
        """KubeVirt deletes a content with its snapshot, the snapshot-controller a
        VolumeSnapshotContent after its VolumeSnapshot, Longhorn CSI the snapshot or
        backup behind it."""
        live = {o["metadata"]["uid"] for o in self.r(SNAP, "VirtualMachineSnapshot").objects}
        res = self.r(SNAP, "VirtualMachineSnapshotContent")
        res.objects = [o for o in res.objects if o["metadata"].get("_snap") in live]
        live = {o["metadata"]["uid"] for o in self.r(VS, "VolumeSnapshot").objects}
        res = self.r(VS, "VolumeSnapshotContent")
        res.objects = [o for o in res.objects if o["metadata"].get("_vs", None) is None
                       or o["metadata"]["_vs"] in live
                       or o["spec"].get("deletionPolicy") == "Retain"]
        live = {o["metadata"]["uid"] for o in res.objects}
        for k in ("Snapshot", "Backup"):
            res = self.r(LH, k)
            res.objects = [o for o in res.objects if "_vsc" not in o["metadata"]
                           or o["metadata"]["_vsc"] in live]
