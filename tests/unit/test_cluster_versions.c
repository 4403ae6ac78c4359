/* cluster_versions: the versions read from the objects, the support-matrix
 * notes, versions_note() and the JSON "versions" object. */
#include "agg_harness.h"

#include "cluster_versions.h"
#include "verdict_oracle.h" /* cluster_versions_json() */

static void add(struct harness *h, const char *json)
{
	json_object *o = json_tokener_parse(json);
	assert_non_null(o);
	harness_add_json(h, o);
	json_object_put(o);
}

static void node(struct harness *h, const char *name, const char *kubelet, const char *runtime,
		 const char *os)
{
	_cleanup_free_ char *j =
	    xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\"},"
		      "\"status\":{\"nodeInfo\":{\"kubeletVersion\":\"%s\","
		      "\"containerRuntimeVersion\":\"%s\",\"osImage\":\"%s\"}}}",
		      name, kubelet, runtime, os);
	add(h, j);
}

static void kubevirt(struct harness *h, const char *observed)
{
	_cleanup_free_ char *j =
	    xasprintf("{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
		      "{\"name\":\"kubevirt\",\"namespace\":\"kubevirt\"},\"status\":"
		      "{\"observedKubeVirtVersion\":\"%s\",\"operatorVersion\":\"v9.9.9\"}}",
		      observed);
	add(h, j);
}

static void test_in_matrix(void **state)
{
	struct harness h;
	harness_init(&h);
	kubevirt(&h, "1.7.4-150700.3.24.2");
	add(&h,
	    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"CDI\",\"metadata\":{\"name\":"
	    "\"cdi\"},\"status\":{\"observedVersion\":\"v1.64.0\"}}");
	add(&h,
	    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Setting\",\"metadata\":{\"name\":"
	    "\"current-longhorn-version\",\"namespace\":\"longhorn-system\"},\"value\":"
	    "\"v1.9.2\"}");
	/* Harvester keeps the version in value; an empty value falls back to default. */
	add(&h, "{\"apiVersion\":\"harvesterhci.io/v1beta1\",\"kind\":\"Setting\",\"metadata\":"
		"{\"name\":\"server-version\"},\"value\":\"\",\"default\":\"v1.6.1\"}");
	node(&h, "n1", "v1.33.5+rke2r1", "containerd://2.0.5-k3s1", "Harvester v1.6.1");
	node(&h, "n2", "v1.33.5+rke2r1", "containerd://2.0.5-k3s1", "Harvester v1.6.1");
	struct cluster_versions v;
	cluster_versions_detect(&h.cs, &v);
	assert_string_equal(v.c[VC_KUBEVIRT].version, "1.7.4-150700.3.24.2");
	assert_string_equal(v.c[VC_CDI].version, "v1.64.0");
	assert_string_equal(v.c[VC_LONGHORN].version, "v1.9.2");
	assert_string_equal(v.c[VC_LONGHORN].from, "settings.longhorn.io current-longhorn-version");
	assert_string_equal(v.c[VC_HARVESTER].version, "v1.6.1");
	assert_string_equal(v.c[VC_KUBERNETES].version, "v1.33.5+rke2r1");
	assert_string_equal(v.c[VC_CONTAINERD].version, "2.0.5-k3s1");
	assert_int_equal(v.n_nodes, 2);
	assert_string_equal(v.nodes[0].distribution, "rke2");
	for (int c = 0; c < _VC_MAX; c++)
		assert_null(v.c[c].note);
	_cleanup_free_ char *line = cluster_versions_line(&v);
	assert_string_equal(line, "Harvester v1.6.1, KubeVirt 1.7.4-150700.3.24.2, CDI v1.64.0, "
				  "Longhorn v1.9.2, Kubernetes v1.33.5+rke2r1, containerd "
				  "2.0.5-k3s1; node OS Harvester v1.6.1");
	struct kv_list ev = {0};
	versions_note(&ev, &h.cs, VC_KUBEVIRT);
	assert_int_equal(ev.n, 0);
	kv_list_clear(&ev);
	cluster_versions_clear(&v);
	harness_clear(&h);
}

