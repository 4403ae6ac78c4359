/*
 * The files backend's JSON stream reader (aggregator/source_files.c loads
 * what it reads): a file or buffer holding a stream of JSON values, read
 * through a window; each top-level object, a List's items and each item's
 * metadata are walked here, everything below them parsed by json_tokener
 * into the compact form, metadata.managedFields skipped unbuilt. Each
 * object read is handed to files_add_object(); a bad byte is reported with
 * its line and column.
 */
#include "source_json_stream.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

static _printf_(2, 3) int scan_fail(struct scan *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, s->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static struct jv_arena *arena(struct scan *s)
{
	return s->ar;
}

static void builder_clearp(struct jv_builder *b)
{
	jv_builder_clear(b);
}

/* "a number", "an array": for messages about a value of the wrong type. */
const char *files_type_phrase(const struct jv *o)
{
	switch (jv_type(o)) {
	case JV_NULL:
		return "null";
	case JV_BOOL:
		return "a boolean";
	case JV_INT:
	case JV_DOUBLE:
		return "a number";
	case JV_STRING:
		return "a string";
	case JV_ARRAY:
		return "an array";
	case JV_OBJECT:
		return "an object";
	}
	return "a value";
}

static bool is_space(int c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* "line L, column C (byte B)" of the window offset off. */
static void position(const struct scan *s, size_t off, char *out, size_t len)
{
	size_t line = s->lines, start = s->line_base;
	const char *p = s->buf, *end = s->buf + off;
	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		line++;
		start = s->base + (size_t)(++p - s->buf);
	}
	snprintf(out, len, "line %zu, column %zu (byte %zu)", line + 1, s->base + off - start + 1,
		 s->base + off);
}

static int truncated(struct scan *s)
{
	return scan_fail(s, "%s: truncated JSON: the input ends inside a value (at byte %zu)",
			 s->name, s->base + s->len);
}

static int malformed(struct scan *s, size_t off, const char *what)
{
	char pos[96];
	position(s, off, pos, sizeof(pos));
	return scan_fail(s, "%s: malformed JSON at %s: %s", s->name, pos, what);
}

/* Slide the window: drop the consumed bytes, read more. 1: more bytes,
 * 0: end of input, <0: error. */
static int refill(struct scan *s)
{
	if (s->fd < 0 || s->eof)
		return 0;
	const char *p = s->buf, *end = s->buf + s->off;
	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		s->lines++;
		s->line_base = s->base + (size_t)(++p - s->buf);
	}
	memmove(s->buf, s->buf + s->off, s->len - s->off);
	s->base += s->off;
	s->len -= s->off;
	s->off = 0;
	for (;;) {
		ssize_t n = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return scan_fail(s, "%s: read error: %s", s->name, strerror(errno));
		if (n == 0) {
			s->eof = true;
			return 0;
		}
		s->len += (size_t)n;
		if (s->base + s->len > SOURCE_FILE_MAX)
			return scan_fail(s, "%s: larger than the %lu MiB limit for one file",
					 s->name, SOURCE_FILE_MAX >> 20);
		return 1;
	}
}

/* The byte at the cursor in *c, or -1 at the end of input. */
static int cur(struct scan *s, int *c)
{
	if (s->off == s->len) {
		int r = refill(s);
		if (r < 0)
			return r;
		if (r == 0) {
			*c = -1;
			return 0;
		}
	}
	*c = (unsigned char)s->buf[s->off];
	return 0;
}

/* Skip white space; *c is then the next byte (or -1). */
static int skip_space(struct scan *s, int *c)
{
	/* Through the window first: pretty-printed files are mostly indentation. */
	const char *p = s->buf + s->off, *end = s->buf + s->len;
	while (p < end && is_space(*p))
		p++;
	s->off = (size_t)(p - s->buf);
	for (;;) {
		int r = cur(s, c);
		if (r < 0 || *c < 0 || !is_space(*c))
			return r;
		s->off++;
	}
}

static int expect(struct scan *s, char want, const char *what)
{
	int c, r = skip_space(s, &c);
	if (r < 0)
		return r;
	if (c < 0)
		return truncated(s);
	if (c != want)
		return malformed(s, s->off, what);
	s->off++;
	return 0;
}

/* One JSON value at the cursor, by json_tokener (fed across refills). A
 * JSON null is *ret == NULL. */
