/* api.kubevirt.snapshot-gate, api.kubevirt.gate-stale, api.kubevirt.available. */
#include "agg_harness.h"

#define GATE  "api.kubevirt.snapshot-gate"
#define STALE "api.kubevirt.gate-stale"
#define AVAIL "api.kubevirt.available"
#define KV    "KubeVirt/harvester-system/kubevirt"

/* 2026-09-06T01:49:11Z: the field report's "now" (710 minutes after the last harvester crash). */
#define SEED_NOW (INT64_C(1788659351) * NSEC_PER_SEC)

static void installed(struct harness *h)
{
	harness_load(h, "kubevirt/harvester-installed.json");
}

/* ---- snapshot-gate ---- */

static void test_gate_not_installed(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_preinstall(&h);
	cs_set_status(&h.cs, RES_KUBEVIRTS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_VM_SNAPSHOTS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_VM_RESTORES, RES_NOT_INSTALLED, NULL);
	harness_run(&h, GATE);
	assert_int_equal(harness_status(&h, GATE), STATUS_SKIP);
	assert_non_null(strstr(harness_finding(&h, GATE, NULL)->message, "not installed"));
	harness_clear(&h);

	/* collected but empty */
	harness_init(&h);
	installed(&h);
	harness_run(&h, GATE);
	assert_int_equal(harness_status(&h, GATE), STATUS_SKIP);
	harness_clear(&h);

	/* not collected: the engine says UNKNOWN */
	harness_init(&h);
	cs_set_status(&h.cs, RES_KUBEVIRTS, RES_NOT_COLLECTED, "no file");
	harness_run(&h, GATE);
	assert_int_equal(harness_status(&h, GATE), STATUS_UNKNOWN);
	harness_clear(&h);
}

static void test_gate_off_warn_and_fail(void **state)
{
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-harvester-1.8.2.json");
	harness_run(&h, GATE);
	const struct finding *f = harness_finding(&h, GATE, KV);
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "snapshot_gate"), "off");
	assert_string_equal(harness_ev(f, "kubevirt_version"), "1.7.4-150700.3.24.2");
	assert_string_equal(harness_ev(f, "version_from"), "status.observedKubeVirtVersion");
	assert_non_null(strstr(f->message, "Harvester's own VM backups do not need it"));
	/* Helm-managed CR, no HelmChart: the remedy is the helm --set used on site, with every
	 * current gate kept */
	assert_non_null(strstr(f->remediation,
			       "--set 'kubevirt.spec.configuration.developerConfiguration."
			       "featureGates={CPUManager,DeclarativeHotplugVolumes,ExpandDisks,"
			       "EnableVirtioFsConfigVolumes,HostDevices,Snapshot}'"));
	assert_non_null(strstr(f->remediation, "kubectl -n harvester-system delete pod"));
	assert_non_null(strstr(f->remediation, "--dry-run=server"));
	harness_clear(&h);

	/* the same with VM snapshots in use: FAIL */
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-harvester-1.8.2.json");
	harness_load(&h, "kubevirt/vmsnapshot-vm-cirros.json");
	harness_run(&h, GATE);
	f = harness_finding(&h, GATE, KV);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "1 VirtualMachineSnapshot"));
	assert_non_null(strstr(f->message, "snapshot feature gate not enabled"));
	harness_clear(&h);
}

static void test_gate_near_miss_plural(void **state)
{
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshots-typo.json");
	harness_run(&h, GATE);
	const struct finding *f = harness_finding(&h, GATE, KV);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "gate \"Snapshots\""));
	assert_non_null(strstr(f->message, "singular"));
	/* the remedy's list drops the near miss and adds the real gate */
	assert_non_null(strstr(f->remediation, "HostDevices,Snapshot}"));
	assert_null(strstr(f->remediation, "Snapshots"));
	harness_clear(&h);

	/* lower case and stray blanks count too; not-a-string entries are ignored */
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
			"{\"name\":\"kv\",\"namespace\":\"kubevirt\"},\"spec\":{\"configuration\":"
			"{\"developerConfiguration\":{\"featureGates\":[\" Snapshot\",7,null]}}},"
			"\"status\":{\"observedKubeVirtVersion\":\"v1.5.2\"}}");
	harness_run(&h, GATE);
	f = harness_finding(&h, GATE, "KubeVirt/kubevirt/kv");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "\" Snapshot\""));
	/* not Helm-managed: a merge patch with the whole list */
	assert_non_null(
	    strstr(f->remediation, "kubectl -n kubevirt patch kubevirt kv --type=merge"));
	assert_non_null(strstr(f->remediation, "[\"Snapshot\"]"));
	harness_clear(&h);
}

