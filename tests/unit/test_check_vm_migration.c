/* api.vm.live-migratable and the last live migration: the VMI's
 * status.migrationState and the VirtualMachineInstanceMigrations naming it, in
 * the shapes of kubevirt/kubevirt staging/src/kubevirt.io/api/core/v1/types.go
 * (v1.3.0+ for failureReason, v1.4.0+ for StorageLiveMigratable). */
#include "agg_harness.h"

#define LM	"api.vm.live-migratable"
#define VMI_OBJ "VirtualMachineInstance/default/vm-e2e-demo"
#define SRC	"sza122100.local"
#define DST	"sza122101.local"
#define FAILURE                                                                                    \
	"Live migration failed error encountered during MigrateToURI3 libvirt api call: "          \
	"virError(Code=1, Domain=10, Message='internal error: unable to execute QEMU command "     \
	"'migrate': Connection timed out')"

/* vm-e2e-demo (RWX Block, migratable class: it passes) on SRC. */
static void base(struct harness *h)
{
	harness_init(h);
	harness_load(h, "kubevirt/storageclasses.json");
	harness_load(h, "kubevirt/vm-e2e-rwx-block.json");
}

/* Set the VMI's status.migrationState (JSON) and/or extra conditions (a JSON
 * array appended to status.conditions). */
static void edit_vmi(struct harness *h, const char *ms, const char *conds)
{
	size_t i = harness_index(h, RES_VMIS, "vm-e2e-demo");
	json_object *vmi = harness_edit(h, RES_VMIS, i);
	json_object *st = jc_get(vmi, "status", NULL);
	if (ms)
		json_object_object_add(st, "migrationState", json_tokener_parse(ms));
	if (conds) {
		/* each added condition replaces the fixture's of its type */
		json_object *c = jc_get(st, "conditions", NULL), *add = json_tokener_parse(conds);
		json_object *keep = json_object_new_array();
		for (size_t k = 0; k < json_object_array_length(c); k++) {
			json_object *old = json_object_array_get_idx(c, k);
			bool replaced = false;
			for (size_t a = 0; a < json_object_array_length(add); a++)
				replaced |=
				    strcmp(harness_member_str(old, "type"),
					   harness_member_str(json_object_array_get_idx(add, a),
							      "type")) == 0;
			if (!replaced)
				json_object_array_add(keep, json_object_get(old));
		}
		for (size_t k = 0; k < json_object_array_length(add); k++)
			json_object_array_add(keep,
					      json_object_get(json_object_array_get_idx(add, k)));
		json_object_put(add);
		json_object_object_add(st, "conditions", keep);
	}
	harness_commit(h, RES_VMIS, i, vmi);
}

/* A VMIM for vm-e2e-demo; status is the JSON of its status. */
static void add_vmim(struct harness *h, const char *ns, const char *name, const char *uid,
		     const char *created, const char *status)
{
	char buf[4096];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachineInstanceMigration\","
		 "\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\",\"uid\":\"%s\","
		 "\"creationTimestamp\":\"%s\",\"labels\":{\"kubevirt.io/vmi-name\":"
		 "\"vm-e2e-demo\"}},\"spec\":{\"vmiName\":\"vm-e2e-demo\"},\"status\":%s}",
		 name, ns, uid, created, status);
	harness_add(h, buf);
}

static const char *const MS_FAILED =
    "{\"startTimestamp\":\"2026-09-05T12:10:02Z\",\"endTimestamp\":\"2026-09-05T12:10:31Z\","
    "\"sourceNode\":\"" SRC "\",\"sourcePod\":\"virt-launcher-vm-e2e-demo-abcde\","
    "\"targetNode\":\"" DST "\",\"targetPod\":\"virt-launcher-vm-e2e-demo-fghij\","
    "\"targetNodeAddress\":\"10.52.1.17\",\"completed\":true,\"failed\":true,"
    "\"failureReason\":\"" FAILURE "\",\"migrationUid\":\"6a7b-failed\","
    "\"mode\":\"PreCopy\"}";

