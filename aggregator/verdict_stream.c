/* The JSON verdict written straight to its output by json_write.h: no json-c
 * tree is built for any part of it (the tests build one as the oracle,
 * tests/unit/verdict_oracle.h, and compare byte for byte). */
#include "verdict_stream.h"

#include <string.h>

#include "json_write.h"
#include "render_json.h"
#include "render_verdict.h"

/* A finding's members up to and including "doc_url", as render_finding_json
 * builds them, into an object the caller opened. */
static void finding_members(struct jw *w, const struct finding *f)
{
	jw_member_str(w, "check", f->check);
	jw_member_str(w, "status", status_name(f->status));
	jw_member_str(w, "message", f->message ? f->message : "");
	jw_key(w, "evidence");
	jw_kv_list(w, &f->evidence);
	jw_member_str(w, "remediation", f->remediation ? f->remediation : "");
	/* The same remediation as its steps (report.h remedy_steps): [] for none,
	 * one item for a one-sentence remedy. */
	struct strv steps = {0};
	remedy_steps(f->remediation, &steps);
	jw_key(w, "remedy_steps");
	jw_array_begin(w);
	for (size_t i = 0; i < steps.n; i++)
		jw_string(w, steps.items[i]);
	jw_array_end(w);
	strv_clear(&steps);
	_cleanup_free_ char *doc = render_doc_url(f->check);
	jw_member_str(w, "doc_url", doc);
}

char *verdict_stream_fragment(const struct finding *f, size_t *ret_len)
{
	struct jw_membuf b = {0};
	struct jw *w = xmalloc(sizeof(*w));
	jw_init(w, jw_membuf_write, &b);
	jw_object_begin(w);
	finding_members(w, f); /* without node and object, and no closing brace */
	jw_flush(w);
	free(w);
	*ret_len = b.len;
	return b.p ? b.p : xstrdup("");
}

static void ws_finding(struct jw *w, const struct verdict *v, const struct verdict_stream_out *out,
		       size_t i)
{
	const struct finding *f = &v->findings.items[i];
	size_t n;
	const char *frag = i < v->n_borrowed && out->fragment && !out->pretty
			       ? out->fragment(out->ctx, i, &n)
			       : NULL;
	if (frag) {
		jw_value_start(w);
		jw_raw(w, frag, n); /* '{' and members: the next one takes a ',' */
	} else {
		jw_object_begin(w);
		finding_members(w, f);
	}
	if (f->node)
		jw_member_str(w, "node", f->node);
	if (f->object)
		jw_member_str(w, "object", f->object);
	verdict_waiver_write(w, v, i);
	jw_object_end(w);
}

void verdict_stream_json(const struct verdict *v, const struct verdict_stream_out *out)
{
	struct jw *w = xmalloc(sizeof(*w));
	if (out->pretty)
		jw_init_pretty(w, out->write, out->ctx);
	else
		jw_init(w, out->write, out->ctx);
	jw_object_begin(w);
	verdict_head_members_write(w, v);
	jw_key(w, "gates");
	jw_object_begin(w);
	for (int g = 0; g < _GATE_MAX; g++) {
		jw_key(w, gate_name(g));
		jw_object_begin(w);
		jw_member_str(w, "status", status_name(v->gates[g].status));
		jw_key(w, "blockers");
		jw_array_begin(w);
		for (size_t i = 0; i < v->gates[g].n_blockers; i++)
			ws_finding(w, v, out, v->gates[g].blockers[i]);
		jw_array_end(w);
		/* the canary's word on the gate (docs/outputs.md) */
		char *proof = render_verdict_canary_proof(v, g);
		if (proof) {
			jw_member_str(w, "canary", proof);
			free(proof);
		}
		jw_object_end(w);
	}
	jw_object_end(w);
	jw_key(w, "findings");
	jw_array_begin(w);
	for (size_t i = 0; i < v->findings.n; i++)
		ws_finding(w, v, out, i);
	jw_array_end(w);
	jw_key(w, "groups");
	verdict_groups_write(w, v);
	jw_key(w, "nodes");
	jw_array_begin(w);
	for (size_t i = 0; i < v->n_nodes; i++)
		verdict_node_write(w, &v->nodes[i]);
	jw_array_end(w);
	jw_key(w, "vms");
	jw_array_begin(w);
	for (size_t i = 0; i < v->vms.n; i++)
		verdict_vm_write(w, &v->vms.items[i]);
	jw_array_end(w);
	jw_object_end(w);
	jw_flush(w);
	free(w);
}
