/* Node conditions: statuses, reasons and messages from a verdict; the plan
 * (lastTransitionTime, heartbeats, which nodes to patch, transitions); the
 * request bodies; and the Lease decisions of leader election. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "json_query.h"
#include "lease.h"
#include "node_conditions.h"

#define T0  (INT64_C(1788614444) * NSEC_PER_SEC) /* 2026-09-05T13:20:44Z */
#define SEC NSEC_PER_SEC

/* ---------- a verdict built by hand, as the engine leaves it ---------- */

struct fx {
	struct verdict v;
	struct cluster_state cs;
	struct node_report reports[8];
	size_t n_reports;
	struct nc_snapshot s; /* of v and cs, by fx_snapshot */
};

static void fx_init(struct fx *x)
{
	memset(x, 0, sizeof(*x));
	cluster_state_init(&x->cs);
	cs_set_status(&x->cs, RES_NODES, RES_COLLECTED, NULL);
	x->cs.read_at_ns = T0;
}

/* A Node as the API lists it; conditions: extra entries after Ready. */
static void fx_node(struct fx *x, const char *name, bool ready, bool reporting,
		    const char *conditions)
{
	char *json = xasprintf(
	    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"uid\":"
	    "\"6c2a0d3e-uid-%s\",\"labels\":{\"kubernetes.io/hostname\":\"%s\"}},\"status\":{"
	    "\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\",\"reason\":"
	    "\"KubeletHasSufficientMemory\",\"lastHeartbeatTime\":\"2026-09-05T13:19:00Z\","
	    "\"lastTransitionTime\":\"2026-08-01T08:00:00Z\"},{\"type\":\"Ready\",\"status\":"
	    "\"%s\",\"reason\":\"KubeletReady\",\"message\":\"kubelet is posting ready status\","
	    "\"lastHeartbeatTime\":\"2026-09-05T13:19:00Z\",\"lastTransitionTime\":"
	    "\"2026-08-01T08:00:00Z\"}%s%s]}}",
	    name, name, name, ready ? "True" : "Unknown", conditions ? "," : "",
	    conditions ? conditions : "");
	json_object *o = json_tokener_parse(json);
	assert_non_null(o);
	cs_add_object(&x->cs, RES_NODES, o);
	json_object_put(o);
	free(json);
	x->v.nodes = xrealloc(x->v.nodes, (x->v.n_nodes + 1) * sizeof(*x->v.nodes));
	struct verdict_node *n = &x->v.nodes[x->v.n_nodes++];
	*n = (struct verdict_node){
	    .name = xstrdup(name), .in_cluster = true, .k8s_ready = ready, .report_age_ns = -1};
	if (reporting) {
		struct node_report *r = &x->reports[x->n_reports++];
		*r = (struct node_report){.interval_s = 30};
		n->reporting = true;
		n->report = r;
		n->report_age_ns = 12 * SEC;
	}
}

static void fx_find(struct fx *x, const char *check, enum status st, const char *node,
		    const char *msg)
{
	struct finding *f = finding_list_add(&x->v.findings, check);
	finding_set(f, st, "%s", msg);
	if (node)
		finding_set_node(f, node);
}

/* Again after a change of the fixture: the previous snapshot is freed. */
static void fx_snapshot(struct fx *x)
{
	node_conditions_snapshot_clear(&x->s);
	gates_clear(x->v.gates);
	gates_compute(&x->v.findings, x->v.gates);
	node_conditions_snapshot(&x->s, &x->v, &x->cs, 30);
}

static void fx_clear(struct fx *x)
{
	node_conditions_snapshot_clear(&x->s);
	verdict_clear(&x->v);
	cluster_state_clear(&x->cs);
}

/* Three Ready nodes, all reporting, every rwx and lm check passing. */
static void fx_healthy(struct fx *x)
{
	fx_init(x);
	fx_node(x, "harvester-node-1", true, true, NULL);
	fx_node(x, "harvester-node-2", true, true, NULL);
	fx_node(x, "harvester-node-3", true, true, NULL);
	for (int i = 1; i <= 3; i++) {
		char n[32];
		snprintf(n, sizeof(n), "harvester-node-%d", i);
		fx_find(x, "host.kvm", STATUS_PASS, n, "/dev/kvm works (API version 12)");
		fx_find(x, "host.nfs.client", STATUS_PASS, n, "mount.nfs4 in /usr/sbin");
		fx_find(x, "host.nfs.kernel", STATUS_PASS, n, "module nfsv4 loaded");
		fx_find(x, "host.iscsi", STATUS_FAIL, n, "iscsid is not running"); /* pre only */
		fx_find(x, "host.nfs.probe", STATUS_SKIP, n, "no NFS endpoints to probe");
	}
	fx_find(x, "cluster.nodes.reporting", STATUS_PASS, NULL, "all 3 Ready nodes report");
	fx_find(x, "cluster.hostname.unique", STATUS_PASS, NULL, "3 hostnames, all distinct");
	fx_find(x, "api.dns.replicas", STATUS_PASS, NULL, "CoreDNS: 2 of 2 replicas ready");
	fx_find(x, "api.vm.live-migratable", STATUS_PASS, NULL,
		"all 4 running VMIs can live-migrate");
}

static size_t node_index(const struct nc_snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->n_nodes; i++)
		if (streq(s->nodes[i].name, name))
			return i;
	fail_msg("no node %s in the snapshot", name);
	return 0;
}

