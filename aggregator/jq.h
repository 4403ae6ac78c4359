/*
 * Typed, NULL-safe reads of Kubernetes JSON objects. Real objects omit fields,
 * carry null, and put numbers in strings (Longhorn's spec.size): every reader
 * here returns NULL/false for "absent or of another type" and never crashes.
 *
 *   const char *phase = JQS(vmi, "status", "phase");
 *   json_object *conds = JQ(vmi, "status", "conditions");
 */
#pragma once
#include <json-c/json.h>
#include "util.h"

json_object *jq_get_(json_object *o, ...);
const char *jq_str_(json_object *o, ...);
#define JQ(o, ...)  jq_get_((o), __VA_ARGS__, (const char *)NULL)
#define JQS(o, ...) jq_str_((o), __VA_ARGS__, (const char *)NULL)

/* Integer from a JSON number or a decimal string. */
bool jq_int(json_object *v, int64_t *ret);
/* Boolean from a JSON boolean or "true"/"false" (annotations, parameters). */
bool jq_bool(json_object *v, bool *ret);
/* Length of v if it is an array, else 0 (null and absent lists are empty). */
size_t jq_len(json_object *v);
json_object *jq_at(json_object *v, size_t i);

const char *jq_name(json_object *o);
const char *jq_namespace(json_object *o);
const char *jq_kind(json_object *o);
/* metadata.creationTimestamp / any RFC 3339 field as ns; false if absent or malformed. */
bool jq_time(json_object *v, int64_t *ret_ns);

/* The entry of a conditions array with "type" == type, or NULL. */
json_object *jq_condition(json_object *conditions, const char *type);
