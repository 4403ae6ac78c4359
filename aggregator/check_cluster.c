/* Cross-node checks (docs/checks.md, cluster.*): decided from the agents' reports and facts,
 * and from the Kubernetes Node objects. */
#include "checks_api.h"

#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "str_index.h"
#include "longhorn.h"
#include "longhorn_engine.h"

#define SKEW_WARN_NS (500 * NSEC_PER_MSEC)
#define SKEW_FAIL_NS (2 * NSEC_PER_SEC)

/* The reports by node name: a live cluster has thousands of nodes, and a
 * scan of the reports per Kubernetes node is quadratic. */
struct report_index {
	const struct node_entry **e; /* by name, then position */
	size_t n;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct node_entry *x = *(const struct node_entry *const *)a,
				*y = *(const struct node_entry *const *)b;
	int c = strcmp(x->report->node, y->report->node);
	return c ? c : (x > y) - (x < y);
}

static void index_reports(const struct agg_ctx *ctx, struct report_index *ix)
{
	ix->n = ctx->n_nodes;
	ix->e = xcalloc(ix->n ? ix->n : 1, sizeof(*ix->e));
	for (size_t i = 0; i < ix->n; i++)
		ix->e[i] = &ctx->nodes[i];
	if (ix->n)
		qsort(ix->e, ix->n, sizeof(*ix->e), cmp_entry);
}

/* The first report for node, or NULL. */
static const struct node_entry *entry_for(const struct report_index *ix, const char *node)
{
	size_t lo = 0, hi = ix->n;
	if (!node)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ix->e[mid]->report->node, node) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && streq(ix->e[lo]->report->node, node) ? ix->e[lo] : NULL;
}

/* A report is fresh when younger than 3 of the agent's intervals. Offline
 * (files), a report counts when its file is there; its age is shown. */
static bool report_fresh(const struct agg_ctx *ctx, const struct node_entry *e, int64_t *ret_age)
{
	int64_t age = engine_report_age_ns(e, ctx->now_ns, ctx->now_mono_ns);
	*ret_age = age;
	if (e->from_file)
		return true;
	int64_t interval = e->report->interval_s ? (int64_t)e->report->interval_s : ctx->interval_s;
	return age <= 3 * interval * NSEC_PER_SEC;
}

void check_nodes_reporting(struct agg_ctx *ctx, const char *id)
{
	const struct jv *nodes = cs_items(ctx->cs, RES_NODES);
	size_t expected = 0, fresh = 0;
	struct strv not_ready = {0};
	struct report_index ix;
	index_reports(ctx, &ix);
	for (size_t i = 0; i < jq_len(nodes); i++) {
		const struct jv *n = jq_at(nodes, i);
		const char *name = jq_name(n);
		if (!name)
			continue;
		if (!jq_node_ready(n)) {
			strv_add(&not_ready, name);
			continue;
		}
		expected++;
		const struct node_entry *e = entry_for(&ix, name);
		int64_t age = 0;
		if (e && report_fresh(ctx, e, &age)) {
			fresh++;
			continue;
		}
		struct finding *f = agg_object_finding(ctx, id, n);
		struct judge j = {0};
		finding_set_node(f, name);
		if (e) {
			judge_note(&j, STATUS_UNKNOWN,
				   "last report is %llds old (more than 3 intervals)",
				   (long long)(age / NSEC_PER_SEC));
			kv_add_int(&f->evidence, "report_age_seconds", age / NSEC_PER_SEC);
			kv_add_int(&f->evidence, "interval_seconds",
				   e->report->interval_s ? (int64_t)e->report->interval_s
							 : ctx->interval_s);
		} else {
			judge_note(&j, STATUS_UNKNOWN, "no agent report from this Ready node");
		}
		judge_remedy(&j,
			     "check the hvready-agent pod or unit on %s (kubectl -n hvready-system "
			     "get pods -o wide; journalctl -u hvready-agent)",
			     name);
		judge_decide(&j, f, "");
	}
	/* Reports under names that are no Kubernetes node: a wrong --node, or a
	 * host that is not (yet) part of the cluster. */
	for (size_t i = 0; i < ctx->n_nodes; i++) {
		const char *name = ctx->nodes[i].report->node;
		if (cs_find(ctx->cs, RES_NODES, NULL, name))
			continue;
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		finding_set_node(f, name);
		judge_note(&j, STATUS_WARN, "report from \"%s\", which is not a Kubernetes node",
			   name);
		kv_add_str(&f->evidence, "hostname",
			   ctx->nodes[i].report->hostname ? ctx->nodes[i].report->hostname : "");
		judge_remedy(&j, "run the agent with --node set to the node's Kubernetes name "
				 "(the DaemonSet passes spec.nodeName)");
		judge_decide(&j, f, "");
	}
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "ready_nodes", (int64_t)expected);
	kv_add_int(&f->evidence, "reporting", (int64_t)fresh);
	struct value_list *nr = kv_add_list(&f->evidence, "not_ready_nodes");
	for (size_t i = 0; i < not_ready.n; i++)
		vlist_add_str(nr, not_ready.items[i]);
	if (expected == 0)
		judge_note(&j, STATUS_UNKNOWN, "no Ready Kubernetes node to expect reports from");
	else if (fresh == expected)
		judge_note(&j, STATUS_PASS, "%s %zu Ready %s", expected == 1 ? "the" : "all",
			   expected, plural((int64_t)expected, "node reports", "nodes report"));
	else
		judge_note(&j, STATUS_UNKNOWN, "%zu of %zu Ready nodes report", fresh, expected);
	strv_clear(&not_ready);
	free(ix.e);
	judge_decide(&j, f, "");
}

