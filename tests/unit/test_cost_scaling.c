// wrap: streq strcmp
/*
 * A regression guard for cost, not a timed test: the string comparisons
 * (streq and strcmp, counted through ld --wrap) that cluster.cpu.compat and
 * the per-VM joins of api.vm.live-migratable make on a generated cluster of
 * 500 and then 1,000 nodes. Linear (or n log n) work about doubles; the
 * pairwise flag scan this replaced grew fourfold (docs/benchmarks.md).
 */
#include "agg_harness.h"

static unsigned long long comparisons;
static bool counting;

bool __real_streq(const char *a, const char *b);
bool __wrap_streq(const char *a, const char *b);
bool __wrap_streq(const char *a, const char *b)
{
	comparisons += counting;
	return __real_streq(a, b);
}

int __real_strcmp(const char *a, const char *b);
int __wrap_strcmp(const char *a, const char *b);
int __wrap_strcmp(const char *a, const char *b)
{
	comparisons += counting;
	return __real_strcmp(a, b);
}

/* Guest-visible flags of a Xeon (Cascade Lake) as /proc/cpuinfo lists them. */
static const char *const xeon_flags[] = {
    "fpu",
    "vme",
    "de",
    "pse",
    "tsc",
    "msr",
    "pae",
    "mce",
    "cx8",
    "apic",
    "sep",
    "mtrr",
    "pge",
    "mca",
    "cmov",
    "pat",
    "pse36",
    "clflush",
    "mmx",
    "fxsr",
    "sse",
    "sse2",
    "ss",
    "syscall",
    "nx",
    "pdpe1gb",
    "rdtscp",
    "lm",
    "pni",
    "pclmulqdq",
    "vmx",
    "ssse3",
    "fma",
    "cx16",
    "pcid",
    "sse4_1",
    "sse4_2",
    "movbe",
    "popcnt",
    "aes",
    "xsave",
    "avx",
    "f16c",
    "rdrand",
    "lahf_lm",
    "abm",
    "3dnowprefetch",
    "fsgsbase",
    "bmi1",
    "hle",
    "avx2",
    "smep",
    "bmi2",
    "erms",
    "invpcid",
    "rtm",
    "mpx",
    "avx512f",
    "avx512dq",
    "adx",
    "smap",
    "clflushopt",
    "clwb",
    "avx512cd",
    "avx512bw",
    "avx512vl",
    "xsaveopt",
    "xsavec",
    "xgetbv1",
    "xsaves",
    "pku",
    "ospke",
    "avx512_vnni",
    "md_clear",
    "flush_l1d",
    "arch_capabilities",
};

struct big {
	struct harness h; /* the cluster state; its 16 report slots are unused */
	struct node_entry *nodes;
	struct node_report *reports;
	size_t n;
};

