/* The Longhorn v2 data engine in api.vm.live-migratable, api.longhorn.node-disk and
 * cluster.nodes.count (docs/support-matrix-longhorn.md). Built on the upstream
 * state tests/fixtures/upstream/k3s-kubevirt-1.9-longhorn-1.11 (Longhorn v1.11.2,
 * three nodes, vm-00N running on harvester-node-N), changed the way a v2 setup
 * changes it, in the shapes of longhorn/longhorn-manager v1.11.3
 * k8s/pkg/apis/longhorn/v1beta2 (Volume spec.dataEngine, Node spec.disks[].diskType,
 * status.diskStatus) and types/types.go (the Kubernetes Node label). */
#include "agg_harness.h"
#include "fixtures_k8s.h"
#include "longhorn_engine.h"

#define LM    "api.vm.live-migratable"
#define DISK  "api.longhorn.node-disk"
#define COUNT "cluster.nodes.count"

#define UP "../upstream/k3s-kubevirt-1.9-longhorn-1.11/"
/* vm-001's disk (on harvester-node-1) and vm-002's */
#define VOL1	 "pvc-f3461c9e-3405-02e1-8f19-91c5b558e645"
#define VOL2	 "pvc-bec50e36-5c5b-4b6f-b461-bac4edac6584"
#define VMI1_OBJ "VirtualMachineInstance/workloads/vm-001"

static void load_upstream(struct harness *h)
{
	static const char *const files[] = {
	    "nodes.json",
	    "nodes.longhorn.io.json",
	    "settings.longhorn.io.json",
	    "volumes.longhorn.io.json",
	    "engines.longhorn.io.json",
	    "replicas.longhorn.io.json",
	    "persistentvolumeclaims.json",
	    "persistentvolumes.json",
	    "storageclasses.storage.k8s.io.json",
	    "virtualmachines.kubevirt.io.json",
	    "virtualmachineinstances.kubevirt.io.json",
	};
	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), UP "%s", files[i]);
		harness_load(h, rel);
	}
	/* These tests judge the data engines. The family's VMs also carry their
	 * last migration (vm-002's failed, with a reason that repeats), which
	 * it_upstream_fixtures judges: forget it here. */
	static const char *const vmis[] = {"vm-001", "vm-002", "vm-003"};
	for (size_t i = 0; i < ELEMENTSOF(vmis); i++) {
		size_t k = harness_index(h, RES_VMIS, vmis[i]);
		json_object *o = harness_edit(h, RES_VMIS, k);
		json_object_object_del(jc_get(o, "status", NULL), "migrationState");
		harness_commit(h, RES_VMIS, k, o);
	}
}

/* obj.k1.k2 = v (k2 NULL: obj.k1 = v) on the object called name. */
static void set_field(struct harness *h, enum resource_id res, const char *name, const char *k1,
		      const char *k2, json_object *v)
{
	size_t i = harness_index(h, res, name);
	json_object *o = harness_edit(h, res, i);
	json_object *parent = k2 ? jc_get(o, k1, NULL) : o;
	if (k2 && !parent) {
		parent = json_object_new_object();
		json_object_object_add(o, k1, parent);
	}
	json_object_object_add(parent, k2 ? k2 : k1, v);
	harness_commit(h, res, i, o);
}

static void volume_engine(struct harness *h, const char *vol, const char *engine)
{
	set_field(h, RES_LH_VOLUMES, vol, "spec", "dataEngine", json_object_new_string(engine));
}

/* Every volume of the cluster on the v2 engine. */
static void all_volumes_v2(struct harness *h)
{
	const struct jv *vs = cs_items(&h->cs, RES_LH_VOLUMES);
	size_t n = jq_len(vs);
	for (size_t i = 0; i < n; i++) {
		json_object *o = harness_edit(h, RES_LH_VOLUMES, i);
		json_object_object_add(jc_get(o, "spec", NULL), "dataEngine",
				       json_object_new_string("v2"));
		harness_commit(h, RES_LH_VOLUMES, i, o);
	}
}

static void setting(struct harness *h, const char *name, const char *value)
{
	const struct jv *items = cs_items(&h->cs, RES_LH_SETTINGS);
	for (size_t i = 0; i < jq_len(items); i++)
		if (streq(jq_name(jq_at(items, i)), name)) {
			set_field(h, RES_LH_SETTINGS, name, "value", NULL,
				  json_object_new_string(value));
			return;
		}
	_cleanup_free_ char *quoted = xasprintf("\"%s\"", value);
	harness_add(h, lh_setting(name, quoted));
}

