/*
 * The one reader of a node report on the wire (docs/protocol.md; the encoder,
 * with msgpack-c's packer, is common/wire.c). A cursor over the msgpack bytes
 * and one schema walk over it, which reads the bytes in place: nothing is
 * allocated but the reusable span arrays. Two callers:
 *
 * - the aggregator's hot path, wirescan_report(): the verdict, the header
 *   fields and where each finding and facts entry sits in the message; no
 *   reasons are rendered, and bytes the store knows are not walked again;
 * - wire_decode_node_report(): the same walk with its reasons, then the
 *   report built from the pieces (wirescan_decode_finding/_fact).
 *
 * A reason names the first fault in a fixed order, whatever order the walk
 * meets them in: (1) the structure — a reserved type byte, a length or
 * element count beyond the bytes left (every element takes at least a byte:
 * a larger count is a lie), nesting deeper than 16, trailing bytes — with a
 * byte offset; then, per map, (2) its entry count and keys (strings, valid
 * text, unique) before (3) its values in order, and at the top level the
 * schema string before every other value, so that a message of another major
 * version says so; (4) missing required fields last. Schema faults name the
 * field path ("results[3].status"). Integers are classified as msgpack-c
 * does: a signed format holding a non-negative value is a positive integer.
 */
#include "wirescan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wire.h"

/* The whole message nests at most 16 levels (a valid report: 3 +
 * WIRE_MAX_DEPTH; the margin lets the schema walk, which knows the path,
 * report moderate excess). */
#define SKIP_MAX_DEPTH 16

#define SCHEMA_PREFIX "hvready.node/v"

enum mp_type {
	MP_NIL,
	MP_BOOL,
	MP_POS,
	MP_NEG,
	MP_FLOAT,
	MP_STR,
	MP_BIN,
	MP_EXT,
	MP_ARRAY,
	MP_MAP
};

static const char *const type_names[] = {
    [MP_NIL] = "nil",	  [MP_BOOL] = "boolean", [MP_POS] = "integer", [MP_NEG] = "integer",
    [MP_FLOAT] = "float", [MP_STR] = "string",	 [MP_BIN] = "binary",  [MP_EXT] = "extension",
    [MP_ARRAY] = "array", [MP_MAP] = "map",
};

/* One value's header. */
struct mp {
	enum mp_type t;
	uint64_t u;  /* MP_POS, MP_BOOL */
	int64_t i;   /* MP_NEG */
	uint64_t n;  /* payload bytes (STR, BIN, EXT) or elements (ARRAY) or entries (MAP) */
	size_t data; /* offset of a STR/BIN/EXT payload */
};

struct rd {
	const uint8_t *b;
	size_t len, pos;
	/* the reason of a structural fault, when asked for (else NULL) */
	char *err;
	size_t errlen;
};

