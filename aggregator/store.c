#include "store.h"

#include <string.h>

#include "wire.h"

static uint64_t hash_name(const char *s, size_t n)
{
	uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/* Pieces are hashed at ingest rate: eight bytes a step (a multiply-xorshift
 * mix; equal hashes are confirmed with memcmp). */
static uint64_t hash_bytes(const uint8_t *p, size_t n, bool is_fact)
{
	const uint64_t k = UINT64_C(0x9e3779b97f4a7c15);
	uint64_t h = (n + is_fact) * k;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	uint64_t tail = 0;
	for (size_t j = 0; i + j < n; j++)
		tail |= (uint64_t)p[i + j] << (8 * j);
	h = (h ^ tail) * k;
	h ^= h >> 32;
	return h;
}

static struct store_piece *piece_find(const struct store *s, const uint8_t *bytes, size_t len,
				      bool is_fact, uint64_t h)
{
	if (s->npslots)
		for (struct store_piece *p = s->pieces[h & (s->npslots - 1)]; p; p = p->next)
			if (p->hash == h && p->len == len && p->is_fact == is_fact &&
			    memcmp(p->bytes, bytes, len) == 0)
				return p;
	return NULL;
}

static const void *known_lookup(void *ctx, const uint8_t *buf, size_t len, bool is_fact,
				enum status *ret_status)
{
	struct store_piece *p = piece_find(ctx, buf, len, is_fact, hash_bytes(buf, len, is_fact));
	if (p)
		*ret_status = (enum status)p->status;
	return p;
}

static const struct store_entry *get_n(const struct store *s, const char *node, size_t len);

static void known_node(void *ctx, const uint8_t *name, size_t len)
{
	struct store *s = ctx;
	const struct store_entry *e = name ? get_n(s, (const char *)name, len) : NULL;
	s->prior = e ? e->rec : NULL;
}

static const void *known_prior(void *ctx, bool is_fact, size_t i, const uint8_t **ret_buf,
			       size_t *ret_len, enum status *ret_status)
{
	const struct store_rec *r = ((struct store *)ctx)->prior;
	if (!r || i >= (is_fact ? r->n_facts : r->n_results))
		return NULL;
	struct store_piece *p = r->pieces[is_fact ? r->n_results + i : i];
	*ret_buf = p->bytes;
	*ret_len = p->len;
	*ret_status = (enum status)p->status;
	return p;
}

/* The i-th finding or facts entry of the node's previous report, when the
 * bytes at `at` are it: a finding stored without its "node" entry matches
 * the bytes with that entry put back where it was. */
static const void *known_prior_match(void *ctx, bool is_fact, size_t i, const uint8_t *at,
				     size_t avail, size_t *ret_len, uint32_t *ret_node_off,
				     uint32_t *ret_node_len, enum status *ret_status)
{
	const uint8_t *pb;
	size_t pl;
	struct store_piece *p =
	    (struct store_piece *)known_prior(ctx, is_fact, i, &pb, &pl, ret_status);
	if (!p)
		return NULL;
	const struct store_rec *r = ((struct store *)ctx)->prior;
	uint32_t off = is_fact ? 0 : r->node_off[i], k = r->node_kv_len;
	if (!off) {
		if (pl > avail || memcmp(at, pb, pl) != 0)
			return NULL;
		*ret_len = pl;
		return p;
	}
	/* a fixmap of one entry more; the entry at off */
	if (pl + k > avail || at[0] != pb[0] + 1 || memcmp(at + 1, pb + 1, off - 1) != 0 ||
	    memcmp(at + off, r->node_kv, k) != 0 || memcmp(at + off + k, pb + off, pl - off) != 0)
		return NULL;
	*ret_len = pl + k;
	*ret_node_off = off;
	*ret_node_len = k;
	return p;
}

void store_init(struct store *s)
{
	*s = (struct store){0};
	s->known = (struct wirescan_known){.lookup = known_lookup,
					   .node = known_node,
					   .prior = known_prior,
					   .prior_match = known_prior_match,
					   .ctx = s};
}

/* ---- pieces ---- */

static void piece_free(struct store_piece *p)
{
	if (p->decoded) {
		if (p->is_fact) {
			free(p->dec.fact.key);
			value_clear(&p->dec.fact.val);
		} else {
			finding_clear(&p->dec.finding);
		}
	}
	free(p->json);
	free(p);
}

static void pieces_rehash(struct store *s)
{
	size_t n = s->npslots ? s->npslots * 2 : 1024;
	struct store_piece **t = xcalloc(n, sizeof(*t));
	for (size_t i = 0; i < s->npslots; i++)
		for (struct store_piece *p = s->pieces[i], *next; p; p = next) {
			next = p->next;
			p->next = t[p->hash & (n - 1)];
			t[p->hash & (n - 1)] = p;
		}
	free(s->pieces);
	s->pieces = t;
	s->npslots = n;
}

/* known: the piece wirescan found for these bytes, if any. */
static struct store_piece *piece_intern(struct store *s, const uint8_t *bytes, size_t len,
					bool is_fact, const void *known, enum status status)
{
	struct store_piece *p = (struct store_piece *)known;
	uint64_t h = 0;
	if (!p) {
		h = hash_bytes(bytes, len, is_fact);
		p = piece_find(s, bytes, len, is_fact, h);
	}
	if (p) {
		p->refs++;
		return p;
	}
	if (s->npieces + 1 > s->npslots)
		pieces_rehash(s);
	p = xmalloc(sizeof(*p) + len);
	*p = (struct store_piece){.hash = h,
				  .refs = 1,
				  .len = (uint32_t)len,
				  .is_fact = is_fact,
				  .status = (uint8_t)status};
	memcpy(p->bytes, bytes, len);
	struct store_piece **head = &s->pieces[h & (s->npslots - 1)];
	p->next = *head;
	*head = p;
	s->npieces++;
	s->piece_bytes += len;
	return p;
}

static void piece_unref(struct store *s, struct store_piece *p)
{
	if (--p->refs > 0)
		return;
	struct store_piece **pp = &s->pieces[p->hash & (s->npslots - 1)];
	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	s->npieces--;
	s->piece_bytes -= p->len;
	piece_free(p);
}

/* ---- records ---- */

/* The bytes of a record's allocation (store.rec_bytes). */
static size_t rec_size(const struct store_rec *r)
{
	size_t n = sizeof(*r) + (r->n_results + r->n_facts) * sizeof(r->pieces[0]) +
		   r->n_results * sizeof(uint32_t) + r->node_kv_len;
	const char *str[4] = {r->report.node, r->report.hostname, r->report.agent_version,
			      r->report.boot_id};
	for (int i = 0; i < 4; i++)
		n += str[i] ? strlen(str[i]) + 1 : 0;
	return n;
}

/* Whether finding f of the report in buf can be stored without its "node"
 * entry: it names the report's node, in a fixmap (its header one byte, the
 * count one less without the entry), and the entry's bytes are kv (or kv is
 * not chosen yet: *kv is set). */
static bool node_strippable(const uint8_t *buf, const struct wirescan_report *w,
			    const struct wirescan_finding *f, const uint8_t **kv, uint32_t *kv_len)
{
	if (!f->node_len || f->node_off < 1)
		return false;
	const uint8_t *at = buf + f->bytes.off;
	if (f->known) /* matched the previous report's stripped piece */
		goto same_kv;
	if ((at[0] & 0xf0) != 0x80 || (at[0] & 0x0f) == 0 || f->node_val.len != w->node.len ||
	    memcmp(buf + f->node_val.off, buf + w->node.off, w->node.len) != 0)
		return false;
same_kv:
	if (!*kv) {
		*kv = at + f->node_off;
		*kv_len = f->node_len;
		return true;
	}
	return f->node_len == *kv_len && memcmp(at + f->node_off, *kv, *kv_len) == 0;
}

struct store_rec *store_rec_new(struct store *s, const uint8_t *buf,
				const struct wirescan_report *w, int64_t received_ns,
				int64_t rtt_ns)
{
	size_t n = w->n_results + w->n_facts;
	/* Which findings go without their "node" entry (one entry's bytes for all). */
	const uint8_t *kv = NULL;
	uint32_t kv_len = 0;
	for (size_t i = 0; i < w->n_results; i++)
		(void)node_strippable(buf, w, &w->results[i], &kv, &kv_len);
	/* The header strings right after the pieces, node first: one allocation
	 * a report (20,000 a second at the target). */
	const struct wirescan_span *spans[4] = {&w->node, w->has_hostname ? &w->hostname : NULL,
						w->has_agent_version ? &w->agent_version : NULL,
						w->has_boot_id ? &w->boot_id : NULL};
	size_t total = w->n_results * sizeof(uint32_t) + kv_len;
	for (int i = 0; i < 4; i++)
		total += spans[i] ? spans[i]->len + 1 : 0;
	struct store_rec *r = xcalloc(1, sizeof(*r) + n * sizeof(r->pieces[0]) + total);
	r->node_off = (uint32_t *)&r->pieces[n];
	uint8_t *kv_at = (uint8_t *)&r->node_off[w->n_results];
	if (kv_len)
		memcpy(kv_at, kv, kv_len);
	r->node_kv = kv_at;
	r->node_kv_len = kv_len;
	char *at = (char *)kv_at + kv_len;
	char **dst[4] = {&r->report.node, &r->report.hostname, &r->report.agent_version,
			 &r->report.boot_id};
	for (int i = 0; i < 4; i++) {
		if (!spans[i])
			continue;
		memcpy(at, buf + spans[i]->off, spans[i]->len);
		at[spans[i]->len] = '\0';
		*dst[i] = at;
		at += spans[i]->len + 1;
	}
	r->refs = 1;
	r->report.sent_ns = w->sent_ns;
	r->report.seq = w->seq;
	r->report.interval_s = w->interval_s;
	r->report.schema_minor = w->schema_minor;
	r->received_ns = received_ns;
	r->rtt_ns = rtt_ns;
	r->n_results = (uint32_t)w->n_results;
	r->n_facts = (uint32_t)w->n_facts;
	const uint8_t *kv_chosen = kv;
	for (size_t i = 0; i < w->n_results; i++) {
		const struct wirescan_finding *f = &w->results[i];
		r->counts[f->status]++;
		const uint8_t *fb = buf + f->bytes.off;
		if (!node_strippable(buf, w, f, &kv_chosen, &kv_len)) {
			/* whole: the known piece only when it was matched whole */
			r->pieces[i] = piece_intern(s, fb, f->bytes.len, false,
						    f->node_len ? NULL : f->known, f->status);
			continue;
		}
		r->node_off[i] = f->node_off;
		if (f->known) {
			r->pieces[i] = piece_intern(s, NULL, 0, false, f->known, f->status);
			continue;
		}
		size_t len = f->bytes.len - f->node_len;
		uint8_t small[1024];
		uint8_t *b = len <= sizeof(small) ? small : xmalloc(len);
		b[0] = (uint8_t)(fb[0] - 1);
		memcpy(b + 1, fb + 1, f->node_off - 1);
		memcpy(b + f->node_off, fb + f->node_off + f->node_len,
		       f->bytes.len - f->node_off - f->node_len);
		r->pieces[i] = piece_intern(s, b, len, false, NULL, f->status);
		if (b != small)
			free(b);
	}
	for (size_t i = 0; i < w->n_facts; i++) {
		const struct wirescan_fact *f = &w->facts[i];
		r->pieces[w->n_results + i] =
		    piece_intern(s, buf + f->bytes.off, f->bytes.len, true, f->known, STATUS_PASS);
	}
	s->rec_bytes += rec_size(r);
	return r;
}

struct store_rec *store_rec_ref(struct store_rec *r)
{
	r->refs++;
	return r;
}

void store_rec_unref(struct store *s, struct store_rec *r)
{
	if (!r || --r->refs > 0)
		return;
	s->rec_bytes -= rec_size(r);
	for (size_t i = 0; i < r->n_results + r->n_facts; i++)
		piece_unref(s, r->pieces[i]);
	store_rec_unview(r);
	free(r); /* the header strings with it */
}

/* ---- the node table ---- */

static size_t find_slot_n(const struct store *s, const char *node, size_t len)
{
	size_t mask = s->nslots - 1;
	for (size_t i = hash_name(node, len) & mask;; i = (i + 1) & mask) {
		uint32_t v = s->slots[i];
		if (!v)
			return i;
		const char *name = s->entries[v - 1].rec->report.node;
		if (strncmp(name, node, len) == 0 && name[len] == '\0')
			return i;
	}
}

static size_t find_slot(const struct store *s, const char *node)
{
	return find_slot_n(s, node, strlen(node));
}

static const struct store_entry *get_n(const struct store *s, const char *node, size_t len)
{
	if (!s->nslots)
		return NULL;
	uint32_t v = s->slots[find_slot_n(s, node, len)];
	return v ? &s->entries[v - 1] : NULL;
}

static void rehash(struct store *s)
{
	size_t n = s->nslots ? s->nslots * 2 : 64;
	free(s->slots);
	s->slots = xcalloc(n, sizeof(uint32_t));
	s->nslots = n;
	for (size_t i = 0; i < s->n; i++)
		s->slots[find_slot(s, s->entries[i].rec->report.node)] = (uint32_t)(i + 1);
}

struct store_entry *store_get_mut(struct store *s, const char *node)
{
	if (!s->nslots)
		return NULL;
	uint32_t v = s->slots[find_slot(s, node)];
	return v ? &s->entries[v - 1] : NULL;
}

const struct store_entry *store_get(const struct store *s, const char *node)
{
	return store_get_mut((struct store *)s, node);
}

/* Is a report (sent_ns, seq, generated_mono) no newer than held? The agent's
 * wall clock may be stepped back (by NTP, an operator) while it runs: when
 * both were timed on this aggregator's monotonic clock, that order is the one
 * to trust. */
static bool older(const struct store_rec *held, int64_t sent_ns, uint64_t seq,
		  int64_t generated_mono)
{
	if (sent_ns == held->report.sent_ns && seq == held->report.seq)
		return true; /* the same report again */
	if (generated_mono && held->generated_mono_ns)
		return generated_mono < held->generated_mono_ns;
	/* A new agent process (other boot or restart) starts seq again: only
	 * the send time orders reports across processes. */
	return sent_ns < held->report.sent_ns ||
	       (sent_ns == held->report.sent_ns && seq <= held->report.seq);
}

bool store_is_stale(const struct store *s, const char *node, int64_t sent_ns, uint64_t seq,
		    int64_t generated_mono_ns)
{
	const struct store_entry *e = store_get(s, node);
	return e && older(e->rec, sent_ns, seq, generated_mono_ns);
}

int store_put_rec(struct store *s, struct store_rec *r)
{
	if (!s->nslots || (s->n + 1) * 2 > s->nslots)
		rehash(s);
	size_t slot = find_slot(s, r->report.node);
	uint32_t v = s->slots[slot];
	if (v) {
		struct store_entry *e = &s->entries[v - 1];
		if (older(e->rec, r->report.sent_ns, r->report.seq, r->generated_mono_ns)) {
			s->stale++;
			store_rec_unref(s, r);
			return 0;
		}
		store_rec_unref(s, e->rec);
		e->rec = r;
	} else {
		util_grow((void **)&s->entries, &s->cap, s->n + 1, sizeof(*s->entries));
		s->entries[s->n++] = (struct store_entry){.rec = r};
		s->slots[slot] = (uint32_t)s->n;
	}
	s->accepted++;
	return 1;
}

int store_put(struct store *s, struct node_report *r, int64_t received_ns, int64_t rtt_ns)
{
	return store_put_entry(
	    s, (struct node_entry){.report = r, .received_ns = received_ns, .rtt_ns = rtt_ns});
}

int store_put_entry(struct store *s, struct node_entry e)
{
	struct node_report *r = e.report;
	char *buf = NULL;
	size_t len = 0;
	struct wirescan_report w = {0};
	struct store_rec *rec = NULL;
	if (wire_encode_node_report(r, &buf, &len) == 0 &&
	    wirescan_report((const uint8_t *)buf, len, &s->known, &w) == 0)
		rec = store_rec_new(s, (const uint8_t *)buf, &w, e.received_ns, e.rtt_ns);
	if (rec)
		rec->generated_mono_ns = e.generated_mono_ns;
	free(buf);
	wirescan_report_clear(&w);
	node_report_clear(r);
	free(r);
	return rec ? store_put_rec(s, rec) : 0;
}

void store_clear(struct store *s)
{
	s->prior = NULL;
	for (size_t i = 0; i < s->n; i++) {
		store_rec_unref(s, s->entries[i].rec);
		free(s->entries[i].targets);
	}
	free(s->entries);
	free(s->slots);
	free(s->pieces);
	*s = (struct store){0};
}

size_t store_bytes(const struct store *s)
{
	size_t n = s->rec_bytes + s->npieces * sizeof(struct store_piece) + s->piece_bytes +
		   s->cap * sizeof(*s->entries) + s->nslots * sizeof(*s->slots) +
		   s->npslots * sizeof(*s->pieces);
	for (size_t i = 0; i < s->n; i++)
		n += s->entries[i].targets ? s->entries[i].targets_len + 1 : 0;
	return n;
}

/* ---- decoding ---- */

static bool piece_decode(struct store_piece *p)
{
	if (!p->decoded) {
		int r = p->is_fact ? wirescan_decode_fact(p->bytes, p->len, &p->dec.fact)
				   : wirescan_decode_finding(p->bytes, p->len, &p->dec.finding);
		if (r < 0)
			return false; /* zeroed: nothing to free; tried again next time */
		p->decoded = true;
	}
	return true;
}

/* Room in rep for the record's results and facts (none used yet). */
static void report_reserve(const struct store_rec *r, struct node_report *rep)
{
	if (r->n_results)
		rep->results.items = xcalloc(r->n_results, sizeof(struct finding));
	if (r->n_facts)
		rep->facts.items = xcalloc(r->n_facts, sizeof(struct kv));
	rep->results.cap = r->n_results;
	rep->facts.cap = r->n_facts;
}

/* The view of r in results[n_results] and facts[n_facts] (zeroed). */
static void view_fill(struct store_rec *r, struct finding *results, struct kv *facts)
{
	struct node_report *rep = &r->report;
	rep->results = (struct finding_list){.items = results, .cap = r->n_results};
	rep->facts = (struct kv_list){.items = facts, .cap = r->n_facts};
	/* Result i stays at i (engine host_refs name pieces by it); one that
	 * does not decode is left zeroed: no check ID, skipped by the engine. */
	for (size_t i = 0; i < r->n_results; i++)
		if (piece_decode(r->pieces[i])) {
			rep->results.items[i] = r->pieces[i]->dec.finding;
			if (r->node_off[i])
				rep->results.items[i].node = rep->node; /* shallow, as the rest */
		}
	rep->results.n = r->n_results;
	for (size_t i = 0; i < r->n_facts; i++) {
		struct store_piece *p = r->pieces[r->n_results + i];
		if (piece_decode(p))
			rep->facts.items[rep->facts.n++] = p->dec.fact;
	}
}

void store_rec_view(struct store_rec *r)
{
	store_rec_unview(r);
	view_fill(r, r->n_results ? xcalloc(r->n_results, sizeof(struct finding)) : NULL,
		  r->n_facts ? xcalloc(r->n_facts, sizeof(struct kv)) : NULL);
}

void *store_views(struct store_rec **recs, size_t n)
{
	size_t nres = 0, nfacts = 0;
	for (size_t i = 0; i < n; i++) {
		store_rec_unview(recs[i]);
		nres += recs[i]->n_results;
		nfacts += recs[i]->n_facts;
	}
	struct finding *res = xcalloc(nres + 1, sizeof(*res));
	struct kv *facts = xcalloc(nfacts + 1, sizeof(*facts));
	for (size_t i = 0; i < n; i++) {
		view_fill(recs[i], res, facts);
		res += recs[i]->n_results;
		facts += recs[i]->n_facts;
	}
	void **block = xmalloc(2 * sizeof(*block));
	block[0] = res - nres;
	block[1] = facts - nfacts;
	return block;
}

void store_views_end(struct store_rec **recs, size_t n, void *views)
{
	for (size_t i = 0; i < n; i++) {
		recs[i]->report.results = (struct finding_list){0};
		recs[i]->report.facts = (struct kv_list){0};
	}
	void **block = views;
	free(block[0]);
	free(block[1]);
	free(block);
}

void store_rec_unview(struct store_rec *r)
{
	free(r->report.results.items);
	free(r->report.facts.items);
	r->report.results = (struct finding_list){0};
	r->report.facts = (struct kv_list){0};
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void store_rec_decode(const struct store_rec *r, struct node_report *ret)
{
	*ret = (struct node_report){
	    .node = xstrdup(r->report.node),
	    .hostname = dup_or_null(r->report.hostname),
	    .agent_version = dup_or_null(r->report.agent_version),
	    .boot_id = dup_or_null(r->report.boot_id),
	    .sent_ns = r->report.sent_ns,
	    .seq = r->report.seq,
	    .interval_s = r->report.interval_s,
	    .schema_minor = r->report.schema_minor,
	};
	report_reserve(r, ret);
	for (size_t i = 0; i < r->n_results; i++) {
		const struct store_piece *p = r->pieces[i];
		struct finding *f = &ret->results.items[ret->results.n];
		if (wirescan_decode_finding(p->bytes, p->len, f) == 0) {
			if (r->node_off[i])
				finding_set_node(f, r->report.node);
			ret->results.n++;
		}
	}
	for (size_t i = 0; i < r->n_facts; i++) {
		const struct store_piece *p = r->pieces[r->n_results + i];
		if (wirescan_decode_fact(p->bytes, p->len, &ret->facts.items[ret->facts.n]) == 0)
			ret->facts.n++;
	}
}
