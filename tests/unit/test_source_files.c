/* The files backend (--cluster-state) and collect's writer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_query.h"
#include "scratch.h"
#include "source.h"

static int parse(struct cluster_state *cs, const char *json, struct source_files_stats *st,
		 char *err)
{
	return source_files_parse(cs, (const uint8_t *)json, strlen(json), "t.json", st, err,
				  SOURCE_ERR_LEN);
}

#define POD(ns, name)                                                                              \
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" name                   \
	"\",\"namespace\":\"" ns "\"},\"status\":{\"phase\":\"Running\"}}"

/* kubectl get pods,nodes,sc,volumes.longhorn.io,cm -A -o json: any mix. */
static void test_mixed_list(void **state)
{
	struct cluster_state cs;
	struct source_files_stats st = {0};
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	const char *j = "{\"apiVersion\":\"v1\",\"items\":[" POD(
	    "kube-system",
	    "coredns-1") ","
			 "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}},"
			 "{\"apiVersion\":\"storage.k8s.io/"
			 "v1\",\"kind\":\"StorageClass\",\"metadata\":"
			 "{\"name\":\"longhorn\"},\"provisioner\":\"driver.longhorn.io\"},"
			 /* a Longhorn 1.8 dump still in v1beta1: any version of the group */
			 "{\"apiVersion\":\"longhorn.io/"
			 "v1beta1\",\"kind\":\"Volume\",\"metadata\":{\"name\":"
			 "\"pvc-1\",\"namespace\":\"longhorn-system\"}},"
			 /* longhorn.io Node is not the core Node */
			 "{\"apiVersion\":\"longhorn.io/"
			 "v1beta2\",\"kind\":\"Node\",\"metadata\":{\"name\":"
			 "\"n1\",\"namespace\":\"longhorn-system\"}},"
			 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
			 "\"x\"}},"
			 "{\"apiVersion\":\"example.com/"
			 "v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"y\"}}"
			 "],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}";
	assert_int_equal(parse(&cs, j, &st, err), 0);
	assert_int_equal(cs_count(&cs, RES_PODS), 1);
	assert_int_equal(cs_count(&cs, RES_NODES), 1);
	assert_int_equal(cs_count(&cs, RES_STORAGECLASSES), 1);
	assert_int_equal(cs_count(&cs, RES_LH_VOLUMES), 1);
	assert_int_equal(cs_count(&cs, RES_LH_NODES), 1);
	assert_non_null(cs_find(&cs, RES_PODS, "kube-system", "coredns-1"));
	assert_int_equal(cs.res[RES_DEPLOYMENTS].status, RES_NOT_COLLECTED);
	assert_int_equal(st.objects, 5);
	assert_int_equal(st.ignored, 2);
	cluster_state_clear(&cs);
}

