/*
 * Node conditions, the deciding half (node_conditions.h): the snapshot the
 * loop copies from a verdict, each node's desired condition, and the plan of
 * which nodes to patch and which Events to post. Pure: the requests to the
 * API are written by aggregator/node_conditions_write.c.
 */
#include "node_conditions.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "json_query.h"
#include "kube_client.h"
#include "log.h"

#define NC_GATE_BLOCKERS_MAX 512

static const char *const type_names[_NC_TYPE_MAX] = {NC_TYPE_RWX, NC_TYPE_LM};

const char *nc_type_name(enum nc_type t)
{
	return type_names[t];
}
static const unsigned type_gates[_NC_TYPE_MAX] = {G_RWX, G_LM};
static const char *const ready_reasons[_NC_TYPE_MAX] = {"RWXReady", "LiveMigrationReady"};
static const char *const gate_words[_NC_TYPE_MAX] = {"rwx", "live-migration"};

const char *nc_status_name(enum nc_status s)
{
	switch (s) {
	case NC_TRUE:
		return "True";
	case NC_FALSE:
		return "False";
	case NC_UNKNOWN:
		return "Unknown";
	default:
		return "";
	}
}

static enum nc_status nc_status_from_name(const char *s)
{
	return streq(s, "True")	   ? NC_TRUE
	       : streq(s, "False") ? NC_FALSE
	       : s		   ? NC_UNKNOWN
				   : NC_ABSENT;
}

void nc_cond_clear(struct nc_cond *c)
{
	free(c->reason);
	free(c->message);
	*c = (struct nc_cond){0};
}

static void nc_cond_copy(struct nc_cond *dst, const struct nc_cond *src)
{
	*dst = *src;
	dst->reason = src->reason ? xstrdup(src->reason) : NULL;
	dst->message = src->message ? xstrdup(src->message) : NULL;
}

/* ---------- bounded text ---------- */

size_t nc_utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	size_t n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

struct msgbuf {
	char buf[NC_MESSAGE_MAX + 1];
	size_t len, items, omitted;
};

#define MSG_RESERVE 32 /* room for "; and 4294967295 more" */

/* Append one "; "-separated item; once full, items are only counted. The
 * first item is cut (with "...") rather than dropped. */
static void msg_item(struct msgbuf *m, const char *fmt, ...) _printf_(2, 3);
static void msg_item(struct msgbuf *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *s = xvasprintf(fmt, ap);
	va_end(ap);
	const char *sep = m->items ? "; " : "";
	size_t room = NC_MESSAGE_MAX - MSG_RESERVE - m->len, need = strlen(sep) + strlen(s);
	if (m->omitted || (need > room && m->items)) {
		m->omitted++;
		return;
	}
	size_t n = strlen(s);
	bool cut = need > room;
	if (cut)
		n = nc_utf8_cut(s, n, room - 3);
	m->len += (size_t)snprintf(m->buf + m->len, sizeof(m->buf) - m->len, "%s%.*s%s", sep,
				   (int)n, s, cut ? "..." : "");
	m->items++;
}

static char *msg_done(struct msgbuf *m)
{
	if (m->omitted)
		m->len += (size_t)snprintf(m->buf + m->len, sizeof(m->buf) - m->len,
					   "; and %zu more", m->omitted);
	return xstrdup(m->buf);
}

/* Equal but for the numbers in them: "report is 95s old" and "96s old" are
 * the same news, not worth a patch of the Node. */