/* Does Longhorn's taint-toleration setting ("key1=value1:NoSchedule;
 * key2:NoExecute", types/setting.go) let longhorn-manager onto this taint? */
static bool longhorn_tolerates(const char *setting, const char *key, const char *effect)
{
	struct strv items = {0};
	bool hit = false;
	strv_split(&items, setting ? setting : "", ";");
	for (size_t i = 0; i < items.n && !hit; i++) {
		char *t = strstrip(items.items[i]);
		size_t kl = strcspn(t, "=:");
		const char *colon = strchr(t, ':');
		const char *eff = colon ? colon + 1 : "";
		hit =
		    strlen(key) == kl && strncmp(t, key, kl) == 0 && (!*eff || streq(eff, effect));
	}
	strv_clear(&items);
	return hit;
}

/* The first taint that keeps longhorn-manager, and so Longhorn replicas, off the
 * node, or NULL. The DaemonSet controller tolerates the node.kubernetes.io/ taints (not-ready,
 * unschedulable, the pressures) by itself; a Harvester witness node carries
 * node-role.kubernetes.io/etcd=true:NoExecute (harvester enhancements/
 * 20231113-witness-node-support.md). */
static const struct jv *replica_taint(const struct jv *node, const char *tolerated)
{
	const struct jv *taints = JQ(node, "spec", "taints");
	for (size_t i = 0; i < jq_len(taints); i++) {
		const struct jv *t = jq_at(taints, i);
		const char *key = JQS(t, "key"), *effect = JQS(t, "effect");
		if (!key || (!streq(effect, "NoSchedule") && !streq(effect, "NoExecute")) ||
		    startswith(key, "node.kubernetes.io/") ||
		    longhorn_tolerates(tolerated, key, effect))
			continue;
		return t;
	}
	return NULL;
}

