/*
 * The live backend: every resource of the table listed through the API, a
 * few lists in flight at once (curl multi; HTTP/2 multiplexes them on one
 * connection), each one paged with limit/continue.
 *
 * Per list, what the API answers decides the resource's status:
 *   200             next page, or COLLECTED
 *   410 on continue the snapshot expired: restart that list (bounded)
 *   401/403         FORBIDDEN, naming the RBAC verbs to grant
 *   404             NOT_INSTALLED for a CRD resource (a fact), FAILED for core
 *   429/5xx/timeout retried with backoff, then FAILED
 *   anything else   FAILED
 * The answer body is parsed as it arrives (json_tokener), so a page is never
 * held twice in memory, and its size is bounded.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cluster_identity.h"
#include "json_query.h"
#include "kube_client.h"
#include "source.h"
#include "source_progress.h"

#define MAX_INFLIGHT	4
#define MAX_ATTEMPTS	3 /* per page, for 429/5xx/timeouts/dropped connections */
#define MAX_RESTARTS	3 /* per list, for 410 Gone on a continue token */
#define MAX_PAGES	100000
#define PAGE_MAX_BYTES	(512ul << 20)
#define ERRBODY_MAX	65536
#define JSON_MAX_DEPTH	SOURCE_JSON_MAX_DEPTH
#define BACKOFF_BASE_MS 500
#define RETRY_AFTER_MAX 10
#define RBAC_VERBS	"get,list,watch"

struct job {
	const struct resource_def *def;
	const char *version;	 /* def->version, or its fallback_version on a second pass */
	struct kube_request req; /* req.curl set while in flight */
	/* the request in flight */
	json_tokener *tok;
	json_object *page;
	long http;
	size_t bytes;
	bool too_big, bad_json;
	char *errbody;
	size_t errlen;
	/* the list: items in the compact form, in the lister's arena (a page's
	 * json-c tree is freed as soon as its items are converted) */
	struct jv_arena *arena;
	struct jv *items;
	size_t n_items, cap_items;
	char *cont;
	int pages, attempts, restarts;
	int64_t not_before_ns, started_ns, finished_ns;
	bool done;
	/* the last attempt could not connect: the API server went away */
	bool refused;
	enum resource_status status;
	char *error;
};

struct lister {
	struct kube_client *kc;
	CURLM *multi;
	struct job jobs[_RES_MAX];
	int active, remaining;
};

static char *api_path(const struct job *j)
{
	const struct resource_def *d = j->def;
	if (!*d->group)
		return xasprintf("/api/%s/%s", j->version, d->plural);
	return xasprintf("/apis/%s/%s/%s", d->group, j->version, d->plural);
}

/* "longhorn.io/volumes", "pods": the resource as an RBAC rule names it (group, resource). */
static char *rbac_name(const struct resource_def *d)
{
	if (!*d->group)
		return xstrdup(d->plural);
	return xasprintf("%s/%s", d->group, d->plural);
}

static _printf_(3, 4) void job_end(struct job *j, enum resource_status st, const char *fmt, ...)
{
	j->done = true;
	j->status = st;
	j->finished_ns = util_now_mono_ns();
	va_list ap;
	va_start(ap, fmt);
	xvasprintf_replace(&j->error, fmt, ap);
	va_end(ap);
	if (st != RES_COLLECTED)
		j->n_items = 0;
}

static void request_reset(struct job *j)
{
	kube_client_request_clear(&j->req);
	if (j->tok)
		json_tokener_free(j->tok);
	j->tok = NULL;
	json_object_put(j->page);
	j->page = NULL;
	free(j->errbody);
	j->errbody = NULL;
	j->errlen = 0;
	j->http = 0;
	j->bytes = 0;
	j->too_big = j->bad_json = false;
}

static bool only_space(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\n' && p[i] != '\r' && p[i] != '\t')
			return false;
	return true;
}

static size_t feed_json(struct job *j, const char *data, size_t n)
{
	size_t off = 0;
	while (off < n) {
		if (j->page) {
			if (!only_space(data + off, n - off)) {
				j->bad_json = true;
				return 0;
			}
			return n;
		}
		int chunk = n - off > (1u << 30) ? (1 << 30) : (int)(n - off);
		json_object *o = json_tokener_parse_ex(j->tok, data + off, chunk);
		enum json_tokener_error e = json_tokener_get_error(j->tok);
		if (!o && e == json_tokener_continue) {
			off += (size_t)chunk;
			continue;
		}
		if (!o) {
			j->bad_json = true;
			return 0;
		}
		j->page = o;
		off += json_tokener_get_parse_end(j->tok);
	}
	return n;
}

