/* JSON renderings of the report model with json-c (docs/design.md#interfaces, docs/outputs.md). */
#pragma once
#include <stdio.h>
#include <json-c/json.h>
#include "report.h"

json_object *render_value_json(const struct value *v);
json_object *render_kv_json(const struct kv_list *l);
/* {"check","status","message","evidence","remediation","remedy_steps","doc_url"[,"node"][,"object"]} */
json_object *render_finding_json(const struct finding *f);
json_object *render_findings_json(const struct finding_list *l);
/* {"schema":"hvready.node/v1","node",...,"results":[...],"facts":{...}} */
json_object *render_node_report_json(const struct node_report *r);
/* Serialise o pretty-printed with a trailing newline to f. Returns 0 or -errno. */
int render_json_write(FILE *f, json_object *o);

/* The check pages' base URL (HVREADY_DOCS_URL, else the project's docs/checks/)
 * and one check's page, "BASE/ID.md" (malloc'd): every finding's doc_url. */
const char *render_docs_base(void);
char *render_doc_url(const char *check);
/* Whether a doc URL may become a link (href): http(s) or relative, nothing
 * that could carry another scheme or break out of an attribute. */
bool render_doc_url_linkable(const char *url);
