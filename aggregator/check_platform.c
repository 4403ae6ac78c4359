/*
 * Harvester's platform around KubeVirt: its admission webhooks, crash history
 * of the system pods, APIServices, and the Harvester API endpoint itself
 * (docs/checks/api.webhooks.harvester.md, api.pods.restarts.md,
 * api.apiservices.md, api.harvester.endpoint.md).
 */
#include "checks_api.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hv_endpoint.h"
#include "kubevirt_util.h"

/* ---- api.webhooks.harvester ----------------------------------------------- */

/* The configuration that holds the webhook entry named entry, or NULL. */
static const struct jv *find_webhook(const struct jv *configs, const char *entry,
				     const struct jv **ret_hook)
{
	for (size_t i = 0; i < jq_len(configs); i++) {
		const struct jv *cfg = jq_at(configs, i), *hooks = JQ(cfg, "webhooks");
		for (size_t j = 0; j < jq_len(hooks); j++)
			if (streq(JQS(jq_at(hooks, j), "name"), entry)) {
				*ret_hook = jq_at(hooks, j);
				return cfg;
			}
	}
	return NULL;
}

static void webhook_one(struct agg_ctx *ctx, const char *id, enum resource_id rid,
			const char *entry, const char *expected_cfg)
{
	const struct jv *hook = NULL, *configs = cs_items(ctx->cs, rid);
	const struct jv *cfg = find_webhook(configs, entry, &hook);
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	const char *kind = rid == RES_VWEBHOOKS ? "ValidatingWebhookConfiguration"
						: "MutatingWebhookConfiguration";
	if (!cfg) {
		struct value_list *l = kv_add_list(&f->evidence, "configurations");
		for (size_t i = 0; i < jq_len(configs); i++) {
			const struct jv *hooks = JQ(jq_at(configs, i), "webhooks");
			for (size_t k = 0; k < jq_len(hooks); k++)
				vlist_add_strf(
				    l, "%s: %s", kubevirt_util_str(jq_name(jq_at(configs, i))),
				    JQS(jq_at(hooks, k), "name") ? JQS(jq_at(hooks, k), "name")
								 : "?");
		}
		judge_note(&j, STATUS_FAIL,
			   "no webhook entry %s in any %s (Harvester's configuration is %s)", entry,
			   kind, expected_cfg);
		judge_remedy(&j,
			     "the harvester-webhook pod registers it at start: kubectl -n "
			     "harvester-system rollout status deploy/harvester-webhook; kubectl -n "
			     "harvester-system logs deploy/harvester-webhook --tail=50");
		goto out;
	}
	finding_set_object(f, "%s/%s", kind, jq_name(cfg) ? jq_name(cfg) : "?");
	kv_add_str(&f->evidence, "configuration", jq_name(cfg) ? jq_name(cfg) : "?");
	kv_add_str(&f->evidence, "entry", entry);
	const char *sns = JQS(hook, "clientConfig", "service", "namespace");
	const char *sname = JQS(hook, "clientConfig", "service", "name");
	if (sname)
		kv_add_strf(&f->evidence, "service", "%s/%s", sns ? sns : "", sname);
	if (JQS(hook, "failurePolicy"))
		kv_add_str(&f->evidence, "failurePolicy", JQS(hook, "failurePolicy"));
	judge_note(&j, STATUS_PASS, "webhook entry %s is registered in %s %s", entry, kind,
		   jq_name(cfg) ? jq_name(cfg) : "?");
out:
	judge_decide(&j, f, "");
}

void check_webhooks_harvester(struct agg_ctx *ctx, const char *id)
{
	if (!ctx->harvester_installed) {
		agg_not_applicable(ctx, id, "Harvester is not installed");
		return;
	}
	webhook_one(ctx, id, RES_VWEBHOOKS, "validator.harvesterhci.io", "harvester-validator");
	webhook_one(ctx, id, RES_MWEBHOOKS, "mutator.harvesterhci.io", "harvester-mutator");
}

/* ---- api.pods.restarts ---------------------------------------------------- */

#define RECENT_NS (3600 * NSEC_PER_SEC)

static const char *const restart_namespaces[] = {"harvester-system", "longhorn-system",
						 "cattle-system"};

static bool watched_namespace(const char *ns)
{
	for (size_t i = 0; i < ELEMENTSOF(restart_namespaces); i++)
		if (streq(ns, restart_namespaces[i]))
			return true;
	return false;
}

