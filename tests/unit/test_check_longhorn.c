/* The Longhorn data-plane checks on fixtures modelled on failures seen in the field,
 * plus the Longhorn helpers (references, versions, setting values). */
#include <errno.h>

#include "agg_harness.h"
#include "fixtures_k8s.h"
#include "longhorn.h"

#define HEALTH "api.longhorn.volume-health"
#define CLONE  "api.longhorn.clone-stuck"
#define SHARE  "api.longhorn.rwx-share"
#define DISK   "api.longhorn.node-disk"

#define C17_OBJ "Volume/longhorn-system/pvc-9cb0efed-4a7d-4e1b-8c2f-6d3a9e5b1f07"
#define C5_OBJ	"Volume/longhorn-system/pvc-64684c60-5d1e-4c2a-8f3b-9a0e7d6c5b41"

static void load_snap_restore(struct harness *h)
{
	harness_load(h, "storage/volumes-snap-restore.json");
	harness_load(h, "storage/replicas-snap-restore.json");
	harness_load(h, "storage/engines-snap-restore.json");
}

/* ---- helpers ---- */

static void test_ref_parse(void **state)
{
	struct longhorn_ref r;
	const char *s = "snap://pvc-5c8937fb/snapshot-69ceba6a";
	assert_int_equal(longhorn_ref_parse((const uint8_t *)s, strlen(s), &r), 0);
	assert_int_equal(r.type, LONGHORN_REF_SNAPSHOT);
	assert_string_equal(r.volume, "pvc-5c8937fb");
	assert_string_equal(r.name, "snapshot-69ceba6a");
	s = "vol://pvc-1";
	assert_int_equal(longhorn_ref_parse((const uint8_t *)s, strlen(s), &r), 0);
	assert_int_equal(r.type, LONGHORN_REF_VOLUME);
	assert_string_equal(r.name, "");
	s = "bs://pvc-1/backup-2";
	assert_int_equal(longhorn_ref_parse((const uint8_t *)s, strlen(s), &r), 0);
	assert_int_equal(r.type, LONGHORN_REF_BACKUP);
	s = "bi://backing?backing-image=x&volume-name=y";
	assert_int_equal(longhorn_ref_parse((const uint8_t *)s, strlen(s), &r), 0);
	assert_int_equal(r.type, LONGHORN_REF_BACKING_IMAGE);
	static const char *const bad[] = {"",		"snap://",	"snap://v",  "snap://v/",
					  "snap:///s",	"snap://v/s/x", "vol://a/b", "nfs://h/x",
					  "SNAP://v/s", "pvc-1"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		assert_int_equal(longhorn_ref_parse((const uint8_t *)bad[i], strlen(bad[i]), &r),
				 -EINVAL);
	char big[600] = "vol://";
	memset(big + 6, 'a', 300);
	assert_int_equal(longhorn_ref_parse((const uint8_t *)big, strlen(big), &r), -EINVAL);
	const uint8_t nul[] = {'v', 'o', 'l', ':', '/', '/', 'a', 0, 'b'};
	assert_int_equal(longhorn_ref_parse(nul, sizeof(nul), &r), -EINVAL);
	assert_int_equal(longhorn_ref_parse(NULL, 0, &r), -EINVAL);
}

static void test_version_and_int_parse(void **state)
{
	struct longhorn_version v;
	static const struct {
		const char *s;
		int ma, mi, pa;
	} good[] = {{"v1.11.2", 1, 11, 2},
		    {"1.9.0-rc1", 1, 9, 0},
		    {"v1.8", 1, 8, 0},
		    {"longhornio/longhorn-manager:v1.10.1", 1, 10, 1},
		    {"registry.local:5000/longhornio/longhorn-manager:v1.7.3", 1, 7, 3}};
	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		assert_int_equal(
		    longhorn_version_parse((const uint8_t *)good[i].s, strlen(good[i].s), &v), 0);
		assert_int_equal(v.major, good[i].ma);
		assert_int_equal(v.minor, good[i].mi);
		assert_int_equal(v.patch, good[i].pa);
	}
	static const char *const bad[] = {"",
					  "v",
					  "v1",
					  "1.x",
					  "master-head",
					  "1.2.3x",
					  "registry.local:5000/longhorn-manager",
					  "v9999999999.1"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		assert_int_equal(
		    longhorn_version_parse((const uint8_t *)bad[i], strlen(bad[i]), &v), -EINVAL);
	assert_true(longhorn_version_at_least(&(struct longhorn_version){1, 8, 0}, 1, 8));
	assert_false(longhorn_version_at_least(&(struct longhorn_version){1, 7, 9}, 1, 8));
	assert_true(longhorn_version_at_least(&(struct longhorn_version){2, 0, 0}, 1, 8));

	int64_t n;
	static const struct {
		const char *s;
		int64_t v;
	} ints[] = {{"25", 25}, {" 3 ", 3}, {"{\"v1\":\"3\",\"v2\":\"2\"}", 3}, {"{\"v1\":4}", 4}};
	for (size_t i = 0; i < ELEMENTSOF(ints); i++) {
		assert_int_equal(
		    longhorn_int_value_parse((const uint8_t *)ints[i].s, strlen(ints[i].s), &n), 0);
		assert_int_equal(n, ints[i].v);
	}
	static const char *const badi[] = {"",		"x",   "{\"v2\":\"3\"}",  "{\"v1\":\"x\"}",
					   "{\"v1\":3", "[3]", "{\"v1\":3} tail", "25%"};
	for (size_t i = 0; i < ELEMENTSOF(badi); i++)
		assert_int_equal(
		    longhorn_int_value_parse((const uint8_t *)badi[i], strlen(badi[i]), &n),
		    -EINVAL);
}

/* ---- api.longhorn.volume-health ---- */

static void test_health_healthy_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/volumes-healthy.json");
	harness_load(&h, "storage/replicas-healthy.json");
	harness_load(&h, "storage/engines-healthy.json");
	const struct finding *f = harness_expect(&h, HEALTH, STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "attached_healthy", &n));
	assert_int_equal(n, 2);
	assert_true(kv_get_int(&f->evidence, "detached", &n));
	assert_int_equal(n, 1);
	harness_clear(&h);
}

