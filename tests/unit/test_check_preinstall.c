/* api.preinstall.conflicts and api.preinstall.cidrs (docs/checks/api.preinstall.*.md). */
#include "agg_harness.h"

#define CF "api.preinstall.conflicts"
#define CI "api.preinstall.cidrs"

static const char *pick(const struct finding *f, const char *key, const char *field)
{
	const struct value *v = kv_get(&f->evidence, key);
	if (!v || v->type != VALUE_MAP)
		return "";
	const char *s = kv_get_str(&v->map, field);
	return s ? s : "";
}

static bool pick_estimate(const struct finding *f, const char *key)
{
	const struct value *v = kv_get(&f->evidence, key);
	bool b = false;
	assert_non_null(v);
	assert_true(kv_get_bool(&v->map, "estimate", &b));
	return b;
}

/* A cluster before the install: Harvester's CRDs are not served. */
static void bare(struct harness *h)
{
	harness_init(h);
	cs_set_status(&h->cs, RES_HV_SETTINGS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h->cs, RES_HV_VMIMAGES, RES_NOT_INSTALLED, NULL);
}

/* An RKE2 cluster as seen in the field (3 nodes, Calico, rke2-snapshot-controller, no ingress). */
static void rke2(struct harness *h)
{
	bare(h);
	harness_load(h, "kubevirt/rke2-cluster.json");
}

static const struct finding *find_msg(struct harness *h, const char *id, const char *needle)
{
	for (size_t i = 0; i < h->out.n; i++)
		if (streq(h->out.items[i].check, id) && strstr(h->out.items[i].message, needle))
			return &h->out.items[i];
	fail_msg("no %s finding with \"%s\"", id, needle);
	return NULL;
}

/* ---- conflicts ---- */

static void test_conflicts_rke2(void **state)
{
	struct harness h;
	rke2(&h);
	harness_run(&h, CF);
	assert_int_equal(harness_status(&h, CF), STATUS_WARN);
	assert_int_equal(h.out.n, 2);
	const struct finding *f = find_msg(&h, CF, "snapshot-controller already runs");
	assert_non_null(strstr(f->message, "Deployment kube-system/rke2-snapshot-controller"));
	assert_non_null(strstr(f->remediation, "csi-snapshotter.enabled: false"));
	assert_non_null(strstr(f->remediation, "kind: VolumeSnapshotClass"));
	assert_non_null(strstr(f->remediation, "driver: driver.longhorn.io"));
	f = find_msg(&h, CF, "no ingress controller");
	assert_non_null(strstr(f->remediation, "NodePort"));
	assert_non_null(strstr(f->remediation, "--resolve harvester.local:PORT:NODE_IP"));
	harness_clear(&h);

	/* with ingress-nginx only the snapshot-controller remains */
	rke2(&h);
	harness_load(&h, "kubevirt/rke2-ingress-nginx.json");
	harness_run(&h, CF);
	assert_int_equal(harness_status(&h, CF), STATUS_WARN);
	assert_int_equal(h.out.n, 1);
	harness_clear(&h);
}

static void test_conflicts_pass(void **state)
{
	struct harness h;
	bare(&h);
	harness_load(&h, "kubevirt/rke2-ingress-nginx.json");
	harness_run(&h, CF);
	const struct finding *f = harness_finding(&h, CF, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	assert_non_null(strstr(harness_ev(f, "ingress"), "rke2-ingress-nginx-controller"));
	harness_clear(&h);
}

static void test_conflicts_kubevirt(void **state)
{
	struct harness h;
	rke2(&h);
	harness_load(&h, "kubevirt/rke2-ingress-nginx.json");
	harness_load(&h, "kubevirt/existing-kubevirt.json");
	harness_run(&h, CF);
	assert_int_equal(harness_status(&h, CF), STATUS_FAIL);
	const struct finding *f = harness_finding(&h, CF, "Deployment/kubevirt/virt-operator");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(harness_ev(f, "image"), "quay.io/kubevirt/virt-operator:v1.5.0");
	assert_non_null(strstr(f->message, "one virt-operator"));
	f = harness_finding(&h, CF, "Deployment/cdi/cdi-operator");
	assert_int_equal(f->status, STATUS_WARN);
	harness_clear(&h);

	/* a virt-operator pod without its Deployment (copied files) still counts */
	rke2(&h);
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"virt-"
			"operator-5d4f\",\"namespace\":\"kubevirt\",\"labels\":{\"kubevirt.io\":"
			"\"virt-operator\"}}}");
	harness_run(&h, CF);
	assert_int_equal(harness_finding(&h, CF, "Pod/kubevirt/virt-operator-5d4f")->status,
			 STATUS_FAIL);
	harness_clear(&h);
}

