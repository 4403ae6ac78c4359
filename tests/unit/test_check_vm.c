/* api.vm.live-migratable (and the per-VM table), api.vm.run-strategy, api.cdi.import-source. */
#include "agg_harness.h"

#define LM  "api.vm.live-migratable"
#define RS  "api.vm.run-strategy"
#define CDI "api.cdi.import-source"

static bool row_has_reason(const struct vm_row *r, const char *needle)
{
	for (size_t i = 0; i < r->reasons.n; i++)
		if (strstr(r->reasons.items[i], needle))
			return true;
	return false;
}

/* ---- live-migratable ---- */

static void test_lm_skip(void **state)
{
	struct harness h;
	harness_init(&h);
	cs_set_status(&h.cs, RES_VMIS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_VMS, RES_NOT_INSTALLED, NULL);
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_SKIP);
	assert_non_null(strstr(harness_finding(&h, LM, NULL)->message, "not installed"));
	harness_clear(&h);

	/* VMIs that are not Running are not migrated */
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachineInstance\","
			"\"metadata\":{\"name\":\"vm-e2e-final\",\"namespace\":\"default\"},"
			"\"status\":{\"phase\":\"Scheduling\"}}");
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_SKIP);
	assert_non_null(strstr(harness_finding(&h, LM, NULL)->message, "nothing to live-migrate"));
	assert_int_equal(h.vms.n, 0);
	harness_clear(&h);
}

static void test_lm_rwo_disk(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_load(&h, "kubevirt/vm-cirros-test-rwo.json");
	harness_run(&h, LM);
	const struct finding *f =
	    harness_finding(&h, LM, "VirtualMachineInstance/default/vm-cirros-test");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(f->node, "sza122101.local");
	assert_non_null(strstr(f->message, "LiveMigratable=False DisksNotLiveMigratable"));
	assert_true(harness_list_has(f, "reasons", "PVC vm-cirros-test-disk-0 is ReadWriteOnce"));
	assert_true(harness_list_has(f, "volumes",
				     "vm-cirros-test-disk-0: ReadWriteOnce Filesystem "
				     "class=harvester-longhorn (migratable)"));
	assert_string_equal(harness_ev(f, "migrationMethod"), "BlockMigration");
	assert_non_null(strstr(f->remediation, "ReadWriteMany"));
	assert_non_null(strstr(f->remediation, "\"Halted\""));
	/* the table row carries every reason */
	assert_int_equal(h.vms.n, 1);
	assert_false(h.vms.items[0].can_migrate);
	assert_string_equal(h.vms.items[0].node, "sza122101.local");
	assert_true(row_has_reason(&h.vms.items[0], "DisksNotLiveMigratable"));
	assert_true(row_has_reason(&h.vms.items[0], "ReadWriteOnce"));
	assert_int_equal(h.vms.items[0].reasons.n, 2);
	harness_clear(&h);
}

static void test_lm_pass_and_mixed(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_load(&h, "kubevirt/vm-e2e-rwx-block.json");
	harness_run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	assert_non_null(strstr(f->message, "the 1 running VMI can live-migrate"));
	assert_int_equal(h.vms.n, 1);
	assert_true(h.vms.items[0].can_migrate);
	assert_int_equal(h.vms.items[0].reasons.n, 0);
	harness_clear(&h);

	/* one can, one cannot: one FAIL finding, no PASS summary, two rows */
	harness_init(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_load(&h, "kubevirt/vm-e2e-rwx-block.json");
	harness_load(&h, "kubevirt/vm-cirros-test-rwo.json");
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_FAIL);
	assert_int_equal(h.out.n, 1);
	assert_int_equal(h.vms.n, 2);
	harness_clear(&h);
}

/* Longhorn's CSI driver reads parameters.migratable with Go strconv.ParseBool
 * (longhorn-manager csi/util.go getVolumeOptions): "1" and "T" make migratable
 * volumes too, and both checks must agree with it. */
