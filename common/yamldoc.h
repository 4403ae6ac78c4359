/* Loading one YAML document from memory with libyaml, bounded, with the one
 * error message every YAML input of hvready gives ("FILE:LINE: invalid YAML: …"). */
#pragma once
#include <yaml.h>
#include "util.h"

/* Returns 0 with *ret loaded (the caller yaml_document_delete()s it), or
 * -EINVAL with the reason in err. An empty input loads as a document with no
 * root node. */
int yamldoc_load(const uint8_t *buf, size_t len, size_t max, const char *name, yaml_document_t *ret,
		 char *err, size_t errlen);

/* Scalars as yaml.v2 (YAML 1.1, what Kubernetes and RKE2 read with) resolves them. */
/* A plain scalar "", "~", "null", "Null" or "NULL". */
bool yamldoc_is_null(const yaml_node_t *n);
/* A boolean word (y, yes, true, on, in three cases, and their negations): 0 with *ret
 * set, or -EINVAL with *ret untouched. */
int yamldoc_bool(const char *s, bool *ret);