static void test_conflicts_longhorn(void **state)
{
	struct harness h;
	rke2(&h);
	harness_load(&h, "kubevirt/rke2-ingress-nginx.json");
	harness_load(&h, "kubevirt/existing-longhorn-1.9.json");
	harness_run(&h, CF);
	const struct finding *f =
	    harness_finding(&h, CF, "DaemonSet/longhorn-system/longhorn-manager");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(harness_ev(f, "longhorn_version"), "v1.9.1");
	assert_string_equal(harness_ev(f, "version_from"), "longhorn-manager image tag");
	assert_string_equal(harness_ev(f, "default-data-path"), "/var/lib/longhorn/");
	assert_non_null(strstr(f->message, "one minor at a time"));
	const struct value_list *fit = kv_get_list(&f->evidence, "harvester_releases_that_fit");
	assert_non_null(fit);
	assert_int_equal(fit->n, 2);
	assert_string_equal(fit->items[0].s, "Harvester v1.6.1 (Longhorn 1.9.2)");
	harness_clear(&h);

	rke2(&h);
	harness_load(&h, "kubevirt/rke2-ingress-nginx.json");
	harness_load(&h, "kubevirt/existing-longhorn-1.10.json");
	harness_run(&h, CF);
	f = harness_finding(&h, CF, "DaemonSet/longhorn-system/longhorn-manager");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "supported one-minor upgrade"));
	assert_non_null(strstr(f->remediation, "defaultDataPath to /var/lib/longhorn/"));
	harness_clear(&h);

	/* newer than the chart's, another namespace, an unknown version */
	const char *cases[][2] = {
	    {"{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"longhorn-"
	     "manager\",\"namespace\":\"longhorn-system\"},\"spec\":{\"template\":{\"spec\":{"
	     "\"containers\":[{\"name\":\"longhorn-manager\",\"image\":\"longhornio/longhorn-"
	     "manager:v1.12.0\"}]}}}}",
	     "cannot be downgraded"},
	    {"{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"longhorn-"
	     "manager\",\"namespace\":\"storage\"},\"spec\":{\"template\":{\"spec\":{"
	     "\"containers\":[{\"name\":\"longhorn-manager\",\"image\":\"longhornio/longhorn-"
	     "manager:v1.11.2\"}]}}}}",
	     "two Longhorns"},
	    {"{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"longhorn-"
	     "manager\",\"namespace\":\"longhorn-system\"},\"spec\":{\"template\":{\"spec\":{"
	     "\"containers\":[{\"name\":\"longhorn-manager\",\"image\":\"mirror/lhm:master-head\"}"
	     "]}}}}",
	     "unknown version"},
	};
	enum status want[] = {STATUS_FAIL, STATUS_FAIL, STATUS_WARN};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		rke2(&h);
		harness_load(&h, "kubevirt/rke2-ingress-nginx.json");
		harness_add(&h, cases[i][0]);
		harness_run(&h, CF);
		f = find_msg(&h, CF, cases[i][1]);
		assert_int_equal(f->status, want[i]);
		harness_clear(&h);
	}

	/* the version from the setting when the image has no tag */
	rke2(&h);
	harness_load(&h, "kubevirt/rke2-ingress-nginx.json");
	harness_add(&h, "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":"
			"\"longhorn-manager\",\"namespace\":\"longhorn-system\"}}");
	harness_add(&h, "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Setting\",\"metadata\":"
			"{\"name\":\"current-longhorn-version\",\"namespace\":\"longhorn-system\"},"
			"\"value\":\"v1.11.0\"}");
	harness_run(&h, CF);
	f = harness_finding(&h, CF, "DaemonSet/longhorn-system/longhorn-manager");
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "version_from"), "setting current-longhorn-version");
	harness_clear(&h);
}

/* Longhorn refuses a patch downgrade too (its upgrade-path table: x.y.* to
 * x.y.(*-1) is not allowed): an existing 1.11.3 cannot be taken over by the
 * chart's 1.11.2, and a Harvester whose Longhorn is an older patch of the same
 * minor does not fit. */
