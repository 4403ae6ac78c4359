/*
 * A verdict built by hand for the rendering tests: four nodes (one without a
 * report, NotReady), findings of every status modelled on failures seen
 * in the field (two default StorageClasses, a CDI block import without device
 * ownership, an unsynchronised clock), a VM table, and one finding full of
 * what must be escaped everywhere: <script>, quotes, |, newlines, backticks,
 * an ANSI escape, a bidi override, CJK and other unicode.
 *
 * Built by hand, not by the engine, so that it does not change when checks
 * do; test_render.c also renders the engine's verdict on examples/cluster.
 */
#pragma once
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "verdict.h"
#include "verdict_oracle.h" /* verdict_to_json(), for test_render.c */

#define NASTY_OBJECT "Pod/harvester-system/<script>alert(\"x\")</script>"
#define NASTY_MESSAGE                                                                                \
	"container \"apiserver\" | restarted 3× — `OOMKilled` (exit 137)\nlast: 节点重启了 " \
	"ünïcode ✓ "                                                                             \
	"& <b>bold</b> 'q' **not bold** [link](http://example.invalid) @admin $x$"
#define NASTY_REMEDY                                                                               \
	"raise the memory limit: `kubectl -n harvester-system edit deploy/<name>` | then watch "   \
	"<script>x</script>"

static inline struct finding *fx_add(struct verdict *v, const char *check, enum status st,
				     const char *node, const char *object, const char *msg,
				     const char *remedy)
{
	struct finding *f = finding_list_add(&v->findings, check);
	finding_set(f, st, "%s", msg);
	if (remedy)
		finding_remedy(f, "%s", remedy);
	if (node)
		finding_set_node(f, node);
	if (object)
		finding_set_object(f, "%s", object);
	return f;
}

static inline void fx_node(struct verdict *v, const char *name, bool ready, int64_t age_s)
{
	v->nodes = xrealloc(v->nodes, (v->n_nodes + 1) * sizeof(*v->nodes));
	v->nodes[v->n_nodes++] = (struct verdict_node){
	    .name = xstrdup(name),
	    .in_cluster = true,
	    .k8s_ready = ready,
	    .reporting = age_s >= 0,
	    .report_age_ns = age_s >= 0 ? age_s * NSEC_PER_SEC : -1,
	};
}

