/* api.storageclass.default, api.pvc.rwx-class-mismatch, api.dns.replicas on
 * fixtures modelled on a Harvester v1.8.2-on-RKE2 cluster as seen in the field. */
#include "agg_harness.h"
#include "fixtures_k8s.h"

#define SC_DEFAULT "api.storageclass.default"
#define PVC_RWX	   "api.pvc.rwx-class-mismatch"
#define DNS	   "api.dns.replicas"

/* ---- api.storageclass.default ---- */

static void test_sc_default_harvester_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/deployments-harvester.json");
	harness_load(&h, "storage/storageclasses-harvester.json");
	const struct finding *f = harness_expect(&h, SC_DEFAULT, STATUS_PASS);
	assert_true(harness_list_has(f, "default_classes",
				     "harvester-longhorn (provisioner driver.longhorn.io"));
	bool installed = false;
	assert_true(kv_get_bool(&f->evidence, "harvester_installed", &installed));
	assert_true(installed);
	harness_clear(&h);
}

static void test_sc_default_double_fail(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/deployments-harvester.json");
	harness_load(&h, "storage/storageclasses-double-default.json");
	const struct finding *f = harness_expect(&h, SC_DEFAULT, STATUS_FAIL);
	assert_non_null(
	    strstr(f->message, "2 default StorageClasses (harvester-longhorn, longhorn)"));
	assert_non_null(strstr(f->remediation, "kubectl annotate sc longhorn "
					       "storageclass.kubernetes.io/is-default-class-"));
	assert_non_null(strstr(f->remediation, "kubectl annotate sc harvester-longhorn "
					       "storageclass.kubernetes.io/is-default-class=true "
					       "--overwrite"));
	assert_null(strstr(f->remediation, "sc harvester-longhorn storageclass.kubernetes.io/"
					   "is-default-class-"));
	assert_non_null(strstr(f->remediation, "longhorn.persistence.defaultClass=false"));
	harness_clear(&h);
}

static void test_sc_default_none_fail(void **state)
{
	struct harness h;
	/* Post-install: the on-site fix re-annotates harvester-longhorn. */
	harness_init(&h);
	harness_load(&h, "storage/deployments-harvester.json");
	harness_add(&h, k8s_storage_class("harvester-longhorn", NULL, "driver.longhorn.io"));
	const struct finding *f = harness_expect(&h, SC_DEFAULT, STATUS_FAIL);
	assert_non_null(strstr(f->message, "no default StorageClass among 1"));
	assert_non_null(strstr(f->remediation, "kubectl annotate sc harvester-longhorn"));
	harness_clear(&h);

	/* Pre-install on plain RKE2, no class at all: the normal state, Harvester's
	 * chart creates harvester-longhorn as the default. */
	harness_init(&h);
	harness_preinstall(&h);
	harness_load(&h, "storage/deployments-rke2-preinstall.json");
	f = harness_expect(&h, SC_DEFAULT, STATUS_PASS);
	assert_non_null(strstr(f->message, "its chart creates harvester-longhorn as the default"));
	harness_clear(&h);

	/* Classes, none default, none Longhorn's: still what the chart fixes. */
	harness_init(&h);
	harness_preinstall(&h);
	harness_add(&h, k8s_storage_class("nfs-client", NULL, "cluster.local/nfs-provisioner"));
	harness_expect(&h, SC_DEFAULT, STATUS_PASS);
	harness_clear(&h);

	/* KubeVirt + Longhorn without Harvester, Longhorn's class not default. */
	harness_init(&h);
	harness_preinstall(&h);
	harness_add(&h, k8s_storage_class("longhorn", NULL, "driver.longhorn.io"));
	f = harness_expect(&h, SC_DEFAULT, STATUS_WARN);
	assert_non_null(strstr(f->message, "Longhorn's class longhorn exists without Harvester"));
	assert_non_null(strstr(f->remediation, "kubectl annotate sc longhorn"));
	harness_clear(&h);
}