static void disable_v2(struct harness *h, const char *node)
{
	size_t i = harness_index(h, RES_NODES, node);
	json_object *o = harness_edit(h, RES_NODES, i);
	json_object_object_add(jc_get(o, "metadata", "labels"), LONGHORN_V2_DISABLE_LABEL,
			       json_object_new_string("true"));
	harness_commit(h, RES_NODES, i, o);
}

static void cordon(struct harness *h, const char *node)
{
	set_field(h, RES_NODES, node, "spec", "unschedulable", json_object_new_boolean(true));
}

/* A v2 block disk as Longhorn 1.11 reports it (diskType block, diskDriver
 * auto → aio), schedulable with room; replace drops the filesystem disk. */
static void add_block_disk(struct harness *h, const char *node, bool replace)
{
	size_t i = harness_index(h, RES_LH_NODES, node);
	json_object *o = harness_edit(h, RES_LH_NODES, i);
	json_object *disks = jc_get(o, "spec", "disks"), *dstat = jc_get(o, "status", "diskStatus");
	if (replace) {
		disks = json_object_new_object();
		dstat = json_object_new_object();
		json_object_object_add(jc_get(o, "spec", NULL), "disks", disks);
		json_object_object_add(jc_get(o, "status", NULL), "diskStatus", dstat);
	}
	json_object_object_add(
	    disks, "nvme1n1",
	    json_tokener_parse("{\"allowScheduling\":true,\"diskDriver\":\"auto\",\"diskType\":"
			       "\"block\",\"evictionRequested\":false,\"path\":\"/dev/nvme1n1\","
			       "\"storageReserved\":0,\"tags\":[]}"));
	json_object_object_add(
	    dstat, "nvme1n1",
	    json_tokener_parse(
		"{\"conditions\":[{\"lastProbeTime\":\"\",\"lastTransitionTime\":"
		"\"2026-09-01T09:00:00Z\",\"message\":\"\",\"reason\":\"\",\"status\":\"True\","
		"\"type\":\"Ready\"},{\"lastProbeTime\":\"\",\"lastTransitionTime\":"
		"\"2026-09-01T09:00:00Z\",\"message\":\"Disk nvme1n1(/dev/nvme1n1) is "
		"schedulable\",\"reason\":\"\",\"status\":\"True\",\"type\":\"Schedulable\"}],"
		"\"diskDriver\":\"aio\",\"diskName\":\"nvme1n1\",\"diskPath\":\"/dev/nvme1n1\","
		"\"diskType\":\"block\",\"diskUUID\":\"7d1c1d7e-0000-4000-8000-00000000b10c\","
		"\"filesystemType\":\"\",\"scheduledReplica\":{},\"storageAvailable\":"
		"900000000000,\"storageMaximum\":1000000000000,\"storageScheduled\":"
		"100000000000}"));
	harness_commit(h, RES_LH_NODES, i, o);
}

static const struct vm_row *row(struct harness *h, const char *name)
{
	for (size_t i = 0; i < h->vms.n; i++)
		if (streq(h->vms.items[i].name, name))
			return &h->vms.items[i];
	fail_msg("no VM row %s", name);
	return NULL;
}

static void run(struct harness *h, const char *id)
{
	finding_list_clear(&h->out);
	vm_table_clear(&h->vms);
	harness_run(h, id);
	if (getenv("TEST_DEBUG"))
		for (size_t i = 0; i < h->out.n; i++)
			fprintf(stderr, "  %s %s %s: %s\n", h->out.items[i].check,
				status_name(h->out.items[i].status),
				h->out.items[i].object ? h->out.items[i].object : "-",
				h->out.items[i].message);
}

/* ---- api.vm.live-migratable ---- */

/* vm-001's v2 volume; node-2 is labelled disable-v2, node-3 cordoned: the only
 * other KubeVirt target runs no v2 engine. v1 VMs keep their targets. */
