#include "modprobe_conf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CONF_MAX      (1u << 20)
#define CONF_DIRS_MAX 256

/* kmod's configuration directories, in its order (libkmod-config.c). */
static const char *const conf_dirs[] = {"etc/modprobe.d", "run/modprobe.d",
					"usr/local/lib/modprobe.d", "usr/lib/modprobe.d",
					"lib/modprobe.d"};

static void normalise(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

static bool name_in(const char *name, const char *const *names)
{
	_cleanup_free_ char *n = xstrdup(name);
	normalise(n);
	for (; *names; names++) {
		_cleanup_free_ char *w = xstrdup(*names);
		normalise(w);
		if (streq(n, w))
			return true;
	}
	return false;
}

/* A command that does nothing and loads nothing: /bin/false, /bin/true, false, true. */
static bool refuses(const char *cmd)
{
	const char *base = strrchr(cmd, '/');
	base = base ? base + 1 : cmd;
	return streq(base, "false") || streq(base, "true");
}

static void scan_conf(const struct hostroot *hr, const char *path, const char *const *names,
		      struct modprobe_block *ret)
{
	_cleanup_free_ char *buf = NULL;
	if (hostroot_read(hr, path, CONF_MAX, &buf, NULL) < 0)
		return;
	size_t lineno = 0;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		struct strv w = {0};
		strv_split(&w, line, " \t\r");
		if (w.n >= 2 && w.items[0][0] != '#' && name_in(w.items[1], names)) {
			if (streq(w.items[0], "install") && w.n >= 3 && refuses(w.items[2]) &&
			    !ret->refused)
				ret->refused = xasprintf("install %s %s (/%s:%zu)", w.items[1],
							 w.items[2], path, lineno);
			else if (streq(w.items[0], "blacklist") && !ret->blacklist)
				ret->blacklist =
				    xasprintf("blacklist %s (/%s:%zu)", w.items[1], path, lineno);
		}
		strv_clear(&w);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void scan_cmdline(const struct hostroot *hr, const char *const *names,
			 struct modprobe_block *ret)
{
	_cleanup_free_ char *buf = NULL;
	if (hostroot_read(hr, "proc/cmdline", 65536, &buf, NULL) < 0)
		return;
	struct strv w = {0};
	strv_split(&w, buf, " \t\n");
	for (size_t i = 0; i < w.n && !ret->refused; i++) {
		const char *v = NULL;
		if (startswith(w.items[i], "module_blacklist="))
			v = w.items[i] + strlen("module_blacklist=");
		else if (startswith(w.items[i], "modprobe.blacklist="))
			v = w.items[i] + strlen("modprobe.blacklist=");
		if (!v)
			continue;
		struct strv mods = {0};
		strv_split(&mods, v, ",");
		for (size_t k = 0; k < mods.n && !ret->refused; k++)
			if (name_in(mods.items[k], names))
				ret->refused = xasprintf("%s (/proc/cmdline)", w.items[i]);
		strv_clear(&mods);
	}
	strv_clear(&w);
}

void modprobe_block_read(const struct hostroot *hr, const char *const *names,
			 struct modprobe_block *ret)
{
	*ret = (struct modprobe_block){0};
	_cleanup_free_ char *md = NULL;
	if (hostroot_read_line(hr, "proc/sys/kernel/modules_disabled", &md) == 0 && streq(md, "1"))
		ret->disabled = true;
	scan_cmdline(hr, names, ret);
	/* A file of an earlier directory hides the same name in a later one. */
	struct strv seen = {0};
	for (size_t d = 0; d < ELEMENTSOF(conf_dirs); d++) {
		DIR *dir = hostroot_opendir(hr, conf_dirs[d]);
		if (!dir)
			continue;
		struct strv files = {0};
		struct dirent *de;
		while ((de = readdir(dir)) && files.n < CONF_DIRS_MAX)
			if (de->d_name[0] != '.' && endswith(de->d_name, ".conf") &&
			    !strv_contains(&seen, de->d_name))
				strv_add(&files, de->d_name);
		closedir(dir);
		if (files.n > 1)
			qsort(files.items, files.n, sizeof(char *), cmp_str);
		for (size_t i = 0; i < files.n; i++) {
			strv_add(&seen, files.items[i]);
			_cleanup_free_ char *p = xasprintf("%s/%s", conf_dirs[d], files.items[i]);
			scan_conf(hr, p, names, ret);
		}
		strv_clear(&files);
	}
	strv_clear(&seen);
}

void modprobe_block_clear(struct modprobe_block *b)
{
	free(b->refused);
	free(b->blacklist);
	*b = (struct modprobe_block){0};
}
