#include "mountinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Undo the kernel's octal escapes (seq_file mangle: " \t\n\\"). */
static char *unescape(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			*o++ =
			    (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
			continue;
		}
		*o++ = s[i];
	}
	*o = '\0';
	return out;
}

/* Split a line into fields separated by single spaces, as the kernel writes them
 * (raw spaces inside fields are escaped; an empty source is a legitimate empty
 * field). Returns the number of fields, or max + 1 when there are more. */
static size_t split_fields(const char *line, size_t len, const char **f, size_t *flen, size_t max)
{
	size_t n = 0, start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && line[i] != ' ')
			continue;
		if (n == max)
			return max + 1;
		f[n] = line + start;
		flen[n] = i - start;
		n++;
		start = i + 1;
	}
	return n;
}

static bool parse_uint(const char *s, size_t n, unsigned long max, unsigned long *ret)
{
	if (n == 0 || n > 10)
		return false;
	unsigned long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > max)
		return false;
	*ret = v;
	return true;
}

static bool parse_devno(const char *s, size_t n, unsigned *maj, unsigned *min)
{
	const char *colon = memchr(s, ':', n);
	unsigned long a, b;
	if (!colon || !parse_uint(s, (size_t)(colon - s), 0xfffffffful, &a) ||
	    !parse_uint(colon + 1, n - (size_t)(colon - s) - 1, 0xfffffffful, &b))
		return false;
	*maj = (unsigned)a;
	*min = (unsigned)b;
	return true;
}

#define MAX_FIELDS 64

static int parse_line(const char *line, size_t len, struct mountinfo_entry *e)
{
	const char *f[MAX_FIELDS];
	size_t fl[MAX_FIELDS];
	size_t n = split_fields(line, len, f, fl, MAX_FIELDS);
	if (n < 10 || n > MAX_FIELDS)
		return -EINVAL;
	size_t sep = 6;
	while (sep < n && !(fl[sep] == 1 && f[sep][0] == '-'))
		sep++;
	/* Exactly three fields after the separator: fstype, source, super options. */
	if (sep + 4 != n)
		return -EINVAL;
	unsigned long id, parent;
	if (!parse_uint(f[0], fl[0], 0x7fffffff, &id) ||
	    !parse_uint(f[1], fl[1], 0x7fffffff, &parent) ||
	    !parse_devno(f[2], fl[2], &e->major, &e->minor) || fl[3] == 0 || f[4][0] != '/')
		return -EINVAL;
	e->id = (int)id;
	e->parent = (int)parent;
	/* Not always a path: nsfs shows "net:[4026532587]" (every CNI-pinned pod netns). */
	e->root = unescape(f[3], fl[3]);
	e->mount_point = unescape(f[4], fl[4]);
	e->mount_opts = xstrndup(f[5], fl[5]);
	e->fstype = unescape(f[sep + 1], fl[sep + 1]);
	e->source = unescape(f[sep + 2], fl[sep + 2]);
	e->super_opts = xstrndup(f[sep + 3], fl[sep + 3]);
	return 0;
}

static void entry_clear(struct mountinfo_entry *e)
{
	free(e->root);
	free(e->mount_point);
	free(e->mount_opts);
	free(e->fstype);
	free(e->source);
	free(e->super_opts);
}

void mountinfo_clear(struct mountinfo *mi)
{
	for (size_t i = 0; i < mi->n; i++)
		entry_clear(&mi->items[i]);
	free(mi->items);
	*mi = (struct mountinfo){0};
}

int mountinfo_parse(const uint8_t *buf, size_t len, struct mountinfo *ret, size_t *ret_bad_line)
{
	struct mountinfo mi = {0};
	const char *s = (const char *)buf;
	size_t lineno = 0, i = 0;
	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (s + i)) : len - i;
		lineno++;
		if (l > 0) {
			struct mountinfo_entry e = {0};
			if (memchr(s + i, '\0', l) || parse_line(s + i, l, &e) < 0) {
				entry_clear(&e);
				mountinfo_clear(&mi);
				if (ret_bad_line)
					*ret_bad_line = lineno;
				return -EINVAL;
			}
			util_grow((void **)&mi.items, &mi.cap, mi.n + 1, sizeof(mi.items[0]));
			mi.items[mi.n++] = e;
		}
		i += l + 1;
	}
	*ret = mi;
	return 0;
}

/* "/host/var/lib" → "/var/lib" for a host root "/host"; NULL when outside it. */
static char *strip_root(const char *root, const char *mp)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return xstrdup(mp);
	if (strncmp(mp, root, n) != 0 || (mp[n] != '\0' && mp[n] != '/'))
		return NULL;
	return xstrdup(mp[n] ? mp + n : "/");
}

static void translate_to_host(struct mountinfo *mi, const char *root)
{
	size_t kept = 0;
	for (size_t i = 0; i < mi->n; i++) {
		char *hp = strip_root(root, mi->items[i].mount_point);
		if (!hp) {
			entry_clear(&mi->items[i]);
			continue;
		}
		free(mi->items[i].mount_point);
		mi->items[i].mount_point = hp;
		mi->items[kept++] = mi->items[i];
	}
	mi->n = kept;
}

int mountinfo_read(const struct hostroot *hr, struct mountinfo *ret, char **ret_file,
		   size_t *ret_bad_line)
{
	static const char *const files[] = {"proc/1/mountinfo", "proc/self/mountinfo"};
	int first_err = 0;
	*ret = (struct mountinfo){0};
	*ret_file = NULL;
	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		_cleanup_free_ char *buf = NULL;
		size_t len;
		int r = hostroot_read(hr, files[i], 0, &buf, &len);
		if (r < 0) {
			if (!first_err) {
				first_err = r;
				*ret_file = hostroot_display(hr, files[i]);
			}
			continue;
		}
		free(*ret_file);
		*ret_file = hostroot_display(hr, files[i]);
		r = mountinfo_parse((const uint8_t *)buf, len, ret, ret_bad_line);
		if (r < 0)
			return r;
		if (i == 1 && hr->path) {
			/* Mount points there are the agent's: compare with the root's real path. */
			_cleanup_free_ char *real = realpath(hr->path, NULL);
			translate_to_host(ret, real ? real : hr->path);
		}
		return 0;
	}
	return first_err;
}

static bool covers(const char *mp, const char *path)
{
	if (streq(mp, "/"))
		return path[0] == '/';
	size_t n = strlen(mp);
	return strncmp(path, mp, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

const struct mountinfo_entry *mountinfo_find(const struct mountinfo *mi, const char *path)
{
	const struct mountinfo_entry *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < mi->n; i++) {
		const char *mp = mi->items[i].mount_point;
		size_t n = strlen(mp);
		if (covers(mp, path) && (!best || n >= best_len)) {
			best = &mi->items[i];
			best_len = n;
		}
	}
	return best;
}

bool mountinfo_has_opt(const char *opts, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *p = opts; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l == n && strncmp(p, opt, n) == 0)
			return true;
		p += l;
		if (*p)
			p++;
	}
	return false;
}
