/*
 * Filesystem facts that cannot be redirected by a path string: free space,
 * write access and the resolved real path of a host path. Each opens the path
 * under the host root (so `--host-root /host` works) and asks the kernel about
 * the file it got. Unit tests replace these with `// wrap: sys_fs_statvfs ...`.
 */
#pragma once
#include <sys/statvfs.h>
#include "hostroot.h"

/* statvfs of the filesystem holding path. Returns 0 or -errno. */
int sys_fs_statvfs(const struct hostroot *hr, const char *path, struct statvfs *ret);
/* access(path, mode) with the agent's effective IDs. Returns 0 or -errno
 * (-EROFS: read-only filesystem, as the agent sees it). */
int sys_fs_access(const struct hostroot *hr, const char *path, int mode);
/* The path with every symlink resolved inside the host root, as a host path
 * ("/data/longhorn" for a symlink /var/lib/longhorn -> /data/longhorn).
 * Returns 0 or -errno. */
int sys_fs_realpath(const struct hostroot *hr, const char *path, char **ret);
