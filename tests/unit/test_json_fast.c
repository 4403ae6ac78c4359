/* The cluster state's fast JSON reader (aggregator/json_fast.c), differential
 * against json_tokener + jv_from_json (fuzz/json_fast_oracle.h): on chosen
 * cases, on the example cluster, the fuzz corpora and their mutations; and
 * through the files reader, a value larger than its window. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../fuzz/json_fast_oracle.h"
#include "json_query.h"
#include "source.h"
#include "test_src.h"

static enum jf_result check(const char *p, size_t n)
{
	enum jf_result r;
	const char *why = jf_oracle(p, n, &r);
	if (why)
		fail_msg("%s on %zu bytes: %.*s", why, n, (int)(n > 300 ? 300 : n), p);
	return r;
}

static enum jf_result check_str(const char *s)
{
	return check(s, strlen(s));
}

/* What the reader decides itself, and what it leaves to json-c. */
static void test_cases(void **state)
{
	(void)state;
	static const char *const decided[] = {
	    "{}",
	    "[]",
	    "{\"a\":1}",
	    " \t\r\n{ \"a\" : [ 1 , -2 , 0 , true , false , null ] } ",
	    "\"\"",
	    "\"plain\"",
	    "\"esc \\\" \\\\ \\/ \\b\\f\\n\\r\\t\"",
	    "\"\\u00e9\\u20ac\\u003c\\u0041\\uFFFF\\u07ff\\u0800\"",
	    "\"bytes \xc3\xa9 \xff \x7f\"",
	    "123456789012345678,",
	    "-123456789012345678]",
	    "0}",
	    "{\"a\":1,\"b\":2,\"a\":3}",
	    "{\"\":1,\"\":{\"\":[]}}",
	    "{\"k\\u00e9y\":\"v\",\"k\xc3\xa9y\":2}",
	    "null,",
	    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	};
	for (size_t i = 0; i < sizeof(decided) / sizeof(*decided); i++)
		if (check_str(decided[i]) != JF_OK)
			fail_msg("not decided: %s", decided[i]);
	static const char *const more[] = {
	    "{", "[1,", "\"abc", "\"ab\\", "\"\\u00", "tr", "-", "12", "{\"a\"", "{\"a\":",
	};
	for (size_t i = 0; i < sizeof(more) / sizeof(*more); i++)
		if (check_str(more[i]) != JF_MORE)
			fail_msg("not JF_MORE: %s", more[i]);
	static const char *const unsure[] = {
	    "1.5,",
	    "1e3,",
	    "-0,",
	    "01,",
	    "1234567890123456789,",
	    "\"\\ud83d\\ude00\"",
	    "\"\\u0000\"",
	    "\"\\x\"",
	    "\"a\tb\"",
	    "NaN",
	    "True",
	    "nul,",
	    "[1,]",
	    "{\"a\":1,}",
	    "{a:1}",
	    "[1 2]",
	    "'x'",
	    "12x",
	    "/* c */1",
	};
	for (size_t i = 0; i < sizeof(unsure) / sizeof(*unsure); i++)
		if (check_str(unsure[i]) != JF_UNSURE)
			fail_msg("not JF_UNSURE: %s", unsure[i]);
	/* nesting past the reader's limit is json-c's */
	char deep[200];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	assert_int_equal(check(deep, sizeof(deep)), JF_UNSURE);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return NULL;
	}
	char *buf = xmalloc((size_t)st.st_size + 1);
	*len = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	return buf;
}

struct corpus {
	char **data;
	size_t *len, n;
};

static void add_dir(struct corpus *c, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		fail_msg("cannot open %s", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, e->d_name);
		size_t len;
		char *buf = read_all(p, &len);
		if (!buf)
			continue;
		c->data = xrealloc(c->data, (c->n + 1) * sizeof(*c->data));
		c->len = xrealloc(c->len, (c->n + 1) * sizeof(*c->len));
		c->data[c->n] = buf;
		c->len[c->n++] = len;
	}
	closedir(d);
}

/* The example cluster (kubectl's output of a real cluster's shapes) is
 * decided by this reader, file by file, as json-c reads it. */
static void test_example_cluster(void **state)
{
	(void)state;
	struct corpus c = {0};
	_cleanup_free_ char *dir = xasprintf("%s/examples/cluster", test_src());
	add_dir(&c, dir);
	assert_true(c.n >= 20);
	size_t decided = 0;
	for (size_t i = 0; i < c.n; i++) {
		if (c.len[i] > 0 && check(c.data[i], c.len[i]) == JF_OK)
			decided++;
		free(c.data[i]);
	}
	/* every file but those holding a fraction (a StorageClass parameter) */
	assert_true(decided + 2 >= c.n);
	free(c.data);
	free(c.len);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Every prefix of the small seeds, and mutations of all: bytes replaced by
 * JSON's own (brackets, quotes, escapes, digits, literals' letters) or any
 * byte, inserted, deleted, a piece repeated. */
