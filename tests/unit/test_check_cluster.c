/* Cross-node checks (docs/checks.md, cluster.*). */
#include "agg_harness.h"
#include "fixtures_k8s.h"

#define NODE_JSON(name, ready, host)                                                               \
	"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" name "\"},"           \
	"\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"},"           \
	"{\"type\":\"Hostname\",\"address\":\"" host "\"}],"                                       \
	"\"conditions\":[{\"type\":\"Ready\",\"status\":\"" ready "\"}]}}"

static struct node_report reports[16];

static struct node_report *mkreport(struct harness *h, const char *node, const char *host,
				    int64_t age_s, bool from_file)
{
	struct node_report *r = &reports[h->n_nodes];
	*r = (struct node_report){
	    .node = xstrdup(node),
	    .hostname = xstrdup(host),
	    .sent_ns = h->now_ns - age_s * NSEC_PER_SEC,
	    .interval_s = 30,
	};
	h->nodes[h->n_nodes++] = (struct node_entry){
	    .report = r,
	    .received_ns = from_file ? 0 : h->now_ns,
	    .from_file = from_file,
	};
	return r;
}

static void set_cpu(struct node_report *r, const char *vendor, const char *flags, bool kvm_ok)
{
	struct kv_list *cpu = kv_add_map(&r->facts, "cpu");
	kv_add_str(cpu, "arch", streq(vendor, "ARM") ? "arm" : "x86");
	kv_add_str(cpu, "vendor", vendor);
	struct value_list *fl = kv_add_list(cpu, "flags");
	struct strv v = {0};
	strv_split(&v, flags, " ");
	for (size_t i = 0; i < v.n; i++)
		vlist_add_str(fl, v.items[i]);
	strv_clear(&v);
	finding_set(finding_list_add(&r->results, "host.kvm"), kvm_ok ? STATUS_PASS : STATUS_FAIL,
		    "kvm");
}

static void clear_reports(struct harness *h)
{
	for (size_t i = 0; i < h->n_nodes; i++)
		node_report_clear(&reports[i]);
	harness_clear(h);
}

static void test_reporting(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	harness_add(&h, NODE_JSON("n2", "True", "n2"));
	harness_add(&h, NODE_JSON("n3", "False", "n3"));
	mkreport(&h, "n1", "n1", 10, false);
	mkreport(&h, "n2", "n2", 10, false);
	harness_run(&h, "cluster.nodes.reporting");
	assert_int_equal(harness_status(&h, "cluster.nodes.reporting"), STATUS_PASS);
	clear_reports(&h);

	/* n2 silent for more than 3 intervals: UNKNOWN for that node, no PASS. */
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	harness_add(&h, NODE_JSON("n2", "True", "n2"));
	mkreport(&h, "n1", "n1", 10, false);
	mkreport(&h, "n2", "n2", 91, false);
	harness_run(&h, "cluster.nodes.reporting");
	assert_int_equal(harness_status(&h, "cluster.nodes.reporting"), STATUS_UNKNOWN);
	const struct finding *f = harness_finding(&h, "cluster.nodes.reporting", "Node/n2");
	assert_string_equal(f->node, "n2");
	assert_non_null(strstr(f->message, "91s old"));
	clear_reports(&h);

	/* Offline: a file counts whatever its age; no report at all is UNKNOWN. */
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	harness_add(&h, NODE_JSON("n2", "True", "n2"));
	mkreport(&h, "n1", "n1", 86400, true);
	harness_run(&h, "cluster.nodes.reporting");
	assert_int_equal(harness_status(&h, "cluster.nodes.reporting"), STATUS_UNKNOWN);
	f = harness_finding(&h, "cluster.nodes.reporting", "Node/n2");
	assert_non_null(strstr(f->message, "no agent report"));
	clear_reports(&h);

	/* A report under a name that is no node: WARN. */
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	mkreport(&h, "n1", "n1", 1, false);
	mkreport(&h, "typo", "n1", 1, false);
	harness_run(&h, "cluster.nodes.reporting");
	assert_int_equal(harness_status(&h, "cluster.nodes.reporting"), STATUS_WARN);
	clear_reports(&h);

	/* Nodes not collected: UNKNOWN via the engine. */
	harness_init(&h);
	cs_set_status(&h.cs, RES_NODES, RES_NOT_COLLECTED, NULL);
	harness_run(&h, "cluster.nodes.reporting");
	assert_int_equal(harness_status(&h, "cluster.nodes.reporting"), STATUS_UNKNOWN);
	clear_reports(&h);
}

static void test_count(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	harness_add(&h, NODE_JSON("n2", "True", "n2"));
	harness_add(&h, NODE_JSON("n3", "False", "n3"));
	harness_run(&h, "cluster.nodes.count");
	assert_int_equal(harness_status(&h, "cluster.nodes.count"), STATUS_WARN);
	harness_clear(&h);
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	harness_add(&h, NODE_JSON("n2", "True", "n2"));
	harness_add(&h, NODE_JSON("n3", "True", "n3"));
	harness_run(&h, "cluster.nodes.count");
	assert_int_equal(harness_status(&h, "cluster.nodes.count"), STATUS_PASS);
	harness_clear(&h);
}

/* Harvester 1.3+ two nodes + witness (harvester/harvester
 * enhancements/20231113-witness-node-support.md): 3 Ready nodes, but the witness
 * carries node-role.kubernetes.io/etcd=true:NoExecute and runs no longhorn-manager, so
 * only 2 can hold replicas. A cordoned node (node.kubernetes.io/unschedulable, which
 * DaemonSets tolerate) and a taint Longhorn's taint-toleration setting names still count. */
static void test_count_tainted(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "nodes/harvester-witness-3.json");
	harness_run(&h, "cluster.nodes.count");
	const struct finding *f = harness_finding(&h, "cluster.nodes.count", NULL);
	assert_int_equal(f->status, STATUS_WARN);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "ready_nodes", &n));
	assert_int_equal(n, 3);
	assert_true(kv_get_int(&f->evidence, "replica_nodes", &n));
	assert_int_equal(n, 2);
	assert_true(harness_list_has(
	    f, "excluded_nodes",
	    "harvester-node-2: taint node-role.kubernetes.io/etcd=true:NoExecute"));
	assert_non_null(strstr(f->message, "2 nodes can hold"));
	harness_clear(&h);

	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	harness_add(&h,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n2\"},"
		    "\"spec\":{\"unschedulable\":true,\"taints\":[{\"key\":\"node.kubernetes.io/"
		    "unschedulable\",\"effect\":\"NoSchedule\"}]},\"status\":{\"conditions\":[{"
		    "\"type\":\"Ready\",\"status\":\"True\"}]}}");
	harness_add(&h,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n3\"},"
		    "\"spec\":{\"taints\":[{\"key\":\"dedicated\",\"value\":\"storage\","
		    "\"effect\":\"NoSchedule\"},{\"key\":\"x\",\"effect\":\"PreferNoSchedule\"}]},"
		    "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
	harness_add(&h,
		    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Setting\",\"metadata\":{"
		    "\"name\":\"taint-toleration\",\"namespace\":\"longhorn-system\"},\"value\":"
		    "\"kubevirt.io/drain:NoSchedule; dedicated=storage:NoSchedule\"}");
	harness_run(&h, "cluster.nodes.count");
	assert_int_equal(harness_status(&h, "cluster.nodes.count"), STATUS_PASS);
	harness_clear(&h);
}