static void test_health_snap_restore_degraded_warn(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = harness_at("2026-09-06T01:35:00Z");
	load_snap_restore(&h);
	const struct finding *f = harness_expect(&h, HEALTH, STATUS_WARN);
	assert_string_equal(f->object, C17_OBJ);
	assert_non_null(strstr(f->message, "degraded: 0 of 3 replicas RW"));
	assert_non_null(strstr(f->message, "blocks live migration of VM default/vm-e2e-final"));
	assert_non_null(strstr(f->message, "has not converged (state initiated)"));
	assert_true(harness_list_has(f, "replicas",
				     "r-29cc6b5c node=sza122100.local state=running mode=none"));
	harness_clear(&h);
}

static void test_health_restore_clone_failed(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = harness_at("2026-09-06T00:10:00Z");
	harness_load(&h, "storage/volumes-restore-clone-failed.json");
	const struct finding *f = harness_expect(&h, HEALTH, STATUS_FAIL);
	assert_string_equal(f->object, C5_OBJ);
	assert_non_null(strstr(f->message, "failed: the volume holds no usable data"));
	assert_non_null(strstr(f->message, "no Replica objects"));
	assert_string_equal(kv_get_str(&f->evidence, "robustness"), "unknown");
	assert_non_null(strstr(f->remediation, "api.longhorn.clone-stuck"));
	harness_clear(&h);
}

static void test_health_faulted_and_err_modes(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h, lh_obj("Volume", "pvc-f", "\"creationTimestamp\":\"2026-09-01T00:00:00Z\"",
			       "\"spec\":{\"numberOfReplicas\":\"2\"},\"status\":{\"state\":"
			       "\"attached\",\"robustness\":\"faulted\"}"));
	harness_add(&h,
		    lh_obj("Volume", "pvc-d", "\"creationTimestamp\":\"2026-09-01T00:00:00Z\"",
			   "\"spec\":{\"numberOfReplicas\":3},\"status\":{\"state\":\"attached\","
			   "\"robustness\":\"degraded\",\"conditions\":[{\"type\":\"Scheduled\","
			   "\"status\":\"False\",\"reason\":\"ReplicaSchedulingFailure\","
			   "\"message\":\"insufficient storage\"}]}"));
	harness_add(&h, lh_obj("Replica", "pvc-d-r-1", "\"labels\":{\"longhornvolume\":\"pvc-d\"}",
			       "\"spec\":{\"nodeID\":\"n1\",\"failedAt\":\"\"},\"status\":{"
			       "\"currentState\":\"running\"}"));
	/* labels stripped: spec.volumeName still ties it to its volume */
	harness_add(&h,
		    lh_obj("Replica", "pvc-d-r-2", NULL,
			   "\"spec\":{\"volumeName\":\"pvc-d\",\"nodeID\":\"n2\",\"failedAt\":"
			   "\"2026-09-05T10:00:00Z\"},\"status\":{\"currentState\":\"error\"}"));
	harness_add(&h, lh_obj("Engine", "pvc-d-e-0", "\"labels\":{\"longhornvolume\":\"pvc-d\"}",
			       "\"spec\":{\"active\":true},\"status\":{\"replicaModeMap\":{\"pvc-d-"
			       "r-1\":\"RW\",\"pvc-d-r-2\":\"ERR\"}}"));
	harness_run(&h, HEALTH);
	assert_int_equal(h.out.n, 2);
	const struct finding *f = harness_finding(&h, HEALTH, "Volume/longhorn-system/pvc-f");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "0 of 2 RW"));
	f = harness_finding(&h, HEALTH, "Volume/longhorn-system/pvc-d");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "1 of 3 replicas RW (0 WO rebuilding, 1 ERR"));
	assert_non_null(strstr(f->message, "Scheduled=False: insufficient storage"));
	assert_true(harness_list_has(f, "replicas", "mode=ERR failedAt=2026-09-05T10:00:00Z"));
	harness_clear(&h);
}