static void test_mutations(void **state)
{
	(void)state;
	struct corpus c = {0};
	static const char *const dirs[] = {"fuzz/corpus/json_fast", "fuzz/corpus/cluster_state",
					   "fuzz/corpus/probe_targets", "examples/cluster"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		_cleanup_free_ char *d = xasprintf("%s/%s", test_src(), dirs[i]);
		add_dir(&c, d);
	}
	static const char alphabet[] = "{}[]\",:\\ \t\n0123456789.eE+-tfnulrsabu/";
	size_t counts[3] = {0};
	char *buf = xmalloc(1u << 20);
	for (size_t i = 0; i < c.n; i++) {
		const char *s = c.data[i];
		size_t n = c.len[i];
		if (n > (256u << 10))
			continue;
		if (n <= 4096)
			for (size_t k = 0; k <= n; k++)
				counts[check(s, k)]++;
		int rounds = n <= 4096 ? 3000 : 300;
		for (int m = 0; m < rounds; m++) {
			memcpy(buf, s, n);
			size_t len = n;
			int edits = 1 + (int)(next_rand() % 4);
			for (int e = 0; e < edits && len > 0; e++) {
				size_t at = next_rand() % len;
				uint64_t r = next_rand();
				char ch = (r & 1) ? alphabet[(r >> 8) % (sizeof(alphabet) - 1)]
						  : (char)(r >> 8);
				switch ((r >> 1) % 4) {
				case 0:
					buf[at] = ch;
					break;
				case 1:
					memmove(buf + at + 1, buf + at, len - at);
					buf[at] = ch;
					len++;
					break;
				case 2:
					memmove(buf + at, buf + at + 1, len - at - 1);
					len--;
					break;
				default: {
					size_t piece = 1 + (r >> 16) % 16;
					if (at + piece > len || len + piece > (1u << 20))
						break;
					memmove(buf + at + piece, buf + at, len - at);
					len += piece;
				}
				}
			}
			/* a mutation of a List usually breaks it early: read from an item too */
			size_t from = (next_rand() & 1) && len > 0 ? next_rand() % len : 0;
			counts[check(buf + from, len - from)]++;
		}
	}
	free(buf);
	for (size_t i = 0; i < c.n; i++)
		free(c.data[i]);
	free(c.data);
	free(c.len);
	/* the oracle compared something of every kind */
	assert_true(counts[JF_OK] > 1000);
	assert_true(counts[JF_MORE] > 1000);
	assert_true(counts[JF_UNSURE] > 1000);
}

/* Through the files reader: a value larger than the 1 MiB window (the window
 * grows), values across the window's edges, and one the reader leaves to
 * json-c; the objects are those json-c reads from the same file. */
static void test_window(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_json_fast.XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *path = xasprintf("%s/pods.json", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[", f);
	const int n = 400;
	for (int i = 0; i < n; i++) {
		size_t big = i == 200 ? (3u << 20) : 3000 + (size_t)i * 7;
		fprintf(f,
			"%s{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\","
			"\"namespace\":\"ns\",\"labels\":{\"a\":\"\\u00e9\"}},\"spec\":{\"n\":%d,"
			"\"x\":%s,\"note\":\"",
			i ? "," : "", i, i, i % 50 == 0 ? "1.25" : "[true,null]");
		for (size_t k = 0; k < big; k++)
			fputc('a' + (int)(k % 26), f);
		fputs("\"}}", f);
	}
	fputs("]}\n", f);
	fclose(f);
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN] = "";
	cluster_state_init(&cs);
	assert_int_equal(source_files_load(&cs, dir, err, sizeof(err)), 0);
	assert_int_equal(cs_count(&cs, RES_PODS), n);
	size_t len;
	_cleanup_free_ char *text = read_all(path, &len);
	json_object *o = json_tokener_parse(text);
	assert_non_null(o);
	struct jv_arena *ar = jv_arena_new();
	struct jv all = jv_from_json(ar, o);
	const struct jv *items = JQ(&all, "items");
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *name = xasprintf("p%d", i);
		const struct jv *got = cs_find(&cs, RES_PODS, "ns", name);
		assert_non_null(got);
		assert_true(jf_oracle_equal(got, jq_at(items, (size_t)i)));
	}
	jv_arena_free(ar);
	json_object_put(o);
	cluster_state_clear(&cs);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_example_cluster),
	    cmocka_unit_test(test_mutations),
	    cmocka_unit_test(test_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