static void test_lm_migratable_go_bool(void **state)
{
	static const char *const forms[] = {"1", "T", "TRUE", "True", "t"};
	for (size_t i = 0; i < ELEMENTSOF(forms); i++) {
		struct harness h;
		harness_init(&h);
		harness_load(&h, "kubevirt/storageclasses.json");
		harness_load(&h, "kubevirt/vm-e2e-rwx-block.json");
		json_object *sc = harness_edit(&h, RES_STORAGECLASSES, 0);
		json_object_object_add(jc_get(sc, "parameters", NULL), "migratable",
				       json_object_new_string(forms[i]));
		harness_commit(&h, RES_STORAGECLASSES, 0, sc);
		harness_run(&h, LM);
		assert_int_equal(harness_status(&h, LM), STATUS_PASS);
		harness_run(&h, "api.pvc.rwx-class-mismatch");
		assert_int_equal(harness_status(&h, "api.pvc.rwx-class-mismatch"), STATUS_PASS);
		harness_clear(&h);
	}
}

/* A migration needs a target: a Ready, uncordoned node that virt-handler has not marked
 * kubevirt.io/schedulable=false (the target pod's nodeSelector asks for "true"). */
static void test_lm_no_target_node(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_load(&h, "kubevirt/vm-e2e-rwx-block.json");
	harness_load(&h, "nodes/kubevirt-no-migration-target.json");
	harness_run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_true(harness_list_has(f, "reasons", "no other node can receive it"));
	assert_true(
	    harness_list_has(f, "reasons", "sza122101.local: kubevirt.io/schedulable=false"));
	assert_true(harness_list_has(f, "reasons", "sza122102.local: cordoned"));
	assert_false(h.vms.items[0].can_migrate);
	harness_clear(&h);

	/* one target left: PASS, and the summary counts it */
	harness_init(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_load(&h, "kubevirt/vm-e2e-rwx-block.json");
	harness_load(&h, "nodes/kubevirt-no-migration-target.json");
	json_object *n = harness_edit(&h, RES_NODES, 2);
	json_object_object_add(jc_get(n, "spec", NULL), "unschedulable",
			       json_object_new_boolean(false));
	harness_commit(&h, RES_NODES, 2, n);
	harness_run(&h, LM);
	f = harness_finding(&h, LM, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	int64_t k;
	assert_true(kv_get_int(&f->evidence, "migration_target_nodes", &k));
	assert_int_equal(k, 2);
	harness_clear(&h);

	/* Harvester two nodes + witness: the witness runs no virt-handler and carries no
	 * kubevirt.io/schedulable label; with the other node cordoned nothing can receive. */
	harness_init(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_load(&h, "kubevirt/vm-e2e-rwx-block.json");
	harness_load(&h, "nodes/harvester-witness-3.json");
	json_object *vmi = harness_edit(&h, RES_VMIS, 0);
	json_object_object_add(jc_get(vmi, "status", NULL), "nodeName",
			       json_object_new_string("harvester-node-0"));
	harness_commit(&h, RES_VMIS, 0, vmi);
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_PASS);
	n = harness_edit(&h, RES_NODES, harness_index(&h, RES_NODES, "harvester-node-1"));
	json_object_object_add(jc_get(n, "spec", NULL), "unschedulable",
			       json_object_new_boolean(true));
	harness_commit(&h, RES_NODES, harness_index(&h, RES_NODES, "harvester-node-1"), n);
	finding_list_clear(&h.out);
	vm_table_clear(&h.vms);
	harness_run(&h, LM);
	f = harness_finding(&h, LM, NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_true(
	    harness_list_has(f, "reasons", "harvester-node-2: no kubevirt.io/schedulable label"));
	harness_clear(&h);
}

/* The Longhorn Engine of the fixture's volume, active, with replicaModeMap modes. */
static void add_engine(struct harness *h, const char *modes)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Engine\",\"metadata\":{"
		 "\"name\":\"pvc-5c8937fb-2d3e-4f50-9a6b-7c8d9e0f1a2b-e-0\",\"namespace\":"
		 "\"longhorn-system\",\"labels\":{\"longhornvolume\":"
		 "\"pvc-5c8937fb-2d3e-4f50-9a6b-7c8d9e0f1a2b\"}},\"spec\":{\"active\":true,"
		 "\"volumeName\":\"pvc-5c8937fb-2d3e-4f50-9a6b-7c8d9e0f1a2b\"},"
		 "\"status\":{\"currentState\":\"running\",\"replicaModeMap\":%s}}",
		 modes);
	harness_add(h, buf);
}

static void degraded_vm(struct harness *h)
{
	harness_init(h);
	harness_load(h, "kubevirt/storageclasses.json");
	harness_load(h, "kubevirt/vm-e2e-rwx-block.json");
	/* replace the healthy Longhorn volume by a degraded one */
	json_object *v = harness_edit(h, RES_LH_VOLUMES, 0);
	json_object_object_add(jc_get(v, "status", NULL), "robustness",
			       json_object_new_string("degraded"));
	harness_commit(h, RES_LH_VOLUMES, 0, v);
}

/* longhorn-manager (controller/volume_controller.go, v1.6.0–v1.11.3) migrates a
 * degraded volume with its RW replicas, and reverts the migration while a
 * replica is rebuilding (mode WO). The old check said "cannot live-migrate" in a
 * WARN for every degraded volume. */
static void test_lm_degraded_volume(void **state)
{
	struct harness h;
	degraded_vm(&h);
	add_engine(&h, "{\"r-1\":\"RW\",\"r-2\":\"WO\"}");
	harness_run(&h, LM);
	const struct finding *f =
	    harness_finding(&h, LM, "VirtualMachineInstance/default/vm-e2e-demo");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "degraded and rebuilding replica r-2: Longhorn "
					   "reverts a live migration until the rebuild finishes"));
	assert_non_null(strstr(f->remediation, "api.longhorn.volume-health"));
	assert_false(h.vms.items[0].can_migrate);
	harness_clear(&h);

	/* Degraded, no rebuild in progress: the migration starts. */
	degraded_vm(&h);
	add_engine(&h, "{\"r-1\":\"RW\",\"r-2\":\"RW\"}");
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_PASS);
	assert_true(h.vms.items[0].can_migrate);
	harness_clear(&h);

	/* Engines not collected: not known, so UNKNOWN ("may not be able to"). */
	degraded_vm(&h);
	harness_run(&h, LM);
	f = harness_finding(&h, LM, "VirtualMachineInstance/default/vm-e2e-demo");
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "may not be able to live-migrate"));
	harness_clear(&h);

	harness_init(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_load(&h, "kubevirt/vm-e2e-rwx-block.json");
	json_object *v = harness_edit(&h, RES_LH_VOLUMES, 0);
	json_object_object_add(jc_get(v, "status", NULL), "robustness",
			       json_object_new_string("faulted"));
	harness_commit(&h, RES_LH_VOLUMES, 0, v);
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_FAIL);
	harness_clear(&h);
}