/* A 2-node cluster whose Longhorn places 2 replicas: PASS (the old code
 * warned about 3 replicas while api.longhorn.node-disk judged 2). The count is
 * read per data engine: Longhorn 1.10's JSON form {"v1":"2","v2":"3"} gives
 * the v1 engine 2 (longhorn/longhorn-manager#3936). */
static void test_count_replica_setting(void **state)
{
	static const char *const two[] = {"\"2\"",
					  "\"{\\\"v1\\\":\\\"2\\\",\\\"v2\\\":\\\"3\\\"}\""};
	for (size_t i = 0; i < 2; i++) {
		struct harness h;
		harness_init(&h);
		harness_add(&h, NODE_JSON("n1", "True", "n1"));
		harness_add(&h, NODE_JSON("n2", "True", "n2"));
		harness_add(&h, lh_setting("default-replica-count", two[i]));
		harness_run(&h, "cluster.nodes.count");
		const struct finding *f = harness_finding(&h, "cluster.nodes.count", NULL);
		assert_int_equal(f->status, STATUS_PASS);
		assert_non_null(strstr(f->message, "2 replicas can be placed apart"));
		assert_non_null(
		    strstr(kv_get_str(&f->evidence, "default_replica_count"), "2 (setting value"));
		harness_clear(&h);
	}

	/* 3 replicas asked of 2 nodes: WARN naming the setting's value. */
	struct harness h;
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	harness_add(&h, NODE_JSON("n2", "True", "n2"));
	harness_add(&h, lh_setting("default-replica-count", "\"{\\\"v1\\\":\\\"3\\\"}\""));
	harness_run(&h, "cluster.nodes.count");
	const struct finding *f = harness_finding(&h, "cluster.nodes.count", NULL);
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "default-replica-count 3 cannot be placed"));
	harness_clear(&h);

	/* Unreadable: UNKNOWN, not a guess. */
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	harness_add(&h, lh_setting("default-replica-count", "\"three\""));
	harness_run(&h, "cluster.nodes.count");
	assert_int_equal(harness_status(&h, "cluster.nodes.count"), STATUS_UNKNOWN);
	harness_clear(&h);

	/* A witness labelled but not (yet) tainted holds no replica: 3 Ready nodes,
	 * 2 usable, 3 replicas wanted → WARN. */
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "n1"));
	harness_add(&h, NODE_JSON("n2", "True", "n2"));
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"w\","
			"\"labels\":{\"node-role.harvesterhci.io/witness\":\"true\"}},\"status\":{"
			"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
	harness_run(&h, "cluster.nodes.count");
	f = harness_finding(&h, "cluster.nodes.count", NULL);
	assert_int_equal(f->status, STATUS_WARN);
	assert_true(harness_list_has(f, "excluded_nodes",
				     "w: label node-role.harvesterhci.io/witness=true"));
	harness_clear(&h);
}

