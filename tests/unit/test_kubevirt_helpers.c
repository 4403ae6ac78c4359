/* Helpers of the KubeVirt/platform checks: versions, CIDR math, YAML values, Helm values. */
#include "agg_harness.h"

#include <arpa/inet.h>
#include <errno.h>

#include "cidr.h"
#include "helm_values.h"
#include "kubevirt_util.h"
#include "semver.h"
#include "yaml_json.h"

static void test_semver(void **state)
{
	struct semver v, w;
	assert_int_equal(semver_parse("1.7.4-150700.3.24.2", &v), 0);
	assert_int_equal(v.major, 1);
	assert_int_equal(v.minor, 7);
	assert_int_equal(v.patch, 4);
	assert_int_equal(semver_parse("v1.8", &w), 0);
	assert_int_equal(w.patch, 0);
	assert_true(semver_cmp(&v, &w) < 0);
	assert_int_equal(semver_parse("v1.11.2", &w), 0);
	assert_true(semver_cmp(&w, &v) > 0);
	assert_int_equal(semver_parse("v1.8.0-rc.1", &w), 0);
	assert_int_equal(semver_parse("latest", &v), -EINVAL);
	assert_int_equal(semver_parse("1.7x", &v), -EINVAL);
	assert_int_equal(semver_parse("", &v), -EINVAL);
	assert_int_equal(semver_parse(NULL, &v), -EINVAL);
	assert_int_equal(semver_parse("99999999999.1", &v), -EINVAL);

	char buf[64];
	assert_string_equal(
	    semver_image_tag("longhornio/longhorn-manager:v1.9.1", buf, sizeof(buf)), "v1.9.1");
	assert_string_equal(
	    semver_image_tag("reg.local:5000/rancher/harvester:v1.8.2@sha256:ab", buf, sizeof(buf)),
	    "v1.8.2");
	assert_null(semver_image_tag("reg.local:5000/rancher/harvester", buf, sizeof(buf)));
	assert_null(semver_image_tag("harvester:", buf, sizeof(buf)));
	assert_null(semver_image_tag(NULL, buf, sizeof(buf)));
}

static void fmt(const struct cidr *c, char *buf)
{
	cidr_format(c, true, buf, CIDR_STRLEN);
}

static void test_cidr(void **state)
{
	struct cidr a, b, s;
	char buf[CIDR_STRLEN];
	assert_int_equal(cidr_parse("10.42.6.0/24", &a), 0);
	assert_int_equal(cidr_parse("10.42.1.0/24", &b), 0);
	assert_true(cidr_supernet(&a, &b, &s));
	fmt(&s, buf);
	assert_string_equal(buf, "10.42.0.0/21");
	struct cidr rke2;
	assert_int_equal(cidr_parse("10.42.0.0/16", &rke2), 0);
	assert_true(cidr_contains(&rke2, &s));
	assert_false(cidr_contains(&s, &rke2));
	/* host bits are cleared */
	assert_int_equal(cidr_parse("10.43.0.1/16", &a), 0);
	fmt(&a, buf);
	assert_string_equal(buf, "10.43.0.0/16");
	assert_int_equal(cidr_parse("10.43.0.1", &a), 0);
	assert_int_equal(a.prefix, 32);
	s = cidr_widen(&a, 16);
	fmt(&s, buf);
	assert_string_equal(buf, "10.43.0.0/16");
	/* IPv6 */
	assert_int_equal(cidr_parse("fd00:42::/64", &a), 0);
	assert_int_equal(cidr_parse("fd00:42:0:1::/64", &b), 0);
	assert_true(cidr_supernet(&a, &b, &s));
	fmt(&s, buf);
	assert_string_equal(buf, "fd00:42::/63");
	assert_int_equal(a.family, AF_INET6);
	/* mixed families have no supernet */
	assert_int_equal(cidr_parse("10.0.0.0/8", &b), 0);
	assert_false(cidr_supernet(&a, &b, &s));
	assert_false(cidr_contains(&b, &a));
	/* bad input */
	assert_int_equal(cidr_parse("10.42.0.0/33", &a), -EINVAL);
	assert_int_equal(cidr_parse("10.42.0.0/", &a), -EINVAL);
	assert_int_equal(cidr_parse("10.42.0.0/1x", &a), -EINVAL);
	assert_int_equal(cidr_parse("harvester.local", &a), -EINVAL);
	assert_int_equal(cidr_parse(NULL, &a), -EINVAL);
	assert_int_equal(
	    cidr_parse("1111:2222:3333:4444:5555:6666:7777:8888/128-and-then-some-more-text", &a),
	    -EINVAL);
	/* private addresses */
	assert_int_equal(cidr_parse("192.168.10.5", &a), 0);
	assert_true(cidr_is_private(&a));
	assert_int_equal(cidr_parse("151.101.2.132", &a), 0);
	assert_false(cidr_is_private(&a));
	assert_int_equal(cidr_parse("fd00::1", &a), 0);
	assert_true(cidr_is_private(&a));
}

