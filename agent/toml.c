#include "toml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * How a table came to be decides what may still be added to it (TOML 1.0,
 * "Table"): a table defined by a [header] cannot be defined again, a table made
 * by dotted keys cannot be defined by a header later, and inline tables are
 * closed once written. A table created only as the parent of a header is
 * implicit and may still get its own header.
 */
enum {
	T_IMPLICIT = 0,
	T_DEFINED = 1 << 0, /* by a [header] (the root counts as defined) */
	T_DOTTED = 1 << 1,  /* by dotted keys in a key/value pair */
	T_INLINE = 1 << 2,  /* an inline table (or inside one): closed */
};

struct parser {
	const char *p, *end;
	unsigned line;
	int depth;
	struct toml_table *root, *cur;
	struct toml_error *err;
};

/* A key path as parsed: owned strings. */
struct keypath {
	char **parts;
	size_t n, cap;
};

static void keypath_clear(struct keypath *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->parts[i]);
	free(k->parts);
	*k = (struct keypath){0};
}

static void keypath_add(struct keypath *k, char *part)
{
	util_grow((void **)&k->parts, &k->cap, k->n + 1, sizeof(char *));
	k->parts[k->n++] = part;
}

static int fail(struct parser *ps, const char *fmt, ...) _printf_(2, 3);
static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	/* Keep the first error: it is the one closest to the cause. */
	if (ps->err->msg[0])
		return -EINVAL;
	ps->err->line = ps->line;
	va_start(ap, fmt);
	vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A key as it can be shown in a one-line message: printable ASCII, bounded. */
static const char *shown(const char *key, char *buf, size_t len)
{
	size_t o = 0;
	for (const unsigned char *s = (const unsigned char *)key; *s && o + 5 < len; s++) {
		if (*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\')
			buf[o++] = (char)*s;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", *s);
	}
	buf[o < len ? o : len - 1] = '\0';
	return buf;
}

/* ---- values and tables ---- */

static void value_free(struct toml_value *v);

static void array_free(struct toml_array *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		value_free(&a->items[i]);
	free(a->items);
	free(a);
}

static void table_free(struct toml_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->items[i].key);
		value_free(&t->items[i].val);
	}
	free(t->items);
	free(t);
}

static void value_free(struct toml_value *v)
{
	switch (v->type) {
	case TOML_STRING:
		free(v->s);
		break;
	case TOML_ARRAY:
		array_free(v->a);
		break;
	case TOML_TABLE:
		table_free(v->t);
		break;
	default:
		break;
	}
	v->type = TOML_BOOLEAN;
}

struct toml_table *toml_free(struct toml_table *t)
{
	table_free(t);
	return NULL;
}

const char *toml_type_name(enum toml_type t)
{
	switch (t) {
	case TOML_STRING:
		return "string";
	case TOML_INTEGER:
		return "integer";
	case TOML_FLOAT:
		return "float";
	case TOML_BOOLEAN:
		return "boolean";
	case TOML_ARRAY:
		return "array";
	case TOML_TABLE:
		return "table";
	}
	return "value";
}

static struct toml_value *table_find(struct toml_table *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (streq(t->items[i].key, key))
			return &t->items[i].val;
	return NULL;
}

const struct toml_value *toml_table_get(const struct toml_table *t, const char *key)
{
	return t ? table_find((struct toml_table *)t, key) : NULL;
}

const struct toml_value *toml_lookup(const struct toml_table *t, ...)
{
	va_list ap;
	const struct toml_value *v = NULL;
	const char *key;
	va_start(ap, t);
	while ((key = va_arg(ap, const char *))) {
		if (!t) {
			v = NULL;
			break;
		}
		v = toml_table_get(t, key);
		t = v && v->type == TOML_TABLE ? v->t : NULL;
	}
	va_end(ap);
	return v;
}

/* Append key (taking ownership) with an empty value slot; the caller fills it. */
static struct toml_value *table_add(struct toml_table *t, char *key)
{
	util_grow((void **)&t->items, &t->cap, t->n + 1, sizeof(struct toml_kv));
	struct toml_kv *kv = &t->items[t->n++];
	*kv = (struct toml_kv){.key = key};
	return &kv->val;
}

static struct toml_table *table_new(unsigned flags)
{
	struct toml_table *t = xcalloc(1, sizeof(*t));
	t->flags = flags;
	return t;
}