static void test_health_unknown_and_settling(void **state)
{
	struct harness h;
	harness_init(&h);
	/* Just created: no status yet, not judged. */
	harness_add(&h,
		    lh_obj("Volume", "pvc-new", "\"creationTimestamp\":\"2026-09-05T13:20:14Z\"",
			   "\"spec\":{\"numberOfReplicas\":3}"));
	harness_expect(&h, HEALTH, STATUS_PASS);
	harness_clear(&h);

	/* Old and still no status; robustness of the wrong type. */
	harness_init(&h);
	harness_add(&h,
		    lh_obj("Volume", "pvc-old", NULL,
			   "\"spec\":null,\"status\":{\"state\":\"detached\",\"robustness\":5}"));
	harness_expect(&h, HEALTH, STATUS_UNKNOWN);
	harness_clear(&h);

	/* Attached with robustness unknown, long after creation. */
	harness_init(&h);
	harness_add(&h, lh_obj("Volume", "pvc-a", "\"creationTimestamp\":\"2026-09-01T00:00:00Z\"",
			       "\"status\":{\"state\":\"attached\",\"robustness\":\"unknown\","
			       "\"kubernetesStatus\":{\"workloadsStatus\":null}}"));
	harness_expect(&h, HEALTH, STATUS_WARN);
	harness_clear(&h);
}

static void test_health_skip_and_install_states(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_expect(&h, HEALTH, STATUS_SKIP);
	harness_clear(&h);

	harness_init(&h);
	harness_preinstall(&h);
	cs_set_status(&h.cs, RES_LH_VOLUMES, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, HEALTH, STATUS_SKIP);
	harness_clear(&h);

	harness_init(&h);
	harness_load(&h, "storage/deployments-harvester.json");
	cs_set_status(&h.cs, RES_LH_VOLUMES, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, HEALTH, STATUS_FAIL);
	harness_clear(&h);

	/* Replica modes need the engines: not collected → UNKNOWN, never a guess. */
	harness_init(&h);
	harness_load(&h, "storage/volumes-healthy.json");
	cs_set_status(&h.cs, RES_LH_ENGINES, RES_NOT_COLLECTED, NULL);
	harness_expect(&h, HEALTH, STATUS_UNKNOWN);
	harness_clear(&h);
}

/* The type-snap restore's degraded VM disk after the VM stopped and a recurring backup attached
 * the volume: Longhorn keeps the VMI in workloadsStatus as history (lastPodRefAt
 * set), so no running VM is blocked from migrating. */
static void test_health_degraded_vm_history(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = harness_at("2026-09-06T01:35:00Z");
	load_snap_restore(&h);
	size_t i = harness_index(&h, RES_LH_VOLUMES, "pvc-9cb0efed-4a7d-4e1b-8c2f-6d3a9e5b1f07");
	json_object *v = harness_edit(&h, RES_LH_VOLUMES, i);
	json_object *st, *ks;
	assert_true(json_object_object_get_ex(v, "status", &st));
	assert_true(json_object_object_get_ex(st, "kubernetesStatus", &ks));
	json_object_object_add(ks, "lastPodRefAt", json_object_new_string("2026-09-06T01:30:12Z"));
	harness_commit(&h, RES_LH_VOLUMES, i, v);
	const struct finding *f = harness_expect(&h, HEALTH, STATUS_WARN);
	assert_non_null(strstr(f->message, "degraded: 0 of 3 replicas RW"));
	assert_null(strstr(f->message, "blocks live migration"));
	assert_string_equal(kv_get_str(&f->evidence, "vm"), "default/vm-e2e-final");
	harness_clear(&h);
}

/* Longhorn 1.10's efficient clone: the data is copied into one replica, the clone
 * detaches and waits in copy-completed-awaiting-healthy with 1 of 3 replicas until
 * it is attached again (longhorn#12341, #12328). */
static void add_awaiting_clone(struct harness *h, const char *created, const char *state,
			       const char *robustness)
{
	char meta[128], body[1024];
	snprintf(meta, sizeof(meta), "\"creationTimestamp\":\"%s\"", created);
	snprintf(body, sizeof(body),
		 "\"spec\":{\"numberOfReplicas\":3,\"dataSource\":\"vol://pvc-src\","
		 "\"dataEngine\":\"v1\"},\"status\":{\"state\":\"%s\",\"robustness\":"
		 "\"%s\",\"cloneStatus\":{\"sourceVolume\":\"pvc-src\",\"snapshot\":"
		 "\"1e1d1601-29f6-5ef8-bef0-fe4376c7367e\",\"state\":"
		 "\"copy-completed-awaiting-healthy\",\"attemptCount\":1,"
		 "\"nextAllowedAttemptAt\":\"2026-09-05T12:01:31Z\"},\"kubernetesStatus\":{"
		 "\"namespace\":\"default\",\"pvcName\":\"clone-1\",\"workloadsStatus\":null}}",
		 state, robustness);
	harness_add(h, lh_obj("Volume", "pvc-clone", meta, body));
	harness_add(h, lh_obj("Replica", "pvc-clone-r-1",
			      "\"labels\":{\"longhornvolume\":"
			      "\"pvc-clone\"}",
			      "\"spec\":{\"nodeID\":\"n1\",\"failedAt\":\"\"},\"status\":{"
			      "\"currentState\":\"stopped\"}"));
}

static void test_health_clone_awaiting_healthy(void **state)
{
	struct harness h;
	harness_init(&h);
	add_awaiting_clone(&h, "2026-09-05T12:00:00Z", "detached", "unknown");
	const struct finding *f = harness_expect(&h, HEALTH, STATUS_WARN);
	assert_non_null(strstr(f->message, "copied but waits in copy-completed-awaiting-healthy "
					   "with 1 of 3 replicas"));
	assert_non_null(strstr(f->remediation, "offline-replica-rebuilding"));
	assert_non_null(strstr(f->remediation, "12206"));
	assert_string_equal(kv_get_str(&f->evidence, "clone_state"),
			    "copy-completed-awaiting-healthy");
	harness_clear(&h);

	/* Just created: the clone is still settling. */
	harness_init(&h);
	add_awaiting_clone(&h, "2026-09-05T13:20:14Z", "detached", "unknown");
	harness_expect(&h, HEALTH, STATUS_PASS);
	harness_clear(&h);

	/* Attached and rebuilding: robustness degraded says it (one problem, not two). */
	harness_init(&h);
	add_awaiting_clone(&h, "2026-09-05T12:00:00Z", "attached", "degraded");
	f = harness_expect(&h, HEALTH, STATUS_WARN);
	assert_null(strstr(f->message, "awaiting-healthy with"));
	harness_clear(&h);
}