static void expect(const struct nc_snapshot *s, const char *node, enum nc_type t, enum nc_status st,
		   const char *reason, const char *message)
{
	struct nc_cond c;
	node_conditions_desired(s, node_index(s, node), t, &c);
	assert_string_equal(nc_status_name(c.status), nc_status_name(st));
	assert_string_equal(c.reason, reason);
	if (message)
		assert_string_equal(c.message, message);
	assert_int_equal(c.transition_ns, 0);
	assert_int_equal(c.heartbeat_ns, 0);
	nc_cond_clear(&c);
}

/* ---------- statuses, reasons, messages ---------- */

static void test_all_pass(void **state)
{
	struct fx x;
	fx_healthy(&x);
	fx_snapshot(&x);
	assert_int_equal(x.s.n_nodes, 3);
	/* nfs.client, nfs.kernel on the node; reporting, hostname, dns for all */
	expect(&x.s, "harvester-node-1", NC_RWX, NC_TRUE, "RWXReady",
	       "all 5 checks of the rwx gate pass for this node");
	/* kvm on the node; reporting, vm.live-migratable for all */
	expect(&x.s, "harvester-node-2", NC_LM, NC_TRUE, "LiveMigrationReady",
	       "all 3 checks of the live-migration gate pass for this node");
	assert_string_equal(x.s.nodes[0].uid, "6c2a0d3e-uid-harvester-node-1");
	assert_true(x.s.nodes[0].fresh_report);
	fx_clear(&x);
}

/* A canary's FAIL (canary_result.h) blocks rwx on every node; its message
 * names the run and its end, not the age, which changes every minute. */
static void test_canary_message_is_stable(void **state)
{
	static const char res[] =
	    "{\"schema\": \"hvready.canary/v1\", \"run\": \"feedc0de\", \"finished_at\": "
	    "\"2026-12-02T10:00:00Z\", \"status\": \"FAIL\", \"findings\": [{\"check\": "
	    "\"canary.rwx\", \"status\": \"FAIL\", \"message\": \"read-mismatch\"}]}";
	struct canary_result r;
	char err[256];
	assert_int_equal(canary_result_parse(res, strlen(res), "f", &r, err, sizeof(err)), 0);
	int64_t end;
	assert_int_equal(util_parse_rfc3339("2026-12-02T10:00:00Z", &end), 0);
	char *first = NULL;
	for (int k = 0; k < 2; k++) {
		struct fx x;
		fx_healthy(&x);
		canary_result_apply(&r, end + (k ? 3 * 3600 : 65) * SEC, CANARY_MAX_AGE_DEFAULT_NS,
				    NULL, NULL, &x.v.findings, &x.v.canary);
		fx_snapshot(&x);
		struct nc_cond c;
		node_conditions_desired(&x.s, node_index(&x.s, "harvester-node-1"), NC_RWX, &c);
		assert_string_equal(nc_status_name(c.status), nc_status_name(NC_FALSE));
		assert_string_equal(c.message, "canary.rwx: canary run feedc0de (ended "
					       "2026-12-02T10:00:00Z, was FAIL)");
		if (!first)
			first = xstrdup(c.message);
		assert_string_equal(c.message, first);
		nc_cond_clear(&c);
		fx_clear(&x);
	}
	free(first);
	canary_result_clear(&r);
}

static void test_fail_on_one_node(void **state)
{
	struct fx x;
	fx_healthy(&x);
	fx_find(&x, "host.nfs.probe", STATUS_FAIL, "harvester-node-2",
		"nfs://10.43.12.7/pvc-1f2e3d4c-5b6a-7980-a1b2-c3d4e5f60718: connection to "
		"10.43.12.7 port 2049 refused");
	fx_snapshot(&x);
	expect(&x.s, "harvester-node-2", NC_RWX, NC_FALSE, "NFSProbeFailed",
	       "host.nfs.probe: nfs://10.43.12.7/pvc-1f2e3d4c-5b6a-7980-a1b2-c3d4e5f60718: "
	       "connection to 10.43.12.7 port 2049 refused");
	/* The probe is an rwx check only; the other nodes are not concerned. */
	expect(&x.s, "harvester-node-2", NC_LM, NC_TRUE, "LiveMigrationReady", NULL);
	expect(&x.s, "harvester-node-1", NC_RWX, NC_TRUE, "RWXReady", NULL);
	fx_clear(&x);
}

static void test_cluster_wide_fail_and_worst(void **state)
{
	struct fx x;
	fx_healthy(&x);
	/* FAIL on the cluster beats UNKNOWN on the node; the message names
	 * only what decides (the FAILs). */
	x.v.findings.items[x.v.findings.n - 2].status = STATUS_FAIL; /* api.dns.replicas */
	free(x.v.findings.items[x.v.findings.n - 2].message);
	x.v.findings.items[x.v.findings.n - 2].message =
	    xstrdup("CoreDNS: 1 of 2 replicas ready (share-manager needs DNS)");
	fx_find(&x, "host.nfs.kernel", STATUS_UNKNOWN, "harvester-node-3",
		"cannot read /proc/filesystems: Permission denied");
	fx_find(&x, "host.nfs.client", STATUS_FAIL, "harvester-node-3",
		"no mount.nfs or mount.nfs4 in /sbin, /usr/sbin, /usr/local/sbin");
	fx_snapshot(&x);
	expect(&x.s, "harvester-node-1", NC_RWX, NC_FALSE, "DNSReplicasFailed",
	       "api.dns.replicas: CoreDNS: 1 of 2 replicas ready (share-manager needs DNS)");
	/* The node's own failure first (reason), then the cluster'x.s. */
	expect(&x.s, "harvester-node-3", NC_RWX, NC_FALSE, "NFSClientFailed",
	       "host.nfs.client: no mount.nfs or mount.nfs4 in /sbin, /usr/sbin, "
	       "/usr/local/sbin; api.dns.replicas: CoreDNS: 1 of 2 replicas ready "
	       "(share-manager needs DNS)");
	fx_clear(&x);
}

