/*
 * api.apiservices (docs/checks/api.apiservices.md): every aggregated
 * APIService is Available, and what an unavailable one breaks.
 */
#include "checks_api.h"

#include <string.h>

#include "kubevirt_util.h"

static const char *apiservice_group(const struct jv *a)
{
	const char *g = JQS(a, "spec", "group");
	if (g)
		return g;
	const char *name = jq_name(a), *dot = name ? strchr(name, '.') : NULL;
	return dot ? dot + 1 : "";
}

static bool group_is(const char *g, const char *domain)
{
	size_t n = strlen(domain), m = strlen(g);
	return streq(g, domain) || (m > n && endswith(g, domain) && g[m - n - 1] == '.');
}

static void apiservice_evidence(struct finding *f, const struct jv *a, const struct jv *avail)
{
	const char *sns = JQS(a, "spec", "service", "namespace");
	const char *sname = JQS(a, "spec", "service", "name");
	kv_add_str(&f->evidence, "group", apiservice_group(a));
	if (sname)
		kv_add_strf(&f->evidence, "service", "%s/%s", sns ? sns : "", sname);
	else
		kv_add_str(&f->evidence, "service", "Local (served by kube-apiserver)");
	kv_add_str(&f->evidence, "Available",
		   JQS(avail, "status") ? JQS(avail, "status") : "not reported");
	if (JQS(avail, "reason"))
		kv_add_str(&f->evidence, "reason", JQS(avail, "reason"));
	if (JQS(avail, "message")) {
		_cleanup_free_ char *m = kubevirt_util_trunc(JQS(avail, "message"), 400);
		kv_add_str(&f->evidence, "message", m);
	}
}

static bool apiservice_one(struct agg_ctx *ctx, const char *id, const struct jv *a, bool rancher,
			   size_t *n_hv)
{
	const char *g = apiservice_group(a);
	const struct jv *avail = jq_condition(JQ(a, "status", "conditions"), "Available");
	const char *st = JQS(avail, "status");
	bool hv = group_is(g, "harvesterhci.io");
	*n_hv += hv;
	if (streq(st, "True"))
		return false;
	struct finding *f = agg_object_finding(ctx, id, a);
	struct judge j = {0};
	apiservice_evidence(f, a, avail);
	const char *name = jq_name(a) ? jq_name(a) : "?";
	if (hv && !st) {
		judge_note(&j, STATUS_UNKNOWN, "APIService %s reports no Available condition yet",
			   name);
		judge_remedy(&j, "kubectl get apiservice %s -o yaml", name);
	} else if (hv) {
		judge_note(&j, STATUS_FAIL, "Harvester APIService %s is not available (%s)", name,
			   JQS(avail, "reason") ? JQS(avail, "reason") : st);
		judge_remedy(&j,
			     "kubectl get apiservice %s -o jsonpath='{.status.conditions}'; "
			     "kubectl -n harvester-system get pod -l "
			     "app.kubernetes.io/name=harvester",
			     name);
	} else if (group_is(g, "cattle.io")) {
		kv_add_bool(&f->evidence, "rancher_deployed", rancher);
		if (rancher)
			judge_note(&j, STATUS_WARN,
				   "Rancher APIService %s is not available: Rancher features "
				   "(cattle-system/rancher is deployed) are affected",
				   name);
		else
			judge_note(&j, STATUS_WARN,
				   "Rancher/Steve APIService %s is not available: known non-fatal "
				   "noise while Harvester runs without embedded Rancher",
				   name);
		judge_remedy(&j,
			     "nothing to do without Rancher integration (rancherEmbedded: false); "
			     "to integrate, register the cluster in Rancher so that its server-url "
			     "is reachable. Otherwise it only makes discovery print errors: "
			     "kubectl delete apiservice %s removes it if nothing serves it",
			     name);
	} else {
		judge_note(&j, STATUS_WARN,
			   "APIService %s is not available (%s): API discovery reports errors and "
			   "tools such as helm can fail",
			   name, JQS(avail, "reason") ? JQS(avail, "reason") : "no reason");
		judge_remedy(&j,
			     "fix or remove it: kubectl get apiservice %s -o "
			     "jsonpath='{.spec.service}'; check that service's pods",
			     name);
	}
	judge_decide(&j, f, "");
	return true;
}

void check_apiservices(struct agg_ctx *ctx, const char *id)
{
	const struct jv *items = cs_items(ctx->cs, RES_APISERVICES);
	bool rancher = cs_find(ctx->cs, RES_DEPLOYMENTS, "cattle-system", "rancher") != NULL;
	size_t n_hv = 0, flagged = 0;
	for (size_t i = 0; i < jq_len(items); i++)
		flagged += apiservice_one(ctx, id, jq_at(items, i), rancher, &n_hv);
	if (ctx->harvester_installed && n_hv == 0) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		kv_add_int(&f->evidence, "apiservices", (int64_t)jq_len(items));
		judge_note(&j, STATUS_FAIL,
			   "Harvester is installed but no APIService serves harvesterhci.io");
		judge_remedy(&j, "kubectl get crd | grep harvesterhci.io; kubectl get apiservice "
				 "| grep harvesterhci");
		flagged++;
		judge_decide(&j, f, "");
	}
	if (flagged == 0) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		kv_add_int(&f->evidence, "apiservices", (int64_t)jq_len(items));
		kv_add_int(&f->evidence, "harvesterhci_io", (int64_t)n_hv);
		judge_note(&j, STATUS_PASS, "%s %zu %s available",
			   jq_len(items) == 1 ? "the" : "all", jq_len(items),
			   plural((int64_t)jq_len(items), "APIService is", "APIServices are"));
		judge_decide(&j, f, "");
	}
}
