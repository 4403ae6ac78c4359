/* The VolumeSnapshotClass and VolumeSnapshot checks on fixtures modelled on
 * failures seen in the field (docs/checks/api.vsc.*.md, api.snapshot.*.md). */
#include "agg_harness.h"
#include "fixtures_k8s.h"

#define VSC_LH	 "api.vsc.longhorn"
#define VSC_AMB	 "api.vsc.ambiguous"
#define VSC_BT	 "api.vsc.backup-target"
#define VSC_RISK "api.vsc.snap-restore-risk"
#define RESTORE	 "api.snapshot.restorable"
#define STUCK	 "api.snapshot.stuck-deletion"

/* Harvester installed: its Deployment and CoreDNS, as on the cluster seen in the field. */
static void installed(struct harness *h)
{
	harness_init(h);
	harness_load(h, "storage/deployments-harvester.json");
}

/* installed(), with the VolumeSnapshotClasses seen in the field: longhorn (type bak)
 * and longhorn-snapshot (type snap). */
static void installed_vsc(struct harness *h)
{
	installed(h);
	harness_load(h, "storage/volumesnapshotclasses-two-longhorn.json");
}

static void add_vsc(struct harness *h, const char *name, const char *params, const char *ann)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"snapshot.storage.k8s.io/v1\",\"kind\":\"VolumeSnapshotClass\","
		 "\"metadata\":{\"name\":\"%s\"%s%s%s},\"driver\":\"driver.longhorn.io\","
		 "\"deletionPolicy\":\"Delete\"%s%s}",
		 name, ann ? ",\"annotations\":{" : "", ann ? ann : "", ann ? "}" : "",
		 params ? ",\"parameters\":" : "", params ? params : "");
	harness_add(h, buf);
}

/* ---- api.vsc.longhorn ---- */

static void test_vsc_longhorn_pass_and_skip(void **state)
{
	struct harness h;
	installed(&h);
	harness_load(&h, "storage/volumesnapshotclasses-harvester.json");
	const struct finding *f = harness_expect(&h, VSC_LH, STATUS_PASS);
	assert_string_equal(kv_get_str(&f->evidence, "parameters.type"), "(absent)");
	assert_string_equal(kv_get_str(&f->evidence, "type"), "bak");
	harness_clear(&h);

	harness_init(&h);
	harness_preinstall(&h);
	harness_expect(&h, VSC_LH, STATUS_SKIP);
	harness_clear(&h);
}

static void test_vsc_longhorn_missing_fail(void **state)
{
	struct harness h;
	installed(&h);
	add_vsc(&h, "longhorn-snapshot", "{\"type\":\"snap\"}", NULL);
	const struct finding *f = harness_expect(&h, VSC_LH, STATUS_FAIL);
	assert_non_null(strstr(f->message, "harvester exits at start"));
	assert_non_null(strstr(f->remediation, "\"name\":\"longhorn\""));
	assert_non_null(strstr(f->remediation, "kubectl apply -f -"));
	harness_clear(&h);

	/* The snapshot API itself is not served after Harvester's install. */
	installed(&h);
	cs_set_status(&h.cs, RES_VS_CLASSES, RES_NOT_INSTALLED, NULL);
	f = harness_expect(&h, VSC_LH, STATUS_FAIL);
	assert_non_null(strstr(f->message, "not served"));
	harness_clear(&h);
}

static void test_vsc_longhorn_wrong_driver_or_type(void **state)
{
	struct harness h;
	installed(&h);
	harness_add(
	    &h, k8s_obj(K8S_SNAPSHOT, "VolumeSnapshotClass", NULL, "longhorn", NULL,
			"\"driver\":\"rook-ceph.rbd.csi.ceph.com\",\"deletionPolicy\":\"Delete\""));
	harness_expect(&h, VSC_LH, STATUS_FAIL);
	assert_non_null(strstr(harness_only(&h, VSC_LH)->message, "rook-ceph.rbd.csi.ceph.com"));
	harness_clear(&h);

	installed(&h);
	add_vsc(&h, "longhorn", "{\"type\":\"backup\"}", NULL);
	harness_expect(&h, VSC_LH, STATUS_FAIL);
	assert_non_null(strstr(harness_only(&h, VSC_LH)->message, "invalid CSI snapshot type"));
	harness_clear(&h);

	/* Wrong types: driver a number, parameters.type a number. */
	installed(&h);
	harness_add(&h, k8s_obj(K8S_SNAPSHOT, "VolumeSnapshotClass", NULL, "longhorn", NULL,
				"\"driver\":5"));
	harness_expect(&h, VSC_LH, STATUS_FAIL);
	harness_clear(&h);
	installed(&h);
	add_vsc(&h, "longhorn", "{\"type\":3}", NULL);
	harness_expect(&h, VSC_LH, STATUS_FAIL);
	harness_clear(&h);
}

/* ---- api.vsc.ambiguous ---- */

#define SP_PATCH "kubectl patch storageprofiles.cdi.kubevirt.io "

/* Harvester's four Longhorn StorageClasses; with profiles, CDI's StorageProfiles of
 * them as on a cluster with two Longhorn classes (spec {}, status.snapshotClass longhorn). */
static void lh_cluster(struct harness *h, bool profiles)
{
	installed(h);
	harness_load(h, "storage/storageclasses-harvester.json");
	if (profiles)
		harness_load(h, "storage/storageprofiles-two-longhorn.json");
}

/* lh_cluster() with the profiles and installed_vsc()'s VolumeSnapshotClasses. */
static void lh_cluster_vsc(struct harness *h)
{
	lh_cluster(h, true);
	harness_load(h, "storage/volumesnapshotclasses-two-longhorn.json");
}

/* Set (cls) or remove (NULL) spec.snapshotClass or status.snapshotClass of the
 * StorageProfile of sc. */
static void set_profile(struct harness *h, const char *sc, const char *part, const char *cls)
{
	size_t i = harness_index(h, RES_STORAGEPROFILES, sc);
	json_object *o = harness_edit(h, RES_STORAGEPROFILES, i), *p;
	assert_true(json_object_object_get_ex(o, part, &p));
	if (cls)
		json_object_object_add(p, "snapshotClass", json_object_new_string(cls));
	else
		json_object_object_del(p, "snapshotClass");
	harness_commit(h, RES_STORAGEPROFILES, i, o);
}

static void add_ceph_vsc(struct harness *h)
{
	harness_add(h, k8s_obj(K8S_SNAPSHOT, "VolumeSnapshotClass", NULL, "ceph-block", NULL,
			       "\"driver\":\"rook-ceph.rbd.csi.ceph.com\",\"deletionPolicy\":"
			       "\"Delete\""));
}

static const char *ev_list_item(const struct finding *f, const char *key, size_t i)
{
	const struct value_list *l = kv_get_list(&f->evidence, key);
	assert_non_null(l);
	assert_true(i < l->n);
	assert_int_equal(l->items[i].type, VALUE_STR);
	return l->items[i].s;
}

static void test_vsc_ambiguous_two_longhorn_warn(void **state)
{
	struct harness h;
	lh_cluster_vsc(&h);
	const struct finding *f = harness_expect(&h, VSC_AMB, STATUS_WARN);
	assert_non_null(strstr(f->message,
			       "disks on harvester-longhorn, longhorn, longhorn-rwx, "
			       "vmstate-persistence use longhorn (type bak, StorageProfile "
			       "status.snapshotClass"));
	assert_string_equal(kv_get_str(&f->evidence, "kubevirt_uses"), "longhorn");
	assert_non_null(strstr(harness_ev(f, "storage_profiles"), "collected"));
	assert_non_null(
	    strstr(ev_list_item(f, "vm_disk_classes", 0), "harvester-longhorn: longhorn"));
	assert_non_null(strstr(f->remediation, SP_PATCH "<storageclass>"));
	harness_clear(&h);

	/* StorageProfiles unreadable: CDI's choice emulated, and said so. */
	lh_cluster(&h, false);
	harness_load(&h, "storage/volumesnapshotclasses-two-longhorn.json");
	cs_set_status(&h.cs, RES_STORAGEPROFILES, RES_FORBIDDEN,
		      "list cdi.kubevirt.io/storageprofiles");
	f = harness_expect(&h, VSC_AMB, STATUS_WARN);
	assert_non_null(strstr(f->message, "use longhorn (type bak, first by name)"));
	assert_non_null(strstr(harness_ev(f, "storage_profiles"), "forbidden: list"));
	assert_non_null(strstr(harness_ev(f, "storage_profiles"), "emulating"));
	assert_string_equal(kv_get_str(&f->evidence, "because"), "first by name");
	harness_clear(&h);
}

