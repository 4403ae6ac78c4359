/*
 * GET /metrics: what metrics_render writes passes the strict exposition
 * checker (tests/tools/check_exposition.py, itself proven by its self-test
 * here), label values are escaped, and the series say what the verdict says.
 */
#include "render_fixture.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metrics.h"
#include "store.h"
#include "test_src.h"

static int run_checker(const char *arg)
{
	_cleanup_free_ char *cmd =
	    xasprintf("python3 '%s/tests/tools/check_exposition.py' %s", test_src(), arg);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run the strict checker on text. */
static int check_text(const char *text)
{
	char path[] = "/tmp/hvready-metrics-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t len = strlen(text);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	int r = run_checker(path);
	unlink(path);
	if (r != 0)
		fprintf(stderr, "--- the exposition checked:\n%s---\n", text);
	return r;
}

static struct node_report *report(const char *node, int64_t sent_ns)
{
	struct node_report *r = xcalloc(1, sizeof(*r));
	r->node = xstrdup(node);
	r->hostname = xstrdup(node);
	r->agent_version = xstrdup("0.1.0");
	r->sent_ns = sent_ns;
	r->seq = 1;
	return r;
}

static void test_checker_self_test(void **state)
{
	assert_int_equal(run_checker("--self-test"), 0);
	/* and it does reject: a counter without _total */
	assert_int_equal(check_text("# HELP x Y.\n# TYPE x counter\nx 1\n"), 1);
}

static void test_full_exposition(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	/* A node name no Kubernetes node has, to prove the escaping. */
	fx_add(&v, "host.iscsi", STATUS_WARN, "odd\"node\\with\nnewline\033", NULL, "odd", NULL);
	vm_table_add(&v.vms, "ns\"q", "vm\\b", "n\n1");

	struct store s;
	store_init(&s);
	int64_t now = v.generated_ns;
	store_put(&s, report("harvester-node-1", now - 12 * NSEC_PER_SEC), now - 12 * NSEC_PER_SEC,
		  0);
	store_put(&s, report("harvester-node-2", now - 8 * NSEC_PER_SEC), now - 8 * NSEC_PER_SEC,
		  0);
	/* Not newer than the one held: counted as stale. */
	store_put(&s, report("harvester-node-2", now - 9 * NSEC_PER_SEC), now, 0);

	struct cluster_state cs;
	cluster_state_init(&cs);
	cs.live = true;
	cs.read_at_ns = now - 2 * NSEC_PER_SEC;
	for (int i = 0; i < _RES_MAX; i++)
		cs_set_status(&cs, i, RES_COLLECTED, NULL);
	cs_set_status(&cs, RES_LH_BACKUPTARGETS, RES_FORBIDDEN, "403");
	cs_set_status(&cs, RES_VM_SNAPSHOTS, RES_NOT_INSTALLED, "404");
	cs.res[RES_NODES].duration_ns = 42 * NSEC_PER_MSEC;

	struct metrics_counters c = {.reports_received = 7};
	c.rejected[REJECT_UNAUTHORIZED] = 2;
	c.rejected[REJECT_MEDIA_TYPE] = 1;
	c.rejected[REJECT_BAD_REPORT] = 1;

	char *text = NULL;
	RENDER(text, metrics_render(f, &v, &s, &cs, &c, now));
	assert_int_equal(check_text(text), 0);

	/* Escaping: backslash, quote, newline by the format; ESC made visible. */
	assert_non_null(strstr(text,
			       "hvready_check_status{check=\"host.iscsi\",node="
			       "\"odd\\\"node\\\\with\\nnewline\\\\x1b\",status=\"WARN\"} 1\n"));
	assert_non_null(strstr(text, "hvready_vm_live_migratable{namespace=\"ns\\\"q\",name="
				     "\"vm\\\\b\",node=\"n\\n1\"} 1\n"));
	/* What the verdict says. */
	assert_non_null(strstr(text, "hvready_verdict_status{status=\"FAIL\"} 1\n"));
	assert_non_null(
	    strstr(text, "hvready_gate_status{gate=\"live-migration\",status=\"FAIL\"} 1\n"));
	assert_non_null(
	    strstr(text, "hvready_gate_status{gate=\"live-migration\",status=\"PASS\"} 0\n"));
	assert_non_null(strstr(text, "hvready_gate_blockers{gate=\"live-migration\"} 4\n"));
	assert_non_null(strstr(text, "hvready_check_status{check=\"host.kvm\",node="
				     "\"harvester-node-3\",status=\"FAIL\"} 1\n"));
	assert_non_null(strstr(text, "hvready_check_status{check=\"api.storageclass.default\","
				     "node=\"\",status=\"FAIL\"} 1\n"));
	assert_non_null(strstr(text, "hvready_findings{status=\"FAIL\"} 5\n"));
	assert_non_null(strstr(text, "hvready_vm_live_migratable{namespace=\"default\",name="
				     "\"vm-002\",node=\"harvester-node-2\"} 0\n"));
	assert_non_null(strstr(text, "hvready_node_reporting{node=\"harvester-node-4\"} 0\n"));
	assert_non_null(
	    strstr(text, "hvready_node_report_age_seconds{node=\"harvester-node-1\"} 12.000\n"));
	assert_non_null(strstr(text, "hvready_reports_received_total 7\n"));
	assert_non_null(strstr(text, "hvready_reports_accepted_total 2\n"));
	assert_non_null(strstr(text, "hvready_reports_stale_total 1\n"));
	assert_non_null(strstr(text, "hvready_report_rejected_total{reason=\"unauthorized\"} 2\n"));
	assert_non_null(
	    strstr(text, "hvready_report_rejected_total{reason=\"unsupported_media_type\"} 1\n"));
	assert_non_null(strstr(text, "hvready_report_rejected_total{reason=\"bad_report\"} 1\n"));
	assert_non_null(strstr(text,
			       "hvready_resource_status{resource=\"backuptargets.longhorn.io\","
			       "status=\"forbidden\"} 1\n"));
	assert_non_null(strstr(text, "hvready_resource_status{resource="
				     "\"virtualmachinesnapshots.snapshot.kubevirt.io\","
				     "status=\"not_installed\"} 1\n"));
	assert_non_null(strstr(text, "hvready_api_list_duration_seconds{resource=\"nodes\"} "
				     "0.042000\n"));
	assert_non_null(strstr(text, "hvready_cluster_state_timestamp_seconds 1788614442.000\n"));
	assert_non_null(strstr(text, "hvready_verdict_timestamp_seconds 1788614444.000\n"));
	/* One series per check and node: three host.kvm findings, three series. */
	size_t n = 0;
	for (const char *p = strstr(text, "hvready_check_status{check=\"host.kvm\""); p;
	     p = strstr(p + 1, "hvready_check_status{check=\"host.kvm\""))
		n++;
	assert_int_equal(n, 3);
	free(text);

	store_clear(&s);
	cluster_state_clear(&cs);
	verdict_clear(&v);
}

/* Before the first verdict (cluster state not read yet) the exposition is still valid. */
static void test_no_verdict_yet(void **state)
{
	struct store s;
	store_init(&s);
	char *text = NULL;
	RENDER(text, metrics_render(f, NULL, &s, NULL, NULL, 0));
	assert_int_equal(check_text(text), 0);
	assert_non_null(strstr(text, "hvready_reports_received_total 0\n"));
	assert_non_null(strstr(text, "# TYPE hvready_gate_status gauge\n"));
	assert_null(strstr(text, "hvready_gate_status{"));
	free(text);
	store_clear(&s);
}

/* A family with a label per node writes at most the bound's series, and
 * says how many it left out. */
static void test_series_cap(void **state)
{
	struct verdict v = {0};
	v.n_nodes = 30;
	v.nodes = xcalloc(v.n_nodes, sizeof(*v.nodes));
	for (size_t i = 0; i < v.n_nodes; i++)
		v.nodes[i].name = xasprintf("node-%02zu", i);
	struct store s;
	store_init(&s);
	metrics_set_series_max(10);
	char *text = NULL;
	RENDER(text, metrics_render(f, &v, &s, NULL, NULL, 0));
	metrics_set_series_max(METRICS_SERIES_MAX);
	assert_int_equal(check_text(text), 0);
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, "\nhvready_node_reporting{")); p++)
		n++;
	assert_int_equal(n, 10);
	assert_non_null(strstr(text, "node-09"));
	assert_null(strstr(text, "node-10"));
	assert_non_null(
	    strstr(text, "hvready_metrics_series_dropped{family=\"hvready_node_reporting\"} 20\n"));
	free(text);
	/* under the bound: all, and nothing dropped */
	RENDER(text, metrics_render(f, &v, &s, NULL, NULL, 0));
	assert_non_null(strstr(text, "node-29"));
	assert_null(strstr(text, "hvready_metrics_series_dropped{"));
	free(text);
	for (size_t i = 0; i < v.n_nodes; i++)
		free(v.nodes[i].name);
	free(v.nodes);
	store_clear(&s);
}

