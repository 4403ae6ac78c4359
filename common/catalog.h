/*
 * The check catalog of SPEC §4: every check ID, where it runs and which gates
 * it feeds. IDs are fixed by the spec. The agent and the aggregator each keep
 * their own table of functions; the gates come from here, so both sides and
 * every renderer agree on them.
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
	CHECK_HOST,    /* agent, per node (SPEC §4.1) */
	CHECK_CLUSTER, /* aggregator, across agent facts (SPEC §4.2) */
	CHECK_API,     /* aggregator, Kubernetes API (SPEC §4.3) */
};

struct check_info {
	const char *id;
	enum check_source source;
	unsigned gates;
	const char *title; /* short, for tables */
};

extern const struct check_info catalog[];
extern const size_t catalog_len;

const struct check_info *catalog_find(const char *id);
const char *gate_name(enum gate g);
/* Returns the gate, or -EINVAL. */
int gate_from_name(const char *name);