/* Different StorageClasses resolve to classes of different types: named per StorageClass. */
static void test_vsc_ambiguous_per_storageclass(void **state)
{
	struct harness h;
	lh_cluster_vsc(&h);
	set_profile(&h, "harvester-longhorn", "spec", "longhorn-snapshot");
	set_profile(&h, "harvester-longhorn", "status", "longhorn-snapshot");
	const struct finding *f = harness_expect(&h, VSC_AMB, STATUS_WARN);
	assert_non_null(strstr(f->message,
			       "disks on harvester-longhorn use longhorn-snapshot (type "
			       "snap, StorageProfile spec.snapshotClass); disks on "
			       "longhorn, longhorn-rwx, vmstate-persistence use longhorn "
			       "(type bak"));
	assert_string_equal(kv_get_str(&f->evidence, "kubevirt_uses"),
			    "longhorn-snapshot, longhorn");
	assert_null(kv_get_str(&f->evidence, "because"));
	harness_clear(&h);

	/* Every StorageClass's class named in spec.snapshotClass: a decision, not a default. */
	lh_cluster_vsc(&h);
	set_profile(&h, "harvester-longhorn", "spec", "longhorn-snapshot");
	set_profile(&h, "harvester-longhorn", "status", "longhorn-snapshot");
	set_profile(&h, "longhorn", "spec", "longhorn");
	set_profile(&h, "longhorn-rwx", "spec", "longhorn");
	set_profile(&h, "vmstate-persistence", "spec", "longhorn");
	f = harness_expect(&h, VSC_AMB, STATUS_PASS);
	assert_non_null(strstr(f->message, "each chosen on purpose"));
	harness_clear(&h);

	/* A single Longhorn StorageClass. */
	installed(&h);
	harness_add(&h, k8s_obj("storage.k8s.io/v1", "StorageClass", NULL, "longhorn", NULL,
				"\"provisioner\":\"driver.longhorn.io\""));
	harness_add(&h, k8s_obj("storage.k8s.io/v1", "StorageClass", NULL, "local-path", NULL,
				"\"provisioner\":\"rancher.io/local-path\""));
	harness_load(&h, "storage/storageprofiles-two-longhorn.json");
	harness_load(&h, "storage/volumesnapshotclasses-two-longhorn.json");
	f = harness_expect(&h, VSC_AMB, STATUS_WARN);
	assert_non_null(
	    strstr(f->message, "VM snapshots of disks on longhorn use longhorn (type bak"));
	assert_int_equal(kv_get_list(&f->evidence, "vm_disk_classes")->n, 1);
	harness_clear(&h);
}

static void test_vsc_ambiguous_profile_names_missing_or_foreign(void **state)
{
	struct harness h;
	/* CDI never clears status.snapshotClass: it outlives a deleted class. */
	lh_cluster_vsc(&h);
	set_profile(&h, "longhorn-rwx", "status", "longhorn-backup");
	const struct finding *f = harness_expect(&h, VSC_AMB, STATUS_FAIL);
	assert_non_null(strstr(f->message, "leave out the disks on StorageClass longhorn-rwx"));
	assert_non_null(strstr(f->message, "longhorn-backup, which does not exist"));
	assert_null(strstr(f->message, "more Longhorn StorageClasses"));
	assert_non_null(strstr(f->remediation,
			       SP_PATCH "longhorn-rwx --type=merge -p "
					"'{\"spec\":{\"snapshotClass\":\"longhorn\"}}'"));
	harness_clear(&h);

	/* Class longhorn deleted, none left: every profile still names it; create one first. */
	lh_cluster(&h, true);
	f = harness_expect(&h, VSC_AMB, STATUS_FAIL);
	assert_non_null(strstr(f->message, "StorageClass harvester-longhorn: StorageProfile "
					   "harvester-longhorn status.snapshotClass names "
					   "VolumeSnapshotClass longhorn, which does not exist"));
	assert_non_null(strstr(f->message, "(and 3 more Longhorn StorageClasses, see evidence)"));
	assert_non_null(strstr(f->remediation, "kubectl apply -f -"));
	harness_clear(&h);

	/* KubeVirt does not check the driver of the profile's class. */
	lh_cluster_vsc(&h);
	add_ceph_vsc(&h);
	set_profile(&h, "harvester-longhorn", "status", "ceph-block");
	f = harness_expect(&h, VSC_AMB, STATUS_FAIL);
	assert_non_null(strstr(f->message, "VolumeSnapshotClass ceph-block of driver "
					   "rook-ceph.rbd.csi.ceph.com"));
	assert_non_null(strstr(ev_list_item(f, "vm_disk_classes", 0), "ceph-block of driver"));
	harness_clear(&h);

	/* spec.snapshotClass of another driver: CDI ignores it and keeps status. */
	lh_cluster(&h, true);
	add_vsc(&h, "longhorn", NULL, NULL);
	add_ceph_vsc(&h);
	set_profile(&h, "vmstate-persistence", "spec", "ceph-block");
	f = harness_expect(&h, VSC_AMB, STATUS_WARN);
	assert_non_null(strstr(f->message, "StorageProfile vmstate-persistence spec.snapshotClass "
					   "ceph-block is not applied"));
	assert_non_null(strstr(f->remediation, SP_PATCH "vmstate-persistence"));
	harness_clear(&h);

	/* spec.snapshotClass naming a missing class fails CDI's reconcile: no status is
	 * written, KubeVirt's own rule takes the only class. */
	lh_cluster(&h, true);
	add_vsc(&h, "longhorn", NULL, NULL);
	set_profile(&h, "longhorn-rwx", "spec", "longhorn-backup");
	set_profile(&h, "longhorn-rwx", "status", NULL);
	f = harness_expect(&h, VSC_AMB, STATUS_WARN);
	assert_non_null(strstr(f->message,
			       "StorageProfile longhorn-rwx spec.snapshotClass "
			       "longhorn-backup is not applied: VM snapshots of its disks "
			       "use longhorn (the only Longhorn class)"));
	harness_clear(&h);
}

