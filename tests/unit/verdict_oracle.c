/*
 * The tests' oracle for the JSON the aggregator streams: the same document
 * built as json-c trees. The product writes it with a JSON writer
 * (aggregator/json_write.h: verdict_stream.c, verdict.c, render_verdict.c,
 * report_header.c, cluster_versions.c); these builders were its first
 * implementation and now live only here, linked into the tests that compare
 * the two (test_verdict_stream, test_render, test_waivers, ...).
 */
#include "verdict_oracle.h"

#include "catalog.h"
#include "finding_groups.h"
#include "render_json.h"
#include "render_verdict.h"
#include "util.h"

static void add_opt(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
}

/* Which of the "waivers" lists a waiver is in, by its state: "used" 0,
 * "unused" 1, else ("expired") 2. */
static int oracle_list_of(const struct waiver *w)
{
	const char *st = waiver_state(w);
	return streq(st, "used") ? 0 : streq(st, "unused") ? 1 : 2;
}

static bool any_finding(size_t i, void *arg)
{
	(void)i, (void)arg;
	return true;
}

json_object *report_header_json(const struct report_header *h)
{
	char ts[64];
	json_object *o = json_object_new_object();
	add_opt(o, "api_server", h->api_server);
	json_object *c = json_object_new_object();
	add_opt(c, "kube_system_uid", h->cluster_uid);
	if (!h->cluster_uid)
		add_opt(c, "unknown_reason", h->cluster_uid_why);
	json_object_object_add(o, "cluster", c);
	add_opt(o, "hvready_version", HVREADY_VERSION);
	util_format_rfc3339(h->generated_ns, ts, sizeof(ts));
	add_opt(o, "report_time", ts);
	add_opt(o, "operator", h->operator_name);
	add_opt(o, "target_version", h->target_version);
	return o;
}

json_object *cluster_versions_json(const struct cluster_versions *v)
{
	json_object *o = json_object_new_object();
	for (int c = 0; c < _VC_MAX; c++) {
		const struct component_version *cv = &v->c[c];
		json_object *co = json_object_new_object();
		add_opt(co, "version", cv->version);
		add_opt(co, "from", cv->from);
		json_object_object_add(co, "in_matrix",
				       cv->version && version_component_has_range(c)
					   ? json_object_new_boolean(!cv->note)
					   : NULL);
		if (cv->note)
			add_opt(co, "note", cv->note);
		json_object_object_add(o, version_component_key(c), co);
	}
	json_object *nodes = json_object_new_array();
	for (size_t i = 0; i < v->n_nodes; i++) {
		const struct node_version *nv = &v->nodes[i];
		json_object *no = json_object_new_object();
		add_opt(no, "name", nv->name);
		add_opt(no, "kubelet", nv->kubelet);
		add_opt(no, "distribution", nv->distribution);
		add_opt(no, "container_runtime", nv->runtime);
		add_opt(no, "os_image", nv->os_image);
		json_object_array_add(nodes, no);
	}
	json_object_object_add(o, "nodes", nodes);
	return o;
}

/* "canary": the result in the gates, or why it could not be read. */
static json_object *canary_json(const struct verdict_canary *vc)
{
	char ts[64];
	json_object *o = json_object_new_object();
	json_object_object_add(o, "source", json_object_new_string(vc->source ? vc->source : ""));
	if (vc->interval_ns) {
		json_object *sc = json_object_new_object();
		json_object_object_add(sc, "interval_seconds",
				       json_object_new_int64(vc->interval_ns / NSEC_PER_SEC));
		json_object_object_add(sc, "running", json_object_new_boolean(vc->running));
		json_object_object_add(sc, "runs", json_object_new_int64((int64_t)vc->runs));
		if (vc->run_error)
			json_object_object_add(sc, "last_run_error",
					       json_object_new_string(vc->run_error));
		json_object_object_add(o, "schedule", sc);
	}
	if (vc->error) {
		json_object_object_add(o, "error", json_object_new_string(vc->error));
		return o;
	}
	if (!vc->present)
		return o;
	json_object_object_add(o, "run", json_object_new_string(vc->run));
	json_object_object_add(o, "namespace", json_object_new_string(vc->ns));
	json_object_object_add(o, "status", json_object_new_string(vc->status));
	util_format_rfc3339(vc->started_ns, ts, sizeof(ts));
	json_object_object_add(o, "started_at", json_object_new_string(ts));
	util_format_rfc3339(vc->finished_ns, ts, sizeof(ts));
	json_object_object_add(o, "finished_at", json_object_new_string(ts));
	json_object_object_add(
	    o, "age_seconds",
	    json_object_new_int64((vc->future ? -1 : 1) * vc->age_ns / NSEC_PER_SEC));
	json_object_object_add(o, "max_age_seconds",
			       json_object_new_int64(vc->max_age_ns / NSEC_PER_SEC));
	json_object_object_add(o, "stale", json_object_new_boolean(vc->stale || vc->future));
	return o;
}

