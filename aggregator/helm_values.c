#include "helm_values.h"

#include <stdio.h>
#include <string.h>

#include "json_query.h"
#include "yaml_json.h"

/* "harvester", "https://charts/harvester-1.8.2.tgz", "rancher/harvester" → the
 * chart's own name is "harvester" (not "harvester-crd"). */
static bool is_harvester_chart(const struct jv *hc)
{
	if (streq(jq_name(hc), "harvester"))
		return true;
	const char *chart = JQS(hc, "spec", "chart");
	if (!chart)
		return false;
	const char *base = strrchr(chart, '/');
	base = base ? base + 1 : chart;
	if (streq(base, "harvester"))
		return true;
	if (!startswith(base, "harvester-") || !endswith(base, ".tgz"))
		return false;
	char c = base[strlen("harvester-")];
	return c >= '0' && c <= '9';
}

static void merge(json_object *dst, json_object *src)
{
	json_object_object_foreach(src, key, val)
	{
		json_object *cur;
		if (json_object_is_type(val, json_type_object) &&
		    json_object_object_get_ex(dst, key, &cur) &&
		    json_object_is_type(cur, json_type_object))
			merge(cur, val);
		else
			json_object_object_add(dst, key, json_object_get(val));
	}
}

static void add_values(struct helm_values *v, json_object *merged, const struct jv *obj,
		       const char *what)
{
	const char *content = JQS(obj, "spec", "valuesContent");
	if (!content || !*content)
		return;
	json_object *parsed = NULL;
	char err[256];
	if (yaml_json_parse_schema((const uint8_t *)content, strlen(content), YAML_JSON_HELM,
				   &parsed, err, sizeof(err)) < 0) {
		char *line = xasprintf("%s %s/%s spec.valuesContent: %s", what,
				       jq_namespace(obj) ? jq_namespace(obj) : "",
				       jq_name(obj) ? jq_name(obj) : "?", err);
		strv_add(&v->errors, line);
		free(line);
		return;
	}
	if (json_object_is_type(parsed, json_type_object))
		merge(merged, parsed);
	json_object_put(parsed);
}

void helm_values_set(json_object *values, const char *dotted, json_object *value)
{
	struct strv parts = {0};
	strv_split(&parts, dotted, ".");
	json_object *cur = values;
	for (size_t i = 0; i + 1 < parts.n; i++) {
		json_object *next;
		if (!json_object_object_get_ex(cur, parts.items[i], &next) ||
		    !json_object_is_type(next, json_type_object)) {
			next = json_object_new_object();
			json_object_object_add(cur, parts.items[i], next);
		}
		cur = next;
	}
	if (parts.n > 0)
		json_object_object_add(cur, parts.items[parts.n - 1], value);
	else
		json_object_put(value);
	strv_clear(&parts);
}

/* What helm-controller hands helm for a string value (chart.go escapeComma):
 * a comma after an even number of backslashes gets one more, so every comma
 * is escaped. */