static struct toml_value *array_push(struct toml_array *a)
{
	util_grow((void **)&a->items, &a->cap, a->n + 1, sizeof(struct toml_value));
	struct toml_value *v = &a->items[a->n++];
	*v = (struct toml_value){0};
	return v;
}

static void mark_inline(struct toml_table *t)
{
	t->flags |= T_INLINE;
	for (size_t i = 0; i < t->n; i++) {
		struct toml_value *v = &t->items[i].val;
		if (v->type == TOML_TABLE)
			mark_inline(v->t);
		else if (v->type == TOML_ARRAY)
			for (size_t j = 0; j < v->a->n; j++)
				if (v->a->items[j].type == TOML_TABLE)
					mark_inline(v->a->items[j].t);
	}
}

/* ---- input: characters, white space, newlines, comments ---- */

static bool at_end(const struct parser *ps)
{
	return ps->p >= ps->end;
}

static int peek(const struct parser *ps)
{
	return at_end(ps) ? -1 : (unsigned char)*ps->p;
}

static bool looking_at(const struct parser *ps, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(ps->end - ps->p) >= n && memcmp(ps->p, s, n) == 0;
}

static void skip_ws(struct parser *ps)
{
	while (!at_end(ps) && (*ps->p == ' ' || *ps->p == '\t'))
		ps->p++;
}

static bool at_newline(const struct parser *ps)
{
	return looking_at(ps, "\n") || looking_at(ps, "\r\n");
}

static void eat_newline(struct parser *ps)
{
	ps->p += *ps->p == '\r' ? 2 : 1;
	ps->line++;
}

static void skip_comment(struct parser *ps)
{
	if (peek(ps) != '#')
		return;
	while (!at_end(ps) && *ps->p != '\n' && *ps->p != '\r')
		ps->p++;
}

/* After a key/value pair or a header: only white space and a comment may follow on the line. */
static int end_of_line(struct parser *ps)
{
	skip_ws(ps);
	skip_comment(ps);
	if (at_end(ps))
		return 0;
	if (at_newline(ps)) {
		eat_newline(ps);
		return 0;
	}
	if (*ps->p == '\r')
		return fail(ps, "carriage return without a line feed");
	return fail(ps, "unexpected '%c' after the value (expected the end of the line)", *ps->p);
}

/* Inside arrays: white space, newlines and comments, in any number. */
static int skip_ws_nl_comments(struct parser *ps)
{
	for (;;) {
		skip_ws(ps);
		skip_comment(ps);
		if (at_end(ps))
			return 0;
		if (at_newline(ps))
			eat_newline(ps);
		else if (*ps->p == '\r')
			return fail(ps, "carriage return without a line feed");
		else
			return 0;
	}
}

/*
 * TOML is UTF-8, and control characters other than tab (and the newline pair)
 * are not allowed anywhere, not even in comments: one pass over the input
 * catches all of them with the right line number.
 */
static int check_encoding(struct parser *ps)
{
	const unsigned char *s = (const unsigned char *)ps->p, *e = (const unsigned char *)ps->end;
	unsigned line = 1;
	while (s < e) {
		unsigned c = *s;
		if (c == '\n') {
			line++;
			s++;
			continue;
		}
		if (c < 0x80) {
			if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
				ps->line = line;
				return fail(ps, "control character 0x%02x is not allowed", c);
			}
			s++;
			continue;
		}
		size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
		uint32_t cp = n == 4 ? c & 0x07 : n == 3 ? c & 0x0f : c & 0x1f;
		bool ok = n > 0 && c < 0xf5 && (size_t)(e - s) >= n;
		for (size_t i = 1; ok && i < n; i++) {
			ok = (s[i] & 0xc0) == 0x80;
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
		if (ok &&
		    ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		     (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff))
			ok = false;
		if (!ok) {
			ps->line = line;
			return fail(ps, "invalid UTF-8");
		}
		s += n;
	}
	return 0;
}

/* ---- strings ---- */

struct sbuf {
	char *s;
	size_t n, cap;
};

static void sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	util_grow((void **)&b->s, &b->cap, b->n + n + 1, 1);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static void sbuf_utf8(struct sbuf *b, uint32_t cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sbuf_add(b, u, n);
}

static char *sbuf_take(struct sbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	*b = (struct sbuf){0};
	return s;
}