static void test_gate_values_path(void **state)
{
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-harvester-1.8.2.json");
	harness_load(&h, "kubevirt/harvester-helmchart-values-path.json");
	harness_run(&h, GATE);
	const struct finding *f = harness_finding(&h, GATE, KV);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(
	    strstr(f->message,
		   "kubevirt.configuration.developerConfiguration.featureGates: never rendered"));
	assert_non_null(strstr(f->remediation, "HelmChart kube-system/harvester"));
	assert_string_equal(harness_ev(f, "helm_values"), "HelmChart kube-system/harvester");
	harness_clear(&h);
}

static void test_gate_on(void **state)
{
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on.json");
	harness_load(&h, "kubevirt/vmsnapshot-vm-cirros.json");
	harness_run(&h, GATE);
	const struct finding *f = harness_finding(&h, GATE, KV);
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(harness_ev(f, "decided_by"), "listed in featureGates");
	harness_clear(&h);

	/* with a HelmChart that carries it at the right path: still PASS */
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on.json");
	harness_load(&h, "kubevirt/harvester-helmchart-values-ok.json");
	harness_run(&h, GATE);
	assert_int_equal(harness_status(&h, GATE), STATUS_PASS);
	harness_clear(&h);

	/* on now (kubectl patch) but the values would drop it at the next upgrade: WARN */
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on.json");
	harness_load(&h, "kubevirt/harvester-helmchart-values-path.json");
	harness_run(&h, GATE);
	f = harness_finding(&h, GATE, KV);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "next helm upgrade"));
	harness_clear(&h);
}

/* A HelmChart spec.set "{A,...,Snapshot}" (k3s-io/helm-controller chart.go escapes
 * the commas for --set-string): helm renders one gate named "A,...,Snapshot", which
 * KubeVirt ignores. The CR looks listed to a reader who splits at commas. */
static void test_gate_comma_joined_from_spec_set(void **state)
{
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-gates-comma-joined.json");
	harness_load(&h, "kubevirt/harvester-helmchart-set-gates.json");
	harness_run(&h, GATE);
	const struct finding *f = harness_finding(&h, GATE, KV);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(harness_ev(f, "snapshot_gate"), "off");
	assert_non_null(strstr(f->message, "one name with commas"));
	assert_true(harness_list_has(f, "near_misses", "in the Helm values"));
	/* the remedy lists the meant gates one by one, Snapshot among them */
	assert_non_null(strstr(f->remediation,
			       "[CPUManager,DeclarativeHotplugVolumes,ExpandDisks,"
			       "EnableVirtioFsConfigVolumes,HostDevices,Snapshot]"));
	harness_clear(&h);
}

/* A KubeVirt CR as virt-operator leaves it (status.observedKubeVirtVersion),
 * with the given developerConfiguration members. */
static const char *kv_at(const char *version, const char *dev)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":{\"name\":"
		 "\"kubevirt\",\"namespace\":\"kubevirt\"},\"spec\":{\"configuration\":{"
		 "\"developerConfiguration\":{%s}}},\"status\":{\"phase\":\"Deployed\","
		 "\"observedKubeVirtVersion\":\"%s\",\"operatorVersion\":\"%s\"}}",
		 dev, version, version);
	return buf;
}

static const char *const vm_snapshot =
    "{\"apiVersion\":\"snapshot.kubevirt.io/v1beta1\",\"kind\":\"VirtualMachineSnapshot\","
    "\"metadata\":{\"name\":\"snap1\",\"namespace\":\"default\"},\"spec\":{\"source\":{"
    "\"apiGroup\":\"kubevirt.io\",\"kind\":\"VirtualMachine\",\"name\":\"vm1\"}},"
    "\"status\":{\"phase\":\"Succeeded\",\"readyToUse\":true}}";

static const struct finding *gate_at(struct harness *h, const char *version, const char *dev,
				     bool with_snapshot)
{
	harness_init(h);
	harness_add(h, kv_at(version, dev));
	if (with_snapshot)
		harness_add(h, vm_snapshot);
	harness_run(h, GATE);
	return harness_finding(h, GATE, "KubeVirt/kubevirt/kubevirt");
}

