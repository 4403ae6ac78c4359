/*
 * Test harness for aggregator checks: build a cluster state from fixture
 * files (kubectl get -o json output: one object or a List), run one check
 * (through the engine's table, so "needs" are honoured) and look at its
 * findings. Deliberately independent of the files backend under test
 * elsewhere (source_files.c).
 */
#pragma once
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "checks_api.h"
#include "jsonc_read.h"
#include "verdict.h"
#include "test_src.h"

struct harness {
	struct cluster_state cs;
	struct finding_list out;
	struct vm_table vms;
	struct node_entry nodes[16];
	size_t n_nodes;
	int64_t now_ns;
	bool live;
};

static inline const char *harness_member_str(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Fixtures are read with json-c; cs_add_object keeps a compact copy. */
static inline void harness_add_json(struct harness *h, json_object *o)
{
	const char *kind = harness_member_str(o, "kind"),
		   *api = harness_member_str(o, "apiVersion");
	if (kind && strlen(kind) >= 4 && strcmp(kind + strlen(kind) - 4, "List") == 0) {
		json_object *items = NULL;
		json_object_object_get_ex(o, "items", &items);
		size_t n = json_object_is_type(items, json_type_array)
			       ? json_object_array_length(items)
			       : 0;
		for (size_t i = 0; i < n; i++)
			harness_add_json(h, json_object_array_get_idx(items, i));
		return;
	}
	assert_non_null(kind);
	assert_non_null(api);
	const char *slash = strchr(api, '/');
	char group[128] = "";
	if (slash)
		snprintf(group, sizeof(group), "%.*s", (int)(slash - api), api);
	const struct resource_def *d = resource_find(group, kind);
	if (!d) {
		fail_msg("fixture object of unknown kind %s %s", api, kind);
		return;
	}
	cs_add_object(&h->cs, d->id, o);
}

/* The state's objects are immutable: a test edits one by taking a json-c
 * copy (harness_edit), changing it and putting it back (harness_commit). */
static inline size_t harness_index(struct harness *h, enum resource_id res, const char *name)
{
	const struct jv *items = cs_items(&h->cs, res);
	for (size_t i = 0; i < jq_len(items); i++)
		if (jq_name(jq_at(items, i)) && strcmp(jq_name(jq_at(items, i)), name) == 0)
			return i;
	fail_msg("no object %s", name);
	return 0;
}

static inline json_object *harness_edit(struct harness *h, enum resource_id res, size_t i)
{
	return jv_to_json(jq_at(cs_items(&h->cs, res), i));
}

static inline void harness_commit(struct harness *h, enum resource_id res, size_t i, json_object *o)
{
	cs_replace_object(&h->cs, res, i, o);
	json_object_put(o);
}

/* A fresh state in which every resource is collected and empty, "now" fixed. */
static inline void harness_init(struct harness *h)
{
	memset(h, 0, sizeof(*h));
	cluster_state_init(&h->cs);
	for (int i = 0; i < _RES_MAX; i++)
		cs_set_status(&h->cs, i, RES_COLLECTED, NULL);
	h->now_ns = INT64_C(1788614444) * NSEC_PER_SEC; /* 2026-09-05T13:20:44Z */
}

/* Load a fixture file relative to tests/fixtures/cluster/. */
static inline void harness_load(struct harness *h, const char *rel)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/fixtures/cluster/%s", test_src(), rel);
	json_object *o = json_object_from_file(path);
	if (!o)
		fail_msg("cannot parse fixture %s: %s", path, json_util_get_last_err());
	harness_add_json(h, o);
	json_object_put(o);
}

/* Load an object from a JSON string literal. */
static inline void harness_add(struct harness *h, const char *json)
{
	json_object *o = json_tokener_parse(json);
	if (!o)
		fail_msg("bad JSON in test: %s", json);
	harness_add_json(h, o);
	json_object_put(o);
}

