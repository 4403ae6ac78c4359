/* The oracle of aggregator/json_fast.c, shared by its fuzz target
 * (fuzz/fuzz_json_fast.c) and its differential unit test
 * (tests/unit/test_json_fast.c): jf_parse() against json_tokener (the flags
 * and depth of the files reader, aggregator/source_json_stream.c) followed
 * by jv_from_json() on the same bytes. */
#pragma once
#include <json-c/json.h>
#include <stdbool.h>
#include <string.h>

#include "json_fast.h"
#include "source.h"

static inline bool jf_oracle_equal(const struct jv *a, const struct jv *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case JV_NULL:
		return true;
	case JV_BOOL:
		return a->u.b == b->u.b;
	case JV_INT:
		return a->uns == b->uns && a->u.i == b->u.i;
	case JV_DOUBLE:
	case JV_STRING:
		return a->n == b->n && memcmp(a->u.s, b->u.s, a->n) == 0;
	case JV_ARRAY:
		if (a->n != b->n)
			return false;
		for (size_t i = 0; i < a->n; i++)
			if (!jf_oracle_equal(&a->u.a[i], &b->u.a[i]))
				return false;
		return true;
	case JV_OBJECT:
		if (a->n != b->n)
			return false;
		for (size_t i = 0; i < a->n; i++)
			if (strcmp(a->u.m[i].key, b->u.m[i].key) != 0 ||
			    !jf_oracle_equal(&a->u.m[i].val, &b->u.m[i].val))
				return false;
		return true;
	}
	return false;
}

static inline size_t jf_oracle_skip_ws(const char *p, size_t n, size_t i)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return i;
}

/* NULL when the two agree on p[0..n): where jf_parse() decides (JF_OK),
 * json_tokener succeeds with the same value, ending at the same place (but
 * for white space); where it asks for more (JF_MORE), json_tokener has not
 * decided either. JF_UNSURE leaves the bytes to json_tokener: nothing to
 * compare. Else the disagreement. *res: jf_parse()'s answer. */
static inline const char *jf_oracle(const char *p, size_t n, enum jf_result *res)
{
	struct jv_arena *ar = jv_arena_new();
	struct jf_scratch sc = {0};
	struct jv v;
	size_t used = 0;
	enum jf_result r = jf_parse(ar, &sc, p, n, &v, &used);
	json_tokener *tok = json_tokener_new_ex(SOURCE_JSON_MAX_DEPTH);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	json_object *o = json_tokener_parse_ex(tok, p, (int)n);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	const char *why = NULL;
	if (r == JF_OK) {
		struct jv w = jv_from_json(ar, o);
		if (e != json_tokener_success)
			why = "jf_parse decided a value json_tokener does not accept";
		else if (used > n || jf_oracle_skip_ws(p, n, used) != jf_oracle_skip_ws(p, n, end))
			why = "jf_parse and json_tokener end the value at different bytes";
		else if (!jf_oracle_equal(&v, &w))
			why = "jf_parse and json_tokener read different values";
	} else if (r == JF_MORE && e != json_tokener_continue) {
		why = "jf_parse asks for more bytes where json_tokener has decided";
	}
	json_object_put(o);
	json_tokener_free(tok);
	jf_scratch_clear(&sc);
	jv_arena_free(ar);
	*res = r;
	return why;
}
