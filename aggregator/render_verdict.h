/*
 * What the verdict's human renderings (text, Markdown, HTML) share: which
 * findings block which gates, and how a finding's subject reads. The
 * renderings themselves are declared in verdict.h and render_html.h.
 */
#pragma once
#include "verdict.h"

/* For each finding, the gates it decides as a bit mask (1u << enum gate);
 * 0 for a finding that blocks nothing. Malloc'd, v->findings.n entries
 * (at least one). */
unsigned *render_verdict_blocks(const struct verdict *v);
/* "node Kind/ns/name", "node", "Kind/ns/name" or "" for a cluster-wide finding. Malloc'd. */
char *render_verdict_subject(const struct finding *fd);
/* "platform, live-migration" for a mask of gates. Malloc'd. */
char *render_verdict_gate_list(unsigned mask);
/* Indices of the findings sorted by node (cluster-wide ones, without a node,
 * first), then check, then index: the findings of one check on one node are
 * neighbours. Malloc'd, v->findings.n entries (at least one). */
size_t *render_verdict_by_node(const struct verdict *v);
/* Findings per status. */
void render_verdict_counts(const struct verdict *v, size_t ret[_STATUS_MAX]);
/* The findings that decide a gate are its "blockers" when it FAILs or is
 * UNKNOWN, and only "findings" to review when it WARNs. "blocker"/"blockers"
 * or "finding"/"findings" for n of gate g. */
const char *render_verdict_blocker_word(const struct verdict *v, int g, size_t n);
/* With --gate: only that gate's share of blocks (render_verdict_blocks), in
 * place; gate < 0 leaves it. */
void render_verdict_blocks_for_gate(const struct verdict *v, unsigned *blocks, int gate);
/* Whether the finding's check feeds the gate (always true for gate < 0). */
bool render_verdict_in_gate(const struct finding *fd, int gate);
/* The decision line of a gate: "live-migration: NO-GO (3 blockers)", "GO",
 * "GO, 2 findings to review", "NO EVIDENCE (1 undecided)". Malloc'd. */
char *render_verdict_go_line(const struct verdict *v, int gate);
/* Running VMs that cannot live-migrate now (status FAIL; an undecided VM is
 * not counted here). */
size_t render_verdict_vms_blocked(const struct verdict *v);
/* Running VMs per status: PASS can, FAIL cannot, UNKNOWN undecided, WARN may. */
void render_verdict_vm_counts(const struct verdict *v, size_t ret[_STATUS_MAX]);
/* "3 running VMs: 1 cannot live-migrate now, 1 undecided" — for every format. Malloc'd. */
char *render_verdict_vm_summary(const struct verdict *v);
/* The answer of the VM table's column: "yes", "no", "unknown" or "warn". */
const char *render_verdict_vm_answer(const struct vm_row *r);
/* The order VMs are listed in: cannot, undecided, with a warning, can (0-3). */
int render_verdict_vm_rank(const struct vm_row *r);
/* What a gate's canary steps (verdict.canary) say, for the gate lines: "proved
 * by canary run RUN, 2h05m ago", "... is stale ...", "... 1 of 2 steps proved";
 * NULL without a canary result or steps of the gate. Malloc'd. */
char *render_verdict_canary_proof(const struct verdict *v, int g);
/* "Canary: run RUN (PASS) ended TIME, 2h05m ago, from FILE; ...": the canary
 * result of the verdict, or why it could not be read, and serve's schedule;
 * only when there is one of them (verdict.canary present, error or
 * interval_ns). Malloc'd. */
char *render_verdict_canary_line(const struct verdict *v);
/* Nodes with a report. */
size_t render_verdict_nodes_reporting(const struct verdict *v);
/* The key under which findings group (finding_groups.h): the gates a finding
 * blocks and the waiver that waives it, so a card never mixes either. */
unsigned *render_verdict_group_keys(const struct verdict *v, const unsigned *blocks);
struct finding_groups;
/* The blockers (blocks[i] != 0) grouped by that key: the cards every format
 * shows them in. */
void render_verdict_blocker_groups(const struct verdict *v, const unsigned *blocks,
				   struct finding_groups *ret);
struct finding_group;
/* The groups in the order every format lists blockers and problems: FAIL,
 * then UNKNOWN, then WARN, each in the groups' order, of the statuses mask
 * shows. Their count; *ret (caller frees) points into groups. */
size_t render_verdict_groups_worst_first(const struct finding_groups *groups, unsigned mask,
					 const struct finding_group ***ret);
/* The JSON's "groups": every finding in the group the reports show it in
 * (render_verdict_group_keys: same check, status, object, message, fix,
 * blocked gates and waiver), one object each with its nodes and members
 * (docs/outputs.md, "Groups"), written by a JSON writer (json_write.h) as the
 * report prints it; the tests' json-c oracle for it is verdict_groups_json
 * (tests/unit/verdict_oracle.c). */
struct jw;
void verdict_groups_write(struct jw *w, const struct verdict *v);
/* Every status: the finding lists unfiltered. */
#define RENDER_STATUS_ALL ((1u << _STATUS_MAX) - 1)
/* A view's status filter (serve's ?status=, report --status): a comma list
 * of pass, warn, fail, unknown, skip as a mask of 1u << enum status; 0 for
 * an empty list or an unknown name. */
unsigned render_status_mask_parse(const char *list);
/* "FAIL, WARN" for a mask, worst first. Malloc'd. */
char *render_status_mask_names(unsigned mask);
/* Whether a filter shows findings of status st (0 or RENDER_STATUS_ALL: all). */
bool render_status_shown(unsigned mask, enum status st);
/* "showing FAIL, WARN of 12 findings" for a narrowing mask, NULL for all. Malloc'd. */
char *render_status_showing(const struct verdict *v, unsigned mask);