static const char *const VMIM_FAILED_STATUS =
    "{\"phase\":\"Failed\",\"phaseTransitionTimestamps\":["
    "{\"phase\":\"Pending\",\"phaseTransitionTimestamp\":\"2026-09-05T12:09:58Z\"},"
    "{\"phase\":\"Scheduling\",\"phaseTransitionTimestamp\":\"2026-09-05T12:09:58Z\"},"
    "{\"phase\":\"Scheduled\",\"phaseTransitionTimestamp\":\"2026-09-05T12:10:00Z\"},"
    "{\"phase\":\"PreparingTarget\",\"phaseTransitionTimestamp\":\"2026-09-05T12:10:00Z\"},"
    "{\"phase\":\"TargetReady\",\"phaseTransitionTimestamp\":\"2026-09-05T12:10:01Z\"},"
    "{\"phase\":\"Running\",\"phaseTransitionTimestamp\":\"2026-09-05T12:10:02Z\"},"
    "{\"phase\":\"Failed\",\"phaseTransitionTimestamp\":\"2026-09-05T12:10:32Z\"}]}";

/* The VMI's own state says its last migration failed, with failureReason
 * (KubeVirt v1.3+): WARN naming the reason, the time, both nodes. */
static void test_failed_with_reason(void **state)
{
	struct harness h;
	base(&h);
	edit_vmi(&h, MS_FAILED, NULL);
	add_vmim(&h, "default", "kubevirt-evacuation-x7k2p", "6a7b-failed", "2026-09-05T12:09:58Z",
		 VMIM_FAILED_STATUS);
	harness_run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, VMI_OBJ);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message,
			       "vm-e2e-demo may not live-migrate: its last live "
			       "migration failed at 2026-09-05T12:10:31Z from " SRC " to " DST));
	assert_non_null(strstr(f->message, "VirtualMachineInstanceMigration "
					   "kubevirt-evacuation-x7k2p, phase Failed"));
	assert_non_null(strstr(f->message, "MigrateToURI3"));
	assert_non_null(strstr(harness_ev(f, "last_migration"), "Connection timed out"));
	assert_non_null(strstr(f->remediation, "kubevirt.io/vmi-name=vm-e2e-demo"));
	assert_string_equal(f->node, SRC);
	assert_int_equal(h.vms.n, 1);
	assert_false(h.vms.items[0].can_migrate);
	assert_int_equal(vm_row_status(&h.vms.items[0]), STATUS_WARN);
	harness_clear(&h);

	/* The VMI's state alone (the VMIM garbage-collected): the same WARN. */
	base(&h);
	edit_vmi(&h, MS_FAILED, NULL);
	harness_run(&h, LM);
	f = harness_finding(&h, LM, VMI_OBJ);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "(VMI status.migrationState): " FAILURE));
	harness_clear(&h);

	/* Decentralized (v1.6+): the nodes in sourceState/targetState. */
	base(&h);
	edit_vmi(&h,
		 "{\"startTimestamp\":\"2026-09-05T12:10:02Z\",\"endTimestamp\":"
		 "\"2026-09-05T12:10:31Z\",\"completed\":true,\"failed\":true,\"failureReason\":"
		 "\"target VMI failed\",\"sourceState\":{\"node\":\"" SRC "\",\"migrationUID\":"
		 "\"s-1\"},\"targetState\":{\"node\":\"remote-7\",\"migrationUID\":\"t-1\"}}",
		 NULL);
	harness_run(&h, LM);
	f = harness_finding(&h, LM, VMI_OBJ);
	assert_non_null(strstr(f->message, "from " SRC " to remote-7"));
	harness_clear(&h);

	/* A device error on the target repeats at the next attempt: FAIL. */
	base(&h);
	edit_vmi(&h,
		 "{\"startTimestamp\":\"2026-09-05T12:10:02Z\",\"endTimestamp\":"
		 "\"2026-09-05T12:10:31Z\",\"sourceNode\":\"" SRC "\",\"targetNode\":\"" DST "\","
		 "\"completed\":true,\"failed\":true,\"migrationUid\":\"6a7b-failed\","
		 "\"failureReason\":\"Live migration failed error encountered during MigrateToURI3 "
		 "libvirt api call: virError(Code=38, Domain=10, Message='unable to open "
		 "/dev/disk-0: Permission denied')\"}",
		 NULL);
	harness_run(&h, LM);
	f = harness_finding(&h, LM, VMI_OBJ);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "cannot live-migrate"));
	assert_non_null(strstr(harness_ev(f, "failure_repeats"), "permission denied"));
	harness_clear(&h);

	/* KubeVirt v1.2 has no failureReason: said, not invented. */
	base(&h);
	edit_vmi(&h,
		 "{\"startTimestamp\":\"2026-09-05T12:10:02Z\",\"endTimestamp\":"
		 "\"2026-09-05T12:10:31Z\",\"sourceNode\":\"" SRC "\",\"targetNode\":\"" DST "\","
		 "\"completed\":true,\"failed\":true,\"migrationUid\":\"6a7b-failed\"}",
		 NULL);
	harness_run(&h, LM);
	f = harness_finding(&h, LM, VMI_OBJ);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "no failure reason recorded"));
	harness_clear(&h);
}