static int parse_escape(struct parser *ps, struct sbuf *b)
{
	/* ps->p is just past the backslash. */
	int c = peek(ps);
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	const char *k = c > 0 ? strchr(from, c) : NULL;
	if (k) {
		sbuf_add(b, &to[k - from], 1);
		ps->p++;
		return 0;
	}
	if (c != 'u' && c != 'U')
		return c < 0 ? fail(ps, "unterminated string")
			     : fail(ps, "invalid escape sequence \"\\%c\"", c);
	size_t n = c == 'u' ? 4 : 8;
	ps->p++;
	uint32_t cp = 0;
	for (size_t i = 0; i < n; i++) {
		int h = peek(ps);
		int d = h >= '0' && h <= '9'   ? h - '0'
			: h >= 'a' && h <= 'f' ? h - 'a' + 10
			: h >= 'A' && h <= 'F' ? h - 'A' + 10
					       : -1;
		if (d < 0)
			return fail(ps, "\\%c escape needs %zu hexadecimal digits", c, n);
		cp = (cp << 4) | (uint32_t)d;
		ps->p++;
	}
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(ps, "escape \\%c%0*X is not a Unicode scalar value", c, (int)n, cp);
	if (cp == 0)
		return fail(ps, "NUL characters in strings are not supported");
	sbuf_utf8(b, cp);
	return 0;
}

/* "basic" and 'literal' single-line strings; ps->p is on the opening quote. */
static int parse_line_string(struct parser *ps, char **ret)
{
	char q = *ps->p++;
	struct sbuf b = {0};
	for (;;) {
		int c = peek(ps);
		if (c < 0 || c == '\n' || c == '\r') {
			free(b.s);
			return fail(ps, "unterminated string");
		}
		ps->p++;
		if (c == q)
			break;
		if (c == '\\' && q == '"') {
			if (parse_escape(ps, &b) < 0) {
				free(b.s);
				return -EINVAL;
			}
			continue;
		}
		char ch = (char)c;
		sbuf_add(&b, &ch, 1);
	}
	*ret = sbuf_take(&b);
	return 0;
}

/* """multi-line basic""" and '''multi-line literal'''; ps->p is on the first quote. */
static int parse_ml_string(struct parser *ps, char **ret)
{
	char q = *ps->p;
	struct sbuf b = {0};
	ps->p += 3;
	/* A newline right after the opening delimiter is not part of the string. */
	if (at_newline(ps))
		eat_newline(ps);
	for (;;) {
		if (at_end(ps)) {
			free(b.s);
			return fail(ps, "unterminated multi-line string");
		}
		if (*ps->p == q) {
			size_t run = 0;
			while (ps->p + run < ps->end && ps->p[run] == q)
				run++;
			if (run >= 3) {
				/* Up to two quotes may sit right before the closing delimiter. */
				if (run > 5) {
					free(b.s);
					return fail(
					    ps,
					    "too many quotes at the end of a multi-line string");
				}
				sbuf_add(&b, ps->p, run - 3);
				ps->p += run;
				break;
			}
			sbuf_add(&b, ps->p, run);
			ps->p += run;
			continue;
		}
		if (at_newline(ps)) {
			eat_newline(ps);
			sbuf_add(&b, "\n", 1);
			continue;
		}
		if (*ps->p == '\r') {
			free(b.s);
			return fail(ps, "carriage return without a line feed");
		}
		if (*ps->p == '\\' && q == '"') {
			ps->p++;
			/* A line-ending backslash trims white space and newlines up to the next text. */
			const char *save = ps->p;
			skip_ws(ps);
			if (at_newline(ps)) {
				while (!at_end(ps) &&
				       (*ps->p == ' ' || *ps->p == '\t' || at_newline(ps))) {
					if (at_newline(ps))
						eat_newline(ps);
					else
						ps->p++;
				}
				continue;
			}
			ps->p = save;
			if (parse_escape(ps, &b) < 0) {
				free(b.s);
				return -EINVAL;
			}
			continue;
		}
		sbuf_add(&b, ps->p, 1);
		ps->p++;
	}
	*ret = sbuf_take(&b);
	return 0;
}

/* ---- keys ---- */

