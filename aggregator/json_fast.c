/*
 * The common subset of JSON read straight into the compact form.
 *
 * Why json-c alone does not fit: json_tokener builds a json-c tree of every
 * value (a hash table of its own per object, a malloc per member, string
 * and number), which the cluster state then copies into the compact form
 * (json_value.h) and frees. At 500 nodes (50,121 objects, 138 MB) that was
 * 88 % of the offline report's 8.7 G instructions (callgrind,
 * docs/benchmarks.md): json_tokener_parse_ex 61 % (each call also sets up a
 * C locale of its own), freeing the trees 17 %, the copy 10 %. json-c has no
 * event (SAX) interface and no way to parse without building its objects.
 *
 * So this reader takes what has one meaning in every JSON reader — objects,
 * arrays, true/false/null, integers of at most 18 digits, strings whose
 * escapes are the short ones or \uXXXX outside the surrogates and U+0000 —
 * and for anything else (fractions and exponents, long integers, other
 * escapes, control characters, any error, nesting deeper than JF_MAX_DEPTH)
 * it answers JF_UNSURE without deciding: the caller then parses the whole
 * value with json_tokener, which gives every such case json-c's meaning and
 * every error json-c's message. Members are kept in source order; a later
 * duplicate key replaces the earlier value in its place, as
 * json_object_object_add does.
 *
 * Held to json-c by a differential unit test (tests/unit/test_json_fast.c:
 * fixtures, the fuzz corpus and their mutations) and a fuzz target
 * (fuzz/fuzz_json_fast.c) with the same oracle.
 */
#include "json_fast.h"

#include <stdint.h>
#include <string.h>

#define JF_MAX_DEPTH   64
#define JF_MAX_MEMBERS 1024 /* duplicates are looked for linearly */

struct jf {
	struct jv_arena *ar;
	struct jf_scratch *sc;
	const char *p, *end;
};

void jf_scratch_clear(struct jf_scratch *sc)
{
	free(sc->m);
	free(sc->a);
	free(sc->s);
	*sc = (struct jf_scratch){0};
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* A byte that may follow a number or a literal inside a value. */
static bool is_delim(char c)
{
	return c == ',' || c == '}' || c == ']' || is_ws(c);
}

#define ONES  0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

static uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof(w));
	return w;
}

/* Whether any byte of w is below n (n <= 128). */
static uint64_t any_below(uint64_t w, unsigned n)
{
	return (w - ONES * n) & ~w & HIGHS;
}

static uint64_t any_zero(uint64_t w)
{
	return any_below(w, 1);
}

static enum jf_result skip_ws_run(struct jf *f)
{
	const char *p = f->p, *end = f->end;
	for (;;) {
		/* Pretty-printed JSON: indentation is most of the white space. */
		while (end - p >= 8 && load8(p) == ONES * ' ')
			p += 8;
		if (p < end && is_ws(*p)) {
			p++;
			continue;
		}
		break;
	}
	f->p = p;
	return p < end ? JF_OK : JF_MORE;
}

