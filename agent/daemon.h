/* `hvready-agent run`: the checks every interval, reported to the aggregator. */
#pragma once
#include "agent.h"

/* Run until SIGTERM/SIGINT; SIGHUP re-reads config_path (may be NULL).
 * Returns the process exit code. Takes ownership of nothing. */
int daemon_run(struct agent_opts *o, const char *config_path);