static bool bare_key_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int parse_simple_key(struct parser *ps, char **ret)
{
	int c = peek(ps);
	if (c == '"' || c == '\'') {
		if (looking_at(ps, c == '"' ? "\"\"\"" : "'''"))
			return fail(ps, "multi-line strings cannot be keys");
		return parse_line_string(ps, ret);
	}
	const char *s = ps->p;
	while (!at_end(ps) && bare_key_char(*ps->p))
		ps->p++;
	if (ps->p == s) {
		if (c < 0 || c == '\n' || c == '\r')
			return fail(ps, "expected a key");
		return fail(ps, "unexpected '%c' (expected a key)", c);
	}
	*ret = xstrndup(s, (size_t)(ps->p - s));
	return 0;
}

/* key = simple-key *( ws "." ws simple-key ) */
static int parse_key(struct parser *ps, struct keypath *k)
{
	for (;;) {
		char *part;
		skip_ws(ps);
		if (parse_simple_key(ps, &part) < 0)
			return -EINVAL;
		keypath_add(k, part);
		skip_ws(ps);
		if (peek(ps) != '.')
			return 0;
		ps->p++;
	}
}

/* ---- numbers and other scalars ---- */

static bool is_digit(int c, int base)
{
	switch (base) {
	case 2:
		return c == '0' || c == '1';
	case 8:
		return c >= '0' && c <= '7';
	case 16:
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	default:
		return c >= '0' && c <= '9';
	}
}

/* Digits of base with single underscores between digits; copies them without the
 * underscores into out. Returns the number of characters consumed, 0 if invalid. */
static size_t digits(const char *s, size_t n, int base, struct sbuf *out)
{
	size_t i = 0;
	if (n == 0 || !is_digit((unsigned char)s[0], base))
		return 0;
	while (i < n) {
		if (is_digit((unsigned char)s[i], base)) {
			sbuf_add(out, &s[i], 1);
			i++;
		} else if (s[i] == '_' && i + 1 < n && is_digit((unsigned char)s[i + 1], base) &&
			   i > 0 && is_digit((unsigned char)s[i - 1], base)) {
			i++;
		} else {
			break;
		}
	}
	return s[i - 1] == '_' ? 0 : i;
}

static int parse_integer_token(struct parser *ps, const char *tok, size_t n, struct toml_value *v)
{
	int base = 10;
	bool neg = false;
	size_t i = 0;
	struct sbuf d = {0};
	if (n > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'o' || tok[1] == 'b')) {
		base = tok[1] == 'x' ? 16 : tok[1] == 'o' ? 8 : 2;
		i = 2;
	} else if (tok[0] == '+' || tok[0] == '-') {
		neg = tok[0] == '-';
		i = 1;
	}
	size_t used = digits(tok + i, n - i, base, &d);
	if (used == 0 || i + used != n ||
	    (base == 10 && d.n > 1 && d.s[0] == '0' /* no leading zeros */)) {
		free(d.s);
		return fail(ps, "invalid number \"%.*s\"", (int)(n > 64 ? 64 : n), tok);
	}
	/* Accumulate as a negative number so that INT64_MIN fits. */
	int64_t acc = 0;
	for (size_t k = 0; k < d.n; k++) {
		int c = (unsigned char)d.s[k];
		int64_t dv = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
		if (acc < (INT64_MIN + dv) / base) {
			free(d.s);
			return fail(ps, "integer \"%.*s\" does not fit in 64 bits",
				    (int)(n > 64 ? 64 : n), tok);
		}
		acc = acc * base - dv;
	}
	free(d.s);
	if (!neg && acc == INT64_MIN)
		return fail(ps, "integer \"%.*s\" does not fit in 64 bits", (int)(n > 64 ? 64 : n),
			    tok);
	v->type = TOML_INTEGER;
	v->i = neg ? acc : -acc;
	return 0;
}