static inline enum jf_result skip_ws(struct jf *f)
{
	if (f->p < f->end && (unsigned char)*f->p > ' ')
		return JF_OK; /* most often: no white space at all */
	return skip_ws_run(f);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char *scratch_str(struct jf_scratch *sc, size_t need)
{
	if (need > sc->scap) {
		sc->scap = need > 2 * sc->scap ? need : 2 * sc->scap;
		sc->s = xrealloc(sc->s, sc->scap);
	}
	return sc->s;
}

/* The string at f->p ('"'): its bytes in *s, *n (in the window when it has
 * no escape, else decoded into the scratch). */
static enum jf_result read_string(struct jf *f, const char **s, size_t *n)
{
	const char *start = ++f->p, *q = start;
	/* Eight bytes at a time while none of them is '"', '\\' or a control character. */
	while (f->end - q >= 8) {
		uint64_t w = load8(q);
		if (any_zero(w ^ (ONES * '"')) | any_zero(w ^ (ONES * '\\')) | any_below(w, 0x20))
			break;
		q += 8;
	}
	while (q < f->end) {
		unsigned char c = (unsigned char)*q;
		if (c == '"') {
			*s = start;
			*n = (size_t)(q - start);
			f->p = q + 1;
			return JF_OK;
		}
		if (c == '\\')
			break;
		if (c < 0x20)
			return JF_UNSURE;
		q++;
	}
	if (q == f->end)
		return JF_MORE;
	/* Escapes: decode. Each escape is at least as long as what it stands for. */
	size_t prefix = (size_t)(q - start);
	char *out = scratch_str(f->sc, prefix + 64);
	memcpy(out, start, prefix);
	size_t o = prefix;
	while (q < f->end) {
		unsigned char c = (unsigned char)*q;
		if (o + 4 > f->sc->scap)
			out = scratch_str(f->sc, o + 4);
		if (c == '"') {
			*s = out;
			*n = o;
			f->p = q + 1;
			return JF_OK;
		}
		if (c < 0x20)
			return JF_UNSURE;
		if (c != '\\') {
			out[o++] = (char)c;
			q++;
			continue;
		}
		if (q + 1 >= f->end)
			return JF_MORE;
		char e = q[1];
		q += 2;
		switch (e) {
		case '"':
		case '\\':
		case '/':
			out[o++] = e;
			break;
		case 'b':
			out[o++] = '\b';
			break;
		case 'f':
			out[o++] = '\f';
			break;
		case 'n':
			out[o++] = '\n';
			break;
		case 'r':
			out[o++] = '\r';
			break;
		case 't':
			out[o++] = '\t';
			break;
		case 'u': {
			unsigned cp = 0;
			for (int i = 0; i < 4; i++) {
				if (q + i >= f->end)
					return JF_MORE;
				int h = hexval(q[i]);
				if (h < 0)
					return JF_UNSURE;
				cp = cp << 4 | (unsigned)h;
			}
			q += 4;
			/* Surrogate pairs and U+0000 have readers' own rules: json-c's. */
			if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
				return JF_UNSURE;
			if (cp < 0x80) {
				out[o++] = (char)cp;
			} else if (cp < 0x800) {
				out[o++] = (char)(0xc0 | cp >> 6);
				out[o++] = (char)(0x80 | (cp & 0x3f));
			} else {
				out[o++] = (char)(0xe0 | cp >> 12);
				out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				out[o++] = (char)(0x80 | (cp & 0x3f));
			}
			break;
		}
		default:
			return JF_UNSURE;
		}
	}
	return JF_MORE;
}

/* What follows a number or literal: a delimiter decides, the end asks for more. */
static enum jf_result after_scalar(struct jf *f)
{
	if (f->p == f->end)
		return JF_MORE;
	return is_delim(*f->p) ? JF_OK : JF_UNSURE;
}

static enum jf_result read_literal(struct jf *f, const char *word, size_t len)
{
	size_t have = (size_t)(f->end - f->p);
	if (memcmp(f->p, word, have < len ? have : len) != 0)
		return JF_UNSURE;
	if (have < len)
		return JF_MORE;
	f->p += len;
	return after_scalar(f);
}

static enum jf_result read_number(struct jf *f, struct jv *ret)
{
	bool neg = *f->p == '-';
	if (neg)
		f->p++;
	if (f->p == f->end)
		return JF_MORE;
	if (*f->p == '0') {
		if (neg) /* -0: json-c's own rule */
			return JF_UNSURE;
		f->p++;
		*ret = (struct jv){.type = JV_INT};
		return after_scalar(f);
	}
	int64_t v = 0;
	int digits = 0;
	while (f->p < f->end && *f->p >= '0' && *f->p <= '9') {
		if (++digits > 18)
			return JF_UNSURE;
		v = v * 10 + (*f->p++ - '0');
	}
	if (digits == 0)
		return JF_UNSURE;
	*ret = (struct jv){.type = JV_INT, .u.i = neg ? -v : v};
	return after_scalar(f);
}

static enum jf_result read_value(struct jf *f, int depth, struct jv *ret);

/* After a member or an element: a ',' (*more) or the closing character. */
static enum jf_result after_item(struct jf *f, char close, bool *more)
{
	enum jf_result r = skip_ws(f);
	if (r != JF_OK)
		return r;
	*more = *f->p == ',';
	if (*more) {
		f->p++;
		return JF_OK;
	}
	return *f->p == close ? JF_OK : JF_UNSURE;
}

static enum jf_result read_object(struct jf *f, int depth, struct jv *ret)
{
	struct jf_scratch *sc = f->sc;
	size_t base = sc->mn;
	enum jf_result r;
	f->p++; /* '{' */
	if ((r = skip_ws(f)) != JF_OK)
		return r;
	if (*f->p != '}') {
		for (;;) {
			const char *ks;
			size_t kn;
			struct jv v;
			if ((r = skip_ws(f)) != JF_OK)
				return r;
			if (*f->p != '"')
				return JF_UNSURE;
			if ((r = read_string(f, &ks, &kn)) != JF_OK)
				return r;
			const char *key = jv_arena_intern_len(f->ar, ks, kn);
			if ((r = skip_ws(f)) != JF_OK)
				return r;
			if (*f->p != ':')
				return JF_UNSURE;
			f->p++;
			if ((r = read_value(f, depth + 1, &v)) != JF_OK)
				return r;
			size_t i = base;
			while (i < sc->mn && sc->m[i].key != key)
				i++;
			if (i < sc->mn) {
				sc->m[i].val = v;
			} else {
				if (sc->mn - base >= JF_MAX_MEMBERS)
					return JF_UNSURE;
				if (sc->mn == sc->mcap) {
					sc->mcap = sc->mcap ? 2 * sc->mcap : 256;
					sc->m = xrealloc(sc->m, sc->mcap * sizeof(*sc->m));
				}
				sc->m[sc->mn++] = (struct jv_member){key, v};
			}
			bool more = false;
			if ((r = after_item(f, '}', &more)) != JF_OK)
				return r;
			if (!more)
				break;
		}
	}
	f->p++; /* '}' */
	size_t n = sc->mn - base;
	*ret = jv_object_copy(f->ar, n ? sc->m + base : NULL, n);
	sc->mn = base;
	return JF_OK;
}

static enum jf_result read_array(struct jf *f, int depth, struct jv *ret)
{
	struct jf_scratch *sc = f->sc;
	size_t base = sc->an;
	enum jf_result r;
	f->p++; /* '[' */
	if ((r = skip_ws(f)) != JF_OK)
		return r;
	if (*f->p != ']') {
		for (;;) {
			struct jv v;
			if ((r = read_value(f, depth + 1, &v)) != JF_OK)
				return r;
			if (sc->an == sc->acap) {
				sc->acap = sc->acap ? 2 * sc->acap : 256;
				sc->a = xrealloc(sc->a, sc->acap * sizeof(*sc->a));
			}
			sc->a[sc->an++] = v;
			bool more = false;
			if ((r = after_item(f, ']', &more)) != JF_OK)
				return r;
			if (!more)
				break;
		}
	}
	f->p++; /* ']' */
	size_t n = sc->an - base;
	*ret = jv_array_copy(f->ar, n ? sc->a + base : NULL, n);
	sc->an = base;
	return JF_OK;
}

static enum jf_result read_value(struct jf *f, int depth, struct jv *ret)
{
	enum jf_result r;
	if (depth >= JF_MAX_DEPTH)
		return JF_UNSURE;
	if ((r = skip_ws(f)) != JF_OK)
		return r;
	switch (*f->p) {
	case '{':
		return read_object(f, depth, ret);
	case '[':
		return read_array(f, depth, ret);
	case '"': {
		const char *s;
		size_t n;
		if ((r = read_string(f, &s, &n)) != JF_OK)
			return r;
		*ret = jv_string_len(f->ar, s, n);
		return JF_OK;
	}
	case 't':
		*ret = (struct jv){.type = JV_BOOL, .u.b = true};
		return read_literal(f, "true", 4);
	case 'f':
		*ret = (struct jv){.type = JV_BOOL, .u.b = false};
		return read_literal(f, "false", 5);
	case 'n':
		*ret = (struct jv){.type = JV_NULL};
		return read_literal(f, "null", 4);
	case '-':
	case '0':
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
	case '8':
	case '9':
		return read_number(f, ret);
	default:
		return JF_UNSURE;
	}
}

enum jf_result jf_parse(struct jv_arena *ar, struct jf_scratch *sc, const char *p, size_t n,
			struct jv *ret, size_t *used)
{
	struct jf f = {.ar = ar, .sc = sc, .p = p, .end = p + n};
	size_t mn = sc->mn, an = sc->an;
	enum jf_result r = read_value(&f, 0, ret);
	sc->mn = mn; /* after an early return, the open levels' entries */
	sc->an = an;
	if (r == JF_OK)
		*used = (size_t)(f.p - p);
	return r;
}
