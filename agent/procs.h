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

/*
 * One scan of proc/ for several questions: reading every process's comm is
 * the cost (an open per process), so the checks that look for daemons in one
 * run of the agent (host.iscsi, host.multipathd) share it. A scan reads the
 * comm of every process once, on the first question; whether a match is a
 * zombie is read when asked. Zero-initialised; procs_scan_clear frees it.
 */
struct procs_scan {
	bool done;
	int err;     /* as procs_find's */
	bool listed; /* proc/ could be listed (also with err -ESRCH) */
	/* every process whose comm could be read, in readdir order */
	struct procs_entry {
		int pid;
		bool long_comm; /* 16 bytes or more: no kernel comm, matches nothing */
		char comm[16];
	} * p;
	size_t n, cap;
};

/* Fill scan now, if not done yet (the questions below do it on first use).
 * A scan is used by one thread at a time (agent.c lends it to one check at a
 * time; a check abandoned at its deadline keeps it). */
void procs_scan_fill(struct procs_scan *scan, const struct hostroot *hr);
/* procs_find, answered from scan (filled on first use). */
int procs_scan_find(struct procs_scan *scan, const struct hostroot *hr, const char *comm,
		    struct procs_found *ret);
void procs_scan_clear(struct procs_scan *scan);