/* A volume being deleted is not judged: Longhorn is discarding its data on purpose. */
static void test_health_deleting_not_judged(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/volumes-healthy.json");
	harness_load(&h, "storage/replicas-healthy.json");
	harness_load(&h, "storage/engines-healthy.json");
	harness_add(&h,
		    lh_obj("Volume", "pvc-gone",
			   "\"creationTimestamp\":\"2026-09-01T00:00:00Z\",\"deletionTimestamp\":"
			   "\"2026-09-05T13:19:02Z\",\"finalizers\":[\"longhorn.io\"]",
			   "\"spec\":{\"numberOfReplicas\":3},\"status\":{\"state\":"
			   "\"deleting\",\"robustness\":\"faulted\"}"));
	const struct finding *f = harness_expect(&h, HEALTH, STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "being_deleted", &n));
	assert_int_equal(n, 1);
	harness_clear(&h);

	/* Only volumes being deleted: nothing to judge. */
	harness_init(&h);
	harness_add(&h, lh_obj("Volume", "pvc-gone",
			       "\"deletionTimestamp\":\"2026-09-05T13:19:02.417Z\"",
			       "\"status\":{\"state\":\"deleting\",\"robustness\":\"unknown\"}"));
	harness_expect(&h, HEALTH, STATUS_SKIP);
	harness_clear(&h);
}

/* ---- api.longhorn.clone-stuck ---- */

static void test_clone_snap_restore_fail(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = harness_at("2026-09-06T01:35:00Z");
	load_snap_restore(&h);
	const struct finding *f = harness_expect(&h, CLONE, STATUS_FAIL);
	assert_string_equal(f->object, C17_OBJ);
	assert_non_null(strstr(f->message,
			       "will never converge: source volume "
			       "pvc-5c8937fb-8e2a-4d6c-b0f1-7a4e2c9d3b58 no longer exists, "
			       "snapshot snapshot-69ceba6a-3f1d-4c8e-9b2a-5d7e0f4c6a13 no "
			       "longer exists"));
	bool b = true;
	assert_true(kv_get_bool(&f->evidence, "source_snapshot_exists", &b));
	assert_false(b);
	assert_non_null(strstr(kv_get_str(&f->evidence, "age_from"), "creationTimestamp"));
	assert_non_null(strstr(f->remediation, "kubectl delete vm -n default vm-e2e-final"));
	harness_clear(&h);
}

static void test_clone_restore_failed_and_young(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = harness_at("2026-09-06T00:10:00Z");
	harness_load(&h, "storage/volumes-restore-clone-failed.json");
	const struct finding *f = harness_expect(&h, CLONE, STATUS_FAIL);
	assert_non_null(strstr(f->message, "clone state failed"));
	harness_clear(&h);

	/* 49 s after creation: too early to judge (wait for convergence). */
	harness_init(&h);
	h.now_ns = harness_at("2026-09-06T01:27:30Z");
	load_snap_restore(&h);
	f = harness_expect(&h, CLONE, STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "in_progress", &n));
	assert_int_equal(n, 1);
	harness_clear(&h);
}

static void test_clone_sources_present_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = harness_at("2026-09-06T01:35:00Z");
	load_snap_restore(&h);
	harness_load(&h, "storage/volumes-snap-restore-before-gc.json");
	harness_load(&h, "storage/lhsnapshots-snap-restore-before-gc.json");
	harness_expect(&h, CLONE, STATUS_PASS);
	harness_clear(&h);

	/* Completed clones and non-clones. */
	harness_init(&h);
	harness_load(&h, "storage/volumes-healthy.json");
	harness_expect(&h, CLONE, STATUS_SKIP);
	harness_clear(&h);
}

static const char *clone_vol(const char *ds, const char *state, int attempts)
{
	char body[512];
	snprintf(body, sizeof(body),
		 "\"spec\":{\"dataSource\":\"%s\"},\"status\":{\"cloneStatus\":{\"state\":\"%s\","
		 "\"attemptCount\":%d,\"nextAllowedAttemptAt\":\"2026-09-05T13:30:00Z\"}}",
		 ds, state, attempts);
	return lh_obj("Volume", "pvc-c", "\"creationTimestamp\":\"2026-09-05T12:00:00Z\"", body);
}

/* The source of the clones below: volume pvc-src and its snapshot snap-1. */
static void add_clone_source(struct harness *h, bool snapshot)
{
	harness_add(h, lh_obj("Volume", "pvc-src", NULL, NULL));
	if (snapshot)
		harness_add(
		    h, lh_obj("Snapshot", "snap-1", NULL, "\"spec\":{\"volume\":\"pvc-src\"}"));
}