static bool rd_fail(struct rd *r, const char *fmt, ...) _printf_(2, 3);
static bool rd_fail(struct rd *r, const char *fmt, ...)
{
	if (r->err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool rd_truncated(struct rd *r, enum mp_type t, uint64_t need, size_t left)
{
	return rd_fail(r, "truncated message (%s at byte %zu needs %" PRIu64 " bytes, %zu left)",
		       type_names[t], r->pos, need, left);
}

static uint64_t read_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int64_t sign_extend(uint64_t v, unsigned bytes)
{
	if (bytes == 8)
		return (int64_t)v;
	uint64_t sign = UINT64_C(1) << (bytes * 8 - 1);
	return (int64_t)((v ^ sign) - sign);
}

/* Read the header at r->pos and move past it and, for a scalar, past its
 * payload; a container's elements follow. false on a structural fault (the
 * reader stays put). */
static bool rd_next(struct rd *r, struct mp *m)
{
	if (r->pos >= r->len)
		return rd_fail(
		    r, "truncated message (ends at byte %zu, where a value should follow)", r->pos);
	uint8_t b = r->b[r->pos];
	size_t p = r->pos + 1, left = r->len - p;
	unsigned lenbytes = 0, extra = 0; /* length field size; fixed bytes before the data */
	*m = (struct mp){0};
	if (b <= 0x7f) {
		m->t = MP_POS;
		m->u = b;
		r->pos = p;
		return true;
	}
	if (b >= 0xe0) {
		m->t = MP_NEG;
		m->i = (int8_t)b;
		r->pos = p;
		return true;
	}
	if (b <= 0x8f) {
		m->t = MP_MAP;
		m->n = b & 0x0f;
	} else if (b <= 0x9f) {
		m->t = MP_ARRAY;
		m->n = b & 0x0f;
	} else if (b <= 0xbf) {
		m->t = MP_STR;
		m->n = b & 0x1f;
	} else {
		switch (b) {
		case 0xc0:
			m->t = MP_NIL;
			r->pos = p;
			return true;
		case 0xc2:
		case 0xc3:
			m->t = MP_BOOL;
			m->u = b == 0xc3;
			r->pos = p;
			return true;
		case 0xc4:
		case 0xc5:
		case 0xc6:
			m->t = MP_BIN;
			lenbytes = 1u << (b - 0xc4);
			break;
		case 0xc7:
		case 0xc8:
		case 0xc9:
			m->t = MP_EXT;
			lenbytes = 1u << (b - 0xc7);
			extra = 1;
			break;
		case 0xca:
		case 0xcb: {
			unsigned n = b == 0xca ? 4 : 8;
			m->t = MP_FLOAT;
			if (left < n)
				return rd_truncated(r, MP_FLOAT, n, left);
			r->pos = p + n;
			return true;
		}
		case 0xcc:
		case 0xcd:
		case 0xce:
		case 0xcf:
		case 0xd0:
		case 0xd1:
		case 0xd2:
		case 0xd3: {
			unsigned n = 1u << ((b - 0xcc) & 3);
			if (left < n)
				return rd_truncated(r, MP_POS, n, left);
			uint64_t v = read_be(r->b + p, n);
			if (b >= 0xd0 && sign_extend(v, n) < 0) {
				m->t = MP_NEG;
				m->i = sign_extend(v, n);
			} else {
				m->t = MP_POS;
				m->u = b >= 0xd0 ? (uint64_t)sign_extend(v, n) : v;
			}
			r->pos = p + n;
			return true;
		}
		case 0xd4:
		case 0xd5:
		case 0xd6:
		case 0xd7:
		case 0xd8:
			m->t = MP_EXT;
			m->n = 1u << (b - 0xd4);
			extra = 1;
			break;
		case 0xd9:
		case 0xda:
		case 0xdb:
			m->t = MP_STR;
			lenbytes = 1u << (b - 0xd9);
			break;
		case 0xdc:
		case 0xdd:
			m->t = MP_ARRAY;
			lenbytes = b == 0xdc ? 2 : 4;
			break;
		case 0xde:
		case 0xdf:
			m->t = MP_MAP;
			lenbytes = b == 0xde ? 2 : 4;
			break;
		default: /* 0xc1, reserved */
			return rd_fail(r, "invalid msgpack: reserved type byte 0x%02x at byte %zu",
				       b, r->pos);
		}
	}
	if (left < lenbytes)
		return rd_truncated(r, m->t, lenbytes, left);
	if (lenbytes)
		m->n = read_be(r->b + p, lenbytes);
	p += lenbytes;
	left -= lenbytes;
	if (m->t == MP_ARRAY || m->t == MP_MAP) {
		/* Every element takes at least a byte: a count beyond the bytes
		 * left is a lie (and believing it is what costs memory). */
		if (m->n * (m->t == MP_MAP ? 2 : 1) > left)
			return rd_fail(r,
				       "truncated message (%s at byte %zu declares %" PRIu64
				       " %s, %zu bytes left)",
				       type_names[m->t], r->pos, m->n,
				       m->t == MP_MAP ? "entries" : "elements", left);
		r->pos = p;
		return true;
	}
	if (extra + m->n > left)
		return rd_truncated(r, m->t, extra + m->n, left);
	m->data = p + extra;
	r->pos = p + extra + m->n;
	return true;
}

/* The whole message is one well-formed value, nested at most SKIP_MAX_DEPTH
 * levels, with nothing after it: the structural faults, each with its reason. */
static bool rd_structure(struct rd *r)
{
	/* pending[d]: values still expected at nesting level d (0: the message) */
	uint64_t pending[SKIP_MAX_DEPTH + 1];
	int depth = 0;
	pending[0] = 1;
	while (depth >= 0) {
		if (pending[depth] == 0) {
			depth--;
			continue;
		}
		pending[depth]--;
		size_t at = r->pos;
		struct mp m;
		if (!rd_next(r, &m))
			return false;
		if (m.t != MP_ARRAY && m.t != MP_MAP)
			continue;
		if (depth + 1 > SKIP_MAX_DEPTH)
			return rd_fail(r, "nesting deeper than %d levels at byte %zu",
				       SKIP_MAX_DEPTH, at);
		pending[++depth] = m.t == MP_MAP ? 2 * m.n : m.n;
	}
	if (r->pos < r->len)
		return rd_fail(r, "trailing bytes after the report (%zu)", r->len - r->pos);
	return true;
}

/* ---- the schema walk ---- */

/* Where the walk is, for a reason's field path: one frame per container
 * entered. The text is only rendered when a reason needs it. */
struct frame {
	uint32_t off, len; /* a map entry's key (a string) */
	uint32_t index;	   /* an array index, or the entry's number */
	uint8_t kind;
};

enum { FRAME_INDEX, FRAME_KEY, FRAME_ENTRY /* a map entry whose key is no string */ };

struct scan {
	struct rd r;
	const struct wirescan_known *known;
	/* keys of the maps being walked, innermost last (unique-key checks) */
	struct wirescan_span *keys;
	size_t n_keys, cap_keys;
	/* Reasons (wire_decode_node_report): r.err is set, and the walk goes
	 * on after a value's fault to find the keys' faults that come first. */
	int code; /* -EINVAL, or -EPROTONOSUPPORT for another major version */
	struct frame frames[SKIP_MAX_DEPTH + 1];
	size_t depth;
	char path[WIRE_ERR_LEN];
};

static bool fail(struct scan *s, const char *fmt, ...) _printf_(2, 3);
static bool fail(struct scan *s, const char *fmt, ...)
{
	if (s->r.err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(s->r.err, s->r.errlen, fmt, ap);
		va_end(ap);
		s->code = -EINVAL;
	}
	return false;
}

/* s as a short, printable, quoted string for a one-line message. */
static const char *quote(char *buf, size_t size, const uint8_t *s, size_t n)
{
	size_t o = 0;
	buf[o++] = '"';
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (o + 8 >= size) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

static void path_append(char *path, size_t *len, const char *fmt, ...) _printf_(3, 4);
static void path_append(char *path, size_t *len, const char *fmt, ...)
{
	size_t left = WIRE_ERR_LEN - *len;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(path + *len, left, fmt, ap);
	va_end(ap);
	*len = n < 0 || (size_t)n >= left ? WIRE_ERR_LEN - 1 : *len + (size_t)n;
}

/* Identifier-like keys read as ".key", others as ["quoted"]. */
static void path_append_key(struct scan *s, size_t *len, const struct frame *f)
{
	if (f->kind == FRAME_ENTRY) {
		path_append(s->path, len, "{entry %" PRIu32 "}", f->index);
		return;
	}
	const uint8_t *k = s->r.b + f->off;
	size_t n = f->len;
	bool simple = n > 0 && n <= 64;
	for (size_t i = 0; i < n && simple; i++)
		simple = (k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
			 (k[i] >= '0' && k[i] <= '9') || k[i] == '_' || k[i] == '-';
	if (simple) {
		path_append(s->path, len, "%s%.*s", *len ? "." : "", (int)n, (const char *)k);
	} else {
		char q[48];
		path_append(s->path, len, "[%s]", quote(q, sizeof(q), k, n));
	}
}

static const char *where(struct scan *s)
{
	size_t len = 0;
	s->path[0] = '\0';
	for (size_t i = 0; i < s->depth; i++) {
		if (s->frames[i].kind == FRAME_INDEX)
			path_append(s->path, &len, "[%" PRIu32 "]", s->frames[i].index);
		else
			path_append_key(s, &len, &s->frames[i]);
	}
	return len ? s->path : "top level";
}

/* Push a frame (the walk's nesting is bounded well inside the array);
 * returns the depth to restore. */
static size_t push_index(struct scan *s, uint64_t i)
{
	size_t saved = s->depth;
	if (s->depth < ELEMENTSOF(s->frames))
		s->frames[s->depth++] = (struct frame){.index = (uint32_t)i, .kind = FRAME_INDEX};
	return saved;
}

static size_t push_key(struct scan *s, const struct mp *key, uint64_t i)
{
	size_t saved = s->depth;
	if (s->depth < ELEMENTSOF(s->frames))
		s->frames[s->depth++] =
		    key->t == MP_STR ? (struct frame){(uint32_t)key->data, (uint32_t)key->n,
						      (uint32_t)i, FRAME_KEY}
				     : (struct frame){.index = (uint32_t)i, .kind = FRAME_ENTRY};
	return saved;
}

static bool has_zero_byte(uint64_t v)
{
	return ((v - UINT64_C(0x0101010101010101)) & ~v & UINT64_C(0x8080808080808080)) != 0;
}

/* A string the report keeps: bounded, UTF-8, no NUL (it becomes a C string,
 * and JSON renderings need valid UTF-8). Eight ASCII bytes at a time: nearly
 * every string of a report is plain ASCII. */
static bool text_ok(const uint8_t *s, uint64_t n)
{
	if (n > WIRE_MAX_STRING)
		return false;
	size_t i = 0;
	while (i < n) {
		if (n - i >= 8) {
			uint64_t v;
			memcpy(&v, s + i, 8);
			if (!(v & UINT64_C(0x8080808080808080)) && !has_zero_byte(v)) {
				i += 8;
				continue;
			}
		}
		if (s[i] > 0 && s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] == '\0')
			return false;
		size_t l = wire_utf8_seq_len(s + i, n - i);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

/* text_ok, with the reason: what the string is ("string" or "map key"). */
static bool text_check(struct scan *s, const uint8_t *p, uint64_t n, bool key)
{
	if (text_ok(p, n))
		return true;
	const char *what = key ? "map key" : "string", *in = key ? " in a map key" : "";
	if (n > WIRE_MAX_STRING)
		return fail(s, "%s too long at %s (%zu bytes, at most %u)", what, where(s),
			    (size_t)n, WIRE_MAX_STRING);
	for (size_t i = 0; i < n;) {
		size_t l = wire_utf8_seq_len(p + i, n - i);
		if (!l)
			return fail(s, "invalid UTF-8%s at %s (byte %zu)", in, where(s), i);
		if (p[i] == '\0')
			return fail(s, "NUL byte%s at %s (byte %zu)", in, where(s), i);
		i += l;
	}
	return false;
}

static bool str_is(const struct rd *r, const struct mp *m, const char *lit)
{
	size_t n = strlen(lit);
	return m->t == MP_STR && m->n == n && memcmp(r->b + m->data, lit, n) == 0;
}

static int span_cmp(const uint8_t *b, struct wirescan_span x, struct wirescan_span y)
{
	if (x.len != y.len)
		return x.len < y.len ? -1 : 1;
	return memcmp(b + x.off, b + y.off, x.len);
}

/* qsort has no context argument; scans run on several threads. */
static _Thread_local const uint8_t *tls_sort_base;

static int span_qcmp(const void *a, const void *b)
{
	return span_cmp(tls_sort_base, *(const struct wirescan_span *)a,
			*(const struct wirescan_span *)b);
}

/* The keys pushed since base are unique: a decoder elsewhere may take the
 * first of two equal keys where we would take the last, so a duplicate could
 * show one value to one reader and another to the next. The reason names the
 * least duplicate (by length, then bytes). The keys are popped. */
static bool keys_unique(struct scan *s, size_t base)
{
	size_t n = s->n_keys - base;
	struct wirescan_span *k = s->keys + base;
	bool ok = true;
	if (n >= 2 && n <= 16 && !s->r.err) {
		for (size_t i = 1; i < n && ok; i++)
			for (size_t j = 0; j < i && ok; j++)
				ok = span_cmp(s->r.b, k[i], k[j]) != 0;
	} else if (n >= 2) {
		/* Sorting reorders them; they are popped right after. */
		tls_sort_base = s->r.b;
		qsort(k, n, sizeof(*k), span_qcmp);
		for (size_t i = 1; i < n && ok; i++)
			if (span_cmp(s->r.b, k[i - 1], k[i]) == 0) {
				char q[64];
				ok = fail(s, "duplicate key %s at %s",
					  quote(q, sizeof(q), s->r.b + k[i].off, k[i].len),
					  where(s));
			}
	}
	s->n_keys = base;
	return ok;
}

/* Read a map key: a string with text_ok, remembered for keys_unique(). The
 * reason's path is the map's. */
static bool map_key(struct scan *s, struct mp *key)
{
	if (!rd_next(&s->r, key))
		return false;
	if (key->t != MP_STR)
		return fail(s, "%s: map key is not a string (%s)", where(s), type_names[key->t]);
	if (!text_check(s, s->r.b + key->data, key->n, true))
		return false;
	util_grow((void **)&s->keys, &s->cap_keys, s->n_keys + 1, sizeof(*s->keys));
	s->keys[s->n_keys++] = (struct wirescan_span){(uint32_t)key->data, (uint32_t)key->n};
	return true;
}

/* Move past one value of any kind, checking only its structure; a value
 * deeper than SKIP_MAX_DEPTH is rejected. A loop over a stack of counts, not
 * recursion: every piece of a node's first report, and each one that changed
 * since its last, is skipped here first. */
static bool rd_skip(struct rd *r, int depth)
{
	/* left[i]: values still to read at depth + i */
	uint64_t left[SKIP_MAX_DEPTH + 2];
	int top = 0;
	left[0] = 1;
	if (depth < 0)
		return false;
	while (top >= 0) {
		if (left[top] == 0) {
			top--;
			continue;
		}
		left[top]--;
		struct mp m;
		if (depth + top > SKIP_MAX_DEPTH || !rd_next(r, &m))
			return false;
		if ((m.t == MP_ARRAY || m.t == MP_MAP) && m.n)
			left[++top] = m.t == MP_MAP ? 2 * m.n : m.n;
	}
	return true;
}

/* When giving reasons, after the value of entry i (of n, starting at vstart)
 * was at fault: every key of a map comes before any value, so a later key's
 * fault, or a duplicate, is the reason instead. Returns false. */
static bool rest_keys(struct scan *s, size_t vstart, uint64_t i, uint64_t n, size_t base)
{
	if (s->r.err) {
		/* The structure was checked first: skipping cannot fail. */
		s->r.pos = vstart;
		bool ok = rd_skip(&s->r, 0);
		struct mp key;
		for (uint64_t j = i + 1; ok && j < n; j++)
			ok = map_key(s, &key) && rd_skip(&s->r, 0);
		if (ok)
			keys_unique(s, base);
	}
	s->n_keys = base;
	return false;
}

/* A value under a key this version does not know: not kept, but held to the
 * same limits, so that no part of a message is unbounded. level counts this
 * value's own nesting (a container directly under the key is level 1). */
static bool skip_ignored(struct scan *s, int level)
{
	struct mp m;
	if (!rd_next(&s->r, &m))
		return false;
	switch (m.t) {
	case MP_STR:
	case MP_BIN:
	case MP_EXT:
		if (m.n > WIRE_MAX_STRING)
			return fail(s, "%s too long at %s (%u bytes, at most %u)", type_names[m.t],
				    where(s), (unsigned)m.n, WIRE_MAX_STRING);
		return true;
	case MP_ARRAY:
	case MP_MAP:
		break;
	default:
		return true;
	}
	if (level > WIRE_MAX_DEPTH)
		return fail(s, "nesting deeper than %d at %s", WIRE_MAX_DEPTH, where(s));
	if (m.n > WIRE_MAX_ARRAY)
		return fail(s, "too many entries at %s (%u, at most %u)", where(s), (unsigned)m.n,
			    WIRE_MAX_ARRAY);
	for (uint64_t i = 0; i < m.n; i++) {
		size_t saved;
		bool ok;
		if (m.t == MP_ARRAY) {
			saved = push_index(s, i);
			ok = skip_ignored(s, level + 1);
		} else {
			/* The path names the entry by its key, even for the key's faults. */
			size_t at = s->r.pos;
			struct mp key;
			if (!rd_next(&s->r, &key))
				return false;
			s->r.pos = at;
			saved = push_key(s, &key, i);
			ok = skip_ignored(s, level + 1) && skip_ignored(s, level + 1);
		}
		s->depth = saved;
		if (!ok)
			return false;
	}
	return true;
}

static bool walk_kv(struct scan *s, const struct mp *m, int level);

/* One evidence or facts value; level is that of its container. */
static bool walk_value(struct scan *s, int level)
{
	struct mp m;
	if (!rd_next(&s->r, &m))
		return false;
	switch (m.t) {
	case MP_STR:
		return text_check(s, s->r.b + m.data, m.n, false);
	case MP_POS:
		if (m.u > INT64_MAX)
			return fail(s,
				    "integer out of range at %s (%" PRIu64 ", at most %" PRId64 ")",
				    where(s), m.u, INT64_MAX);
		return true;
	case MP_NEG:
	case MP_BOOL:
		return true;
	case MP_MAP:
		return walk_kv(s, &m, level + 1);
	case MP_ARRAY:
		break;
	default:
		return fail(s,
			    "unsupported type %s at %s (values are strings, integers, booleans, "
			    "arrays or maps)",
			    type_names[m.t], where(s));
	}
	if (level + 1 > WIRE_MAX_DEPTH)
		return fail(s, "nesting deeper than %d at %s", WIRE_MAX_DEPTH, where(s));
	if (m.n > WIRE_MAX_ARRAY)
		return fail(s, "too many entries at %s (%u, at most %u)", where(s), (unsigned)m.n,
			    WIRE_MAX_ARRAY);
	for (uint64_t i = 0; i < m.n; i++) {
		size_t saved = push_index(s, i);
		bool ok = walk_value(s, level + 1);
		s->depth = saved;
		if (!ok)
			return false;
	}
	return true;
}

/* The header of a map the report keeps (evidence, facts, maps in them) at
 * nesting level. */
static bool kv_header(struct scan *s, const struct mp *m, int level)
{
	if (m->t != MP_MAP)
		return fail(s, "%s: not a map (%s)", where(s), type_names[m->t]);
	if (level > WIRE_MAX_DEPTH)
		return fail(s, "nesting deeper than %d at %s", WIRE_MAX_DEPTH, where(s));
	if (m->n > WIRE_MAX_ARRAY)
		return fail(s, "too many entries at %s (%u, at most %u)", where(s), (unsigned)m->n,
			    WIRE_MAX_ARRAY);
	return true;
}

/* An evidence or facts map (header m already read) at nesting level. */
static bool walk_kv(struct scan *s, const struct mp *m, int level)
{
	if (!kv_header(s, m, level))
		return false;
	size_t base = s->n_keys;
	for (uint64_t i = 0; i < m->n; i++) {
		struct mp key;
		if (!map_key(s, &key)) {
			s->n_keys = base;
			return false;
		}
		size_t saved = push_key(s, &key, i), vstart = s->r.pos;
		bool ok = walk_value(s, level);
		s->depth = saved;
		if (!ok)
			return rest_keys(s, vstart, i, m->n, base);
	}
	return keys_unique(s, base);
}

static bool read_string(struct scan *s, struct mp *m)
{
	if (!rd_next(&s->r, m))
		return false;
	if (m->t != MP_STR)
		return fail(s, "%s: not a string (%s)", where(s), type_names[m->t]);
	return text_check(s, s->r.b + m->data, m->n, false);
}

static bool read_nonempty_string(struct scan *s, struct mp *m)
{
	if (!read_string(s, m))
		return false;
	return m->n > 0 || fail(s, "%s: must not be empty", where(s));
}

static bool read_u64(struct scan *s, uint64_t max, uint64_t *ret)
{
	struct mp m;
	if (!rd_next(&s->r, &m))
		return false;
	if (m.t == MP_NEG)
		return fail(s, "%s: out of range (%" PRId64 ", must not be negative)", where(s),
			    m.i);
	if (m.t != MP_POS)
		return fail(s, "%s: not an integer (%s)", where(s), type_names[m.t]);
	if (m.u > max)
		return fail(s, "%s: out of range (%" PRIu64 ", at most %" PRIu64 ")", where(s), m.u,
			    max);
	*ret = m.u;
	return true;
}

static bool read_i64(struct scan *s, int64_t *ret)
{
	size_t at = s->r.pos;
	struct mp m;
	if (!rd_next(&s->r, &m))
		return false;
	if (m.t == MP_NEG) {
		*ret = m.i;
		return true;
	}
	s->r.pos = at;
	uint64_t u;
	if (!read_u64(s, INT64_MAX, &u))
		return false;
	*ret = (int64_t)u;
	return true;
}

static struct wirescan_span span_of(const struct mp *m)
{
	return (struct wirescan_span){(uint32_t)m->data, (uint32_t)m->n};
}

/* One finding: a map with check, status and message. */
static bool walk_finding(struct scan *s, struct wirescan_finding *f)
{
	static const char *const required[] = {"check", "status", "message"};
	size_t start = s->r.pos;
	struct mp m;
	f->known = NULL;
	if (!rd_next(&s->r, &m))
		return false;
	if (m.t != MP_MAP)
		return fail(s, "%s: not a map (%s)", where(s), type_names[m.t]);
	if (m.n > WIRE_MAX_ARRAY)
		return fail(s, "too many entries at %s (%u, at most %u)", where(s), (unsigned)m.n,
			    WIRE_MAX_ARRAY);
	size_t base = s->n_keys;
	unsigned seen = 0;
	f->node_off = f->node_len = 0;
	f->node_val = (struct wirescan_span){0};
	for (uint64_t i = 0; i < m.n; i++) {
		struct mp key, v;
		size_t kstart = s->r.pos;
		if (!map_key(s, &key)) {
			s->n_keys = base;
			return false;
		}
		size_t saved = push_key(s, &key, i), vstart = s->r.pos;
		bool ok;
		if (str_is(&s->r, &key, "check")) {
			seen |= 1;
			ok = read_nonempty_string(s, &v);
		} else if (str_is(&s->r, &key, "status")) {
			seen |= 2;
			ok = read_string(s, &v);
			int st = -1;
			for (int k = 0; ok && k < _STATUS_MAX && st < 0; k++)
				if (str_is(&s->r, &v, status_name(k)))
					st = k;
			if (ok && st < 0) {
				char q[64];
				ok = fail(
				    s,
				    "%s: unknown status %s (expected PASS, WARN, FAIL, UNKNOWN "
				    "or SKIP)",
				    where(s), quote(q, sizeof(q), s->r.b + v.data, v.n));
			}
			f->status = ok ? (enum status)st : STATUS_UNKNOWN;
		} else if (str_is(&s->r, &key, "message")) {
			seen |= 4;
			ok = read_string(s, &v);
		} else if (str_is(&s->r, &key, "evidence")) {
			ok = rd_next(&s->r, &v) && walk_kv(s, &v, 1);
		} else if (str_is(&s->r, &key, "node")) {
			ok = read_string(s, &v);
			if (ok) {
				f->node_off = (uint32_t)(kstart - start);
				f->node_len = (uint32_t)(s->r.pos - kstart);
				f->node_val = span_of(&v);
			}
		} else if (str_is(&s->r, &key, "remediation") || str_is(&s->r, &key, "object")) {
			ok = read_string(s, &v);
		} else {
			ok = skip_ignored(s, 1);
		}
		s->depth = saved;
		if (!ok)
			return rest_keys(s, vstart, i, m.n, base);
	}
	if (!keys_unique(s, base))
		return false;
	for (size_t i = 0; i < ELEMENTSOF(required); i++)
		if (!(seen & (1u << i)))
			return fail(s, "%s: missing required field \"%s\"", where(s), required[i]);
	f->bytes = (struct wirescan_span){(uint32_t)start, (uint32_t)(s->r.pos - start)};
	return true;
}

/* The value at the reader is bytes seen and accepted before: then it is
 * skipped and *ret is its token. Else the reader is left where it was. */
static bool known_value(struct scan *s, bool is_fact, size_t i, const void **ret,
			enum status *ret_status, uint32_t *ret_node_off, uint32_t *ret_node_len)
{
	*ret = NULL;
	*ret_node_off = *ret_node_len = 0;
	if (!s->known)
		return false;
	size_t start = s->r.pos;
	if (s->known->prior_match) {
		size_t n = 0;
		*ret = s->known->prior_match(s->known->ctx, is_fact, i, s->r.b + start,
					     s->r.len - start, &n, ret_node_off, ret_node_len,
					     ret_status);
		if (*ret) {
			s->r.pos = start + n;
			return true;
		}
		*ret_node_off = *ret_node_len = 0;
	} else if (s->known->prior) {
		const uint8_t *pb;
		size_t pl;
		*ret = s->known->prior(s->known->ctx, is_fact, i, &pb, &pl, ret_status);
		/* The same bytes as a whole value: that value, its extent included. */
		if (*ret && pl <= s->r.len - start && memcmp(s->r.b + start, pb, pl) == 0) {
			s->r.pos = start + pl;
			return true;
		}
	}
	/* a facts entry is its key and its value */
	if (!rd_skip(&s->r, 1) || (is_fact && !rd_skip(&s->r, 1))) {
		s->r.pos = start;
		return false; /* the full walk says why */
	}
	*ret =
	    s->known->lookup(s->known->ctx, s->r.b + start, s->r.pos - start, is_fact, ret_status);
	if (!*ret)
		s->r.pos = start;
	return *ret != NULL;
}

static bool walk_results(struct scan *s, struct wirescan_report *r)
{
	struct mp m;
	if (!rd_next(&s->r, &m))
		return false;
	if (m.t != MP_ARRAY)
		return fail(s, "results: not an array (%s)", type_names[m.t]);
	if (m.n > WIRE_MAX_FINDINGS)
		return fail(s, "too many results (%u, at most %u)", (unsigned)m.n,
			    WIRE_MAX_FINDINGS);
	util_grow((void **)&r->results, &r->cap_results, m.n ? m.n : 1, sizeof(*r->results));
	for (uint64_t i = 0; i < m.n; i++) {
		struct wirescan_finding *f = &r->results[r->n_results++];
		size_t start = s->r.pos;
		f->node_val = (struct wirescan_span){0};
		if (known_value(s, false, i, &f->known, &f->status, &f->node_off, &f->node_len)) {
			f->bytes =
			    (struct wirescan_span){(uint32_t)start, (uint32_t)(s->r.pos - start)};
			continue;
		}
		size_t saved = push_index(s, i);
		bool ok = walk_finding(s, f);
		s->depth = saved;
		if (!ok)
			return false;
	}
	return true;
}

/* facts: an evidence-like map at level 1, remembering where each entry is. */
static bool walk_facts(struct scan *s, struct wirescan_report *r)
{
	struct mp m;
	if (!rd_next(&s->r, &m) || !kv_header(s, &m, 1))
		return false;
	util_grow((void **)&r->facts, &r->cap_facts, m.n ? m.n : 1, sizeof(*r->facts));
	size_t base = s->n_keys;
	for (uint64_t i = 0; i < m.n; i++) {
		size_t start = s->r.pos;
		struct wirescan_fact *f = &r->facts[r->n_facts++];
		enum status unused;
		struct mp key;
		uint32_t no_off, no_len;
		if (known_value(s, true, i, &f->known, &unused, &no_off, &no_len)) {
			/* Known: only its key matters here, for uniqueness. */
			size_t end = s->r.pos;
			s->r.pos = start;
			if (!map_key(s, &key)) {
				s->n_keys = base;
				return false;
			}
			s->r.pos = end;
		} else {
			if (!map_key(s, &key)) {
				s->n_keys = base;
				return false;
			}
			size_t saved = push_key(s, &key, i), vstart = s->r.pos;
			bool ok = walk_value(s, 1);
			s->depth = saved;
			if (!ok)
				return rest_keys(s, vstart, i, m.n, base);
		}
		f->bytes = (struct wirescan_span){(uint32_t)start, (uint32_t)(s->r.pos - start)};
	}
	return keys_unique(s, base);
}

/* "hvready.node/vN": N must be our major; anything else is no node report. */
static bool check_schema(struct scan *s, const struct mp *v)
{
	if (str_is(&s->r, v, NODE_SCHEMA))
		return true;
	if (!s->r.err)
		return false;
	_cleanup_free_ char *str = xstrndup((const char *)s->r.b + v->data, v->n);
	const char *digits = startswith(str, SCHEMA_PREFIX) ? str + strlen(SCHEMA_PREFIX) : NULL;
	bool ok = digits && *digits && strspn(digits, "0123456789") == strlen(digits) &&
		  (digits[0] != '0' || !digits[1]);
	if (!ok) {
		char q[64];
		return fail(s, "schema: not a node report schema: %s (expected %s)",
			    quote(q, sizeof(q), (const uint8_t *)str, strlen(str)), NODE_SCHEMA);
	}
	/* Only ASCII digits follow the prefix: safe to print, but maybe long. */
	snprintf(s->r.err, s->r.errlen, "unsupported schema %.40s%s (this aggregator speaks v%d)",
		 str, strlen(str) > 40 ? "..." : "", NODE_SCHEMA_MAJOR);
	s->code = -EPROTONOSUPPORT;
	return false;
}

enum { SEEN_NODE = 1, SEEN_SENT = 2, SEEN_RESULTS = 4, SEEN_SCHEMA = 8 };

static bool walk_top_field(struct scan *s, const struct mp *key, struct wirescan_report *r,
			   unsigned *seen)
{
	const struct rd *rd = &s->r;
	struct mp v;
	uint64_t u;
	if (str_is(rd, key, "schema")) {
		*seen |= SEEN_SCHEMA;
		return read_string(s, &v) && check_schema(s, &v);
	}
	if (str_is(rd, key, "schema_minor")) {
		if (!read_u64(s, UINT32_MAX, &u))
			return false;
		r->schema_minor = (uint32_t)u;
		return true;
	}
	if (str_is(rd, key, "node")) {
		*seen |= SEEN_NODE;
		if (!read_nonempty_string(s, &v))
			return false;
		r->node = span_of(&v);
		if (s->known && s->known->node)
			s->known->node(s->known->ctx, rd->b + v.data, v.n);
		return true;
	}
	if (str_is(rd, key, "hostname") || str_is(rd, key, "agent_version") ||
	    str_is(rd, key, "boot_id")) {
		if (!read_string(s, &v))
			return false;
		if (str_is(rd, key, "hostname")) {
			r->hostname = span_of(&v);
			r->has_hostname = true;
		} else if (str_is(rd, key, "agent_version")) {
			r->agent_version = span_of(&v);
			r->has_agent_version = true;
		} else {
			r->boot_id = span_of(&v);
			r->has_boot_id = true;
		}
		return true;
	}
	if (str_is(rd, key, "sent_ns")) {
		*seen |= SEEN_SENT;
		return read_i64(s, &r->sent_ns);
	}
	if (str_is(rd, key, "seq"))
		return read_u64(s, UINT64_MAX, &r->seq);
	if (str_is(rd, key, "interval")) {
		if (!read_u64(s, UINT32_MAX, &u))
			return false;
		r->interval_s = (uint32_t)u;
		return true;
	}
	if (str_is(rd, key, "results")) {
		*seen |= SEEN_RESULTS;
		return walk_results(s, r);
	}
	if (str_is(rd, key, "facts"))
		return walk_facts(s, r);
	return skip_ignored(s, 1);
}

/* The top-level map. With reasons, a value's fault waits for the keys, then
 * the schema, to be found sound. */
static bool walk_top(struct scan *s, struct wirescan_report *r)
{
	struct mp m;
	if (!rd_next(&s->r, &m))
		return false;
	if (m.t != MP_MAP)
		return fail(s, "top level is not a map (%s)", type_names[m.t]);
	if (m.n > WIRE_MAX_ARRAY)
		return fail(s, "too many entries at top level (%u, at most %u)", (unsigned)m.n,
			    WIRE_MAX_ARRAY);
	char value_why[WIRE_ERR_LEN], schema_why[WIRE_ERR_LEN]; /* set with the _bad flags */
	bool value_bad = false, schema_bad = false;
	int schema_code = -EINVAL;
	unsigned seen = 0;
	for (uint64_t i = 0; i < m.n; i++) {
		struct mp key;
		if (!map_key(s, &key))
			return false;
		bool is_schema = str_is(&s->r, &key, "schema");
		size_t saved = push_key(s, &key, i), vstart = s->r.pos;
		bool ok;
		if (value_bad && !is_schema)
			ok = rd_skip(&s->r, 0); /* only the keys and the schema still count */
		else
			ok = walk_top_field(s, &key, r, &seen);
		s->depth = saved;
		if (ok)
			continue;
		if (!s->r.err)
			return false;
		if (is_schema) {
			snprintf(schema_why, sizeof(schema_why), "%s", s->r.err);
			schema_code = s->code;
			schema_bad = true;
		} else if (!value_bad) {
			snprintf(value_why, sizeof(value_why), "%s", s->r.err);
			value_bad = true;
		}
		s->n_keys = i + 1; /* a nested walk's keys are gone; the top's stay */
		s->r.pos = vstart;
		if (!rd_skip(&s->r, 0))
			return false;
	}
	if (!keys_unique(s, 0))
		return false;
	if (s->r.pos != s->r.len)
		return false; /* trailing bytes: the structure check says so */
	if (!(seen & SEEN_SCHEMA))
		return fail(s, "missing required field \"schema\"");
	const char *why = schema_bad ? schema_why : value_bad ? value_why : NULL;
	if (why) {
		snprintf(s->r.err, s->r.errlen, "%s", why);
		s->code = schema_bad ? schema_code : -EINVAL;
		return false;
	}
	if (!(seen & SEEN_NODE))
		return fail(s, "missing required field \"node\"");
	if (!(seen & SEEN_SENT))
		return fail(s, "missing required field \"sent_ns\"");
	if (!(seen & SEEN_RESULTS))
		return fail(s, "missing required field \"results\"");
	return true;
}

/* The walk, with reasons into err when err is not NULL. */
static int scan_report(const uint8_t *buf, size_t len, const struct wirescan_known *known,
		       struct wirescan_report *r, char *err, size_t errlen)
{
	struct wirescan_finding *results = r->results;
	struct wirescan_fact *facts = r->facts;
	struct wirescan_span *keys = r->keys;
	size_t cap_results = r->cap_results, cap_facts = r->cap_facts, cap_keys = r->cap_keys;
	*r = (struct wirescan_report){.results = results,
				      .cap_results = cap_results,
				      .facts = facts,
				      .cap_facts = cap_facts,
				      .keys = keys,
				      .cap_keys = cap_keys};
	if (err) {
		if (len == 0) {
			snprintf(err, errlen, "empty message");
			return -EINVAL;
		}
		if (len > WIRE_MAX_MESSAGE) {
			snprintf(err, errlen, "message too large (%zu bytes, at most %u)", len,
				 WIRE_MAX_MESSAGE);
			return -EINVAL;
		}
		/* The structure's faults come first (and the walk may then skip). */
		struct rd whole = {.b = buf, .len = len, .err = err, .errlen = errlen};
		if (!rd_structure(&whole))
			return -EINVAL;
		err[0] = '\0';
	} else if (len == 0 || len > WIRE_MAX_MESSAGE) {
		return -EINVAL;
	}
	/* The keys array is the report's, reused: one allocation less a report. */
	struct scan s = {.r = {.b = buf, .len = len, .err = err, .errlen = errlen},
			 .known = known,
			 .keys = keys,
			 .cap_keys = cap_keys,
			 .code = -EINVAL};
	if (known && known->node)
		known->node(known->ctx, NULL, 0);
	bool ok = walk_top(&s, r);
	r->keys = s.keys;
	r->cap_keys = s.cap_keys;
	if (!ok) {
		r->n_results = r->n_facts = 0;
		if (err && !err[0])
			snprintf(err, errlen, "invalid msgpack");
		return s.code;
	}
	return 0;
}

int wirescan_report(const uint8_t *buf, size_t len, const struct wirescan_known *known,
		    struct wirescan_report *r)
{
	return scan_report(buf, len, known, r, NULL, 0) < 0 ? -EINVAL : 0;
}

void wirescan_report_clear(struct wirescan_report *r)
{
	free(r->results);
	free(r->facts);
	free(r->keys);
	*r = (struct wirescan_report){0};
}

/* ---- decoding scanned pieces ---- */

#define DECODE_MAX_DEPTH (WIRE_MAX_DEPTH + 2)

static char *rd_strdup(const struct rd *r, const struct mp *m)
{
	return xstrndup((const char *)r->b + m->data, m->n);
}

static bool dec_kv(struct rd *r, const struct mp *m, struct kv_list *l, int depth);

static bool dec_value(struct rd *r, struct value *v, int depth)
{
	struct mp m;
	*v = (struct value){.type = VALUE_BOOL};
	if (depth > DECODE_MAX_DEPTH || !rd_next(r, &m))
		return false;
	switch (m.t) {
	case MP_STR:
		*v = (struct value){.type = VALUE_STR, .s = rd_strdup(r, &m)};
		return true;
	case MP_POS:
		*v = (struct value){.type = VALUE_INT, .i = (int64_t)m.u};
		return m.u <= INT64_MAX;
	case MP_NEG:
		*v = (struct value){.type = VALUE_INT, .i = m.i};
		return true;
	case MP_BOOL:
		*v = (struct value){.type = VALUE_BOOL, .b = m.u != 0};
		return true;
	case MP_MAP:
		*v = (struct value){.type = VALUE_MAP};
		return dec_kv(r, &m, &v->map, depth + 1);
	case MP_ARRAY:
		break;
	default:
		return false;
	}
	*v = (struct value){.type = VALUE_LIST};
	if (m.n) {
		v->list.items = xcalloc(m.n, sizeof(struct value));
		v->list.cap = m.n;
	}
	for (uint64_t i = 0; i < m.n; i++)
		if (!dec_value(r, &v->list.items[v->list.n++], depth + 1))
			return false;
	return true;
}

static bool dec_kv(struct rd *r, const struct mp *m, struct kv_list *l, int depth)
{
	if (m->t != MP_MAP || depth > DECODE_MAX_DEPTH)
		return false;
	if (m->n) {
		l->items = xcalloc(m->n, sizeof(struct kv));
		l->cap = m->n;
	}
	for (uint64_t i = 0; i < m->n; i++) {
		struct mp key;
		if (!rd_next(r, &key) || key.t != MP_STR)
			return false;
		struct kv *kv = &l->items[l->n++];
		kv->key = rd_strdup(r, &key);
		if (!dec_value(r, &kv->val, depth))
			return false;
	}
	return true;
}

static bool dec_str_field(struct rd *r, char **ret)
{
	struct mp m;
	if (!rd_next(r, &m) || m.t != MP_STR)
		return false;
	free(*ret);
	*ret = rd_strdup(r, &m);
	return true;
}

int wirescan_decode_finding(const uint8_t *buf, size_t len, struct finding *ret)
{
	struct rd r = {.b = buf, .len = len};
	struct mp m;
	struct finding f = {.status = STATUS_UNKNOWN};
	bool ok = rd_next(&r, &m) && m.t == MP_MAP;
	for (uint64_t i = 0; ok && i < m.n; i++) {
		struct mp key, v;
		ok = rd_next(&r, &key) && key.t == MP_STR;
		if (!ok)
			break;
		if (str_is(&r, &key, "check")) {
			ok = dec_str_field(&r, &f.check);
		} else if (str_is(&r, &key, "status")) {
			ok = rd_next(&r, &v) && v.t == MP_STR;
			int st = -1;
			for (int k = 0; ok && k < _STATUS_MAX && st < 0; k++)
				if (str_is(&r, &v, status_name(k)))
					st = k;
			ok = ok && st >= 0;
			if (ok)
				f.status = (enum status)st;
		} else if (str_is(&r, &key, "message")) {
			ok = dec_str_field(&r, &f.message);
		} else if (str_is(&r, &key, "evidence")) {
			ok = rd_next(&r, &v) && dec_kv(&r, &v, &f.evidence, 1);
		} else if (str_is(&r, &key, "remediation")) {
			ok = dec_str_field(&r, &f.remediation);
		} else if (str_is(&r, &key, "node")) {
			ok = dec_str_field(&r, &f.node);
		} else if (str_is(&r, &key, "object")) {
			ok = dec_str_field(&r, &f.object);
		} else {
			ok = rd_skip(&r, 2);
		}
	}
	if (!ok || r.pos != len || !f.check || !f.message) {
		finding_clear(&f);
		*ret = (struct finding){0};
		return -EINVAL;
	}
	if (!f.remediation)
		f.remediation = xstrdup("");
	*ret = f;
	return 0;
}

int wirescan_decode_fact(const uint8_t *buf, size_t len, struct kv *ret)
{
	struct rd r = {.b = buf, .len = len};
	struct mp key;
	struct kv kv = {0};
	bool ok = rd_next(&r, &key) && key.t == MP_STR;
	if (ok) {
		kv.key = rd_strdup(&r, &key);
		ok = dec_value(&r, &kv.val, 1) && r.pos == len;
	}
	if (!ok) {
		free(kv.key);
		value_clear(&kv.val);
		*ret = (struct kv){0};
		return -EINVAL;
	}
	*ret = kv;
	return 0;
}

/* ---- the node report ---- */

static char *span_dup(const uint8_t *buf, struct wirescan_span s)
{
	return xstrndup((const char *)buf + s.off, s.len);
}

int wire_decode_node_report(const uint8_t *buf, size_t len, struct node_report *ret, char *err,
			    size_t errlen)
{
	*ret = (struct node_report){0};
	char why[WIRE_ERR_LEN];
	struct wirescan_report w = {0};
	int r = scan_report(buf, len, NULL, &w, why, sizeof(why));
	if (r < 0) {
		snprintf(err, errlen, "%s", why);
		wirescan_report_clear(&w);
		return r;
	}
	struct node_report rep = {
	    .node = span_dup(buf, w.node),
	    .hostname = w.has_hostname ? span_dup(buf, w.hostname) : NULL,
	    .agent_version = w.has_agent_version ? span_dup(buf, w.agent_version) : NULL,
	    .boot_id = w.has_boot_id ? span_dup(buf, w.boot_id) : NULL,
	    .sent_ns = w.sent_ns,
	    .seq = w.seq,
	    .interval_s = w.interval_s,
	    .schema_minor = w.schema_minor,
	};
	if (w.n_results) {
		rep.results.items = xcalloc(w.n_results, sizeof(struct finding));
		rep.results.cap = w.n_results;
	}
	if (w.n_facts) {
		rep.facts.items = xcalloc(w.n_facts, sizeof(struct kv));
		rep.facts.cap = w.n_facts;
	}
	/* The walk accepted every piece: decoding one cannot fail. */
	for (size_t i = 0; i < w.n_results && r == 0; i++)
		r = wirescan_decode_finding(buf + w.results[i].bytes.off, w.results[i].bytes.len,
					    &rep.results.items[rep.results.n++]);
	for (size_t i = 0; i < w.n_facts && r == 0; i++)
		r = wirescan_decode_fact(buf + w.facts[i].bytes.off, w.facts[i].bytes.len,
					 &rep.facts.items[rep.facts.n++]);
	wirescan_report_clear(&w);
	if (r < 0) {
		node_report_clear(&rep);
		snprintf(err, errlen, "invalid msgpack");
		return -EINVAL;
	}
	*ret = rep;
	return 0;
}