static const char *vmi_json(const char *lm, const char *volumes, const char *vstatus)
{
	static char buf[2048];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachineInstance\","
		 "\"metadata\":{\"name\":\"vm1\",\"namespace\":\"default\",\"labels\":"
		 "{\"kubevirt.io/nodeName\":\"node-1\"}},\"spec\":{\"volumes\":%s},"
		 "\"status\":{\"phase\":\"Running\",\"conditions\":[%s],\"volumeStatus\":%s}}",
		 volumes, lm, vstatus);
	return buf;
}

static void test_lm_other_reasons(void **state)
{
	/* no LiveMigratable condition yet, PVC known only from the VMI's volumeStatus */
	struct harness h;
	harness_init(&h);
	harness_add(&h, vmi_json("", "[{\"name\":\"d\",\"dataVolume\":{\"name\":\"vm1-data\"}}]",
				 "[{\"name\":\"d\",\"persistentVolumeClaimInfo\":{\"claimName\":"
				 "\"vm1-data\",\"accessModes\":[\"ReadWriteMany\"],\"volumeMode\":"
				 "\"Block\"}}]"));
	harness_run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, "VirtualMachineInstance/default/vm1");
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "may not be able to"));
	assert_string_equal(f->node, "node-1");
	assert_false(h.vms.items[0].can_migrate);
	harness_clear(&h);

	/* RWX Filesystem on a migratable Longhorn class, a hostDisk, an unknown PVC */
	harness_init(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":"
			"{\"name\":\"fs\",\"namespace\":\"default\"},\"spec\":{\"accessModes\":"
			"[\"ReadWriteMany\"],\"volumeMode\":\"Filesystem\",\"storageClassName\":"
			"\"harvester-longhorn\"}}");
	harness_add(&h,
		    vmi_json("{\"type\":\"LiveMigratable\",\"status\":\"True\"}",
			     "[{\"name\":\"a\",\"persistentVolumeClaim\":{\"claimName\":\"fs\"}},"
			     "{\"name\":\"h\",\"hostDisk\":{\"path\":\"/data/x.img\"}},"
			     "{\"name\":\"g\",\"persistentVolumeClaim\":{\"claimName\":\"ghost\"}},"
			     "{\"name\":\"c\",\"containerDisk\":{\"image\":\"x\"}}]",
			     "null"));
	harness_run(&h, LM);
	f = harness_finding(&h, LM, "VirtualMachineInstance/default/vm1");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_true(harness_list_has(f, "reasons", "never get an NFS share-manager"));
	assert_true(harness_list_has(f, "reasons", "hostDisk"));
	assert_true(harness_list_has(f, "reasons", "PVC ghost: neither"));
	assert_int_equal(h.vms.items[0].reasons.n, 3);
	harness_clear(&h);

	/* RWX Filesystem on a non-migratable Longhorn class: migratable, with a note */
	harness_init(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":"
			"{\"name\":\"fs\",\"namespace\":\"default\"},\"spec\":{\"accessModes\":"
			"[\"ReadWriteMany\"],\"storageClassName\":\"longhorn-rwx-nfs\"}}");
	harness_add(&h,
		    vmi_json("{\"type\":\"LiveMigratable\",\"status\":\"True\"}",
			     "[{\"name\":\"a\",\"persistentVolumeClaim\":{\"claimName\":\"fs\"}}]",
			     "[]"));
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_PASS);
	assert_true(h.vms.items[0].can_migrate);
	harness_clear(&h);
}