static size_t job_write(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct job *j = userdata;
	size_t n = size * nmemb;
	if (j->http == 0)
		curl_easy_getinfo(j->req.curl, CURLINFO_RESPONSE_CODE, &j->http);
	if (n > PAGE_MAX_BYTES - j->bytes) {
		j->too_big = true;
		return 0;
	}
	j->bytes += n;
	if (j->http != 200) {
		size_t keep = ERRBODY_MAX - j->errlen < n ? ERRBODY_MAX - j->errlen : n;
		j->errbody = xrealloc(j->errbody, j->errlen + keep + 1);
		memcpy(j->errbody + j->errlen, data, keep);
		j->errlen += keep;
		j->errbody[j->errlen] = '\0';
		return n;
	}
	return feed_json(j, data, n);
}

static int job_start(struct lister *l, struct job *j)
{
	char err[256];
	request_reset(j);
	j->refused = false;
	_cleanup_free_ char *base = api_path(j);
	_cleanup_free_ char *path = NULL;
	if (j->cont) {
		char *esc = curl_easy_escape(NULL, j->cont, 0);
		if (!esc)
			abort();
		path =
		    xasprintf("%s?limit=%ld&continue=%s", base, kube_client_list_limit(l->kc), esc);
		curl_free(esc);
	} else {
		path = xasprintf("%s?limit=%ld", base, kube_client_list_limit(l->kc));
	}
	if (kube_client_request_init(l->kc, &j->req, path, err, sizeof(err)) < 0) {
		job_end(j, RES_FAILED, "list %s: %s", j->def->plural, err);
		return -ENOMEM;
	}
	j->tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	if (!j->tok)
		abort();
	json_tokener_set_flags(j->tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	curl_easy_setopt(j->req.curl, CURLOPT_WRITEFUNCTION, job_write);
	curl_easy_setopt(j->req.curl, CURLOPT_WRITEDATA, j);
	curl_easy_setopt(j->req.curl, CURLOPT_PRIVATE, j);
	/* Wait for the first connection to tell whether it multiplexes (HTTP/2)
	 * rather than opening one connection per list. */
	curl_easy_setopt(j->req.curl, CURLOPT_PIPEWAIT, 1L);
	if (!j->started_ns)
		j->started_ns = util_now_mono_ns();
	if (curl_multi_add_handle(l->multi, j->req.curl) != CURLM_OK) {
		job_end(j, RES_FAILED, "list %s: cannot start the request", j->def->plural);
		request_reset(j);
		return -ENOMEM;
	}
	l->active++;
	return 0;
}

/* Retry later, or give up with FAILED after MAX_ATTEMPTS. */
static _printf_(3, 4) void job_retry(struct job *j, long delay_ms, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (++j->attempts >= MAX_ATTEMPTS) {
		_cleanup_free_ char *name = rbac_name(j->def);
		job_end(j, RES_FAILED, "list %s: %s (%d attempts)", name, why, j->attempts);
		return;
	}
	if (delay_ms < 0)
		delay_ms = (long)BACKOFF_BASE_MS << (j->attempts - 1);
	j->not_before_ns = util_now_mono_ns() + (int64_t)delay_ms * NSEC_PER_MSEC;
}

static void page_done(struct job *j)
{
	_cleanup_free_ char *name = rbac_name(j->def);
	json_object *page = j->page, *items = NULL;
	if (!json_object_is_type(page, json_type_object) ||
	    (json_object_object_get_ex(page, "items", &items) && items &&
	     !json_object_is_type(items, json_type_array))) {
		job_end(j, RES_FAILED, "list %s: the answer is not a List", name);
		return;
	}
	const char *api = NULL;
	json_object *apij;
	if (json_object_object_get_ex(page, "apiVersion", &apij) &&
	    json_object_is_type(apij, json_type_string))
		api = json_object_get_string(apij);
	_cleanup_free_ char *def_api =
	    *j->def->group ? xasprintf("%s/%s", j->def->group, j->version) : xstrdup(j->version);
	size_t n = items ? json_object_array_length(items) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(items, i);
		if (!json_object_is_type(it, json_type_object)) {
			job_end(j, RES_FAILED, "list %s: items[%zu] is not an object", name, i);
			return;
		}
		struct jv v = jv_from_json(j->arena, it);
		struct jv typed =
		    source_typed_item(j->arena, &v, api ? api : def_api, j->def->kind);
		util_grow((void **)&j->items, &j->cap_items, j->n_items + 1, sizeof(*j->items));
		j->items[j->n_items++] = source_trim_item(j->arena, &typed, j->def->kind);
	}
	json_object *meta, *contj;
	const char *cont = NULL;
	if (json_object_object_get_ex(page, "metadata", &meta) &&
	    json_object_object_get_ex(meta, "continue", &contj) &&
	    json_object_is_type(contj, json_type_string))
		cont = json_object_get_string(contj);
	free(j->cont);
	j->cont = cont && *cont ? xstrdup(cont) : NULL;
	j->attempts = 0;
	if (!j->cont) {
		job_end(j, RES_COLLECTED, NULL);
		return;
	}
	if (++j->pages >= MAX_PAGES)
		job_end(j, RES_FAILED, "list %s: more than %d pages", name, MAX_PAGES);
}

