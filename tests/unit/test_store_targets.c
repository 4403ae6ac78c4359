/* The live node store and the probe targets derived from the API. */
#include "agg_harness.h"
#include "store.h"
#include "targets.h"
#include "wire.h"
#include "wirescan.h"

static struct node_report *mk(const char *node, int64_t sent, uint64_t seq)
{
	struct node_report *r = xcalloc(1, sizeof(*r));
	r->node = xstrdup(node);
	r->sent_ns = sent;
	r->seq = seq;
	return r;
}

static void test_store(void **state)
{
	struct store s;
	store_init(&s);
	char name[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "node-%d", i);
		assert_int_equal(store_put(&s, mk(name, 100, 1), 1000, 0), 1);
	}
	assert_int_equal(s.n, 5000);
	assert_non_null(store_get(&s, "node-4999"));
	assert_null(store_get(&s, "node-5000"));
	/* Newer replaces, older and duplicates are ignored. */
	assert_int_equal(store_put(&s, mk("node-7", 200, 2), 2000, 5), 1);
	assert_int_equal(store_put(&s, mk("node-7", 150, 9), 2100, 5), 0);
	assert_int_equal(store_put(&s, mk("node-7", 200, 2), 2200, 5), 0);
	const struct store_entry *e = store_get(&s, "node-7");
	assert_int_equal(e->rec->report.sent_ns, 200);
	assert_int_equal(e->rec->received_ns, 2000);
	assert_int_equal(e->rec->rtt_ns, 5);
	assert_int_equal(s.n, 5000);
	assert_int_equal(s.stale, 2);
	store_clear(&s);
}

/* Node i's report: A names its node, B too with a message of its own, C
 * another node, D is A without a node. */
static struct node_report *shared_report(int i, int64_t sent)
{
	char name[32], msg[32];
	snprintf(name, sizeof(name), "node-%d", i);
	snprintf(msg, sizeof(msg), "only node %d says this", i);
	struct node_report *r = mk(name, sent, 1);
	const char *msgs[4] = {"the same everywhere", msg, "about another node",
			       "the same everywhere"};
	const char *nodes[4] = {name, name, "elsewhere", NULL};
	for (int k = 0; k < 4; k++) {
		struct finding *f = finding_list_add(&r->results, "host.kvm");
		finding_set(f, STATUS_PASS, "%s", msgs[k]);
		kv_add_str(&f->evidence, "device", "/dev/kvm");
		finding_remedy(f, "%s", "nothing to do");
		if (nodes[k])
			finding_set_node(f, nodes[k]);
	}
	return r;
}

static void ingest(struct store *s, struct wirescan_report *w, int i, int64_t sent,
		   size_t *ret_known)
{
	struct node_report *r = shared_report(i, sent);
	char *buf;
	size_t len;
	assert_int_equal(wire_encode_node_report(r, &buf, &len), 0);
	assert_int_equal(wirescan_report((const uint8_t *)buf, len, &s->known, w), 0);
	for (size_t k = 0; k < w->n_results; k++)
		*ret_known += w->results[k].known != NULL;
	struct store_rec *rec = store_rec_new(s, (const uint8_t *)buf, w, 0, 0);
	assert_int_equal(store_put_rec(s, rec), 1);
	free(buf);
	node_report_clear(r);
	free(r);
}

/* The same finding of every node is one piece, though each names its node;
 * what is read back (decoded, viewed) is what was sent, and a node's next
 * report is still matched against its previous pieces. */