static inline struct agg_ctx harness_ctx(struct harness *h)
{
	return (struct agg_ctx){
	    .cs = &h->cs,
	    .nodes = h->nodes,
	    .n_nodes = h->n_nodes,
	    .now_ns = h->now_ns,
	    .interval_s = 30,
	    .live = h->live,
	    .harvester_installed = engine_harvester_installed(&h->cs),
	    .out = &h->out,
	    .vms = &h->vms,
	};
}

/* Run one check by ID exactly as the engine would (needs → UNKNOWN). */
static inline void harness_run(struct harness *h, const char *id)
{
	struct engine_opts eo = {0};
	for (size_t i = 0; i < catalog_len; i++)
		if (strcmp(catalog[i].id, id) != 0)
			strv_add(&eo.skip, catalog[i].id);
	struct agg_ctx ctx = harness_ctx(h);
	engine_run(&ctx, &eo);
	strv_clear(&eo.skip);
	/* Drop the SKIP findings of every other check. */
	size_t w = 0;
	for (size_t i = 0; i < h->out.n; i++) {
		if (strcmp(h->out.items[i].check, id) == 0)
			h->out.items[w++] = h->out.items[i];
		else
			finding_clear(&h->out.items[i]);
	}
	h->out.n = w;
}

/* Before Harvester's install: harvesterhci.io is not served. */
static inline void harness_preinstall(struct harness *h)
{
	cs_set_status(&h->cs, RES_HV_SETTINGS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h->cs, RES_HV_VMIMAGES, RES_NOT_INSTALLED, NULL);
}

/* An RFC 3339 time as "now" or a timestamp in nanoseconds. */
static inline int64_t harness_at(const char *rfc3339)
{
	int64_t ns;
	assert_int_equal(util_parse_rfc3339(rfc3339, &ns), 0);
	return ns;
}

/* The one finding there is (asserts it is one, of id). */
static inline const struct finding *harness_only(struct harness *h, const char *id)
{
	assert_int_equal(h->out.n, 1);
	assert_string_equal(h->out.items[0].check, id);
	return &h->out.items[0];
}

/* Run id and return its one finding, asserting its status. */
static inline const struct finding *harness_expect(struct harness *h, const char *id,
						   enum status want)
{
	harness_run(h, id);
	const struct finding *f = harness_only(h, id);
	assert_int_equal(f->status, want);
	return f;
}

/* Evidence string key of f, "" when absent. */
static inline const char *harness_ev(const struct finding *f, const char *key)
{
	const char *s = kv_get_str(&f->evidence, key);
	return s ? s : "";
}

/* Does the evidence list key hold a string containing needle? */
static inline bool harness_list_has(const struct finding *f, const char *key, const char *needle)
{
	const struct value_list *l = kv_get_list(&f->evidence, key);
	for (size_t i = 0; l && i < l->n; i++)
		if (l->items[i].type == VALUE_STR && strstr(l->items[i].s, needle))
			return true;
	return false;
}

/* The worst status among the findings of id. */
static inline enum status harness_status(struct harness *h, const char *id)
{
	enum status s;
	if (!finding_list_status(&h->out, id, &s))
		fail_msg("no finding for %s", id);
	return s;
}

/* The first finding of id whose object equals obj (NULL: the first). */
static inline const struct finding *harness_finding(struct harness *h, const char *id,
						    const char *obj)
{
	for (size_t i = 0; i < h->out.n; i++)
		if (strcmp(h->out.items[i].check, id) == 0 &&
		    (!obj || (h->out.items[i].object && strcmp(h->out.items[i].object, obj) == 0)))
			return &h->out.items[i];
	fail_msg("no finding for %s %s", id, obj ? obj : "");
	return NULL;
}

static inline void harness_clear(struct harness *h)
{
	finding_list_clear(&h->out);
	vm_table_clear(&h->vms);
	cluster_state_clear(&h->cs);
}