static void test_clone_failed_retry(void **state)
{
	static const struct {
		bool source;
		const char *data_source, *clone_state;
		int attempts;
		enum status want;
	} cases[] = {
	    {true, "snap://pvc-src/snap-1", "failed", 2, STATUS_WARN},
	    {true, "snap://pvc-src/snap-1", "failed", 10, STATUS_FAIL},
	    /* vol:// clone whose source volume is gone. */
	    {false, "vol://pvc-gone", "initiated", 1, STATUS_FAIL},
	    /* 1.10's copy-completed-awaiting-healthy: the data is copied. */
	    {false, "vol://pvc-gone", "copy-completed-awaiting-healthy", 1, STATUS_PASS},
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct harness h;
		harness_init(&h);
		if (cases[i].source)
			add_clone_source(&h, true);
		harness_add(
		    &h, clone_vol(cases[i].data_source, cases[i].clone_state, cases[i].attempts));
		const struct finding *f = harness_expect(&h, CLONE, cases[i].want);
		if (cases[i].want == STATUS_WARN)
			assert_non_null(strstr(f->message, "retries at 2026-09-05T13:30:00Z"));
		harness_clear(&h);
	}
}

static void test_clone_unknown(void **state)
{
	struct harness h;
	static const char *const bad[][2] = {{"http://example/img", "initiated"},
					     {"snap://pvc-src/snap-1", "copying"}};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		harness_init(&h);
		add_clone_source(&h, true);
		harness_add(&h, clone_vol(bad[i][0], bad[i][1], 0));
		harness_expect(&h, CLONE, STATUS_UNKNOWN);
		harness_clear(&h);
	}

	/* Source volume there, Longhorn snapshots not served. */
	harness_init(&h);
	add_clone_source(&h, false);
	cs_set_status(&h.cs, RES_LH_SNAPSHOTS, RES_NOT_INSTALLED, NULL);
	harness_add(&h, clone_vol("snap://pvc-src/snap-1", "initiated", 1));
	harness_expect(&h, CLONE, STATUS_UNKNOWN);
	harness_clear(&h);

	/* No creationTimestamp, cloneStatus null. */
	harness_init(&h);
	harness_add(
	    &h,
	    lh_obj(
		"Volume", "pvc-x", NULL,
		"\"spec\":{\"dataSource\":\"vol://pvc-gone\"},\"status\":{\"cloneStatus\":null}"));
	harness_expect(&h, CLONE, STATUS_UNKNOWN);
	harness_clear(&h);

	harness_init(&h);
	cs_set_status(&h.cs, RES_LH_VOLUMES, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, CLONE, STATUS_SKIP);
	harness_clear(&h);
}

/* A restored volume whose snapshot is gone, after its PVC was deleted: deleting it is the
 * repair clone-stuck asks for, so it is no longer reported. */
static void test_clone_deleting_not_judged(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h,
		    lh_obj("Volume", "pvc-c",
			   "\"creationTimestamp\":\"2026-09-05T12:00:00Z\",\"deletionTimestamp\":"
			   "\"2026-09-05T13:10:00Z\",\"finalizers\":[\"longhorn.io\"]",
			   "\"spec\":{\"dataSource\":\"snap://pvc-gone/snap-1\"},\"status\":{"
			   "\"state\":\"deleting\",\"cloneStatus\":{\"state\":\"initiated\"}}"));
	const struct finding *f = harness_expect(&h, CLONE, STATUS_SKIP);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "being_deleted", &n));
	assert_int_equal(n, 1);
	harness_clear(&h);
}

/* ---- api.longhorn.rwx-share ---- */

static void test_share_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/volumes-healthy.json");
	harness_load(&h, "storage/sharemanagers-healthy.json");
	harness_load(&h, "storage/pods-share-manager-running.json");
	const struct finding *f = harness_expect(&h, SHARE, STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "migratable_rwx", &n));
	assert_int_equal(n, 1);
	harness_clear(&h);
}

static void test_share_image_pull_fail(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/volumes-share-error.json");
	harness_load(&h, "storage/sharemanagers-error.json");
	harness_load(&h, "storage/pods-share-manager-imagepull.json");
	const struct finding *f = harness_expect(&h, SHARE, STATUS_FAIL);
	assert_string_equal(f->object,
			    "Volume/longhorn-system/pvc-7d1e5c2a-3b7f-4a51-9a53-2f1e0c9d4b10");
	assert_non_null(strstr(f->message, "longhorn-share-manager:v1.11.2 cannot be pulled "
					   "(ImagePullBackOff"));
	assert_string_equal(kv_get_str(&f->evidence, "share_state"), "error");
	assert_string_equal(kv_get_str(&f->evidence, "share_manager_state"), "error");
	assert_non_null(strstr(f->remediation, "registries.yaml"));
	harness_clear(&h);
}

static void test_share_rwx_fs_fail_and_skip(void **state)
{
	struct harness h;
	/* What the operators observed: attached, healthy, no endpoint, no pod. */
	harness_init(&h);
	harness_load(&h, "storage/volumes-rwx-fs-nonmigratable.json");
	const struct finding *f = harness_expect(&h, SHARE, STATUS_FAIL);
	assert_non_null(strstr(f->message, "no share-manager pod"));
	assert_non_null(strstr(f->message, "shareEndpoint empty"));
	assert_string_equal(kv_get_str(&f->evidence, "pod"), "does not exist");
	harness_clear(&h);

	/* The right diagnosis: a migratable volume has no share by design. */
	harness_init(&h);
	harness_load(&h, "storage/volumes-rwx-fs.json");
	harness_expect(&h, SHARE, STATUS_SKIP);
	harness_clear(&h);
}

