/*
 * Waivers (docs/change-board.md): a change board accepts a known WARN or
 * FAIL finding for a while, and the report says so. A waivers file is a YAML
 * sequence:
 *
 *   - check: host.nfs.kernel          # a catalog ID (docs/checks.md)
 *     node: worker-3                  # optional: only this node's findings
 *     object: Volume/longhorn-system/pvc-1   # optional: only this object's
 *     reason: replaced in the next maintenance window   # required
 *     approvedBy: change board CHG-1234                  # required
 *     expires: 2026-12-31             # optional, RFC 3339 date or date-time
 *
 * A waived finding keeps its status in the findings but does not count
 * toward its gates. UNKNOWN is never waived: missing evidence is not a risk
 * anyone has assessed. An expired waiver (a date: after that day, UTC)
 * applies to nothing and is reported as expired.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"

#define WAIVERS_FILE_MAX (1u << 20)
#define WAIVERS_MAX	 10000
#define WAIVER_TEXT_MAX	 512 /* reason, approvedBy, node, object */

struct waiver {
	char *check, *node, *object; /* node/object NULL: any */
	char *reason, *approved_by;
	char *expires;	    /* as written; NULL: no expiry */
	int64_t expires_ns; /* the first instant it no longer applies; INT64_MAX: none */
	/* Set by waivers_apply(). */
	bool expired;
	size_t applied;		/* WARN/FAIL findings it waives */
	size_t unknown_matched; /* UNKNOWN findings it matches (never waived) */
};

struct waiver_list {
	char *file; /* the path given, for the report */
	struct waiver *items;
	size_t n;
};

/* Parse a waivers file's content; name is for messages. Returns 0, or
 * -EINVAL with a one-line reason in err ("FILE: waiver 2: reason is
 * required"). Unknown check IDs and keys get a did-you-mean. */
int waivers_parse(const uint8_t *buf, size_t len, const char *name, struct waiver_list *ret,
		  char *err, size_t errlen);
/* Read and parse path (at most WAIVERS_FILE_MAX bytes). */
int waivers_load(const char *path, struct waiver_list *ret, char *err, size_t errlen);
void waivers_clear(struct waiver_list *wl);

/* Match the waivers against l at now_ns: ret_of[i] is the index of the
 * waiver that waives finding i (the first in the file that matches), or -1.
 * Resets and sets each waiver's expired, applied and unknown_matched. */
void waivers_apply(struct waiver_list *wl, const struct finding_list *l, int64_t now_ns,
		   ssize_t *ret_of);
/* "waived (REASON, by WHO, until EXPIRES)", or "…, no expiry)". Malloc'd. */
char *waiver_note(const struct waiver *w);
/* "used", "unused" or "expired" (after waivers_apply()). */
const char *waiver_state(const struct waiver *w);
