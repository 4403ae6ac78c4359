#include "storage.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct finding *storage_object_finding(struct agg_ctx *ctx, const char *id, const char *kind,
				       const struct jv *obj)
{
	struct finding *f = agg_finding(ctx, id);
	const char *ns = jq_namespace(obj), *name = jq_name(obj);
	if (ns && *ns)
		finding_set_object(f, "%s/%s/%s", kind, ns, name ? name : "?");
	else
		finding_set_object(f, "%s/%s", kind, name ? name : "?");
	return f;
}

bool storage_age_s(const struct agg_ctx *ctx, const struct jv *v, int64_t *ret_s)
{
	int64_t t;
	if (!jq_time(v, &t))
		return false;
	*ret_s = (ctx->now_ns - t) / NSEC_PER_SEC;
	return true;
}

void storage_format_duration(int64_t s, char *buf, size_t len)
{
	const char *sign = "";
	if (s < 0) {
		sign = "-";
		s = s == INT64_MIN ? INT64_MAX : -s;
	}
	if (s >= 86400)
		snprintf(buf, len, "%s%lldd%lldh", sign, (long long)(s / 86400),
			 (long long)(s % 86400 / 3600));
	else if (s >= 3600)
		snprintf(buf, len, "%s%lldh%lldm", sign, (long long)(s / 3600),
			 (long long)(s % 3600 / 60));
	else if (s >= 60)
		snprintf(buf, len, "%s%lldm%llds", sign, (long long)(s / 60), (long long)(s % 60));
	else
		snprintf(buf, len, "%s%llds", sign, (long long)s);
}

void storage_format_bytes(int64_t b, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)b;
	size_t u = 0;
	while ((v >= 1024.0 || v <= -1024.0) && u + 1 < ELEMENTSOF(units)) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%lld B", (long long)b);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}

void storage_ev_str(struct kv_list *ev, const char *key, const char *s)
{
	kv_add_str(ev, key, s ? s : STORAGE_ABSENT);
}

bool storage_deleting(const struct jv *obj)
{
	return JQ(obj, "metadata", "deletionTimestamp") != NULL &&
	       !jv_is(JQ(obj, "metadata", "deletionTimestamp"), JV_NULL);
}

char *storage_finalizers(const struct jv *obj)
{
	const struct jv *fin = JQ(obj, "metadata", "finalizers");
	char *out = NULL;
	for (size_t i = 0; i < jq_len(fin); i++) {
		const struct jv *e = jq_at(fin, i);
		if (!jv_is(e, JV_STRING))
			continue;
		char *next = out ? xasprintf("%s, %s", out, jv_str(e)) : xstrdup(jv_str(e));
		free(out);
		out = next;
	}
	return out;
}

void storage_appendf(char **buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *add = xvasprintf(fmt, ap);
	va_end(ap);
	if (!*buf) {
		*buf = add;
		return;
	}
	char *joined = xasprintf("%s%s", *buf, add);
	free(*buf);
	free(add);
	*buf = joined;
}

int storage_go_bool(const struct jv *v, bool *ret)
{
	static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True"};
	static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False"};
	if (!v) {
		*ret = false;
		return 0;
	}
	if (!jv_is(v, JV_STRING))
		return -1;
	const char *s = jv_str(v);
	for (size_t i = 0; i < ELEMENTSOF(t); i++) {
		if (streq(s, t[i])) {
			*ret = true;
			return 0;
		}
		if (streq(s, f[i])) {
			*ret = false;
			return 0;
		}
	}
	return -1;
}

const char *storage_sc_default_annotation(const struct jv *sc)
{
	if (streq(JQS(sc, "metadata", "annotations", ANN_SC_DEFAULT), "true"))
		return ANN_SC_DEFAULT;
	if (streq(JQS(sc, "metadata", "annotations", ANN_SC_DEFAULT_BETA), "true"))
		return ANN_SC_DEFAULT_BETA;
	return NULL;
}
