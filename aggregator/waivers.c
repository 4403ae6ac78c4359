/* The waivers file: parse, check against the catalog, apply (docs/change-board.md). */
#include "waivers.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "suggest.h"
#include "util.h"
#include "yaml_json.h"

static const char *const keys[] = {"check",	 "node",    "object", "reason",
				   "approvedBy", "expires", NULL};

void waivers_clear(struct waiver_list *wl)
{
	for (size_t i = 0; i < wl->n; i++) {
		struct waiver *w = &wl->items[i];
		free(w->check);
		free(w->node);
		free(w->object);
		free(w->reason);
		free(w->approved_by);
		free(w->expires);
	}
	free(wl->items);
	free(wl->file);
	*wl = (struct waiver_list){0};
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* "2026-12-31" (through the end of that day, UTC) or an RFC 3339 date-time
 * (up to that instant): the first instant the waiver no longer applies. */
static int parse_expires(const char *s, int64_t *ret)
{
	int y, m, d;
	char tail;
	if (strlen(s) < 10 || sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &tail) < 3)
		return -EINVAL;
	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : (s[i] < '0' || s[i] > '9'))
			return -EINVAL;
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap(y)))
		return -EINVAL;
	if (s[10] == '\0') {
		char full[32];
		snprintf(full, sizeof(full), "%.10sT00:00:00Z", s);
		int64_t start;
		if (util_parse_rfc3339(full, &start) < 0)
			return -EINVAL;
		*ret = start + 86400 * NSEC_PER_SEC;
		return 0;
	}
	return util_parse_rfc3339(s, ret);
}

/* A string value (an integer is taken as written, "approvedBy: 4711"). */
static int text_of(json_object *v, const char **ret)
{
	if (json_object_is_type(v, json_type_string) || json_object_is_type(v, json_type_int)) {
		*ret = json_object_get_string(v);
		return 0;
	}
	return -EINVAL;
}

