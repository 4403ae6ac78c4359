/* What every runner of checks does the same way (the one-shot agent, the
 * agent's daemon, the aggregator's engine): --skip/--only, and a check that
 * decided nothing. */
#pragma once
#include "report.h"
#include "util.h"

/* Why --skip/--only leave id out ("skipped by --skip", "not selected by
 * --only": static strings), or NULL when it runs. skip and only may be NULL. */
const char *check_left_out(const struct strv *skip, const struct strv *only, const char *id);

/* After a check ran: when it added nothing to l (which had before findings),
 * it has decided nothing; add and return an UNKNOWN "the check produced no
 * result" for id. NULL when it added something. */
struct finding *check_no_result(struct finding_list *l, size_t before, const char *id);
