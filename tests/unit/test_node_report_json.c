/* `report --node-reports DIR` reads the agent's JSON (`check --format json`) as
 * well as its msgpack, through the one decoder: the same report either way, and
 * the decoder's own errors for JSON that is not a valid report. */
#include "agg_harness.h"
#include "node_report_json.h"
#include "node_reports.h"
#include "render_json.h"
#include "wire.h"

#include <errno.h>
#include <ftw.h>

static void sample(struct node_report *r)
{
	*r = (struct node_report){0};
	r->node = xstrdup("hv-01");
	r->hostname = xstrdup("hv-01.example");
	r->agent_version = xstrdup("0.1.0");
	r->boot_id = xstrdup("7f0c1a52-1c3e-4f57-9d8e-5c1b1f7f3a10");
	r->sent_ns = 1788614444123456789;
	r->seq = UINT64_MAX - 1; /* above INT64_MAX: JSON's unsigned integers */
	r->interval_s = 30;
	struct finding *f = finding_list_add(&r->results, "host.kvm");
	finding_set(f, STATUS_PASS, "/dev/kvm usable");
	finding_remedy(f, "%s", "");
	kv_add_str(&f->evidence, "device", "/dev/kvm");
	kv_add_int(&f->evidence, "negative", -42);
	kv_add_bool(&f->evidence, "open", true);
	struct value_list *l = kv_add_list(&f->evidence, "modules");
	vlist_add_str(l, "kvm_intel");
	vlist_add_str(l, "ünïcode \"quoted\"\n");
	finding_set_node(f, "hv-01");
	f = finding_list_add(&r->results, "host.clock");
	finding_set(f, STATUS_WARN, "chronyd without rtcsync");
	finding_remedy(f, "add rtcsync to chrony.conf");
	struct kv_list *m = kv_add_map(&r->facts, "os");
	kv_add_str(m, "id", "sle-micro");
	kv_add_int(&r->facts, "cpus", 64);
}

static char *write_dir_file(const char *dir, const char *name, const char *buf, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	return path;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static char *mkdir_tmp(void)
{
	char tmpl[] = "/tmp/hvready-nrjson-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void test_json_equals_msgpack(void **state)
{
	struct node_report r;
	sample(&r);
	json_object *o = render_node_report_json(&r);
	const char *js = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	char *dir = mkdir_tmp();
	free(write_dir_file(dir, "hv-01.json", js, strlen(js)));
	json_object_put(o);

	struct node_entries e = {0};
	char err[512] = "";
	assert_int_equal(node_reports_load_dir(dir, &e, err, sizeof(err)), 0);
	assert_int_equal(e.n, 1);
	assert_true(wire_node_report_equal(e.items[0].report, &r));
	assert_int_equal(e.items[0].report->seq, UINT64_MAX - 1);
	node_entries_clear(&e);

	/* The same node's msgpack beside it, newer: one node, the newer report. */
	r.sent_ns += 1000;
	char *mp;
	size_t mplen;
	assert_int_equal(wire_encode_node_report(&r, &mp, &mplen), 0);
	free(write_dir_file(dir, "hv-01.msgpack", mp, mplen));
	free(mp);
	assert_int_equal(node_reports_load_dir(dir, &e, err, sizeof(err)), 0);
	assert_int_equal(e.n, 1);
	assert_int_equal(e.items[0].report->sent_ns, r.sent_ns);
	node_entries_clear(&e);
	node_report_clear(&r);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

/* One file's content and the error it must give (a substring). */
static void expect_error(const char *content, const char *want)
{
	char *dir = mkdir_tmp();
	free(write_dir_file(dir, "n.json", content, strlen(content)));
	struct node_entries e = {0};
	char err[512] = "";
	assert_int_equal(node_reports_load_dir(dir, &e, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("for %s: got \"%s\", want \"%s\"", content, err, want);
	assert_non_null(strstr(err, "n.json: not a node report"));
	node_entries_clear(&e);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static void test_json_errors(void **state)
{
	/* What "trailing bytes after the report" used to say of every JSON file. */
	expect_error(
	    "{\"schema\":\"hvready.node/v1\",\"node\":\"a\",\"sent_ns\":1,\"results\":[]}\n{}",
	    "line 2: more after the report's object");
	expect_error("{\"schema\":\"hvready.node/v1\",\n\"node\":",
		     "line 2: unexpected end of input");
	expect_error("{\"schema\" \"hvready.node/v1\"}", "JSON, line 1");
	/* Valid JSON, invalid report: the wire decoder's own field paths. */
	expect_error("{\"schema\":\"hvready.node/v1\",\"node\":\"a\",\"sent_ns\":1,"
		     "\"results\":[],\"facts\":{\"load\":0.5}}",
		     "unsupported type float at facts.load");
	expect_error("{\"schema\":\"hvready.node/v1\",\"node\":\"\",\"sent_ns\":1,\"results\":[]}",
		     "node: must not be empty");
	expect_error("{\"schema\":\"hvready.node/v9\",\"node\":\"a\"}", "unsupported schema");
	expect_error("{\"schema\":\"hvready.node/v1\",\"node\":\"a\",\"sent_ns\":1,\"results\":[{"
		     "\"check\":\"host.kvm\",\"status\":\"MAYBE\",\"message\":\"\",\"evidence\":{},"
		     "\"remediation\":\"\"}]}",
		     "results[0].status: unknown status \"MAYBE\"");
}

static void test_sniff(void **state)
{
	assert_true(node_report_is_json(" \n\t{", 4));
	assert_false(node_report_is_json("\x8a\xa6schema", 8));
	assert_false(node_report_is_json("", 0));
	assert_false(node_report_is_json("   ", 3));
	/* Depth beyond the tokener's bound is an error, not a deep recursion. */
	char deep[200];
	size_t n = 0;
	n += (size_t)snprintf(deep, sizeof(deep), "{\"a\":");
	for (int i = 0; i < 40; i++)
		deep[n++] = '[';
	deep[n] = 0;
	char *out = NULL;
	size_t outlen;
	char err[256];
	assert_int_equal(node_report_json_to_msgpack(deep, n, &out, &outlen, err, sizeof(err)),
			 -EINVAL);
	assert_null(out);
	assert_non_null(strstr(err, "JSON, line 1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json_equals_msgpack),
	    cmocka_unit_test(test_json_errors),
	    cmocka_unit_test(test_sniff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
