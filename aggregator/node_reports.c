#include "node_reports.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "node_report_json.h"
#include "wire.h"

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The agent writes msgpack (`--format msgpack`) or JSON (`--format json`):
 * both go through the one decoder. */
static int decode_file(const char *buf, size_t len, struct node_report *nr, char *err,
		       size_t errlen)
{
	if (!node_report_is_json(buf, len))
		return wire_decode_node_report((const uint8_t *)buf, len, nr, err, errlen);
	char *mp;
	size_t mplen;
	int r = node_report_json_to_msgpack(buf, len, &mp, &mplen, err, errlen);
	if (r < 0)
		return r;
	r = wire_decode_node_report((const uint8_t *)mp, mplen, nr, err, errlen);
	free(mp);
	return r;
}

int node_reports_load_dir(const char *dir, struct node_entries *ret, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "--node-reports %s: %s", dir, strerror(errno));
		return -errno;
	}
	struct strv names = {0};
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && !strstr(de->d_name, ".tmp."))
			strv_add(&names, de->d_name);
	closedir(d);
	qsort(names.items, names.n, sizeof(char *), cmp_name);
	int r = 0;
	for (size_t i = 0; i < names.n && r == 0; i++) {
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, names.items[i]);
		struct stat st;
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		char *buf;
		size_t len;
		r = util_read_file(path, WIRE_MAX_MESSAGE, &buf, &len);
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", path,
				 r == -EFBIG ? "larger than a node report may be"
					     : util_read_strerror(r));
			break;
		}
		struct node_report *nr = xcalloc(1, sizeof(*nr));
		char derr[WIRE_ERR_LEN];
		r = decode_file(buf, len, nr, derr, sizeof(derr));
		free(buf);
		if (r < 0) {
			snprintf(err, errlen, "%s: not a node report: %s", path, derr);
			free(nr);
			r = -EINVAL;
			break;
		}
		struct node_entry *slot = NULL;
		for (size_t k = 0; k < ret->n; k++)
			if (streq(ret->items[k].report->node, nr->node))
				slot = &ret->items[k];
		if (slot && slot->report->sent_ns >= nr->sent_ns) {
			node_report_clear(nr);
			free(nr);
			continue;
		}
		if (slot) {
			node_report_clear(slot->report);
			free(slot->report);
		} else {
			util_grow((void **)&ret->items, &ret->cap, ret->n + 1, sizeof(*ret->items));
			slot = &ret->items[ret->n++];
		}
		*slot = (struct node_entry){
		    .report = nr,
		    .received_ns = (int64_t)st.st_mtim.tv_sec * NSEC_PER_SEC + st.st_mtim.tv_nsec,
		    .from_file = true,
		};
	}
	strv_clear(&names);
	return r;
}

void node_entries_clear(struct node_entries *e)
{
	for (size_t i = 0; i < e->n; i++) {
		node_report_clear(e->items[i].report);
		free(e->items[i].report);
	}
	free(e->items);
	*e = (struct node_entries){0};
}
