/*
 * The msgpack node report reader (common/wirescan.c) on arbitrary bytes (the
 * aggregator's input from the network), in its three uses: the decoder with
 * reasons, the hot path's scan alone, and the scan with the pieces of earlier
 * inputs known (as the server's store has them). Oracles beyond "no crash, no
 * leak":
 * - a rejection leaves the report zeroed and says why on one line;
 * - the three give one verdict, and what is accepted decodes from the scan's
 *   pieces (header, each finding, each facts entry) to the decoder's report;
 * - what decodes also renders as JSON that parses back, and as text;
 * - what decodes re-encodes, decodes to the same report, and encodes to the
 *   same bytes again (the encoder is deterministic).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "render_json.h"
#include "render_text.h"
#include "store.h"
#include "wire.h"
#include "wirescan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_zero(const struct node_report *r)
{
	static const struct node_report zero;
	return memcmp(r, &zero, sizeof(zero)) == 0;
}

static void check_renderings(const struct node_report *r)
{
	json_object *o = render_node_report_json(r);
	CHECK(o);
	json_object *back = json_tokener_parse(json_object_to_json_string(o));
	CHECK(back);
	json_object_put(back);
	json_object_put(o);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f);
	render_node_report_text(f, r, true);
	CHECK(fclose(f) == 0);
	free(text);
}

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
	if (n_seen == SEEN_MAX) {
		store_rec_unref(&seen, seen_recs[0]);
		memmove(seen_recs, seen_recs + 1, (SEEN_MAX - 1) * sizeof(seen_recs[0]));
		n_seen--;
	}
	seen_recs[n_seen++] = store_rec_new(&seen, data, w, 0, 0);
}

/* The report as the store rebuilds it from the scan's pieces is the decoder's. */
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

/* The scan alone and with the known pieces: the decoder's verdict (rd). */
static void check_scans(const uint8_t *data, size_t size, int rd, const struct node_report *a)
{
	static struct wirescan_report w;
	if (!seen.known.lookup)
		store_init(&seen);
	int rk = wirescan_report(data, size, &seen.known, &w);
	CHECK((rd == 0) == (rk == 0));
	if (rd == 0)
		check_pieces(data, &w, a);
	int rs = wirescan_report(data, size, NULL, &w);
	CHECK((rd == 0) == (rs == 0));
	if (rd < 0)
		return;
	check_pieces(data, &w, a);
	remember(data, &w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct node_report r1, r2;
	char err[WIRE_ERR_LEN] = "";
	int ret = wire_decode_node_report(data, size, &r1, err, sizeof(err));
	check_scans(data, size, ret, &r1);
	if (ret < 0) {
		CHECK(ret == -EINVAL || ret == -EPROTONOSUPPORT);
		CHECK(is_zero(&r1));
		CHECK(err[0] != '\0' && !strchr(err, '\n'));
		return 0;
	}
	CHECK(r1.node && r1.node[0]);
	check_renderings(&r1);

	char *buf1, *buf2;
	size_t len1, len2;
	ret = wire_encode_node_report(&r1, &buf1, &len1);
	/* Re-encoding writes defaults the input may have left out (an empty
	 * evidence map, an empty remediation), so only a large input may grow
	 * beyond the message limit. */
	if (ret == -EMSGSIZE && size > WIRE_MAX_MESSAGE / 2) {
		node_report_clear(&r1);
		return 0;
	}
	CHECK(ret == 0);
	ret = wire_decode_node_report((const uint8_t *)buf1, len1, &r2, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "fuzz_wire: re-encoded report rejected: %s\n", err);
	CHECK(ret == 0);
	CHECK(wire_node_report_equal(&r1, &r2));
	CHECK(r2.schema_minor == NODE_SCHEMA_MINOR);
	CHECK(wire_encode_node_report(&r2, &buf2, &len2) == 0);
	CHECK(len1 == len2 && memcmp(buf1, buf2, len1) == 0);

	free(buf1);
	free(buf2);
	node_report_clear(&r1);
	node_report_clear(&r2);
	return 0;
}
