/*
 * Storage failures seen in the field, end to end: the cluster as the operator saw
 * it, every check that should speak, what it says, and what it says once the fix
 * that worked on site is applied. One test per failure (docs/checks/ names each
 * check's rule).
 */
#include "agg_harness.h"

/* Run one check on a fresh copy of what is loaded (checks append findings). */
static enum status run(struct harness *h, const char *id)
{
	for (size_t i = 0; i < h->out.n; i++)
		finding_clear(&h->out.items[i]);
	h->out.n = 0;
	harness_run(h, id);
	return harness_status(h, id);
}

static const struct finding *first(struct harness *h, const char *id)
{
	return harness_finding(h, id, NULL);
}

/* A Harvester v1.8.2 on RKE2 cluster as seen in the field (harvester Deployment,
 * CoreDNS, rke2-snapshot-controller, Longhorn 1.11.2 settings, three nodes). */
static void cluster(struct harness *h)
{
	harness_init(h);
	harness_load(h, "storage/deployments-harvester.json");
	harness_load(h, "storage/settings-longhorn-1.11.json");
	harness_load(h, "storage/lhnodes-rwx-fs.json");
}

/* The Longhorn StorageClasses and CDI's StorageProfiles of them (status.snapshotClass
 * longhorn): which class VM snapshots use (api.vsc.ambiguous). */
static void longhorn_profiles(struct harness *h)
{
	harness_load(h, "storage/storageclasses-harvester.json");
	harness_load(h, "storage/storageprofiles-two-longhorn.json");
}

static void remove_object(struct harness *h, enum resource_id res, const char *name)
{
	const struct jv *items = cs_items(&h->cs, res);
	for (size_t i = 0; i < jq_len(items); i++)
		if (streq(jq_name(jq_at(items, i)), name)) {
			cs_remove(&h->cs, res, i);
			return;
		}
	fail_msg("no object %s to remove", name);
}

/* The Longhorn sub-chart's persistence.defaultClass=true makes longhorn a
 * second default; PVCs without a class may land on it. */
static void test_double_default(void **state)
{
	struct harness h;
	cluster(&h);
	harness_load(&h, "storage/storageclasses-double-default.json");
	assert_int_equal(run(&h, "api.storageclass.default"), STATUS_FAIL);
	const struct finding *f = first(&h, "api.storageclass.default");
	assert_non_null(strstr(f->message, "(harvester-longhorn, longhorn)"));
	assert_non_null(strstr(f->remediation, "kubectl annotate sc longhorn "
					       "storageclass.kubernetes.io/is-default-class-"));
	assert_non_null(strstr(f->remediation, "longhorn.persistence.defaultClass=false"));

	/* The on-site fix: drop the annotation from longhorn. */
	size_t k = harness_index(&h, RES_STORAGECLASSES, "longhorn");
	json_object *lh = harness_edit(&h, RES_STORAGECLASSES, k);
	json_object_object_del(jc_get(lh, "metadata", "annotations"),
			       "storageclass.kubernetes.io/is-default-class");
	harness_commit(&h, RES_STORAGECLASSES, k, lh);
	assert_int_equal(run(&h, "api.storageclass.default"), STATUS_PASS);
	harness_clear(&h);
}

/* Csi-snapshotter disabled (RKE2 has its own snapshot-controller), and with
 * it the only template of VolumeSnapshotClass longhorn. */
