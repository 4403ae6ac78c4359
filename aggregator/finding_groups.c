#include "finding_groups.h"

#include <stdlib.h>
#include <string.h>

struct sort_ctx {
	const struct verdict *v;
	const unsigned *key;
};

static bool groupable(const struct finding *fd)
{
	return fd->node && *fd->node;
}

static int nstrcmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* The grouping key, then the original order (a stable sort). */
static int cmp_member(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct finding *a = &c->v->findings.items[ia], *b = &c->v->findings.items[ib];
	bool ga = groupable(a), gb = groupable(b);
	int r;
	if (ga != gb)
		return ga ? -1 : 1;
	if (!ga) /* groups of one: by position */
		return ia < ib ? -1 : ia > ib;
	if ((r = strcmp(a->check, b->check)) || (r = (int)a->status - (int)b->status) ||
	    (r = nstrcmp(a->object, b->object)) || (r = nstrcmp(a->message, b->message)) ||
	    (r = nstrcmp(a->remediation, b->remediation)))
		return r;
	if (c->key && c->key[ia] != c->key[ib])
		return c->key[ia] < c->key[ib] ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

static bool same_group(const struct sort_ctx *c, size_t ia, size_t ib)
{
	const struct finding *a = &c->v->findings.items[ia], *b = &c->v->findings.items[ib];
	return groupable(a) && groupable(b) && streq(a->check, b->check) &&
	       a->status == b->status && !nstrcmp(a->object, b->object) &&
	       !nstrcmp(a->message, b->message) && !nstrcmp(a->remediation, b->remediation) &&
	       (!c->key || c->key[ia] == c->key[ib]);
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct finding_group *a = pa, *b = pb;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* Does every member have key, with a value equal to the first member's? */
static bool shared_value(const struct verdict *v, const struct finding_group *g, const char *key,
			 const struct value *val)
{
	for (size_t m = 1; m < g->n; m++) {
		const struct value *o = kv_get(&v->findings.items[g->members[m]].evidence, key);
		if (!o || !value_equal(o, val))
			return false;
	}
	return true;
}

static void per_node(const struct verdict *v, const struct finding_group *g, const char *key,
		     struct kv_list *ev)
{
	struct kv_list *map = kv_add_map(ev, key);
	for (size_t m = 0; m < g->n; m++) {
		const struct finding *fd = &v->findings.items[g->members[m]];
		const struct value *o = kv_get(&fd->evidence, key);
		if (o) {
			struct value copy;
			value_copy(&copy, o);
			kv_add_value(map, fd->node, &copy);
		} else {
			kv_add_str(map, fd->node, "(absent)");
		}
	}
}

static void merge(const struct verdict *v, struct finding_group *g)
{
	const struct finding *a = &v->findings.items[g->first];
	if (g->n == 1) {
		/* The finding itself, shallow: a verdict outlives its groups, and
		 * at thousands of nodes most groups are of one (a copy of each was
		 * a second verdict's worth of memory while a report was written). */
		g->merged = *a;
		return;
	}
	struct finding *m = &g->merged;
	*m = (struct finding){.check = xstrdup(a->check),
			      .status = a->status,
			      .message = xstrdup(a->message ? a->message : ""),
			      .remediation = xstrdup(a->remediation ? a->remediation : ""),
			      .object = a->object ? xstrdup(a->object) : NULL};
	g->names = xcalloc(g->n, sizeof(*g->names));
	for (size_t k = 0; k < g->n; k++)
		g->names[k] = v->findings.items[g->members[k]].node;
	/* Keys in the first member's order, then keys only later members have. */
	for (size_t k = 0; k < g->n; k++) {
		const struct kv_list *ev = &v->findings.items[g->members[k]].evidence;
		for (size_t e = 0; e < ev->n; e++) {
			const char *key = ev->items[e].key;
			if (kv_get(&m->evidence, key))
				continue;
			if (k == 0 && shared_value(v, g, key, &ev->items[e].val)) {
				struct value copy;
				value_copy(&copy, &ev->items[e].val);
				kv_add_value(&m->evidence, key, &copy);
			} else {
				per_node(v, g, key, &m->evidence);
			}
		}
	}
}

void finding_groups_build(const struct verdict *v, const unsigned *key,
			  bool (*want)(size_t i, void *arg), void *arg, struct finding_groups *ret)
{
	*ret = (struct finding_groups){0};
	size_t n = 0;
	size_t *idx = xcalloc(v->findings.n + 1, sizeof(*idx));
	for (size_t i = 0; i < v->findings.n; i++)
		if (want(i, arg))
			idx[n++] = i;
	struct sort_ctx c = {.v = v, .key = key};
	qsort_r(idx, n, sizeof(*idx), cmp_member, &c);
	ret->items = xcalloc(n + 1, sizeof(*ret->items));
	/* make bench's "ungrouped" figure (docs/benchmarks.md): every finding a
	 * card of its own, as the reports were before grouping. A benchmark hook,
	 * like HVREADY_TIMINGS: never needed to read a report. */
	const char *nog = getenv("HVREADY_BENCH_NO_GROUPING");
	bool grouping = !nog || !*nog || streq(nog, "0");
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (grouping && j < n && same_group(&c, idx[i], idx[j]))
			j++;
		struct finding_group *g = &ret->items[ret->n++];
		g->n = j - i;
		g->members = idx + i; /* one allocation for every group's members */
		g->first = g->members[0];
		i = j;
	}
	ret->members = idx;
	qsort(ret->items, ret->n, sizeof(*ret->items), cmp_group);
	for (size_t i = 0; i < ret->n; i++)
		merge(v, &ret->items[i]);
}

void finding_groups_clear(struct finding_groups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->items[i].names);
		if (g->items[i].n > 1)
			finding_clear(&g->items[i].merged);
	}
	free(g->items);
	free(g->members);
	*g = (struct finding_groups){0};
}

char *finding_group_subject(const struct finding_group *g, size_t max)
{
	if (g->n == 1)
		return xstrdup(g->merged.node ? g->merged.node : "");
	struct strv parts = {0};
	size_t shown = max && max < g->n ? max : g->n;
	for (size_t i = 0; i < shown; i++)
		strv_add(&parts, g->names[i]);
	_cleanup_free_ char *list = strv_join(&parts, ", ");
	strv_clear(&parts);
	const char *obj = g->merged.object ? g->merged.object : "";
	const char *sep = *obj ? " on " : "";
	if (shown < g->n)
		return xasprintf("%s%s%zu nodes: %s and %zu more", obj, sep, g->n, list,
				 g->n - shown);
	return xasprintf("%s%s%zu nodes: %s", obj, sep, g->n, list);
}