static void test_conflicts_longhorn_patch_downgrade(void **state)
{
	struct harness h;
	rke2(&h);
	harness_load(&h, "kubevirt/rke2-ingress-nginx.json");
	harness_add(&h, "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":"
			"\"longhorn-manager\",\"namespace\":\"longhorn-system\"},\"spec\":{"
			"\"template\":{\"spec\":{\"containers\":[{\"name\":\"longhorn-manager\","
			"\"image\":\"longhornio/longhorn-manager:v1.11.3\"}]}}}}");
	harness_run(&h, CF);
	const struct finding *f =
	    harness_finding(&h, CF, "DaemonSet/longhorn-system/longhorn-manager");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "cannot be downgraded"));
	const struct value_list *fit = kv_get_list(&f->evidence, "harvester_releases_that_fit");
	assert_non_null(fit);
	assert_int_equal(fit->n, 0);
	harness_clear(&h);

	/* 1.10.3 (newer than Harvester v1.7.3's 1.10.2): only v1.8.2 fits, and the chart's
	 * 1.11.2 is a one-minor upgrade: WARN */
	rke2(&h);
	harness_load(&h, "kubevirt/rke2-ingress-nginx.json");
	harness_add(&h, "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":"
			"\"longhorn-manager\",\"namespace\":\"longhorn-system\"},\"spec\":{"
			"\"template\":{\"spec\":{\"containers\":[{\"name\":\"longhorn-manager\","
			"\"image\":\"rancher/mirrored-longhornio-longhorn-manager:v1.10.3\"}]}}}}");
	harness_run(&h, CF);
	f = harness_finding(&h, CF, "DaemonSet/longhorn-system/longhorn-manager");
	assert_int_equal(f->status, STATUS_WARN);
	fit = kv_get_list(&f->evidence, "harvester_releases_that_fit");
	assert_non_null(fit);
	assert_int_equal(fit->n, 1);
	assert_string_equal(fit->items[0].s, "Harvester v1.8.2 (Longhorn 1.11.2)");
	harness_clear(&h);
}

static void test_conflicts_after_install_and_garbage(void **state)
{
	struct harness h;
	rke2(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_run(&h, CF);
	assert_int_equal(harness_status(&h, CF), STATUS_SKIP);
	harness_clear(&h);

	bare(&h);
	cs_set_status(&h.cs, RES_LH_SETTINGS, RES_NOT_INSTALLED, NULL);
	cs_set_status(&h.cs, RES_HELMCHARTS, RES_NOT_INSTALLED, NULL);
	harness_add(&h, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}");
	harness_add(&h,
		    "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":"
		    "\"longhorn-manager\"},\"spec\":{\"template\":{\"spec\":{\"containers\":7}}}}");
	harness_add(&h,
		    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
		    "\"virt-operator\"},\"status\":{\"readyReplicas\":\"two\"}}");
	harness_run(&h, CF);
	assert_int_equal(harness_status(&h, CF), STATUS_FAIL);
	harness_clear(&h);
}

/* ---- cidrs ---- */

static void test_cidrs_rke2(void **state)
{
	struct harness h;
	rke2(&h);
	harness_run(&h, CI);
	const struct finding *f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(pick(f, "clusterDNS", "value"), "10.43.0.10");
	assert_string_equal(pick(f, "clusterDNS", "from"),
			    "Service kube-system/rke2-coredns-rke2-coredns");
	assert_string_equal(pick(f, "clusterPodCIDR", "value"), "10.42.0.0/16");
	assert_false(pick_estimate(f, "clusterPodCIDR"));
	assert_string_equal(harness_ev(f, "smallest_common_supernet"), "10.42.0.0/21");
	assert_string_equal(pick(f, "clusterServiceCIDR", "value"), "10.43.0.0/16");
	assert_string_equal(f->message, "promote values: clusterDNS 10.43.0.10, clusterPodCIDR "
					"10.42.0.0/16, clusterServiceCIDR 10.43.0.0/16");
	/* the values block, with the runbook's key names */
	assert_string_equal(harness_ev(f, "values"), "promote:\n"
						     "  clusterDNS: 10.43.0.10\n"
						     "  clusterPodCIDR: 10.42.0.0/16\n"
						     "  clusterServiceCIDR: 10.43.0.0/16\n");
	assert_non_null(strstr(f->remediation, "clusterPodCIDR: 10.42.0.0/16"));
	const struct value_list *nodes = kv_get_list(&f->evidence, "node_podCIDRs");
	assert_int_equal(nodes->n, 3);
	assert_string_equal(nodes->items[0].s, "sza122100.local: 10.42.6.0/24");
	harness_clear(&h);
}

static void test_cidrs_estimates(void **state)
{
	/* a node outside 10.42.0.0/16: the /16 default no longer covers, an estimate */
	struct harness h;
	rke2(&h);
	harness_load(&h, "kubevirt/node-custom-cidr.json");
	harness_run(&h, CI);
	const struct finding *f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(pick(f, "clusterPodCIDR", "value"), "10.32.0.0/11");
	assert_true(pick_estimate(f, "clusterPodCIDR"));
	assert_non_null(strstr(f->message, "clusterPodCIDR is an estimate"));
	harness_clear(&h);

	/* kubeadm-style addresses: service CIDR is an estimate around 10.96.0.1 */
	bare(&h);
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
			"\"spec\":{\"podCIDR\":\"10.244.0.0/24\"}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n2\"},"
			"\"spec\":{\"podCIDR\":\"10.244.1.0/24\"}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
			"\"kubernetes\",\"namespace\":\"default\"},\"spec\":{\"clusterIP\":"
			"\"10.96.0.1\"}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
			"\"kube-dns\",\"namespace\":\"kube-system\",\"labels\":{\"k8s-app\":"
			"\"kube-dns\"}},\"spec\":{\"clusterIP\":\"10.96.0.10\"}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
			"\"far\",\"namespace\":\"x\"},\"spec\":{\"clusterIP\":\"10.97.3.4\"}}");
	harness_run(&h, CI);
	f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(pick(f, "clusterDNS", "value"), "10.96.0.10");
	assert_string_equal(pick(f, "clusterDNS", "from"),
			    "Service kube-system/kube-dns (k8s-app=kube-dns)");
	assert_string_equal(pick(f, "clusterPodCIDR", "value"), "10.244.0.0/16");
	/* every ClusterIP lies in the service CIDR: 10.97.3.4 widens the estimate */
	assert_string_equal(pick(f, "clusterServiceCIDR", "value"), "10.96.0.0/15");
	assert_true(pick_estimate(f, "clusterServiceCIDR"));
	harness_clear(&h);
}

