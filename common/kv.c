#include "kv.h"

#include <string.h>

#include "redact.h"

static struct value *kv_slot(struct kv_list *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (streq(l->items[i].key, key)) {
			value_clear(&l->items[i].val);
			return &l->items[i].val;
		}
	util_grow((void **)&l->items, &l->cap, l->n + 1, sizeof(struct kv));
	struct kv *kv = &l->items[l->n++];
	kv->key = xstrdup(key);
	return &kv->val;
}

/* Evidence is shown to anyone who may read a report: a URL's credentials never
 * get in, whichever check forgot to redact its value (common/redact.h). Takes s. */
static char *evidence_str(char *s)
{
	if (!redact_text_needed(s))
		return s;
	char *r = redact_text(s);
	free(s);
	return r;
}

static struct value *vlist_slot(struct value_list *l)
{
	util_grow((void **)&l->items, &l->cap, l->n + 1, sizeof(struct value));
	return &l->items[l->n++];
}

void kv_add_str(struct kv_list *l, const char *key, const char *s)
{
	struct value *v = kv_slot(l, key);
	*v = (struct value){.type = VALUE_STR, .s = evidence_str(xstrdup(s))};
}

void kv_add_strf(struct kv_list *l, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	struct value *v = kv_slot(l, key);
	*v = (struct value){.type = VALUE_STR, .s = evidence_str(s)};
}

void kv_add_int(struct kv_list *l, const char *key, int64_t i)
{
	struct value *v = kv_slot(l, key);
	*v = (struct value){.type = VALUE_INT, .i = i};
}

void kv_add_bool(struct kv_list *l, const char *key, bool b)
{
	struct value *v = kv_slot(l, key);
	*v = (struct value){.type = VALUE_BOOL, .b = b};
}

struct value_list *kv_add_list(struct kv_list *l, const char *key)
{
	struct value *v = kv_slot(l, key);
	*v = (struct value){.type = VALUE_LIST};
	return &v->list;
}

struct kv_list *kv_add_map(struct kv_list *l, const char *key)
{
	struct value *v = kv_slot(l, key);
	*v = (struct value){.type = VALUE_MAP};
	return &v->map;
}

void kv_add_value(struct kv_list *l, const char *key, struct value *src)
{
	struct value *v = kv_slot(l, key);
	*v = *src;
	*src = (struct value){.type = VALUE_BOOL};
}

void vlist_add_str(struct value_list *l, const char *s)
{
	*vlist_slot(l) = (struct value){.type = VALUE_STR, .s = evidence_str(xstrdup(s))};
}

void vlist_add_strf(struct value_list *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	*vlist_slot(l) = (struct value){.type = VALUE_STR, .s = evidence_str(s)};
}

void vlist_add_int(struct value_list *l, int64_t i)
{
	*vlist_slot(l) = (struct value){.type = VALUE_INT, .i = i};
}

void vlist_add_bool(struct value_list *l, bool b)
{
	*vlist_slot(l) = (struct value){.type = VALUE_BOOL, .b = b};
}

struct value_list *vlist_add_list(struct value_list *l)
{
	struct value *v = vlist_slot(l);
	*v = (struct value){.type = VALUE_LIST};
	return &v->list;
}

struct kv_list *vlist_add_map(struct value_list *l)
{
	struct value *v = vlist_slot(l);
	*v = (struct value){.type = VALUE_MAP};
	return &v->map;
}

const struct value *kv_get(const struct kv_list *l, const char *key)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (streq(l->items[i].key, key))
			return &l->items[i].val;
	return NULL;
}

const char *kv_get_str(const struct kv_list *l, const char *key)
{
	const struct value *v = kv_get(l, key);
	return v && v->type == VALUE_STR ? v->s : NULL;
}

bool kv_get_int(const struct kv_list *l, const char *key, int64_t *ret)
{
	const struct value *v = kv_get(l, key);
	if (!v || v->type != VALUE_INT)
		return false;
	*ret = v->i;
	return true;
}

bool kv_get_bool(const struct kv_list *l, const char *key, bool *ret)
{
	const struct value *v = kv_get(l, key);
	if (!v || v->type != VALUE_BOOL)
		return false;
	*ret = v->b;
	return true;
}

const struct value_list *kv_get_list(const struct kv_list *l, const char *key)
{
	const struct value *v = kv_get(l, key);
	return v && v->type == VALUE_LIST ? &v->list : NULL;
}

void value_clear(struct value *v)
{
	switch (v->type) {
	case VALUE_STR:
		free(v->s);
		break;
	case VALUE_LIST:
		for (size_t i = 0; i < v->list.n; i++)
			value_clear(&v->list.items[i]);
		free(v->list.items);
		break;
	case VALUE_MAP:
		kv_list_clear(&v->map);
		break;
	default:
		break;
	}
	*v = (struct value){.type = VALUE_BOOL};
}

void kv_list_clear(struct kv_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].key);
		value_clear(&l->items[i].val);
	}
	free(l->items);
	*l = (struct kv_list){0};
}

void value_copy(struct value *dst, const struct value *src)
{
	*dst = (struct value){.type = src->type};
	switch (src->type) {
	case VALUE_STR:
		dst->s = xstrdup(src->s);
		break;
	case VALUE_INT:
		dst->i = src->i;
		break;
	case VALUE_BOOL:
		dst->b = src->b;
		break;
	case VALUE_LIST:
		for (size_t i = 0; i < src->list.n; i++)
			value_copy(vlist_slot(&dst->list), &src->list.items[i]);
		break;
	case VALUE_MAP:
		kv_list_copy(&dst->map, &src->map);
		break;
	}
}

void kv_list_copy(struct kv_list *dst, const struct kv_list *src)
{
	for (size_t i = 0; i < src->n; i++)
		value_copy(kv_slot(dst, src->items[i].key), &src->items[i].val);
}

bool value_equal(const struct value *a, const struct value *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case VALUE_STR:
		return streq(a->s, b->s);
	case VALUE_INT:
		return a->i == b->i;
	case VALUE_BOOL:
		return a->b == b->b;
	case VALUE_LIST:
		if (a->list.n != b->list.n)
			return false;
		for (size_t i = 0; i < a->list.n; i++)
			if (!value_equal(&a->list.items[i], &b->list.items[i]))
				return false;
		return true;
	case VALUE_MAP:
		if (a->map.n != b->map.n)
			return false;
		for (size_t i = 0; i < a->map.n; i++)
			if (!streq(a->map.items[i].key, b->map.items[i].key) ||
			    !value_equal(&a->map.items[i].val, &b->map.items[i].val))
				return false;
		return true;
	}
	return false;
}