/* What one container's crash history says. */
struct crash {
	const char *container;
	int64_t restarts;
	const struct jv
	    *term;	     /* the last termination: lastState.terminated (or state.terminated) */
	const char *waiting; /* CrashLoopBackOff, … */
	bool when_known;
	int64_t when;
	const char *when_from;
};

static bool crash_of(const struct jv *pod, const struct jv *cst, struct crash *c)
{
	*c = (struct crash){.container = JQS(cst, "name")};
	jq_int(JQ(cst, "restartCount"), &c->restarts);
	c->term = JQ(cst, "lastState", "terminated");
	if (!jv_is(c->term, JV_OBJECT))
		c->term = NULL;
	/* restartPolicy Never (share-manager, instance-manager, jobs): a failed pod's
	 * crash is its current state. */
	const struct jv *cur = JQ(cst, "state", "terminated");
	int64_t code = 0;
	if (!c->term && streq(JQS(pod, "status", "phase"), "Failed") && jv_is(cur, JV_OBJECT) &&
	    jq_int(JQ(cur, "exitCode"), &code) && code != 0)
		c->term = cur;
	c->waiting = JQS(cst, "state", "waiting", "reason");
	if (c->waiting && !streq(c->waiting, "CrashLoopBackOff"))
		c->waiting = NULL;
	if (c->term && jq_time(JQ(c->term, "finishedAt"), &c->when)) {
		c->when_known = true;
		c->when_from = "lastState.terminated.finishedAt";
	} else if (c->restarts > 0 && jq_time(JQ(cst, "state", "running", "startedAt"), &c->when)) {
		/* No record of the termination: the current run started right after it. */
		c->when_known = true;
		c->when_from = "state.running.startedAt";
	}
	return c->restarts > 0 || c->waiting || c->term;
}

static const char *classify(const struct jv *term, int64_t *ret_code, bool *ret_benign)
{
	const char *reason = JQS(term, "reason");
	int64_t code = -1;
	jq_int(JQ(term, "exitCode"), &code);
	*ret_code = code;
	*ret_benign = false;
	if (!term)
		return "the last termination is not recorded";
	if (streq(reason, "OOMKilled"))
		return "OOMKilled: the container hit its memory limit";
	/* The kubelet's own record of a container the runtime no longer knows (it
	 * writes exit 137 with it): a node or runtime restart, not a kill. */
	if (streq(reason, "ContainerStatusUnknown")) {
		*ret_benign = true;
		return "state lost: the container runtime no longer knew the container (node or "
		       "container runtime restarted)";
	}
	if (code == 137)
		return "killed by SIGKILL (exit 137) without OOM: usually a failed liveness probe";
	if (code == 143)
		return "stopped by SIGTERM (exit 143)";
	if (code == 0) {
		*ret_benign = true;
		return "exited normally (exit 0) and was started again";
	}
	if (streq(reason, "Unknown") || code == 255) {
		*ret_benign = true;
		return "state lost (node or container runtime restarted)";
	}
	return "the application exited with an error (exit code != 137: not OOM): its log "
	       "of the previous run says why";
}

/* A Failed pod the kubelet itself ended (status.reason): node-pressure eviction,
 * graceful node shutdown ("Terminated" since 1.25, "Shutdown" before). Its
 * containers' exit codes are the kill, not a crash. */
static const char *kubelet_stop(const struct jv *pod)
{
	static const struct {
		const char *reason, *what;
	} stops[] = {{"Evicted", "evicted by the kubelet (node pressure), not a crash"},
		     {"Terminated", "stopped by the kubelet for a node shutdown, not a crash"},
		     {"Shutdown", "stopped by the kubelet for a node shutdown, not a crash"},
		     {"NodeShutdown", "stopped by the kubelet for a node shutdown, not a crash"}};
	const char *r = JQS(pod, "status", "reason");
	if (!streq(JQS(pod, "status", "phase"), "Failed") || !r)
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(stops); i++)
		if (streq(r, stops[i].reason))
			return stops[i].what;
	return NULL;
}

/* The Job controlling a pod (ownerReferences: kind Job, controller true): its
 * uid (its name when the reference has none), and its name in *ret_name; NULL
 * for a pod no Job controls. */
