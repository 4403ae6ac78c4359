/*
 * Generated node reports for the benchmarks (docs/benchmarks.md, "Inputs"):
 * what hvready-agent would send from a Harvester node with real server CPUs,
 * the same bytes on every machine. See gen_node.c for the CPU flag sources.
 */
#pragma once
#include "report.h"

enum gen_cpus {
	GEN_CPUS_INTEL, /* Skylake-SP and Ice Lake-SP nodes */
	GEN_CPUS_AMD,	/* Zen 2 (Rome) and Zen 4 nodes */
	GEN_CPUS_MIXED, /* all four: a cluster Intel and AMD nodes share */
};

struct gen_opts {
	enum gen_cpus cpus;
	uint64_t seed;
	bool no_kvm; /* host.kvm FAIL on every node: no live-migration target */
	const char *prefix;
};

/* What the generator put into the reports, for the bench's check of the
 * verdict (bench/check_work.py). */
struct gen_tally {
	long nodes, kvm_nodes;
	long by_profile[4];
	long lacking; /* nodes generated without a guest-visible flag their profile has */
	long host_only_varied;
};

/* The CPU profiles' names, by index (by_profile). */
extern const char *const gen_profile_names[4];

/* Fill r (zeroed by the caller) with the report of node i (1-based). */
void gen_node_report(struct node_report *r, const struct gen_opts *o, long i, struct gen_tally *t);
