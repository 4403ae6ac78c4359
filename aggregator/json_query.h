/*
 * Typed, NULL-safe reads of Kubernetes JSON objects. Real objects omit fields,
 * carry null, and put numbers in strings (Longhorn's spec.size): every reader
 * here returns NULL/false for "absent or of another type" and never crashes.
 *
 *   const char *phase = JQS(vmi, "status", "phase");
 *   const struct jv *conds = JQ(vmi, "status", "conditions");
 *
 * Objects are compact values (json_value.h); NULL is "absent or null". A key
 * given as jv_k.NAME (json_value.h) is found by comparing pointers: the
 * lookups a check repeats per object use those.
 */
#pragma once
#include "json_value.h"
#include "util.h"

const struct jv *jq_get_(const struct jv *o, ...);
const char *jq_str_(const struct jv *o, ...);
#define JQ(o, ...)  jq_get_((o), __VA_ARGS__, (const char *)NULL)
#define JQS(o, ...) jq_str_((o), __VA_ARGS__, (const char *)NULL)

/* Integer from a JSON number or a decimal string. */
bool jq_int(const struct jv *v, int64_t *ret);
/* Boolean from a JSON boolean or "true"/"false" (annotations, parameters). */
bool jq_bool(const struct jv *v, bool *ret);
/* Length of v if it is an array, else 0 (null and absent lists are empty). */
size_t jq_len(const struct jv *v);
/* Element i, or NULL (past the end, or a null element). */
const struct jv *jq_at(const struct jv *v, size_t i);

const char *jq_name(const struct jv *o);
const char *jq_namespace(const struct jv *o);
const char *jq_kind(const struct jv *o);
/* metadata.creationTimestamp / any RFC 3339 field as ns; false if absent or malformed. */
bool jq_time(const struct jv *v, int64_t *ret_ns);

/* The entry of a conditions array with "type" == type, or NULL. */
const struct jv *jq_condition(const struct jv *conditions, const char *type);
/* The first metadata.ownerReferences entry of o of kind (with controller:
 * true, when controller is set), or NULL. */
const struct jv *jq_owner(const struct jv *o, const char *kind, bool controller);
/* A Node whose Ready condition is "True". */
bool jq_node_ready(const struct jv *node);
