/*
 * The aggregator's decision engine: API checks and cross-node checks
 * (docs/checks.md) are rows in a table (api_checks.c, generated from
 * common/checks.def): ID, function, and the resources the check needs. The
 * engine, not the check, turns a needed
 * resource that was not collected (no file, forbidden, failed) into UNKNOWN
 * "not collected", so no check can PASS or FAIL on missing data. A resource
 * that is "not installed" (CRD absent) reaches the check, which decides
 * (typically SKIP before Harvester is installed).
 */
#pragma once
#include "cluster_state.h"
#include "gates.h"
#include "report.h"

/* One running VM's live-migration verdict (docs/design.md#statuses-and-gates). */
struct vm_row {
	char *namespace, *name, *node;
	bool can_migrate;
	/* PASS: it can; FAIL: it cannot; UNKNOWN: the evidence does not tell;
	 * WARN: it may, with a warning. can_migrate is true only for PASS. */
	enum status status;
	struct strv reasons; /* every reason why not; empty when it can */
};

struct vm_table {
	struct vm_row *items;
	size_t n, cap;
};

struct vm_row *vm_table_add(struct vm_table *t, const char *ns, const char *name, const char *node);
void vm_table_clear(struct vm_table *t);
/* A row's status: its own, or FAIL for a row marked only can_migrate = false. */
enum status vm_row_status(const struct vm_row *r);

/* A node report as the aggregator holds it. */
struct node_entry {
	struct node_report *report;
	int64_t received_ns; /* realtime when received / file mtime offline */
	int64_t rtt_ns;	     /* round trip estimate, 0 if unknown */
	bool from_file;	     /* offline --node-reports */
	/* live: when the agent generated the report, on this aggregator's
	 * CLOCK_MONOTONIC (receive time minus the age the agent measured on its
	 * own monotonic clock); 0 = unknown (offline: the report's sent_ns) */
	int64_t generated_mono_ns;
};

struct agg_ctx {
	const struct cluster_state *cs;
	const struct node_entry *nodes;
	size_t n_nodes;
	int64_t now_ns;		  /* realtime "now" of this evaluation */
	int64_t now_mono_ns;	  /* CLOCK_MONOTONIC "now", 0 offline */
	int interval_s;		  /* expected agent interval (staleness) */
	bool live;		  /* live API mode (api.harvester.endpoint runs) */
	bool harvester_installed; /* docs/design.md#statuses-and-gates */
	struct kube_client *kc;	  /* live only, else NULL */
	struct finding_list *out;
	struct vm_table *vms;
	/* serve: copy the host findings shallowly, borrowing every string from
	 * the node reports, which then must outlive the findings (the server
	 * holds its reports by reference for as long as a verdict lives). They
	 * are the first host_borrowed findings of out; host_refs[i] names the
	 * report (index into nodes) and result each came from. */
	bool borrow_host_results;
	size_t host_borrowed;
	struct host_ref *host_refs; /* malloc'd by engine_run */
};

struct host_ref {
	uint32_t node, result;
};

typedef void (*api_check_fn)(struct agg_ctx *ctx, const char *id);

#define CHECK_MAX_NEEDS 12
struct api_check {
	const char *id;
	api_check_fn run;
	enum resource_id needs[CHECK_MAX_NEEDS]; /* terminated by RES_NONE or by the end */
};

extern const struct api_check api_checks[];
extern const size_t api_checks_len;

/* Add a finding for id. */
struct finding *agg_finding(struct agg_ctx *ctx, const char *id);
/* Add a finding about one object: object = "Kind/namespace/name" (or "Kind/name"). */
struct finding *agg_object_finding(struct agg_ctx *ctx, const char *id, const struct jv *obj);
/* The check does not apply to this cluster (Longhorn, KubeVirt or Harvester is
 * not installed, nothing of its kind exists): its one finding is SKIP, the
 * message saying why, judged through judge.h like every other. */
void agg_not_applicable(struct agg_ctx *ctx, const char *id, const char *fmt, ...) _printf_(3, 4);
/* The opening of a check that needs res: true, with the SKIP finding why,
 * when res is not installed (not served). */
bool agg_not_installed(struct agg_ctx *ctx, const char *id, enum resource_id res, const char *why);
/* The objects of res, or NULL with the SKIP finding why: absent when res was
 * not read (not installed), none (unless NULL) when there are none. */
const struct jv *agg_items_or_skip(struct agg_ctx *ctx, const char *id, enum resource_id res,
				   const char *absent, const char *none);

/* docs/design.md#statuses-and-gates: the harvester Deployment in
 * harvester-system, or harvesterhci.io served. */
bool engine_harvester_installed(const struct cluster_state *cs);

struct engine_opts {
	struct strv skip, only;
};

/* How old a node's report is (never negative). Live reports are timed on the
 * aggregator's monotonic clock, which no wall-clock step (of the node or of the
 * aggregator) moves; offline ones by their own sent_ns. */
int64_t engine_report_age_ns(const struct node_entry *e, int64_t now_ns, int64_t now_mono_ns);

/* Run every check (host results of the node reports copied in, with node set),
 * then compute the gates. */
void engine_run(struct agg_ctx *ctx, const struct engine_opts *opts);
