/*
 * Typed key/value lists: the evidence of a finding and the facts of a node.
 *
 * A value is a string, a 64-bit integer, a boolean, a list of values or a map
 * (an ordered kv list). Keys keep insertion order, so renderings are stable and
 * evidence reads in the order the check gathered it. Everything is owned:
 * kv_list_clear() frees the whole tree.
 */
#pragma once
#include "util.h"

enum value_type { VALUE_STR, VALUE_INT, VALUE_BOOL, VALUE_LIST, VALUE_MAP };

struct value;
struct kv;

struct value_list {
	struct value *items;
	size_t n, cap;
};

struct kv_list {
	struct kv *items;
	size_t n, cap;
};

struct value {
	enum value_type type;
	union {
		char *s;
		int64_t i;
		bool b;
		struct value_list list;
		struct kv_list map;
	};
};

struct kv {
	char *key;
	struct value val;
};

/* Append to a map. A key already present is replaced in place (order kept). */
void kv_add_str(struct kv_list *l, const char *key, const char *s);
void kv_add_strf(struct kv_list *l, const char *key, const char *fmt, ...) _printf_(3, 4);
void kv_add_int(struct kv_list *l, const char *key, int64_t i);
void kv_add_bool(struct kv_list *l, const char *key, bool b);
struct value_list *kv_add_list(struct kv_list *l, const char *key);
struct kv_list *kv_add_map(struct kv_list *l, const char *key);
/* Take ownership of *v (which is zeroed afterwards). */
void kv_add_value(struct kv_list *l, const char *key, struct value *v);

void vlist_add_str(struct value_list *l, const char *s);
void vlist_add_strf(struct value_list *l, const char *fmt, ...) _printf_(2, 3);
void vlist_add_int(struct value_list *l, int64_t i);
void vlist_add_bool(struct value_list *l, bool b);
struct value_list *vlist_add_list(struct value_list *l);
struct kv_list *vlist_add_map(struct value_list *l);

const struct value *kv_get(const struct kv_list *l, const char *key);
/* NULL when absent or not a string. */
const char *kv_get_str(const struct kv_list *l, const char *key);
/* false when absent or not an integer. */
bool kv_get_int(const struct kv_list *l, const char *key, int64_t *ret);
bool kv_get_bool(const struct kv_list *l, const char *key, bool *ret);
const struct value_list *kv_get_list(const struct kv_list *l, const char *key);

void value_clear(struct value *v);
void kv_list_clear(struct kv_list *l);
void value_copy(struct value *dst, const struct value *src);
void kv_list_copy(struct kv_list *dst, const struct kv_list *src);
bool value_equal(const struct value *a, const struct value *b);
