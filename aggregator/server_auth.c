/*
 * The server's credentials: the shared bearer token (--token-file) and
 * Kubernetes service-account tokens (--tokenreview), reviewed by a thread of
 * their own and cached, and bound to the node a report is for.
 */
#include "server_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <event2/http.h>

#include "log.h"
#include "node_tokens.h"
#include "store.h"
#include "tokenreview.h"

#define REVIEW_MAX_PENDING 1024
/* Reviews in flight from one client address: an agent has one at a time. */
#define REVIEW_MAX_PER_CLIENT 4
/* The share of REVIEW_MAX_PENDING that only known agents' reviews (urgent,
 * below) may take: a flood from elsewhere cannot fill the queue for them. */
#define REVIEW_RESERVED_KNOWN (REVIEW_MAX_PENDING / 4)
#define REVIEW_CACHE_SLOTS    16384
/* Client addresses that sent a report whose token a review accepted: their
 * next reviews go first. Agents' pod IPs (or node IPs) are few and stable. */
#define AGENT_ADDR_SLOTS  16384
#define AGENT_ADDR_TTL_NS (24 * 3600 * NSEC_PER_SEC)
/* An accepted token is cached until its exp, at most this long (kubelet
 * renews projected tokens at 80 % of their life, an hour by default): so a
 * known agent is reviewed every few minutes, not every minute. */
#define REVIEW_TTL_OK_NS      (300 * NSEC_PER_SEC)
#define REVIEW_TTL_BAD_NS     (10 * NSEC_PER_SEC)
#define REFUSAL_LOG_WINDOW_NS NSEC_PER_SEC
#define REFUSAL_LOG_BURST     20

/* ---------- auth ---------- */

static bool const_time_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	unsigned char diff = alen != blen;
	for (size_t i = 0; i < alen && i < blen; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

/* The bearer token of an Authorization header's value, or NULL. */
const char *server_auth_bearer_of(const char *a)
{
	if (!a || strncasecmp(a, "Bearer ", 7) != 0)
		return NULL;
	a += 7;
	while (*a == ' ')
		a++;
	return *a ? a : NULL;
}

/* One line for a refused report, at most REFUSAL_LOG_BURST a second (a flood
 * of refusals must not fill the journal): the node it claimed and why, never
 * the token. Loop thread only. */
static void log_refusal(const char *node, int code, const char *why)
{
	static int64_t window_ns;
	static unsigned logged;
	static unsigned long suppressed;
	int64_t now = util_now_mono_ns();
	if (!window_ns || now - window_ns >= REFUSAL_LOG_WINDOW_NS) {
		window_ns = now;
		logged = 0;
	}
	if (logged >= REFUSAL_LOG_BURST) {
		suppressed++;
		return;
	}
	logged++;
	if (suppressed)
		log_warnx(
		    "refused a report for node %s (%d): %s (and %lu more refusals not logged)",
		    node && *node ? node : "?", code, why, suppressed);
	else
		log_warnx("refused a report for node %s (%d): %s", node && *node ? node : "?", code,
			  why);
	suppressed = 0;
}

/* 0 = allowed; else an HTTP status to answer with. For a report, node is the
 * node it claims; the credential must be allowed to speak for it. */
int server_auth_authorize(struct server *s, const char *tok, const char *node, const char **why)
{
	if (s->o->auth == AUTH_NONE)
		return 0;
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
	if (s->o->auth == AUTH_NODE_TOKENS) {
		node_tokens_reload(&s->node_tokens, s->o->node_token_file, util_now_mono_ns());
		int code = node_tokens_check(s->node_tokens, tok, node, why);
		if (code)
			log_refusal(node, code, *why);
		return code;
	}
	return 0; /* AUTH_TOKENREVIEW is decided by server_auth_bind_identity() once reviewed */
}

void server_auth_start(struct server *s)
{
	if (s->o->read_auth == READ_AUTH_TOKEN) {
		s->read_token = server_read_secret("--read-auth token:", s->o->read_auth_arg);
	}
	if (s->o->auth != AUTH_NODE_TOKENS)
		return;
	char err[256];
	if (node_tokens_load(s->o->node_token_file, &s->node_tokens, err, sizeof(err)) < 0)
		fatalx("--node-token-file %s: %s", s->o->node_token_file, err);
	log_info("--node-token-file %s: %zu node tokens", s->o->node_token_file,
		 node_tokens_count(s->node_tokens));
}

void server_auth_end(struct server *s)
{
	node_tokens_free(s->node_tokens);
	s->node_tokens = NULL;
	if (s->read_token) {
		explicit_bzero(s->read_token, strlen(s->read_token));
		free(s->read_token);
		s->read_token = NULL;
	}
	free(s->agent_addrs);
	s->agent_addrs = NULL;
}

int server_auth_pod_node_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pod_node *)a)->key, ((const struct pod_node *)b)->key);
}

