/* The verdict's JSON writer (aggregator/json_write.c) against json-c, the
 * reference it replaces (differential): every byte a string may hold
 * (control characters, quotes, backslash, '/', 0x7f, invalid UTF-8), int64
 * and uint64 limits, null, empty and nested containers, a map with a key
 * given twice (json-c keeps its first place and its last value), a string
 * larger than the writer's buffer; compact and pretty. Then the fuzz corpus
 * (fuzz/corpus/json_write) and random inputs through the fuzz target's
 * oracle (fuzz/json_write_oracle.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fuzz/json_write_oracle.h"
#include "test_src.h"

#define PLAIN  (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define PRETTY (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

struct out {
	struct jw_membuf b;
	size_t writes;
};

static void out_write(void *ctx, const char *buf, size_t len)
{
	struct out *o = ctx;
	jw_membuf_write(&o->b, buf, len);
	o->writes++;
}

typedef void (*writer_fn)(struct jw *w);

/* What fn writes, compact or pretty; malloc'd. */
static char *written(writer_fn fn, bool pretty)
{
	struct out o = {0};
	struct jw *w = xmalloc(sizeof(*w));
	if (pretty)
		jw_init_pretty(w, out_write, &o);
	else
		jw_init(w, out_write, &o);
	fn(w);
	jw_flush(w);
	free(w);
	return o.b.p ? o.b.p : xstrdup("");
}

/* fn's output equals json-c's text of o, both ways; o is put. */
static void assert_like_json_c(writer_fn fn, json_object *o)
{
	for (int pretty = 0; pretty < 2; pretty++) {
		char *got = written(fn, pretty);
		const char *want =
		    o ? json_object_to_json_string_ext(o, pretty ? PRETTY : PLAIN) : "null";
		if (strcmp(got, want) != 0)
			fail_msg("%s\n got: %s\nwant: %s", pretty ? "pretty" : "compact", got,
				 want);
		free(got);
	}
	json_object_put(o);
}

/* Every byte 1..255 in a key and in a value. */
static char all_bytes[256];

static void w_all_bytes(struct jw *w)
{
	jw_object_begin(w);
	jw_member_str(w, all_bytes, all_bytes);
	jw_key(w, "list");
	jw_array_begin(w);
	for (int c = 1; c < 256; c++) {
		char s[2] = {(char)c, 0};
		jw_string(w, s);
	}
	jw_array_end(w);
	jw_object_end(w);
}

static void test_every_byte(void **state)
{
	for (int c = 1; c < 256; c++)
		all_bytes[c - 1] = (char)c;
	json_object *o = json_object_new_object();
	json_object_object_add(o, all_bytes, json_object_new_string(all_bytes));
	json_object *a = json_object_new_array();
	for (int c = 1; c < 256; c++) {
		char s[2] = {(char)c, 0};
		json_object_array_add(a, json_object_new_string(s));
	}
	json_object_object_add(o, "list", a);
	assert_like_json_c(w_all_bytes, o);
	/* and what that is, written out: json-c's escapes, nothing more */
	char *got = written(w_all_bytes, false);
	assert_non_null(strstr(got, "\"\\u0001\",\"\\u0002\""));
	assert_non_null(strstr(got, "\"\\b\",\"\\t\",\"\\n\",\"\\u000b\",\"\\f\",\"\\r\""));
	assert_non_null(strstr(got, "\"\\u001f\",\" \",\"!\",\"\\\"\""));
	assert_non_null(strstr(got, "\"/\""));
	assert_non_null(strstr(got, "\"\\\\\""));
	assert_non_null(strstr(got, "\"\x7f\",\"\x80\""));
	assert_non_null(strstr(got, "\"\xff\"]"));
	free(got);
}

static void w_scalars(struct jw *w)
{
	jw_array_begin(w);
	jw_int(w, INT64_MIN);
	jw_int(w, INT64_MAX);
	jw_int(w, 0);
	jw_int(w, -1);
	jw_uint(w, UINT64_MAX);
	jw_bool(w, true);
	jw_bool(w, false);
	jw_null(w);
	jw_string(w, NULL);
	jw_string(w, "");
	jw_string_len(w, "a\"b", 3);
	jw_array_end(w);
}

static void test_scalars(void **state)
{
	json_object *a = json_object_new_array();
	json_object_array_add(a, json_object_new_int64(INT64_MIN));
	json_object_array_add(a, json_object_new_int64(INT64_MAX));
	json_object_array_add(a, json_object_new_int64(0));
	json_object_array_add(a, json_object_new_int64(-1));
	json_object_array_add(a, json_object_new_uint64(UINT64_MAX));
	json_object_array_add(a, json_object_new_boolean(1));
	json_object_array_add(a, json_object_new_boolean(0));
	json_object_array_add(a, NULL);
	json_object_array_add(a, NULL);
	json_object_array_add(a, json_object_new_string(""));
	json_object_array_add(a, json_object_new_string("a\"b"));
	assert_like_json_c(w_scalars, a);
}

/* {} [] {"e":{},"a":[],"n":[[],[{}]],"m":{"x":null}} and a bare [] */
static void w_empties(struct jw *w)
{
	jw_array_begin(w);
	jw_object_begin(w);
	jw_object_end(w);
	jw_array_begin(w);
	jw_array_end(w);
	jw_object_begin(w);
	jw_key(w, "e");
	jw_object_begin(w);
	jw_object_end(w);
	jw_key(w, "a");
	jw_array_begin(w);
	jw_array_end(w);
	jw_key(w, "n");
	jw_array_begin(w);
	jw_array_begin(w);
	jw_array_end(w);
	jw_array_begin(w);
	jw_object_begin(w);
	jw_object_end(w);
	jw_array_end(w);
	jw_array_end(w);
	jw_key(w, "m");
	jw_object_begin(w);
	jw_member_str(w, "x", NULL);
	jw_object_end(w);
	jw_object_end(w);
	jw_array_end(w);
}