static bool same_text(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	for (;;) {
		bool da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';
		if (da && db) {
			while (*a >= '0' && *a <= '9')
				a++;
			while (*b >= '0' && *b <= '9')
				b++;
			continue;
		}
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/* ---------- the snapshot ---------- */

static int cmp_finding_ptr(const void *pa, const void *pb)
{
	const struct finding *a = *(const struct finding *const *)pa;
	const struct finding *b = *(const struct finding *const *)pb;
	if (!a->node != !b->node)
		return a->node ? 1 : -1;
	int c = a->node ? strcmp(a->node, b->node) : 0;
	if (c)
		return c;
	return a < b ? -1 : a > b; /* one array: address order is verdict order */
}

static int cmp_node(const void *pa, const void *pb)
{
	return strcmp(((const struct nc_node *)pa)->name, ((const struct nc_node *)pb)->name);
}

static void copy_findings(struct nc_snapshot *s, const struct verdict *v)
{
	const struct finding_list *fl = &v->findings;
	/* Checks that speak per node: their node-less line is a summary. */
	bool *per_node = xcalloc(catalog_len + 1, sizeof(bool));
	for (size_t i = 0; i < fl->n; i++) {
		const struct check_info *ci = catalog_find(fl->items[i].check);
		if (ci && fl->items[i].node)
			per_node[ci - catalog] = true;
	}
	const struct finding **sel = xcalloc(fl->n + 1, sizeof(*sel));
	size_t n = 0;
	for (size_t i = 0; i < fl->n; i++) {
		const struct finding *f = &fl->items[i];
		const struct check_info *ci = catalog_find(f->check);
		if (!ci || !(ci->gates & (G_RWX | G_LM)) || f->status == STATUS_SKIP)
			continue;
		if (!f->node && per_node[ci - catalog])
			continue;
		sel[n++] = f;
	}
	qsort(sel, n, sizeof(*sel), cmp_finding_ptr);
	s->findings = xcalloc(n + 1, sizeof(*s->findings));
	for (size_t i = 0; i < n; i++) {
		const struct check_info *ci = catalog_find(sel[i]->check);
		/* A canary step's message carries its age, which changes every
		 * minute: the condition names the run and its end instead, so a
		 * Node is not patched every minute (canary_result.c). */
		const struct kv_list *ev = &sel[i]->evidence;
		const char *run = kv_get_str(ev, "canary_run");
		char *msg = ci->source == CHECK_CANARY && run
				? xasprintf("canary run %s (ended %s, was %s)", run,
					    kv_get_str(ev, "canary_finished_at")
						? kv_get_str(ev, "canary_finished_at")
						: "?",
					    kv_get_str(ev, "canary_status")
						? kv_get_str(ev, "canary_status")
						: "?")
				: xstrdup(sel[i]->message ? sel[i]->message : "");
		s->findings[i] = (struct nc_finding){
		    .check = xstrdup(sel[i]->check),
		    .message = msg,
		    .node = sel[i]->node ? xstrdup(sel[i]->node) : NULL,
		    .status = sel[i]->status,
		    .gates = ci->gates & (G_RWX | G_LM),
		};
	}
	s->n_findings = n;
	free(sel);
	free(per_node);
}

static void read_observed(struct nc_cond *c, const struct jv *cond)
{
	if (!cond)
		return;
	c->status = nc_status_from_name(JQS(cond, "status"));
	if (c->status == NC_ABSENT)
		c->status = NC_UNKNOWN;
	c->reason = xstrdup(JQS(cond, "reason") ? JQS(cond, "reason") : "");
	c->message = xstrdup(JQS(cond, "message") ? JQS(cond, "message") : "");
	if (!jq_time(JQ(cond, "lastTransitionTime"), &c->transition_ns))
		c->transition_ns = 0;
	if (!jq_time(JQ(cond, "lastHeartbeatTime"), &c->heartbeat_ns))
		c->heartbeat_ns = 0;
}

static void copy_nodes(struct nc_snapshot *s, const struct verdict *v,
		       const struct cluster_state *cs)
{
	const struct jv *items = cs_items(cs, RES_NODES);
	s->nodes = xcalloc(jq_len(items) + 1, sizeof(*s->nodes));
	for (size_t i = 0; i < jq_len(items); i++) {
		const struct jv *o = jq_at(items, i);
		const char *name = jq_name(o);
		if (!name || !*name)
			continue;
		struct nc_node *n = &s->nodes[s->n_nodes++];
		n->name = xstrdup(name);
		const char *uid = JQS(o, "metadata", "uid");
		n->uid = xstrdup(uid && *uid ? uid : name);
		const struct jv *conds = JQ(o, "status", "conditions");
		for (int t = 0; t < _NC_TYPE_MAX; t++)
			read_observed(&n->observed[t], jq_condition(conds, type_names[t]));
	}
	qsort(s->nodes, s->n_nodes, sizeof(*s->nodes), cmp_node);
	for (size_t i = 0; i < v->n_nodes; i++) {
		const struct verdict_node *vn = &v->nodes[i];
		if (!vn->reporting || !vn->report)
			continue;
		struct nc_node key = {.name = vn->name};
		struct nc_node *n = bsearch(&key, s->nodes, s->n_nodes, sizeof(*n), cmp_node);
		if (!n)
			continue;
		int64_t interval =
		    vn->report->interval_s ? (int64_t)vn->report->interval_s : s->interval_s;
		n->fresh_report =
		    vn->report_age_ns >= 0 && vn->report_age_ns <= 3 * interval * NSEC_PER_SEC;
	}
}

/* Whether the ", "-separated list has item already. */
static bool listed(const char *list, const char *item)
{
	size_t n = strlen(item);
	for (const char *p = list; (p = strstr(p, item)); p++)
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static void copy_gates(struct nc_snapshot *s, const struct verdict *v)
{
	for (int g = 0; g < _GATE_MAX; g++) {
		s->gates[g] = v->gates[g].status;
		char buf[NC_GATE_BLOCKERS_MAX];
		size_t len = 0, more = 0;
		buf[0] = '\0';
		for (size_t i = 0; i < v->gates[g].n_blockers; i++) {
			const struct finding *f = &v->findings.items[v->gates[g].blockers[i]];
			char item[256];
			/* Ten VMs failing on one node are one "check on node". */
			snprintf(item, sizeof(item), "%s%s%s", f->check, f->node ? " on " : "",
				 f->node ? f->node : "");
			if (listed(buf, item))
				continue;
			if (more || len + strlen(item) + 26 >= sizeof(buf)) {
				more++;
				continue;
			}
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
						len ? ", " : "", item);
		}
		if (more)
			snprintf(buf + len, sizeof(buf) - len, " and %zu more", more);
		s->gate_blockers[g] = xstrdup(buf);
	}
}

void node_conditions_snapshot(struct nc_snapshot *ret, const struct verdict *v,
			      const struct cluster_state *cs, int interval_s)
{
	*ret = (struct nc_snapshot){.interval_s = interval_s, .state_read_ns = cs->read_at_ns};
	copy_findings(ret, v);
	copy_nodes(ret, v, cs);
	copy_gates(ret, v);
}

void node_conditions_snapshot_clear(struct nc_snapshot *s)
{
	for (size_t i = 0; i < s->n_findings; i++) {
		free(s->findings[i].check);
		free(s->findings[i].message);
		free(s->findings[i].node);
	}
	free(s->findings);
	for (size_t i = 0; i < s->n_nodes; i++) {
		free(s->nodes[i].name);
		free(s->nodes[i].uid);
		for (int t = 0; t < _NC_TYPE_MAX; t++)
			nc_cond_clear(&s->nodes[i].observed[t]);
	}
	free(s->nodes);
	for (int g = 0; g < _GATE_MAX; g++)
		free(s->gate_blockers[g]);
	*s = (struct nc_snapshot){0};
}

/* ---------- the desired condition ---------- */

/* "api.foo.bar-baz" → "FooBarBaz" for checks without a STEM (common/checks.def). */
static void derived_stem(const char *check, char *buf, size_t len)
{
	const char *p = strchr(check, '.');
	p = p ? p + 1 : check;
	size_t n = 0;
	bool up = true;
	for (; *p && n + 1 < len; p++) {
		if (*p == '.' || *p == '-' || *p == '_') {
			up = true;
			continue;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			continue;
		buf[n++] = up && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
		up = false;
	}
	buf[n] = '\0';
}

static char *reason_for(const char *check, enum status st)
{
	if (st == STATUS_UNKNOWN && streq(check, "cluster.nodes.reporting"))
		return xstrdup("NoFreshReport");
	/* The stem plus "Failed" or "Unknown" (NFSProbeFailed): the STEM of the
	 * check's row in common/checks.def, else one made from its ID. */
	char stem[64] = "";
	const struct check_info *ci = catalog_find(check);
	if (ci && ci->stem)
		snprintf(stem, sizeof(stem), "%s", ci->stem);
	if (!*stem)
		derived_stem(check, stem, sizeof(stem));
	return xasprintf("%s%s", stem, st == STATUS_FAIL ? "Failed" : "Unknown");
}

static size_t cluster_end(const struct nc_snapshot *s)
{
	size_t n = 0;
	while (n < s->n_findings && !s->findings[n].node)
		n++;
	return n;
}

/* The node's findings: [*lo, *hi), found by binary search after the
 * cluster-wide ones (the snapshot sorts them by node). */
static void node_range(const struct nc_snapshot *s, size_t first, const char *node, size_t *lo,
		       size_t *hi)
{
	size_t a = first, b = s->n_findings;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (strcmp(s->findings[m].node, node) < 0)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (a < s->n_findings && streq(s->findings[a].node, node))
		a++;
	*hi = a;
}

void node_conditions_desired(const struct nc_snapshot *s, size_t i, enum nc_type t,
			     struct nc_cond *ret)
{
	const struct nc_node *node = &s->nodes[i];
	unsigned gate = type_gates[t];
	size_t lo, hi, ce = cluster_end(s);
	node_range(s, ce, node->name, &lo, &hi);
	/* The node's own findings first (they say the most about it), then
	 * the cluster's. */
	const struct nc_finding *list[2][2] = {{s->findings + lo, s->findings + hi},
					       {s->findings, s->findings + ce}};
	enum status worst = STATUS_SKIP;
	size_t count = 0;
	bool reporting_finding = false;
	for (int r = 0; r < 2; r++)
		for (const struct nc_finding *f = list[r][0]; f < list[r][1]; f++) {
			if (!(f->gates & gate))
				continue;
			worst = status_worst(worst, f->status);
			count++;
			reporting_finding |= r == 0 && streq(f->check, "cluster.nodes.reporting");
		}
	/* No fresh report and nothing says so (a NotReady node is not
	 * expected to report): its host checks are not known. */
	bool no_report = !node->fresh_report && !reporting_finding;
	if (no_report)
		worst = status_worst(worst, STATUS_UNKNOWN);

	*ret = (struct nc_cond){0};
	struct msgbuf m = {0};
	if (worst == STATUS_SKIP) {
		ret->status = NC_UNKNOWN;
		ret->reason = xstrdup("NoEvidence");
		ret->message =
		    xasprintf("no check of the %s gate applies to this node", gate_words[t]);
		return;
	}
	if (worst == STATUS_PASS) {
		ret->status = NC_TRUE;
		ret->reason = xstrdup(ready_reasons[t]);
		ret->message = count == 1
				   ? xasprintf("the one check of the %s gate passes for this node",
					       gate_words[t])
				   : xasprintf("all %zu checks of the %s gate pass for this node",
					       count, gate_words[t]);
		return;
	}
	ret->status = worst == STATUS_FAIL ? NC_FALSE : worst == STATUS_WARN ? NC_TRUE : NC_UNKNOWN;
	if (no_report && worst == STATUS_UNKNOWN) {
		ret->reason = xstrdup("NoFreshReport");
		msg_item(&m, "cluster.nodes.reporting: no fresh agent report from this node");
	}
	for (int r = 0; r < 2; r++)
		for (const struct nc_finding *f = list[r][0]; f < list[r][1]; f++) {
			if (!(f->gates & gate) || f->status != worst)
				continue;
			if (!ret->reason)
				ret->reason = worst == STATUS_WARN
						  ? xasprintf("%sWithWarnings", ready_reasons[t])
						  : reason_for(f->check, worst);
			msg_item(&m, "%s: %s", f->check, f->message);
		}
	ret->message = msg_done(&m);
}

/* ---------- the plan ---------- */

static int cmp_mem(const void *pa, const void *pb)
{
	return strcmp(((const struct nc_mem_node *)pa)->name,
		      ((const struct nc_mem_node *)pb)->name);
}

static const struct nc_mem_node *mem_find(const struct nc_memory *m, const char *name)
{
	if (!m || !m->n)
		return NULL;
	struct nc_mem_node key = {.name = (char *)name};
	return bsearch(&key, m->nodes, m->n, sizeof(key), cmp_mem);
}

void nc_memory_clear(struct nc_memory *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->nodes[i].name);
		for (int t = 0; t < _NC_TYPE_MAX; t++)
			nc_cond_clear(&m->nodes[i].cond[t]);
	}
	free(m->nodes);
	*m = (struct nc_memory){0};
}

/* Up to a quarter of the heartbeat period earlier, fixed per node: nodes
 * first written together do not all come due in the same round again. */
static int64_t heartbeat_period(const char *name, int interval_s)
{
	uint32_t h = 2166136261u;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	int64_t period = (int64_t)NC_HEARTBEAT_MAX * interval_s * NSEC_PER_SEC;
	return period - (int64_t)(h % 1000) * (period / 4) / 1000;
}

void node_conditions_plan(const struct nc_snapshot *s, const struct nc_memory *prev, int64_t now_ns,
			  struct nc_plan *ret)
{
	*ret = (struct nc_plan){0};
	ret->nodes = xcalloc(s->n_nodes + 1, sizeof(*ret->nodes));
	ret->n_nodes = s->n_nodes;
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct nc_node *n = &s->nodes[i];
		const struct nc_mem_node *mem = mem_find(prev, n->name);
		const struct nc_cond *old = mem ? mem->cond : n->observed;
		struct nc_node_plan *p = &ret->nodes[i];
		struct nc_cond want[_NC_TYPE_MAX];
		int64_t period = heartbeat_period(n->name, s->interval_s);
		p->node = i;
		for (int t = 0; t < _NC_TYPE_MAX; t++) {
			node_conditions_desired(s, i, t, &want[t]);
			bool changed = want[t].status != old[t].status ||
				       !streq(want[t].reason, old[t].reason) ||
				       !same_text(want[t].message, old[t].message);
			bool due =
			    old[t].heartbeat_ns <= 0 || now_ns - old[t].heartbeat_ns >= period;
			p->patch |= changed || due;
			p->from[t] = old[t].status;
		}
		for (int t = 0; t < _NC_TYPE_MAX; t++) {
			if (!p->patch) {
				nc_cond_copy(&p->cond[t], &old[t]);
				nc_cond_clear(&want[t]);
				continue;
			}
			p->cond[t] = want[t];
			p->cond[t].heartbeat_ns = now_ns;
			p->cond[t].transition_ns =
			    want[t].status == old[t].status && old[t].transition_ns > 0
				? old[t].transition_ns
				: now_ns;
		}
		ret->n_patch += p->patch;
	}
	if (prev && prev->have_gates)
		for (int g = 0; g < _GATE_MAX; g++)
			if (prev->gates[g] != s->gates[g])
				ret->gate_changes[ret->n_gate_changes++] = (struct nc_gate_change){
				    .gate = g, .from = prev->gates[g], .to = s->gates[g]};
}