static void test_no_fresh_report(void **state)
{
	struct fx x;
	fx_init(&x);
	fx_node(&x, "harvester-node-1", true, true, NULL);
	fx_node(&x, "harvester-node-2", true, false, NULL);  /* Ready, agent down */
	fx_node(&x, "harvester-node-3", false, false, NULL); /* NotReady, no report */
	fx_find(&x, "host.nfs.client", STATUS_PASS, "harvester-node-1", "mount.nfs4 in /usr/sbin");
	fx_find(&x, "host.kvm", STATUS_PASS, "harvester-node-1", "/dev/kvm works");
	fx_find(&x, "cluster.nodes.reporting", STATUS_UNKNOWN, "harvester-node-2",
		"no agent report from this Ready node");
	/* The summary line: not held against the nodes that do report. */
	fx_find(&x, "cluster.nodes.reporting", STATUS_UNKNOWN, NULL, "1 of 2 Ready nodes report");
	fx_find(&x, "api.dns.replicas", STATUS_PASS, NULL, "CoreDNS: 2 of 2 replicas ready");
	fx_snapshot(&x);
	expect(&x.s, "harvester-node-1", NC_RWX, NC_TRUE, "RWXReady",
	       "all 2 checks of the rwx gate pass for this node");
	expect(&x.s, "harvester-node-2", NC_RWX, NC_UNKNOWN, "NoFreshReport",
	       "cluster.nodes.reporting: no agent report from this Ready node");
	expect(&x.s, "harvester-node-2", NC_LM, NC_UNKNOWN, "NoFreshReport", NULL);
	/* No check names the NotReady node: its host checks are unknown. */
	expect(&x.s, "harvester-node-3", NC_RWX, NC_UNKNOWN, "NoFreshReport",
	       "cluster.nodes.reporting: no fresh agent report from this node");
	/* A report older than 3 intervals is no fresh report either. */
	assert_false(x.s.nodes[node_index(&x.s, "harvester-node-3")].fresh_report);
	x.v.nodes[0].report_age_ns = 91 * SEC;
	fx_snapshot(&x);
	assert_false(x.s.nodes[node_index(&x.s, "harvester-node-1")].fresh_report);
	expect(&x.s, "harvester-node-1", NC_RWX, NC_UNKNOWN, "NoFreshReport", NULL);
	fx_clear(&x);
}

static void test_warn_is_true(void **state)
{
	struct fx x;
	fx_healthy(&x);
	fx_find(&x, "host.nfs.kernel", STATUS_WARN, "harvester-node-1",
		"nfsv4 is a loadable module (CONFIG_NFS_V4=m) and not loaded");
	fx_find(&x, "cluster.clock.skew", STATUS_WARN, "harvester-node-1",
		"clock differs from the aggregator's by +612 ms");
	fx_snapshot(&x);
	expect(&x.s, "harvester-node-1", NC_RWX, NC_TRUE, "RWXReadyWithWarnings",
	       "host.nfs.kernel: nfsv4 is a loadable module (CONFIG_NFS_V4=m) and not loaded; "
	       "cluster.clock.skew: clock differs from the aggregator's by +612 ms");
	expect(&x.s, "harvester-node-1", NC_LM, NC_TRUE, "LiveMigrationReadyWithWarnings",
	       "cluster.clock.skew: clock differs from the aggregator's by +612 ms");
	/* Per-node skew findings: the other nodes are fine. */
	expect(&x.s, "harvester-node-2", NC_LM, NC_TRUE, "LiveMigrationReady", NULL);
	fx_clear(&x);
}

static void test_vm_findings_per_node(void **state)
{
	struct fx x;
	fx_init(&x);
	fx_node(&x, "harvester-node-1", true, true, NULL);
	fx_node(&x, "harvester-node-2", true, true, NULL);
	fx_find(&x, "host.kvm", STATUS_PASS, "harvester-node-1", "/dev/kvm works");
	fx_find(&x, "host.kvm", STATUS_PASS, "harvester-node-2", "/dev/kvm works");
	fx_find(&x, "api.vm.live-migratable", STATUS_FAIL, "harvester-node-1",
		"default/win2022 cannot live-migrate: DisksNotLiveMigratable");
	fx_find(&x, "api.kubevirt.available", STATUS_UNKNOWN, NULL,
		"kubevirts.kubevirt.io forbidden: cannot list");
	fx_snapshot(&x);
	expect(&x.s, "harvester-node-1", NC_LM, NC_FALSE, "VMLiveMigratableFailed",
	       "api.vm.live-migratable: default/win2022 cannot live-migrate: "
	       "DisksNotLiveMigratable");
	expect(&x.s, "harvester-node-2", NC_LM, NC_UNKNOWN, "KubeVirtAvailableUnknown",
	       "api.kubevirt.available: kubevirts.kubevirt.io forbidden: cannot list");
	/* Nothing of the rwx gate at all: no evidence is never True. */
	expect(&x.s, "harvester-node-2", NC_RWX, NC_UNKNOWN, "NoEvidence",
	       "no check of the rwx gate applies to this node");
	fx_clear(&x);
}