/* No status.snapshotClass: KubeVirt's own rule, which refuses several unannotated classes. */
static void test_vsc_ambiguous_kubevirt_rule(void **state)
{
	struct harness h;
	lh_cluster(&h, false);
	cs_set_status(&h.cs, RES_STORAGEPROFILES, RES_NOT_INSTALLED, NULL);
	harness_load(&h, "storage/volumesnapshotclasses-two-longhorn.json");
	const struct finding *f = harness_expect(&h, VSC_AMB, STATUS_FAIL);
	assert_non_null(strstr(f->message, "disks on StorageClass harvester-longhorn fail"));
	assert_non_null(strstr(f->message, "\"2 matching VolumeSnapshotClasses for "
					   "harvester-longhorn\""));
	assert_non_null(strstr(f->message, "(and 3 more"));
	assert_non_null(strstr(harness_ev(f, "storage_profiles"), "not installed"));
	assert_non_null(strstr(f->remediation,
			       "annotate volumesnapshotclasses.snapshot.storage.k8s.io "
			       "longhorn snapshot.storage.kubernetes.io/"
			       "is-default-class=true"));
	assert_null(strstr(f->remediation, "cdi-deployment"));
	harness_clear(&h);

	/* CDI installed but no status.snapshotClass written for one StorageClass yet. */
	lh_cluster_vsc(&h);
	set_profile(&h, "longhorn-rwx", "status", NULL);
	f = harness_expect(&h, VSC_AMB, STATUS_FAIL);
	assert_non_null(strstr(f->message, "StorageClass longhorn-rwx fail"));
	assert_non_null(strstr(f->remediation, "cdi-deployment"));
	assert_non_null(strstr(f->remediation, SP_PATCH "longhorn-rwx"));
	harness_clear(&h);

	/* KubeVirt tests the annotation's key: "false" counts, and is no decision. */
	lh_cluster(&h, false);
	cs_set_status(&h.cs, RES_STORAGEPROFILES, RES_NOT_INSTALLED, NULL);
	add_vsc(&h, "longhorn", NULL, NULL);
	add_vsc(&h, "longhorn-snapshot", "{\"type\":\"snap\"}",
		"\"snapshot.storage.kubernetes.io/is-default-class\":\"false\"");
	f = harness_expect(&h, VSC_AMB, STATUS_WARN);
	assert_string_equal(kv_get_str(&f->evidence, "kubevirt_uses"), "longhorn-snapshot");
	assert_non_null(strstr(kv_get_str(&f->evidence, "because"), "annotated"));
	harness_clear(&h);
}

/* Stock Harvester v1.4: its chart's longhorn-snapshot (type snap) and the longhorn
 * class, none annotated; its csi-driver-config setting (harvester pkg/settings) names
 * the classes its own VM backups and snapshots use. KubeVirt's refusal of several
 * unannotated classes matters only where snapshot.kubevirt.io is used. */
