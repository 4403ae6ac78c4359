/* The one reader of node reports (common/wirescan.c) in its three uses: the
 * decoder with reasons (wire_decode_node_report), the aggregator's hot-path
 * scan alone, and the scan with the store's known pieces (bytes accepted
 * before are taken whole, not walked again). One verdict on every input — the
 * wire fuzz corpus, hand-built edge cases and a few hundred thousand
 * deterministic mutations of real reports — and, for what is accepted, the
 * pieces decode to the decoder's report. test_wire.c holds each rule and its
 * reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <msgpack.h>
#include <stdio.h>
#include <string.h>

#include "msgpack_builder.h"
#include "store.h"
#include "wire.h"
#include "wirescan.h"
#include "test_src.h"

static char *span_dup(const uint8_t *buf, struct wirescan_span s)
{
	return xstrndup((const char *)buf + s.off, s.len);
}

/* The report as the aggregator's store would rebuild it from the pieces. */
static void rebuild(const uint8_t *buf, const struct wirescan_report *w, struct node_report *r)
{
	*r = (struct node_report){
	    .node = span_dup(buf, w->node),
	    .hostname = w->has_hostname ? span_dup(buf, w->hostname) : NULL,
	    .agent_version = w->has_agent_version ? span_dup(buf, w->agent_version) : NULL,
	    .boot_id = w->has_boot_id ? span_dup(buf, w->boot_id) : NULL,
	    .sent_ns = w->sent_ns,
	    .seq = w->seq,
	    .interval_s = w->interval_s,
	    .schema_minor = w->schema_minor,
	};
	if (w->n_results)
		r->results.items = xcalloc(w->n_results, sizeof(struct finding));
	for (size_t i = 0; i < w->n_results; i++) {
		struct finding *f = &r->results.items[r->results.n++];
		assert_int_equal(wirescan_decode_finding(buf + w->results[i].bytes.off,
							 w->results[i].bytes.len, f),
				 0);
		assert_int_equal(f->status, w->results[i].status);
	}
	if (w->n_facts)
		r->facts.items = xcalloc(w->n_facts, sizeof(struct kv));
	for (size_t i = 0; i < w->n_facts; i++)
		assert_int_equal(wirescan_decode_fact(buf + w->facts[i].bytes.off,
						      w->facts[i].bytes.len,
						      &r->facts.items[r->facts.n++]),
				 0);
}

static size_t accepted, rejected, known_hits, prior_offers;

/* Pieces of every report accepted so far: the second scan of each input
 * skips what they hold, as the server's does. */
static struct store seen;
static struct store_rec **seen_recs;
static size_t n_seen;

static void seen_clear(void)
{
	for (size_t i = 0; i < n_seen; i++)
		store_rec_unref(&seen, seen_recs[i]);
	free(seen_recs);
	seen_recs = NULL;
	n_seen = 0;
	store_clear(&seen);
	store_init(&seen);
}

/* The store's matches of a node's previous pieces, counted. */
static const void *counting_prior_match(void *ctx, bool is_fact, size_t i, const uint8_t *at,
					size_t avail, size_t *ret_len, uint32_t *ret_node_off,
					uint32_t *ret_node_len, enum status *ret_status)
{
	const void *p = seen.known.prior_match(ctx, is_fact, i, at, avail, ret_len, ret_node_off,
					       ret_node_len, ret_status);
	prior_offers += p != NULL;
	return p;
}

static void check_scan(const uint8_t *buf, size_t len, int rd, const char *err,
		       const struct node_report *a, struct wirescan_report *w, bool with_known,
		       const char *what)
{
	struct wirescan_known known = seen.known;
	known.prior_match = counting_prior_match;
	int rs = wirescan_report(buf, len, with_known ? &known : NULL, w);
	if ((rd == 0) != (rs == 0))
		fail_msg("%s (%zu bytes): the decoder %s, the scan%s %s", what, len,
			 rd == 0 ? "accepts" : err, with_known ? " with known pieces" : "",
			 rs == 0 ? "accepts" : "rejects");
	if (rd < 0)
		return;
	for (size_t i = 0; i < w->n_results; i++)
		known_hits += w->results[i].known != NULL;
	struct node_report b;
	rebuild(buf, w, &b);
	if (!wire_node_report_equal(a, &b))
		fail_msg("%s: the pieces decode to another report", what);
	assert_int_equal(a->schema_minor, b.schema_minor);
	node_report_clear(&b);
}