static void big_build(struct big *b, size_t n)
{
	harness_init(&b->h);
	b->n = n;
	b->nodes = xcalloc(n, sizeof(*b->nodes));
	b->reports = xcalloc(n, sizeof(*b->reports));
	harness_add(&b->h, "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\","
			   "\"metadata\":{\"name\":\"harvester-longhorn\"},\"provisioner\":"
			   "\"driver.longhorn.io\",\"parameters\":{\"migratable\":\"true\"}}");
	for (size_t i = 0; i < n; i++) {
		char name[32], buf[2048];
		snprintf(name, sizeof(name), "node-%04zu", i);
		snprintf(buf, sizeof(buf),
			 "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\"},"
			 "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
			 name);
		harness_add(&b->h, buf);
		struct node_report *r = &b->reports[i];
		*r = (struct node_report){.node = xstrdup(name), .hostname = xstrdup(name)};
		struct kv_list *cpu = kv_add_map(&r->facts, "cpu");
		kv_add_str(cpu, "arch", "x86");
		kv_add_str(cpu, "vendor", "GenuineIntel");
		struct value_list *fl = kv_add_list(cpu, "flags");
		/* One node in 50 lacks avx512f (a different model), one in 7 has
		 * hwp (the firmware hands power management to the OS). */
		for (size_t k = 0; k < ELEMENTSOF(xeon_flags); k++)
			if (i % 50 != 0 || strcmp(xeon_flags[k], "avx512f") != 0)
				vlist_add_str(fl, xeon_flags[k]);
		if (i % 7 == 0)
			vlist_add_str(fl, "hwp");
		finding_set(finding_list_add(&r->results, "host.kvm"), STATUS_PASS, "kvm");
		b->nodes[i] = (struct node_entry){.report = r, .from_file = true};
		/* Two running VMIs per node, each on its Longhorn PVC. */
		for (int v = 0; v < 2; v++) {
			char vm[48];
			snprintf(vm, sizeof(vm), "vm-%04zu-%d", i, v);
			snprintf(buf, sizeof(buf),
				 "{\"apiVersion\":\"kubevirt.io/"
				 "v1\",\"kind\":\"VirtualMachineInstance\","
				 "\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns%zu\"},\"spec\":{"
				 "\"volumes\":[{\"name\":\"disk\",\"persistentVolumeClaim\":{"
				 "\"claimName\":\"%s-disk\"}}]},\"status\":{\"phase\":\"Running\","
				 "\"nodeName\":\"%s\",\"conditions\":[{\"type\":\"LiveMigratable\","
				 "\"status\":\"True\"}]}}",
				 vm, i % 10, vm, name);
			harness_add(&b->h, buf);
			snprintf(buf, sizeof(buf),
				 "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\","
				 "\"metadata\":"
				 "{\"name\":\"%s-disk\",\"namespace\":\"ns%zu\"},\"spec\":{"
				 "\"accessModes\":[\"ReadWriteMany\"],\"volumeMode\":\"Block\","
				 "\"storageClassName\":\"harvester-longhorn\",\"volumeName\":\"pvc-"
				 "%s\"}}",
				 vm, i % 10, vm);
			harness_add(&b->h, buf);
			snprintf(
			    buf, sizeof(buf),
			    "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{"
			    "\"name\":\"pvc-%s\"},\"spec\":{\"csi\":{\"driver\":"
			    "\"driver.longhorn.io\",\"volumeHandle\":\"pvc-%s\"}}}",
			    vm, vm);
			harness_add(&b->h, buf);
			snprintf(
			    buf, sizeof(buf),
			    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\","
			    "\"metadata\":{\"name\":\"pvc-%s\",\"namespace\":\"longhorn-system\"},"
			    "\"status\":{\"robustness\":\"healthy\"}}",
			    vm);
			harness_add(&b->h, buf);
		}
	}
}

/* The rest of a Harvester cluster at the same scale, so that every API check
 * has per-node and per-VM objects to join: the singletons that make the checks
 * run (Harvester, KubeVirt, CDI, CoreDNS, the Longhorn settings and snapshot
 * class), and per node a Longhorn node, a ShareManager with its RWX Filesystem
 * PVC, volume and pod, and per VM its VirtualMachine, DataVolume, virt-launcher
 * pod, Longhorn replica, engine and snapshot, and a CSI VolumeSnapshot with its
 * content. */
