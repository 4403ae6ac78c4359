/* The canary's requests and waits, each bounded by a deadline (docs/canary.md). */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "canary.h"
#include "kube_client.h"
#include "source.h"

/* One request is at most this long, and never past the caller's limit. */
#define CANARY_REQUEST_MS 10000

volatile sig_atomic_t canary_signal;

static bool limit_request(struct canary *c, int64_t until_ns, char *err, size_t errlen)
{
	int64_t left_ms = (until_ns - util_now_mono_ns()) / 1000000;
	if (left_ms < 200) {
		snprintf(err, errlen, "no time left for the request (--timeout)");
		return false;
	}
	long ms = left_ms < CANARY_REQUEST_MS ? (long)left_ms : CANARY_REQUEST_MS;
	kube_client_set_timeouts(c->kc, ms < 5000 ? ms : 5000, ms);
	return true;
}

int canary_api(struct canary *c, int64_t until_ns, const char *method, const char *path,
	       json_object *body, json_object **ret, char *err, size_t errlen)
{
	if (ret)
		*ret = NULL;
	if (!limit_request(c, until_ns, err, errlen))
		return -ETIMEDOUT;
	return kube_client_json(c->kc, method, path, body, NULL, ret, err, errlen);
}

int canary_step_list(struct canary *c, struct finding *f, const char *path, const char *what,
		     json_object **ret, char *err, size_t errlen)
{
	int r = canary_api(c, c->steps_end_ns, "GET", path, NULL, ret, err, errlen);
	if (r < 0)
		finding_set(f, STATUS_UNKNOWN, "cannot list the %s: %s", what, err);
	return r;
}

int canary_api_text(struct canary *c, int64_t until_ns, const char *path, char **ret, char *err,
		    size_t errlen)
{
	*ret = NULL;
	if (!limit_request(c, until_ns, err, errlen))
		return -ETIMEDOUT;
	struct kube_response resp = {0};
	int r = kube_client_call(c->kc, "GET", path, NULL, NULL, 0, 64 << 10, &resp, err, errlen);
	if (r < 0)
		return r;
	if (resp.status != 200) {
		_cleanup_free_ char *msg = kube_client_status_message(resp.body, resp.len);
		snprintf(err, errlen, "GET %s: HTTP %ld: %s", path, resp.status, msg);
		kube_response_clear(&resp);
		return -EIO;
	}
	*ret = resp.body;
	return 0;
}

bool canary_stopped(const struct canary *c, int64_t until_ns)
{
	return canary_signal || util_now_mono_ns() >= until_ns;
}

bool canary_sleep(struct canary *c, int64_t until_ns, int ms)
{
	int64_t end = util_now_mono_ns() + (int64_t)ms * 1000000;
	if (end > until_ns)
		end = until_ns;
	while (!canary_signal) {
		int64_t now = util_now_mono_ns();
		if (now >= end)
			break;
		int64_t slice = end - now < 50000000 ? end - now : 50000000;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)slice};
		nanosleep(&ts, NULL);
	}
	return !canary_stopped(c, until_ns);
}

/* o.k1.k2... along the keys ap gives up to a NULL; NULL when a member is absent or a
 * value on the way is not an object. */
static json_object *cj_walk(json_object *o, va_list ap)
{
	for (const char *k; o && (k = va_arg(ap, const char *));) {
		json_object *n = NULL;
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, k, &n))
			n = NULL;
		o = n;
	}
	return o;
}

json_object *cj_get(json_object *o, ...)
{
	va_list ap;
	va_start(ap, o);
	o = cj_walk(o, ap);
	va_end(ap);
	return o;
}

const char *cj_str(json_object *o, ...)
{
	va_list ap;
	va_start(ap, o);
	o = cj_walk(o, ap);
	va_end(ap);
	return o && json_object_is_type(o, json_type_string) ? json_object_get_string(o) : NULL;
}

json_object *canary_labels(const struct canary *c)
{
	json_object *l = json_object_new_object();
	json_object_object_add(l, CANARY_LABEL_MANAGED_BY,
			       json_object_new_string(CANARY_MANAGED_BY));
	json_object_object_add(l, CANARY_LABEL_RUN, json_object_new_string(c->run_id));
	return l;
}

json_object *canary_object(const struct canary *c, const char *api_version, const char *kind,
			   const char *name)
{
	json_object *meta = NULL;
	json_object *o = kube_object_new(api_version, kind, NULL, name, &meta);
	json_object_object_add(meta, "labels", canary_labels(c));
	return o;
}

/* "%XX" for everything but unreserved characters: label and field selectors
 * hold '=', '/' and ','. */
