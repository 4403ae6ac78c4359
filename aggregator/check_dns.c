/*
 * api.dns.replicas (docs/checks/api.dns.replicas.md): CoreDNS has at least two
 * ready replicas (Longhorn RWX depends on DNS).
 */
#include <string.h>

#include "checks_api.h"
#include "storage.h"

#define RKE2_COREDNS "rke2-coredns-rke2-coredns"

static bool is_coredns(const struct jv *d)
{
	if (!streq(jq_namespace(d), "kube-system"))
		return false;
	const char *name = jq_name(d);
	return streq(name, RKE2_COREDNS) || streq(name, "coredns") ||
	       streq(JQS(d, "metadata", "labels", "k8s-app"), "kube-dns");
}

static void dns_remedy(struct judge *j, const char *name, bool none_ready)
{
	if (none_ready)
		judge_remedy(j,
			     "find why no pod is ready: kubectl -n kube-system describe deployment "
			     "%s; kubectl -n kube-system get pods -l k8s-app=kube-dns -o wide",
			     name);
	else if (streq(name, RKE2_COREDNS))
		judge_remedy(j,
			     "RKE2: keep two replicas with a HelmChartConfig rke2-coredns in "
			     "kube-system setting autoscaler.min: 2 (manifest in "
			     "docs/checks/api.dns.replicas.md); a kubectl scale is undone by the "
			     "CoreDNS autoscaler");
	else
		judge_remedy(j, "kubectl -n kube-system scale deployment %s --replicas=2", name);
}

static void dns_judge(struct agg_ctx *ctx, const char *id, const struct jv *d)
{
	struct finding *f = storage_object_finding(ctx, id, "Deployment", d);
	struct judge j = {0};
	const char *name = jq_name(d) ? jq_name(d) : "?";
	const struct jv *st = JQ(d, "status");
	int64_t ready = 0, desired = 1;
	jq_int(JQ(d, "spec", "replicas"), &desired); /* absent: Kubernetes defaults to 1 */
	kv_add_int(&f->evidence, "desired_replicas", desired);
	/* readyReplicas is omitted when 0; without a status object it is unknown. */
	if (!st || !jv_is(st, JV_OBJECT) ||
	    (JQ(st, "readyReplicas") && !jq_int(JQ(st, "readyReplicas"), &ready))) {
		judge_note(&j, STATUS_UNKNOWN, "CoreDNS Deployment %s has no readable status",
			   name);
		storage_ev_str(&f->evidence, "ready_replicas", NULL);
		goto out;
	}
	kv_add_int(&f->evidence, "ready_replicas", ready);
	if (ready >= 2) {
		judge_note(&j, STATUS_PASS, "CoreDNS %s: %lld of %lld replicas ready", name,
			   (long long)ready, (long long)desired);
		goto out;
	}
	if (ready == 1)
		judge_note(
		    &j, STATUS_WARN,
		    "only 1 CoreDNS replica ready (%s): when its node goes down, cluster DNS "
		    "stops and Longhorn RWX volumes (share-manager) cannot be mounted",
		    name);
	else
		judge_note(
		    &j, STATUS_FAIL,
		    "no CoreDNS replica ready (%s): cluster DNS is down, Longhorn RWX volumes "
		    "(share-manager) cannot be mounted",
		    name);
	dns_remedy(&j, name, ready < 1);
out:
	judge_decide(&j, f, "");
}

void check_dns_replicas(struct agg_ctx *ctx, const char *id)
{
	const struct jv *deps = cs_items(ctx->cs, RES_DEPLOYMENTS);
	size_t found = 0;
	for (size_t i = 0; i < jq_len(deps); i++) {
		if (!is_coredns(jq_at(deps, i)))
			continue;
		dns_judge(ctx, id, jq_at(deps, i));
		found++;
	}
	if (found)
		return;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	judge_note(&j, STATUS_FAIL,
		   "no CoreDNS Deployment in kube-system (%s, coredns, or label "
		   "k8s-app=kube-dns): Longhorn RWX volumes need cluster DNS",
		   RKE2_COREDNS);
	kv_add_int(&f->evidence, "deployments", (int64_t)jq_len(deps));
	judge_remedy(&j, "kubectl -n kube-system get deploy,ds -l k8s-app=kube-dns; on RKE2 the "
			 "rke2-coredns chart must not be disabled (--disable rke2-coredns)");
	judge_decide(&j, f, "");
}
