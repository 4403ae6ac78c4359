#include "json_write.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "str_index.h"
#include "util.h"

void jw_init(struct jw *w, void (*write)(void *ctx, const char *buf, size_t len), void *ctx)
{
	w->write = write;
	w->ctx = ctx;
	w->comma = w->pretty = w->opened = false;
	w->level = 0;
	w->len = 0;
}

void jw_init_pretty(struct jw *w, void (*write)(void *ctx, const char *buf, size_t len), void *ctx)
{
	jw_init(w, write, ctx);
	w->pretty = true;
}

void jw_flush(struct jw *w)
{
	if (w->len)
		w->write(w->ctx, w->buf, w->len);
	w->len = 0;
}

static inline void put(struct jw *w, const char *p, size_t n)
{
	if (w->len + n > sizeof(w->buf)) {
		jw_flush(w);
		if (n > sizeof(w->buf)) {
			w->write(w->ctx, p, n);
			return;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static inline void put_c(struct jw *w, char c)
{
	if (w->len == sizeof(w->buf))
		jw_flush(w);
	w->buf[w->len++] = c;
}

void jw_raw(struct jw *w, const char *p, size_t n)
{
	put(w, p, n);
}

/* json-c indents by two spaces a level (indent() in json_object.c). */
static void indent(struct jw *w)
{
	static const char spaces[] = "                                ";
	size_t n = 2 * (size_t)w->level;
	while (n) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		put(w, spaces, k);
		n -= k;
	}
}

/* Before an item of a container (a member's key, an array's element): the
 * ',' after the one before; pretty, each item on a line of its own. */
static inline void item_start(struct jw *w)
{
	if (w->comma)
		put_c(w, ',');
	if (w->pretty && (w->comma || w->opened)) {
		if (w->comma)
			put_c(w, '\n');
		indent(w);
	}
	w->opened = false;
}

void jw_value_start(struct jw *w)
{
	item_start(w);
	w->comma = true;
}

static void open_container(struct jw *w, char c)
{
	jw_value_start(w);
	put_c(w, c);
	w->comma = false;
	if (w->pretty) {
		put_c(w, '\n');
		w->level++;
		w->opened = true;
	}
}

static void close_container(struct jw *w, char c)
{
	if (w->pretty) {
		if (w->level)
			w->level--;
		if (!w->opened)
			put_c(w, '\n');
		indent(w);
		w->opened = false;
	}
	put_c(w, c);
	w->comma = true;
}

void jw_object_begin(struct jw *w)
{
	open_container(w, '{');
}

void jw_object_end(struct jw *w)
{
	close_container(w, '}');
}

void jw_array_begin(struct jw *w)
{
	open_container(w, '[');
}

void jw_array_end(struct jw *w)
{
	close_container(w, ']');
}

/* Which bytes need an escape: those below 0x20, '"' and '\\' (json-c's
 * json_escape_str; '/' is left alone under NOSLASHESCAPE). */
static const bool escaped[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
    [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
    [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
    [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1,	['\\'] = 1,
};

static inline bool needs_escape(unsigned char c)
{
	return escaped[c];
}

#define ONES  UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* Whether a byte of x is below 0x20, '"' or '\\' (the classic "has a zero
 * byte" test on x, x ^ '"'… and x ^ '\\'…; a byte of 0x80 or more never
 * counts). */
static inline bool word_needs_escape(uint64_t x)
{
	uint64_t q = x ^ (ONES * '"'), b = x ^ (ONES * '\\');
	uint64_t t = (x - ONES * 0x20) | (q - ONES) | (b - ONES);
	return (t & ~x & HIGHS) != 0;
}

static void put_escaped(struct jw *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	put_c(w, '"');
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		/* Eight bytes at a time while none of them needs an escape: a byte
		 * below 0x20, '"' or '\\' (most strings have none). */
		while (n - i >= 8) {
			uint64_t x;
			memcpy(&x, s + i, 8);
			if (word_needs_escape(x))
				break;
			i += 8;
		}
		if (i == n)
			break;
		unsigned char c = (unsigned char)s[i];
		if (!needs_escape(c))
			continue;
		char esc[6] = {'\\', 0};
		size_t k = 2;
		switch (c) {
		case '\b':
			esc[1] = 'b';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '"':
		case '\\':
			esc[1] = (char)c;
			break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			k = 6;
			break;
		}
		put(w, s + start, i - start);
		put(w, esc, k);
		start = i + 1;
	}
	put(w, s + start, n - start);
	put_c(w, '"');
}

void jw_key(struct jw *w, const char *key)
{
	item_start(w);
	put_escaped(w, key, strlen(key));
	if (w->pretty)
		put(w, ": ", 2);
	else
		put_c(w, ':');
	w->comma = false;
}

void jw_string_len(struct jw *w, const char *s, size_t n)
{
	jw_value_start(w);
	put_escaped(w, s, n);
}

void jw_string(struct jw *w, const char *s)
{
	if (!s) {
		jw_null(w);
		return;
	}
	jw_string_len(w, s, strlen(s));
}

void jw_int(struct jw *w, int64_t i)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%" PRId64, i);
	jw_value_start(w);
	put(w, b, (size_t)n);
}

void jw_uint(struct jw *w, uint64_t u)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%" PRIu64, u);
	jw_value_start(w);
	put(w, b, (size_t)n);
}

void jw_bool(struct jw *w, bool b)
{
	jw_value_start(w);
	if (b)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

void jw_null(struct jw *w)
{
	jw_value_start(w);
	put(w, "null", 4);
}

void jw_member_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_string(w, s);
}

void jw_member_int(struct jw *w, const char *key, int64_t i)
{
	jw_key(w, key);
	jw_int(w, i);
}

void jw_member_bool(struct jw *w, const char *key, bool b)
{
	jw_key(w, key);
	jw_bool(w, b);
}

void jw_value(struct jw *w, const struct value *v)
{
	switch (v->type) {
	case VALUE_STR:
		jw_string(w, v->s);
		return;
	case VALUE_INT:
		jw_int(w, v->i);
		return;
	case VALUE_BOOL:
		jw_bool(w, v->b);
		return;
	case VALUE_LIST:
		jw_array_begin(w);
		for (size_t i = 0; i < v->list.n; i++)
			jw_value(w, &v->list.items[i]);
		jw_array_end(w);
		return;
	case VALUE_MAP:
		jw_kv_list(w, &v->map);
		return;
	}
	jw_null(w); /* render_value_json's NULL */
}

/* Up to this many members, duplicates are looked for pairwise. */
#define KV_PAIRWISE 16

void jw_kv_list(struct jw *w, const struct kv_list *l)
{
	jw_object_begin(w);
	if (l->n <= KV_PAIRWISE) {
		for (size_t i = 0; i < l->n; i++) {
			const char *k = l->items[i].key;
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = streq(l->items[j].key, k);
			if (seen)
				continue;
			size_t last = i;
			for (size_t j = i + 1; j < l->n; j++)
				if (streq(l->items[j].key, k))
					last = j;
			jw_key(w, k);
			jw_value(w, &l->items[last].val);
		}
		jw_object_end(w);
		return;
	}
	/* first[i]: item i is its key's first; last[i]: the last item of the
	 * key whose first is i. */
	struct str_index ix = {0};
	size_t *last = xmalloc(l->n * sizeof(*last));
	bool *first = xmalloc(l->n * sizeof(*first));
	for (size_t i = 0; i < l->n; i++) {
		size_t at = str_index_put(&ix, l->items[i].key, i, &first[i]);
		last[at] = i;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (!first[i])
			continue;
		jw_key(w, l->items[i].key);
		jw_value(w, &l->items[last[i]].val);
	}
	free(first);
	free(last);
	str_index_clear(&ix);
	jw_object_end(w);
}

void jw_membuf_write(void *ctx, const char *buf, size_t len)
{
	struct jw_membuf *b = ctx;
	if (b->len + len + 1 > b->cap) {
		b->cap = (b->len + len + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, buf, len);
	b->len += len;
	b->p[b->len] = '\0';
}