/* The node a pod runs on, from the state's table; NULL if unknown. */
static const char *pod_node(const struct state *st, const char *ns, const char *name)
{
	if (!st || !st->n_pods)
		return NULL;
	_cleanup_free_ char *key = xasprintf("%s/%s", ns ? ns : "", name);
	struct pod_node k = {.key = key};
	const struct pod_node *p =
	    bsearch(&k, st->pods, st->n_pods, sizeof(k), server_auth_pod_node_cmp);
	return p ? p->node : NULL;
}

static int bind_identity(struct server *s, const struct token_identity *id, const char *node,
			 char *why, size_t whylen);

int server_auth_bind_identity(struct server *s, const struct token_identity *id, const char *node,
			      char *why, size_t whylen)
{
	int code = bind_identity(s, id, node, why, whylen);
	if (code)
		log_refusal(node, code, why);
	return code;
}

/* What a reviewed token must be to report for any node: the agent's. */
static int agent_identity(const struct server *s, const struct token_identity *id, char *why,
			  size_t whylen)
{
	if (!id->authenticated) {
		snprintf(why, whylen, "%s", id->error ? id->error : "token not authenticated");
		return 401;
	}
	/* Another application's ServiceAccount (Longhorn's, anyone's) or a plain
	 * user may be bound to the node too: only the agent's own speaks for it. */
	const char *agent = s->o->agent_sa ? s->o->agent_sa : SERVER_AGENT_SA_DEFAULT;
	if (!id->username || !streq(id->username, agent)) {
		snprintf(why, whylen, "token of %s, not of the agent's ServiceAccount %s",
			 id->username && *id->username ? id->username : "an unnamed user", agent);
		return 403;
	}
	return 0;
}

/* The node a reviewed token may speak for: the review's node-name, or the
 * node of the pod it names (looked up in the cluster state). */
