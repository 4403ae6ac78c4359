/*
 * One pass over a node report's msgpack bytes with wire.c's rules (see
 * wirescan.h). wire.c first scans the structure, then lets msgpack-c build an
 * object tree (allocating an element table per container) and walks that tree
 * copying every string: at thousands of reports a second those allocations
 * were most of the aggregator's loop. Here the walk reads the bytes in place;
 * nothing is allocated but the reusable span arrays.
 *
 * Why the verdicts agree: wire.c rejects on (1) structure — a reserved type
 * byte, a length or element count beyond the bytes left, nesting deeper than
 * 16, trailing bytes — and (2) the schema walk's limits. This reader checks
 * every header the way wire.c's scan does and visits every byte, so (1) holds;
 * the schema rules below mirror wire.c's dec_* functions one to one, and they
 * bound nesting to 11 levels, inside the scan's 16. Integers are classified as
 * msgpack-c does: a signed format holding a non-negative value is a positive
 * integer.
 */
#include "wirescan.h"

#include <errno.h>
#include <string.h>

#include "wire.h"

/* wire.c's scan allows 16 levels of nesting in the whole message. */
#define SKIP_MAX_DEPTH 16

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
};

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
 * payload; a container's elements follow. false on anything wire.c's scan
 * rejects. */
static bool rd_next(struct rd *r, struct mp *m)
{
	if (r->pos >= r->len)
		return false;
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
			if (left < n)
				return false;
			m->t = MP_FLOAT;
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
				return false;
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
			return false;
		}
	}
	if (left < lenbytes)
		return false;
	if (lenbytes)
		m->n = read_be(r->b + p, lenbytes);
	p += lenbytes;
	left -= lenbytes;
	if (m->t == MP_ARRAY || m->t == MP_MAP) {
		/* Every element takes at least a byte (wire.c's scan: a count
		 * beyond the bytes left is a lie). */
		if (m->n * (m->t == MP_MAP ? 2 : 1) > left)
			return false;
		r->pos = p;
		return true;
	}
	if (extra + m->n > left)
		return false;
	m->data = p + extra;
	r->pos = p + extra + m->n;
	return true;
}

/* ---- the scan ---- */

struct scan {
	struct rd r;
	const struct wirescan_known *known;
	/* keys of the maps being walked, innermost last (unique-key checks) */
	struct wirescan_span *keys;
	size_t n_keys, cap_keys;
};

static bool has_zero_byte(uint64_t v)
{
	return ((v - UINT64_C(0x0101010101010101)) & ~v & UINT64_C(0x8080808080808080)) != 0;
}

/* A string the report keeps: bounded, UTF-8, no NUL. Eight ASCII bytes at a
 * time: nearly every string of a report is plain ASCII. */
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
		size_t l = wire_utf8_seq_len(s + i, n - i); /* wire.c's rule */
		if (!l)
			return false;
		i += l;
	}
	return true;
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

/* The keys pushed since base are unique (wire.c: dec_unique_keys). */
static bool keys_unique(struct scan *s, size_t base)
{
	size_t n = s->n_keys - base;
	if (n < 2)
		return true;
	struct wirescan_span *k = s->keys + base;
	if (n <= 16) {
		for (size_t i = 1; i < n; i++)
			for (size_t j = 0; j < i; j++)
				if (span_cmp(s->r.b, k[i], k[j]) == 0)
					return false;
		return true;
	}
	/* Sorting reorders them; they are popped right after. */
	tls_sort_base = s->r.b;
	qsort(k, n, sizeof(*k), span_qcmp);
	for (size_t i = 1; i < n; i++)
		if (span_cmp(s->r.b, k[i - 1], k[i]) == 0)
			return false;
	return true;
}

/* Read a map key: a string with text_ok, remembered for keys_unique(). */
static bool map_key(struct scan *s, struct mp *key)
{
	if (!rd_next(&s->r, key) || key->t != MP_STR || !text_ok(s->r.b + key->data, key->n))
		return false;
	util_grow((void **)&s->keys, &s->cap_keys, s->n_keys + 1, sizeof(*s->keys));
	s->keys[s->n_keys++] = (struct wirescan_span){(uint32_t)key->data, (uint32_t)key->n};
	return true;
}

/* wire.c dec_ignored: a value under a key this version does not know. */
static bool skip_ignored(struct scan *s, int level)
{
	struct mp m;
	if (!rd_next(&s->r, &m))
		return false;
	switch (m.t) {
	case MP_STR:
	case MP_BIN:
	case MP_EXT:
		return m.n <= WIRE_MAX_STRING;
	case MP_ARRAY:
	case MP_MAP:
		break;
	default:
		return true;
	}
	if (level > WIRE_MAX_DEPTH || m.n > WIRE_MAX_ARRAY)
		return false;
	uint64_t values = m.t == MP_MAP ? 2 * m.n : m.n;
	for (uint64_t i = 0; i < values; i++)
		if (!skip_ignored(s, level + 1))
			return false;
	return true;
}

