/*
 * Waivers (docs/change-board.md): the parser (required keys, catalog IDs with
 * a did-you-mean, dates, one-line errors), matching (check, node, object),
 * expiry, UNKNOWN never waived, and the gates: a gate whose FAILs are all
 * waived is GO, one FAIL left keeps it NO-GO; and the header's --operator
 * and --target-version checks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "gates.h"
#include "report_header.h"
#include "verdict_oracle.h"
#include "verdict.h"
#include "waivers.h"

#define DAY (INT64_C(86400) * NSEC_PER_SEC)

static int parse(const char *yaml, struct waiver_list *wl, char *err, size_t errlen)
{
	return waivers_parse((const uint8_t *)yaml, strlen(yaml), "w.yaml", wl, err, errlen);
}

static void assert_parse_error(const char *yaml, const char *want)
{
	struct waiver_list wl;
	char err[512] = "";
	assert_int_equal(parse(yaml, &wl, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
	assert_null(strchr(err, '\n'));
	assert_int_equal(wl.n, 0);
	assert_null(wl.items);
}

static void test_parse_ok(void **state)
{
	struct waiver_list wl;
	char err[512];
	int r = parse("# CHG-1\n"
		      "- check: api.dns.replicas\n"
		      "  object: Deployment/kube-system/coredns\n"
		      "  reason: scaled in the window\n"
		      "  approvedBy: CAB CHG-1\n"
		      "  expires: 2026-12-31\n"
		      "- check: host.nfs.kernel\n"
		      "  node: worker-3\n"
		      "  reason: NFS module comes with the next kernel\n"
		      "  approvedBy: 4711\n"
		      "  expires: 2026-12-31T18:00:00+01:00\n"
		      "- check: api.storageclass.default\n"
		      "  reason: r\n"
		      "  approvedBy: a\n",
		      &wl, err, sizeof(err));
	if (r < 0)
		fail_msg("%s", err);
	assert_int_equal(wl.n, 3);
	assert_string_equal(wl.file, "w.yaml");
	assert_string_equal(wl.items[0].check, "api.dns.replicas");
	assert_string_equal(wl.items[0].object, "Deployment/kube-system/coredns");
	assert_null(wl.items[0].node);
	int64_t dec31;
	assert_int_equal(util_parse_rfc3339("2026-12-31T00:00:00Z", &dec31), 0);
	/* a date: through the end of that day, UTC */
	assert_true(wl.items[0].expires_ns == dec31 + DAY);
	assert_string_equal(wl.items[1].approved_by, "4711");
	assert_string_equal(wl.items[1].node, "worker-3");
	assert_true(wl.items[1].expires_ns == dec31 + 17 * 3600 * NSEC_PER_SEC);
	assert_null(wl.items[2].expires);
	assert_true(wl.items[2].expires_ns == INT64_MAX);
	waivers_clear(&wl);
	/* an empty list is a file with no waivers */
	assert_int_equal(parse("[]\n", &wl, err, sizeof(err)), 0);
	assert_int_equal(wl.n, 0);
	waivers_clear(&wl);
}

