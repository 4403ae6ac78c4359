/*
 * The node report on the wire (docs/protocol.md): encoding with msgpack-c's
 * packer, decoding in three steps.
 *
 * 1. A structural pre-scan of the raw bytes, before msgpack-c sees them.
 *    msgpack-c allocates an array's or map's element table as soon as it reads
 *    the header: ten bytes declaring a 4-billion-element array make it ask for
 *    128 GiB. The aggregator decodes untrusted network input, so the scan
 *    checks that every declared length and element count fits in the bytes
 *    that follow (each element takes at least one byte), bounds the nesting
 *    below msgpack-c's fixed stack, and finds truncation and trailing bytes.
 *    After it, msgpack-c's allocations are bounded by a small multiple of the
 *    message size. Its errors name a byte offset.
 * 2. msgpack_unpack_next() builds the object tree (strings point into buf).
 * 3. A schema walk over that tree copies what it knows into the report and
 *    enforces the documented limits, types, UTF-8 and unique keys. The schema
 *    string is looked at first, so a message of another major version is
 *    reported as that and not as whatever else differs. Its errors name the
 *    field path ("results[3].status").
 */
#include "wire.h"

#include <errno.h>
#include <inttypes.h>
#include <msgpack.h>
#include <stdio.h>
#include <string.h>

#define SCHEMA_PREFIX "hvready.node/v"
/* The deepest a valid report nests is 3 + WIRE_MAX_DEPTH (top map, results,
 * finding, evidence); the scan allows more so that the schema walk, which
 * knows the path, reports moderate excess. msgpack-c's stack holds 32. */
#define SCAN_MAX_DEPTH 16

/* ---- UTF-8 ---- */

size_t wire_utf8_seq_len(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];
	size_t len;
	uint8_t lo = 0x80, hi = 0xbf;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* ---- encoding ---- */

struct enc {
	msgpack_sbuffer sb;
	msgpack_packer pk;
	int err; /* first failure, 0 if none */
};

static void enc_fail(struct enc *e, int err)
{
	if (!e->err)
		e->err = err;
}

/* msgpack-c's packers return -1 only when the sbuffer cannot grow. */
static void enc_check(struct enc *e, int r)
{
	if (r < 0)
		enc_fail(e, -ENOMEM);
}

