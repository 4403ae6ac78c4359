/*
 * A check (the agent's on a host, the aggregator's on the cluster) often decides on several aspects at once (a helper is present,
 * a file is filled in, a daemon runs). A judge collects one note per aspect
 * with the status that aspect alone deserves; the finding gets the worst
 * status, and its message is the notes at that status, so the operator reads
 * first what decided the verdict.
 */
#pragma once
#include "report.h"

struct judge {
	enum status status;   /* worst so far (PASS when nothing was noted) */
	struct strv reasons;  /* notes at the worst status, in the order given */
	struct strv remedies; /* every remedy given, without duplicates: one a step */
};

void judge_note(struct judge *j, enum status st, const char *fmt, ...) _printf_(3, 4);
void judge_remedy(struct judge *j, const char *fmt, ...) _printf_(2, 3);
/* Set f's status, message (the reasons joined by "; ", or empty_msg when there are
 * none) and remediation (the remedies as steps, joined by REMEDY_STEP_SEP: give
 * each step its own judge_remedy). */
void judge_apply(const struct judge *j, struct finding *f, const char *empty_msg);
void judge_clear(struct judge *j);
