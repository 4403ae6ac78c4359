#include "probe_targets.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int get_string(json_object *o, const char *key, char **ret, char *err, size_t errlen)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string)) {
		snprintf(err, errlen, "\"%s\" must be a string", key);
		return -EINVAL;
	}
	free(*ret);
	*ret = xstrdup(json_object_get_string(v));
	return 0;
}

static int get_strings(json_object *o, const char *key, struct strv *ret, char *err, size_t errlen)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_array)) {
		snprintf(err, errlen, "\"%s\" must be an array of strings", key);
		return -EINVAL;
	}
	size_t n = json_object_array_length(v);
	if (n > PROBE_TARGETS_MAX_ITEMS) {
		snprintf(err, errlen, "\"%s\" has %zu entries (at most %u)", key, n,
			 PROBE_TARGETS_MAX_ITEMS);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(v, i);
		if (!json_object_is_type(e, json_type_string)) {
			snprintf(err, errlen, "\"%s\"[%zu] must be a string", key, i);
			return -EINVAL;
		}
		if (!strv_contains(ret, json_object_get_string(e)))
			strv_add(ret, json_object_get_string(e));
	}
	return 0;
}

const char *const probe_targets_known_keys[] = {
    "share_manager_image", "share_manager_pull_policy",
    "nfs_endpoints",	   "longhorn_data_paths",
    "canary_export",	   NULL,
};

void probe_targets_unknown_keys(json_object *o, struct strv *ret)
{
	if (!json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, key, val)
	{
		(void)val;
		bool known = false;
		for (const char *const *k = probe_targets_known_keys; *k && !known; k++)
			known = streq(key, *k);
		if (!known)
			strv_add(ret, key);
	}
}

int probe_targets_from_json(json_object *o, struct probe_targets *ret, char *err, size_t errlen)
{
	struct probe_targets t = {0};
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "probe targets must be a JSON object");
		return -EINVAL;
	}
	int r;
	if ((r = get_string(o, "share_manager_image", &t.share_manager_image, err, errlen)) < 0 ||
	    (r = get_string(o, "share_manager_pull_policy", &t.share_manager_pull_policy, err,
			    errlen)) < 0 ||
	    (r = get_strings(o, "nfs_endpoints", &t.nfs_endpoints, err, errlen)) < 0 ||
	    (r = get_strings(o, "longhorn_data_paths", &t.longhorn_data_paths, err, errlen)) < 0 ||
	    (r = get_string(o, "canary_export", &t.canary_export, err, errlen)) < 0) {
		probe_targets_clear(&t);
		return r;
	}
	*ret = t;
	return 0;
}

int probe_targets_parse(const uint8_t *buf, size_t len, struct probe_targets *ret, char *err,
			size_t errlen)
{
	return probe_targets_parse_keys(buf, len, ret, NULL, err, errlen);
}

int probe_targets_parse_keys(const uint8_t *buf, size_t len, struct probe_targets *ret,
			     struct strv *unknown, char *err, size_t errlen)
{
	if (len > PROBE_TARGETS_MAX_BYTES) {
		snprintf(err, errlen, "probe targets larger than %u bytes",
			 PROBE_TARGETS_MAX_BYTES);
		return -EINVAL;
	}
	json_tokener *tok = json_tokener_new();
	json_object *o = json_tokener_parse_ex(tok, (const char *)buf, (int)len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o || jerr != json_tokener_success) {
		snprintf(err, errlen, "invalid JSON: %s",
			 jerr == json_tokener_continue ? "unexpected end of input"
						       : json_tokener_error_desc(jerr));
		json_object_put(o);
		return -EINVAL;
	}
	for (; used < len; used++)
		if (!strchr(" \t\r\n", buf[used])) {
			snprintf(err, errlen, "trailing data after JSON at byte %zu", used);
			json_object_put(o);
			return -EINVAL;
		}
	int r = probe_targets_from_json(o, ret, err, errlen);
	if (r == 0 && unknown)
		probe_targets_unknown_keys(o, unknown);
	json_object_put(o);
	return r;
}

static json_object *strv_json(const struct strv *v)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < v->n; i++)
		json_object_array_add(a, json_object_new_string(v->items[i]));
	return a;
}

json_object *probe_targets_to_json(const struct probe_targets *t)
{
	json_object *o = json_object_new_object();
	if (t->share_manager_image)
		json_object_object_add(o, "share_manager_image",
				       json_object_new_string(t->share_manager_image));
	if (t->share_manager_pull_policy)
		json_object_object_add(o, "share_manager_pull_policy",
				       json_object_new_string(t->share_manager_pull_policy));
	json_object_object_add(o, "nfs_endpoints", strv_json(&t->nfs_endpoints));
	json_object_object_add(o, "longhorn_data_paths", strv_json(&t->longhorn_data_paths));
	if (t->canary_export)
		json_object_object_add(o, "canary_export",
				       json_object_new_string(t->canary_export));
	return o;
}

void probe_targets_copy(struct probe_targets *dst, const struct probe_targets *src)
{
	*dst = (struct probe_targets){0};
	if (src->share_manager_image)
		dst->share_manager_image = xstrdup(src->share_manager_image);
	if (src->share_manager_pull_policy)
		dst->share_manager_pull_policy = xstrdup(src->share_manager_pull_policy);
	if (src->canary_export)
		dst->canary_export = xstrdup(src->canary_export);
	for (size_t i = 0; i < src->nfs_endpoints.n; i++)
		strv_add(&dst->nfs_endpoints, src->nfs_endpoints.items[i]);
	for (size_t i = 0; i < src->longhorn_data_paths.n; i++)
		strv_add(&dst->longhorn_data_paths, src->longhorn_data_paths.items[i]);
}

void probe_targets_clear(struct probe_targets *t)
{
	free(t->share_manager_image);
	free(t->share_manager_pull_policy);
	free(t->canary_export);
	strv_clear(&t->nfs_endpoints);
	strv_clear(&t->longhorn_data_paths);
	*t = (struct probe_targets){0};
}
