/* str_index: a string → number hash table for the lookups a check repeats
 * (a flag's id, an object's position by name or uid). Built once per
 * evaluation; the keys are borrowed (they must outlive the index). Expected
 * O(1) per lookup, so a join of n objects against m is O(n + m), not O(n·m). */
#pragma once
#include <stdbool.h>
#include <stddef.h>

struct str_index {
	const char **keys; /* NULL: empty slot */
	size_t *vals;
	size_t cap, n; /* cap: a power of two, kept at least twice n */
};

/* The value of key, added as val when new; *ret_added says which. */
size_t str_index_put(struct str_index *ix, const char *key, size_t val, bool *ret_added);
/* Is key there (its value in *ret_val)? */
bool str_index_get(const struct str_index *ix, const char *key, size_t *ret_val);
void str_index_clear(struct str_index *ix);