static int parse_float_token(struct parser *ps, const char *tok, size_t n, struct toml_value *v)
{
	size_t i = 0;
	struct sbuf d = {0};
	if (tok[0] == '+' || tok[0] == '-')
		sbuf_add(&d, &tok[i++], 1);
	const char *rest = tok + i;
	size_t rn = n - i;
	if ((rn == 3 && memcmp(rest, "inf", 3) == 0) || (rn == 3 && memcmp(rest, "nan", 3) == 0)) {
		v->type = TOML_FLOAT;
		v->f = rest[0] == 'i' ? (tok[0] == '-' ? -INFINITY : INFINITY) : NAN;
		free(d.s);
		return 0;
	}
	size_t ip = d.n;
	size_t used = digits(tok + i, n - i, 10, &d);
	bool ok = used > 0 && !(d.n - ip > 1 && d.s[ip] == '0');
	i += used;
	bool frac = false, exp = false;
	if (ok && i < n && tok[i] == '.') {
		sbuf_add(&d, ".", 1);
		used = digits(tok + i + 1, n - i - 1, 10, &d);
		ok = used > 0;
		i += used + 1;
		frac = true;
	}
	if (ok && i < n && (tok[i] == 'e' || tok[i] == 'E')) {
		sbuf_add(&d, "e", 1);
		i++;
		if (i < n && (tok[i] == '+' || tok[i] == '-'))
			sbuf_add(&d, &tok[i++], 1);
		used = digits(tok + i, n - i, 10, &d);
		ok = used > 0;
		i += used;
		exp = true;
	}
	if (!ok || i != n || !(frac || exp)) {
		free(d.s);
		return fail(ps, "invalid number \"%.*s\"", (int)(n > 64 ? 64 : n), tok);
	}
	v->type = TOML_FLOAT;
	v->f = strtod(d.s, NULL);
	free(d.s);
	return 0;
}

static bool value_delimiter(int c)
{
	return c < 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ']' ||
	       c == '}' || c == '#';
}

static int parse_scalar(struct parser *ps, struct toml_value *v)
{
	const char *s = ps->p;
	while (!at_end(ps) && !value_delimiter((unsigned char)*ps->p))
		ps->p++;
	size_t n = (size_t)(ps->p - s);
	if (n == 0)
		return fail(ps, "expected a value");
	if ((n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0)) {
		v->type = TOML_BOOLEAN;
		v->b = n == 4;
		return 0;
	}
	/* 1979-05-27, 07:32:00 and their combinations: recognisable by their shape. */
	if (memchr(s, ':', n) || (n >= 5 && is_digit(s[0], 10) && is_digit(s[1], 10) &&
				  is_digit(s[2], 10) && is_digit(s[3], 10) && s[4] == '-'))
		return fail(ps, "date and time values are not supported (\"%.*s\")",
			    (int)(n > 64 ? 64 : n), s);
	if (!(is_digit((unsigned char)s[0], 10) || s[0] == '+' || s[0] == '-' || s[0] == 'i' ||
	      s[0] == 'n'))
		return fail(ps, "invalid value \"%.*s\" (strings must be quoted)",
			    (int)(n > 64 ? 64 : n), s);
	bool is_float = false;
	bool prefixed = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b');
	for (size_t i = 0; i < n && !prefixed; i++)
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'E' || s[i] == 'i' || s[i] == 'n')
			is_float = true;
	return is_float ? parse_float_token(ps, s, n, v) : parse_integer_token(ps, s, n, v);
}

/* ---- compound values ---- */

static int parse_value(struct parser *ps, struct toml_value *v);
static int parse_keyval(struct parser *ps, struct toml_table *t);

static int parse_array(struct parser *ps, struct toml_value *v)
{
	ps->p++; /* '[' */
	v->type = TOML_ARRAY;
	v->a = xcalloc(1, sizeof(struct toml_array));
	for (;;) {
		if (skip_ws_nl_comments(ps) < 0)
			return -EINVAL;
		if (peek(ps) == ']') {
			ps->p++;
			return 0;
		}
		if (at_end(ps))
			return fail(ps, "unterminated array");
		if (parse_value(ps, array_push(v->a)) < 0)
			return -EINVAL;
		if (skip_ws_nl_comments(ps) < 0)
			return -EINVAL;
		int c = peek(ps);
		if (c == ',') {
			ps->p++;
			continue;
		}
		if (c == ']') {
			ps->p++;
			return 0;
		}
		return c < 0 ? fail(ps, "unterminated array")
			     : fail(ps, "unexpected '%c' in array (expected ',' or ']')", c);
	}
}