void check_nodes_count(struct agg_ctx *ctx, const char *id)
{
	const struct jv *nodes = cs_items(ctx->cs, RES_NODES);
	const char *tolerated =
	    JQS(cs_find(ctx->cs, RES_LH_SETTINGS, NULL, "taint-toleration"), "value");
	size_t total = jq_len(nodes), ready = 0, replica = 0, witnesses = 0;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	struct value_list *excluded = NULL;
	size_t replica_v2 = 0;
	/* kept apart until the loop ends: a second list added to the evidence
	 * meanwhile could move excluded */
	_cleanup_(strv_clear) struct strv v2_excluded = {0};
	for (size_t i = 0; i < total; i++) {
		const struct jv *n = jq_at(nodes, i);
		if (!jq_node_ready(n))
			continue;
		ready++;
		const struct jv *t = replica_taint(n, tolerated);
		/* A Harvester witness node (label set by Harvester >= 1.3, harvester
		 * enhancements/20231113-witness-node-support.md) runs etcd only: no
		 * replica and no VM, whatever its taints say. */
		bool witness = streq(
		    JQS(n, "metadata", "labels", "node-role.harvesterhci.io/witness"), "true");
		if (!t && !witness) {
			replica++;
			/* A v2 replica needs the v2 engine on the node (docs/support-matrix-longhorn.md). */
			if (longhorn_node_v2_disabled(ctx->cs, jq_name(n)) > 0) {
				_cleanup_free_ char *line =
				    xasprintf("%s: label " LONGHORN_V2_DISABLE_LABEL "=true",
					      jq_name(n) ? jq_name(n) : "?");
				strv_add(&v2_excluded, line);
			} else {
				replica_v2++;
			}
			continue;
		}
		if (!excluded)
			excluded = kv_add_list(&f->evidence, "excluded_nodes");
		if (witness)
			witnesses++;
		const char *v = JQS(t, "value");
		if (t)
			vlist_add_strf(excluded, "%s: taint %s%s%s:%s%s",
				       jq_name(n) ? jq_name(n) : "?", JQS(t, "key"),
				       v && *v ? "=" : "", v && *v ? v : "", JQS(t, "effect"),
				       witness ? " (Harvester witness node: etcd only)" : "");
		else
			vlist_add_strf(
			    excluded,
			    "%s: label node-role.harvesterhci.io/witness=true (Harvester "
			    "witness node: etcd only)",
			    jq_name(n) ? jq_name(n) : "?");
	}
	kv_add_int(&f->evidence, "nodes", (int64_t)total);
	kv_add_int(&f->evidence, "ready_nodes", (int64_t)ready);
	kv_add_int(&f->evidence, "replica_nodes", (int64_t)replica);
	if (tolerated)
		kv_add_str(&f->evidence, "longhorn_taint_toleration", tolerated);
	if (witnesses)
		kv_add_int(&f->evidence, "witness_nodes", (int64_t)witnesses);
	/* The replicas Longhorn places apart: its default-replica-count (the v1
	 * engine's, the one harvester-longhorn uses), read as api.longhorn.node-disk
	 * reads it. Longhorn's default 3 when the setting is absent or not collected. */
	int64_t want;
	const char *raw;
	enum resource_status rs = ctx->cs->res[RES_LH_SETTINGS].status;
	int r = longhorn_replica_count(ctx->cs, "v1", &want, &raw);
	if (r == -EINVAL) {
		judge_note(&j, STATUS_UNKNOWN,
			   "Longhorn setting default-replica-count has an unreadable value: the "
			   "replica count to place apart is not known");
		kv_add_str(&f->evidence, "default_replica_count", raw ? raw : "(absent)");
		goto out;
	}
	if (r == 0)
		kv_add_strf(&f->evidence, "default_replica_count", "%lld (setting value %s)",
			    (long long)want, raw);
	else
		kv_add_strf(&f->evidence, "default_replica_count", "%lld (Longhorn's default: %s)",
			    (long long)want,
			    rs == RES_COLLECTED	      ? "setting absent"
			    : rs == RES_NOT_INSTALLED ? "Longhorn not installed"
						      : "settings not collected");
	/* The v2 data engine, when enabled, places its own default-replica-count
	 * (its key of the 1.10+ JSON) on the nodes that run it. */
	int64_t want_v2 = 0;
	bool v2 = longhorn_engine_enabled(ctx->cs, LONGHORN_V2, NULL) > 0;
	if (v2) {
		const char *raw_v2;
		if (longhorn_replica_count(ctx->cs, "v2", &want_v2, &raw_v2) == -EINVAL) {
			judge_note(
			    &j, STATUS_UNKNOWN,
			    "Longhorn setting default-replica-count has an unreadable value: "
			    "the v2 engine's replica count to place apart is not known");
			kv_add_str(&f->evidence, "v2_default_replica_count",
				   raw_v2 ? raw_v2 : "(absent)");
			goto out;
		}
		kv_add_int(&f->evidence, "v2_replica_nodes", (int64_t)replica_v2);
		if (v2_excluded.n) {
			struct value_list *l = kv_add_list(&f->evidence, "v2_excluded_nodes");
			for (size_t i = 0; i < v2_excluded.n; i++)
				vlist_add_str(l, v2_excluded.items[i]);
		}
		kv_add_int(&f->evidence, "v2_default_replica_count", want_v2);
	}
	/* v1-data-engine "false" (Longhorn 1.6+): no v1 replica to place. */
	bool v1 = longhorn_engine_enabled(ctx->cs, LONGHORN_V1, NULL) != 0;
	bool v1_short = v1 && replica < (size_t)want;
	bool v2_short = v2 && replica_v2 < (size_t)want_v2;
	if (!v1_short && !v2_short) {
		if (v2)
			judge_note(
			    &j, STATUS_PASS,
			    "%zu Ready %s can hold Longhorn replicas, %zu of them v2 data "
			    "engine replicas: %lld (v1) and %lld (v2) replicas can be placed "
			    "apart",
			    replica, plural((int64_t)replica, "node", "nodes"), replica_v2,
			    (long long)want, (long long)want_v2);
		else
			judge_note(&j, STATUS_PASS,
				   "%zu Ready %s can hold Longhorn replicas: %lld %s can be "
				   "placed apart",
				   replica, plural((int64_t)replica, "node", "nodes"),
				   (long long)want, plural(want, "replica", "replicas"));
		goto out;
	}
	if (v1_short)
		judge_note(
		    &j, STATUS_WARN,
		    "%zu node%s can hold Longhorn replicas (%zu Ready, %zu excluded: tainted "
		    "against longhorn-manager or witness): Longhorn's default-replica-count "
		    "%lld cannot be placed on separate nodes%s",
		    replica, replica == 1 ? "" : "s", ready, ready - replica, (long long)want,
		    v2_short ? " (nor the v2 engine's, see v2_replica_nodes)" : "");
	else
		judge_note(&j, STATUS_WARN,
			   "%zu node%s can hold Longhorn v2 data engine replicas (%zu more are "
			   "labelled " LONGHORN_V2_DISABLE_LABEL "=true): the v2 engine's "
			   "default-replica-count %lld cannot be placed on separate nodes",
			   replica_v2, replica_v2 == 1 ? "" : "s", replica - replica_v2,
			   (long long)want_v2);
	judge_remedy(&j,
		     "add nodes before relying on replica redundancy, or lower Longhorn's "
		     "default-replica-count (and numberOfReplicas of the harvester-longhorn "
		     "StorageClass) to the node count%s",
		     v2_short ? "; for v2 volumes, remove the label "
				"node.longhorn.io/disable-v2-data-engine from a node or lower the "
				"v2 key of default-replica-count"
			      : "");
out:
	judge_decide(&j, f, "");
}