static void test_missing_longhorn_vsc(void **state)
{
	struct harness h;
	cluster(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	assert_int_equal(run(&h, "api.vsc.longhorn"), STATUS_FAIL);
	assert_non_null(strstr(first(&h, "api.vsc.longhorn")->message,
			       "VolumeSnapshotClass longhorn does not exist"));
	assert_int_equal(run(&h, "api.vsc.ambiguous"), STATUS_SKIP);
	assert_int_equal(run(&h, "api.vsc.snap-restore-risk"), STATUS_SKIP);

	/* The manifest the operators applied (a VolumeSnapshotClass named longhorn). */
	harness_load(&h, "storage/volumesnapshotclasses-snap-restore.json");
	assert_int_equal(run(&h, "api.vsc.longhorn"), STATUS_PASS);
	/* … whose type: snap is the risk cases 5 and 17 pay for. */
	assert_int_equal(run(&h, "api.vsc.snap-restore-risk"), STATUS_WARN);
	harness_clear(&h);
}

/* Two Longhorn classes; KubeVirt picks longhorn (bak) by name, and the
 * backup target is empty: "backup target default is not available". */
static void test_bak_class_without_target(void **state)
{
	struct harness h;
	cluster(&h);
	longhorn_profiles(&h);
	harness_load(&h, "storage/volumesnapshotclasses-two-longhorn.json");
	harness_load(&h, "storage/backuptargets-unavailable.json");
	assert_int_equal(run(&h, "api.vsc.ambiguous"), STATUS_WARN);
	assert_string_equal(kv_get_str(&first(&h, "api.vsc.ambiguous")->evidence, "kubevirt_uses"),
			    "longhorn");
	assert_int_equal(run(&h, "api.vsc.backup-target"), STATUS_FAIL);
	assert_non_null(strstr(first(&h, "api.vsc.backup-target")->message,
			       "backup target default is not available"));
	assert_int_equal(run(&h, "api.vsc.longhorn"), STATUS_PASS);

	/* Fix A: patch longhorn to snap, delete longhorn-snapshot. */
	size_t k = harness_index(&h, RES_VS_CLASSES, "longhorn");
	json_object *lh = harness_edit(&h, RES_VS_CLASSES, k);
	json_object_object_add(jc_get(lh, "parameters", NULL), "type",
			       json_object_new_string("snap"));
	harness_commit(&h, RES_VS_CLASSES, k, lh);
	remove_object(&h, RES_VS_CLASSES, "longhorn-snapshot");
	assert_int_equal(run(&h, "api.vsc.ambiguous"), STATUS_PASS);
	assert_int_equal(run(&h, "api.vsc.backup-target"), STATUS_SKIP);
	assert_int_equal(run(&h, "api.vsc.snap-restore-risk"), STATUS_WARN);
	harness_clear(&h);

	/* Fix B: keep bak, configure the target. */
	cluster(&h);
	longhorn_profiles(&h);
	harness_load(&h, "storage/volumesnapshotclasses-two-longhorn.json");
	harness_load(&h, "storage/backuptargets-available.json");
	assert_int_equal(run(&h, "api.vsc.backup-target"), STATUS_PASS);
	assert_int_equal(run(&h, "api.vsc.snap-restore-risk"), STATUS_PASS);
	harness_clear(&h);
}

/* The restore "succeeded"; the restored volume is detached/unknown with 0
 * replicas, cloneStatus failed, and its source volume is gone. */
static void test_restore_clone_failed(void **state)
{
	struct harness h;
	cluster(&h);
	longhorn_profiles(&h);
	h.now_ns = harness_at("2026-09-06T00:10:00Z");
	harness_load(&h, "storage/volumesnapshotclasses-snap-restore.json");
	harness_load(&h, "storage/volumes-restore-clone-failed.json");
	harness_load(&h, "storage/volumesnapshots-restore-clone-failed.json");
	harness_load(&h, "storage/volumesnapshotcontents-restore-clone-failed.json");
	const char *vol = "Volume/longhorn-system/pvc-64684c60-5d1e-4c2a-8f3b-9a0e7d6c5b41";

	assert_int_equal(run(&h, "api.longhorn.volume-health"), STATUS_FAIL);
	assert_non_null(harness_finding(&h, "api.longhorn.volume-health", vol));
	assert_int_equal(run(&h, "api.longhorn.clone-stuck"), STATUS_FAIL);
	const struct finding *f = harness_finding(&h, "api.longhorn.clone-stuck", vol);
	assert_non_null(
	    strstr(f->message, "pvc-63e77fab-2b1c-4e8f-9a0d-5c7e3b21f4a6 no longer exists"));
	/* Control plane green: the snapshot still says readyToUse=true. */
	assert_int_equal(run(&h, "api.snapshot.restorable"), STATUS_FAIL);
	assert_int_equal(run(&h, "api.vsc.snap-restore-risk"), STATUS_WARN);

	/* The on-site clean-up: delete the broken restore's volume. */
	remove_object(&h, RES_LH_VOLUMES, "pvc-64684c60-5d1e-4c2a-8f3b-9a0e7d6c5b41");
	assert_int_equal(run(&h, "api.longhorn.clone-stuck"), STATUS_SKIP);
	assert_int_equal(run(&h, "api.longhorn.volume-health"), STATUS_SKIP);
	harness_clear(&h);
}

/* RWX + Filesystem VM disk on harvester-longhorn (migratable): attached,
 * healthy, no share-manager, importer writes fail. Storage space was ruled out. */
static void test_rwx_filesystem(void **state)
{
	struct harness h;
	cluster(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_load(&h, "storage/pvcs-rwx-fs.json");
	harness_load(&h, "storage/volumes-rwx-fs.json");
	harness_load(&h, "storage/replicas-rwx-fs.json");
	harness_load(&h, "storage/engines-rwx-fs.json");

	assert_int_equal(run(&h, "api.pvc.rwx-class-mismatch"), STATUS_FAIL);
	assert_non_null(harness_finding(&h, "api.pvc.rwx-class-mismatch",
					"PersistentVolumeClaim/default/vm-migrate-test-disk-0"));
	/* What the operators ruled out stays ruled out. */
	assert_int_equal(run(&h, "api.longhorn.node-disk"), STATUS_PASS);
	assert_int_equal(run(&h, "api.longhorn.volume-health"), STATUS_PASS);
	assert_int_equal(run(&h, "api.dns.replicas"), STATUS_PASS);
	/* A migratable volume has no share-manager by design. */
	assert_int_equal(run(&h, "api.longhorn.rwx-share"), STATUS_SKIP);

	/* The operators' first reading: a non-migratable RWX volume without its share. */
	remove_object(&h, RES_LH_VOLUMES, "pvc-5a6b7c8d-9e0f-4a1b-b2c3-d4e5f6a7b801");
	harness_load(&h, "storage/volumes-rwx-fs-nonmigratable.json");
	assert_int_equal(run(&h, "api.longhorn.rwx-share"), STATUS_FAIL);
	assert_non_null(strstr(first(&h, "api.longhorn.rwx-share")->message,
			       "shareState \"\", shareEndpoint empty"));

	/* Fixed: the PVC on a non-migratable class, served by a running share-manager. */
	harness_clear(&h);
	cluster(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_load(&h, "storage/pvcs-healthy.json");
	harness_load(&h, "storage/volumes-healthy.json");
	harness_load(&h, "storage/sharemanagers-healthy.json");
	harness_load(&h, "storage/pods-share-manager-running.json");
	assert_int_equal(run(&h, "api.pvc.rwx-class-mismatch"), STATUS_PASS);
	assert_int_equal(run(&h, "api.longhorn.rwx-share"), STATUS_PASS);
	harness_clear(&h);
}

/* A failed VM snapshot deleted; its VolumeSnapshot and content stay, the
 * sidecar retrying CreateSnapshot against an empty backup target. */
static void test_snapshot_stuck_deleting(void **state)
{
	struct harness h;
	cluster(&h);
	h.now_ns = harness_at("2026-09-05T23:55:00Z");
	harness_load(&h, "storage/volumesnapshotclasses-two-longhorn.json");
	harness_load(&h, "storage/backuptargets-unavailable.json");
	harness_load(&h, "storage/volumesnapshots-snapshot-stuck-deleting.json");
	harness_load(&h, "storage/volumesnapshotcontents-snapshot-stuck-deleting.json");

	assert_int_equal(run(&h, "api.snapshot.stuck-deletion"), STATUS_WARN);
	const struct finding *f = first(&h, "api.snapshot.stuck-deletion");
	assert_int_equal(h.out.n, 1);
	assert_non_null(strstr(f->message, "backup target default is not available"));
	assert_true(strstr(f->remediation, "fix the cause") <
		    strstr(f->remediation, "\"finalizers\":null"));
	/* The root cause is reported where it lives. */
	assert_int_equal(run(&h, "api.vsc.backup-target"), STATUS_FAIL);

	/* Step 2 of the repair: the content's finalizer removed, content gone; the
	 * snapshot controller then releases the VolumeSnapshot (as observed: "released
	 * automatically"). */
	remove_object(&h, RES_VS_CONTENTS, "snapcontent-0f1e2d3c-4b5a-4697-8877-665544332211");
	remove_object(&h, RES_VS_SNAPSHOTS,
		      "vmsnapshot-7f3a9c2e-1b5d-4e8a-a6c4-2d9f0b7e3c15-volume-disk-0");
	assert_int_equal(run(&h, "api.snapshot.stuck-deletion"), STATUS_PASS);
	harness_clear(&h);
}

/* Type snap restore; the source volume and its Longhorn snapshot were
 * garbage-collected, the clone stays initiated, the volume degraded. */
static void test_snap_restore_never_converges(void **state)
{
	struct harness h;
	cluster(&h);
	longhorn_profiles(&h);
	harness_load(&h, "storage/volumesnapshotclasses-snap-restore.json");
	harness_load(&h, "storage/volumes-snap-restore.json");
	harness_load(&h, "storage/replicas-snap-restore.json");
	harness_load(&h, "storage/engines-snap-restore.json");
	harness_load(&h, "storage/volumesnapshots-snap-restore.json");
	harness_load(&h, "storage/volumesnapshotcontents-snap-restore.json");
	const char *vol = "Volume/longhorn-system/pvc-9cb0efed-4a7d-4e1b-8c2f-6d3a9e5b1f07";

	/* 49 s after the restore: initiated is not yet a verdict (no false alarm). */
	h.now_ns = harness_at("2026-09-06T01:27:30Z");
	assert_int_equal(run(&h, "api.longhorn.clone-stuck"), STATUS_PASS);

	/* The operators polled 120 s without change. */
	h.now_ns = harness_at("2026-09-06T01:35:00Z");
	assert_int_equal(run(&h, "api.longhorn.clone-stuck"), STATUS_FAIL);
	assert_non_null(strstr(harness_finding(&h, "api.longhorn.clone-stuck", vol)->message,
			       "will never converge"));
	assert_int_equal(run(&h, "api.longhorn.volume-health"), STATUS_WARN);
	assert_non_null(strstr(harness_finding(&h, "api.longhorn.volume-health", vol)->message,
			       "blocks live migration of VM default/vm-e2e-final"));
	assert_int_equal(run(&h, "api.snapshot.restorable"), STATUS_FAIL);
	assert_int_equal(run(&h, "api.vsc.snap-restore-risk"), STATUS_WARN);
	assert_int_equal(run(&h, "api.vsc.longhorn"), STATUS_PASS);

	/* Before the GC (snapshot time): everything is there and restorable. */
	harness_clear(&h);
	cluster(&h);
	longhorn_profiles(&h);
	h.now_ns = harness_at("2026-09-06T01:25:00Z");
	harness_load(&h, "storage/volumesnapshotclasses-snap-restore.json");
	harness_load(&h, "storage/volumes-snap-restore-before-gc.json");
	harness_load(&h, "storage/lhsnapshots-snap-restore-before-gc.json");
	harness_load(&h, "storage/volumesnapshots-snap-restore.json");
	harness_load(&h, "storage/volumesnapshotcontents-snap-restore.json");
	assert_int_equal(run(&h, "api.snapshot.restorable"), STATUS_PASS);
	/* … but the class already carries the risk. */
	assert_int_equal(run(&h, "api.vsc.snap-restore-risk"), STATUS_WARN);
	harness_clear(&h);
}

/* Storage side: harvester restarts 10 times until VolumeSnapshotClass
 * longhorn exists (its own webhook denies the reference and it exits fatally). */
static void test_vsc_missing_at_start(void **state)
{
	struct harness h;
	cluster(&h);
	assert_int_equal(run(&h, "api.vsc.longhorn"), STATUS_FAIL);
	const struct finding *f = first(&h, "api.vsc.longhorn");
	assert_non_null(strstr(f->message, "\\\"longhorn\\\" not found"));
	assert_non_null(strstr(f->message, "(docs/checks/api.vsc.longhorn.md)"));

	/* post-install.sh creates it: the check passes. */
	harness_add(&h,
		    "{\"apiVersion\":\"snapshot.storage.k8s.io/v1\",\"kind\":"
		    "\"VolumeSnapshotClass\",\"metadata\":{\"name\":\"longhorn\"},\"driver\":"
		    "\"driver.longhorn.io\",\"deletionPolicy\":\"Delete\",\"parameters\":{\"type\":"
		    "\"bak\"}}");
	assert_int_equal(run(&h, "api.vsc.longhorn"), STATUS_PASS);
	harness_clear(&h);

	/* Before Harvester is installed the class is not yet needed. */
	harness_init(&h);
	cs_set_status(&h.cs, RES_HV_SETTINGS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_HV_VMIMAGES, RES_NOT_INSTALLED, NULL);
	harness_load(&h, "storage/deployments-rke2-preinstall.json");
	assert_int_equal(run(&h, "api.vsc.longhorn"), STATUS_SKIP);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_double_default),
	    cmocka_unit_test(test_missing_longhorn_vsc),
	    cmocka_unit_test(test_bak_class_without_target),
	    cmocka_unit_test(test_restore_clone_failed),
	    cmocka_unit_test(test_rwx_filesystem),
	    cmocka_unit_test(test_snapshot_stuck_deleting),
	    cmocka_unit_test(test_snap_restore_never_converges),
	    cmocka_unit_test(test_vsc_missing_at_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