static int scan_value(struct scan *s, json_object **ret)
{
	json_tokener_reset(s->tok);
	for (;;) {
		int c, r = cur(s, &c);
		if (r < 0)
			return r;
		if (c < 0)
			return truncated(s);
		size_t start = s->off;
		json_object *o =
		    json_tokener_parse_ex(s->tok, s->buf + start, (int)(s->len - start));
		enum json_tokener_error e = json_tokener_get_error(s->tok);
		if (e == json_tokener_continue) {
			s->off = s->len;
			continue;
		}
		size_t end = start + json_tokener_get_parse_end(s->tok);
		if (e != json_tokener_success)
			return malformed(s, end < s->len ? end : s->len - 1,
					 json_tokener_error_desc(e));
		s->off = end;
		*ret = o;
		return 0;
	}
}

/* A string at the cursor without escapes or control characters, whole in
 * the window: its bytes are its value, so json_tokener is not needed (each
 * json_tokener_parse_ex call sets up a C locale of its own, which costs more
 * than the short keys and names it would read). Anything else (escapes, an
 * error, the window's end) is left to json_tokener: 0. */
static bool plain_string(struct scan *s, const char **ret, size_t *ret_len)
{
	const char *p = s->buf + s->off + 1, *end = s->buf + s->len;
	for (const char *q = p; q < end; q++) {
		unsigned char c = (unsigned char)*q;
		if (c == '"') {
			*ret = p;
			*ret_len = (size_t)(q - p);
			s->off = (size_t)(q + 1 - s->buf);
			return true;
		}
		if (c == '\\' || c < 0x20)
			return false;
	}
	return false;
}

/* Step over a value that is not kept, checking its structure (brackets
 * match, strings end, no control characters in them) without building it.
 * This runs over most of the bytes of real objects: it works on the window
 * directly rather than byte by byte through cur(). */
static int skip_value(struct scan *s)
{
	char stack[SOURCE_JSON_MAX_DEPTH];
	int depth = 0;
	bool in_str = false, esc = false, scalar = false;
	for (;;) {
		if (s->off == s->len) {
			int r = refill(s);
			if (r < 0)
				return r;
			if (r == 0)
				return truncated(s);
		}
		const char *p = s->buf + s->off, *end = s->buf + s->len;
		while (p < end) {
			if (esc) {
				esc = false;
				p++;
				continue;
			}
			if (in_str) {
				while (p < end && *p != '"' && *p != '\\' &&
				       (unsigned char)*p >= 0x20)
					p++;
				if (p == end)
					break;
				if ((unsigned char)*p < 0x20)
					return malformed(s, (size_t)(p - s->buf),
							 "control character in a string");
				if (*p++ == '\\') {
					esc = true;
					continue;
				}
				in_str = false;
				if (depth == 0) {
					s->off = (size_t)(p - s->buf);
					return 0;
				}
				continue;
			}
			char c = *p;
			if (depth == 0 && scalar &&
			    (c == ',' || c == '}' || c == ']' || is_space(c))) {
				s->off = (size_t)(p - s->buf);
				return 0;
			}
			switch (c) {
			case '"':
				in_str = true;
				break;
			case '{':
			case '[':
				if (depth == SOURCE_JSON_MAX_DEPTH)
					return malformed(s, (size_t)(p - s->buf),
							 "nesting too deep");
				stack[depth++] = (char)(c == '{' ? '}' : ']');
				break;
			case '}':
			case ']':
				if (depth == 0 || stack[depth - 1] != c)
					return malformed(s, (size_t)(p - s->buf),
							 "unbalanced brackets");
				if (--depth == 0) {
					s->off = (size_t)(p + 1 - s->buf);
					return 0;
				}
				break;
			default:
				if (depth == 0)
					scalar = true;
			}
			p++;
		}
		s->off = s->len;
	}
}

struct walk {
	const char *list_kind; /* the item kind a typed List announced */
	char kind[128];	       /* the item's own kind, once read */
};

/* Past the '{' or '[' at the cursor: 1 when close follows at once (passed
 * too), 0 when a member or an item does; -errno. */
static int open_empty(struct scan *s, int close)
{
	int c, r;
	s->off++;
	if ((r = skip_space(s, &c)) < 0)
		return r;
	if (c != close)
		return 0;
	s->off++;
	return 1;
}

typedef int (*member_fn)(struct scan *s, const char *key, int next, struct jv_builder *obj,
			 struct walk *w);

/* The members of the object at the cursor, added to obj; fn decides how
 * each value is read (it is called with the value's first byte in next). */
