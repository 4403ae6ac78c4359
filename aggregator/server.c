/*
 * The aggregator's server. One libevent loop serves HTTP(S): agents POST
 * msgpack reports, operators GET the verdict. The loop only ingests and
 * answers; everything slow runs on threads:
 *
 * - the refresher reads the cluster state (the API or files), so that a slow
 *   API server never blocks ingest, and derives from each complete state what
 *   the loop needs of it (the probe targets reply per node, pods' nodes);
 * - the evaluator computes the verdict from a snapshot — references to the
 *   stored reports, which are immutable (store.h), and to the latest complete
 *   state — and renders its JSON once, gzip-compressed: a GET then only adds a
 *   reference to ready bytes. It evaluates at most once a second, only when
 *   something changed (or every few seconds: ages change with time alone), and
 *   at most a tenth of the time;
 * - the reviewer asks the API about bearer tokens (--tokenreview).
 *
 * Per report the loop scans the message (wirescan.h: no decoding), checks the
 * credential, stores the report as references to interned pieces and answers
 * with the node's probe targets, rendered once per cluster state.
 *
 * The loop serves operators before agents: a connection that has posted a
 * report drops to a lower event priority, and the loop polls for new events
 * every few milliseconds, so that a GET does not wait behind a thousand
 * agents' reports.
 *
 * The files: server.c (responses, routes, report ingest, the cluster state
 * refresher, timers, connections), server_auth.c (credentials, the token
 * reviewer), server_eval.c (the evaluator and renderer threads),
 * server_verdict.c (GET /v1/verdict); server_internal.h holds what they share.
 */
#include "server.h"
#include "server_internal.h"

#include <errno.h>
#include <stddef.h>
#include <sys/queue.h>
#include <fcntl.h>
#include <malloc.h>
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
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <systemd/sd-daemon.h>

#include "canary_result.h"
#include "http_head.h"
#include "json_query.h"
#include "log.h"
#include "metrics.h"
#include "node_conditions.h"
#include "render_html.h"
#include "render_json.h"
#include "source.h"
#include "store.h"
#include "targets.h"
#include "threads.h"
#include "tokenreview.h"
#include "wire.h"
#include "wirescan.h"

#define MAX_HEADERS_SIZE (16u << 10)
#define READ_TIMEOUT_S	 10
#define TOKEN_MAX	 (16u << 10)
#define RETRY_AFTER_S	 "2" /* a 503 of the in-flight body budget or the reviewer */
/* An agent resends a report at most until its next cycle (interval <= 1 h). */
/* Connections (docs/robustness.md): evhttp's timeout is an idle timeout, so
 * a client sending a byte every few seconds would hold a connection forever. */
#define CONN_MAX_AGE_NS	  (3 * READ_TIMEOUT_S * NSEC_PER_SEC) /* unless answering */
#define CONN_MAX_WRITE_NS (600 * NSEC_PER_SEC)		      /* a slow reader of a large answer */
#define CONN_SWEEP_MS	  250
#define CONN_MAX	  8192
#define CONN_FD_RESERVE	  64 /* files the server opens besides connections */
#define REPORT_AGE_MAX_NS (2 * 3600 * NSEC_PER_SEC)
#define TLS12_CIPHERS                                                                              \
	"ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:" \
	"ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

/* Event priorities: operators' requests, timers and hand-overs before the
 * agents' reports. A new connection starts at PRIO_NORMAL. */
#define PRIO_HIGH	  0
#define PRIO_NORMAL	  1
#define PRIO_AGENT	  2
#define N_PRIOS		  3
#define DISPATCH_SLICE_US 5000 /* poll for new events at least this often */
/* Nodes whose reports are held: twice the largest cluster Kubernetes
 * supports. A bound, so that a client with the shared token (or anyone under
 * --insecure-no-auth) cannot make memory and every evaluation grow without
 * end by inventing node names. HVREADY_MAX_NODES overrides it. */
#define MAX_NODES_DEFAULT 10000
#define MMAP_THRESHOLD	  (128 << 10)

struct conn {
	struct bufferevent *bev; /* with a reference of ours */
	struct hconn *hc;	 /* server_conn.c */
	int64_t accepted_ns;	 /* monotonic */
	bool shut;
};

/* ---------- responses ---------- */

static char *html_csp;
static pthread_once_t html_csp_once = PTHREAD_ONCE_INIT;

/* The dashboard needs no script, no image, no font, no form: nothing but its
 * one <style> element, allowed by its SHA-256 (render_html.c keeps all style
 * there, none in attributes), so that an injected element or attribute is
 * inert even if escaping ever failed. <meta http-equiv="refresh"> is not
 * governed by CSP; in-page links (#id) are navigation, not fetches. */
static void make_html_csp(void)
{
	const char *css = verdict_html_css();
	unsigned char md[SHA256_DIGEST_LENGTH];
	char b64[4 * ((SHA256_DIGEST_LENGTH + 2) / 3) + 1];
	SHA256((const unsigned char *)css, strlen(css), md);
	EVP_EncodeBlock((unsigned char *)b64, md, sizeof(md));
	html_csp = xasprintf("default-src 'none'; style-src 'sha256-%s'; base-uri 'none'; "
			     "form-action 'none'; frame-ancestors 'none'",
			     b64);
}

void server_content_headers(struct evkeyvalq *h, const char *type)
{
	evhttp_add_header(h, "Content-Type", type);
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	if (strncmp(type, "text/html", 9) == 0) {
		pthread_once(&html_csp_once, make_html_csp);
		evhttp_add_header(h, "Content-Security-Policy", html_csp);
		evhttp_add_header(h, "X-Frame-Options", "DENY");
	}
}

void server_reply(struct evhttp_request *req, int code, const char *reason, const char *type,
		  const char *body, size_t len)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	server_content_headers(h, type);
	evhttp_add_header(h, "Cache-Control", "no-store");
	struct evbuffer *b = evbuffer_new();
	if (body)
		evbuffer_add(b, body, len);
	evhttp_send_reply(req, code, reason, b);
	evbuffer_free(b);
}

