/*
 * Compact, immutable JSON values for the cluster state.
 *
 * json-c keeps every object as a hash table of its own (~800 bytes for a
 * handful of members): a 20,000-object cluster held as json-c trees is
 * ~470 MB, and building it is mostly malloc and page faults. Objects are
 * parsed by json_tokener as before, converted at once into this form (16
 * bytes a value, members in source order, keys interned, strings copied into
 * an arena) and the json-c tree freed, so json-c's memory is reused by the
 * next object instead of retained.
 *
 * A value is read through a `const struct jv *`; NULL stands for an absent
 * member and for JSON null, as json-c's NULL does, so readers written for
 * json-c keep their meaning (jv_is(NULL, JV_NULL) is true). Values are never
 * changed once built: an arena is shared read-only between threads.
 */
#pragma once
#include <json-c/json.h>
#include <stdint.h>

#include "util.h"

enum jv_type {
	JV_NULL,
	JV_BOOL,
	JV_INT,
	JV_DOUBLE,
	JV_STRING,
	JV_ARRAY,
	JV_OBJECT,
};

struct jv_member;

struct jv {
	uint8_t type; /* enum jv_type */
	bool uns;     /* JV_INT above INT64_MAX: u.u (json-c's uint64) */
	uint32_t n;   /* string length, elements, members */
	union {
		bool b;
		int64_t i;
		uint64_t u;
		const char *s; /* NUL-terminated; may hold NULs (n is the length);
				JV_DOUBLE: the number's text, as json-c kept it */
		const struct jv *a;
		const struct jv_member *m;
	} u;
};

struct jv_member {
	const char *key; /* interned in the arena */
	struct jv val;
};

/* Blocks of memory freed all at once, with a set of interned keys. */
struct jv_arena;
struct jv_arena *jv_arena_new(void);
void jv_arena_free(struct jv_arena *a);
void jv_arena_freep(struct jv_arena **a);
/* Move src's memory into dst (values built in src stay valid, now owned by
 * dst); src is left empty and can be freed. */
void jv_arena_take(struct jv_arena *dst, struct jv_arena *src);
/* Bytes held, for statistics and tests. */
size_t jv_arena_size(const struct jv_arena *a);
const char *jv_arena_intern(struct jv_arena *a, const char *key);
/* The same for key[0..n), which holds no NUL. */
const char *jv_arena_intern_len(struct jv_arena *a, const char *key, size_t n);
void *jv_arena_alloc(struct jv_arena *a, size_t n);
/* An object of the n members m, an array of the n values e, copied into a. */
struct jv jv_object_copy(struct jv_arena *a, const struct jv_member *m, size_t n);
struct jv jv_array_copy(struct jv_arena *a, const struct jv *e, size_t n);

/* A copy of a json-c tree (NULL: JSON null). */
struct jv jv_from_json(struct jv_arena *a, json_object *o);
/* A new json-c tree (NULL for NULL and JSON null). */
json_object *jv_to_json(const struct jv *v);
/* The value as JSON text, as json_object_to_json_string would print it
 * ("null" for NULL). Caller frees. */
char *jv_dump(const struct jv *v);

enum jv_type jv_type(const struct jv *v);
bool jv_is(const struct jv *v, enum jv_type t);
/* The string of a JV_STRING, else NULL. */
const char *jv_str(const struct jv *v);
size_t jv_strlen(const struct jv *v);
/* json-c's conversions: a bool as 0/1, a double truncated, a numeric string
 * parsed, else 0 / false. */
int64_t jv_int64(const struct jv *v);
bool jv_bool(const struct jv *v);
double jv_double(const struct jv *v);

size_t jv_nmembers(const struct jv *v);
/* Member i's key; its value in *ret (NULL when the value is null). */
const char *jv_member(const struct jv *v, size_t i, const struct jv **ret);
/* As json_object_object_get_ex: false when v is not an object or lacks key;
 * *ret (if ret) is NULL when the member is null. A key of jv_k (below) is
 * found by comparing pointers only. */
