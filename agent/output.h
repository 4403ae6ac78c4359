/* Writing a node report in one of the agent's formats, to stdout or a file. */
#pragma once
#include "report.h"

/* format: "text", "json" or "msgpack". path NULL or "-": stdout. A file is
 * written to a temporary name and renamed, so a reader never sees half a
 * report. Returns 0, or -errno with a one-line reason in err. */
int output_node_report(const struct node_report *r, const char *format, const char *path, char *err,
		       size_t errlen);
