/* The live node store and the probe targets derived from the API. */
#include "agg_harness.h"
#include "store.h"
#include "targets.h"

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
	    cmocka_unit_test(test_targets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
