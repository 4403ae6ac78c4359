/*
 * Failures seen in the field in the KubeVirt / VM / platform / pre-install area,
 * replayed on objects modelled on their real outputs: what hvready says, and
 * that it says it for the reason the operators found (the rules are in
 * docs/checks/).
 */
#include "agg_harness.h"

/* 2026-09-05T14:10:00Z and 2026-09-06T01:49:11Z (the operators' own health check). */
#define T_1410 (INT64_C(1788617400) * NSEC_PER_SEC)
#define T_0149 (INT64_C(1788659351) * NSEC_PER_SEC)

static void harvester(struct harness *h)
{
	harness_init(h);
	harness_load(h, "kubevirt/harvester-installed.json");
}

static void before_install(struct harness *h)
{
	harness_init(h);
	cs_set_status(&h->cs, RES_HV_SETTINGS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h->cs, RES_HV_VMIMAGES, RES_NOT_INSTALLED, NULL);
	harness_load(h, "kubevirt/rke2-cluster.json");
}

static size_t count_status(struct harness *h, enum status st)
{
	size_t n = 0;
	for (size_t i = 0; i < h->out.n; i++)
		n += h->out.items[i].status == st;
	return n;
}

/* "snapshot feature gate not enabled", three layers. */
static void test_snapshot_gate_three_layers(void **state)
{
	struct harness h;
	/* layer 2a: the gate spelled "Snapshots" — in the CR, yet ignored */
	harvester(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshots-typo.json");
	harness_run(&h, "api.kubevirt.snapshot-gate");
	const struct finding *f = harness_finding(&h, "api.kubevirt.snapshot-gate", NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "\"Snapshots\""));
	harness_clear(&h);

	/* layer 2b: the right name under kubevirt.configuration (no spec): never rendered */
	harvester(&h);
	harness_load(&h, "kubevirt/kubevirt-harvester-1.8.2.json");
	harness_load(&h, "kubevirt/harvester-helmchart-values-path.json");
	harness_run(&h, "api.kubevirt.snapshot-gate");
	f = harness_finding(&h, "api.kubevirt.snapshot-gate", NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "kubevirt.configuration.developerConfiguration"));
	assert_non_null(
	    strstr(f->remediation, "kubevirt.spec.configuration.developerConfiguration"));
	harness_clear(&h);

	/* layer 3: CR fixed at 23:33, Deployed, observedGeneration caught up — but virt-api
	 * started at 13:20:44 still has the old gates */
	harvester(&h);
	h.now_ns = T_0149;
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on.json");
	harness_load(&h, "kubevirt/virt-api-pods-before-change.json");
	harness_load(&h, "kubevirt/cdi.json");
	harness_run(&h, "api.kubevirt.snapshot-gate");
	assert_int_equal(harness_status(&h, "api.kubevirt.snapshot-gate"), STATUS_PASS);
	harness_run(&h, "api.kubevirt.available");
	assert_int_equal(harness_status(&h, "api.kubevirt.available"), STATUS_PASS);
	harness_run(&h, "api.kubevirt.gate-stale");
	f = harness_finding(&h, "api.kubevirt.gate-stale", NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(
	    strstr(f->message, "virt-api-7ddcb4b77b-wbtk5 started=2026-09-05T13:20:44Z"));
	assert_non_null(strstr(f->remediation, "delete pod"));
	harness_clear(&h);

	/* after deleting the pods one by one */
	harvester(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on.json");
	harness_load(&h, "kubevirt/virt-api-pods-after-restart.json");
	harness_run(&h, "api.kubevirt.gate-stale");
	assert_int_equal(harness_status(&h, "api.kubevirt.gate-stale"), STATUS_PASS);
	harness_clear(&h);
}

/* DisksNotLiveMigratable — an RWO disk, even on a migratable class. */
static void test_disks_not_live_migratable(void **state)
{
	struct harness h;
	harvester(&h);
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_load(&h, "kubevirt/vm-cirros-test-rwo.json");
	harness_run(&h, "api.vm.live-migratable");
	const struct finding *f = harness_finding(&h, "api.vm.live-migratable", NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message,
			       "PVC vm-cirros-test-disk-0 is not shared, live migration "
			       "requires that all PVCs must be shared"));
	assert_int_equal(h.vms.n, 1);
	assert_string_equal(h.vms.items[0].name, "vm-cirros-test");
	assert_false(h.vms.items[0].can_migrate);
	/* the class is migratable: that is not enough, and the reason says RWO */
	bool rwo = false;
	for (size_t i = 0; i < h.vms.items[0].reasons.n; i++)
		rwo |= strstr(h.vms.items[0].reasons.items[i], "ReadWriteOnce") != NULL;
	assert_true(rwo);
	/* cold migration is the fallback used on site */
	assert_non_null(strstr(f->remediation, "cold migration"));
	harness_clear(&h);
}

