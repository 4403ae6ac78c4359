/*
 * The one reader of a node report on the wire (docs/protocol.md): one pass
 * over the msgpack bytes with the schema's limits, types, UTF-8 and unique
 * keys, without building the report. It yields the header fields and where
 * each finding and each facts entry sits in the message, so that the
 * aggregator's store can keep those bytes (and share identical ones between
 * nodes) and decode them later, off the event loop.
 *
 * A rejection here carries no reason: wire_decode_node_report() (wire.h) is
 * the same walk with the reasons, and builds the whole report from the pieces.
 */
#pragma once
#include "report.h"

/* A byte range of the message. */
struct wirescan_span {
	uint32_t off, len;
};

struct wirescan_finding {
	struct wirescan_span bytes; /* the finding's whole map */
	enum status status;
	const void *known; /* from wirescan_known.lookup, or NULL */
	/* Its "node" entry (key and value), relative to bytes.off; node_len 0
	 * when it has none, or when known was found without telling. node_val:
	 * the value's payload, absolute (set by the full walk only). */
	uint32_t node_off, node_len;
	struct wirescan_span node_val;
};

struct wirescan_fact {
	struct wirescan_span bytes; /* one facts entry: its key and value */
	const void *known;
};

/* Most of a report is bytes the aggregator has seen (and scanned) before:
 * the same findings on every node, the same facts, and above all the node's
 * own previous report. A finding's or a facts entry's validity depends on its
 * bytes alone, so bytes known to have passed are not checked again.
 *
 * prior (optional) offers, for the node named in the message (node() is told
 * its name, or NULL at the start of every scan), the i-th finding or facts
 * entry of its previous report: when the message holds the same bytes at
 * that place, they are taken whole, not even delimited. Else lookup is asked
 * about the delimited bytes. Either returns a token (kept in the span) and,
 * for a finding, its status; NULL for bytes not known.
 *
 * prior_match (optional, in place of prior) compares itself: the bytes at
 * `at` (avail of them) against the i-th finding or facts entry of the previous
 * report, and on a match returns its token, the length matched and, for a
 * finding, where in it the "node" entry sits (*ret_node_len 0: not said). */
struct wirescan_known {
	const void *(*lookup)(void *ctx, const uint8_t *buf, size_t len, bool is_fact,
			      enum status *ret_status);
	void (*node)(void *ctx, const uint8_t *name, size_t len);
	const void *(*prior)(void *ctx, bool is_fact, size_t i, const uint8_t **ret_buf,
			     size_t *ret_len, enum status *ret_status);
	const void *(*prior_match)(void *ctx, bool is_fact, size_t i, const uint8_t *at,
				   size_t avail, size_t *ret_len, uint32_t *ret_node_off,
				   uint32_t *ret_node_len, enum status *ret_status);
	void *ctx;
};

struct wirescan_report {
	/* String payloads (not NUL-terminated); has_* false when absent. */
	struct wirescan_span node, hostname, agent_version, boot_id;
	bool has_hostname, has_agent_version, has_boot_id;
	int64_t sent_ns;
	uint64_t seq;
	uint32_t interval_s, schema_minor;
	/* Grown as needed and reused across calls: keep one per thread. */
	struct wirescan_finding *results;
	size_t n_results, cap_results;
	struct wirescan_fact *facts;
	size_t n_facts, cap_facts;
	/* the scan's own scratch (map keys for the unique-key checks) */
	struct wirescan_span *keys;
	size_t cap_keys;
};

/* Scan buf. Returns 0 and fills *r, or -EINVAL when wire_decode_node_report()
 * rejects buf (the same walk). known may be NULL. */
int wirescan_report(const uint8_t *buf, size_t len, const struct wirescan_known *known,
		    struct wirescan_report *r);
void wirescan_report_clear(struct wirescan_report *r);

/* Decode one finding's bytes (a span from wirescan_report()) into *ret, as in
 * wire_decode_node_report()'s report (remediation "" when absent). Returns 0
 * or -EINVAL for bytes that are not such a finding (*ret is then cleared). */
int wirescan_decode_finding(const uint8_t *buf, size_t len, struct finding *ret);
/* Decode one facts entry (key and value bytes) into *ret. Returns 0 or -EINVAL. */
int wirescan_decode_fact(const uint8_t *buf, size_t len, struct kv *ret);
