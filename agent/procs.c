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
static bool is_zombie(const struct hostroot *hr, const char *pid)
{
	_cleanup_free_ char *path = xasprintf("proc/%s/stat", pid);
	_cleanup_free_ char *buf = NULL;
	if (hostroot_read(hr, path, 65536, &buf, NULL) < 0)
		return false;
	const char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return false;
	return p[2] == 'Z' || p[2] == 'X';
}

static bool comm_is(const struct hostroot *hr, const char *pid, const char *comm)
{
	_cleanup_free_ char *path = xasprintf("proc/%s/comm", pid);
	_cleanup_free_ char *c = NULL;
	/* A process may exit between readdir and this read: then it simply does not match. */
	if (hostroot_read_line(hr, path, &c) < 0)
		return false;
	return streq(c, comm);
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

int procs_find(const struct hostroot *hr, const char *comm, struct procs_found *ret)
{
	*ret = (struct procs_found){0};
	DIR *d = hostroot_opendir(hr, "proc");
	if (!d)
		return -errno;
	if (!hostroot_exists(hr, "proc/1")) {
		closedir(d);
		return -ESRCH;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!all_digits(de->d_name) || !comm_is(hr, de->d_name, comm) ||
		    is_zombie(hr, de->d_name))
			continue;
		insert_sorted(ret, atoi(de->d_name));
		ret->total++;
	}
	closedir(d);
	return 0;
}