/* API side: RWX + Block import, importer "Permission denied" on the block device. */
static void test_rwx_block_importer(void **state)
{
	struct harness h;
	harvester(&h);
	harness_load(&h, "kubevirt/dv-rwx-block-permission.json");
	harness_add(&h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachine\",\"metadata\":"
		    "{\"name\":\"vm-demo\",\"namespace\":\"default\"},\"spec\":{\"runStrategy\":"
		    "\"Always\"},\"status\":{\"printableStatus\":\"DataVolumeError\"}}");
	harness_run(&h, "api.cdi.import-source");
	const struct finding *f = harness_finding(&h, "api.cdi.import-source", NULL);
	assert_int_equal(f->status, STATUS_WARN);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "restarts", &n));
	assert_int_equal(n, 3);
	assert_non_null(strstr(harness_ev(f, "last_error"),
			       "cannot open /dev/cdi-block-volume: Permission "
			       "denied"));
	/* not a Longhorn limitation: the host fix (docs/checks/host.containerd.device-ownership.md) */
	assert_non_null(strstr(f->remediation, "nonroot-devices: true"));
	/* no VMI runs: nothing to live-migrate */
	harness_run(&h, "api.vm.live-migratable");
	assert_int_equal(harness_status(&h, "api.vm.live-migratable"), STATUS_SKIP);
	harness_clear(&h);
}

/* Running and runStrategy are mutually exclusive; stop is Halted. */
static void test_run_strategy(void **state)
{
	struct harness h;
	harvester(&h);
	harness_load(&h, "kubevirt/vm-running-deprecated.json");
	harness_load(&h, "kubevirt/vm-both-running-and-strategy.json");
	harness_run(&h, "api.vm.run-strategy");
	const struct finding *f =
	    harness_finding(&h, "api.vm.run-strategy", "VirtualMachine/default/vm-rwo-blank-test");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->remediation, "{\"spec\":{\"runStrategy\":\"Halted\"}}"));
	f = harness_finding(&h, "api.vm.run-strategy", "VirtualMachine/default/vm-legacy");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "running and runstrategy are mutually exclusive"));
	harness_clear(&h);
}

/* Harvester-aggregation dials /v3/connect — Rancher noise, not a failure. */
static void test_rancher_noise(void **state)
{
	struct harness h;
	harvester(&h);
	harness_load(&h, "kubevirt/apiservices.json");
	harness_run(&h, "api.apiservices");
	assert_int_equal(harness_status(&h, "api.apiservices"), STATUS_WARN);
	assert_int_equal(count_status(&h, STATUS_FAIL), 0);
	const struct finding *f =
	    harness_finding(&h, "api.apiservices", "APIService/v1.ext.cattle.io");
	assert_non_null(strstr(f->message, "without embedded Rancher"));
	harness_clear(&h);
}

/* An Internet image stuck at 99.62%, the importer restarted. */
static void test_import_from_internet(void **state)
{
	struct harness h;
	harvester(&h);
	harness_load(&h, "kubevirt/dv-cirros-http-99.json");
	harness_load(&h, "kubevirt/dv-blank-succeeded.json");
	harness_run(&h, "api.cdi.import-source");
	const struct finding *f = harness_finding(&h, "api.cdi.import-source", NULL);
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(f->object, "DataVolume/default/vm-cirros-disk-0");
	assert_non_null(strstr(f->message, "download.cirros-cloud.net"));
	assert_non_null(strstr(f->message, "99.62%"));
	assert_non_null(strstr(harness_ev(f, "last_error"), "nbdkit: curl"));
	assert_non_null(strstr(f->remediation, "VirtualMachineImage"));
	/* the blank-source disk that worked is not flagged */
	assert_int_equal(h.out.n, 1);
	harness_clear(&h);
}