static long retry_after_ms(struct job *j)
{
	curl_off_t s = -1;
	if (curl_easy_getinfo(j->req.curl, CURLINFO_RETRY_AFTER, &s) != CURLE_OK || s <= 0)
		return -1;
	return (long)(s > RETRY_AFTER_MAX ? RETRY_AFTER_MAX : s) * 1000;
}

static void http_error(struct lister *l, struct job *j)
{
	_cleanup_free_ char *name = rbac_name(j->def);
	_cleanup_free_ char *msg = kube_client_status_message(j->errbody, j->errlen);
	const char *sep = *msg ? ": " : "";
	switch (j->http) {
	case 401:
		job_end(j, RES_FORBIDDEN,
			"list %s: 401 Unauthorized, the credentials from %s were rejected%s%s",
			name, kube_client_origin(l->kc), sep, msg);
		return;
	case 403:
		job_end(j, RES_FORBIDDEN, "forbidden: list %s (grant %s)%s%s", name, RBAC_VERBS,
			sep, msg);
		return;
	case 404:
		if (j->def->crd)
			job_end(j, RES_NOT_INSTALLED,
				"the API does not serve %s/%s %s (its CRD is not installed)",
				j->def->group, j->version, j->def->plural);
		else
			job_end(j, RES_FAILED, "list %s: 404 Not Found%s%s", name, sep, msg);
		return;
	case 410:
		if (j->cont && j->restarts < MAX_RESTARTS) {
			/* The continue token outlived etcd's compaction: the pages
			 * so far are from an older snapshot, so start over. */
			j->restarts++;
			free(j->cont);
			j->cont = NULL;
			j->n_items = 0;
			j->pages = 0;
			j->attempts = 0;
			j->not_before_ns = 0;
			return;
		}
		job_end(j, RES_FAILED, "list %s: 410 Gone after %d restarts%s%s", name, j->restarts,
			sep, msg);
		return;
	case 429:
	case 500:
	case 502:
	case 503:
	case 504:
		job_retry(j, retry_after_ms(j), "HTTP %ld%s%s", j->http, sep, msg);
		return;
	default:
		job_end(j, RES_FAILED, "list %s: HTTP %ld%s%s", name, j->http, sep, msg);
	}
}

static void transport_error(struct lister *l, struct job *j, CURLcode cr)
{
	_cleanup_free_ char *name = rbac_name(j->def);
	const char *why = j->req.errbuf[0] ? j->req.errbuf : curl_easy_strerror(cr);
	switch (cr) {
	case CURLE_OPERATION_TIMEDOUT:
		job_retry(j, -1, "no answer within %ld s", kube_client_timeout_ms(l->kc) / 1000);
		return;
	case CURLE_COULDNT_CONNECT:
		j->refused = true;
		job_retry(j, -1, "%s", why);
		return;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		job_retry(j, -1, "%s", why);
		return;
	default:
		job_end(j, RES_FAILED, "list %s: %s", name, why);
	}
}

/* A list ended (for good, not a retry): what the terminal shows of it. */
static void progress_done(const struct lister *l, const struct job *j)
{
	if (!source_progress_enabled())
		return;
	int done = 0;
	for (int i = 0; i < _RES_MAX; i++)
		done += l->jobs[i].done;
	_cleanup_free_ char *name = rbac_name(j->def);
	source_progress_resource(name, j->status, j->status == RES_COLLECTED ? j->n_items : 0,
				 j->error, done, _RES_MAX);
}