static int bind_identity(struct server *s, const struct token_identity *id, const char *node,
			 char *why, size_t whylen)
{
	int code = agent_identity(s, id, why, whylen);
	if (code)
		return code;
	const char *bound = id->node;
	if (!bound && id->pod) {
		bound = pod_node(s->st, id->pod_namespace, id->pod);
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

struct token_cache_entry *server_auth_cache_slot(struct server *s, const char *key, bool for_insert)
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

static void cache_put(struct server *s, const char *key, const struct token_identity *id,
		      int64_t exp_s)
{
	struct token_cache_entry *e = server_auth_cache_slot(s, key, true);
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
	for (size_t i = 0; i < id->groups.n; i++)
		strv_add(&e->id.groups, id->groups.items[i]);
	int64_t ttl = id->authenticated ? REVIEW_TTL_OK_NS : REVIEW_TTL_BAD_NS;
	/* Not past the token's own exp (the wall clock's, as the API judges it). */
	int64_t left = (exp_s - (int64_t)time(NULL)) * NSEC_PER_SEC;
	if (id->authenticated && left < ttl)
		ttl = left > 0 ? left : 0;
	e->expires_ns = util_now_mono_ns() + ttl;
}

static uint64_t addr_hash(const char *a)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211u;
	return h;
}

/* The slot of addr in the table of agents' addresses: its live entry, or
 * (for_insert) one to fill. */
static struct agent_addr *agent_addr_slot(struct server *s, const char *addr, bool for_insert)
{
	if (!s->agent_addrs) {
		if (!for_insert)
			return NULL;
		s->agent_addrs = xcalloc(AGENT_ADDR_SLOTS, sizeof(*s->agent_addrs));
	}
	int64_t now = util_now_mono_ns();
	size_t mask = AGENT_ADDR_SLOTS - 1, home = addr_hash(addr) & mask, oldest = home;
	for (size_t n = 0, i = home; n < 64; n++, i = (i + 1) & mask) {
		struct agent_addr *e = &s->agent_addrs[i];
		bool live = e->seen_ns && now - e->seen_ns < AGENT_ADDR_TTL_NS;
		if (live && streq(e->addr, addr))
			return e;
		if (e->seen_ns < s->agent_addrs[oldest].seen_ns)
			oldest = i;
	}
	return for_insert ? &s->agent_addrs[oldest] : NULL;
}

static void agent_addr_seen(struct server *s, const char *addr)
{
	if (!*addr)
		return;
	struct agent_addr *e = agent_addr_slot(s, addr, true);
	snprintf(e->addr, sizeof(e->addr), "%s", addr);
	e->seen_ns = util_now_mono_ns();
}

/* What is in flight already: reviews from one client address, urgent ones
 * among them. */
struct in_flight {
	const char *addr;
	size_t of_client, urgent_of_client;
};

static void count_in_flight(struct worker_job *wj, void *arg)
{
	struct in_flight *c = arg;
	const struct review_job *j = worker_job_of(wj, struct review_job, rq.wj);
	if (streq(j->client, c->addr)) {
		c->of_client++;
		c->urgent_of_client += j->urgent;
	}
}

/* Whether a review may be queued now for a report from client:
 * 0 (and *urgent: ahead of the others), or an HTTP status and why: 401 for a
 * token that cannot pass the review, 503 when too many are in flight. */
static int review_admit(struct server *s, const char *client, const char *token, int64_t *exp_s,
			bool *urgent, char *why, size_t whylen)
{
	if (tokenreview_precheck(token, (int64_t)time(NULL), exp_s, why, whylen) < 0)
		return 401;
	struct in_flight c = {.addr = client};
	worker_each(&s->reviewer, count_in_flight, &c);
	if (c.of_client >= REVIEW_MAX_PER_CLIENT) {
		snprintf(why, whylen,
			 "%zu token reviews in flight for this client address already; retry "
			 "later",
			 c.of_client);
		return 503;
	}
	/* From an address whose report a review accepted before (an agent whose
	 * token was renewed): ahead of the rest, one at a time. A claimed node
	 * name would not do: anyone can claim a known node's name. */
	*urgent = c.urgent_of_client == 0 && agent_addr_slot(s, client, false);
	size_t cap = *urgent ? REVIEW_MAX_PENDING : REVIEW_MAX_PENDING - REVIEW_RESERVED_KNOWN;
	if (s->reviewer.pending >= cap) {
		snprintf(why, whylen, "too many token reviews in flight; retry later");
		return 503;
	}
	return 0;
}

/* Queue a review for a report (rec) or a read (then, arg); answered here
 * when it cannot be queued. */
static void queue_job(struct server *s, struct evhttp_request *req, struct store_rec *rec,
		      void (*then)(struct server *, struct evhttp_request *, const char *),
		      const char *arg, const char *key, const char *token)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	const char *client = NULL;
	uint16_t port = 0;
	if (evcon)
		evhttp_connection_get_peer(evcon, (char **)&client, &port);
	char why[256];
	int64_t exp_s = 0;
	bool urgent = false;
	int code = review_admit(s, client ? client : "", token, &exp_s, &urgent, why, sizeof(why));
	if (code) {
		if (code == 401 && rec)
			log_refusal(rec->report.node, code, why);
		server_reply_error(s, req, code,
				   code == 401 ? "Unauthorized" : "Service Unavailable", "%s", why);
		store_rec_unref(&s->store, rec);
		return;
	}
	struct review_job *j = xcalloc(1, sizeof(*j));
	j->rq.req = req;
	j->rq.evcon = evcon;
	snprintf(j->client, sizeof(j->client), "%s", client ? client : "");
	j->exp_s = exp_s;
	j->urgent = urgent;
	j->rec = rec;
	j->then = then;
	j->arg = arg ? xstrdup(arg) : NULL;
	memcpy(j->key, key, sizeof(j->key));
	j->token = xstrdup(token);
	evhttp_connection_set_closecb(j->rq.evcon, server_on_conn_close, s);
	/* A known agent's review goes first: it must not wait behind a flood
	 * of reviews of tokens from unauthenticated clients. */
	if (urgent)
		worker_submit_urgent(&s->reviewer, &j->rq.wj);
	else
		worker_submit(&s->reviewer, &j->rq.wj);
}

void server_auth_queue_review(struct server *s, struct evhttp_request *req, struct store_rec *rec,
			      const char *key, const char *token)
{
	queue_job(s, req, rec, NULL, NULL, key, token);
}

/* --read-auth tokenreview:GROUP: 0 if a reviewed identity may read. */
static int read_identity(const struct server *s, const struct token_identity *id, char *why,
			 size_t whylen)
{
	if (!id->authenticated) {
		snprintf(why, whylen, "%s", id->error ? id->error : "token not authenticated");
		return 401;
	}
	if (!strv_contains(&id->groups, s->o->read_auth_arg)) {
		snprintf(why, whylen, "%s is not in group %s (--read-auth)",
			 id->username && *id->username ? id->username : "the token's user",
			 s->o->read_auth_arg);
		return 403;
	}
	return 0;
}

