/* The streamed JSON verdict (aggregator/verdict_stream.c, written by
 * json_write.h without json-c) is byte for byte what json-c prints for
 * verdict_to_json() (the json-c builders, tests/unit/verdict_oracle.h) in
 * compact form: rendered whole, and with host findings written from cached
 * fragments (serve); and pretty (`report --format json`), what json-c prints
 * pretty. The writer alone: test_json_write.c. */
#include "render_fixture.h"
#include "verdict_oracle.h"
#include "verdict_stream.h"

struct buf {
	char *p;
	size_t len;
	size_t writes;
};

static void buf_write(void *ctx, const char *p, size_t n)
{
	struct buf *b = ctx;
	b->p = xrealloc(b->p, b->len + n + 1);
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	b->writes++;
}

struct frags {
	const struct verdict *v;
	char **cache;
	size_t *lens;
};

static const char *fragment(void *ctx, size_t i, size_t *ret_len)
{
	struct frags *f = ctx;
	if (!f->cache[i])
		f->cache[i] = verdict_stream_fragment(&f->v->findings.items[i], &f->lens[i]);
	*ret_len = f->lens[i];
	return f->cache[i];
}

static void assert_same_as_json_c(struct verdict *v)
{
	json_object *o = verdict_to_json(v);
	const char *want = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE);
	struct buf whole = {0};
	struct verdict_stream_out out = {.write = buf_write, .ctx = &whole};
	verdict_stream_json(v, &out);
	assert_string_equal(whole.p, want);
	free(whole.p);
	json_object_put(o);
}

/* write and fragment with one context, as the server has them. */
struct both {
	struct buf b;
	struct frags f;
};

static void both_write(void *ctx, const char *p, size_t n)
{
	buf_write(&((struct both *)ctx)->b, p, n);
}

static const char *both_fragment(void *ctx, size_t i, size_t *ret_len)
{
	return fragment(&((struct both *)ctx)->f, i, ret_len);
}

static void assert_fragments_same(struct verdict *v)
{
	json_object *o = verdict_to_json(v);
	const char *want = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t saved = v->n_borrowed;
	v->n_borrowed = v->findings.n;
	struct both ctx = {.f = {.v = v,
				 .cache = xcalloc(v->findings.n + 1, sizeof(char *)),
				 .lens = xcalloc(v->findings.n + 1, sizeof(size_t))}};
	struct verdict_stream_out out = {
	    .write = both_write, .ctx = &ctx, .fragment = both_fragment};
	verdict_stream_json(v, &out);
	v->n_borrowed = saved;
	assert_string_equal(ctx.b.p, want);
	/* Small writes were gathered. */
	assert_true(ctx.b.writes < 10);
	for (size_t i = 0; i <= v->findings.n; i++)
		free(ctx.f.cache[i]);
	free(ctx.f.cache);
	free(ctx.f.lens);
	free(ctx.b.p);
	json_object_put(o);
}

/* As `report --format json` prints it (verdict_stream_out.pretty): what
 * json-c prints pretty; fragments are not used then. */
