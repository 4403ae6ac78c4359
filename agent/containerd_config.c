#include "containerd_config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

void containerd_config_clear(struct containerd_config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->files[i].path);
		toml_free(c->files[i].root);
	}
	free(c->files);
	strv_clear(&c->notes);
	*c = (struct containerd_config){0};
}

static void note(struct strv *v, char *owned)
{
	strv_add(v, owned);
	free(owned);
}

static void add_file(struct containerd_config *c, const char *path, struct toml_table *root)
{
	const struct toml_value *v = toml_table_get(root, "version");
	util_grow((void **)&c->files, &c->cap, c->n + 1, sizeof(struct containerd_file));
	c->files[c->n++] = (struct containerd_file){
	    .path = xstrdup(path),
	    .root = root,
	    .version = v && v->type == TOML_INTEGER ? v->i : 0,
	};
}

static int parse_one(const uint8_t *buf, size_t len, const char *name, struct toml_table **ret,
		     char *err, size_t errlen)
{
	struct toml_error te;
	if (toml_parse(buf, len, ret, &te) < 0) {
		if (te.line)
			snprintf(err, errlen, "%s:%u: %s", name, te.line, te.msg);
		else
			snprintf(err, errlen, "%s: %s", name, te.msg);
		return -EINVAL;
	}
	return 0;
}

static int read_version(struct containerd_config *c, const char *name, char *err, size_t errlen)
{
	const struct toml_value *v = toml_table_get(c->files[0].root, "version");
	c->version = 1;
	if (!v)
		return 0;
	if (v->type != TOML_INTEGER || v->i < 0 || v->i > 3) {
		snprintf(err, errlen, "%s:%u: \"version\" must be 1, 2 or 3", name, v->line);
		return -EINVAL;
	}
	/* containerd reads version 0 (unset) as 1. */
	c->version = v->i == 0 ? 1 : v->i;
	return 0;
}

int containerd_config_parse(const uint8_t *buf, size_t len, const char *name,
			    struct containerd_config *ret, char *err, size_t errlen)
{
	struct toml_table *root;
	*ret = (struct containerd_config){0};
	if (parse_one(buf, len, name, &root, err, errlen) < 0)
		return -EINVAL;
	add_file(ret, name, root);
	if (read_version(ret, name, err, errlen) < 0) {
		containerd_config_clear(ret);
		return -EINVAL;
	}
	return 0;
}

static int load_file(const struct hostroot *root, const char *path, struct toml_table **ret,
		     char *err, size_t errlen)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = hostroot_read(root, path, CONTAINERD_MAX_FILE_SIZE, &buf, &len);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, util_read_strerror(r));
		return r;
	}
	return parse_one((const uint8_t *)buf, len, path, ret, err, errlen);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s == path ? xstrdup("/") : s ? xstrndup(path, (size_t)(s - path)) : xstrdup(".");
}

/* Expand a glob whose wildcards are in the last component only (the form every
 * containerd drop-in directory uses), sorted as Go's filepath.Glob sorts. */
static void expand_glob(const struct hostroot *root, const char *pattern, struct strv *out,
			struct strv *notes)
{
	_cleanup_free_ char *dir = dir_of(pattern);
	const char *base = strrchr(pattern, '/') ? strrchr(pattern, '/') + 1 : pattern;
	if (strpbrk(dir, "*?[")) {
		note(notes, xasprintf("import pattern %s has wildcards in a directory name; "
				      "not expanded",
				      pattern));
		return;
	}
	DIR *d = hostroot_opendir(root, dir);
	if (!d)
		return; /* no such directory: the glob matches nothing, as in Go */
	struct strv names = {0};
	struct dirent *de;
	while ((de = readdir(d))) {
		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (fnmatch(base, de->d_name, 0) != 0)
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", streq(dir, "/") ? "" : dir, de->d_name);
		struct stat st;
		if (hostroot_stat(root, p, &st) == 0 && S_ISREG(st.st_mode))
			strv_add(&names, p);
	}
	closedir(d);
	qsort(names.items, names.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < names.n; i++)
		strv_add(out, names.items[i]);
	strv_clear(&names);
}

/* containerd's resolveImports: globs expand, other relative paths are relative to the
 * importing file's directory. */
