/*
 * api.pods.restarts (docs/checks/api.pods.restarts.md): crash history of the
 * system pods of Harvester, Longhorn and Rancher, what is restarting now
 * against what restarted once.
 */
#include "checks_api.h"

#include <stdio.h>
#include <string.h>

#include "kubevirt_util.h"

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