/* One line, no control bytes: the values reach every rendering. */
static bool one_line(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static int parse_one(json_object *o, size_t idx, const char *name, struct waiver *w, char *err,
		     size_t errlen)
{
	char q[80];
	if (!json_object_is_type(o, json_type_object))
		return util_fail(err, errlen,
				 "%s: waiver %zu is not a mapping (expected \"- check: ID\" with "
				 "reason and approvedBy)",
				 name, idx);
	json_object_object_foreach(o, key, val)
	{
		int k = 0;
		while (keys[k] && !streq(keys[k], key))
			k++;
		char hint[128];
		if (!keys[k])
			return util_fail(
			    err, errlen, "%s: waiver %zu: unknown key \"%s\"%s", name, idx,
			    suggest_quote(key, q, 48),
			    suggest_hint(key, keys, ELEMENTSOF(keys) - 1, hint, sizeof(hint)));
		const char *s;
		if (text_of(val, &s) < 0)
			return util_fail(err, errlen, "%s: waiver %zu: %s must be text", name, idx,
					 key);
		if (!*s)
			return util_fail(err, errlen, "%s: waiver %zu: %s is empty", name, idx,
					 key);
		if (strlen(s) > WAIVER_TEXT_MAX || !one_line(s))
			return util_fail(err, errlen,
					 "%s: waiver %zu: %s must be one line of at most %d bytes",
					 name, idx, key, WAIVER_TEXT_MAX);
		char **dst[] = {&w->check,  &w->node,	     &w->object,
				&w->reason, &w->approved_by, &w->expires};
		free(*dst[k]);
		*dst[k] = xstrdup(s);
	}
	if (!w->check)
		return util_fail(err, errlen, "%s: waiver %zu: check is required (a check ID)",
				 name, idx);
	if (!catalog_find(w->check)) {
		const char **ids = xcalloc(catalog_len + 1, sizeof(*ids));
		for (size_t i = 0; i < catalog_len; i++)
			ids[i] = catalog[i].id;
		char hint[160];
		util_fail(err, errlen,
			  "%s: waiver %zu: \"%s\" is not a check ID (docs/checks.md)%s", name, idx,
			  suggest_quote(w->check, q, 64),
			  suggest_hint(w->check, ids, catalog_len, hint, sizeof(hint)));
		free(ids);
		return -EINVAL;
	}
	if (!w->reason)
		return util_fail(err, errlen, "%s: waiver %zu (%s): reason is required", name, idx,
				 w->check);
	if (!w->approved_by)
		return util_fail(err, errlen, "%s: waiver %zu (%s): approvedBy is required", name,
				 idx, w->check);
	w->expires_ns = INT64_MAX;
	if (w->expires && parse_expires(w->expires, &w->expires_ns) < 0)
		return util_fail(err, errlen,
				 "%s: waiver %zu (%s): expires \"%s\" is not an RFC 3339 date "
				 "(2026-12-31) or date-time (2026-12-31T18:00:00Z)",
				 name, idx, w->check, suggest_quote(w->expires, q, 40));
	return 0;
}

int waivers_parse(const uint8_t *buf, size_t len, const char *name, struct waiver_list *ret,
		  char *err, size_t errlen)
{
	*ret = (struct waiver_list){0};
	if (len > WAIVERS_FILE_MAX)
		return util_fail(err, errlen, "%s: larger than %u KiB", name,
				 WAIVERS_FILE_MAX >> 10);
	json_object *root = NULL;
	char why[256];
	if (yaml_json_parse(buf, len, &root, why, sizeof(why)) < 0)
		return util_fail(err, errlen, "%s: %s", name, why);
	int r = 0;
	if (!root) {
		r = util_fail(err, errlen,
			      "%s: no waivers (expected a YAML list of \"- check: ID\" entries)",
			      name);
	} else if (!json_object_is_type(root, json_type_array)) {
		r = util_fail(
		    err, errlen,
		    "%s: not a YAML list (expected \"- check: ID\" entries with reason and "
		    "approvedBy)",
		    name);
	} else if (json_object_array_length(root) > WAIVERS_MAX) {
		r = util_fail(err, errlen, "%s: more than %d waivers", name, WAIVERS_MAX);
	} else {
		size_t n = json_object_array_length(root);
		ret->items = xcalloc(n ? n : 1, sizeof(*ret->items));
		for (size_t i = 0; i < n && r == 0; i++) {
			ret->n++;
			r = parse_one(json_object_array_get_idx(root, i), i + 1, name,
				      &ret->items[i], err, errlen);
		}
	}
	json_object_put(root);
	if (r < 0)
		waivers_clear(ret);
	else
		ret->file = xstrdup(name);
	return r;
}

int waivers_load(const char *path, struct waiver_list *ret, char *err, size_t errlen)
{
	*ret = (struct waiver_list){0};
	char *buf = NULL;
	size_t len = 0;
	int r = util_read_file(path, WAIVERS_FILE_MAX, &buf, &len);
	if (r < 0) {
		util_fail(err, errlen, "%s: %s", path, util_read_strerror(r));
		return r;
	}
	r = waivers_parse((const uint8_t *)buf, len, path, ret, err, errlen);
	free(buf);
	return r;
}

static bool matches(const struct waiver *w, const struct finding *f)
{
	return streq(w->check, f->check) && (!w->node || streq(w->node, f->node)) &&
	       (!w->object || streq(w->object, f->object));
}

void waivers_apply(struct waiver_list *wl, const struct finding_list *l, int64_t now_ns,
		   ssize_t *ret_of)
{
	for (size_t k = 0; k < wl->n; k++) {
		struct waiver *w = &wl->items[k];
		w->expired = now_ns >= w->expires_ns;
		w->applied = w->unknown_matched = 0;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *f = &l->items[i];
		ret_of[i] = -1;
		for (size_t k = 0; k < wl->n; k++) {
			struct waiver *w = &wl->items[k];
			if (w->expired || !matches(w, f))
				continue;
			if (f->status == STATUS_UNKNOWN) {
				w->unknown_matched++;
				continue;
			}
			if (f->status != STATUS_WARN && f->status != STATUS_FAIL)
				continue;
			if (ret_of[i] < 0) {
				ret_of[i] = (ssize_t)k;
				w->applied++;
			}
		}
	}
}

char *waiver_note(const struct waiver *w)
{
	if (!w->expires)
		return xasprintf("waived (%s, by %s, no expiry)", w->reason, w->approved_by);
	return xasprintf("waived (%s, by %s, until %s)", w->reason, w->approved_by, w->expires);
}

const char *waiver_state(const struct waiver *w)
{
	return w->expired ? "expired" : w->applied ? "used" : "unused";
}