static inline void fixture_verdict(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->generated_ns = INT64_C(1788614444) * NSEC_PER_SEC;
	v->source = xstrdup("files: tests/fixtures/cluster/render");
	v->harvester_installed = true;
	struct finding *f;

	for (int i = 1; i <= 2; i++) {
		char node[32];
		snprintf(node, sizeof(node), "harvester-node-%d", i);
		f = fx_add(v, "host.kvm", STATUS_PASS, node, NULL,
			   "/dev/kvm works: API version 12, KVM_CREATE_VM succeeded", NULL);
		kv_add_str(&f->evidence, "device", "/dev/kvm");
		kv_add_int(&f->evidence, "api_version", 12);
		struct value_list *m = kv_add_list(&f->evidence, "kvm_modules");
		vlist_add_str(m, "kvm");
		vlist_add_str(m, "kvm_intel");
	}
	f = fx_add(v, "host.kvm", STATUS_FAIL, "harvester-node-3", NULL, "/dev/kvm does not exist",
		   "The kernel provides KVM (/sys/class/misc/kvm) but /dev/kvm is missing: in a "
		   "container, mount the host's /dev/kvm; on the host, recreate it with `udevadm "
		   "trigger` or `mknod /dev/kvm c 10 232`.");
	kv_add_str(&f->evidence, "device", "/dev/kvm");
	kv_add_str(&f->evidence, "error", "stat: No such file or directory");
	kv_add_bool(&f->evidence, "kernel_kvm_device_registered", true);
	for (int i = 1; i <= 3; i++) {
		char node[32];
		snprintf(node, sizeof(node), "harvester-node-%d", i);
		f = fx_add(v, "host.cpu.virt", STATUS_PASS, node, NULL, "vmx (Intel VT-x)", NULL);
		kv_add_str(&f->evidence, "vendor", "GenuineIntel");
	}
	f = fx_add(v, "host.clock", STATUS_FAIL, "harvester-node-2", NULL,
		   "the kernel clock is not synchronised (TIME_ERROR, STA_UNSYNC)",
		   "systemd-timesyncd is running but has not synchronised the clock: check its "
		   "sources (`timedatectl timesync-status`) and that its NTP servers are reachable "
		   "(UDP 123).");
	kv_add_str(&f->evidence, "state", "TIME_ERROR");
	kv_add_int(&f->evidence, "maxerror_us", 16000000);
	struct value_list *d = kv_add_list(&f->evidence, "sync_daemons_running");
	vlist_add_str(d, "systemd-timesyncd");
	f = fx_add(v, "host.nfs.kernel", STATUS_WARN, "harvester-node-1", NULL,
		   "NFSv4 is only loadable (CONFIG_NFS_V4=m) and not loaded",
		   "Load it now and at boot: `modprobe nfsv4` and add nfsv4 to "
		   "/etc/modules-load.d/longhorn.conf.");
	kv_add_str(&f->evidence, "config_nfs_v4", "m");
	kv_add_list(&f->evidence, "loaded");
	f = fx_add(v, "host.containerd.device-ownership", STATUS_FAIL, "harvester-node-1", NULL,
		   "containerd does not set device_ownership_from_security_context: CDI cannot "
		   "import Block-mode VM disks (blockdev: cannot open /dev/cdi-block-volume: "
		   "Permission denied)",
		   "Set `nonroot-devices: true` in /etc/rancher/rke2/config.yaml (RKE2 regenerates "
		   "containerd's config at every start) and restart rke2-server.");
	kv_add_str(&f->evidence, "containerd_config",
		   "/var/lib/rancher/rke2/agent/etc/containerd/config.toml");
	kv_add_str(&f->evidence, "cri_plugin", "io.containerd.grpc.v1.cri");
	kv_add_str(
	    &f->evidence, "rke2_config_files",
	    "/etc/rancher/rke2/config.yaml\n/etc/rancher/rke2/config.yaml.d/50-harvester.yaml");
	f = fx_add(v, "host.nfs.probe", STATUS_SKIP, "harvester-node-1", NULL,
		   "no NFS endpoints to probe", NULL);
	f = fx_add(
	    v, "cluster.nodes.reporting", STATUS_UNKNOWN, "harvester-node-4", NULL,
	    "no report from harvester-node-4",
	    "Check the hvready-agent pod on harvester-node-4 (`kubectl -n hvready get pods -o "
	    "wide`).");
	kv_add_str(&f->evidence, "kubernetes_ready", "False");
	f = fx_add(
	    v, "api.storageclass.default", STATUS_FAIL, NULL, "StorageClass/harvester-longhorn",
	    "2 default StorageClasses: harvester-longhorn, local-path",
	    "Keep one default: `kubectl patch storageclass local-path -p "
	    "'{\"metadata\":{\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":"
	    "\"false\"}}}'`.");
	struct value_list *defs = kv_add_list(&f->evidence, "defaults");
	vlist_add_str(defs, "harvester-longhorn");
	vlist_add_str(defs, "local-path");
	f = fx_add(v, "api.longhorn.volume-health", STATUS_WARN, NULL,
		   "Volume/longhorn-system/pvc-7a4f2c1e-5b0d-4e8f-9c3a-1d2e3f4a5b6c",
		   "degraded: 2 of 3 replicas healthy; live migration of default/vm-002 is blocked",
		   "Let Longhorn rebuild the replica (check the node's disk space and the "
		   "replica's events).");
	kv_add_str(&f->evidence, "state", "attached");
	kv_add_str(&f->evidence, "robustness", "degraded");
	struct kv_list *rm = kv_add_map(&f->evidence, "replica_modes");
	kv_add_str(rm, "r-1", "RW");
	kv_add_str(rm, "r-2", "RW");
	kv_add_str(rm, "r-3", "ERR");
	f = fx_add(v, "api.vsc.backup-target", STATUS_UNKNOWN, NULL, NULL,
		   "backuptargets.longhorn.io not collected",
		   "Collect it: `hvready-aggregator collect` needs get/list on backuptargets.");
	f = fx_add(v, "api.harvester.endpoint", STATUS_SKIP, NULL, NULL,
		   "offline: the endpoint is only checked against a live cluster", NULL);
	f = fx_add(
	    v, "api.vm.live-migratable", STATUS_FAIL, NULL, "VirtualMachineInstance/default/vm-002",
	    "not live-migratable: DisksNotLiveMigratable",
	    "Use a ReadWriteMany Block volume on a migratable Longhorn class for every disk.");
	kv_add_str(&f->evidence, "condition", "LiveMigratable=False");
	f = fx_add(v, "api.pods.restarts", STATUS_WARN, NULL, NASTY_OBJECT, NASTY_MESSAGE,
		   NASTY_REMEDY);
	kv_add_str(&f->evidence, "reason", "OOMKilled <img src=x onerror=alert(1)>");
	kv_add_str(&f->evidence, "log", "line1\nline2 `tick` | pipe & </code></td>");
	kv_add_str(&f->evidence, "ansi", "\033[31mred\033[0m");
	kv_add_str(&f->evidence, "bidi", "abc\u202edcba");

	gates_compute(&v->findings, v->gates);

	struct vm_row *r = vm_table_add(&v->vms, "workloads", "vm-001", "harvester-node-1");
	r = vm_table_add(&v->vms, "default", "vm-002", "harvester-node-2");
	r->can_migrate = false;
	strv_add(&r->reasons, "DisksNotLiveMigratable: PVC default/vm-002-rootdisk is "
			      "ReadWriteOnce");
	strv_add(&r->reasons, "volume pvc-7a4f2c1e-5b0d-4e8f-9c3a-1d2e3f4a5b6c is degraded");
	r = vm_table_add(&v->vms, "default", "vm-<003>|\"q\"", "harvester-node-3");

	fx_node(v, "harvester-node-1", true, 12);
	fx_node(v, "harvester-node-2", true, 8);
	fx_node(v, "harvester-node-3", true, 31);
	fx_node(v, "harvester-node-4", false, -1);
}

/* Render with fn into a malloc'd string. */
#define RENDER(var, call)                                                                          \
	do {                                                                                       \
		size_t len_##var = 0;                                                              \
		FILE *f_##var = open_memstream(&(var), &len_##var);                                \
		assert_non_null(f_##var);                                                          \
		FILE *f = f_##var;                                                                 \
		call;                                                                              \
		fclose(f_##var);                                                                   \
	} while (0)

/* Write s to a fresh file in a temporary directory; returns its path. */
static inline char *fx_write_tmp(const char *dir, const char *name, const char *s)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(s, f);
	assert_int_equal(fclose(f), 0);
	return path;
}
