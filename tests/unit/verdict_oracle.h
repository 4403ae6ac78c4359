/*
 * The whole verdict as one json-c tree: the tests' oracle for the JSON the
 * aggregator streams (aggregator/verdict_stream.c, which writes the same
 * document piece by piece, byte for byte what json-c prints for this tree in
 * compact form). Built from the same parts the stream uses
 * (verdict_head_json, verdict_finding_json, verdict_groups_json, verdict_node_json,
 * verdict_vm_json).
 * Only tests build it: the product streams.
 */
#pragma once
#include <json-c/json.h>

#include "catalog.h"
#include "render_json.h"
#include "render_verdict.h"
#include "verdict.h"

static inline json_object *verdict_to_json(const struct verdict *v)
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
