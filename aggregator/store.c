#include "store.h"

#include <string.h>

static uint64_t hash(const char *s)
{
	uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

void store_init(struct store *s)
{
	*s = (struct store){0};
}

void store_clear(struct store *s)
{
	for (size_t i = 0; i < s->n; i++) {
		node_report_clear(s->entries[i].report);
		free(s->entries[i].report);
	}
	free(s->entries);
	free(s->slots);
	*s = (struct store){0};
}

static size_t find_slot(const struct store *s, const char *node)
{
	size_t mask = s->nslots - 1;
	for (size_t i = hash(node) & mask;; i = (i + 1) & mask) {
		uint32_t v = s->slots[i];
		if (!v || streq(s->entries[v - 1].report->node, node))
			return i;
	}
}

static void rehash(struct store *s)
{
	size_t n = s->nslots ? s->nslots * 2 : 64;
	free(s->slots);
	s->slots = xcalloc(n, sizeof(uint32_t));
	s->nslots = n;
	for (size_t i = 0; i < s->n; i++)
		s->slots[find_slot(s, s->entries[i].report->node)] = (uint32_t)(i + 1);
}

const struct node_entry *store_get(const struct store *s, const char *node)
{
	if (!s->nslots)
		return NULL;
	uint32_t v = s->slots[find_slot(s, node)];
	return v ? &s->entries[v - 1] : NULL;
}

/* Is e no newer than old? The agent's wall clock may be stepped back (by NTP,
 * an operator) while it runs: when both were timed on this aggregator's
 * monotonic clock, that order is the one to trust. */
static bool not_newer(const struct node_entry *e, const struct node_entry *old)
{
	if (e->report->sent_ns == old->report->sent_ns && e->report->seq == old->report->seq)
		return true; /* the same report again */
	if (e->generated_mono_ns && old->generated_mono_ns)
		return e->generated_mono_ns < old->generated_mono_ns;
	/* A new agent process (other boot or restart) starts seq again: only
	 * the send time orders reports across processes. */
	return e->report->sent_ns < old->report->sent_ns ||
	       (e->report->sent_ns == old->report->sent_ns && e->report->seq <= old->report->seq);
}

int store_put(struct store *s, struct node_report *r, int64_t received_ns, int64_t rtt_ns)
{
	return store_put_entry(
	    s, (struct node_entry){.report = r, .received_ns = received_ns, .rtt_ns = rtt_ns});
}

int store_put_entry(struct store *s, struct node_entry e)
{
	struct node_report *r = e.report;
	if (!s->nslots || (s->n + 1) * 2 > s->nslots)
		rehash(s);
	size_t slot = find_slot(s, r->node);
	uint32_t v = s->slots[slot];
	if (v) {
		struct node_entry *old = &s->entries[v - 1];
		if (not_newer(&e, old)) {
			s->stale++;
			node_report_clear(r);
			free(r);
			return 0;
		}
		node_report_clear(old->report);
		free(old->report);
		*old = e;
	} else {
		util_grow((void **)&s->entries, &s->cap, s->n + 1, sizeof(*s->entries));
		s->entries[s->n++] = e;
		s->slots[slot] = (uint32_t)s->n;
	}
	s->accepted++;
	return 1;
}
