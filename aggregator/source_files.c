/*
 * The files backend (--cluster-state, docs/collect.md): `kubectl get … -o json`
 * output, one file or a directory of *.json files, each a stream of JSON
 * values (one object or List each; several may follow one another). Files
 * are bounded in size, Lists are taken apart item by item and a bad byte is
 * reported with its line and column (the JSON stream reader,
 * aggregator/source_json_stream.c).
 *
 * A resource is collected when its file (PLURAL.GROUP.json) is there, even an
 * empty List, or when objects of its kind appear in any file. A directory's
 * collect.json (written by `collect`) tells "not installed", "forbidden" and
 * "failed" apart for the resources without data.
 *
 * An empty file (0 bytes, or white space only) is what `kubectl get X -o json
 * > X.json` leaves when X's resource type is not installed (kubectl prints the
 * error on stderr, nothing on stdout): the resource is not collected, with
 * that reason (or what collect.json says), never an error for the report. An
 * empty generic List (kind "List", no items) carries no kind: in a file named
 * for no resource it marks nothing, and the not-collected reasons say so
 * (docs/collect.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster_identity.h"
#include "json_query.h"
#include "source.h"
#include "source_json_stream.h"

#define MAX_LIST_NEST	 4
#define WINDOW		 (1u << 20)
#define MAX_LOAD_THREADS 8

struct loader {
	struct cluster_state *cs;
	struct source_files_stats *stats;
	struct seen_set *seen[_RES_MAX]; /* (namespace, name) of held objects, for duplicates */
	int64_t newest_ns;
	char *err;
	size_t errlen;
	size_t empty_lists; /* generic Lists without items: they name no resource */
};

static struct jv_arena *arena(struct scan *s)
{
	return cs_arena(s->ld->cs);
}