static void assert_pretty_same_as_json_c(struct verdict *v)
{
	struct buf got = {0};
	struct verdict_stream_out out = {.write = buf_write, .ctx = &got, .pretty = true};
	verdict_stream_json(v, &out);
	json_object *o = verdict_to_json(v);
	assert_non_null(got.p);
	assert_string_equal(got.p, json_object_to_json_string_ext(
				       o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	free(got.p);
}

static void test_fixture(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	/* Every character json-c escapes, in a node name and an object. */
	struct finding *f = fx_add(&v, "host.iscsi", STATUS_WARN, "n\x01\b\f\n\r\t\"\\/\x1f\x7f",
				   "Pod/ns/a\x02/b", "control \x03 chars", "fix \x1e it");
	kv_add_str(&f->evidence, "k\x04", "v\x05");
	gates_clear(v.gates);
	gates_compute(&v.findings, v.gates);
	assert_same_as_json_c(&v);
	assert_fragments_same(&v);
	assert_pretty_same_as_json_c(&v);
	verdict_clear(&v);
}

/* With the change-board header and waivers: the waiver of a finding is
 * written after its node and object on both paths (docs/change-board.md). */
static void test_waived(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	v.header.api_server = xstrdup("https://10.0.0.1:6443");
	v.header.cluster_uid = xstrdup("4f6c2d0e-9a51-4c3b-8f21-0d5e3b7a9c10");
	verdict_set_board(&v, "Jane \"Doe\"", "v1.5.0");
	static const char yaml[] = "- check: host.kvm\n  node: harvester-node-3\n"
				   "  reason: \"KVM \\\"fixed\\\" today\"\n  approvedBy: CAB\n"
				   "  expires: 2099-01-01\n";
	struct waiver_list wl;
	char err[256];
	if (waivers_parse((const uint8_t *)yaml, strlen(yaml), "w.yaml", &wl, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	verdict_apply_waivers(&v, &wl);
	assert_int_equal(verdict_waived_count(&v), 1);
	assert_same_as_json_c(&v);
	assert_fragments_same(&v);
	assert_pretty_same_as_json_c(&v);
	verdict_clear(&v);
}

/* The head's every part: versions with nodes, the canary's result with
 * serve's schedule, its error; evidence with a key given twice (as a decoded
 * report may carry it: json-c keeps the first place, the last value). */
static void test_head_parts(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	v.versions.c[0].version = xstrdup("v1.5.0");
	v.versions.c[0].from = xstrdup("Setting \"server-version\"");
	v.versions.c[1].version = xstrdup("v1.4.0");
	v.versions.c[1].note = xstrdup("newer than the matrix");
	v.versions.nodes = xcalloc(2, sizeof(*v.versions.nodes));
	v.versions.n_nodes = 2;
	v.versions.nodes[0] =
	    (struct node_version){xstrdup("n1"), xstrdup("v1.30.1+rke2r1"), xstrdup("rke2"),
				  xstrdup("containerd://1.7"), xstrdup("Harvester v1.5.0")};
	v.versions.nodes[1] = (struct node_version){xstrdup("n\t2"), NULL, NULL, NULL, NULL};
	v.state_read_ns = v.generated_ns - 90 * NSEC_PER_SEC;
	v.state_error = xstrdup("list nodes: \"timeout\"");
	v.canary = (struct verdict_canary){.present = true,
					   .source = xstrdup("/tmp/c.json"),
					   .run = xstrdup("run-1"),
					   .ns = xstrdup("hvready-canary"),
					   .status = xstrdup("PASS"),
					   .started_ns = v.generated_ns - 7200 * NSEC_PER_SEC,
					   .finished_ns = v.generated_ns - 7000 * NSEC_PER_SEC,
					   .age_ns = 7000 * NSEC_PER_SEC,
					   .max_age_ns = 86400 * NSEC_PER_SEC,
					   .interval_ns = 3600 * NSEC_PER_SEC,
					   .running = true,
					   .runs = 3,
					   .run_error = xstrdup("pod \"x\" failed")};
	struct finding *f = &v.findings.items[0];
	struct kv_list *ev = &f->evidence;
	ev->items = xrealloc(ev->items, (ev->n + 2) * sizeof(*ev->items));
	ev->items[ev->n++] = (struct kv){xstrdup("dup"), {.type = VALUE_INT, .i = 1}};
	ev->items[ev->n++] = (struct kv){xstrdup("dup"), {.type = VALUE_BOOL, .b = true}};
	ev->cap = ev->n;
	assert_same_as_json_c(&v);
	assert_fragments_same(&v);
	assert_pretty_same_as_json_c(&v);
	/* serve could not read the result */
	verdict_canary_error(&v, "/tmp/c.json", "open: \"no such file\"");
	v.canary.interval_ns = 60 * NSEC_PER_SEC;
	assert_same_as_json_c(&v);
	assert_pretty_same_as_json_c(&v);
	verdict_clear(&v);
}

static void test_empty(void **state)
{
	struct verdict v = {.source = xstrdup("")};
	gates_compute(&v.findings, v.gates);
	assert_same_as_json_c(&v);
	assert_fragments_same(&v);
	assert_pretty_same_as_json_c(&v);
	verdict_clear(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_waived),
	    cmocka_unit_test(test_head_parts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