void check_clock_skew(struct agg_ctx *ctx, const char *id)
{
	size_t measured = 0;
	enum status worst = STATUS_PASS;
	for (size_t i = 0; i < ctx->n_nodes; i++) {
		const struct node_entry *e = &ctx->nodes[i];
		if (e->from_file || e->received_ns == 0)
			continue;
		/* The report left the agent at sent_ns and arrived here half a round
		 * trip later: what remains is the difference of the two clocks. */
		int64_t skew = util_sub_sat_i64(
		    util_sub_sat_i64(e->received_ns, e->report->sent_ns), e->rtt_ns / 2);
		int64_t mag = skew < 0 ? -skew : skew;
		measured++;
		enum status st = mag > SKEW_FAIL_NS   ? STATUS_FAIL
				 : mag > SKEW_WARN_NS ? STATUS_WARN
						      : STATUS_PASS;
		if (st == STATUS_PASS)
			continue;
		worst = status_worst(worst, st);
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		finding_set_node(f, e->report->node);
		judge_note(&j, st, "clock differs from the aggregator's by %+lld ms",
			   (long long)(skew / NSEC_PER_MSEC));
		kv_add_int(&f->evidence, "skew_ms", skew / NSEC_PER_MSEC);
		kv_add_int(&f->evidence, "round_trip_ms", e->rtt_ns / NSEC_PER_MSEC);
		kv_add_int(&f->evidence, "warn_ms", SKEW_WARN_NS / NSEC_PER_MSEC);
		kv_add_int(&f->evidence, "fail_ms", SKEW_FAIL_NS / NSEC_PER_MSEC);
		judge_remedy(&j, "synchronise the node's clock (chronyc sources; timedatectl "
				 "timesync-status); Longhorn and etcd leases need agreeing clocks");
		judge_decide(&j, f, "");
	}
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "nodes_measured", (int64_t)measured);
	if (measured == 0) {
		bool offline = false;
		for (size_t i = 0; i < ctx->n_nodes; i++)
			offline |= ctx->nodes[i].from_file;
		if (offline)
			judge_note(&j, STATUS_SKIP,
				   "not measurable from report files (no send/receive pair)");
		else
			judge_note(&j, STATUS_UNKNOWN,
				   "no live agent reports to measure skew from");
		goto out;
	}
	if (worst == STATUS_PASS)
		judge_note(&j, STATUS_PASS, "%s of %zu %s within %lld ms of the aggregator's",
			   plural((int64_t)measured, "clock", "clocks"), measured,
			   plural((int64_t)measured, "node", "nodes"),
			   (long long)(SKEW_WARN_NS / NSEC_PER_MSEC));
	else
		judge_note(&j, worst, "clock skew on some nodes (see the per-node findings)");