void server_reply_error(struct server *s, struct evhttp_request *req, int code, const char *reason,
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
	if (code == 401) /* RFC 9110 §11.6.1 */
		evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
				  "Bearer realm=\"hvready\"");
	server_reply(req, code, reason, "application/json", str, strlen(str));
	json_object_put(o);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	if (code >= 400 && uri && streq(evhttp_uri_get_path(uri), "/v1/reports")) {
		enum reject_reason r = code == 401   ? REJECT_UNAUTHORIZED
				       : code == 403 ? REJECT_FORBIDDEN
				       : code == 400 ? REJECT_BAD_REPORT
				       : code == 415 ? REJECT_MEDIA_TYPE
				       : code == 413 ? REJECT_TOO_LARGE
						     : REJECT_OTHER;
		s->mc.rejected[r]++;
	}
}

static void reply_json(struct evhttp_request *req, json_object *o)
{
	const char *str = json_object_to_json_string_ext(
	    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	server_reply(req, HTTP_OK, "OK", "application/json", str, strlen(str));
}

/* ---------- routes ---------- */

static void handle_report(struct server *s, struct evhttp_request *req, const char *arg);
static void handle_nodes(struct server *s, struct evhttp_request *req, const char *arg);
static void handle_node(struct server *s, struct evhttp_request *req, const char *arg);
static void handle_healthz(struct server *s, struct evhttp_request *req, const char *arg);
static void handle_readyz(struct server *s, struct evhttp_request *req, const char *arg);
static void handle_metrics(struct server *s, struct evhttp_request *req, const char *arg);
static void handle_page(struct server *s, struct evhttp_request *req, const char *arg);

struct route {
	enum evhttp_cmd_type method;
	const char *path; /* exact, or a prefix when it ends with '/' */
	size_t max_body;  /* 0: none (refused at the headers, server_conn.c) */
	bool auth;
	void (*handler)(struct server *s, struct evhttp_request *req, const char *arg);
};

/* Every route, its method, body limit and whether it needs a credential. No
 * route that changes state is served without auth (unless --insecure-no-auth). */
static const struct route routes[] = {
    {EVHTTP_REQ_POST, "/v1/reports", WIRE_MAX_MESSAGE, true, handle_report},
    {EVHTTP_REQ_GET, "/v1/verdict", 0, false, server_verdict_handle},
    {EVHTTP_REQ_GET, "/v1/nodes", 0, false, handle_nodes},
    {EVHTTP_REQ_GET, "/v1/nodes/", 0, false, handle_node},
    {EVHTTP_REQ_GET, "/healthz", 0, false, handle_healthz},
    {EVHTTP_REQ_GET, "/readyz", 0, false, handle_readyz},
    {EVHTTP_REQ_GET, "/metrics", 0, false, handle_metrics},
    {EVHTTP_REQ_GET, "/", 0, false, handle_page},
};

/* RFC 9110 §5.6.2 tchar */
static bool is_token(const char *k)
{
	if (!*k)
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || strchr("!#$%&'*+-.^_`|~", *k)))
			return false;
	return true;
}

/* Headers that two parsers can read differently (request smuggling behind
 * a proxy, RFC 9112 §6.1, §6.3, §11.2): evhttp takes the first
 * Content-Length, keeps "Transfer-Encoding " (a space before the colon) as
 * another header, and ignores a Transfer-Encoding other than exactly
 * "chunked", where a proxy may do otherwise. NULL if none; else why. */
static const char *ambiguous_framing(struct evhttp_request *req)
{
	unsigned n_cl = 0, n_te = 0;
	const char *te = NULL;
	struct evkeyval *kv;
	TAILQ_FOREACH(kv, evhttp_request_get_input_headers(req), next)
	{
		if (!is_token(kv->key))
			return "a header name that is not a token (whitespace before the colon?)";
		if (strcasecmp(kv->key, "Content-Length") == 0)
			n_cl++;
		else if (strcasecmp(kv->key, "Transfer-Encoding") == 0) {
			n_te++;
			te = kv->value;
		}
	}
	if (n_cl > 1)
		return "more than one Content-Length";
	if (n_te > 1)
		return "more than one Transfer-Encoding";
	if (n_te && n_cl)
		return "both Content-Length and Transfer-Encoding";
	if (te && strcasecmp(te, "chunked") != 0)
		return "a Transfer-Encoding other than chunked";
	return NULL;
}

/* The route of method on path: NULL if none (*path_known: another method's).
 * *rest: what follows a prefix route's path. */
static const struct route *find_route(enum evhttp_cmd_type method, const char *path,
				      const char **ret_rest, bool *path_known)
{
	*path_known = false;
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
		*path_known = true;
		if (method != r->method &&
		    !(method == EVHTTP_REQ_HEAD && r->method == EVHTTP_REQ_GET))
			continue;
		*ret_rest = rest;
		return r;
	}
	return NULL;
}

void server_route_lookup(const char *method, const char *path, struct server_route_info *ri)
{
	enum evhttp_cmd_type m = streq(method, "GET")	 ? EVHTTP_REQ_GET
				 : streq(method, "HEAD") ? EVHTTP_REQ_HEAD
				 : streq(method, "POST") ? EVHTTP_REQ_POST
							 : 0;
	const char *rest;
	const struct route *r = m ? find_route(m, path, &rest, &ri->path_known) : NULL;
	if (!m) {
		bool known;
		find_route(EVHTTP_REQ_GET, path, &rest, &known);
		ri->path_known = known;
	}
	ri->found = r != NULL;
	ri->report = r && r->auth;
	ri->max_body = r ? r->max_body : 0;
}

static const char *reason_of(int code)
{
	switch (code) {
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 411:
		return "Length Required";
	case 413:
		return "Payload Too Large";
	case 431:
		return "Request Header Fields Too Large";
	case 503:
		return "Service Unavailable";
	default:
		return "Error";
	}
}

/* A request server_conn.c refused at its headers (HTTP_HEAD_REFUSED: "CODE
 * why"), handed on without its body: answered, and the connection closed. */
