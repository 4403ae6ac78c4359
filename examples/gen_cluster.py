#!/usr/bin/env python3
"""Generate a realistic Harvester v1.8.2 cluster state as `kubectl get -o json` files.

The output directory holds one List per resource, named PLURAL.GROUP.json as
`hvready-aggregator collect` writes it. It models a healthy 3-node Harvester
v1.8.2 cluster (Longhorn v1.11.2, KubeVirt v1.7.4, CDI v1.64.0) with a few VMs,
and scales up (--nodes, --vms) for benchmarks. Objects follow
the upstream Go types field by field (docs/collect.md lists them); names and UIDs are deterministic.

    examples/gen_cluster.py --out examples/cluster
    examples/gen_cluster.py --nodes 500 --vms 5000 --out /tmp/big
"""
import argparse
import hashlib
import json
import os
import uuid

T0 = "2026-09-01T08:00:00Z"
T1 = "2026-09-01T09:00:00Z"
T2 = "2026-09-05T10:00:00Z"
LH = "v1.11.2"
KV = "v1.7.4"
KV_BUILD = "1.7.4-150700.3.24.2"
CDI = "v1.64.0"
HV = "v1.8.2"
GIB = 1 << 30


def uid(*parts):
    return str(uuid.UUID(hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:32]))


def hexid(n, *parts):
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:n]


def meta(name, ns=None, **extra):
    m = {"name": name, "uid": uid(name, ns), "resourceVersion": str(int(hexid(6, name, ns), 16)),
         "creationTimestamp": T0}
    if ns is not None:
        m["namespace"] = ns
    m.update(extra)
    return m


def cond(typ, status, reason="", message="", t=T1):
    return {"type": typ, "status": status, "lastProbeTime": "", "lastTransitionTime": t,
            "reason": reason, "message": message}


class Cluster:
    def __init__(self):
        self.res = {}

    def add(self, fname, obj):
        self.res.setdefault(fname, []).append(obj)

    def write(self, out):
        os.makedirs(out, exist_ok=True)
        for fname, items in sorted(self.res.items()):
            with open(os.path.join(out, fname), "w") as f:
                json.dump({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                           "items": items}, f, indent=4, sort_keys=True)
                f.write("\n")


def pod(c, name, ns, node, labels, containers, phase="Running", restarts=0, owner=None, last=None,
        start=T1):
    statuses = []
    for cname, image in containers:
        st = {"name": cname, "image": image, "imageID": image + "@sha256:" + hexid(64, image),
              "containerID": "containerd://" + hexid(64, name, cname), "ready": phase == "Running",
              "started": phase == "Running", "restartCount": restarts,
              "state": {"running": {"startedAt": start}} if phase == "Running" else
              {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": T0, "finishedAt": T1}},
              "lastState": last or {}}
        statuses.append(st)
    m = meta(name, ns, labels=labels)
    if owner:
        m["ownerReferences"] = [{"apiVersion": owner[0], "kind": owner[1], "name": owner[2],
                                 "uid": uid(owner[2], ns), "controller": True}]
    c.add("pods.json", {
        "apiVersion": "v1", "kind": "Pod", "metadata": m,
        "spec": {"nodeName": node, "containers": [{"name": n, "image": i} for n, i in containers],
                 "restartPolicy": "Always"},
        "status": {"phase": phase, "startTime": start, "hostIP": "10.0.0.%d" % 10,
                   "conditions": [{"type": "Ready", "status": "True" if phase == "Running" else "False",
                                   "lastProbeTime": None, "lastTransitionTime": start}],
                   "containerStatuses": statuses}})


def deployment(c, name, ns, replicas, image, labels=None):
    labels = labels or {"app": name}
    # Helm-managed, as the harvester chart deploys them: Helm writes dates with spaces.
    ann = {"deployment.kubernetes.io/revision": "1", "meta.helm.sh/release-name": "harvester",
           "meta.helm.sh/release-namespace": "harvester-system",
           "field.cattle.io/publicEndpoints": "[]",
           "objectset.rio.cattle.io/applied": "",
           "harvesterhci.io/upgraded-at": "2026-09-01 08:00:00.123456789 +0000 UTC"} if ns == "harvester-system" else {}
    c.add("deployments.apps.json", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(name, ns, labels=labels, generation=1, annotations=ann),
        "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels},
                              "spec": {"containers": [{"name": name, "image": image}]}}},
        "status": {"observedGeneration": 1, "replicas": replicas, "readyReplicas": replicas,
                   "availableReplicas": replicas, "updatedReplicas": replicas,
                   "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                                   "message": "Deployment has minimum availability.",
                                   "lastTransitionTime": T1, "lastUpdateTime": T1}]}})


