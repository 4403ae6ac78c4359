/* The oracle of aggregator/json_write.c, shared by its fuzz target
 * (fuzz/fuzz_json_write.c) and its differential unit test
 * (tests/unit/test_json_write.c): bytes make a report-model value (the
 * evidence and facts of untrusted node reports: strings of any bytes, maps
 * with keys given twice, nesting), written by jw_value compact and pretty,
 * and what json-c prints for render_value_json of the same value with the
 * verdict's flags. */
#pragma once
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_write.h"
#include "render_json.h"

struct jwo_in {
	const uint8_t *p;
	size_t n, i;
};

static inline unsigned jwo_byte(struct jwo_in *in)
{
	return in->i < in->n ? in->p[in->i++] : 0;
}

/* A string of the next bytes (any but NUL, which a C string cannot hold). */
static inline char *jwo_str(struct jwo_in *in, size_t max)
{
	size_t len = jwo_byte(in) % (max + 1), k = 0;
	char *s = xmalloc(len + 1);
	for (size_t j = 0; j < len && in->i < in->n; j++) {
		unsigned char c = in->p[in->i++];
		if (c)
			s[k++] = (char)c;
	}
	s[k] = '\0';
	return s;
}

/* A map's key: often one of a few, so that keys come again. */
static inline char *jwo_key(struct jwo_in *in)
{
	static const char *const few[] = {"a", "b", "key", "\"", ""};
	unsigned c = jwo_byte(in);
	if (c % 2 == 0)
		return xstrdup(few[(c / 2) % 5]);
	return jwo_str(in, 12);
}

static inline void jwo_value(struct jwo_in *in, struct value *v, int depth)
{
	unsigned op = jwo_byte(in) % (depth > 6 ? 3 : 5);
	memset(v, 0, sizeof(*v));
	switch (op) {
	case 0:
		v->type = VALUE_STR;
		v->s = jwo_str(in, 40);
		return;
	case 1: {
		uint64_t u = 0;
		for (int k = 0; k < 8; k++)
			u = u << 8 | jwo_byte(in);
		v->type = VALUE_INT;
		memcpy(&v->i, &u, sizeof(u));
		return;
	}
	case 2:
		v->type = VALUE_BOOL;
		v->b = jwo_byte(in) & 1;
		return;
	case 3: {
		v->type = VALUE_LIST;
		size_t n = jwo_byte(in) % 6;
		v->list.items = xcalloc(n + 1, sizeof(*v->list.items));
		v->list.cap = n + 1;
		for (size_t k = 0; k < n; k++)
			jwo_value(in, &v->list.items[v->list.n++], depth + 1);
		return;
	}
	default: {
		/* Items appended as they come, a key given twice kept twice (as a
		 * decoded report may have them; kv_add would replace in place). Up
		 * to 39: past json_write.c's pairwise limit. */
		v->type = VALUE_MAP;
		size_t n = jwo_byte(in) % 40;
		v->map.items = xcalloc(n + 1, sizeof(*v->map.items));
		v->map.cap = n + 1;
		for (size_t k = 0; k < n; k++) {
			struct kv *e = &v->map.items[v->map.n++];
			e->key = jwo_key(in);
			jwo_value(in, &e->val, depth + 1);
		}
		return;
	}
	}
}

static inline void jwo_buf_write(void *ctx, const char *buf, size_t len)
{
	jw_membuf_write(ctx, buf, len);
}

/* NULL when jw_value and json-c print the same, compact and pretty; else
 * what differs (static text). */
static inline const char *jw_oracle(const uint8_t *data, size_t size)
{
	struct jwo_in in = {data, size, 0};
	struct value v;
	jwo_value(&in, &v, 0);
	json_object *o = render_value_json(&v);
	static const int flags[2] = {JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
				     JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					 JSON_C_TO_STRING_NOSLASHESCAPE};
	const char *why = NULL;
	for (int pretty = 0; pretty < 2 && !why; pretty++) {
		struct jw_membuf b = {0};
		struct jw *w = xmalloc(sizeof(*w));
		if (pretty)
			jw_init_pretty(w, jwo_buf_write, &b);
		else
			jw_init(w, jwo_buf_write, &b);
		jw_value(w, &v);
		jw_flush(w);
		const char *want = json_object_to_json_string_ext(o, flags[pretty]);
		if (!b.p || strcmp(b.p, want) != 0)
			why = pretty ? "pretty output differs from json-c's"
				     : "compact output differs from json-c's";
		free(b.p);
		free(w);
	}
	json_object_put(o);
	value_clear(&v);
	return why;
}
