#include "probe_netns.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
	int result; /* 1: not tried yet */
	char desc[512], err[512];
} state = {.result = 1};

static int enter(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(state.err, sizeof(state.err), "%s: %s", path, strerror(e));
		return -e;
	}
	/* The namespace's identity as /proc/PID/ns/net names it: net:[INODE]. */
	struct stat st;
	char ns[64] = "";
	if (fstat(fd, &st) == 0)
		snprintf(ns, sizeof(ns), "net:[%llu]", (unsigned long long)st.st_ino);
	/* setns checks the type: what is not a network namespace (a regular
	 * file, another kind of namespace) is refused with EINVAL. */
	if (setns(fd, CLONE_NEWNET) < 0) {
		int e = errno;
		snprintf(state.err, sizeof(state.err), "setns(%s): %s%s", path, strerror(e),
			 e == EPERM    ? " (it needs CAP_SYS_ADMIN)"
			 : e == EINVAL ? " (not a network namespace)"
				       : "");
		close(fd);
		return -e;
	}
	close(fd);
	snprintf(state.desc, sizeof(state.desc), "%s (%s)", path, *ns ? ns : "?");
	return 0;
}

int probe_netns_enter(const char *path, const char **ret_desc, const char **ret_err)
{
	if (state.result == 1)
		state.result = enter(path);
	*ret_desc = state.result == 0 ? state.desc : NULL;
	*ret_err = state.result == 0 ? NULL : state.err;
	return state.result;
}