static void test_label_escaping(void **state)
{
	char *text = NULL;
	RENDER(text, metrics_label(f, "a\\b\"c\nd\te\xff ✓"));
	assert_string_equal(text, "\"a\\\\b\\\"c\\nd e\\\\xff ✓\"");
	free(text);
	RENDER(text, metrics_label(f, NULL));
	assert_string_equal(text, "\"\"");
	free(text);
	/* A name from an agent's report is as long as it likes: the value is
	 * cut, and two names with one long prefix stay two series. */
	char long_a[5000], long_b[5000];
	memset(long_a, 'a', sizeof(long_a) - 1);
	long_a[sizeof(long_a) - 1] = 0;
	memcpy(long_b, long_a, sizeof(long_b));
	long_b[sizeof(long_b) - 2] = 'b';
	char *ta = NULL, *tb = NULL;
	RENDER(ta, metrics_label(f, long_a));
	RENDER(tb, metrics_label(f, long_b));
	assert_int_equal(strlen(ta), METRICS_LABEL_MAX + 2);
	assert_int_equal(strlen(tb), METRICS_LABEL_MAX + 2);
	assert_string_not_equal(ta, tb);
	assert_int_equal(strncmp(ta, tb, METRICS_LABEL_MAX - 16), 0);
	assert_int_equal(ta[METRICS_LABEL_MAX - 16], '~');
	free(ta);
	free(tb);
	/* Cut at a character boundary: 300 "é" (2 bytes each) stay valid UTF-8. */
	char eacute[601];
	for (int i = 0; i < 300; i++)
		memcpy(eacute + 2 * i, "\xc3\xa9", 2);
	eacute[600] = 0;
	RENDER(text, metrics_label(f, eacute));
	assert_true(strlen(text) <= METRICS_LABEL_MAX + 2);
	char *tilde = strchr(text, '~');
	assert_non_null(tilde);
	assert_int_equal((tilde - text - 1) % 2, 0);
	free(text);
	/* At the limit: as it is. */
	long_a[METRICS_LABEL_MAX] = 0;
	RENDER(text, metrics_label(f, long_a));
	assert_int_equal(strlen(text), METRICS_LABEL_MAX + 2);
	assert_null(strchr(text, '~'));
	free(text);
	assert_string_equal(metrics_reject_name(REJECT_MEDIA_TYPE), "unsupported_media_type");
	assert_string_equal(metrics_reject_name((enum reject_reason)99), "other");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_checker_self_test), cmocka_unit_test(test_full_exposition),
	    cmocka_unit_test(test_no_verdict_yet),    cmocka_unit_test(test_label_escaping),
	    cmocka_unit_test(test_series_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
