#include <errno.h>
#include <stdio.h>
#include "render_json.h"

#include <stdlib.h>
#include <string.h>

json_object *render_value_json(const struct value *v)
{
	switch (v->type) {
	case VALUE_STR:
		return json_object_new_string(v->s);
	case VALUE_INT:
		return json_object_new_int64(v->i);
	case VALUE_BOOL:
		return json_object_new_boolean(v->b);
	case VALUE_LIST: {
		json_object *a = json_object_new_array_ext((int)v->list.n);
		for (size_t i = 0; i < v->list.n; i++)
			json_object_array_add(a, render_value_json(&v->list.items[i]));
		return a;
	}
	case VALUE_MAP:
		return render_kv_json(&v->map);
	}
	return NULL;
}

json_object *render_kv_json(const struct kv_list *l)
{
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < l->n; i++)
		json_object_object_add(o, l->items[i].key, render_value_json(&l->items[i].val));
	return o;
}

/* Where the check pages are (docs/checks/ID.md): HVREADY_DOCS_URL, for a
 * mirror or an air-gapped copy of the docs, else the project's repository. */
#define DOCS_URL_DEFAULT "https://github.com/hvready/hvready/blob/main/docs/checks/"

const char *render_docs_base(void)
{
	const char *b = getenv("HVREADY_DOCS_URL");
	return b && *b ? b : DOCS_URL_DEFAULT;
}

char *render_doc_url(const char *check)
{
	const char *b = render_docs_base();
	size_t n = strlen(b);
	return xasprintf("%s%s%s.md", b, n && b[n - 1] == '/' ? "" : "/", check);
}

bool render_doc_url_linkable(const char *url)
{
	/* http(s), or a relative path (no scheme before the first '/'): never
	 * javascript:, data: or any other scheme a base could carry. */
	if (!url || !*url || strpbrk(url, "\"'<>\\ \t\r\n"))
		return false;
	if (!strncmp(url, "https://", 8) || !strncmp(url, "http://", 7))
		return true;
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');
	return !colon || (slash && slash < colon);
}

json_object *render_finding_json(const struct finding *f)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "check", json_object_new_string(f->check));
	json_object_object_add(o, "status", json_object_new_string(status_name(f->status)));
	json_object_object_add(o, "message", json_object_new_string(f->message ? f->message : ""));
	json_object_object_add(o, "evidence", render_kv_json(&f->evidence));
	json_object_object_add(o, "remediation",
			       json_object_new_string(f->remediation ? f->remediation : ""));
	/* The same remediation as its steps (report.h remedy_steps): [] for none,
	 * one item for a one-sentence remedy. */
	struct strv steps = {0};
	remedy_steps(f->remediation, &steps);
	json_object *a = json_object_new_array_ext((int)steps.n);
	for (size_t i = 0; i < steps.n; i++)
		json_object_array_add(a, json_object_new_string(steps.items[i]));
	json_object_object_add(o, "remedy_steps", a);
	strv_clear(&steps);
	_cleanup_free_ char *doc = render_doc_url(f->check);
	json_object_object_add(o, "doc_url", json_object_new_string(doc));
	if (f->node)
		json_object_object_add(o, "node", json_object_new_string(f->node));
	if (f->object)
		json_object_object_add(o, "object", json_object_new_string(f->object));
	return o;
}

json_object *render_findings_json(const struct finding_list *l)
{
	json_object *a = json_object_new_array_ext((int)l->n);
	for (size_t i = 0; i < l->n; i++)
		json_object_array_add(a, render_finding_json(&l->items[i]));
	return a;
}

json_object *render_node_report_json(const struct node_report *r)
{
	char ts[64];
	json_object *o = json_object_new_object();
	json_object_object_add(o, "schema", json_object_new_string(NODE_SCHEMA));
	json_object_object_add(o, "node", json_object_new_string(r->node ? r->node : ""));
	json_object_object_add(o, "hostname",
			       json_object_new_string(r->hostname ? r->hostname : ""));
	json_object_object_add(o, "agent_version",
			       json_object_new_string(r->agent_version ? r->agent_version : ""));
	json_object_object_add(o, "boot_id", json_object_new_string(r->boot_id ? r->boot_id : ""));
	util_format_rfc3339(r->sent_ns, ts, sizeof(ts));
	json_object_object_add(o, "generated_at", json_object_new_string(ts));
	json_object_object_add(o, "sent_ns", json_object_new_int64(r->sent_ns));
	json_object_object_add(o, "seq", json_object_new_uint64(r->seq));
	json_object_object_add(o, "interval", json_object_new_int64(r->interval_s));
	json_object_object_add(o, "results", render_findings_json(&r->results));
	json_object_object_add(o, "facts", render_kv_json(&r->facts));
	return o;
}

int render_json_write(FILE *f, json_object *o)
{
	const char *s = json_object_to_json_string_ext(
	    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (fputs(s, f) < 0 || fputc('\n', f) < 0)
		return -errno;
	return 0;
}
