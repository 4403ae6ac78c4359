/*
 * A JSON writer that prints straight to its output, byte for byte what json-c
 * prints with JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE for the
 * same values, without building json-c's tree of them (a tree is a hash table
 * per object and an allocation per value: the verdict of 500 nodes was a
 * tenth of a report's time in building, printing and freeing them).
 *
 * What json-c does and this does too:
 * - strings: \b \n \r \t \f \" \\ by name, the other bytes below 0x20 as
 *   \u00xx (lower-case hex), '/' as is (NOSLASHESCAPE), every other byte as
 *   it is — also invalid UTF-8 and 0x7f: json-c's json_escape_str checks
 *   nothing else;
 * - integers as %PRId64 / %PRIu64, booleans as true / false, an absent
 *   value (NULL) as null;
 * - no white space at all; or, with jw_init_pretty, what json-c prints with
 *   JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED (two spaces a level,
 *   "key": value, an empty container as "{\n" and its brace at its level)
 *   — what json_pretty.c made of the compact text in a second pass
 *   before.
 *
 * What json-c does with an object's keys — a key added twice keeps its
 * first place and takes the last value — is the caller's to do (the writer
 * prints members in the order it is given them); jw_kv_list does it for the
 * report model's maps.
 *
 * Commas are the writer's: jw_key and every value write one when the
 * container already has an item. Nothing checks that keys and values
 * alternate: the callers are the verdict writers, not untrusted input; the
 * strings are what is untrusted, and they are always escaped.
 *
 * The parsing side (the cluster state, node reports, API answers) keeps
 * json-c: its tokener is the reference reader of the project (no
 * hand-written JSON parser but json_fast.c, which hands back to it whatever
 * it does not decide).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"

#define JW_BUF (64u << 10)

struct jw {
	/* Called with every piece of the text, in order (pieces of up to JW_BUF
	 * bytes, larger ones as they come). */
	void (*write)(void *ctx, const char *buf, size_t len);
	void *ctx;
	bool comma;  /* the current container has an item: the next one needs a ',' */
	bool pretty; /* indented as json-c's PRETTY | SPACED */
	bool opened; /* pretty: a container was just opened (empty, or its first item follows) */
	unsigned level;
	size_t len;
	char buf[JW_BUF];
};

void jw_init(struct jw *w, void (*write)(void *ctx, const char *buf, size_t len), void *ctx);
/* The same, indented (see above). jw_raw's bytes are not re-indented. */
void jw_init_pretty(struct jw *w, void (*write)(void *ctx, const char *buf, size_t len), void *ctx);
/* Writes what is buffered. */
void jw_flush(struct jw *w);
/* Bytes as they are: JSON the caller vouches for (a cached fragment). */
void jw_raw(struct jw *w, const char *p, size_t n);
/* Starts a value: the ',' when the container already has one. For a raw
 * value written with jw_raw. */
void jw_value_start(struct jw *w);

void jw_object_begin(struct jw *w);
void jw_object_end(struct jw *w);
void jw_array_begin(struct jw *w);
void jw_array_end(struct jw *w);
/* A member's key (escaped as a string) and ':'; its value follows. */
void jw_key(struct jw *w, const char *key);

/* A string value; NULL writes null. */
void jw_string(struct jw *w, const char *s);
void jw_string_len(struct jw *w, const char *s, size_t n);
void jw_int(struct jw *w, int64_t i);
void jw_uint(struct jw *w, uint64_t u);
void jw_bool(struct jw *w, bool b);
void jw_null(struct jw *w);

/* Shorthands for a member: key, then the value. jw_member_opt writes null for
 * NULL (json_object_object_add with a NULL value). */
void jw_member_str(struct jw *w, const char *key, const char *s);
void jw_member_int(struct jw *w, const char *key, int64_t i);
void jw_member_bool(struct jw *w, const char *key, bool b);

/* The report model's values (render_value_json, render_kv_json): a map
 * written as json-c builds it — a key that comes again keeps its first
 * place and takes the last value. */
void jw_value(struct jw *w, const struct value *v);
void jw_kv_list(struct jw *w, const struct kv_list *l);

/* A growing buffer as a write callback (ctx: struct jw_membuf *); for
 * fragments and tests. */
struct jw_membuf {
	char *p;
	size_t len, cap;
};
void jw_membuf_write(void *ctx, const char *buf, size_t len);