static const char *pod_job(const struct jv *pod, const char **ret_name)
{
	const struct jv *o = jq_owner(pod, "Job", true);
	if (!o)
		return NULL;
	*ret_name = JQS(o, "name") ? JQS(o, "name") : "?";
	return JQS(o, "uid") ? JQS(o, "uid") : JQS(o, "name");
}

/* Jobs with a pod that succeeded: their failed attempts are history. A Job
 * retries a failed pod with a new one (backoffLimit) and keeps the failed ones
 * (Harvester's promote and upgrade Jobs, Longhorn's pre-upgrade Job), so a
 * failure within the hour followed by success is no ongoing crash. */
struct job_done {
	const char *ns, *job, *pod;
	int64_t created;
};

struct jobs_done {
	struct job_done *v;
	size_t n;
};

static void jobs_done_collect(const struct jv *pods, struct jobs_done *d)
{
	*d = (struct jobs_done){0};
	for (size_t i = 0; i < jq_len(pods); i++) {
		const struct jv *p = jq_at(pods, i);
		const char *name, *job;
		int64_t created;
		if (!watched_namespace(jq_namespace(p)) ||
		    !streq(JQS(p, "status", "phase"), "Succeeded") || !(job = pod_job(p, &name)) ||
		    !jq_time(JQ(p, "metadata", "creationTimestamp"), &created))
			continue;
		d->v = xrealloc(d->v, (d->n + 1) * sizeof(*d->v));
		d->v[d->n++] =
		    (struct job_done){jq_namespace(p), job, jq_name(p) ? jq_name(p) : "?", created};
	}
}

/* The pod whose success made pod's crash history (pod itself when it
 * succeeded; else a pod of the same Job created after it, a retry), and its
 * Job's name in *ret_job; NULL when the crash may be ongoing. */
static const char *job_done_by(const struct jobs_done *d, const struct jv *pod,
			       const char **ret_job)
{
	const char *job = pod_job(pod, ret_job);
	if (!job)
		return NULL;
	if (streq(JQS(pod, "status", "phase"), "Succeeded"))
		return jq_name(pod) ? jq_name(pod) : "?";
	int64_t created;
	if (!streq(JQS(pod, "status", "phase"), "Failed") ||
	    !jq_time(JQ(pod, "metadata", "creationTimestamp"), &created))
		return NULL;
	for (size_t i = 0; i < d->n; i++)
		if (streq(d->v[i].ns, jq_namespace(pod)) && streq(d->v[i].job, job) &&
		    d->v[i].created >= created)
			return d->v[i].pod;
	return NULL;
}

static void restart_remedy(struct judge *j, const struct jv *pod, const struct crash *c,
			   int64_t code, const char *reason)
{
	const char *ns = kubevirt_util_str(jq_namespace(pod));
	const char *name = kubevirt_util_str(jq_name(pod));
	if (kubelet_stop(pod)) {
		judge_remedy(j,
			     "the controller has replaced it; delete the leftover Failed pod: "
			     "kubectl -n %s delete pod %s%s",
			     ns, name,
			     streq(JQS(pod, "status", "reason"), "Evicted")
				 ? "; and relieve the node's pressure (kubectl describe node: "
				   "Conditions, the eviction message names the resource)"
				 : "");
		return;
	}
	_cleanup_free_ char *logs = xasprintf("kubectl -n %s logs %s -c %s --previous --tail=12",
					      ns, name, c->container ? c->container : "?");
	const char *m = JQS(c->term, "message");
	if (streq(reason, "OOMKilled"))
		judge_remedy(j,
			     "raise the container's memory limit or find what grew: kubectl -n %s "
			     "get pod %s -o jsonpath='{.spec.containers[*].resources}'; %s",
			     ns, name, logs);
	else if ((m && strstr(m, "volumesnapshotclasses.snapshot.storage.k8s.io \"longhorn\"")) ||
		 (streq(ns, "harvester-system") && code == 1))
		judge_remedy(j,
			     "%s — a level=fatal line names the cause; harvester exits at start "
			     "when the VolumeSnapshotClass longhorn is missing (create it: see "
			     "api.vsc.longhorn). The count only grows: what matters is whether "
			     "finishedAt still moves",
			     logs);
	else
		judge_remedy(j,
			     "%s; the count only grows: what matters is whether finishedAt still "
			     "moves",
			     logs);
}

