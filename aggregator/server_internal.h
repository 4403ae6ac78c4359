/* What the files of the server (server*.c) share: the server's state, the
 * jobs its threads exchange, and the functions that cross files. Not
 * installed; only server*.c include it. */
#pragma once
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include <event2/event.h>
#include <event2/http.h>
#include <openssl/ssl.h>

#include "metrics.h"
#include "node_conditions.h"
#include "server.h"
#include "store.h"
#include "tokenreview.h"
#include "util.h"
#include "wirescan.h"
#include "worker.h"

/* A complete cluster state as served. The state itself belongs to whoever
 * evaluates (its lookup caches are not thread-safe: cluster_state.h); the loop
 * reads only plain fields (statuses, times) and what the refresher derived
 * for it before the hand-over. */
struct state {
	unsigned refs;		 /* loop thread */
	struct state *next_free; /* in server.graveyard */
	struct cluster_state cs;
	char *targets; /* the POST reply for a node without Longhorn data paths */
	size_t targets_len;
	struct node_targets *nodes; /* by name */
	size_t n_nodes;
	struct pod_node *pods; /* by "namespace/name"; --tokenreview only */
	size_t n_pods;
};

struct node_targets {
	char *node, *json;
	size_t len;
};

struct pod_node {
	char *key, *node;
};

/* A rendered verdict: its JSON, gzip-compressed, shared by the responses that
 * send it (a reference each, released when libevent has written it). */
struct vjson {
	unsigned refs; /* loop thread */
	uint8_t *gz;
	size_t gz_len;
	size_t len; /* of the JSON itself */
};

struct server;
struct eval_job;
struct hconn;

enum render_kind { RENDER_TEXT, RENDER_MARKDOWN, RENDER_HTML, RENDER_PAGE, RENDER_METRICS };

/* A worker's job that answers a request once worked: server_on_conn_close()
 * forgets the request if its client goes away meanwhile. */
struct request_job {
	struct worker_job wj;
	struct evhttp_request *req; /* loop; NULL once the client went away */
	struct evhttp_connection *evcon;
};

/* A rendering that takes seconds at thousands of nodes (text, Markdown, HTML,
 * the metrics), made by the renderer thread from references held here. */
struct render_job {
	struct request_job rq;
	enum render_kind kind;
	struct eval_job *verdict; /* a reference, or NULL: no verdict yet */
	struct state *st;	  /* metrics: a reference, or NULL: no state yet */
	struct store nodes;	  /* metrics: the store's entries (references) and counters */
	struct metrics_counters mc;
	int interval_s;
	int gate;	   /* ?gate=: the gate the human renderings narrow to, -1 all */
	bool paused;	   /* the dashboard's ?refresh=0: no reload */
	unsigned statuses; /* ?status=: the finding lists show only those, 0 all */
	int64_t now_ns;
	char *buf; /* the result */
	size_t len;
};

/* A request that came before the first verdict: answered when it is ready. */
struct parked {
	struct parked *next;
	struct evhttp_request *req; /* NULL once the client went away */
	struct evhttp_connection *evcon;
	void (*handler)(struct server *s, struct evhttp_request *req, const char *arg);
};

/* The JSON verdict inflated step by step for a client that does not take gzip. */
struct stream {
	struct stream *next;
	struct server *s;
	struct evhttp_request *req;
	struct evhttp_connection *evcon;
	struct vjson *vj;
	z_stream z;
};

/* When the last evaluation started and ended (CLOCK_MONOTONIC; 0: none
 * yet) and the CPU time it took (server_eval_due). */
struct eval_clock {
	int64_t start_ns, end_ns, cpu_ns;
};