static void harvester14(struct harness *h, const char *gates)
{
	lh_cluster(h, false);
	cs_set_status(&h->cs, RES_STORAGEPROFILES, RES_NOT_INSTALLED, NULL);
	harness_load(h, "storage/volumesnapshotclasses-two-longhorn.json");
	harness_add(h, "{\"apiVersion\":\"harvesterhci.io/v1beta1\",\"kind\":\"Setting\","
		       "\"metadata\":{\"name\":\"csi-driver-config\"},\"default\":"
		       "\"{\\\"driver.longhorn.io\\\":{\\\"volumeSnapshotClassName\\\":"
		       "\\\"longhorn-snapshot\\\",\\\"backupVolumeSnapshotClassName\\\":"
		       "\\\"longhorn\\\"}}\"}");
	char kv[640];
	snprintf(kv, sizeof(kv),
		 "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":{\"name\":"
		 "\"kubevirt\",\"namespace\":\"harvester-system\"},\"spec\":{\"configuration\":{"
		 "\"developerConfiguration\":{\"featureGates\":[%s]}}},\"status\":{\"phase\":"
		 "\"Deployed\",\"observedKubeVirtVersion\":\"v1.3.1\"}}",
		 gates);
	harness_add(h, kv);
	cs_set_status(&h->cs, RES_VM_SNAPSHOTS, RES_COLLECTED, NULL);
}

static void test_vsc_ambiguous_stock_harvester(void **state)
{
	struct harness h;
	/* gate off, no VirtualMachineSnapshot: KubeVirt's path is unused → WARN (was FAIL) */
	harvester14(&h, "\"LiveMigration\",\"HotplugVolumes\"");
	const struct finding *f = harness_expect(&h, VSC_AMB, STATUS_WARN);
	assert_non_null(strstr(f->message, "csi-driver-config"));
	assert_string_equal(kv_get_str(&f->evidence, "kubevirt_snapshot_api"), "not in use");
	harness_clear(&h);

	/* the gate listed: KubeVirt's snapshot API is in use → FAIL stays */
	harvester14(&h, "\"Snapshot\"");
	harness_expect(&h, VSC_AMB, STATUS_FAIL);
	harness_clear(&h);

	/* VirtualMachineSnapshots not collected: cannot tell → FAIL stays */
	harvester14(&h, "");
	cs_set_status(&h.cs, RES_VM_SNAPSHOTS, RES_FORBIDDEN, "403");
	harness_expect(&h, VSC_AMB, STATUS_FAIL);
	harness_clear(&h);
}

static void test_vsc_ambiguous_default_annotation_wins(void **state)
{
	struct harness h;
	lh_cluster(&h, false);
	cs_set_status(&h.cs, RES_STORAGEPROFILES, RES_FAILED, "500");
	add_vsc(&h, "longhorn", NULL, NULL);
	add_vsc(&h, "longhorn-snapshot", "{\"type\":\"snap\"}",
		"\"snapshot.storage.kubernetes.io/is-default-class\":\"true\"");
	const struct finding *f = harness_expect(&h, VSC_AMB, STATUS_PASS);
	assert_string_equal(kv_get_str(&f->evidence, "kubevirt_uses"), "longhorn-snapshot");
	assert_non_null(strstr(kv_get_str(&f->evidence, "because"), "annotated"));
	harness_clear(&h);
}

static void test_vsc_ambiguous_pass_skip(void **state)
{
	struct harness h;
	lh_cluster(&h, true);
	harness_load(&h, "storage/volumesnapshotclasses-snap-restore.json");
	harness_expect(&h, VSC_AMB, STATUS_PASS);
	harness_clear(&h);

	/* "" and "bs" are both backups: same behaviour, no ambiguity. */
	lh_cluster(&h, true);
	add_vsc(&h, "longhorn", "{\"type\":\"\"}", NULL);
	add_vsc(&h, "longhorn-old", "{\"type\":\"bs\"}", NULL);
	harness_add(
	    &h,
	    k8s_obj(K8S_SNAPSHOT, "VolumeSnapshotClass", NULL, "ceph", NULL,
		    "\"driver\":\"rook-ceph.rbd.csi.ceph.com\",\"parameters\":{\"type\":\"x\"}"));
	harness_expect(&h, VSC_AMB, STATUS_PASS);
	harness_clear(&h);

	lh_cluster(&h, false);
	harness_expect(&h, VSC_AMB, STATUS_SKIP);
	harness_clear(&h);

	/* No Longhorn StorageClass: no VM disk is a Longhorn volume. */
	installed_vsc(&h);
	assert_non_null(strstr(harness_expect(&h, VSC_AMB, STATUS_SKIP)->message,
			       "no StorageClass of provisioner driver.longhorn.io"));
	harness_clear(&h);

	/* Longhorn classes without Harvester (KubeVirt + Longhorn): judged all the same. */
	harness_init(&h);
	harness_preinstall(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_load(&h, "storage/storageprofiles-two-longhorn.json");
	harness_load(&h, "storage/volumesnapshotclasses-two-longhorn.json");
	harness_expect(&h, VSC_AMB, STATUS_WARN);
	harness_clear(&h);

	lh_cluster(&h, true);
	cs_set_status(&h.cs, RES_VS_CLASSES, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, VSC_AMB, STATUS_SKIP);
	harness_clear(&h);

	/* StorageClasses are needed: which StorageClasses are Longhorn's decides it. */
	lh_cluster_vsc(&h);
	cs_set_status(&h.cs, RES_STORAGECLASSES, RES_NOT_COLLECTED, NULL);
	harness_expect(&h, VSC_AMB, STATUS_UNKNOWN);
	harness_clear(&h);
}

/* ---- api.vsc.backup-target ---- */

static void test_backup_target_two_longhorn_fail(void **state)
{
	struct harness h;
	installed_vsc(&h);
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_load(&h, "storage/backuptargets-unavailable.json");
	const struct finding *f = harness_expect(&h, VSC_BT, STATUS_FAIL);
	assert_non_null(strstr(f->message, "backup target default is not available (backup "
					   "target URL is empty): snapshots with longhorn fail"));
	assert_non_null(strstr(f->remediation, "volumesnapshotclasses.snapshot.storage.k8s.io "
					       "longhorn --type=merge"));
	assert_non_null(strstr(kv_get_str(&f->evidence, "path"), "BackupTarget default"));
	assert_non_null(strstr(kv_get_str(&f->evidence, "longhorn_version"), "1.11.2"));
	assert_string_equal(kv_get_str(&f->evidence, "unavailable_condition"),
			    "True: backup target URL is empty");
	assert_non_null(strstr(f->remediation, "backup-target"));
	harness_clear(&h);
}

static void test_backup_target_available_pass(void **state)
{
	struct harness h;
	installed(&h);
	harness_load(&h, "storage/volumesnapshotclasses-harvester.json");
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_load(&h, "storage/backuptargets-available.json");
	const struct finding *f = harness_expect(&h, VSC_BT, STATUS_PASS);
	assert_non_null(strstr(f->message, "nfs://192.168.10.5:/exports/backup"));
	harness_clear(&h);
}

/* longhorn/longhorn#13195: after the URL is reset to "", BackupTarget default
 * keeps status.available true and condition Unavailable False. No target is
 * configured: a FAIL, not the PASS the stale status would give. */
static void test_backup_target_empty_url_stale_available(void **state)
{
	struct harness h;
	installed_vsc(&h);
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_add(&h, lh_obj("BackupTarget", "default", "\"finalizers\":[\"longhorn.io\"]",
			       "\"spec\":{\"backupTargetURL\":\"\",\"credentialSecret\":\"\","
			       "\"pollInterval\":\"5m0s\",\"syncRequestedAt\":null},"
			       "\"status\":{\"available\":true,\"conditions\":[{\"type\":"
			       "\"Unavailable\",\"status\":\"False\",\"reason\":\"\",\"message\":"
			       "\"\"}],\"lastSyncedAt\":\"2026-05-25T05:49:54Z\"}"));
	harness_add(&h, k8s_obj("harvesterhci.io/v1beta1", "Setting", NULL, "backup-target", NULL,
				"\"value\":\"{\\\"type\\\":\\\"\\\",\\\"endpoint\\\":\\\"\\\"}\""));
	const struct finding *f = harness_expect(&h, VSC_BT, STATUS_FAIL);
	assert_non_null(strstr(f->message, "backup target default is not available "
					   "(spec.backupTargetURL is empty)"));
	assert_string_equal(kv_get_str(&f->evidence, "backup_target_url"), "");
	assert_string_equal(kv_get_str(&f->evidence, "harvester_backup_target"),
			    "type (empty), endpoint (empty)");
	harness_clear(&h);

	/* A URL and available: PASS, with Harvester's view beside it. */
	installed_vsc(&h);
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_load(&h, "storage/backuptargets-available.json");
	harness_add(&h, k8s_obj("harvesterhci.io/v1beta1", "Setting", NULL, "backup-target", NULL,
				"\"value\":\"{\\\"type\\\":\\\"nfs\\\",\\\"endpoint\\\":"
				"\\\"nfs://192.168.10.5:/exports/backup\\\"}\""));
	f = harness_expect(&h, VSC_BT, STATUS_PASS);
	assert_string_equal(kv_get_str(&f->evidence, "harvester_backup_target"),
			    "type nfs, endpoint nfs://192.168.10.5:/exports/backup");
	harness_clear(&h);
}

static void test_backup_target_old_longhorn(void **state)
{
	struct harness h;
	/* Longhorn 1.7, setting backup-target empty, no BackupTarget object. */
	installed_vsc(&h);
	harness_load(&h, "storage/settings-longhorn-1.7.json");
	const struct finding *f = harness_expect(&h, VSC_BT, STATUS_FAIL);
	assert_string_equal(kv_get_str(&f->evidence, "path"), "Longhorn setting backup-target");
	assert_non_null(strstr(f->message, "setting backup-target is empty"));
	harness_clear(&h);

	/* A URL in the setting but nothing reports reachability. */
	installed_vsc(&h);
	harness_add(&h, lh_setting("backup-target", "\"s3://backups@us-east-1/\""));
	harness_expect(&h, VSC_BT, STATUS_UNKNOWN);
	harness_clear(&h);

	/* Longhorn 1.11 without BackupTarget default. */
	installed_vsc(&h);
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	f = harness_expect(&h, VSC_BT, STATUS_FAIL);
	assert_non_null(strstr(f->message, "Longhorn 1.11 keeps its backup target"));
	harness_clear(&h);
}

/* Longhorn < 1.8 keeps the backup target in its setting and copies it into
 * BackupTarget default (longhorn-manager v1.7.3 controller/setting_controller.go
 * syncBackupTarget). An emptied setting whose copy still shows the old URL as
 * available is no backup target: the setting decides, not the stale copy. */
static void test_backup_target_old_longhorn_setting_decides(void **state)
{
	struct harness h;
	installed_vsc(&h);
	harness_load(&h, "storage/settings-longhorn-1.7.json");
	harness_load(&h, "storage/backuptargets-available.json");
	const struct finding *f = harness_expect(&h, VSC_BT, STATUS_FAIL);
	assert_string_equal(kv_get_str(&f->evidence, "path"), "Longhorn setting backup-target");
	assert_non_null(strstr(f->message, "setting backup-target is empty"));
	harness_clear(&h);

	/* The setting names another target than the copy: not copied yet. */
	installed_vsc(&h);
	harness_add(&h, lh_setting("current-longhorn-version", "\"v1.7.3\""));
	harness_add(&h, lh_setting("backup-target", "\"s3://backups@us-east-1/\""));
	harness_load(&h, "storage/backuptargets-available.json");
	f = harness_expect(&h, VSC_BT, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "has not copied the setting yet"));
	harness_clear(&h);

	/* Setting and copy agree: the copy's availability decides. */
	installed_vsc(&h);
	harness_add(&h, lh_setting("current-longhorn-version", "\"v1.7.3\""));
	harness_add(&h, lh_setting("backup-target", "\"nfs://192.168.10.5:/exports/backup\""));
	harness_load(&h, "storage/backuptargets-available.json");
	f = harness_expect(&h, VSC_BT, STATUS_PASS);
	assert_string_equal(kv_get_str(&f->evidence, "backup_target"),
			    "nfs://192.168.10.5:/exports/backup");
	harness_clear(&h);
}

/* Longhorn >= 1.8: volumes and StorageClasses that name another BackupTarget. */
static void add_lh_volume(struct harness *h, const char *name, const char *target, bool deleting)
{
	char spec[256];
	snprintf(spec, sizeof(spec),
		 "\"spec\":{\"size\":\"10737418240\",\"numberOfReplicas\":3%s%s%s},"
		 "\"status\":{\"state\":\"attached\",\"robustness\":\"healthy\"}",
		 target ? ",\"backupTargetName\":\"" : "", target ? target : "",
		 target ? "\"" : "");
	harness_add(h, lh_obj("Volume", name,
			      deleting ? "\"deletionTimestamp\":\"2026-11-30T20:00:00Z\"" : NULL,
			      spec));
}

static void test_backup_target_other_targets(void **state)
{
	struct harness h;
	installed(&h);
	harness_load(&h, "storage/volumesnapshotclasses-harvester.json");
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_load(&h, "storage/backuptargets-multi.json");
	add_lh_volume(&h, "pvc-0b1c2d3e-aaaa-4bbb-8ccc-000000000001", "default", false);
	add_lh_volume(&h, "pvc-0b1c2d3e-aaaa-4bbb-8ccc-000000000002", "s3-dr", false);
	add_lh_volume(&h, "pvc-0b1c2d3e-aaaa-4bbb-8ccc-000000000003", "s3-dr", false);
	add_lh_volume(&h, "pvc-0b1c2d3e-aaaa-4bbb-8ccc-000000000004", NULL, false);
	/* Being deleted: its backups no longer matter. */
	add_lh_volume(&h, "pvc-0b1c2d3e-aaaa-4bbb-8ccc-000000000005", "nfs-gone", true);
	harness_add(&h, k8s_obj(K8S_STORAGE, "StorageClass", NULL, "longhorn-dr", NULL,
				"\"provisioner\":\"driver.longhorn.io\",\"parameters\":"
				"{\"numberOfReplicas\":\"3\",\"backupTargetName\":\"s3-dr\"}"));
	/* Another driver's parameter of the same name is not Longhorn's. */
	harness_add(&h, k8s_obj(K8S_STORAGE, "StorageClass", NULL, "other", NULL,
				"\"provisioner\":\"example.com/csi\",\"parameters\":"
				"{\"backupTargetName\":\"elsewhere\"}"));
	harness_run(&h, VSC_BT);
	assert_int_equal(h.out.n, 2);
	assert_int_equal(harness_status(&h, VSC_BT), STATUS_FAIL);
	const struct finding *f = harness_finding(&h, VSC_BT, NULL);
	assert_null(f->object);
	assert_int_equal(f->status, STATUS_PASS);
	f = harness_finding(&h, VSC_BT, "BackupTarget/longhorn-system/s3-dr");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "backup target s3-dr is not available (failed to "
					   "list backup volumes in s3://harvester-dr@us-east-1/"));
	assert_non_null(strstr(f->message, "2 volumes (pvc-0b1c2d3e-aaaa-4bbb-8ccc-000000000002, "
					   "pvc-0b1c2d3e-aaaa-4bbb-8ccc-000000000003) and "
					   "StorageClass longhorn-dr"));
	int64_t n = 0;
	assert_true(kv_get_int(&f->evidence, "volumes_naming_it", &n));
	assert_int_equal(n, 2);
	assert_string_equal(harness_ev(f, "storage_classes"), "longhorn-dr");
	assert_string_equal(harness_ev(f, "backup_target_url"), "s3://harvester-dr@us-east-1/");
	assert_non_null(strstr(f->remediation, "backuptargets.longhorn.io s3-dr"));
	assert_null(strstr(f->remediation, "Harvester UI"));
	harness_clear(&h);

	/* A target the volumes name that does not exist; a StorageClass alone names
	 * another one that is available. */
	installed(&h);
	harness_load(&h, "storage/volumesnapshotclasses-harvester.json");
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_load(&h, "storage/backuptargets-available.json");
	add_lh_volume(&h, "pvc-1", "nfs-old", false);
	harness_add(&h, k8s_obj(K8S_STORAGE, "StorageClass", NULL, "longhorn-default", NULL,
				"\"provisioner\":\"driver.longhorn.io\",\"parameters\":"
				"{\"backupTargetName\":\"default\"}"));
	harness_run(&h, VSC_BT);
	assert_int_equal(h.out.n, 2);
	f = harness_finding(&h, VSC_BT, "BackupTarget/longhorn-system/nfs-old");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "BackupTarget nfs-old does not exist, but 1 volume "
					   "(pvc-1) name it"));
	assert_non_null(strstr(f->remediation, "\"backupTargetName\":\"default\""));
	harness_clear(&h);

	/* Many volumes: the first five are named, all are counted. */
	installed(&h);
	harness_load(&h, "storage/volumesnapshotclasses-harvester.json");
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_load(&h, "storage/backuptargets-multi.json");
	for (int i = 0; i < 7; i++) {
		char name[32];
		snprintf(name, sizeof(name), "pvc-%d", i);
		add_lh_volume(&h, name, "s3-dr", false);
	}
	harness_run(&h, VSC_BT);
	f = harness_finding(&h, VSC_BT, "BackupTarget/longhorn-system/s3-dr");
	assert_string_equal(harness_ev(f, "volumes"), "pvc-0, pvc-1, pvc-2, pvc-3, pvc-4, …");
	assert_true(kv_get_int(&f->evidence, "volumes_naming_it", &n));
	assert_int_equal(n, 7);
	harness_clear(&h);
}

