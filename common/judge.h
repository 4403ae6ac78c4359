/*
 * A check (the agent's on a host, the aggregator's on the cluster) often
 * decides on several aspects at once (a helper is present, a file is filled
 * in, a daemon runs). A judge collects one note per aspect with the status
 * that aspect alone deserves; the finding gets the worst status noted, and its
 * message is the notes at that status, so the operator reads first what
 * decided the verdict.
 *
 * The rule: the first note sets the status, and a later note replaces it only
 * when it is worse (status_severity: SKIP < PASS < WARN < UNKNOWN < FAIL). So
 * a judge whose only notes are SKIP gives SKIP, whatever it was started at;
 * the status a judge is started at ({0} is PASS) is only what judge_apply gives
 * when nothing at all was noted.
 */
#pragma once
#include <stdbool.h>

#include "report.h"

struct judge {
	enum status status; /* worst noted so far; before any note, the status of "nothing noted" */
	bool noted;	    /* a note was given (since the last judge_clear) */
	struct strv reasons;  /* notes at the worst status, in the order given */
	struct strv remedies; /* every remedy given, without duplicates: one a step */
};

void judge_note(struct judge *j, enum status st, const char *fmt, ...) _printf_(3, 4);
void judge_remedy(struct judge *j, const char *fmt, ...) _printf_(2, 3);
/* Set f's status, message (the reasons joined by "; ", or empty_msg when there are
 * none) and remediation (the remedies as steps, joined by REMEDY_STEP_SEP: give
 * each step its own judge_remedy). */
void judge_apply(const struct judge *j, struct finding *f, const char *empty_msg);
/* Forget every note and remedy; the judge starts again at PASS. */
void judge_clear(struct judge *j);
/* Where a check decides a finding and is done with the judge: judge_apply to f
 * (when f is not NULL: the finding may not have been made), then judge_clear. */
void judge_decide(struct judge *j, struct finding *f, const char *empty_msg);