static void test_parse_errors(void **state)
{
	assert_parse_error("- check: host.nfs.kernl\n  reason: r\n  approvedBy: a\n",
			   "waiver 1: \"host.nfs.kernl\" is not a check ID (docs/checks.md) (did "
			   "you mean \"host.nfs.kernel\"?)");
	assert_parse_error("- check: no.such.thing.at.all\n  reason: r\n  approvedBy: a\n",
			   "\"no.such.thing.at.all\" is not a check ID (docs/checks.md)");
	assert_parse_error("- check: api.dns.replicas\n  approvedBy: a\n",
			   "waiver 1 (api.dns.replicas): reason is required");
	assert_parse_error("- check: api.dns.replicas\n  reason: r\n",
			   "waiver 1 (api.dns.replicas): approvedBy is required");
	assert_parse_error("- reason: r\n  approvedBy: a\n", "waiver 1: check is required");
	assert_parse_error("- check: api.dns.replicas\n  reason: r\n  approvedby: a\n",
			   "unknown key \"approvedby\" (did you mean \"approvedBy\"?)");
	assert_parse_error("- check: api.dns.replicas\n  reason: r\n  approvedBy: a\n"
			   "  expires: 2026-02-30\n",
			   "expires \"2026-02-30\" is not an RFC 3339 date");
	assert_parse_error("- check: api.dns.replicas\n  reason: r\n  approvedBy: a\n"
			   "  expires: next week\n",
			   "is not an RFC 3339 date");
	assert_parse_error(
	    "- check: api.dns.replicas\n  reason: \"two\\nlines\"\n  approvedBy: a\n",
	    "reason must be one line");
	assert_parse_error("- check: api.dns.replicas\n  reason: [a]\n  approvedBy: a\n",
			   "reason must be text");
	assert_parse_error("- check: api.dns.replicas\n  reason: ''\n  approvedBy: a\n",
			   "reason is empty");
	assert_parse_error("check: api.dns.replicas\n", "not a YAML list");
	assert_parse_error("- just a string\n", "waiver 1 is not a mapping");
	assert_parse_error("", "no waivers");
	assert_parse_error("- check: [unclosed\n", "w.yaml");
	/* the second waiver is named */
	assert_parse_error("- check: api.dns.replicas\n  reason: r\n  approvedBy: a\n"
			   "- check: api.dns.replicas\n  reason: r\n",
			   "waiver 2 (api.dns.replicas): approvedBy is required");
}

static void add(struct finding_list *l, const char *check, enum status st, const char *node,
		const char *object)
{
	struct finding *f = finding_list_add(l, check);
	finding_set(f, st, "%s", "msg");
	if (node)
		finding_set_node(f, node);
	if (object)
		finding_set_object(f, "%s", object);
}

static void test_apply_match_expiry_unknown(void **state)
{
	struct waiver_list wl;
	char err[512];
	int r = parse("- check: host.nfs.kernel\n  node: n1\n  reason: r1\n  approvedBy: a\n"
		      "- check: host.nfs.kernel\n  reason: expired\n  approvedBy: a\n"
		      "  expires: 2026-01-01\n"
		      "- check: api.dns.replicas\n  object: Deployment/kube-system/coredns\n"
		      "  reason: r3\n  approvedBy: a\n  expires: 2026-06-30\n"
		      "- check: cluster.clock.skew\n  reason: r4\n  approvedBy: a\n",
		      &wl, err, sizeof(err));
	if (r < 0)
		fail_msg("%s", err);
	struct finding_list l = {0};
	add(&l, "host.nfs.kernel", STATUS_FAIL, "n1", NULL); /* 0: by #0 */
	add(&l, "host.nfs.kernel", STATUS_FAIL, "n2", NULL); /* 1: #1 expired */
	add(&l, "api.dns.replicas", STATUS_WARN, NULL, "Deployment/kube-system/coredns"); /* 2 */
	add(&l, "api.dns.replicas", STATUS_WARN, NULL, "Deployment/kube-system/other");	  /* 3 */
	add(&l, "cluster.clock.skew", STATUS_UNKNOWN, NULL, NULL); /* 4: never */
	add(&l, "host.nfs.kernel", STATUS_PASS, "n1", NULL);	   /* 5: nothing to waive */
	int64_t now;
	assert_int_equal(util_parse_rfc3339("2026-06-30T23:59:59Z", &now), 0);
	ssize_t of[6];
	waivers_apply(&wl, &l, now, of);
	assert_int_equal(of[0], 0);
	assert_int_equal(of[1], -1);
	assert_int_equal(of[2], 2); /* the last second of its last day */
	assert_int_equal(of[3], -1);
	assert_int_equal(of[4], -1);
	assert_int_equal(of[5], -1);
	assert_string_equal(waiver_state(&wl.items[0]), "used");
	assert_string_equal(waiver_state(&wl.items[1]), "expired");
	assert_int_equal(wl.items[1].applied, 0);
	assert_string_equal(waiver_state(&wl.items[2]), "used");
	assert_string_equal(waiver_state(&wl.items[3]), "unused");
	assert_int_equal(wl.items[3].unknown_matched, 1);
	_cleanup_free_ char *note = waiver_note(&wl.items[2]);
	assert_string_equal(note, "waived (r3, by a, until 2026-06-30)");
	_cleanup_free_ char *none = waiver_note(&wl.items[3]);
	assert_string_equal(none, "waived (r4, by a, no expiry)");
	/* a day later the dated waiver has expired too */
	waivers_apply(&wl, &l, now + 1 * NSEC_PER_SEC, of);
	assert_int_equal(of[2], -1);
	assert_string_equal(waiver_state(&wl.items[2]), "expired");
	finding_list_clear(&l);
	waivers_clear(&wl);
}