/* Helm reads values with yaml.v2 (yaml_json_v2.c): the plain scalars whose
 * value differs from YAML 1.2's core schema, each checked both ways. */
static void test_yaml_json_helm(void **state)
{
	const char *y = "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\ng: 0755\nh: 0x1F\ni: 1_000\n"
			"j: 1e3\nk: 08\nl: 2026-09-01\nm: 0o17\nnn: .5\non: key\nq: \"yes\"\n"
			"r: !!str 0755\ns: +12\nt: 10.53.0.10\nbase: &b {x: 1, z: 2}\n"
			"u:\n  <<: *b\n  z: 3\ny: Y\nv: Snapshot\n";
	json_object *core = NULL, *helm = NULL;
	char err[256];
	assert_int_equal(yaml_json_parse((const uint8_t *)y, strlen(y), &core, err, sizeof(err)),
			 0);
	assert_int_equal(yaml_json_parse_schema((const uint8_t *)y, strlen(y), YAML_JSON_HELM,
						&helm, err, sizeof(err)),
			 0);
	struct jv_arena *ar = jv_arena_new();
	struct jv rc = jv_from_json(ar, core), rh = jv_from_json(ar, helm);
	const struct jv *c = &rc, *h = &rh;
	static const struct {
		const char *key;
		bool value;
	} bools[] = {{"a", true},  {"b", false}, {"c", true},
		     {"d", false}, {"e", true},	 {"f", false}};
	for (size_t k = 0; k < ELEMENTSOF(bools); k++) {
		bool b = !bools[k].value;
		assert_true(jq_bool(JQ(h, bools[k].key), &b));
		assert_int_equal(b, bools[k].value);
		assert_true(jv_is(JQ(c, bools[k].key), JV_STRING)); /* YAML 1.2: a string */
	}
	static const struct {
		const char *key;
		int64_t helm;
	} ints[] = {{"g", 493}, {"h", 31}, {"i", 1000}, {"m", 15}, {"s", 12}};
	for (size_t k = 0; k < ELEMENTSOF(ints); k++) {
		int64_t i = 0;
		assert_true(jq_int(JQ(h, ints[k].key), &i));
		assert_int_equal(i, ints[k].helm);
	}
	int64_t i = 0;
	assert_true(jq_int(JQ(c, "g"), &i));
	assert_int_equal(i, 755); /* YAML 1.2 core: decimal */
	assert_string_equal(JQS(c, "h"), "0x1F");
	assert_string_equal(JQS(c, "i"), "1_000");
	assert_true(jv_is(JQ(h, "j"), JV_DOUBLE) || jv_is(JQ(h, "j"), JV_INT));
	assert_string_equal(JQS(c, "j"), "1e3");
	assert_false(jv_is(JQ(h, "k"), JV_STRING)); /* 08: not octal, a float 8 */
	assert_string_equal(JQS(h, "l"), "2026-09-01T00:00:00Z");
	assert_string_equal(JQS(c, "l"), "2026-09-01");
	assert_false(jv_is(JQ(h, "nn"), JV_STRING));
	/* keys: `on:` is the key "true" (checked after y: below) */
	assert_null(JQ(h, "on"));
	assert_string_equal(JQS(c, "on"), "key");
	/* quoted and !!str stay strings; an IP is a string both ways */
	assert_string_equal(JQS(h, "q"), "yes");
	assert_string_equal(JQS(h, "r"), "0755");
	assert_string_equal(JQS(h, "t"), "10.53.0.10");
	assert_string_equal(JQS(h, "v"), "Snapshot");
	/* merge key: the anchor's entries, then the keys after it */
	assert_true(jq_int(JQ(h, "u", "x"), &i));
	assert_int_equal(i, 1);
	assert_true(jq_int(JQ(h, "u", "z"), &i));
	assert_int_equal(i, 3);
	/* the key y is a boolean too: "true" (where on's "key" was overwritten) */
	assert_true(jv_is(JQ(h, "true"), JV_BOOL));
	assert_string_equal(JQS(c, "y"), "Y");
	assert_null(JQ(c, "u", "x"));
	json_object_put(core);
	json_object_put(helm);
	jv_arena_free(ar);

	/* .inf / .nan: helm cannot turn them into JSON and fails on the values */
	json_object *o = NULL;
	assert_int_equal(yaml_json_parse_schema((const uint8_t *)"a: .inf\n", 8, YAML_JSON_HELM, &o,
						err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, ".inf"));
	assert_null(o);
}

