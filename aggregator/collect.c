/*
 * `collect`: the cluster state written as files that the files backend reads
 * back into the same state. One `List` per collected resource, named
 * PLURAL.GROUP.json and printed the way `kubectl get -o json` prints it (4
 * spaces, items with apiVersion and kind), and collect.json with how the API
 * answered for each resource (docs/collect.md). Every file is written to a
 * hidden temporary name and renamed, so a reader never sees half a file; a
 * file left from an earlier collect of a resource that is not collected now
 * is removed, so that it cannot pass for fresh data.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cluster_identity.h"
#include "source.h"

static void put_indent(FILE *f, int depth)
{
	for (int i = 0; i < depth; i++)
		fputs("    ", f);
}

/* JSON string escaping as encoding/json does it (kubectl), HTML escapes aside. */
static void put_string(FILE *f, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20) {
				fputs("\\u00", f);
				fputc(hex[c >> 4], f);
				fputc(hex[c & 15], f);
			} else {
				fputc(c, f);
			}
		}
	}
	fputc('"', f);
}

static void put_value(FILE *f, const struct jv *o, int depth)
{
	switch (jv_type(o)) {
	case JV_NULL:
		fputs("null", f);
		break;
	case JV_BOOL:
		fputs(o->u.b ? "true" : "false", f);
		break;
	case JV_INT:
		if (o->uns)
			fprintf(f, "%" PRIu64, o->u.u);
		else
			fprintf(f, "%" PRId64, o->u.i);
		break;
	case JV_DOUBLE:
		fputs(o->u.s, f); /* the number's original text */
		break;
	case JV_STRING:
		put_string(f, o->u.s, o->n);
		break;
	case JV_ARRAY:
	case JV_OBJECT: {
		bool obj = o->type == JV_OBJECT;
		if (o->n == 0) {
			fputs(obj ? "{}" : "[]", f);
			break;
		}
		fputs(obj ? "{\n" : "[\n", f);
		for (size_t i = 0; i < o->n; i++) {
			put_indent(f, depth + 1);
			if (obj) {
				put_string(f, o->u.m[i].key, strlen(o->u.m[i].key));
				fputs(": ", f);
			}
			put_value(f, obj ? &o->u.m[i].val : &o->u.a[i], depth + 1);
			fputs(i + 1 < o->n ? ",\n" : "\n", f);
		}
		put_indent(f, depth);
		fputc(obj ? '}' : ']', f);
		break;
	}
	}
}

/* Write name in dirfd atomically: temporary file, fsync, rename. */
static int write_atomic(int dirfd, const char *dir, const char *name, const struct jv *o, char *err,
			size_t errlen)
{
	_cleanup_free_ char *tmp = xasprintf(".%s.tmp", name);
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s/%s: cannot create: %s", dir, tmp, strerror(e));
		return -e;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		snprintf(err, errlen, "%s/%s: %s", dir, tmp, strerror(e));
		return -e;
	}
	put_value(f, o, 0);
	fputc('\n', f);
	int e = 0;
	if (fflush(f) != 0 || ferror(f) || fsync(fd) < 0)
		e = errno ? errno : EIO;
	if (fclose(f) != 0 && !e)
		e = errno;
	if (!e && renameat(dirfd, tmp, dirfd, name) < 0)
		e = errno;
	if (e) {
		unlinkat(dirfd, tmp, 0);
		snprintf(err, errlen, "%s/%s: cannot write: %s", dir, name, strerror(e));
		return -e;
	}
	return 0;
}

/* The List kubectl prints around the items (which are cs's, not copied). */
static struct jv list_of(struct jv_arena *ar, const struct jv *items)
{
	struct jv_builder meta = {0}, l = {0};
	jv_builder_set(ar, &meta, "resourceVersion", jv_string(ar, ""));
	jv_builder_set(ar, &l, "apiVersion", jv_string(ar, "v1"));
	jv_builder_set(ar, &l, "items", *items);
	jv_builder_set(ar, &l, "kind", jv_string(ar, "List"));
	jv_builder_set(ar, &l, "metadata", jv_builder_object(ar, &meta));
	return jv_builder_object(ar, &l);
}

static json_object *status_entry(const struct cluster_state *cs, int i, const char *file)
{
	const struct resource_def *d = &resource_defs[i];
	const struct resource_data *r = &cs->res[i];
	json_object *e = json_object_new_object();
	_cleanup_free_ char *name = resource_display_name(d);
	json_object_object_add(e, "resource", json_object_new_string(name));
	json_object_object_add(e, "group", json_object_new_string(d->group));
	json_object_object_add(e, "version", json_object_new_string(d->version));
	json_object_object_add(e, "plural", json_object_new_string(d->plural));
	json_object_object_add(e, "kind", json_object_new_string(d->kind));
	json_object_object_add(e, "status",
			       json_object_new_string(source_collect_status_name(r->status)));
	if (r->status == RES_COLLECTED) {
		json_object_object_add(e, "file", json_object_new_string(file));
		json_object_object_add(e, "items", json_object_new_int64((int64_t)cs_count(cs, i)));
	}
	json_object_object_add(e, "duration_ms",
			       json_object_new_int64(r->duration_ns / NSEC_PER_MSEC));
	if (r->error)
		json_object_object_add(e, "error", json_object_new_string(r->error));
	return e;
}

static int open_dir(const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot create the directory: %s", dir, strerror(e));
		return -e;
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", dir,
			 e == ENOTDIR ? "exists and is not a directory" : strerror(e));
		return -e;
	}
	return fd;
}

int collect_write(const struct cluster_state *cs, const char *dir, char *err, size_t errlen)
{
	_cleanup_close_ int dirfd = open_dir(dir, err, errlen);
	if (dirfd < 0)
		return dirfd;
	json_object *resources = json_object_new_array();
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	int r = 0;
	for (int i = 0; i < _RES_MAX && r == 0; i++) {
		_cleanup_free_ char *fn = resource_file_name(&resource_defs[i]);
		if (cs->res[i].status == RES_COLLECTED) {
			struct jv l = list_of(ar, cs_items(cs, i));
			r = write_atomic(dirfd, dir, fn, &l, err, errlen);
		} else if (unlinkat(dirfd, fn, 0) < 0 && errno != ENOENT) {
			r = -errno;
			snprintf(err, errlen, "%s/%s: cannot remove the stale file: %s", dir, fn,
				 strerror(-r));
		}
		json_object_array_add(resources, status_entry(cs, i, fn));
	}
	if (r == 0) {
		char at[64];
		util_format_rfc3339(cs->read_at_ns, at, sizeof(at));
		json_object *c = json_object_new_object();
		json_object_object_add(c, "schema", json_object_new_string(SOURCE_COLLECT_SCHEMA));
		json_object_object_add(c, "hvready_version",
				       json_object_new_string(HVREADY_VERSION));
		json_object_object_add(c, "collected_at", json_object_new_string(at));
		json_object_object_add(c, "source",
				       json_object_new_string(cs->source ? cs->source : ""));
		json_object_object_add(c, "resources", json_object_get(resources));
		json_object_object_add(c, "cluster_identity", cluster_identity_collect_json(cs));
		struct jv cj = jv_from_json(ar, c);
		r = write_atomic(dirfd, dir, "collect.json", &cj, err, errlen);
		json_object_put(c);
	}
	json_object_put(resources);
	if (r == 0 && fsync(dirfd) < 0) {
		r = -errno;
		snprintf(err, errlen, "%s: fsync: %s", dir, strerror(-r));
	}
	return r;
}