static int parse_inline_table(struct parser *ps, struct toml_value *v)
{
	ps->p++; /* '{' */
	v->type = TOML_TABLE;
	v->t = table_new(T_DEFINED);
	skip_ws(ps);
	if (peek(ps) == '}') {
		ps->p++;
		mark_inline(v->t);
		return 0;
	}
	for (;;) {
		if (parse_keyval(ps, v->t) < 0)
			return -EINVAL;
		skip_ws(ps);
		int c = peek(ps);
		if (c == ',') {
			ps->p++;
			skip_ws(ps);
			if (peek(ps) == '}')
				return fail(ps, "trailing comma in inline table");
			continue;
		}
		if (c == '}') {
			ps->p++;
			mark_inline(v->t);
			return 0;
		}
		if (c == '\n' || c == '\r')
			return fail(ps,
				    "newline in inline table (inline tables must be on one line)");
		return c < 0 ? fail(ps, "unterminated inline table")
			     : fail(ps, "unexpected '%c' in inline table (expected ',' or '}')", c);
	}
}

static int parse_value(struct parser *ps, struct toml_value *v)
{
	int r;
	v->line = ps->line;
	if (++ps->depth > TOML_MAX_DEPTH)
		return fail(ps, "arrays and inline tables nest deeper than %d", TOML_MAX_DEPTH);
	switch (peek(ps)) {
	case '"':
	case '\'':
		v->type = TOML_STRING;
		v->s = NULL;
		r = looking_at(ps, "\"\"\"") || looking_at(ps, "'''")
			? parse_ml_string(ps, &v->s)
			: parse_line_string(ps, &v->s);
		if (r < 0)
			v->type = TOML_BOOLEAN; /* nothing to free */
		break;
	case '[':
		r = parse_array(ps, v);
		break;
	case '{':
		r = parse_inline_table(ps, v);
		break;
	case -1:
	case '\n':
	case '\r':
		r = fail(ps, "expected a value");
		break;
	default:
		r = parse_scalar(ps, v);
		break;
	}
	ps->depth--;
	return r;
}

/* ---- placing keys into tables ---- */

/* A new table called key in t, defined on the current line. */
static struct toml_value *add_table(struct parser *ps, struct toml_table *t, const char *key,
				    unsigned flags)
{
	struct toml_value *v = table_add(t, xstrdup(key));
	v->type = TOML_TABLE;
	v->line = ps->line;
	v->t = table_new(flags);
	return v;
}

/* Walk (creating as needed) the tables of a dotted key, all but the last part. */
static int descend_dotted(struct parser *ps, struct toml_table **t, const struct keypath *k)
{
	char b[80];
	for (size_t i = 0; i + 1 < k->n; i++) {
		struct toml_value *v = table_find(*t, k->parts[i]);
		if (!v) {
			v = add_table(ps, *t, k->parts[i], T_DOTTED | ((*t)->flags & T_INLINE));
		} else if (v->type != TOML_TABLE) {
			return fail(ps, "key \"%s\" is already a %s, not a table",
				    shown(k->parts[i], b, sizeof(b)), toml_type_name(v->type));
		} else if (v->t->flags & (T_DEFINED | T_INLINE)) {
			return fail(ps,
				    "table \"%s\" is already defined and cannot be extended here",
				    shown(k->parts[i], b, sizeof(b)));
		}
		*t = v->t;
	}
	return 0;
}

static int parse_keyval(struct parser *ps, struct toml_table *t)
{
	struct keypath k = {0};
	char b[80];
	int r = parse_key(ps, &k);
	if (r < 0)
		goto out;
	skip_ws(ps);
	if (peek(ps) != '=') {
		r = peek(ps) < 0 || at_newline(ps)
			? fail(ps, "expected '=' after key \"%s\"",
			       shown(k.parts[k.n - 1], b, sizeof(b)))
			: fail(ps, "unexpected '%c' after key \"%s\" (expected '=')", *ps->p,
			       shown(k.parts[k.n - 1], b, sizeof(b)));
		goto out;
	}
	ps->p++;
	skip_ws(ps);
	if ((r = descend_dotted(ps, &t, &k)) < 0)
		goto out;
	const char *last = k.parts[k.n - 1];
	if (table_find(t, last)) {
		r = fail(ps, "duplicate key \"%s\"", shown(last, b, sizeof(b)));
		goto out;
	}
	struct toml_value v = {0};
	r = parse_value(ps, &v);
	if (r < 0) {
		value_free(&v);
		goto out;
	}
	*table_add(t, xstrdup(last)) = v;
out:
	keypath_clear(&k);
	return r;
}