/* Routes open whatever --read-auth says: the probes kubelet and load
 * balancers use, and /metrics unless --metrics-auth. */
static bool read_open(const struct server *s, const char *path)
{
	return streq(path, "/healthz") || streq(path, "/readyz") ||
	       (streq(path, "/metrics") && !s->o->metrics_auth);
}

bool server_auth_read(struct server *s, struct evhttp_request *req, const char *path,
		      void (*handler)(struct server *s, struct evhttp_request *req,
				      const char *arg),
		      const char *arg)
{
	if (s->o->read_auth == READ_AUTH_NONE || read_open(s, path))
		return true;
	const char *tok = server_auth_bearer_of(
	    evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization"));
	if (!tok) {
		server_reply_error(s, req, 401, "Unauthorized",
				   "missing bearer token (--read-auth)");
		return false;
	}
	if (s->o->read_auth == READ_AUTH_TOKEN) {
		if (const_time_eq(tok, strlen(tok), s->read_token, strlen(s->read_token)))
			return true;
		server_reply_error(s, req, 401, "Unauthorized", "invalid bearer token");
		return false;
	}
	char key[65], why[256];
	tokenreview_key(tok, key);
	const struct token_cache_entry *e = server_auth_cache_slot(s, key, false);
	if (!e) {
		queue_job(s, req, NULL, handler, arg, key, tok);
		return false;
	}
	int code = read_identity(s, &e->id, why, sizeof(why));
	if (!code)
		return true;
	server_reply_error(s, req, code, code == 403 ? "Forbidden" : "Unauthorized", "%s", why);
	return false;
}

/* A reviewed token at a report's headers. With the node the report is for
 * (its Hvready-Node header): bound to it, or 401/403 now, before the body.
 * Without (an older agent): 401 if it is no credential at all; another
 * identity than the agent's (403) is refused with the report, whose node the
 * refusal names (server_auth_bind_identity). */
static int agent_at_headers(struct server *s, const struct token_identity *id, const char *node,
			    char *why, size_t whylen)
{
	if (node)
		return bind_identity(s, id, node, why, whylen);
	return agent_identity(s, id, why, whylen) == 401 ? 401 : 0;
}

/* Queue a review for a request held at its headers: -1, or an HTTP status
 * when it cannot be queued. */
static int queue_conn_review(struct server *s, struct hconn *hc, bool report, const char *node,
			     const char *key, const char *token, char *why, size_t whylen)
{
	const char *client = server_conn_peer(hc);
	int64_t exp_s = 0;
	bool urgent = false;
	int code = review_admit(s, client, token, &exp_s, &urgent, why, whylen);
	if (code)
		return code;
	struct review_job *j = xcalloc(1, sizeof(*j));
	snprintf(j->client, sizeof(j->client), "%s", client);
	j->exp_s = exp_s;
	j->urgent = urgent;
	j->at_headers = true;
	j->for_report = report;
	j->node = report && node ? xstrdup(node) : NULL;
	j->hc = hc;
	hc->job = j;
	memcpy(j->key, key, sizeof(j->key));
	j->token = xstrdup(token);
	if (urgent)
		worker_submit_urgent(&s->reviewer, &j->rq.wj);
	else
		worker_submit(&s->reviewer, &j->rq.wj);
	return -1;
}

int server_auth_headers(struct server *s, struct hconn *hc, bool report, const char *path,
			const char *authorization, const char *node, char *why, size_t whylen)
{
	if (report ? s->o->auth == AUTH_NONE
		   : s->o->read_auth == READ_AUTH_NONE || read_open(s, path))
		return 0;
	const char *tok = server_auth_bearer_of(authorization);
	if (!tok) {
		snprintf(why, whylen, "missing bearer token%s", report ? "" : " (--read-auth)");
		return 401;
	}
	const char *expected = report ? s->token : s->read_token;
	if (report && s->o->auth == AUTH_NODE_TOKENS) {
		/* With Hvready-Node the token is bound to that node here; without
		 * (an older agent) whose node it is needs the body: any node's
		 * token passes here, handle_report() binds it. */
		node_tokens_reload(&s->node_tokens, s->o->node_token_file, util_now_mono_ns());
		if (node) {
			const char *w = NULL;
			int code = node_tokens_check(s->node_tokens, tok, node, &w);
			if (code == 403)
				snprintf(why, whylen, "%s (node %s)", w, node);
			else if (code)
				snprintf(why, whylen, "%s", w);
			return code;
		}
		if (node_tokens_known(s->node_tokens, tok))
			return 0;
		snprintf(why, whylen, "invalid bearer token");
		return 401;
	}
	if ((report && s->o->auth == AUTH_TOKEN_FILE) ||
	    (!report && s->o->read_auth == READ_AUTH_TOKEN)) {
		if (const_time_eq(tok, strlen(tok), expected, strlen(expected)))
			return 0;
		snprintf(why, whylen, "invalid bearer token");
		return 401;
	}
	/* A TokenReview: cached, or asked off the loop while the connection waits. */
	char key[65];
	tokenreview_key(tok, key);
	const struct token_cache_entry *e = server_auth_cache_slot(s, key, false);
	if (e)
		return report ? agent_at_headers(s, &e->id, node, why, whylen)
			      : read_identity(s, &e->id, why, whylen);
	return queue_conn_review(s, hc, report, node, key, tok, why, whylen);
}

static struct review_job *review_job_of(struct worker_job *wj)
{
	return worker_job_of(wj, struct review_job, rq.wj);
}

/* Free a review job (wiping its token); also what is left at the end. */
static void free_job(struct worker_job *wj, void *arg)
{
	struct server *s = arg;
	struct review_job *j = review_job_of(wj);
	if (j->hc)
		j->hc->job = NULL;
	store_rec_unref(&s->store, j->rec);
	free(j->arg);
	free(j->node);
	if (j->token) {
		explicit_bzero(j->token, strlen(j->token));
		free(j->token);
	}
	token_identity_clear(&j->id);
	free(j);
}

/* Reviewer thread: one TokenReview at a time, off the loop. */
static void review(struct worker_job *wj, void *arg)
{
	struct server *s = arg;
	struct review_job *j = review_job_of(wj);
	j->rc = tokenreview_review(s->review_kc, j->token, &j->id, j->err, sizeof(j->err));
	explicit_bzero(j->token, strlen(j->token));
}

/* Loop: cache the review and answer the report, unless its client left. */
static void on_reviewed(struct worker_job *wj, void *arg)
{
	struct server *s = arg;
	struct review_job *j = review_job_of(wj);
	if (j->rc == 0)
		cache_put(s, j->key, &j->id, j->exp_s);
	if (j->at_headers) {
		if (j->hc) {
			char why[512] = "";
			int code = 0;
			bool agent = false;
			if (j->rc < 0) {
				log_warnx("token review failed: %s, ignoring", j->err);
				snprintf(why, sizeof(why), "cannot review the token now: %s",
					 j->err);
				code = 503;
			} else {
				code = j->for_report
					   ? agent_at_headers(s, &j->id, j->node, why, sizeof(why))
					   : read_identity(s, &j->id, why, sizeof(why));
				char ignored[256];
				agent = j->for_report && !code &&
					!agent_identity(s, &j->id, ignored, sizeof(ignored));
			}
			/* The agent's own token: this address's next reviews go first. */
			if (agent)
				agent_addr_seen(s, j->client);
			struct hconn *hc = j->hc;
			j->hc = NULL;
			server_conn_reviewed(hc, code, why);
		}
		free_job(wj, s);
		return;
	}
	if (j->rq.req) {
		evhttp_connection_set_closecb(j->rq.evcon, NULL, NULL);
		char why[256];
		int code = j->rc < 0 ? 503
			   : j->then ? read_identity(s, &j->id, why, sizeof(why))
				     : server_auth_bind_identity(s, &j->id, j->rec->report.node,
								 why, sizeof(why));
		if (j->rc < 0) {
			log_warnx("token review failed: %s, ignoring", j->err);
			server_reply_error(s, j->rq.req, HTTP_SERVUNAVAIL, "Service Unavailable",
					   "cannot review the token now: %s", j->err);
		} else if (code) {
			server_reply_error(s, j->rq.req, code,
					   code == 403 ? "Forbidden" : "Unauthorized", "%s", why);
		} else if (j->then) {
			j->then(s, j->rq.req, j->arg ? j->arg : "");
		} else {
			agent_addr_seen(s, j->client);
			server_accept_report(s, j->rq.req, j->rec);
			j->rec = NULL;
		}
	}
	free_job(wj, s);
}

const struct worker_ops server_auth_reviewer = {
    .work = review,
    .finish = on_reviewed,
    .drop = free_job,
};
