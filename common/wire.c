/*
 * The node report on the wire (docs/protocol.md): encoding with msgpack-c's
 * packer (the agent's side), the UTF-8 rule every string is held to, and
 * equality of reports. The one reader of the format is common/wirescan.c.
 */
#include "wire.h"

#include <errno.h>
#include <inttypes.h>
#include <msgpack.h>
#include <stdio.h>
#include <string.h>

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