struct server {
	const struct server_opts *o;
	struct event_base *base;
	struct evhttp *http;
	/* every connection since accept (on_connection) */
	struct conn *conns;
	size_t n_conns, cap_conns, max_conns;
	struct evconnlistener *listener;
	bool paused;
	struct event *sweep;
	int64_t evicted_logged_ns, accept_failed_logged_ns;
	uint64_t evicted;
	SSL_CTX *ssl;
	struct event *sig_term, *sig_int, *verdict_timer, *state_ev, *watchdog;
	struct state *st; /* the latest complete cluster state, NULL before the first */
	char *no_targets; /* the POST reply before any state */
	struct store store;
	size_t max_nodes;
	int64_t budget_logged_ns; /* --max-report-bytes refusals, logged once a minute */
	struct wirescan_report scan;
	char *token;			 /* AUTH_TOKEN_FILE */
	struct node_tokens *node_tokens; /* AUTH_NODE_TOKENS */
	char *read_token;		 /* READ_AUTH_TOKEN */
	/* verdicts */
	bool dirty, evaluating;
	struct eval_clock eval_clock; /* the last evaluation's times */
	struct eval_job *current;     /* the verdict served */
	struct vjson *json;
	struct parked *parked;
	struct stream *streams;
	/* threads */
	pthread_t refresher;
	pthread_mutex_t lock; /* the refresher's hand-over, the graveyard, the workers' lists */
	pthread_cond_t cond;  /* refresher */
	bool stopping;	      /* refresher */
	struct state *incoming;
	/* States whose last reference went on the loop: freeing a large cluster's
	 * objects takes long (a second at 5,000 nodes), so the refresher does it. */
	struct state *graveyard;
	char *refresh_error;
	/* --canary-result configmap:NS/NAME, read by the refresher with each
	 * state (server_canary_read_cm) and handed to the loop with it */
	struct canary_result *canary_cm_incoming;
	char *canary_cm_error_incoming;
	char *state_error;	 /* loop: the last re-read failed (the previous state is in use) */
	struct worker evaluator; /* eval_job */
	struct worker renderer;	 /* render_job */
	struct kube_client *kc;
	struct metrics_counters mc;
	/* --tokenreview: a reviewer thread with its own API client */
	struct kube_client *review_kc;
	struct worker reviewer; /* review_job */
	struct token_cache_entry *cache;
	size_t cache_slots;
	struct agent_addr *agent_addrs; /* server_auth.c: reviews from these go first */
	/* server_conn.c: the bodies announced and not yet read in full */
	size_t inflight_body, max_inflight_body;
	int64_t inflight_logged_ns, refused_window_ns;
	unsigned refused_logged;
	struct ev_token_bucket_cfg *throttle_cfg; /* server_conn.c */
	unsigned long refused_unlogged;
	struct node_conditions *nc;   /* --node-conditions: its own thread and client */
	struct server_canary *canary; /* --canary-result, --canary-interval (server_canary.c) */
};

/* A report waiting for its token to be reviewed. */
struct review_job {
	struct request_job rq;
	struct store_rec *rec;
	char key[65];
	char *token;
	char client[64]; /* the peer's address: reviews in flight per client are bounded */
	int64_t exp_s;	 /* the token's exp, bounds how long its review is cached */
	bool urgent;	 /* from an address of a known agent: queued ahead */
	/* a read (--read-auth tokenreview:GROUP) instead of a report (rec NULL) */
	void (*then)(struct server *s, struct evhttp_request *req, const char *arg);
	/* a connection's request held at its headers (server_conn.c) instead:
	 * hc NULL once the connection went away */
	bool at_headers, for_report;
	struct hconn *hc;
	char *node; /* at_headers: the report's Hvready-Node, or NULL */
	char *arg;
	int64_t received_ns, rtt_ns;
	struct token_identity id;
	int rc;
	char err[256];
};

struct agent_addr {
	char addr[64];
	int64_t seen_ns; /* monotonic; 0 = empty */
};

struct token_cache_entry {
	char key[65];
	struct token_identity id;
	int64_t expires_ns; /* monotonic; 0 = empty */
};

/* ---------- server.c ---------- */

/* The headers every answer of Content-Type type carries (docs/robustness.md):
 * nosniff always; for HTML a Content-Security-Policy and no framing. */
void server_content_headers(struct evkeyvalq *h, const char *type);
/* Send a complete response with a body (no-store). */
void server_reply(struct evhttp_request *req, int code, const char *reason, const char *type,
		  const char *body, size_t len);
/* Send a JSON error {"error", "code"}; counts rejected reports. */
void server_reply_error(struct server *s, struct evhttp_request *req, int code, const char *reason,
			const char *fmt, ...) _printf_(5, 6);
/* Store an authorised report and answer with the node's probe targets. */
void server_accept_report(struct server *s, struct evhttp_request *req, struct store_rec *rec);
/* Read a secret file (one token), refusing one others can read; exits on error. */
char *server_read_secret(const char *what, const char *path);
/* evhttp close callback: forget the requests of a connection going away. */
void server_on_conn_close(struct evhttp_connection *evcon, void *arg);