json_object *verdict_waiver_json(const struct verdict *v, size_t i)
{
	const struct waiver *w = verdict_waiver(v, i);
	if (!w)
		return NULL;
	json_object *o = json_object_new_object();
	add_opt(o, "reason", w->reason);
	add_opt(o, "approved_by", w->approved_by);
	add_opt(o, "expires", w->expires);
	return o;
}

json_object *verdict_finding_json(const struct verdict *v, size_t i)
{
	json_object *o = render_finding_json(&v->findings.items[i]);
	json_object *w = verdict_waiver_json(v, i);
	if (w)
		json_object_object_add(o, "waiver", w);
	return o;
}

/* {"file", "used": [...], "unused": [...], "expired": [...]}: each waiver as
 * written, with how many findings it waived. */
static json_object *waivers_json(const struct verdict *v)
{
	json_object *o = json_object_new_object();
	add_opt(o, "file", v->waivers.file);
	json_object *lists[3];
	static const char *const names[] = {"used", "unused", "expired"};
	for (int k = 0; k < 3; k++)
		lists[k] = json_object_new_array();
	for (size_t i = 0; i < v->waivers.n; i++) {
		const struct waiver *w = &v->waivers.items[i];
		json_object *e = json_object_new_object();
		add_opt(e, "check", w->check);
		if (w->node)
			add_opt(e, "node", w->node);
		if (w->object)
			add_opt(e, "object", w->object);
		add_opt(e, "reason", w->reason);
		add_opt(e, "approved_by", w->approved_by);
		add_opt(e, "expires", w->expires);
		json_object_object_add(e, "findings_waived",
				       json_object_new_int64((int64_t)w->applied));
		if (w->unknown_matched)
			json_object_object_add(e, "unknown_not_waived",
					       json_object_new_int64((int64_t)w->unknown_matched));
		json_object_array_add(lists[oracle_list_of(w)], e);
	}
	for (int k = 0; k < 3; k++)
		json_object_object_add(o, names[k], lists[k]);
	json_object_object_add(o, "findings_waived",
			       json_object_new_int64((int64_t)verdict_waived_count(v)));
	return o;
}

json_object *verdict_head_json(const struct verdict *v)
{
	char ts[64];
	json_object *o = json_object_new_object();
	json_object_object_add(o, "schema", json_object_new_string(REPORT_SCHEMA));
	json_object_object_add(o, "header", report_header_json(&v->header));
	util_format_rfc3339(v->generated_ns, ts, sizeof(ts));
	json_object_object_add(o, "generated_at", json_object_new_string(ts));
	json_object_object_add(o, "generator",
			       json_object_new_string("hvready-aggregator " HVREADY_VERSION));
	json_object_object_add(o, "source", json_object_new_string(v->source));
	json_object_object_add(o, "mode", json_object_new_string(v->live ? "live" : "offline"));
	/* How old the cluster facts are: serve keeps the last complete state
	 * when the API cannot be read, and says so here. */
	json_object *cs = json_object_new_object();
	if (v->state_read_ns > 0) {
		util_format_rfc3339(v->state_read_ns, ts, sizeof(ts));
		json_object_object_add(cs, "read_at", json_object_new_string(ts));
		int64_t age = v->generated_ns - v->state_read_ns;
		json_object_object_add(cs, "age_seconds",
				       json_object_new_int64(age > 0 ? age / NSEC_PER_SEC : 0));
	}
	if (v->state_error)
		json_object_object_add(cs, "last_refresh_error",
				       json_object_new_string(v->state_error));
	json_object_object_add(o, "cluster_state", cs);
	json_object_object_add(o, "harvester_installed",
			       json_object_new_boolean(v->harvester_installed));
	json_object_object_add(o, "versions", cluster_versions_json(&v->versions));
	if (v->have_waivers)
		json_object_object_add(o, "waivers", waivers_json(v));
	if (v->canary.present || v->canary.error || v->canary.interval_ns)
		json_object_object_add(o, "canary", canary_json(&v->canary));
	json_object_object_add(o, "status",
			       json_object_new_string(status_name(verdict_status(v, -1))));
	return o;
}

json_object *verdict_node_json(const struct verdict_node *n)
{
	json_object *no = json_object_new_object();
	json_object_object_add(no, "name", json_object_new_string(n->name));
	json_object_object_add(no, "in_cluster", json_object_new_boolean(n->in_cluster));
	json_object_object_add(no, "kubernetes_ready", json_object_new_boolean(n->k8s_ready));
	json_object_object_add(no, "reporting", json_object_new_boolean(n->reporting));
	if (n->hostname) {
		json_object_object_add(no, "report_age_seconds",
				       json_object_new_int64(n->report_age_ns / NSEC_PER_SEC));
		json_object_object_add(no, "hostname", json_object_new_string(n->hostname));
		json_object_object_add(no, "agent_version",
				       json_object_new_string(n->agent_version));
	}
	return no;
}

