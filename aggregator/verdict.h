/*
 * A verdict: every finding, the four gates, the per-VM live-migration table
 * and the node list, computed once from a cluster state and node reports, then
 * rendered as JSON ("hvready.report/v1", docs/outputs.md), text or Markdown.
 */
#pragma once
#include <stdio.h>
#include <json-c/json.h>
#include "cluster_versions.h"
#include "engine.h"

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

/* The status of a gate name ("all" = the worst of the four). */
enum status verdict_status(const struct verdict *v, int gate /* -1: all */);

/* Parts of the verdict's JSON (verdict_stream.c streams the whole; the tests'
 * oracle, tests/unit/verdict_oracle.h, builds it as one tree): the fields
 * before "gates", one node, one VM. */
json_object *verdict_head_json(const struct verdict *v);
json_object *verdict_node_json(const struct verdict_node *n);
json_object *verdict_vm_json(const struct vm_row *r);
/* gate: -1 for all; limits nothing but the headline. */
void verdict_render_text(FILE *f, const struct verdict *v, int gate, bool color);
void verdict_render_markdown(FILE *f, const struct verdict *v, int gate);