static bool walk_kv(struct scan *s, const struct mp *m, int level);

/* wire.c dec_value: one evidence or facts value; level is its container's. */
static bool walk_value(struct scan *s, int level)
{
	struct mp m;
	if (!rd_next(&s->r, &m))
		return false;
	switch (m.t) {
	case MP_STR:
		return text_ok(s->r.b + m.data, m.n);
	case MP_POS:
		return m.u <= INT64_MAX;
	case MP_NEG:
	case MP_BOOL:
		return true;
	case MP_MAP:
		return walk_kv(s, &m, level + 1);
	case MP_ARRAY:
		break;
	default:
		return false;
	}
	if (level + 1 > WIRE_MAX_DEPTH || m.n > WIRE_MAX_ARRAY)
		return false;
	for (uint64_t i = 0; i < m.n; i++)
		if (!walk_value(s, level + 1))
			return false;
	return true;
}

/* wire.c dec_kv: an evidence or facts map (header m already read). */
static bool walk_kv(struct scan *s, const struct mp *m, int level)
{
	if (m->t != MP_MAP || level > WIRE_MAX_DEPTH || m->n > WIRE_MAX_ARRAY)
		return false;
	size_t base = s->n_keys;
	for (uint64_t i = 0; i < m->n; i++) {
		struct mp key;
		if (!map_key(s, &key) || !walk_value(s, level))
			return false;
	}
	bool ok = keys_unique(s, base);
	s->n_keys = base;
	return ok;
}

static bool read_string(struct scan *s, struct mp *m)
{
	return rd_next(&s->r, m) && m->t == MP_STR && text_ok(s->r.b + m->data, m->n);
}

static bool read_u64(struct scan *s, uint64_t max, uint64_t *ret)
{
	struct mp m;
	if (!rd_next(&s->r, &m) || m.t != MP_POS || m.u > max)
		return false;
	*ret = m.u;
	return true;
}

static bool read_i64(struct scan *s, int64_t *ret)
{
	struct mp m;
	if (!rd_next(&s->r, &m))
		return false;
	if (m.t == MP_NEG) {
		*ret = m.i;
		return true;
	}
	if (m.t != MP_POS || m.u > INT64_MAX)
		return false;
	*ret = (int64_t)m.u;
	return true;
}

static struct wirescan_span span_of(const struct mp *m)
{
	return (struct wirescan_span){(uint32_t)m->data, (uint32_t)m->n};
}

/* wire.c dec_finding */
static bool walk_finding(struct scan *s, struct wirescan_finding *f)
{
	static const char *const names[_STATUS_MAX] = {
	    [STATUS_PASS] = "PASS",	  [STATUS_WARN] = "WARN", [STATUS_FAIL] = "FAIL",
	    [STATUS_UNKNOWN] = "UNKNOWN", [STATUS_SKIP] = "SKIP",
	};
	size_t start = s->r.pos;
	struct mp m;
	if (!rd_next(&s->r, &m) || m.t != MP_MAP || m.n > WIRE_MAX_ARRAY)
		return false;
	size_t base = s->n_keys;
	unsigned seen = 0;
	for (uint64_t i = 0; i < m.n; i++) {
		struct mp key, v;
		if (!map_key(s, &key))
			return false;
		bool ok;
		if (str_is(&s->r, &key, "check")) {
			seen |= 1;
			ok = read_string(s, &v) && v.n > 0;
		} else if (str_is(&s->r, &key, "status")) {
			seen |= 2;
			ok = read_string(s, &v);
			int st = -1;
			for (int k = 0; ok && k < _STATUS_MAX && st < 0; k++)
				if (str_is(&s->r, &v, names[k]))
					st = k;
			ok = ok && st >= 0;
			f->status = ok ? (enum status)st : STATUS_UNKNOWN;
		} else if (str_is(&s->r, &key, "message")) {
			seen |= 4;
			ok = read_string(s, &v);
		} else if (str_is(&s->r, &key, "evidence")) {
			ok = rd_next(&s->r, &v) && walk_kv(s, &v, 1);
		} else if (str_is(&s->r, &key, "remediation") || str_is(&s->r, &key, "node") ||
			   str_is(&s->r, &key, "object")) {
			ok = read_string(s, &v);
		} else {
			ok = skip_ignored(s, 1);
		}
		if (!ok)
			return false;
	}
	bool ok = keys_unique(s, base) && seen == 7;
	s->n_keys = base;
	f->bytes = (struct wirescan_span){(uint32_t)start, (uint32_t)(s->r.pos - start)};
	f->known = NULL;
	return ok;
}