static void crash_finding(struct agg_ctx *ctx, const char *id, const struct jv *pod,
			  const struct crash *c, const struct jobs_done *jobs)
{
	int64_t code;
	bool benign;
	const char *what = classify(c->term, &code, &benign);
	const char *reason = JQS(c->term, "reason"), *stopped = kubelet_stop(pod);
	const char *job = NULL, *done_by = c->waiting ? NULL : job_done_by(jobs, pod, &job);
	_cleanup_free_ char *what_done = NULL;
	if (stopped) {
		what = stopped;
		benign = true;
	} else if (done_by) {
		what_done = streq(done_by, jq_name(pod))
				? xasprintf("%s; the pod then completed (Job %s): history, not "
					    "an ongoing crash",
					    what, job)
				: xasprintf("%s; a later attempt of Job %s succeeded (pod %s): "
					    "history, not an ongoing crash",
					    what, job, done_by);
		what = what_done;
		benign = true;
	}
	bool recent = c->when_known && ctx->now_ns - c->when <= RECENT_NS;
	enum status st = c->waiting ? STATUS_FAIL : recent && !benign ? STATUS_FAIL : STATUS_WARN;
	char ts[64], age[32];
	struct finding *f = agg_object_finding(ctx, id, pod);
	struct judge j = {0};
	kv_add_str(&f->evidence, "container", c->container ? c->container : "?");
	kv_add_int(&f->evidence, "restarts", c->restarts);
	if (c->term) {
		kv_add_str(&f->evidence, "reason", reason ? reason : "");
		kv_add_int(&f->evidence, "exit_code", code);
	}
	if (c->when_known) {
		util_format_rfc3339(c->when, ts, sizeof(ts));
		kubevirt_util_age(ctx->now_ns - c->when, age, sizeof(age));
		kv_add_str(&f->evidence, "finished_at", ts);
		kv_add_str(&f->evidence, "time_from", c->when_from);
		kv_add_strf(&f->evidence, "ago", "%s", age);
	}
	if (JQS(c->term, "message") && *JQS(c->term, "message")) {
		_cleanup_free_ char *m = kubevirt_util_trunc(JQS(c->term, "message"), 500);
		kv_add_str(&f->evidence, "message", m);
	}
	if (c->waiting)
		kv_add_str(&f->evidence, "state", c->waiting);
	if (done_by) {
		kv_add_str(&f->evidence, "job", job);
		kv_add_str(&f->evidence, "job_succeeded_pod", done_by);
	}
	if (stopped) {
		kv_add_str(&f->evidence, "pod_reason", JQS(pod, "status", "reason"));
		if (JQS(pod, "status", "message"))
			kv_add_str(&f->evidence, "pod_message", JQS(pod, "status", "message"));
	}
	if (JQS(pod, "spec", "nodeName"))
		finding_set_node(f, JQS(pod, "spec", "nodeName"));
	if (stopped)
		judge_note(&j, st, "pod %s (status.reason %s)%s%s%s: container %s exit code %lld",
			   what, JQS(pod, "status", "reason"), c->when_known ? ", " : "",
			   c->when_known ? age : "", c->when_known ? " ago" : "",
			   c->container ? c->container : "?", (long long)code);
	else if (c->waiting)
		judge_note(&j, st, "container %s is in %s after %lld %s: %s",
			   c->container ? c->container : "?", c->waiting, (long long)c->restarts,
			   plural(c->restarts, "restart", "restarts"), what);
	else if (c->when_known)
		judge_note(&j, st, "container %s restarted %lld %s, last crash %s ago%s: %s",
			   c->container ? c->container : "?", (long long)c->restarts,
			   plural(c->restarts, "time", "times"), age,
			   recent ? " (within the last hour)" : "", what);
	else
		judge_note(&j, st,
			   "container %s restarted %lld %s; when it last crashed is not "
			   "recorded: %s",
			   c->container ? c->container : "?", (long long)c->restarts,
			   plural(c->restarts, "time", "times"), what);
	if (done_by && !streq(done_by, jq_name(pod)))
		judge_remedy(&j,
			     "Job %s completed; kubectl -n %s logs %s -c %s says why this "
			     "attempt failed; delete the leftover pod: kubectl -n %s delete pod %s",
			     job, kubevirt_util_str(jq_namespace(pod)),
			     kubevirt_util_str(jq_name(pod)), c->container ? c->container : "?",
			     kubevirt_util_str(jq_namespace(pod)), kubevirt_util_str(jq_name(pod)));
	else
		restart_remedy(&j, pod, c, code, reason);
	judge_decide(&j, f, "");
}

