#include "jq.h"

#include <stdarg.h>
#include <string.h>

static json_object *vget(json_object *o, va_list ap)
{
	const char *k;
	while ((k = va_arg(ap, const char *))) {
		json_object *next;
		if (!o || !json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, k, &next))
			return NULL;
		o = next;
	}
	return o;
}

json_object *jq_get_(json_object *o, ...)
{
	va_list ap;
	va_start(ap, o);
	json_object *r = vget(o, ap);
	va_end(ap);
	return r;
}

const char *jq_str_(json_object *o, ...)
{
	va_list ap;
	va_start(ap, o);
	json_object *r = vget(o, ap);
	va_end(ap);
	return r && json_object_is_type(r, json_type_string) ? json_object_get_string(r) : NULL;
}

bool jq_int(json_object *v, int64_t *ret)
{
	if (!v)
		return false;
	if (json_object_is_type(v, json_type_int)) {
		*ret = json_object_get_int64(v);
		return true;
	}
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);
		if (d < -9.2e18 || d > 9.2e18)
			return false;
		*ret = (int64_t)d;
		return true;
	}
	if (json_object_is_type(v, json_type_string))
		return util_parse_i64(json_object_get_string(v), ret) == 0;
	return false;
}

bool jq_bool(json_object *v, bool *ret)
{
	if (!v)
		return false;
	if (json_object_is_type(v, json_type_boolean)) {
		*ret = json_object_get_boolean(v);
		return true;
	}
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		if (strcaseeq(s, "true")) {
			*ret = true;
			return true;
		}
		if (strcaseeq(s, "false")) {
			*ret = false;
			return true;
		}
	}
	return false;
}

size_t jq_len(json_object *v)
{
	return v && json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
}

json_object *jq_at(json_object *v, size_t i)
{
	return i < jq_len(v) ? json_object_array_get_idx(v, i) : NULL;
}

const char *jq_name(json_object *o)
{
	return JQS(o, "metadata", "name");
}

const char *jq_namespace(json_object *o)
{
	return JQS(o, "metadata", "namespace");
}

const char *jq_kind(json_object *o)
{
	return JQS(o, "kind");
}

bool jq_time(json_object *v, int64_t *ret_ns)
{
	if (!v || !json_object_is_type(v, json_type_string))
		return false;
	return util_parse_rfc3339(json_object_get_string(v), ret_ns) == 0;
}

json_object *jq_condition(json_object *conditions, const char *type)
{
	for (size_t i = 0; i < jq_len(conditions); i++) {
		json_object *c = jq_at(conditions, i);
		if (streq(JQS(c, "type"), type))
			return c;
	}
	return NULL;
}
