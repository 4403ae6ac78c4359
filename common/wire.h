/*
 * The wire format between agent and aggregator: a node report as msgpack.
 * docs/protocol.md describes it field by field. Decoding is strict and
 * bounded: every rejection has its own one-line reason in err.
 */
#pragma once
#include "report.h"

#define WIRE_MAX_MESSAGE  (1u << 20) /* whole message */
#define WIRE_MAX_DEPTH	  8	     /* nesting of evidence/facts values */
#define WIRE_MAX_STRING	  (64u << 10)
#define WIRE_MAX_ARRAY	  4096 /* elements of any array, entries of any map */
#define WIRE_MAX_FINDINGS 1024
#define WIRE_ERR_LEN	  256

/* Encode r. Returns 0 and a malloc'd buffer, or -errno. */
int wire_encode_node_report(const struct node_report *r, char **ret_buf, size_t *ret_len);
/* Decode buf into *ret (left zeroed on failure). Returns 0, or -EINVAL with a
 * reason in err ("truncated message", "string too long at results[3].message", …),
 * or -EPROTONOSUPPORT for an unknown major version. */
int wire_decode_node_report(const uint8_t *buf, size_t len, struct node_report *ret, char *err,
			    size_t errlen);
