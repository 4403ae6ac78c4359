/*
 * The wire format between agent and aggregator: a node report as msgpack.
 * docs/protocol.md describes it field by field. Encoding: common/wire.c.
 * Decoding (common/wirescan.c, the one reader) is strict and bounded: every
 * rejection has its own one-line reason in err.
 */
#pragma once
#include "report.h"

#define WIRE_MAX_MESSAGE  (1u << 20) /* whole message */
#define WIRE_MAX_DEPTH	  8	     /* nesting of evidence/facts values */
#define WIRE_MAX_STRING	  (64u << 10)
#define WIRE_MAX_ARRAY	  4096 /* elements of any array, entries of any map */
#define WIRE_MAX_FINDINGS 1024
#define WIRE_ERR_LEN	  256

/* How reports travel (docs/protocol.md): the agent POSTs the message with this
 * content type to this path; the reply body is the probe targets as JSON. */
#define WIRE_CONTENT_TYPE "application/msgpack"
#define WIRE_REPORTS_PATH "/v1/reports"

/* Encode r as schema NODE_SCHEMA, minor NODE_SCHEMA_MINOR (r->schema_minor is
 * what a decoded report said and is not sent back). Invalid UTF-8 in strings is
 * replaced by U+FFFD and strings longer than WIRE_MAX_STRING are cut at a
 * character boundary, so stray bytes from a host file never cost the whole
 * report. Returns 0 and a malloc'd buffer; -EINVAL if r has no node name, a
 * finding without a check ID, an invalid status, a NULL key or values nested
 * deeper than WIRE_MAX_DEPTH; -EMSGSIZE beyond the other WIRE_MAX_* limits;
 * -ENOMEM. */
int wire_encode_node_report(const struct node_report *r, char **ret_buf, size_t *ret_len);
/* Decode buf into *ret (overwritten: clear it before reuse; zeroed on failure).
 * Returns 0, or -EINVAL with a reason in err ("truncated message",
 * "string too long at results[3].message (70000 bytes, at most 65536)", …),
 * -EPROTONOSUPPORT for an unknown major version. It is wirescan_report()'s
 * walk (wirescan.h), with the reasons, and the pieces it finds decoded. */
int wire_decode_node_report(const uint8_t *buf, size_t len, struct node_report *ret, char *err,
			    size_t errlen);
/* Length of the well-formed UTF-8 sequence at s (n bytes left; Unicode table
 * 3-7: no overlongs, no surrogates, nothing above U+10FFFF), or 0: the rule
 * every string of a report is held to, by the encoder and by common/wirescan.c. */
size_t wire_utf8_seq_len(const uint8_t *s, size_t n);
/* Whether a and b carry the same content on the wire: every field but
 * schema_minor (the encoder always sends its own). */
bool wire_node_report_equal(const struct node_report *a, const struct node_report *b);