static void test_share_starting_warn(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h, lh_obj("Volume", "pvc-s", NULL,
			       "\"spec\":{\"accessModes\":null,\"accessMode\":\"rwx\","
			       "\"migratable\":\"false\"},\"status\":{\"state\":\"attached\","
			       "\"shareState\":\"starting\",\"shareEndpoint\":\"\"}"));
	harness_add(&h, k8s_obj("v1", "Pod", LONGHORN_NS, "share-manager-pvc-s",
				"\"creationTimestamp\":\"2026-09-05T13:20:14Z\"",
				"\"status\":{\"phase\":\"Pending\",\"containerStatuses\":[{"
				"\"name\":\"share-manager\",\"ready\":false,\"state\":{\"waiting\":"
				"{\"reason\":\"ContainerCreating\"}}}]}"));
	harness_expect(&h, SHARE, STATUS_WARN);
	harness_clear(&h);

	/* Same, but the pod has been pending for an hour. */
	harness_init(&h);
	harness_add(&h, lh_obj("Volume", "pvc-s", NULL,
			       "\"spec\":{\"accessMode\":\"rwx\"},\"status\":{\"state\":"
			       "\"attached\",\"shareState\":\"starting\",\"shareEndpoint\":null}"));
	harness_add(&h, k8s_obj("v1", "Pod", LONGHORN_NS, "share-manager-pvc-s",
				"\"creationTimestamp\":\"2026-09-05T12:20:14Z\"",
				"\"status\":{\"phase\":\"Pending\",\"containerStatuses\":null}"));
	harness_expect(&h, SHARE, STATUS_FAIL);
	harness_clear(&h);
}

/* An RWX volume attached for something other than a pod: Longhorn runs no
 * share-manager then (isShareManagerRequiredForVolume), so none is missing. */
static const char *rwx_attached(const char *name, const char *spec_extra, const char *status_extra,
				const char *kstatus)
{
	static char body[1024];
	snprintf(body, sizeof(body),
		 "\"spec\":{\"accessMode\":\"rwx\",\"migratable\":false%s},\"status\":{"
		 "\"state\":\"attached\",\"robustness\":\"healthy\",\"shareState\":"
		 "\"stopped\",\"shareEndpoint\":\"\",\"kubernetesStatus\":%s%s}",
		 spec_extra, kstatus, status_extra);
	return lh_obj("Volume", name, "\"creationTimestamp\":\"2026-09-01T00:00:00Z\"", body);
}

#define KS_RUNNING                                                                                 \
	"{\"namespace\":\"default\",\"pvcName\":\"shared-data\",\"lastPodRefAt\":\"\","            \
	"\"lastPVCRefAt\":\"\",\"workloadsStatus\":[{\"podName\":\"web-0\",\"podStatus\":"         \
	"\"Running\",\"workloadName\":\"web\",\"workloadType\":\"StatefulSet\"}]}"

static void test_share_attached_without_workload(void **state)
{
	static const struct {
		const char *spec, *status, *kstatus, *reason;
	} cases[] = {
	    /* A recurring backup attached it after the last pod went away. */
	    {"", "",
	     "{\"namespace\":\"default\",\"pvcName\":\"shared-data\",\"lastPodRefAt\":"
	     "\"2026-09-05T09:12:44Z\",\"lastPVCRefAt\":\"\",\"workloadsStatus\":[{\"podName\":"
	     "\"web-0\",\"podStatus\":\"Running\",\"workloadType\":\"StatefulSet\"}]}",
	     "no running pod uses it"},
	    /* Attached from the Longhorn UI in maintenance mode. */
	    {",\"disableFrontend\":true", ",\"frontendDisabled\":true", KS_RUNNING, "maintenance"},
	    {",\"Standby\":true", ",\"isStandby\":true", KS_RUNNING, "DR standby"},
	    {"", ",\"restoreRequired\":true", KS_RUNNING, "restoring"},
	    /* Only a finished Job's pod ever used it. */
	    {"", "",
	     "{\"lastPodRefAt\":\"\",\"lastPVCRefAt\":\"\",\"workloadsStatus\":[{\"podName\":"
	     "\"job-1-x\",\"podStatus\":\"Succeeded\",\"workloadType\":\"Job\"}]}",
	     "no running pod uses it"},
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct harness h;
		harness_init(&h);
		harness_add(
		    &h, rwx_attached("pvc-b", cases[i].spec, cases[i].status, cases[i].kstatus));
		const struct finding *f = harness_expect(&h, SHARE, STATUS_SKIP);
		assert_true(harness_list_has(f, "attached_not_exported", cases[i].reason));
		harness_clear(&h);
	}

	/* Next to a volume that is served: PASS, and the backup-attached one is listed. */
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/volumes-healthy.json");
	harness_load(&h, "storage/sharemanagers-healthy.json");
	harness_load(&h, "storage/pods-share-manager-running.json");
	harness_add(
	    &h, rwx_attached("pvc-b", "", "", "{\"lastPodRefAt\":\"\",\"workloadsStatus\":null}"));
	const struct finding *f = harness_expect(&h, SHARE, STATUS_PASS);
	assert_true(harness_list_has(f, "attached_not_exported", "pvc-b: no running pod"));
	harness_clear(&h);

	/* The same volume with a running pod is judged: no share-manager → FAIL. */
	harness_init(&h);
	harness_add(&h, rwx_attached("pvc-b", "", "", KS_RUNNING));
	f = harness_expect(&h, SHARE, STATUS_FAIL);
	assert_non_null(strstr(f->message, "shareState stopped"));
	harness_clear(&h);

	/* Being deleted: not judged. */
	harness_init(&h);
	harness_add(
	    &h, lh_obj("Volume", "pvc-d", "\"deletionTimestamp\":\"2026-09-05T13:00:00Z\"",
		       "\"spec\":{\"accessMode\":\"rwx\"},\"status\":{\"state\":"
		       "\"attached\",\"shareState\":\"stopping\",\"kubernetesStatus\":" KS_RUNNING
		       "}"));
	harness_expect(&h, SHARE, STATUS_SKIP);
	harness_clear(&h);
}