static void test_out_of_matrix(void **state)
{
	struct harness h;
	harness_init(&h);
	kubevirt(&h, "v1.10.0");
	/* No setting: the longhorn-manager image tag, digest and all. */
	add(&h, "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":"
		"\"longhorn-manager\",\"namespace\":\"longhorn-system\"},\"spec\":{\"template\":"
		"{\"spec\":{\"containers\":[{\"name\":\"longhorn-manager\",\"image\":"
		"\"longhornio/longhorn-manager:v1.5.3@sha256:"
		"1282c564f896ff7c69a6e7b8fa84b63b7e5deab7852ee65e3252bbf134ed9348\"}]}}}}");
	node(&h, "a", "v1.34.1+k3s1", "containerd://1.6.9", "Ubuntu 24.04.3 LTS");
	node(&h, "b", "v1.28.2+k3s1", "cri-o://1.30.0", "Rocky Linux 9.6 (Blue Onyx)");
	struct cluster_versions v;
	cluster_versions_detect(&h.cs, &v);
	assert_string_equal(v.c[VC_KUBEVIRT].note, "KubeVirt v1.10.0 is newer than the support "
						   "matrix (v1.2–v1.9): rules of v1.9 apply");
	assert_string_equal(v.c[VC_LONGHORN].version, "v1.5.3");
	assert_string_equal(v.c[VC_LONGHORN].from, "DaemonSet longhorn-manager image tag");
	assert_string_equal(v.c[VC_LONGHORN].note, "Longhorn v1.5.3 is older than the support "
						   "matrix (v1.6–v1.11): rules of v1.6 apply");
	/* Each node on its own: the older one is out of the matrix. */
	assert_string_equal(v.c[VC_KUBERNETES].version, "v1.34.1+k3s1, v1.28.2+k3s1");
	assert_non_null(strstr(v.c[VC_KUBERNETES].note, "v1.28.2+k3s1 is older"));
	/* CRI-O is not containerd: only the containerd node counts. */
	assert_string_equal(v.c[VC_CONTAINERD].version, "1.6.9");
	assert_non_null(strstr(v.c[VC_CONTAINERD].note, "rules of 1.7 apply"));
	assert_string_equal(v.nodes[1].runtime, "cri-o://1.30.0");
	assert_string_equal(v.nodes[1].distribution, "k3s");
	assert_null(v.c[VC_HARVESTER].version);
	assert_null(v.c[VC_CDI].version);

	json_object *j = cluster_versions_json(&v);
	json_object *kvo = json_object_object_get(j, "kubevirt");
	assert_false(json_object_get_boolean(json_object_object_get(kvo, "in_matrix")));
	assert_string_equal(json_object_get_string(json_object_object_get(kvo, "note")),
			    v.c[VC_KUBEVIRT].note);
	json_object *hv = json_object_object_get(j, "harvester");
	assert_true(json_object_object_get_ex(hv, "version", NULL));
	assert_null(json_object_object_get(hv, "version"));
	assert_int_equal(json_object_array_length(json_object_object_get(j, "nodes")), 2);
	json_object_put(j);

	struct kv_list ev = {0};
	versions_note(&ev, &h.cs, VC_KUBEVIRT);
	assert_int_equal(ev.n, 1);
	assert_string_equal(ev.items[0].key, "version_note");
	kv_list_clear(&ev);
	cluster_versions_clear(&v);
	harness_clear(&h);
}

static void test_nothing_found(void **state)
{
	struct harness h;
	harness_init(&h);
	/* Unparsable versions are shown as found but judged by no range. */
	kubevirt(&h, "devel");
	struct cluster_versions v;
	cluster_versions_detect(&h.cs, &v);
	assert_string_equal(v.c[VC_KUBEVIRT].version, "devel");
	assert_null(v.c[VC_KUBEVIRT].note);
	assert_null(v.c[VC_LONGHORN].version);
	cluster_versions_clear(&v);
	harness_clear(&h);

	harness_init(&h);
	cluster_versions_detect(&h.cs, &v);
	assert_null(cluster_versions_line(&v));
	assert_int_equal(v.n_nodes, 0);
	cluster_versions_clear(&v);
	harness_clear(&h);
	assert_null(versions_matrix_note(VC_CDI, "v0.1.0"));
	assert_null(versions_matrix_note(VC_KUBEVIRT, NULL));
}

/* A fresh install reports only the target until virt-operator has deployed it;
 * an upgrade keeps the running version's rules and says where it is going. */
static void test_operator_target_and_upgrade(void **state)
{
	struct harness h;
	harness_init(&h);
	add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":{\"name\":"
		"\"kubevirt\",\"namespace\":\"kubevirt\"},\"status\":{\"phase\":\"Deploying\","
		"\"targetKubeVirtVersion\":\"v1.8.1\",\"operatorVersion\":\"v1.8.1\"}}");
	add(&h, "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"CDI\",\"metadata\":{"
		"\"name\":\"cdi\"},\"status\":{\"phase\":\"Upgrading\",\"observedVersion\":"
		"\"v1.61.0\",\"targetVersion\":\"v1.62.0\",\"operatorVersion\":\"v1.62.0\"}}");
	struct cluster_versions v;
	cluster_versions_detect(&h.cs, &v);
	assert_string_equal(v.c[VC_KUBEVIRT].version, "v1.8.1");
	assert_string_equal(v.c[VC_KUBEVIRT].from,
			    "kubevirts.kubevirt.io status.targetKubeVirtVersion "
			    "(being deployed, not yet observed)");
	assert_string_equal(v.c[VC_CDI].version, "v1.61.0");
	assert_string_equal(v.c[VC_CDI].from,
			    "cdis.cdi.kubevirt.io status.observedVersion; upgrading to v1.62.0 "
			    "(status.targetVersion)");
	cluster_versions_clear(&v);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_operator_target_and_upgrade),
	    cmocka_unit_test(test_in_matrix),
	    cmocka_unit_test(test_out_of_matrix),
	    cmocka_unit_test(test_nothing_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
