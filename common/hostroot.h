/*
 * Every host path the agent reads is read under the host root (`--host-root`,
 * `/host` in the DaemonSet). Paths are resolved with openat2(RESOLVE_IN_ROOT)
 * where the kernel has it, so an absolute symlink inside the host root
 * (/etc/resolv.conf -> /run/...) resolves inside it too, as it would on the host.
 */
#pragma once
#include <sys/stat.h>
#include <dirent.h>
#include "util.h"

/* Largest file hostroot_read() returns by default. */
#define HOSTROOT_MAX_FILE (4u << 20)

struct hostroot {
	int fd;	    /* O_PATH|O_DIRECTORY of the root */
	char *path; /* as given, for messages */
};

/* Called with every path this thread is about to open under a host root, before
 * the open (agent/agent.c: a check that blocks is reported with the last host
 * path it opened). One per thread; NULL fn clears it. */
void hostroot_set_tracer(void (*fn)(void *arg, const char *path), void *arg);
/* Give path to this thread's tracer as if it had been opened here: a thread that
 * waits for another's read names the place that other read is at (agent/run_prefetch.c). */
void hostroot_trace(const char *path);

/* Returns 0 or -errno. */
int hostroot_open(struct hostroot *hr, const char *dir);
void hostroot_close(struct hostroot *hr);

/* Open path (absolute or relative, interpreted under the root). Returns fd or -errno. */
int hostroot_openat(const struct hostroot *hr, const char *path, int flags);
/* Open a host file for reading, never waiting: O_NONBLOCK (a FIFO opens at once
 * instead of waiting for a writer), then a regular-file test on the open fd, so a
 * FIFO, socket or device where a file is expected is -ESPIPE (util_read_strerror():
 * "not a regular file") rather than a read that blocks forever. Files on procfs and
 * sysfs pass as they are. Every reader of host file contents opens with this.
 * Returns fd or -errno. */
int hostroot_open_file(const struct hostroot *hr, const char *path);
/* Read a whole file, NUL-terminated; at most max bytes (0: HOSTROOT_MAX_FILE), -EFBIG beyond.
 * Files in /proc and /sys report size 0, so this reads until EOF. Returns 0 or -errno. */
int hostroot_read(const struct hostroot *hr, const char *path, size_t max, char **ret_buf,
		  size_t *ret_len);
/* hostroot_read() that, given ret_truncated, keeps the first max bytes of a longer file
 * (util_read_fd()). */
int hostroot_read_prefix(const struct hostroot *hr, const char *path, size_t max, char **ret_buf,
			 size_t *ret_len, bool *ret_truncated);
/* stat (following symlinks inside the root). Returns 0 or -errno. */
int hostroot_stat(const struct hostroot *hr, const char *path, struct stat *ret);
bool hostroot_exists(const struct hostroot *hr, const char *path);
/* opendir under the root; NULL with errno set on failure. */
DIR *hostroot_opendir(const struct hostroot *hr, const char *path);
/* The real path for messages: "<root>/<path>" or "/<path>" when the root is "/". */
char *hostroot_display(const struct hostroot *hr, const char *path);
/* First line of a file, stripped. Returns 0 or -errno. */
int hostroot_read_line(const struct hostroot *hr, const char *path, char **ret);
/* Whether dir_fd (a directory opened under the root) is on procfs. */
bool hostroot_is_procfs(int dir_fd);
/* hostroot_read_line() of path (e.g. "proc/17/comm") for a procfs directory
 * already open as dir_fd (its path is path's first dir_len bytes, e.g. "proc/"),
 * the cheap way: opened beneath dir_fd without leaving its mount and read
 * with one read() — a procfs file, which never blocks. 1 with *ret; 0 when it
 * could not be read so (then hostroot_read_line() tells). */
int hostroot_read_procfs_line(const struct hostroot *hr, int dir_fd, const char *path,
			      size_t dir_len, char **ret);
