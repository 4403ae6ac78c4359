/* VolumeSnapshotClass resolution (aggregator/vsc_resolve.c) on its own: the class
 * type Longhorn derives, and which class each Longhorn StorageClass's VM disks
 * get, by the StorageProfile, KubeVirt's rule or CDI's (emulated). */
#include "agg_harness.h"
#include "longhorn.h"
#include "vsc_resolve.h"

static void add_class(struct harness *h, const char *name, const char *driver, const char *type,
		      const char *ann)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"snapshot.storage.k8s.io/v1\",\"kind\":\"VolumeSnapshotClass\","
		 "\"metadata\":{\"name\":\"%s\"%s%s%s},\"driver\":\"%s\","
		 "\"deletionPolicy\":\"Delete\"%s%s%s}",
		 name, ann ? ",\"annotations\":{" : "", ann ? ann : "", ann ? "}" : "", driver,
		 type ? ",\"parameters\":{\"type\":" : "", type ? type : "", type ? "}" : "");
	harness_add(h, buf);
}

static void add_sc(struct harness *h, const char *name, const char *provisioner)
{
	char buf[512];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\","
		 "\"metadata\":{\"name\":\"%s\"},\"provisioner\":\"%s\"}",
		 name, provisioner);
	harness_add(h, buf);
}

static void add_profile(struct harness *h, const char *name, const char *status_class)
{
	char buf[512];
	snprintf(
	    buf, sizeof(buf),
	    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"StorageProfile\","
	    "\"metadata\":{\"name\":\"%s\"},\"spec\":{},\"status\":{\"snapshotClass\":\"%s\"}}",
	    name, status_class);
	harness_add(h, buf);
}

static void test_type(void **state)
{
	struct harness h;
	harness_init(&h);
	add_class(&h, "a-absent", LONGHORN_DRIVER, NULL, NULL);
	add_class(&h, "b-bs", LONGHORN_DRIVER, "\"bs\"", NULL);
	add_class(&h, "c-snap", LONGHORN_DRIVER, "\"snap\"", NULL);
	add_class(&h, "d-bad", LONGHORN_DRIVER, "\"backup\"", NULL);
	add_class(&h, "e-num", LONGHORN_DRIVER, "3", NULL);
	add_class(&h, "f-other", "other.csi.io", NULL, NULL);
	struct vsc *v = NULL;
	size_t n = vsc_longhorn_classes(&h.cs, &v);
	assert_int_equal(n, 5); /* the other driver's class is not Longhorn's */
	assert_string_equal(v[0].name, "a-absent");
	assert_string_equal(vsc_type_desc(&v[0]), "bak");
	assert_null(v[0].raw);
	assert_string_equal(vsc_type_desc(&v[1]), "bak");
	assert_string_equal(v[1].raw, "bs");
	assert_string_equal(vsc_type_desc(&v[2]), "snap");
	assert_string_equal(vsc_type_desc(&v[3]), "invalid");
	assert_string_equal(vsc_type_desc(&v[4]), "invalid");
	free(v);
	harness_clear(&h);
}

/* Two Longhorn classes, none annotated: KubeVirt cannot decide (its VM snapshots fail),
 * CDI's emulated rule takes the first by name; the default annotation decides both. */
static void test_rules(void **state)
{
	struct harness h;
	struct vsc_view w;
	harness_init(&h);
	cs_set_status(&h.cs, RES_STORAGEPROFILES, RES_NOT_INSTALLED, NULL);
	add_sc(&h, "lh", LONGHORN_DRIVER);
	add_sc(&h, "local", "rancher.io/local-path");
	add_class(&h, "longhorn-snapshot", LONGHORN_DRIVER, "\"snap\"", NULL);
	add_class(&h, "longhorn", LONGHORN_DRIVER, NULL, NULL);
	vsc_view_build(&h.cs, &w);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.np, 1);
	assert_string_equal(w.p[0].sc, "lh");
	assert_int_equal(w.p[0].from, FROM_KUBEVIRT);
	assert_int_equal(w.p[0].result, PICK_UNDECIDED);
	assert_null(w.p[0].name);
	assert_int_equal(w.n_broken, 1);
	vsc_view_free(&w);

	cs_set_status(&h.cs, RES_STORAGEPROFILES, RES_FORBIDDEN, NULL);
	vsc_view_build(&h.cs, &w);
	assert_int_equal(w.p[0].from, FROM_EMULATED);
	assert_int_equal(w.p[0].result, PICK_OK);
	assert_string_equal(w.p[0].name, "longhorn");
	assert_string_equal(w.p[0].why, "first by name");
	vsc_view_free(&w);
	harness_clear(&h);

	harness_init(&h);
	cs_set_status(&h.cs, RES_STORAGEPROFILES, RES_NOT_INSTALLED, NULL);
	add_sc(&h, "lh", LONGHORN_DRIVER);
	add_class(&h, "longhorn", LONGHORN_DRIVER, NULL, NULL);
	add_class(&h, "longhorn-snapshot", LONGHORN_DRIVER, "\"snap\"",
		  "\"" ANN_VSC_DEFAULT "\":\"false\"");
	vsc_view_build(&h.cs, &w);
	assert_int_equal(w.p[0].result, PICK_OK); /* KubeVirt tests the key only */
	assert_string_equal(w.p[0].name, "longhorn-snapshot");
	vsc_view_free(&w);
	harness_clear(&h);
}

/* A StorageProfile's status.snapshotClass is what KubeVirt takes: missing or another
 * driver's class is named as such. */
static void test_profile(void **state)
{
	struct harness h;
	struct vsc_view w;
	harness_init(&h);
	add_sc(&h, "a", LONGHORN_DRIVER);
	add_sc(&h, "b", LONGHORN_DRIVER);
	add_sc(&h, "c", LONGHORN_DRIVER);
	add_class(&h, "longhorn", LONGHORN_DRIVER, NULL, NULL);
	add_class(&h, "foreign", "other.csi.io", NULL, NULL);
	add_profile(&h, "a", "longhorn");
	add_profile(&h, "b", "gone");
	add_profile(&h, "c", "foreign");
	vsc_view_build(&h.cs, &w);
	assert_true(w.profiles_collected);
	assert_int_equal(w.np, 3);
	assert_int_equal(w.p[0].from, FROM_PROFILE);
	assert_int_equal(w.p[0].result, PICK_OK);
	assert_string_equal(w.p[0].vsc->name, "longhorn");
	assert_int_equal(w.p[1].result, PICK_MISSING);
	assert_string_equal(w.p[1].name, "gone");
	assert_int_equal(w.p[2].result, PICK_FOREIGN);
	assert_string_equal(w.p[2].driver, "other.csi.io");
	assert_int_equal(w.n_ok, 1);
	assert_int_equal(w.n_broken, 2);
	vsc_view_free(&w);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_type),
	    cmocka_unit_test(test_rules),
	    cmocka_unit_test(test_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
