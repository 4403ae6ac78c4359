/*
 * A verdict: every finding, the four gates, the per-VM live-migration table
 * and the node list, computed once from a cluster state and node reports, then
 * rendered as JSON ("hvready.report/v1", docs/outputs.md), text or Markdown.
 */
#pragma once
#include <stdio.h>
#include <json-c/json.h>
#include "canary_result.h"
#include "cluster_versions.h"
#include "engine.h"
#include "report_header.h"
#include "waivers.h"

#define REPORT_SCHEMA "hvready.report/v1"

struct verdict_node {
	char *name;
	bool in_cluster; /* a Kubernetes Node object exists */
	bool k8s_ready;
	bool reporting;	       /* has a report (fresh when live) */
	int64_t report_age_ns; /* -1: no report */
	/* Borrowed from the node store: valid only until the store changes (the
	 * next report), so renderings use the copies below, never this. */
	const struct node_report *report;
	char *hostname, *agent_version; /* copies, NULL without a report */
};

struct verdict {
	int64_t generated_ns;
	char *source;
	int64_t state_read_ns; /* when the cluster state was read (realtime) */
	/* serve: why the last re-read of the cluster state failed, while the
	 * previous state is still in use (NULL when it succeeded) */
	char *state_error;
	bool live;
	bool harvester_installed;
	struct cluster_versions versions; /* read from the cluster state */
	struct report_header header;	  /* the change-board header */
	/* --waivers (docs/change-board.md): owned; waiver_of[i] is the waiver
	 * that waives finding i, or -1; NULL without waivers. */
	struct waiver_list waivers;
	bool have_waivers;
	ssize_t *waiver_of;
	/* --canary-result / serve --canary-interval: the canary's result
	 * whose findings are among findings (present false without one) */
	struct verdict_canary canary;
	struct finding_list findings;
	struct gate_result gates[_GATE_MAX];
	struct vm_table vms;
	struct verdict_node *nodes;
	size_t n_nodes;
	/* findings[0 .. n_borrowed) borrow their strings from the node reports
	 * (agg_ctx.borrow_host_results); host_refs says from which. */
	size_t n_borrowed;
	struct host_ref *host_refs;
};

/* Evaluate: run the engine over cs and nodes. */
void verdict_evaluate(struct verdict *v, struct agg_ctx *ctx, const struct engine_opts *opts);
void verdict_clear(struct verdict *v);
/* The operator and target version of the header (report --operator,
 * --target-version), already checked; NULL: not given. */
void verdict_set_board(struct verdict *v, const char *operator_name, const char *target_version);
/* Add a canary's result (canary_result.h) at the verdict's time: its
 * findings, aged (older than max_age_ns: no proof), and the gates again.
 * Before verdict_apply_waivers(). opts: --skip/--only, may be NULL. */
void verdict_apply_canary(struct verdict *v, const struct canary_result *r, int64_t max_age_ns,
			  const struct engine_opts *opts);
/* serve: the result could not be read (why); the gates stay as they are. */
void verdict_canary_error(struct verdict *v, const char *source, const char *why);
/* Apply waivers (taken over: *wl is emptied) at the verdict's time, and
 * compute the gates again without the waived findings. */
void verdict_apply_waivers(struct verdict *v, struct waiver_list *wl);
/* The waiver that waives finding i, or NULL. */
const struct waiver *verdict_waiver(const struct verdict *v, size_t i);
/* Findings waived. */
size_t verdict_waived_count(const struct verdict *v);

/* The status of a gate name ("all" = the worst of the four). */
enum status verdict_status(const struct verdict *v, int gate /* -1: all */);

/* Parts of the verdict's JSON, written by a JSON writer (json_write.h), as
 * verdict_stream.c prints the report: the fields before "gates", one node,
 * one VM, a finding's "waiver". The tests' oracle builds the same with json-c
 * (tests/unit/verdict_oracle.c, compared in tests/unit/test_verdict_stream.c).
 * The head's members go into an object the caller opened; the waiver is
 * finding i's "waiver" member, or nothing when it is not waived. */
struct jw;
void verdict_head_members_write(struct jw *w, const struct verdict *v);
void verdict_node_write(struct jw *w, const struct verdict_node *n);
void verdict_vm_write(struct jw *w, const struct vm_row *r);
void verdict_waiver_write(struct jw *w, const struct verdict *v, size_t i);
/* gate: -1 for all; limits nothing but the headline. */
void verdict_render_text(FILE *f, const struct verdict *v, int gate, bool color);
/* statuses: the finding lists show only those (render_status_mask_parse;
 * 0 all); the gates and counts stay whole. */
void verdict_render_text_view(FILE *f, const struct verdict *v, int gate, unsigned statuses,
			      bool color);
void verdict_render_markdown(FILE *f, const struct verdict *v, int gate);
void verdict_render_markdown_view(FILE *f, const struct verdict *v, int gate, unsigned statuses);