/* Beta gates are on by default only from v1.9 (featuregate.IsEnabled, VEP 229);
 * on v1.8 disabledFeatureGates exists but Beta is still off unless listed. */
static void test_gate_per_release(void **state)
{
	struct harness h;
	/* 1.8, not listed, VM snapshots exist: off → FAIL (was a PASS "on by default since 1.8") */
	const struct finding *f = gate_at(&h, "v1.8.1", "\"featureGates\":[]", true);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(harness_ev(f, "snapshot_gate"), "off");
	assert_non_null(strstr(harness_ev(f, "decided_by"), "before 1.9"));
	assert_null(strstr(f->message, "hvready knows"));
	harness_clear(&h);

	/* 1.7 likewise */
	f = gate_at(&h, "v1.7.4", "\"featureGates\":[\"LiveMigration\"]", true);
	assert_int_equal(f->status, STATUS_FAIL);
	harness_clear(&h);

	/* 1.7, listed: on */
	f = gate_at(&h, "v1.7.4", "\"featureGates\":[\"Snapshot\"]", true);
	assert_int_equal(f->status, STATUS_PASS);
	harness_clear(&h);

	/* 1.9, not listed: Beta on by default */
	f = gate_at(&h, "v1.9.0", "\"featureGates\":[]", true);
	assert_int_equal(f->status, STATUS_PASS);
	assert_non_null(strstr(f->message, "on by default"));
	harness_clear(&h);

	/* 1.9, in disabledFeatureGates: off */
	f = gate_at(&h, "v1.9.0", "\"disabledFeatureGates\":[\"Snapshot\"]", true);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(harness_ev(f, "decided_by"), "listed in disabledFeatureGates");
	assert_non_null(strstr(f->remediation, "remove \"Snapshot\" from"));
	harness_clear(&h);

	/* 1.8, disabledFeatureGates only: off, without snapshots a WARN */
	f = gate_at(&h, "v1.8.0", "\"disabledFeatureGates\":[\"Snapshot\"]", false);
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "decided_by"), "listed in disabledFeatureGates");
	/* taking it out of disabledFeatureGates would leave it off on 1.8: list it */
	assert_null(strstr(f->remediation, "remove \"Snapshot\" from"));
	assert_non_null(strstr(f->remediation, "featureGates"));
	harness_clear(&h);

	/* 1.8, listed in both: isFeatureGateEnabled checks featureGates first → on */
	f = gate_at(&h, "v1.8.0",
		    "\"featureGates\":[\"Snapshot\"],\"disabledFeatureGates\":[\"Snapshot\"]",
		    true);
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(harness_ev(f, "decided_by"), "listed in featureGates");
	harness_clear(&h);

	/* 1.10: newer than the table, 1.9's rules applied and said in the message */
	f = gate_at(&h, "v1.10.0", "\"featureGates\":[]", true);
	assert_int_equal(f->status, STATUS_PASS);
	assert_non_null(strstr(f->message, "newer than the releases hvready knows"));
	assert_non_null(strstr(harness_ev(f, "version_rule"), "rules of 1.9"));
	harness_clear(&h);

	/* 1.1: older, 1.2's rules */
	f = gate_at(&h, "v1.1.1", "\"featureGates\":[]", true);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "older than the releases hvready knows"));
	harness_clear(&h);

	/* on < 1.8, disabledFeatureGates does not exist: not listed means off */
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
			"{\"name\":\"kubevirt\",\"namespace\":\"kubevirt\"},\"status\":{"
			"\"targetKubeVirtVersion\":\"v1.6.6\"}}");
	harness_run(&h, GATE);
	f = harness_finding(&h, GATE, "KubeVirt/kubevirt/kubevirt");
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "version_from"), "status.targetKubeVirtVersion");
	harness_clear(&h);

	/* unknown version: listed or disabled is the same on every release (decided,
	 * and said); not listed depends on it → UNKNOWN */
	harness_init(&h);
	harness_add(
	    &h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
		"{\"name\":\"kubevirt\",\"namespace\":\"kubevirt\"},\"spec\":{\"configuration\":"
		"{\"developerConfiguration\":{\"disabledFeatureGates\":[\"Snapshot\"]}}}}");
	harness_add(&h, vm_snapshot);
	harness_run(&h, GATE);
	f = harness_finding(&h, GATE, "KubeVirt/kubevirt/kubevirt");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "version is unknown"));
	harness_clear(&h);
}