static int resolve_imports(const struct hostroot *root, const struct containerd_file *f,
			   struct strv *pending, struct strv *notes, char *err, size_t errlen)
{
	const struct toml_value *imp = toml_table_get(f->root, "imports");
	if (!imp)
		return 0;
	const char *shown = f->path;
	if (imp->type != TOML_ARRAY) {
		snprintf(err, errlen, "%s:%u: \"imports\" must be an array of paths", shown,
			 imp->line);
		return -EINVAL;
	}
	_cleanup_free_ char *dir = dir_of(f->path);
	for (size_t i = 0; i < imp->a->n; i++) {
		const struct toml_value *e = &imp->a->items[i];
		if (e->type != TOML_STRING) {
			snprintf(err, errlen, "%s:%u: \"imports\" must be an array of paths", shown,
				 e->line);
			return -EINVAL;
		}
		_cleanup_free_ char *p =
		    e->s[0] == '/' ? xstrdup(e->s) : xasprintf("%s/%s", dir, e->s);
		if (strchr(p, '*')) {
			size_t before = pending->n;
			expand_glob(root, p, pending, notes);
			if (pending->n == before) {
				note(notes, xasprintf("import %s matches no file", p));
			}
		} else {
			strv_add(pending, p);
		}
	}
	return 0;
}

int containerd_config_load(const struct hostroot *root, const char *path,
			   struct containerd_config *ret, char *err, size_t errlen)
{
	struct strv pending = {0};
	struct toml_table *t;
	int r = 0;
	*ret = (struct containerd_config){0};
	strv_add(&pending, path);
	/* Breadth first and each file once, as containerd's LoadConfig does. */
	for (size_t next = 0; next < pending.n; next++) {
		const char *p = pending.items[next];
		bool seen = false;
		for (size_t i = 0; i < ret->n && !seen; i++)
			seen = streq(ret->files[i].path, p);
		if (seen)
			continue;
		if (ret->n >= CONTAINERD_MAX_FILES) {
			snprintf(err, errlen, "%s: imports more than %d files", path,
				 CONTAINERD_MAX_FILES);
			r = -E2BIG;
			break;
		}
		r = load_file(root, p, &t, err, errlen);
		/* -ENOENT tells the caller there is no config; a missing import is an error
		 * that stops containerd from starting. */
		if (r == -ENOENT && next > 0)
			r = -EINVAL;
		if (r < 0)
			break;
		add_file(ret, p, t);
		if (ret->n == 1 && (r = read_version(ret, path, err, errlen)) < 0)
			break;
		r = resolve_imports(root, &ret->files[ret->n - 1], &pending, &ret->notes, err,
				    errlen);
		if (r < 0)
			break;
	}
	strv_clear(&pending);
	if (r < 0)
		containerd_config_clear(ret);
	return r;
}

const char *containerd_cri_runtime_plugin(int64_t version)
{
	return version >= 3   ? "io.containerd.cri.v1.runtime"
	       : version == 2 ? "io.containerd.grpc.v1.cri"
			      : "cri";
}

static const struct toml_value *plugin_table(const struct toml_table *root, const char *plugin,
					     int64_t version)
{
	const struct toml_value *v = toml_lookup(root, "plugins", plugin, NULL);
	/* Version 1 files name plugins by ID ("cri"); containerd 1.x also accepts the full
	 * URI there. */
	if (!v && version <= 1 && streq(plugin, "cri"))
		v = toml_lookup(root, "plugins", "io.containerd.grpc.v1.cri", NULL);
	return v && v->type == TOML_TABLE ? v : NULL;
}

/* containerd 2.x migrates a file older than version 3 before merging it; only the
 * CRI runtime plugin's options matter here. */
static bool migrated(const struct containerd_config *c, const struct containerd_file *f,
		     const char *plugin)
{
	return c->version >= 3 && f->version < 3 && streq(plugin, containerd_cri_runtime_plugin(3));
}

/* The pre-v3 CRI table of f that the migration reads: version 1 files may name it "cri". */
static const struct toml_value *old_cri_table(const struct containerd_file *f)
{
	const struct toml_value *sec = plugin_table(f->root, "io.containerd.grpc.v1.cri", 2);
	if (!sec && f->version <= 1)
		sec = plugin_table(f->root, "cri", 2);
	return sec;
}