/* The CoreDNS chart's metrics Service (prometheus.service.enabled) carries the same
 * k8s-app=kube-dns label and a ClusterIP of its own, port 9153 only; it sorts before
 * kube-dns. Its address is not the cluster DNS. */
static void test_cidrs_dns_metrics_service(void **state)
{
	struct harness h;
	bare(&h);
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
			"\"spec\":{\"podCIDR\":\"10.42.0.0/24\"}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
			"\"kubernetes\",\"namespace\":\"default\"},\"spec\":{\"clusterIP\":"
			"\"10.43.0.1\",\"ports\":[{\"name\":\"https\",\"port\":443,\"protocol\":"
			"\"TCP\",\"targetPort\":6443}]}}");
	harness_add(&h,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
		    "\"coredns-metrics\",\"namespace\":\"kube-system\",\"labels\":{\"k8s-app\":"
		    "\"kube-dns\",\"app.kubernetes.io/component\":\"metrics\"}},\"spec\":{"
		    "\"clusterIP\":\"10.43.211.7\",\"ports\":[{\"name\":\"metrics\",\"port\":9153,"
		    "\"protocol\":\"TCP\",\"targetPort\":9153}]}}");
	harness_add(&h,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
		    "\"kube-dns\",\"namespace\":\"kube-system\",\"labels\":{\"k8s-app\":"
		    "\"kube-dns\"}},\"spec\":{\"clusterIP\":\"10.43.0.10\",\"ports\":[{\"name\":"
		    "\"dns\",\"port\":53,\"protocol\":\"UDP\",\"targetPort\":53},{\"name\":"
		    "\"dns-tcp\",\"port\":53,\"protocol\":\"TCP\",\"targetPort\":53}]}}");
	harness_run(&h, CI);
	const struct finding *f = harness_finding(&h, CI, NULL);
	assert_string_equal(pick(f, "clusterDNS", "value"), "10.43.0.10");
	assert_string_equal(pick(f, "clusterDNS", "from"),
			    "Service kube-system/kube-dns (k8s-app=kube-dns)");
	harness_clear(&h);
}