static char *query_escape(const char *s)
{
	char *out = xmalloc(strlen(s) * 3 + 1), *p = out;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("-._~", ch))
			*p++ = (char)ch;
		else
			p += sprintf(p, "%%%02X", ch);
	}
	*p = '\0';
	return out;
}

char *canary_selector_query(const char *param, const char *selector)
{
	_cleanup_free_ char *e = query_escape(selector);
	return xasprintf("%s=%s", param, e);
}

void canary_events(struct canary *c, const char *ns, const char *name, bool all, size_t max,
		   struct strv *ret)
{
	_cleanup_free_ char *sel = xasprintf("involvedObject.name=%s", name);
	_cleanup_free_ char *q = canary_selector_query("fieldSelector", sel);
	_cleanup_free_ char *path = xasprintf("/api/v1/namespaces/%s/events?%s", ns, q);
	char err[512];
	json_object *list = NULL;
	/* Diagnosis runs after the steps' time is up: the cleanup's time bounds it. */
	if (canary_api(c, c->diag_end_ns, "GET", path, NULL, &list, err, sizeof(err)) < 0) {
		strv_add(ret, err);
		return;
	}
	json_object *items = cj_get(list, "items", NULL);
	size_t n = items && json_object_is_type(items, json_type_array)
		       ? json_object_array_length(items)
		       : 0;
	struct strv got = {0};
	for (size_t i = 0; i < n; i++) {
		json_object *ev = json_object_array_get_idx(items, i);
		const char *type = cj_str(ev, "type", NULL);
		if (!all && (!type || !streq(type, "Warning")))
			continue;
		const char *reason = cj_str(ev, "reason", NULL), *msg = cj_str(ev, "message", NULL);
		_cleanup_free_ char *line =
		    xasprintf("%s: %s", reason ? reason : "?", msg ? msg : "");
		if (!strv_contains(&got, line))
			strv_add(&got, line);
	}
	for (size_t i = got.n > max ? got.n - max : 0; i < got.n; i++)
		strv_add(ret, got.items[i]);
	strv_clear(&got);
	json_object_put(list);
}

int canary_create(struct canary *c, const char *path, const char *kind, const char *name,
		  json_object *body, char *err, size_t errlen)
{
	int r = canary_api(c, c->steps_end_ns, "POST", path, body, NULL, err, errlen);
	if (r == 0) {
		_cleanup_free_ char *id = xasprintf("%s/%s/%s", kind, c->o->ns, name);
		strv_add(&c->created, id);
	}
	return r;
}

int canary_namespace(struct canary *c, char *err, size_t errlen)
{
	if (c->ns_ready)
		return 0;
	const char *ns = c->o->ns;
	_cleanup_free_ char *path = xasprintf("/api/v1/namespaces/%s", ns);
	json_object *obj = NULL;
	int r = canary_api(c, c->steps_end_ns, "GET", path, NULL, &obj, err, errlen);
	if (r == -ENOENT) {
		json_object *body = canary_object(c, "v1", "Namespace", ns);
		r = canary_api(c, c->steps_end_ns, "POST", "/api/v1/namespaces", body, NULL, err,
			       errlen);
		json_object_put(body);
		if (r < 0)
			return r;
		_cleanup_free_ char *id = xasprintf("Namespace/%s", ns);
		strv_add(&c->created, id);
		c->ns_created = c->ns_ready = true;
		return 0;
	}
	if (r < 0)
		return r;
	bool terminating = cj_get(obj, "metadata", "deletionTimestamp", NULL) != NULL;
	json_object_put(obj);
	if (terminating) {
		snprintf(err, errlen, "namespace %s is being deleted; try again when it is gone",
			 ns);
		return -EBUSY;
	}
	/* Anything in it that the canary did not label is someone else's. Only
	 * pods and PVCs are looked at: the result ConfigMap (--result-configmap,
	 * canary_result_cm.h, labelled managed-by hvready-canary-result) lives
	 * here by design and never makes a run refuse its namespace. */
	_cleanup_free_ char *q =
	    canary_selector_query("labelSelector", CANARY_LABEL_MANAGED_BY "!=" CANARY_MANAGED_BY);
	struct strv foreign = {0};
	static const char *const kinds[][2] = {{"pods", "Pod"},
					       {"persistentvolumeclaims", "PersistentVolumeClaim"}};
	for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
		_cleanup_free_ char *lp =
		    xasprintf("/api/v1/namespaces/%s/%s?%s", ns, kinds[k][0], q);
		json_object *list = NULL;
		r = canary_api(c, c->steps_end_ns, "GET", lp, NULL, &list, err, errlen);
		if (r < 0) {
			strv_clear(&foreign);
			return r;
		}
		json_object *items = cj_get(list, "items", NULL);
		for (size_t i = 0; items && i < json_object_array_length(items); i++) {
			const char *name =
			    cj_str(json_object_array_get_idx(items, i), "metadata", "name", NULL);
			_cleanup_free_ char *id =
			    xasprintf("%s/%s/%s", kinds[k][1], ns, name ? name : "?");
			strv_add(&foreign, id);
		}
		json_object_put(list);
	}
	if (foreign.n) {
		_cleanup_free_ char *names = strv_join(&foreign, ", ");
		snprintf(err, errlen,
			 "namespace %s holds objects the canary did not create (%s): give it a "
			 "namespace of its own (--namespace)",
			 ns, names);
		strv_clear(&foreign);
		c->refused = true;
		return -EPERM;
	}
	c->ns_ready = true;
	return 0;
}