/* Every check of the two gates has a CamelCase reason ending in Failed. */
static void test_reasons_for_every_gate_check(void **state)
{
	for (size_t i = 0; i < catalog_len; i++) {
		if (!(catalog[i].gates & (G_RWX | G_LM)))
			continue;
		struct fx x;
		fx_init(&x);
		fx_node(&x, "n1", true, true, NULL);
		fx_find(&x, catalog[i].id, STATUS_FAIL, "n1", "broken");
		fx_snapshot(&x);
		struct nc_cond c;
		node_conditions_desired(&x.s, 0, (catalog[i].gates & G_RWX) ? NC_RWX : NC_LM, &c);
		assert_int_equal(c.status, NC_FALSE);
		assert_true(endswith(c.reason, "Failed"));
		assert_true(c.reason[0] >= 'A' && c.reason[0] <= 'Z');
		for (const char *p = c.reason; *p; p++)
			assert_true((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				    (*p >= '0' && *p <= '9'));
		assert_true(strlen(c.reason) > strlen("Failed"));
		nc_cond_clear(&c);
		fx_clear(&x);
	}
}

static bool valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : 3;
		if (*p >= 0x80 && (*p & 0xF8) == 0xF8)
			return false;
		p++;
		for (int i = 0; i < n; i++, p++)
			if ((*p & 0xC0) != 0x80)
				return false;
	}
	return true;
}

static void test_message_bounds(void **state)
{
	struct fx x;
	struct nc_cond c;
	fx_init(&x);
	fx_node(&x, "harvester-node-1", true, true, NULL);
	/* 200 VMs that cannot migrate off one node. */
	for (int i = 0; i < 200; i++) {
		char msg[128];
		snprintf(msg, sizeof(msg),
			 "tenant-ä/vm-%03d cannot live-migrate: DisksNotLiveMigratable", i);
		fx_find(&x, "api.vm.live-migratable", STATUS_FAIL, "harvester-node-1", msg);
	}
	fx_snapshot(&x);
	node_conditions_desired(&x.s, 0, NC_LM, &c);
	assert_true(strlen(c.message) <= NC_MESSAGE_MAX);
	assert_true(valid_utf8(c.message));
	assert_true(startswith(c.message, "api.vm.live-migratable: tenant-ä/vm-000 cannot"));
	const char *more = strstr(c.message, "; and ");
	assert_non_null(more);
	size_t shown = 0;
	for (const char *p = c.message; (p = strstr(p, "api.vm.live-migratable: ")); p++)
		shown++;
	unsigned long rest = strtoul(more + 6, NULL, 10);
	assert_int_equal(shown + rest, 200);
	assert_string_equal(strstr(more, " more"), " more");
	nc_cond_clear(&c);
	fx_clear(&x);

	/* One message far over the bound, of 2- and 3-byte characters: cut at
	 * a character boundary, marked. */
	fx_init(&x);
	fx_node(&x, "harvester-node-1", true, true, NULL);
	char *big = xmalloc(6000);
	size_t n = 0;
	while (n + 5 < 5999) {
		memcpy(big + n, "é€", 5);
		n += 5;
	}
	big[n] = '\0';
	fx_find(&x, "host.nfs.probe", STATUS_FAIL, "harvester-node-1", big);
	free(big);
	fx_snapshot(&x);
	node_conditions_desired(&x.s, 0, NC_RWX, &c);
	assert_true(strlen(c.message) <= NC_MESSAGE_MAX);
	assert_true(strlen(c.message) > NC_MESSAGE_MAX - 64);
	assert_true(valid_utf8(c.message));
	assert_true(endswith(c.message, "..."));
	nc_cond_clear(&c);
	fx_clear(&x);
}

/* ---------- the plan ---------- */

static struct nc_plan plan_at(const struct nc_snapshot *s, const struct nc_memory *m, int64_t now)
{
	struct nc_plan p;
	node_conditions_plan(s, m, now, &p);
	return p;
}

static const struct nc_node_plan *plan_node(const struct nc_snapshot *s, const struct nc_plan *p,
					    const char *name)
{
	return &p->nodes[node_index(s, name)];
}

/* The round's plan was carried out: remember it for the next one. */
static void commit(struct nc_memory *mem, const struct nc_snapshot *s, struct nc_plan *p)
{
	node_conditions_remember(mem, s, p, NULL, mem);
	node_conditions_plan_clear(p);
}

