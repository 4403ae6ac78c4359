#include "node_conditions.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "jq.h"
#include "kube_client.h"
#include "log.h"

#define NC_MAX_BODY	     (256u << 10)
#define NC_GATE_BLOCKERS_MAX 512
/* Node events live in "default": the API accepts no other namespace for an
 * object without one, and kubelet and the node controller put theirs there. */
#define NC_NODE_EVENT_NAMESPACE "default"

static const char *const type_names[_NC_TYPE_MAX] = {NC_TYPE_RWX, NC_TYPE_LM};
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

/* Cut s to at most max bytes at a UTF-8 character boundary. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
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
		n = utf8_cut(s, n, room - 3);
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
		s->findings[i] = (struct nc_finding){
		    .check = xstrdup(sel[i]->check),
		    .message = xstrdup(sel[i]->message ? sel[i]->message : ""),
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

/* ---------- request bodies ---------- */

static char *to_string(json_object *o)
{
	char *s = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

static json_object *time_string(int64_t ns)
{
	char buf[64];
	util_format_rfc3339(ns, buf, sizeof(buf));
	return json_object_new_string(buf);
}

char *node_conditions_patch_body(const struct nc_node_plan *p)
{
	json_object *conds = json_object_new_array();
	for (int t = 0; t < _NC_TYPE_MAX; t++) {
		const struct nc_cond *c = &p->cond[t];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "type", json_object_new_string(type_names[t]));
		json_object_object_add(o, "status",
				       json_object_new_string(nc_status_name(c->status)));
		json_object_object_add(o, "reason",
				       json_object_new_string(c->reason ? c->reason : ""));
		json_object_object_add(o, "message",
				       json_object_new_string(c->message ? c->message : ""));
		json_object_object_add(o, "lastHeartbeatTime", time_string(c->heartbeat_ns));
		json_object_object_add(o, "lastTransitionTime", time_string(c->transition_ns));
		json_object_array_add(conds, o);
	}
	json_object *status = json_object_new_object();
	json_object_object_add(status, "conditions", conds);
	json_object *root = json_object_new_object();
	json_object_object_add(root, "status", status);
	return to_string(root);
}

