/* How old a node's report is, and which of two reports is newer, when wall
 * clocks are stepped and reports are resent (docs/robustness.md). */
#include "agg_harness.h"
#include "store.h"

#define SEC NSEC_PER_SEC

static struct node_report *mk(const char *node, int64_t sent, uint64_t seq)
{
	struct node_report *r = xcalloc(1, sizeof(*r));
	r->node = xstrdup(node);
	r->sent_ns = sent;
	r->seq = seq;
	r->interval_s = 30;
	return r;
}

static struct node_entry live(struct node_report *r, int64_t generated_mono)
{
	return (struct node_entry){
	    .report = r, .received_ns = r->sent_ns, .generated_mono_ns = generated_mono};
}

static void test_age(void **state)
{
	const int64_t now = 1788614444 * SEC, mono = 5000 * SEC;
	struct node_report r = {.node = "n1", .sent_ns = now - 12 * SEC};
	/* Live: from the monotonic generation time, whatever sent_ns says. */
	struct node_entry e = {.report = &r, .generated_mono_ns = mono - 40 * SEC};
	assert_int_equal(engine_report_age_ns(&e, now, mono), 40 * SEC);
	r.sent_ns = now + 3600 * SEC; /* the node's clock is an hour ahead */
	assert_int_equal(engine_report_age_ns(&e, now, mono), 40 * SEC);
	r.sent_ns = now - 3600 * SEC; /* ... or behind */
	assert_int_equal(engine_report_age_ns(&e, now, mono), 40 * SEC);
	/* Offline (no monotonic time): the report's own timestamp, never negative. */
	assert_int_equal(engine_report_age_ns(&e, now, 0), 3600 * SEC);
	e.generated_mono_ns = 0;
	r.sent_ns = now - 7 * SEC;
	assert_int_equal(engine_report_age_ns(&e, now, mono), 7 * SEC);
	r.sent_ns = now + 7 * SEC;
	assert_int_equal(engine_report_age_ns(&e, now, mono), 0);
}

static void test_order(void **state)
{
	const int64_t t = 1788614444 * SEC;
	struct store s;
	store_init(&s);
	assert_int_equal(store_put_entry(&s, live(mk("n1", t, 5), 100 * SEC)), 1);
	/* The agent's clock stepped back an hour; the next cycle is newer. */
	assert_int_equal(store_put_entry(&s, live(mk("n1", t - 3600 * SEC, 6), 130 * SEC)), 1);
	assert_int_equal(store_get(&s, "n1")->rec->report.seq, 6);
	/* A report generated before the one held, arriving late: ignored. */
	assert_int_equal(store_put_entry(&s, live(mk("n1", t + 10 * SEC, 7), 120 * SEC)), 0);
	/* The same report again (same sent_ns and seq): ignored however late. */
	assert_int_equal(store_put_entry(&s, live(mk("n1", t - 3600 * SEC, 6), 200 * SEC)), 0);
	assert_int_equal(store_get(&s, "n1")->rec->generated_mono_ns, 130 * SEC);
	/* Resent with a new sent_ns, timed to its first generation: replaces. */
	assert_int_equal(store_put_entry(&s, live(mk("n1", t - 3590 * SEC, 6), 130 * SEC)), 1);
	/* Without monotonic times (tests, older callers): sent_ns, then seq. */
	assert_int_equal(store_put(&s, mk("n2", t, 1), t, 0), 1);
	assert_int_equal(store_put(&s, mk("n2", t - SEC, 9), t, 0), 0);
	assert_int_equal(store_put(&s, mk("n2", t, 2), t, 0), 1);
	assert_int_equal(s.stale, 3);
	store_clear(&s);
}

/* A node whose clock runs an hour ahead and whose agent stopped 100 s ago is
 * stale: its future sent_ns must not keep it fresh. */
static void test_stale_despite_future_clock(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
			"\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
	struct node_report *r = mk("n1", h.now_ns + 3600 * SEC, 1);
	h.nodes[h.n_nodes++] = live(r, 400 * SEC);
	struct engine_opts eo = {0};
	for (size_t i = 0; i < catalog_len; i++)
		if (strcmp(catalog[i].id, "cluster.nodes.reporting") != 0)
			strv_add(&eo.skip, catalog[i].id);
	struct agg_ctx ctx = harness_ctx(&h);
	ctx.now_mono_ns = 500 * SEC;
	engine_run(&ctx, &eo);
	strv_clear(&eo.skip);
	const struct finding *f = harness_finding(&h, "cluster.nodes.reporting", "Node/n1");
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "100s old"));
	node_report_clear(r);
	free(r);
	harness_clear(&h);
}

/* sent_ns is whatever the agent wrote: at the int64 limits neither the age
 * nor the clock skew may overflow (signed overflow is undefined; the
 * sanitizer build traps on it). */
static void test_sent_ns_limits(void **state)
{
	const int64_t now = 1788614444 * SEC;
	struct node_report r = {.node = "n1", .sent_ns = INT64_MIN};
	struct node_entry e = {.report = &r};
	assert_int_equal(engine_report_age_ns(&e, now, 0), INT64_MAX);
	r.sent_ns = INT64_MAX;
	assert_int_equal(engine_report_age_ns(&e, now, 0), 0);
	assert_int_equal(util_sub_sat_i64(INT64_MIN, 1), -INT64_MAX);
	assert_int_equal(util_sub_sat_i64(0, INT64_MIN), INT64_MAX);
	assert_int_equal(util_sub_sat_i64(-1, INT64_MAX), -INT64_MAX);
	assert_int_equal(util_sub_sat_i64(5, 7), -2);

	const int64_t sents[] = {INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1};
	for (size_t i = 0; i < sizeof(sents) / sizeof(sents[0]); i++) {
		struct harness h;
		harness_init(&h);
		struct node_report *nr = mk("n1", sents[i], 1);
		h.nodes[h.n_nodes++] =
		    (struct node_entry){.report = nr, .received_ns = h.now_ns, .rtt_ns = 3 * SEC};
		struct engine_opts eo = {0};
		for (size_t c = 0; c < catalog_len; c++)
			if (strcmp(catalog[c].id, "cluster.clock.skew") != 0)
				strv_add(&eo.skip, catalog[c].id);
		struct agg_ctx ctx = harness_ctx(&h);
		engine_run(&ctx, &eo);
		strv_clear(&eo.skip);
		const struct finding *f = NULL;
		for (size_t k = 0; k < h.out.n && !f; k++)
			if (strcmp(h.out.items[k].check, "cluster.clock.skew") == 0 &&
			    h.out.items[k].node && strcmp(h.out.items[k].node, "n1") == 0)
				f = &h.out.items[k];
		assert_non_null(f);
		assert_int_equal(f->status, STATUS_FAIL);
		assert_non_null(strstr(f->message, sents[i] < 0 ? "by +" : "by -"));
		node_report_clear(nr);
		free(nr);
		harness_clear(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_age),
	    cmocka_unit_test(test_order),
	    cmocka_unit_test(test_stale_despite_future_clock),
	    cmocka_unit_test(test_sent_ns_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
