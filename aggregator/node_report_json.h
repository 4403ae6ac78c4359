/* A node report in the agent's JSON (`hvready-agent check --format json`),
 * for `report --node-reports`: transcoded to the wire's msgpack so that the one
 * node-report decoder (common/wirescan.c) checks it, with the same limits, types and
 * error paths as a report that came over the network. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

/* The file's first non-blank byte is '{': JSON. A msgpack node report starts
 * with a map header (0x80-0x8f, 0xde, 0xdf), never with '{' (0x7b, a positive
 * fixint, which no report is). */
bool node_report_is_json(const char *buf, size_t len);

/* Parse buf as one JSON object (nothing but blanks after it) and pack it as
 * msgpack into *ret (malloc'd). Numbers without a fraction become integers
 * (unsigned above INT64_MAX), others floats, which the decoder then refuses by
 * field path. json-c keeps the last of duplicate keys; the msgpack decoder's
 * unique-key rule cannot see them. Returns 0, or -EINVAL with a one-line reason
 * ("line 3: unexpected character") in err. */
int node_report_json_to_msgpack(const char *buf, size_t len, char **ret, size_t *ret_len, char *err,
				size_t errlen);