static void job_complete(struct lister *l, struct job *j, CURLcode cr)
{
	_cleanup_free_ char *name = rbac_name(j->def);
	if (j->http == 0)
		curl_easy_getinfo(j->req.curl, CURLINFO_RESPONSE_CODE, &j->http);
	if (j->too_big)
		job_end(j, RES_FAILED, "list %s: a page is larger than %lu MiB", name,
			PAGE_MAX_BYTES >> 20);
	else if (j->bad_json)
		job_end(j, RES_FAILED, "list %s: the answer is not valid JSON: %s", name,
			j->page ? "data after the List"
				: json_tokener_error_desc(json_tokener_get_error(j->tok)));
	else if (cr != CURLE_OK)
		transport_error(l, j, cr);
	else if (j->http != 200)
		http_error(l, j);
	else if (!j->page)
		job_retry(j, -1, "the answer ended inside the JSON (%zu bytes)", j->bytes);
	else
		page_done(j);
	curl_multi_remove_handle(l->multi, j->req.curl);
	request_reset(j);
	l->active--;
	if (j->done) {
		l->remaining--;
		progress_done(l, j);
	}
}

static void start_ready(struct lister *l, int64_t now)
{
	for (int i = 0; i < _RES_MAX && l->active < MAX_INFLIGHT; i++) {
		struct job *j = &l->jobs[i];
		if (j->done || j->req.curl || j->not_before_ns > now)
			continue;
		if (job_start(l, j) < 0) {
			l->remaining--;
			progress_done(l, j);
		}
	}
}

/* How long to wait for network activity: until the next backoff ends. */
static int poll_timeout_ms(const struct lister *l, int64_t now)
{
	int64_t next = INT64_MAX;
	for (int i = 0; i < _RES_MAX; i++) {
		const struct job *j = &l->jobs[i];
		if (!j->done && !j->req.curl && j->not_before_ns < next)
			next = j->not_before_ns;
	}
	if (next == INT64_MAX || l->active >= MAX_INFLIGHT)
		return 1000;
	if (next <= now)
		return 0;
	int64_t ms = (next - now) / NSEC_PER_MSEC + 1;
	return ms > 1000 ? 1000 : (int)ms;
}

static void run_lists(struct lister *l)
{
	while (l->remaining > 0) {
		start_ready(l, util_now_mono_ns());
		int running = 0;
		curl_multi_perform(l->multi, &running);
		CURLMsg *msg;
		int q;
		while ((msg = curl_multi_info_read(l->multi, &q))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			struct job *j = NULL;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&j);
			job_complete(l, j, msg->data.result);
		}
		if (l->remaining <= 0)
			break;
		curl_multi_poll(l->multi, NULL, 0, poll_timeout_ms(l, util_now_mono_ns()), NULL);
	}
}

static const struct jv *crd_listed(const struct job *crds, const struct resource_def *d)
{
	if (crds->status != RES_COLLECTED)
		return NULL;
	_cleanup_free_ char *name = xasprintf("%s.%s", d->plural, d->group);
	for (size_t i = 0; i < crds->n_items; i++) {
		const char *n = jq_name(&crds->items[i]);
		if (n && streq(n, name))
			return &crds->items[i];
	}
	return NULL;
}

/* The name of a CRD's spec.versions[v] if it is served, else NULL. */
static const char *served_version(const struct jv *versions, size_t v)
{
	bool on = false;
	const char *vn = JQS(jq_at(versions, v), "name");
	return vn && jq_bool(JQ(jq_at(versions, v), "served"), &on) && on ? vn : NULL;
}

static bool crd_serves(const struct jv *crd, const char *version)
{
	const struct jv *versions = crd ? JQ(crd, "spec", "versions") : NULL;
	for (size_t v = 0; v < jq_len(versions); v++)
		if (streq(served_version(versions, v), version))
			return true;
	return false;
}

/* A resource whose version answered 404 while its CRD (listed in the same
 * pass) serves the older version it may fall back to: a second pass of the
 * same lister lists it at that version, with the same paging, retries and
 * limits. Nothing is retried when no CRD serves a fallback. */
static void run_fallbacks(struct lister *l)
{
	const struct job *crds = &l->jobs[RES_CRDS];
	for (int i = 0; i < _RES_MAX; i++) {
		struct job *j = &l->jobs[i];
		const char *fb = j->def->fallback_version;
		if (!fb || j->status != RES_NOT_INSTALLED ||
		    !crd_serves(crd_listed(crds, j->def), fb))
			continue;
		j->version = fb;
		j->done = false;
		j->status = RES_NOT_COLLECTED;
		free(j->error);
		j->error = NULL;
		free(j->cont);
		j->cont = NULL;
		j->n_items = 0;
		j->pages = j->attempts = j->restarts = 0;
		j->not_before_ns = 0;
		l->remaining++;
	}
	if (l->remaining > 0)
		run_lists(l);
}

