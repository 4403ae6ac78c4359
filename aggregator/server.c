/*
 * The aggregator's server. One libevent loop serves HTTP(S): agents POST
 * msgpack reports, operators GET the verdict. Reading the cluster state (the
 * API or files) happens in a refresher thread so that a slow API server never
 * blocks ingest; the loop swaps in each complete state and always serves the
 * verdict of the latest complete one. The verdict is recomputed at most once a
 * second, and only when something changed.
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <systemd/sd-daemon.h>

#include "catalog.h"
#include "jq.h"
#include "log.h"
#include "metrics.h"
#include "node_conditions.h"
#include "render_html.h"
#include "render_json.h"
#include "source.h"
#include "store.h"
#include "targets.h"
#include "tokenreview.h"
#include "verdict.h"
#include "wire.h"

#define MAX_HEADERS_SIZE (16u << 10)
#define READ_TIMEOUT_S	 10
#define TOKEN_MAX	 (16u << 10)
/* Connections (docs/robustness.md): evhttp's timeout is an idle timeout, so
 * a client sending a byte every few seconds would hold a connection forever. */
#define CONN_MAX_AGE_NS	  (3 * READ_TIMEOUT_S * NSEC_PER_SEC) /* unless answering */
#define CONN_MAX_WRITE_NS (600 * NSEC_PER_SEC)		      /* a slow reader of a large answer */
#define CONN_SWEEP_MS	  250
#define CONN_MAX	  8192
#define CONN_FD_RESERVE	  64 /* files the server opens besides connections */
/* An agent resends a report at most until its next cycle (interval <= 1 h). */
#define REPORT_AGE_MAX_NS (2 * 3600 * NSEC_PER_SEC)

struct server {
	const struct server_opts *o;
	struct event_base *base;
	struct evhttp *http;
	SSL_CTX *ssl;
	struct event *sig_term, *sig_int, *verdict_timer, *state_ev, *watchdog;
	/* the latest complete cluster state (owned by the loop) */
	struct cluster_state cs;
	bool have_state;
	struct probe_targets cluster_targets;
	struct store store;
	char *token; /* AUTH_TOKEN_FILE */
	/* cached verdict */
	bool dirty;
	int64_t eval_ns; /* how long the last evaluation took */
	char *verdict_json;
	size_t verdict_len;
	struct verdict verdict;
	bool have_verdict;
	/* refresher thread hand-over */
	pthread_t refresher;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stopping;
	struct cluster_state *incoming;
	char *refresh_error;
	struct kube_client *kc;
	struct metrics_counters mc;
	/* --tokenreview: a reviewer thread with its own API client */
	struct kube_client *review_kc;
	pthread_t reviewer;
	bool have_reviewer;
	struct review_job *queue, *done;
	size_t pending;
	struct event *review_ev;
	struct token_cache_entry *cache;
	size_t cache_slots;
	struct node_conditions *nc; /* --node-conditions: its own thread and client */
	/* every connection since accept (conn_track) */
	struct conn *conns;
	size_t n_conns, cap_conns, max_conns;
	struct evconnlistener *listener;
	bool paused;
	struct event *sweep;
	int64_t evicted_logged_ns;
	uint64_t evicted;
};

struct conn {
	struct bufferevent *bev; /* with a reference of ours */
	int64_t accepted_ns;	 /* monotonic */
	bool shut;
};

/* A report waiting for its token to be reviewed. */
struct review_job {
	struct review_job *next;
	struct evhttp_request *req; /* NULL once the client went away */
	struct evhttp_connection *evcon;
	struct node_report *report;
	char key[65];
	char *token;
	int64_t received_ns, rtt_ns, generated_mono_ns;
	struct token_identity id;
	int rc;
	char err[256];
};

struct token_cache_entry {
	char key[65];
	struct token_identity id;
	int64_t expires_ns; /* monotonic; 0 = empty */
};

#define REVIEW_MAX_PENDING 1024
#define REVIEW_CACHE_SLOTS 16384
#define REVIEW_TTL_OK_NS   (60 * NSEC_PER_SEC)
#define REVIEW_TTL_BAD_NS  (10 * NSEC_PER_SEC)

/* ---------- responses ---------- */

static void reply(struct server_req *req, int code, const char *reason, const char *type,
		  const char *body, size_t len)
{
	req->code = code;
	req->reason = reason;
	req->type = type;
	free(req->out);
	req->out = xmalloc(len + 1);
	if (len)
		memcpy(req->out, body, len);
	req->out[len] = '\0';
	req->out_len = len;
}

static void free_out(const void *data, size_t len, void *arg)
{
	free(arg);
}

/* Send the answer over the connection; the body goes to libevent uncopied. */
static void send_req(struct server_req *req)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req->ev);
	evhttp_add_header(h, "Content-Type", req->type);
	evhttp_add_header(h, "Cache-Control", "no-store");
	struct evbuffer *b = evbuffer_new();
	if (req->out && evbuffer_add_reference(b, req->out, req->out_len, free_out, req->out) < 0)
		free(req->out);
	req->out = NULL;
	evhttp_send_reply(req->ev, req->code, req->reason, b);
	evbuffer_free(b);
}

static void reply_error(struct server *s, struct server_req *req, int code, const char *reason,
			const char *fmt, ...) _printf_(5, 6);
static void reply_error(struct server *s, struct server_req *req, int code, const char *reason,
			const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "error", json_object_new_string(msg));
	json_object_object_add(o, "code", json_object_new_int(code));
	const char *str = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE);
	reply(req, code, reason, "application/json", str, strlen(str));
	json_object_put(o);
	if (code >= 400 && req->path && streq(req->path, "/v1/reports")) {
		enum reject_reason r = code == 401   ? REJECT_UNAUTHORIZED
				       : code == 403 ? REJECT_FORBIDDEN
				       : code == 400 ? REJECT_BAD_REPORT
				       : code == 415 ? REJECT_MEDIA_TYPE
				       : code == 413 ? REJECT_TOO_LARGE
						     : REJECT_OTHER;
		s->mc.rejected[r]++;
	}
}