out:
	judge_decide(&j, f, "");
}

/* The nodes where KVM works: those are the live-migration targets. */
static bool kvm_node(const struct node_report *r)
{
	enum status st;
	return finding_list_status(&r->results, "host.kvm", &st) && st == STATUS_PASS;
}

static const struct kv_list *cpu_facts(const struct node_report *r)
{
	const struct value *v = kv_get(&r->facts, "cpu");
	return v && v->type == VALUE_MAP ? &v->map : NULL;
}

/*
 * x86 flags of /proc/cpuinfo that say nothing about what a VM's CPU can have:
 * Linux's own synthetic flags (constant_tsc, pti, tsc_known_freq,
 * split_lock_detect), power, thermal and monitoring features that KVM never
 * passes to guests (hwp, ida, epb, cqm, rdt_a, mba), the host's VT-x
 * capabilities (ept, vpid), memory encryption of the host (sme, sev), and
 * features KVM emulates whatever the host has (x2apic, tsc_deadline_timer,
 * hypervisor). They vary with the kernel version, firmware settings and boot
 * options of otherwise identical nodes; libvirt's host-model CPU, which
 * KubeVirt's node labeller publishes and matches migrations on, never
 * contains them. Sorted (bsearch).
 */
static const char *const cpu_host_only_flags[] = {
    "acc_power",
    "acpi",
    "amd_dcm",
    "amd_lbr_v2",
    "aperfmperf",
    "arch_perfmon",
    "art",
    "bts",
    "cat_l2",
    "cat_l3",
    "cdp_l2",
    "cdp_l3",
    "centaur_mcr",
    "cid",
    "constant_tsc",
    "cpb",
    "cpuid",
    "cpuid_fault",
    "cqm",
    "cqm_llc",
    "cqm_mbm_local",
    "cqm_mbm_total",
    "cqm_occup_llc",
    "cxmmx",
    "cyrix_arr",
    "dca",
    "ds_cpl",
    "dtes64",
    "dtherm",
    "dts",
    "epb",
    "ept",
    "ept_ad",
    "est",
    "extd_apicid",
    "flexpriority",
    "hfi",
    "ht",
    "hw_pstate",
    "hwp",
    "hwp_act_window",
    "hwp_epp",
    "hwp_highest_perf_change",
    "hwp_notify",
    "hwp_pkg_req",
    "hypervisor",
    "ida",
    "intel_ppin",
    "invpcid_single",
    "k6_mtrr",
    "mba",
    "monitor",
    "nonstop_tsc",
    "nonstop_tsc_s3",
    "nopl",
    "overflow_recov",
    "pbe",
    "pebs",
    "pln",
    "proc_feedback",
    "pti",
    "pts",
    "rapl",
    "rdt_a",
    "rep_good",
    "ring3mwait",
    "sdbg",
    "sev",
    "sev_es",
    "sev_snp",
    "smca",
    "sme",
    "sme_coherent",
    "smx",
    "split_lock_detect",
    "succor",
    "tm",
    "tm2",
    "tpr_shadow",
    "tsc_deadline_timer",
    "tsc_known_freq",
    "tsc_reliable",
    "up",
    "user_shstk",
    "vm_page_flush",
    "vmmcall",
    "vnmi",
    "vpid",
    "x2apic",
    "xenpv",
    "xtopology",
    "xtpr",
};

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* arm64 hwcaps that only say what the kernel offers its own userspace: cpuid
 * (trapped ID-register reads, 4.11+) and evtstrm (a kernel timer option). */
static const char *const cpu_host_only_flags_arm[] = {"cpuid", "evtstrm"};

/* The names only mean the above on their architecture: "sme" is AMD's memory
 * encryption on x86 but the Scalable Matrix Extension on arm64. */
static bool cpu_flag_host_only(const char *arch, const char *flag)
{
	if (arch && streq(arch, "x86"))
		return bsearch(&flag, cpu_host_only_flags, ELEMENTSOF(cpu_host_only_flags),
			       sizeof(cpu_host_only_flags[0]), cmp_cstr) != NULL;
	if (arch && streq(arch, "arm"))
		return bsearch(&flag, cpu_host_only_flags_arm, ELEMENTSOF(cpu_host_only_flags_arm),
			       sizeof(cpu_host_only_flags_arm[0]), cmp_cstr) != NULL;
	return false;
}