/* A 404 for a CRD whose definition exists means another version is served
 * (or the CRD is not established yet): that is not "not installed". */
static void check_crd_versions(struct cluster_state *cs)
{
	if (cs->res[RES_CRDS].status != RES_COLLECTED)
		return;
	for (int i = 0; i < _RES_MAX; i++) {
		const struct resource_def *d = &resource_defs[i];
		if (cs->res[i].status != RES_NOT_INSTALLED)
			continue;
		_cleanup_free_ char *crd_name = xasprintf("%s.%s", d->plural, d->group);
		const struct jv *crd = cs_find(cs, RES_CRDS, NULL, crd_name);
		if (!crd)
			continue;
		const struct jv *versions = JQ(crd, "spec", "versions");
		char served[256] = "";
		for (size_t v = 0; v < jq_len(versions); v++) {
			const char *vn = served_version(versions, v);
			if (vn)
				snprintf(served + strlen(served), sizeof(served) - strlen(served),
					 "%s%s", *served ? "," : "", vn);
		}
		/* run_fallbacks listed the fallback too when the CRD serves it */
		bool both = d->fallback_version && crd_serves(crd, d->fallback_version);
		cs_set_status(cs, i, RES_FAILED,
			      "the CRD %s exists but %s/%s%s%s answered 404 (served versions: %s); "
			      "hvready reads %s",
			      crd_name, d->group, d->version, both ? " and " : "",
			      both ? d->fallback_version : "", *served ? served : "none",
			      d->version);
	}
}

/* The job's outcome into cs. A resource read at its fallback version says
 * so in its note (collect.json) and in *older (the report's source). */
static void set_status(struct cluster_state *cs, enum resource_id id, const struct job *j,
		       char **older)
{
	if (j->version == j->def->version) {
		if (j->error)
			cs_set_status(cs, id, j->status, "%s", j->error);
		else
			cs_set_status(cs, id, j->status, NULL);
		return;
	}
	cs_set_status(cs, id, j->status, "%s %s/%s (%s answered 404)%s%s",
		      j->status == RES_COLLECTED ? "read at" : "at", j->def->group, j->version,
		      j->def->version, j->error ? ": " : "", j->error ? j->error : "");
	if (j->status != RES_COLLECTED)
		return;
	char *s = xasprintf("%s%s%s/%s %s", *older ? *older : "", *older ? ", " : "", j->def->group,
			    j->version, j->def->plural);
	free(*older);
	*older = s;
}

/* Whether the API can be reached with these credentials at all: a transport
 * failure or 401 here is an error for the whole run, not per resource. */
static int probe(struct kube_client *kc, char **ret_version, char *err, size_t errlen)
{
	struct kube_response resp = {0};
	char why[SOURCE_ERR_LEN];
	int r = kube_client_call(kc, "GET", "/version", NULL, NULL, 0, 1 << 20, &resp, why,
				 sizeof(why));
	if (r < 0) {
		snprintf(err, errlen, "cannot reach the Kubernetes API (%s): %s",
			 kube_client_origin(kc), why);
		return r;
	}
	if (resp.status == 401) {
		_cleanup_free_ char *msg = kube_client_status_message(resp.body, resp.len);
		snprintf(err, errlen,
			 "the Kubernetes API at %s rejected the credentials from %s (401 "
			 "Unauthorized%s%s)",
			 kube_client_server(kc), kube_client_origin(kc), *msg ? ": " : "", msg);
		kube_response_clear(&resp);
		return -EACCES;
	}
	*ret_version = NULL;
	if (resp.status == 200) {
		json_object *o = json_tokener_parse(resp.body), *v;
		if (json_object_object_get_ex(o, "gitVersion", &v) &&
		    json_object_is_type(v, json_type_string))
			*ret_version = xstrndup(json_object_get_string(v), 64);
		json_object_put(o);
	}
	int version_status = resp.status;
	kube_response_clear(&resp);
	if (*ret_version)
		return 0;
	/* No Kubernetes /version (a proxy may hide it, or RBAC may take it from
	 * system:public-info-viewer): the core group's discovery document still
	 * tells a kube-apiserver, {"kind":"APIVersions","versions":["v1"]}. A host
	 * that has neither is not one, and reading on would give a whole report
	 * of "not installed" (every list a 404) about a cluster never seen. */
	r = kube_client_call(kc, "GET", "/api", NULL, NULL, 0, 1 << 20, &resp, why, sizeof(why));
	if (r < 0) {
		snprintf(err, errlen, "cannot reach the Kubernetes API (%s): %s",
			 kube_client_origin(kc), why);
		return r;
	}
	bool core = false;
	if (resp.status == 200) {
		json_object *o = json_tokener_parse(resp.body), *v;
		core = json_object_object_get_ex(o, "kind", &v) &&
		       json_object_is_type(v, json_type_string) &&
		       streq(json_object_get_string(v), "APIVersions");
		json_object_put(o);
	}
	int api_status = resp.status;
	kube_response_clear(&resp);
	if (core)
		return 0;
	snprintf(err, errlen,
		 "%s (from %s) is not a Kubernetes API server: GET /version answered %d without "
		 "a gitVersion, GET /api answered %d without an APIVersions document",
		 kube_client_server(kc), kube_client_origin(kc), version_status, api_status);
	return -EPROTO;
}