/* Both verdicts on buf, and equal reports when accepted. */
static void agree(const uint8_t *buf, size_t len, struct wirescan_report *w, const char *what)
{
	struct node_report a;
	char err[WIRE_ERR_LEN];
	int rd = wire_decode_node_report(buf, len, &a, err, sizeof(err));
	check_scan(buf, len, rd, err, &a, w, false, what);
	check_scan(buf, len, rd, err, &a, w, true, what);
	if (rd < 0) {
		rejected++;
		return;
	}
	accepted++;
	seen_recs = xrealloc(seen_recs, (n_seen + 1) * sizeof(*seen_recs));
	seen_recs[n_seen++] = store_rec_new(&seen, buf, w, 0, 0);
	/* The node's latest report: the next scans of it try its pieces in place. */
	store_put_rec(&seen, store_rec_ref(seen_recs[n_seen - 1]));
	node_report_clear(&a);
}

struct corpus {
	uint8_t **items;
	size_t *lens;
	size_t n;
};

static void load_dir(struct corpus *c, const char *name)
{
	_cleanup_free_ char *dir = xasprintf("%s/fuzz/corpus/%s", test_src(), name);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, de->d_name);
		char *buf;
		size_t len;
		if (util_read_file(p, 2 * WIRE_MAX_MESSAGE, &buf, &len) < 0)
			continue;
		c->items = xrealloc(c->items, (c->n + 1) * sizeof(*c->items));
		c->lens = xrealloc(c->lens, (c->n + 1) * sizeof(*c->lens));
		c->items[c->n] = (uint8_t *)buf;
		c->lens[c->n++] = len;
	}
	closedir(d);
}

/* The wire fuzz corpus (with a real agent's report). */
static void load_corpus(struct corpus *c)
{
	load_dir(c, "wire");
	assert_true(c->n >= 20);
}

static void free_corpus(struct corpus *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->items[i]);
	free(c->items);
	free(c->lens);
}

static void test_corpus(void **state)
{
	struct corpus c = {0};
	struct wirescan_report w = {0};
	load_corpus(&c);
	accepted = rejected = 0;
	for (size_t i = 0; i < c.n; i++)
		agree(c.items[i], c.lens[i], &w, "corpus file");
	/* The corpus holds both kinds: the comparison means something. */
	assert_true(accepted >= 10);
	assert_true(rejected >= 10);
	wirescan_report_clear(&w);
	free_corpus(&c);
}

static uint64_t rng = 0x9e3779b97f4a7c15;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Bytes that move msgpack's structure: type bytes of every family. */
static const uint8_t special[] = {0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1,
				  0xc2, 0xc3, 0xc4, 0xc7, 0xca, 0xcb, 0xcc, 0xcf, 0xd0, 0xd3,
				  0xd4, 0xd8, 0xd9, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff,
				  0xed, 0xf4, 0xf0, 0xe0, 0x80, 0xbf, '\\', '"'};

static size_t mutate(uint8_t *b, size_t len, size_t cap)
{
	int edits = 1 + (int)(next_rand() % 3);
	for (int e = 0; e < edits && len > 0; e++) {
		size_t at = next_rand() % len;
		switch (next_rand() % 6) {
		case 0:
			b[at] ^= (uint8_t)(1u << (next_rand() % 8));
			break;
		case 1:
			b[at] = special[next_rand() % sizeof(special)];
			break;
		case 2:
			b[at] = (uint8_t)next_rand();
			break;
		case 3: /* delete */
			memmove(b + at, b + at + 1, len - at - 1);
			len--;
			break;
		case 4: /* insert */
			if (len < cap) {
				memmove(b + at + 1, b + at, len - at);
				b[at] = special[next_rand() % sizeof(special)];
				len++;
			}
			break;
		default: /* truncate */
			len = at + 1;
			break;
		}
	}
	return len;
}