static void test_yaml_json(void **state)
{
	const char *y = "a: 1\nb: \"2\"\nc: true\nd: ~\ne: [x, y]\nf:\n  g: &anc hello\n  h: *anc\n"
			"i: -5\nj: 1.5\nk: !!str 0755\nl: !!str true\n";
	json_object *o = NULL;
	char err[256];
	assert_int_equal(yaml_json_parse((const uint8_t *)y, strlen(y), &o, err, sizeof(err)), 0);
	struct jv_arena *ar = jv_arena_new();
	struct jv root = jv_from_json(ar, o);
	const struct jv *v = &root;
	assert_true(jv_is(JQ(v, "a"), JV_INT));
	assert_string_equal(JQS(v, "b"), "2");
	assert_true(jv_is(JQ(v, "c"), JV_BOOL));
	assert_null(JQ(v, "d"));
	assert_int_equal(jq_len(JQ(v, "e")), 2);
	assert_string_equal(JQS(v, "f", "h"), "hello");
	int64_t i;
	assert_true(jq_int(JQ(v, "i"), &i));
	assert_int_equal(i, -5);
	assert_string_equal(JQS(v, "j"), "1.5");
	/* an explicit !!str is text, as YAML 1.2's core schema says */
	assert_string_equal(JQS(v, "k"), "0755");
	assert_string_equal(JQS(v, "l"), "true");
	json_object_put(o);

	/* errors: one line, no crash, no leak */
	const char *bad[] = {"a: [1, 2\n", "a: b: c\n", "{a: 1", "- a\nb: c\n", "? [a]\n: b\n"};
	for (size_t k = 0; k < ELEMENTSOF(bad); k++) {
		o = NULL;
		int r =
		    yaml_json_parse((const uint8_t *)bad[k], strlen(bad[k]), &o, err, sizeof(err));
		assert_int_equal(r, -EINVAL);
		assert_null(strchr(err, '\n'));
		assert_null(o);
	}
	/* deep nesting is refused */
	char deep[400];
	memset(deep, '[', 300);
	deep[300] = '\0';
	assert_int_equal(yaml_json_parse((const uint8_t *)deep, 300, &o, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "nesting"));
	/* empty document */
	o = (json_object *)1;
	assert_int_equal(yaml_json_parse((const uint8_t *)"", 0, &o, err, sizeof(err)), 0);
	assert_null(o);
	/* a small alias chain is copied into a tree */
	const char *lol = "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\nd: [*c, *c]\n";
	assert_int_equal(yaml_json_parse((const uint8_t *)lol, strlen(lol), &o, err, sizeof(err)),
			 0);
	root = jv_from_json(ar, o);
	assert_int_equal(jq_len(jq_at(jq_at(jq_at(JQ(v, "d"), 1), 2), 0)), 3);
	json_object_put(o);
	jv_arena_free(ar);
	/* "billion laughs": refused by the node budget */
	char big[2048] = "l0: &l0 [x,x,x,x,x,x,x,x,x,x]\n";
	for (int k = 1; k < 9; k++) {
		char line[128];
		snprintf(line, sizeof(line),
			 "l%d: &l%d [*l%d,*l%d,*l%d,*l%d,*l%d,*l%d,*l%d,*l%d]\n", k, k, k - 1,
			 k - 1, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1);
		strcat(big, line);
	}
	o = NULL;
	assert_int_equal(yaml_json_parse((const uint8_t *)big, strlen(big), &o, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "expands beyond"));
	assert_null(o);
	/* an alias of an enclosing node would be a cycle */
	const char *cyc = "a: &a\n  b: [1, *a]\n";
	assert_int_equal(yaml_json_parse((const uint8_t *)cyc, strlen(cyc), &o, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "contains it"));
	/* aliases cannot deepen the tree past the limit */
	char deepa[1024] = "a: &a ";
	for (int k = 0; k < 40; k++)
		strcat(deepa, "[");
	for (int k = 0; k < 40; k++)
		strcat(deepa, "]");
	strcat(deepa, "\nb: ");
	for (int k = 0; k < 30; k++)
		strcat(deepa, "[");
	strcat(deepa, "*a");
	for (int k = 0; k < 30; k++)
		strcat(deepa, "]");
	strcat(deepa, "\n");
	assert_int_equal(
	    yaml_json_parse((const uint8_t *)deepa, strlen(deepa), &o, err, sizeof(err)), -EINVAL);
}