static void test_lm_v2_other_node_labelled(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	volume_engine(&h, VOL1, "v2");
	disable_v2(&h, "harvester-node-2");
	cordon(&h, "harvester-node-3");
	run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, VMI1_OBJ);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "no other node runs the v2 engine"));
	assert_true(harness_list_has(f, "reasons",
				     "harvester-node-2: label "
				     "node.longhorn.io/disable-v2-data-engine=true"));
	assert_true(harness_list_has(f, "reasons", "harvester-node-3: cordoned"));
	assert_non_null(strstr(f->remediation, "disable-v2-data-engine-"));
	assert_false(row(&h, "vm-001")->can_migrate);
	/* vm-002 (v1) on node-2 goes to node-1; vm-003 (v1) too */
	assert_true(row(&h, "vm-002")->can_migrate);
	assert_true(row(&h, "vm-003")->can_migrate);
	harness_clear(&h);

	/* The label is honoured only as "true" */
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	volume_engine(&h, VOL1, "v2");
	disable_v2(&h, "harvester-node-2");
	{
		size_t i = harness_index(&h, RES_NODES, "harvester-node-3");
		json_object *o = harness_edit(&h, RES_NODES, i);
		json_object_object_add(jc_get(o, "metadata", "labels"), LONGHORN_V2_DISABLE_LABEL,
				       json_object_new_string("false"));
		harness_commit(&h, RES_NODES, i, o);
	}
	run(&h, LM);
	f = harness_finding(&h, LM, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	harness_clear(&h);
}

/* The v2 engine off cluster-wide (absent: the default "false", or "false"). */
static void test_lm_v2_setting_off(void **state)
{
	static const char *const values[] = {NULL, "false"};
	for (size_t k = 0; k < ELEMENTSOF(values); k++) {
		struct harness h;
		harness_init(&h);
		load_upstream(&h);
		if (values[k])
			setting(&h, "v2-data-engine", values[k]);
		volume_engine(&h, VOL1, "v2");
		run(&h, LM);
		const struct finding *f = harness_finding(&h, LM, VMI1_OBJ);
		assert_int_equal(f->status, STATUS_FAIL);
		assert_true(harness_list_has(f, "reasons", "v2-data-engine is"));
		assert_true(harness_list_has(f, "reasons", "no node runs the v2 engine"));
		assert_true(row(&h, "vm-002")->can_migrate);
		harness_clear(&h);
	}
}

/* v2 on, block disks on the nodes, one node labelled: a v2 target is left. The
 * target needs no block disk of its own (replicas stay where they are). */
static void test_lm_v2_target_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	for (int n = 1; n <= 3; n++) {
		char name[32];
		snprintf(name, sizeof(name), "harvester-node-%d", n);
		add_block_disk(&h, name, false);
	}
	volume_engine(&h, VOL1, "v2");
	disable_v2(&h, "harvester-node-2");
	run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "longhorn_v2_volumes", &n));
	assert_int_equal(n, 1);
	assert_true(row(&h, "vm-001")->can_migrate);
	harness_clear(&h);
}

/* v2 volumes live-migrate from Longhorn 1.8; 1.5 named the field backendStoreDriver. */
static void test_lm_v2_old_longhorn(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	setting(&h, "current-longhorn-version", "v1.7.3");
	volume_engine(&h, VOL1, "v2");
	run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, VMI1_OBJ);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_true(harness_list_has(f, "reasons", "Longhorn 1.7.3 does not live-migrate v2"));
	assert_non_null(strstr(f->remediation, "longhorn/longhorn#6361"));
	harness_clear(&h);

	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	setting(&h, "current-longhorn-version", "v1.5.1");
	set_field(&h, RES_LH_VOLUMES, VOL1, "spec", "dataEngine", json_object_new_string(""));
	set_field(&h, RES_LH_VOLUMES, VOL1, "spec", "backendStoreDriver",
		  json_object_new_string("v2"));
	run(&h, LM);
	f = harness_finding(&h, LM, VMI1_OBJ);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_true(harness_list_has(f, "reasons", "Longhorn 1.5.1 does not live-migrate v2"));
	harness_clear(&h);
}

