/*
 * A canary's result ("hvready.canary/v1", `canary --format json`) read back as
 * proof for the gates (docs/canary.md#results-in-the-gates): report and serve
 * read it from --canary-result FILE, serve also from its own runs
 * (--canary-interval). Its findings enter the verdict with their age: a fresh
 * PASS is proof ("proved by canary run RUN, 2h05m ago"), a FAIL blocks its gate
 * like any FAIL, and a result older than --canary-max-age proves nothing (its
 * findings are WARN, saying so). A missing result changes nothing.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "report.h"
#include "util.h"

#define CANARY_SCHEMA "hvready.canary/v1"
/* --canary-max-age's default: a week. */
#define CANARY_MAX_AGE_DEFAULT_NS (7LL * 86400 * NSEC_PER_SEC)
/* A result file is a few KiB; more is not a canary's. */
#define CANARY_RESULT_MAX_BYTES ((size_t)4 << 20)
/* Clocks of two machines disagree by a little: a result this far in the
 * future still counts (as age 0); further, it proves nothing. */
#define CANARY_FUTURE_SLACK_NS (300LL * NSEC_PER_SEC)

struct canary_result {
	unsigned refs; /* serve: the loop's references (server_canary.c) */
	char *source;  /* where it was read: the file, or "serve --canary-interval" */
	char *run;     /* the run id */
	char *ns;      /* the canary's namespace */
	char *status;  /* the run's worst status, as written */
	int64_t started_ns, finished_ns; /* realtime */
	struct finding_list findings;
};

/* Parse a result's JSON text; source names it in errors and in the verdict.
 * 0, or -EINVAL with a one-line reason in err. */
int canary_result_parse(const char *text, size_t len, const char *source, struct canary_result *ret,
			char *err, size_t errlen);
/* Read and parse a result file: a regular file (never blocks on a FIFO) of
 * at most CANARY_RESULT_MAX_BYTES. st (may be NULL) gets its stat. 0, or
 * -errno with "PATH: reason" in err. */
int canary_result_load(const char *path, struct canary_result *ret, struct stat *st, char *err,
		       size_t errlen);
void canary_result_clear(struct canary_result *r);

/* --canary-max-age: "N" seconds, or Ns, Nm, Nh, Nd; 1 s to 365 d.
 * 0 or -EINVAL. */
int canary_result_parse_age(const char *s, int64_t *ret_ns);

/* What a verdict keeps of the result it applied (verdict.h). */
struct verdict_canary {
	bool present;
	char *source, *run, *ns, *status;
	int64_t started_ns, finished_ns, age_ns, max_age_ns;
	bool stale;  /* older than max_age_ns: no proof */
	bool future; /* finished more than CANARY_FUTURE_SLACK_NS after now */
	char *error; /* serve: the file could not be read (then no result is set) */
	/* serve --canary-interval: the schedule as the evaluation saw it */
	int64_t interval_ns;
	bool running;
	uint64_t runs;
	char *run_error; /* the last run gave no result: why */
};
void verdict_canary_clear(struct verdict_canary *vc);

/* Append the result's findings to out as evidence at now_ns, and fill *vc.
 * skip/only (may be NULL) select checks as report's --skip/--only do. */
void canary_result_apply(const struct canary_result *r, int64_t now_ns, int64_t max_age_ns,
			 const struct strv *skip, const struct strv *only, struct finding_list *out,
			 struct verdict_canary *vc);
/* "2h05m" of an age (ns), into buf. */
void canary_result_age(int64_t ns, char *buf, size_t len);
