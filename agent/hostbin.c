#include "hostbin.h"

#include <errno.h>
#include <string.h>

/* /sbin, /sbin/fs.d and /sbin/fs are where mount(8) looks for mount.<type>
 * helpers (util-linux FS_SEARCH_PATH); the others are where packages put tools. */
const char *const hostbin_dirs[] = {"sbin",	      "sbin/fs.d", "sbin/fs", "usr/sbin",
				    "usr/local/sbin", "bin",	   "usr/bin"};
const size_t hostbin_dirs_len = ELEMENTSOF(hostbin_dirs);
#define N_SBIN_DIRS 3

void hostbin_find(const struct hostroot *hr, const char *name, struct hostbin *ret)
{
	*ret = (struct hostbin){0};
	struct {
		dev_t dev;
		ino_t ino;
	} seen[ELEMENTSOF(hostbin_dirs)];
	size_t n_seen = 0;
	for (size_t i = 0; i < hostbin_dirs_len; i++) {
		_cleanup_free_ char *rel = xasprintf("%s/%s", hostbin_dirs[i], name);
		struct stat st;
		int r = hostroot_stat(hr, rel, &st);
		if (r == -ENOENT || r == -ENOTDIR)
			continue;
		if (r < 0) {
			_cleanup_free_ char *m = xasprintf("/%s: %s", rel, strerror(-r));
			strv_add(&ret->unreadable, m);
			continue;
		}
		bool dup = false;
		for (size_t k = 0; k < n_seen; k++)
			if (seen[k].dev == st.st_dev && seen[k].ino == st.st_ino)
				dup = true;
		if (dup)
			continue;
		seen[n_seen].dev = st.st_dev;
		seen[n_seen].ino = st.st_ino;
		n_seen++;
		_cleanup_free_ char *host = xasprintf("/%s", rel);
		if (S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
			strv_add(&ret->found, host);
			if (i < N_SBIN_DIRS)
				ret->in_sbin = true;
		} else {
			strv_add(&ret->not_exec, host);
		}
	}
}

void hostbin_clear(struct hostbin *b)
{
	strv_clear(&b->found);
	strv_clear(&b->not_exec);
	strv_clear(&b->unreadable);
	b->in_sbin = false;
}

char *hostbin_dirs_str(void)
{
	size_t len = 1;
	for (size_t i = 0; i < hostbin_dirs_len; i++)
		len += strlen(hostbin_dirs[i]) + 3;
	char *s = xmalloc(len);
	s[0] = '\0';
	for (size_t i = 0; i < hostbin_dirs_len; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, "/");
		strcat(s, hostbin_dirs[i]);
	}
	return s;
}