static void test_share_unknown_skip(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/volumes-healthy.json");
	cs_set_status(&h.cs, RES_PODS, RES_FORBIDDEN, "403");
	harness_expect(&h, SHARE, STATUS_UNKNOWN);
	harness_clear(&h);

	harness_init(&h);
	cs_set_status(&h.cs, RES_LH_VOLUMES, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_LH_SHAREMANAGERS, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, SHARE, STATUS_SKIP);
	harness_clear(&h);
}

/* ---- api.longhorn.node-disk ---- */

static void test_disk_rwx_fs_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/lhnodes-rwx-fs.json");
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	const struct finding *f = harness_expect(&h, DISK, STATUS_PASS);
	assert_true(harness_list_has(f, "disks",
				     "sza122100.local: default-disk-333344440001 "
				     "/var/lib/longhorn/: available 102.7 GiB of 118.7 GiB"));
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "default_replica_count", &n));
	assert_int_equal(n, 3);
	harness_clear(&h);
}

/* Longhorn 1.10's data-engine JSON may configure the v2 engine only
 * ({"v2":"2"}, longhorn/website#1172): the v1 disks keep the default 3. The old
 * reader called that unreadable (UNKNOWN). */
static void test_disk_replica_count_v2_only(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/lhnodes-rwx-fs.json");
	harness_add(&h, lh_setting("default-replica-count", "\"{\\\"v2\\\":\\\"2\\\"}\""));
	harness_run(&h, DISK);
	const struct finding *f = harness_finding(&h, DISK, NULL);
	assert_int_not_equal(f->status, STATUS_UNKNOWN);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "default_replica_count", &n));
	assert_int_equal(n, 3);
	harness_clear(&h);
}

static void test_disk_pressure_fail(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/lhnodes-disk-pressure.json");
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_run(&h, DISK);
	assert_int_equal(h.out.n, 2);
	const struct finding *f = harness_finding(&h, DISK, "Node/longhorn-system/sza122102.local");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "no schedulable disk"));
	assert_non_null(strstr(f->message, "Minimal Available Percentage: 25%"));
	/* Two schedulable nodes for three replicas: new volumes come up degraded. */
	f = &h.out.items[1];
	assert_null(f->object);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "default-replica-count is 3"));
	harness_clear(&h);

	/* With soft anti-affinity, replicas may share a node: no count warning. */
	harness_init(&h);
	harness_load(&h, "storage/lhnodes-disk-pressure.json");
	harness_add(&h, lh_setting("replica-soft-anti-affinity", "\"true\""));
	harness_run(&h, DISK);
	assert_int_equal(h.out.n, 1);
	harness_clear(&h);
}

/* Longhorn's replica scheduler only takes nodes with Ready=True and Schedulable=True
 * (longhorn-manager datastore ListReadyAndSchedulableNodesRO). A node whose kubelet
 * stopped keeps its last disk conditions (True): its disks must not count. A cordoned
 * node (Schedulable=False KubernetesNodeCordoned) takes no new replica either. */
static void test_disk_node_down_and_cordoned(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/lhnodes-node-down-cordoned.json");
	harness_load(&h, "storage/settings-longhorn-1.11.json");
	harness_run(&h, DISK);
	const struct finding *f = harness_finding(&h, DISK, "Node/longhorn-system/sza122102.local");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "not Ready"));
	assert_non_null(strstr(f->message, "KubernetesNodeNotReady"));
	f = harness_finding(&h, DISK, "Node/longhorn-system/sza122101.local");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "Node sza122101.local is cordoned"));
	/* one node left for three replicas */
	bool count_warn = false;
	for (size_t i = 0; i < h.out.n; i++)
		if (!h.out.items[i].object &&
		    strstr(h.out.items[i].message, "1 Longhorn node has a "
						   "schedulable disk"))
			count_warn = h.out.items[i].status == STATUS_WARN;
	assert_true(count_warn);
	harness_clear(&h);
}

static void test_disk_low_and_over_warn(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "storage/lhnodes-rwx-fs.json");
	harness_add(&h, lh_setting("storage-minimal-available-percentage", "\"90\""));
	harness_run(&h, DISK);
	assert_int_equal(h.out.n, 3);
	for (size_t i = 0; i < h.out.n; i++) {
		assert_int_equal(h.out.items[i].status, STATUS_WARN);
		assert_non_null(strstr(h.out.items[i].message, "below the 90% minimum"));
	}
	harness_clear(&h);

	harness_init(&h);
	harness_load(&h, "storage/lhnodes-rwx-fs.json");
	harness_add(&h, lh_setting("storage-over-provisioning-percentage", "\"5\""));
	harness_run(&h, DISK);
	assert_int_equal(h.out.n, 3);
	assert_non_null(strstr(h.out.items[0].message, "exceeds 5%"));
	harness_clear(&h);
}