/* The table a header's parent parts lead to; arrays of tables continue in their last element. */
static int descend_header(struct parser *ps, struct toml_table **t, const struct keypath *k)
{
	char b[80];
	for (size_t i = 0; i + 1 < k->n; i++) {
		struct toml_value *v = table_find(*t, k->parts[i]);
		if (!v)
			v = add_table(ps, *t, k->parts[i], T_IMPLICIT);
		if (v->type == TOML_ARRAY && v->a->of_tables && v->a->n > 0) {
			*t = v->a->items[v->a->n - 1].t;
			continue;
		}
		if (v->type != TOML_TABLE)
			return fail(ps, "key \"%s\" is already a %s, not a table",
				    shown(k->parts[i], b, sizeof(b)), toml_type_name(v->type));
		if (v->t->flags & T_INLINE)
			return fail(ps, "inline table \"%s\" cannot be extended",
				    shown(k->parts[i], b, sizeof(b)));
		*t = v->t;
	}
	return 0;
}

static int parse_header(struct parser *ps)
{
	bool aot = looking_at(ps, "[[");
	struct keypath k = {0};
	struct toml_table *t = ps->root;
	char b[80];
	int r;
	ps->p += aot ? 2 : 1;
	if ((r = parse_key(ps, &k)) < 0)
		goto out;
	skip_ws(ps);
	if (!looking_at(ps, aot ? "]]" : "]")) {
		r = fail(ps, "expected '%s' to close the table header", aot ? "]]" : "]");
		goto out;
	}
	ps->p += aot ? 2 : 1;
	if ((r = descend_header(ps, &t, &k)) < 0)
		goto out;
	const char *last = k.parts[k.n - 1];
	struct toml_value *v = table_find(t, last);
	if (aot) {
		if (!v) {
			v = table_add(t, xstrdup(last));
			v->type = TOML_ARRAY;
			v->line = ps->line;
			v->a = xcalloc(1, sizeof(struct toml_array));
			v->a->of_tables = true;
		} else if (v->type != TOML_ARRAY || !v->a->of_tables) {
			r = fail(ps, "\"%s\" is already a %s, not an array of tables",
				 shown(last, b, sizeof(b)), toml_type_name(v->type));
			goto out;
		}
		struct toml_value *e = array_push(v->a);
		e->type = TOML_TABLE;
		e->line = ps->line;
		e->t = table_new(T_DEFINED);
		ps->cur = e->t;
		goto out;
	}
	if (!v) {
		v = add_table(ps, t, last, T_DEFINED);
	} else if (v->type != TOML_TABLE) {
		r = fail(ps, "\"%s\" is already a %s, not a table", shown(last, b, sizeof(b)),
			 toml_type_name(v->type));
		goto out;
	} else if (v->t->flags & (T_DEFINED | T_DOTTED | T_INLINE)) {
		r = fail(ps, "table \"%s\" is defined more than once", shown(last, b, sizeof(b)));
		goto out;
	} else {
		v->t->flags |= T_DEFINED;
		v->line = ps->line;
	}
	ps->cur = v->t;
out:
	keypath_clear(&k);
	return r;
}

int toml_parse(const uint8_t *buf, size_t len, struct toml_table **ret, struct toml_error *err)
{
	struct parser ps = {
	    .p = (const char *)buf,
	    .end = (const char *)buf + len,
	    .line = 1,
	    .err = err,
	};
	*err = (struct toml_error){0};
	if (check_encoding(&ps) < 0)
		return -EINVAL;
	ps.line = 1;
	/* A UTF-8 byte order mark is tolerated at the start. */
	if (looking_at(&ps, "\xef\xbb\xbf"))
		ps.p += 3;
	ps.root = ps.cur = table_new(T_DEFINED);
	int r = 0;
	while (r == 0 && !at_end(&ps)) {
		skip_ws(&ps);
		skip_comment(&ps);
		if (at_end(&ps))
			break;
		if (at_newline(&ps)) {
			eat_newline(&ps);
			continue;
		}
		if (*ps.p == '\r')
			r = fail(&ps, "carriage return without a line feed");
		else if (*ps.p == '[')
			r = parse_header(&ps);
		else
			r = parse_keyval(&ps, ps.cur);
		if (r == 0)
			r = end_of_line(&ps);
	}
	if (r < 0) {
		table_free(ps.root);
		return r;
	}
	*ret = ps.root;
	return 0;
}