static bool answer_refused(struct server *s, struct evhttp_request *req, const char *path)
{
	const char *v =
	    evhttp_find_header(evhttp_request_get_input_headers(req), HTTP_HEAD_REFUSED);
	if (!v)
		return false;
	char *end;
	long code = strtol(v, &end, 10);
	if (code < 400 || code > 599)
		code = 400;
	while (*end == ' ')
		end++;
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	evhttp_add_header(out, "Connection", "close");
	if (code == 503)
		evhttp_add_header(out, "Retry-After", RETRY_AFTER_S);
	if (streq(path, "/v1/reports"))
		s->mc.reports_received++;
	server_reply_error(s, req, (int)code, reason_of((int)code), "%s", end);
	return true;
}

static void dispatch(struct evhttp_request *req, void *arg)
{
	struct server *s = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	if (!path)
		path = "/";
	if (answer_refused(s, req, path))
		return;
	const char *ambiguous = ambiguous_framing(req);
	if (ambiguous) {
		/* Closed after the answer: whatever follows the body as evhttp
		 * framed it is not read as another request. */
		evhttp_add_header(evhttp_request_get_output_headers(req), "Connection", "close");
		server_reply_error(s, req, HTTP_BADREQUEST, "Bad Request", "ambiguous framing: %s",
				   ambiguous);
		return;
	}
	enum evhttp_cmd_type method = evhttp_request_get_command(req);
	bool path_known;
	const char *rest;
	const struct route *r = find_route(method, path, &rest, &path_known);
	if (r) {
		size_t body = evbuffer_get_length(evhttp_request_get_input_buffer(req));
		if (body > r->max_body) {
			server_reply_error(s, req, 413, "Payload Too Large",
					   "body of %zu bytes (at most %zu)", body, r->max_body);
			return;
		}
		/* --read-auth: answered or queued for a review when it says no. */
		if (!r->auth && !server_auth_read(s, req, path, r->handler, rest))
			return;
		r->handler(s, req, rest);
		return;
	}
	if (path_known)
		server_reply_error(s, req, 405, "Method Not Allowed", "method not allowed on %s",
				   path);
	else
		server_reply_error(s, req, HTTP_NOTFOUND, "Not Found", "no such path: %s", path);
}

static bool content_type_is(const char *ct, const char *want, const char *alt)
{
	if (!ct)
		return false;
	size_t n = strcspn(ct, "; ");
	return (strlen(want) == n && strncasecmp(ct, want, n) == 0) ||
	       (alt && strlen(alt) == n && strncasecmp(ct, alt, n) == 0);
}

/* ---------- the probe targets reply ---------- */

static int node_targets_cmp(const void *a, const void *b)
{
	return strcmp(((const struct node_targets *)a)->node,
		      ((const struct node_targets *)b)->node);
}

/* The body of a POST's answer: the node's probe targets as JSON. */
static const char *targets_reply(const struct server *s, const char *node, size_t *ret_len)
{
	const struct state *st = s->st;
	if (!st) {
		*ret_len = strlen(s->no_targets);
		return s->no_targets;
	}
	struct node_targets k = {.node = (char *)node};
	const struct node_targets *t =
	    st->n_nodes ? bsearch(&k, st->nodes, st->n_nodes, sizeof(k), node_targets_cmp) : NULL;
	*ret_len = t ? t->len : st->targets_len;
	return t ? t->json : st->targets;
}