static void test_skew(void **state)
{
	struct harness h;
	harness_init(&h);
	mkreport(&h, "n1", "n1", 0, false);
	mkreport(&h, "n2", "n2", 0, false);
	mkreport(&h, "n3", "n3", 0, false);
	h.nodes[1].received_ns += 700 * NSEC_PER_MSEC; /* 700 ms behind: WARN */
	h.nodes[2].received_ns -= 3 * NSEC_PER_SEC;    /* 3 s ahead: FAIL */
	h.nodes[0].received_ns += 300 * NSEC_PER_MSEC; /* 300 ms but rtt 400: 100 ms */
	h.nodes[0].rtt_ns = 400 * NSEC_PER_MSEC;
	harness_run(&h, "cluster.clock.skew");
	assert_int_equal(harness_status(&h, "cluster.clock.skew"), STATUS_FAIL);
	size_t fails = 0, warns = 0;
	for (size_t i = 0; i < h.out.n; i++) {
		if (!h.out.items[i].node)
			continue;
		fails += h.out.items[i].status == STATUS_FAIL;
		warns += h.out.items[i].status == STATUS_WARN;
		assert_string_not_equal(h.out.items[i].node, "n1");
	}
	assert_int_equal(fails, 1);
	assert_int_equal(warns, 1);
	clear_reports(&h);

	harness_init(&h);
	mkreport(&h, "n1", "n1", 0, true);
	harness_run(&h, "cluster.clock.skew");
	assert_int_equal(harness_status(&h, "cluster.clock.skew"), STATUS_SKIP);
	clear_reports(&h);

	harness_init(&h);
	harness_run(&h, "cluster.clock.skew");
	assert_int_equal(harness_status(&h, "cluster.clock.skew"), STATUS_UNKNOWN);
	clear_reports(&h);
}