/* Several defaults before the install: WARN (nothing is lost yet, but the
 * chart's result is unpredictable); after it: FAIL (test above). */
static void test_sc_default_preinstall_several_warn(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_preinstall(&h);
	harness_load(&h, "storage/deployments-rke2-preinstall.json");
	harness_add(&h,
		    k8s_storage_class("local-path",
				      "{\"storageclass.kubernetes.io/is-default-class\":\"true\"}",
				      "rancher.io/local-path"));
	harness_add(&h,
		    k8s_storage_class("nfs-client",
				      "{\"storageclass.kubernetes.io/is-default-class\":\"true\"}",
				      "cluster.local/nfs-provisioner"));
	const struct finding *f = harness_expect(&h, SC_DEFAULT, STATUS_WARN);
	assert_non_null(strstr(f->message, "2 default StorageClasses (local-path, nfs-client) "
					   "before Harvester's install"));
	assert_non_null(strstr(f->remediation, "kubectl annotate sc local-path "
					       "storageclass.kubernetes.io/is-default-class-"));
	harness_clear(&h);
}

static void test_sc_default_preinstall_existing_warn(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_preinstall(&h);
	harness_load(&h, "storage/deployments-rke2-preinstall.json");
	harness_load(&h, "storage/storageclasses-rke2-local-path.json");
	const struct finding *f = harness_expect(&h, SC_DEFAULT, STATUS_WARN);
	assert_non_null(strstr(f->message, "local-path (provisioner rancher.io/local-path)"));
	assert_non_null(strstr(f->remediation, "longhorn.persistence.defaultClass=false"));
	assert_non_null(strstr(f->remediation, "kubectl annotate sc local-path "
					       "storageclass.kubernetes.io/is-default-class-"));
	bool installed = true;
	assert_true(kv_get_bool(&f->evidence, "harvester_installed", &installed));
	assert_false(installed);
	harness_clear(&h);
}

static void test_sc_default_postinstall_other_warn(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/deployments-harvester.json");
	harness_load(&h, "storage/storageclasses-rke2-local-path.json");
	harness_add(&h, k8s_storage_class("harvester-longhorn", NULL, "driver.longhorn.io"));
	const struct finding *f = harness_expect(&h, SC_DEFAULT, STATUS_WARN);
	assert_non_null(strstr(f->message, "the default StorageClass is local-path"));
	assert_null(strstr(f->message, "does not exist"));
	assert_non_null(strstr(f->remediation, "kubectl annotate sc local-path"));
	harness_clear(&h);
}

static void test_sc_default_beta_and_near_miss(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/deployments-harvester.json");
	/* The beta annotation counts; "True" does not (Kubernetes compares with "true"). */
	harness_add(
	    &h, k8s_storage_class("harvester-longhorn",
				  "{\"storageclass.beta.kubernetes.io/is-default-class\":\"true\"}",
				  "driver.longhorn.io"));
	harness_add(&h,
		    k8s_storage_class("nfs-client",
				      "{\"storageclass.kubernetes.io/is-default-class\":\"True\"}",
				      "cluster.local/nfs-subdir-external-provisioner"));
	const struct finding *f = harness_expect(&h, SC_DEFAULT, STATUS_PASS);
	assert_true(harness_list_has(f, "default_classes", "storageclass.beta.kubernetes.io"));
	assert_true(harness_list_has(f, "ignored_default_annotations", "nfs-client"));
	harness_clear(&h);
}

