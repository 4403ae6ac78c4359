/* A canary's result read back and aged (aggregator/canary_result.c,
 * docs/canary.md#results-in-the-gates). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "canary_result.h"
#include "canary_result_cm.h"

#define END "2026-12-02T10:00:00Z"

static const char result[] =
    "{\"schema\": \"hvready.canary/v1\", \"run\": \"0123456789abcdef\", \"namespace\": "
    "\"hvready-canary\", \"started_at\": \"2026-12-02T09:58:00Z\", \"finished_at\": \"" END
    "\", \"status\": \"FAIL\", \"findings\": ["
    "{\"check\": \"canary.rwx\", \"status\": \"PASS\", \"message\": \"read back\", "
    "\"evidence\": {\"node_a\": \"n1\", \"ms\": 12, \"ok\": true, \"l\": [1, \"x\"], \"m\": "
    "{\"k\": null}}, \"remediation\": \"\"},"
    "{\"check\": \"canary.vm.start\", \"status\": \"FAIL\", \"message\": \"no VMI\"},"
    "{\"check\": \"canary.migrate\", \"status\": \"UNKNOWN\", \"message\": \"API error\"},"
    "{\"check\": \"canary.cleanup\", \"status\": \"PASS\", \"message\": \"removed 4\"}]}";

static int64_t end_ns(void)
{
	int64_t ns;
	assert_int_equal(util_parse_rfc3339(END, &ns), 0);
	return ns;
}

static void parse(struct canary_result *r)
{
	char err[256] = "";
	int rc = canary_result_parse(result, strlen(result), "f.json", r, err, sizeof(err));
	if (rc < 0)
		fail_msg("%s", err);
	assert_int_equal(r->findings.n, 4);
}

/* Apply at END + age_s; the statuses in order, as a string like "PWWS". */
static void statuses(const struct canary_result *r, int64_t age_s, char *out,
		     struct finding_list *l, struct verdict_canary *vc)
{
	*l = (struct finding_list){0};
	canary_result_apply(r, end_ns() + age_s * NSEC_PER_SEC, CANARY_MAX_AGE_DEFAULT_NS, NULL,
			    NULL, l, vc);
	for (size_t i = 0; i < l->n; i++)
		out[i] = status_name(l->items[i].status)[0];
	out[l->n] = '\0';
}

static void test_fresh(void **state)
{
	struct canary_result r;
	parse(&r);
	struct finding_list l;
	struct verdict_canary vc = {0};
	char st[8];
	statuses(&r, 2 * 3600 + 5 * 60, st, &l, &vc);
	/* PASS proof, FAIL blocks, UNKNOWN is no proof (WARN), a clean cleanup stays PASS */
	assert_string_equal(st, "PFWP");
	assert_string_equal(l.items[0].message, "proved by canary run 0123456789abcdef, 2h05m ago: "
						"read back");
	assert_string_equal(l.items[1].message, "canary run 0123456789abcdef, 2h05m ago: no VMI");
	assert_non_null(strstr(l.items[2].message, "not proved"));
	assert_null(strstr(l.items[3].message, "proved by"));
	assert_false(vc.stale);
	assert_int_equal(vc.age_ns, (int64_t)7500 * NSEC_PER_SEC);
	int64_t ms;
	assert_true(kv_get_int(&l.items[0].evidence, "ms", &ms));
	assert_int_equal(ms, 12);
	assert_string_equal(kv_get_str(&l.items[0].evidence, "canary_status"), "PASS");
	assert_string_equal(kv_get_str(&l.items[0].evidence, "node_a"), "n1");
	finding_list_clear(&l);
	/* exactly --canary-max-age old: still proof; a second more: stale */
	statuses(&r, 7 * 86400, st, &l, &vc);
	assert_string_equal(st, "PFWP");
	finding_list_clear(&l);
	statuses(&r, 7 * 86400 + 1, st, &l, &vc);
	assert_string_equal(st, "WWWS");
	assert_true(vc.stale);
	assert_non_null(strstr(l.items[0].message, "stale: "));
	assert_non_null(strstr(l.items[0].message, "it was PASS"));
	finding_list_clear(&l);
	/* a little in the future: clocks; far: no proof */
	statuses(&r, -60, st, &l, &vc);
	assert_string_equal(st, "PFWP");
	assert_int_equal(vc.age_ns, 0);
	finding_list_clear(&l);
	statuses(&r, -3600, st, &l, &vc);
	assert_string_equal(st, "WWWS");
	assert_true(vc.future);
	finding_list_clear(&l);
	verdict_canary_clear(&vc);
	canary_result_clear(&r);
}

static void test_select(void **state)
{
	struct canary_result r;
	parse(&r);
	struct strv skip = {0};
	strv_add(&skip, "canary.vm.start");
	struct finding_list l = {0};
	struct verdict_canary vc = {0};
	canary_result_apply(&r, end_ns(), CANARY_MAX_AGE_DEFAULT_NS, &skip, NULL, &l, &vc);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.items[1].status, STATUS_SKIP);
	assert_string_equal(l.items[1].message, "skipped by --skip");
	finding_list_clear(&l);
	verdict_canary_clear(&vc);
	strv_clear(&skip);
	canary_result_clear(&r);
}