static void reply_json(struct server_req *req, json_object *o)
{
	const char *str = json_object_to_json_string_ext(
	    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	reply(req, HTTP_OK, "OK", "application/json", str, strlen(str));
}

/* ---------- auth ---------- */

static bool const_time_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	unsigned char diff = alen != blen;
	for (size_t i = 0; i < alen && i < blen; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

/* Returns the bearer token of the request, or NULL. */
static const char *bearer(const struct server_req *req)
{
	const char *a = evhttp_find_header(req->headers, "Authorization");
	if (!a || strncasecmp(a, "Bearer ", 7) != 0)
		return NULL;
	a += 7;
	while (*a == ' ')
		a++;
	return *a ? a : NULL;
}

/* 0 = allowed; else an HTTP status to answer with. For a report, node is the
 * node it claims; the credential must be allowed to speak for it. */
static int authorize(struct server *s, const struct server_req *req, const char *node,
		     const char **why)
{
	(void)node;
	if (s->o->auth == AUTH_NONE)
		return 0;
	const char *tok = bearer(req);
	if (!tok) {
		*why = "missing bearer token";
		return 401;
	}
	if (s->o->auth == AUTH_TOKEN_FILE) {
		if (!const_time_eq(tok, strlen(tok), s->token, strlen(s->token))) {
			*why = "invalid bearer token";
			return 401;
		}
		return 0;
	}
	return 0; /* AUTH_TOKENREVIEW is decided by bind_identity() once reviewed */
}

/* The node a reviewed token may speak for: the review's node-name, or the
 * node of the pod it names (looked up in the cluster state). */
static int bind_identity(struct server *s, const struct token_identity *id, const char *node,
			 char *why, size_t whylen)
{
	if (!id->authenticated) {
		snprintf(why, whylen, "%s", id->error ? id->error : "token not authenticated");
		return 401;
	}
	const char *bound = id->node;
	if (!bound && id->pod) {
		json_object *pod = cs_find(&s->cs, RES_PODS, id->pod_namespace, id->pod);
		bound = JQS(pod, "spec", "nodeName");
		if (!bound) {
			snprintf(
			    why, whylen,
			    "token of pod %s/%s, which is not (yet) in the cluster state: cannot "
			    "tell its node",
			    id->pod_namespace, id->pod);
			return 403;
		}
	}
	if (!bound) {
		snprintf(why, whylen, "token of %s is bound to no pod or node",
			 id->username ? id->username : "?");
		return 403;
	}
	if (!streq(bound, node)) {
		snprintf(why, whylen, "a credential of node %s cannot report for node %s", bound,
			 node);
		return 403;
	}
	return 0;
}

static uint64_t key_hash(const char *key)
{
	uint64_t h = 0;
	for (int i = 0; i < 16 && key[i]; i++)
		h = h * 16 + (uint64_t)(key[i] <= '9' ? key[i] - '0' : key[i] - 'a' + 10);
	return h;
}

static struct token_cache_entry *cache_slot(struct server *s, const char *key, bool for_insert)
{
	if (!s->cache) {
		s->cache_slots = REVIEW_CACHE_SLOTS;
		s->cache = xcalloc(s->cache_slots, sizeof(*s->cache));
	}
	int64_t now = util_now_mono_ns();
	size_t mask = s->cache_slots - 1, first_free = SIZE_MAX;
	for (size_t n = 0, i = key_hash(key) & mask; n < 64; n++, i = (i + 1) & mask) {
		struct token_cache_entry *e = &s->cache[i];
		bool live = e->expires_ns > now;
		if (live && streq(e->key, key))
			return e;
		if (!live && first_free == SIZE_MAX)
			first_free = i;
	}
	if (!for_insert)
		return NULL;
	/* A full neighbourhood: overwrite the home slot (the cache is a cache). */
	return &s->cache[first_free != SIZE_MAX ? first_free : (key_hash(key) & mask)];
}

static void cache_put(struct server *s, const char *key, const struct token_identity *id)
{
	struct token_cache_entry *e = cache_slot(s, key, true);
	token_identity_clear(&e->id);
	memcpy(e->key, key, sizeof(e->key));
	e->id = (struct token_identity){
	    .authenticated = id->authenticated,
	    .username = id->username ? xstrdup(id->username) : NULL,
	    .node = id->node ? xstrdup(id->node) : NULL,
	    .pod_namespace = id->pod_namespace ? xstrdup(id->pod_namespace) : NULL,
	    .pod = id->pod ? xstrdup(id->pod) : NULL,
	    .error = id->error ? xstrdup(id->error) : NULL,
	};
	e->expires_ns =
	    util_now_mono_ns() + (id->authenticated ? REVIEW_TTL_OK_NS : REVIEW_TTL_BAD_NS);
}

/* ---------- routes ---------- */

static void handle_report(struct server *s, struct server_req *req, const char *arg);
static void handle_verdict(struct server *s, struct server_req *req, const char *arg);
static void handle_nodes(struct server *s, struct server_req *req, const char *arg);
static void handle_node(struct server *s, struct server_req *req, const char *arg);
static void handle_healthz(struct server *s, struct server_req *req, const char *arg);
static void handle_readyz(struct server *s, struct server_req *req, const char *arg);
static void handle_metrics(struct server *s, struct server_req *req, const char *arg);
static void handle_page(struct server *s, struct server_req *req, const char *arg);

struct route {
	enum evhttp_cmd_type method;
	const char *path; /* exact, or a prefix when it ends with '/' */
	size_t max_body;
	bool auth;
	void (*handler)(struct server *s, struct server_req *req, const char *arg);
};

/* Every route, its method, body limit and whether it needs a credential. No
 * route that changes state is served without auth (unless --insecure-no-auth). */
static const struct route routes[] = {
    {EVHTTP_REQ_POST, "/v1/reports", WIRE_MAX_MESSAGE, true, handle_report},
    {EVHTTP_REQ_GET, "/v1/verdict", 0, false, handle_verdict},
    {EVHTTP_REQ_GET, "/v1/nodes", 0, false, handle_nodes},
    {EVHTTP_REQ_GET, "/v1/nodes/", 0, false, handle_node},
    {EVHTTP_REQ_GET, "/healthz", 0, false, handle_healthz},
    {EVHTTP_REQ_GET, "/readyz", 0, false, handle_readyz},
    {EVHTTP_REQ_GET, "/metrics", 0, false, handle_metrics},
    {EVHTTP_REQ_GET, "/", 0, false, handle_page},
};

void server_handle(struct server *s, struct server_req *req)
{
	const char *path = req->path ? req->path : "/";
	enum evhttp_cmd_type method = req->method;
	bool path_known = false;
	for (size_t i = 0; i < ELEMENTSOF(routes); i++) {
		const struct route *r = &routes[i];
		size_t plen = strlen(r->path);
		bool prefix = plen > 1 && r->path[plen - 1] == '/'; /* "/" itself is exact */
		const char *rest = NULL;
		if (prefix && strncmp(path, r->path, plen) == 0 && path[plen])
			rest = path + plen;
		else if (!prefix && streq(path, r->path))
			rest = "";
		if (!rest)
			continue;
		path_known = true;
		if (method != r->method &&
		    !(method == EVHTTP_REQ_HEAD && r->method == EVHTTP_REQ_GET))
			continue;
		size_t body = req->body_len;
		if (body > r->max_body && r->max_body > 0) {
			reply_error(s, req, 413, "Payload Too Large",
				    "body of %zu bytes (at most %zu)", body, r->max_body);
			return;
		}
		r->handler(s, req, rest);
		return;
	}
	if (path_known)
		reply_error(s, req, 405, "Method Not Allowed", "method not allowed on %s", path);
	else
		reply_error(s, req, HTTP_NOTFOUND, "Not Found", "no such path: %s", path);
}

/* The evhttp callback: the exchange from the connection, and its answer. */
static void on_request(struct evhttp_request *ev, void *arg)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(ev);
	struct evbuffer *in = evhttp_request_get_input_buffer(ev);
	struct server_req req = {
	    .method = evhttp_request_get_command(ev),
	    .path = uri ? evhttp_uri_get_path(uri) : NULL,
	    .query = uri ? evhttp_uri_get_query(uri) : NULL,
	    .headers = evhttp_request_get_input_headers(ev),
	    .body_len = evbuffer_get_length(in),
	    .ev = ev,
	};
	req.body = req.body_len ? evbuffer_pullup(in, -1) : NULL;
	server_handle(arg, &req);
	if (!req.deferred)
		send_req(&req);
}

static bool content_type_is(const struct server_req *req, const char *want, const char *alt)
{
	const char *ct = evhttp_find_header(req->headers, "Content-Type");
	if (!ct)
		return false;
	size_t n = strcspn(ct, "; ");
	return (strlen(want) == n && strncasecmp(ct, want, n) == 0) ||
	       (alt && strlen(alt) == n && strncasecmp(ct, alt, n) == 0);
}

static char *node_targets_json(struct server *s, const char *node)
{
	struct probe_targets t;
	targets_for_node(&s->cs, node, &t);
	json_object *o = probe_targets_to_json(&t);
	char *str = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	probe_targets_clear(&t);
	return str;
}

/* Store an authorised report and answer with the node's probe targets. */
static void accept_report(struct server *s, struct server_req *req, struct node_report *r,
			  int64_t received_ns, int64_t rtt_ns, int64_t generated_mono_ns)
{
	_cleanup_free_ char *node = xstrdup(r->node);
	store_put_entry(&s->store, (struct node_entry){.report = r,
						       .received_ns = received_ns,
						       .rtt_ns = rtt_ns,
						       .generated_mono_ns = generated_mono_ns});
	s->dirty = true;
	_cleanup_free_ char *body = node_targets_json(s, node);
	reply(req, HTTP_OK, "OK", "application/json", body, strlen(body));
}

static void on_conn_close(struct evhttp_connection *evcon, void *arg)
{
	struct server *s = arg;
	/* The client went away while its token was being reviewed: there is no
	 * request to answer any more (libevent frees it). */
	pthread_mutex_lock(&s->lock);
	for (struct review_job *j = s->queue; j; j = j->next)
		if (j->evcon == evcon)
			j->req = NULL;
	for (struct review_job *j = s->done; j; j = j->next)
		if (j->evcon == evcon)
			j->req = NULL;
	pthread_mutex_unlock(&s->lock);
}

static void queue_review(struct server *s, struct server_req *req, struct node_report *r,
			 const char *key, int64_t received_ns, int64_t rtt_ns,
			 int64_t generated_mono_ns)
{
	if (s->pending >= REVIEW_MAX_PENDING || !req->ev) {
		reply_error(s, req, HTTP_SERVUNAVAIL, "Service Unavailable",
			    req->ev ? "too many token reviews in flight; retry later"
				    : "a token review needs a connection");
		node_report_clear(r);
		free(r);
		return;
	}
	struct review_job *j = xcalloc(1, sizeof(*j));
	j->req = req->ev;
	req->deferred = true;
	j->evcon = evhttp_request_get_connection(req->ev);
	j->report = r;
	memcpy(j->key, key, sizeof(j->key));
	j->token = xstrdup(bearer(req));
	j->received_ns = received_ns;
	j->rtt_ns = rtt_ns;
	j->generated_mono_ns = generated_mono_ns;
	evhttp_connection_set_closecb(j->evcon, on_conn_close, s);
	pthread_mutex_lock(&s->lock);
	j->next = s->queue;
	s->queue = j;
	s->pending++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static void free_job(struct review_job *j)
{
	if (j->report) {
		node_report_clear(j->report);
		free(j->report);
	}
	if (j->token) {
		explicit_bzero(j->token, strlen(j->token));
		free(j->token);
	}
	token_identity_clear(&j->id);
	free(j);
}

static void on_reviews_done(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;
	pthread_mutex_lock(&s->lock);
	struct review_job *done = s->done;
	s->done = NULL;
	pthread_mutex_unlock(&s->lock);
	while (done) {
		struct review_job *j = done;
		done = j->next;
		s->pending--;
		if (j->rc == 0)
			cache_put(s, j->key, &j->id);
		if (j->req) {
			evhttp_connection_set_closecb(j->evcon, NULL, NULL);
			struct server_req rq = {.path = "/v1/reports", .ev = j->req};
			struct server_req *req = &rq;
			char why[256];
			int code =
			    j->rc < 0 ? 503
				      : bind_identity(s, &j->id, j->report->node, why, sizeof(why));
			if (j->rc < 0) {
				log_warnx("token review failed: %s, ignoring", j->err);
				reply_error(s, req, HTTP_SERVUNAVAIL, "Service Unavailable",
					    "cannot review the token now: %s", j->err);
			} else if (code) {
				reply_error(s, req, code,
					    code == 403 ? "Forbidden" : "Unauthorized", "%s", why);
			} else {
				accept_report(s, req, j->report, j->received_ns, j->rtt_ns,
					      j->generated_mono_ns);
				j->report = NULL;
			}
			send_req(req);
		}
		free_job(j);
	}
}

/* The reviewer thread: one TokenReview at a time, off the loop. */
static void *reviewer_main(void *arg)
{
	struct server *s = arg;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->stopping && !s->queue)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->stopping)
			break;
		struct review_job *j = s->queue;
		s->queue = j->next;
		pthread_mutex_unlock(&s->lock);
		j->rc = tokenreview_review(s->review_kc, j->token, &j->id, j->err, sizeof(j->err));
		explicit_bzero(j->token, strlen(j->token));
		pthread_mutex_lock(&s->lock);
		j->next = s->done;
		s->done = j;
		event_active(s->review_ev, EV_READ, 0);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* How long before sending the agent generated the report (its monotonic
 * clock): a report resent after an outage is as old as its evidence. */
static int64_t report_age(const struct server_req *req)
{
	int64_t age;
	const char *h = evhttp_find_header(req->headers, "Hvready-Report-Age-Ns");
	if (!h || util_parse_i64(h, &age) < 0 || age < 0)
		return 0;
	return age > REPORT_AGE_MAX_NS ? REPORT_AGE_MAX_NS : age;
}

static void handle_report(struct server *s, struct server_req *req, const char *arg)
{
	const char *why = NULL;
	s->mc.reports_received++;
	/* Credentials first: an unauthenticated client learns nothing else. */
	if (s->o->auth != AUTH_NONE && !bearer(req)) {
		reply_error(s, req, 401, "Unauthorized", "missing bearer token");
		return;
	}
	if (!content_type_is(req, "application/msgpack", "application/x-msgpack")) {
		reply_error(s, req, 415, "Unsupported Media Type",
			    "reports are application/msgpack (docs/protocol.md)");
		return;
	}
	size_t len = req->body_len;
	const uint8_t *buf = req->body;
	struct node_report *r = xcalloc(1, sizeof(*r));
	char err[WIRE_ERR_LEN];
	int ret = wire_decode_node_report(buf, len, r, err, sizeof(err));
	if (ret < 0) {
		free(r);
		reply_error(s, req, HTTP_BADREQUEST, "Bad Request", "bad report: %s", err);
		return;
	}
	int64_t rtt = 0;
	const char *rtt_h = evhttp_find_header(req->headers, "Hvready-Last-Rtt-Ns");
	if (rtt_h && (util_parse_i64(rtt_h, &rtt) < 0 || rtt < 0 || rtt > 60 * NSEC_PER_SEC))
		rtt = 0;
	int64_t received = util_now_realtime_ns();
	int64_t generated = util_now_mono_ns() - rtt / 2 - report_age(req);
	if (s->o->auth == AUTH_TOKENREVIEW) {
		char key[65], whybuf[256];
		tokenreview_key(bearer(req), key);
		struct token_cache_entry *e = cache_slot(s, key, false);
		if (e) {
			int code = bind_identity(s, &e->id, r->node, whybuf, sizeof(whybuf));
			if (code) {
				reply_error(s, req, code,
					    code == 403 ? "Forbidden" : "Unauthorized", "%s",
					    whybuf);
				node_report_clear(r);
				free(r);
				return;
			}
			accept_report(s, req, r, received, rtt, generated);
			return;
		}
		queue_review(s, req, r, key, received, rtt, generated);
		return;
	}
	int code = authorize(s, req, r->node, &why);
	if (code) {
		reply_error(s, req, code, code == 403 ? "Forbidden" : "Unauthorized", "%s", why);
		node_report_clear(r);
		free(r);
		return;
	}
	accept_report(s, req, r, received, rtt, generated);
}

static void evaluate(struct server *s)
{
	if (s->have_verdict)
		verdict_clear(&s->verdict);
	struct agg_ctx ctx = {
	    .cs = &s->cs,
	    .nodes = s->store.entries,
	    .n_nodes = s->store.n,
	    .now_ns = util_now_realtime_ns(),
	    .now_mono_ns = util_now_mono_ns(),
	    .interval_s = s->o->interval_s,
	    .live = s->o->kubeconfig || s->o->in_cluster,
	    .kc = s->kc,
	};
	int64_t t0 = util_now_mono_ns();
	verdict_evaluate(&s->verdict, &ctx, NULL);
	s->have_verdict = true;
	/* Rendered on the first GET after this (verdict_json_cached). */
	free(s->verdict_json);
	s->verdict_json = NULL;
	s->dirty = false;
	s->eval_ns = util_now_mono_ns() - t0;
	if (s->nc && node_conditions_due(s->nc)) {
		struct nc_snapshot *snap = xcalloc(1, sizeof(*snap));
		node_conditions_snapshot(snap, &s->verdict, &s->cs, s->o->interval_s);
		node_conditions_offer(s->nc, snap);
	}
	char status[128];
	snprintf(status, sizeof(status), "STATUS=%zu nodes reporting; verdict %s", s->store.n,
		 status_name(verdict_status(&s->verdict, -1)));
	sd_notify(0, status);
}

/* The JSON verdict, rendered once per evaluation and only when asked for:
 * with thousands of nodes it is tens of megabytes. */
static void verdict_json_cached(struct server *s)
{
	if (s->verdict_json)
		return;
	json_object *o = verdict_to_json(&s->verdict);
	s->verdict_json = xstrdup(json_object_to_json_string_ext(
	    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	s->verdict_len = strlen(s->verdict_json);
	json_object_put(o);
}

/* GET /v1/verdict[?format=json|text|markdown|html] */
static void handle_verdict(struct server *s, struct server_req *req, const char *arg)
{
	if (!s->have_state) {
		reply_error(s, req, HTTP_SERVUNAVAIL, "Service Unavailable",
			    "the cluster state has not been read yet");
		return;
	}
	if (!s->have_verdict)
		evaluate(s);
	const char *format = "json";
	struct evkeyvalq q = {0};
	const char *query = req->query;
	if (query && evhttp_parse_query_str(query, &q) == 0) {
		const char *fv = evhttp_find_header(&q, "format");
		if (fv)
			format = fv;
	}
	if (streq(format, "json")) {
		verdict_json_cached(s);
		reply(req, HTTP_OK, "OK", "application/json", s->verdict_json, s->verdict_len);
	} else if (streq(format, "text") || streq(format, "markdown") || streq(format, "html")) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (f) {
			if (streq(format, "text"))
				verdict_render_text(f, &s->verdict, -1, false);
			else if (streq(format, "markdown"))
				verdict_render_markdown(f, &s->verdict, -1);
			else
				verdict_render_html(f, &s->verdict, -1, 0);
			fclose(f);
			reply(req, HTTP_OK, "OK",
			      streq(format, "html")	  ? "text/html; charset=utf-8"
			      : streq(format, "markdown") ? "text/markdown; charset=utf-8"
							  : "text/plain; charset=utf-8",
			      buf, len);
			free(buf);
		} else {
			reply_error(s, req, HTTP_INTERNAL, "Internal Server Error",
				    "out of memory");
		}
	} else {
		reply_error(s, req, HTTP_BADREQUEST, "Bad Request",
			    "format must be json, text, markdown or html");
	}
	evhttp_clear_headers(&q);
}

static json_object *node_summary(const struct node_entry *e, int64_t now)
{
	json_object *o = json_object_new_object();
	const struct node_report *r = e->report;
	int count[_STATUS_MAX] = {0};
	for (size_t i = 0; i < r->results.n; i++)
		count[r->results.items[i].status]++;
	json_object_object_add(o, "name", json_object_new_string(r->node));
	json_object_object_add(o, "hostname",
			       json_object_new_string(r->hostname ? r->hostname : ""));
	json_object_object_add(o, "agent_version",
			       json_object_new_string(r->agent_version ? r->agent_version : ""));
	int64_t age = engine_report_age_ns(e, now, util_now_mono_ns());
	json_object_object_add(o, "report_age_seconds", json_object_new_int64(age / NSEC_PER_SEC));
	json_object_object_add(o, "seq", json_object_new_uint64(r->seq));
	json_object *c = json_object_new_object();
	for (int i = 0; i < _STATUS_MAX; i++)
		json_object_object_add(c, status_name(i), json_object_new_int(count[i]));
	json_object_object_add(o, "counts", c);
	return o;
}

static void handle_nodes(struct server *s, struct server_req *req, const char *arg)
{
	int64_t now = util_now_realtime_ns();
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < s->store.n; i++)
		json_object_array_add(a, node_summary(&s->store.entries[i], now));
	json_object *o = json_object_new_object();
	json_object_object_add(o, "nodes", a);
	reply_json(req, o);
	json_object_put(o);
}

static void handle_node(struct server *s, struct server_req *req, const char *arg)
{
	char *name = evhttp_uridecode(arg, 0, NULL);
	const struct node_entry *e = name ? store_get(&s->store, name) : NULL;
	if (!e) {
		reply_error(s, req, HTTP_NOTFOUND, "Not Found", "no report from node \"%s\"",
			    name ? name : "");
		free(name);
		return;
	}
	free(name);
	json_object *o = render_node_report_json(e->report);
	json_object_object_add(o, "summary", node_summary(e, util_now_realtime_ns()));
	reply_json(req, o);
	json_object_put(o);
}

static void handle_healthz(struct server *s, struct server_req *req, const char *arg)
{
	reply(req, HTTP_OK, "OK", "text/plain", "ok\n", 3);
}

static void handle_readyz(struct server *s, struct server_req *req, const char *arg)
{
	if (!s->have_state) {
		reply(req, HTTP_SERVUNAVAIL, "Service Unavailable", "text/plain",
		      "cluster state not read yet\n", 27);
		return;
	}
	reply(req, HTTP_OK, "OK", "text/plain", "ready\n", 6);
}

static void handle_metrics(struct server *s, struct server_req *req, const char *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		reply_error(s, req, HTTP_INTERNAL, "Internal Server Error", "out of memory");
		return;
	}
	if (s->have_state && !s->have_verdict)
		evaluate(s);
	metrics_render(f, s->have_verdict ? &s->verdict : NULL, &s->store,
		       s->have_state ? &s->cs : NULL, &s->mc, util_now_realtime_ns());
	fclose(f);
	reply(req, HTTP_OK, "OK", "text/plain; version=0.0.4; charset=utf-8", buf, len);
	free(buf);
}