bool canary_step_namespace(struct canary *c, struct finding *f, char *err, size_t errlen)
{
	int r = canary_namespace(c, err, errlen);
	if (r == -EPERM)
		finding_set(f, STATUS_UNKNOWN, "refused: %s", err);
	else if (r < 0)
		finding_set(f, STATUS_UNKNOWN, "namespace %s: %s", c->o->ns, err);
	return r >= 0;
}

int canary_step_create(struct canary *c, struct finding *f, const char *path, const char *kind,
		       const char *name, json_object *body, const char *what, char *err,
		       size_t errlen)
{
	int r = canary_create(c, path, kind, name, body, err, errlen);
	json_object_put(body);
	if (r < 0)
		finding_set(f, STATUS_UNKNOWN, "cannot create %s: %s", what, err);
	return r;
}

static int wait_look(struct canary *c, struct canary_wait *w)
{
	if (w->path) {
		json_object *got = NULL;
		int r =
		    canary_api(c, c->steps_end_ns, "GET", w->path, NULL, &got, w->err, w->errlen);
		if (r < 0)
			return r;
		json_object_put(w->obj);
		w->obj = got;
	}
	return w->look(w);
}

enum canary_wait_result canary_wait(struct canary *c, struct finding *f, struct canary_wait *w)
{
	int r;
	while ((r = wait_look(c, w)) == 0)
		if (!canary_sleep(c, c->steps_end_ns, CANARY_POLL_MS))
			break;
	if (r > 0)
		return CANARY_WAIT_DONE;
	if (canary_signal) {
		finding_set(f, STATUS_UNKNOWN,
			    "interrupted by signal %d after %llds, waiting for %s",
			    (int)canary_signal,
			    (long long)((util_now_mono_ns() - w->t0_ns) / 1000000000), w->what);
		return CANARY_WAIT_STOPPED;
	}
	/* out of time, not an API error: the request was not made or ran
	 * into the steps' end */
	if (r == 0 || (r == -ETIMEDOUT && util_now_mono_ns() + 1000000000LL >= c->steps_end_ns))
		return CANARY_WAIT_STALL;
	finding_set(f, STATUS_UNKNOWN, "API error while waiting for %s: %s", w->what, w->err);
	return CANARY_WAIT_STOPPED;
}

bool cj_true(json_object *o)
{
	return o && json_object_is_type(o, json_type_boolean) && json_object_get_boolean(o);
}

bool canary_cond_true(json_object *o, const char *type)
{
	json_object *conds = cj_get(o, "status", "conditions", NULL);
	for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
		json_object *cd = json_object_array_get_idx(conds, i);
		const char *t = cj_str(cd, "type", NULL), *s = cj_str(cd, "status", NULL);
		if (t && streq(t, type))
			return s && streq(s, "True");
	}
	return false;
}

const char *canary_node_unusable(json_object *n)
{
	if (!canary_cond_true(n, "Ready"))
		return "not Ready";
	json_object *u = cj_get(n, "spec", "unschedulable", NULL);
	if (u && json_object_get_boolean(u))
		return "cordoned";
	json_object *taints = cj_get(n, "spec", "taints", NULL);
	for (size_t i = 0; taints && i < json_object_array_length(taints); i++) {
		const char *e = cj_str(json_object_array_get_idx(taints, i), "effect", NULL);
		if (e && (streq(e, "NoSchedule") || streq(e, "NoExecute")))
			return "tainted NoSchedule/NoExecute";
	}
	return NULL;
}

void canary_evidence_list(struct finding *f, const char *key, const struct strv *l)
{
	struct value_list *vl = kv_add_list(&f->evidence, key);
	for (size_t i = 0; i < l->n; i++)
		vlist_add_str(vl, l->items[i]);
}

char *canary_quoted(const struct strv *ev)
{
	if (!ev->n)
		return xstrdup("");
	_cleanup_free_ char *q = strv_join(ev, "\"; \"");
	return xasprintf(": \"%s\"", q);
}