static void test_cidrs_unknown(void **state)
{
	struct harness h;
	rke2(&h);
	/* Calico/Cilium IPAM: no podCIDR on the nodes */
	for (size_t i = 0; i < cs_count(&h.cs, RES_NODES); i++) {
		json_object *node = harness_edit(&h, RES_NODES, i);
		json_object_object_del(jc_get(node, "spec", NULL), "podCIDR");
		json_object_object_del(jc_get(node, "spec", NULL), "podCIDRs");
		harness_commit(&h, RES_NODES, i, node);
	}
	harness_run(&h, CI);
	const struct finding *f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "cannot detect clusterPodCIDR"));
	assert_non_null(strstr(f->remediation, "cluster-cidr"));
	assert_non_null(strstr(f->remediation, "clusterPodCIDR: <unknown>"));
	harness_clear(&h);

	/* no DNS Service */
	bare(&h);
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
			"\"spec\":{\"podCIDR\":\"10.42.0.0/24\"}}");
	harness_run(&h, CI);
	f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "cannot detect clusterDNS"));
	harness_clear(&h);
}

static void test_cidrs_dual_stack(void **state)
{
	struct harness h;
	rke2(&h);
	while (cs_count(&h.cs, RES_NODES) > 0)
		cs_remove(&h.cs, RES_NODES, 0);
	harness_load(&h, "kubevirt/nodes-dual-stack.json");
	harness_run(&h, CI);
	const struct finding *f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(pick(f, "clusterPodCIDR", "value"), "10.42.0.0/16");
	assert_non_null(strstr(harness_ev(f, "dual_stack"), "primary"));
	harness_clear(&h);

	/* IPv6 only */
	bare(&h);
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
			"\"spec\":{\"podCIDRs\":[\"fd00:42::/64\"]}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
			"\"kubernetes\",\"namespace\":\"default\"},\"spec\":{\"clusterIP\":"
			"\"fd00:43::1\"}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
			"\"rke2-coredns-rke2-coredns\",\"namespace\":\"kube-system\"},\"spec\":{"
			"\"clusterIP\":\"fd00:43::a\"}}");
	harness_run(&h, CI);
	f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(pick(f, "clusterDNS", "value"), "fd00:43::a");
	assert_string_equal(pick(f, "clusterPodCIDR", "value"), "fd00:42::/48");
	assert_string_equal(pick(f, "clusterServiceCIDR", "value"), "fd00:43::/108");
	harness_clear(&h);

	/* RKE2's dual-stack form copied into the values (cluster-cidr: "v4,v6"): the
	 * primary family's part is compared; the other part cannot be checked from the
	 * API (no node carries a second family's cluster CIDR), so at best WARN. */
	rke2(&h);
	while (cs_count(&h.cs, RES_NODES) > 0)
		cs_remove(&h.cs, RES_NODES, 0);
	harness_load(&h, "kubevirt/nodes-dual-stack.json");
	harness_add(&h,
		    "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChart\",\"metadata\":"
		    "{\"name\":\"harvester\",\"namespace\":\"kube-system\"},\"spec\":{"
		    "\"valuesContent\":\"promote:\\n  clusterDNS: 10.43.0.10\\n  clusterPodCIDR: "
		    "10.42.0.0/16,2001:cafe:42::/56\\n  clusterServiceCIDR: "
		    "10.43.0.0/16,2001:cafe:43::/112\\n\"}}");
	harness_run(&h, CI);
	f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_WARN);
	const struct value_list *cmp = kv_get_list(&f->evidence, "helm_values_compared");
	assert_non_null(cmp);
	bool matched = false, unverified = false;
	for (size_t i = 0; i < cmp->n; i++) {
		matched |=
		    strstr(cmp->items[i].s, "promote.clusterPodCIDR: 10.42.0.0/16 matches") != NULL;
		unverified |= strstr(cmp->items[i].s, "2001:cafe:42::/56") &&
			      strstr(cmp->items[i].s, "not verified");
	}
	assert_true(matched);
	assert_true(unverified);
	assert_non_null(strstr(f->message, "could not be verified"));
	harness_clear(&h);

	/* the primary part wrong: FAIL as for a single value */
	rke2(&h);
	harness_add(&h,
		    "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChart\",\"metadata\":"
		    "{\"name\":\"harvester\",\"namespace\":\"kube-system\"},\"spec\":{"
		    "\"valuesContent\":\"promote:\\n  clusterDNS: 10.43.0.10\\n  clusterPodCIDR: "
		    "10.42.6.0/24,2001:cafe:42::/56\\n  clusterServiceCIDR: 10.43.0.0/16\\n\"}}");
	harness_run(&h, CI);
	assert_int_equal(harness_finding(&h, CI, NULL)->status, STATUS_FAIL);
	harness_clear(&h);
}