/* The dashboard: the HTML verdict, reloading itself every interval. */
static void handle_page(struct server *s, struct server_req *req, const char *arg)
{
	if (!s->have_state) {
		reply(req, HTTP_SERVUNAVAIL, "Service Unavailable", "text/plain",
		      "cluster state not read yet\n", 27);
		return;
	}
	if (!s->have_verdict)
		evaluate(s);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		reply_error(s, req, HTTP_INTERNAL, "Internal Server Error", "out of memory");
		return;
	}
	verdict_render_html(f, &s->verdict, -1, s->o->interval_s);
	fclose(f);
	reply(req, HTTP_OK, "OK", "text/html; charset=utf-8", buf, len);
	free(buf);
}

/* ---------- the cluster state refresher ---------- */

static struct cluster_state *load_state(struct server *s, char **ret_err)
{
	struct cluster_state *cs = xcalloc(1, sizeof(*cs));
	char err[SOURCE_ERR_LEN];
	int r = 0;
	cluster_state_init(cs);
	if (s->o->states.n) {
		for (size_t i = 0; i < s->o->states.n && r == 0; i++)
			r = source_files_load(cs, s->o->states.items[i], err, sizeof(err));
	} else {
		r = source_api_load(cs, s->kc, err, sizeof(err));
	}
	if (r < 0) {
		*ret_err = xstrdup(err);
		cluster_state_clear(cs);
		free(cs);
		return NULL;
	}
	cs->read_at_ns = util_now_realtime_ns();
	return cs;
}