/* Volumes not collected: the other targets are not judged, and the default's
 * finding says so. */
static void test_backup_target_users_not_collected(void **state)
{
	struct harness h;
	installed(&h);
	harness_load(&h, "storage/volumesnapshotclasses-harvester.json");
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_load(&h, "storage/backuptargets-available.json");
	cs_set_status(&h.cs, RES_LH_VOLUMES, RES_FORBIDDEN, "403");
	const struct finding *f = harness_expect(&h, VSC_BT, STATUS_PASS);
	assert_non_null(strstr(harness_ev(f, "other_targets_not_judged"), "forbidden"));
	harness_clear(&h);
}

static void test_backup_target_unknown_skip(void **state)
{
	static const struct {
		const char *status;
		enum status want;
	} targets[] = {
	    /* BackupTarget default without a usable status. */
	    {"{\"available\":\"yes\",\"conditions\":null}", STATUS_UNKNOWN},
	    /* available=false without a condition is still unavailable. */
	    {"{\"available\":false}", STATUS_FAIL},
	};
	struct harness h;
	for (size_t i = 0; i < ELEMENTSOF(targets); i++) {
		char body[256];
		snprintf(body, sizeof(body),
			 "\"spec\":{\"backupTargetURL\":\"nfs://x:/y\"},\"status\":%s",
			 targets[i].status);
		installed_vsc(&h);
		harness_add(&h, lh_obj("BackupTarget", "default", NULL, body));
		harness_expect(&h, VSC_BT, targets[i].want);
		harness_clear(&h);
	}

	/* Only snap classes: no backup target needed. */
	installed(&h);
	harness_load(&h, "storage/volumesnapshotclasses-snap-restore.json");
	harness_load(&h, "storage/backuptargets-unavailable.json");
	harness_expect(&h, VSC_BT, STATUS_SKIP);
	harness_clear(&h);

	/* Longhorn not installed at all. */
	installed_vsc(&h);
	cs_set_status(&h.cs, RES_LH_SETTINGS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_LH_BACKUPTARGETS, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, VSC_BT, STATUS_FAIL);
	harness_clear(&h);

	/* No Harvester, no Longhorn classes: nothing needs a target. */
	harness_init(&h);
	harness_preinstall(&h);
	harness_expect(&h, VSC_BT, STATUS_SKIP);
	harness_clear(&h);

	/* Longhorn 1.11 settings, a bak class, neither BackupTarget nor setting. */
	harness_init(&h);
	harness_preinstall(&h);
	harness_load(&h, "storage/volumesnapshotclasses-two-longhorn.json");
	cs_set_status(&h.cs, RES_LH_BACKUPTARGETS, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, VSC_BT, STATUS_FAIL);
	assert_non_null(strstr(harness_only(&h, VSC_BT)->message, "no BackupTarget default and no "
								  "backup-target setting"));
	harness_clear(&h);

	installed(&h);
	cs_set_status(&h.cs, RES_LH_BACKUPTARGETS, RES_FORBIDDEN, "403");
	harness_expect(&h, VSC_BT, STATUS_UNKNOWN);
	harness_clear(&h);
}

/* ---- api.vsc.snap-restore-risk ---- */