static void test_cidrs_helm_values(void **state)
{
	struct harness h;
	rke2(&h);
	harness_load(&h, "kubevirt/harvester-helmchart-values-ok.json");
	harness_run(&h, CI);
	const struct finding *f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(harness_ev(f, "helm_values"), "HelmChart kube-system/harvester");
	assert_string_equal(f->remediation, "");
	harness_clear(&h);

	/* the node's /24 instead of the cluster's /16 */
	rke2(&h);
	harness_load(&h, "kubevirt/harvester-helmchart-values-wrong-cidr.json");
	harness_run(&h, CI);
	f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	const struct value_list *cmp = kv_get_list(&f->evidence, "helm_values_compared");
	assert_non_null(cmp);
	bool seen = false;
	for (size_t i = 0; i < cmp->n; i++)
		seen |= strstr(cmp->items[i].s, "promote.clusterPodCIDR: 10.42.6.0/24, but the "
						"cluster has 10.42.0.0/16") != NULL;
	assert_true(seen);
	assert_non_null(strstr(f->remediation, "clusterPodCIDR: 10.42.0.0/16"));
	harness_clear(&h);

	/* values without promote, and unparsable values */
	rke2(&h);
	harness_add(&h, "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChart\",\"metadata\":"
			"{\"name\":\"harvester\",\"namespace\":\"kube-system\"},\"spec\":{"
			"\"valuesContent\":\"rancherEmbedded: false\\n\"}}");
	harness_run(&h, CI);
	f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	harness_clear(&h);

	rke2(&h);
	harness_add(&h, "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChart\",\"metadata\":"
			"{\"name\":\"harvester\",\"namespace\":\"kube-system\"},\"spec\":{"
			"\"valuesContent\":\"promote: [\",\"set\":{\"promote.clusterDNS\":"
			"\"10.43.0.10\",\"promote.clusterPodCIDR\":\"10.40.0.0/14\","
			"\"promote.clusterServiceCIDR\":\"10.43.0.0/16\"}}}");
	harness_run(&h, CI);
	f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	harness_clear(&h);

	/* an estimate covered by a wider value: confirm (WARN), not FAIL */
	rke2(&h);
	harness_load(&h, "kubevirt/node-custom-cidr.json");
	harness_add(&h, "{\"apiVersion\":\"helm.cattle.io/v1\",\"kind\":\"HelmChart\",\"metadata\":"
			"{\"name\":\"harvester\",\"namespace\":\"kube-system\"},\"spec\":{\"set\":{"
			"\"promote.clusterDNS\":\"10.43.0.10\",\"promote.clusterPodCIDR\":"
			"\"10.0.0.0/8\",\"promote.clusterServiceCIDR\":\"10.43.0.0/16\"}}}");
	harness_run(&h, CI);
	f = harness_finding(&h, CI, NULL);
	assert_int_equal(f->status, STATUS_WARN);
	harness_clear(&h);
}

static void test_cidrs_garbage(void **state)
{
	struct harness h;
	bare(&h);
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"spec\":{\"podCIDRs\":[7,null,"
			"\"10.42.0.0/99\",\"x\"],\"podCIDR\":{}}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"spec\":null}");
	harness_add(&h,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
		    "\"kubernetes\",\"namespace\":\"default\"},\"spec\":{\"clusterIP\":\"None\"}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"labels\":"
			"{\"k8s-app\":\"kube-dns\"}},\"spec\":{\"clusterIP\":12}}");
	harness_run(&h, CI);
	assert_int_equal(harness_status(&h, CI), STATUS_UNKNOWN);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conflicts_rke2),
	    cmocka_unit_test(test_conflicts_pass),
	    cmocka_unit_test(test_conflicts_kubevirt),
	    cmocka_unit_test(test_conflicts_longhorn),
	    cmocka_unit_test(test_conflicts_longhorn_patch_downgrade),
	    cmocka_unit_test(test_conflicts_after_install_and_garbage),
	    cmocka_unit_test(test_cidrs_rke2),
	    cmocka_unit_test(test_cidrs_estimates),
	    cmocka_unit_test(test_cidrs_dns_metrics_service),
	    cmocka_unit_test(test_cidrs_unknown),
	    cmocka_unit_test(test_cidrs_dual_stack),
	    cmocka_unit_test(test_cidrs_helm_values),
	    cmocka_unit_test(test_cidrs_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
