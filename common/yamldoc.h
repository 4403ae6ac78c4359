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