static void test_plan_transitions(void **state)
{
	struct fx x;
	struct nc_memory mem = {0};
	fx_healthy(&x);
	fx_snapshot(&x);

	/* First round: nothing on the nodes yet. Every node is written, no
	 * event (nothing changed from a known status). */
	struct nc_plan p = plan_at(&x.s, &mem, T0);
	assert_int_equal(p.n_patch, 3);
	assert_int_equal(p.n_gate_changes, 0);
	const struct nc_node_plan *n2 = plan_node(&x.s, &p, "harvester-node-2");
	assert_true(n2->patch);
	assert_int_equal(n2->from[NC_RWX], NC_ABSENT);
	assert_int_equal(n2->cond[NC_RWX].transition_ns, T0);
	assert_int_equal(n2->cond[NC_RWX].heartbeat_ns, T0);
	commit(&mem, &x.s, &p);
	assert_int_equal(mem.n, 3);

	/* Same verdict a round later: nothing to write. */
	p = plan_at(&x.s, &mem, T0 + 30 * SEC);
	assert_int_equal(p.n_patch, 0);
	assert_int_equal(plan_node(&x.s, &p, "harvester-node-2")->cond[NC_RWX].transition_ns, T0);
	commit(&mem, &x.s, &p);

	/* node 2's NFS probe fails: only node 2 is written; rwx moves its
	 * lastTransitionTime, live-migration keeps it. */
	fx_find(&x, "host.nfs.probe", STATUS_FAIL, "harvester-node-2",
		"nfs://10.43.12.7/pvc-1f2e: connection to 10.43.12.7 port 2049 refused");
	fx_snapshot(&x);
	p = plan_at(&x.s, &mem, T0 + 60 * SEC);
	assert_int_equal(p.n_patch, 1);
	n2 = plan_node(&x.s, &p, "harvester-node-2");
	assert_true(n2->patch);
	assert_int_equal(n2->from[NC_RWX], NC_TRUE);
	assert_int_equal(n2->cond[NC_RWX].status, NC_FALSE);
	assert_string_equal(n2->cond[NC_RWX].reason, "NFSProbeFailed");
	assert_int_equal(n2->cond[NC_RWX].transition_ns, T0 + 60 * SEC);
	assert_int_equal(n2->cond[NC_RWX].heartbeat_ns, T0 + 60 * SEC);
	assert_int_equal(n2->from[NC_LM], NC_TRUE);
	assert_int_equal(n2->cond[NC_LM].status, NC_TRUE);
	assert_int_equal(n2->cond[NC_LM].transition_ns, T0);
	assert_int_equal(n2->cond[NC_LM].heartbeat_ns, T0 + 60 * SEC);
	assert_false(plan_node(&x.s, &p, "harvester-node-1")->patch);
	/* The rwx gate went from PASS to FAIL: a gate change. */
	assert_int_equal(p.n_gate_changes, 1);
	assert_int_equal(p.gate_changes[0].gate, GATE_RWX);
	assert_int_equal(p.gate_changes[0].from, STATUS_PASS);
	assert_int_equal(p.gate_changes[0].to, STATUS_FAIL);
	commit(&mem, &x.s, &p);

	/* Only numbers change in the message: not worth a patch. */
	free(x.v.findings.items[x.v.findings.n - 1].message);
	x.v.findings.items[x.v.findings.n - 1].message =
	    xstrdup("nfs://10.43.12.8/pvc-1f2e: connection to 10.43.12.8 port 2049 refused");
	fx_snapshot(&x);
	p = plan_at(&x.s, &mem, T0 + 90 * SEC);
	assert_int_equal(p.n_patch, 0);
	node_conditions_plan_clear(&p);

	/* Another reason, the same status: written, lastTransitionTime kept,
	 * no transition. */
	free(x.v.findings.items[x.v.findings.n - 1].check);
	x.v.findings.items[x.v.findings.n - 1].check = xstrdup("host.nfs.kernel");
	fx_snapshot(&x);
	p = plan_at(&x.s, &mem, T0 + 120 * SEC);
	assert_int_equal(p.n_patch, 1);
	n2 = plan_node(&x.s, &p, "harvester-node-2");
	assert_string_equal(n2->cond[NC_RWX].reason, "NFSKernelClientFailed");
	assert_int_equal(n2->from[NC_RWX], NC_FALSE);
	assert_int_equal(n2->cond[NC_RWX].status, NC_FALSE);
	assert_int_equal(n2->cond[NC_RWX].transition_ns, T0 + 60 * SEC);
	assert_int_equal(p.n_gate_changes, 0);
	commit(&mem, &x.s, &p);

	/* The heartbeat: after at most 10 intervals every node is written
	 * again, times of transition untouched, no transition. */
	p = plan_at(&x.s, &mem, T0 + 420 * SEC);
	assert_int_equal(p.n_patch, 3);
	n2 = plan_node(&x.s, &p, "harvester-node-2");
	assert_int_equal(n2->cond[NC_RWX].transition_ns, T0 + 60 * SEC);
	assert_int_equal(n2->cond[NC_LM].transition_ns, T0);
	assert_int_equal(n2->cond[NC_LM].heartbeat_ns, T0 + 420 * SEC);
	assert_int_equal(n2->from[NC_RWX], n2->cond[NC_RWX].status);
	commit(&mem, &x.s, &p);
	/* ... and none comes due before three quarters of that. */
	p = plan_at(&x.s, &mem, T0 + 420 * SEC + 224 * SEC);
	assert_int_equal(p.n_patch, 0);
	node_conditions_plan_clear(&p);

	nc_memory_clear(&mem);
	fx_clear(&x);
}