static void test_cpu_compat(void **state)
{
	struct harness h;
	harness_init(&h);
	set_cpu(mkreport(&h, "n1", "n1", 0, true), "GenuineIntel", "fpu vmx avx2", true);
	set_cpu(mkreport(&h, "n2", "n2", 0, true), "GenuineIntel", "fpu vmx avx2", true);
	harness_run(&h, "cluster.cpu.compat");
	assert_int_equal(harness_status(&h, "cluster.cpu.compat"), STATUS_PASS);
	clear_reports(&h);

	harness_init(&h);
	set_cpu(mkreport(&h, "n1", "n1", 0, true), "GenuineIntel", "fpu vmx avx2 avx512f", true);
	set_cpu(mkreport(&h, "n2", "n2", 0, true), "GenuineIntel", "fpu vmx avx2", true);
	set_cpu(mkreport(&h, "n3", "n3", 0, true), "AuthenticAMD", "fpu svm", false); /* no KVM */
	harness_run(&h, "cluster.cpu.compat");
	assert_int_equal(harness_status(&h, "cluster.cpu.compat"), STATUS_WARN);
	const struct finding *f = harness_finding(&h, "cluster.cpu.compat", NULL);
	const struct value *lack = kv_get(&f->evidence, "flags_lacking");
	assert_non_null(lack);
	assert_int_equal(lack->map.n, 1);
	assert_string_equal(lack->map.items[0].key, "n2");
	assert_string_equal(lack->map.items[0].val.list.items[0].s, "avx512f");
	clear_reports(&h);

	harness_init(&h);
	set_cpu(mkreport(&h, "n1", "n1", 0, true), "GenuineIntel", "fpu vmx", true);
	set_cpu(mkreport(&h, "n2", "n2", 0, true), "AuthenticAMD", "fpu svm", true);
	harness_run(&h, "cluster.cpu.compat");
	assert_int_equal(harness_status(&h, "cluster.cpu.compat"), STATUS_FAIL);
	clear_reports(&h);

	/* A KVM node without CPU facts: never PASS. */
	harness_init(&h);
	set_cpu(mkreport(&h, "n1", "n1", 0, true), "GenuineIntel", "fpu vmx", true);
	set_cpu(mkreport(&h, "n2", "n2", 0, true), "GenuineIntel", "fpu vmx", true);
	struct node_report *r3 = mkreport(&h, "n3", "n3", 0, true);
	finding_set(finding_list_add(&r3->results, "host.kvm"), STATUS_PASS, "kvm");
	harness_run(&h, "cluster.cpu.compat");
	assert_int_equal(harness_status(&h, "cluster.cpu.compat"), STATUS_UNKNOWN);
	clear_reports(&h);

	harness_init(&h);
	harness_run(&h, "cluster.cpu.compat");
	assert_int_equal(harness_status(&h, "cluster.cpu.compat"), STATUS_UNKNOWN);
	clear_reports(&h);
}

/* Two Xeon Gold 6230 nodes as /proc/cpuinfo shows them: n1 on Ubuntu 20.04's
 * 5.4 kernel with the firmware's power management handed to the OS (hwp, ida),
 * RDT on and nested in nothing; n2 on Harvester's 5.14 kernel with the
 * firmware keeping power management, x2APIC disabled in the firmware and
 * newer kernel-only flags (split_lock_detect, tsc_known_freq). */
#define XEON_6230_GUEST                                                                            \
	"fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx "     \
	"fxsr sse sse2 ss syscall nx pdpe1gb rdtscp lm pni pclmulqdq vmx ssse3 fma cx16 pdcm "     \
	"pcid sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch "     \
	"ssbd ibrs ibpb stibp ibrs_enhanced fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid " \
	"avx512f avx512dq rdseed adx smap clflushopt clwb avx512cd avx512bw avx512vl xsaveopt "    \
	"xsavec xgetbv1 xsaves arat pku ospke avx512_vnni flush_l1d arch_capabilities "