static char *targets_json(const struct probe_targets *t, size_t *ret_len)
{
	json_object *o = probe_targets_to_json(t);
	size_t n;
	const char *str = json_object_to_json_string_length(
	    o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	char *json = xstrndup(str, n);
	json_object_put(o);
	if (ret_len)
		*ret_len = n;
	return json;
}

/* ---------- reports ---------- */

/* The request headers a report needs, found in one pass over the list (the
 * first of each, as evhttp_find_header would): at 20,000 reports a second,
 * five lookups of a case-insensitive linear search were a few % of the loop. */
struct report_headers {
	const char *authorization, *content_type, *age_ns, *rtt_ns, *node;
};

static void report_headers(struct evhttp_request *req, struct report_headers *h)
{
	static const struct {
		const char *name;
		size_t off;
	} wanted[] = {
	    {"Authorization", offsetof(struct report_headers, authorization)},
	    {"Content-Type", offsetof(struct report_headers, content_type)},
	    {"Hvready-Report-Age-Ns", offsetof(struct report_headers, age_ns)},
	    {"Hvready-Last-Rtt-Ns", offsetof(struct report_headers, rtt_ns)},
	    {HTTP_HEAD_NODE, offsetof(struct report_headers, node)},
	};
	*h = (struct report_headers){0};
	struct evkeyval *kv;
	TAILQ_FOREACH(kv, evhttp_request_get_input_headers(req), next)
	for (size_t i = 0; i < ELEMENTSOF(wanted); i++) {
		const char **slot = (const char **)((char *)h + wanted[i].off);
		if (!*slot && strcasecmp(kv->key, wanted[i].name) == 0)
			*slot = kv->value;
	}
}

/* A connection that posts reports is an agent's: it waits behind operators. */
static void agent_connection(struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	if (bev && bufferevent_get_priority(bev) != PRIO_AGENT)
		bufferevent_priority_set(bev, PRIO_AGENT);
}

/* Store an authorised report and answer with the node's probe targets. */
void server_accept_report(struct server *s, struct evhttp_request *req, struct store_rec *rec)
{
	if (s->store.n >= s->max_nodes && !store_get(&s->store, rec->report.node)) {
		server_reply_error(
		    s, req, HTTP_SERVUNAVAIL, "Service Unavailable",
		    "already holding the reports of %zu %s (HVREADY_MAX_NODES): none "
		    "taken from a new node",
		    s->max_nodes, plural((int64_t)s->max_nodes, "node", "nodes"));
		store_rec_unref(&s->store, rec);
		return;
	}
	/* A byte budget too: a credential that may name new nodes (the shared
	 * token) must not grow memory past the limit with large invented reports.
	 * The record and its pieces are counted already (store_rec_new). */
	size_t stored = s->store.piece_bytes + s->store.rec_bytes;
	size_t budget = s->o->max_report_bytes ? s->o->max_report_bytes : SERVER_MAX_REPORT_BYTES;
	if (stored > budget && !store_get(&s->store, rec->report.node)) {
		int64_t now = util_now_mono_ns();
		if (!s->budget_logged_ns || now - s->budget_logged_ns > 60 * NSEC_PER_SEC) {
			s->budget_logged_ns = now;
			log_warnx("stored reports take %zu bytes, over --max-report-bytes %zu: "
				  "refusing reports from new nodes (node %s)",
				  stored, budget, rec->report.node);
		}
		server_reply_error(s, req, HTTP_SERVUNAVAIL, "Service Unavailable",
				   "stored reports are over --max-report-bytes (%zu bytes): none "
				   "taken from a new node",
				   budget);
		store_rec_unref(&s->store, rec);
		return;
	}
	size_t len;
	const char *targets = targets_reply(s, rec->report.node, &len);
	/* The one reply sent 20,000 times a second: no Cache-Control (an answer
	 * to a POST is not stored by caches unless it says so), and the body
	 * written straight into the request's own buffer. */
	server_content_headers(evhttp_request_get_output_headers(req), "application/json");
	evbuffer_add(evhttp_request_get_output_buffer(req), targets, len);
	if (store_put_rec(&s->store, rec))
		s->dirty = true;
	agent_connection(req);
	evhttp_send_reply(req, HTTP_OK, "OK", NULL);
}

/* A request whose connection is going away is not answered any more. One
 * that libevent has already detached from the connection (it does so with a
 * request the server has not finished, when the client goes away) is ours to
 * free; one still attached is freed by libevent right after. */
static void forget_request(struct evhttp_request **req)
{
	if (*req && !evhttp_request_get_connection(*req))
		evhttp_request_free(*req);
	*req = NULL;
}

static void forget_job(struct worker_job *wj, void *evcon)
{
	struct request_job *j = worker_job_of(wj, struct request_job, wj);
	if (j->evcon == evcon)
		forget_request(&j->req);
}

void server_on_conn_close(struct evhttp_connection *evcon, void *arg)
{
	struct server *s = arg;
	/* The client went away while its token was being reviewed, while it
	 * waited for the first verdict or a rendering, or while the verdict
	 * streamed. */
	worker_each(&s->reviewer, forget_job, evcon);
	worker_each(&s->renderer, forget_job, evcon);
	for (struct parked *p = s->parked; p; p = p->next)
		if (p->evcon == evcon)
			forget_request(&p->req);
	for (struct stream *st = s->streams, *next; st; st = next) {
		next = st->next;
		if (st->evcon == evcon) {
			forget_request(&st->req);
			server_verdict_stream_free(s, st);
		}
	}
}

/* How long before sending the agent generated the report (its monotonic
 * clock): a report resent after an outage is as old as its evidence. */
static int64_t report_age(const char *h)
{
	int64_t age;
	if (!h || util_parse_i64(h, &age) < 0 || age < 0)
		return 0;
	return age > REPORT_AGE_MAX_NS ? REPORT_AGE_MAX_NS : age;
}

static void handle_report(struct server *s, struct evhttp_request *req, const char *arg)
{
	const char *why = NULL;
	s->mc.reports_received++;
	struct report_headers h;
	report_headers(req, &h);
	const char *token = server_auth_bearer_of(h.authorization);
	/* Credentials first: an unauthenticated client learns nothing else. */
	if (s->o->auth != AUTH_NONE && !token) {
		server_reply_error(s, req, 401, "Unauthorized", "missing bearer token");
		return;
	}
	if (!content_type_is(h.content_type, "application/msgpack", "application/x-msgpack")) {
		server_reply_error(s, req, 415, "Unsupported Media Type",
				   "reports are application/msgpack (docs/protocol.md)");
		return;
	}
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in);
	const uint8_t *buf = evbuffer_pullup(in, -1);
	if (wirescan_report(buf, len, &s->store.known, &s->scan) < 0) {
		/* Rejections are rare: the decoder says why, in its words. */
		char err[WIRE_ERR_LEN];
		struct node_report r;
		if (wire_decode_node_report(buf, len, &r, err, sizeof(err)) == 0) {
			node_report_clear(&r);
			snprintf(err, sizeof(err), "not a node report this aggregator can store");
			log_warnx("a report the decoder accepts failed the scan, ignoring");
		}
		server_reply_error(s, req, HTTP_BADREQUEST, "Bad Request", "bad report: %s", err);
		return;
	}
	int64_t rtt = 0;
	if (h.rtt_ns && (util_parse_i64(h.rtt_ns, &rtt) < 0 || rtt < 0 || rtt > 60 * NSEC_PER_SEC))
		rtt = 0;
	struct store_rec *rec =
	    store_rec_new(&s->store, buf, &s->scan, util_now_realtime_ns(), rtt);
	rec->generated_mono_ns = util_now_mono_ns() - rtt / 2 - report_age(h.age_ns);
	/* The credential was bound at the headers to the node Hvready-Node
	 * names (server_auth_headers): the report must be that node's. */
	if (h.node && !streq(h.node, rec->report.node)) {
		server_reply_error(s, req, HTTP_BADREQUEST, "Bad Request",
				   "the report is for node %s, its " HTTP_HEAD_NODE
				   " header says %s",
				   rec->report.node, h.node);
		store_rec_unref(&s->store, rec);
		return;
	}
	if (s->o->auth == AUTH_TOKENREVIEW) {
		char key[65], whybuf[256];
		tokenreview_key(token, key);
		struct token_cache_entry *e = server_auth_cache_slot(s, key, false);
		if (e) {
			int code = server_auth_bind_identity(s, &e->id, rec->report.node, whybuf,
							     sizeof(whybuf));
			if (code) {
				server_reply_error(s, req, code,
						   code == 403 ? "Forbidden" : "Unauthorized", "%s",
						   whybuf);
				store_rec_unref(&s->store, rec);
				return;
			}
			server_accept_report(s, req, rec);
			return;
		}
		server_auth_queue_review(s, req, rec, key, token);
		return;
	}
	int code = server_auth_authorize(s, token, rec->report.node, &why);
	if (code) {
		server_reply_error(s, req, code, code == 403 ? "Forbidden" : "Unauthorized", "%s",
				   why);
		store_rec_unref(&s->store, rec);
		return;
	}
	server_accept_report(s, req, rec);
}

