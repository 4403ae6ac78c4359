#include "json_value.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BLOCK_MIN (4u << 10)
#define BLOCK_MAX (1u << 20)

struct jv_block {
	struct jv_block *next;
	size_t size;
	bool mapped;
	max_align_t data[];
};

/* Blocks of BLOCK_MAX and more are mapped with their pages populated at
 * once: a page fault apiece is most of the cost of filling them (~16,000 of
 * them for a 20,000-object cluster, expensive in a VM). */
static struct jv_block *block_alloc(size_t size)
{
	size_t total = sizeof(struct jv_block) + size;
	if (size >= BLOCK_MAX) {
		void *p = mmap(NULL, total, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p != MAP_FAILED) {
			struct jv_block *b = p;
			b->mapped = true;
			b->size = size;
			return b;
		}
	}
	struct jv_block *b = xmalloc(total);
	b->mapped = false;
	b->size = size;
	return b;
}

static void block_free(struct jv_block *b)
{
	if (b->mapped)
		munmap(b, sizeof(*b) + b->size);
	else
		free(b);
}

struct jv_arena {
	struct jv_block *blocks;
	char *cur; /* free space in the newest block */
	size_t left;
	size_t next_size; /* blocks grow from small (a lease) to BLOCK_MAX */
	size_t bytes;
	const char **keys; /* open-addressing set of interned keys */
	size_t nkeys, keycap;
};

struct jv_arena *jv_arena_new(void)
{
	struct jv_arena *a = xcalloc(1, sizeof(*a));
	a->next_size = BLOCK_MIN;
	return a;
}

void jv_arena_free(struct jv_arena *a)
{
	if (!a)
		return;
	for (struct jv_block *b = a->blocks, *next; b; b = next) {
		next = b->next;
		block_free(b);
	}
	free(a->keys);
	free(a);
}

void jv_arena_freep(struct jv_arena **a)
{
	jv_arena_free(*a);
}

size_t jv_arena_size(const struct jv_arena *a)
{
	return a ? a->bytes : 0;
}

static struct jv_block *new_block(struct jv_arena *a, size_t need)
{
	size_t size = a->next_size;
	if (a->next_size < BLOCK_MAX)
		a->next_size *= 2;
	if (size < need)
		size = need;
	struct jv_block *b = block_alloc(size);
	a->bytes += size;
	return b;
}

void *jv_arena_alloc(struct jv_arena *a, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if (n == 0)
		return NULL;
	if (n > a->left) {
		struct jv_block *b = new_block(a, n);
		if (n * 4 > b->size && a->blocks) {
			/* A large piece gets a block of its own, behind the current one. */
			b->next = a->blocks->next;
			a->blocks->next = b;
			return b->data;
		}
		b->next = a->blocks;
		a->blocks = b;
		a->cur = (char *)b->data;
		a->left = b->size;
	}
	void *p = a->cur;
	a->cur += n;
	a->left -= n;
	return p;
}

void jv_arena_take(struct jv_arena *dst, struct jv_arena *src)
{
	if (!src->blocks)
		return;
	/* src's blocks go behind dst's current one: dst keeps filling its own. */
	struct jv_block *last = src->blocks;
	while (last->next)
		last = last->next;
	if (dst->blocks) {
		last->next = dst->blocks->next;
		dst->blocks->next = src->blocks;
	} else {
		last->next = NULL;
		dst->blocks = src->blocks;
		dst->cur = src->cur;
		dst->left = src->left;
		dst->next_size = src->next_size;
	}
	dst->bytes += src->bytes;
	free(src->keys);
	*src = (struct jv_arena){.next_size = BLOCK_MIN};
}

