/* Gate verdicts from findings (docs/design.md#statuses-and-gates). */
#pragma once
#include "catalog.h"

struct gate_result {
	enum status status;
	/* Indices into the finding list of the findings that decide the gate:
	 * those whose status equals the gate's (empty for PASS). */
	size_t *blockers;
	size_t n_blockers;
};

/* A gate is FAIL if any of its checks FAILs, else UNKNOWN if any is UNKNOWN,
 * else WARN if any WARNs, else PASS. SKIP counts for nothing. A gate without
 * any finding at all is UNKNOWN: no evidence is never a PASS. */
void gates_compute(const struct finding_list *l, struct gate_result ret[_GATE_MAX]);
/* The same, with the findings where waived[i] is true (a WARN or FAIL a
 * change board accepted, docs/change-board.md) counted as evidence but
 * neither worsening a gate nor among its blockers. waived may be NULL. */
void gates_compute_waived(const struct finding_list *l, const bool *waived,
			  struct gate_result ret[_GATE_MAX]);
void gates_clear(struct gate_result r[_GATE_MAX]);
/* Exit code (docs/design.md#interfaces) for a status: 0 PASS/WARN/SKIP, 1 FAIL, 3 UNKNOWN. */
int gates_exit_code(enum status s);
