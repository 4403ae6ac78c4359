/* aggregator/json_pretty.c turns json-c's compact text into exactly what
 * json-c prints pretty (JSON_C_TO_STRING_PRETTY | SPACED), whatever the
 * pieces the compact text comes in: checked on random documents here, on
 * streamed verdicts in test_verdict_stream.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <json-c/json.h>

#include "json_pretty.h"
#include "util.h"

#define PRETTY (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)
#define PLAIN  (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

struct buf {
	char *p;
	size_t len;
};

static void buf_write(void *ctx, const char *p, size_t n)
{
	struct buf *b = ctx;
	b->p = xrealloc(b->p, b->len + n + 1);
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
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
		feed_in_pieces(p, json_object_to_json_string_ext(o, PLAIN), &seed);
		const char *want = json_object_to_json_string_ext(o, PRETTY);
		if (!got.p || strcmp(got.p, want) != 0)
			fail_msg("round %d: pretty of %s\n got: %s\nwant: %s", round,
				 json_object_to_json_string_ext(o, PLAIN),
				 got.p ? got.p : "(nothing)", want);
		free(got.p);
		free(p);
		json_object_put(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_documents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
