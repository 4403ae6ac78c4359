/* Node report files for offline `report --node-reports DIR` (agent
 * `check --format msgpack --output FILE`, or `--format json`). */
#pragma once
#include "engine.h"

struct node_entries {
	struct node_entry *items;
	size_t n, cap;
};

/* Decode every regular file in dir (hidden files and *.tmp.* ignored). A file
 * that does not decode is an input error: returns -EINVAL with the file and
 * the decoder's reason in err. Several reports for one node: the newest wins. */
int node_reports_load_dir(const char *dir, struct node_entries *ret, char *err, size_t errlen);
void node_entries_clear(struct node_entries *e);
