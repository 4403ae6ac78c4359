#include "verdict.h"

#include <string.h>

#include "catalog.h"
#include "json_query.h"
#include "json_write.h"
#include "render_json.h"

/* Nodes by name while the list is built: thousands of reporting nodes. */
struct node_index {
	uint32_t *slots; /* index+1 into v->nodes, 0 = empty */
	size_t mask;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

static struct verdict_node *node_slot(struct verdict *v, struct node_index *ix, const char *name)
{
	size_t i = name_hash(name) & ix->mask;
	for (; ix->slots[i]; i = (i + 1) & ix->mask)
		if (streq(v->nodes[ix->slots[i] - 1].name, name))
			return &v->nodes[ix->slots[i] - 1];
	v->nodes[v->n_nodes] = (struct verdict_node){.name = xstrdup(name), .report_age_ns = -1};
	ix->slots[i] = (uint32_t)++v->n_nodes;
	return &v->nodes[v->n_nodes - 1];
}

static void build_nodes(struct verdict *v, const struct agg_ctx *ctx)
{
	const struct jv *items = cs_items(ctx->cs, RES_NODES);
	size_t most = jq_len(items) + ctx->n_nodes, nslots = 16;
	while (nslots < 2 * most)
		nslots *= 2;
	struct node_index ix = {.slots = xcalloc(nslots, sizeof(uint32_t)), .mask = nslots - 1};
	v->nodes = xcalloc(most ? most : 1, sizeof(*v->nodes));
	for (size_t i = 0; i < jq_len(items); i++) {
		const struct jv *o = jq_at(items, i);
		const char *name = jq_name(o);
		if (!name)
			continue;
		struct verdict_node *n = node_slot(v, &ix, name);
		n->in_cluster = true;
		n->k8s_ready = jq_node_ready(o);
	}
	for (size_t i = 0; i < ctx->n_nodes; i++) {
		const struct node_entry *e = &ctx->nodes[i];
		struct verdict_node *n = node_slot(v, &ix, e->report->node);
		n->report = e->report;
		free(n->hostname);
		free(n->agent_version);
		n->hostname = xstrdup(e->report->hostname ? e->report->hostname : "");
		n->agent_version =
		    xstrdup(e->report->agent_version ? e->report->agent_version : "");
		n->reporting = true;
		n->report_age_ns = engine_report_age_ns(e, ctx->now_ns, ctx->now_mono_ns);
	}
	free(ix.slots);
}

void verdict_evaluate(struct verdict *v, struct agg_ctx *ctx, const struct engine_opts *opts)
{
	*v = (struct verdict){0};
	v->generated_ns = ctx->now_ns;
	v->source = xstrdup(ctx->cs->source ? ctx->cs->source : "");
	v->state_read_ns = ctx->cs->read_at_ns;
	v->live = ctx->live;
	cluster_versions_detect(ctx->cs, &v->versions);
	report_header_from_state(&v->header, ctx->cs, ctx->now_ns);
	ctx->out = &v->findings;
	ctx->vms = &v->vms;
	engine_run(ctx, opts);
	v->n_borrowed = ctx->host_borrowed;
	v->host_refs = ctx->host_refs;
	ctx->host_borrowed = 0;
	ctx->host_refs = NULL;
	v->harvester_installed = ctx->harvester_installed;
	gates_compute(&v->findings, v->gates);
	build_nodes(v, ctx);
}

void verdict_clear(struct verdict *v)
{
	/* Borrowed findings own nothing. */
	for (size_t i = v->n_borrowed; i < v->findings.n; i++)
		finding_clear(&v->findings.items[i]);
	free(v->findings.items);
	free(v->host_refs);
	gates_clear(v->gates);
	vm_table_clear(&v->vms);
	for (size_t i = 0; i < v->n_nodes; i++) {
		free(v->nodes[i].name);
		free(v->nodes[i].hostname);
		free(v->nodes[i].agent_version);
	}
	free(v->nodes);
	free(v->source);
	free(v->state_error);
	cluster_versions_clear(&v->versions);
	report_header_clear(&v->header);
	waivers_clear(&v->waivers);
	free(v->waiver_of);
	verdict_canary_clear(&v->canary);
	*v = (struct verdict){0};
}

void verdict_set_board(struct verdict *v, const char *operator_name, const char *target_version)
{
	free(v->header.operator_name);
	free(v->header.target_version);
	v->header.operator_name = operator_name ? xstrdup(operator_name) : NULL;
	v->header.target_version = target_version ? xstrdup(target_version) : NULL;
}

void verdict_apply_canary(struct verdict *v, const struct canary_result *r, int64_t max_age_ns,
			  const struct engine_opts *opts)
{
	canary_result_apply(r, v->generated_ns, max_age_ns, opts ? &opts->skip : NULL,
			    opts ? &opts->only : NULL, &v->findings, &v->canary);
	gates_clear(v->gates);
	gates_compute(&v->findings, v->gates);
}

void verdict_canary_error(struct verdict *v, const char *source, const char *why)
{
	verdict_canary_clear(&v->canary);
	v->canary.source = xstrdup(source);
	v->canary.error = xstrdup(why);
}

static void canary_write(struct jw *w, const struct verdict_canary *vc)
{
	char ts[64];
	jw_object_begin(w);
	jw_member_str(w, "source", vc->source ? vc->source : "");
	if (vc->interval_ns) {
		jw_key(w, "schedule");
		jw_object_begin(w);
		jw_member_int(w, "interval_seconds", vc->interval_ns / NSEC_PER_SEC);
		jw_member_bool(w, "running", vc->running);
		jw_member_int(w, "runs", (int64_t)vc->runs);
		if (vc->run_error)
			jw_member_str(w, "last_run_error", vc->run_error);
		jw_object_end(w);
	}
	if (vc->error) {
		jw_member_str(w, "error", vc->error);
		jw_object_end(w);
		return;
	}
	if (vc->present) {
		jw_member_str(w, "run", vc->run);
		jw_member_str(w, "namespace", vc->ns);
		jw_member_str(w, "status", vc->status);
		util_format_rfc3339(vc->started_ns, ts, sizeof(ts));
		jw_member_str(w, "started_at", ts);
		util_format_rfc3339(vc->finished_ns, ts, sizeof(ts));
		jw_member_str(w, "finished_at", ts);
		jw_member_int(w, "age_seconds", (vc->future ? -1 : 1) * vc->age_ns / NSEC_PER_SEC);
		jw_member_int(w, "max_age_seconds", vc->max_age_ns / NSEC_PER_SEC);
		jw_member_bool(w, "stale", vc->stale || vc->future);
	}
	jw_object_end(w);
}

void verdict_apply_waivers(struct verdict *v, struct waiver_list *wl)
{
	waivers_clear(&v->waivers);
	free(v->waiver_of);
	v->waivers = *wl;
	*wl = (struct waiver_list){0};
	v->have_waivers = true;
	size_t n = v->findings.n ? v->findings.n : 1;
	v->waiver_of = xcalloc(n, sizeof(*v->waiver_of));
	waivers_apply(&v->waivers, &v->findings, v->generated_ns, v->waiver_of);
	bool *waived = xcalloc(n, sizeof(*waived));
	for (size_t i = 0; i < v->findings.n; i++)
		waived[i] = v->waiver_of[i] >= 0;
	gates_clear(v->gates);
	gates_compute_waived(&v->findings, waived, v->gates);
	free(waived);
}

const struct waiver *verdict_waiver(const struct verdict *v, size_t i)
{
	if (!v->waiver_of || i >= v->findings.n || v->waiver_of[i] < 0)
		return NULL;
	return &v->waivers.items[v->waiver_of[i]];
}

size_t verdict_waived_count(const struct verdict *v)
{
	size_t n = 0;
	for (size_t i = 0; i < v->findings.n; i++)
		n += verdict_waiver(v, i) != NULL;
	return n;
}

void verdict_waiver_write(struct jw *w, const struct verdict *v, size_t i)
{
	const struct waiver *wv = verdict_waiver(v, i);
	if (!wv)
		return;
	jw_key(w, "waiver");
	jw_object_begin(w);
	jw_member_str(w, "reason", wv->reason);
	jw_member_str(w, "approved_by", wv->approved_by);
	jw_member_str(w, "expires", wv->expires);
	jw_object_end(w);
}

/* Which of the "waivers" lists a waiver is in: used 0, unused 1, else 2. */
static int waiver_list_of(const struct waiver *w)
{
	const char *st = waiver_state(w);
	return streq(st, "used") ? 0 : streq(st, "unused") ? 1 : 2;
}

static void waivers_write(struct jw *jw, const struct verdict *v)
{
	static const char *const names[] = {"used", "unused", "expired"};
	jw_object_begin(jw);
	jw_member_str(jw, "file", v->waivers.file);
	for (int k = 0; k < 3; k++) {
		jw_key(jw, names[k]);
		jw_array_begin(jw);
		for (size_t i = 0; i < v->waivers.n; i++) {
			const struct waiver *w = &v->waivers.items[i];
			if (waiver_list_of(w) != k)
				continue;
			jw_object_begin(jw);
			jw_member_str(jw, "check", w->check);
			if (w->node)
				jw_member_str(jw, "node", w->node);
			if (w->object)
				jw_member_str(jw, "object", w->object);
			jw_member_str(jw, "reason", w->reason);
			jw_member_str(jw, "approved_by", w->approved_by);
			jw_member_str(jw, "expires", w->expires);
			jw_member_int(jw, "findings_waived", (int64_t)w->applied);
			if (w->unknown_matched)
				jw_member_int(jw, "unknown_not_waived",
					      (int64_t)w->unknown_matched);
			jw_object_end(jw);
		}
		jw_array_end(jw);
	}
	jw_member_int(jw, "findings_waived", (int64_t)verdict_waived_count(v));
	jw_object_end(jw);
}

enum status verdict_status(const struct verdict *v, int gate)
{
	if (gate >= 0 && gate < _GATE_MAX)
		return v->gates[gate].status;
	enum status s = STATUS_PASS;
	for (int g = 0; g < _GATE_MAX; g++)
		s = status_worst(s, v->gates[g].status);
	return s;
}

void verdict_head_members_write(struct jw *w, const struct verdict *v)
{
	char ts[64];
	jw_member_str(w, "schema", REPORT_SCHEMA);
	jw_key(w, "header");
	report_header_write(w, &v->header);
	util_format_rfc3339(v->generated_ns, ts, sizeof(ts));
	jw_member_str(w, "generated_at", ts);
	jw_member_str(w, "generator", "hvready-aggregator " HVREADY_VERSION);
	jw_member_str(w, "source", v->source);
	jw_member_str(w, "mode", v->live ? "live" : "offline");
	jw_key(w, "cluster_state");
	jw_object_begin(w);
	if (v->state_read_ns > 0) {
		util_format_rfc3339(v->state_read_ns, ts, sizeof(ts));
		jw_member_str(w, "read_at", ts);
		int64_t age = v->generated_ns - v->state_read_ns;
		jw_member_int(w, "age_seconds", age > 0 ? age / NSEC_PER_SEC : 0);
	}
	if (v->state_error)
		jw_member_str(w, "last_refresh_error", v->state_error);
	jw_object_end(w);
	jw_member_bool(w, "harvester_installed", v->harvester_installed);
	jw_key(w, "versions");
	cluster_versions_write(w, &v->versions);
	if (v->have_waivers) {
		jw_key(w, "waivers");
		waivers_write(w, v);
	}
	if (v->canary.present || v->canary.error || v->canary.interval_ns) {
		jw_key(w, "canary");
		canary_write(w, &v->canary);
	}
	jw_member_str(w, "status", status_name(verdict_status(v, -1)));
}

void verdict_node_write(struct jw *w, const struct verdict_node *n)
{
	jw_object_begin(w);
	jw_member_str(w, "name", n->name);
	jw_member_bool(w, "in_cluster", n->in_cluster);
	jw_member_bool(w, "kubernetes_ready", n->k8s_ready);
	jw_member_bool(w, "reporting", n->reporting);
	if (n->hostname) {
		jw_member_int(w, "report_age_seconds", n->report_age_ns / NSEC_PER_SEC);
		jw_member_str(w, "hostname", n->hostname);
		jw_member_str(w, "agent_version", n->agent_version);
	}
	jw_object_end(w);
}

void verdict_vm_write(struct jw *w, const struct vm_row *r)
{
	jw_object_begin(w);
	jw_member_str(w, "namespace", r->namespace);
	jw_member_str(w, "name", r->name);
	jw_member_str(w, "node", r->node);
	jw_member_bool(w, "can_live_migrate", r->can_migrate);
	jw_member_str(w, "status", status_name(vm_row_status(r)));
	jw_key(w, "reasons");
	jw_array_begin(w);
	for (size_t j = 0; j < r->reasons.n; j++)
		jw_string(w, r->reasons.items[j]);
	jw_array_end(w);
	jw_object_end(w);
}