/* What a request's route needs, from its method and path alone. */
struct server_route_info {
	bool found;	 /* a route takes this method on this path */
	bool path_known; /* another method would (405) */
	bool report;	 /* the agents' credential; else a read (--read-auth) */
	size_t max_body; /* 0: no body */
};
void server_route_lookup(const char *method, const char *path, struct server_route_info *ri);

/* ---------- server_conn.c ---------- */

/* A connection as the header phase sees it (server_conn.c; loop thread). */
struct hconn {
	struct server *s;
	struct bufferevent *bev;
	struct evbuffer *stash; /* bytes withheld from evhttp, in order */
	struct evbuffer *scratch;
	struct evbuffer_cb_entry *cb;
	enum { HC_HEAD, HC_HOLD, HC_BODY, HC_DRAIN } state;
	bool busy;     /* our own changes to the input buffer */
	bool tls;      /* an SSL bufferevent: its input buffer is never frozen */
	bool read_off; /* reading slowed to a byte a second while held */
	bool lingered;
	bool waiting; /* the next request waits for evhttp to take the last */
	struct event *resume_ev; /* that wait is over */ /* server_conn_linger() */
	uint64_t body_left;				 /* HC_BODY */
	size_t reserved;	/* of s->inflight_body, until the body is read */
	struct review_job *job; /* HC_HOLD: the review it waits for */
	bool reviewed;		/* the review's result, for the held request */
	int review_code;
	char review_why[256];
	char peer[64];
};

/* The header phase of an accepted connection's bufferevent; NULL if out of
 * memory. server_conn_free() once evhttp has freed the bufferevent (the
 * server's reference keeps it valid). */
struct hconn *server_conn_new(struct server *s, struct bufferevent *bev);
void server_conn_free(struct hconn *hc);
/* A refused request's connection that evhttp has freed (it answered and shut
 * the sending side): read and drop what the client still sends until it
 * closes, at most a few seconds, so that closing with its bytes unread does
 * not reset the connection before the client has read the answer. true if
 * lingering (the bufferevent has callbacks again until it ends). */
bool server_conn_linger(struct hconn *hc);
/* At the end, once every connection's bufferevent is gone. */
void server_conn_end(struct server *s);
/* The token review of a held request is done: 0, or an HTTP status and why. */
void server_conn_reviewed(struct hconn *hc, int code, const char *why);
/* The peer's address (as evhttp writes it), "" if unknown. */
const char *server_conn_peer(struct hconn *hc);

/* ---------- server_auth.c ---------- */

/* The credential of a request, on its headers (server_conn.c): 0 allowed,
 * an HTTP status (why filled), or -1: a token review was queued, and
 * server_conn_reviewed() tells hc its result. report: the agents' route;
 * else a read route at path. authorization: the header's value, or NULL.
 * node: a report's Hvready-Node header, or NULL: with it the credential must
 * speak for that node (403 here); without it, who it speaks for is decided
 * on the body (handle_report). */
int server_auth_headers(struct server *s, struct hconn *hc, bool report, const char *path,
			const char *authorization, const char *node, char *why, size_t whylen);

/* The bearer token of an Authorization header's value, or NULL. */
const char *server_auth_bearer_of(const char *a);
/* 0 = allowed; else an HTTP status (the shared token; TokenReview is bound later). */
int server_auth_authorize(struct server *s, const char *tok, const char *node, const char **why);
/* Read --node-token-file (AUTH_NODE_TOKENS), or exit with why; and free it. */
void server_auth_start(struct server *s);
void server_auth_end(struct server *s);
/* --read-auth: true if the GET of path may be answered now (by the caller,
 * with handler); false if it was answered (401/403/503) or queued for a
 * review (then handler answers it once reviewed). */
bool server_auth_read(struct server *s, struct evhttp_request *req, const char *path,
		      void (*handler)(struct server *s, struct evhttp_request *req,
				      const char *arg),
		      const char *arg);
/* Order of struct pod_node by key, for the state's pod table. */
int server_auth_pod_node_cmp(const void *a, const void *b);
/* 0 if a reviewed token may speak for node; else an HTTP status and why. */
int server_auth_bind_identity(struct server *s, const struct token_identity *id, const char *node,
			      char *why, size_t whylen);