/* A verdict of findings only, its gates as verdict_evaluate() computes them. */
static void verdict_of(struct verdict *v, const struct finding_list *l)
{
	memset(v, 0, sizeof(*v));
	v->generated_ns = INT64_C(1788614444) * NSEC_PER_SEC; /* 2026-09-05 */
	v->source = xstrdup("");
	for (size_t i = 0; i < l->n; i++) {
		/* finding_copy() overwrites what finding_list_add() allocated */
		struct finding *d = finding_list_add(&v->findings, l->items[i].check);
		finding_clear(d);
		finding_copy(d, &l->items[i]);
	}
	gates_compute(&v->findings, v->gates);
}

static void apply(struct verdict *v, const char *yaml)
{
	struct waiver_list wl;
	char err[512];
	if (parse(yaml, &wl, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	verdict_apply_waivers(v, &wl);
	assert_null(wl.items);
}

#define W(check, node) "- check: " check "\n  node: " node "\n  reason: r\n  approvedBy: a\n"

static void test_gate_flips_only_when_all_fails_waived(void **state)
{
	/* host.nfs.kernel feeds rwx; api.dns.replicas too */
	struct finding_list l = {0};
	add(&l, "host.nfs.kernel", STATUS_FAIL, "n1", NULL);
	add(&l, "host.nfs.kernel", STATUS_FAIL, "n2", NULL);
	add(&l, "api.dns.replicas", STATUS_PASS, NULL, NULL);
	struct verdict v;

	verdict_of(&v, &l);
	assert_int_equal(v.gates[GATE_RWX].status, STATUS_FAIL);
	apply(&v, W("host.nfs.kernel", "n1"));
	/* one FAIL left: still NO-GO, and only it blocks */
	assert_int_equal(v.gates[GATE_RWX].status, STATUS_FAIL);
	assert_int_equal(v.gates[GATE_RWX].n_blockers, 1);
	assert_int_equal(v.gates[GATE_RWX].blockers[0], 1);
	assert_non_null(verdict_waiver(&v, 0));
	assert_null(verdict_waiver(&v, 1));
	assert_int_equal(verdict_waived_count(&v), 1);
	/* the finding keeps its status */
	assert_int_equal(v.findings.items[0].status, STATUS_FAIL);
	verdict_clear(&v);

	verdict_of(&v, &l);
	apply(&v, W("host.nfs.kernel", "n1") W("host.nfs.kernel", "n2"));
	assert_int_equal(v.gates[GATE_RWX].status, STATUS_PASS);
	assert_int_equal(v.gates[GATE_RWX].n_blockers, 0);
	assert_int_equal(gates_exit_code(v.gates[GATE_RWX].status), 0);
	json_object *o = verdict_to_json(&v);
	json_object *fs, *f0, *wv, *w;
	assert_true(json_object_object_get_ex(o, "findings", &fs));
	f0 = json_object_array_get_idx(fs, 0);
	assert_true(json_object_object_get_ex(f0, "waiver", &wv));
	assert_string_equal(json_object_get_string(json_object_object_get(wv, "reason")), "r");
	assert_string_equal(json_object_get_string(json_object_object_get(f0, "status")), "FAIL");
	assert_true(json_object_object_get_ex(o, "waivers", &w));
	assert_int_equal(json_object_array_length(json_object_object_get(w, "used")), 2);
	json_object_put(o);
	verdict_clear(&v);

	/* a waived FAIL with an UNKNOWN beside it: the gate is undecided, not GO */
	add(&l, "api.dns.replicas", STATUS_UNKNOWN, NULL, NULL);
	verdict_of(&v, &l);
	apply(&v, W("host.nfs.kernel", "n1")
		      W("host.nfs.kernel",
			"n2") "- check: api.dns.replicas\n  reason: r\n  approvedBy: a\n");
	assert_int_equal(v.gates[GATE_RWX].status, STATUS_UNKNOWN);
	assert_null(verdict_waiver(&v, 3));
	assert_int_equal(v.waivers.items[2].unknown_matched, 1);
	verdict_clear(&v);
	finding_list_clear(&l);
}

static void test_waived_only_gate_is_not_unknown(void **state)
{
	/* A gate whose only finding is waived has evidence: PASS, not "nothing checked". */
	struct finding_list l = {0};
	add(&l, "api.dns.replicas", STATUS_WARN, NULL, NULL);
	struct verdict v;
	verdict_of(&v, &l);
	assert_int_equal(v.gates[GATE_RWX].status, STATUS_WARN);
	apply(&v, "- check: api.dns.replicas\n  reason: r\n  approvedBy: a\n");
	assert_int_equal(v.gates[GATE_RWX].status, STATUS_PASS);
	verdict_clear(&v);
	finding_list_clear(&l);
}

static void test_header_options(void **state)
{
	char *s = report_header_operator("  Jane\t Doe\n(ops)\x1b[31m \xff\xfe ");
	assert_string_equal(s, "Jane Doe (ops)[31m");
	free(s);
	assert_null(report_header_operator(" \n\t "));
	s = report_header_operator("Jürgen Müller \xe2\x80\xae evil");
	assert_string_equal(s, "Jürgen Müller evil");
	free(s);
	char big[400];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s = report_header_operator(big);
	assert_int_equal(strlen(s), REPORT_OPERATOR_MAX);
	free(s);
	const char *good[] = {"v1.5.0", "1.5", "1.5.0-rc1", "v1.4.3+build.7", "1.8.0-rc.1"};
	const char *bad[] = {"latest",	 "",	 "v1",		 "1.5.0 ", "1.5.0-",
			     "v1.5.0\n", "1..5", "1.5.0-rc1;rm", "v"};
	for (size_t i = 0; i < ELEMENTSOF(good); i++)
		if (!report_header_valid_version(good[i]))
			fail_msg("\"%s\" refused", good[i]);
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		if (report_header_valid_version(bad[i]))
			fail_msg("\"%s\" accepted", bad[i]);
}

static void test_header_redacts_and_never_invents(void **state)
{
	struct cluster_state cs;
	cluster_state_init(&cs);
	cs.live = true;
	cs.api_server = xstrdup("https://admin:s3cret@10.0.0.1:6443/k8s?token=abc&x=1");
	cs.cluster_uid_error = xstrdup("forbidden: get namespaces/kube-system answered 403");
	struct report_header h;
	report_header_from_state(&h, &cs, 0);
	assert_null(strstr(h.api_server, "s3cret"));
	assert_null(strstr(h.api_server, "abc"));
	assert_non_null(strstr(h.api_server, "10.0.0.1:6443"));
	assert_null(h.cluster_uid);
	assert_string_equal(h.cluster_uid_why,
			    "forbidden: get namespaces/kube-system answered 403");
	json_object *o = report_header_json(&h), *c, *uid;
	assert_true(json_object_object_get_ex(o, "cluster", &c));
	assert_true(json_object_object_get_ex(c, "kube_system_uid", &uid));
	assert_null(uid);
	json_object_put(o);
	report_header_clear(&h);
	/* files without a Namespace kube-system: unknown, and why */
	free(cs.cluster_uid_error);
	cs.cluster_uid_error = NULL;
	cs.live = false;
	report_header_from_state(&h, &cs, 0);
	assert_null(h.cluster_uid);
	assert_non_null(strstr(h.cluster_uid_why, "no Namespace kube-system in the files"));
	report_header_clear(&h);
	cluster_state_clear(&cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_ok),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_apply_match_expiry_unknown),
	    cmocka_unit_test(test_gate_flips_only_when_all_fails_waived),
	    cmocka_unit_test(test_waived_only_gate_is_not_unknown),
	    cmocka_unit_test(test_header_options),
	    cmocka_unit_test(test_header_redacts_and_never_invents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