static void pod_restarts(struct agg_ctx *ctx, const char *id, const struct jv *pod,
			 const struct jobs_done *jobs, size_t *flagged)
{
	static const char *const lists[] = {"initContainerStatuses", "containerStatuses"};
	for (size_t l = 0; l < ELEMENTSOF(lists); l++) {
		const struct jv *arr = JQ(pod, "status", lists[l]);
		for (size_t i = 0; i < jq_len(arr); i++) {
			struct crash c;
			if (!crash_of(pod, jq_at(arr, i), &c))
				continue;
			crash_finding(ctx, id, pod, &c, jobs);
			(*flagged)++;
		}
	}
}

void check_pods_restarts(struct agg_ctx *ctx, const char *id)
{
	const struct jv *pods = cs_items(ctx->cs, RES_PODS);
	size_t n = 0, flagged = 0;
	struct jobs_done jobs;
	jobs_done_collect(pods, &jobs);
	for (size_t i = 0; i < jq_len(pods); i++) {
		const struct jv *p = jq_at(pods, i);
		if (!watched_namespace(jq_namespace(p)))
			continue;
		n++;
		pod_restarts(ctx, id, p, &jobs, &flagged);
	}
	free(jobs.v);
	if (n == 0) {
		agg_not_applicable(ctx, id,
				   "no pods in harvester-system, longhorn-system or cattle-system");
		return;
	}
	if (flagged == 0) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		kv_add_int(&f->evidence, "pods", (int64_t)n);
		judge_note(&j, STATUS_PASS,
			   "%zu %s in harvester-system, longhorn-system, cattle-system: no "
			   "container restarted",
			   n, plural((int64_t)n, "pod", "pods"));
		judge_decide(&j, f, "");
	}
}

/* ---- api.apiservices ------------------------------------------------------ */

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

/* ---- api.harvester.endpoint ----------------------------------------------- */

#define DEFAULT_SNI	   "harvester.local"
#define EP_CONNECT_MS	   3000
#define EP_TIMEOUT_MS	   8000
#define EP_DEADLINE_NS	   (20 * NSEC_PER_SEC)
#define EP_MAX_BODY	   (16u << 20)
#define EP_MAX_TARGETS	   6
#define SNAPSHOT_SCHEMA_NS "snapshot.kubevirt.io."

/* Effective value of a Harvester setting: value if non-empty, else default. */
static const char *hv_setting(const struct cluster_state *cs, const char *name)
{
	const struct jv *s = cs_find(cs, RES_HV_SETTINGS, NULL, name);
	const char *v = JQS(s, "value");
	if (v && *v)
		return v;
	v = JQS(s, "default");
	return v && *v ? v : NULL;
}

/* The host of server-url when it names a host (not an IP), else harvester.local. */
static char *sni_host(const struct cluster_state *cs, const char **ret_from)
{
	const char *url = hv_setting(cs, "server-url");
	*ret_from = "default (server-url unset or an IP address)";
	if (!url)
		return xstrdup(DEFAULT_SNI);
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	size_t n = strcspn(p, ":/?#");
	_cleanup_free_ char *h = xstrndup(p, n);
	bool ip = n == 0 || h[0] == '[' || strspn(h, "0123456789.") == n;
	if (ip)
		return xstrdup(DEFAULT_SNI);
	*ret_from = "setting server-url";
	return xstrdup(h);
}

/* The custom CA of the ssl-certificates setting (never its private key). */
static char *custom_ca(const struct cluster_state *cs)
{
	const char *v = hv_setting(cs, "ssl-certificates");
	if (!v)
		return NULL;
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	const char *ca = JQS(jv_parse(ar, v), "ca");
	char *r = ca && *ca ? xstrdup(ca) : NULL;
	return r;
}

struct target {
	char ip[64];
	int port;
	const char *via;
};