static void test_gate_unknown_version_and_garbage(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(
	    &h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
		"{\"name\":\"kubevirt\",\"namespace\":\"kubevirt\"},\"spec\":{\"configuration\":"
		"{\"developerConfiguration\":{\"featureGates\":\"Snapshot\"}}},"
		"\"status\":{\"observedKubeVirtVersion\":\"devel\"}}");
	harness_run(&h, GATE);
	const struct finding *f = harness_finding(&h, GATE, "KubeVirt/kubevirt/kubevirt");
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_string_equal(harness_ev(f, "snapshot_gate"), "unknown");
	harness_clear(&h);

	/* every optional part missing or of the wrong type: no crash, a decision or UNKNOWN */
	const char *weird[] = {
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\"}",
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":null,"
	    "\"spec\":null,\"status\":null}",
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":{\"name\":1},"
	    "\"spec\":{\"configuration\":{\"developerConfiguration\":null}},\"status\":"
	    "{\"observedKubeVirtVersion\":17,\"conditions\":{}}}",
	};
	for (size_t i = 0; i < ELEMENTSOF(weird); i++) {
		harness_init(&h);
		harness_add(&h, weird[i]);
		harness_add(&h, "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChart\","
				"\"metadata\":{\"name\":\"harvester\"},\"spec\":{\"valuesContent\":"
				"\"kubevirt: [\"}}");
		harness_run(&h, GATE);
		assert_int_equal(harness_status(&h, GATE), STATUS_UNKNOWN);
		harness_run(&h, STALE);
		harness_run(&h, AVAIL);
		harness_clear(&h);
	}
}

/* The Helm values as Helm reads them (yaml.v2, docs/decisions.md): gates given
 * through a YAML merge key are in the rendered values, so a Helm-managed CR
 * with Snapshot on is not warned about "values that do not list it". */
static void test_gate_values_merge_key(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(
	    &h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
		"{\"name\":\"kubevirt\",\"namespace\":\"harvester-system\",\"annotations\":"
		"{\"meta.helm.sh/release-name\":\"harvester\"}},\"spec\":{\"configuration\":"
		"{\"developerConfiguration\":{\"featureGates\":[\"LiveMigration\",\"Snapshot\"]}}},"
		"\"status\":{\"observedKubeVirtVersion\":\"v1.7.4\"}}");
	harness_add(&h, "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChart\","
			"\"metadata\":{\"name\":\"harvester\",\"namespace\":\"kube-system\"},"
			"\"spec\":{\"valuesContent\":\"kvDefaults: &kv\\n  spec:\\n    "
			"configuration:\\n      developerConfiguration:\\n        featureGates: "
			"[LiveMigration, Snapshot]\\nkubevirt:\\n  <<: *kv\\n\"}}");
	harness_run(&h, GATE);
	const struct finding *f = harness_finding(&h, GATE, "KubeVirt/harvester-system/kubevirt");
	assert_int_equal(f->status, STATUS_PASS);
	harness_clear(&h);
}

/* ---- gate-stale ---- */

static void test_stale_fail_three_layers(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = SEED_NOW;
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on.json");
	harness_load(&h, "kubevirt/virt-api-pods-before-change.json");
	harness_run(&h, STALE);
	const struct finding *f = harness_finding(&h, STALE, KV);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(
	    strstr(f->message, "virt-api-7ddcb4b77b-wbtk5 started=2026-09-05T13:20:44Z"));
	assert_non_null(strstr(f->message, "gates changed at 2026-09-05T23:33:05Z"));
	assert_string_equal(harness_ev(f, "changed_by"), "helm");
	assert_non_null(strstr(f->remediation, "rollout status deploy/virt-api"));
	harness_clear(&h);
}

static void test_stale_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on.json");
	harness_load(&h, "kubevirt/virt-api-pods-after-restart.json");
	harness_run(&h, STALE);
	assert_int_equal(harness_status(&h, STALE), STATUS_PASS);
	harness_clear(&h);

	/* generation 1 without managedFields: never changed since creation */
	harness_init(&h);
	harness_add(&h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
		    "{\"name\":\"kubevirt\",\"namespace\":\"harvester-system\",\"generation\":1,"
		    "\"creationTimestamp\":\"2026-09-05T13:15:02Z\"}}");
	harness_load(&h, "kubevirt/virt-api-pods-before-change.json");
	harness_run(&h, STALE);
	const struct finding *f = harness_finding(&h, STALE, KV);
	assert_int_equal(f->status, STATUS_PASS);
	assert_non_null(strstr(harness_ev(f, "changed_at_from"), "generation is 1"));
	harness_clear(&h);
}

