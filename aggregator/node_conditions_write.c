/*
 * Node conditions, the writing half (node_conditions.h): the request bodies
 * (the nodes/status PATCH, the Events) and the worker thread that holds the
 * Lease and sends them to the API. What to write is decided by
 * aggregator/node_conditions.c.
 */
#include "node_conditions.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "json_query.h"
#include "kube_client.h"
#include "log.h"

#define NC_MAX_BODY (256u << 10)
/* Node events live in "default": the API accepts no other namespace for an
 * object without one, and kubelet and the node controller put theirs there. */
#define NC_NODE_EVENT_NAMESPACE "default"

/* ---------- request bodies ---------- */

static char *to_string(json_object *o)
{
	char *s = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

static json_object *time_string(int64_t ns)
{
	char buf[64];
	util_format_rfc3339(ns, buf, sizeof(buf));
	return json_object_new_string(buf);
}

char *node_conditions_patch_body(const struct nc_node_plan *p)
{
	json_object *conds = json_object_new_array();
	for (int t = 0; t < _NC_TYPE_MAX; t++) {
		const struct nc_cond *c = &p->cond[t];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "type", json_object_new_string(nc_type_name(t)));
		json_object_object_add(o, "status",
				       json_object_new_string(nc_status_name(c->status)));
		json_object_object_add(o, "reason",
				       json_object_new_string(c->reason ? c->reason : ""));
		json_object_object_add(o, "message",
				       json_object_new_string(c->message ? c->message : ""));
		json_object_object_add(o, "lastHeartbeatTime", time_string(c->heartbeat_ns));
		json_object_object_add(o, "lastTransitionTime", time_string(c->transition_ns));
		json_object_array_add(conds, o);
	}
	json_object *status = json_object_new_object();
	json_object_object_add(status, "conditions", conds);
	json_object *root = json_object_new_object();
	json_object_object_add(root, "status", status);
	return to_string(root);
}

static json_object *event_object(const char *ns, const char *name_base, int64_t name_salt,
				 json_object *involved, bool warning, const char *message,
				 const char *instance, int64_t now_ns)
{
	char name[256];
	/* client-go's scheme: OBJECT.HEXTIME (a DNS subdomain, under 253). */
	snprintf(name, sizeof(name), "%.200s.%llx", name_base,
		 (unsigned long long)(now_ns + name_salt));
	char msg[NC_MESSAGE_MAX + 1];
	size_t n = nc_utf8_cut(message, strlen(message), NC_MESSAGE_MAX);
	snprintf(msg, sizeof(msg), "%.*s", (int)n, message);
	json_object *o = kube_object_new("v1", "Event", ns, name, NULL);
	json_object *source = json_object_new_object();
	json_object_object_add(o, "involvedObject", involved);
	json_object_object_add(o, "reason", json_object_new_string(NC_EVENT_REASON));
	json_object_object_add(o, "message", json_object_new_string(msg));
	json_object_object_add(o, "type", json_object_new_string(warning ? "Warning" : "Normal"));
	json_object_object_add(source, "component", json_object_new_string(NC_COMPONENT));
	json_object_object_add(o, "source", source);
	json_object_object_add(o, "firstTimestamp", time_string(now_ns));
	json_object_object_add(o, "lastTimestamp", time_string(now_ns));
	json_object_object_add(o, "count", json_object_new_int(1));
	json_object_object_add(o, "reportingComponent", json_object_new_string(NC_COMPONENT));
	json_object_object_add(o, "reportingInstance", json_object_new_string(instance));
	return o;
}