static void test_mutations(void **state)
{
	struct corpus c = {0};
	struct wirescan_report w = {0};
	load_corpus(&c);
	size_t cap = 0;
	for (size_t i = 0; i < c.n; i++)
		cap = c.lens[i] > cap ? c.lens[i] : cap;
	cap += 16;
	uint8_t *buf = xmalloc(cap);
	accepted = rejected = 0;
	/* Valid inputs only as seeds: a mutation of a valid report probes one
	 * rule at a time. */
	size_t seeds = 0;
	for (size_t i = 0; i < c.n; i++) {
		struct node_report r;
		char err[WIRE_ERR_LEN];
		if (wire_decode_node_report(c.items[i], c.lens[i], &r, err, sizeof(err)) < 0)
			continue;
		node_report_clear(&r);
		seeds++;
		for (int k = 0; k < 4000; k++) {
			memcpy(buf, c.items[i], c.lens[i]);
			size_t len = mutate(buf, c.lens[i], cap);
			char what[64];
			snprintf(what, sizeof(what), "mutation %d of seed %zu", k, i);
			agree(buf, len, &w, what);
		}
	}
	print_message(
	    "%zu seeds, %zu accepted, %zu rejected, %zu known findings, %zu prior offers\n", seeds,
	    accepted, rejected, known_hits, prior_offers);
	assert_true(known_hits >= 1000);
	assert_true(prior_offers >= 1000);
	assert_true(seeds >= 10);
	assert_true(accepted >= 1000);
	assert_true(rejected >= 1000);
	free(buf);
	wirescan_report_clear(&w);
	free_corpus(&c);
}

/* ---- hand-built edge cases ---- */

/* A report with one finding; the top level gets extra_top more entries
 * (written by extra), the finding's evidence gets ev_n entries (ev). */
static void build(struct mb *m, const char *schema, void (*extra)(struct mb *), int extra_top,
		  void (*ev)(struct mb *), int ev_n)
{
	mb_init(m);
	msgpack_pack_map(&m->pk, 4 + extra_top);
	pk_s(m, "schema");
	pk_s(m, schema);
	pk_s(m, "node");
	pk_s(m, "n1");
	pk_s(m, "sent_ns");
	msgpack_pack_int64(&m->pk, 1700000000000000000);
	pk_s(m, "results");
	msgpack_pack_array(&m->pk, 1);
	msgpack_pack_map(&m->pk, 4);
	pk_s(m, "check");
	pk_s(m, "host.kvm");
	pk_s(m, "status");
	pk_s(m, "PASS");
	pk_s(m, "message");
	pk_s(m, "ok");
	pk_s(m, "evidence");
	msgpack_pack_map(&m->pk, ev_n);
	if (ev)
		ev(m);
	if (extra)
		extra(m);
}

static void check_built(struct mb *m, bool want_ok, const char *what)
{
	struct wirescan_report w = {0};
	agree((const uint8_t *)m->sb.data, m->sb.size, &w, what);
	assert_int_equal(wirescan_report((const uint8_t *)m->sb.data, m->sb.size, NULL, &w) == 0,
			 want_ok);
	wirescan_report_clear(&w);
	mb_free(m);
}

static void ev_signed_positive(struct mb *m)
{
	/* int8 format holding 5: msgpack-c calls it a positive integer */
	const char b[] = {(char)0xa1, 'a', (char)0xd0, 5, (char)0xa1, 'b', (char)0xd3, 0,
			  0,	      0,   0,	       0, 0,	      0,   7};
	msgpack_sbuffer_write(&m->sb, b, sizeof(b));
}

