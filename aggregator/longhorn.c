#include "longhorn.h"

#include <errno.h>
#include <string.h>

static bool copy_part(char *dst, const uint8_t *p, size_t n)
{
	if (n == 0 || n >= LONGHORN_NAME_MAX || memchr(p, '\0', n) || memchr(p, '/', n))
		return false;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return true;
}

static bool has_prefix(const uint8_t *buf, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(buf, prefix, n) == 0;
}

/* "VOL" (want_name false) or "VOL/NAME" into ret. */
static int parse_parts(const uint8_t *p, size_t n, bool want_name, struct longhorn_ref *ret)
{
	const uint8_t *slash = memchr(p, '/', n);
	if (!want_name)
		return !slash && copy_part(ret->volume, p, n) ? 0 : -EINVAL;
	if (!slash)
		return -EINVAL;
	size_t vn = (size_t)(slash - p);
	if (!copy_part(ret->volume, p, vn) || !copy_part(ret->name, slash + 1, n - vn - 1))
		return -EINVAL;
	return 0;
}

int longhorn_ref_parse(const uint8_t *buf, size_t len, struct longhorn_ref *ret)
{
	static const struct {
		const char *scheme;
		enum longhorn_ref_type type;
		bool want_name;
	} schemes[] = {
	    {"vol://", LONGHORN_REF_VOLUME, false},
	    {"snap://", LONGHORN_REF_SNAPSHOT, true},
	    {"bak://", LONGHORN_REF_BACKUP, true},
	    {"bs://", LONGHORN_REF_BACKUP, true},
	};
	struct longhorn_ref r = {0};
	if (!buf)
		return -EINVAL;
	if (has_prefix(buf, len, "bi://")) {
		r.type = LONGHORN_REF_BACKING_IMAGE;
		*ret = r;
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(schemes); i++) {
		size_t sl = strlen(schemes[i].scheme);
		if (!has_prefix(buf, len, schemes[i].scheme))
			continue;
		r.type = schemes[i].type;
		if (parse_parts(buf + sl, len - sl, schemes[i].want_name, &r) < 0)
			return -EINVAL;
		*ret = r;
		return 0;
	}
	return -EINVAL;
}