/* A new process (or a new Lease holder) starts from what the Node carries. */
static void test_plan_from_observed(void **state)
{
	struct fx x;
	fx_init(&x);
	fx_node(&x, "harvester-node-1", true, true,
		"{\"type\":\"HvreadyRWXReady\",\"status\":\"True\",\"reason\":\"RWXReady\","
		"\"message\":\"the one check of the rwx gate passes for this node\","
		"\"lastHeartbeatTime\":\"2026-09-05T13:18:00Z\","
		"\"lastTransitionTime\":\"2026-09-01T07:00:00Z\"},"
		"{\"type\":\"HvreadyLiveMigrationReady\",\"status\":\"False\",\"reason\":"
		"\"KVMFailed\",\"message\":\"host.kvm: /dev/kvm is missing\","
		"\"lastHeartbeatTime\":\"2026-09-05T13:18:00Z\","
		"\"lastTransitionTime\":\"2026-09-02T07:00:00Z\"}");
	fx_find(&x, "host.nfs.client", STATUS_PASS, "harvester-node-1", "mount.nfs4 in /usr/sbin");
	fx_find(&x, "host.kvm", STATUS_FAIL, "harvester-node-1", "/dev/kvm is missing");
	fx_snapshot(&x);
	int64_t t_rwx, t_lm;
	assert_int_equal(util_parse_rfc3339("2026-09-01T07:00:00Z", &t_rwx), 0);
	assert_int_equal(util_parse_rfc3339("2026-09-02T07:00:00Z", &t_lm), 0);
	assert_int_equal(x.s.nodes[0].observed[NC_RWX].status, NC_TRUE);
	assert_int_equal(x.s.nodes[0].observed[NC_RWX].transition_ns, t_rwx);

	/* What the node carries is what we would write: leave it. */
	struct nc_plan p = plan_at(&x.s, NULL, T0);
	assert_int_equal(p.n_patch, 0);
	assert_int_equal(p.nodes[0].cond[NC_LM].transition_ns, t_lm);
	node_conditions_plan_clear(&p);

	/* KVM comes back: a transition from the observed False. */
	x.v.findings.items[1].status = STATUS_PASS;
	fx_snapshot(&x);
	p = plan_at(&x.s, NULL, T0);
	assert_int_equal(p.n_patch, 1);
	assert_int_equal(p.nodes[0].from[NC_LM], NC_FALSE);
	assert_int_equal(p.nodes[0].cond[NC_LM].status, NC_TRUE);
	assert_int_equal(p.nodes[0].cond[NC_LM].transition_ns, T0);
	assert_int_equal(p.nodes[0].cond[NC_RWX].transition_ns, t_rwx);

	/* The patch failed: the next round starts from the Node again. */
	struct nc_memory mem = {0};
	bool failed[1] = {true};
	node_conditions_remember(&mem, &x.s, &p, failed, NULL);
	assert_int_equal(mem.n, 0);
	node_conditions_plan_clear(&p);
	p = plan_at(&x.s, &mem, T0 + 30 * SEC);
	assert_int_equal(p.n_patch, 1);
	assert_int_equal(p.nodes[0].from[NC_LM], NC_FALSE);
	node_conditions_plan_clear(&p);
	nc_memory_clear(&mem);
	fx_clear(&x);
}

/* ---------- request bodies ---------- */

static void test_patch_body(void **state)
{
	struct fx x;
	fx_healthy(&x);
	fx_find(&x, "host.nfs.probe", STATUS_FAIL, "harvester-node-2",
		"nfs://10.43.12.7/pvc-1f2e: connection to 10.43.12.7 port 2049 refused");
	fx_snapshot(&x);
	struct nc_plan p = plan_at(&x.s, NULL, T0);
	_cleanup_free_ char *body =
	    node_conditions_patch_body(plan_node(&x.s, &p, "harvester-node-2"));
	assert_string_equal(
	    body,
	    "{\"status\":{\"conditions\":[{\"type\":\"HvreadyRWXReady\",\"status\":\"False\","
	    "\"reason\":\"NFSProbeFailed\",\"message\":\"host.nfs.probe: nfs://10.43.12.7/"
	    "pvc-1f2e: connection to 10.43.12.7 port 2049 refused\",\"lastHeartbeatTime\":"
	    "\"2026-09-05T13:20:44Z\",\"lastTransitionTime\":\"2026-09-05T13:20:44Z\"},{\"type\":"
	    "\"HvreadyLiveMigrationReady\",\"status\":\"True\",\"reason\":\"LiveMigrationReady\","
	    "\"message\":\"all 3 checks of the live-migration gate pass for this node\","
	    "\"lastHeartbeatTime\":\"2026-09-05T13:20:44Z\",\"lastTransitionTime\":"
	    "\"2026-09-05T13:20:44Z\"}]}}");
	node_conditions_plan_clear(&p);
	fx_clear(&x);
}

static void test_event_bodies(void **state)
{
	struct fx x;
	struct nc_memory mem = {0};
	fx_healthy(&x);
	fx_snapshot(&x);
	struct nc_plan p = plan_at(&x.s, &mem, T0);
	commit(&mem, &x.s, &p);
	fx_find(&x, "host.nfs.probe", STATUS_FAIL, "harvester-node-2",
		"nfs://10.43.12.7/pvc-1f2e: connection to 10.43.12.7 port 2049 refused");
	fx_snapshot(&x);
	p = plan_at(&x.s, &mem, T0 + 60 * SEC);
	_cleanup_free_ char *ev =
	    node_conditions_node_event(&x.s, plan_node(&x.s, &p, "harvester-node-2"), NC_RWX,
				       "hvready-aggregator-7d9f", T0 + 61 * SEC);
	assert_string_equal(
	    ev, "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":"
		"\"harvester-node-2.18d26f6a72a2da00\",\"namespace\":\"default\"},"
		"\"involvedObject\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":"
		"\"harvester-node-2\",\"uid\":\"6c2a0d3e-uid-harvester-node-2\"},\"reason\":"
		"\"HvreadyGateChanged\",\"message\":\"HvreadyRWXReady changed from True to "
		"False: NFSProbeFailed: host.nfs.probe: nfs://10.43.12.7/pvc-1f2e: connection to "
		"10.43.12.7 port 2049 refused\",\"type\":\"Warning\",\"source\":{\"component\":"
		"\"hvready-aggregator\"},\"firstTimestamp\":\"2026-09-05T13:21:45Z\","
		"\"lastTimestamp\":\"2026-09-05T13:21:45Z\",\"count\":1,\"reportingComponent\":"
		"\"hvready-aggregator\",\"reportingInstance\":\"hvready-aggregator-7d9f\"}");
	assert_int_equal(p.n_gate_changes, 1);
	_cleanup_free_ char *gev = node_conditions_gate_event(
	    &x.s, &p.gate_changes[0], "hvready-system", "hvready-aggregator-7d9f", "3f1e-pod-uid",
	    "hvready-aggregator-7d9f", T0 + 61 * SEC);
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	const struct jv *o = jv_parse(ar, gev);
	assert_string_equal(JQS(o, "metadata", "namespace"), "hvready-system");
	assert_string_equal(JQS(o, "involvedObject", "kind"), "Pod");
	assert_string_equal(JQS(o, "involvedObject", "namespace"), "hvready-system");
	assert_string_equal(JQS(o, "involvedObject", "name"), "hvready-aggregator-7d9f");
	assert_string_equal(JQS(o, "involvedObject", "uid"), "3f1e-pod-uid");
	assert_string_equal(JQS(o, "type"), "Warning");
	assert_string_equal(JQS(o, "reason"), "HvreadyGateChanged");
	assert_string_equal(
	    JQS(o, "message"),
	    "gate rwx changed from PASS to FAIL: host.nfs.probe on harvester-node-2");
	node_conditions_plan_clear(&p);
	nc_memory_clear(&mem);
	fx_clear(&x);
}