static void ev_utf8(struct mb *m)
{
	pk_s(m, "ok");
	pk_s(m, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 plain ascii tail");
}

static void ev_overlong(struct mb *m)
{
	pk_s(m, "bad");
	pk_s(m, "abcdefgh\xc0\xaf");
}

static void ev_surrogate(struct mb *m)
{
	pk_s(m, "bad");
	pk_s(m, "\xed\xa0\x80");
}

static void ev_nul(struct mb *m)
{
	msgpack_pack_str(&m->pk, 10);
	msgpack_pack_str_body(&m->pk, "abcdefg\0hi", 10);
	pk_s(m, "x");
}

static void ev_float(struct mb *m)
{
	pk_s(m, "f");
	msgpack_pack_double(&m->pk, 1.5);
}

static void ev_many_dup(struct mb *m)
{
	/* 40 keys, the last equal to the 3rd: the sorted path */
	for (int i = 0; i < 40; i++) {
		char k[16];
		snprintf(k, sizeof(k), "k%d", i == 39 ? 2 : i);
		pk_s(m, k);
		msgpack_pack_int(&m->pk, i);
	}
}

static void ev_many_unique(struct mb *m)
{
	for (int i = 0; i < 40; i++) {
		char k[16];
		snprintf(k, sizeof(k), "k%d", i);
		pk_s(m, k);
		msgpack_pack_true(&m->pk);
	}
}

static int depth_levels;

static void ev_deep(struct mb *m)
{
	pk_s(m, "d");
	for (int i = 0; i < depth_levels; i++)
		msgpack_pack_array(&m->pk, 1);
	msgpack_pack_int(&m->pk, 1);
}

static void top_unknown_bin(struct mb *m)
{
	pk_s(m, "future");
	msgpack_pack_bin(&m->pk, 3);
	msgpack_pack_bin_body(&m->pk, "abc", 3);
}

static void top_negative_seq(struct mb *m)
{
	pk_s(m, "seq");
	msgpack_pack_int(&m->pk, -1);
}

static void top_facts(struct mb *m)
{
	pk_s(m, "facts");
	msgpack_pack_map(&m->pk, 2);
	pk_s(m, "cpu");
	msgpack_pack_map(&m->pk, 1);
	pk_s(m, "flags");
	msgpack_pack_array(&m->pk, 2);
	pk_s(m, "vmx");
	pk_s(m, "sse");
	pk_s(m, "cores");
	msgpack_pack_int(&m->pk, 4);
}

static void test_edges(void **state)
{
	struct mb m;
	build(&m, NODE_SCHEMA, NULL, 0, NULL, 0);
	check_built(&m, true, "minimal");
	build(&m, "hvready.node/v2", NULL, 0, NULL, 0);
	check_built(&m, false, "major 2");
	build(&m, "hvready.node/v01", NULL, 0, NULL, 0);
	check_built(&m, false, "leading zero");
	build(&m, NODE_SCHEMA, NULL, 0, ev_signed_positive, 2);
	check_built(&m, true, "signed formats holding positive values");
	build(&m, NODE_SCHEMA, NULL, 0, ev_utf8, 1);
	check_built(&m, true, "multi-byte UTF-8");
	build(&m, NODE_SCHEMA, NULL, 0, ev_overlong, 1);
	check_built(&m, false, "overlong UTF-8");
	build(&m, NODE_SCHEMA, NULL, 0, ev_surrogate, 1);
	check_built(&m, false, "surrogate");
	build(&m, NODE_SCHEMA, NULL, 0, ev_nul, 1);
	check_built(&m, false, "NUL in a key");
	build(&m, NODE_SCHEMA, NULL, 0, ev_float, 1);
	check_built(&m, false, "float in evidence");
	build(&m, NODE_SCHEMA, NULL, 0, ev_many_dup, 40);
	check_built(&m, false, "duplicate among 40 keys");
	build(&m, NODE_SCHEMA, NULL, 0, ev_many_unique, 40);
	check_built(&m, true, "40 unique keys");
	for (depth_levels = 5; depth_levels <= 9; depth_levels++) {
		build(&m, NODE_SCHEMA, NULL, 0, ev_deep, 1);
		/* evidence is level 1, each array one more: at most WIRE_MAX_DEPTH */
		check_built(&m, depth_levels + 1 <= WIRE_MAX_DEPTH, "nested arrays");
	}
	build(&m, NODE_SCHEMA, top_unknown_bin, 1, NULL, 0);
	check_built(&m, true, "unknown top-level field");
	build(&m, NODE_SCHEMA, top_negative_seq, 1, NULL, 0);
	check_built(&m, false, "negative seq");
	build(&m, NODE_SCHEMA, top_facts, 1, NULL, 0);
	check_built(&m, true, "facts");
}

static int setup(void **state)
{
	store_init(&seen);
	return 0;
}

static int teardown(void **state)
{
	seen_clear();
	store_clear(&seen);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus),
	    cmocka_unit_test(test_mutations),
	    cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