static json_object *event_object(const char *ns, const char *name_base, int64_t name_salt,
				 json_object *involved, bool warning, const char *message,
				 const char *instance, int64_t now_ns)
{
	char name[256];
	/* client-go's scheme: OBJECT.HEXTIME (a DNS subdomain, under 253). */
	snprintf(name, sizeof(name), "%.200s.%llx", name_base,
		 (unsigned long long)(now_ns + name_salt));
	char msg[NC_MESSAGE_MAX + 1];
	size_t n = utf8_cut(message, strlen(message), NC_MESSAGE_MAX);
	snprintf(msg, sizeof(msg), "%.*s", (int)n, message);
	json_object *o = json_object_new_object();
	json_object *meta = json_object_new_object();
	json_object *source = json_object_new_object();
	json_object_object_add(o, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(o, "kind", json_object_new_string("Event"));
	json_object_object_add(meta, "name", json_object_new_string(name));
	json_object_object_add(meta, "namespace", json_object_new_string(ns));
	json_object_object_add(o, "metadata", meta);
	json_object_object_add(o, "involvedObject", involved);
	json_object_object_add(o, "reason", json_object_new_string(NC_EVENT_REASON));
	json_object_object_add(o, "message", json_object_new_string(msg));
	json_object_object_add(o, "type", json_object_new_string(warning ? "Warning" : "Normal"));
	json_object_object_add(source, "component", json_object_new_string(NC_COMPONENT));
	json_object_object_add(o, "source", source);
	json_object_object_add(o, "firstTimestamp", time_string(now_ns));
	json_object_object_add(o, "lastTimestamp", time_string(now_ns));
	json_object_object_add(o, "count", json_object_new_int(1));
	json_object_object_add(o, "reportingComponent", json_object_new_string(NC_COMPONENT));
	json_object_object_add(o, "reportingInstance", json_object_new_string(instance));
	return o;
}

char *node_conditions_node_event(const struct nc_snapshot *s, const struct nc_node_plan *p,
				 enum nc_type t, const char *instance, int64_t now_ns)
{
	const struct nc_node *n = &s->nodes[p->node];
	const struct nc_cond *c = &p->cond[t];
	json_object *inv = json_object_new_object();
	json_object_object_add(inv, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(inv, "kind", json_object_new_string("Node"));
	json_object_object_add(inv, "name", json_object_new_string(n->name));
	/* kubectl describe node finds events by the node's UID or its name. */
	json_object_object_add(inv, "uid", json_object_new_string(n->uid));
	_cleanup_free_ char *msg = xasprintf(
	    "%s changed from %s to %s: %s: %s", type_names[t], nc_status_name(p->from[t]),
	    nc_status_name(c->status), c->reason ? c->reason : "", c->message ? c->message : "");
	return to_string(event_object(NC_NODE_EVENT_NAMESPACE, n->name, t, inv,
				      c->status != NC_TRUE, msg, instance, now_ns));
}

char *node_conditions_gate_event(const struct nc_snapshot *s, const struct nc_gate_change *c,
				 const char *pod_ns, const char *pod, const char *pod_uid,
				 const char *instance, int64_t now_ns)
{
	json_object *inv = json_object_new_object();
	json_object_object_add(inv, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(inv, "kind", json_object_new_string("Pod"));
	json_object_object_add(inv, "namespace", json_object_new_string(pod_ns));
	json_object_object_add(inv, "name", json_object_new_string(pod));
	if (pod_uid)
		json_object_object_add(inv, "uid", json_object_new_string(pod_uid));
	const char *blockers = s->gate_blockers[c->gate];
	_cleanup_free_ char *msg = xasprintf(
	    "gate %s changed from %s to %s%s%s", gate_name(c->gate), status_name(c->from),
	    status_name(c->to), blockers && *blockers ? ": " : "", blockers ? blockers : "");
	bool warning = c->to == STATUS_FAIL || c->to == STATUS_UNKNOWN;
	return to_string(event_object(pod_ns, pod, c->gate, inv, warning, msg, instance, now_ns));
}

/* ---------- the worker ---------- */

/* Append one problem to err: the first few in full, then only a count. */
struct problems {
	size_t n, shown;
	char *err;
	size_t errlen;
};

static void problem(struct problems *p, const char *fmt, ...) _printf_(2, 3);
static void problem(struct problems *p, const char *fmt, ...)
{
	p->n++;
	if (p->shown >= 3 || !p->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *s = xvasprintf(fmt, ap);
	va_end(ap);
	size_t len = strlen(p->err);
	snprintf(p->err + len, p->errlen - len, "%s%s", len ? "; " : "", s);
	p->shown++;
}

static void problems_done(struct problems *p)
{
	size_t len = strlen(p->err);
	if (p->n > p->shown && p->errlen > len)
		snprintf(p->err + len, p->errlen - len, "; and %zu more", p->n - p->shown);
}

/* One request; the API's Status message in *ret_msg on any answer but 2xx. */
static long call(struct node_conditions *nc, const char *method, const char *path, const char *type,
		 const char *body, char **ret_msg)
{
	struct kube_response r = {0};
	char err[512];
	*ret_msg = NULL;
	int rc = kube_client_call(nc->kc, method, path, type, body, body ? strlen(body) : 0,
				  NC_MAX_BODY, &r, err, sizeof(err));
	if (rc < 0) {
		*ret_msg = xstrdup(err);
		return -1;
	}
	if (r.status < 200 || r.status > 299)
		*ret_msg = kube_client_status_message(r.body, r.len);
	long status = r.status;
	kube_response_clear(&r);
	return status;
}

/* The hint for a refusal: hint itself on 401/403, else nothing. */
static const char *rbac_hint(long status, const char *hint)
{
	return status == 401 || status == 403 ? hint : "";
}

static bool post_event(struct node_conditions *nc, const char *ns, char *body, struct problems *pr)
{
	_cleanup_free_ char *path = xasprintf("/api/v1/namespaces/%s/events", ns);
	_cleanup_free_ char *msg = NULL;
	long st = call(nc, "POST", path, "application/json", body, &msg);
	free(body);
	if (st == 200 || st == 201) {
		nc->last.events++;
		return true;
	}
	nc->last.event_failed++;
	if (st < 0)
		problem(pr, "create event: %s", msg);
	else
		problem(pr, "create event in %s: HTTP %ld%s%s%s%s", ns, st, *msg ? " (" : "", msg,
			*msg ? ")" : "",
			rbac_hint(st, "; the aggregator needs create on events "
				      "(deploy/overlays/node-conditions)"));
	return false;
}

/* PATCH one node's status: 0, or -EACCES (RBAC: no use going on) / -EIO. */
static int patch_node(struct node_conditions *nc, const char *node, const char *body,
		      struct problems *pr)
{
	_cleanup_free_ char *path = xasprintf("/api/v1/nodes/%s/status", node);
	_cleanup_free_ char *msg = NULL;
	long st = call(nc, "PATCH", path, "application/strategic-merge-patch+json", body, &msg);
	if (st == 200 || st == 201)
		return 0;
	if (st < 0)
		problem(pr, "node %s: %s", node, msg);
	else if (st == 404)
		problem(pr, "node %s: gone (HTTP 404)", node);
	else
		problem(pr, "node %s: HTTP %ld%s%s%s%s", node, st, *msg ? " (" : "", msg,
			*msg ? ")" : "",
			rbac_hint(st, "; the aggregator needs patch on nodes/status "
				      "(deploy/overlays/node-conditions)"));
	return st == 401 || st == 403 ? -EACCES : -EIO;
}

/* The Pod's UID makes its Events show in kubectl describe pod; without it
 * they are still listed by kubectl get events. */
static const char *pod_uid(struct node_conditions *nc)
{
	if (nc->pod_uid)
		return nc->pod_uid;
	_cleanup_free_ char *path =
	    xasprintf("/api/v1/namespaces/%s/pods/%s", nc->pod_namespace, nc->pod);
	struct kube_response r = {0};
	char err[256];
	if (kube_client_call(nc->kc, "GET", path, NULL, NULL, 0, NC_MAX_BODY, &r, err,
			     sizeof(err)) == 0 &&
	    r.status == 200) {
		_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
		const char *uid = JQS(jv_parse(ar, r.body), "metadata", "uid");
		if (uid && *uid)
			nc->pod_uid = xstrdup(uid);
	}
	kube_response_clear(&r);
	return nc->pod_uid;
}

/* Stop writing well before the Lease could pass to another replica. */
static bool renewal_due(const struct node_conditions *nc)
{
	int64_t margin = (int64_t)(nc->lease.duration_s - nc->interval_s) * NSEC_PER_SEC;
	return util_now_mono_ns() - nc->lease.renewed_mono_ns > margin;
}

static void write_nodes(struct node_conditions *nc, const struct nc_snapshot *snap,
			const struct nc_plan *plan, bool *failed, struct problems *pr)
{
	bool denied = false;
	size_t skipped = 0;
	for (size_t i = 0; i < plan->n_nodes; i++) {
		const struct nc_node_plan *p = &plan->nodes[i];
		if (!p->patch)
			continue;
		if (denied || atomic_load(&nc->stopping) || renewal_due(nc)) {
			failed[i] = true;
			skipped++;
			continue;
		}
		const char *node = snap->nodes[p->node].name;
		_cleanup_free_ char *body = node_conditions_patch_body(p);
		int rc = patch_node(nc, node, body, pr);
		if (rc < 0) {
			failed[i] = true;
			nc->last.patch_failed++;
			denied = rc == -EACCES;
			continue;
		}
		nc->last.patched++;
		for (int t = 0; t < _NC_TYPE_MAX; t++)
			if (p->from[t] != NC_ABSENT && p->from[t] != p->cond[t].status)
				post_event(nc, NC_NODE_EVENT_NAMESPACE,
					   node_conditions_node_event(snap, p, t,
								      nc->lease.identity,
								      util_now_realtime_ns()),
					   pr);
	}
	if (skipped)
		problem(pr, "%zu node%s left for the next round%s", skipped,
			skipped == 1 ? "" : "s", denied ? " (access denied)" : "");
}

/* Acquire or renew the Lease; a replica that does not hold it forgets what
 * it wrote (the holder may change everything meanwhile). */
static int lease_round(struct node_conditions *nc, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	nc->last = (struct nc_stats){0};
	nc->last_round_mono_ns = util_now_mono_ns();
	int r = lease_sync(&nc->lease, nc->kc, err, errlen);
	if (r == 0) {
		nc_memory_clear(&nc->mem);
		nc->mem_epoch = 0;
	}
	nc->last.leader = r == 1;
	return r;
}

int node_conditions_sync(struct node_conditions *nc, const struct nc_snapshot *snap, char *err,
			 size_t errlen)
{
	int r = lease_round(nc, err, errlen);
	nc->last.nodes = snap->n_nodes;
	if (r <= 0)
		return r;
	if (nc->mem_epoch != nc->lease.epoch) {
		nc_memory_clear(&nc->mem);
		nc->mem_epoch = nc->lease.epoch;
	}
	/* The previous holder may have written after our last list of the
	 * Nodes: wait for a list made after we took over, so that their
	 * conditions (and lastTransitionTime) are what we compare with. */
	if (nc->lease.took_over && snap->state_read_ns < nc->lease.acquired_ns) {
		nc->last.waiting = true;
		return 1;
	}
	/* Just started: the agents have not reported to this process yet, and
	 * every node would flap to Unknown (NoFreshReport) and back. */
	if (util_now_mono_ns() - nc->created_mono_ns <
	    (int64_t)NC_STARTUP_GRACE * nc->interval_s * NSEC_PER_SEC) {
		nc->last.waiting = true;
		return 1;
	}
	struct nc_plan plan;
	node_conditions_plan(snap, &nc->mem, util_now_realtime_ns(), &plan);
	bool *failed = xcalloc(plan.n_nodes + 1, sizeof(bool));
	struct problems pr = {.err = err, .errlen = errlen};
	write_nodes(nc, snap, &plan, failed, &pr);
	for (size_t i = 0; i < plan.n_gate_changes && nc->pod; i++)
		post_event(nc, nc->pod_namespace,
			   node_conditions_gate_event(snap, &plan.gate_changes[i],
						      nc->pod_namespace, nc->pod, pod_uid(nc),
						      nc->lease.identity, util_now_realtime_ns()),
			   &pr);
	problems_done(&pr);
	node_conditions_remember(&nc->mem, snap, &plan, failed, &nc->mem);
	node_conditions_plan_clear(&plan);
	free(failed);
	return 1;
}

int node_conditions_new(struct kube_client *kc, int interval_s, bool in_cluster,
			struct node_conditions **ret, char *err, size_t errlen)
{
	if (interval_s < 1) {
		snprintf(err, errlen, "node conditions: interval must be at least 1 s");
		return -EINVAL;
	}
	struct node_conditions *nc = xcalloc(1, sizeof(*nc));
	nc->kc = kc;
	nc->interval_s = interval_s;
	nc->created_mono_ns = util_now_mono_ns();
	/* A patch or an Event is small: one that takes longer is stuck, and
	 * holds up the other nodes, the Lease's renewal and a clean stop. */
	kube_client_set_timeouts(kc, 5000, 10000);
	_cleanup_free_ char *ns = lease_default_namespace();
	_cleanup_free_ char *id = lease_default_identity();
	lease_init(&nc->lease, ns, LEASE_NAME, id, 3 * interval_s);
	nc->pod_namespace = xstrdup(ns);
	const char *pod = getenv("POD_NAME");
	if (pod && *pod)
		nc->pod = xstrdup(pod);
	else if (in_cluster)
		nc->pod = xstrdup(id);
	atomic_init(&nc->stopping, false);
	pthread_mutex_init(&nc->lock, NULL);
	pthread_cond_init(&nc->cond, NULL);
	*ret = nc;
	return 0;
}

/* Say what changed: the role, a new problem, a round that wrote something. */
static void report_round(struct node_conditions *nc, int r, const char *err, int *role,
			 char **last_err)
{
	const struct lease *l = &nc->lease;
	int now_role = r < 0 ? -1 : r;
	if (r < 0) {
		if (!*last_err || !streq(*last_err, err))
			log_warnx("node conditions: %s, ignoring", err);
		free(*last_err);
		*last_err = xstrdup(err);
		*role = now_role;
		return;
	}
	free(*last_err);
	*last_err = NULL;
	if (now_role != *role) {
		if (r == 1)
			log_info("node conditions: this replica (%s) holds Lease %s/%s and writes "
				 "node conditions",
				 l->identity, l->namespace, l->name);
		else
			log_info("node conditions: Lease %s/%s is held by %s; this replica (%s) "
				 "does not write",
				 l->namespace, l->name, l->seen_holder ? l->seen_holder : "?",
				 l->identity);
		*role = now_role;
	}
	const struct nc_stats *s = &nc->last;
	if (s->patched || s->patch_failed || s->events || s->event_failed)
		log_info("node conditions: patched %zu of %zu %s, %zu %s%s%s", s->patched, s->nodes,
			 plural((int64_t)s->nodes, "node", "nodes"), s->events,
			 plural((int64_t)s->events, "event", "events"), *err ? "; problems: " : "",
			 err);
	else if (*err)
		log_warnx("node conditions: %s, ignoring", err);
}

static void *worker_main(void *arg)
{
	struct node_conditions *nc = arg;
	int role = -2;
	char *last_err = NULL;
	pthread_mutex_lock(&nc->lock);
	for (;;) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += nc->interval_s;
		while (!atomic_load(&nc->stopping) && !nc->pending &&
		       pthread_cond_timedwait(&nc->cond, &nc->lock, &until) != ETIMEDOUT)
			;
		if (atomic_load(&nc->stopping))
			break;
		struct nc_snapshot *snap = nc->pending;
		nc->pending = NULL;
		pthread_mutex_unlock(&nc->lock);
		char err[1024];
		if (snap) {
			int r = node_conditions_sync(nc, snap, err, sizeof(err));
			report_round(nc, r, err, &role, &last_err);
			node_conditions_snapshot_clear(snap);
			free(snap);
		} else if (util_now_mono_ns() - nc->last_round_mono_ns >=
			   nc->interval_s * NSEC_PER_SEC) {
			report_round(nc, lease_round(nc, err, sizeof(err)), err, &role, &last_err);
		}
		pthread_mutex_lock(&nc->lock);
	}
	pthread_mutex_unlock(&nc->lock);
	free(last_err);
	return NULL;
}

int node_conditions_start(struct node_conditions *nc)
{
	int r = pthread_create(&nc->thread, NULL, worker_main, nc);
	if (r != 0)
		return -r;
	nc->started = true;
	return 0;
}

bool node_conditions_due(struct node_conditions *nc)
{
	return nc->last_offer_mono_ns == 0 ||
	       util_now_mono_ns() - nc->last_offer_mono_ns >= nc->interval_s * NSEC_PER_SEC;
}

void node_conditions_offer(struct node_conditions *nc, struct nc_snapshot *snap)
{
	nc->last_offer_mono_ns = util_now_mono_ns();
	pthread_mutex_lock(&nc->lock);
	struct nc_snapshot *old = nc->pending;
	nc->pending = snap; /* a round still running: the newest waits, older ones go */
	pthread_cond_signal(&nc->cond);
	pthread_mutex_unlock(&nc->lock);
	if (old) {
		node_conditions_snapshot_clear(old);
		free(old);
	}
}

void node_conditions_free(struct node_conditions *nc)
{
	if (!nc)
		return;
	pthread_mutex_lock(&nc->lock);
	atomic_store(&nc->stopping, true);
	pthread_cond_broadcast(&nc->cond);
	pthread_mutex_unlock(&nc->lock);
	if (nc->started)
		pthread_join(nc->thread, NULL);
	if (nc->pending) {
		node_conditions_snapshot_clear(nc->pending);
		free(nc->pending);
	}
	nc_memory_clear(&nc->mem);
	lease_clear(&nc->lease);
	kube_client_free(nc->kc);
	free(nc->pod_namespace);
	free(nc->pod);
	free(nc->pod_uid);
	pthread_mutex_destroy(&nc->lock);
	pthread_cond_destroy(&nc->cond);
	free(nc);
}