static void test_gate_blockers(void **state)
{
	struct fx x;
	fx_init(&x);
	fx_node(&x, "harvester-node-1", true, true, NULL);
	/* Many VMs on one node: one mention. */
	for (int i = 0; i < 50; i++)
		fx_find(&x, "api.vm.live-migratable", STATUS_FAIL, "harvester-node-1",
			"cannot live-migrate: DisksNotLiveMigratable");
	fx_find(&x, "api.kubevirt.available", STATUS_FAIL, NULL, "KubeVirt is Deploying");
	/* Many nodes: bounded, with a count. */
	for (int i = 0; i < 100; i++) {
		char n[64];
		snprintf(n, sizeof(n), "harvester-node-%03d.rack-7.example.internal", i);
		fx_find(&x, "host.nfs.client", STATUS_FAIL, n, "no mount.nfs");
	}
	fx_snapshot(&x);
	assert_string_equal(x.s.gate_blockers[GATE_LIVE_MIGRATION],
			    "api.vm.live-migratable on harvester-node-1, api.kubevirt.available");
	const char *rwx = x.s.gate_blockers[GATE_RWX];
	assert_true(strlen(rwx) < 512);
	assert_true(startswith(rwx,
			       "host.nfs.client on harvester-node-000.rack-7.example.internal, "
			       "host.nfs.client on harvester-node-001.rack-7.example.internal"));
	const char *more = strstr(rwx, " and ");
	assert_non_null(more);
	size_t shown = 0;
	for (const char *p = rwx; (p = strstr(p, "host.nfs.client on ")); p++)
		shown++;
	assert_int_equal(shown + strtoul(more + 5, NULL, 10), 100);
	assert_true(endswith(rwx, " more"));
	assert_string_equal(
	    x.s.gate_blockers[GATE_PREINSTALL],
	    "host.nfs.client on harvester-node-000.rack-7.example.internal, "
	    "host.nfs.client on harvester-node-001.rack-7.example.internal, "
	    "host.nfs.client on harvester-node-002.rack-7.example.internal, "
	    "host.nfs.client on harvester-node-003.rack-7.example.internal, "
	    "host.nfs.client on harvester-node-004.rack-7.example.internal, "
	    "host.nfs.client on harvester-node-005.rack-7.example.internal, "
	    "host.nfs.client on harvester-node-006.rack-7.example.internal and 93 more");
	fx_clear(&x);
}

/* ---------- the Lease ---------- */

static json_object *lease_obj(const char *holder, const char *renew, int duration)
{
	char *j = xasprintf(
	    "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":"
	    "\"hvready-aggregator\",\"namespace\":\"hvready-system\",\"resourceVersion\":\"4711\"},"
	    "\"spec\":{\"holderIdentity\":\"%s\",\"leaseDurationSeconds\":%d,\"acquireTime\":"
	    "\"2026-09-05T12:00:00.000000Z\",\"renewTime\":\"%s\",\"leaseTransitions\":2}}",
	    holder, duration, renew);
	json_object *o = json_tokener_parse(j);
	free(j);
	assert_non_null(o);
	return o;
}