static char *escape_commas(const char *s)
{
	char *out = xmalloc(2 * strlen(s) + 1), *o = out;
	size_t backslashes = 0;
	for (const char *p = s; *p; p++) {
		if (*p == ',' && backslashes % 2 == 0)
			*o++ = '\\';
		backslashes = *p == '\\' ? backslashes + 1 : 0;
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* helm strvals runesUntil: the text up to an unescaped stop character into
 * out, each escaping backslash dropped. Returns the stop character, or 0 at
 * the end of the text. */
static char runes_until(const char **p, const char *stop, char *out)
{
	size_t n = 0;
	for (; **p; (*p)++) {
		if (strchr(stop, **p)) {
			out[n] = '\0';
			return *(*p)++;
		}
		if (**p == '\\' && !(*p)[1])
			break;
		if (**p == '\\')
			(*p)++;
		out[n++] = **p;
	}
	out[n] = '\0';
	return 0;
}

/*
 * One spec.set value as helm-controller passes it (k3s-io/helm-controller
 * pkg/controllers/chart/chart.go args/typedVal): a number, or "true", "false",
 * "null" in any case, with --set (typed: a bool, or null which drops the key);
 * any other string with --set-string after escape_commas. helm then reads
 * "{...}" as a list split at unescaped commas only: "{a,b}" from a HelmChart
 * is the one-item list ["a,b"], not ["a","b"] as on a helm command line.
 * Sets *ret_err (static text) when helm would reject it; returns NULL then.
 */
static json_object *set_value(const struct jv *v, const char **ret_err)
{
	*ret_err = NULL;
	if (!jv_is(v, JV_STRING))
		return jv_to_json(v);
	const char *s = jv_str(v);
	if (strcaseeq(s, "true") || strcaseeq(s, "false"))
		return json_object_new_boolean(strcaseeq(s, "true"));
	if (strcaseeq(s, "null"))
		return NULL;
	_cleanup_free_ char *arg = escape_commas(s);
	_cleanup_free_ char *item = xmalloc(strlen(arg) + 1);
	const char *p = arg;
	if (*p != '{') {
		runes_until(&p, ",", item);
		return json_object_new_string(item);
	}
	p++;
	json_object *arr = json_object_new_array();
	for (;;) {
		char last = runes_until(&p, ",}", item);
		if (!last) {
			json_object_put(arr);
			*ret_err = "list must terminate with '}' (helm rejects it: the install job "
				   "fails)";
			return NULL;
		}
		json_object_array_add(arr, json_object_new_string(item));
		if (last == '}')
			return arr;
	}
}

static void add_source(struct helm_values *v, const char *what, const struct jv *obj)
{
	const char *ns = jq_namespace(obj);
	char *s = xasprintf("%s%s%s %s/%s", v->source ? v->source : "", v->source ? " + " : "",
			    what, ns ? ns : "", jq_name(obj) ? jq_name(obj) : "?");
	free(v->source);
	v->source = s;
}

void helm_values_harvester(const struct cluster_state *cs, struct helm_values *ret)
{
	*ret = (struct helm_values){0};
	const struct jv *charts = cs_items(cs, RES_HELMCHARTS), *hc = NULL;
	for (size_t i = 0; i < jq_len(charts) && !hc; i++)
		if (is_harvester_chart(jq_at(charts, i)))
			hc = jq_at(charts, i);
	if (!hc)
		return;
	ret->found = true;
	json_object *merged = json_object_new_object();
	add_source(ret, "HelmChart", hc);
	add_values(ret, merged, hc, "HelmChart");
	const struct jv *cfg =
	    jq_name(hc) ? cs_find(cs, RES_HELMCHARTCONFIGS, jq_namespace(hc), jq_name(hc)) : NULL;
	if (cfg) {
		add_source(ret, "HelmChartConfig", cfg);
		add_values(ret, merged, cfg, "HelmChartConfig");
	}
	const struct jv *set = JQ(hc, "spec", "set");
	jv_foreach(set, key, val)
	{
		const char *err;
		json_object *value = set_value(val, &err);
		if (err) {
			char *line = xasprintf("HelmChart %s/%s spec.set %s: %s",
					       jq_namespace(hc) ? jq_namespace(hc) : "",
					       jq_name(hc) ? jq_name(hc) : "?", key, err);
			strv_add(&ret->errors, line);
			free(line);
			continue;
		}
		helm_values_set(merged, key, value);
	}
	/* Merged in json-c (it is small and built by changes), read as the
	 * cluster state is. */
	ret->arena = jv_arena_new();
	struct jv *values = jv_arena_alloc(ret->arena, sizeof(*values));
	*values = jv_from_json(ret->arena, merged);
	ret->values = values;
	json_object_put(merged);
}

void helm_values_clear(struct helm_values *v)
{
	jv_arena_free(v->arena);
	free(v->source);
	strv_clear(&v->errors);
	*v = (struct helm_values){0};
}

const struct jv *helm_values_get(const struct jv *values, const char *dotted)
{
	struct strv parts = {0};
	strv_split(&parts, dotted, ".");
	const struct jv *cur = values;
	for (size_t i = 0; i < parts.n && cur; i++)
		cur = JQ(cur, parts.items[i]);
	strv_clear(&parts);
	return cur;
}
