/*
 * The aggregator's one-pass report scanner against the decoder it stands in
 * for, on arbitrary bytes. Oracles beyond "no crash, no leak": both accept or
 * both reject, the scanner alone and with the pieces of earlier inputs known
 * (as the server's store has them); what both accept decodes from the
 * scanner's pieces (header, each finding, each facts entry) to the report
 * wire.c decodes.
 */
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "store.h"
#include "wire.h"
#include "wirescan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *span_dup(const uint8_t *buf, struct wirescan_span s)
{
	return xstrndup((const char *)buf + s.off, s.len);
}

#define SEEN_MAX 64

static struct store seen;
static struct store_rec *seen_recs[SEEN_MAX];
static size_t n_seen;

/* The pieces of the last SEEN_MAX accepted inputs stay known. */
static void remember(const uint8_t *data, const struct wirescan_report *w)
{
	if (!seen.known.lookup)
		store_init(&seen);
	if (n_seen == SEEN_MAX) {
		store_rec_unref(&seen, seen_recs[0]);
		memmove(seen_recs, seen_recs + 1, (SEEN_MAX - 1) * sizeof(seen_recs[0]));
		n_seen--;
	}
	seen_recs[n_seen++] = store_rec_new(&seen, data, w, 0, 0);
}

/* The report as the store rebuilds it from the scan's pieces equals wire.c's. */
static void check_pieces(const uint8_t *data, const struct wirescan_report *w,
			 const struct node_report *a)
{
	struct node_report b = {
	    .node = span_dup(data, w->node),
	    .hostname = w->has_hostname ? span_dup(data, w->hostname) : NULL,
	    .agent_version = w->has_agent_version ? span_dup(data, w->agent_version) : NULL,
	    .boot_id = w->has_boot_id ? span_dup(data, w->boot_id) : NULL,
	    .sent_ns = w->sent_ns,
	    .seq = w->seq,
	    .interval_s = w->interval_s,
	};
	b.results.items = xcalloc(w->n_results + 1, sizeof(struct finding));
	for (size_t i = 0; i < w->n_results; i++) {
		struct finding *f = &b.results.items[b.results.n++];
		CHECK(wirescan_decode_finding(data + w->results[i].bytes.off,
					      w->results[i].bytes.len, f) == 0);
		CHECK(f->status == w->results[i].status);
	}
	b.facts.items = xcalloc(w->n_facts + 1, sizeof(struct kv));
	for (size_t i = 0; i < w->n_facts; i++)
		CHECK(wirescan_decode_fact(data + w->facts[i].bytes.off, w->facts[i].bytes.len,
					   &b.facts.items[b.facts.n++]) == 0);
	CHECK(wire_node_report_equal(a, &b));
	CHECK(a->schema_minor == w->schema_minor);
	node_report_clear(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wirescan_report w;
	struct node_report a;
	char err[WIRE_ERR_LEN];
	int rd = wire_decode_node_report(data, size, &a, err, sizeof(err));
	if (!seen.known.lookup)
		store_init(&seen);
	int rk = wirescan_report(data, size, &seen.known, &w);
	CHECK((rd == 0) == (rk == 0));
	if (rd == 0)
		check_pieces(data, &w, &a);
	int rs = wirescan_report(data, size, NULL, &w);
	CHECK((rd == 0) == (rs == 0));
	if (rd < 0)
		return 0;
	check_pieces(data, &w, &a);
	remember(data, &w);
	node_report_clear(&a);
	return 0;
}