/* A migration that succeeded, or was aborted on request: the verdict stays PASS. */
static void test_succeeded_and_aborted(void **state)
{
	struct harness h;
	base(&h);
	edit_vmi(&h,
		 "{\"startTimestamp\":\"2026-09-05T12:10:02Z\",\"endTimestamp\":"
		 "\"2026-09-05T12:10:09Z\",\"sourceNode\":\"" DST "\",\"targetNode\":\"" SRC "\","
		 "\"targetNodeDomainDetected\":true,\"completed\":true,\"migrationUid\":\"ok-1\","
		 "\"mode\":\"PreCopy\"}",
		 NULL);
	add_vmim(&h, "default", "upgrade-ok", "ok-1", "2026-09-05T12:09:58Z",
		 "{\"phase\":\"Succeeded\",\"phaseTransitionTimestamps\":[{\"phase\":"
		 "\"Succeeded\",\"phaseTransitionTimestamp\":\"2026-09-05T12:10:10Z\"}]}");
	harness_run(&h, LM);
	const struct finding *f = harness_only(&h, LM);
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(f->message, "the 1 running VMI can live-migrate");
	assert_true(h.vms.items[0].can_migrate);
	harness_clear(&h);

	/* virtctl migrate-cancel: failed with abortStatus Succeeded. */
	base(&h);
	edit_vmi(&h,
		 "{\"startTimestamp\":\"2026-09-05T12:10:02Z\",\"endTimestamp\":"
		 "\"2026-09-05T12:10:20Z\",\"sourceNode\":\"" SRC "\",\"targetNode\":\"" DST "\","
		 "\"completed\":true,\"failed\":true,\"abortRequested\":true,\"abortStatus\":"
		 "\"Succeeded\",\"failureReason\":\"Live migration has been aborted\","
		 "\"migrationUid\":\"ab-1\"}",
		 NULL);
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_PASS);
	harness_clear(&h);
}

/* A migration in progress is stated; it is no reason against the VMI. */
static void test_running(void **state)
{
	struct harness h;
	base(&h);
	edit_vmi(&h,
		 "{\"startTimestamp\":\"2026-09-05T13:20:02Z\",\"sourceNode\":\"" SRC "\","
		 "\"targetNode\":\"" DST "\",\"targetPod\":\"virt-launcher-vm-e2e-demo-q2w3e\","
		 "\"migrationUid\":\"run-1\",\"mode\":\"PreCopy\"}",
		 NULL);
	add_vmim(&h, "default", "maintenance-sza122100", "run-1", "2026-09-05T13:19:58Z",
		 "{\"phase\":\"Running\",\"phaseTransitionTimestamps\":[{\"phase\":\"Running\","
		 "\"phaseTransitionTimestamp\":\"2026-09-05T13:20:02Z\"}]}");
	harness_run(&h, LM);
	const struct finding *f = harness_only(&h, LM);
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(f->message, "the 1 running VMI can live-migrate (1 migrating now)");
	assert_true(
	    harness_list_has(f, "migrations_in_progress",
			     "default/vm-e2e-demo: running since 2026-09-05T13:20:02Z from " SRC
			     " to " DST " (VirtualMachineInstanceMigration "
			     "maintenance-sza122100, phase Running)"));
	harness_clear(&h);

	/* Scheduling, not handed to the VMI yet: the VMIM alone says it runs. */
	base(&h);
	add_vmim(&h, "default", "m-pending", "p-1", "2026-09-05T13:20:40Z",
		 "{\"phase\":\"Scheduling\"}");
	harness_run(&h, LM);
	f = harness_only(&h, LM);
	assert_true(harness_list_has(f, "migrations_in_progress",
				     "running since 2026-09-05T13:20:40Z from " SRC
				     " to a target not chosen yet"));
	harness_clear(&h);
}