static void test_lm_garbage(void **state)
{
	const char *weird[] = {
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachineInstance\",\"status\":"
	    "{\"phase\":\"Running\"}}",
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachineInstance\",\"metadata\":"
	    "{\"name\":\"x\"},\"spec\":{\"volumes\":{}},\"status\":{\"phase\":\"Running\","
	    "\"conditions\":\"LiveMigratable\",\"volumeStatus\":[1,null,{"
	    "\"persistentVolumeClaimInfo\""
	    ":7}],\"migrationState\":{\"failed\":\"yes\"}}}",
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachineInstance\",\"metadata\":"
	    "{\"name\":\"y\",\"namespace\":\"d\"},\"spec\":{\"volumes\":[null,7,{\"persistentVolume"
	    "Claim\":{\"claimName\":5}},{\"dataVolume\":null}]},\"status\":{\"phase\":\"Running\","
	    "\"nodeName\":3,\"conditions\":[{\"type\":\"LiveMigratable\",\"status\":\"False\"}],"
	    "\"migrationState\":{\"failed\":true,\"failureReason\":\"MigrateToURI3 failed\"}}}",
	};
	for (size_t i = 0; i < ELEMENTSOF(weird); i++) {
		struct harness h;
		harness_init(&h);
		harness_add(&h, weird[i]);
		harness_run(&h, LM);
		assert_int_not_equal(harness_status(&h, LM), STATUS_PASS);
		assert_int_equal(h.vms.n, 1);
		harness_clear(&h);
	}
}

/* ---- run-strategy ---- */