static void add_target(struct target *t, size_t *n, const char *ip, int64_t port, const char *via)
{
	if (!ip || !*ip || streq(ip, "None") || port <= 0 || port > 65535 || *n >= EP_MAX_TARGETS)
		return;
	for (size_t i = 0; i < *n; i++)
		if (streq(t[i].ip, ip) && t[i].port == port)
			return;
	snprintf(t[*n].ip, sizeof(t[*n].ip), "%s", ip);
	t[*n].port = (int)port;
	t[*n].via = via;
	(*n)++;
}

/* The Service's https port: named "https", else 443, else the first. */
static const struct jv *https_port(const struct jv *svc)
{
	const struct jv *ports = JQ(svc, "spec", "ports");
	for (size_t i = 0; i < jq_len(ports); i++)
		if (streq(JQS(jq_at(ports, i), "name"), "https"))
			return jq_at(ports, i);
	for (size_t i = 0; i < jq_len(ports); i++) {
		int64_t p;
		if (jq_int(JQ(jq_at(ports, i), "port"), &p) && p == 443)
			return jq_at(ports, i);
	}
	return jq_at(ports, 0);
}

/* ClusterIP first (in-cluster), then load balancer, then NodePort on node addresses. */
static size_t endpoint_targets(const struct cluster_state *cs, const struct jv *svc,
			       struct target *t)
{
	size_t n = 0;
	const struct jv *port = https_port(svc);
	int64_t p = 0, np = 0;
	jq_int(JQ(port, "port"), &p);
	jq_int(JQ(port, "nodePort"), &np);
	const struct jv *ips = JQ(svc, "spec", "clusterIPs");
	add_target(t, &n, JQS(svc, "spec", "clusterIP"), p, "ClusterIP");
	for (size_t i = 0; i < jq_len(ips); i++)
		add_target(t, &n, jv_str(jq_at(ips, i)), p, "ClusterIP");
	const struct jv *ing = JQ(svc, "status", "loadBalancer", "ingress");
	for (size_t i = 0; i < jq_len(ing); i++)
		add_target(t, &n, JQS(jq_at(ing, i), "ip"), p, "LoadBalancer");
	const struct jv *nodes = cs_items(cs, RES_NODES);
	for (size_t i = 0; i < jq_len(nodes) && np > 0; i++) {
		const struct jv *addrs = JQ(jq_at(nodes, i), "status", "addresses");
		for (size_t j = 0; j < jq_len(addrs); j++)
			if (streq(JQS(jq_at(addrs, j), "type"), "InternalIP"))
				add_target(t, &n, JQS(jq_at(addrs, j), "address"), np, "NodePort");
	}
	return n;
}

/* The snapshot.kubevirt.io schema IDs a Steve schema collection lists. */
static void snapshot_schemas(const char *body, struct strv *out, size_t *ret_total)
{
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	const struct jv *data = JQ(jv_parse(ar, body), "data");
	*ret_total = jq_len(data);
	for (size_t i = 0; i < jq_len(data); i++) {
		const char *sid = JQS(jq_at(data, i), "id");
		if (startswith(sid, SNAPSHOT_SCHEMA_NS) && !strv_contains(out, sid))
			strv_add(out, sid);
	}
	if (data)
		return;
	/* Not a schema collection: look for the IDs in the text, as `grep` would. */
	for (const char *p = body; (p = strstr(p, SNAPSHOT_SCHEMA_NS)); p++) {
		size_t n = strlen(SNAPSHOT_SCHEMA_NS);
		while (p[n] && (p[n] == '-' || p[n] == '.' || (p[n] >= 'a' && p[n] <= 'z')))
			n++;
		_cleanup_free_ char *sid = xstrndup(p, n);
		if (n > strlen(SNAPSHOT_SCHEMA_NS) && !strv_contains(out, sid))
			strv_add(out, sid);
	}
}

struct probe_result {
	enum status st;
	char *message;
	bool reached; /* a TCP connection was made to some target */
	bool refused_only;
};

