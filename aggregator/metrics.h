/* GET /metrics: the verdict in the Prometheus text exposition format (0.0.4). */
#pragma once
#include <stdio.h>
#include "cluster_state.h"
#include "store.h"
#include "verdict.h"

enum reject_reason {
	REJECT_UNAUTHORIZED,
	REJECT_FORBIDDEN,
	REJECT_BAD_REPORT,
	REJECT_MEDIA_TYPE,
	REJECT_TOO_LARGE,
	REJECT_OTHER,
	_REJECT_MAX,
};

struct metrics_counters {
	uint64_t reports_received;
	uint64_t rejected[_REJECT_MAX];
	/* serve --canary-interval (server_canary.c) */
	bool canary_scheduled, canary_running;
	uint64_t canary_runs, canary_skipped;
	/* serve: verdicts evaluated; human renderings of one (text, Markdown,
	 * HTML, the dashboard) made, not sent again from the one kept */
	bool serving;
	uint64_t evaluations, renderings;
	/* the last evaluation: from its snapshot to its verdict served (wall),
	 * the evaluator's CPU time for it, the node reports it took */
	int64_t eval_wall_ns, eval_cpu_ns;
	size_t eval_nodes;
};

const char *metrics_reject_name(enum reject_reason r);
/* Write every metric to f. v may be NULL (no verdict yet). */
void metrics_render(FILE *f, const struct verdict *v, const struct store *s,
		    const struct cluster_state *cs, const struct metrics_counters *c,
		    int64_t now_ns);
/* Series written at most per family with a label per node, VM or check (at
 * 10,000 nodes hvready_check_status alone could be a million); the rest are
 * counted in hvready_metrics_series_dropped{family}. */
#define METRICS_SERIES_MAX 100000
/* Tests: another bound. */
void metrics_set_series_max(size_t n);
/* Bytes of a label value at most (before escaping): longer ones are cut and
 * end in "~" and 16 hex digits of the whole value's hash. */
#define METRICS_LABEL_MAX 256
/* Write s as a label value: backslash, double quote and newline escaped;
 * at most METRICS_LABEL_MAX bytes of it. */
void metrics_label(FILE *f, const char *s);