bool jv_get_ex(const struct jv *v, const char *key, const struct jv **ret);

/*
 * Keys the checks look up most (metadata, name, namespace, status, spec, …),
 * interned once for the process: every arena interns a key of one of these
 * spellings as the very pointer jv_k.NAME, so a member so named has
 * key == jv_k.NAME and a lookup by jv_k.NAME compares pointers, never
 * strings (lookups by string were a tenth of a report's time). A lookup by
 * a literal ("status") finds the same members, by comparing strings;
 * jv_known_key maps a string to its jv_k pointer.
 */
// clang-format off
#define JV_KNOWN_KEYS(X) \
	X(apiVersion) X(kind) X(metadata) X(name) X(namespace) X(uid) X(labels) \
	X(annotations) X(creationTimestamp) X(deletionTimestamp) X(ownerReferences) \
	X(finalizers) X(spec) X(status) X(conditions) X(type) X(reason) X(message) X(phase) \
	X(state) X(value) X(controller) X(nodeName) X(volumeName) X(kubernetesStatus) \
	X(pvcName) X(robustness) X(dataSource) X(cloneStatus) X(template) X(containers) \
	X(image) X(driver) X(provisioner) X(parameters) X(volumeMode) X(migratable) \
	X(running) X(error) X(source) X(storageClassName) X(accessModes) X(claimName) \
	X(persistentVolumeClaim) X(volumes)
// clang-format on
struct jv_known_keys {
#define JV_KNOWN_FIELD_(k) char k[sizeof(#k)];
	JV_KNOWN_KEYS(JV_KNOWN_FIELD_)
#undef JV_KNOWN_FIELD_
};
extern const struct jv_known_keys jv_k;
/* key's jv_k pointer when it is spelled as one, else key itself. */
const char *jv_known_key(const char *key);

/* for each member of an object (none for anything else), as
 * json_object_object_foreach: key and val are declared in the scope. */
#define jv_foreach(obj, key, val)                                                                  \
	const char *key _unused_ = NULL;                                                           \
	const struct jv *val _unused_ = NULL;                                                      \
	for (size_t key##_i_ = 0;                                                                  \
	     key##_i_ < jv_nmembers(obj) && ((key = jv_member((obj), key##_i_, &val)), true);      \
	     key##_i_++)

/* Building, for loaders: members collected (a later duplicate key replaces
 * the earlier value in its place, as json-c does), then copied into the
 * arena in one piece. */
struct jv_builder {
	struct jv_member *m;
	struct jv *a;
	size_t n, cap;
};
void jv_builder_set(struct jv_arena *ar, struct jv_builder *b, const char *key, struct jv val);
void jv_builder_push(struct jv_builder *b, struct jv val);
/* The member of that key so far, or NULL. */
const struct jv *jv_builder_get(const struct jv_builder *b, const char *key);
struct jv jv_builder_object(struct jv_arena *ar, struct jv_builder *b);
struct jv jv_builder_array(struct jv_arena *ar, struct jv_builder *b);
void jv_builder_clear(struct jv_builder *b);
/* obj without the member key (a new members array when it had one). */
struct jv jv_without(struct jv_arena *ar, const struct jv *obj, const char *key);
/* obj with member key's value replaced (appended when absent). */
struct jv jv_with(struct jv_arena *ar, const struct jv *obj, const char *key, struct jv val);
/* A string copied into the arena. */
struct jv jv_string(struct jv_arena *ar, const char *s);
struct jv jv_string_len(struct jv_arena *ar, const char *s, size_t n);
/* text parsed as json_tokener_parse does, into ar; NULL when it is not JSON
 * (or is null). For small documents: settings, API answers. */
const struct jv *jv_parse(struct jv_arena *ar, const char *text);
