/*
 * The live node store: the latest report of every node, looked up by node
 * name in O(1) (a server ingests thousands of reports a second). Reports are
 * replaced whole; the previous one is freed. A report older than the one held
 * is ignored, so a retried or reordered POST never makes a node look fresher
 * or older than it is: the same report (sent_ns and seq) again is ignored;
 * otherwise older means by generated_mono_ns when both entries have it (no
 * wall clock involved), else by sent_ns, then seq.
 */
#pragma once
#include "engine.h"

struct store {
	struct node_entry *entries; /* dense array: what the engine takes */
	size_t n, cap;
	uint32_t *slots; /* open addressing: index+1 into entries, 0 = empty */
	size_t nslots;
	uint64_t accepted, stale; /* counters */
};

void store_init(struct store *s);
void store_clear(struct store *s);
/* Take ownership of r. Returns 1 if stored, 0 if it was older than the one
 * held (r is freed), never fails. */
int store_put(struct store *s, struct node_report *r, int64_t received_ns, int64_t rtt_ns);
/* The same for a whole entry (e.report is taken). */
int store_put_entry(struct store *s, struct node_entry e);
const struct node_entry *store_get(const struct store *s, const char *node);