static int scan_members(struct scan *s, struct jv_builder *obj, member_fn fn, struct walk *w)
{
	int c, r;
	if ((r = open_empty(s, '}')) != 0)
		return r < 0 ? r : 0;
	for (;;) {
		json_object *key = NULL;
		char plain[256];
		const char *name = NULL;
		size_t len;
		if ((r = skip_space(s, &c)) < 0)
			return r;
		if (c < 0)
			return truncated(s);
		if (c != '"')
			return malformed(s, s->off, "expected a member name");
		size_t at = s->off;
		if (plain_string(s, &name, &len) && len < sizeof(plain)) {
			memcpy(plain, name, len);
			plain[len] = '\0';
			name = plain;
			r = 0;
		} else {
			s->off = at;
			r = scan_value(s, &key);
			name = json_object_get_string(key);
		}
		if (r == 0)
			r = expect(s, ':', "expected ':' after a member name");
		if (r == 0)
			r = skip_space(s, &c);
		if (r == 0 && c < 0)
			r = truncated(s);
		if (r == 0)
			r = fn(s, name, c, obj, w);
		json_object_put(key);
		if (r < 0 || (r = skip_space(s, &c)) < 0)
			return r;
		if (c == ',') {
			s->off++;
			continue;
		}
		return expect(s, '}', "expected ',' or '}' after a member");
	}
}

/* The window's bytes from the cursor on, with more read behind them; when
 * the value at the cursor fills the whole window, the window grows. 1: more
 * bytes, 0: none (end of input, or the limit), <0: error. */
static int refill_keep(struct scan *s)
{
	if (s->off == 0 && s->len == s->cap) {
		if (s->cap >= SOURCE_FILE_MAX)
			return 0;
		s->cap *= 2;
		s->buf = xrealloc(s->buf, s->cap);
	}
	return refill(s);
}

/* A value in the compact form: read by jf_parse() (aggregator/json_fast.c)
 * when it is sure of it, else parsed by json_tokener, whose tree is freed at
 * once so that its memory serves the next value. */
static int scan_jv(struct scan *s, struct jv *ret)
{
	for (;;) {
		int c, r = cur(s, &c);
		if (r < 0)
			return r;
		if (c < 0)
			break;
		size_t used;
		enum jf_result fr =
		    jf_parse(arena(s), &s->fast, s->buf + s->off, s->len - s->off, ret, &used);
		if (fr == JF_OK) {
			s->off += used;
			return 0;
		}
		if (fr != JF_MORE || s->fd < 0 || s->eof)
			break;
		/* The window ends inside the value: read on, and start it again. */
		if ((r = refill_keep(s)) < 0)
			return r;
		if (r == 0)
			break;
	}
	json_object *v = NULL;
	int r = scan_value(s, &v);
	if (r == 0)
		*ret = jv_from_json(arena(s), v);
	json_object_put(v);
	return r;
}

static int member_plain(struct scan *s, const char *key, struct jv_builder *obj)
{
	struct jv v;
	const char *str;
	size_t len, at = s->off;
	if (s->buf[at] == '"' && plain_string(s, &str, &len)) {
		jv_builder_set(arena(s), obj, key, jv_string_len(arena(s), str, len));
		return 0;
	}
	s->off = at;
	int r = scan_jv(s, &v);
	if (r == 0)
		jv_builder_set(arena(s), obj, key, v);
	return r;
}

static int member_of_metadata(struct scan *s, const char *key, int next, struct jv_builder *obj,
			      struct walk *w)
{
	const char *kind = w->kind[0] ? w->kind : w->list_kind;
	/* Without a kind yet (an unusual member order) it is kept here and
	 * trimmed once the kind is known (add_value). */
	if (streq(key, "managedFields") && kind && !streq(kind, "KubeVirt"))
		return skip_value(s);
	return member_plain(s, key, obj);
}

static int member_metadata(struct scan *s, const char *key, struct jv_builder *obj, struct walk *w)
{
	_cleanup_(builder_clearp) struct jv_builder meta = {0};
	int r = scan_members(s, &meta, member_of_metadata, w);
	if (r == 0)
		jv_builder_set(arena(s), obj, key, jv_builder_object(arena(s), &meta));
	return r;
}

static int member_of_item(struct scan *s, const char *key, int next, struct jv_builder *obj,
			  struct walk *w)
{
	if (streq(key, "metadata") && next == '{')
		return member_metadata(s, key, obj, w);
	int r = member_plain(s, key, obj);
	const char *kind = streq(key, "kind") ? jv_str(jv_builder_get(obj, "kind")) : NULL;
	if (r == 0 && kind)
		snprintf(w->kind, sizeof(w->kind), "%s", kind);
	return r;
}