/* The VMIM failed before the handoff: the VMI has no migrationState at all. */
static void test_vmim_failed_vmi_state_absent(void **state)
{
	struct harness h;
	base(&h);
	add_vmim(&h, "default", "kubevirt-evacuation-9zq4m", "ev-9", "2026-09-05T11:00:00Z",
		 "{\"phase\":\"Failed\",\"phaseTransitionTimestamps\":["
		 "{\"phase\":\"Pending\",\"phaseTransitionTimestamp\":\"2026-09-05T11:00:00Z\"},"
		 "{\"phase\":\"Scheduling\",\"phaseTransitionTimestamp\":\"2026-09-05T11:00:01Z\"},"
		 "{\"phase\":\"Failed\",\"phaseTransitionTimestamp\":\"2026-09-05T11:05:01Z\"}]}");
	/* an older success and one of another namespace change nothing */
	add_vmim(&h, "default", "old-ok", "ok-0", "2026-08-01T00:00:00Z",
		 "{\"phase\":\"Succeeded\"}");
	add_vmim(&h, "other", "elsewhere", "x-1", "2026-09-05T12:00:00Z",
		 "{\"phase\":\"Succeeded\"}");
	harness_run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, VMI_OBJ);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message,
			       "its last live migration failed at "
			       "2026-09-05T11:05:01Z from " SRC
			       " to a target not chosen yet (VirtualMachineInstanceMigration "
			       "kubevirt-evacuation-9zq4m, phase Failed)"));
	assert_non_null(strstr(f->message, "no failure reason recorded (it never reached the VMI"));
	harness_clear(&h);

	/* No uid, no creationTimestamp, the VMIM's own migrationState failed
	 * (docs: the VMIM's status.migrationState is the VMI's struct). */
	base(&h);
	harness_add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":"
			"\"VirtualMachineInstanceMigration\",\"metadata\":{\"name\":"
			"\"vm-e2e-demo-migration-x7k2p\",\"namespace\":\"default\"},\"spec\":{"
			"\"vmiName\":\"vm-e2e-demo\"},\"status\":{\"phase\":\"Failed\","
			"\"migrationState\":{\"sourceNode\":\"" SRC "\",\"targetNode\":\"" DST
			"\",\"completed\":false,\"failed\":true,\"failureReason\":\"" FAILURE
			"\",\"startTimestamp\":\"2026-09-05T11:00:05Z\",\"endTimestamp\":"
			"\"2026-09-05T11:05:00Z\"}}}");
	harness_run(&h, LM);
	f = harness_finding(&h, LM, VMI_OBJ);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "failed at 2026-09-05T11:05:00Z from " SRC " to " DST
					   " (VirtualMachineInstanceMigration "
					   "vm-e2e-demo-migration-x7k2p, phase Failed): " FAILURE));
	harness_clear(&h);

	/* A VMIM condition that says why (rejected by a quota) is the reason. */
	base(&h);
	add_vmim(&h, "default", "m-quota", "q-1", "2026-09-05T11:00:00Z",
		 "{\"phase\":\"Failed\",\"conditions\":[{\"type\":"
		 "\"migrationRejectedByResourceQuota\",\"status\":\"True\",\"message\":"
		 "\"exceeded quota: tenant-a, requested: limits.memory=4Gi\"}]}");
	harness_run(&h, LM);
	f = harness_finding(&h, LM, VMI_OBJ);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, ": migrationRejectedByResourceQuota: exceeded quota"));
	harness_clear(&h);

	/* A newer failed VMIM beats an older successful migrationState... */
	base(&h);
	edit_vmi(&h,
		 "{\"startTimestamp\":\"2026-09-01T10:00:00Z\",\"endTimestamp\":"
		 "\"2026-09-01T10:00:09Z\",\"completed\":true,\"migrationUid\":\"ok-0\"}",
		 NULL);
	add_vmim(&h, "default", "m-new", "new-1", "2026-09-05T11:00:00Z", "{\"phase\":\"Failed\"}");
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_WARN);
	harness_clear(&h);

	/* ...and a newer successful migrationState beats an older failed VMIM. */
	base(&h);
	edit_vmi(&h,
		 "{\"startTimestamp\":\"2026-09-05T12:00:00Z\",\"endTimestamp\":"
		 "\"2026-09-05T12:00:09Z\",\"completed\":true,\"migrationUid\":\"ok-2\"}",
		 NULL);
	add_vmim(&h, "default", "m-old", "old-1", "2026-09-05T11:00:00Z", "{\"phase\":\"Failed\"}");
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_PASS);
	harness_clear(&h);
}