static void test_store_node_shared(void **state)
{
	struct store s;
	store_init(&s);
	struct wirescan_report w = {0};
	size_t known = 0;
	for (int i = 0; i < 100; i++)
		ingest(&s, &w, i, 100, &known);
	/* A and D: one piece; B: one per node; C: one. */
	assert_int_equal(s.npieces, 102);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 100; i++) {
			char name[32];
			snprintf(name, sizeof(name), "node-%d", i);
			const struct store_entry *e = store_get(&s, name);
			assert_non_null(e);
			struct node_report got, *want = shared_report(i, 100 + round);
			store_rec_decode(e->rec, &got);
			assert_true(wire_node_report_equal(&got, want));
			node_report_clear(&got);
			store_rec_view(e->rec);
			const struct finding_list *l = &e->rec->report.results;
			assert_int_equal(l->n, 4);
			for (size_t k = 0; k < 4; k++) {
				const char *wn = want->results.items[k].node;
				if (wn)
					assert_string_equal(l->items[k].node, wn);
				else
					assert_null(l->items[k].node);
				assert_string_equal(l->items[k].message,
						    want->results.items[k].message);
			}
			store_rec_unview(e->rec);
			node_report_clear(want);
			free(want);
		}
		if (round == 0) {
			/* every node again, newer: each finding matched in place */
			known = 0;
			for (int i = 0; i < 100; i++)
				ingest(&s, &w, i, 101, &known);
			assert_int_equal(known, 400);
			assert_int_equal(s.npieces, 102);
		}
	}
	wirescan_report_clear(&w);
	store_clear(&s);
}

static void test_targets(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "../../../examples/cluster/daemonsets.apps.json");
	harness_load(&h, "../../../examples/cluster/volumes.longhorn.io.json");
	harness_load(&h, "../../../examples/cluster/nodes.longhorn.io.json");
	struct probe_targets t;
	targets_for_node(&h.cs, "harvester-node-2", &t);
	assert_string_equal(t.share_manager_image, "longhornio/longhorn-share-manager:v1.11.2");
	/* No Longhorn settings read: no pull policy (the agent assumes Longhorn's default). */
	assert_null(t.share_manager_pull_policy);
	probe_targets_clear(&t);
	harness_load(&h, "../../../examples/cluster/settings.longhorn.io.json");
	targets_for_node(&h.cs, "harvester-node-2", &t);
	assert_string_equal(t.share_manager_pull_policy, "if-not-present");
	/* Only the attached, non-migratable RWX volume has a share endpoint. */
	assert_int_equal(t.nfs_endpoints.n, 1);
	assert_true(startswith(t.nfs_endpoints.items[0], "nfs://10.53.88.17/pvc-"));
	assert_int_equal(t.longhorn_data_paths.n, 1);
	assert_string_equal(t.longhorn_data_paths.items[0], "/var/lib/harvester/defaultdisk");
	assert_null(t.canary_export);
	probe_targets_clear(&t);
	targets_for_node(&h.cs, "no-such-node", &t);
	assert_int_equal(t.longhorn_data_paths.n, 0);
	probe_targets_clear(&t);
	harness_clear(&h);

	/* Without longhorn-manager, the newest ShareManager's image. */
	harness_init(&h);
	harness_add(
	    &h, "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"ShareManager\","
		"\"metadata\":{\"name\":\"a\",\"namespace\":\"longhorn-system\","
		"\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},\"spec\":{\"image\":\"old:1\"}}");
	harness_add(
	    &h, "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"ShareManager\","
		"\"metadata\":{\"name\":\"b\",\"namespace\":\"longhorn-system\","
		"\"creationTimestamp\":\"2026-02-01T00:00:00Z\"},\"spec\":{\"image\":\"new:2\"}}");
	assert_string_equal(targets_share_manager_image(&h.cs), "new:2");
	harness_clear(&h);
	harness_init(&h);
	assert_null(targets_share_manager_image(&h.cs));
	harness_clear(&h);

	/* The policy as Longhorn spells it, whatever it is. */
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Setting\","
			"\"metadata\":{\"name\":\"system-managed-pods-image-pull-policy\","
			"\"namespace\":\"longhorn-system\"},\"value\":\"never\"}");
	targets_for_node(&h.cs, "n1", &t);
	assert_string_equal(t.share_manager_pull_policy, "never");
	json_object *o = probe_targets_to_json(&t);
	assert_string_equal(
	    json_object_get_string(json_object_object_get(o, "share_manager_pull_policy")),
	    "never");
	json_object_put(o);
	probe_targets_clear(&t);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store),
	    cmocka_unit_test(test_store_node_shared),
	    cmocka_unit_test(test_targets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