static json_object *node_summary(const struct store_rec *rec, int64_t now)
{
	json_object *o = json_object_new_object();
	const struct node_report *r = &rec->report;
	json_object_object_add(o, "name", json_object_new_string(r->node));
	json_object_object_add(o, "hostname",
			       json_object_new_string(r->hostname ? r->hostname : ""));
	json_object_object_add(o, "agent_version",
			       json_object_new_string(r->agent_version ? r->agent_version : ""));
	int64_t age =
	    engine_report_age_ns(&(struct node_entry){.report = (struct node_report *)r,
						      .received_ns = rec->received_ns,
						      .generated_mono_ns = rec->generated_mono_ns},
				 now, util_now_mono_ns());
	json_object_object_add(o, "report_age_seconds", json_object_new_int64(age / NSEC_PER_SEC));
	json_object_object_add(o, "seq", json_object_new_uint64(r->seq));
	json_object *c = json_object_new_object();
	for (int i = 0; i < _STATUS_MAX; i++)
		json_object_object_add(c, status_name(i), json_object_new_int((int)rec->counts[i]));
	json_object_object_add(o, "counts", c);
	return o;
}

static void handle_nodes(struct server *s, struct evhttp_request *req, const char *arg)
{
	int64_t now = util_now_realtime_ns();
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < s->store.n; i++)
		json_object_array_add(a, node_summary(s->store.entries[i].rec, now));
	json_object *o = json_object_new_object();
	json_object_object_add(o, "nodes", a);
	reply_json(req, o);
	json_object_put(o);
}

static void handle_node(struct server *s, struct evhttp_request *req, const char *arg)
{
	char *name = evhttp_uridecode(arg, 0, NULL);
	const struct store_entry *e = name ? store_get(&s->store, name) : NULL;
	if (!e) {
		server_reply_error(s, req, HTTP_NOTFOUND, "Not Found", "no report from node \"%s\"",
				   name ? name : "");
		free(name);
		return;
	}
	free(name);
	struct node_report r;
	store_rec_decode(e->rec, &r);
	json_object *o = render_node_report_json(&r);
	node_report_clear(&r);
	json_object_object_add(o, "summary", node_summary(e->rec, util_now_realtime_ns()));
	reply_json(req, o);
	json_object_put(o);
}

static void handle_healthz(struct server *s, struct evhttp_request *req, const char *arg)
{
	server_reply(req, HTTP_OK, "OK", "text/plain", "ok\n", 3);
}

static void handle_readyz(struct server *s, struct evhttp_request *req, const char *arg)
{
	if (!s->st) {
		server_reply(req, HTTP_SERVUNAVAIL, "Service Unavailable", "text/plain",
			     "cluster state not read yet\n", 27);
		return;
	}
	server_reply(req, HTTP_OK, "OK", "text/plain", "ready\n", 6);
}

static void handle_metrics(struct server *s, struct evhttp_request *req, const char *arg)
{
	if (s->st && !s->current) {
		server_eval_park(s, req, handle_metrics);
		return;
	}
	server_eval_queue_render(s, req, RENDER_METRICS, -1, false, 0);
}

/* The dashboard: the HTML verdict, reloading itself every interval. */
static void handle_page(struct server *s, struct evhttp_request *req, const char *arg)
{
	if (!s->st) {
		server_reply(req, HTTP_SERVUNAVAIL, "Service Unavailable", "text/plain",
			     "cluster state not read yet\n", 27);
		return;
	}
	int gate;
	bool paused;
	unsigned statuses;
	if (server_query_view(s, req, &gate, &paused, &statuses) < 0)
		return;
	if (!s->current) {
		server_eval_park(s, req, handle_page);
		return;
	}
	server_eval_queue_render(s, req, RENDER_PAGE, gate, paused, statuses);
}

/* ---------- the cluster state refresher ---------- */

/* What the loop needs from a state, computed before the hand-over: the
 * evaluator owns the state's lookups from then on. */
static void derive(struct server *s, struct state *st)
{
	struct probe_targets cluster;
	targets_for_node(&st->cs, NULL, &cluster);
	st->targets = targets_json(&cluster, &st->targets_len);
	const struct jv *lhn = cs_items(&st->cs, RES_LH_NODES);
	st->nodes = xcalloc(jq_len(lhn) + 1, sizeof(*st->nodes));
	for (size_t i = 0; i < jq_len(lhn); i++) {
		const char *name = jq_name(jq_at(lhn, i));
		if (!name)
			continue;
		struct probe_targets t;
		probe_targets_copy(&t, &cluster);
		targets_node_paths(&st->cs, name, &t.longhorn_data_paths);
		if (t.longhorn_data_paths.n) {
			struct node_targets *nt = &st->nodes[st->n_nodes++];
			nt->node = xstrdup(name);
			nt->json = targets_json(&t, &nt->len);
		}
		probe_targets_clear(&t);
	}
	probe_targets_clear(&cluster);
	qsort(st->nodes, st->n_nodes, sizeof(*st->nodes), node_targets_cmp);
	/* Two Longhorn nodes of one name cannot be: keep the first anyway. */
	if (s->o->auth != AUTH_TOKENREVIEW)
		return;
	const struct jv *pods = cs_items(&st->cs, RES_PODS);
	st->pods = xcalloc(jq_len(pods) + 1, sizeof(*st->pods));
	for (size_t i = 0; i < jq_len(pods); i++) {
		const struct jv *p = jq_at(pods, i);
		const char *node = JQS(p, "spec", "nodeName"), *name = jq_name(p);
		if (!node || !name)
			continue;
		const char *ns = jq_namespace(p);
		st->pods[st->n_pods++] = (struct pod_node){
		    .key = xasprintf("%s/%s", ns ? ns : "", name), .node = xstrdup(node)};
	}
	qsort(st->pods, st->n_pods, sizeof(*st->pods), server_auth_pod_node_cmp);
}

