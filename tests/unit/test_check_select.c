/* What the one-shot agent, the daemon and the aggregator's engine share
 * (common/check_select.h): --skip/--only and a check that decided nothing;
 * and the daemon's deferred network checks (agent_add_deferred). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "catalog.h"
#include "check_select.h"
#include "canary.h"
#include "engine.h"
#include "helper.h"

/* The tables generated from common/checks.def: each row in exactly the table
 * of its program, in the registry's order, network rows in the helper's list. */
static void test_registry_tables(void **state)
{
	size_t h = 0, a = 0, n = 0, k = 0;
	for (size_t i = 0; i < catalog_len; i++) {
		const struct check_info *ci = &catalog[i];
		assert_non_null(ci->runner);
		assert_non_null(ci->summary);
		char doc[128];
		snprintf(doc, sizeof(doc), "checks/%s.md", ci->id);
		assert_string_equal(ci->doc, doc);
		if (ci->source == CHECK_HOST) {
			assert_true(h < host_checks_len);
			assert_string_equal(host_checks[h++].id, ci->id);
		} else if (ci->source == CHECK_CANARY) {
			assert_true(k < canary_checks_len);
			assert_string_equal(canary_checks[k++].id, ci->id);
		} else {
			assert_true(a < api_checks_len);
			assert_string_equal(api_checks[a++].id, ci->id);
		}
		assert_int_equal(agent_network_check(ci->id), ci->network);
		if (ci->network)
			assert_string_equal(helper_network_checks[n++], ci->id);
	}
	assert_int_equal(h, host_checks_len);
	assert_int_equal(a, api_checks_len);
	assert_int_equal(k, canary_checks_len);
	assert_string_equal(canary_checks[canary_checks_len - 1].id, "canary.cleanup");
	assert_int_equal(n, helper_network_checks_len);
	assert_true(n > 0);
	/* a sample of the columns, as the old hand-kept tables had them */
	assert_string_equal(catalog_find("host.nfs.probe")->stem, "NFSProbe");
	assert_null(catalog_find("host.iscsi")->stem);
	assert_string_equal(catalog_find("host.kvm")->runner, "check_kvm");
	const struct api_check *c = NULL;
	for (size_t i = 0; i < api_checks_len; i++)
		if (streq(api_checks[i].id, "api.vsc.backup-target"))
			c = &api_checks[i];
	assert_non_null(c);
	assert_int_equal(c->needs[0], RES_VS_CLASSES);
	assert_int_equal(c->needs[1], RES_LH_BACKUPTARGETS);
	assert_int_equal(c->needs[2], RES_LH_SETTINGS);
	assert_int_equal(c->needs[3], RES_DEPLOYMENTS);
	assert_int_equal(c->needs[4], RES_NONE);
	for (size_t i = 0; i < api_checks_len; i++)
		if (streq(api_checks[i].id, "cluster.clock.skew"))
			assert_int_equal(api_checks[i].needs[0], RES_NONE);
}

static void test_left_out(void **state)
{
	struct strv skip = {0}, only = {0};
	assert_null(check_left_out(NULL, NULL, "host.kvm"));
	assert_null(check_left_out(&skip, &only, "host.kvm"));
	strv_add(&skip, "host.kvm");
	assert_string_equal(check_left_out(&skip, &only, "host.kvm"), "skipped by --skip");
	assert_null(check_left_out(&skip, &only, "host.clock"));
	strv_add(&only, "host.clock");
	assert_string_equal(check_left_out(&skip, &only, "host.iscsi"), "not selected by --only");
	assert_null(check_left_out(&skip, &only, "host.clock"));
	/* --skip wins over --only */
	strv_add(&only, "host.kvm");
	assert_string_equal(check_left_out(&skip, &only, "host.kvm"), "skipped by --skip");
	assert_string_equal(check_left_out(NULL, &only, "host.iscsi"), "not selected by --only");
	strv_clear(&skip);
	strv_clear(&only);
}

static void test_no_result(void **state)
{
	struct finding_list l = {0};
	finding_set(finding_list_add(&l, "host.kvm"), STATUS_PASS, "ok");
	assert_null(check_no_result(&l, 0, "host.kvm"));
	assert_int_equal(l.n, 1);
	struct finding *f = check_no_result(&l, 1, "host.clock");
	assert_non_null(f);
	assert_int_equal(l.n, 2);
	assert_string_equal(f->check, "host.clock");
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_string_equal(f->message, "the check produced no result");
	finding_list_clear(&l);
}

static void add(struct finding_list *l, const char *id, enum status st, const char *msg,
		const char *node)
{
	struct finding *f = finding_list_add(l, id);
	finding_set(f, st, "%s", msg);
	if (node)
		finding_set_node(f, node);
}