static void test_stale_unknown(void **state)
{
	/* kubectl get -o json strips managedFields: no guessed FAIL */
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on-kubectl.json");
	harness_load(&h, "kubevirt/virt-api-pods-before-change.json");
	harness_run(&h, STALE);
	const struct finding *f = harness_finding(&h, STALE, KV);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "no managedFields"));
	/* The message names what to add to the kubectl recipe. */
	assert_non_null(strstr(f->message, "--show-managed-fields"));
	assert_non_null(strstr(f->remediation, "--show-managed-fields"));
	harness_clear(&h);

	/* no virt-api pod */
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-gate-snapshot-on.json");
	harness_run(&h, STALE);
	f = harness_finding(&h, STALE, KV);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "no running virt-api pod"));
	harness_clear(&h);

	/* not installed */
	harness_init(&h);
	cs_set_status(&h.cs, RES_KUBEVIRTS, RES_NOT_INSTALLED, NULL);
	harness_run(&h, STALE);
	assert_int_equal(harness_status(&h, STALE), STATUS_SKIP);
	harness_clear(&h);
}

static void test_stale_not_observed_and_garbage(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
		    "{\"name\":\"kubevirt\",\"namespace\":\"harvester-system\",\"generation\":7,"
		    "\"managedFields\":[{\"manager\":\"kubectl-edit\",\"operation\":\"Update\","
		    "\"time\":\"2026-09-05T20:00:00Z\",\"fieldsV1\":{\"f:spec\":{"
		    "\"f:configuration\":{\"f:developerConfiguration\":{\"f:featureGates\":{}}}}}},"
		    "{\"manager\":\"virt-operator\",\"operation\":\"Update\",\"subresource\":"
		    "\"status\",\"time\":\"2026-09-05T23:59:00Z\",\"fieldsV1\":{\"f:spec\":{"
		    "\"f:configuration\":{\"f:developerConfiguration\":{}}}}},"
		    "{\"manager\":\"x\",\"time\":12,\"fieldsV1\":[]},7]},"
		    "\"status\":{\"observedGeneration\":6}}");
	harness_load(&h, "kubevirt/virt-api-pods-after-restart.json");
	/* a terminating pod and a pod with garbage status do not count */
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"virt-api-"
			"old\",\"namespace\":\"harvester-system\",\"labels\":{\"kubevirt.io\":"
			"\"virt-api\"},\"deletionTimestamp\":\"2026-09-05T23:41:00Z\"},\"status\":{"
			"\"phase\":\"Running\",\"startTime\":\"2026-09-05T13:00:00Z\"}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"virt-api-"
			"junk\",\"namespace\":\"harvester-system\",\"labels\":{\"kubevirt.io\":"
			"\"virt-api\"}},\"status\":{\"containerStatuses\":[{\"state\":{\"running\":"
			"{\"startedAt\":42}}}],\"startTime\":[]}}");
	harness_run(&h, STALE);
	const struct finding *f = harness_finding(&h, STALE, KV);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "not yet observed generation 7"));
	assert_string_equal(harness_ev(f, "changed_by"), "kubectl-edit");
	harness_clear(&h);
}

/* ---- available ---- */

static void test_available_pass(void **state)
{
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-harvester-1.8.2.json");
	harness_load(&h, "kubevirt/cdi.json");
	harness_run(&h, AVAIL);
	assert_int_equal(harness_status(&h, AVAIL), STATUS_PASS);
	const struct finding *f = harness_finding(&h, AVAIL, KV);
	assert_string_equal(harness_ev(f, "Available"),
			    "True AllComponentsReady: All components are ready.");
	f = harness_finding(&h, AVAIL, "CDI/cdi");
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(harness_ev(f, "observedVersion"), "v1.64.0");
	harness_clear(&h);
}

