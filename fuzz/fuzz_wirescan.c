/*
 * The aggregator's one-pass report scanner against the decoder it stands in
 * for, on arbitrary bytes. Oracles beyond "no crash, no leak": both accept or
 * both reject; what both accept decodes from the scanner's pieces (header,
 * each finding, each facts entry) to the report wire.c decodes.
 */
#include <stdio.h>
#include <string.h>

#include "wire.h"
#include "wirescan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz_wirescan: %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static char *span_dup(const uint8_t *buf, struct wirescan_span s)
{
	return xstrndup((const char *)buf + s.off, s.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wirescan_report w;
	struct node_report a, b;
	char err[WIRE_ERR_LEN];
	int rd = wire_decode_node_report(data, size, &a, err, sizeof(err));
	int rs = wirescan_report(data, size, &w);
	CHECK((rd == 0) == (rs == 0));
	if (rd < 0)
		return 0;
	b = (struct node_report){
	    .node = span_dup(data, w.node),
	    .hostname = w.has_hostname ? span_dup(data, w.hostname) : NULL,
	    .agent_version = w.has_agent_version ? span_dup(data, w.agent_version) : NULL,
	    .boot_id = w.has_boot_id ? span_dup(data, w.boot_id) : NULL,
	    .sent_ns = w.sent_ns,
	    .seq = w.seq,
	    .interval_s = w.interval_s,
	};
	b.results.items = xcalloc(w.n_results + 1, sizeof(struct finding));
	for (size_t i = 0; i < w.n_results; i++) {
		struct finding *f = &b.results.items[b.results.n++];
		CHECK(wirescan_decode_finding(data + w.results[i].bytes.off, w.results[i].bytes.len,
					      f) == 0);
		CHECK(f->status == w.results[i].status);
	}
	b.facts.items = xcalloc(w.n_facts + 1, sizeof(struct kv));
	for (size_t i = 0; i < w.n_facts; i++)
		CHECK(wirescan_decode_fact(data + w.facts[i].off, w.facts[i].len,
					   &b.facts.items[b.facts.n++]) == 0);
	CHECK(wire_node_report_equal(&a, &b));
	CHECK(a.schema_minor == w.schema_minor);
	node_report_clear(&a);
	node_report_clear(&b);
	return 0;
}