static void test_helm_values(void **state)
{
	struct harness h;
	harness_init(&h);
	struct helm_values hv;
	helm_values_harvester(&h.cs, &hv);
	assert_false(hv.found);
	helm_values_clear(&hv);

	harness_load(&h, "kubevirt/harvester-helmchart-values-ok.json");
	harness_add(&h, "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChartConfig\","
			"\"metadata\":{\"name\":\"harvester\",\"namespace\":\"kube-system\"},"
			"\"spec\":{\"valuesContent\":\"promote:\\n  clusterDNS: 10.43.0.53\\n\"}}");
	helm_values_harvester(&h.cs, &hv);
	assert_true(hv.found);
	assert_non_null(strstr(hv.source, "HelmChartConfig kube-system/harvester"));
	/* the HelmChartConfig wins, untouched keys stay */
	assert_string_equal(jv_str(helm_values_get(hv.values, "promote.clusterDNS")), "10.43.0.53");
	assert_string_equal(jv_str(helm_values_get(hv.values, "promote.clusterPodCIDR")),
			    "10.42.0.0/16");
	assert_int_equal(
	    jq_len(helm_values_get(
		hv.values, "kubevirt.spec.configuration.developerConfiguration.featureGates")),
	    6);
	helm_values_clear(&hv);
	harness_clear(&h);

	/* spec.set has the highest precedence and reaches helm as helm-controller
	 * passes it (k3s-io/helm-controller pkg/controllers/chart/chart.go): strings
	 * with --set-string and every comma escaped, so "{A, B}" is the one-item list
	 * ["A, B"]; "true"/"false"/"null" and numbers with --set, typed. */
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChart\","
			"\"metadata\":{\"name\":\"hv\",\"namespace\":\"kube-system\"},"
			"\"spec\":{\"chart\":\"rancher/harvester\",\"valuesContent\":\"a: [\","
			"\"set\":{\"promote.clusterDNS\":\"10.43.0.10\",\"x.list\":\"{A, B}\","
			"\"x.one\":\"{Snapshot}\",\"x.str\":\"a,b\\\\,c\",\"x.on\":\"True\","
			"\"x.gone\":\"null\",\"x.bad\":\"{A\",\"n\":3}}}");
	helm_values_harvester(&h.cs, &hv);
	assert_true(hv.found);
	assert_int_equal(hv.errors.n, 2);
	assert_non_null(strstr(hv.errors.items[0], "HelmChart kube-system/hv"));
	assert_non_null(strstr(hv.errors.items[1], "spec.set x.bad: list must terminate"));
	assert_string_equal(jv_str(helm_values_get(hv.values, "promote.clusterDNS")), "10.43.0.10");
	const struct jv *l = helm_values_get(hv.values, "x.list");
	assert_int_equal(jq_len(l), 1);
	assert_string_equal(jv_str(jq_at(l, 0)), "A, B");
	assert_string_equal(jv_str(jq_at(helm_values_get(hv.values, "x.one"), 0)), "Snapshot");
	assert_string_equal(jv_str(helm_values_get(hv.values, "x.str")), "a,b,c");
	bool on = false;
	assert_true(jv_is(helm_values_get(hv.values, "x.on"), JV_BOOL));
	assert_true(jq_bool(helm_values_get(hv.values, "x.on"), &on) && on);
	assert_null(helm_values_get(hv.values, "x.gone"));
	assert_null(helm_values_get(hv.values, "x.bad"));
	int64_t n = 0;
	assert_true(jq_int(helm_values_get(hv.values, "n"), &n));
	assert_int_equal(n, 3);
	helm_values_clear(&hv);
	harness_clear(&h);

	/* harvester-crd is not the harvester chart */
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChart\","
			"\"metadata\":{\"name\":\"harvester-crd\",\"namespace\":\"kube-system\"},"
			"\"spec\":{\"chart\":\"https://x/harvester-crd-1.8.2.tgz\"}}");
	helm_values_harvester(&h.cs, &hv);
	assert_false(hv.found);
	helm_values_clear(&hv);
	harness_clear(&h);
}

static void test_util(void **state)
{
	char buf[32];
	kubevirt_util_age(45 * NSEC_PER_SEC, buf, sizeof(buf));
	assert_string_equal(buf, "45s");
	kubevirt_util_age(42600 * NSEC_PER_SEC, buf, sizeof(buf));
	assert_string_equal(buf, "11h50m");
	kubevirt_util_age(-5, buf, sizeof(buf));
	assert_string_equal(buf, "0s");
	kubevirt_util_age(200000 * NSEC_PER_SEC, buf, sizeof(buf));
	assert_string_equal(buf, "2d7h");
	char *t = kubevirt_util_trunc("ééé", 3); /* cut inside a UTF-8 sequence */
	assert_string_equal(t, "é…");
	free(t);
	t = kubevirt_util_trunc(NULL, 3);
	assert_string_equal(t, "");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_semver),	cmocka_unit_test(test_cidr),
	    cmocka_unit_test(test_yaml_json),	cmocka_unit_test(test_yaml_json_helm),
	    cmocka_unit_test(test_helm_values), cmocka_unit_test(test_util),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