static void test_sc_default_bad_input(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/deployments-harvester.json");
	/* annotations of the wrong type, no name, no provisioner, numbers for strings */
	harness_add(&h, "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\","
			"\"metadata\":{\"annotations\":[\"x\"]}}");
	harness_add(&h, "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\","
			"\"metadata\":{\"name\":7,\"annotations\":{\"storageclass.kubernetes.io/"
			"is-default-class\":true}},\"provisioner\":null}");
	harness_add(
	    &h,
	    k8s_obj(K8S_STORAGE, "StorageClass", NULL, "x",
		    "\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":\"true\"}",
		    NULL));
	const struct finding *f = harness_expect(&h, SC_DEFAULT, STATUS_WARN);
	assert_true(harness_list_has(f, "default_classes", "x (provisioner (absent)"));
	harness_clear(&h);
}

/* ---- api.pvc.rwx-class-mismatch ---- */

static void test_pvc_filesystem_on_migratable_fail(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_load(&h, "storage/pvcs-rwx-fs.json");
	const struct finding *f = harness_expect(&h, PVC_RWX, STATUS_FAIL);
	assert_string_equal(f->object, "PersistentVolumeClaim/default/vm-migrate-test-disk-0");
	assert_non_null(strstr(f->message, "no NFS share-manager"));
	assert_string_equal(kv_get_str(&f->evidence, "volume_mode"), "Filesystem");
	assert_string_equal(kv_get_str(&f->evidence, "migratable"), "true");
	assert_string_equal(kv_get_str(&f->evidence, "storage_class"), "harvester-longhorn");
	assert_non_null(strstr(f->remediation, "migratable"));
	harness_clear(&h);
}

static void test_pvc_healthy_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_load(&h, "storage/pvcs-healthy.json");
	const struct finding *f = harness_expect(&h, PVC_RWX, STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "rwx_on_longhorn", &n));
	assert_int_equal(n, 2);
	harness_clear(&h);
}

static void test_pvc_block_on_nonmigratable_fail(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_add(&h, k8s_pvc("vms", "vm1-disk-0",
				"{\"accessModes\":[\"ReadWriteMany\"],\"volumeMode\":\"Block\","
				"\"storageClassName\":\"longhorn-rwx\"}",
				"{\"phase\":\"Bound\"}"));
	const struct finding *f = harness_expect(&h, PVC_RWX, STATUS_FAIL);
	assert_string_equal(f->object, "PersistentVolumeClaim/vms/vm1-disk-0");
	assert_non_null(strstr(f->message, "live-migration form"));
	harness_clear(&h);
}