/*
 * The guest-visible flags some KVM node has and another lacks, in O(nodes ×
 * flags): every distinct flag gets an id in the order of its first occurrence
 * (node by node, flag by flag), then each node's flags are a bitset and what
 * it lacks is the ids whose bit is clear. A flag a node lacks is held first by
 * another node, whose architecture decides whether it is host-only. The
 * order is that of the pairwise scan this replaced (docs/benchmarks.md).
 */
struct cpu_flag_ids {
	struct str_index ix;
	const char **name; /* by id */
	const char **arch; /* of the first node holding the flag */
	size_t n, cap;
};

static void cpu_flag_ids_add(struct cpu_flag_ids *ids, const struct node_report *r)
{
	const struct kv_list *cpu = cpu_facts(r);
	const struct value_list *fl = kv_get_list(cpu, "flags");
	const char *arch = kv_get_str(cpu, "arch");
	for (size_t k = 0; k < fl->n; k++) {
		bool added;
		if (fl->items[k].type != VALUE_STR)
			continue;
		str_index_put(&ids->ix, fl->items[k].s, ids->n, &added);
		if (!added)
			continue;
		if (ids->n == ids->cap) {
			ids->cap = ids->cap ? 2 * ids->cap : 256;
			ids->name = xrealloc(ids->name, ids->cap * sizeof(*ids->name));
			ids->arch = xrealloc(ids->arch, ids->cap * sizeof(*ids->arch));
		}
		ids->name[ids->n] = fl->items[k].s;
		ids->arch[ids->n++] = arch;
	}
}

/* The node's flags as a bitset of ids (words of 64). */
static void cpu_flag_bits(const struct cpu_flag_ids *ids, const struct node_report *r,
			  uint64_t *bits, size_t words)
{
	const struct value_list *fl = kv_get_list(cpu_facts(r), "flags");
	memset(bits, 0, words * sizeof(*bits));
	for (size_t k = 0; k < fl->n; k++) {
		size_t fid;
		if (fl->items[k].type == VALUE_STR && str_index_get(&ids->ix, fl->items[k].s, &fid))
			bits[fid / 64] |= UINT64_C(1) << (fid % 64);
	}
}

