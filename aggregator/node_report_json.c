#include "node_report_json.h"

#include <errno.h>
#include <json-c/json.h>
#include <msgpack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper than any valid report (the wire reader, common/wirescan.c, allows
 * 16), shallow enough that the recursive packer below stays small. */
#define JSON_MAX_DEPTH 32

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool node_report_is_json(const char *buf, size_t len)
{
	size_t i = 0;
	while (i < len && blank(buf[i]))
		i++;
	return i < len && buf[i] == '{';
}

static unsigned line_of(const char *buf, size_t off)
{
	unsigned line = 1;
	for (size_t i = 0; i < off; i++)
		line += buf[i] == '\n';
	return line;
}

static int pack(msgpack_packer *pk, json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:
		return msgpack_pack_nil(pk);
	case json_type_boolean:
		return json_object_get_boolean(o) ? msgpack_pack_true(pk) : msgpack_pack_false(pk);
	case json_type_double:
		return msgpack_pack_double(pk, json_object_get_double(o));
	case json_type_int: {
		int64_t i = json_object_get_int64(o);
		/* json-c holds integers above INT64_MAX as uint64 and clamps int64 reads. */
		if (i == INT64_MAX)
			return msgpack_pack_uint64(pk, json_object_get_uint64(o));
		return msgpack_pack_int64(pk, i);
	}
	case json_type_string: {
		size_t n = (size_t)json_object_get_string_len(o);
		int r = msgpack_pack_str(pk, n);
		return r ? r : msgpack_pack_str_body(pk, json_object_get_string(o), n);
	}
	case json_type_array: {
		size_t n = json_object_array_length(o);
		int r = msgpack_pack_array(pk, n);
		for (size_t i = 0; i < n && r == 0; i++)
			r = pack(pk, json_object_array_get_idx(o, i));
		return r;
	}
	case json_type_object: {
		int r = msgpack_pack_map(pk, (size_t)json_object_object_length(o));
		json_object_object_foreach(o, key, val)
		{
			size_t n = strlen(key);
			if (r == 0)
				r = msgpack_pack_str(pk, n);
			if (r == 0)
				r = msgpack_pack_str_body(pk, key, n);
			if (r == 0)
				r = pack(pk, val);
		}
		return r;
	}
	}
	return -1;
}

int node_report_json_to_msgpack(const char *buf, size_t len, char **ret, size_t *ret_len, char *err,
				size_t errlen)
{
	if (len > INT32_MAX) {
		snprintf(err, errlen, "too large for JSON");
		return -EINVAL;
	}
	json_tokener *tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	if (!o || je != json_tokener_success) {
		json_object_put(o);
		/* Strict mode refuses what follows a complete value as an "unexpected
		 * character": say so when the part before it is a whole document, the
		 * usual case being two reports concatenated into one file. */
		json_tokener_reset(tok);
		json_object *head = end > 0 ? json_tokener_parse_ex(tok, buf, (int)end) : NULL;
		if (!head && end > 0 && json_tokener_get_error(tok) == json_tokener_continue)
			head = json_tokener_parse_ex(tok, "", 1); /* end of input closes a number */
		bool whole = head && json_tokener_get_error(tok) == json_tokener_success;
		json_object_put(head);
		json_tokener_free(tok);
		if (whole)
			snprintf(
			    err, errlen,
			    "JSON, line %u: more after the report's object (one report per file)",
			    line_of(buf, end));
		else
			snprintf(err, errlen, "JSON, line %u: %s", line_of(buf, end),
				 je == json_tokener_continue ? "unexpected end of input"
							     : json_tokener_error_desc(je));
		return -EINVAL;
	}
	json_tokener_free(tok);
	while (end < len && blank(buf[end]))
		end++;
	if (end < len) {
		json_object_put(o);
		snprintf(err, errlen,
			 "JSON, line %u: more after the report's object (one report per file)",
			 line_of(buf, end));
		return -EINVAL;
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		snprintf(err, errlen, "JSON: the top level is not an object");
		return -EINVAL;
	}
	msgpack_sbuffer sb;
	msgpack_sbuffer_init(&sb);
	msgpack_packer pk;
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	int r = pack(&pk, o);
	json_object_put(o);
	if (r != 0) {
		msgpack_sbuffer_destroy(&sb);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*ret = sb.data; /* msgpack_sbuffer allocates with malloc */
	*ret_len = sb.size;
	return 0;
}
