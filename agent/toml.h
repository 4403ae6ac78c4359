/*
 * A small, strict TOML 1.0 reader, enough for containerd's config.toml (and
 * its imports): tables `[a.b."c.d"]` and `[a.'b']`, arrays of tables, dotted
 * and quoted keys, the four kinds of strings, integers, floats, booleans,
 * arrays and inline tables, comments. Date and time values are refused with a
 * clear error (no containerd setting uses them), and so is everything TOML
 * forbids: duplicate keys, tables defined twice, invalid UTF-8, control
 * characters, bad escapes. Every error carries the line it was found on.
 *
 * The result is a tree of tables; keys keep the order of the file.
 */
#pragma once
#include "util.h"

enum toml_type {
	TOML_STRING,
	TOML_INTEGER,
	TOML_FLOAT,
	TOML_BOOLEAN,
	TOML_ARRAY,
	TOML_TABLE,
};

struct toml_table;
struct toml_array;

struct toml_value {
	enum toml_type type;
	unsigned line; /* where the value (or the table's header) is */
	union {
		char *s;
		int64_t i;
		double f;
		bool b;
		struct toml_array *a;
		struct toml_table *t;
	};
};

struct toml_array {
	struct toml_value *items;
	size_t n, cap;
	bool of_tables; /* made by [[header]]s, not by a value */
};

struct toml_kv {
	char *key;
	struct toml_value val;
};

struct toml_table {
	struct toml_kv *items;
	size_t n, cap;
	unsigned flags; /* private to the parser: how the table came to be */
};

/* Arrays and inline tables nest at most this deep. */
#define TOML_MAX_DEPTH 64

struct toml_error {
	unsigned line; /* 1-based; 0 when the error is not tied to a line */
	char msg[240];
};

/* Parse a whole document. Returns 0 and the root table, or -EINVAL with err filled. */
int toml_parse(const uint8_t *buf, size_t len, struct toml_table **ret, struct toml_error *err);
/* Frees the whole tree; NULL is fine. Returns NULL. */
struct toml_table *toml_free(struct toml_table *t);

const char *toml_type_name(enum toml_type t);
const struct toml_value *toml_table_get(const struct toml_table *t, const char *key);
/* Follow keys through nested tables: toml_lookup(root, "plugins", "cri", NULL).
 * NULL if a key is missing or an intermediate value is not a table. */
const struct toml_value *toml_lookup(const struct toml_table *t, ...) __attribute__((sentinel));