/* What decides a v2 volume was not collected: UNKNOWN for that VM only. */
static void test_lm_v2_not_collected(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	volume_engine(&h, VOL1, "v2");
	cs_set_status(&h.cs, RES_LH_SETTINGS, RES_FORBIDDEN, "403");
	run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, VMI1_OBJ);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "may not be able to"));
	assert_true(row(&h, "vm-002")->can_migrate);
	harness_clear(&h);

	/* The version from the longhorn-manager DaemonSet (v1.11.2): then it is the
	 * v2-data-engine setting that is missing. */
	harness_init(&h);
	load_upstream(&h);
	harness_load(&h, UP "daemonsets.apps.json");
	volume_engine(&h, VOL1, "v2");
	cs_set_status(&h.cs, RES_LH_SETTINGS, RES_FORBIDDEN, "403");
	run(&h, LM);
	f = harness_finding(&h, LM, VMI1_OBJ);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_true(harness_list_has(f, "reasons", "the Longhorn settings were not collected"));
	harness_clear(&h);

	/* Settings say v2 is on, but the Nodes (their labels) are missing. */
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	volume_engine(&h, VOL1, "v2");
	cs_set_status(&h.cs, RES_NODES, RES_FAILED, "timeout");
	run(&h, LM);
	f = harness_finding(&h, LM, VMI1_OBJ);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_true(harness_list_has(f, "reasons", "the Nodes"));
	harness_clear(&h);
}

/* v1 volumes: the v2 setting and labels change nothing. */
static void test_lm_v1_unaffected(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	disable_v2(&h, "harvester-node-1");
	disable_v2(&h, "harvester-node-2");
	disable_v2(&h, "harvester-node-3");
	run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	int64_t n;
	assert_false(kv_get_int(&f->evidence, "longhorn_v2_volumes", &n));
	harness_clear(&h);
}

/* ---- api.longhorn.node-disk ---- */

/* A v2-only cluster: block disks only, every volume v2. No FAIL or WARN for the
 * missing filesystem disks; the v2 count is what is compared. */
static void test_disk_block_only(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	all_volumes_v2(&h);
	for (int n = 1; n <= 3; n++) {
		char name[32];
		snprintf(name, sizeof(name), "harvester-node-%d", n);
		add_block_disk(&h, name, true);
	}
	run(&h, DISK);
	const struct finding *f = harness_only(&h, DISK);
	assert_int_equal(f->status, STATUS_PASS);
	assert_non_null(strstr(f->message, "(v2 engine: block)"));
	assert_true(harness_list_has(f, "engines_not_judged", "v1: no filesystem disk"));
	assert_true(harness_list_has(f, "disks", "nvme1n1 /dev/nvme1n1 block: available"));
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "v2_default_replica_count", &n));
	assert_int_equal(n, 3);
	harness_clear(&h);

	/* v1-data-engine "false" (Longhorn 1.6+) makes it v2-only whatever the volumes. */
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	setting(&h, "v1-data-engine", "false");
	for (int k = 1; k <= 3; k++) {
		char name[32];
		snprintf(name, sizeof(name), "harvester-node-%d", k);
		add_block_disk(&h, name, true);
	}
	run(&h, DISK);
	f = harness_only(&h, DISK);
	assert_int_equal(f->status, STATUS_PASS);
	assert_true(harness_list_has(f, "engines_not_judged", "v1: disabled"));
	harness_clear(&h);
}

/* v2 volumes but only filesystem disks: no v2 replica can be placed. */
static void test_disk_v2_without_block(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	volume_engine(&h, VOL2, "v2");
	run(&h, DISK);
	const struct finding *f =
	    harness_finding(&h, DISK, "Node/longhorn-system/harvester-node-1");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "has no block disk: no v2 replica"));
	/* the count finding names the engine */
	bool found = false;
	for (size_t i = 0; i < h.out.n; i++)
		if (!h.out.items[i].object && strstr(h.out.items[i].message, "v2 data engine"))
			found = true;
	assert_true(found);
	harness_clear(&h);

	/* The vice versa of test_disk_block_only: v1 only, filesystem disks only, the
	 * v2 engine enabled but unused: PASS as before. */
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	run(&h, DISK);
	f = harness_only(&h, DISK);
	assert_int_equal(f->status, STATUS_PASS);
	assert_true(
	    harness_list_has(f, "engines_not_judged", "v2: no block disk and no v2 volume"));
	harness_clear(&h);
}

/* The v2 engine off but a block disk set up on node-1 (its only disk): v1
 * replicas cannot use it, so node-1 holds none. */