static const char *lh_node(const char *name, const char *spec, const char *status)
{
	char body[2048];
	snprintf(body, sizeof(body), "\"spec\":%s,\"status\":%s", spec, status);
	return lh_obj("Node", name, NULL, body);
}

static void test_disk_config_unknown(void **state)
{
	struct harness h;
	harness_init(&h);
#define READY "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]"
	harness_add(
	    &h, lh_node("n0", "{\"allowScheduling\":false,\"disks\":{\"d\":{}}}",
			"{" READY ",\"diskStatus\":{\"d\":{\"storageAvailable\":\"100\","
			"\"storageMaximum\":200,\"storageScheduled\":0,\"conditions\":[{\"type\":"
			"\"Schedulable\",\"status\":\"False\"}]}}}"));
	harness_add(&h, lh_node("n1", "{\"disks\":{}}", "{" READY "}"));
	harness_add(&h, lh_node("n2", "{\"disks\":{\"d\":{\"allowScheduling\":true}}}",
				"{" READY ",\"diskStatus\":null}"));
	harness_add(&h, lh_node("n3", "{\"disks\":[1,2]}", "{" READY "}"));
	/* no status at all: whether Longhorn would use the node is unknown */
	harness_add(&h, lh_node("n4", "{\"disks\":{}}", "null"));
#undef READY
	harness_add(&h, lh_setting("default-replica-count", "\"{\\\"v1\\\":\\\"1\\\"}\""));
	harness_run(&h, DISK);
	assert_int_equal(harness_finding(&h, DISK, "Node/longhorn-system/n0")->status, STATUS_WARN);
	assert_non_null(strstr(harness_finding(&h, DISK, "Node/longhorn-system/n0")->message,
			       "by configuration"));
	assert_int_equal(harness_finding(&h, DISK, "Node/longhorn-system/n1")->status, STATUS_WARN);
	assert_int_equal(harness_finding(&h, DISK, "Node/longhorn-system/n2")->status,
			 STATUS_UNKNOWN);
	assert_int_equal(harness_finding(&h, DISK, "Node/longhorn-system/n3")->status, STATUS_WARN);
	assert_int_equal(harness_finding(&h, DISK, "Node/longhorn-system/n4")->status,
			 STATUS_UNKNOWN);
	/* default-replica-count 1 and no schedulable node: the count warning too. */
	assert_int_equal(h.out.n, 6);
	harness_clear(&h);

	/* An unreadable setting makes the whole check UNKNOWN. */
	harness_init(&h);
	harness_load(&h, "storage/lhnodes-rwx-fs.json");
	harness_add(&h, lh_setting("storage-over-provisioning-percentage", "200"));
	harness_expect(&h, DISK, STATUS_UNKNOWN);
	harness_clear(&h);
}

static void test_disk_install_states(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_preinstall(&h);
	cs_set_status(&h.cs, RES_LH_NODES, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_LH_SETTINGS, RES_NOT_INSTALLED, NULL);
	harness_expect(&h, DISK, STATUS_SKIP);
	harness_clear(&h);

	harness_init(&h);
	harness_expect(&h, DISK, STATUS_FAIL);
	assert_non_null(strstr(harness_only(&h, DISK)->message, "no Longhorn node"));
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ref_parse),
	    cmocka_unit_test(test_version_and_int_parse),
	    cmocka_unit_test(test_health_healthy_pass),
	    cmocka_unit_test(test_health_snap_restore_degraded_warn),
	    cmocka_unit_test(test_health_restore_clone_failed),
	    cmocka_unit_test(test_health_faulted_and_err_modes),
	    cmocka_unit_test(test_health_unknown_and_settling),
	    cmocka_unit_test(test_health_skip_and_install_states),
	    cmocka_unit_test(test_health_deleting_not_judged),
	    cmocka_unit_test(test_health_degraded_vm_history),
	    cmocka_unit_test(test_health_clone_awaiting_healthy),
	    cmocka_unit_test(test_clone_snap_restore_fail),
	    cmocka_unit_test(test_clone_restore_failed_and_young),
	    cmocka_unit_test(test_clone_sources_present_pass),
	    cmocka_unit_test(test_clone_failed_retry),
	    cmocka_unit_test(test_clone_unknown),
	    cmocka_unit_test(test_clone_deleting_not_judged),
	    cmocka_unit_test(test_share_pass),
	    cmocka_unit_test(test_share_image_pull_fail),
	    cmocka_unit_test(test_share_rwx_fs_fail_and_skip),
	    cmocka_unit_test(test_share_starting_warn),
	    cmocka_unit_test(test_share_attached_without_workload),
	    cmocka_unit_test(test_share_unknown_skip),
	    cmocka_unit_test(test_disk_rwx_fs_pass),
	    cmocka_unit_test(test_disk_pressure_fail),
	    cmocka_unit_test(test_disk_replica_count_v2_only),
	    cmocka_unit_test(test_disk_node_down_and_cordoned),
	    cmocka_unit_test(test_disk_low_and_over_warn),
	    cmocka_unit_test(test_disk_config_unknown),
	    cmocka_unit_test(test_disk_install_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