static void test_rs(void **state)
{
	struct harness h;
	harness_init(&h);
	cs_set_status(&h.cs, RES_VMS, RES_NOT_INSTALLED, NULL);
	harness_run(&h, RS);
	assert_int_equal(harness_status(&h, RS), STATUS_SKIP);
	harness_clear(&h);

	harness_init(&h);
	harness_run(&h, RS);
	assert_int_equal(harness_status(&h, RS), STATUS_SKIP);
	harness_clear(&h);

	harness_init(&h);
	harness_load(&h, "kubevirt/vm-cirros-test-rwo.json");
	harness_load(&h, "kubevirt/vm-e2e-rwx-block.json");
	harness_run(&h, RS);
	assert_int_equal(harness_status(&h, RS), STATUS_PASS);
	assert_non_null(strstr(harness_finding(&h, RS, NULL)->message, "all 2 VMs"));
	harness_clear(&h);

	/* Created with running: true */
	harness_init(&h);
	harness_load(&h, "kubevirt/vm-running-deprecated.json");
	harness_run(&h, RS);
	const struct finding *f =
	    harness_finding(&h, RS, "VirtualMachine/default/vm-rwo-blank-test");
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "spec.running"), "true");
	assert_non_null(strstr(f->message, "Halted, not Stopped"));
	assert_non_null(strstr(f->remediation, "\"op\":\"remove\",\"path\":\"/spec/running\""));
	assert_non_null(strstr(f->remediation, "\"value\":\"Always\""));
	harness_clear(&h);

	/* both set: every update is rejected */
	harness_init(&h);
	harness_load(&h, "kubevirt/vm-both-running-and-strategy.json");
	harness_run(&h, RS);
	f = harness_finding(&h, RS, "VirtualMachine/default/vm-legacy");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "mutually exclusive"));
	harness_clear(&h);

	/* "Stopped" is not a RunStrategy */
	harness_init(&h);
	harness_add(&h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachine\",\"metadata\":"
		    "{\"name\":\"v\",\"namespace\":\"default\"},\"spec\":{\"runStrategy\":"
		    "\"Stopped\"}}");
	harness_add(&h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachine\",\"metadata\":"
		    "{\"name\":\"w\",\"namespace\":\"default\"},\"spec\":{\"runStrategy\":7,"
		    "\"running\":null}}");
	harness_add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachine\",\"spec\":"
			"null}");
	harness_run(&h, RS);
	f = harness_finding(&h, RS, "VirtualMachine/default/v");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "\"Stopped\""));
	assert_non_null(strstr(f->remediation, "\"Halted\""));
	assert_int_equal(harness_finding(&h, RS, "VirtualMachine/default/w")->status, STATUS_FAIL);
	harness_clear(&h);
}

/* The fields per KubeVirt release (check_vm.c rs_release): spec.running is
 * deprecated only from v1.4.0, RunStrategy WaitAsReceiver exists from v1.6.0. */
static const struct finding *rs_obj(struct harness *h, const char *obj)
{
	for (size_t i = 0; i < h->out.n; i++)
		if (strcmp(h->out.items[i].check, RS) == 0 && h->out.items[i].object &&
		    strcmp(h->out.items[i].object, obj) == 0)
			return &h->out.items[i];
	return NULL;
}

static void rs_at(struct harness *h, const char *version)
{
	harness_init(h);
	_cleanup_free_ char *kv = xasprintf(
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":{\"name\":"
	    "\"kubevirt\",\"namespace\":\"kubevirt\"},\"status\":{\"phase\":\"Deployed\","
	    "\"observedKubeVirtVersion\":\"%s\"}}",
	    version);
	harness_add(h, kv);
	harness_add(h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachine\",\"metadata\":"
		    "{\"name\":\"old\",\"namespace\":\"default\"},\"spec\":{\"running\":true}}");
	harness_add(h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachine\",\"metadata\":"
		    "{\"name\":\"recv\",\"namespace\":\"default\"},\"spec\":{\"runStrategy\":"
		    "\"WaitAsReceiver\"}}");
	harness_run(h, RS);
}

static void test_rs_per_release(void **state)
{
	struct harness h;
	/* 1.3: spec.running is the release's field; WaitAsReceiver does not exist. */
	rs_at(&h, "1.3.1-150600.5.9.1");
	assert_null(rs_obj(&h, "VirtualMachine/default/old"));
	const struct finding *f = harness_finding(&h, RS, "VirtualMachine/default/recv");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "WaitAsReceiver only from KubeVirt 1.6"));
	harness_clear(&h);

	/* 1.5: spec.running deprecated (WARN), WaitAsReceiver still invalid. */
	rs_at(&h, "v1.5.2");
	f = harness_finding(&h, RS, "VirtualMachine/default/old");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "deprecated from KubeVirt 1.4"));
	assert_int_equal(harness_finding(&h, RS, "VirtualMachine/default/recv")->status,
			 STATUS_FAIL);
	harness_clear(&h);

	/* 1.6: WaitAsReceiver is valid. */
	rs_at(&h, "v1.6.3");
	assert_int_equal(harness_finding(&h, RS, "VirtualMachine/default/old")->status,
			 STATUS_WARN);
	assert_null(rs_obj(&h, "VirtualMachine/default/recv"));
	harness_clear(&h);

	/* 1.2 with only spec.running VMs: a PASS that names them. */
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
			"{\"name\":\"kubevirt\",\"namespace\":\"kubevirt\"},\"status\":"
			"{\"observedKubeVirtVersion\":\"v1.2.2\"}}");
	harness_add(&h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachine\",\"metadata\":"
		    "{\"name\":\"old\",\"namespace\":\"default\"},\"spec\":{\"running\":false}}");
	harness_run(&h, RS);
	f = harness_finding(&h, RS, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	assert_non_null(strstr(f->message, "1 of 1 VMs uses spec.running, which KubeVirt v1.2.2"));
	harness_clear(&h);
}