/* A field health script gave 7 false FAILs. On the same healthy cluster hvready
 * reports none: JSON is parsed (not grepped), webhook entries are looked up inside the
 * configurations, readiness/restarts are counted, ages are not statuses. */
static void test_no_false_alarms(void **state)
{
	struct harness h;
	harvester(&h);
	h.now_ns = T_0149;
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on.json");
	harness_load(&h, "kubevirt/cdi.json");
	harness_load(&h, "kubevirt/webhooks-validating.json");
	harness_load(&h, "kubevirt/webhooks-mutating.json");
	harness_load(&h, "kubevirt/apiservices.json");
	harness_load(&h, "kubevirt/pods-harvester-restarted.json");
	harness_load(&h, "kubevirt/virt-api-pods-after-restart.json");
	harness_load(&h, "kubevirt/storageclasses.json");
	harness_load(&h, "kubevirt/vm-e2e-rwx-block.json");
	/* (harness_run keeps only the findings of the check it ran: judge each in turn) */
	static const struct {
		const char *id;
		enum status want;
	} expect[] = {
	    /* "KubeVirt Available=unknown", "CDI Available=unknown": both read correctly */
	    {"api.kubevirt.available", STATUS_PASS},
	    /* "featureGates lacks Snapshot": it does not */
	    {"api.kubevirt.snapshot-gate", STATUS_PASS},
	    {"api.kubevirt.gate-stale", STATUS_PASS},
	    /* "missing webhook validator.harvesterhci.io / mutator.harvesterhci.io" */
	    {"api.webhooks.harvester", STATUS_PASS},
	    /* the 10 historic harvester restarts and the Rancher APIService stay WARN */
	    {"api.pods.restarts", STATUS_WARN},
	    {"api.apiservices", STATUS_WARN},
	    /* "abnormal VM default/vm-e2e-demo=78s": 78s was the AGE column */
	    {"api.vm.live-migratable", STATUS_PASS},
	    {"api.vm.run-strategy", STATUS_PASS},
	};
	for (size_t i = 0; i < ELEMENTSOF(expect); i++) {
		harness_run(&h, expect[i].id);
		assert_int_equal(count_status(&h, STATUS_FAIL), 0);
		assert_int_equal(count_status(&h, STATUS_UNKNOWN), 0);
		assert_int_equal(harness_status(&h, expect[i].id), expect[i].want);
	}
	harness_clear(&h);
}

/* Harvester restarted 10 times, exit 1 (not OOM), VSC longhorn missing at start. */
static void test_restarts_history_vs_now(void **state)
{
	struct harness h;
	harvester(&h);
	h.now_ns = T_1410;
	harness_load(&h, "kubevirt/pods-harvester-restarted.json");
	harness_run(&h, "api.pods.restarts");
	assert_int_equal(harness_status(&h, "api.pods.restarts"), STATUS_FAIL);
	const struct finding *f = harness_finding(&h, "api.pods.restarts", NULL);
	assert_non_null(strstr(f->message, "not OOM"));
	assert_non_null(strstr(f->remediation, "--previous"));
	assert_non_null(strstr(f->remediation, "VolumeSnapshotClass longhorn"));
	harness_clear(&h);

	/* 12 hours later without new crashes: history (finishedAt is UTC, compared in UTC) */
	harvester(&h);
	h.now_ns = T_0149;
	harness_load(&h, "kubevirt/pods-harvester-restarted.json");
	harness_run(&h, "api.pods.restarts");
	assert_int_equal(harness_status(&h, "api.pods.restarts"), STATUS_WARN);
	f = harness_finding(&h, "api.pods.restarts", NULL);
	assert_string_equal(harness_ev(f, "ago"), "11h50m");
	harness_clear(&h);
}

