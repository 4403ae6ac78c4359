/* `list-checks` of both programs: the registry (common/checks.def) printed,
 * as tab-separated rows or as the tables of docs/checks.md. */
#pragma once
#include <stdio.h>

#include "catalog.h"

/* The gates as docs/checks.md writes them: "all", or "pre, plat, rwx, lm"
 * (the ones fed, in gate order). */
void catalog_gates_short(unsigned gates, char *buf, size_t len);

/* One row: ID PROGRAM GATES NET STEM RUNNER NEEDS TITLE, tab-separated.
 * GATES are --gate names joined by ","; NET is "network" or "local"; an empty
 * STEM or NEEDS is "-". needs is the caller's (the aggregator knows them). */
void catalog_print_row(FILE *f, const struct check_info *ci, const char *needs);

/* The three tables (host, cross-node, API) of docs/checks.md with their
 * headings, exactly as the file has them. */
void catalog_print_markdown(FILE *f);
