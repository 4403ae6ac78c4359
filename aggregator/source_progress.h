/* What `collect` and a live `report` show on a terminal while they read the
 * API: one status line that updates in place (resources done, objects read),
 * a line of its own the moment a resource is forbidden or fails (with the RBAC
 * to grant), and a summary at the end. Off unless enabled: not on a pipe, not
 * with --quiet, never in `serve`. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cluster_state.h"

/* f: where to write (stderr), or NULL for silence; tty: whether f is a
 * terminal (the status line is redrawn in place only there). */
void source_progress_enable(FILE *f, bool tty);
bool source_progress_enabled(void);

/* A resource's list ended: name as RBAC spells it ("longhorn.io/volumes"),
 * its status, objects read, the reason when not collected; done/total
 * resources so far. */
void source_progress_resource(const char *name, enum resource_status st, size_t objects,
			      const char *why, int done, int total);
/* The read ended: the server, the counts per status, and how long it took. */
void source_progress_summary(const char *server, const size_t counts[], size_t objects,
			     int64_t elapsed_ns);
