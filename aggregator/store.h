/*
 * The live node store: the latest report of every node, looked up by node
 * name in O(1) (a server ingests thousands of reports a second). A report
 * older than the one held is ignored, so a retried or reordered POST never
 * makes a node look fresher or older than it is: the same report (sent_ns and
 * seq) again is ignored; otherwise older means by generated_mono_ns when both
 * records have it (no wall clock involved), else by sent_ns, then seq.
 *
 * Reports are kept compact, as the bytes they arrived in: a record holds the
 * header fields and one reference per finding and per facts entry to a piece,
 * the msgpack bytes of that finding or entry, interned — every node of a
 * cluster sends mostly the same findings (check IDs, messages, evidence,
 * remediations), and identical bytes are stored once for all of them. Pieces
 * are decoded (and a finding's JSON rendered) once, when an evaluation first
 * needs them.
 *
 * Threads: the store, its tables and every reference count belong to the
 * event loop's thread. An evaluation thread may read records and pieces it
 * holds references to (taken and dropped by the loop), and it alone writes
 * what is decoded lazily: a piece's dec and json, a record's report.results
 * and report.facts (store_rec_view()).
 */
#pragma once
#include "engine.h"
#include "wirescan.h"

struct store_piece {
	struct store_piece *next; /* hash chain */
	uint64_t hash;
	uint32_t refs;
	uint32_t len;
	bool is_fact;
	uint8_t status; /* a finding's */
	/* evaluation thread: */
	bool decoded;
	union {
		struct finding finding;
		struct kv fact;
	} dec;
	char *json; /* a finding's JSON up to its "remediation" (see verdict_stream.h) */
	size_t json_len;
	uint8_t bytes[];
};

/* One report as stored. Immutable once stored, but for report.results and
 * report.facts, which are empty except while an evaluation views them. */
struct store_rec {
	uint32_t refs;
	struct node_report report; /* header strings: in this allocation, after pieces[] */
	int64_t received_ns, rtt_ns;
	/* when the agent generated the report, on this aggregator's
	 * CLOCK_MONOTONIC (see node_entry.generated_mono_ns); 0 = unknown */
	int64_t generated_mono_ns;
	uint32_t counts[_STATUS_MAX]; /* results by status */
	uint32_t n_results, n_facts;
	/* A finding naming the report's own node (every finding an agent sends)
	 * is stored without its "node" entry, so that the same finding of two
	 * nodes is one piece: node_off[i] is where that entry was in finding i's
	 * bytes (0: stored whole), node_kv its bytes (node_kv_len of them), the
	 * same for every such finding of the record. In this allocation. */
	uint32_t *node_off;
	const uint8_t *node_kv;
	uint32_t node_kv_len;
	struct store_piece *pieces[]; /* n_results findings, then n_facts facts entries */
};

struct store_entry {
	struct store_rec *rec;
	/* the POST reply for this node (probe targets JSON), for targets_gen */
	char *targets;
	size_t targets_len;
	uint64_t targets_gen;
};

struct store {
	struct store_entry *entries; /* dense, in order of first report */
	size_t n, cap;
	uint32_t *slots; /* open addressing: index+1 into entries, 0 = empty */
	size_t nslots;
	struct store_piece **pieces; /* chained hash table of every piece */
	size_t npslots, npieces, piece_bytes;
	size_t rec_bytes;	  /* of every record alive (held, or in an evaluation's hands) */
	uint64_t accepted, stale; /* counters */
	/* for wirescan_report(): bytes already stored were scanned before */
	struct wirescan_known known;
	const struct store_rec *prior; /* of the node being scanned */
};

void store_init(struct store *s);
/* Every record must have been released (store_rec_unref) but those in the store. */
void store_clear(struct store *s);

/* A record of the report in buf (scanned into w), holding one reference. */
struct store_rec *store_rec_new(struct store *s, const uint8_t *buf,
				const struct wirescan_report *w, int64_t received_ns,
				int64_t rtt_ns);
struct store_rec *store_rec_ref(struct store_rec *r);
void store_rec_unref(struct store *s, struct store_rec *r);
/* Whether a report sent at sent_ns with seq, generated at generated_mono_ns
 * (0 = unknown), would be ignored for node. */
bool store_is_stale(const struct store *s, const char *node, int64_t sent_ns, uint64_t seq,
		    int64_t generated_mono_ns);
/* Take over the reference to r. Returns 1 if stored, 0 if it was not newer
 * than the record held (r is released). */
int store_put_rec(struct store *s, struct store_rec *r);
/* The same for a decoded report (tests and tools): takes ownership of r. */
int store_put(struct store *s, struct node_report *r, int64_t received_ns, int64_t rtt_ns);
/* The same for a whole entry (e.report is taken; from_file is ignored). */
int store_put_entry(struct store *s, struct node_entry e);
const struct store_entry *store_get(const struct store *s, const char *node);
struct store_entry *store_get_mut(struct store *s, const char *node);

/* The bytes the store holds (its own accounting, loop thread): every record
 * alive, every piece (its struct and bytes) and the tables, at their
 * capacity; the POST replies kept per node. Not what evaluations decode
 * into pieces (dec, json). */
size_t store_bytes(const struct store *s);

/* Evaluation thread: fill r->report.results and r->report.facts with shallow
 * copies of the decoded pieces (decoding those not decoded yet), result i from
 * piece i; then store_rec_unview() empties them again. What the copies point
 * to lives as long as the pieces. A piece that does not decode (it was
 * scanned, so it cannot happen) is a zeroed finding or a left-out fact. */
void store_rec_view(struct store_rec *r);
void store_rec_unview(struct store_rec *r);
/* The same for n records at once, their arrays in two allocations (at
 * thousands of nodes, megabytes each: mapped by serve, see server_run, and
 * so given back to the system at once by store_views_end, not left as holes
 * in the heap between the pieces decoded meanwhile). Returns what
 * store_views_end takes; the views must not grow. */
void *store_views(struct store_rec **recs, size_t n);
void store_views_end(struct store_rec **recs, size_t n, void *views);
/* Any thread: a complete, independent copy of the report in *ret. */
void store_rec_decode(const struct store_rec *r, struct node_report *ret);
