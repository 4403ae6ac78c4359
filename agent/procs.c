#include "procs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The state letter follows the last ')' of proc/PID/stat (comm may contain ')'). */
static bool is_zombie(const struct hostroot *hr, int pid)
{
	_cleanup_free_ char *path = xasprintf("proc/%d/stat", pid);
	_cleanup_free_ char *buf = NULL;
	if (hostroot_read(hr, path, 65536, &buf, NULL) < 0)
		return false;
	const char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return false;
	return p[2] == 'Z' || p[2] == 'X';
}

/* Keep the lowest PIDs (readdir order is arbitrary; the lowest is usually the main one). */
static void insert_sorted(struct procs_found *ret, int pid)
{
	size_t i = ret->n;
	while (i > 0 && ret->pids[i - 1] > pid)
		i--;
	if (i >= PROCS_MAX_PIDS)
		return;
	size_t last = ret->n < PROCS_MAX_PIDS ? ret->n : PROCS_MAX_PIDS - 1;
	memmove(&ret->pids[i + 1], &ret->pids[i], (last - i) * sizeof(int));
	ret->pids[i] = pid;
	if (ret->n < PROCS_MAX_PIDS)
		ret->n++;
}

void procs_scan_fill(struct procs_scan *scan, const struct hostroot *hr)
{
	if (scan->done)
		return;
	scan->done = true;
	DIR *d = hostroot_opendir(hr, "proc");
	if (!d) {
		scan->err = -errno;
		return;
	}
	scan->listed = true;
	/* Without PID 1 procs_find answers -ESRCH; the processes that are
	 * visible are still listed (timesync.c counts them). */
	if (!hostroot_exists(hr, "proc/1"))
		scan->err = -ESRCH;
	/* The host's own procfs (not a copied tree): each comm read the cheap way,
	 * beneath the directory listed (hostroot_read_procfs_line), 3 system calls
	 * instead of 5. */
	bool procfs = hostroot_is_procfs(dirfd(d));
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!all_digits(de->d_name))
			continue;
		char path[sizeof(de->d_name) + 16];
		size_t dl = strlen(de->d_name);
		memcpy(path, "proc/", 5);
		memcpy(path + 5, de->d_name, dl);
		memcpy(path + 5 + dl, "/comm", sizeof("/comm"));
		_cleanup_free_ char *c = NULL;
		/* A process may exit between readdir and this read: then it simply
		 * does not match. */
		if ((!procfs || hostroot_read_procfs_line(hr, dirfd(d), path, 5, &c) != 1) &&
		    hostroot_read_line(hr, path, &c) < 0)
			continue;
		if (scan->n == scan->cap) {
			scan->cap = scan->cap ? 2 * scan->cap : 256;
			scan->p = xrealloc(scan->p, scan->cap * sizeof(*scan->p));
		}
		struct procs_entry *e = &scan->p[scan->n++];
		e->pid = atoi(de->d_name);
		e->long_comm = strlen(c) >= sizeof(e->comm);
		snprintf(e->comm, sizeof(e->comm), "%s", e->long_comm ? "" : c);
	}
	closedir(d);
}

int procs_scan_find(struct procs_scan *scan, const struct hostroot *hr, const char *comm,
		    struct procs_found *ret)
{
	*ret = (struct procs_found){0};
	procs_scan_fill(scan, hr);
	if (scan->err)
		return scan->err;
	for (size_t i = 0; i < scan->n; i++) {
		const struct procs_entry *e = &scan->p[i];
		if (e->long_comm || !streq(e->comm, comm) || is_zombie(hr, e->pid))
			continue;
		insert_sorted(ret, e->pid);
		ret->total++;
	}
	return 0;
}

void procs_scan_clear(struct procs_scan *scan)
{
	free(scan->p);
	*scan = (struct procs_scan){0};
}

int procs_find(const struct hostroot *hr, const char *comm, struct procs_found *ret)
{
	struct procs_scan scan = {0};
	int r = procs_scan_find(&scan, hr, comm, ret);
	procs_scan_clear(&scan);
	return r;
}