static void endpoint_cert_evidence(struct agg_ctx *ctx, struct finding *f,
				   const struct hv_endpoint_resp *r, bool ca, enum status *st,
				   char **msg)
{
	kv_add_bool(&f->evidence, "tls_verified", r->verified);
	if (!ca)
		kv_add_str(&f->evidence, "tls_verification",
			   "off: no CA in the ssl-certificates setting; Harvester's default "
			   "certificate is self-signed, so TLS and SNI routing are proven, not "
			   "the certificate chain");
	if (r->cert_subject)
		kv_add_str(&f->evidence, "cert_subject", r->cert_subject);
	if (r->cert_issuer)
		kv_add_str(&f->evidence, "cert_issuer", r->cert_issuer);
	if (r->cert_expire)
		kv_add_str(&f->evidence, "cert_expires", r->cert_expire);
	int64_t exp;
	if (hv_endpoint_parse_expire(r->cert_expire, &exp) && exp < ctx->now_ns &&
	    *st == STATUS_PASS) {
		*st = STATUS_WARN;
		char *m = xasprintf("%s, but its certificate expired on %s", *msg, r->cert_expire);
		free(*msg);
		*msg = m;
	}
}

static void endpoint_attempt(struct hv_endpoint_req *rq, const struct target *t,
			     struct value_list *attempts, struct hv_endpoint_resp *r, bool *reached,
			     bool *refused)
{
	rq->ip = t->ip;
	rq->port = t->port;
	int rc = hv_endpoint_get(rq, r);
	if (rc < 0 && rq->ca_pem && r->curl_code == CURLE_PEER_FAILED_VERIFICATION) {
		/* Not signed by the configured CA: say so, and still test the rest. */
		vlist_add_strf(attempts,
			       "%s %s:%d sni=%s: certificate not verified against the "
			       "ssl-certificates CA (%s); retried without verification",
			       t->via, t->ip, t->port, rq->host, r->error);
		hv_endpoint_resp_clear(r);
		const char *ca = rq->ca_pem;
		rq->ca_pem = NULL;
		rc = hv_endpoint_get(rq, r);
		rq->ca_pem = ca;
	}
	*reached |= r->connected;
	if (!r->connected && r->os_errno != ECONNREFUSED)
		*refused = false;
	if (rc == 0)
		vlist_add_strf(attempts, "%s %s:%d sni=%s: HTTP %ld", t->via, t->ip, t->port,
			       rq->host, r->http_status);
	else
		vlist_add_strf(attempts, "%s %s:%d sni=%s: %s", t->via, t->ip, t->port, rq->host,
			       r->error);
}

static void endpoint_judge(struct agg_ctx *ctx, struct finding *f, struct judge *j,
			   const struct target *t, const char *host, struct hv_endpoint_resp *r,
			   bool ca)
{
	struct strv schemas = {0};
	size_t total = 0;
	enum status st;
	char *msg;
	snapshot_schemas(r->body, &schemas, &total);
	kv_add_strf(&f->evidence, "answered", "%s %s:%d", t->via, t->ip, t->port);
	kv_add_int(&f->evidence, "http_status", r->http_status);
	kv_add_int(&f->evidence, "schemas", (int64_t)total);
	struct value_list *l = kv_add_list(&f->evidence, "snapshot_kubevirt_io_schemas");
	for (size_t i = 0; i < schemas.n; i++)
		vlist_add_str(l, schemas.items[i]);
	if (r->http_status == 200 && schemas.n > 0) {
		st = STATUS_PASS;
		msg = xasprintf("https://%s:%d/v1/harvester answers over TLS with SNI %s and lists "
				"%zu snapshot.kubevirt.io %s",
				host, t->port, host, schemas.n,
				plural((int64_t)schemas.n, "schema", "schemas"));
	} else if (r->http_status == 200) {
		st = STATUS_WARN;
		msg = xasprintf("https://%s:%d/v1/harvester answers but lists no "
				"snapshot.kubevirt.io schema (%zu %s): VM snapshots are "
				"KubeVirt's snapshot.kubevirt.io API in Harvester 1.8",
				host, t->port, total, plural((int64_t)total, "schema", "schemas"));
		judge_remedy(j, "kubectl get crd virtualmachinesnapshots.snapshot.kubevirt.io "
				"virtualmachinerestores.snapshot.kubevirt.io; an unauthenticated "
				"client may see fewer schemas than an admin");
	} else if (r->http_status == 401 || r->http_status == 403) {
		st = STATUS_WARN;
		msg = xasprintf("https://%s:%d/v1/harvester answers over TLS with SNI %s but "
				"refuses an unauthenticated client (HTTP %ld): schemas not checked",
				host, t->port, host, r->http_status);
	} else {
		st = STATUS_FAIL;
		msg = xasprintf("https://%s:%d/v1/harvester answers HTTP %ld with SNI %s", host,
				t->port, r->http_status, host);
		judge_remedy(j,
			     "curl -k --resolve %s:%d:%s https://%s:%d/v1/harvester; kubectl -n "
			     "harvester-system logs deploy/harvester --tail=50",
			     host, t->port, t->ip, host, t->port);
	}
	endpoint_cert_evidence(ctx, f, r, ca, &st, &msg);
	judge_note(j, st, "%s", msg);
	free(msg);
	strv_clear(&schemas);
}