static void big_build_full(struct big *b, size_t n)
{
	big_build(b, n);
	static const char *const singletons[] = {
	    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
	    "\"harvester\",\"namespace\":\"harvester-system\"},\"status\":{\"replicas\":1,"
	    "\"readyReplicas\":1}}",
	    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
	    "\"rke2-coredns-rke2-coredns\",\"namespace\":\"kube-system\",\"labels\":{\"k8s-app\":"
	    "\"kube-dns\"}},\"spec\":{\"replicas\":2},\"status\":{\"replicas\":2,"
	    "\"readyReplicas\":2}}",
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"KubeVirt\",\"metadata\":{\"name\":"
	    "\"kubevirt\",\"namespace\":\"harvester-system\",\"generation\":1},\"spec\":{"
	    "\"configuration\":{\"developerConfiguration\":{\"featureGates\":[\"Snapshot\"]}}},"
	    "\"status\":{\"phase\":\"Deployed\",\"observedKubeVirtVersion\":\"v1.7.4\","
	    "\"conditions\":[{\"type\":\"Available\",\"status\":\"True\"}]}}",
	    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"CDI\",\"metadata\":{\"name\":"
	    "\"cdi\"},\"status\":{\"phase\":\"Deployed\",\"observedVersion\":\"v1.64.0\","
	    "\"conditions\":[{\"type\":\"Available\",\"status\":\"True\"}]}}",
	    "{\"apiVersion\":\"snapshot.storage.k8s.io/v1\",\"kind\":\"VolumeSnapshotClass\","
	    "\"metadata\":{\"name\":\"longhorn-snapshot\",\"annotations\":{\"snapshot.storage."
	    "kubernetes.io/is-default-class\":\"true\"}},\"driver\":\"driver.longhorn.io\","
	    "\"deletionPolicy\":\"Delete\",\"parameters\":{\"type\":\"snap\"}}",
	    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Setting\",\"metadata\":{\"name\":"
	    "\"default-replica-count\",\"namespace\":\"longhorn-system\"},\"value\":\"3\"}",
	    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Setting\",\"metadata\":{\"name\":"
	    "\"current-longhorn-version\",\"namespace\":\"longhorn-system\"},\"value\":"
	    "\"v1.11.2\"}",
	    "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{"
	    "\"name\":\"longhorn-rwx\"},\"provisioner\":\"driver.longhorn.io\",\"parameters\":{"
	    "\"numberOfReplicas\":\"3\"}}",
	};
	for (size_t i = 0; i < ELEMENTSOF(singletons); i++)
		harness_add(&b->h, singletons[i]);
	for (size_t i = 0; i < n; i++) {
		char node[32], buf[2048];
		snprintf(node, sizeof(node), "node-%04zu", i);
		snprintf(buf, sizeof(buf),
			 "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Node\",\"metadata\":{"
			 "\"name\":\"%s\",\"namespace\":\"longhorn-system\"},\"spec\":{"
			 "\"allowScheduling\":true,\"disks\":{\"default-disk\":{\"path\":"
			 "\"/var/lib/longhorn\",\"allowScheduling\":true,\"diskType\":"
			 "\"filesystem\"}}},\"status\":{\"conditions\":[{\"type\":\"Ready\","
			 "\"status\":\"True\"},{\"type\":\"Schedulable\",\"status\":\"True\"}],"
			 "\"diskStatus\":{\"default-disk\":{\"storageMaximum\":1000000000000,"
			 "\"storageAvailable\":800000000000,\"conditions\":[{\"type\":\"Ready\","
			 "\"status\":\"True\"},{\"type\":\"Schedulable\",\"status\":\"True\"}]}}}}",
			 node);
		harness_add(&b->h, buf);
		/* One RWX Filesystem share per node. */
		snprintf(
		    buf, sizeof(buf),
		    "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{"
		    "\"name\":\"share-%04zu\",\"namespace\":\"ns%zu\"},\"spec\":{\"accessModes\":"
		    "[\"ReadWriteMany\"],\"volumeMode\":\"Filesystem\",\"storageClassName\":"
		    "\"longhorn-rwx\",\"volumeName\":\"pvc-share-%04zu\"},\"status\":{"
		    "\"phase\":\"Bound\"}}",
		    i, i % 10, i);
		harness_add(&b->h, buf);
		snprintf(
		    buf, sizeof(buf),
		    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":{"
		    "\"name\":\"pvc-share-%04zu\",\"namespace\":\"longhorn-system\"},\"spec\":{"
		    "\"accessMode\":\"rwx\",\"numberOfReplicas\":3},\"status\":{\"state\":"
		    "\"attached\",\"robustness\":\"healthy\",\"currentNodeID\":\"%s\","
		    "\"shareEndpoint\":\"nfs://10.43.%zu.%zu/pvc-share-%04zu\",\"shareState\":"
		    "\"running\"}}",
		    i, node, i / 250, i % 250, i);
		harness_add(&b->h, buf);
		snprintf(buf, sizeof(buf),
			 "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"ShareManager\","
			 "\"metadata\":{\"name\":\"pvc-share-%04zu\",\"namespace\":"
			 "\"longhorn-system\"},\"status\":{\"state\":\"running\",\"endpoint\":"
			 "\"nfs://10.43.%zu.%zu/pvc-share-%04zu\",\"ownerID\":\"%s\"}}",
			 i, i / 250, i % 250, i, node);
		harness_add(&b->h, buf);
		snprintf(buf, sizeof(buf),
			 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
			 "\"share-manager-pvc-share-%04zu\",\"namespace\":\"longhorn-system\","
			 "\"labels\":{\"longhorn.io/component\":\"share-manager\","
			 "\"longhorn.io/share-manager\":\"pvc-share-%04zu\"}},\"spec\":{"
			 "\"nodeName\":\"%s\"},\"status\":{\"phase\":\"Running\","
			 "\"containerStatuses\":[{\"name\":\"share-manager\",\"ready\":true,"
			 "\"restartCount\":0}]}}",
			 i, i, node);
		harness_add(&b->h, buf);
		for (int v = 0; v < 2; v++) {
			char vm[48];
			snprintf(vm, sizeof(vm), "vm-%04zu-%d", i, v);
			snprintf(buf, sizeof(buf),
				 "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachine\","
				 "\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns%zu\"},\"spec\":{"
				 "\"runStrategy\":\"RerunOnFailure\",\"template\":{\"spec\":{"
				 "\"volumes\":[{\"name\":\"disk\",\"persistentVolumeClaim\":{"
				 "\"claimName\":\"%s-disk\"}}]}}},\"status\":{\"printableStatus\":"
				 "\"Running\"}}",
				 vm, i % 10, vm);
			harness_add(&b->h, buf);
			snprintf(
			    buf, sizeof(buf),
			    "{\"apiVersion\":\"cdi.kubevirt.io/v1beta1\",\"kind\":\"DataVolume\","
			    "\"metadata\":{\"name\":\"%s-disk\",\"namespace\":\"ns%zu\"},"
			    "\"spec\":{\"source\":{\"blank\":{}}},\"status\":{\"phase\":"
			    "\"Succeeded\",\"progress\":\"100.0%%\"}}",
			    vm, i % 10);
			harness_add(&b->h, buf);
			snprintf(
			    buf, sizeof(buf),
			    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
			    "\"virt-launcher-%s-abcde\",\"namespace\":\"ns%zu\",\"labels\":{"
			    "\"kubevirt.io\":\"virt-launcher\",\"vm.kubevirt.io/name\":\"%s\"},"
			    "\"ownerReferences\":[{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":"
			    "\"VirtualMachineInstance\",\"name\":\"%s\",\"controller\":true}]},"
			    "\"spec\":{\"nodeName\":\"%s\"},\"status\":{\"phase\":\"Running\","
			    "\"containerStatuses\":[{\"name\":\"compute\",\"ready\":true,"
			    "\"restartCount\":0}]}}",
			    vm, i % 10, vm, vm, node);
			harness_add(&b->h, buf);
			snprintf(buf, sizeof(buf),
				 "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Replica\","
				 "\"metadata\":{\"name\":\"pvc-%s-r-0\",\"namespace\":"
				 "\"longhorn-system\"},\"spec\":{\"volumeName\":\"pvc-%s\","
				 "\"nodeID\":\"%s\"},\"status\":{\"currentState\":\"running\"}}",
				 vm, vm, node);
			harness_add(&b->h, buf);
			snprintf(buf, sizeof(buf),
				 "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Engine\","
				 "\"metadata\":{\"name\":\"pvc-%s-e-0\",\"namespace\":"
				 "\"longhorn-system\"},\"spec\":{\"volumeName\":\"pvc-%s\","
				 "\"nodeID\":\"%s\"},\"status\":{\"currentState\":\"running\","
				 "\"replicaModeMap\":{\"pvc-%s-r-0\":\"RW\"}}}",
				 vm, vm, node, vm);
			harness_add(&b->h, buf);
			snprintf(
			    buf, sizeof(buf),
			    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Snapshot\","
			    "\"metadata\":{\"name\":\"snapshot-%s\",\"namespace\":"
			    "\"longhorn-system\"},\"spec\":{\"volume\":\"pvc-%s\"},\"status\":{"
			    "\"readyToUse\":true}}",
			    vm, vm);
			harness_add(&b->h, buf);
			snprintf(
			    buf, sizeof(buf),
			    "{\"apiVersion\":\"snapshot.storage.k8s.io/v1\",\"kind\":"
			    "\"VolumeSnapshot\",\"metadata\":{\"name\":\"vs-%s\",\"namespace\":"
			    "\"ns%zu\"},\"spec\":{\"source\":{\"persistentVolumeClaimName\":"
			    "\"%s-disk\"},\"volumeSnapshotClassName\":\"longhorn-snapshot\"},"
			    "\"status\":{\"readyToUse\":true,\"boundVolumeSnapshotContentName\":"
			    "\"snapcontent-%s\"}}",
			    vm, i % 10, vm, vm);
			harness_add(&b->h, buf);
			snprintf(
			    buf, sizeof(buf),
			    "{\"apiVersion\":\"snapshot.storage.k8s.io/v1\",\"kind\":"
			    "\"VolumeSnapshotContent\",\"metadata\":{\"name\":\"snapcontent-%s\"},"
			    "\"spec\":{\"driver\":\"driver.longhorn.io\",\"volumeSnapshotRef\":{"
			    "\"name\":\"vs-%s\",\"namespace\":\"ns%zu\"}},\"status\":{"
			    "\"readyToUse\":true,\"snapshotHandle\":\"snap://pvc-%s/"
			    "snapshot-%s\"}}",
			    vm, vm, i % 10, vm, vm);
			harness_add(&b->h, buf);
		}
	}
}

