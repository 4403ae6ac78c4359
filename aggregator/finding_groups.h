/*
 * Findings that say the same thing about several nodes, shown once: "host.iscsi
 * FAIL on 37 nodes: a, b, c, …" with one evidence block and one fix, so a
 * report reads the same at 3 nodes and at 500 (docs/outputs.md, "Grouped
 * findings"). Only what the renderers show is grouped: the JSON findings list
 * keeps every finding.
 */
#pragma once
#include "verdict.h"

struct finding_group {
	size_t *members; /* indexes into the verdict's findings, in their order (borrowed) */
	size_t n;
	size_t first; /* members[0] */
	/* One finding standing for all members: the check, status, message and
	 * remediation they share, and their object (a host check's path); node NULL
 * when n > 1. Evidence: a
	 * value every member has, equal, once; any other key as a map of node →
	 * value ("(absent)" where a node has none), in the first member's key order
	 * then the others'. Owned when n > 1; a group of one borrows its
	 * finding (a shallow copy: the verdict must outlive the groups). */
	struct finding merged;
	char **names; /* the members' nodes (n > 1), borrowed from the findings */
};

struct finding_groups {
	struct finding_group *items; /* ordered by first member */
	size_t n;
	size_t *members; /* every group's members (theirs point into it) */
};

/*
 * Group the findings i for which want(i, arg) holds. Findings group when they
 * are about a node and have the same check, status, object (a VM or volume
 * differs from node to node: those never group; a host check's path does not),
 * message, remediation and key (key[i]: e.g. the gates a finding blocks; may be NULL).
 * Every other finding is a group of one. O(n log n) in the findings.
 */
void finding_groups_build(const struct verdict *v, const unsigned *key,
			  bool (*want)(size_t i, void *arg), void *arg, struct finding_groups *ret);
void finding_groups_clear(struct finding_groups *g);

/* "37 nodes: a, b, c, d, e and 32 more" (at most max names, 0: all). Malloc'd. */
char *finding_group_subject(const struct finding_group *g, size_t max);