void check_cpu_compat(struct agg_ctx *ctx, const char *id)
{
	const struct node_report **kvm = xcalloc(ctx->n_nodes ? ctx->n_nodes : 1, sizeof(*kvm));
	size_t n = 0;
	struct strv unknown = {0}, vendors = {0}, ignored = {0};
	struct cpu_flag_ids ids = {0};
	uint64_t *bits = NULL;
	bool *ignored_id = NULL;
	for (size_t i = 0; i < ctx->n_nodes; i++) {
		const struct node_report *r = ctx->nodes[i].report;
		if (!kvm_node(r))
			continue;
		const struct kv_list *cpu = cpu_facts(r);
		if (!cpu || !kv_get_str(cpu, "vendor") || !kv_get_list(cpu, "flags")) {
			strv_add(&unknown, r->node);
			continue;
		}
		kvm[n++] = r;
		if (!strv_contains(&vendors, kv_get_str(cpu, "vendor")))
			strv_add(&vendors, kv_get_str(cpu, "vendor"));
	}
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "kvm_nodes", (int64_t)n);
	struct value_list *vl = kv_add_list(&f->evidence, "vendors");
	for (size_t i = 0; i < vendors.n; i++)
		vlist_add_str(vl, vendors.items[i]);
	if (unknown.n) {
		struct value_list *ul = kv_add_list(&f->evidence, "nodes_without_cpu_facts");
		for (size_t i = 0; i < unknown.n; i++)
			vlist_add_str(ul, unknown.items[i]);
	}
	if (vendors.n > 1) {
		judge_note(&j, STATUS_FAIL,
			   "mixed CPU vendors among KVM nodes: VMs cannot "
			   "live-migrate between them");
		struct kv_list *by = kv_add_map(&f->evidence, "vendor_by_node");
		for (size_t i = 0; i < n; i++)
			kv_add_str(by, kvm[i]->node, kv_get_str(cpu_facts(kvm[i]), "vendor"));
		judge_remedy(&j,
			     "keep live migration within nodes of one vendor (node affinity or "
			     "separate clusters); KubeVirt cannot migrate between Intel and AMD");
		goto out;
	}
	/* For each node, the flags some other KVM node has and it lacks: a VM
	 * started with host-model elsewhere cannot move to it. */
	for (size_t i = 0; i < n; i++)
		cpu_flag_ids_add(&ids, kvm[i]);
	size_t words = (ids.n + 63) / 64;
	bits = xcalloc(words ? words : 1, sizeof(*bits));
	ignored_id = xcalloc(ids.n ? ids.n : 1, sizeof(*ignored_id));
	size_t lacking_nodes = 0;
	struct kv_list *lack = NULL;
	for (size_t i = 0; i < n; i++) {
		struct value_list *missing = NULL;
		cpu_flag_bits(&ids, kvm[i], bits, words);
		for (size_t fid = 0; fid < ids.n; fid++) {
			if (bits[fid / 64] & (UINT64_C(1) << (fid % 64)))
				continue;
			if (cpu_flag_host_only(ids.arch[fid], ids.name[fid])) {
				ignored_id[fid] = true;
				continue;
			}
			if (!lack)
				lack = kv_add_map(&f->evidence, "flags_lacking");
			if (!missing)
				missing = kv_add_list(lack, kvm[i]->node);
			vlist_add_str(missing, ids.name[fid]);
		}
		if (missing)
			lacking_nodes++;
	}
	for (size_t fid = 0; fid < ids.n; fid++)
		if (ignored_id[fid])
			strv_add(&ignored, ids.name[fid]);
	if (ignored.n) {
		qsort(ignored.items, ignored.n, sizeof(char *), cmp_cstr);
		struct value_list *il = kv_add_list(&f->evidence, "differing_host_only_flags");
		for (size_t i = 0; i < ignored.n; i++)
			vlist_add_str(il, ignored.items[i]);
	}
	if (lacking_nodes) {
		judge_note(&j, STATUS_WARN, "CPU flags differ: %zu %s features other nodes have",
			   lacking_nodes,
			   plural((int64_t)lacking_nodes, "node lacks", "nodes lack"));
		judge_remedy(&j,
			     "VMs using host-model/host-passthrough cannot migrate to the nodes "
			     "listed; set a common CPU model in the KubeVirt CR "
			     "(spec.configuration.cpuModel) or per VM");
	} else if (n >= 2) {
		judge_note(&j, STATUS_PASS,
			   "%zu KVM nodes with the same CPU vendor and guest-visible flags", n);
	} else if (unknown.n) {
		judge_note(&j, STATUS_UNKNOWN, "no CPU facts from %zu KVM node%s", unknown.n,
			   unknown.n == 1 ? "" : "s");
	} else if (n == 1) {
		judge_note(&j, STATUS_SKIP, "only one KVM node: no migration target to compare");
	} else {
		judge_note(&j, STATUS_UNKNOWN, "no node reports with a working KVM");
	}
	if (unknown.n && j.status == STATUS_PASS)
		judge_note(&j, STATUS_UNKNOWN, "%zu KVM node%s sent no CPU facts", unknown.n,
			   unknown.n == 1 ? "" : "s");
out:
	strv_clear(&unknown);
	strv_clear(&vendors);
	strv_clear(&ignored);
	str_index_clear(&ids.ix);
	free(ids.name);
	free(ids.arch);
	free(bits);
	free(ignored_id);
	free(kvm);
	judge_decide(&j, f, "");
}