static void big_clear(struct big *b)
{
	for (size_t i = 0; i < b->n; i++)
		node_report_clear(&b->reports[i]);
	free(b->reports);
	free(b->nodes);
	harness_clear(&b->h);
}

/* The comparisons one check makes, run as the engine runs it. */
static unsigned long long big_count(struct big *b, const char *id)
{
	struct engine_opts eo = {0};
	for (size_t i = 0; i < catalog_len; i++)
		if (strcmp(catalog[i].id, id) != 0)
			strv_add(&eo.skip, catalog[i].id);
	struct agg_ctx ctx = harness_ctx(&b->h);
	ctx.nodes = b->nodes;
	ctx.n_nodes = b->n;
	comparisons = 0;
	counting = true;
	engine_run(&ctx, &eo);
	counting = false;
	strv_clear(&eo.skip);
	return comparisons;
}

static const struct finding *big_finding(struct big *b, const char *id)
{
	for (size_t i = 0; i < b->h.out.n; i++)
		if (strcmp(b->h.out.items[i].check, id) == 0)
			return &b->h.out.items[i];
	fail_msg("no finding for %s", id);
	return NULL;
}

static void check_grows_linearly(const char *id)
{
	unsigned long long c[2];
	size_t sizes[2] = {500, 1000};
	for (int s = 0; s < 2; s++) {
		struct big b;
		big_build(&b, sizes[s]);
		c[s] = big_count(&b, id);
		const struct finding *f = big_finding(&b, id);
		/* The work was done: not a SKIP or UNKNOWN that compared nothing. */
		if (streq(id, "cluster.cpu.compat")) {
			assert_int_equal(f->status, STATUS_WARN);
			int64_t kvm_nodes = -1;
			assert_true(kv_get_int(&f->evidence, "kvm_nodes", &kvm_nodes));
			assert_int_equal(kvm_nodes, (int64_t)sizes[s]);
			const struct value *lack = kv_get(&f->evidence, "flags_lacking");
			assert_non_null(lack);
			assert_int_equal(lack->map.n, sizes[s] / 50);
		} else {
			assert_int_equal(f->status, STATUS_PASS);
		}
		big_clear(&b);
	}
	print_message("%s: %llu comparisons at 500 nodes, %llu at 1000 (x%.2f)\n", id, c[0], c[1],
		      (double)c[1] / (double)c[0]);
	assert_true(c[0] > 0);
	/* n log n from 500 to 1000 is x2.22 at most; quadratic is x4. */
	assert_true((double)c[1] <= 2.3 * (double)c[0]);
}