static void *refresher_main(void *arg)
{
	struct server *s = arg;
	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		pthread_mutex_unlock(&s->lock);
		char *err = NULL;
		struct cluster_state *cs = load_state(s, &err);
		pthread_mutex_lock(&s->lock);
		if (cs) {
			if (s->incoming) {
				cluster_state_clear(s->incoming);
				free(s->incoming);
			}
			s->incoming = cs;
		} else {
			free(s->refresh_error);
			s->refresh_error = err;
		}
		event_active(s->state_ev, EV_READ, 0);
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += s->o->interval_s;
		while (!s->stopping &&
		       pthread_cond_timedwait(&s->cond, &s->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void on_state(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;
	pthread_mutex_lock(&s->lock);
	struct cluster_state *cs = s->incoming;
	s->incoming = NULL;
	char *err = s->refresh_error;
	s->refresh_error = NULL;
	pthread_mutex_unlock(&s->lock);
	if (err) {
		/* Keep serving the last complete state; say how old it is. */
		log_warnx("reading the cluster state failed: %s; serving the previous state, "
			  "ignoring",
			  err);
		free(err);
	}
	if (!cs)
		return;
	if (s->have_state)
		cluster_state_clear(&s->cs);
	s->cs = *cs;
	free(cs);
	if (!s->have_state)
		log_info("cluster state read from %s", s->cs.source ? s->cs.source : "?");
	s->have_state = true;
	s->dirty = true;
}

/* ---------- timers and signals ---------- */

static void on_verdict_timer(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;
	/* Ages and staleness change with time alone: recompute at least every
	 * few seconds even without new reports. */
	static int64_t last;
	int64_t now = util_now_mono_ns();
	/* Keep the loop for ingest: evaluating may take at most a tenth of the
	 * time (large clusters take seconds to evaluate). */
	int64_t gap = s->eval_ns * 10 > NSEC_PER_SEC ? s->eval_ns * 10 : NSEC_PER_SEC;
	if (s->have_state && now - last >= gap && (s->dirty || now - last > 5 * NSEC_PER_SEC)) {
		evaluate(s);
		last = now;
	}
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	sd_notify(0, "WATCHDOG=1");
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct server *s = arg;
	log_info("signal %d: stopping", (int)sig);
	sd_notify(0, "STOPPING=1");
	event_base_loopexit(s->base, NULL);
}

/* ---------- TLS ---------- */

/* ---------- connections ---------- */

static void pause_listener(struct server *s, bool pause)
{
	if (!s->listener || s->paused == pause)
		return;
	if (pause ? evconnlistener_disable(s->listener) : evconnlistener_enable(s->listener))
		return;
	s->paused = pause;
	if (pause)
		log_warnx(
		    "%zu connections open (at most %zu): not accepting more for now, ignoring",
		    s->n_conns, s->max_conns);
	else
		log_info("accepting connections again (%zu open)", s->n_conns);
}

/* evhttp asks for each accepted connection's bufferevent here: the only hook
 * evhttp 2.1 has at accept. A reference of ours keeps it valid until the sweep
 * sees that evhttp has freed it. */
static struct bufferevent *on_connection(struct event_base *base, void *arg)
{
	struct server *s = arg;
	struct bufferevent *bev = s->ssl ? bufferevent_openssl_socket_new(base, -1, SSL_new(s->ssl),
									  BUFFEREVENT_SSL_ACCEPTING,
									  BEV_OPT_CLOSE_ON_FREE)
					 : bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!bev)
		return NULL;
	bufferevent_incref(bev);
	util_grow((void **)&s->conns, &s->cap_conns, s->n_conns + 1, sizeof(*s->conns));
	s->conns[s->n_conns++] = (struct conn){.bev = bev, .accepted_ns = util_now_mono_ns()};
	if (s->n_conns >= s->max_conns)
		pause_listener(s, true);
	return bev;
}

/* Forget the connections evhttp has freed; shut down (evhttp then sees EOF
 * and frees them) those that are too old and, when nearly out of
 * connections, the oldest ones until a quarter is free again: a request takes
 * milliseconds, so the oldest are idle or slow clients, and the clients
 * waiting in the listen queue get in within a sweep or two. */
static void on_sweep(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;
	int64_t now = util_now_mono_ns();
	size_t w = 0, evicted = 0;
	for (size_t i = 0; i < s->n_conns; i++) {
		bufferevent_event_cb eventcb = NULL;
		bufferevent_getcb(s->conns[i].bev, NULL, NULL, &eventcb, NULL);
		if (eventcb) /* bufferevent_free() clears the callbacks */
			s->conns[w++] = s->conns[i];
		else
			bufferevent_decref(s->conns[i].bev);
	}
	s->n_conns = w;
	size_t excess = s->n_conns >= s->max_conns / 10 * 9 ? s->n_conns - s->max_conns / 4 * 3 : 0;
	for (size_t i = 0; i < s->n_conns; i++) { /* oldest first */
		struct conn *c = &s->conns[i];
		evutil_socket_t sock = bufferevent_getfd(c->bev);
		if (c->shut || sock < 0)
			continue;
		bool writing = evbuffer_get_length(bufferevent_get_output(c->bev)) > 0;
		bool too_old =
		    now - c->accepted_ns > (writing ? CONN_MAX_WRITE_NS : CONN_MAX_AGE_NS);
		if (!too_old && (writing || !excess))
			continue;
		/* Bytes waiting unread: this server is behind, not the client. */
		int unread = 0;
		if (ioctl(sock, FIONREAD, &unread) == 0 && unread > 0)
			continue;
		shutdown(sock, SHUT_RDWR);
		c->shut = true;
		evicted++;
		if (excess)
			excess--;
	}
	s->evicted += evicted;
	if (evicted && now - s->evicted_logged_ns > 60 * NSEC_PER_SEC) {
		log_warnx(
		    "closed %zu connection%s: older than %llds, or the oldest while %zu of %zu "
		    "were open (slow or stalled clients; %llu so far), ignoring",
		    evicted, evicted == 1 ? "" : "s", (long long)(CONN_MAX_AGE_NS / NSEC_PER_SEC),
		    s->n_conns, s->max_conns, (unsigned long long)s->evicted);
		s->evicted_logged_ns = now;
	}
	if (s->n_conns < s->max_conns / 10 * 9)
		pause_listener(s, false);
}

/* accept() failed (EMFILE, ENFILE, ENOMEM): pause instead of retrying in a
 * busy loop; the sweep resumes. */
static void on_accept_error(struct evconnlistener *l, void *arg)
{
	struct server *s = arg;
	int e = EVUTIL_SOCKET_ERROR();
	if (s->paused)
		return;
	log_warnx("accept: %s (%zu connections open): pausing, ignoring", strerror(e), s->n_conns);
	if (evconnlistener_disable(l) == 0)
		s->paused = true;
}

/* Room for CONN_MAX connections if the hard limit allows (systemd's default
 * soft limit, 1024, is too few for thousands of agents). */
static size_t max_connections(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1024 - CONN_FD_RESERVE;
	rlim_t want = CONN_MAX + CONN_FD_RESERVE;
	if (rl.rlim_cur < want && rl.rlim_cur != RLIM_INFINITY) {
		rl.rlim_cur =
		    rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	rlim_t cur = rl.rlim_cur == RLIM_INFINITY ? want : rl.rlim_cur;
	if (cur <= 2 * CONN_FD_RESERVE)
		return CONN_FD_RESERVE;
	return cur - CONN_FD_RESERVE < CONN_MAX ? (size_t)(cur - CONN_FD_RESERVE) : CONN_MAX;
}

/* Refuse secrets that others can read: a leaked token lets anyone report. */
static void check_secret_file(const char *what, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		fatal("%s %s", what, path);
	if (st.st_mode & S_IROTH)
		fatalx("%s %s is readable by others (mode %04o); chmod o-r it", what, path,
		       (unsigned)(st.st_mode & 07777));
}

static SSL_CTX *tls_setup(const struct server_opts *o)
{
	check_secret_file("--tls-key", o->tls_key);
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx)
		fatalx("TLS: cannot create a context");
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	if (SSL_CTX_use_certificate_chain_file(ctx, o->tls_cert) != 1)
		fatalx("--tls-cert %s: %s", o->tls_cert, ERR_reason_error_string(ERR_get_error()));
	if (SSL_CTX_use_PrivateKey_file(ctx, o->tls_key, SSL_FILETYPE_PEM) != 1)
		fatalx("--tls-key %s: %s", o->tls_key, ERR_reason_error_string(ERR_get_error()));
	if (SSL_CTX_check_private_key(ctx) != 1)
		fatalx("--tls-key %s does not match --tls-cert %s", o->tls_key, o->tls_cert);
	return ctx;
}

static char *read_token(const char *path)
{
	check_secret_file("--token-file", path);
	char *buf;
	int r = util_read_file(path, TOKEN_MAX, &buf, NULL);
	if (r < 0)
		fatalx("--token-file %s: %s", path, strerror(-r));
	strstrip(buf);
	if (!*buf)
		fatalx("--token-file %s is empty", path);
	return buf;
}

static void split_listen(const char *listen, char **ret_host, uint16_t *ret_port)
{
	const char *colon = strrchr(listen, ':');
	int64_t port;
	if (!colon || util_parse_i64(colon + 1, &port) < 0 || port < 0 || port > 65535)
		fatalx("--listen %s: expected ADDR:PORT", listen);
	size_t hl = (size_t)(colon - listen);
	if (hl >= 2 && listen[0] == '[' && listen[hl - 1] == ']')
		*ret_host = xstrndup(listen + 1, hl - 2);
	else
		*ret_host = xstrndup(listen, hl);
	if (!**ret_host) {
		free(*ret_host);
		*ret_host = xstrdup("0.0.0.0");
	}
	*ret_port = (uint16_t)port;
}

static void server_init(struct server *s, const struct server_opts *o)
{
	*s = (struct server){.o = o};
	store_init(&s->store);
	cluster_state_init(&s->cs);
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	/* The refresher waits on it for an interval: a wall-clock step must not
	 * make that wait an hour (or nothing). */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (o->auth == AUTH_TOKEN_FILE)
		s->token = read_token(o->token_file);
}

/* What server_init() and the requests allocated. */
static void server_fini(struct server *s)
{
	for (struct review_job *lists[2] = {s->queue, s->done}, **l = lists; l < lists + 2; l++)
		while (*l) {
			struct review_job *j = *l;
			*l = j->next;
			free_job(j);
		}
	for (size_t i = 0; i < s->cache_slots; i++)
		token_identity_clear(&s->cache[i].id);
	free(s->cache);
	if (s->incoming) {
		cluster_state_clear(s->incoming);
		free(s->incoming);
	}
	free(s->refresh_error);
	if (s->have_verdict)
		verdict_clear(&s->verdict);
	free(s->verdict_json);
	store_clear(&s->store);
	cluster_state_clear(&s->cs);
	free(s->token);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
}

struct server *server_new(const struct server_opts *o, struct cluster_state *cs)
{
	struct server *s = xmalloc(sizeof(*s));
	server_init(s, o);
	if (cs) {
		cluster_state_clear(&s->cs);
		s->cs = *cs;
		cluster_state_init(cs);
		s->have_state = true;
	}
	return s;
}

void server_free(struct server *s)
{
	if (!s)
		return;
	server_fini(s);
	free(s);
}

int server_run(const struct server_opts *o)
{
	struct server s;
	char err[SOURCE_ERR_LEN];
	signal(SIGPIPE, SIG_IGN);
	evthread_use_pthreads();
	server_init(&s, o);

	if (o->auth == AUTH_NONE)
		log_warnx("WARNING: --insecure-no-auth: anyone who can reach this port can submit "
			  "node reports");
	if (o->tls_cert)
		s.ssl = tls_setup(o);
	else
		log_warnx("serving plain HTTP (no --tls-cert): use only on loopback or in tests");
	if (!o->states.n) {
		int r = o->in_cluster
			    ? kube_client_new_in_cluster(&s.kc, err, sizeof(err))
			    : kube_client_new_kubeconfig(o->kubeconfig, &s.kc, err, sizeof(err));
		if (r < 0)
			fatalx("%s", err);
	}

	s.base = event_base_new();
	s.http = evhttp_new(s.base);
	if (!s.base || !s.http)
		fatalx("cannot create the event loop");
	evhttp_set_max_body_size(s.http, WIRE_MAX_MESSAGE);
	evhttp_set_max_headers_size(s.http, MAX_HEADERS_SIZE);
	evhttp_set_timeout(s.http, READ_TIMEOUT_S);
	evhttp_set_allowed_methods(s.http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD);
	evhttp_set_gencb(s.http, on_request, &s);
	evhttp_set_bevcb(s.http, on_connection, &s);
	s.max_conns = max_connections();

	_cleanup_free_ char *host = NULL;
	uint16_t port;
	split_listen(o->listen, &host, &port);
	struct evhttp_bound_socket *bound = evhttp_bind_socket_with_handle(s.http, host, port);
	if (!bound)
		fatal("--listen %s", o->listen);
	s.listener = evhttp_bound_socket_get_listener(bound);
	evconnlistener_set_error_cb(s.listener, on_accept_error);
	s.sweep = event_new(s.base, -1, EV_PERSIST, on_sweep, &s);
	struct timeval sweep_tv = {0, CONN_SWEEP_MS * 1000};
	event_add(s.sweep, &sweep_tv);
	/* Tests and scripts bind port 0 and read the port from here. */
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (getsockname(evhttp_bound_socket_get_fd(bound), (struct sockaddr *)&ss, &sl) == 0) {
		uint16_t p = ss.ss_family == AF_INET6
				 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
				 : ntohs(((struct sockaddr_in *)&ss)->sin_port);
		log_info("listening on %s:%u (%s)", host, (unsigned)p, s.ssl ? "https" : "http");
	}

	s.sig_term = evsignal_new(s.base, SIGTERM, on_signal, &s);
	s.sig_int = evsignal_new(s.base, SIGINT, on_signal, &s);
	evsignal_add(s.sig_term, NULL);
	evsignal_add(s.sig_int, NULL);
	s.state_ev = event_new(s.base, -1, 0, on_state, &s);
	s.verdict_timer = event_new(s.base, -1, EV_PERSIST, on_verdict_timer, &s);
	struct timeval one = {1, 0};
	event_add(s.verdict_timer, &one);
	uint64_t wd_usec = 0;
	if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
		s.watchdog = event_new(s.base, -1, EV_PERSIST, on_watchdog, &s);
		struct timeval half = {(time_t)(wd_usec / 2 / 1000000),
				       (suseconds_t)(wd_usec / 2 % 1000000)};
		event_add(s.watchdog, &half);
	}
	if (pthread_create(&s.refresher, NULL, refresher_main, &s) != 0)
		fatalx("cannot start the refresher thread");
	if (o->auth == AUTH_TOKENREVIEW) {
		/* Its own client: the refresher's is busy listing for seconds at a time. */
		int r = o->in_cluster ? kube_client_new_in_cluster(&s.review_kc, err, sizeof(err))
				      : kube_client_new_kubeconfig(o->kubeconfig, &s.review_kc, err,
								   sizeof(err));
		if (r < 0)
			fatalx("%s", err);
		s.review_ev = event_new(s.base, -1, 0, on_reviews_done, &s);
		if (pthread_create(&s.reviewer, NULL, reviewer_main, &s) != 0)
			fatalx("cannot start the token reviewer thread");
		s.have_reviewer = true;
	}
	if (o->node_conditions) {
		struct kube_client *kc;
		int r = o->in_cluster
			    ? kube_client_new_in_cluster(&kc, err, sizeof(err))
			    : kube_client_new_kubeconfig(o->kubeconfig, &kc, err, sizeof(err));
		if (r < 0 || node_conditions_new(kc, o->interval_s, o->in_cluster, &s.nc, err,
						 sizeof(err)) < 0)
			fatalx("%s", err);
		if (node_conditions_start(s.nc) < 0)
			fatalx("cannot start the node conditions thread");
	}
	/* Sockets are bound: systemd may start dependants now. */
	sd_notify(0, "READY=1\nSTATUS=listening; reading the cluster state");

	event_base_dispatch(s.base);

	pthread_mutex_lock(&s.lock);
	s.stopping = true;
	pthread_cond_broadcast(&s.cond);
	pthread_mutex_unlock(&s.lock);
	pthread_join(s.refresher, NULL);
	if (s.have_reviewer)
		pthread_join(s.reviewer, NULL);
	node_conditions_free(s.nc);
	if (s.review_ev)
		event_free(s.review_ev);
	kube_client_free(s.review_kc);
	event_free(s.sig_term);
	event_free(s.sig_int);
	event_free(s.state_ev);
	event_free(s.verdict_timer);
	if (s.watchdog)
		event_free(s.watchdog);
	event_free(s.sweep);
	evhttp_free(s.http);
	for (size_t i = 0; i < s.n_conns; i++)
		bufferevent_decref(s.conns[i].bev);
	free(s.conns);
	event_base_free(s.base);
	if (s.ssl)
		SSL_CTX_free(s.ssl);
	kube_client_free(s.kc);
	server_fini(&s);
	return 0;
}
