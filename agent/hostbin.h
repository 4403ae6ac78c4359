/*
 * Host tools (mount.nfs, iscsiadm, ...) looked up in the host root's system
 * directories. Symlinks resolve inside the host root, so Debian 12's
 * /sbin -> usr/sbin finds /usr/sbin/mount.nfs as /sbin/mount.nfs; one file
 * reached through several directories is reported once, by its first path.
 */
#pragma once
#include "hostroot.h"

/* Searched in this order. */
extern const char *const hostbin_dirs[];
extern const size_t hostbin_dirs_len;

struct hostbin {
	struct strv found;	/* host paths of executable regular files */
	struct strv not_exec;	/* host paths that exist but are not executable files */
	struct strv unreadable; /* "PATH: reason" where the lookup itself failed */
	bool in_sbin;		/* one of found is in /sbin, /sbin/fs.d or /sbin/fs */
};

/* Look name up in every directory of hostbin_dirs. */
void hostbin_find(const struct hostroot *hr, const char *name, struct hostbin *ret);
void hostbin_clear(struct hostbin *b);
/* "/sbin, /usr/sbin, ..." */
char *hostbin_dirs_str(void);