/* ---- cdi.import-source ---- */

static void test_cdi_skip_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	cs_set_status(&h.cs, RES_DATAVOLUMES, RES_NOT_INSTALLED, NULL);
	harness_run(&h, CDI);
	assert_int_equal(harness_status(&h, CDI), STATUS_SKIP);
	harness_clear(&h);

	harness_init(&h);
	harness_run(&h, CDI);
	assert_int_equal(harness_status(&h, CDI), STATUS_SKIP);
	harness_clear(&h);

	/* blank source (the on-site workaround) and an external URL without restarts */
	harness_init(&h);
	harness_load(&h, "kubevirt/dv-blank-succeeded.json");
	harness_add(&h,
		    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"DataVolume\","
		    "\"metadata\":{\"name\":\"img\",\"namespace\":\"default\"},\"spec\":{"
		    "\"source\":{\"registry\":{\"url\":\"docker://quay.io/containerdisks/"
		    "fedora:40\"}}},\"status\":{\"phase\":\"ImportInProgress\",\"restartCount\":"
		    "0}}");
	harness_run(&h, CDI);
	const struct finding *f = harness_finding(&h, CDI, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	assert_non_null(strstr(f->message, "2 DataVolumes, 1 from a URL"));
	harness_clear(&h);
}

static void test_cdi_stuck_import_restarted(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "kubevirt/dv-cirros-http-99.json");
	harness_run(&h, CDI);
	const struct finding *f = harness_finding(&h, CDI, "DataVolume/default/vm-cirros-disk-0");
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "host"), "download.cirros-cloud.net");
	assert_string_equal(harness_ev(f, "progress"), "99.62%");
	assert_string_equal(harness_ev(f, "importer_pod"),
			    "importer-prime-661291de-3b4c-4d5e-8f60-718293a4b5c6");
	assert_non_null(strstr(harness_ev(f, "last_error"), "Connection reset by peer"));
	assert_non_null(strstr(f->message, "restarted 2 times at 99.62%"));
	assert_non_null(strstr(f->remediation, "VirtualMachineImage"));
	harness_clear(&h);

	/* without the PVC (no annotation, no uid) the pod is not found, the DV's count is used */
	harness_init(&h);
	harness_load(&h, "kubevirt/dv-cirros-http-99.json");
	cs_set_status(&h.cs, RES_PVCS, RES_NOT_COLLECTED, NULL);
	harness_run(&h, CDI);
	f = harness_finding(&h, CDI, "DataVolume/default/vm-cirros-disk-0");
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "importer_pod"), "");
	harness_clear(&h);
}

static void test_cdi_block_permission_in_cluster(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "kubevirt/dv-rwx-block-permission.json");
	harness_run(&h, CDI);
	const struct finding *f = harness_finding(&h, CDI, "DataVolume/default/vm-demo-disk-0");
	assert_int_equal(f->status, STATUS_WARN);
	bool internal = false;
	assert_true(kv_get_bool(&f->evidence, "in_cluster", &internal));
	assert_true(internal);
	assert_non_null(strstr(f->message, "in-cluster source"));
	assert_non_null(strstr(f->remediation, "nonroot-devices: true"));
	assert_non_null(strstr(f->remediation, "host.containerd.device-ownership"));
	harness_clear(&h);
}