static _printf_(2, 3) int fail(struct loader *ld, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ld->err, ld->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *source_collect_status_name(enum resource_status s)
{
	switch (s) {
	case RES_COLLECTED:
		return "served";
	case RES_NOT_INSTALLED:
		return "not-served";
	case RES_FORBIDDEN:
		return "forbidden";
	case RES_FAILED:
		return "failed";
	case RES_NOT_COLLECTED:
		break;
	}
	return "not-collected";
}

static int collect_status_from_name(const char *s, enum resource_status *ret)
{
	for (int i = RES_NOT_COLLECTED; i <= RES_FAILED; i++)
		if (streq(s, source_collect_status_name(i))) {
			*ret = i;
			return 0;
		}
	return -EINVAL;
}

struct jv source_typed_item(struct jv_arena *ar, const struct jv *item, const char *api_version,
			    const char *kind)
{
	const struct jv *a = JQ(item, "apiVersion"), *k = JQ(item, "kind");
	if (jv_is(a, JV_STRING) && jv_is(k, JV_STRING))
		return *item;
	size_t n = jv_nmembers(item), i = 0;
	struct jv_member *m = jv_arena_alloc(ar, (n + 2) * sizeof(*m));
	m[i++] = (struct jv_member){jv_arena_intern(ar, "apiVersion"),
				    jv_is(a, JV_STRING) ? *a : jv_string(ar, api_version)};
	m[i++] = (struct jv_member){jv_arena_intern(ar, "kind"),
				    jv_is(k, JV_STRING) ? *k : jv_string(ar, kind)};
	for (size_t j = 0; j < n; j++) {
		const char *key = item->u.m[j].key;
		if (!streq(key, "apiVersion") && !streq(key, "kind"))
			m[i++] = item->u.m[j];
	}
	return (struct jv){.type = JV_OBJECT, .n = (uint32_t)i, .u.m = m};
}

struct jv source_trim_item(struct jv_arena *ar, const struct jv *item, const char *kind)
{
	const struct jv *meta = JQ(item, "metadata");
	if (streq(kind, "KubeVirt") || !jv_is(meta, JV_OBJECT) ||
	    !jv_get_ex(meta, "managedFields", NULL))
		return *item;
	return jv_with(ar, item, "metadata", jv_without(ar, meta, "managedFields"));
}

/* The (namespace, name) of the objects already held for a resource, built
 * on first use so that several --cluster-state paths (or overlapping files)
 * do not count an object twice. Open addressing over copies of the objects'
 * values (16 bytes each: their members stay in the arena, which never moves). */
struct seen_set {
	struct seen_slot *slot; /* o.type JV_NULL: free */
	size_t n, cap;
};

struct seen_slot {
	struct jv o;
	uint64_t h; /* of (namespace, name): compared before the names, kept for growing */
};

static uint64_t hash_mix(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

static uint64_t seen_hash(const struct jv *o)
{
	const char *ns = jq_namespace(o);
	return hash_mix(hash_mix(1469598103934665603ull, ns ? ns : ""), jq_name(o));
}

/* The slot of o (hash h): where it is, or the free one it would take. */
static size_t seen_slot(const struct seen_set *set, const struct jv *o, uint64_t h)
{
	const char *ns = NULL, *name = NULL;
	size_t j = h & (set->cap - 1);
	for (; set->slot[j].o.type != JV_NULL; j = (j + 1) & (set->cap - 1)) {
		if (set->slot[j].h != h)
			continue;
		if (!name) {
			ns = jq_namespace(o);
			name = jq_name(o);
		}
		const char *ns2 = jq_namespace(&set->slot[j].o);
		if (streq(jq_name(&set->slot[j].o), name) && streq(ns ? ns : "", ns2 ? ns2 : ""))
			break;
	}
	return j;
}

static void seen_grow(struct seen_set *set)
{
	struct seen_set g = {.cap = set->cap ? set->cap * 2 : 64};
	g.slot = xcalloc(g.cap, sizeof(*g.slot));
	for (size_t i = 0; i < set->cap; i++) {
		if (set->slot[i].o.type == JV_NULL)
			continue;
		/* the keys are unique: the first free slot */
		size_t j = set->slot[i].h & (g.cap - 1);
		while (g.slot[j].o.type != JV_NULL)
			j = (j + 1) & (g.cap - 1);
		g.slot[j] = set->slot[i];
	}
	g.n = set->n;
	free(set->slot);
	*set = g;
}

/* Adds o (an object with a name); false if one of that namespace and name
 * was there. */
static bool seen_add(struct seen_set *set, const struct jv *o)
{
	if ((set->n + 1) * 2 > set->cap)
		seen_grow(set);
	uint64_t h = seen_hash(o);
	size_t j = seen_slot(set, o, h);
	if (set->slot[j].o.type != JV_NULL)
		return false;
	set->slot[j] = (struct seen_slot){*o, h};
	set->n++;
	return true;
}

static void seen_free(struct seen_set *set)
{
	if (set)
		free(set->slot);
	free(set);
}

static struct seen_set *seen_index(struct loader *ld, enum resource_id id)
{
	if (ld->seen[id])
		return ld->seen[id];
	ld->seen[id] = xcalloc(1, sizeof(struct seen_set));
	const struct jv *items = cs_items(ld->cs, id);
	for (size_t i = 0; i < jq_len(items); i++) {
		const struct jv *o = jq_at(items, i);
		if (jq_name(o))
			seen_add(ld->seen[id], o);
	}
	return ld->seen[id];
}

static void add_known(struct loader *ld, const struct resource_def *d, const struct jv *o)
{
	if (jq_name(o) && !seen_add(seen_index(ld, d->id), o)) {
		if (ld->stats)
			ld->stats->duplicates++;
		return;
	}
	cs_add_jv(ld->cs, d->id, *o);
	if (ld->stats)
		ld->stats->objects++;
}

static void group_of(const char *api_version, char *group, size_t len)
{
	const char *slash = strchr(api_version, '/');
	if (slash)
		snprintf(group, len, "%.*s", (int)(slash - api_version), api_version);
	else
		group[0] = '\0'; /* "v1": the core group */
}

static bool is_list(const struct jv *o)
{
	const char *kind = jq_kind(o);
	return kind && endswith(kind, "List") && jv_get_ex(o, "items", NULL);
}

static int add_value(struct scan *s, const struct jv *o, const char *where, const char *list_api,
		     const char *list_kind, int nest);

static int add_list(struct scan *s, const struct jv *list, const char *where, int nest)
{
	struct loader *ld = s->ld;
	const struct jv *items = JQ(list, "items");
	const char *kind = jq_kind(list), *api = JQS(list, "apiVersion");
	if (nest >= MAX_LIST_NEST)
		return fail(ld, "%s: %s: Lists nested more than %d deep", s->name, where,
			    MAX_LIST_NEST);
	if (items && !jv_is(items, JV_ARRAY))
		return fail(ld, "%s: %s: items is %s, not an array", s->name, where,
			    files_type_phrase(items));
	if (streq(kind, "List") && jq_len(items) == 0)
		ld->empty_lists++;
	/* Items of a typed list (PodList, as the API answers) may leave out
	 * apiVersion and kind; those of kubectl's generic List may not. */
	_cleanup_free_ char *item_kind = NULL;
	if (!streq(kind, "List") && api)
		item_kind = xstrndup(kind, strlen(kind) - 4);
	for (size_t i = 0; i < jq_len(items); i++) {
		const struct jv *it = jq_at(items, i);
		if (!jv_is(it, JV_OBJECT)) {
			_cleanup_free_ char *w = nest ? xasprintf("%s.items[%zu]", where, i)
						      : xasprintf("items[%zu]", i);
			return fail(ld, "%s: %s is %s, not an object", s->name, w,
				    files_type_phrase(it));
		}
		int r;
		if (is_list(it)) {
			/* Only a nested List needs its place named. */
			_cleanup_free_ char *w = nest ? xasprintf("%s.items[%zu]", where, i)
						      : xasprintf("items[%zu]", i);
			r = add_value(s, it, w, item_kind ? api : NULL, item_kind, nest + 1);
		} else {
			r = add_value(s, it, NULL, item_kind ? api : NULL, item_kind, nest + 1);
			if (r == -EAGAIN) {
				_cleanup_free_ char *w = nest ? xasprintf("%s.items[%zu]", where, i)
							      : xasprintf("items[%zu]", i);
				r = add_value(s, it, w, item_kind ? api : NULL, item_kind,
					      nest + 1);
			}
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* where may be NULL for an item that is not a List: then a value that needs
 * its place named in a message returns -EAGAIN (names cost a malloc each, and
 * a List has thousands of good items). */
static int add_value(struct scan *s, const struct jv *o, const char *where, const char *list_api,
		     const char *list_kind, int nest)
{
	struct loader *ld = s->ld;
	if (is_list(o))
		return add_list(s, o, where, nest);
	struct jv_arena *ar = arena(s);
	const char *kind = JQS(o, "kind"), *api = JQS(o, "apiVersion");
	struct jv typed;
	if ((!kind || !api) && list_kind) {
		typed = source_typed_item(ar, o, list_api, list_kind);
		o = &typed;
		kind = JQS(o, "kind");
		api = JQS(o, "apiVersion");
	}
	if (!kind || !*kind || !api || !*api) {
		if (!where)
			return -EAGAIN;
		return fail(ld, "%s: %s has no %s (is this kubectl get -o json output?)", s->name,
			    where, !api || !*api ? "apiVersion" : "kind");
	}
	char group[256];
	group_of(api, group, sizeof(group));
	const struct resource_def *d = resource_find(group, kind);
	if (!d && cluster_identity_from_object(ld->cs, o))
		return 0; /* not a resource of the table: only the header reads it */
	if (!d) {
		if (ld->stats)
			ld->stats->ignored++;
		return 0;
	}
	struct jv trimmed = source_trim_item(ar, o, d->kind);
	add_known(ld, d, &trimmed);
	return 0;
}

int files_add_object(struct scan *s, const struct jv *o, const char *where)
{
	return add_value(s, o, where, NULL, NULL, 0);
}

static void loader_done(struct loader *ld)
{
	for (int i = 0; i < _RES_MAX; i++)
		seen_free(ld->seen[i]);
}

static int parse_buf(struct loader *ld, const uint8_t *buf, size_t len, const char *name)
{
	if (len > SOURCE_FILE_MAX)
		return fail(ld, "%s: larger than %lu MiB", name, SOURCE_FILE_MAX >> 20);
	/* The buffer is only read: refill() writes to buf only when fd >= 0. */
	struct scan s = {.ld = ld,
			 .err = ld->err,
			 .errlen = ld->errlen,
			 .ar = cs_arena(ld->cs),
			 .name = name,
			 .buf = (char *)buf,
			 .len = len,
			 .fd = -1};
	return files_scan_all(&s);
}

int source_files_parse(struct cluster_state *cs, const uint8_t *buf, size_t len, const char *name,
		       struct source_files_stats *stats, char *err, size_t errlen)
{
	struct loader ld = {.cs = cs, .stats = stats, .err = err, .errlen = errlen};
	int r = parse_buf(&ld, buf, len, name);
	loader_done(&ld);
	return r == SCAN_EMPTY ? 0 : r; /* nothing in it: nothing collected */
}

static int load_file(struct loader *ld, int dirfd, const char *file, const char *display)
{
	_cleanup_close_ int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		fail(ld, "%s: cannot open: %s", display, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode))
		return fail(ld, "%s: not a regular file", display);
	if ((uint64_t)st.st_size > SOURCE_FILE_MAX)
		return fail(ld, "%s: %lld MiB is larger than the %lu MiB limit for one file",
			    display, (long long)(st.st_size >> 20), SOURCE_FILE_MAX >> 20);
	int64_t mtime = (int64_t)st.st_mtim.tv_sec * NSEC_PER_SEC + st.st_mtim.tv_nsec;
	if (mtime > ld->newest_ns)
		ld->newest_ns = mtime;
	struct scan s = {.ld = ld,
			 .err = ld->err,
			 .errlen = ld->errlen,
			 .ar = cs_arena(ld->cs),
			 .name = display,
			 .buf = xmalloc(WINDOW),
			 .cap = WINDOW,
			 .fd = fd};
	int r = files_scan_all(&s);
	free(s.buf); /* the window, perhaps grown */
	if (r >= 0 && ld->stats)
		ld->stats->files++;
	return r;
}

/* Does file (a base name) name a resource (PLURAL.GROUP.json)? */
static bool names_resource(const char *file)
{
	for (int i = 0; i < _RES_MAX; i++) {
		_cleanup_free_ char *fn = resource_file_name(&resource_defs[i]);
		if (streq(fn, file))
			return true;
	}
	return false;
}

/* file (a base name) is empty: its resource, if it names one, is not collected. */
static void mark_file_empty(struct loader *ld, const char *file, const char *display)
{
	for (int i = 0; i < _RES_MAX; i++) {
		_cleanup_free_ char *fn = resource_file_name(&resource_defs[i]);
		if (streq(fn, file) && ld->cs->res[i].status != RES_COLLECTED)
			cs_set_status(ld->cs, i, RES_NOT_COLLECTED,
				      "%s is empty (what kubectl get -o json > FILE leaves when "
				      "the resource type is not installed)",
				      display);
	}
}

static void mark_file_collected(struct loader *ld, const char *file)
{
	for (int i = 0; i < _RES_MAX; i++) {
		_cleanup_free_ char *fn = resource_file_name(&resource_defs[i]);
		if (streq(fn, file) && ld->cs->res[i].status != RES_COLLECTED)
			cs_set_status(ld->cs, i, RES_COLLECTED, NULL);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the *.json files in dir (sorted, so loads are reproducible). */
static int list_dir(struct loader *ld, int dirfd, const char *path, struct strv *ret)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return fail(ld, "%s: cannot list: %s", path, strerror(errno));
	}
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (n[0] == '.')
			continue; /* ., .., and collect's temporary files */
		if (endswith(n, ".yaml") || endswith(n, ".yml")) {
			r = fail(ld,
				 "%s/%s: YAML is not read; save it with kubectl get … -o json as "
				 "%.*s.json",
				 path, n, (int)(strrchr(n, '.') - n), n);
			break;
		}
		if (!endswith(n, ".json") || streq(n, "collect.json")) {
			if (ld->stats && !streq(n, "collect.json"))
				ld->stats->skipped_files++;
			continue;
		}
		/* A *.json that is no regular file (a FIFO, a directory) is named,
		 * not skipped: skipping nodes.json would read as "no nodes". */
		struct stat st;
		if (fstatat(dirfd, n, &st, 0) < 0) {
			r = fail(ld, "%s/%s: %s", path, n, strerror(errno));
			break;
		}
		if (!S_ISREG(st.st_mode)) {
			r = fail(ld, "%s/%s: not a regular file", path, n);
			break;
		}
		strv_add(ret, n);
	}
	closedir(d);
	if (r == 0 && ret->n > 0)
		qsort(ret->items, ret->n, sizeof(char *), cmp_str);
	return r;
}

static int load_collect_json(struct loader *ld, int dirfd, const char *path)
{
	_cleanup_close_ int fd =
	    openat(dirfd, "collect.json", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT
			   ? 0
			   : fail(ld, "%s/collect.json: cannot open: %s", path, strerror(errno));
	_cleanup_free_ char *display = xasprintf("%s/collect.json", path);
	struct stat st;
	if (fstat(fd, &st) < 0)
		return fail(ld, "%s: %s", display, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(ld, "%s: not a regular file", display);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = util_read_fd(fd, SOURCE_COLLECT_MAX, &buf, &len, NULL);
	if (r == -EFBIG)
		return fail(ld, "%s: larger than %lu MiB", display, SOURCE_COLLECT_MAX >> 20);
	if (r < 0)
		return fail(ld, "%s: read error: %s", display, strerror(-r));
	return source_files_parse_collect(ld->cs, (const uint8_t *)buf, len, display, ld->err,
					  ld->errlen);
}

/* One file of a directory, parsed by a worker into a state of its own. */
struct file_part {
	struct cluster_state cs;
	struct source_files_stats stats;
	int64_t newest_ns;
	size_t empty_lists;
	int r;
	char err[512];
};

struct dir_load {
	int dirfd;
	const char *path;
	const struct strv *files;
	struct file_part *parts;
	atomic_size_t next;
};

static void *dir_worker(void *arg)
{
	struct dir_load *dl = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&dl->next, 1);
		if (i >= dl->files->n)
			return NULL;
		struct file_part *p = &dl->parts[i];
		struct loader fl = {
		    .cs = &p->cs, .stats = &p->stats, .err = p->err, .errlen = sizeof(p->err)};
		_cleanup_free_ char *display = xasprintf("%s/%s", dl->path, dl->files->items[i]);
		p->r = load_file(&fl, dl->dirfd, dl->files->items[i], display);
		p->newest_ns = fl.newest_ns;
		p->empty_lists = fl.empty_lists;
		loader_done(&fl);
	}
}

/* Hand a parsed file's objects to the loader, in the file's order; objects
 * already held (an earlier file) are counted as duplicates, as in one pass. */
static void merge_part(struct loader *ld, struct file_part *p, const char *path, const char *file)
{
	for (int id = 0; id < _RES_MAX; id++) {
		const struct jv *items = cs_items(&p->cs, id);
		/* The first objects of a resource: the part's own loader already
		 * dropped its duplicates, and the index is built from cs when a
		 * later file brings more. */
		bool first = !ld->seen[id] && cs_count(ld->cs, id) == 0;
		for (size_t k = 0; k < jq_len(items); k++) {
			if (first) {
				cs_add_jv(ld->cs, id, items->u.a[k]);
				if (ld->stats)
					ld->stats->objects++;
			} else {
				add_known(ld, &resource_defs[id], jq_at(items, k));
			}
		}
	}
	/* Namespace kube-system, for the header: a UID found wins over an error. */
	if (p->cs.cluster_uid) {
		free(ld->cs->cluster_uid);
		free(ld->cs->cluster_uid_error);
		ld->cs->cluster_uid = p->cs.cluster_uid;
		ld->cs->cluster_uid_error = NULL;
		p->cs.cluster_uid = NULL;
	} else if (p->cs.cluster_uid_error && !ld->cs->cluster_uid && !ld->cs->cluster_uid_error) {
		ld->cs->cluster_uid_error = p->cs.cluster_uid_error;
		p->cs.cluster_uid_error = NULL;
	}
	/* The objects now held by ld live in p's arena: it becomes ld's. */
	if (p->cs.arena)
		jv_arena_take(cs_arena(ld->cs), p->cs.arena);
	/* An empty List in PLURAL.GROUP.json says "none exist" through the name. */
	if (!names_resource(file))
		ld->empty_lists += p->empty_lists;
	if (p->r == SCAN_EMPTY) {
		_cleanup_free_ char *display = xasprintf("%s/%s", path, file);
		mark_file_empty(ld, file, display);
	} else {
		mark_file_collected(ld, file);
	}
	if (p->newest_ns > ld->newest_ns)
		ld->newest_ns = p->newest_ns;
	if (ld->stats) {
		ld->stats->files += p->stats.files;
		ld->stats->ignored += p->stats.ignored;
		ld->stats->duplicates += p->stats.duplicates;
	}
}

/* Parsing is most of a report's time (json_tokener: ~50 MB/s on one core)
 * and the files are independent: they are parsed by up to one thread per
 * CPU, then merged in name order, so the result (order of items, which of
 * two duplicates is kept, the first error) is the same as one pass. */
static int load_dir_files(struct loader *ld, int dirfd, const char *path, const struct strv *files)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nthreads = ncpu > 1 ? (size_t)ncpu : 1;
	if (nthreads > MAX_LOAD_THREADS)
		nthreads = MAX_LOAD_THREADS;
	if (nthreads > files->n)
		nthreads = files->n;
	struct dir_load dl = {.dirfd = dirfd, .path = path, .files = files};
	dl.parts = xcalloc(files->n ? files->n : 1, sizeof(*dl.parts));
	for (size_t i = 0; i < files->n; i++)
		cluster_state_init(&dl.parts[i].cs);
	atomic_init(&dl.next, 0);
	/* json-c seeds its string hash on first use: do it before the threads. */
	json_object_put(json_object_new_object());
	pthread_t tids[MAX_LOAD_THREADS];
	size_t started = 0;
	for (; started + 1 < nthreads; started++)
		if (pthread_create(&tids[started], NULL, dir_worker, &dl) != 0)
			break; /* fewer threads: this one does the rest */
	dir_worker(&dl);
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	int r = 0;
	for (size_t i = 0; i < files->n; i++) {
		struct file_part *p = &dl.parts[i];
		if (r == 0 && p->r < 0) {
			r = p->r;
			snprintf(ld->err, ld->errlen, "%s", p->err);
		}
		if (r == 0)
			merge_part(ld, p, path, files->items[i]);
		cluster_state_clear(&p->cs);
	}
	free(dl.parts);
	return r;
}

static int load_dir(struct loader *ld, int dirfd, const char *path)
{
	struct strv files = {0};
	int r = list_dir(ld, dirfd, path, &files);
	if (r == 0)
		r = load_dir_files(ld, dirfd, path, &files);
	strv_clear(&files);
	if (r == 0)
		r = load_collect_json(ld, dirfd, path);
	return r;
}

static void note_not_collected(struct cluster_state *cs, size_t empty_lists)
{
	for (int i = 0; i < _RES_MAX; i++) {
		const struct resource_def *d = &resource_defs[i];
		if (cs->res[i].status != RES_NOT_COLLECTED || cs->res[i].error)
			continue;
		_cleanup_free_ char *fn = resource_file_name(d);
		if (empty_lists)
			cs_set_status(
			    cs, i, RES_NOT_COLLECTED,
			    "no %s and no %s objects in --cluster-state (%zu empty List%s "
			    "read: an empty List carries no kind, so \"none exist\" "
			    "reads as not collected; write each resource to its own %s)",
			    fn, d->kind, empty_lists, empty_lists == 1 ? " was" : "s were", fn);
		else
			cs_set_status(cs, i, RES_NOT_COLLECTED,
				      "no %s and no %s objects in --cluster-state", fn, d->kind);
	}
}

int source_files_load_ex(struct cluster_state *cs, const char *path,
			 struct source_files_stats *stats, char *err, size_t errlen)
{
	struct loader ld = {.cs = cs, .stats = stats, .err = err, .errlen = errlen};
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		fail(&ld, "%s: cannot open: %s", path, strerror(e));
		return -e;
	}
	int r;
	if (S_ISDIR(st.st_mode)) {
		r = load_dir(&ld, fd, path);
	} else if (S_ISREG(st.st_mode)) {
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		r = load_file(&ld, AT_FDCWD, path, path);
		if (names_resource(base))
			ld.empty_lists = 0;
		if (r == SCAN_EMPTY) {
			mark_file_empty(&ld, base, path);
			r = 0;
		} else if (r == 0) {
			mark_file_collected(&ld, base);
		}
	} else {
		r = fail(&ld, "%s: not a file or a directory", path);
	}
	loader_done(&ld);
	if (r < 0)
		return r;
	note_not_collected(cs, ld.empty_lists);
	if (!cs->read_at_ns)
		cs->read_at_ns = ld.newest_ns;
	char *src =
	    cs->source ? xasprintf("%s, %s", cs->source, path) : xasprintf("files: %s", path);
	free(cs->source);
	cs->source = src;
	/* Offline, the header's "API server" is where the state was read from. */
	char *where = cs->api_server ? xasprintf("%s, %s", cs->api_server, path) : xstrdup(path);
	free(cs->api_server);
	cs->api_server = where;
	return 0;
}

int source_files_load(struct cluster_state *cs, const char *path, char *err, size_t errlen)
{
	return source_files_load_ex(cs, path, NULL, err, errlen);
}

static int apply_collect_entry(struct cluster_state *cs, const struct jv *e, size_t idx,
			       const char *name, char *err, size_t errlen)
{
	const char *group = JQS(e, "group"), *plural = JQS(e, "plural"), *st = JQS(e, "status");
	const char *error = JQS(e, "error");
	enum resource_status status;
	if (!jv_is(e, JV_OBJECT) || !group || !plural || !st) {
		snprintf(err, errlen, "%s: resources[%zu] lacks group, plural or status", name,
			 idx);
		return -EINVAL;
	}
	if (collect_status_from_name(st, &status) < 0) {
		snprintf(err, errlen, "%s: resources[%zu] has an unknown status \"%.32s\"", name,
			 idx, st);
		return -EINVAL;
	}
	const struct resource_def *d = resource_by_plural(plural, group);
	if (!d || cs->res[d->id].status == RES_COLLECTED)
		return 0; /* a resource of another hvready version; or data is here */
	int64_t ms;
	/* Informational; a value past int64 nanoseconds (292 years) is ignored. */
	if (jq_int(JQ(e, "duration_ms"), &ms) && ms >= 0 && ms <= INT64_MAX / NSEC_PER_MSEC)
		cs->res[d->id].duration_ns = ms * NSEC_PER_MSEC;
	if (status == RES_COLLECTED || status == RES_NOT_COLLECTED) {
		_cleanup_free_ char *fn = resource_file_name(d);
		/* mark_file_empty() was here: the file is there, with nothing in it. */
		const char *prev = cs->res[d->id].error;
		bool empty = prev && strstr(prev, " is empty (");
		if (status == RES_COLLECTED)
			cs_set_status(cs, d->id, RES_NOT_COLLECTED,
				      "%s says it was collected, but %s is %s", name, fn,
				      empty ? "empty" : "missing");
		else
			cs_set_status(cs, d->id, RES_NOT_COLLECTED,
				      "%s says it was not collected (%s)", name,
				      error ? error : "no reason");
		return 0;
	}
	if (error)
		cs_set_status(cs, d->id, status, "%s", error);
	else
		cs_set_status(cs, d->id, status, NULL);
	return 0;
}

int source_files_parse_collect(struct cluster_state *cs, const uint8_t *buf, size_t len,
			       const char *name, char *err, size_t errlen)
{
	if (len > SOURCE_COLLECT_MAX) {
		snprintf(err, errlen, "%s: larger than %lu MiB", name, SOURCE_COLLECT_MAX >> 20);
		return -EFBIG;
	}
	json_tokener *tok = json_tokener_new_ex(SOURCE_JSON_MAX_DEPTH);
	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	json_object *oj = json_tokener_parse_ex(tok, (const char *)buf, (int)len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	struct jv root = jv_from_json(ar, oj);
	const struct jv *o = oj ? &root : NULL;
	json_object_put(oj);
	int r = 0;
	const char *schema = JQS(o, "schema");
	const struct jv *res = JQ(o, "resources");
	if (!o) {
		snprintf(err, errlen, "%s: malformed JSON at byte %zu: %s", name, end,
			 e == json_tokener_continue ? "unexpected end of input"
						    : json_tokener_error_desc(e));
		r = -EINVAL;
	} else if (!streq(schema, SOURCE_COLLECT_SCHEMA) &&
		   !startswith(schema ? schema : "", SOURCE_COLLECT_SCHEMA ".")) {
		snprintf(err, errlen,
			 "%s: not an hvready collect.json (schema \"%.64s\", expected %s)", name,
			 schema ? schema : "", SOURCE_COLLECT_SCHEMA);
		r = -EINVAL;
	} else if (!jv_is(res, JV_ARRAY)) {
		snprintf(err, errlen, "%s: resources is not an array", name);
		r = -EINVAL;
	}
	for (size_t i = 0; r == 0 && i < jq_len(res); i++)
		r = apply_collect_entry(cs, jq_at(res, i), i, name, err, errlen);
	if (r == 0)
		cluster_identity_from_collect(cs, JQ(o, "cluster_identity"), name);
	int64_t at;
	if (r == 0 && jq_time(JQ(o, "collected_at"), &at))
		cs->read_at_ns = at;
	return r;
}