static void test_pvc_default_class_and_skip(void **state)
{
	struct harness h;
	/* No storageClassName: the default class (harvester-longhorn, migratable) decides. */
	harness_init(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_add(&h, k8s_pvc("default", "data", "{\"accessModes\":[\"ReadWriteMany\"]}", NULL));
	const struct finding *f = harness_expect(&h, PVC_RWX, STATUS_FAIL);
	assert_non_null(strstr(kv_get_str(&f->evidence, "storage_class_from"), "default"));
	assert_string_equal(kv_get_str(&f->evidence, "volume_mode"), "(absent: Filesystem)");
	harness_clear(&h);

	/* Only RWO PVCs: nothing to judge. */
	harness_init(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_add(
	    &h,
	    k8s_pvc(
		"default", "data",
		"{\"accessModes\":[\"ReadWriteOnce\"],\"storageClassName\":\"harvester-longhorn\"}",
		NULL));
	harness_expect(&h, PVC_RWX, STATUS_SKIP);
	harness_clear(&h);
}

static void test_pvc_unknown_and_other_drivers(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_add(&h, k8s_storage_class("nfs-client", NULL,
					  "cluster.local/nfs-subdir-external-provisioner"));
	harness_add(
	    &h,
	    k8s_obj(
		K8S_STORAGE, "StorageClass", NULL, "lh-typo", NULL,
		"\"provisioner\":\"driver.longhorn.io\",\"parameters\":{\"migratable\":\"yes\"}"));
	harness_add(
	    &h, k8s_pvc("a", "nfs",
			"{\"accessModes\":[\"ReadWriteMany\"],\"storageClassName\":\"nfs-client\"}",
			NULL));
	harness_add(&h, k8s_pvc("a", "gone",
				"{\"accessModes\":[\"ReadWriteMany\"],\"storageClassName\":"
				"\"deleted-class\",\"volumeName\":\"pv-1\"}",
				NULL));
	harness_add(
	    &h, k8s_pvc("a", "typo",
			"{\"accessModes\":[\"ReadWriteMany\"],\"storageClassName\":\"lh-typo\"}",
			NULL));
	harness_run(&h, PVC_RWX);
	assert_int_equal(h.out.n, 2);
	assert_int_equal(harness_finding(&h, PVC_RWX, "PersistentVolumeClaim/a/gone")->status,
			 STATUS_UNKNOWN);
	assert_int_equal(harness_finding(&h, PVC_RWX, "PersistentVolumeClaim/a/typo")->status,
			 STATUS_UNKNOWN);
	harness_clear(&h);
}

static void test_pvc_bad_input(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/storageclasses-harvester.json");
	harness_add(&h, k8s_pvc("x", "a", "{\"accessModes\":null}", NULL));
	harness_add(&h, k8s_pvc("x", "b", "{\"accessModes\":[1,2,null]}", NULL));
	harness_add(
	    &h,
	    k8s_pvc(
		"x", "c",
		"{\"accessModes\":[\"ReadWriteMany\"],\"storageClassName\":42,\"volumeMode\":7}",
		NULL));
	harness_add(&h, k8s_pvc("x", "d",
				"{\"accessModes\":[\"ReadWriteMany\"],\"storageClassName\":\"\"}",
				NULL));
	harness_add(&h, k8s_pvc("x", "e",
				"{\"accessModes\":[\"ReadWriteMany\"],\"storageClassName\":"
				"\"longhorn-rwx\",\"volumeMode\":\"Raw\"}",
				NULL));
	harness_add(&h,
		    "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{}}");
	harness_run(&h, PVC_RWX);
	/* c: a non-string class falls back to the default (harvester-longhorn), volumeMode 7 is not
	 * a string, so Filesystem: FAIL; e: an impossible volume mode: UNKNOWN; d: class "" skipped. */
	assert_int_equal(h.out.n, 2);
	assert_int_equal(harness_finding(&h, PVC_RWX, "PersistentVolumeClaim/x/c")->status,
			 STATUS_FAIL);
	assert_int_equal(harness_finding(&h, PVC_RWX, "PersistentVolumeClaim/x/e")->status,
			 STATUS_UNKNOWN);
	harness_clear(&h);
}

static void test_pvc_not_collected(void **state)
{
	struct harness h;
	harness_init(&h);
	cs_set_status(&h.cs, RES_PVCS, RES_FORBIDDEN, "403");
	harness_expect(&h, PVC_RWX, STATUS_UNKNOWN);
	harness_clear(&h);
}

/* ---- api.dns.replicas ---- */

static const char *coredns(int ready_field, const char *ready_json)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
		 "\"rke2-coredns-rke2-coredns\",\"namespace\":\"kube-system\",\"labels\":"
		 "{\"k8s-app\":\"kube-dns\"}},\"spec\":{\"replicas\":2},\"status\":{\"replicas\":2%"
		 "s%s}}",
		 ready_field ? ",\"readyReplicas\":" : "", ready_field ? ready_json : "");
	return buf;
}

static void test_dns_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/deployments-harvester.json");
	const struct finding *f = harness_expect(&h, DNS, STATUS_PASS);
	assert_string_equal(f->object, "Deployment/kube-system/rke2-coredns-rke2-coredns");
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "ready_replicas", &n));
	assert_int_equal(n, 2);
	harness_clear(&h);

	/* A string count is still a count. */
	harness_init(&h);
	harness_add(&h, coredns(1, "\"2\""));
	harness_expect(&h, DNS, STATUS_PASS);
	harness_clear(&h);
}

