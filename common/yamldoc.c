#include "yamldoc.h"

#include <errno.h>
#include <stdio.h>

int yamldoc_load(const uint8_t *buf, size_t len, size_t max, const char *name, yaml_document_t *ret,
		 char *err, size_t errlen)
{
	if (len > max) {
		snprintf(err, errlen, "%s: larger than %zu bytes", name, max);
		return -EINVAL;
	}
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, buf, len);
	int ok = yaml_parser_load(&parser, ret);
	if (!ok)
		snprintf(err, errlen, "%s:%zu: invalid YAML: %s", name,
			 parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "parse error");
	/* The document owns its nodes; the parser is no longer needed. */
	yaml_parser_delete(&parser);
	return ok ? 0 : -EINVAL;
}