static void test_snap_restore_risk(void **state)
{
	struct harness h;
	lh_cluster(&h, true);
	harness_load(&h, "storage/volumesnapshotclasses-snap-restore.json");
	const struct finding *f = harness_expect(&h, VSC_RISK, STATUS_WARN);
	assert_non_null(strstr(f->message, "use longhorn (type snap"));
	assert_non_null(strstr(f->remediation, "{\"parameters\":{\"type\":\"bak\"}}"));
	harness_clear(&h);

	lh_cluster_vsc(&h);
	f = harness_expect(&h, VSC_RISK, STATUS_PASS);
	assert_non_null(strstr(f->message, "use longhorn (type bak"));
	harness_clear(&h);

	/* Marking longhorn-snapshot default makes VM snapshots in-cluster snapshots (CDI's
	 * choice, emulated here). */
	lh_cluster(&h, false);
	cs_set_status(&h.cs, RES_STORAGEPROFILES, RES_NOT_COLLECTED, "no file");
	add_vsc(&h, "longhorn", NULL, NULL);
	add_vsc(&h, "longhorn-snapshot", "{\"type\":\"snap\"}",
		"\"snapshot.storage.kubernetes.io/is-default-class\":\"true\"");
	f = harness_expect(&h, VSC_RISK, STATUS_WARN);
	assert_non_null(strstr(harness_ev(f, "storage_profiles"), "not collected: no file"));
	harness_clear(&h);

	lh_cluster(&h, true);
	add_vsc(&h, "longhorn", "{\"type\":\"snapshot\"}", NULL);
	harness_expect(&h, VSC_RISK, STATUS_WARN);
	assert_non_null(strstr(harness_only(&h, VSC_RISK)->message, "rejects"));
	harness_clear(&h);

	lh_cluster(&h, true);
	harness_expect(&h, VSC_RISK, STATUS_SKIP);
	harness_clear(&h);
}

/* Only the VM disks of one StorageClass get type snap: named, and its profile repointed. */
static void test_snap_restore_risk_per_storageclass(void **state)
{
	struct harness h;
	lh_cluster_vsc(&h);
	set_profile(&h, "vmstate-persistence", "spec", "longhorn-snapshot");
	set_profile(&h, "vmstate-persistence", "status", "longhorn-snapshot");
	const struct finding *f = harness_expect(&h, VSC_RISK, STATUS_WARN);
	assert_non_null(strstr(f->message, "VM snapshots of disks on vmstate-persistence use "
					   "longhorn-snapshot (type snap, StorageProfile "
					   "spec.snapshotClass):"));
	assert_null(strstr(f->message, "harvester-longhorn"));
	assert_non_null(strstr(f->remediation,
			       SP_PATCH "vmstate-persistence --type=merge -p "
					"'{\"spec\":{\"snapshotClass\":\"longhorn\"}}'"));
	harness_clear(&h);

	/* No StorageClass gets a usable class (KubeVirt refuses): api.vsc.ambiguous says why. */
	lh_cluster(&h, false);
	cs_set_status(&h.cs, RES_STORAGEPROFILES, RES_NOT_INSTALLED, NULL);
	harness_load(&h, "storage/volumesnapshotclasses-two-longhorn.json");
	f = harness_expect(&h, VSC_RISK, STATUS_SKIP);
	assert_non_null(strstr(f->message, "api.vsc.ambiguous"));
	harness_clear(&h);

	/* Some do, some do not: the others are judged. */
	lh_cluster_vsc(&h);
	set_profile(&h, "longhorn-rwx", "status", "gone");
	f = harness_expect(&h, VSC_RISK, STATUS_PASS);
	assert_non_null(strstr(f->message, "other Longhorn StorageClasses: api.vsc.ambiguous"));
	harness_clear(&h);

	installed(&h);
	harness_load(&h, "storage/volumesnapshotclasses-snap-restore.json");
	f = harness_expect(&h, VSC_RISK, STATUS_SKIP);
	assert_non_null(strstr(f->message, "no StorageClass of provisioner driver.longhorn.io"));
	harness_clear(&h);
}

/* ---- api.snapshot.restorable ---- */

static void snap_restore_snapshot(struct harness *h)
{
	harness_load(h, "storage/volumesnapshots-snap-restore.json");
	harness_load(h, "storage/volumesnapshotcontents-snap-restore.json");
}

#define VS17_OBJ                                                                                   \
	"VolumeSnapshot/default/vmsnapshot-1924a5e9-6b3c-4d2e-8f1a-0c7b5e9d3a26-volume-disk-0"

static void test_restorable_snap_restore_fail(void **state)
{
	struct harness h;
	installed(&h);
	snap_restore_snapshot(&h);
	harness_load(&h, "storage/volumes-snap-restore.json");
	const struct finding *f = harness_expect(&h, RESTORE, STATUS_FAIL);
	assert_string_equal(f->object, VS17_OBJ);
	assert_non_null(strstr(f->message, "cannot be restored"));
	assert_non_null(
	    strstr(f->message, "pvc-5c8937fb-8e2a-4d6c-b0f1-7a4e2c9d3b58 no longer exists"));
	assert_non_null(strstr(f->message,
			       "snapshot snapshot-69ceba6a-3f1d-4c8e-9b2a-5d7e0f4c6a13 no "
			       "longer exists"));
	assert_string_equal(kv_get_str(&f->evidence, "source_vm"), "vm-e2e-final");
	assert_non_null(strstr(f->remediation, "grep vmsnapshot-content-1924a5e9-6b3c-4d2e-8f1a-"
					       "0c7b5e9d3a26"));
	harness_clear(&h);

	/* Only the Longhorn snapshot is gone. */
	installed(&h);
	snap_restore_snapshot(&h);
	harness_load(&h, "storage/volumes-snap-restore-before-gc.json");
	f = harness_expect(&h, RESTORE, STATUS_FAIL);
	assert_string_equal(kv_get_str(&f->evidence, "longhorn_volume_state"), "exists");
	assert_string_equal(kv_get_str(&f->evidence, "longhorn_snapshot_state"), "does not exist");
	harness_clear(&h);
}

static void test_restorable_pass(void **state)
{
	struct harness h;
	installed(&h);
	snap_restore_snapshot(&h);
	harness_load(&h, "storage/volumes-snap-restore-before-gc.json");
	harness_load(&h, "storage/lhsnapshots-snap-restore-before-gc.json");
	const struct finding *f = harness_expect(&h, RESTORE, STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "longhorn_snapshots_checked", &n));
	assert_int_equal(n, 1);
	harness_clear(&h);

	/* A backup handle does not need the source volume. */
	installed(&h);
	harness_add(&h, k8s_volume_snapshot("s", "c", "true"));
	harness_add(&h, k8s_snapshot_content("c", LONGHORN_CSI,
					     "{\"snapshotHandle\":\"bak://pvc-gone/"
					     "backup-0a1b2c3d4e5f6071\",\"readyToUse\":true}"));
	f = harness_expect(&h, RESTORE, STATUS_PASS);
	assert_true(kv_get_int(&f->evidence, "longhorn_backups", &n));
	assert_int_equal(n, 1);
	harness_clear(&h);
}

static void test_restorable_warn_unknown(void **state)
{
	struct harness h;
	/* The Longhorn snapshot is marked removed: gone at the next purge. */
	installed(&h);
	snap_restore_snapshot(&h);
	harness_load(&h, "storage/volumes-snap-restore-before-gc.json");
	harness_add(&h, lh_obj("Snapshot", "snapshot-69ceba6a-3f1d-4c8e-9b2a-5d7e0f4c6a13", NULL,
			       "\"spec\":{\"volume\":\"pvc-5c8937fb-8e2a-4d6c-b0f1-7a4e2c9d3b58\"},"
			       "\"status\":{\"markRemoved\":true}"));
	harness_expect(&h, RESTORE, STATUS_WARN);
	harness_clear(&h);

	/* snapshots.longhorn.io not served while the volume exists. */
	installed(&h);
	snap_restore_snapshot(&h);
	harness_load(&h, "storage/volumes-snap-restore-before-gc.json");
	cs_set_status(&h.cs, RES_LH_SNAPSHOTS, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, RESTORE, STATUS_UNKNOWN);
	harness_clear(&h);

	/* A handle that is not Longhorn's, and a content without handle. */
	installed(&h);
	harness_add(&h, k8s_volume_snapshot("s", "c", "true"));
	harness_add(&h, k8s_snapshot_content("c", LONGHORN_CSI,
					     "{\"snapshotHandle\":\"snap://only-volume\"}"));
	harness_add(&h, k8s_volume_snapshot("t", "d", "true"));
	harness_add(&h, k8s_snapshot_content("d", LONGHORN_CSI, "{\"snapshotHandle\":null}"));
	harness_add(&h, k8s_volume_snapshot("u", NULL, "true"));
	harness_run(&h, RESTORE);
	assert_int_equal(h.out.n, 3);
	for (size_t i = 0; i < h.out.n; i++)
		assert_int_equal(h.out.items[i].status, STATUS_UNKNOWN);
	harness_clear(&h);
}

