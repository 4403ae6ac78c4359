/*
 * Running processes of the host, found by exact command name (the kernel's
 * `comm`, at most 15 characters) under the host root's proc/. The host root's
 * proc/ is the host's procfs (in the DaemonSet, /host/proc), so this sees the
 * host's processes without hostPID.
 */
#pragma once
#include "hostroot.h"

#define PROCS_MAX_PIDS 16

struct procs_found {
	int pids[PROCS_MAX_PIDS]; /* the lowest ones, ascending */
	size_t n;		  /* entries in pids */
	size_t total;		  /* every match (may exceed PROCS_MAX_PIDS) */
};

/*
 * Returns 0 (ret->total may be 0), or -errno: -ENOENT when the host root has no
 * proc/, -ESRCH when PID 1 is not visible there (hidepid=, or a procfs of
 * another PID namespace): then an empty answer would not mean "not running".
 * Zombies do not count as running.
 */
int procs_find(const struct hostroot *hr, const char *comm, struct procs_found *ret);