/* Up to 9 decimal digits at *p; advances *p. */
static bool parse_num(const uint8_t **p, const uint8_t *end, int *ret)
{
	int v = 0, digits = 0;
	while (*p < end && **p >= '0' && **p <= '9' && digits < 9) {
		v = v * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	if (digits == 0 || (*p < end && **p >= '0' && **p <= '9'))
		return false;
	*ret = v;
	return true;
}

int longhorn_version_parse(const uint8_t *buf, size_t len, struct longhorn_version *ret)
{
	if (!buf)
		return -EINVAL;
	const uint8_t *p = buf, *end = buf + len;
	/* An image reference: the version is its tag, after the last ':' that
	 * follows the last '/' (a registry may carry a port). */
	const uint8_t *slash = NULL, *colon = NULL;
	for (const uint8_t *q = buf; q < end; q++) {
		if (*q == '/')
			slash = q;
		else if (*q == ':')
			colon = q;
	}
	if (colon && (!slash || colon > slash))
		p = colon + 1;
	if (p < end && (*p == 'v' || *p == 'V'))
		p++;
	struct longhorn_version v = {0};
	if (!parse_num(&p, end, &v.major) || p >= end || *p++ != '.' ||
	    !parse_num(&p, end, &v.minor))
		return -EINVAL;
	if (p < end && *p == '.') {
		p++;
		if (!parse_num(&p, end, &v.patch))
			return -EINVAL;
	}
	/* Pre-release or build suffixes ("-rc1", "-dev", "+hash") are allowed. */
	if (p < end && *p != '-' && *p != '+')
		return -EINVAL;
	*ret = v;
	return 0;
}

bool longhorn_version_at_least(const struct longhorn_version *a, int major, int minor)
{
	return a->major > major || (a->major == major && a->minor >= minor);
}

const struct jv *longhorn_setting(const struct cluster_state *cs, const char *name)
{
	return cs_find(cs, RES_LH_SETTINGS, NULL, name);
}

const char *longhorn_setting_value(const struct cluster_state *cs, const char *name)
{
	return JQS(longhorn_setting(cs, name), "value");
}

static int parse_plain_int(const char *s, int64_t *ret)
{
	return util_parse_i64(s, ret) == 0 ? 0 : -EINVAL;
}

int longhorn_int_value_parse(const uint8_t *buf, size_t len, int64_t *ret)
{
	int r = longhorn_engine_int_value_parse(buf, len, "v1", ret);
	return r == -ENOENT ? -EINVAL : r;
}

int longhorn_engine_int_value_parse(const uint8_t *buf, size_t len, const char *engine,
				    int64_t *ret)
{
	if (!buf || len == 0 || len > 4096)
		return -EINVAL;
	_cleanup_free_ char *s = xstrndup((const char *)buf, len);
	if (strlen(s) != len)
		return -EINVAL;
	strstrip(s);
	if (*s != '{')
		return parse_plain_int(s, ret);
	json_tokener *tok = json_tokener_new();
	json_object *oj = json_tokener_parse_ex(tok, s, (int)strlen(s));
	bool complete = json_tokener_get_error(tok) == json_tokener_success &&
			json_tokener_get_parse_end(tok) == strlen(s);
	json_tokener_free(tok);
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	struct jv root = jv_from_json(ar, oj);
	const struct jv *o = &root;
	json_object_put(oj);
	int r = -EINVAL;
	if (complete && jv_is(o, JV_OBJECT)) {
		int64_t v;
		const struct jv *e = JQ(o, engine);
		/* jq_int takes "3" and 3; a JSON value without this engine's key
		 * leaves the engine at the setting's default (longhorn/website#1172:
		 * {"v2":"…"} configures only the v2 engine). */
		if (!e)
			r = -ENOENT;
		else if (jq_int(e, &v)) {
			*ret = v;
			r = 0;
		}
	}
	return r;
}

int longhorn_replica_count(const struct cluster_state *cs, const char *engine, int64_t *ret,
			   const char **ret_value)
{
	const struct jv *s = longhorn_setting(cs, "default-replica-count");
	const char *v = JQS(s, "value");
	*ret = LONGHORN_DEFAULT_REPLICAS;
	if (ret_value)
		*ret_value = v;
	if (!s)
		return -ENOENT;
	if (!v)
		return -EINVAL;
	int64_t n;
	int r = longhorn_engine_int_value_parse((const uint8_t *)v, strlen(v), engine, &n);
	if (r == -ENOENT)
		return -ENOENT;
	if (r < 0 || n < 1)
		return -EINVAL;
	*ret = n;
	return 0;
}

bool longhorn_version_get(const struct cluster_state *cs, struct longhorn_version *ret)
{
	const char *v = longhorn_setting_value(cs, "current-longhorn-version");
	return v && longhorn_version_parse((const uint8_t *)v, strlen(v), ret) == 0;
}

const char *longhorn_volume_of(const struct jv *obj)
{
	const char *label = JQS(obj, "metadata", "labels", "longhornvolume");
	return label ? label : JQS(obj, "spec", "volumeName");
}

const struct jv *longhorn_volume(const struct cluster_state *cs, const char *name)
{
	return cs_find(cs, RES_LH_VOLUMES, NULL, name);
}

const struct jv *longhorn_snapshot(const struct cluster_state *cs, const char *name)
{
	return cs_find(cs, RES_LH_SNAPSHOTS, NULL, name);
}

int longhorn_volume_rebuilding(const struct cluster_state *cs, const struct jv *vol,
			       const char **ret_replica)
{
	if (cs->res[RES_LH_ENGINES].status != RES_COLLECTED)
		return -ENODATA;
	const struct jv *engine = NULL;
	const struct cs_entry *es;
	size_t n = cs_lookup(cs, RES_LH_ENGINES, longhorn_volume_of, jq_name(vol), &es);
	for (size_t i = 0; i < n && !engine; i++) {
		bool active = false;
		if (jq_bool(JQ(es[i].obj, "spec", "active"), &active) && active)
			engine = es[i].obj;
	}
	if (!engine && n == 1)
		engine = es[0].obj;
	if (!engine)
		return -ENODATA;
	const struct jv *modes = JQ(engine, "status", "replicaModeMap");
	const struct jv *addrs = JQ(engine, "spec", "replicaAddressMap");
	if (!modes || !jv_is(modes, JV_OBJECT))
		return -ENODATA;
	jv_foreach(modes, name, mode)
	{
		if (jv_is(mode, JV_STRING) && streq(jv_str(mode), "WO")) {
			*ret_replica = name;
			return 1;
		}
	}
	if (!addrs || !jv_is(addrs, JV_OBJECT))
		return 0;
	jv_foreach(addrs, rname, addr)
	{
		(void)addr;
		if (!JQ(modes, rname)) {
			*ret_replica = rname;
			return 1;
		}
	}
	return 0;
}