/* VMIMs forbidden or failed: the VMI's own state still counts, and what
 * depends on the VMIMs is UNKNOWN with the reason; not served: none exist. */
static void test_vmims_not_read(void **state)
{
	struct harness h;
	base(&h);
	cs_set_status(&h.cs, RES_VM_MIGRATIONS, RES_FORBIDDEN,
		      "virtualmachineinstancemigrations.kubevirt.io is forbidden: User "
		      "\"hvready\" cannot list resource");
	harness_run(&h, LM);
	const struct finding *f = harness_only(&h, LM);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "the 1 running VMI can live-migrate by its own "
					   "status, but whether a recent migration failed before "
					   "it reached the VMI"));
	assert_non_null(strstr(f->message, "virtualmachineinstancemigrations.kubevirt.io "
					   "forbidden"));
	assert_non_null(strstr(f->remediation, "virtualmachineinstancemigrations"));
	harness_clear(&h);

	/* a VMI with its own finding plus one that passes: the FAIL stays, the
	 * unknown part is a finding of its own */
	base(&h);
	harness_load(&h, "kubevirt/vm-cirros-test-rwo.json");
	cs_set_status(&h.cs, RES_VM_MIGRATIONS, RES_FAILED, "HTTP 500");
	harness_run(&h, LM);
	assert_int_equal(h.out.n, 2);
	f = harness_finding(&h, LM, "VirtualMachineInstance/default/vm-cirros-test");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(harness_ev(f, "migrations_not_read"), "failed: HTTP 500"));
	assert_int_equal(h.out.items[1].status, STATUS_UNKNOWN);
	assert_null(h.out.items[1].object);
	assert_non_null(strstr(h.out.items[1].message, "for the 1 running VMI without a finding"));
	harness_clear(&h);

	/* the VMI's failed state is read without VMIMs */
	base(&h);
	edit_vmi(&h, MS_FAILED, NULL);
	cs_set_status(&h.cs, RES_VM_MIGRATIONS, RES_NOT_COLLECTED, NULL);
	harness_run(&h, LM);
	assert_int_equal(harness_finding(&h, LM, VMI_OBJ)->status, STATUS_WARN);
	harness_clear(&h);

	base(&h);
	cs_set_status(&h.cs, RES_VM_MIGRATIONS, RES_NOT_INSTALLED, NULL);
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_PASS);
	harness_clear(&h);
}

/* StorageLiveMigratable (v1.4+) lists every non-disk reason; LiveMigratable
 * only its first. */
