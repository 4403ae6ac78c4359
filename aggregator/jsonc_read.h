/* Reads of small json-c objects that are kept as json-c because they are
 * written back (the Lease) or edited (test fixtures); cluster objects are
 * read through json_query.h instead. */
#pragma once
#include <json-c/json.h>

/* o.k1.k2 (k2 may be NULL), or NULL when absent or not an object on the way. */
static inline json_object *jc_get(json_object *o, const char *k1, const char *k2)
{
	json_object *v = NULL;
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k1, &v))
		return NULL;
	if (k2 &&
	    (!json_object_is_type(v, json_type_object) || !json_object_object_get_ex(v, k2, &v)))
		return NULL;
	return v;
}
