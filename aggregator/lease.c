#include "lease.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "jsonc_read.h"
#include "json_query.h"
#include "kube_client.h"

#define LEASE_MAX_BODY (64u << 10)

void lease_init(struct lease *l, const char *ns, const char *name, const char *identity,
		int duration_s)
{
	*l = (struct lease){
	    .namespace = xstrdup(ns),
	    .name = xstrdup(name),
	    .identity = xstrdup(identity),
	    .duration_s = duration_s,
	};
}

void lease_clear(struct lease *l)
{
	free(l->namespace);
	free(l->name);
	free(l->identity);
	free(l->seen_holder);
	free(l->seen_renew);
	*l = (struct lease){0};
}

void lease_format_micro(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / NSEC_PER_SEC);
	struct tm tm;
	gmtime_r(&t, &tm);
	char day[32];
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06ldZ", day, (long)(ns % NSEC_PER_SEC / 1000));
}

static void observe(struct lease *l, const char *holder, const char *renew, int64_t now_mono_ns)
{
	if (l->seen_holder && streq(l->seen_holder, holder) && streq(l->seen_renew, renew))
		return;
	free(l->seen_holder);
	free(l->seen_renew);
	l->seen_holder = xstrdup(holder);
	l->seen_renew = xstrdup(renew);
	l->seen_mono_ns = now_mono_ns;
}

/* The Lease is read and written back as json-c (it is one small object):
 * these are json_query.h's reads for it (jsonc_read.h). */