static void test_disk_block_unused(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	add_block_disk(&h, "harvester-node-1", true);
	run(&h, DISK);
	const struct finding *f =
	    harness_finding(&h, DISK, "Node/longhorn-system/harvester-node-1");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "has no filesystem disk: no v1 replica"));
	assert_true(harness_list_has(f, "disks",
				     "nvme1n1 /dev/nvme1n1 block: not judged (the v2 "
				     "engine is not in use)"));
	/* two nodes left for three v1 replicas */
	bool short_v1 = false;
	for (size_t i = 0; i < h.out.n; i++)
		short_v1 |=
		    !h.out.items[i].object &&
		    strstr(h.out.items[i].message, "2 Longhorn nodes have a schedulable "
						   "filesystem disk for the v1 data engine");
	assert_true(short_v1);
	harness_clear(&h);
}

/* Mixed: a filesystem disk on node-1 only, block disks on node-2 and node-3, and
 * node-3 labelled disable-v2: each engine has too few nodes for 3 replicas. */
static void test_disk_mixed_per_engine(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	volume_engine(&h, VOL2, "v2");
	add_block_disk(&h, "harvester-node-2", true);
	add_block_disk(&h, "harvester-node-3", true);
	setting(&h, "default-replica-count", "{\"v1\":\"1\",\"v2\":\"2\"}");
	disable_v2(&h, "harvester-node-3");
	run(&h, DISK);
	/* node-1 has no block disk, node-2 no filesystem disk: WARNs per node */
	const struct finding *f =
	    harness_finding(&h, DISK, "Node/longhorn-system/harvester-node-1");
	assert_non_null(strstr(f->message, "no block disk"));
	f = harness_finding(&h, DISK, "Node/longhorn-system/harvester-node-2");
	assert_non_null(strstr(f->message, "no filesystem disk"));
	/* node-3's block disk is not judged: the node runs no v2 engine */
	f = harness_finding(&h, DISK, "Node/longhorn-system/harvester-node-3");
	assert_true(harness_list_has(f, "disks",
				     "not judged (the v2 engine is not in use on this "
				     "node)"));
	assert_non_null(harness_ev(f, "v2_data_engine"));
	/* v2: one node (node-2) for 2 replicas */
	bool v2_short = false, v1_short = false;
	for (size_t i = 0; i < h.out.n; i++) {
		if (h.out.items[i].object)
			continue;
		v2_short |= strstr(h.out.items[i].message, "v2 data engine") != NULL;
		v1_short |= strstr(h.out.items[i].message, "v1 data engine") != NULL;
	}
	assert_true(v2_short);
	assert_false(v1_short);
	harness_clear(&h);
}

/* ---- cluster.nodes.count ---- */

static void test_count_v2_nodes(void **state)
{
	struct harness h;
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	disable_v2(&h, "harvester-node-3");
	run(&h, COUNT);
	const struct finding *f = harness_only(&h, COUNT);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "v2 data engine replicas"));
	assert_true(harness_list_has(f, "v2_excluded_nodes", "harvester-node-3: label"));
	harness_clear(&h);

	/* the v2 key asks for 2: PASS */
	harness_init(&h);
	load_upstream(&h);
	setting(&h, "v2-data-engine", "true");
	setting(&h, "default-replica-count", "{\"v1\":\"3\",\"v2\":\"2\"}");
	disable_v2(&h, "harvester-node-3");
	run(&h, COUNT);
	f = harness_only(&h, COUNT);
	assert_int_equal(f->status, STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "v2_replica_nodes", &n));
	assert_int_equal(n, 2);
	harness_clear(&h);

	/* v2 off: the label counts for nothing */
	harness_init(&h);
	load_upstream(&h);
	disable_v2(&h, "harvester-node-3");
	run(&h, COUNT);
	assert_int_equal(harness_only(&h, COUNT)->status, STATUS_PASS);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lm_v2_other_node_labelled),
	    cmocka_unit_test(test_lm_v2_setting_off),
	    cmocka_unit_test(test_lm_v2_target_pass),
	    cmocka_unit_test(test_lm_v2_old_longhorn),
	    cmocka_unit_test(test_lm_v2_not_collected),
	    cmocka_unit_test(test_lm_v1_unaffected),
	    cmocka_unit_test(test_disk_block_only),
	    cmocka_unit_test(test_disk_v2_without_block),
	    cmocka_unit_test(test_disk_block_unused),
	    cmocka_unit_test(test_disk_mixed_per_engine),
	    cmocka_unit_test(test_count_v2_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