static void test_storage_live_migratable(void **state)
{
	struct harness h;
	base(&h);
	edit_vmi(
	    &h, NULL,
	    "[{\"type\":\"StorageLiveMigratable\",\"status\":\"False\",\"reason\":"
	    "\"NotMigratable\",\"message\":\"InterfaceNotLiveMigratable: cannot migrate VMI "
	    "which does not use masquerade, bridge with "
	    "kubevirt.io/allow-pod-bridge-network-live-migration VM annotation or a migratable "
	    "plugin to connect to the pod network, HostDeviceNotLiveMigratable: VMI uses a PCI "
	    "host devices\"}]");
	harness_run(&h, LM);
	const struct finding *f = harness_finding(&h, LM, VMI_OBJ);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_true(harness_list_has(f, "reasons",
				     "StorageLiveMigratable=False NotMigratable: "
				     "InterfaceNotLiveMigratable"));
	assert_true(harness_list_has(f, "reasons", "HostDeviceNotLiveMigratable"));
	assert_non_null(strstr(harness_ev(f, "StorageLiveMigratable"), "False NotMigratable"));
	harness_clear(&h);

	/* the same single reason as LiveMigratable: said once */
	base(&h);
	size_t i = harness_index(&h, RES_VMIS, "vm-e2e-demo");
	json_object *vmi = harness_edit(&h, RES_VMIS, i);
	json_object *conds = jc_get(jc_get(vmi, "status", NULL), "conditions", NULL);
	for (size_t k = 0; k < json_object_array_length(conds); k++) {
		json_object *c = json_object_array_get_idx(conds, k);
		if (strcmp(harness_member_str(c, "type"), "LiveMigratable") == 0) {
			json_object_object_add(c, "status", json_object_new_string("False"));
			json_object_object_add(
			    c, "reason", json_object_new_string("HostDeviceNotLiveMigratable"));
			json_object_object_add(
			    c, "message", json_object_new_string("VMI uses a PCI host devices"));
		}
	}
	harness_commit(&h, RES_VMIS, i, vmi);
	edit_vmi(&h, NULL,
		 "[{\"type\":\"StorageLiveMigratable\",\"status\":\"False\",\"reason\":"
		 "\"NotMigratable\",\"message\":\"HostDeviceNotLiveMigratable: VMI uses a PCI host "
		 "devices\"}]");
	harness_run(&h, LM);
	f = harness_finding(&h, LM, VMI_OBJ);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_int_equal(h.vms.items[0].reasons.n, 1);
	harness_clear(&h);

	/* True: evidence only, the verdict stays */
	base(&h);
	edit_vmi(&h, NULL, "[{\"type\":\"StorageLiveMigratable\",\"status\":\"True\"}]");
	harness_run(&h, LM);
	assert_int_equal(harness_status(&h, LM), STATUS_PASS);
	harness_clear(&h);
}

static void test_garbage(void **state)
{
	static const char *const st[] = {
	    "null",
	    "[]",
	    "{\"phase\":7}",
	    "{\"phase\":\"Failed\",\"phaseTransitionTimestamps\":{}}",
	    "{\"phase\":\"Failed\",\"phaseTransitionTimestamps\":[null,7,{\"phase\":\"Failed\","
	    "\"phaseTransitionTimestamp\":5}],\"conditions\":[7,{\"status\":\"True\","
	    "\"message\":3}],\"migrationState\":[]}",
	};
	for (size_t i = 0; i < ELEMENTSOF(st); i++) {
		struct harness h;
		base(&h);
		edit_vmi(&h, i % 2 ? "[]" : "{\"failed\":\"yes\",\"migrationUid\":7}", NULL);
		add_vmim(&h, "default", "g", "g-1", i % 2 ? "not-a-time" : "2026-09-05T11:00:00Z",
			 st[i]);
		harness_add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":"
				"\"VirtualMachineInstanceMigration\",\"metadata\":{},\"spec\":{"
				"\"vmiName\":5}}");
		harness_run(&h, LM);
		assert_int_equal(h.vms.n, 1);
		harness_clear(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_failed_with_reason),
	    cmocka_unit_test(test_succeeded_and_aborted),
	    cmocka_unit_test(test_running),
	    cmocka_unit_test(test_vmim_failed_vmi_state_absent),
	    cmocka_unit_test(test_vmims_not_read),
	    cmocka_unit_test(test_storage_live_migratable),
	    cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
