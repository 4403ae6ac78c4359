/*
 * The change-board header of a report (docs/change-board.md): what an
 * operator brings to a change board besides the verdict. Which API server
 * (redacted: no credentials, no query tokens; offline, the files' path),
 * which cluster (Namespace kube-system's UID, or unknown and why), hvready's
 * version, when, who ran it (--operator) and for which target version
 * (--target-version). Every rendering shows it; JSON as "header".
 */
#pragma once
#include <stdint.h>
#include <json-c/json.h>

#include "cluster_state.h"

#define REPORT_OPERATOR_MAX 128
#define REPORT_VERSION_MAX  64

struct report_header {
	char *api_server;      /* redacted; "" when unknown */
	char *cluster_uid;     /* NULL: unknown */
	char *cluster_uid_why; /* set when cluster_uid is NULL */
	char *operator_name;   /* NULL: not given */
	char *target_version;  /* NULL: not given */
	int64_t generated_ns;
};

void report_header_from_state(struct report_header *h, const struct cluster_state *cs,
			      int64_t generated_ns);
void report_header_clear(struct report_header *h);

/* --operator NAME: free text made one line (tabs and newlines become spaces,
 * runs of them one, other control bytes and invalid UTF-8 dropped, trimmed,
 * cut to REPORT_OPERATOR_MAX bytes at a character boundary). NULL when
 * nothing is left. Malloc'd. */
char *report_header_operator(const char *s);
/* --target-version: [v]MAJOR.MINOR[.PATCH][-PRE][+BUILD], the pre-release
 * and build parts of [0-9A-Za-z.-], at most REPORT_VERSION_MAX bytes. */
bool report_header_valid_version(const char *s);

/* The "header" object of the JSON report, written by a JSON writer
 * (json_write.h); the tests' json-c oracle for it is report_header_json
 * (tests/unit/verdict_oracle.c). */
struct jw;
void report_header_write(struct jw *w, const struct report_header *h);
/* Lines of the human renderings: label and value (the cluster line says
 * "unknown: WHY"). n is set to the number of rows; the values are malloc'd
 * (report_header_rows_clear). */
struct report_header_row {
	const char *key;   /* JSON key: "api_server", … */
	const char *label; /* "API server", … */
	char *value;
};
#define REPORT_HEADER_ROWS 6
void report_header_rows(const struct report_header *h,
			struct report_header_row ret[REPORT_HEADER_ROWS]);
void report_header_rows_clear(struct report_header_row rows[REPORT_HEADER_ROWS]);