static void test_restorable_fail_variants(void **state)
{
	struct harness h;
	/* The bound content is gone. */
	installed(&h);
	harness_load(&h, "storage/volumesnapshots-snap-restore.json");
	harness_expect(&h, RESTORE, STATUS_FAIL);
	assert_non_null(strstr(harness_only(&h, RESTORE)->message, "VolumeSnapshotContent"));
	harness_clear(&h);

	/* The source volume is being deleted (VolumeFailedDelete). */
	installed(&h);
	snap_restore_snapshot(&h);
	harness_load(&h, "storage/lhsnapshots-snap-restore-before-gc.json");
	harness_add(&h, lh_obj("Volume", "pvc-5c8937fb-8e2a-4d6c-b0f1-7a4e2c9d3b58",
			       "\"deletionTimestamp\":\"2026-09-06T01:26:40Z\"",
			       "\"status\":{\"state\":\"deleting\"}"));
	harness_expect(&h, RESTORE, STATUS_FAIL);
	assert_non_null(strstr(harness_only(&h, RESTORE)->message, "is being deleted"));
	harness_clear(&h);

	/* The Longhorn snapshot's deletion was requested (Longhorn UI, or kubectl delete
	 * snapshots.longhorn.io): its finalizer holds the object only until the engine
	 * has removed the data, so no restore can count on it. */
	installed(&h);
	snap_restore_snapshot(&h);
	harness_load(&h, "storage/volumes-snap-restore-before-gc.json");
	harness_add(&h, lh_obj("Snapshot", "snapshot-69ceba6a-3f1d-4c8e-9b2a-5d7e0f4c6a13",
			       "\"deletionTimestamp\":\"2026-09-06T01:20:11Z\",\"finalizers\":"
			       "[\"longhorn.io\"]",
			       "\"spec\":{\"volume\":\"pvc-5c8937fb-8e2a-4d6c-b0f1-7a4e2c9d3b58\"},"
			       "\"status\":{\"markRemoved\":false,\"readyToUse\":true}"));
	const struct finding *f = harness_expect(&h, RESTORE, STATUS_FAIL);
	assert_non_null(strstr(f->message, "snapshot snapshot-69ceba6a-3f1d-4c8e-9b2a-5d7e0f4c6a13 "
					   "is being deleted"));
	assert_string_equal(kv_get_str(&f->evidence, "longhorn_snapshot_state"), "being deleted");
	harness_clear(&h);
}

static void test_restorable_skip(void **state)
{
	struct harness h;
	installed(&h);
	harness_expect(&h, RESTORE, STATUS_SKIP);
	harness_clear(&h);

	/* Not ready (a failed snapshot), and another driver: nothing to judge. */
	installed(&h);
	harness_load(&h, "storage/volumesnapshots-snapshot-stuck-deleting.json");
	harness_add(&h, k8s_volume_snapshot("s", "c", "\"true\""));
	harness_add(
	    &h, k8s_snapshot_content("c", "hostpath.csi.k8s.io", "{\"snapshotHandle\":\"1234\"}"));
	harness_add(
	    &h, k8s_obj(K8S_SNAPSHOT, "VolumeSnapshot", "default", "n", NULL, "\"status\":null"));
	harness_expect(&h, RESTORE, STATUS_SKIP);
	harness_clear(&h);

	installed(&h);
	cs_set_status(&h.cs, RES_VS_SNAPSHOTS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_VS_CONTENTS, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, RESTORE, STATUS_SKIP);
	harness_clear(&h);
}

/* ---- api.snapshot.stuck-deletion ---- */

/* Harvester installed, the clock at AT, and the field's stuck VolumeSnapshots
 * (with their contents when CONTENTS). */
static void stuck_snapshots_at(struct harness *h, const char *at, bool contents)
{
	installed(h);
	h->now_ns = harness_at(at);
	harness_load(h, "storage/volumesnapshots-snapshot-stuck-deleting.json");
	if (contents)
		harness_load(h, "storage/volumesnapshotcontents-snapshot-stuck-deleting.json");
}

static void test_stuck_snapshot_deleting_warn(void **state)
{
	struct harness h;
	stuck_snapshots_at(&h, "2026-09-05T23:55:00Z", true);
	/* One finding: the content carries the repair, the snapshot follows it. */
	const struct finding *f = harness_expect(&h, STUCK, STATUS_WARN);
	assert_string_equal(f->object, "VolumeSnapshotContent/snapcontent-0f1e2d3c-4b5a-4697-8877-"
				       "665544332211");
	assert_non_null(strstr(f->message, "deleting for 10m36s"));
	assert_non_null(strstr(f->message, "backup target default is not available"));
	assert_string_equal(
	    kv_get_str(&f->evidence, "finalizers"),
	    "snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection");
	const char *r = f->remediation;
	const char *fix = strstr(r, "fix the cause"),
		   *patch = strstr(r, "--type=merge -p "
				      "'{\"metadata\":{\"finalizers\":null}}'");
	assert_non_null(fix);
	assert_non_null(patch);
	assert_true(fix < patch);
	assert_non_null(strstr(r, "volumesnapshotcontents.snapshot.storage.k8s.io "
				  "snapcontent-0f1e2d3c-4b5a-4697-8877-665544332211"));
	assert_non_null(strstr(r, "released by the snapshot controller"));
	harness_clear(&h);
}

static void test_stuck_recent_pass(void **state)
{
	struct harness h;
	stuck_snapshots_at(&h, "2026-09-05T23:46:00Z", true);
	const struct finding *f = harness_expect(&h, STUCK, STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "deleting_less_than_5m", &n));
	assert_int_equal(n, 2);
	harness_clear(&h);

	installed(&h);
	harness_expect(&h, STUCK, STATUS_PASS);
	harness_clear(&h);
}

static void test_stuck_snapshot_alone(void **state)
{
	struct harness h;
	/* The VolumeSnapshot is stuck but its content is gone: its own finalizer is the fix. */
	stuck_snapshots_at(&h, "2026-09-06T06:00:00Z", false);
	const struct finding *f = harness_expect(&h, STUCK, STATUS_WARN);
	assert_non_null(strstr(f->object, "VolumeSnapshot/default/"));
	assert_non_null(
	    strstr(f->remediation, "volumesnapshots.snapshot.storage.k8s.io -n default"));
	assert_string_equal(kv_get_str(&f->evidence, "content_state"), "does not exist");
	assert_string_equal(kv_get_str(&f->evidence, "holding_finalizer"),
			    "snapshot.storage.kubernetes.io/volumesnapshot-bound-protection");
	assert_non_null(strstr(f->message, "held by finalizer snapshot.storage.kubernetes.io/"
					   "volumesnapshot-bound-protection"));
	assert_non_null(strstr(f->remediation, "its content is gone"));
	harness_clear(&h);
}

/* A VolumeSnapshot deleting for an hour whose content is not being deleted: the
 * snapshot controller deletes the content (policy Delete) only once no PVC is
 * being restored from the snapshot (finalizer volumesnapshot-as-source-protection). */