/* Move past one value of any kind, checking only its structure (as wire.c's
 * scan does); a value deeper than SKIP_MAX_DEPTH is rejected, as by wire.c.
 * A loop over a stack of counts, not recursion: every piece of a node's first
 * report, and each one that changed since its last, is skipped here first. */
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

/* The value at the reader is bytes seen and accepted before: then it is
 * skipped and *ret is its token. Else the reader is left where it was. */
static bool known_value(struct scan *s, bool is_fact, size_t i, const void **ret,
			enum status *ret_status)
{
	*ret = NULL;
	if (!s->known)
		return false;
	size_t start = s->r.pos;
	if (s->known->prior) {
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
	if (!rd_next(&s->r, &m) || m.t != MP_ARRAY || m.n > WIRE_MAX_FINDINGS)
		return false;
	util_grow((void **)&r->results, &r->cap_results, m.n ? m.n : 1, sizeof(*r->results));
	for (uint64_t i = 0; i < m.n; i++) {
		struct wirescan_finding *f = &r->results[r->n_results++];
		size_t start = s->r.pos;
		if (known_value(s, false, i, &f->known, &f->status)) {
			f->bytes =
			    (struct wirescan_span){(uint32_t)start, (uint32_t)(s->r.pos - start)};
			continue;
		}
		if (!walk_finding(s, f))
			return false;
	}
	return true;
}

/* facts: wire.c dec_kv at level 1, remembering where each entry is. */
static bool walk_facts(struct scan *s, struct wirescan_report *r)
{
	struct mp m;
	if (!rd_next(&s->r, &m) || m.t != MP_MAP || m.n > WIRE_MAX_ARRAY)
		return false;
	util_grow((void **)&r->facts, &r->cap_facts, m.n ? m.n : 1, sizeof(*r->facts));
	size_t base = s->n_keys;
	for (uint64_t i = 0; i < m.n; i++) {
		size_t start = s->r.pos;
		struct wirescan_fact *f = &r->facts[r->n_facts++];
		enum status unused;
		struct mp key;
		if (known_value(s, true, i, &f->known, &unused)) {
			/* Known: only its key matters here, for uniqueness. */
			size_t end = s->r.pos;
			s->r.pos = start;
			if (!map_key(s, &key))
				return false;
			s->r.pos = end;
		} else if (!map_key(s, &key) || !walk_value(s, 1)) {
			return false;
		}
		f->bytes = (struct wirescan_span){(uint32_t)start, (uint32_t)(s->r.pos - start)};
	}
	bool ok = keys_unique(s, base);
	s->n_keys = base;
	return ok;
}

enum { SEEN_NODE = 1, SEEN_SENT = 2, SEEN_RESULTS = 4, SEEN_SCHEMA = 8 };

static bool walk_top_field(struct scan *s, const struct mp *key, struct wirescan_report *r,
			   unsigned *seen)
{
	const struct rd *rd = &s->r;
	struct mp v;
	uint64_t u;
	if (str_is(rd, key, "schema")) {
		/* wire.c: "hvready.node/v" + a major without leading zeros that
		 * equals NODE_SCHEMA_MAJOR; anything else is rejected. */
		*seen |= SEEN_SCHEMA;
		return read_string(s, &v) && str_is(rd, &v, NODE_SCHEMA);
	}
	if (str_is(rd, key, "schema_minor")) {
		if (!read_u64(s, UINT32_MAX, &u))
			return false;
		r->schema_minor = (uint32_t)u;
		return true;
	}
	if (str_is(rd, key, "node")) {
		*seen |= SEEN_NODE;
		if (!read_string(s, &v) || v.n == 0)
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

int wirescan_report(const uint8_t *buf, size_t len, const struct wirescan_known *known,
		    struct wirescan_report *r)
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
	if (len == 0 || len > WIRE_MAX_MESSAGE)
		return -EINVAL;
	/* The keys array is the report's, reused: one allocation less a report. */
	struct scan s = {
	    .r = {.b = buf, .len = len}, .known = known, .keys = keys, .cap_keys = cap_keys};
	if (known && known->node)
		known->node(known->ctx, NULL, 0);
	struct mp m;
	bool ok = rd_next(&s.r, &m) && m.t == MP_MAP && m.n <= WIRE_MAX_ARRAY;
	unsigned seen = 0;
	for (uint64_t i = 0; ok && i < m.n; i++) {
		struct mp key;
		ok = map_key(&s, &key) && walk_top_field(&s, &key, r, &seen);
	}
	ok = ok && keys_unique(&s, 0) && s.r.pos == len &&
	     seen == (SEEN_NODE | SEEN_SENT | SEEN_RESULTS | SEEN_SCHEMA);
	r->keys = s.keys;
	r->cap_keys = s.cap_keys;
	if (!ok) {
		r->n_results = r->n_facts = 0;
		return -EINVAL;
	}
	return 0;
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
