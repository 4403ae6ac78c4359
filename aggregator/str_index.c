/* Open addressing with linear probing: the keys are short (CPU flags, names,
 * uids) and the table is built once, so there is no deletion. */
#include "str_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* FNV-1a, 64 bits. */
static uint64_t str_index_hash(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return h;
}

static size_t str_index_slot(const struct str_index *ix, const char *key)
{
	size_t mask = ix->cap - 1, i = (size_t)str_index_hash(key) & mask;
	while (ix->keys[i] && !streq(ix->keys[i], key))
		i = (i + 1) & mask;
	return i;
}

static void str_index_grow(struct str_index *ix)
{
	struct str_index bigger = {
	    .cap = ix->cap ? ix->cap * 2 : 64,
	    .n = ix->n,
	};
	bigger.keys = xcalloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = xcalloc(bigger.cap, sizeof(*bigger.vals));
	for (size_t i = 0; i < ix->cap; i++) {
		if (!ix->keys[i])
			continue;
		size_t s = str_index_slot(&bigger, ix->keys[i]);
		bigger.keys[s] = ix->keys[i];
		bigger.vals[s] = ix->vals[i];
	}
	free(ix->keys);
	free(ix->vals);
	*ix = bigger;
}

size_t str_index_put(struct str_index *ix, const char *key, size_t val, bool *ret_added)
{
	if (2 * (ix->n + 1) > ix->cap)
		str_index_grow(ix);
	size_t s = str_index_slot(ix, key);
	*ret_added = !ix->keys[s];
	if (*ret_added) {
		ix->keys[s] = key;
		ix->vals[s] = val;
		ix->n++;
	}
	return ix->vals[s];
}

bool str_index_get(const struct str_index *ix, const char *key, size_t *ret_val)
{
	if (!ix->cap)
		return false;
	size_t s = str_index_slot(ix, key);
	if (!ix->keys[s])
		return false;
	*ret_val = ix->vals[s];
	return true;
}

void str_index_clear(struct str_index *ix)
{
	free(ix->keys);
	free(ix->vals);
	*ix = (struct str_index){0};
}
