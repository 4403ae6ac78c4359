/*
 * A reader of the common subset of JSON straight into the compact form
 * (json_value.h), for the cluster state's bulk: json_tokener decides every
 * value this reader is not sure of (aggregator/json_fast.c says why json-c
 * alone does not fit).
 *
 * jf_parse() reads one JSON value at p[0..n). The result is that of
 * json_tokener (JSON_TOKENER_STRICT, trailing characters allowed) followed
 * by jv_from_json() — the differential test (tests/unit/test_json_fast.c)
 * and the fuzz target (fuzz/fuzz_json_fast.c) hold the two to that.
 */
#pragma once
#include <stddef.h>

#include "json_value.h"

enum jf_result {
	JF_OK,	   /* *ret is the value, *used its bytes */
	JF_MORE,   /* the bytes end inside the value: more bytes may complete it */
	JF_UNSURE, /* anything outside the subset (an error included): ask json_tokener */
};

/* Reused between calls, so that a value costs no malloc of its own: the
 * members and elements of the open objects and arrays, decoded strings. */
struct jf_scratch {
	struct jv_member *m;
	size_t mn, mcap;
	struct jv *a;
	size_t an, acap;
	char *s;
	size_t scap;
};
void jf_scratch_clear(struct jf_scratch *sc);

/* Values are allocated in ar; after JF_MORE or JF_UNSURE what was allocated
 * stays in ar unused (freed with it). */
enum jf_result jf_parse(struct jv_arena *ar, struct jf_scratch *sc, const char *p, size_t n,
			struct jv *ret, size_t *used);