static void test_cdi_hosts_and_garbage(void **state)
{
	static const struct {
		const char *src;
		const char *host;
		bool internal;
	} cases[] = {
	    {"{\"registry\":{\"url\":\"docker://kubevirt/cirros-container-disk-demo\"}}",
	     "docker.io", false},
	    {"{\"registry\":{\"url\":\"docker://cirros\"}}", "docker.io", false},
	    /* the first component names a registry when it has a '.', a ':' (port) or is
	     * localhost (distribution/reference): an in-cluster registry by short name */
	    {"{\"registry\":{\"url\":\"docker://registry:5000/vm/ubuntu:22.04\"}}", "registry",
	     true},
	    {"{\"registry\":{\"url\":\"docker://[fd00::20]:5000/vm/ubuntu\"}}", "fd00::20", true},
	    {"{\"registry\":{\"url\":\"docker://localhost:5000/img\"}}", "localhost", true},
	    {"{\"registry\":{\"url\":\"docker://docker.io/library/ubuntu\"}}", "docker.io", false},
	    {"{\"registry\":{\"url\":\"docker://harbor.lab.local/vm/rocky:9\"}}",
	     "harbor.lab.local", true},
	    {"{\"http\":{\"url\":\"http://user:pw@10.20.1.5:8080/x.img\"}}", "10.20.1.5", true},
	    {"{\"http\":{\"url\":\"https://[fd00::5]:443/x.img\"}}", "fd00::5", true},
	    {"{\"http\":{\"url\":\"http://minio.storage.svc:9000/x\"}}", "minio.storage.svc", true},
	    {"{\"s3\":{\"url\":\"https://s3.eu-west-1.amazonaws.com/b/x.img\"}}",
	     "s3.eu-west-1.amazonaws.com", false},
	    {"{\"http\":{\"url\":\"https://151.101.2.132/x\"}}", "151.101.2.132", false},
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct harness h;
		char buf[512];
		harness_init(&h);
		snprintf(
		    buf, sizeof(buf),
		    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"DataVolume\","
		    "\"metadata\":{\"name\":\"d\",\"namespace\":\"ns\"},\"spec\":{\"source\":%s},"
		    "\"status\":{\"phase\":\"ImportInProgress\",\"restartCount\":1}}",
		    cases[i].src);
		harness_add(&h, buf);
		harness_run(&h, CDI);
		const struct finding *f = harness_finding(&h, CDI, "DataVolume/ns/d");
		assert_int_equal(f->status, STATUS_WARN);
		assert_string_equal(harness_ev(f, "host"), cases[i].host);
		bool internal;
		assert_true(kv_get_bool(&f->evidence, "in_cluster", &internal));
		assert_int_equal(internal, cases[i].internal);
		harness_clear(&h);
	}

	const char *weird[] = {
	    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"DataVolume\"}",
	    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"DataVolume\",\"spec\":{"
	    "\"source\":{\"http\":{\"url\":\"\"}}},\"status\":{\"restartCount\":\"x\"}}",
	    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"DataVolume\",\"metadata\":{"
	    "\"name\":\"z\"},\"spec\":{\"source\":{\"http\":{\"url\":\"://\"}}},\"status\":{"
	    "\"restartCount\":3,\"conditions\":[{\"type\":\"Running\",\"message\":7}]}}",
	};
	for (size_t i = 0; i < ELEMENTSOF(weird); i++) {
		struct harness h;
		harness_init(&h);
		harness_add(&h, weird[i]);
		harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
				"\"importer-z\"},\"status\":{\"containerStatuses\":[null,{"
				"\"restartCount\":\"9\",\"lastState\":{\"terminated\":{\"message\":"
				"[]}}}]}}");
		harness_run(&h, CDI);
		assert_int_not_equal(harness_status(&h, CDI), STATUS_UNKNOWN);
		harness_clear(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lm_skip),
	    cmocka_unit_test(test_lm_rwo_disk),
	    cmocka_unit_test(test_lm_pass_and_mixed),
	    cmocka_unit_test(test_lm_migratable_go_bool),
	    cmocka_unit_test(test_lm_no_target_node),
	    cmocka_unit_test(test_lm_degraded_volume),
	    cmocka_unit_test(test_lm_other_reasons),
	    cmocka_unit_test(test_lm_garbage),
	    cmocka_unit_test(test_rs),
	    cmocka_unit_test(test_rs_per_release),
	    cmocka_unit_test(test_cdi_skip_pass),
	    cmocka_unit_test(test_cdi_stuck_import_restarted),
	    cmocka_unit_test(test_cdi_block_permission_in_cluster),
	    cmocka_unit_test(test_cdi_hosts_and_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