static void test_dns_one_warn(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h, coredns(1, "1"));
	const struct finding *f = harness_expect(&h, DNS, STATUS_WARN);
	assert_non_null(strstr(f->remediation, "autoscaler.min: 2"));
	harness_clear(&h);

	harness_init(&h);
	harness_add(&h, k8s_obj("apps/v1", "Deployment", "kube-system", "coredns", NULL,
				"\"spec\":{\"replicas\":1},\"status\":{\"readyReplicas\":1}"));
	f = harness_expect(&h, DNS, STATUS_WARN);
	assert_non_null(strstr(f->remediation, "scale deployment coredns --replicas=2"));
	harness_clear(&h);
}

static void test_dns_fail(void **state)
{
	struct harness h;
	/* readyReplicas is omitted when 0. */
	harness_init(&h);
	harness_add(&h, coredns(0, NULL));
	const struct finding *f = harness_expect(&h, DNS, STATUS_FAIL);
	assert_non_null(strstr(f->remediation, "describe deployment rke2-coredns-rke2-coredns"));
	harness_clear(&h);

	/* No CoreDNS at all; the autoscaler's label must not match. */
	harness_init(&h);
	harness_add(&h, k8s_obj("apps/v1", "Deployment", "kube-system",
				"rke2-coredns-rke2-coredns-autoscaler",
				"\"labels\":{\"k8s-app\":\"kube-dns-autoscaler\"}",
				"\"status\":{\"readyReplicas\":1}"));
	harness_add(&h, k8s_obj("apps/v1", "Deployment", "default", "coredns", NULL,
				"\"status\":{\"readyReplicas\":3}"));
	f = harness_expect(&h, DNS, STATUS_FAIL);
	assert_null(f->object);
	harness_clear(&h);
}

static void test_dns_unknown(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h, k8s_obj("apps/v1", "Deployment", "kube-system", "coredns", NULL, NULL));
	harness_expect(&h, DNS, STATUS_UNKNOWN);
	harness_clear(&h);

	harness_init(&h);
	harness_add(&h, coredns(1, "\"two\""));
	harness_expect(&h, DNS, STATUS_UNKNOWN);
	harness_clear(&h);

	harness_init(&h);
	harness_add(&h, k8s_obj("apps/v1", "Deployment", "kube-system", "coredns", NULL,
				"\"status\":null"));
	harness_expect(&h, DNS, STATUS_UNKNOWN);
	harness_clear(&h);

	harness_init(&h);
	cs_set_status(&h.cs, RES_DEPLOYMENTS, RES_NOT_COLLECTED, NULL);
	harness_expect(&h, DNS, STATUS_UNKNOWN);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sc_default_harvester_pass),
	    cmocka_unit_test(test_sc_default_double_fail),
	    cmocka_unit_test(test_sc_default_none_fail),
	    cmocka_unit_test(test_sc_default_preinstall_several_warn),
	    cmocka_unit_test(test_sc_default_preinstall_existing_warn),
	    cmocka_unit_test(test_sc_default_postinstall_other_warn),
	    cmocka_unit_test(test_sc_default_beta_and_near_miss),
	    cmocka_unit_test(test_sc_default_bad_input),
	    cmocka_unit_test(test_pvc_filesystem_on_migratable_fail),
	    cmocka_unit_test(test_pvc_healthy_pass),
	    cmocka_unit_test(test_pvc_block_on_nonmigratable_fail),
	    cmocka_unit_test(test_pvc_default_class_and_skip),
	    cmocka_unit_test(test_pvc_unknown_and_other_drivers),
	    cmocka_unit_test(test_pvc_bad_input),
	    cmocka_unit_test(test_pvc_not_collected),
	    cmocka_unit_test(test_dns_pass),
	    cmocka_unit_test(test_dns_one_warn),
	    cmocka_unit_test(test_dns_fail),
	    cmocka_unit_test(test_dns_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