/* Hostname of a Kubernetes node: the agent's report, else status.addresses. */
static const char *node_hostname(const struct report_index *ix, const struct jv *node)
{
	const struct node_entry *e = entry_for(ix, jq_name(node));
	if (e && e->report->hostname && *e->report->hostname)
		return e->report->hostname;
	const struct jv *addrs = JQ(node, "status", "addresses");
	for (size_t i = 0; i < jq_len(addrs); i++)
		if (streq(JQS(jq_at(addrs, i), "type"), "Hostname"))
			return JQS(jq_at(addrs, i), "address");
	return NULL;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct host_pos {
	const char *host;
	size_t pos;
};

/* By hostname ignoring case, then by position. */
static int cmp_host_pos(const void *a, const void *b)
{
	const struct host_pos *x = a, *y = b;
	int c = strcasecmp(x->host, y->host);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* A group of positions with one hostname (ignoring case), in order. */
struct dup_group {
	size_t first, start, n; /* start, n: in the sorted host_pos array */
};

static int cmp_group(const void *a, const void *b)
{
	const struct dup_group *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

void check_hostname_unique(struct agg_ctx *ctx, const char *id)
{
	struct strv names = {0}, hosts = {0}, missing = {0};
	struct report_index ix;
	index_reports(ctx, &ix);
	const struct jv *nodes = cs_items(ctx->cs, RES_NODES);
	for (size_t i = 0; i < jq_len(nodes); i++) {
		const struct jv *n = jq_at(nodes, i);
		const char *h = node_hostname(&ix, n);
		if (!jq_name(n))
			continue;
		if (!h) {
			strv_add(&missing, jq_name(n));
			continue;
		}
		strv_add(&names, jq_name(n));
		strv_add(&hosts, h);
	}
	free(ix.e);
	/* Reports from hosts that are not (yet) Kubernetes nodes count too
	 * (pre-install). Reports are one per node: only the Kubernetes names
	 * need a lookup. */
	size_t k8s = names.n;
	char **sorted = xcalloc(k8s ? k8s : 1, sizeof(char *));
	if (k8s) {
		memcpy(sorted, names.items, k8s * sizeof(char *));
		qsort(sorted, k8s, sizeof(char *), cmp_str_ptr);
	}
	for (size_t i = 0; i < ctx->n_nodes; i++) {
		const struct node_report *r = ctx->nodes[i].report;
		if ((k8s && bsearch(&r->node, sorted, k8s, sizeof(char *), cmp_str_ptr)) ||
		    !r->hostname || !*r->hostname)
			continue;
		strv_add(&names, r->node);
		strv_add(&hosts, r->hostname);
	}
	free(sorted);
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "hosts", (int64_t)hosts.n);
	/* Equal hostnames (ignoring case) side by side, then each group with
	 * more than one node in the order of its first occurrence; a group is
	 * named as its first occurrence spells it. */
	struct host_pos *hp = xcalloc(hosts.n ? hosts.n : 1, sizeof(*hp));
	for (size_t i = 0; i < hosts.n; i++)
		hp[i] = (struct host_pos){hosts.items[i], i};
	if (hosts.n)
		qsort(hp, hosts.n, sizeof(*hp), cmp_host_pos);
	struct dup_group *groups = xcalloc(hosts.n ? hosts.n : 1, sizeof(*groups));
	size_t n_groups = 0;
	for (size_t i = 0, end; i < hosts.n; i = end) {
		for (end = i + 1; end < hosts.n && strcaseeq(hp[i].host, hp[end].host); end++)
			;
		if (end - i > 1)
			groups[n_groups++] = (struct dup_group){hp[i].pos, i, end - i};
	}
	if (n_groups)
		qsort(groups, n_groups, sizeof(*groups), cmp_group);
	struct kv_list *dups = n_groups ? kv_add_map(&f->evidence, "duplicates") : NULL;
	for (size_t g = 0; g < n_groups; g++) {
		struct value_list *same = kv_add_list(dups, hosts.items[groups[g].first]);
		for (size_t k = 0; k < groups[g].n; k++)
			vlist_add_str(same, names.items[hp[groups[g].start + k].pos]);
	}
	free(hp);
	free(groups);
	if (missing.n) {
		struct value_list *ml = kv_add_list(&f->evidence, "nodes_without_hostname");
		for (size_t i = 0; i < missing.n; i++)
			vlist_add_str(ml, missing.items[i]);
	}
	if (dups) {
		judge_note(&j, STATUS_FAIL, "hostnames are not unique");
		judge_remedy(
		    &j, "give every node a unique hostname (hostnamectl set-hostname) before "
			"installing: Longhorn's RWX lock recovery identifies nodes by hostname");
	} else if (missing.n) {
		judge_note(&j, STATUS_UNKNOWN, "no hostname known for %zu node%s", missing.n,
			   missing.n == 1 ? "" : "s");
	} else if (hosts.n == 0) {
		judge_note(&j, STATUS_UNKNOWN, "no hostnames known (no nodes, no reports)");
	} else {
		judge_note(&j, STATUS_PASS, "%zu %s", hosts.n,
			   hosts.n == 1 ? "hostname" : "hostnames, all unique");
	}
	strv_clear(&names);
	strv_clear(&hosts);
	strv_clear(&missing);
	judge_decide(&j, f, "");
}
