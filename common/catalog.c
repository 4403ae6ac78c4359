#include "catalog.h"

#include <errno.h>

const struct check_info catalog[] = {
    /* §4.1 host checks */
    {"host.kvm", CHECK_HOST, G_PRE | G_LM, "KVM device usable"},
    {"host.cpu.virt", CHECK_HOST, G_PRE | G_LM, "CPU virtualization"},
    {"host.clock", CHECK_HOST, G_ALL, "Kernel clock synchronised"},
    {"host.nfs.client", CHECK_HOST, G_PRE | G_RWX, "NFS mount helper"},
    {"host.nfs.kernel", CHECK_HOST, G_PRE | G_RWX, "NFSv4.1 kernel client"},
    {"host.iscsi", CHECK_HOST, G_PRE, "iSCSI initiator"},
    {"host.multipathd", CHECK_HOST, G_PRE | G_PLAT, "multipathd vs Longhorn devices"},
    {"host.longhorn.path", CHECK_HOST, G_PRE | G_PLAT, "Longhorn data path"},
    {"host.image.share-manager", CHECK_HOST, G_PRE | G_RWX, "share-manager image pullable"},
    {"host.containerd.device-ownership", CHECK_HOST, G_PRE | G_LM, "containerd device ownership"},
    {"host.nfs.probe", CHECK_HOST, G_RWX, "NFS share endpoints reachable"},
    {"host.resources", CHECK_HOST, G_PRE, "CPU and memory"},
    /* §4.2 cross-node checks */
    {"cluster.nodes.reporting", CHECK_CLUSTER, G_ALL, "Nodes reporting"},
    {"cluster.nodes.count", CHECK_CLUSTER, G_PRE, "Node count"},
    {"cluster.clock.skew", CHECK_CLUSTER, G_ALL, "Clock skew"},
    {"cluster.cpu.compat", CHECK_CLUSTER, G_LM, "CPU compatibility"},
    {"cluster.hostname.unique", CHECK_CLUSTER, G_RWX | G_PRE, "Unique hostnames"},
    /* §4.3 API checks */
    {"api.storageclass.default", CHECK_API, G_PRE | G_PLAT, "Default StorageClass"},
    {"api.vsc.longhorn", CHECK_API, G_PLAT, "VolumeSnapshotClass longhorn"},
    {"api.vsc.ambiguous", CHECK_API, G_PLAT, "Ambiguous VolumeSnapshotClasses"},
    {"api.vsc.backup-target", CHECK_API, G_PLAT, "Backup target for bak classes"},
    {"api.vsc.snap-restore-risk", CHECK_API, G_PLAT, "Snapshot restore risk"},
    {"api.kubevirt.snapshot-gate", CHECK_API, G_PLAT, "KubeVirt Snapshot gate"},
    {"api.kubevirt.gate-stale", CHECK_API, G_PLAT, "virt-api saw current gates"},
    {"api.kubevirt.available", CHECK_API, G_PLAT | G_LM, "KubeVirt and CDI available"},
    {"api.webhooks.harvester", CHECK_API, G_PLAT, "Harvester webhooks"},
    {"api.pods.restarts", CHECK_API, G_PLAT, "System pod restarts"},
    {"api.longhorn.volume-health", CHECK_API, G_PLAT | G_LM, "Longhorn volume health"},
    {"api.longhorn.clone-stuck", CHECK_API, G_PLAT, "Stuck volume clones"},
    {"api.snapshot.restorable", CHECK_API, G_PLAT, "Snapshots restorable"},
    {"api.snapshot.stuck-deletion", CHECK_API, G_PLAT, "Snapshots stuck deleting"},
    {"api.longhorn.rwx-share", CHECK_API, G_RWX, "RWX share-manager"},
    {"api.pvc.rwx-class-mismatch", CHECK_API, G_RWX | G_LM, "RWX PVC vs StorageClass"},
    {"api.vm.live-migratable", CHECK_API, G_LM, "VMs live-migratable"},
    {"api.apiservices", CHECK_API, G_PLAT, "APIServices available"},
    {"api.harvester.endpoint", CHECK_API, G_PLAT, "Harvester API endpoint"},
    {"api.vm.run-strategy", CHECK_API, G_PLAT, "VM run strategy"},
    {"api.cdi.import-source", CHECK_API, G_PLAT, "CDI import sources"},
    {"api.longhorn.node-disk", CHECK_API, G_PLAT | G_PRE, "Longhorn node disks"},
    {"api.dns.replicas", CHECK_API, G_RWX, "CoreDNS replicas"},
    {"api.preinstall.conflicts", CHECK_API, G_PRE, "Pre-install conflicts"},
    {"api.preinstall.cidrs", CHECK_API, G_PRE, "Cluster CIDRs for promote"},
};
const size_t catalog_len = ELEMENTSOF(catalog);

const struct check_info *catalog_find(const char *id)
{
	for (size_t i = 0; i < catalog_len; i++)
		if (streq(catalog[i].id, id))
			return &catalog[i];
	return NULL;
}

static const char *const gate_names[_GATE_MAX] = {
    [GATE_PREINSTALL] = "preinstall",
    [GATE_PLATFORM] = "platform",
    [GATE_RWX] = "rwx",
    [GATE_LIVE_MIGRATION] = "live-migration",
};

const char *gate_name(enum gate g)
{
	return (unsigned)g < _GATE_MAX ? gate_names[g] : "invalid";
}

int gate_from_name(const char *name)
{
	for (int i = 0; i < _GATE_MAX; i++)
		if (streq(gate_names[i], name))
			return i;
	return -EINVAL;
}