static const char *jc_str(json_object *o, const char *k1, const char *k2)
{
	json_object *v = jc_get(o, k1, k2);
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool jc_int(json_object *v, int64_t *ret)
{
	if (json_object_is_type(v, json_type_int)) {
		*ret = json_object_get_int64(v);
		return true;
	}
	return json_object_is_type(v, json_type_string) &&
	       util_parse_i64(json_object_get_string(v), ret) == 0;
}

enum lease_action lease_decide(struct lease *l, json_object *current, int64_t now_mono_ns)
{
	if (!current)
		return LEASE_CREATE;
	json_object *spec = jc_get(current, "spec", NULL);
	const char *holder = jc_str(spec, "holderIdentity", NULL);
	const char *renew = jc_str(spec, "renewTime", NULL);
	holder = holder ? holder : "";
	observe(l, holder, renew ? renew : "", now_mono_ns);
	if (streq(holder, l->identity))
		return LEASE_RENEW;
	if (!*holder)
		return LEASE_TAKE;
	/* The holder promised to renew within its own leaseDurationSeconds. */
	int64_t dur = 0;
	/* An int32 in the API; anything else is not a promise we can time. */
	if (!jc_int(jc_get(spec, "leaseDurationSeconds", NULL), &dur) || dur <= 0 ||
	    dur > INT32_MAX)
		dur = l->duration_s;
	if (now_mono_ns - l->seen_mono_ns >= dur * NSEC_PER_SEC)
		return LEASE_TAKE;
	return LEASE_WAIT;
}

char *lease_body(const struct lease *l, json_object *current, enum lease_action a, int64_t now_ns)
{
	char now[48];
	lease_format_micro(now_ns, now, sizeof(now));
	json_object *o = NULL;
	if (a == LEASE_CREATE || !current) {
		o = kube_object_new("coordination.k8s.io/v1", "Lease", l->namespace, l->name, NULL);
	} else {
		/* Keep metadata.resourceVersion: the API refuses the write (409)
		 * if someone else wrote since we read. */
		if (json_object_deep_copy(current, &o, NULL) != 0)
			abort();
	}
	json_object *spec = jc_get(o, "spec", NULL);
	if (!spec || !json_object_is_type(spec, json_type_object)) {
		spec = json_object_new_object();
		json_object_object_add(o, "spec", spec);
	}
	int64_t transitions = 0;
	jc_int(jc_get(spec, "leaseTransitions", NULL), &transitions);
	json_object_object_add(spec, "holderIdentity", json_object_new_string(l->identity));
	json_object_object_add(spec, "leaseDurationSeconds", json_object_new_int(l->duration_s));
	if (a != LEASE_RENEW || !jc_str(spec, "acquireTime", NULL))
		json_object_object_add(spec, "acquireTime", json_object_new_string(now));
	json_object_object_add(spec, "renewTime", json_object_new_string(now));
	if (a == LEASE_TAKE)
		transitions++;
	json_object_object_add(spec, "leaseTransitions", json_object_new_int64(transitions));
	char *ret = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ret;
}

static json_object *parse_body(const struct kube_response *r)
{
	json_tokener *tok = json_tokener_new();
	if (!tok)
		abort();
	json_object *o = json_tokener_parse_ex(tok, r->body, (int)r->len);
	json_tokener_free(tok);
	return o;
}

static int api_error(const struct lease *l, const char *verb, const struct kube_response *r,
		     char *err, size_t errlen)
{
	_cleanup_free_ char *msg = kube_client_status_message(r->body, r->len);
	snprintf(err, errlen, "%s Lease %s/%s: HTTP %ld%s%s%s", verb, l->namespace, l->name,
		 r->status, *msg ? " (" : "", msg, *msg ? ")" : "");
	if (r->status == 401 || r->status == 403) {
		size_t n = strlen(err);
		snprintf(err + n, errlen - n,
			 "; the aggregator needs get, create and update on "
			 "leases.coordination.k8s.io in namespace %s "
			 "(deploy/overlays/node-conditions)",
			 l->namespace);
		return -EACCES;
	}
	return -EIO;
}

/* GET the Lease: 0 with *ret (NULL when absent), or -errno. */
static int lease_get(struct lease *l, struct kube_client *kc, const char *path, json_object **ret,
		     char *err, size_t errlen)
{
	struct kube_response r = {0};
	*ret = NULL;
	int rc = kube_client_call(kc, "GET", path, NULL, NULL, 0, LEASE_MAX_BODY, &r, err, errlen);
	if (rc < 0)
		return rc;
	if (r.status == 404) {
		kube_response_clear(&r);
		return 0;
	}
	if (r.status != 200) {
		rc = api_error(l, "get", &r, err, errlen);
		kube_response_clear(&r);
		return rc;
	}
	*ret = parse_body(&r);
	kube_response_clear(&r);
	if (!*ret || !json_object_is_type(*ret, json_type_object)) {
		json_object_put(*ret);
		*ret = NULL;
		snprintf(err, errlen, "get Lease %s/%s: the answer is not a JSON object",
			 l->namespace, l->name);
		return -EBADMSG;
	}
	return 0;
}

static void won(struct lease *l, enum lease_action a, json_object *current, int64_t now_ns,
		int64_t now_mono_ns, const char *written)
{
	const char *prev_holder = jc_str(current, "spec", "holderIdentity");
	json_object *w = json_tokener_parse(written);
	observe(l, l->identity,
		jc_str(w, "spec", "renewTime") ? jc_str(w, "spec", "renewTime") : "", now_mono_ns);
	json_object_put(w);
	l->renewed_mono_ns = now_mono_ns;
	/* A renewal continues what this process holds; anything else (or the
	 * first round of a restarted process that finds its own name) starts
	 * a new term. */
	if (a != LEASE_RENEW || !l->held || l->acquired_ns == 0) {
		l->epoch++;
		l->acquired_ns = now_ns;
		l->took_over = a == LEASE_TAKE && prev_holder && *prev_holder &&
			       !streq(prev_holder, l->identity);
	}
	l->held = true;
}

static void lost(struct lease *l)
{
	l->held = false;
	l->acquired_ns = 0;
	l->took_over = false;
}

int lease_sync(struct lease *l, struct kube_client *kc, char *err, size_t errlen)
{
	_cleanup_free_ char *coll =
	    xasprintf("/apis/coordination.k8s.io/v1/namespaces/%s/leases", l->namespace);
	_cleanup_free_ char *path = xasprintf("%s/%s", coll, l->name);
	json_object *current = NULL;
	int rc = lease_get(l, kc, path, &current, err, errlen);
	if (rc < 0)
		return rc;
	int64_t now_mono = util_now_mono_ns(), now = util_now_realtime_ns();
	enum lease_action a = lease_decide(l, current, now_mono);
	if (a == LEASE_WAIT) {
		json_object_put(current);
		lost(l);
		return 0;
	}
	_cleanup_free_ char *body = lease_body(l, current, a, now);
	struct kube_response r = {0};
	rc = kube_client_call(kc, a == LEASE_CREATE ? "POST" : "PUT",
			      a == LEASE_CREATE ? coll : path, "application/json", body,
			      strlen(body), LEASE_MAX_BODY, &r, err, errlen);
	if (rc < 0) {
		json_object_put(current);
		return rc;
	}
	if (r.status == 200 || r.status == 201) {
		won(l, a, current, now, now_mono, body);
		rc = 1;
	} else if (r.status == 409) {
		/* Another replica wrote first (created it, or took it over from
		 * the same expired record): it is theirs this round. */
		lost(l);
		rc = 0;
	} else {
		rc = api_error(l, a == LEASE_CREATE ? "create" : "update", &r, err, errlen);
	}
	kube_response_clear(&r);
	json_object_put(current);
	return rc;
}

static char *sa_namespace(void)
{
	const char *dir = getenv("HVREADY_SA_DIR");
	_cleanup_free_ char *path =
	    xasprintf("%s/namespace", dir && *dir ? dir : KUBE_CLIENT_SA_DIR);
	char *buf = NULL;
	if (util_read_file(path, 256, &buf, NULL) < 0)
		return NULL;
	strstrip(buf);
	if (!*buf) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *lease_default_namespace(void)
{
	const char *ns = getenv("POD_NAMESPACE");
	if (ns && *ns)
		return xstrdup(ns);
	char *sa = sa_namespace();
	return sa ? sa : xstrdup(LEASE_DEFAULT_NAMESPACE);
}

char *lease_default_identity(void)
{
	const char *pod = getenv("POD_NAME");
	if (pod && *pod)
		return xstrdup(pod);
	char host[256] = "";
	if (gethostname(host, sizeof(host) - 1) < 0 || !*host)
		snprintf(host, sizeof(host), "hvready-aggregator-%ld", (long)getpid());
	return xstrdup(host);
}
