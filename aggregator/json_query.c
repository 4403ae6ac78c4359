#include "json_query.h"

#include <stdarg.h>
#include <string.h>

static const struct jv *vget(const struct jv *o, va_list ap)
{
	const char *k;
	while ((k = va_arg(ap, const char *))) {
		const struct jv *next;
		if (!jv_get_ex(o, k, &next))
			return NULL;
		o = next;
	}
	return o;
}

const struct jv *jq_get_(const struct jv *o, ...)
{
	va_list ap;
	va_start(ap, o);
	const struct jv *r = vget(o, ap);
	va_end(ap);
	return r;
}

const char *jq_str_(const struct jv *o, ...)
{
	va_list ap;
	va_start(ap, o);
	const struct jv *r = vget(o, ap);
	va_end(ap);
	return jv_str(r);
}

bool jq_int(const struct jv *v, int64_t *ret)
{
	switch (jv_type(v)) {
	case JV_INT:
		*ret = jv_int64(v);
		return true;
	case JV_DOUBLE: {
		double d = jv_double(v);
		if (d < -9.2e18 || d > 9.2e18)
			return false;
		*ret = (int64_t)d;
		return true;
	}
	case JV_STRING:
		return util_parse_i64(v->u.s, ret) == 0;
	default:
		return false;
	}
}

bool jq_bool(const struct jv *v, bool *ret)
{
	if (jv_is(v, JV_BOOL)) {
		*ret = v->u.b;
		return true;
	}
	const char *s = jv_str(v);
	if (s && strcaseeq(s, "true")) {
		*ret = true;
		return true;
	}
	if (s && strcaseeq(s, "false")) {
		*ret = false;
		return true;
	}
	return false;
}

size_t jq_len(const struct jv *v)
{
	return jv_is(v, JV_ARRAY) ? v->n : 0;
}

const struct jv *jq_at(const struct jv *v, size_t i)
{
	if (i >= jq_len(v) || v->u.a[i].type == JV_NULL)
		return NULL;
	return &v->u.a[i];
}

/* o.k1.k2 as a string, without the variadic walk: the readers of every
 * object's name and namespace. */
static const char *jq_str2(const struct jv *o, const char *k1, const char *k2)
{
	const struct jv *m, *v;
	return jv_get_ex(o, k1, &m) && jv_get_ex(m, k2, &v) ? jv_str(v) : NULL;
}

const char *jq_name(const struct jv *o)
{
	return jq_str2(o, jv_k.metadata, jv_k.name);
}

const char *jq_namespace(const struct jv *o)
{
	return jq_str2(o, jv_k.metadata, jv_k.namespace);
}

const char *jq_kind(const struct jv *o)
{
	const struct jv *k;
	return jv_get_ex(o, jv_k.kind, &k) ? jv_str(k) : NULL;
}

bool jq_time(const struct jv *v, int64_t *ret_ns)
{
	const char *s = jv_str(v);
	return s && util_parse_rfc3339(s, ret_ns) == 0;
}

const struct jv *jq_condition(const struct jv *conditions, const char *type)
{
	for (size_t i = 0; i < jq_len(conditions); i++) {
		const struct jv *c = jq_at(conditions, i);
		const struct jv *t;
		if (jv_get_ex(c, jv_k.type, &t) && streq(jv_str(t), type))
			return c;
	}
	return NULL;
}

const struct jv *jq_owner(const struct jv *o, const char *kind, bool controller)
{
	const struct jv *owners = JQ(o, jv_k.metadata, jv_k.ownerReferences);
	for (size_t i = 0; i < jq_len(owners); i++) {
		const struct jv *r = jq_at(owners, i);
		bool ctl = false;
		if (streq(jq_kind(r), kind) &&
		    (!controller || (jq_bool(JQ(r, jv_k.controller), &ctl) && ctl)))
			return r;
	}
	return NULL;
}

bool jq_node_ready(const struct jv *node)
{
	const struct jv *c = jq_condition(JQ(node, jv_k.status, jv_k.conditions), "Ready");
	return streq(JQS(c, jv_k.status), "True");
}