#define VS_HELD                                                                                    \
	"\"creationTimestamp\":\"2026-09-05T20:00:00Z\",\"deletionTimestamp\":"                    \
	"\"2026-09-05T22:58:41.203Z\",\"finalizers\":[\"snapshot.storage.kubernetes.io/"           \
	"volumesnapshot-as-source-protection\",\"snapshot.storage.kubernetes.io/volumesnapshot-"   \
	"bound-protection\"]"

/* Harvester installed, the clock at 2026-09-06T00:00:00Z, and that snapshot with
 * its content. */
static void held_snapshot(struct harness *h)
{
	installed(h);
	h->now_ns = harness_at("2026-09-06T00:00:00Z");
	harness_add(h, k8s_obj(K8S_SNAPSHOT, "VolumeSnapshot", "default", "vs-held", VS_HELD,
			       "\"spec\":{\"source\":{\"persistentVolumeClaimName\":\"data\"},"
			       "\"volumeSnapshotClassName\":\"longhorn-snapshot\"},\"status\":{"
			       "\"boundVolumeSnapshotContentName\":\"snapcontent-held\","
			       "\"readyToUse\":true}"));
	harness_add(h, k8s_obj(K8S_SNAPSHOT, "VolumeSnapshotContent", NULL, "snapcontent-held",
			       "\"finalizers\":[\"snapshot.storage.kubernetes.io/"
			       "volumesnapshotcontent-bound-protection\"]",
			       "\"spec\":{\"deletionPolicy\":\"Delete\",\"driver\":"
			       "\"driver.longhorn.io\",\"volumeSnapshotRef\":{\"namespace\":"
			       "\"default\",\"name\":\"vs-held\"}},\"status\":{\"snapshotHandle\":"
			       "\"snap://pvc-1/snapshot-held\",\"readyToUse\":true}"));
}

static void test_stuck_snapshot_held(void **state)
{
	struct harness h;
	/* A restore from it is still pending: that PVC is what holds it. */
	held_snapshot(&h);
	harness_add(&h, k8s_pvc("default", "restore-1",
				"{\"accessModes\":[\"ReadWriteMany\"],\"volumeMode\":\"Block\","
				"\"dataSource\":{\"apiGroup\":\"snapshot.storage.k8s.io\","
				"\"kind\":\"VolumeSnapshot\",\"name\":\"vs-held\"}}",
				"{\"phase\":\"Pending\"}"));
	/* Bound restores and other namespaces do not hold it. */
	harness_add(&h, k8s_pvc("default", "restore-0",
				"{\"dataSource\":{\"apiGroup\":\"snapshot.storage.k8s.io\","
				"\"kind\":\"VolumeSnapshot\",\"name\":\"vs-held\"}}",
				"{\"phase\":\"Bound\"}"));
	harness_add(&h, k8s_pvc("other", "restore-2",
				"{\"dataSourceRef\":{\"apiGroup\":\"snapshot.storage.k8s.io\","
				"\"kind\":\"VolumeSnapshot\",\"name\":\"vs-held\"}}",
				"{\"phase\":\"Pending\"}"));
	const struct finding *f = harness_expect(&h, STUCK, STATUS_WARN);
	assert_string_equal(f->object, "VolumeSnapshot/default/vs-held");
	assert_non_null(
	    strstr(f->message, "PVC default/restore-1 is still being restored from it"));
	assert_null(strstr(f->message, "restore-0"));
	assert_null(strstr(f->message, "restore-2"));
	assert_non_null(strstr(f->remediation, "kubectl delete pvc -n default restore-1"));
	assert_string_equal(kv_get_str(&f->evidence, "content_deletion_policy"), "Delete");
	/* the finalizer that holds it, named (as-source before bound: it goes first) */
	assert_string_equal(kv_get_str(&f->evidence, "holding_finalizer"),
			    "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection");
	assert_non_null(strstr(f->message, "held by finalizer snapshot.storage.kubernetes.io/"
					   "volumesnapshot-as-source-protection"));
	assert_non_null(strstr(f->remediation, "once that restore PVC is Bound or deleted"));
	harness_clear(&h);

	/* Nothing restores from it: the snapshot controller is not doing its part; the
	 * as-source finalizer is orphaned (its restore PVC was deleted). */
	held_snapshot(&h);
	f = harness_expect(&h, STUCK, STATUS_WARN);
	assert_non_null(strstr(f->message, "no PVC is being restored from it"));
	assert_non_null(strstr(f->remediation, "snapshot-controller"));
	assert_non_null(strstr(f->message, "volumesnapshot-as-source-protection"));
	assert_non_null(strstr(f->remediation, "orphaned"));
	harness_clear(&h);

	/* PVCs not collected: which one holds it is unknown, and said so. */
	held_snapshot(&h);
	cs_set_status(&h.cs, RES_PVCS, RES_FORBIDDEN, "403");
	f = harness_expect(&h, STUCK, STATUS_WARN);
	assert_non_null(strstr(f->message, "PersistentVolumeClaims were not collected"));
	harness_clear(&h);
}

static void test_stuck_bad_input(void **state)
{
	struct harness h;
	installed(&h);
	harness_add(&h,
		    k8s_obj(K8S_SNAPSHOT, "VolumeSnapshotContent", NULL, "c",
			    "\"deletionTimestamp\":\"yesterday\",\"finalizers\":[\"x\"]", NULL));
	/* Deleting without finalizers: the API server removes it, nothing holds it. */
	harness_add(&h,
		    k8s_obj(K8S_SNAPSHOT, "VolumeSnapshot", "a", "s",
			    "\"deletionTimestamp\":\"2026-09-01T00:00:00Z\",\"finalizers\":null",
			    NULL));
	harness_expect(&h, STUCK, STATUS_UNKNOWN);
	harness_clear(&h);

	installed(&h);
	cs_set_status(&h.cs, RES_VS_SNAPSHOTS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_VS_CONTENTS, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, STUCK, STATUS_SKIP);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vsc_longhorn_pass_and_skip),
	    cmocka_unit_test(test_vsc_longhorn_missing_fail),
	    cmocka_unit_test(test_vsc_longhorn_wrong_driver_or_type),
	    cmocka_unit_test(test_vsc_ambiguous_two_longhorn_warn),
	    cmocka_unit_test(test_vsc_ambiguous_per_storageclass),
	    cmocka_unit_test(test_vsc_ambiguous_profile_names_missing_or_foreign),
	    cmocka_unit_test(test_vsc_ambiguous_kubevirt_rule),
	    cmocka_unit_test(test_vsc_ambiguous_stock_harvester),
	    cmocka_unit_test(test_vsc_ambiguous_default_annotation_wins),
	    cmocka_unit_test(test_vsc_ambiguous_pass_skip),
	    cmocka_unit_test(test_backup_target_two_longhorn_fail),
	    cmocka_unit_test(test_backup_target_available_pass),
	    cmocka_unit_test(test_backup_target_old_longhorn),
	    cmocka_unit_test(test_backup_target_old_longhorn_setting_decides),
	    cmocka_unit_test(test_backup_target_empty_url_stale_available),
	    cmocka_unit_test(test_backup_target_unknown_skip),
	    cmocka_unit_test(test_backup_target_other_targets),
	    cmocka_unit_test(test_backup_target_users_not_collected),
	    cmocka_unit_test(test_snap_restore_risk),
	    cmocka_unit_test(test_snap_restore_risk_per_storageclass),
	    cmocka_unit_test(test_restorable_snap_restore_fail),
	    cmocka_unit_test(test_restorable_pass),
	    cmocka_unit_test(test_restorable_warn_unknown),
	    cmocka_unit_test(test_restorable_fail_variants),
	    cmocka_unit_test(test_restorable_skip),
	    cmocka_unit_test(test_stuck_snapshot_deleting_warn),
	    cmocka_unit_test(test_stuck_recent_pass),
	    cmocka_unit_test(test_stuck_snapshot_alone),
	    cmocka_unit_test(test_stuck_snapshot_held),
	    cmocka_unit_test(test_stuck_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