void check_harvester_endpoint(struct agg_ctx *ctx, const char *id)
{
	if (!ctx->live) {
		agg_not_applicable(ctx, id,
				   "offline: the endpoint is only probed against a live cluster");
		return;
	}
	if (!ctx->harvester_installed) {
		agg_not_applicable(ctx, id, "Harvester is not installed");
		return;
	}
	const struct jv *svc = cs_find(ctx->cs, RES_SERVICES, "harvester-system", "harvester");
	if (!svc) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		judge_note(&j, STATUS_FAIL, "Service harvester-system/harvester does not exist");
		judge_remedy(&j, "kubectl -n harvester-system get svc; the chart's "
				 "service.harvester.type sets how it is exposed");
		judge_decide(&j, f, "");
		return;
	}
	struct target t[EP_MAX_TARGETS];
	size_t n = endpoint_targets(ctx->cs, svc, t);
	const char *sni_from;
	_cleanup_free_ char *host = sni_host(ctx->cs, &sni_from);
	_cleanup_free_ char *ca = custom_ca(ctx->cs);
	struct finding *f = agg_object_finding(ctx, id, svc);
	struct judge j = {0};
	kv_add_str(&f->evidence, "sni", host);
	kv_add_str(&f->evidence, "sni_from", sni_from);
	const char *sslp = hv_setting(ctx->cs, "ssl-parameters");
	if (sslp)
		kv_add_str(&f->evidence, "ssl_parameters", sslp);
	if (n == 0) {
		judge_note(
		    &j, STATUS_FAIL,
		    "Service harvester-system/harvester has no address and port to connect to");
		judge_remedy(&j, "kubectl -n harvester-system get svc harvester -o yaml");
		goto out;
	}
	struct hv_endpoint_req rq = {.host = host,
				     .path = "/v1/harvester",
				     .ca_pem = ca,
				     .connect_timeout_ms = EP_CONNECT_MS,
				     .timeout_ms = EP_TIMEOUT_MS,
				     .max_body = EP_MAX_BODY};
	struct value_list *attempts = kv_add_list(&f->evidence, "attempts");
	bool reached = false, refused = true;
	int64_t start = util_now_mono_ns();
	for (size_t i = 0; i < n; i++) {
		if (util_now_mono_ns() - start > EP_DEADLINE_NS) {
			vlist_add_strf(attempts, "%s %s:%d: not tried, time budget spent", t[i].via,
				       t[i].ip, t[i].port);
			continue;
		}
		struct hv_endpoint_resp r;
		endpoint_attempt(&rq, &t[i], attempts, &r, &reached, &refused);
		if (r.curl_code == 0) {
			endpoint_judge(ctx, f, &j, &t[i], host, &r, ca != NULL);
			hv_endpoint_resp_clear(&r);
			goto out;
		}
		hv_endpoint_resp_clear(&r);
	}
	if (reached || refused) {
		judge_note(&j, STATUS_FAIL,
			   "no address of the harvester Service answered https://%s/v1/harvester "
			   "(%s)",
			   host,
			   reached ? "connected, but TLS or HTTP failed" : "connection refused");
		judge_remedy(&j,
			     "curl -k --resolve %s:PORT:NODE_IP https://%s:PORT/v1/harvester "
			     "(PORT: kubectl -n harvester-system get svc harvester -o "
			     "jsonpath='{.spec.ports[?(@.name==\"https\")].nodePort}'); kubectl -n "
			     "harvester-system get pod -l app.kubernetes.io/name=harvester",
			     host, host);
	} else {
		judge_note(&j, STATUS_UNKNOWN,
			   "could not reach any address of the harvester Service from where the "
			   "aggregator runs (timeouts): not evidence that it is down");
		judge_remedy(&j, "run the aggregator in the cluster (it then reaches the "
				 "ClusterIP), or allow it to reach the NodePort");
	}
out:
	judge_decide(&j, f, "");
}
