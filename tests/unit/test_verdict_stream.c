/* The streamed JSON verdict (aggregator/verdict_stream.c) is byte for byte
 * what json-c prints for verdict_to_json() in compact form: rendered whole,
 * and with host findings written from cached fragments; and re-indented by
 * json_pretty (as `report --format json` prints it), what json-c prints
 * pretty. */
#include "json_pretty.h"
#include "render_fixture.h"
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

static void assert_pretty_same_as_json_c(struct verdict *v)
{
	struct buf got = {0};
	struct json_pretty *p = xmalloc(sizeof(*p));
	json_pretty_init(p, buf_write, &got);
	struct verdict_stream_out out = {.write = json_pretty_write, .ctx = p};
	verdict_stream_json(v, &out);
	json_pretty_flush(p);
	json_object *o = verdict_to_json(v);
	assert_non_null(got.p);
	assert_string_equal(got.p, json_object_to_json_string_ext(
				       o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	free(got.p);
	free(p);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