int source_api_load(struct cluster_state *cs, struct kube_client *kc, char *err, size_t errlen)
{
	_cleanup_free_ char *version = NULL;
	int64_t now = util_now_realtime_ns(), started = util_now_mono_ns();
	int r = probe(kc, &version, err, errlen);
	if (r < 0)
		return r;
	struct lister l = {.kc = kc, .remaining = _RES_MAX};
	l.multi = curl_multi_init();
	if (!l.multi)
		abort();
	struct jv_arena *arena = cs_arena(cs);
	for (int i = 0; i < _RES_MAX; i++) {
		l.jobs[i].def = &resource_defs[i];
		l.jobs[i].version = resource_defs[i].version;
		l.jobs[i].arena = arena;
	}
	run_lists(&l);
	run_fallbacks(&l);
	/* A list that failed because the API server stopped taking connections
	 * (it went away after answering /version) makes the whole read fail:
	 * the state would be a hole where the last complete one had objects, so
	 * the caller keeps serving that one and says how old it is. A list that
	 * failed otherwise (5xx, a timeout, bad JSON) is that resource's status,
	 * and the checks that need it say UNKNOWN. */
	bool lost = false;
	for (int i = 0; i < _RES_MAX && !lost; i++) {
		const struct job *j = &l.jobs[i];
		lost = j->status == RES_FAILED && j->refused;
		if (lost)
			snprintf(err, errlen,
				 "the API server stopped answering during the read: %s",
				 j->error ? j->error : resource_defs[i].plural);
	}
	_cleanup_free_ char *older = NULL;
	for (int i = 0; i < _RES_MAX; i++) {
		struct job *j = &l.jobs[i];
		if (!lost) { /* a read that failed whole keeps nothing */
			set_status(cs, i, j, &older);
			for (size_t k = 0; j->status == RES_COLLECTED && k < j->n_items; k++)
				cs_add_jv(cs, i, j->items[k]);
			cs->res[i].duration_ns = j->started_ns ? j->finished_ns - j->started_ns : 0;
		}
		request_reset(j);
		free(j->items);
		free(j->cont);
		free(j->error);
	}
	curl_multi_cleanup(l.multi);
	if (lost)
		return -ECONNREFUSED;
	if (source_progress_enabled()) {
		size_t counts[RES_FAILED + 1] = {0}, objects = 0;
		for (int i = 0; i < _RES_MAX; i++) {
			counts[cs->res[i].status]++;
			objects += cs->res[i].status == RES_COLLECTED ? cs->res[i].n : 0;
		}
		source_progress_summary(kube_client_server(kc), counts, objects,
					util_now_mono_ns() - started);
	}
	check_crd_versions(cs);
	/* The header's cluster identity: one GET, after the lists (docs/change-board.md). */
	free(cs->cluster_uid);
	free(cs->cluster_uid_error);
	cs->cluster_uid = cs->cluster_uid_error = NULL;
	cluster_identity_fetch(cs, kc);
	free(cs->api_server);
	cs->api_server = xstrdup(kube_client_server(kc));
	cs->live = true;
	cs->read_at_ns = now;
	free(cs->source);
	cs->source =
	    xasprintf("%s%s%s%s%s%s", kube_client_server(kc), version ? " (Kubernetes " : "",
		      version ? version : "", version ? ")" : "",
		      older ? "; read at an older API version: " : "", older ? older : "");
	return 0;
}