#define XEON_6230_N1                                                                               \
	XEON_6230_GUEST                                                                            \
	"md_clear dts acpi ht tm pbe constant_tsc art arch_perfmon pebs bts "                      \
	"rep_good nopl xtopology nonstop_tsc cpuid aperfmperf dtes64 monitor ds_cpl "              \
	"smx est tm2 xtpr dca x2apic tsc_deadline_timer cpuid_fault epb cat_l3 "                   \
	"cdp_l3 invpcid_single intel_ppin mba tpr_shadow vnmi flexpriority ept vpid "              \
	"ept_ad cqm rdt_a cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local dtherm "               \
	"ida pln pts hwp hwp_act_window hwp_epp hwp_pkg_req"
#define XEON_6230_N2_NO_MD_CLEAR                                                                   \
	XEON_6230_GUEST "dts acpi ht tm pbe constant_tsc arch_perfmon rep_good nopl xtopology "    \
			"nonstop_tsc cpuid tsc_known_freq dtes64 ds_cpl est tm2 xtpr "             \
			"split_lock_detect"

static void test_cpu_compat_host_only_flags(void **state)
{
	/* Same CPU, different kernels and firmware settings: no WARN, and the
	 * differences ignored are in the evidence. */
	struct harness h;
	harness_init(&h);
	set_cpu(mkreport(&h, "n1", "n1", 0, true), "GenuineIntel", XEON_6230_N1, true);
	set_cpu(mkreport(&h, "n2", "n2", 0, true), "GenuineIntel",
		XEON_6230_N2_NO_MD_CLEAR " md_clear", true);
	harness_run(&h, "cluster.cpu.compat");
	assert_int_equal(harness_status(&h, "cluster.cpu.compat"), STATUS_PASS);
	const struct finding *f = harness_finding(&h, "cluster.cpu.compat", NULL);
	assert_null(kv_get(&f->evidence, "flags_lacking"));
	const struct value *ign = kv_get(&f->evidence, "differing_host_only_flags");
	assert_non_null(ign);
	bool saw_hwp = false, saw_x2apic = false, saw_split = false;
	for (size_t i = 0; i < ign->list.n; i++) {
		saw_hwp |= streq(ign->list.items[i].s, "hwp");
		saw_x2apic |= streq(ign->list.items[i].s, "x2apic");
		saw_split |= streq(ign->list.items[i].s, "split_lock_detect");
	}
	assert_true(saw_hwp && saw_x2apic && saw_split);
	clear_reports(&h);

	/* n2's microcode predates MDS: md_clear is part of the host-model CPU, so
	 * VMs started on n1 cannot move to n2. Only md_clear is named. */
	harness_init(&h);
	set_cpu(mkreport(&h, "n1", "n1", 0, true), "GenuineIntel", XEON_6230_N1, true);
	set_cpu(mkreport(&h, "n2", "n2", 0, true), "GenuineIntel", XEON_6230_N2_NO_MD_CLEAR, true);
	harness_run(&h, "cluster.cpu.compat");
	assert_int_equal(harness_status(&h, "cluster.cpu.compat"), STATUS_WARN);
	f = harness_finding(&h, "cluster.cpu.compat", NULL);
	const struct value *lack = kv_get(&f->evidence, "flags_lacking");
	assert_non_null(lack);
	assert_int_equal(lack->map.n, 1);
	assert_string_equal(lack->map.items[0].key, "n2");
	assert_int_equal(lack->map.items[0].val.list.n, 1);
	assert_string_equal(lack->map.items[0].val.list.items[0].s, "md_clear");
	clear_reports(&h);

	/* arm64 (Ampere Altra): "sme" is the Scalable Matrix Extension there and
	 * counts; evtstrm (a kernel timer option) does not. */
	harness_init(&h);
	set_cpu(mkreport(&h, "a1", "a1", 0, true), "ARM",
		"fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics cpuid sme", true);
	set_cpu(mkreport(&h, "a2", "a2", 0, true), "ARM",
		"fp asimd aes pmull sha1 sha2 crc32 atomics cpuid", true);
	harness_run(&h, "cluster.cpu.compat");
	assert_int_equal(harness_status(&h, "cluster.cpu.compat"), STATUS_WARN);
	f = harness_finding(&h, "cluster.cpu.compat", NULL);
	lack = kv_get(&f->evidence, "flags_lacking");
	assert_int_equal(lack->map.items[0].val.list.n, 1);
	assert_string_equal(lack->map.items[0].val.list.items[0].s, "sme");
	ign = kv_get(&f->evidence, "differing_host_only_flags");
	assert_int_equal(ign->list.n, 1);
	assert_string_equal(ign->list.items[0].s, "evtstrm");
	clear_reports(&h);
}