/* The API's own list format: typed List, items without apiVersion/kind. */
static void test_typed_list_and_stream(void **state)
{
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	const char *j =
	    "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":["
	    "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\"},\"spec\":{}}]}\n"
	    /* a second value: for r in ...; do kubectl get $r -o json; done > f */
	    "{\"apiVersion\":\"apps/v1\",\"kind\":\"DeploymentList\",\"items\":[]}\n" POD("ns",
											  "b") "\n";
	assert_int_equal(parse(&cs, j, NULL, err), 0);
	assert_int_equal(cs_count(&cs, RES_PODS), 2);
	const struct jv *a = cs_find(&cs, RES_PODS, "ns", "a");
	assert_string_equal(JQS(a, "kind"), "Pod");
	assert_string_equal(JQS(a, "apiVersion"), "v1");
	/* apiVersion and kind first, as kubectl prints items */
	assert_string_equal(jv_member(a, 0, NULL), "apiVersion");
	/* An empty typed List marks nothing: objects or the resource's file do. */
	assert_int_equal(cs.res[RES_DEPLOYMENTS].status, RES_NOT_COLLECTED);
	cluster_state_clear(&cs);
}

/* managedFields is dropped (never read, most of the memory), except on KubeVirt. */
static void test_managed_fields(void **state)
{
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	const char *j =
	    "{\"apiVersion\":\"v1\",\"items\":["
	    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":"
	    "\"n\",\"managedFields\":[{\"fieldsV1\":{\"f:spec\":{\"f:x\":{}}},\"manager\":\"k\","
	    "\"time\":\"2026-09-01T00:00:00Z\",\"weird\":[\"a\\\"]\\\\\",{\"b\":[1,2.5e3,true,null]"
	    "}]}]"
	    ",\"uid\":\"u1\"}},"
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":{\"name\":"
	    "\"kubevirt\",\"namespace\":\"harvester-system\",\"managedFields\":[{\"manager\":"
	    "\"helm\",\"operation\":\"Update\",\"time\":\"2026-09-01T00:00:00Z\"}]}}"
	    "],\"kind\":\"List\"}\n"
	    /* a single object, and a typed List without kinds in its items */
	    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"managedFields\":[],\"name\":"
	    "\"n1\"}}\n"
	    "{\"kind\":\"ServiceList\",\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":"
	    "\"s\",\"namespace\":\"n\",\"managedFields\":[{}]}}]}";
	assert_int_equal(parse(&cs, j, NULL, err), 0);
	const struct jv *p = cs_find(&cs, RES_PODS, "n", "p");
	assert_null(JQ(p, "metadata", "managedFields"));
	assert_string_equal(JQS(p, "metadata", "uid"), "u1");
	const struct jv *kv = cs_find(&cs, RES_KUBEVIRTS, "harvester-system", "kubevirt");
	assert_int_equal(jq_len(JQ(kv, "metadata", "managedFields")), 1);
	assert_null(JQ(cs_find(&cs, RES_NODES, NULL, "n1"), "metadata", "managedFields"));
	assert_null(JQ(cs_find(&cs, RES_SERVICES, "n", "s"), "metadata", "managedFields"));
	cluster_state_clear(&cs);
}

static void expect_parse_error(const char *json, size_t len, const char *message)
{
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	int r =
	    source_files_parse(&cs, (const uint8_t *)json, len, "t.json", NULL, err, sizeof(err));
	if (r >= 0)
		fail_msg("no error for: %.200s", json);
	assert_contains(err, "t.json: ");
	assert_contains(err, message);
	assert_null(strchr(err, '\n'));
	cluster_state_clear(&cs);
}

#define BAD(json, msg) expect_parse_error(json, sizeof(json) - 1, msg)

static void test_bad_input(void **state)
{
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n" POD(
		"a", "b") ",\n"
			  "{\"apiVersion\":\"v1\" \"kind\":\"Pod\"}]}",
	    "malformed JSON at line 3, column 20 (byte");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" POD("a", "b"),
	    "truncated JSON: the input ends inside a value");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"metadata\":{\"managedFields\":"
	    "[{\"a\":1",
	    "truncated JSON");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":"
	    "\"Pod\",\"metadata\":{\"name\":\"x\",\"managedFields\":[}]}]}",
	    "unbalanced brackets");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[1,2]}",
	    "items[0] is a number, not an object");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[[]]}",
	    "items[0] is an array, not an object");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":{\"a\":1}}",
	    "items is an object, not an array");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{}}"
	    "]}",
	    "items[0] has no apiVersion");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\"}]}",
	    "items[0] has no kind");
	BAD("{\"metadata\":{\"name\":\"x\"}}", "the object has no apiVersion");
	BAD("[1,2]", "value 1 is an array, not a Kubernetes object or List");
	BAD("\"text\"", "value 1 is a string");
	BAD("hello", "malformed JSON at line 1, column 1 (byte 0)");
	BAD("{\"a\":1,}", "expected a member name");
	BAD("{\"a\" 1}", "expected ':' after a member name");
	BAD("{\"a\":'x'}", "malformed JSON");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\"} {}]}",
	    "expected ',' or ']' after an item");
	BAD("\xff\xfe{\0\"\0", "UTF-16 text");
	BAD("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"kind\":\"List\","
	    "\"apiVersion\":\"v1\",\"items\":[{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":"
	    "[{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":[{\"kind\":\"List\","
	    "\"apiVersion\":\"v1\",\"items\":[]}]}]}]}]}",
	    "Lists nested more than 4 deep");
	/* deeper than any Kubernetes object: bounded, not a stack overflow */
	char deep[2000];
	size_t n = (size_t)snprintf(deep, sizeof(deep),
				    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
				    "\"spec\":");
	for (int i = 0; i < 600; i++)
		deep[n++] = '[';
	expect_parse_error(deep, n, "malformed JSON");
	n = (size_t)snprintf(deep, sizeof(deep),
			     "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
			     "\"metadata\":{\"managedFields\":");
	for (int i = 0; i < 600; i++)
		deep[n++] = '{';
	expect_parse_error(deep, n, "nesting too deep");
}

static void test_bom(void **state)
{
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	assert_int_equal(parse(&cs, "\xef\xbb\xbf" POD("a", "b"), NULL, err), 0);
	assert_int_equal(cs_count(&cs, RES_PODS), 1);
	cluster_state_clear(&cs);
}

#define EMPTY_LIST "{\"apiVersion\":\"v1\",\"items\":[],\"kind\":\"List\",\"metadata\":{}}\n"

/* A directory as collect writes it, or as an admin fills it with kubectl. */
static void test_directory(void **state)
{
	const char *d = *state;
	scratch_write(d, "pods.json",
		      "{\"apiVersion\":\"v1\",\"items\":[" POD("n", "a") "," POD(
			  "n", "b") "],\"kind\":\"List\"}");
	scratch_write(d, "storageclasses.storage.k8s.io.json", EMPTY_LIST); /* none exist */
	scratch_write(d, "everything-else.json",
		      "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
		      "\"metadata\":{\"name\":\"n1\"}}");
	scratch_write(d, "README.txt", "not read");
	scratch_write(d, ".pods.json.tmp", "{broken"); /* collect's temporary file */
	scratch_write(d, "volumes.longhorn.io.json", EMPTY_LIST);
	scratch_write(
	    d, "collect.json",
	    "{\"schema\":\"hvready.collect/v1\",\"collected_at\":\"2026-09-05T13:20:00Z\","
	    "\"resources\":["
	    "{\"group\":\"kubevirt.io\",\"plural\":\"kubevirts\",\"status\":\"not-served\","
	    "\"error\":\"the API does not serve kubevirt.io/v1 kubevirts\"},"
	    "{\"group\":\"longhorn.io\",\"plural\":\"replicas\",\"status\":\"forbidden\","
	    "\"error\":\"forbidden: list longhorn.io/replicas (grant get,list,watch)\"},"
	    "{\"group\":\"apps\",\"plural\":\"deployments\",\"status\":\"failed\","
	    "\"error\":\"list apps/deployments: HTTP 500\",\"duration_ms\":1200},"
	    "{\"group\":\"\",\"plural\":\"services\",\"status\":\"served\",\"items\":3},"
	    /* a file is there although the API said forbidden: the data wins */
	    "{\"group\":\"longhorn.io\",\"plural\":\"volumes\",\"status\":\"forbidden\"},"
	    "{\"group\":\"future.io\",\"plural\":\"gadgets\",\"status\":\"served\"}]}");
	struct cluster_state cs;
	struct source_files_stats st = {0};
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	assert_int_equal(source_files_load_ex(&cs, d, &st, err, sizeof(err)), 0);
	assert_int_equal(cs_count(&cs, RES_PODS), 2);
	assert_int_equal(cs.res[RES_STORAGECLASSES].status, RES_COLLECTED);
	assert_int_equal(cs_count(&cs, RES_STORAGECLASSES), 0);
	assert_int_equal(cs_count(&cs, RES_NODES), 1);
	assert_int_equal(cs.res[RES_LH_VOLUMES].status, RES_COLLECTED);
	assert_int_equal(cs.res[RES_KUBEVIRTS].status, RES_NOT_INSTALLED);
	assert_contains(cs.res[RES_KUBEVIRTS].error, "does not serve");
	assert_int_equal(cs.res[RES_LH_REPLICAS].status, RES_FORBIDDEN);
	assert_contains(cs.res[RES_LH_REPLICAS].error, "grant get,list,watch");
	assert_int_equal(cs.res[RES_DEPLOYMENTS].status, RES_FAILED);
	assert_int_equal(cs.res[RES_DEPLOYMENTS].duration_ns, 1200 * NSEC_PER_MSEC);
	assert_int_equal(cs.res[RES_SERVICES].status, RES_NOT_COLLECTED);
	assert_contains(cs.res[RES_SERVICES].error, "says it was collected, but services.json is "
						    "missing");
	assert_int_equal(cs.res[RES_CDIS].status, RES_NOT_COLLECTED);
	assert_contains(cs.res[RES_CDIS].error, "no cdis.cdi.kubevirt.io.json and no CDI objects");
	assert_int_equal(cs.read_at_ns, INT64_C(1788614400) * NSEC_PER_SEC);
	assert_false(cs.live);
	assert_contains(cs.source, "files: ");
	assert_int_equal(st.files, 4);
	assert_int_equal(st.skipped_files, 1);

	/* A second path accumulates; the same objects are not counted twice. */
	_cleanup_free_ char *pods = xasprintf("%s/pods.json", d);
	assert_int_equal(source_files_load_ex(&cs, pods, &st, err, sizeof(err)), 0);
	assert_int_equal(cs_count(&cs, RES_PODS), 2);
	assert_int_equal(st.duplicates, 2);
	cluster_state_clear(&cs);

	/* Empty files: what `kubectl get X -o json > X.json` leaves when X's CRD is
	 * not installed. Not collected, with that reason; never an error for the
	 * whole report (it was "empty: no JSON object", exit 2). collect.json, when
	 * it has an entry, says why. */
	scratch_write(d, "virtualmachines.kubevirt.io.json", "");
	scratch_write(d, "settings.longhorn.io.json", " \n\t\n");
	scratch_write(d, "kubevirts.kubevirt.io.json", "");
	cluster_state_init(&cs);
	assert_int_equal(source_files_load_ex(&cs, d, &st, err, sizeof(err)), 0);
	assert_int_equal(cs_count(&cs, RES_PODS), 2);
	assert_int_equal(cs.res[RES_VMS].status, RES_NOT_COLLECTED);
	assert_contains(cs.res[RES_VMS].error, "virtualmachines.kubevirt.io.json is empty");
	assert_int_equal(cs.res[RES_LH_SETTINGS].status, RES_NOT_COLLECTED);
	assert_contains(cs.res[RES_LH_SETTINGS].error, "settings.longhorn.io.json is empty");
	assert_int_equal(cs.res[RES_KUBEVIRTS].status, RES_NOT_INSTALLED);
	assert_contains(cs.res[RES_KUBEVIRTS].error, "does not serve");
	cluster_state_clear(&cs);
	scratch_write(d, "services.json", "");
	cluster_state_init(&cs);
	assert_int_equal(source_files_load_ex(&cs, d, &st, err, sizeof(err)), 0);
	assert_contains(cs.res[RES_SERVICES].error, "collected, but services.json is empty");
	cluster_state_clear(&cs);
	_cleanup_free_ char *svc = xasprintf("%s/services.json", d);
	assert_int_equal(unlink(svc), 0);
	/* One empty file given alone. */
	_cleanup_free_ char *vms = xasprintf("%s/virtualmachines.kubevirt.io.json", d);
	cluster_state_init(&cs);
	assert_int_equal(source_files_load(&cs, vms, err, sizeof(err)), 0);
	assert_int_equal(cs.res[RES_VMS].status, RES_NOT_COLLECTED);
	assert_contains(cs.res[RES_VMS].error, "is empty");
	cluster_state_clear(&cs);
	/* An empty List in a concatenated file names no resource: the reasons say so. */
	_cleanup_free_ char *all = xasprintf("%s/all.json", d);
	scratch_write(d, "all.json", EMPTY_LIST POD("n", "c"));
	cluster_state_init(&cs);
	assert_int_equal(source_files_load(&cs, all, err, sizeof(err)), 0);
	assert_int_equal(cs.res[RES_STORAGECLASSES].status, RES_NOT_COLLECTED);
	assert_contains(cs.res[RES_STORAGECLASSES].error, "an empty List carries no kind");
	cluster_state_clear(&cs);
	assert_int_equal(unlink(all), 0);
	assert_int_equal(unlink(vms), 0);

	scratch_write(d, "pods.yaml", "apiVersion: v1\n");
	cluster_state_init(&cs);
	assert_int_equal(source_files_load(&cs, d, err, sizeof(err)), -EINVAL);
	assert_contains(err, "pods.yaml: YAML is not read");
	cluster_state_clear(&cs);
}

/* Files of a directory are parsed in parallel but merged in name order: the
 * items keep that order, the first file's copy of a duplicate is the one
 * kept, and the error reported is the first file's (by name) that fails. */
static void test_directory_order(void **state)
{
	const char *d = *state;
	for (int i = 0; i < 24; i++) {
		char name[32], ns[8], body[512];
		snprintf(name, sizeof(name), "f%02d.json", i);
		snprintf(ns, sizeof(ns), "n%02d", i);
		/* every file also holds "shared/p", with its own phase */
		snprintf(body, sizeof(body),
			 "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
			 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
			 "\"p\",\"namespace\":\"%s\"}},"
			 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
			 "\"p\",\"namespace\":\"shared\"},\"status\":{\"phase\":\"%s\"}}]}",
			 ns, ns);
		scratch_write(d, name, body);
	}
	struct cluster_state cs;
	struct source_files_stats st = {0};
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	assert_int_equal(source_files_load_ex(&cs, d, &st, err, sizeof(err)), 0);
	assert_int_equal(cs_count(&cs, RES_PODS), 25);
	const struct jv *pods = cs_items(&cs, RES_PODS);
	assert_string_equal(jq_namespace(jq_at(pods, 0)), "n00");
	assert_string_equal(jq_namespace(jq_at(pods, 1)), "shared");
	assert_string_equal(JQS(jq_at(pods, 1), "status", "phase"), "n00");
	assert_string_equal(jq_namespace(jq_at(pods, 24)), "n23");
	assert_int_equal(st.files, 24);
	assert_int_equal(st.objects, 25);
	assert_int_equal(st.duplicates, 23);
	cluster_state_clear(&cs);

	scratch_write(d, "f05.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[7]}");
	scratch_write(d, "f17.json", "{broken");
	cluster_state_init(&cs);
	assert_int_equal(source_files_load(&cs, d, err, sizeof(err)), -EINVAL);
	assert_contains(err, "/f05.json: items[0] is a number, not an object");
	cluster_state_clear(&cs);
}

static void expect_collect_error(const char *json, const char *message)
{
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	assert_true(source_files_parse_collect(&cs, (const uint8_t *)json, strlen(json),
					       "d/collect.json", err, sizeof(err)) < 0);
	assert_contains(err, "d/collect.json: ");
	assert_contains(err, message);
	cluster_state_clear(&cs);
}

static void test_collect_json_errors(void **state)
{
	expect_collect_error("{\"schema\":\"hvready.collect/v1\",\"resources\":[",
			     "malformed JSON");
	expect_collect_error("{\"schema\":\"hvready.collect/v2\",\"resources\":[]}",
			     "not an hvready collect.json");
	expect_collect_error("{\"resources\":[]}", "not an hvready collect.json");
	expect_collect_error("{\"schema\":\"hvready.collect/v1\",\"resources\":{}}",
			     "resources is not an array");
	expect_collect_error("{\"schema\":\"hvready.collect/v1\",\"resources\":[{\"group\":\"\","
			     "\"plural\":\"pods\",\"status\":\"sideways\"}]}",
			     "unknown status \"sideways\"");
	expect_collect_error("{\"schema\":\"hvready.collect/v1\",\"resources\":[{\"plural\":"
			     "\"pods\"}]}",
			     "resources[0] lacks group, plural or status");
	expect_collect_error("{\"schema\":\"hvready.collect/v1\",\"resources\":[7]}",
			     "resources[0] lacks");
}

static void test_load_errors(void **state)
{
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	assert_int_equal(source_files_load(&cs, "/nonexistent/state", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/state: cannot open: No such file or directory");

	/* the size bound is checked before reading (a sparse file) */
	const char *d = *state;
	_cleanup_free_ char *big = xasprintf("%s/pods.json", d);
	int fd = open(big, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)SOURCE_FILE_MAX + 1), 0);
	close(fd);
	assert_int_equal(source_files_load(&cs, d, err, sizeof(err)), -EINVAL);
	assert_contains(err, "pods.json: 512 MiB is larger than the 512 MiB limit");
	unlink(big);

	scratch_write(d, "collect.json", "{\"schema\": 7}");
	assert_int_equal(source_files_load(&cs, d, err, sizeof(err)), -EINVAL);
	assert_contains(err, "/collect.json: not an hvready collect.json");
	cluster_state_clear(&cs);
}

/* Reading through the 1 MiB window: values and errors across its edges. */
static void test_large_file(void **state)
{
	const char *d = *state;
	_cleanup_free_ char *p = xasprintf("%s/pods.json", d);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n", f);
	char pad[700];
	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	const int n = 6000; /* ~5 MiB */
	for (int i = 0; i < n; i++)
		fprintf(f,
			"        {\n            \"apiVersion\": \"v1\",\n            \"kind\": "
			"\"Pod\",\n            \"metadata\": {\n                \"name\": "
			"\"pod-%d\",\n                \"namespace\": \"ns\",\n                "
			"\"managedFields\": [{\"manager\": \"%s\"}]\n            },\n            "
			"\"spec\": {\"note\": \"%s\"}\n        }%s\n",
			i, pad, pad, i + 1 < n ? "," : "");
	fputs("    ],\n    \"kind\": \"List\"\n}\n", f);
	fclose(f);
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	assert_int_equal(source_files_load(&cs, d, err, sizeof(err)), 0);
	assert_int_equal(cs_count(&cs, RES_PODS), n);
	const struct jv *last = cs_find(&cs, RES_PODS, "ns", "pod-5999");
	assert_int_equal(strlen(JQS(last, "spec", "note")), sizeof(pad) - 1);
	assert_null(JQ(last, "metadata", "managedFields"));
	cluster_state_clear(&cs);

	/* a bad byte deep in the file: its line is counted across windows */
	f = fopen(p, "a");
	fputs("{\"apiVersion\": \"v1\",\n \"kind\": \"Pod\" }}", f);
	fclose(f);
	cluster_state_init(&cs);
	assert_int_equal(source_files_load(&cs, d, err, sizeof(err)), -EINVAL);
	_cleanup_free_ char *want =
	    xasprintf("malformed JSON at line %d, column 17", 3 + n * 10 + 5);
	assert_contains(err, want);
	cluster_state_clear(&cs);
}

static void test_collect_round_trip(void **state)
{
	struct cluster_state cs, back;
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	assert_int_equal(
	    parse(&cs,
		  "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" POD(
		      "n", "a") ",{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":"
				"{\"name\":\"n1\",\"labels\":{}},\"spec\":{\"taints\":"
				"[]},\"status\":{\"capacity\":{\"cpu\":\"8\"},\"n\":"
				"1.50,\"big\":18446744073709551615,\"s\":\"a/b\\\"c\\n"
				"\\u0001<>\"}}]}",
		  NULL, err),
	    0);
	cs_set_status(&cs, RES_STORAGECLASSES, RES_COLLECTED, NULL);
	cs_set_status(&cs, RES_KUBEVIRTS, RES_NOT_INSTALLED,
		      "the API does not serve kubevirt.io/v1 kubevirts");
	cs_set_status(&cs, RES_LH_VOLUMES, RES_FORBIDDEN, "forbidden: list longhorn.io/volumes");
	cs_set_status(&cs, RES_DEPLOYMENTS, RES_FAILED, "list apps/deployments: HTTP 500");
	cs.res[RES_DEPLOYMENTS].duration_ns = 1500 * NSEC_PER_MSEC;
	cs.read_at_ns = INT64_C(1788614444) * NSEC_PER_SEC;
	cs.source = xstrdup("https://127.0.0.1:6443 (Kubernetes v1.34.4+rke2r1)");

	_cleanup_free_ char *d = xasprintf("%s/dump", (const char *)*state);
	/* a stale file from an earlier collect must not pass for fresh data */
	assert_int_equal(mkdir(d, 0700), 0);
	scratch_write(d, "volumes.longhorn.io.json", EMPTY_LIST);
	assert_int_equal(collect_write(&cs, d, err, sizeof(err)), 0);
	struct stat st;
	assert_int_equal(stat(d, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	_cleanup_free_ char *stale = xasprintf("%s/volumes.longhorn.io.json", d);
	assert_int_equal(access(stale, F_OK), -1);

	_cleanup_free_ char *sc_path = xasprintf("%s/storageclasses.storage.k8s.io.json", d);
	_cleanup_free_ char *sc = NULL;
	assert_int_equal(util_read_file(sc_path, 1 << 20, &sc, NULL), 0);
	assert_string_equal(sc,
			    "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": "
			    "\"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n "
			    "   }\n}\n");
	_cleanup_free_ char *nodes_path = xasprintf("%s/nodes.json", d);
	_cleanup_free_ char *nodes = NULL;
	assert_int_equal(util_read_file(nodes_path, 1 << 20, &nodes, NULL), 0);
	assert_contains(nodes, "\n            \"kind\": \"Node\",\n");
	assert_contains(nodes, "\"labels\": {}\n");
	assert_contains(nodes, "\"taints\": []");
	assert_contains(nodes, "\"n\": 1.50,");
	assert_contains(nodes, "\"big\": 18446744073709551615,");
	assert_contains(nodes, "\"s\": \"a/b\\\"c\\n\\u0001<>\"");

	cluster_state_init(&back);
	assert_int_equal(source_files_load(&back, d, err, sizeof(err)), 0);
	for (int i = 0; i < _RES_MAX; i++) {
		if (back.res[i].status != cs.res[i].status)
			fail_msg("%s: %s after the round trip, %s before", resource_defs[i].plural,
				 resource_status_name(back.res[i].status),
				 resource_status_name(cs.res[i].status));
		if (cs.res[i].status == RES_COLLECTED) {
			json_object *before = jv_to_json(cs_items(&cs, i));
			json_object *after = jv_to_json(cs_items(&back, i));
			assert_true(json_object_equal(before, after));
			json_object_put(before);
			json_object_put(after);
		} else if (cs.res[i].error)
			assert_string_equal(cs.res[i].error, back.res[i].error);
	}
	assert_int_equal(back.read_at_ns, cs.read_at_ns);
	assert_int_equal(back.res[RES_DEPLOYMENTS].duration_ns, 1500 * NSEC_PER_MSEC);
	cluster_state_clear(&back);

	/* DIR must be a directory */
	assert_true(collect_write(&cs, sc_path, err, sizeof(err)) < 0);
	assert_contains(err, "exists and is not a directory");
	cluster_state_clear(&cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mixed_list),
	    cmocka_unit_test(test_typed_list_and_stream),
	    cmocka_unit_test(test_managed_fields),
	    cmocka_unit_test(test_bad_input),
	    cmocka_unit_test(test_bom),
	    cmocka_unit_test_setup_teardown(test_directory, scratch_setup, scratch_teardown),
	    cmocka_unit_test_setup_teardown(test_directory_order, scratch_setup, scratch_teardown),
	    cmocka_unit_test(test_collect_json_errors),
	    cmocka_unit_test_setup_teardown(test_load_errors, scratch_setup, scratch_teardown),
	    cmocka_unit_test_setup_teardown(test_large_file, scratch_setup, scratch_teardown),
	    cmocka_unit_test_setup_teardown(test_collect_round_trip, scratch_setup,
					    scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