static void test_lease_decide(void **state)
{
	struct lease l;
	lease_init(&l, "hvready-system", LEASE_NAME, "agg-b", 90);
	int64_t m = 1000 * SEC; /* monotonic */
	assert_int_equal(lease_decide(&l, NULL, m), LEASE_CREATE);

	json_object *o = lease_obj("agg-a", "2026-09-05T13:20:40.000000Z", 90);
	assert_int_equal(lease_decide(&l, o, m), LEASE_WAIT);
	/* Unchanged for less than its duration by our clock: still theirs,
	 * whatever renewTime says against our clock. */
	assert_int_equal(lease_decide(&l, o, m + 89 * SEC), LEASE_WAIT);
	assert_int_equal(lease_decide(&l, o, m + 90 * SEC), LEASE_TAKE);
	json_object_put(o);

	/* A renewal restarts the clock. */
	o = lease_obj("agg-a", "2026-09-05T13:22:10.000000Z", 90);
	assert_int_equal(lease_decide(&l, o, m + 91 * SEC), LEASE_WAIT);
	assert_int_equal(lease_decide(&l, o, m + 180 * SEC), LEASE_WAIT);
	assert_int_equal(lease_decide(&l, o, m + 181 * SEC), LEASE_TAKE);
	json_object_put(o);

	/* The holder's own leaseDurationSeconds counts. */
	o = lease_obj("agg-c", "2026-09-05T13:23:00.000000Z", 15);
	assert_int_equal(lease_decide(&l, o, m + 200 * SEC), LEASE_WAIT);
	assert_int_equal(lease_decide(&l, o, m + 215 * SEC), LEASE_TAKE);
	json_object_put(o);

	o = lease_obj("", "2026-09-05T13:23:00.000000Z", 15);
	assert_int_equal(lease_decide(&l, o, m + 216 * SEC), LEASE_TAKE);
	json_object_put(o);
	o = lease_obj("agg-b", "2026-09-05T13:23:00.000000Z", 90);
	assert_int_equal(lease_decide(&l, o, m + 217 * SEC), LEASE_RENEW);
	json_object_put(o);
	lease_clear(&l);
}

static void test_lease_body(void **state)
{
	struct lease l;
	lease_init(&l, "hvready-system", LEASE_NAME, "agg-b", 90);
	int64_t now = T0 + 123456789;
	_cleanup_free_ char *create = lease_body(&l, NULL, LEASE_CREATE, now);
	assert_string_equal(
	    create,
	    "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":"
	    "\"hvready-aggregator\",\"namespace\":\"hvready-system\"},\"spec\":{\"holderIdentity\":"
	    "\"agg-b\",\"leaseDurationSeconds\":90,\"acquireTime\":\"2026-09-05T13:20:44.123456Z\","
	    "\"renewTime\":\"2026-09-05T13:20:44.123456Z\",\"leaseTransitions\":0}}");

	json_object *cur = lease_obj("agg-a", "2026-09-05T13:19:00.000000Z", 90);
	_cleanup_free_ char *take = lease_body(&l, cur, LEASE_TAKE, now);
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	const struct jv *o = jv_parse(ar, take);
	/* The resourceVersion read goes back: a stale one is a 409. */
	assert_string_equal(JQS(o, "metadata", "resourceVersion"), "4711");
	assert_string_equal(JQS(o, "spec", "holderIdentity"), "agg-b");
	assert_string_equal(JQS(o, "spec", "acquireTime"), "2026-09-05T13:20:44.123456Z");
	int64_t tr = 0;
	assert_true(jq_int(JQ(o, "spec", "leaseTransitions"), &tr));
	assert_int_equal(tr, 3);
	json_object_put(cur);

	cur = lease_obj("agg-b", "2026-09-05T13:19:00.000000Z", 90);
	_cleanup_free_ char *renew = lease_body(&l, cur, LEASE_RENEW, now);
	o = jv_parse(ar, renew);
	assert_string_equal(JQS(o, "spec", "acquireTime"), "2026-09-05T12:00:00.000000Z");
	assert_string_equal(JQS(o, "spec", "renewTime"), "2026-09-05T13:20:44.123456Z");
	assert_true(jq_int(JQ(o, "spec", "leaseTransitions"), &tr));
	assert_int_equal(tr, 2);
	json_object_put(cur);
	lease_clear(&l);
}

static void test_lease_defaults(void **state)
{
	char dir[] = "/tmp/hvready-nc-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/namespace", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("harvester-addons\n", f);
	fclose(f);
	setenv("HVREADY_SA_DIR", dir, 1);
	unsetenv("POD_NAMESPACE");
	unsetenv("POD_NAME");
	char *ns = lease_default_namespace();
	assert_string_equal(ns, "harvester-addons");
	free(ns);
	setenv("POD_NAMESPACE", "hvready", 1);
	ns = lease_default_namespace();
	assert_string_equal(ns, "hvready");
	free(ns);
	unsetenv("POD_NAMESPACE");
	unlink(path);
	ns = lease_default_namespace();
	assert_string_equal(ns, LEASE_DEFAULT_NAMESPACE);
	free(ns);
	rmdir(dir);
	unsetenv("HVREADY_SA_DIR");

	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	char *id = lease_default_identity();
	assert_string_equal(id, host);
	free(id);
	setenv("POD_NAME", "hvready-aggregator-5f7c9-x2x9q", 1);
	id = lease_default_identity();
	assert_string_equal(id, "hvready-aggregator-5f7c9-x2x9q");
	free(id);
	unsetenv("POD_NAME");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_pass),
	    cmocka_unit_test(test_fail_on_one_node),
	    cmocka_unit_test(test_canary_message_is_stable),
	    cmocka_unit_test(test_cluster_wide_fail_and_worst),
	    cmocka_unit_test(test_no_fresh_report),
	    cmocka_unit_test(test_warn_is_true),
	    cmocka_unit_test(test_vm_findings_per_node),
	    cmocka_unit_test(test_reasons_for_every_gate_check),
	    cmocka_unit_test(test_message_bounds),
	    cmocka_unit_test(test_plan_transitions),
	    cmocka_unit_test(test_plan_from_observed),
	    cmocka_unit_test(test_patch_body),
	    cmocka_unit_test(test_event_bodies),
	    cmocka_unit_test(test_gate_blockers),
	    cmocka_unit_test(test_lease_decide),
	    cmocka_unit_test(test_lease_body),
	    cmocka_unit_test(test_lease_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