/* The token cache's live entry for key, or (for_insert) the slot to fill. */
struct token_cache_entry *server_auth_cache_slot(struct server *s, const char *key,
						 bool for_insert);
/* Hand a report to the reviewer; answered once its token is reviewed. */
void server_auth_queue_review(struct server *s, struct evhttp_request *req, struct store_rec *rec,
			      const char *key, const char *token);
/* The reviewer's jobs (--tokenreview; arg: the server): one TokenReview each. */
extern const struct worker_ops server_auth_reviewer;

/* ---------- server_eval.c ---------- */

/* Free a state (not handed over, or buried). */
void server_eval_state_free(struct state *st);
/* Drop a reference (loop); the last one sends the state to the graveyard. */
void server_eval_state_unref(struct server *s, struct state *st);
/* Free the graveyard's states; with s->lock held, dropped meanwhile. */
void server_eval_bury(struct server *s);
/* Whether the next evaluation is due at now (CLOCK_MONOTONIC), after the
 * last one timed in c; dirty: something changed since it started. */
bool server_eval_due(const struct eval_clock *c, int64_t now_mono_ns, bool dirty);
/* Drop a reference to a rendered verdict. */
void server_eval_vjson_unref(struct vjson *vj);
/* Drop a reference to an evaluation (and with the last, its snapshot). */
bool server_eval_job_unref(struct server *s, struct eval_job *j); /* true: freed */
/* The evaluator's jobs (arg: the server): a verdict from a snapshot. */
extern const struct worker_ops server_eval_evaluator;
/* Hand a snapshot of the reports and the state to the evaluator. */
void server_eval_start(struct server *s);
/* Answer a request with handler once the first verdict is there. */
void server_eval_park(struct server *s, struct evhttp_request *req,
		      void (*handler)(struct server *s, struct evhttp_request *req,
				      const char *arg));
/* The renderer's jobs (arg: the server): text, Markdown, HTML, metrics. */
extern const struct worker_ops server_eval_renderer;
/* Hand a rendering of the current verdict to the renderer thread. */
void server_eval_queue_render(struct server *s, struct evhttp_request *req, enum render_kind kind,
			      int gate, bool paused, unsigned statuses);
/* The read routes' ?gate= (a gate name or all), ?refresh=0 and ?status= (a
 * comma list of statuses: render_status_mask_parse). Returns 0, or -EINVAL
 * after answering 400 with the reason. */
int server_query_view(struct server *s, struct evhttp_request *req, int *gate, bool *paused,
		      unsigned *statuses);

/* ---------- server_canary.c ---------- */

/* What an evaluation takes of the canary (loop thread): a reference to the
 * result in use, or why the file could not be read; and the schedule. */
struct server_canary_view {
	struct canary_result *res;
	char *error_source, *error;
	char *run_error;
	int64_t interval_ms;
	bool running;
	uint64_t runs;
};
struct verdict;
/* Read --canary-result, start --canary-interval's schedule (the first run now). */
void server_canary_start(struct server *s);
/* After the loop: SIGTERM a running canary and wait until it has cleaned up
 * (its --timeout bounds it; killed past a grace), and free everything. */
void server_canary_stop(struct server *s);
void server_canary_snapshot(struct server *s, struct server_canary_view *ret);
void server_canary_view_clear(struct server_canary_view *v);
/* Refresher thread: with --canary-result configmap:NS/NAME, GET it with the
 * client the state is read with: true, and the result or why there is none
 * in *ret or *ret_err (the caller owns them); false without a ConfigMap. */
bool server_canary_read_cm(struct server *s, struct canary_result **ret, char **ret_err);
/* Loop: the refresher's reading (either may be NULL) replaces the last;
 * takes both. */
void server_canary_offer_cm(struct server *s, struct canary_result *r, char *err);
/* Evaluator thread: the view into the verdict. */
void server_canary_apply(const struct server *s, const struct server_canary_view *cv,
			 struct verdict *v);

/* ---------- server_verdict.c ---------- */

/* End a verdict stream (its client went away, or the server stops). */
void server_verdict_stream_free(struct server *s, struct stream *st);
/* GET /v1/verdict[?format=json|text|markdown|html] */
void server_verdict_handle(struct server *s, struct evhttp_request *req, const char *arg);