/* A List's items, one by one. */
static int scan_items(struct scan *s, const struct jv_builder *members, struct jv_builder *items)
{
	int c, r;
	const char *lk = jv_str(jv_builder_get(members, "kind"));
	_cleanup_free_ char *item_kind =
	    lk && endswith(lk, "List") && !streq(lk, "List") ? xstrndup(lk, strlen(lk) - 4) : NULL;
	if ((r = open_empty(s, ']')) != 0)
		return r < 0 ? r : 0;
	for (;;) {
		if ((r = skip_space(s, &c)) < 0)
			return r;
		if (c < 0)
			return truncated(s);
		if (c == '{') {
			struct walk w = {.list_kind = item_kind};
			_cleanup_(builder_clearp) struct jv_builder it = {0};
			r = scan_members(s, &it, member_of_item, &w);
			if (r == 0)
				jv_builder_push(items, jv_builder_object(arena(s), &it));
		} else {
			struct jv v;
			r = scan_jv(s, &v);
			if (r == 0)
				jv_builder_push(items, v); /* rejected by add_list */
		}
		if (r < 0 || (r = skip_space(s, &c)) < 0)
			return r;
		if (c == ',') {
			s->off++;
			continue;
		}
		return expect(s, ']', "expected ',' or ']' after an item");
	}
}

static int member_of_top(struct scan *s, const char *key, int next, struct jv_builder *obj,
			 struct walk *w)
{
	if (streq(key, "items") && next == '[') {
		_cleanup_(builder_clearp) struct jv_builder items = {0};
		int r = scan_items(s, obj, &items);
		if (r == 0)
			jv_builder_set(arena(s), obj, key, jv_builder_array(arena(s), &items));
		return r;
	}
	if (streq(key, "metadata") && next == '{') {
		const char *kind = jv_str(jv_builder_get(obj, "kind"));
		if (kind)
			snprintf(w->kind, sizeof(w->kind), "%s", kind);
		return member_metadata(s, key, obj, w);
	}
	return member_plain(s, key, obj);
}

/* A top-level value: a List (its items are added) or a single object. */
static int scan_top(struct scan *s, int c)
{
	s->values++;
	if (c == '{') {
		_cleanup_(builder_clearp) struct jv_builder b = {0};
		struct walk w = {0};
		int r = scan_members(s, &b, member_of_top, &w);
		if (r < 0)
			return r;
		struct jv obj = jv_builder_object(arena(s), &b);
		return files_add_object(s, &obj, s->values == 1 ? "the object" : "an object");
	}
	struct jv v;
	int r = scan_jv(s, &v);
	if (r == 0)
		r = scan_fail(s, "%s: value %zu is %s, not a Kubernetes object or List", s->name,
			      s->values, jv_type(&v) == JV_NULL ? "null" : files_type_phrase(&v));
	return r;
}

/* Byte order marks: UTF-8's is skipped, UTF-16 is named (PowerShell). */
static int check_bom(struct scan *s)
{
	int c, r;
	while (s->len - s->off < 3 && (r = refill(s)) > 0)
		;
	if ((r = cur(s, &c)) < 0)
		return r;
	const unsigned char *u = (const unsigned char *)s->buf + s->off;
	size_t n = s->len - s->off;
	if (n >= 2 && ((u[0] == 0xff && u[1] == 0xfe) || (u[0] == 0xfe && u[1] == 0xff)))
		return scan_fail(
		    s,
		    "%s: UTF-16 text (PowerShell's > writes it); save it as UTF-8, e.g. "
		    "kubectl get … -o json | Out-File -Encoding utf8 FILE",
		    s->name);
	if (n >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf)
		s->off += 3;
	return 0;
}

int files_scan_all(struct scan *s)
{
	s->tok = json_tokener_new_ex(SOURCE_JSON_MAX_DEPTH);
	if (!s->tok)
		abort();
	json_tokener_set_flags(s->tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	int c, r = check_bom(s);
	while (r == 0) {
		if ((r = skip_space(s, &c)) < 0 || c < 0)
			break;
		r = scan_top(s, c);
	}
	json_tokener_free(s->tok);
	jf_scratch_clear(&s->fast);
	if (r == 0 && s->values == 0)
		r = SCAN_EMPTY;
	return r;
}