void node_conditions_plan_clear(struct nc_plan *p)
{
	for (size_t i = 0; i < p->n_nodes; i++)
		for (int t = 0; t < _NC_TYPE_MAX; t++)
			nc_cond_clear(&p->nodes[i].cond[t]);
	free(p->nodes);
	*p = (struct nc_plan){0};
}

void node_conditions_remember(struct nc_memory *m, const struct nc_snapshot *s,
			      const struct nc_plan *p, const bool *failed,
			      const struct nc_memory *prev)
{
	struct nc_memory out = {.have_gates = true};
	out.nodes = xcalloc(p->n_nodes + 1, sizeof(*out.nodes));
	memcpy(out.gates, s->gates, sizeof(out.gates));
	for (size_t i = 0; i < p->n_nodes; i++) {
		const char *name = s->nodes[p->nodes[i].node].name;
		const struct nc_cond *src = p->nodes[i].cond;
		if (failed && failed[i]) {
			const struct nc_mem_node *old = mem_find(prev, name);
			if (!old)
				continue; /* next round starts from the Node again */
			src = old->cond;
		}
		struct nc_mem_node *e = &out.nodes[out.n++];
		e->name = xstrdup(name);
		for (int t = 0; t < _NC_TYPE_MAX; t++)
			nc_cond_copy(&e->cond[t], &src[t]);
	}
	/* Snapshot nodes are sorted by name, so out is too. */
	nc_memory_clear(m);
	*m = out;
}
