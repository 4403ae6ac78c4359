#include "yamldoc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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

bool yamldoc_is_null(const yaml_node_t *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
	if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(nulls); i++)
		if (streq((const char *)n->data.scalar.value, nulls[i]))
			return true;
	return false;
}

int yamldoc_bool(const char *s, bool *ret)
{
	static const char *const t[] = {"y",	"Y",	"yes", "Yes", "YES", "true",
					"True", "TRUE", "on",  "On",  "ON"};
	static const char *const f[] = {"n",	 "N",	  "no",	 "No",	"NO", "false",
					"False", "FALSE", "off", "Off", "OFF"};
	for (size_t i = 0; s && i < ELEMENTSOF(t); i++)
		if (streq(s, t[i]) || streq(s, f[i])) {
			*ret = streq(s, t[i]);
			return 0;
		}
	return -EINVAL;
}