static struct state *load_state(struct server *s, char **ret_err)
{
	struct state *st = xcalloc(1, sizeof(*st));
	char err[SOURCE_ERR_LEN];
	int r = 0;
	cluster_state_init(&st->cs);
	if (s->o->states.n) {
		for (size_t i = 0; i < s->o->states.n && r == 0; i++)
			r = source_files_load(&st->cs, s->o->states.items[i], err, sizeof(err));
	} else {
		r = source_api_load(&st->cs, s->kc, err, sizeof(err));
	}
	if (r < 0) {
		*ret_err = xstrdup(err);
		server_eval_state_free(st);
		return NULL;
	}
	st->cs.read_at_ns = util_now_realtime_ns();
	st->refs = 1;
	derive(s, st);
	return st;
}

static void *refresher_main(void *arg)
{
	struct server *s = arg;
	worker_lower_priority();
	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		pthread_mutex_unlock(&s->lock);
		char *err = NULL, *cm_err = NULL;
		struct state *st = load_state(s, &err);
		struct canary_result *cm_res = NULL;
		bool cm = server_canary_read_cm(s, &cm_res, &cm_err);
		pthread_mutex_lock(&s->lock);
		if (cm) {
			/* not handed over yet: only this thread and the loop see them */
			if (s->canary_cm_incoming) {
				canary_result_clear(s->canary_cm_incoming);
				free(s->canary_cm_incoming);
			}
			free(s->canary_cm_error_incoming);
			s->canary_cm_incoming = cm_res;
			s->canary_cm_error_incoming = cm_err;
		}
		if (st) {
			/* Not handed over yet: nobody else holds a reference. */
			if (s->incoming)
				server_eval_state_free(s->incoming);
			s->incoming = st;
		} else {
			free(s->refresh_error);
			s->refresh_error = err;
		}
		event_active(s->state_ev, EV_READ, 0);
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += s->o->interval_s;
		for (;;) {
			if (s->graveyard) {
				server_eval_bury(s);
				continue;
			}
			if (s->stopping ||
			    pthread_cond_timedwait(&s->cond, &s->lock, &until) == ETIMEDOUT)
				break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void on_state(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;
	pthread_mutex_lock(&s->lock);
	struct state *st = s->incoming;
	s->incoming = NULL;
	char *err = s->refresh_error;
	s->refresh_error = NULL;
	struct canary_result *cm_res = s->canary_cm_incoming;
	char *cm_err = s->canary_cm_error_incoming;
	s->canary_cm_incoming = NULL;
	s->canary_cm_error_incoming = NULL;
	pthread_mutex_unlock(&s->lock);
	if (cm_res || cm_err)
		server_canary_offer_cm(s, cm_res, cm_err);
	if (err) {
		/* Keep serving the last complete state; say how old it is. */
		log_warnx("reading the cluster state failed: %s; serving the previous state, "
			  "ignoring",
			  err);
		free(s->state_error);
		s->state_error = err;
		s->dirty = true;
	}
	if (!st)
		return;
	free(s->state_error);
	s->state_error = NULL;
	if (!s->st)
		log_info("cluster state read from %s", st->cs.source ? st->cs.source : "?");
	server_eval_state_unref(s, s->st);
	s->st = st;
	s->dirty = true;
	/* The first verdict as soon as there is a state. */
	if (!s->current && !s->evaluating)
		server_eval_start(s);
}

/* ---------- timers and signals ---------- */

static void on_verdict_timer(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;
	if (!s->st || s->evaluating)
		return;
	if (server_eval_due(&s->eval_clock, util_now_mono_ns(), s->dirty))
		server_eval_start(s);
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

/* A connection's bufferevent cannot be made (out of memory): pause accepting
 * until the sweep, as on_accept_error does. The connection itself is refused
 * (refuse_connection): evhttp would make a plain bufferevent of its own for a
 * NULL (http.c, evhttp_connection_base_bufferevent_new) and serve it without
 * TLS and without the header phase. */
static void refuse_input(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
	struct bufferevent *bev = arg;
	if (!info->n_added)
		return;
	/* Nothing reaches evhttp's parser; the shutdown makes its next read an
	 * EOF, on which it closes the connection and frees this bufferevent. */
	evbuffer_drain(buf, evbuffer_get_length(buf));
	evutil_socket_t fd = bufferevent_getfd(bev);
	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
}

static struct bufferevent *refuse_connection(struct event_base *base)
{
	struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	/* Without one, evhttp's own bufferevent_socket_new, moments later, fails
	 * the same way and it closes the socket. */
	if (!bev)
		return NULL;
	if (!evbuffer_add_cb(bufferevent_get_input(bev), refuse_input, bev)) {
		bufferevent_free(bev);
		return NULL;
	}
	return bev;
}

static struct bufferevent *accept_failed(struct server *s, const char *what)
{
	ERR_clear_error();
	int64_t now = util_now_mono_ns();
	if (now - s->accept_failed_logged_ns > 60 * NSEC_PER_SEC) {
		log_warnx("accept: %s failed (out of memory?) with %zu %s open: "
			  "pausing, ignoring",
			  what, s->n_conns,
			  plural((int64_t)s->n_conns, "connection", "connections"));
		s->accept_failed_logged_ns = now;
	}
	if (!s->paused && s->listener && evconnlistener_disable(s->listener) == 0)
		s->paused = true;
	return refuse_connection(s->base);
}

/* evhttp asks for each accepted connection's bufferevent here: the only hook
 * evhttp 2.1 has at accept. A reference of ours keeps it valid until the sweep
 * sees that evhttp has freed it. */
static struct bufferevent *on_connection(struct event_base *base, void *arg)
{
	struct server *s = arg;
	struct bufferevent *bev;
	/* Every allocation here may fail under memory pressure (an address-space
	 * limit, a cgroup): NULL makes evhttp close the accepted socket. SSL_new's
	 * NULL must not reach bufferevent_openssl_socket_new, which dereferences
	 * it; on its own failure that frees the SSL (BEV_OPT_CLOSE_ON_FREE) only
	 * once the bufferevent exists, so free it here otherwise. */
	if (s->ssl) {
		SSL *ssl = SSL_new(s->ssl);
		if (!ssl)
			return accept_failed(s, "SSL_new");
		bev = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING,
						     BEV_OPT_CLOSE_ON_FREE);
		if (!bev) {
			SSL_free(ssl);
			return accept_failed(s, "bufferevent_openssl_socket_new");
		}
	} else {
		bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
		if (!bev)
			return accept_failed(s, "bufferevent_socket_new");
	}
	if (s->n_conns >= s->cap_conns) { /* allocated whole at start; paused before */
		bufferevent_free(bev);
		return accept_failed(s, "the connection table is full");
	}
	struct hconn *hc = server_conn_new(s, bev);
	if (!hc) {
		bufferevent_free(bev);
		return accept_failed(s, "the header phase");
	}
	bufferevent_incref(bev);
	s->conns[s->n_conns++] =
	    (struct conn){.bev = bev, .hc = hc, .accepted_ns = util_now_mono_ns()};
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
		/* bufferevent_free() clears the callbacks */
		if (eventcb || server_conn_linger(s->conns[i].hc)) {
			s->conns[w++] = s->conns[i];
		} else {
			server_conn_free(s->conns[i].hc);
			bufferevent_decref(s->conns[i].bev);
		}
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
	log_warnx("accept: %s (%zu %s open): pausing, ignoring", strerror(e), s->n_conns,
		  plural((int64_t)s->n_conns, "connection", "connections"));
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

/* How many nodes' reports are held at most (HVREADY_MAX_NODES): a report
 * from one more new node is refused, so invented names cannot grow memory
 * and every evaluation without bound. */
static size_t max_nodes(void)
{
	const char *v = getenv("HVREADY_MAX_NODES");
	int64_t n;
	if (!v || !*v)
		return MAX_NODES_DEFAULT;
	if (util_parse_i64(v, &n) < 0 || n < 1)
		fatalx("HVREADY_MAX_NODES=%s: not a whole number of nodes above 0", v);
	return (size_t)n;
}

/* Refuse secrets that others can read: a leaked token lets anyone report. */
static void check_secret_file(const char *what, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		fatal("%s %s", what, path);
	char why[64];
	if (util_secret_mode(st.st_mode, why, sizeof(why)) < 0)
		fatalx("%s %s is %s", what, path, why);
}

/* OpenSSL opens the certificate and key by path: only a regular file (a
 * Secret's mount is one), see util_path_regular(). */
static void check_regular_file(const char *what, const char *path)
{
	int r = util_path_regular(path);
	if (r < 0)
		fatalx("%s %s: %s", what, path, util_read_strerror(r));
}

static SSL_CTX *tls_setup(const struct server_opts *o)
{
	check_regular_file("--tls-cert", o->tls_cert);
	check_regular_file("--tls-key", o->tls_key);
	check_secret_file("--tls-key", o->tls_key);
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx)
		fatalx("TLS: cannot create a context");
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* TLS 1.2: forward-secret key exchange (ECDHE) and AEAD ciphers only;
	 * OpenSSL's default list also offers static RSA and CBC with SHA-1
	 * (docs/robustness.md). The TLS 1.3 suites (SSL_CTX_set_ciphersuites)
	 * are all AEAD and stay at OpenSSL's default. */
	if (SSL_CTX_set_cipher_list(ctx, TLS12_CIPHERS) != 1)
		fatalx("TLS: cannot set the cipher list");
	if (SSL_CTX_use_certificate_chain_file(ctx, o->tls_cert) != 1)
		fatalx("--tls-cert %s: %s", o->tls_cert, ERR_reason_error_string(ERR_get_error()));
	if (SSL_CTX_use_PrivateKey_file(ctx, o->tls_key, SSL_FILETYPE_PEM) != 1)
		fatalx("--tls-key %s: %s", o->tls_key, ERR_reason_error_string(ERR_get_error()));
	if (SSL_CTX_check_private_key(ctx) != 1)
		fatalx("--tls-key %s does not match --tls-cert %s", o->tls_key, o->tls_cert);
	return ctx;
}

char *server_read_secret(const char *what, const char *path)
{
	check_secret_file(what, path);
	char *buf;
	int r = util_read_file(path, TOKEN_MAX, &buf, NULL);
	if (r < 0)
		fatalx("%s %s: %s", what, path, util_read_strerror(r));
	strstrip(buf);
	if (!*buf)
		fatalx("%s %s is empty", what, path);
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

int server_run(const struct server_opts *o)
{
	struct server s = {.o = o};
	char err[SOURCE_ERR_LEN];
	signal(SIGPIPE, SIG_IGN);
	evthread_use_pthreads();
	/* Large blocks (a verdict's arrays, its JSON) are mapped and unmapped
	 * whole: glibc's default raises this threshold as such blocks are freed,
	 * and then keeps them in its heaps. */
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	store_init(&s.store);
	s.mc.serving = true;
	pthread_mutex_init(&s.lock, NULL);
	/* The refresher waits on it for an interval: a wall-clock step must not
	 * make that wait an hour (or nothing). */
	cond_init_monotonic(&s.cond);
	struct probe_targets none = {0};
	s.no_targets = targets_json(&none, NULL);

	if (o->auth == AUTH_TOKEN_FILE)
		s.token = server_read_secret("--token-file", o->token_file);
	server_auth_start(&s);
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

	/* Poll for new events every few milliseconds even while agents' reports
	 * are queued, so that an operator's request (higher priority) is not
	 * served after all of them. */
	struct event_config *cfg = event_config_new();
	struct timeval slice = {0, DISPATCH_SLICE_US};
	if (!cfg || event_config_set_max_dispatch_interval(cfg, &slice, -1, PRIO_NORMAL) < 0)
		fatalx("cannot configure the event loop");
	/* evhttp switches each connection from reading to writing and back for
	 * every request: applied in one go per pass of the loop, that is two
	 * epoll_ctl calls a request instead of four (no socket here is dup'd,
	 * the changelist's one caveat). */
	event_config_set_flag(cfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	s.base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (!s.base || event_base_priority_init(s.base, N_PRIOS) < 0)
		fatalx("cannot create the event loop");
	s.http = evhttp_new(s.base);
	if (!s.http)
		fatalx("cannot create the event loop");
	evhttp_set_max_body_size(s.http, WIRE_MAX_MESSAGE);
	evhttp_set_max_headers_size(s.http, MAX_HEADERS_SIZE);
	/* Every connection has the same idle timeout, re-armed on each read and
	 * write: as one of libevent's common timeouts that is an append to a
	 * queue, where the timer heap would sift through every connection's. */
	const struct timeval idle = {READ_TIMEOUT_S, 0};
	const struct timeval *idle_common = event_base_init_common_timeout(s.base, &idle);
	evhttp_set_timeout_tv(s.http, idle_common ? idle_common : &idle);
	evhttp_set_allowed_methods(s.http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD);
	evhttp_set_gencb(s.http, dispatch, &s);
	evhttp_set_bevcb(s.http, on_connection, &s);
	s.max_conns = max_connections();
	/* The whole table now: no allocation for it on the accept path. */
	s.cap_conns = s.max_conns;
	s.conns = xcalloc(s.cap_conns, sizeof(*s.conns));
	s.max_nodes = max_nodes();
	s.max_inflight_body = o->max_inflight_body_bytes ? o->max_inflight_body_bytes
							 : SERVER_MAX_INFLIGHT_BODY_BYTES;

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
	event_priority_set(s.state_ev, PRIO_HIGH);
	s.verdict_timer = event_new(s.base, -1, EV_PERSIST, on_verdict_timer, &s);
	struct timeval tick = {0, 250000};
	event_add(s.verdict_timer, &tick);
	uint64_t wd_usec = 0;
	if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
		s.watchdog = event_new(s.base, -1, EV_PERSIST, on_watchdog, &s);
		struct timeval half = {(time_t)(wd_usec / 2 / 1000000),
				       (suseconds_t)(wd_usec / 2 % 1000000)};
		event_add(s.watchdog, &half);
	}
	if (pthread_create(&s.refresher, NULL, refresher_main, &s) != 0)
		fatalx("cannot start the refresher thread");
	if (worker_start(&s.evaluator, &server_eval_evaluator, &s, &s.lock, s.base, PRIO_HIGH) < 0)
		fatalx("cannot start the evaluator thread");
	if (worker_start(&s.renderer, &server_eval_renderer, &s, &s.lock, s.base, PRIO_NORMAL) < 0)
		fatalx("cannot start the renderer thread");
	if (o->auth == AUTH_TOKENREVIEW || o->read_auth == READ_AUTH_TOKENREVIEW) {
		/* Its own client: the refresher's is busy listing for seconds at a time. */
		int r = o->in_cluster ? kube_client_new_in_cluster(&s.review_kc, err, sizeof(err))
				      : kube_client_new_kubeconfig(o->kubeconfig, &s.review_kc, err,
								   sizeof(err));
		if (r < 0)
			fatalx("%s", err);
		if (worker_start(&s.reviewer, &server_auth_reviewer, &s, &s.lock, s.base,
				 PRIO_NORMAL) < 0)
			fatalx("cannot start the token reviewer thread");
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

	server_canary_start(&s);

	event_base_dispatch(s.base);

	/* first: a running canary cleans up while the rest stops */
	server_canary_stop(&s);

	pthread_mutex_lock(&s.lock);
	s.stopping = true;
	pthread_cond_broadcast(&s.cond);
	pthread_mutex_unlock(&s.lock);
	worker_stop(&s.evaluator);
	worker_stop(&s.renderer);
	worker_stop(&s.reviewer);
	pthread_join(s.refresher, NULL);
	/* Each drops what its thread leaves: the others may still be ending
	 * their last job, as they may while the loop runs. */
	worker_join(&s.evaluator);
	worker_join(&s.renderer);
	worker_join(&s.reviewer);
	node_conditions_free(s.nc);
	for (size_t i = 0; i < s.cache_slots; i++)
		token_identity_clear(&s.cache[i].id);
	free(s.cache);
	server_auth_end(&s);
	kube_client_free(s.review_kc);
	/* Connections go first: their close callbacks end streams and parked
	 * requests, their buffers release verdicts. */
	evhttp_free(s.http);
	for (struct parked *p = s.parked, *next; p; p = next) {
		next = p->next;
		free(p);
	}
	while (s.streams)
		server_verdict_stream_free(&s, s.streams);
	server_eval_job_unref(&s, s.current);
	server_eval_vjson_unref(s.json);
	if (s.incoming)
		server_eval_state_free(s.incoming);
	server_eval_state_unref(&s, s.st);
	pthread_mutex_lock(&s.lock);
	server_eval_bury(&s); /* the refresher has stopped */
	pthread_mutex_unlock(&s.lock);
	free(s.refresh_error);
	free(s.state_error);
	if (s.canary_cm_incoming) {
		canary_result_clear(s.canary_cm_incoming);
		free(s.canary_cm_incoming);
	}
	free(s.canary_cm_error_incoming);
	event_free(s.sig_term);
	event_free(s.sig_int);
	event_free(s.state_ev);
	event_free(s.verdict_timer);
	if (s.watchdog)
		event_free(s.watchdog);
	event_free(s.sweep);
	for (size_t i = 0; i < s.n_conns; i++) {
		server_conn_free(s.conns[i].hc);
		bufferevent_decref(s.conns[i].bev);
	}
	free(s.conns);
	event_base_free(s.base);
	server_conn_end(&s);
	if (s.ssl)
		SSL_CTX_free(s.ssl);
	store_clear(&s.store);
	wirescan_report_clear(&s.scan);
	free(s.no_targets);
	kube_client_free(s.kc);
	free(s.token);
	pthread_mutex_destroy(&s.lock);
	pthread_cond_destroy(&s.cond);
	return 0;
}
