/*
 * The host's mount table from proc/1/mountinfo under the host root (PID 1's
 * view is the host's, whatever namespace the agent runs in), falling back to
 * proc/self/mountinfo. Format (proc(5)), one mount per line:
 *
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 *   id parent major:minor root mount-point mount-options [optional...] - fstype source super-options
 *
 * Paths escape space, tab, newline and backslash as octal (\040 \011 \012 \134).
 */
#pragma once
#include "hostroot.h"

struct mountinfo_entry {
	int id, parent;
	unsigned major, minor;
	char *root;	   /* root of the mount within its filesystem ("net:[N]" for nsfs) */
	char *mount_point; /* unescaped */
	char *mount_opts;  /* per-mount options: rw|ro,... */
	char *fstype;
	char *source; /* unescaped; "none" and the like for virtual filesystems */
	char *super_opts;
};

struct mountinfo {
	struct mountinfo_entry *items;
	size_t n, cap;
};

/* Parse a whole mountinfo file. On a malformed line: -EINVAL, *ret_bad_line set
 * (1-based) and ret left empty. Returns 0 or -EINVAL. */
int mountinfo_parse(const uint8_t *buf, size_t len, struct mountinfo *ret, size_t *ret_bad_line);

/*
 * Read and parse the host's mount table. *ret_file names the file read (as the
 * agent sees it, for messages). proc/self/mountinfo describes the agent's own
 * namespace: with a host root other than "/", its mount points are translated
 * to host paths (mounts outside the host root are dropped). Returns 0, or
 * -errno of the first file (with *ret_file still set), -EINVAL when it is
 * malformed (*ret_bad_line set).
 */
int mountinfo_read(const struct hostroot *hr, struct mountinfo *ret, char **ret_file,
		   size_t *ret_bad_line);

/* The mount holding path (absolute, normalised): the longest mount point that is
 * path or a parent of it; of equal ones the last (topmost). NULL when none. */
const struct mountinfo_entry *mountinfo_find(const struct mountinfo *mi, const char *path);

/* Whether a comma-separated option list contains opt exactly. */
bool mountinfo_has_opt(const char *opts, const char *opt);

void mountinfo_clear(struct mountinfo *mi);