static void test_available_fail_warn(void **state)
{
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/cdi.json");
	harness_add(&h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
		    "{\"name\":\"kubevirt\",\"namespace\":\"harvester-system\"},\"status\":{"
		    "\"phase\":\"Deploying\",\"conditions\":[{\"type\":\"Available\",\"status\":"
		    "\"False\",\"reason\":\"DeploymentInProgress\",\"message\":\"Deploying "
		    "version 1.7.4 with registry registry.suse.com\"}]}}");
	harness_run(&h, AVAIL);
	const struct finding *f = harness_finding(&h, AVAIL, KV);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "phase Deploying"));
	assert_non_null(strstr(f->remediation, "logs deploy/virt-operator"));
	harness_clear(&h);

	/* Deployed but Available=False */
	harness_init(&h);
	installed(&h);
	harness_add(&h, "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"CDI\",\"metadata\":"
			"{\"name\":\"cdi\"},\"status\":{\"phase\":\"Deployed\",\"conditions\":[{"
			"\"type\":\"Available\",\"status\":\"False\"},{\"type\":\"Degraded\","
			"\"status\":\"True\"}]}}");
	harness_load(&h, "kubevirt/kubevirt-harvester-1.8.2.json");
	harness_run(&h, AVAIL);
	f = harness_finding(&h, AVAIL, "CDI/cdi");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "Available=False"));
	harness_clear(&h);

	/* Available but Degraded / Progressing */
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"CDI\",\"metadata\":"
			"{\"name\":\"cdi\"},\"status\":{\"phase\":\"Deployed\",\"conditions\":[{"
			"\"type\":\"Available\",\"status\":\"True\"},{\"type\":\"Progressing\","
			"\"status\":\"True\"}]}}");
	harness_run(&h, AVAIL);
	f = harness_finding(&h, AVAIL, "CDI/cdi");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "update is in progress"));
	harness_clear(&h);

	/* status missing: not deployed */
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
			"{\"name\":\"kubevirt\",\"namespace\":\"harvester-system\"},\"status\":7}");
	harness_run(&h, AVAIL);
	f = harness_finding(&h, AVAIL, KV);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "not set"));
	harness_clear(&h);
}

/* An operator upgrade in progress: CDI's operator-sdk reconciler sets phase Upgrading
 * with Available=True, Progressing=True, Degraded=True reason UpgradeStarted
 * (MarkCrUpgradeHealingDegraded); virt-operator keeps phase Deployed and sets all three
 * True with reason UpdateInProgress (UpdateConditionsUpdating). Both still serve. */
static void test_available_upgrading(void **state)
{
	struct harness h;
	harness_init(&h);
	installed(&h);
	harness_add(&h,
		    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"CDI\",\"metadata\":"
		    "{\"name\":\"cdi\"},\"status\":{\"phase\":\"Upgrading\",\"observedVersion\":"
		    "\"v1.62.0\",\"operatorVersion\":\"v1.64.0\",\"targetVersion\":\"v1.64.0\","
		    "\"conditions\":[{\"type\":\"Available\",\"status\":\"True\","
		    "\"lastHeartbeatTime\":\"2026-09-05T13:18:11Z\",\"lastTransitionTime\":"
		    "\"2026-09-05T13:18:11Z\"},{\"type\":\"Progressing\",\"status\":\"True\"},{"
		    "\"type\":\"Degraded\",\"status\":\"True\",\"reason\":\"UpgradeStarted\","
		    "\"message\":\"Started upgrade to version v1.64.0\"}]}}");
	harness_add(&h,
		    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
		    "{\"name\":\"kubevirt\",\"namespace\":\"harvester-system\"},\"status\":{"
		    "\"phase\":\"Deployed\",\"observedKubeVirtVersion\":\"1.6.6\","
		    "\"targetKubeVirtVersion\":\"1.7.4\",\"conditions\":[{\"type\":"
		    "\"Available\",\"status\":\"True\",\"reason\":\"UpdateInProgress\","
		    "\"message\":\"Transitioning from previous version 1.6.6 with registry "
		    "registry.suse.com to target version 1.7.4 using registry registry.suse.com\"},"
		    "{\"type\":\"Progressing\",\"status\":\"True\",\"reason\":"
		    "\"UpdateInProgress\"},{\"type\":\"Degraded\",\"status\":\"True\","
		    "\"reason\":\"UpdateInProgress\"}]}}");
	harness_run(&h, AVAIL);
	const struct finding *f = harness_finding(&h, AVAIL, "CDI/cdi");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "upgrad"));
	assert_non_null(strstr(f->message, "v1.64.0"));
	assert_string_equal(harness_ev(f, "phase"), "Upgrading");
	assert_non_null(f->remediation);
	f = harness_finding(&h, AVAIL, KV);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "update is in progress"));
	assert_non_null(strstr(f->message, "1.7.4"));
	harness_clear(&h);

	/* Upgrading while no longer Available: FAIL */
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/kubevirt-harvester-1.8.2.json");
	harness_add(&h, "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"CDI\",\"metadata\":"
			"{\"name\":\"cdi\"},\"status\":{\"phase\":\"Upgrading\",\"conditions\":[{"
			"\"type\":\"Available\",\"status\":\"False\"}]}}");
	harness_run(&h, AVAIL);
	f = harness_finding(&h, AVAIL, "CDI/cdi");
	assert_int_equal(f->status, STATUS_FAIL);
	harness_clear(&h);

	/* A second KubeVirt CR: virt-operator only sets Synchronized=False on it */
	harness_init(&h);
	installed(&h);
	harness_load(&h, "kubevirt/cdi.json");
	harness_add(&h, "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":"
			"{\"name\":\"kubevirt\",\"namespace\":\"harvester-system\"},\"status\":{"
			"\"operatorVersion\":\"v1.7.4\",\"conditions\":[{\"type\":\"Synchronized\","
			"\"status\":\"False\",\"reason\":\"ExistingDeployment\",\"message\":"
			"\"There is an active KubeVirt deployment\"}]}}");
	harness_run(&h, AVAIL);
	f = harness_finding(&h, AVAIL, KV);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "There is an active KubeVirt deployment"));
	assert_string_equal(harness_ev(f, "Synchronized"),
			    "False ExistingDeployment: There is an active KubeVirt deployment");
	harness_clear(&h);
}

