/*
 * The JSON verdict (docs/outputs.md) written as a stream of bytes (json_write.h), compact: exactly
 * what json-c prints for the tests' oracle (tests/unit/verdict_oracle.h, the
 * whole tree) with JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
 * without ever holding the tree or the whole text. With thousands of nodes the verdict is tens of megabytes, most
 * of it the nodes' host findings, and most of those the same bytes on every
 * node but for the node's name: a host finding can be written from a cached
 * fragment (its JSON up to and including "remediation") plus its node.
 */
#pragma once
#include "verdict.h"

struct verdict_stream_out {
	/* Called with every piece of the text, in order. */
	void (*write)(void *ctx, const char *buf, size_t len);
	void *ctx;
	/* For a borrowed finding i (i < v->n_borrowed): its fragment, or NULL to
	 * have it rendered here. May be NULL. */
	const char *(*fragment)(void *ctx, size_t i, size_t *ret_len);
	/* Indented as json-c's JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
	 * (what `report --format json` prints; json_write.h) instead of compact.
	 * The fragments are compact: with pretty they are not asked for. */
	bool pretty;
};

void verdict_stream_json(const struct verdict *v, const struct verdict_stream_out *out);
/* A finding's fragment: '{' through the remediation's value, no closing brace;
 * node and object are left out. Malloc'd. */
char *verdict_stream_fragment(const struct finding *f, size_t *ret_len);
