/* The streamed JSON verdict (aggregator/verdict_stream.c) is byte for byte
 * what json-c prints for verdict_to_json() in compact form: rendered whole,
 * and with host findings written from cached fragments; and re-indented by
 * json_pretty (as `report --format json` prints it), what json-c prints
 * pretty. json_pretty is also checked alone on random documents fed in
 * random pieces. */
#include "json_pretty.h"
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

static unsigned rnd(unsigned *seed, unsigned n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

/* Strings with what is escaped (quotes, backslashes, control characters,
 * slashes) and what looks structural inside a string. */
static json_object *random_string(unsigned *seed)
{
	static const char *const parts[] = {"a", "\"", "\\", "{",    "}", "[", "]",    ",",
					    ":", " ",  "\n", "\x01", "/", "ü", "\\\"", "\"\\"};
	char s[64] = "";
	for (unsigned i = rnd(seed, 8); i > 0; i--)
		strcat(s, parts[rnd(seed, ELEMENTSOF(parts))]);
	return json_object_new_string(s);
}

static json_object *random_value(unsigned *seed, int depth)
{
	unsigned kind = depth > 4 ? rnd(seed, 5) : rnd(seed, 7);
	switch (kind) {
	case 0:
		return random_string(seed);
	case 1:
		return json_object_new_int64((int64_t)rnd(seed, 2000) - 1000);
	case 2:
		return json_object_new_boolean(rnd(seed, 2));
	case 3:
		return NULL; /* null */
	case 4:
		return json_object_new_double(rnd(seed, 1000) / 8.0);
	case 5: {
		json_object *a = json_object_new_array();
		for (unsigned i = rnd(seed, 4); i > 0; i--)
			json_object_array_add(a, random_value(seed, depth + 1));
		return a;
	}
	default: {
		json_object *o = json_object_new_object();
		for (unsigned i = rnd(seed, 4); i > 0; i--) {
			json_object *k = random_string(seed);
			json_object_object_add(o, json_object_get_string(k),
					       random_value(seed, depth + 1));
			json_object_put(k);
		}
		return o;
	}
	}
}

/* Feeds text in pieces of random size (1 to 40 bytes, or whole). */
static void feed_in_pieces(struct json_pretty *p, const char *s, unsigned *seed)
{
	size_t n = strlen(s), i = 0;
	while (i < n) {
		size_t k = rnd(seed, 3) ? 1 + rnd(seed, 40) : n;
		if (k > n - i)
			k = n - i;
		json_pretty_feed(p, s + i, k);
		i += k;
	}
	json_pretty_flush(p);
}

static void test_random_documents(void **state)
{
	unsigned seed = 42;
	for (int round = 0; round < 2000; round++) {
		json_object *o = random_value(&seed, 0);
		if (!o)
			continue;
		struct buf got = {0};
		struct json_pretty *p = xmalloc(sizeof(*p));
		json_pretty_init(p, buf_write, &got);
		feed_in_pieces(p,
			       json_object_to_json_string_ext(
				   o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
			       &seed);
		const char *want = json_object_to_json_string_ext(
		    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			   JSON_C_TO_STRING_NOSLASHESCAPE);
		if (!got.p || strcmp(got.p, want) != 0)
			fail_msg("round %d: pretty of %s\n got: %s\nwant: %s", round,
				 json_object_to_json_string_ext(
				     o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
				 got.p ? got.p : "(nothing)", want);
		free(got.p);
		free(p);
		json_object_put(o);
	}
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
	    cmocka_unit_test(test_random_documents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