static bool utf8_clean(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t l = wire_utf8_seq_len(s + i, n - i);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

/* s with every byte that starts no valid sequence replaced by U+FFFD. */
static char *utf8_repair(const uint8_t *s, size_t n, size_t *ret_len)
{
	char *out = xmalloc(n * 3 + 1);
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t l = wire_utf8_seq_len(s + i, n - i);
		if (l) {
			memcpy(out + o, s + i, l);
			o += l;
			i += l;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	*ret_len = o;
	return out;
}

static void enc_str(struct enc *e, const char *s)
{
	if (!s)
		s = "";
	size_t n = strlen(s);
	_cleanup_free_ char *fixed = NULL;
	if (!utf8_clean((const uint8_t *)s, n))
		s = fixed = utf8_repair((const uint8_t *)s, n, &n);
	if (n > WIRE_MAX_STRING) {
		/* Cut at a character boundary: the result stays valid UTF-8. */
		n = WIRE_MAX_STRING;
		while (n > 0 && ((uint8_t)s[n] & 0xc0) == 0x80)
			n--;
	}
	enc_check(e, msgpack_pack_str(&e->pk, n));
	enc_check(e, msgpack_pack_str_body(&e->pk, s, n));
}

static void enc_kv(struct enc *e, const struct kv_list *l, int level);

static void enc_value(struct enc *e, const struct value *v, int level)
{
	switch (v->type) {
	case VALUE_STR:
		enc_str(e, v->s);
		return;
	case VALUE_INT:
		enc_check(e, msgpack_pack_int64(&e->pk, v->i));
		return;
	case VALUE_BOOL:
		enc_check(e, v->b ? msgpack_pack_true(&e->pk) : msgpack_pack_false(&e->pk));
		return;
	case VALUE_LIST:
		if (level + 1 > WIRE_MAX_DEPTH)
			return enc_fail(e, -EINVAL);
		if (v->list.n > WIRE_MAX_ARRAY)
			return enc_fail(e, -EMSGSIZE);
		enc_check(e, msgpack_pack_array(&e->pk, v->list.n));
		for (size_t i = 0; i < v->list.n && !e->err; i++)
			enc_value(e, &v->list.items[i], level + 1);
		return;
	case VALUE_MAP:
		enc_kv(e, &v->map, level + 1);
		return;
	}
	enc_fail(e, -EINVAL);
}

/* A map of evidence or facts at nesting level (the outermost map is 1). */
static void enc_kv(struct enc *e, const struct kv_list *l, int level)
{
	if (level > WIRE_MAX_DEPTH)
		return enc_fail(e, -EINVAL);
	if (l->n > WIRE_MAX_ARRAY)
		return enc_fail(e, -EMSGSIZE);
	enc_check(e, msgpack_pack_map(&e->pk, l->n));
	for (size_t i = 0; i < l->n && !e->err; i++) {
		if (!l->items[i].key)
			return enc_fail(e, -EINVAL);
		enc_str(e, l->items[i].key);
		enc_value(e, &l->items[i].val, level);
	}
}

static void enc_key_str(struct enc *e, const char *key, const char *s)
{
	enc_str(e, key);
	enc_str(e, s);
}

static void enc_finding(struct enc *e, const struct finding *f)
{
	if (!f->check || !*f->check || (unsigned)f->status >= _STATUS_MAX)
		return enc_fail(e, -EINVAL);
	enc_check(e, msgpack_pack_map(&e->pk, 5 + !!f->node + !!f->object));
	enc_key_str(e, "check", f->check);
	enc_key_str(e, "status", status_name(f->status));
	enc_key_str(e, "message", f->message);
	enc_str(e, "evidence");
	enc_kv(e, &f->evidence, 1);
	enc_key_str(e, "remediation", f->remediation);
	if (f->node)
		enc_key_str(e, "node", f->node);
	if (f->object)
		enc_key_str(e, "object", f->object);
}

static void enc_report(struct enc *e, const struct node_report *r)
{
	if (!r->node || !*r->node)
		return enc_fail(e, -EINVAL);
	if (r->results.n > WIRE_MAX_FINDINGS)
		return enc_fail(e, -EMSGSIZE);
	enc_check(e,
		  msgpack_pack_map(&e->pk, 8 + !!r->hostname + !!r->agent_version + !!r->boot_id));
	enc_key_str(e, "schema", NODE_SCHEMA);
	enc_str(e, "schema_minor");
	enc_check(e, msgpack_pack_uint32(&e->pk, NODE_SCHEMA_MINOR));
	enc_key_str(e, "node", r->node);
	if (r->hostname)
		enc_key_str(e, "hostname", r->hostname);
	if (r->agent_version)
		enc_key_str(e, "agent_version", r->agent_version);
	if (r->boot_id)
		enc_key_str(e, "boot_id", r->boot_id);
	enc_str(e, "sent_ns");
	enc_check(e, msgpack_pack_int64(&e->pk, r->sent_ns));
	enc_str(e, "seq");
	enc_check(e, msgpack_pack_uint64(&e->pk, r->seq));
	enc_str(e, "interval");
	enc_check(e, msgpack_pack_uint32(&e->pk, r->interval_s));
	enc_str(e, "results");
	enc_check(e, msgpack_pack_array(&e->pk, r->results.n));
	for (size_t i = 0; i < r->results.n && !e->err; i++)
		enc_finding(e, &r->results.items[i]);
	enc_str(e, "facts");
	enc_kv(e, &r->facts, 1);
}

int wire_encode_node_report(const struct node_report *r, char **ret_buf, size_t *ret_len)
{
	struct enc e = {0};
	msgpack_sbuffer_init(&e.sb);
	msgpack_packer_init(&e.pk, &e.sb, msgpack_sbuffer_write);
	enc_report(&e, r);
	if (!e.err && e.sb.size > WIRE_MAX_MESSAGE)
		e.err = -EMSGSIZE;
	if (e.err) {
		msgpack_sbuffer_destroy(&e.sb);
		return e.err;
	}
	*ret_len = e.sb.size;
	*ret_buf = msgpack_sbuffer_release(&e.sb);
	return 0;
}

/* ---- step 1: structural pre-scan ---- */

static int scan_truncated(char *err, size_t errlen, size_t at, const char *what, uint64_t need,
			  size_t left)
{
	snprintf(err, errlen,
		 "truncated message (%s at byte %zu needs %" PRIu64 " bytes, %zu left)", what, at,
		 need, left);
	return -EINVAL;
}

static uint64_t read_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The shape of a msgpack value's header: a length field of lenbytes after the
 * type byte, then payload + length bytes of data; containers instead hold
 * per_elem values per counted element (1 for arrays, 2 for maps). */
struct format {
	uint8_t lenbytes;
	uint8_t payload;
	uint8_t per_elem;
	const char *what; /* NULL: the reserved byte 0xc1 */
};

/* Type bytes 0xc0..0xdf (msgpack spec, "Formats"). */
static const struct format formats[0x20] = {
    [0x00] = {0, 0, 0, "nil"},	     [0x02] = {0, 0, 0, "boolean"},
    [0x03] = {0, 0, 0, "boolean"},   [0x04] = {1, 0, 0, "binary"},
    [0x05] = {2, 0, 0, "binary"},    [0x06] = {4, 0, 0, "binary"},
    [0x07] = {1, 1, 0, "extension"}, [0x08] = {2, 1, 0, "extension"},
    [0x09] = {4, 1, 0, "extension"}, [0x0a] = {0, 4, 0, "float"},
    [0x0b] = {0, 8, 0, "float"},     [0x0c] = {0, 1, 0, "integer"},
    [0x0d] = {0, 2, 0, "integer"},   [0x0e] = {0, 4, 0, "integer"},
    [0x0f] = {0, 8, 0, "integer"},   [0x10] = {0, 1, 0, "integer"},
    [0x11] = {0, 2, 0, "integer"},   [0x12] = {0, 4, 0, "integer"},
    [0x13] = {0, 8, 0, "integer"},   [0x14] = {0, 2, 0, "extension"},
    [0x15] = {0, 3, 0, "extension"}, [0x16] = {0, 5, 0, "extension"},
    [0x17] = {0, 9, 0, "extension"}, [0x18] = {0, 17, 0, "extension"},
    [0x19] = {1, 0, 0, "string"},    [0x1a] = {2, 0, 0, "string"},
    [0x1b] = {4, 0, 0, "string"},    [0x1c] = {2, 0, 1, "array"},
    [0x1d] = {4, 0, 1, "array"},     [0x1e] = {2, 0, 2, "map"},
    [0x1f] = {4, 0, 2, "map"},
};

/* Parses the value header at buf[*pos] and moves *pos past the header and,
 * for a scalar, its data. For a container, *ret_items is the number of values
 * that follow as its contents. */
static int scan_header(const uint8_t *buf, size_t len, size_t *pos, uint64_t *ret_items,
		       bool *ret_container, char *err, size_t errlen)
{
	size_t at = *pos, p = at + 1;
	uint8_t b = buf[at];
	struct format f = {0, 0, 0, "integer"}; /* positive and negative fixint */
	uint64_t n = 0;				/* length or count */
	if (b >= 0x80 && b <= 0x8f) {
		f = (struct format){0, 0, 2, "map"};
		n = b & 0x0f;
	} else if (b >= 0x90 && b <= 0x9f) {
		f = (struct format){0, 0, 1, "array"};
		n = b & 0x0f;
	} else if (b >= 0xa0 && b <= 0xbf) {
		f = (struct format){0, 0, 0, "string"};
		n = b & 0x1f;
	} else if (b >= 0xc0 && b <= 0xdf) {
		f = formats[b - 0xc0];
	}
	if (!f.what) {
		snprintf(err, errlen, "invalid msgpack: reserved type byte 0x%02x at byte %zu", b,
			 at);
		return -EINVAL;
	}
	if (len - p < f.lenbytes)
		return scan_truncated(err, errlen, at, f.what, f.lenbytes, len - p);
	if (f.lenbytes)
		n = read_be(buf + p, f.lenbytes);
	p += f.lenbytes;
	*ret_container = f.per_elem != 0;
	if (f.per_elem) {
		/* Every element takes at least one byte: a count beyond the bytes
		 * left is a lie, and believing it is what makes msgpack-c allocate. */
		if (n * f.per_elem > len - p) {
			snprintf(err, errlen,
				 "truncated message (%s at byte %zu declares %" PRIu64
				 " %s, %zu bytes left)",
				 f.what, at, n, f.per_elem == 2 ? "entries" : "elements", len - p);
			return -EINVAL;
		}
		*ret_items = n * f.per_elem;
		*pos = p;
		return 0;
	}
	if (f.payload + n > len - p)
		return scan_truncated(err, errlen, at, f.what, f.payload + n, len - p);
	*ret_items = 0;
	*pos = p + f.payload + n;
	return 0;
}

static int scan(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	/* pending[d]: values still expected at nesting level d (0: the message). */
	uint64_t pending[SCAN_MAX_DEPTH + 1];
	int depth = 0;
	size_t pos = 0;
	pending[0] = 1;
	while (depth >= 0) {
		if (pending[depth] == 0) {
			depth--;
			continue;
		}
		pending[depth]--;
		if (pos >= len) {
			snprintf(
			    err, errlen,
			    "truncated message (ends at byte %zu, where a value should follow)",
			    pos);
			return -EINVAL;
		}
		size_t at = pos;
		uint64_t items;
		bool container;
		int r = scan_header(buf, len, &pos, &items, &container, err, errlen);
		if (r < 0)
			return r;
		if (!container)
			continue;
		if (depth + 1 > SCAN_MAX_DEPTH) {
			snprintf(err, errlen, "nesting deeper than %d levels at byte %zu",
				 SCAN_MAX_DEPTH, at);
			return -EINVAL;
		}
		pending[++depth] = items;
	}
	if (pos < len) {
		snprintf(err, errlen, "trailing bytes after the report (%zu)", len - pos);
		return -EINVAL;
	}
	return 0;
}

/* ---- step 3: schema walk ---- */

/* Where the walk is: one frame per container entered. The path text is only
 * rendered when an error needs it, so the hot path stays two stores. */
struct frame {
	const msgpack_object *key; /* map entry's key, or NULL for an array index */
	size_t index;
};

struct dec {
	struct frame frames[SCAN_MAX_DEPTH + 1];
	size_t depth;
	char path[WIRE_ERR_LEN]; /* "results[3].evidence.paths", rendered by where() */
	char *err;
	size_t errlen;
};

static int dec_fail(struct dec *d, const char *fmt, ...) _printf_(2, 3);
static int dec_fail(struct dec *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->err, d->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* s as a short, printable, quoted string for a one-line message. */
static const char *quote(char *buf, size_t size, const char *s, size_t n)
{
	size_t o = 0;
	buf[o++] = '"';
	for (size_t i = 0; i < n; i++) {
		uint8_t c = (uint8_t)s[i];
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
static void path_append_key(char *path, size_t *len, const struct frame *f)
{
	if (f->key->type != MSGPACK_OBJECT_STR) {
		path_append(path, len, "{entry %zu}", f->index);
		return;
	}
	const char *k = f->key->via.str.ptr;
	size_t n = f->key->via.str.size;
	bool simple = n > 0 && n <= 64;
	for (size_t i = 0; i < n && simple; i++)
		simple = (k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
			 (k[i] >= '0' && k[i] <= '9') || k[i] == '_' || k[i] == '-';
	if (simple) {
		path_append(path, len, "%s%.*s", *len ? "." : "", (int)n, k);
	} else {
		char q[48];
		path_append(path, len, "[%s]", quote(q, sizeof(q), k, n));
	}
}

static const char *where(struct dec *d)
{
	size_t len = 0;
	d->path[0] = '\0';
	for (size_t i = 0; i < d->depth; i++) {
		if (d->frames[i].key)
			path_append_key(d->path, &len, &d->frames[i]);
		else
			path_append(d->path, &len, "[%zu]", d->frames[i].index);
	}
	return len ? d->path : "top level";
}

/* The scan bounds nesting to SCAN_MAX_DEPTH containers, one frame each. */
static size_t path_push(struct dec *d, const msgpack_object *key, size_t index)
{
	size_t saved = d->depth;
	if (d->depth < ELEMENTSOF(d->frames))
		d->frames[d->depth++] = (struct frame){key, index};
	return saved;
}

static size_t path_push_key(struct dec *d, const msgpack_object *key, size_t index)
{
	return path_push(d, key, index);
}

static size_t path_push_index(struct dec *d, size_t index)
{
	return path_push(d, NULL, index);
}

static void path_restore(struct dec *d, size_t depth)
{
	d->depth = depth;
}

static const char *type_name(const msgpack_object *o)
{
	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		return "nil";
	case MSGPACK_OBJECT_BOOLEAN:
		return "boolean";
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		return "integer";
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		return "float";
	case MSGPACK_OBJECT_STR:
		return "string";
	case MSGPACK_OBJECT_ARRAY:
		return "array";
	case MSGPACK_OBJECT_MAP:
		return "map";
	case MSGPACK_OBJECT_BIN:
		return "binary";
	case MSGPACK_OBJECT_EXT:
		return "extension";
	}
	return "unknown type";
}

static bool key_is(const msgpack_object *key, const char *name)
{
	size_t n = strlen(name);
	return key->type == MSGPACK_OBJECT_STR && key->via.str.size == n &&
	       memcmp(key->via.str.ptr, name, n) == 0;
}

/* A string the report will keep: bounded, UTF-8, no NUL (it becomes a C
 * string, and JSON renderings need valid UTF-8). what: "string" or "map key". */
static int dec_check_text(struct dec *d, const char *s, size_t n, const char *what)
{
	const char *in = streq(what, "string") ? "" : " in a map key";
	if (n > WIRE_MAX_STRING)
		return dec_fail(d, "%s too long at %s (%zu bytes, at most %u)", what, where(d), n,
				WIRE_MAX_STRING);
	for (size_t i = 0; i < n;) {
		size_t l = wire_utf8_seq_len((const uint8_t *)s + i, n - i);
		if (!l)
			return dec_fail(d, "invalid UTF-8%s at %s (byte %zu)", in, where(d), i);
		if (s[i] == '\0')
			return dec_fail(d, "NUL byte%s at %s (byte %zu)", in, where(d), i);
		i += l;
	}
	return 0;
}

static int dec_string(struct dec *d, const msgpack_object *o, char **ret)
{
	if (o->type != MSGPACK_OBJECT_STR)
		return dec_fail(d, "%s: not a string (%s)", where(d), type_name(o));
	int r = dec_check_text(d, o->via.str.ptr, o->via.str.size, "string");
	if (r < 0)
		return r;
	free(*ret);
	*ret = xstrndup(o->via.str.ptr, o->via.str.size);
	return 0;
}

static int dec_nonempty_string(struct dec *d, const msgpack_object *o, char **ret)
{
	int r = dec_string(d, o, ret);
	if (r == 0 && !**ret)
		return dec_fail(d, "%s: must not be empty", where(d));
	return r;
}

static int dec_u64(struct dec *d, const msgpack_object *o, uint64_t max, uint64_t *ret)
{
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return dec_fail(d, "%s: out of range (%" PRId64 ", must not be negative)", where(d),
				o->via.i64);
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return dec_fail(d, "%s: not an integer (%s)", where(d), type_name(o));
	if (o->via.u64 > max)
		return dec_fail(d, "%s: out of range (%" PRIu64 ", at most %" PRIu64 ")", where(d),
				o->via.u64, max);
	*ret = o->via.u64;
	return 0;
}

static int dec_i64(struct dec *d, const msgpack_object *o, int64_t *ret)
{
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*ret = o->via.i64;
		return 0;
	}
	uint64_t u;
	int r = dec_u64(d, o, INT64_MAX, &u);
	if (r == 0)
		*ret = (int64_t)u;
	return r;
}

struct keyref {
	const char *p;
	uint32_t n;
};

static int keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	/* msgpack-c gives an empty string a NULL pointer: memcmp may not see one */
	return x->n ? memcmp(x->p, y->p, x->n) : 0;
}

/* Keys of a map the report keeps must be unique: a decoder elsewhere may
 * take the first of two equal keys where we would take the last, so a
 * duplicate could show one value to one reader and another to the next. */
static int dec_unique_keys(struct dec *d, const msgpack_object_map *m)
{
	if (m->size < 2)
		return 0;
	struct keyref *k = xcalloc(m->size, sizeof(*k));
	for (uint32_t i = 0; i < m->size; i++)
		k[i] = (struct keyref){m->ptr[i].key.via.str.ptr, m->ptr[i].key.via.str.size};
	qsort(k, m->size, sizeof(*k), keyref_cmp);
	int r = 0;
	for (uint32_t i = 1; i < m->size && r == 0; i++)
		if (keyref_cmp(&k[i - 1], &k[i]) == 0) {
			char q[64];
			r = dec_fail(d, "duplicate key %s at %s",
				     quote(q, sizeof(q), k[i].p, k[i].n), where(d));
		}
	free(k);
	return r;
}

/* A map whose keys the report keeps (or looks up): bounded, string keys,
 * each a valid string, no duplicates. */
static int dec_map_keys(struct dec *d, const msgpack_object *o)
{
	const msgpack_object_map *m = &o->via.map;
	if (m->size > WIRE_MAX_ARRAY)
		return dec_fail(d, "too many entries at %s (%u, at most %u)", where(d), m->size,
				WIRE_MAX_ARRAY);
	for (uint32_t i = 0; i < m->size; i++) {
		const msgpack_object *k = &m->ptr[i].key;
		if (k->type != MSGPACK_OBJECT_STR)
			return dec_fail(d, "%s: map key is not a string (%s)", where(d),
					type_name(k));
		int r = dec_check_text(d, k->via.str.ptr, k->via.str.size, "map key");
		if (r < 0)
			return r;
	}
	return dec_unique_keys(d, m);
}

/* A value under a key this version does not know: not kept, but held to the
 * same limits, so that no part of a message is unbounded. level counts this
 * value's own nesting (a container directly under the key is level 1). */
static int dec_ignored(struct dec *d, const msgpack_object *o, int level)
{
	switch (o->type) {
	case MSGPACK_OBJECT_STR:
	case MSGPACK_OBJECT_BIN:
	case MSGPACK_OBJECT_EXT: {
		uint32_t n = o->type == MSGPACK_OBJECT_EXT   ? o->via.ext.size
			     : o->type == MSGPACK_OBJECT_BIN ? o->via.bin.size
							     : o->via.str.size;
		if (n > WIRE_MAX_STRING)
			return dec_fail(d, "%s too long at %s (%u bytes, at most %u)", type_name(o),
					where(d), n, WIRE_MAX_STRING);
		return 0;
	}
	case MSGPACK_OBJECT_ARRAY:
	case MSGPACK_OBJECT_MAP:
		break;
	default:
		return 0;
	}
	if (level > WIRE_MAX_DEPTH)
		return dec_fail(d, "nesting deeper than %d at %s", WIRE_MAX_DEPTH, where(d));
	uint32_t n = o->type == MSGPACK_OBJECT_ARRAY ? o->via.array.size : o->via.map.size;
	if (n > WIRE_MAX_ARRAY)
		return dec_fail(d, "too many entries at %s (%u, at most %u)", where(d), n,
				WIRE_MAX_ARRAY);
	for (uint32_t i = 0; i < n; i++) {
		int r;
		if (o->type == MSGPACK_OBJECT_ARRAY) {
			size_t saved = path_push_index(d, i);
			r = dec_ignored(d, &o->via.array.ptr[i], level + 1);
			path_restore(d, saved);
		} else {
			size_t saved = path_push_key(d, &o->via.map.ptr[i].key, i);
			r = dec_ignored(d, &o->via.map.ptr[i].key, level + 1);
			if (r == 0)
				r = dec_ignored(d, &o->via.map.ptr[i].val, level + 1);
			path_restore(d, saved);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int dec_kv(struct dec *d, const msgpack_object *o, struct kv_list *l, int level);

/* One evidence or facts value into *v (which the caller owns and clears,
 * complete or not). level: that of the map or array holding it. */
static int dec_value(struct dec *d, const msgpack_object *o, struct value *v, int level)
{
	switch (o->type) {
	case MSGPACK_OBJECT_STR:
		*v = (struct value){.type = VALUE_STR};
		return dec_string(d, o, &v->s);
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		if (o->via.u64 > INT64_MAX)
			return dec_fail(
			    d, "integer out of range at %s (%" PRIu64 ", at most %" PRId64 ")",
			    where(d), o->via.u64, INT64_MAX);
		*v = (struct value){.type = VALUE_INT, .i = (int64_t)o->via.u64};
		return 0;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		*v = (struct value){.type = VALUE_INT, .i = o->via.i64};
		return 0;
	case MSGPACK_OBJECT_BOOLEAN:
		*v = (struct value){.type = VALUE_BOOL, .b = o->via.boolean};
		return 0;
	case MSGPACK_OBJECT_MAP:
		*v = (struct value){.type = VALUE_MAP};
		return dec_kv(d, o, &v->map, level + 1);
	case MSGPACK_OBJECT_ARRAY:
		break;
	default:
		return dec_fail(
		    d,
		    "unsupported type %s at %s (values are strings, integers, booleans, "
		    "arrays or maps)",
		    type_name(o), where(d));
	}
	if (level + 1 > WIRE_MAX_DEPTH)
		return dec_fail(d, "nesting deeper than %d at %s", WIRE_MAX_DEPTH, where(d));
	const msgpack_object_array *a = &o->via.array;
	if (a->size > WIRE_MAX_ARRAY)
		return dec_fail(d, "too many entries at %s (%u, at most %u)", where(d), a->size,
				WIRE_MAX_ARRAY);
	*v = (struct value){.type = VALUE_LIST};
	if (a->size) {
		v->list.items = xcalloc(a->size, sizeof(struct value));
		v->list.cap = a->size;
	}
	for (uint32_t i = 0; i < a->size; i++) {
		struct value *item = &v->list.items[v->list.n++];
		*item = (struct value){.type = VALUE_BOOL};
		size_t saved = path_push_index(d, i);
		int r = dec_value(d, &a->ptr[i], item, level + 1);
		path_restore(d, saved);
		if (r < 0)
			return r;
	}
	return 0;
}

/* An evidence or facts map (or one nested in them) at nesting level. Keys are
 * unique (checked), so entries are appended without kv_add's lookup. */
static int dec_kv(struct dec *d, const msgpack_object *o, struct kv_list *l, int level)
{
	if (o->type != MSGPACK_OBJECT_MAP)
		return dec_fail(d, "%s: not a map (%s)", where(d), type_name(o));
	if (level > WIRE_MAX_DEPTH)
		return dec_fail(d, "nesting deeper than %d at %s", WIRE_MAX_DEPTH, where(d));
	int r = dec_map_keys(d, o);
	if (r < 0)
		return r;
	const msgpack_object_map *m = &o->via.map;
	if (m->size) {
		l->items = xcalloc(m->size, sizeof(struct kv));
		l->cap = m->size;
	}
	for (uint32_t i = 0; i < m->size; i++) {
		struct kv *kv = &l->items[l->n++];
		kv->key = xstrndup(m->ptr[i].key.via.str.ptr, m->ptr[i].key.via.str.size);
		kv->val = (struct value){.type = VALUE_BOOL};
		size_t saved = path_push_key(d, &m->ptr[i].key, i);
		r = dec_value(d, &m->ptr[i].val, &kv->val, level);
		path_restore(d, saved);
		if (r < 0)
			return r;
	}
	return 0;
}

static int dec_status(struct dec *d, const msgpack_object *o, enum status *ret)
{
	_cleanup_free_ char *s = NULL;
	int r = dec_string(d, o, &s);
	if (r < 0)
		return r;
	int st = status_from_name(s);
	if (st < 0) {
		char q[64];
		return dec_fail(
		    d, "%s: unknown status %s (expected PASS, WARN, FAIL, UNKNOWN or SKIP)",
		    where(d), quote(q, sizeof(q), s, strlen(s)));
	}
	*ret = (enum status)st;
	return 0;
}

static int dec_finding_field(struct dec *d, const msgpack_object *key, const msgpack_object *val,
			     struct finding *f, unsigned *seen)
{
	if (key_is(key, "check")) {
		*seen |= 1;
		return dec_nonempty_string(d, val, &f->check);
	}
	if (key_is(key, "status")) {
		*seen |= 2;
		return dec_status(d, val, &f->status);
	}
	if (key_is(key, "message")) {
		*seen |= 4;
		return dec_string(d, val, &f->message);
	}
	if (key_is(key, "evidence"))
		return dec_kv(d, val, &f->evidence, 1);
	if (key_is(key, "remediation"))
		return dec_string(d, val, &f->remediation);
	if (key_is(key, "node"))
		return dec_string(d, val, &f->node);
	if (key_is(key, "object"))
		return dec_string(d, val, &f->object);
	return dec_ignored(d, val, 1);
}

static int dec_finding(struct dec *d, const msgpack_object *o, struct finding *f)
{
	static const char *const required[] = {"check", "status", "message"};
	if (o->type != MSGPACK_OBJECT_MAP)
		return dec_fail(d, "%s: not a map (%s)", where(d), type_name(o));
	int r = dec_map_keys(d, o);
	if (r < 0)
		return r;
	unsigned seen = 0;
	for (uint32_t i = 0; i < o->via.map.size; i++) {
		const msgpack_object_kv *kv = &o->via.map.ptr[i];
		size_t saved = path_push_key(d, &kv->key, i);
		r = dec_finding_field(d, &kv->key, &kv->val, f, &seen);
		path_restore(d, saved);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < ELEMENTSOF(required); i++)
		if (!(seen & (1u << i)))
			return dec_fail(d, "%s: missing required field \"%s\"", where(d),
					required[i]);
	if (!f->remediation)
		f->remediation = xstrdup("");
	return 0;
}

static int dec_results(struct dec *d, const msgpack_object *o, struct finding_list *l)
{
	if (o->type != MSGPACK_OBJECT_ARRAY)
		return dec_fail(d, "results: not an array (%s)", type_name(o));
	const msgpack_object_array *a = &o->via.array;
	if (a->size > WIRE_MAX_FINDINGS)
		return dec_fail(d, "too many results (%u, at most %u)", a->size, WIRE_MAX_FINDINGS);
	if (a->size) {
		l->items = xcalloc(a->size, sizeof(struct finding));
		l->cap = a->size;
	}
	for (uint32_t i = 0; i < a->size; i++) {
		struct finding *f = &l->items[l->n++];
		size_t saved = path_push_index(d, i);
		int r = dec_finding(d, &a->ptr[i], f);
		path_restore(d, saved);
		if (r < 0)
			return r;
	}
	return 0;
}

/* "hvready.node/vN": N must be our major; anything else is no node report. */
static int dec_schema(struct dec *d, const msgpack_object *o)
{
	_cleanup_free_ char *s = NULL;
	int r = dec_string(d, o, &s);
	if (r < 0)
		return r;
	const char *digits = startswith(s, SCHEMA_PREFIX) ? s + strlen(SCHEMA_PREFIX) : NULL;
	bool ok = digits && *digits && strspn(digits, "0123456789") == strlen(digits) &&
		  (digits[0] != '0' || !digits[1]);
	if (!ok) {
		char q[64];
		return dec_fail(d, "schema: not a node report schema: %s (expected %s)",
				quote(q, sizeof(q), s, strlen(s)), NODE_SCHEMA);
	}
	if (strlen(digits) > 9 || atoi(digits) != NODE_SCHEMA_MAJOR) {
		/* Only ASCII digits follow the prefix: safe to print, but maybe long. */
		snprintf(d->err, d->errlen,
			 "unsupported schema %.40s%s (this aggregator speaks v%d)", s,
			 strlen(s) > 40 ? "..." : "", NODE_SCHEMA_MAJOR);
		return -EPROTONOSUPPORT;
	}
	return 0;
}

enum {
	SEEN_NODE = 1,
	SEEN_SENT = 2,
	SEEN_RESULTS = 4,
};

static int dec_top_field(struct dec *d, const msgpack_object *key, const msgpack_object *val,
			 struct node_report *r, unsigned *seen)
{
	uint64_t u;
	int ret;
	if (key_is(key, "schema"))
		return 0; /* checked first */
	if (key_is(key, "schema_minor")) {
		if ((ret = dec_u64(d, val, UINT32_MAX, &u)) == 0)
			r->schema_minor = (uint32_t)u;
		return ret;
	}
	if (key_is(key, "node")) {
		*seen |= SEEN_NODE;
		return dec_nonempty_string(d, val, &r->node);
	}
	if (key_is(key, "hostname"))
		return dec_string(d, val, &r->hostname);
	if (key_is(key, "agent_version"))
		return dec_string(d, val, &r->agent_version);
	if (key_is(key, "boot_id"))
		return dec_string(d, val, &r->boot_id);
	if (key_is(key, "sent_ns")) {
		*seen |= SEEN_SENT;
		return dec_i64(d, val, &r->sent_ns);
	}
	if (key_is(key, "seq"))
		return dec_u64(d, val, UINT64_MAX, &r->seq);
	if (key_is(key, "interval")) {
		if ((ret = dec_u64(d, val, UINT32_MAX, &u)) == 0)
			r->interval_s = (uint32_t)u;
		return ret;
	}
	if (key_is(key, "results")) {
		*seen |= SEEN_RESULTS;
		return dec_results(d, val, &r->results);
	}
	if (key_is(key, "facts"))
		return dec_kv(d, val, &r->facts, 1);
	return dec_ignored(d, val, 1);
}

static int dec_report(struct dec *d, const msgpack_object *o, struct node_report *r)
{
	if (o->type != MSGPACK_OBJECT_MAP)
		return dec_fail(d, "top level is not a map (%s)", type_name(o));
	int ret = dec_map_keys(d, o);
	if (ret < 0)
		return ret;
	const msgpack_object_map *m = &o->via.map;
	const msgpack_object_kv *schema = NULL;
	for (uint32_t i = 0; i < m->size; i++)
		if (key_is(&m->ptr[i].key, "schema"))
			schema = &m->ptr[i];
	if (!schema)
		return dec_fail(d, "missing required field \"schema\"");
	path_push_key(d, &schema->key, 0);
	ret = dec_schema(d, &schema->val);
	path_restore(d, 0);
	if (ret < 0)
		return ret;
	unsigned seen = 0;
	for (uint32_t i = 0; i < m->size; i++) {
		size_t saved = path_push_key(d, &m->ptr[i].key, i);
		ret = dec_top_field(d, &m->ptr[i].key, &m->ptr[i].val, r, &seen);
		path_restore(d, saved);
		if (ret < 0)
			return ret;
	}
	if (!(seen & SEEN_NODE))
		return dec_fail(d, "missing required field \"node\"");
	if (!(seen & SEEN_SENT))
		return dec_fail(d, "missing required field \"sent_ns\"");
	if (!(seen & SEEN_RESULTS))
		return dec_fail(d, "missing required field \"results\"");
	return 0;
}

int wire_decode_node_report(const uint8_t *buf, size_t len, struct node_report *ret, char *err,
			    size_t errlen)
{
	*ret = (struct node_report){0};
	if (len == 0) {
		snprintf(err, errlen, "empty message");
		return -EINVAL;
	}
	if (len > WIRE_MAX_MESSAGE) {
		snprintf(err, errlen, "message too large (%zu bytes, at most %u)", len,
			 WIRE_MAX_MESSAGE);
		return -EINVAL;
	}
	int r = scan(buf, len, err, errlen);
	if (r < 0)
		return r;

	msgpack_unpacked u;
	msgpack_unpacked_init(&u);
	size_t off = 0;
	msgpack_unpack_return ur = msgpack_unpack_next(&u, (const char *)buf, len, &off);
	if (ur != MSGPACK_UNPACK_SUCCESS || off != len) {
		/* The scan accepted it, so only memory can be short here. */
		msgpack_unpacked_destroy(&u);
		snprintf(err, errlen, "%s",
			 ur == MSGPACK_UNPACK_NOMEM_ERROR ? "out of memory" : "invalid msgpack");
		return ur == MSGPACK_UNPACK_NOMEM_ERROR ? -ENOMEM : -EINVAL;
	}
	struct dec d = {.err = err, .errlen = errlen};
	struct node_report rep = {0};
	r = dec_report(&d, &u.data, &rep);
	msgpack_unpacked_destroy(&u);
	if (r < 0) {
		node_report_clear(&rep);
		return r;
	}
	*ret = rep;
	return 0;
}

/* ---- equality ---- */

static bool kv_equal(const struct kv_list *a, const struct kv_list *b)
{
	struct value va = {.type = VALUE_MAP, .map = *a};
	struct value vb = {.type = VALUE_MAP, .map = *b};
	return value_equal(&va, &vb);
}

static bool finding_equal(const struct finding *a, const struct finding *b)
{
	return streq(a->check, b->check) && a->status == b->status &&
	       streq(a->message, b->message) && streq(a->remediation, b->remediation) &&
	       streq(a->node, b->node) && streq(a->object, b->object) &&
	       kv_equal(&a->evidence, &b->evidence);
}

bool wire_node_report_equal(const struct node_report *a, const struct node_report *b)
{
	if (!streq(a->node, b->node) || !streq(a->hostname, b->hostname) ||
	    !streq(a->agent_version, b->agent_version) || !streq(a->boot_id, b->boot_id) ||
	    a->sent_ns != b->sent_ns || a->seq != b->seq || a->interval_s != b->interval_s ||
	    a->results.n != b->results.n || !kv_equal(&a->facts, &b->facts))
		return false;
	for (size_t i = 0; i < a->results.n; i++)
		if (!finding_equal(&a->results.items[i], &b->results.items[i]))
			return false;
	return true;
}