char *node_conditions_node_event(const struct nc_snapshot *s, const struct nc_node_plan *p,
				 enum nc_type t, const char *instance, int64_t now_ns)
{
	const struct nc_node *n = &s->nodes[p->node];
	const struct nc_cond *c = &p->cond[t];
	json_object *inv = json_object_new_object();
	json_object_object_add(inv, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(inv, "kind", json_object_new_string("Node"));
	json_object_object_add(inv, "name", json_object_new_string(n->name));
	/* kubectl describe node finds events by the node's UID or its name. */
	json_object_object_add(inv, "uid", json_object_new_string(n->uid));
	_cleanup_free_ char *msg = xasprintf(
	    "%s changed from %s to %s: %s: %s", nc_type_name(t), nc_status_name(p->from[t]),
	    nc_status_name(c->status), c->reason ? c->reason : "", c->message ? c->message : "");
	return to_string(event_object(NC_NODE_EVENT_NAMESPACE, n->name, t, inv,
				      c->status != NC_TRUE, msg, instance, now_ns));
}

char *node_conditions_gate_event(const struct nc_snapshot *s, const struct nc_gate_change *c,
				 const char *pod_ns, const char *pod, const char *pod_uid,
				 const char *instance, int64_t now_ns)
{
	json_object *inv = json_object_new_object();
	json_object_object_add(inv, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(inv, "kind", json_object_new_string("Pod"));
	json_object_object_add(inv, "namespace", json_object_new_string(pod_ns));
	json_object_object_add(inv, "name", json_object_new_string(pod));
	if (pod_uid)
		json_object_object_add(inv, "uid", json_object_new_string(pod_uid));
	const char *blockers = s->gate_blockers[c->gate];
	_cleanup_free_ char *msg = xasprintf(
	    "gate %s changed from %s to %s%s%s", gate_name(c->gate), status_name(c->from),
	    status_name(c->to), blockers && *blockers ? ": " : "", blockers ? blockers : "");
	bool warning = c->to == STATUS_FAIL || c->to == STATUS_UNKNOWN;
	return to_string(event_object(pod_ns, pod, c->gate, inv, warning, msg, instance, now_ns));
}

/* ---------- the worker ---------- */

/* Append one problem to err: the first few in full, then only a count. */
struct problems {
	size_t n, shown;
	char *err;
	size_t errlen;
};

static void problem(struct problems *p, const char *fmt, ...) _printf_(2, 3);
static void problem(struct problems *p, const char *fmt, ...)
{
	p->n++;
	if (p->shown >= 3 || !p->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *s = xvasprintf(fmt, ap);
	va_end(ap);
	size_t len = strlen(p->err);
	snprintf(p->err + len, p->errlen - len, "%s%s", len ? "; " : "", s);
	p->shown++;
}

static void problems_done(struct problems *p)
{
	size_t len = strlen(p->err);
	if (p->n > p->shown && p->errlen > len)
		snprintf(p->err + len, p->errlen - len, "; and %zu more", p->n - p->shown);
}

/* One request; the API's Status message in *ret_msg on any answer but 2xx. */
static long call(struct node_conditions *nc, const char *method, const char *path, const char *type,
		 const char *body, char **ret_msg)
{
	struct kube_response r = {0};
	char err[512];
	*ret_msg = NULL;
	int rc = kube_client_call(nc->kc, method, path, type, body, body ? strlen(body) : 0,
				  NC_MAX_BODY, &r, err, sizeof(err));
	if (rc < 0) {
		*ret_msg = xstrdup(err);
		return -1;
	}
	if (r.status < 200 || r.status > 299)
		*ret_msg = kube_client_status_message(r.body, r.len);
	long status = r.status;
	kube_response_clear(&r);
	return status;
}

/* The hint for a refusal: hint itself on 401/403, else nothing. */
static const char *rbac_hint(long status, const char *hint)
{
	return status == 401 || status == 403 ? hint : "";
}

static bool post_event(struct node_conditions *nc, const char *ns, char *body, struct problems *pr)
{
	_cleanup_free_ char *path = xasprintf("/api/v1/namespaces/%s/events", ns);
	_cleanup_free_ char *msg = NULL;
	long st = call(nc, "POST", path, "application/json", body, &msg);
	free(body);
	if (st == 200 || st == 201) {
		nc->last.events++;
		return true;
	}
	nc->last.event_failed++;
	if (st < 0)
		problem(pr, "create event: %s", msg);
	else
		problem(pr, "create event in %s: HTTP %ld%s%s%s%s", ns, st, *msg ? " (" : "", msg,
			*msg ? ")" : "",
			rbac_hint(st, "; the aggregator needs create on events "
				      "(deploy/overlays/node-conditions)"));
	return false;
}

/* PATCH one node's status: 0, or -EACCES (RBAC: no use going on) / -EIO. */
static int patch_node(struct node_conditions *nc, const char *node, const char *body,
		      struct problems *pr)
{
	_cleanup_free_ char *path = xasprintf("/api/v1/nodes/%s/status", node);
	_cleanup_free_ char *msg = NULL;
	long st = call(nc, "PATCH", path, "application/strategic-merge-patch+json", body, &msg);
	if (st == 200 || st == 201)
		return 0;
	if (st < 0)
		problem(pr, "node %s: %s", node, msg);
	else if (st == 404)
		problem(pr, "node %s: gone (HTTP 404)", node);
	else
		problem(pr, "node %s: HTTP %ld%s%s%s%s", node, st, *msg ? " (" : "", msg,
			*msg ? ")" : "",
			rbac_hint(st, "; the aggregator needs patch on nodes/status "
				      "(deploy/overlays/node-conditions)"));
	return st == 401 || st == 403 ? -EACCES : -EIO;
}

/* The Pod's UID makes its Events show in kubectl describe pod; without it
 * they are still listed by kubectl get events. */
static const char *pod_uid(struct node_conditions *nc)
{
	if (nc->pod_uid)
		return nc->pod_uid;
	_cleanup_free_ char *path =
	    xasprintf("/api/v1/namespaces/%s/pods/%s", nc->pod_namespace, nc->pod);
	struct kube_response r = {0};
	char err[256];
	if (kube_client_call(nc->kc, "GET", path, NULL, NULL, 0, NC_MAX_BODY, &r, err,
			     sizeof(err)) == 0 &&
	    r.status == 200) {
		_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
		const char *uid = JQS(jv_parse(ar, r.body), "metadata", "uid");
		if (uid && *uid)
			nc->pod_uid = xstrdup(uid);
	}
	kube_response_clear(&r);
	return nc->pod_uid;
}

/* Stop writing well before the Lease could pass to another replica. */
static bool renewal_due(const struct node_conditions *nc)
{
	int64_t margin = (int64_t)(nc->lease.duration_s - nc->interval_s) * NSEC_PER_SEC;
	return util_now_mono_ns() - nc->lease.renewed_mono_ns > margin;
}

static void write_nodes(struct node_conditions *nc, const struct nc_snapshot *snap,
			const struct nc_plan *plan, bool *failed, struct problems *pr)
{
	bool denied = false;
	size_t skipped = 0;
	for (size_t i = 0; i < plan->n_nodes; i++) {
		const struct nc_node_plan *p = &plan->nodes[i];
		if (!p->patch)
			continue;
		if (denied || atomic_load(&nc->stopping) || renewal_due(nc)) {
			failed[i] = true;
			skipped++;
			continue;
		}
		const char *node = snap->nodes[p->node].name;
		_cleanup_free_ char *body = node_conditions_patch_body(p);
		int rc = patch_node(nc, node, body, pr);
		if (rc < 0) {
			failed[i] = true;
			nc->last.patch_failed++;
			denied = rc == -EACCES;
			continue;
		}
		nc->last.patched++;
		for (int t = 0; t < _NC_TYPE_MAX; t++)
			if (p->from[t] != NC_ABSENT && p->from[t] != p->cond[t].status)
				post_event(nc, NC_NODE_EVENT_NAMESPACE,
					   node_conditions_node_event(snap, p, t,
								      nc->lease.identity,
								      util_now_realtime_ns()),
					   pr);
	}
	if (skipped)
		problem(pr, "%zu node%s left for the next round%s", skipped,
			skipped == 1 ? "" : "s", denied ? " (access denied)" : "");
}

/* Acquire or renew the Lease; a replica that does not hold it forgets what
 * it wrote (the holder may change everything meanwhile). */
static int lease_round(struct node_conditions *nc, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	nc->last = (struct nc_stats){0};
	nc->last_round_mono_ns = util_now_mono_ns();
	int r = lease_sync(&nc->lease, nc->kc, err, errlen);
	if (r == 0) {
		nc_memory_clear(&nc->mem);
		nc->mem_epoch = 0;
	}
	nc->last.leader = r == 1;
	return r;
}

int node_conditions_sync(struct node_conditions *nc, const struct nc_snapshot *snap, char *err,
			 size_t errlen)
{
	int r = lease_round(nc, err, errlen);
	nc->last.nodes = snap->n_nodes;
	if (r <= 0)
		return r;
	if (nc->mem_epoch != nc->lease.epoch) {
		nc_memory_clear(&nc->mem);
		nc->mem_epoch = nc->lease.epoch;
	}
	/* The previous holder may have written after our last list of the
	 * Nodes: wait for a list made after we took over, so that their
	 * conditions (and lastTransitionTime) are what we compare with. */
	if (nc->lease.took_over && snap->state_read_ns < nc->lease.acquired_ns) {
		nc->last.waiting = true;
		return 1;
	}
	/* Just started: the agents have not reported to this process yet, and
	 * every node would flap to Unknown (NoFreshReport) and back. */
	if (util_now_mono_ns() - nc->created_mono_ns <
	    (int64_t)NC_STARTUP_GRACE * nc->interval_s * NSEC_PER_SEC) {
		nc->last.waiting = true;
		return 1;
	}
	struct nc_plan plan;
	node_conditions_plan(snap, &nc->mem, util_now_realtime_ns(), &plan);
	bool *failed = xcalloc(plan.n_nodes + 1, sizeof(bool));
	struct problems pr = {.err = err, .errlen = errlen};
	write_nodes(nc, snap, &plan, failed, &pr);
	for (size_t i = 0; i < plan.n_gate_changes && nc->pod; i++)
		post_event(nc, nc->pod_namespace,
			   node_conditions_gate_event(snap, &plan.gate_changes[i],
						      nc->pod_namespace, nc->pod, pod_uid(nc),
						      nc->lease.identity, util_now_realtime_ns()),
			   &pr);
	problems_done(&pr);
	node_conditions_remember(&nc->mem, snap, &plan, failed, &nc->mem);
	node_conditions_plan_clear(&plan);
	free(failed);
	return 1;
}

int node_conditions_new(struct kube_client *kc, int interval_s, bool in_cluster,
			struct node_conditions **ret, char *err, size_t errlen)
{
	if (interval_s < 1) {
		snprintf(err, errlen, "node conditions: interval must be at least 1 s");
		return -EINVAL;
	}
	struct node_conditions *nc = xcalloc(1, sizeof(*nc));
	nc->kc = kc;
	nc->interval_s = interval_s;
	nc->created_mono_ns = util_now_mono_ns();
	/* A patch or an Event is small: one that takes longer is stuck, and
	 * holds up the other nodes, the Lease's renewal and a clean stop. */
	kube_client_set_timeouts(kc, 5000, 10000);
	_cleanup_free_ char *ns = lease_default_namespace();
	_cleanup_free_ char *id = lease_default_identity();
	lease_init(&nc->lease, ns, LEASE_NAME, id, 3 * interval_s);
	nc->pod_namespace = xstrdup(ns);
	const char *pod = getenv("POD_NAME");
	if (pod && *pod)
		nc->pod = xstrdup(pod);
	else if (in_cluster)
		nc->pod = xstrdup(id);
	atomic_init(&nc->stopping, false);
	pthread_mutex_init(&nc->lock, NULL);
	pthread_cond_init(&nc->cond, NULL);
	*ret = nc;
	return 0;
}

/* Say what changed: the role, a new problem, a round that wrote something. */
static void report_round(struct node_conditions *nc, int r, const char *err, int *role,
			 char **last_err)
{
	const struct lease *l = &nc->lease;
	int now_role = r < 0 ? -1 : r;
	if (r < 0) {
		if (!*last_err || !streq(*last_err, err))
			log_warnx("node conditions: %s, ignoring", err);
		free(*last_err);
		*last_err = xstrdup(err);
		*role = now_role;
		return;
	}
	free(*last_err);
	*last_err = NULL;
	if (now_role != *role) {
		if (r == 1)
			log_info("node conditions: this replica (%s) holds Lease %s/%s and writes "
				 "node conditions",
				 l->identity, l->namespace, l->name);
		else
			log_info("node conditions: Lease %s/%s is held by %s; this replica (%s) "
				 "does not write",
				 l->namespace, l->name, l->seen_holder ? l->seen_holder : "?",
				 l->identity);
		*role = now_role;
	}
	const struct nc_stats *s = &nc->last;
	if (s->patched || s->patch_failed || s->events || s->event_failed)
		log_info("node conditions: patched %zu of %zu %s, %zu %s%s%s", s->patched, s->nodes,
			 plural((int64_t)s->nodes, "node", "nodes"), s->events,
			 plural((int64_t)s->events, "event", "events"), *err ? "; problems: " : "",
			 err);
	else if (*err)
		log_warnx("node conditions: %s, ignoring", err);
}

static void *worker_main(void *arg)
{
	struct node_conditions *nc = arg;
	int role = -2;
	char *last_err = NULL;
	pthread_mutex_lock(&nc->lock);
	for (;;) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += nc->interval_s;
		while (!atomic_load(&nc->stopping) && !nc->pending &&
		       pthread_cond_timedwait(&nc->cond, &nc->lock, &until) != ETIMEDOUT)
			;
		if (atomic_load(&nc->stopping))
			break;
		struct nc_snapshot *snap = nc->pending;
		nc->pending = NULL;
		pthread_mutex_unlock(&nc->lock);
		char err[1024];
		if (snap) {
			int r = node_conditions_sync(nc, snap, err, sizeof(err));
			report_round(nc, r, err, &role, &last_err);
			node_conditions_snapshot_clear(snap);
			free(snap);
		} else if (util_now_mono_ns() - nc->last_round_mono_ns >=
			   nc->interval_s * NSEC_PER_SEC) {
			report_round(nc, lease_round(nc, err, sizeof(err)), err, &role, &last_err);
		}
		pthread_mutex_lock(&nc->lock);
	}
	pthread_mutex_unlock(&nc->lock);
	free(last_err);
	return NULL;
}

int node_conditions_start(struct node_conditions *nc)
{
	int r = pthread_create(&nc->thread, NULL, worker_main, nc);
	if (r != 0)
		return -r;
	nc->started = true;
	return 0;
}

bool node_conditions_due(struct node_conditions *nc)
{
	return nc->last_offer_mono_ns == 0 ||
	       util_now_mono_ns() - nc->last_offer_mono_ns >= nc->interval_s * NSEC_PER_SEC;
}

void node_conditions_offer(struct node_conditions *nc, struct nc_snapshot *snap)
{
	nc->last_offer_mono_ns = util_now_mono_ns();
	pthread_mutex_lock(&nc->lock);
	struct nc_snapshot *old = nc->pending;
	nc->pending = snap; /* a round still running: the newest waits, older ones go */
	pthread_cond_signal(&nc->cond);
	pthread_mutex_unlock(&nc->lock);
	if (old) {
		node_conditions_snapshot_clear(old);
		free(old);
	}
}

void node_conditions_free(struct node_conditions *nc)
{
	if (!nc)
		return;
	pthread_mutex_lock(&nc->lock);
	atomic_store(&nc->stopping, true);
	pthread_cond_broadcast(&nc->cond);
	pthread_mutex_unlock(&nc->lock);
	if (nc->started)
		pthread_join(nc->thread, NULL);
	if (nc->pending) {
		node_conditions_snapshot_clear(nc->pending);
		free(nc->pending);
	}
	nc_memory_clear(&nc->mem);
	lease_clear(&nc->lease);
	kube_client_free(nc->kc);
	free(nc->pod_namespace);
	free(nc->pod);
	free(nc->pod_uid);
	pthread_mutex_destroy(&nc->lock);
	pthread_cond_destroy(&nc->cond);
	free(nc);
}