/* Pre-install: detect clusterDNS / clusterPodCIDR (normalised to /16) / clusterServiceCIDR. */
static void test_001_s2_2_cidrs(void **state)
{
	struct harness h;
	before_install(&h);
	harness_run(&h, "api.preinstall.cidrs");
	const struct finding *f = harness_finding(&h, "api.preinstall.cidrs", NULL);
	assert_int_equal(f->status, STATUS_PASS);
	/* node 0's podCIDR is 10.42.6.0/24: the values never take a node's /24 */
	assert_string_equal(harness_ev(f, "values"), "promote:\n"
						     "  clusterDNS: 10.43.0.10\n"
						     "  clusterPodCIDR: 10.42.0.0/16\n"
						     "  clusterServiceCIDR: 10.43.0.0/16\n");
	harness_clear(&h);

	/* the mistake the runbook warns about, in a HelmChart: FAIL */
	before_install(&h);
	harness_load(&h, "kubevirt/harvester-helmchart-values-wrong-cidr.json");
	harness_run(&h, "api.preinstall.cidrs");
	assert_int_equal(harness_status(&h, "api.preinstall.cidrs"), STATUS_FAIL);
	harness_clear(&h);
}

/* Pre-install: conflicts with what the cluster already runs. */
static void test_001_s2_3_conflicts(void **state)
{
	struct harness h;
	before_install(&h);
	harness_run(&h, "api.preinstall.conflicts");
	assert_int_equal(harness_status(&h, "api.preinstall.conflicts"), STATUS_WARN);
	size_t warns = count_status(&h, STATUS_WARN);
	assert_int_equal(warns, 2); /* rke2-snapshot-controller, no ingress-nginx */
	harness_clear(&h);

	/* an existing KubeVirt: one cluster, one virt-operator */
	before_install(&h);
	harness_load(&h, "kubevirt/existing-kubevirt.json");
	harness_load(&h, "kubevirt/existing-longhorn-1.10.json");
	harness_run(&h, "api.preinstall.conflicts");
	assert_int_equal(harness_status(&h, "api.preinstall.conflicts"), STATUS_FAIL);
	const struct finding *f = harness_finding(&h, "api.preinstall.conflicts",
						  "DaemonSet/longhorn-system/longhorn-manager");
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "harvester_ships"), "Longhorn 1.11.2 (Harvester v1.8.2)");
	harness_clear(&h);
}

/* Pre-install: promote vs official install — the same cluster before and after. */
static void test_001_s2_4_before_and_after_install(void **state)
{
	static const char *const pre[] = {"api.preinstall.conflicts", "api.preinstall.cidrs"};
	static const char *const plat[] = {"api.webhooks.harvester", "api.harvester.endpoint"};
	struct harness h;
	before_install(&h);
	h.live = true;
	for (size_t i = 0; i < ELEMENTSOF(pre); i++) {
		harness_run(&h, pre[i]);
		assert_int_not_equal(harness_status(&h, pre[i]), STATUS_SKIP);
	}
	for (size_t i = 0; i < ELEMENTSOF(plat); i++) {
		harness_run(&h, plat[i]);
		assert_int_equal(harness_status(&h, plat[i]), STATUS_SKIP);
	}
	harness_clear(&h);

	/* after `helm install`: Harvester's own KubeVirt/Longhorn/snapshot pieces are no
	 * conflict, the platform checks take over */
	before_install(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_load(&h, "kubevirt/webhooks-validating.json");
	harness_load(&h, "kubevirt/webhooks-mutating.json");
	for (size_t i = 0; i < ELEMENTSOF(pre); i++) {
		harness_run(&h, pre[i]);
		assert_int_equal(harness_status(&h, pre[i]), STATUS_SKIP);
	}
	harness_run(&h, "api.webhooks.harvester");
	assert_int_equal(harness_status(&h, "api.webhooks.harvester"), STATUS_PASS);
	/* offline the endpoint is not probed */
	harness_run(&h, "api.harvester.endpoint");
	assert_int_equal(harness_status(&h, "api.harvester.endpoint"), STATUS_SKIP);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_snapshot_gate_three_layers),
	    cmocka_unit_test(test_disks_not_live_migratable),
	    cmocka_unit_test(test_rwx_block_importer),
	    cmocka_unit_test(test_run_strategy),
	    cmocka_unit_test(test_rancher_noise),
	    cmocka_unit_test(test_import_from_internet),
	    cmocka_unit_test(test_no_false_alarms),
	    cmocka_unit_test(test_restarts_history_vs_now),
	    cmocka_unit_test(test_001_s2_2_cidrs),
	    cmocka_unit_test(test_001_s2_3_conflicts),
	    cmocka_unit_test(test_001_s2_4_before_and_after_install),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