static void test_hostname_unique(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "node-a"));
	harness_add(&h, NODE_JSON("n2", "True", "node-b"));
	harness_run(&h, "cluster.hostname.unique");
	assert_int_equal(harness_status(&h, "cluster.hostname.unique"), STATUS_PASS);
	clear_reports(&h);

	/* The agent's own hostname wins over the Node's address; clash is case-insensitive. */
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "node-a"));
	harness_add(&h, NODE_JSON("n2", "True", "node-b"));
	mkreport(&h, "n2", "NODE-A", 0, true);
	harness_run(&h, "cluster.hostname.unique");
	assert_int_equal(harness_status(&h, "cluster.hostname.unique"), STATUS_FAIL);
	clear_reports(&h);

	/* Groups of equal names (ignoring case) in the order of their first
	 * occurrence, named as that spells it; nodes in order; reports from
	 * hosts that are no Kubernetes node after the nodes. */
	harness_init(&h);
	harness_add(&h, NODE_JSON("n1", "True", "web"));
	harness_add(&h, NODE_JSON("n2", "True", "Db"));
	harness_add(&h, NODE_JSON("n3", "True", "WEB"));
	harness_add(&h, NODE_JSON("n4", "True", "db"));
	harness_add(&h, NODE_JSON("n5", "True", "solo"));
	mkreport(&h, "x1", "web", 0, true);
	mkreport(&h, "n5", "solo", 0, true);
	harness_run(&h, "cluster.hostname.unique");
	const struct finding *f = harness_finding(&h, "cluster.hostname.unique", NULL);
	assert_non_null(f);
	assert_int_equal(f->status, STATUS_FAIL);
	int64_t hosts;
	assert_true(kv_get_int(&f->evidence, "hosts", &hosts));
	assert_int_equal(hosts, 6);
	const struct value *d = kv_get(&f->evidence, "duplicates");
	assert_non_null(d);
	assert_int_equal(d->type, VALUE_MAP);
	assert_int_equal(d->map.n, 2);
	assert_string_equal(d->map.items[0].key, "web");
	assert_string_equal(d->map.items[1].key, "Db");
	const struct value_list *web = &d->map.items[0].val.list;
	assert_int_equal(web->n, 3);
	assert_string_equal(web->items[0].s, "n1");
	assert_string_equal(web->items[1].s, "n3");
	assert_string_equal(web->items[2].s, "x1");
	const struct value_list *db = &d->map.items[1].val.list;
	assert_int_equal(db->n, 2);
	assert_string_equal(db->items[0].s, "n2");
	assert_string_equal(db->items[1].s, "n4");
	clear_reports(&h);

	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"x\"}}");
	harness_run(&h, "cluster.hostname.unique");
	assert_int_equal(harness_status(&h, "cluster.hostname.unique"), STATUS_UNKNOWN);
	clear_reports(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reporting),
	    cmocka_unit_test(test_count),
	    cmocka_unit_test(test_count_tainted),
	    cmocka_unit_test(test_count_replica_setting),
	    cmocka_unit_test(test_skew),
	    cmocka_unit_test(test_cpu_compat),
	    cmocka_unit_test(test_cpu_compat_host_only_flags),
	    cmocka_unit_test(test_hostname_unique),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
