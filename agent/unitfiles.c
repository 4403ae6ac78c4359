#include "unitfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const mask_dirs[] = {"etc/systemd/system", "run/systemd/system"};
/* systemd.unit(5) "System Unit Search Path", in its order. /usr/local/lib/systemd/system
 * holds the units of RKE2's default tar install (rancher/rke2 install.sh
 * unpack_tarball, v1.33.13+rke2r2: moved to /etc/systemd/system only for another
 * INSTALL_RKE2_TAR_PREFIX). */
static const char *const unit_dirs[] = {"etc/systemd/system", "run/systemd/system",
					"usr/local/lib/systemd/system", "usr/lib/systemd/system",
					"lib/systemd/system"};

static bool masked_in(const struct hostroot *hr, const char *dir, const char *unit)
{
	_cleanup_close_ int dfd = hostroot_openat(hr, dir, O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return false;
	char target[PATH_MAX];
	ssize_t n = readlinkat(dfd, unit, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return streq(target, "/dev/null");
}

_Static_assert(ELEMENTSOF(unit_dirs) == UNIT_SCAN_DIRS, "unit_scan's directories");

static void unit_scan_fill(struct unit_scan *scan, const struct hostroot *hr)
{
	if (scan->done)
		return;
	scan->done = true;
	struct stat seen[ELEMENTSOF(unit_dirs)];
	bool have[ELEMENTSOF(unit_dirs)] = {0};
	for (size_t i = 0; i < ELEMENTSOF(unit_dirs); i++) {
		struct unit_scan_dir *sd = &scan->dirs[i];
		DIR *d = hostroot_opendir(hr, unit_dirs[i]);
		if (!d) {
			sd->err = -errno;
			continue;
		}
		/* lib/systemd/system is usr/lib/systemd/system on a merged /usr: what
		 * the first did not find, the second does not either. */
		have[i] = fstat(dirfd(d), &seen[i]) == 0;
		for (size_t k = 0; have[i] && k < i && !sd->dup; k++)
			sd->dup = have[k] && seen[k].st_dev == seen[i].st_dev &&
				  seen[k].st_ino == seen[i].st_ino;
		if (sd->dup) {
			closedir(d);
			continue;
		}
		struct dirent *de;
		while ((de = readdir(d)))
			if (endswith(de->d_name, ".wants") || endswith(de->d_name, ".requires"))
				strv_add(&sd->wants, de->d_name);
		closedir(d);
	}
}

void unit_scan_clear(struct unit_scan *scan)
{
	for (size_t i = 0; i < ELEMENTSOF(scan->dirs); i++)
		strv_clear(&scan->dirs[i].wants);
	*scan = (struct unit_scan){0};
}

/* Find DIR/X.wants/UNIT or DIR/X.requires/UNIT that resolves, X in readdir
 * order. Returns true and the link's path, or false. */
static bool wanted_in(const struct hostroot *hr, const char *dir, const struct unit_scan_dir *sd,
		      const char *unit, char **ret)
{
	/* Asked for every unit in every listed directory: the path is put
	 * together in place, not formatted (130 probes a run on a Debian host). */
	size_t dl = strlen(dir), ul = strlen(unit);
	for (size_t k = 0; k < sd->wants.n; k++) {
		const char *w = sd->wants.items[k];
		size_t wl = strlen(w);
		char buf[1024];
		_cleanup_free_ char *heap = NULL;
		char *link = buf;
		if (dl + wl + ul + 3 > sizeof(buf))
			link = heap = xmalloc(dl + wl + ul + 3);
		char *q = link;
		memcpy(q, dir, dl), q += dl, *q++ = '/';
		memcpy(q, w, wl), q += wl, *q++ = '/';
		memcpy(q, unit, ul + 1);
		if (hostroot_exists(hr, link)) {
			*ret = xasprintf("/%s", link);
			return true;
		}
	}
	return false;
}

int unitfiles_state_in(struct unit_scan *scan, const struct hostroot *hr, const char *unit,
		       char **ret_where)
{
	if (ret_where)
		*ret_where = NULL;
	for (size_t i = 0; i < ELEMENTSOF(mask_dirs); i++)
		if (masked_in(hr, mask_dirs[i], unit)) {
			if (ret_where)
				*ret_where = xasprintf("/%s/%s", mask_dirs[i], unit);
			return UNITFILE_MASKED;
		}
	struct unit_scan own = {0};
	if (!scan)
		scan = &own;
	unit_scan_fill(scan, hr);
	bool any_dir = false;
	int r = -ENOENT;
	for (size_t i = 0; i < ELEMENTSOF(unit_dirs); i++) {
		char *where = NULL;
		if (scan->dirs[i].err == 0)
			any_dir = true;
		if (wanted_in(hr, unit_dirs[i], &scan->dirs[i], unit, &where)) {
			if (ret_where)
				*ret_where = where;
			else
				free(where);
			r = UNITFILE_ENABLED;
			break;
		}
	}
	unit_scan_clear(&own);
	return r == UNITFILE_ENABLED ? r : any_dir ? UNITFILE_DISABLED : -ENOENT;
}

int unitfiles_state(const struct hostroot *hr, const char *unit, char **ret_where)
{
	return unitfiles_state_in(NULL, hr, unit, ret_where);
}

const char *unitfile_state_name(enum unitfile_state s)
{
	switch (s) {
	case UNITFILE_ENABLED:
		return "enabled";
	case UNITFILE_MASKED:
		return "masked";
	case UNITFILE_DISABLED:
		break;
	}
	return "disabled";
}

void unitfiles_evidence(const struct hostroot *hr, struct kv_list *ev, const char *key,
			const char *unit, int st, const char *where)
{
	_cleanup_free_ char *file = st == UNITFILE_DISABLED ? unitfiles_find(hr, unit) : NULL;
	if (st < 0)
		kv_add_str(ev, key, "unknown: no systemd unit directories");
	else if (st == UNITFILE_DISABLED && !file)
		kv_add_strf(ev, key, "not installed: no %s unit file", unit);
	else if (where)
		kv_add_strf(ev, key, "%s (%s)", unitfile_state_name(st), where);
	else
		kv_add_str(ev, key, unitfile_state_name(st));
}

char *unitfiles_find(const struct hostroot *hr, const char *unit)
{
	for (size_t i = 0; i < ELEMENTSOF(unit_dirs); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", unit_dirs[i], unit);
		struct stat st;
		if (hostroot_stat(hr, p, &st) == 0 && S_ISREG(st.st_mode))
			return xasprintf("/%s", p);
	}
	return NULL;
}

static int cmp_basename(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '/'), *y = strrchr(*(char *const *)b, '/');
	return strcmp(x ? x + 1 : *(char *const *)a, y ? y + 1 : *(char *const *)b);
}

void unitfiles_dropins(const struct hostroot *hr, const char *unit, size_t max, struct strv *ret)
{
	for (size_t i = 0; i < ELEMENTSOF(unit_dirs); i++) {
		_cleanup_free_ char *dir = xasprintf("%s/%s.d", unit_dirs[i], unit);
		DIR *d = hostroot_opendir(hr, dir);
		struct dirent *de;
		while (d && (de = readdir(d)) && ret->n < max)
			if (endswith(de->d_name, ".conf") && de->d_name[0] != '.') {
				_cleanup_free_ char *dp = xasprintf("%s/%s", dir, de->d_name);
				strv_add(ret, dp);
			}
		if (d)
			closedir(d);
	}
	/* systemd applies drop-ins of every directory in the order of their names. */
	if (ret->n > 1)
		qsort(ret->items, ret->n, sizeof(char *), cmp_basename);
}

/* "Key=value" lines of one unit file (blanks around '=' allowed, as systemd's
 * parser strips them); an empty value clears what came before. */
static void file_values(const struct hostroot *hr, const char *path, const char *key, size_t max,
			struct strv *out)
{
	_cleanup_free_ char *buf = NULL;
	if (hostroot_read(hr, path, 65536, &buf, NULL) < 0)
		return;
	size_t kl = strlen(key);
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *l = strstrip(line);
		if (strncmp(l, key, kl) != 0)
			continue;
		char *v = strstrip(l + kl);
		if (*v != '=')
			continue;
		v = strstrip(v + 1);
		if (!*v)
			strv_clear(out);
		else if (out->n < max)
			strv_add(out, v);
	}
}

char *unitfiles_values(const struct hostroot *hr, const char *unit, const char *key, size_t max,
		       struct strv *ret)
{
	char *file = unitfiles_find(hr, unit);
	if (!file)
		return NULL;
	file_values(hr, file, key, max, ret);
	struct strv dropins = {0};
	unitfiles_dropins(hr, unit, 64, &dropins);
	for (size_t i = 0; i < dropins.n; i++)
		file_values(hr, dropins.items[i], key, max, ret);
	strv_clear(&dropins);
	return file;
}

int unitfiles_pid1_systemd(const struct hostroot *hr, char **ret_init)
{
	char *comm = NULL;
	int r = hostroot_read_line(hr, "proc/1/comm", &comm);
	struct stat st;
	bool run = hostroot_stat(hr, "run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
	int ret = (r == 0 && streq(comm, "systemd")) || run ? 1 : r == 0 ? 0 : r;
	if (ret_init)
		*ret_init = comm;
	else
		free(comm);
	return ret;
}