static void test_available_missing(void **state)
{
	/* before the install: SKIP */
	struct harness h;
	harness_init(&h);
	harness_preinstall(&h);
	cs_set_status(&h.cs, RES_KUBEVIRTS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_CDIS, RES_NOT_INSTALLED, NULL);
	harness_run(&h, AVAIL);
	assert_int_equal(harness_status(&h, AVAIL), STATUS_SKIP);
	harness_clear(&h);

	/* after the install: missing CRs FAIL */
	harness_init(&h);
	installed(&h);
	harness_run(&h, AVAIL);
	assert_int_equal(harness_status(&h, AVAIL), STATUS_FAIL);
	assert_non_null(strstr(harness_finding(&h, AVAIL, NULL)->message, "no KubeVirt CR"));
	harness_clear(&h);

	/* Harvester v1.4.3 ships no CDI */
	harness_init(&h);
	harness_add(&h,
		    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
		    "\"harvester\",\"namespace\":\"harvester-system\"},\"spec\":{\"template\":{"
		    "\"spec\":{\"containers\":[{\"name\":\"apiserver\",\"image\":"
		    "\"rancher/harvester:v1.4.3\"}]}}}}");
	harness_load(&h, "kubevirt/kubevirt-harvester-1.8.2.json");
	cs_set_status(&h.cs, RES_CDIS, RES_NOT_INSTALLED, NULL);
	harness_run(&h, AVAIL);
	assert_int_equal(harness_status(&h, AVAIL), STATUS_PASS);
	bool skip_seen = false;
	for (size_t i = 0; i < h.out.n; i++)
		skip_seen |= h.out.items[i].status == STATUS_SKIP &&
			     strstr(h.out.items[i].message, "ships none");
	assert_true(skip_seen);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gate_not_installed),
	    cmocka_unit_test(test_gate_off_warn_and_fail),
	    cmocka_unit_test(test_gate_near_miss_plural),
	    cmocka_unit_test(test_gate_values_path),
	    cmocka_unit_test(test_gate_on),
	    cmocka_unit_test(test_gate_comma_joined_from_spec_set),
	    cmocka_unit_test(test_gate_per_release),
	    cmocka_unit_test(test_gate_unknown_version_and_garbage),
	    cmocka_unit_test(test_gate_values_merge_key),
	    cmocka_unit_test(test_stale_fail_three_layers),
	    cmocka_unit_test(test_stale_pass),
	    cmocka_unit_test(test_stale_unknown),
	    cmocka_unit_test(test_stale_not_observed_and_garbage),
	    cmocka_unit_test(test_available_pass),
	    cmocka_unit_test(test_available_fail_warn),
	    cmocka_unit_test(test_available_missing),
	    cmocka_unit_test(test_available_upgrading),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