static char *copy_str(struct jv_arena *a, const char *s, size_t n)
{
	char *p = jv_arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Eight bytes at a time (keys are short: a byte at a time was most of
 * interning), mixed as in splitmix64. */
static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	if (n) {
		uint64_t w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
	}
	h = (h ^ (h >> 30)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

static uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

static void grow_keys(struct jv_arena *a)
{
	size_t cap = a->keycap ? a->keycap * 2 : 256;
	const char **keys = xcalloc(cap, sizeof(*keys));
	for (size_t i = 0; i < a->keycap; i++) {
		const char *k = a->keys[i];
		if (!k)
			continue;
		size_t j = hash_str(k) & (cap - 1);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = k;
	}
	free(a->keys);
	a->keys = keys;
	a->keycap = cap;
}

const struct jv_known_keys jv_k = {
#define JV_KNOWN_INIT_(k) #k,
    JV_KNOWN_KEYS(JV_KNOWN_INIT_)
#undef JV_KNOWN_INIT_
};

static const char *const known_keys[] = {
#define JV_KNOWN_PTR_(k) jv_k.k,
    JV_KNOWN_KEYS(JV_KNOWN_PTR_)
#undef JV_KNOWN_PTR_
};

static const size_t known_lens[] = {
#define JV_KNOWN_LEN_(k) sizeof(#k) - 1,
    JV_KNOWN_KEYS(JV_KNOWN_LEN_)
#undef JV_KNOWN_LEN_
};

static bool is_known(const char *key)
{
	uintptr_t p = (uintptr_t)key, lo = (uintptr_t)&jv_k;
	return p >= lo && p < lo + sizeof(jv_k);
}

/* The jv_k pointer of key[0..n), or NULL: when a key is interned first in an
 * arena (a few hundred times a run), not on every lookup. */
static const char *known_len(const char *key, size_t n)
{
	for (size_t i = 0; i < ELEMENTSOF(known_keys); i++)
		if (known_lens[i] == n && memcmp(known_keys[i], key, n) == 0)
			return known_keys[i];
	return NULL;
}

const char *jv_known_key(const char *key)
{
	if (!key || is_known(key))
		return key;
	const char *k = known_len(key, strlen(key));
	return k ? k : key;
}

const char *jv_arena_intern(struct jv_arena *a, const char *key)
{
	return jv_arena_intern_len(a, key, strlen(key));
}

const char *jv_arena_intern_len(struct jv_arena *a, const char *key, size_t n)
{
	if ((a->nkeys + 1) * 2 > a->keycap)
		grow_keys(a);
	size_t j = hash_bytes(key, n) & (a->keycap - 1);
	while (a->keys[j]) {
		const char *k = a->keys[j];
		/* key holds no NUL in its n bytes: strncmp stops at k's end. */
		if ((n == 0 || k[0] == key[0]) && strncmp(k, key, n) == 0 && k[n] == '\0')
			return k;
		j = (j + 1) & (a->keycap - 1);
	}
	a->nkeys++;
	const char *known = known_len(key, n);
	return a->keys[j] = known ? known : copy_str(a, key, n);
}

struct jv jv_from_json(struct jv_arena *a, json_object *o)
{
	struct jv v = {.type = JV_NULL};
	switch (json_object_get_type(o)) {
	case json_type_null:
		break;
	case json_type_boolean:
		v.type = JV_BOOL;
		v.u.b = json_object_get_boolean(o);
		break;
	case json_type_int:
		v.type = JV_INT;
		if (json_object_get_int64(o) == INT64_MAX &&
		    json_object_get_uint64(o) > INT64_MAX) {
			v.uns = true;
			v.u.u = json_object_get_uint64(o);
		} else {
			v.u.i = json_object_get_int64(o);
		}
		break;
	case json_type_double:
		v.type = JV_DOUBLE;
		v.u.s =
		    jv_arena_intern(a, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		v.n = (uint32_t)strlen(v.u.s);
		break;
	case json_type_string:
		v.type = JV_STRING;
		v.n = (uint32_t)json_object_get_string_len(o);
		v.u.s = copy_str(a, json_object_get_string(o), v.n);
		break;
	case json_type_array: {
		size_t n = json_object_array_length(o);
		struct jv *e = jv_arena_alloc(a, n * sizeof(*e));
		for (size_t i = 0; i < n; i++)
			e[i] = jv_from_json(a, json_object_array_get_idx(o, i));
		v.type = JV_ARRAY;
		v.n = (uint32_t)n;
		v.u.a = e;
		break;
	}
	case json_type_object: {
		size_t n = (size_t)json_object_object_length(o), i = 0;
		struct jv_member *m = jv_arena_alloc(a, n * sizeof(*m));
		json_object_object_foreach(o, key, val)
		{
			m[i].key = jv_arena_intern(a, key);
			m[i++].val = jv_from_json(a, val);
		}
		v.type = JV_OBJECT;
		v.n = (uint32_t)n;
		v.u.m = m;
		break;
	}
	}
	return v;
}

json_object *jv_to_json(const struct jv *v)
{
	switch (jv_type(v)) {
	case JV_NULL:
		return NULL;
	case JV_BOOL:
		return json_object_new_boolean(v->u.b);
	case JV_INT:
		return v->uns ? json_object_new_uint64(v->u.u) : json_object_new_int64(v->u.i);
	case JV_DOUBLE:
		return json_object_new_double_s(jv_double(v), v->u.s);
	case JV_STRING:
		return json_object_new_string_len(v->u.s, (int)v->n);
	case JV_ARRAY: {
		json_object *o = json_object_new_array_ext((int)v->n);
		for (size_t i = 0; i < v->n; i++)
			json_object_array_add(o, jv_to_json(&v->u.a[i]));
		return o;
	}
	case JV_OBJECT: {
		json_object *o = json_object_new_object();
		for (size_t i = 0; i < v->n; i++)
			json_object_object_add(o, v->u.m[i].key, jv_to_json(&v->u.m[i].val));
		return o;
	}
	}
	return NULL;
}

char *jv_dump(const struct jv *v)
{
	json_object *o = jv_to_json(v);
	char *s = xstrdup(json_object_to_json_string(o));
	json_object_put(o);
	return s;
}

enum jv_type jv_type(const struct jv *v)
{
	return v ? (enum jv_type)v->type : JV_NULL;
}

bool jv_is(const struct jv *v, enum jv_type t)
{
	return jv_type(v) == t;
}

const char *jv_str(const struct jv *v)
{
	return jv_is(v, JV_STRING) ? v->u.s : NULL;
}

size_t jv_strlen(const struct jv *v)
{
	return jv_is(v, JV_STRING) ? v->n : 0;
}

int64_t jv_int64(const struct jv *v)
{
	switch (jv_type(v)) {
	case JV_BOOL:
		return v->u.b;
	case JV_INT:
		return v->uns ? INT64_MAX : v->u.i;
	case JV_DOUBLE: {
		double d = jv_double(v);
		if (d >= 9.2e18)
			return INT64_MAX;
		if (d <= -9.2e18)
			return INT64_MIN;
		return (int64_t)d;
	}
	case JV_STRING: {
		int64_t r;
		return util_parse_i64(v->u.s, &r) == 0 ? r : 0;
	}
	default:
		return 0;
	}
}

bool jv_bool(const struct jv *v)
{
	switch (jv_type(v)) {
	case JV_BOOL:
		return v->u.b;
	case JV_INT:
		return v->u.i != 0;
	case JV_DOUBLE:
		return jv_double(v) != 0;
	case JV_STRING:
		return v->n != 0;
	default:
		return false;
	}
}

double jv_double(const struct jv *v)
{
	switch (jv_type(v)) {
	case JV_BOOL:
		return v->u.b;
	case JV_INT:
		return v->uns ? (double)v->u.u : (double)v->u.i;
	case JV_DOUBLE:
	case JV_STRING:
		return strtod(v->u.s, NULL);
	default:
		return 0;
	}
}

size_t jv_nmembers(const struct jv *v)
{
	return jv_is(v, JV_OBJECT) ? v->n : 0;
}

static const struct jv *nonnull(const struct jv *v)
{
	return v->type == JV_NULL ? NULL : v;
}

const char *jv_member(const struct jv *v, size_t i, const struct jv **ret)
{
	if (i >= jv_nmembers(v)) {
		if (ret)
			*ret = NULL;
		return NULL;
	}
	if (ret)
		*ret = nonnull(&v->u.m[i].val);
	return v->u.m[i].key;
}

bool jv_get_ex(const struct jv *v, const char *key, const struct jv **ret)
{
	size_t n = key ? jv_nmembers(v) : 0;
	if (n && is_known(key)) {
		/* interned as this pointer in every arena (jv_k) */
		for (size_t i = 0; i < n; i++) {
			const struct jv_member *m = &v->u.m[i];
			if (m->key == key) {
				if (ret)
					*ret = nonnull(&m->val);
				return true;
			}
		}
		if (ret)
			*ret = NULL;
		return false;
	}
	/* The first byte decides for most members: a call to strcmp per member
	 * was a tenth of a report's time. */
	for (size_t i = 0; i < n; i++) {
		const struct jv_member *m = &v->u.m[i];
		if (m->key == key || (m->key[0] == key[0] && strcmp(m->key, key) == 0)) {
			if (ret)
				*ret = nonnull(&m->val);
			return true;
		}
	}
	if (ret)
		*ret = NULL;
	return false;
}

static void builder_grow(struct jv_builder *b, size_t elem)
{
	if (b->n < b->cap)
		return;
	b->cap = b->cap ? b->cap * 2 : 16;
	if (elem == sizeof(struct jv_member))
		b->m = xrealloc(b->m, b->cap * elem);
	else
		b->a = xrealloc(b->a, b->cap * elem);
}

void jv_builder_set(struct jv_arena *ar, struct jv_builder *b, const char *key, struct jv val)
{
	const char *k = jv_arena_intern(ar, key);
	for (size_t i = 0; i < b->n; i++)
		if (b->m[i].key == k) {
			b->m[i].val = val;
			return;
		}
	builder_grow(b, sizeof(struct jv_member));
	b->m[b->n++] = (struct jv_member){k, val};
}

void jv_builder_push(struct jv_builder *b, struct jv val)
{
	builder_grow(b, sizeof(struct jv));
	b->a[b->n++] = val;
}

const struct jv *jv_builder_get(const struct jv_builder *b, const char *key)
{
	for (size_t i = 0; b->m && i < b->n; i++)
		if (streq(b->m[i].key, key))
			return nonnull(&b->m[i].val);
	return NULL;
}

/* n elements of size at src, copied into a. */
static void *arena_copy(struct jv_arena *a, const void *src, size_t n, size_t size)
{
	void *p = jv_arena_alloc(a, n * size);
	if (n)
		memcpy(p, src, n * size);
	return p;
}

struct jv jv_object_copy(struct jv_arena *a, const struct jv_member *m, size_t n)
{
	return (struct jv){
	    .type = JV_OBJECT, .n = (uint32_t)n, .u.m = arena_copy(a, m, n, sizeof(*m))};
}

struct jv jv_array_copy(struct jv_arena *a, const struct jv *e, size_t n)
{
	return (struct jv){
	    .type = JV_ARRAY, .n = (uint32_t)n, .u.a = arena_copy(a, e, n, sizeof(*e))};
}

struct jv jv_builder_object(struct jv_arena *ar, struct jv_builder *b)
{
	struct jv v = jv_object_copy(ar, b->m, b->n);
	jv_builder_clear(b);
	return v;
}

struct jv jv_builder_array(struct jv_arena *ar, struct jv_builder *b)
{
	struct jv v = jv_array_copy(ar, b->a, b->n);
	jv_builder_clear(b);
	return v;
}

void jv_builder_clear(struct jv_builder *b)
{
	free(b->m);
	free(b->a);
	*b = (struct jv_builder){0};
}

struct jv jv_without(struct jv_arena *ar, const struct jv *obj, const char *key)
{
	if (!jv_get_ex(obj, key, NULL))
		return obj ? *obj : (struct jv){.type = JV_NULL};
	struct jv_member *m = jv_arena_alloc(ar, (obj->n - 1) * sizeof(*m));
	size_t k = 0;
	for (size_t i = 0; i < obj->n; i++)
		if (!streq(obj->u.m[i].key, key))
			m[k++] = obj->u.m[i];
	return (struct jv){.type = JV_OBJECT, .n = (uint32_t)k, .u.m = m};
}

struct jv jv_with(struct jv_arena *ar, const struct jv *obj, const char *key, struct jv val)
{
	size_t n = jv_nmembers(obj);
	struct jv_member *m = jv_arena_alloc(ar, (n + 1) * sizeof(*m));
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		m[i] = obj->u.m[i];
		if (!found && streq(m[i].key, key)) {
			m[i].val = val;
			found = true;
		}
	}
	if (!found)
		m[n++] = (struct jv_member){jv_arena_intern(ar, key), val};
	return (struct jv){.type = JV_OBJECT, .n = (uint32_t)n, .u.m = m};
}

struct jv jv_string(struct jv_arena *ar, const char *s)
{
	return jv_string_len(ar, s, strlen(s));
}

struct jv jv_string_len(struct jv_arena *ar, const char *s, size_t n)
{
	return (struct jv){.type = JV_STRING, .n = (uint32_t)n, .u.s = copy_str(ar, s, n)};
}

const struct jv *jv_parse(struct jv_arena *ar, const char *text)
{
	json_object *o = json_tokener_parse(text);
	if (!o)
		return NULL;
	struct jv *v = jv_arena_alloc(ar, sizeof(*v));
	*v = jv_from_json(ar, o);
	json_object_put(o);
	return v;
}