def daemonset(c, name, ns, n, image, args=None, labels=None):
    labels = labels or {"app": name}
    ctr = {"name": name, "image": image}
    if args:
        ctr["command"] = args
    c.add("daemonsets.apps.json", {
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta(name, ns, labels=labels, generation=1),
        "spec": {"selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels}, "spec": {"containers": [ctr]}}},
        "status": {"currentNumberScheduled": n, "desiredNumberScheduled": n, "numberAvailable": n,
                   "numberReady": n, "numberMisscheduled": 0, "observedGeneration": 1, "updatedNumberScheduled": n}})


def service(c, name, ns, ip, ports, selector=None, typ="ClusterIP", labels=None):
    c.add("services.json", {
        "apiVersion": "v1", "kind": "Service", "metadata": meta(name, ns, labels=labels or {}),
        "spec": {"type": typ, "clusterIP": ip, "clusterIPs": [ip], "ipFamilies": ["IPv4"],
                 "ports": ports, "selector": selector or {}},
        "status": {"loadBalancer": {}}})


def generate(nodes, vms):
    c = Cluster()
    names = ["harvester-node-%d" % (i + 1) for i in range(nodes)]
    # Nodes
    for i, n in enumerate(names):
        ip = "10.0.%d.%d" % (i // 250, 10 + i % 250)
        labels = {"kubernetes.io/hostname": n, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                  "kubevirt.io/schedulable": "true", "cpu-vendor.node.kubevirt.io/Intel": "true",
                  "host-model-cpu.node.kubevirt.io/Cascadelake-Server-noTSX": "true",
                  "cpu-model-migration.node.kubevirt.io/Cascadelake-Server-noTSX": "true",
                  "node-role.kubernetes.io/control-plane": "true" if i < 3 else None,
                  "node-role.kubernetes.io/etcd": "true" if i < 3 else None}
        labels = {k: v for k, v in labels.items() if v is not None}
        c.add("nodes.json", {
            "apiVersion": "v1", "kind": "Node",
            "metadata": meta(n, labels=labels, annotations={"kubevirt.io/heartbeat": T2}),
            "spec": {"podCIDR": "10.52.%d.0/24" % i, "podCIDRs": ["10.52.%d.0/24" % i]},
            "status": {
                "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": n}],
                "capacity": {"cpu": "32", "memory": "131758252Ki", "pods": "200",
                             "devices.kubevirt.io/kvm": "1k"},
                "allocatable": {"cpu": "32", "memory": "131758252Ki", "pods": "200"},
                "conditions": [
                    {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory",
                     "message": "kubelet has sufficient memory available", "lastHeartbeatTime": T2, "lastTransitionTime": T0},
                    {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure",
                     "message": "kubelet has no disk pressure", "lastHeartbeatTime": T2, "lastTransitionTime": T0},
                    {"type": "PIDPressure", "status": "False", "reason": "KubeletHasSufficientPID",
                     "message": "kubelet has sufficient PID available", "lastHeartbeatTime": T2, "lastTransitionTime": T0},
                    {"type": "Ready", "status": "True", "reason": "KubeletReady",
                     "message": "kubelet is posting ready status", "lastHeartbeatTime": T2, "lastTransitionTime": T0}],
                "nodeInfo": {"architecture": "amd64", "containerRuntimeVersion": "containerd://2.0.5-k3s1",
                             "kernelVersion": "6.4.0-150600.23.47-default", "kubeletVersion": "v1.33.5+rke2r1",
                             "osImage": "Harvester v1.8.2", "operatingSystem": "linux"}}})
        # Longhorn node
        disk = "default-disk-" + hexid(12, n)
        c.add("nodes.longhorn.io.json", {
            "apiVersion": "longhorn.io/v1beta2", "kind": "Node", "metadata": meta(n, "longhorn-system"),
            "spec": {"name": n, "allowScheduling": True, "evictionRequested": False, "tags": [],
                     "instanceManagerCPURequest": 0,
                     "disks": {disk: {"diskType": "filesystem", "path": "/var/lib/harvester/defaultdisk",
                                      "diskDriver": "", "allowScheduling": True, "evictionRequested": False,
                                      "storageReserved": 32212254720, "tags": []}}},
            "status": {"region": "", "zone": "", "autoEvicting": False,
                       "conditions": [cond("Ready", "True", message="Node %s is ready" % n),
                                      cond("Schedulable", "True"), cond("MountPropagation", "True"),
                                      cond("Multipathd", "True"),
                                      cond("KernelModulesLoaded", "True", message="Kernel modules [CONFIG_DM_CRYPT] are loaded"),
                                      cond("NFSClientInstalled", "True")],
                       "diskStatus": {disk: {
                           "conditions": [cond("Ready", "True"), cond("Schedulable", "True", message="Disk %s(/var/lib/harvester/defaultdisk) on node %s is schedulable" % (disk, n))],
                           "storageAvailable": 700000000000, "storageScheduled": 200000000000,
                           "storageMaximum": 1000000000000, "scheduledReplica": {}, "scheduledBackingImage": {},
                           "diskUUID": uid("disk", n), "diskName": disk, "diskPath": "/var/lib/harvester/defaultdisk",
                           "diskType": "filesystem", "diskDriver": "", "filesystemType": "ext2/ext3",
                           "instanceManagerName": "instance-manager-" + hexid(32, "im", n)}}}})
        # per-node system pods
        pod(c, "virt-handler-" + hexid(5, "vh", n), "harvester-system", n, {"kubevirt.io": "virt-handler"},
            [("virt-handler", "registry.suse.com/suse/sles/15.7/virt-handler:" + KV_BUILD)],
            owner=("apps/v1", "DaemonSet", "virt-handler"))
        pod(c, "longhorn-manager-" + hexid(5, "lm", n), "longhorn-system", n, {"app": "longhorn-manager"},
            [("longhorn-manager", "longhornio/longhorn-manager:" + LH), ("pre-pull-share-manager-image", "longhornio/longhorn-share-manager:" + LH)],
            owner=("apps/v1", "DaemonSet", "longhorn-manager"))
        pod(c, "longhorn-csi-plugin-" + hexid(5, "csi", n), "longhorn-system", n, {"app": "longhorn-csi-plugin"},
            [("longhorn-csi-plugin", "longhornio/longhorn-manager:" + LH)],
            owner=("apps/v1", "DaemonSet", "longhorn-csi-plugin"))

    first = names[0]
    nn = len(names)
    # Deployments and their pods
    for name, ns, reps, image, labels in [
        ("harvester", "harvester-system", 1, "rancher/harvester:" + HV, {"app.kubernetes.io/name": "harvester", "app.kubernetes.io/component": "apiserver"}),
        ("harvester-webhook", "harvester-system", 1, "rancher/harvester-webhook:" + HV, {"app.kubernetes.io/name": "harvester", "app.kubernetes.io/component": "webhook-server"}),
        ("harvester-network-controller-manager", "harvester-system", 2, "rancher/harvester-network-controller:" + HV, None),
        ("virt-api", "harvester-system", 2, "registry.suse.com/suse/sles/15.7/virt-api:" + KV_BUILD, {"kubevirt.io": "virt-api"}),
        ("virt-controller", "harvester-system", 2, "registry.suse.com/suse/sles/15.7/virt-controller:" + KV_BUILD, {"kubevirt.io": "virt-controller"}),
        ("virt-operator", "harvester-system", 1, "registry.suse.com/suse/sles/15.7/virt-operator:" + KV_BUILD, {"kubevirt.io": "virt-operator"}),
        ("cdi-apiserver", "harvester-system", 1, "registry.suse.com/suse/sles/15.7/cdi-apiserver:" + CDI, {"cdi.kubevirt.io": "cdi-apiserver"}),
        ("cdi-deployment", "harvester-system", 1, "registry.suse.com/suse/sles/15.7/cdi-controller:" + CDI, {"app": "containerized-data-importer"}),
        ("cdi-operator", "harvester-system", 1, "registry.suse.com/suse/sles/15.7/cdi-operator:" + CDI, {"name": "cdi-operator"}),
        ("longhorn-driver-deployer", "longhorn-system", 1, "longhornio/longhorn-manager:" + LH, None),
        ("longhorn-ui", "longhorn-system", 2, "longhornio/longhorn-ui:" + LH, None),
        ("csi-attacher", "longhorn-system", 3, "longhornio/csi-attacher:v4.9.0", None),
        ("csi-provisioner", "longhorn-system", 3, "longhornio/csi-provisioner:v5.3.0", None),
        ("csi-snapshotter", "longhorn-system", 3, "longhornio/csi-snapshotter:v8.3.0", None),
        ("rke2-coredns-rke2-coredns", "kube-system", 2, "rancher/hardened-coredns:v1.12.2-build20250611", {"k8s-app": "kube-dns", "app.kubernetes.io/name": "rke2-coredns"}),
        ("rke2-metrics-server", "kube-system", 1, "rancher/hardened-k8s-metrics-server:v0.8.0-build20250704", None),
        ("snapshot-controller", "kube-system", 2, "rancher/hardened-snapshot-controller:v8.2.0-build20250704", {"app.kubernetes.io/name": "snapshot-controller"}),
    ]:
        deployment(c, name, ns, reps, image, labels)
        for r in range(reps):
            pod(c, "%s-%s-%s" % (name, hexid(10, name), hexid(5, name, r)), ns, names[r % nn],
                labels or {"app": name}, [(name, image)], owner=("apps/v1", "ReplicaSet", name + "-" + hexid(10, name)))
    daemonset(c, "longhorn-manager", "longhorn-system", nn, "longhornio/longhorn-manager:" + LH,
              ["longhorn-manager", "-d", "daemon", "--engine-image", "longhornio/longhorn-engine:" + LH,
               "--instance-manager-image", "longhornio/longhorn-instance-manager:" + LH,
               "--share-manager-image", "longhornio/longhorn-share-manager:" + LH,
               "--backing-image-manager-image", "longhornio/backing-image-manager:" + LH,
               "--support-bundle-manager-image", "longhornio/support-bundle-kit:v0.0.61",
               "--manager-image", "longhornio/longhorn-manager:" + LH, "--service-account", "longhorn-service-account",
               "--upgrade-version-check"])
    daemonset(c, "longhorn-csi-plugin", "longhorn-system", nn, "longhornio/longhorn-manager:" + LH)
    daemonset(c, "virt-handler", "harvester-system", nn, "registry.suse.com/suse/sles/15.7/virt-handler:" + KV_BUILD,
              labels={"kubevirt.io": "virt-handler"})
    daemonset(c, "rke2-ingress-nginx-controller", "kube-system", nn, "rancher/nginx-ingress-controller:v1.12.4-hardened2")

    # Services
    service(c, "kubernetes", "default", "10.53.0.1", [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}],
            labels={"component": "apiserver", "provider": "kubernetes"})
    service(c, "rke2-coredns-rke2-coredns", "kube-system", "10.53.0.10",
            [{"name": "udp-53", "port": 53, "protocol": "UDP", "targetPort": 53},
             {"name": "tcp-53", "port": 53, "protocol": "TCP", "targetPort": 53}],
            {"k8s-app": "kube-dns"}, labels={"k8s-app": "kube-dns"})
    service(c, "harvester", "harvester-system", "10.53.87.201",
            [{"name": "https", "port": 8443, "protocol": "TCP", "targetPort": 8443}],
            {"app.kubernetes.io/name": "harvester", "app.kubernetes.io/component": "apiserver"})
    service(c, "virt-api", "harvester-system", "10.53.12.4", [{"port": 443, "protocol": "TCP", "targetPort": 8443}], {"kubevirt.io": "virt-api"})

    # StorageClasses
    c.add("storageclasses.storage.k8s.io.json", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": meta("harvester-longhorn", annotations={"storageclass.kubernetes.io/is-default-class": "true",
                                                            "harvesterhci.io/is-reserved-storageclass": "true"}),
        "provisioner": "driver.longhorn.io", "allowVolumeExpansion": True, "reclaimPolicy": "Delete",
        "volumeBindingMode": "Immediate",
        "parameters": {"numberOfReplicas": "3", "staleReplicaTimeout": "30", "fromBackup": "", "baseImage": "", "migratable": "true"}})
    c.add("storageclasses.storage.k8s.io.json", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": meta("longhorn", annotations={"storageclass.kubernetes.io/is-default-class": "false"}),
        "provisioner": "driver.longhorn.io", "allowVolumeExpansion": True, "reclaimPolicy": "Delete",
        "volumeBindingMode": "Immediate",
        "parameters": {"numberOfReplicas": "3", "staleReplicaTimeout": "30", "fromBackup": "", "fsType": "ext4",
                       "dataLocality": "disabled", "migratable": "true"}})
    c.add("storageclasses.storage.k8s.io.json", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta("longhorn-rwx"),
        "provisioner": "driver.longhorn.io", "allowVolumeExpansion": True, "reclaimPolicy": "Delete",
        "volumeBindingMode": "Immediate",
        "parameters": {"numberOfReplicas": "3", "staleReplicaTimeout": "2880", "fsType": "ext4",
                       "nfsOptions": "vers=4.1,noresvport,softerr,timeo=600,retrans=5"}})
    c.add("storageclasses.storage.k8s.io.json", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta("vmstate-persistence"),
        "provisioner": "driver.longhorn.io", "allowVolumeExpansion": True, "reclaimPolicy": "Delete",
        "volumeBindingMode": "Immediate",
        "parameters": {"numberOfReplicas": "3", "staleReplicaTimeout": "30", "migratable": "false"}})

    # VolumeSnapshotClasses as Harvester ships them
    c.add("volumesnapshotclasses.snapshot.storage.k8s.io.json", {
        "apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotClass", "metadata": meta("longhorn"),
        "driver": "driver.longhorn.io", "deletionPolicy": "Delete"})
    c.add("volumesnapshotclasses.snapshot.storage.k8s.io.json", {
        "apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotClass", "metadata": meta("longhorn-snapshot"),
        "driver": "driver.longhorn.io", "deletionPolicy": "Delete", "parameters": {"type": "snap"}})

    # Longhorn settings and backup target
    for name, value in [("current-longhorn-version", LH), ("default-data-path", "/var/lib/harvester/defaultdisk"),
                        ("storage-minimal-available-percentage", "25"), ("storage-over-provisioning-percentage", "200"),
                        ("default-replica-count", '{"v1":"3","v2":"3"}'), ("rwx-volume-fast-failover", "false"),
                        ("endpoint-network-for-rwx-volume", ""), ("storage-network", ""),
                        ("system-managed-pods-image-pull-policy", "if-not-present")]:
        c.add("settings.longhorn.io.json", {"apiVersion": "longhorn.io/v1beta2", "kind": "Setting",
                                            "metadata": meta(name, "longhorn-system"), "value": value,
                                            "status": {"applied": True}})
    c.add("backuptargets.longhorn.io.json", {
        "apiVersion": "longhorn.io/v1beta2", "kind": "BackupTarget", "metadata": meta("default", "longhorn-system"),
        "spec": {"backupTargetURL": "nfs://backup.example.internal:/exports/harvester", "credentialSecret": "",
                 "pollInterval": "5m0s", "syncRequestedAt": None},
        "status": {"ownerID": first, "available": True, "lastSyncedAt": T2,
                   "conditions": [cond("Unavailable", "False")]}})
    for name, value in [("server-version", HV), ("backup-target",
                         json.dumps({"type": "nfs", "endpoint": "nfs://backup.example.internal:/exports/harvester",
                                     "accessKeyId": "", "secretAccessKey": "", "bucketName": "", "bucketRegion": "",
                                     "cert": "", "virtualHostedStyle": False, "refreshIntervalInSeconds": 0},
                                    separators=(",", ":"))),
                        ("volume-snapshot-class", "longhorn"), ("default-storage-class", "harvester-longhorn"),
                        ("csi-driver-config", '{"driver.longhorn.io":{"volumeSnapshotClassName":"longhorn-snapshot","backupVolumeSnapshotClassName":"longhorn"}}')]:
        c.add("settings.harvesterhci.io.json", {"apiVersion": "harvesterhci.io/v1beta1", "kind": "Setting",
                                                "metadata": meta(name), "value": value, "default": "",
                                                "status": {"conditions": [{"type": "configured", "status": "True", "lastUpdateTime": T1}]}})

    # KubeVirt and CDI as Harvester v1.8.2 deploys them (no Snapshot gate: Harvester uses its own backups)
    c.add("kubevirts.kubevirt.io.json", {
        "apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": meta("kubevirt", "harvester-system", generation=4, managedFields=[
            {"apiVersion": "kubevirt.io/v1", "fieldsType": "FieldsV1", "manager": "harvester", "operation": "Update", "time": T0,
             "fieldsV1": {"f:spec": {"f:configuration": {"f:developerConfiguration": {"f:featureGates": {}}, "f:vmStateStorageClass": {}}}}},
            {"apiVersion": "kubevirt.io/v1", "fieldsType": "FieldsV1", "manager": "virt-operator", "operation": "Update", "subresource": "status", "time": T1,
             "fieldsV1": {"f:status": {"f:conditions": {}, "f:phase": {}}}}]),
        "spec": {"certificateRotateStrategy": {},
                 "configuration": {"developerConfiguration": {"featureGates": ["CPUManager", "DeclarativeHotplugVolumes", "ExpandDisks", "EnableVirtioFsConfigVolumes", "HostDevices"]},
                                   "vmStateStorageClass": "vmstate-persistence", "vmRolloutStrategy": "LiveUpdate",
                                   "migrations": {"parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "completionTimeoutPerGiB": 800, "progressTimeout": 150}},
                 "workloadUpdateStrategy": {"workloadUpdateMethods": ["LiveMigrate"]}},
        "status": {"phase": "Deployed", "observedGeneration": 4, "operatorVersion": KV,
                   "targetKubeVirtVersion": KV_BUILD, "observedKubeVirtVersion": KV_BUILD,
                   "conditions": [
                       {"type": "Available", "status": "True", "lastProbeTime": T1, "lastTransitionTime": T1, "reason": "AllComponentsReady", "message": "All components are ready."},
                       {"type": "Progressing", "status": "False", "lastProbeTime": T1, "lastTransitionTime": T1, "reason": "AllComponentsReady", "message": "All components are ready."},
                       {"type": "Degraded", "status": "False", "lastProbeTime": T1, "lastTransitionTime": T1, "reason": "AllComponentsReady", "message": "All components are ready."},
                       {"type": "Created", "status": "True", "lastProbeTime": T1, "lastTransitionTime": T1, "reason": "AllResourcesCreated", "message": "All resources were created."}]}})
    c.add("cdis.cdi.kubevirt.io.json", {
        "apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "CDI", "metadata": meta("cdi"),
        "spec": {"cloneStrategyOverride": "copy", "config": {"featureGates": ["HonorWaitForFirstConsumer"]}},
        "status": {"phase": "Deployed", "operatorVersion": CDI, "targetVersion": CDI, "observedVersion": CDI,
                   "conditions": [{"type": t, "status": s, "reason": "", "message": "", "lastHeartbeatTime": T2, "lastTransitionTime": T1}
                                  for t, s in [("Available", "True"), ("Progressing", "False"), ("Degraded", "False")]]}})

    # Webhooks: configurations named harvester-*, entries *.harvesterhci.io
    for kind, fname, cfg, entry, path in [
            ("ValidatingWebhookConfiguration", "validatingwebhookconfigurations.admissionregistration.k8s.io.json",
             "harvester-validator", "validator.harvesterhci.io", "/v1/webhook/validation"),
            ("MutatingWebhookConfiguration", "mutatingwebhookconfigurations.admissionregistration.k8s.io.json",
             "harvester-mutator", "mutator.harvesterhci.io", "/v1/webhook/mutation")]:
        c.add(fname, {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": meta(cfg),
                      "webhooks": [{"name": entry, "admissionReviewVersions": ["v1", "v1beta1"],
                                    "clientConfig": {"service": {"name": "harvester-webhook", "namespace": "harvester-system", "path": path, "port": 443}},
                                    "failurePolicy": "Fail", "matchPolicy": "Equivalent", "sideEffects": "None", "timeoutSeconds": 10,
                                    "rules": [{"apiGroups": ["harvesterhci.io"], "apiVersions": ["v1beta1"], "operations": ["CREATE", "UPDATE"], "resources": ["*"], "scope": "*"}]}]})
        c.add(fname, {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                      "metadata": meta("longhorn-webhook-" + ("validator" if "Valid" in kind else "mutator")),
                      "webhooks": [{"name": ("validator" if "Valid" in kind else "mutator") + ".longhorn.io",
                                    "admissionReviewVersions": ["v1"], "sideEffects": "None", "failurePolicy": "Fail",
                                    "clientConfig": {"service": {"name": "longhorn-admission-webhook", "namespace": "longhorn-system", "port": 9502}}}]})

    # APIServices
    for group, ver, svc in [("", "v1", None), ("apps", "v1", None), ("harvesterhci.io", "v1beta1", None),
                            ("longhorn.io", "v1beta2", None), ("kubevirt.io", "v1", None),
                            ("subresources.kubevirt.io", "v1", ("harvester-system", "virt-api")),
                            ("upload.cdi.kubevirt.io", "v1beta1", ("harvester-system", "cdi-api")),
                            ("snapshot.storage.k8s.io", "v1", None), ("cdi.kubevirt.io", "v1beta1", None),
                            ("metrics.k8s.io", "v1beta1", ("kube-system", "rke2-metrics-server"))]:
        name = "%s.%s" % (ver, group) if group else ver
        spec = {"version": ver, "groupPriorityMinimum": 1000, "versionPriority": 100}
        if group:
            spec["group"] = group
        if svc:
            spec["service"] = {"namespace": svc[0], "name": svc[1], "port": 443}
        c.add("apiservices.apiregistration.k8s.io.json", {
            "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": meta(name),
            "spec": spec,
            "status": {"conditions": [{"type": "Available", "status": "True", "lastTransitionTime": T1,
                                       "reason": "Passed" if svc else "Local",
                                       "message": "all checks passed" if svc else "Local APIServices are always available"}]}})

    # HelmCharts RKE2 manages (kube-system)
    for name in ["rke2-canal", "rke2-coredns", "rke2-ingress-nginx", "rke2-metrics-server", "rke2-runtimeclasses",
                 "rke2-snapshot-controller", "rke2-snapshot-controller-crd"]:
        c.add("helmcharts.helm.cattle.io.json", {
            "apiVersion": "helm.cattle.io/v1", "kind": "HelmChart",
            "metadata": meta(name, "kube-system", annotations={"helm.cattle.io/chart-url": "https://rke2-charts.rancher.io/assets/%s/%s.tgz" % (name, name)}),
            "spec": {"bootstrap": name in ("rke2-canal", "rke2-coredns"), "chart": name, "targetNamespace": "kube-system",
                     "chartContent": "", "set": {"global.clusterCIDR": "10.52.0.0/16", "global.clusterDNS": "10.53.0.10",
                                                  "global.serviceCIDR": "10.53.0.0/16"}},
            "status": {"jobName": "helm-install-" + name}})
    c.res.setdefault("helmchartconfigs.helm.cattle.io.json", [])

    # VMs, their disks (RWX Block, migratable) and Longhorn volumes
    pvs = []
    for v in range(vms):
        vm = "vm-%03d" % (v + 1)
        ns = "default" if v % 3 else "workloads"
        running = v % 4 != 3
        node = names[v % nn]
        claim = "%s-disk-0-%s" % (vm, hexid(5, vm))
        vol = "pvc-" + uid("pvc", ns, claim)
        img = "image-" + hexid(5, "img", v % 2)
        vmi_labels = {"harvesterhci.io/vmName": vm, "kubevirt.io/nodeName": node}
        volumes = [{"name": "disk-0", "persistentVolumeClaim": {"claimName": claim}},
                   {"name": "cloudinitdisk", "cloudInitNoCloud": {"secretRef": {"name": vm + "-" + hexid(5, "ci", vm)}}}]
        domain = {"cpu": {"cores": 2, "sockets": 1, "threads": 1},
                  "devices": {"disks": [{"name": "disk-0", "bootOrder": 1, "disk": {"bus": "virtio"}},
                                        {"name": "cloudinitdisk", "disk": {"bus": "virtio"}}],
                              "interfaces": [{"name": "default", "bridge": {}, "macAddress": "52:54:00:%02x:%02x:%02x" % (v >> 16 & 255, v >> 8 & 255, v & 255), "model": "virtio"}]},
                  "memory": {"guest": "3996Mi"}, "resources": {"limits": {"cpu": "2", "memory": "4Gi"}, "requests": {"cpu": "125m", "memory": "2730Mi"}}}
        networks = [{"name": "default", "multus": {"networkName": "default/vlan100"}}]
        c.add("virtualmachines.kubevirt.io.json", {
            "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
            "metadata": meta(vm, ns, annotations={"harvesterhci.io/volumeClaimTemplates": json.dumps([{"metadata": {"name": claim, "annotations": {"harvesterhci.io/imageId": "default/" + img}}, "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "10Gi"}}, "volumeMode": "Block", "storageClassName": "longhorn-" + img}}])},
                             labels={"harvesterhci.io/creator": "harvester"}, generation=2),
            "spec": {"runStrategy": "RerunOnFailure" if running else "Halted",
                     "template": {"metadata": {"labels": {"harvesterhci.io/vmName": vm}},
                                  "spec": {"domain": domain, "networks": networks, "volumes": volumes,
                                           "evictionStrategy": "LiveMigrateIfPossible", "terminationGracePeriodSeconds": 120}}},
            "status": {"created": running, "ready": running, "printableStatus": "Running" if running else "Stopped",
                       "runStrategy": "RerunOnFailure" if running else "Halted",
                       "conditions": ([{"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": T1},
                                       {"type": "LiveMigratable", "status": "True", "lastProbeTime": None, "lastTransitionTime": None}]
                                      if running else
                                      [{"type": "Ready", "status": "False", "lastProbeTime": None, "lastTransitionTime": T1, "reason": "VMINotExists", "message": "VMI does not exist"}]),
                       "volumeSnapshotStatuses": [{"name": "disk-0", "enabled": True},
                                                  {"name": "cloudinitdisk", "enabled": False, "reason": "Snapshot is not supported for this volumeSource type [cloudinitdisk]"}]}})
        if running:
            c.add("virtualmachineinstances.kubevirt.io.json", {
                "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance",
                "metadata": meta(vm, ns, labels=vmi_labels, ownerReferences=[{"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "name": vm, "uid": uid(vm, ns), "controller": True}]),
                "spec": {"domain": dict(domain, cpu={"cores": 2, "model": "host-model", "sockets": 1, "threads": 1}),
                         "networks": networks, "volumes": volumes, "evictionStrategy": "LiveMigrateIfPossible"},
                "status": {"phase": "Running", "nodeName": node, "migrationMethod": "LiveMigration",
                           "activePods": {uid("launcher", vm): node}, "qosClass": "Burstable",
                           "launcherContainerImageVersion": "registry.suse.com/suse/sles/15.7/virt-launcher:" + KV_BUILD,
                           "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": T1},
                                          {"type": "LiveMigratable", "status": "True", "lastProbeTime": None, "lastTransitionTime": None},
                                          {"type": "StorageLiveMigratable", "status": "True", "lastProbeTime": None, "lastTransitionTime": None},
                                          {"type": "AgentConnected", "status": "True", "lastProbeTime": None, "lastTransitionTime": T1}],
                           "volumeStatus": [{"name": "cloudinitdisk", "target": "vdb", "size": 1048576},
                                            {"name": "disk-0", "target": "vda",
                                             "persistentVolumeClaimInfo": {"claimName": claim, "accessModes": ["ReadWriteMany"], "volumeMode": "Block",
                                                                           "capacity": {"storage": "10Gi"}, "requests": {"storage": "10Gi"}, "filesystemOverhead": "0"}}]}})
            pod(c, "virt-launcher-%s-%s" % (vm, hexid(5, "vl", vm)), ns, node,
                {"kubevirt.io": "virt-launcher", "vm.kubevirt.io/name": vm, "kubevirt.io/created-by": uid(vm, ns)},
                [("compute", "registry.suse.com/suse/sles/15.7/virt-launcher:" + KV_BUILD)],
                owner=("kubevirt.io/v1", "VirtualMachineInstance", vm))
        add_pvc_volume(c, pvs, ns, claim, vol, "longhorn-" + img, "Block", True, running, node, first,
                       workload=("virt-launcher-%s-%s" % (vm, hexid(5, "vl", vm)), vm, "VirtualMachineInstance") if running else None)

    # Per-image StorageClasses (Harvester's backing-image classes)
    for i in range(min(2, max(vms, 1))):
        img = "image-" + hexid(5, "img", i)
        c.add("storageclasses.storage.k8s.io.json", {
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta("longhorn-" + img),
            "provisioner": "driver.longhorn.io", "allowVolumeExpansion": True, "reclaimPolicy": "Delete",
            "volumeBindingMode": "Immediate",
            "parameters": {"backingImage": "default-" + img, "backingImageDataSourceType": "download",
                           "backingImageDataSourceParameters": "{}", "migratable": "true", "numberOfReplicas": "3",
                           "staleReplicaTimeout": "30"}})
        c.add("virtualmachineimages.harvesterhci.io.json", {
            "apiVersion": "harvesterhci.io/v1beta1", "kind": "VirtualMachineImage", "metadata": meta(img, "default"),
            "spec": {"backend": "backingimage", "displayName": ["opensuse-leap-15.6.qcow2", "ubuntu-24.04-server-cloudimg-amd64.img"][i],
                     "sourceType": "download", "url": "http://images.mirror.internal/%d.qcow2" % i, "retry": 3,
                     "storageClassParameters": {"migratable": "true", "numberOfReplicas": "3", "staleReplicaTimeout": "30"}},
            "status": {"appliedUrl": "http://images.mirror.internal/%d.qcow2" % i, "progress": 100, "size": 1073741824,
                       "virtualSize": 10737418240, "storageClassName": "longhorn-" + img, "failed": 0,
                       "conditions": [{"type": "Imported", "status": "True", "lastUpdateTime": T1},
                                      {"type": "Initialized", "status": "True", "lastUpdateTime": T1}]}})

    # An RWX filesystem volume served by a share-manager (Longhorn's NFS form)
    ns, claim = "default", "shared-data"
    vol = "pvc-" + uid("pvc", ns, claim)
    add_pvc_volume(c, pvs, ns, claim, vol, "longhorn-rwx", "Filesystem", False, True, names[1 % nn], first,
                   workload=("web-0", "web", "StatefulSet"), share=True)
    c.add("sharemanagers.longhorn.io.json", {
        "apiVersion": "longhorn.io/v1beta2", "kind": "ShareManager",
        "metadata": meta(vol, "longhorn-system", labels={"longhorn.io/component": "share-manager", "longhorn.io/managed-by": "longhorn-manager",
                                                         "longhorn.io/share-manager": vol, "longhorn.io/share-manager-image": "smi-" + hexid(8, "smi")}),
        "spec": {"image": "longhornio/longhorn-share-manager:" + LH},
        "status": {"ownerID": first, "state": "running", "endpoint": "nfs://10.53.88.17/" + vol}})
    pod(c, "share-manager-" + vol, "longhorn-system", names[1 % nn],
        {"longhorn.io/component": "share-manager", "longhorn.io/share-manager": vol, "longhorn.io/managed-by": "longhorn-manager"},
        [("share-manager", "longhornio/longhorn-share-manager:" + LH)])
    service(c, vol, "longhorn-system", "10.53.88.17", [{"name": "nfs", "port": 2049, "protocol": "TCP", "targetPort": 2049}],
            {"longhorn.io/share-manager": vol, "longhorn.io/managed-by": "longhorn-manager"})
    pod(c, "web-0", "default", names[1 % nn], {"app": "web"}, [("nginx", "registry.internal/library/nginx:1.27")],
        owner=("apps/v1", "StatefulSet", "web"))

    # A backup-type VolumeSnapshot of vm-001's disk, ready and restorable
    if vms:
        claim = "vm-001-disk-0-" + hexid(5, "vm-001")
        vol = "pvc-" + uid("pvc", "workloads", claim)
        snap = "vm-001-backup-" + hexid(5, "bk")
        content = "snapcontent-" + uid("content", snap)
        backup = "backup-" + hexid(16, "backup", snap)
        c.add("volumesnapshots.snapshot.storage.k8s.io.json", {
            "apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshot", "metadata": meta(snap, "workloads"),
            "spec": {"source": {"persistentVolumeClaimName": claim}, "volumeSnapshotClassName": "longhorn"},
            "status": {"boundVolumeSnapshotContentName": content, "creationTime": T2, "readyToUse": True, "restoreSize": "10Gi"}})
        c.add("volumesnapshotcontents.snapshot.storage.k8s.io.json", {
            "apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotContent", "metadata": meta(content),
            "spec": {"deletionPolicy": "Delete", "driver": "driver.longhorn.io", "volumeSnapshotClassName": "longhorn",
                     "source": {"volumeHandle": vol}, "sourceVolumeMode": "Block",
                     "volumeSnapshotRef": {"kind": "VolumeSnapshot", "namespace": "workloads", "name": snap, "uid": uid(snap, "workloads")}},
            "status": {"snapshotHandle": "bak://%s/%s" % (vol, backup), "creationTime": 1788602400000000000,
                       "restoreSize": 10737418240, "readyToUse": True}})
    for fname in ["volumesnapshots.snapshot.storage.k8s.io.json", "volumesnapshotcontents.snapshot.storage.k8s.io.json",
                  "virtualmachinesnapshots.snapshot.kubevirt.io.json", "virtualmachinerestores.snapshot.kubevirt.io.json",
                  "virtualmachineinstancemigrations.kubevirt.io.json", "datavolumes.cdi.kubevirt.io.json",
                  "snapshots.longhorn.io.json", "persistentvolumes.json"]:
        c.res.setdefault(fname, [])
    c.res["persistentvolumes.json"] = pvs
    add_storage_profiles(c)
    return c


def add_storage_profiles(c):
    """CDI's StorageProfile of every StorageClass, as its storageprofile-controller writes
    it: claimPropertySets from pkg/storagecapabilities (Longhorn: migratable, nfs, fs),
    snapshotClass by GetVolumeSnapshotClass (the first class of the provisioner annotated
    default, else the first by name), cloneStrategy snapshot when there is one."""
    vscs = c.res.get("volumesnapshotclasses.snapshot.storage.k8s.io.json", [])
    for sc in c.res["storageclasses.storage.k8s.io.json"]:
        prov, params = sc["provisioner"], sc.get("parameters") or {}
        mine = sorted(v["metadata"]["name"] for v in vscs if v["driver"] == prov)
        default = [v["metadata"]["name"] for v in vscs if v["driver"] == prov and
                   (v["metadata"].get("annotations") or {}).get("snapshot.storage.kubernetes.io/is-default-class") == "true"]
        snap = (sorted(default) or mine or [None])[0]
        if params.get("migratable") == "true":
            cps = [("ReadWriteMany", "Block"), ("ReadWriteOnce", "Block")]
        elif params.get("nfsOptions"):
            cps = [("ReadWriteMany", "Filesystem"), ("ReadWriteOnce", "Filesystem")]
        elif params.get("fsType"):
            cps = [("ReadWriteOnce", "Filesystem")]
        else:
            cps = [("ReadWriteOnce", "Block")]
        status = {"claimPropertySets": [{"accessModes": [a], "volumeMode": m} for a, m in cps],
                  "cloneStrategy": "snapshot" if snap else "copy", "dataImportCronSourceFormat": "pvc",
                  "provisioner": prov, "storageClass": sc["metadata"]["name"]}
        if snap:
            status["snapshotClass"] = snap
        name = sc["metadata"]["name"]
        c.add("storageprofiles.cdi.kubevirt.io.json", {
            "apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "StorageProfile",
            "metadata": meta(name, generation=1, uid=uid("storageprofile", name),
                             labels={"app": "containerized-data-importer", "app.kubernetes.io/component": "storage",
                                     "app.kubernetes.io/managed-by": "cdi-controller", "cdi.kubevirt.io": ""},
                             ownerReferences=[{"apiVersion": "cdi.kubevirt.io/v1beta1", "blockOwnerDeletion": True,
                                               "controller": True, "kind": "CDI", "name": "cdi", "uid": uid("cdi", None)}]),
            "spec": {}, "status": status})


def add_pvc_volume(c, pvs, ns, claim, vol, sc, mode, migratable, attached, node, owner, workload=None, share=False):
    c.add("persistentvolumeclaims.json", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": meta(claim, ns, annotations={"pv.kubernetes.io/bind-completed": "yes",
                                                 "volume.kubernetes.io/storage-provisioner": "driver.longhorn.io"},
                         finalizers=["kubernetes.io/pvc-protection"]),
        "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "10Gi"}},
                 "storageClassName": sc, "volumeMode": mode, "volumeName": vol},
        "status": {"phase": "Bound", "accessModes": ["ReadWriteMany"], "capacity": {"storage": "10Gi"}}})
    pvs.append({
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": meta(vol, annotations={"pv.kubernetes.io/provisioned-by": "driver.longhorn.io"}),
        "spec": {"accessModes": ["ReadWriteMany"], "capacity": {"storage": "10Gi"},
                 "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": claim, "namespace": ns},
                 "csi": {"driver": "driver.longhorn.io", "volumeHandle": vol, "fsType": "ext4",
                         "volumeAttributes": {"numberOfReplicas": "3", "staleReplicaTimeout": "30",
                                              "migratable": "true" if migratable else "false",
                                              "share": "true" if share else "false"}},
                 "persistentVolumeReclaimPolicy": "Delete", "storageClassName": sc, "volumeMode": mode},
        "status": {"phase": "Bound"}})
    labels = {"longhornvolume": vol, "recurring-job-group.longhorn.io/default": "enabled"}
    c.add("volumes.longhorn.io.json", {
        "apiVersion": "longhorn.io/v1beta2", "kind": "Volume", "metadata": meta(vol, "longhorn-system", labels=labels),
        "spec": {"size": "10737418240", "frontend": "blockdev", "accessMode": "rwx", "migratable": migratable,
                 "numberOfReplicas": 3, "dataEngine": "v1", "dataLocality": "disabled", "dataSource": "",
                 "fromBackup": "", "staleReplicaTimeout": 30, "nodeID": node if attached else "", "migrationNodeID": "",
                 "Standby": False, "encrypted": False, "disableFrontend": False,
                 "image": "longhornio/longhorn-engine:" + LH, "backingImage": "" if share else "default-image",
                 "replicaAutoBalance": "ignored", "snapshotDataIntegrity": "ignored", "offlineRebuilding": "ignored"},
        "status": {"ownerID": owner, "state": "attached" if attached else "detached",
                   "robustness": "healthy" if attached else "unknown", "currentNodeID": node if attached else "",
                   "currentMigrationNodeID": "", "currentImage": "longhornio/longhorn-engine:" + LH,
                   "actualSize": 2147483648, "frontendDisabled": False, "isStandby": False, "lastDegradedAt": "",
                   "remountRequestedAt": "", "restoreRequired": False, "lastBackup": "", "lastBackupAt": "",
                   "shareState": "running" if share else "", "shareEndpoint": ("nfs://10.53.88.17/" + vol) if share else "",
                   "cloneStatus": {"sourceVolume": "", "snapshot": "", "state": "", "attemptCount": 0, "nextAllowedAttemptAt": ""},
                   "kubernetesStatus": {"pvName": vol, "pvStatus": "Bound", "namespace": ns, "pvcName": claim,
                                        "lastPVCRefAt": "", "lastPodRefAt": "",
                                        "workloadsStatus": [{"podName": workload[0], "podStatus": "Running", "workloadName": workload[1], "workloadType": workload[2]}] if workload else None},
                   "conditions": [cond("Scheduled", "True"), cond("TooManySnapshots", "False"), cond("Restore", "False")]}})
    engine = vol + "-e-0"
    modes = {}
    for r in range(3):
        rname = "%s-r-%s" % (vol, hexid(8, vol, r))
        modes[rname] = "RW"
        c.add("replicas.longhorn.io.json", {
            "apiVersion": "longhorn.io/v1beta2", "kind": "Replica", "metadata": meta(rname, "longhorn-system", labels={"longhornvolume": vol}),
            "spec": {"volumeName": vol, "volumeSize": "10737418240", "nodeID": "harvester-node-%d" % (r + 1),
                     "engineName": engine, "diskID": uid("disk", r), "diskPath": "/var/lib/harvester/defaultdisk",
                     "dataDirectoryName": vol + "-" + hexid(8, rname), "desireState": "running" if attached else "stopped",
                     "dataEngine": "v1", "active": True, "failedAt": "", "lastFailedAt": "", "healthyAt": T1, "lastHealthyAt": T1},
            "status": {"ownerID": "harvester-node-%d" % (r + 1), "currentState": "running" if attached else "stopped",
                       "instanceManagerName": "instance-manager-" + hexid(32, "im", r), "ip": "10.52.%d.12" % r,
                       "storageIP": "10.52.%d.12" % r, "port": 10000 if attached else 0, "started": attached}})
    c.add("engines.longhorn.io.json", {
        "apiVersion": "longhorn.io/v1beta2", "kind": "Engine", "metadata": meta(engine, "longhorn-system", labels={"longhornvolume": vol}),
        "spec": {"volumeName": vol, "volumeSize": "10737418240", "nodeID": node if attached else "", "dataEngine": "v1",
                 "desireState": "running" if attached else "stopped", "frontend": "blockdev", "active": True},
        "status": {"ownerID": node, "currentState": "running" if attached else "stopped",
                   "currentSize": "10737418240", "endpoint": "/dev/longhorn/" + vol if attached else "",
                   "replicaModeMap": modes if attached else None, "conditions": []}})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=3)
    ap.add_argument("--vms", type=int, default=4)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    generate(max(a.nodes, 1), a.vms).write(a.out)


if __name__ == "__main__":
    main()