static void expect_bad(const char *text, const char *want)
{
	struct canary_result r;
	char err[256] = "";
	assert_int_equal(canary_result_parse(text, strlen(text), "f", &r, err, sizeof(err)),
			 -EINVAL);
	if (!strstr(err, want))
		fail_msg("\"%s\": error \"%s\", want \"%s\"", text, err, want);
	assert_null(r.run);
	assert_int_equal(r.findings.n, 0);
}

static void test_bad(void **state)
{
	expect_bad("", "not JSON");
	expect_bad("{\"schema\": ", "not JSON: it ends too early");
	expect_bad("[]", "not a JSON object");
	expect_bad("{} {}", "more after the object");
	expect_bad("{\"schema\": \"hvready.report/v1\"}", "not a canary result");
	expect_bad("{\"schema\": \"hvready.canary/v1\", \"run\": \"BAD ID\"}", "no valid \"run\"");
	expect_bad("{\"schema\": \"hvready.canary/v1\", \"run\": \"ab\"}", "no \"finished_at\"");
	expect_bad("{\"schema\": \"hvready.canary/v1\", \"run\": \"ab\", \"finished_at\": \"x\"}",
		   "not an RFC 3339 time");
	const char *head = "{\"schema\": \"hvready.canary/v1\", \"run\": \"ab\", \"finished_at\": "
			   "\"" END "\", \"status\": \"PASS\", \"findings\": ";
	char buf[512];
	snprintf(buf, sizeof(buf), "%s[]}", head);
	expect_bad(buf, "no \"findings\"");
	snprintf(buf, sizeof(buf), "%s[{\"check\": \"host.kvm\", \"status\": \"PASS\"}]}", head);
	expect_bad(buf, "\"host.kvm\" is not a canary step");
	snprintf(buf, sizeof(buf), "%s[{\"check\": \"canary.rwx\", \"status\": \"GOOD\"}]}", head);
	expect_bad(buf, "no valid \"status\"");
	snprintf(buf, sizeof(buf),
		 "%s[{\"check\": \"canary.rwx\", \"status\": \"PASS\", \"message\": \"m\", "
		 "\"evidence\": 3}]}",
		 head);
	expect_bad(buf, "\"evidence\" is not an object");
}

static void test_age(void **state)
{
	int64_t ns;
	assert_int_equal(canary_result_parse_age("7d", &ns), 0);
	assert_int_equal(ns, CANARY_MAX_AGE_DEFAULT_NS);
	assert_int_equal(canary_result_parse_age("90", &ns), 0);
	assert_int_equal(ns, 90 * NSEC_PER_SEC);
	assert_int_equal(canary_result_parse_age("12h", &ns), 0);
	assert_int_equal(canary_result_parse_age("365d", &ns), 0);
	assert_int_equal(canary_result_parse_age("366d", &ns), -EINVAL);
	assert_int_equal(canary_result_parse_age("0", &ns), -EINVAL);
	assert_int_equal(canary_result_parse_age("-1d", &ns), -EINVAL);
	assert_int_equal(canary_result_parse_age("3w", &ns), -EINVAL);
	assert_int_equal(canary_result_parse_age("", &ns), -EINVAL);
	char b[32];
	canary_result_age(7500 * NSEC_PER_SEC, b, sizeof(b));
	assert_string_equal(b, "2h05m");
	canary_result_age(8 * 86400 * NSEC_PER_SEC, b, sizeof(b));
	assert_string_equal(b, "8d0h");
}

/* configmap:NS/NAME, and the ConfigMap's 1 MiB: a larger result is refused
 * before any request (no client needed). */
static void test_configmap(void **state)
{
	char ns[64], name[254], err[512];
	assert_true(canary_result_cm_ref("configmap:hvready-canary/hvready-canary-result", ns, name,
					 err, sizeof(err)));
	assert_string_equal(ns, "hvready-canary");
	assert_string_equal(name, "hvready-canary-result");
	assert_false(canary_result_cm_ref("/tmp/result.json", ns, name, err, sizeof(err)));
	assert_string_equal(err, "");
	static const char *const bad[] = {
	    "configmap:",	  "configmap:ns",     "configmap:/x",	 "configmap:ns/",
	    "configmap:Bad_NS/x", "configmap:ns/Bad", "configmap:-ns/x", "configmap:ns/x-"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		assert_false(canary_result_cm_ref(bad[i], ns, name, err, sizeof(err)));
		assert_non_null(strstr(err, bad[i]));
	}
	assert_true(canary_result_cm_valid_name("a.b-c"));
	assert_false(canary_result_cm_valid_name(""));
	size_t big = CANARY_RESULT_CM_MAX_BYTES - strlen(CANARY_RESULT_CM_KEY) + 1;
	char *text = xmalloc(big);
	memset(text, ' ', big);
	int attempts = -1;
	assert_int_equal(canary_result_cm_write(NULL, INT64_MAX, "ns", "r", text, big, &attempts,
						err, sizeof(err)),
			 -EFBIG);
	assert_int_equal(attempts, 0);
	assert_non_null(strstr(err, "more than a ConfigMap holds (1 MiB): not written"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fresh),     cmocka_unit_test(test_select),
	    cmocka_unit_test(test_bad),	      cmocka_unit_test(test_age),
	    cmocka_unit_test(test_configmap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