static void test_cpu_compat_linear(void **state)
{
	(void)state;
	check_grows_linearly("cluster.cpu.compat");
}

static void test_vm_joins_linear(void **state)
{
	(void)state;
	check_grows_linearly("api.vm.live-migratable");
}

/* Every aggregator check, on the whole cluster: none may grow faster than
 * n log n between 500 and 1,000 nodes. A check that compares next to nothing
 * at both sizes (a singleton it looks up by name) passes trivially. */
static void test_every_check_linear(void **state)
{
	(void)state;
	size_t sizes[2] = {500, 1000};
	struct big b[2];
	for (int s = 0; s < 2; s++)
		big_build_full(&b[s], sizes[s]);
	unsigned failures = 0;
	for (size_t i = 0; i < catalog_len; i++) {
		if (catalog[i].source == CHECK_HOST)
			continue;
		unsigned long long c[2];
		for (int s = 0; s < 2; s++) {
			size_t before = b[s].h.out.n;
			c[s] = big_count(&b[s], catalog[i].id);
			assert_true(b[s].h.out.n > before); /* it produced findings */
		}
		double ratio = c[0] ? (double)c[1] / (double)c[0] : 0;
		print_message("%-32s %10llu at 500 nodes, %10llu at 1000 (x%.2f)\n", catalog[i].id,
			      c[0], c[1], ratio);
		if (c[1] > 2000 && (double)c[1] > 2.3 * (double)c[0]) {
			print_message("  %s grows faster than n log n\n", catalog[i].id);
			failures++;
		}
	}
	for (int s = 0; s < 2; s++)
		big_clear(&b[s]);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpu_compat_linear),
	    cmocka_unit_test(test_vm_joins_linear),
	    cmocka_unit_test(test_every_check_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