json_object *verdict_vm_json(const struct vm_row *r)
{
	json_object *vo = json_object_new_object();
	json_object_object_add(vo, "namespace", json_object_new_string(r->namespace));
	json_object_object_add(vo, "name", json_object_new_string(r->name));
	json_object_object_add(vo, "node", json_object_new_string(r->node));
	json_object_object_add(vo, "can_live_migrate", json_object_new_boolean(r->can_migrate));
	json_object_object_add(vo, "status", json_object_new_string(status_name(vm_row_status(r))));
	json_object *rs = json_object_new_array();
	for (size_t j = 0; j < r->reasons.n; j++)
		json_object_array_add(rs, json_object_new_string(r->reasons.items[j]));
	json_object_object_add(vo, "reasons", rs);
	return vo;
}

json_object *verdict_groups_json(const struct verdict *v)
{
	_cleanup_free_ unsigned *blocks = render_verdict_blocks(v);
	_cleanup_free_ unsigned *keys = render_verdict_group_keys(v, blocks);
	struct finding_groups groups;
	finding_groups_build(v, keys, any_finding, NULL, &groups);
	json_object *a = json_object_new_array_ext((int)groups.n);
	for (size_t k = 0; k < groups.n; k++) {
		const struct finding_group *g = &groups.items[k];
		const struct finding *fd = &g->merged;
		json_object *o = json_object_new_object();
		/* The key: what the members share (the first member names it). */
		_cleanup_free_ char *key =
		    xasprintf("%s/%s/%zu", fd->check, status_name(fd->status), g->first);
		json_object_object_add(o, "key", json_object_new_string(key));
		json_object_object_add(o, "check", json_object_new_string(fd->check));
		json_object_object_add(o, "status",
				       json_object_new_string(status_name(fd->status)));
		json_object_object_add(o, "message",
				       json_object_new_string(fd->message ? fd->message : ""));
		if (fd->object)
			json_object_object_add(o, "object", json_object_new_string(fd->object));
		json_object *gates = json_object_new_array();
		for (int gi = 0; gi < _GATE_MAX; gi++)
			if (blocks[g->first] & (1u << gi))
				json_object_array_add(gates, json_object_new_string(gate_name(gi)));
		json_object_object_add(o, "blocks", gates);
		json_object_object_add(
		    o, "waived",
		    json_object_new_boolean(v->waiver_of && v->waiver_of[g->first] >= 0));
		json_object *nodes = json_object_new_array();
		json_object *members = json_object_new_array_ext((int)g->n);
		for (size_t m = 0; m < g->n; m++) {
			const struct finding *mf = &v->findings.items[g->members[m]];
			if (mf->node)
				json_object_array_add(nodes, json_object_new_string(mf->node));
			json_object_array_add(members,
					      json_object_new_int64((int64_t)g->members[m]));
		}
		json_object_object_add(o, "count", json_object_new_int64((int64_t)g->n));
		json_object_object_add(o, "nodes", nodes);
		json_object_object_add(o, "findings", members);
		json_object_array_add(a, o);
	}
	finding_groups_clear(&groups);
	return a;
}

json_object *verdict_to_json(const struct verdict *v)
{
	json_object *o = verdict_head_json(v);
	json_object *gates = json_object_new_object();
	for (int g = 0; g < _GATE_MAX; g++) {
		json_object *go = json_object_new_object();
		json_object_object_add(go, "status",
				       json_object_new_string(status_name(v->gates[g].status)));
		json_object *b = json_object_new_array();
		for (size_t i = 0; i < v->gates[g].n_blockers; i++)
			json_object_array_add(b, verdict_finding_json(v, v->gates[g].blockers[i]));
		json_object_object_add(go, "blockers", b);
		char *proof = render_verdict_canary_proof(v, g);
		if (proof)
			json_object_object_add(go, "canary", json_object_new_string(proof));
		free(proof);
		json_object_object_add(gates, gate_name(g), go);
	}
	json_object_object_add(o, "gates", gates);
	json_object *findings = json_object_new_array();
	for (size_t i = 0; i < v->findings.n; i++)
		json_object_array_add(findings, verdict_finding_json(v, i));
	json_object_object_add(o, "findings", findings);
	json_object_object_add(o, "groups", verdict_groups_json(v));
	json_object *nodes = json_object_new_array();
	for (size_t i = 0; i < v->n_nodes; i++)
		json_object_array_add(nodes, verdict_node_json(&v->nodes[i]));
	json_object_object_add(o, "nodes", nodes);
	json_object *vms = json_object_new_array();
	for (size_t i = 0; i < v->vms.n; i++)
		json_object_array_add(vms, verdict_vm_json(&v->vms.items[i]));
	json_object_object_add(o, "vms", vms);
	return o;
}