static const struct toml_value *table_key(const struct toml_value *sec, const char *key)
{
	return sec ? toml_table_get(sec->t, key) : NULL;
}

void containerd_config_plugin_key(const struct containerd_config *c, const char *plugin,
				  const char *key, struct containerd_setting *ret)
{
	*ret = (struct containerd_setting){0};
	for (size_t i = 0; i < c->n; i++) {
		const struct containerd_file *f = &c->files[i];
		const struct toml_value *sec = plugin_table(f->root, plugin, c->version);
		const struct toml_value *v = table_key(sec, key);
		/* The migration copies a key only where the new table does not have it. */
		if (!v && migrated(c, f, plugin))
			v = table_key(old_cri_table(f), key);
		if (c->version >= 3) {
			/* Key-level merge: a later file only wins where it sets the key. */
			if (v)
				*ret = (struct containerd_setting){v, f->path, v->line};
		} else if (sec) {
			/* Section replace: the last file with the section decides, set or not. */
			*ret = (struct containerd_setting){v, v ? f->path : NULL, v ? v->line : 0};
		}
	}
}

/* prefix.k, k quoted when it is not a bare key. */
static char *path_join(const char *prefix, const char *k)
{
	bool needs_quote = strpbrk(k, ". \"'") || !*k;
	return xasprintf(needs_quote ? "%s%s\"%s\"" : "%s%s%s", prefix, *prefix ? "." : "", k);
}

static void find_in(const struct toml_table *t, const char *file, const char *key,
		    const char *prefix, struct strv *ret, size_t max)
{
	for (size_t i = 0; i < t->n && ret->n < max; i++) {
		const struct toml_kv *kv = &t->items[i];
		const char *k = kv->key;
		char *path = path_join(prefix, k);
		if (streq(k, key)) {
			note(ret, xasprintf("%s:%u: %s", file, kv->val.line, path));
		}
		if (kv->val.type == TOML_TABLE)
			find_in(kv->val.t, file, key, path, ret, max);
		free(path);
	}
}

void containerd_config_find_key(const struct containerd_config *c, const char *key,
				struct strv *ret, size_t max)
{
	for (size_t i = 0; i < c->n; i++) {
		find_in(c->files[i].root, c->files[i].path, key, "", ret, max);
	}
}

/* ": plugins.<table>.<key>", the way find_in() ends a place. */
static char *place_suffix(const char *table, const char *key)
{
	_cleanup_free_ char *t = path_join("plugins", table);
	_cleanup_free_ char *p = path_join(t, key);
	return xasprintf(": %s", p);
}

/* The tables of f whose key containerd reads as plugins.<plugin>.<key>. */
static void read_tables(const struct containerd_config *c, const struct containerd_file *f,
			const char *plugin, const char *key, struct strv *ret)
{
	strv_add(ret, plugin);
	/* Version 1 files may name the CRI plugin by its full URI. */
	if (c->version <= 1 && streq(plugin, "cri"))
		strv_add(ret, "io.containerd.grpc.v1.cri");
	if (!migrated(c, f, plugin) || table_key(plugin_table(f->root, plugin, c->version), key))
		return;
	strv_add(ret, "io.containerd.grpc.v1.cri");
	if (f->version <= 1 && !plugin_table(f->root, "io.containerd.grpc.v1.cri", 2))
		strv_add(ret, "cri");
}

void containerd_config_find_ignored(const struct containerd_config *c, const char *plugin,
				    const char *key, struct strv *ret, size_t max)
{
	for (size_t i = 0; i < c->n && ret->n < max; i++) {
		struct strv places = {0}, tables = {0}, read = {0};
		find_in(c->files[i].root, c->files[i].path, key, "", &places, max);
		read_tables(c, &c->files[i], plugin, key, &tables);
		for (size_t t = 0; t < tables.n; t++)
			note(&read, place_suffix(tables.items[t], key));
		for (size_t p = 0; p < places.n && ret->n < max; p++) {
			bool counts = false;
			for (size_t t = 0; t < read.n && !counts; t++)
				counts = endswith(places.items[p], read.items[t]);
			if (!counts)
				strv_add(ret, places.items[p]);
		}
		strv_clear(&places);
		strv_clear(&tables);
		strv_clear(&read);
	}
}