static void w_empty_top(struct jw *w)
{
	jw_object_begin(w);
	jw_object_end(w);
}

static void test_empty_and_nested(void **state)
{
	json_object *a = json_object_new_array();
	json_object_array_add(a, json_object_new_object());
	json_object_array_add(a, json_object_new_array());
	json_object *o = json_object_new_object();
	json_object_object_add(o, "e", json_object_new_object());
	json_object_object_add(o, "a", json_object_new_array());
	json_object *n = json_object_new_array();
	json_object_array_add(n, json_object_new_array());
	json_object *n2 = json_object_new_array();
	json_object_array_add(n2, json_object_new_object());
	json_object_array_add(n, n2);
	json_object_object_add(o, "n", n);
	json_object *m = json_object_new_object();
	json_object_object_add(m, "x", NULL);
	json_object_object_add(o, "m", m);
	json_object_array_add(a, o);
	assert_like_json_c(w_empties, a);
	assert_like_json_c(w_empty_top, json_object_new_object());
	char *got = written(w_empties, false);
	assert_string_equal(got, "[{},[],{\"e\":{},\"a\":[],\"n\":[[],[{}]],\"m\":{\"x\":null}}]");
	free(got);
}

/* A map as a decoded node report may hold it: a key given twice. */
static struct kv_list dup_map;

static void map_add(struct kv_list *l, const char *key, int64_t i)
{
	l->items = xrealloc(l->items, (l->n + 1) * sizeof(*l->items));
	l->items[l->n++] = (struct kv){.key = xstrdup(key), .val = {.type = VALUE_INT, .i = i}};
	l->cap = l->n;
}

static void w_dup_map(struct jw *w)
{
	jw_kv_list(w, &dup_map);
}

static void test_duplicate_keys(void **state)
{
	/* small (pairwise) and large (indexed) */
	for (size_t size = 4; size <= 64; size *= 4) {
		dup_map = (struct kv_list){0};
		for (size_t i = 0; i < size; i++) {
			char k[16];
			snprintf(k, sizeof(k), "k%zu", i % (size / 2));
			map_add(&dup_map, k, (int64_t)i);
		}
		map_add(&dup_map, "k0", -7);
		struct value v = {.type = VALUE_MAP, .map = dup_map};
		assert_like_json_c(w_dup_map, render_value_json(&v));
		char *got = written(w_dup_map, false);
		/* the first place, the last value */
		assert_true(strncmp(got, "{\"k0\":-7,\"k1\":", 14) == 0);
		free(got);
		kv_list_clear(&dup_map);
	}
}

/* Larger than the writer's buffer, with escapes across its edge. */
static char *big;

static void w_big(struct jw *w)
{
	jw_array_begin(w);
	jw_string(w, "x");
	jw_string(w, big);
	jw_string(w, big);
	jw_array_end(w);
}

static void test_larger_than_buffer(void **state)
{
	size_t n = 3 * JW_BUF + 17;
	big = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		big[i] = i % 97 == 0 ? '"' : i % 89 == 0 ? '\n' : (char)('a' + i % 26);
	big[n] = '\0';
	json_object *a = json_object_new_array();
	json_object_array_add(a, json_object_new_string("x"));
	json_object_array_add(a, json_object_new_string(big));
	json_object_array_add(a, json_object_new_string(big));
	assert_like_json_c(w_big, a);
	free(big);
}

/* A raw fragment (serve's cached finding) continued by members. */
static void w_raw(struct jw *w)
{
	jw_array_begin(w);
	jw_int(w, 1);
	jw_value_start(w);
	jw_raw(w, "{\"check\":\"a\"", 12);
	jw_member_str(w, "node", "n");
	jw_object_end(w);
	jw_array_end(w);
}

static void test_raw_fragment(void **state)
{
	char *got = written(w_raw, false);
	assert_string_equal(got, "[1,{\"check\":\"a\",\"node\":\"n\"}]");
	free(got);
}

static void replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		fail_msg("%s: cannot open", dir);
	struct dirent *e;
	size_t n = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, e->d_name);
		size_t len = 0;
		_cleanup_free_ char *data = NULL;
		if (util_read_file(path, 1 << 20, &data, &len) < 0)
			fail_msg("%s: cannot read", path);
		const char *why = jw_oracle((const uint8_t *)data, len);
		if (why)
			fail_msg("%s: %s", path, why);
		n++;
	}
	closedir(d);
	assert_true(n >= 10);
}

static void test_corpus_and_random(void **state)
{
	_cleanup_free_ char *dir = test_src_path("fuzz/corpus/json_write");
	replay_dir(dir);
	unsigned seed = 2026;
	uint8_t buf[512];
	for (int round = 0; round < 20000; round++) {
		size_t n = 1 + (seed = seed * 1103515245u + 12345u) % sizeof(buf);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = (uint8_t)(seed >> 16);
		}
		const char *why = jw_oracle(buf, n);
		if (why)
			fail_msg("round %d: %s", round, why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_byte),	       cmocka_unit_test(test_scalars),
	    cmocka_unit_test(test_empty_and_nested),   cmocka_unit_test(test_duplicate_keys),
	    cmocka_unit_test(test_larger_than_buffer), cmocka_unit_test(test_raw_fragment),
	    cmocka_unit_test(test_corpus_and_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
