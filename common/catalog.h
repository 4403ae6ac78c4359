/*
 * The check catalog: every check ID, where it runs and which gates it feeds.
 * IDs are fixed (docs/checks.md). It is generated from the registry,
 * common/checks.def, as are the agent's and the aggregator's tables of
 * functions, so both sides and every renderer agree on them.
 */
#pragma once
#include "report.h"

enum gate {
	GATE_PREINSTALL,
	GATE_PLATFORM,
	GATE_RWX,
	GATE_LIVE_MIGRATION,
	_GATE_MAX,
};

#define G_PRE  (1u << GATE_PREINSTALL)
#define G_PLAT (1u << GATE_PLATFORM)
#define G_RWX  (1u << GATE_RWX)
#define G_LM   (1u << GATE_LIVE_MIGRATION)
#define G_ALL  (G_PRE | G_PLAT | G_RWX | G_LM)

enum check_source {
	CHECK_HOST,    /* agent, per node (docs/checks.md, host.*) */
	CHECK_CLUSTER, /* aggregator, across agent facts (cluster.*) */
	CHECK_API,     /* aggregator, Kubernetes API (api.*) */
	CHECK_CANARY,  /* aggregator `canary`: an opt-in step that creates objects
			* (docs/canary.md); report never runs it, serve only with
			* --canary-interval; results enter the gates
			* via canary_result.h */
};

struct check_info {
	const char *id;
	enum check_source source;
	unsigned gates;
	const char *title;   /* short, for tables */
	const char *summary; /* what it decides (the docs/checks.md table, Markdown) */
	const char *runner;  /* the function's name */
	const char *stem;    /* node-condition reason stem, or NULL: derived from the ID */
	const char *doc;     /* its page under docs/: "checks/ID.md" */
	bool network;	     /* a host check that goes to the network (agent/helper.h) */
};

extern const struct check_info catalog[];
extern const size_t catalog_len;

const struct check_info *catalog_find(const char *id);
const char *check_source_name(enum check_source s); /* "host", "cluster", "api", "canary" */
const char *gate_name(enum gate g);
/* Returns the gate, or -EINVAL. */
int gate_from_name(const char *name);