/* The in-process findings of a daemon cycle with host.image.share-manager
 * deferred (host.nfs.probe left out by --skip: SKIP in-process). */
static void cycle(struct agent_opts *o, struct agent_ctx *ctx, struct node_report *r)
{
	agent_opts_init(o);
	strv_add(&o->skip, "host.nfs.probe");
	*r = (struct node_report){.node = xstrdup("n1")};
	*ctx = (struct agent_ctx){.opts = o, .report = r, .defer_network = true};
	for (size_t i = 0; i < host_checks_len; i++) {
		const char *id = host_checks[i].id;
		if (streq(id, "host.nfs.probe"))
			add(&r->results, id, STATUS_SKIP, "skipped by --skip", "n1");
		else if (!agent_deferred(ctx, id))
			add(&r->results, id, STATUS_PASS, "local", "n1");
	}
	assert_true(agent_deferred(ctx, "host.image.share-manager"));
	assert_false(agent_deferred(ctx, "host.nfs.probe"));
	assert_false(agent_deferred(ctx, "host.kvm"));
	assert_int_equal(r->results.n, host_checks_len - 1);
}

static size_t index_of(const struct node_report *r, const char *id)
{
	for (size_t i = 0; i < r->results.n; i++)
		if (streq(r->results.items[i].check, id))
			return i;
	fail_msg("no finding of %s", id);
	return 0;
}

/* Table order, the helper's findings in the deferred check's place, node set. */
static void test_deferred_probed(void **state)
{
	struct agent_opts o;
	struct agent_ctx ctx;
	struct node_report r, probed = {0};
	cycle(&o, &ctx, &r);
	add(&probed.results, "host.image.share-manager", STATUS_FAIL, "pull refused", NULL);
	add(&probed.results, "host.image.share-manager", STATUS_WARN, "second", NULL);
	agent_add_deferred(&ctx, &probed, "unused");
	assert_int_equal(r.results.n, host_checks_len + 1);
	size_t k = 0;
	for (size_t i = 0; i < host_checks_len; i++) {
		const char *id = host_checks[i].id;
		assert_string_equal(r.results.items[k].check, id);
		assert_string_equal(r.results.items[k].node, "n1");
		k += streq(id, "host.image.share-manager") ? 2 : 1;
	}
	size_t at = index_of(&r, "host.image.share-manager");
	assert_string_equal(r.results.items[at].message, "pull refused");
	assert_string_equal(r.results.items[at + 1].message, "second");
	assert_string_equal(r.results.items[at + 1].node, "n1");
	assert_int_equal(r.results.items[index_of(&r, "host.nfs.probe")].status, STATUS_SKIP);
	node_report_clear(&probed);
	node_report_clear(&r);
	agent_opts_clear(&o);
}

/* The helper said nothing about a deferred check: UNKNOWN, no result. */
static void test_deferred_empty(void **state)
{
	struct agent_opts o;
	struct agent_ctx ctx;
	struct node_report r, probed = {0};
	cycle(&o, &ctx, &r);
	agent_add_deferred(&ctx, &probed, "unused");
	assert_int_equal(r.results.n, host_checks_len);
	const struct finding *f = &r.results.items[index_of(&r, "host.image.share-manager")];
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_string_equal(f->message, "the check produced no result");
	assert_string_equal(f->node, "n1");
	node_report_clear(&r);
	agent_opts_clear(&o);
}

/* No helper report at all: UNKNOWN "not probed" with the reason. */
static void test_deferred_not_probed(void **state)
{
	struct agent_opts o;
	struct agent_ctx ctx;
	struct node_report r;
	cycle(&o, &ctx, &r);
	agent_add_deferred(&ctx, NULL, "the probe helper timed out");
	assert_int_equal(r.results.n, host_checks_len);
	const struct finding *f = &r.results.items[index_of(&r, "host.image.share-manager")];
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_string_equal(f->message, "not probed: the probe helper timed out");
	assert_string_equal(kv_get_str(&f->evidence, "probe_process"),
			    "the probe helper timed out");
	assert_non_null(f->remediation);
	assert_string_equal(f->node, "n1");
	for (size_t i = 0; i < host_checks_len; i++)
		assert_string_equal(r.results.items[i].check, host_checks[i].id);
	node_report_clear(&r);
	agent_opts_clear(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registry_tables), cmocka_unit_test(test_left_out),
	    cmocka_unit_test(test_no_result),	    cmocka_unit_test(test_deferred_probed),
	    cmocka_unit_test(test_deferred_empty),  cmocka_unit_test(test_deferred_not_probed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
