/*
 * The server's background work on verdicts: the evaluator thread computes the
 * verdict from a snapshot and renders its JSON once, gzip-compressed; the
 * renderer thread makes the slow renderings (text, Markdown, HTML, metrics).
 * Also the references that keep snapshots alive: states, evaluations,
 * rendered verdicts.
 */
#include "server_internal.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "metrics.h"
#include "node_conditions.h"
#include "render_html.h"
#include "store.h"
#include "verdict.h"
#include "verdict_stream.h"

/* One evaluation: the snapshot it reads and what it produces. The verdict
 * borrows its host findings from the reports it holds references to, so the
 * job lives as long as its verdict is served. */
struct eval_job {
	struct worker_job wj;
	unsigned refs;	/* loop thread: the server while served, renderings */
	bool trim_only; /* no evaluation: malloc_trim() after a verdict was freed */
	struct store_rec **recs;
	size_t n;
	struct state *st;
	int64_t now_ns, now_mono_ns;
	bool live, want_nc;
	char *state_error; /* handed to the verdict */
	struct server_canary_view canary;
	/* results */
	struct verdict verdict;
	bool have_verdict;
	struct vjson *json;
	struct nc_snapshot *nc;
	int64_t cpu_ns; /* the evaluator's CPU time for it */
	/* loop: the renderings made of this verdict, kept while it is served */
	struct kept *kept;
	size_t kept_bytes;
};

/* A rendering of one verdict (text, Markdown, HTML, the dashboard), sent to
 * every request for the same view until the next verdict: rendering 5,000
 * nodes takes seconds and builds the finding groups each time. Shared by the
 * responses that send it, like struct vjson; loop thread. */
struct kept {
	struct kept *next;
	enum render_kind kind;
	int gate;
	bool paused;
	unsigned statuses;
	unsigned refs;
	char *buf;
	size_t len;
};

/* A rendering is kept if it is at most KEPT_MAX bytes and the verdict's
 * renderings stay within KEPT_TOTAL_MAX (HTML of thousands of nodes is
 * 100 MB and more: made per request, as before). */
#define KEPT_MAX       (16u << 20)
#define KEPT_TOTAL_MAX (32u << 20)

/* ---------- evaluation ---------- */

static struct state *state_ref(struct state *st)
{
	st->refs++;
	return st;
}

void server_eval_state_free(struct state *st)
{
	cluster_state_clear(&st->cs);
	free(st->targets);
	for (size_t i = 0; i < st->n_nodes; i++) {
		free(st->nodes[i].node);
		free(st->nodes[i].json);
	}
	free(st->nodes);
	for (size_t i = 0; i < st->n_pods; i++) {
		free(st->pods[i].key);
		free(st->pods[i].node);
	}
	free(st->pods);
	free(st);
}

void server_eval_state_unref(struct server *s, struct state *st)
{
	if (!st || --st->refs > 0)
		return;
	pthread_mutex_lock(&s->lock);
	st->next_free = s->graveyard;
	s->graveyard = st;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* With s->lock held; drops it while freeing. */
void server_eval_bury(struct server *s)
{
	struct state *list = s->graveyard;
	s->graveyard = NULL;
	pthread_mutex_unlock(&s->lock);
	while (list) {
		struct state *next = list->next_free;
		server_eval_state_free(list);
		list = next;
	}
	pthread_mutex_lock(&s->lock);
}

void server_eval_vjson_unref(struct vjson *vj)
{
	if (vj && --vj->refs == 0) {
		free(vj->gz);
		free(vj);
	}
}

static void kept_unref(struct kept *k)
{
	if (k && --k->refs == 0) {
		free(k->buf);
		free(k);
	}
}

/* libevent is done with the bytes of a response (on the loop thread). */
static void kept_release(const void *data, size_t len, void *arg)
{
	kept_unref(arg);
}

bool server_eval_job_unref(struct server *s, struct eval_job *j)
{
	if (!j || --j->refs > 0)
		return false;
	for (struct kept *k = j->kept, *next; k; k = next) {
		next = k->next;
		kept_unref(k);
	}
	if (j->have_verdict)
		verdict_clear(&j->verdict);
	free(j->state_error);
	server_canary_view_clear(&j->canary);
	for (size_t i = 0; i < j->n; i++)
		store_rec_unref(&s->store, j->recs[i]);
	free(j->recs);
	server_eval_state_unref(s, j->st);
	if (j->nc) {
		node_conditions_snapshot_clear(j->nc);
		free(j->nc);
	}
	server_eval_vjson_unref(j->json);
	free(j);
	return true;
}

/* Evaluator thread: gzip the JSON as it is written. */
struct gz {
	z_stream z;
	uint8_t *out;
	size_t cap;
	size_t len; /* of the JSON */
	bool failed;
	struct eval_job *job;
};

static void gz_grow(struct gz *g)
{
	size_t used = g->cap - g->z.avail_out;
	g->cap = g->cap ? g->cap * 2 : 1u << 20;
	g->out = xrealloc(g->out, g->cap);
	g->z.next_out = g->out + used;
	g->z.avail_out = (uInt)(g->cap - used);
}

static void gz_write(void *ctx, const char *buf, size_t n)
{
	struct gz *g = ctx;
	g->len += n;
	g->z.next_in = (Bytef *)buf;
	g->z.avail_in = (uInt)n;
	while (!g->failed && g->z.avail_in) {
		if (g->z.avail_out == 0)
			gz_grow(g);
		g->failed = deflate(&g->z, Z_NO_FLUSH) != Z_OK;
	}
}

/* A borrowed host finding is written from its piece's cached fragment. */
static const char *gz_fragment(void *ctx, size_t i, size_t *ret_len)
{
	struct gz *g = ctx;
	const struct verdict *v = &g->job->verdict;
	const struct host_ref *h = &v->host_refs[i];
	struct store_piece *p = g->job->recs[h->node]->pieces[h->result];
	const struct finding *f = &v->findings.items[i];
	if (!p->decoded || f->message != p->dec.finding.message ||
	    f->status != p->dec.finding.status)
		return NULL; /* changed by the engine (--skip): written whole */
	if (!p->json) {
		p->json = verdict_stream_fragment(&p->dec.finding, &p->json_len);
		/* The writer's buffer has room for twice its bytes; a fragment
		 * lives as long as its piece (3.6 MB of slack at 5,000 nodes). */
		p->json = xrealloc(p->json, p->json_len + 1);
	}
	*ret_len = p->json_len;
	return p->json;
}

static struct vjson *render_json(struct eval_job *j)
{
	struct gz g = {.job = j};
	/* At thousands of nodes the JSON is tens of megabytes of much the same
	 * findings: zlib's default level compresses it 80-90 times (level 1: 50
	 * times, in half the CPU time). It is done once per evaluation, in the
	 * background; every GET sends the result. */
	if (deflateInit2(&g.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		fatalx("zlib: cannot initialise deflate");
	struct verdict_stream_out out = {.write = gz_write, .ctx = &g, .fragment = gz_fragment};
	verdict_stream_json(&j->verdict, &out);
	gz_write(&g, "\n", 1);
	int r;
	do {
		if (g.z.avail_out == 0)
			gz_grow(&g);
		r = deflate(&g.z, Z_FINISH);
	} while (r == Z_OK);
	if (g.failed || r != Z_STREAM_END)
		fatalx("zlib: deflate failed");
	struct vjson *vj = xcalloc(1, sizeof(*vj));
	vj->refs = 1;
	vj->gz_len = g.cap - g.z.avail_out;
	vj->gz = xrealloc(g.out, vj->gz_len);
	vj->len = g.len;
	deflateEnd(&g.z);
	return vj;
}

/* The fragment of every borrowed host finding, made now (on the evaluator
 * thread) rather than while the JSON is written: a fragment lives as long as
 * its piece, across evaluations, and is kept in the evaluator's heap, apart
 * from what writing the JSON allocates and frees (see render_apart). */
static void make_fragments(struct eval_job *j)
{
	struct gz g = {.job = j};
	for (size_t i = 0; i < j->verdict.n_borrowed; i++) {
		size_t len;
		(void)gz_fragment(&g, i, &len);
	}
}

static int64_t thread_cpu_ns(void);

struct apart {
	struct eval_job *j;
	struct vjson *vj;
	int64_t cpu_ns;
};

static void *render_thread(void *arg)
{
	struct apart *a = arg;
	a->vj = render_json(a->j);
	a->cpu_ns = thread_cpu_ns();
	return NULL;
}

/* Write the JSON on a short-lived thread of its own. Its allocations (the
 * finding groups and their JSON tree, tens of megabytes at 5,000 nodes, all
 * freed once the bytes are compressed) then come from that thread's malloc
 * arena, not from the evaluator's, where the verdict served until the next
 * evaluation and the pieces' decoded findings and fragments live: mixed in
 * one arena, those pinned the pages the transient allocations had freed, and
 * the process kept them resident (docs/benchmarks.md, figure 3). glibc gives
 * the next such thread the arena this one leaves, so the transient memory is
 * reused from one evaluation to the next and returned by malloc_trim(). */
static struct vjson *render_apart(struct eval_job *j, int64_t *ret_cpu_ns)
{
	struct apart a = {.j = j};
	pthread_t t;
	if (pthread_create(&t, NULL, render_thread, &a) != 0)
		return render_json(j); /* counted as the evaluator's own */
	pthread_join(t, NULL);
	*ret_cpu_ns = a.cpu_ns;
	return a.vj;
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void run_job(struct server *s, struct eval_job *j)
{
	int64_t t0 = thread_cpu_ns();
	struct node_entry *nodes = xcalloc(j->n ? j->n : 1, sizeof(*nodes));
	/* 16 MB at 5,000 nodes (56 facts entries and 13 findings a node), freed
	 * before the JSON is written: in one block each, that memory is returned
	 * before the writer's peak instead of staying as holes in this arena. */
	void *views = store_views(j->recs, j->n);
	for (size_t i = 0; i < j->n; i++) {
		nodes[i] = (struct node_entry){.report = &j->recs[i]->report,
					       .received_ns = j->recs[i]->received_ns,
					       .rtt_ns = j->recs[i]->rtt_ns,
					       .generated_mono_ns = j->recs[i]->generated_mono_ns};
	}
	struct agg_ctx ctx = {
	    .cs = &j->st->cs,
	    .nodes = nodes,
	    .n_nodes = j->n,
	    .now_ns = j->now_ns,
	    .now_mono_ns = j->now_mono_ns,
	    .interval_s = s->o->interval_s,
	    .live = j->live,
	    .kc = s->kc,
	    .borrow_host_results = true,
	};
	verdict_evaluate(&j->verdict, &ctx, NULL);
	j->verdict.state_error = j->state_error;
	j->state_error = NULL;
	/* before the node conditions: a canary's FAIL is a gate's blocker */
	server_canary_apply(s, &j->canary, &j->verdict);
	/* The findings array is served until the next verdict: without the
	 * room its growth left (a fifth of it at 5,000 nodes). */
	struct finding_list *fl = &j->verdict.findings;
	if (fl->cap > fl->n && fl->n) {
		fl->items = xrealloc(fl->items, fl->n * sizeof(*fl->items));
		fl->cap = fl->n;
	}
	j->have_verdict = true;
	if (j->want_nc) {
		j->nc = xcalloc(1, sizeof(*j->nc));
		node_conditions_snapshot(j->nc, &j->verdict, &j->st->cs, s->o->interval_s);
	}
	/* The views are the engine's input only: the JSON is written from the
	 * pieces (host_refs). */
	store_views_end(j->recs, j->n, views);
	free(nodes);
	make_fragments(j);
	int64_t render_cpu_ns = 0;
	j->json = render_apart(j, &render_cpu_ns);
	j->cpu_ns = thread_cpu_ns() - t0 + render_cpu_ns;
}

static struct eval_job *eval_job_of(struct worker_job *wj)
{
	return worker_job_of(wj, struct eval_job, wj);
}

/* Evaluator thread. */
static void evaluate(struct worker_job *wj, void *arg)
{
	struct eval_job *j = eval_job_of(wj);
	if (!j->trim_only)
		run_job(arg, j);
	/* Evaluations allocate and free tens of megabytes; what is free goes
	 * back to the system, not to a high-water mark. */
	malloc_trim(0);
}

/* The evaluator shares the CPUs with the loop: it may use at most a tenth
 * of one (large clusters take seconds to evaluate), and never starts within
 * EVAL_MIN_GAP_NS of the end of the last evaluation. Both gaps are counted
 * from that end, not from its start: an evaluation slowed down by load
 * (nice +10 on busy CPUs: seconds of wall time for a fraction of a second of
 * CPU) would otherwise be followed by the next at once, and the process
 * would spend nearly all its time evaluating, holding two verdicts. Ages and
 * staleness change with time alone: without new reports, re-evaluate
 * EVAL_REFRESH_NS after the last. docs/decisions.md. */
#define EVAL_MIN_GAP_NS NSEC_PER_SEC
#define EVAL_REFRESH_NS (5 * NSEC_PER_SEC)

bool server_eval_due(const struct eval_clock *c, int64_t now_mono_ns, bool dirty)
{
	if (!c->end_ns)
		return true; /* none finished yet (the first is started at once) */
	int64_t idle = now_mono_ns - c->end_ns;
	int64_t gap = c->cpu_ns * 10 > EVAL_MIN_GAP_NS ? c->cpu_ns * 10 : EVAL_MIN_GAP_NS;
	return idle >= gap && (dirty || idle >= EVAL_REFRESH_NS);
}

/* Hand a snapshot of the reports and the state to the evaluator: one at a
 * time (s->evaluating). */
void server_eval_start(struct server *s)
{
	struct eval_job *j = xcalloc(1, sizeof(*j));
	j->refs = 1;
	j->n = s->store.n;
	j->recs = xcalloc(j->n ? j->n : 1, sizeof(*j->recs));
	for (size_t i = 0; i < j->n; i++)
		j->recs[i] = store_rec_ref(s->store.entries[i].rec);
	j->st = state_ref(s->st);
	j->now_ns = util_now_realtime_ns();
	j->now_mono_ns = util_now_mono_ns();
	j->live = s->o->kubeconfig || s->o->in_cluster;
	j->state_error = s->state_error ? xstrdup(s->state_error) : NULL;
	j->want_nc = s->nc && node_conditions_due(s->nc);
	server_canary_snapshot(s, &j->canary);
	s->dirty = false;
	s->evaluating = true;
	s->eval_clock.start_ns = util_now_mono_ns();
	worker_submit(&s->evaluator, &j->wj);
}

static void answer_parked(struct server *s)
{
	struct parked *p = s->parked;
	s->parked = NULL;
	while (p) {
		struct parked *next = p->next;
		if (p->req)
			p->handler(s, p->req, "");
		free(p);
		p = next;
	}
}

/* Loop: a verdict no longer served nor rendered was freed (on this thread):
 * give its memory back to the system. The trim after an evaluation comes
 * before the verdict it replaced is freed (here, on the loop), so without
 * this one a whole verdict's worth of freed pages (about 12 MB at 5,000
 * nodes, docs/benchmarks.md) stayed resident from one evaluation to the
 * next. malloc_trim() walks every arena for milliseconds, so it runs on the
 * evaluator thread, as a job queued ahead of the next evaluation. */
static void trim_after_free(struct server *s)
{
	struct eval_job *t = xcalloc(1, sizeof(*t));
	t->refs = 1;
	t->trim_only = true;
	worker_submit(&s->evaluator, &t->wj);
}

/* Loop: serve the verdict the evaluator finished. */
static void on_evaluated(struct worker_job *wj, void *arg)
{
	struct server *s = arg;
	struct eval_job *j = eval_job_of(wj);
	if (j->trim_only) {
		server_eval_job_unref(s, j);
		return;
	}
	s->evaluating = false;
	s->eval_clock.end_ns = util_now_mono_ns();
	s->eval_clock.cpu_ns = j->cpu_ns;
	s->mc.evaluations++;
	s->mc.eval_wall_ns = s->eval_clock.end_ns - s->eval_clock.start_ns;
	s->mc.eval_cpu_ns = j->cpu_ns;
	s->mc.eval_nodes = j->n;
	if (j->nc) {
		node_conditions_offer(s->nc, j->nc);
		j->nc = NULL;
	}
	server_eval_vjson_unref(s->json);
	s->json = j->json;
	j->json = NULL;
	struct eval_job *old = s->current;
	s->current = j;
	if (server_eval_job_unref(s, old))
		trim_after_free(s);
	char status[128];
	snprintf(status, sizeof(status), "STATUS=%zu %s reporting; verdict %s", j->n,
		 plural((int64_t)j->n, "node", "nodes"),
		 status_name(verdict_status(&j->verdict, -1)));
	sd_notify(0, status);
	answer_parked(s);
}

static void drop_eval(struct worker_job *wj, void *arg)
{
	server_eval_job_unref(arg, eval_job_of(wj));
}

const struct worker_ops server_eval_evaluator = {
    .work = evaluate,
    .finish = on_evaluated,
    .drop = drop_eval,
    .background = true,
};

/* Before the first verdict: answer when it is there (evaluation starts now). */
void server_eval_park(struct server *s, struct evhttp_request *req,
		      void (*handler)(struct server *s, struct evhttp_request *req,
				      const char *arg))
{
	struct parked *p = xcalloc(1, sizeof(*p));
	p->req = req;
	p->evcon = evhttp_request_get_connection(req);
	p->handler = handler;
	p->next = s->parked;
	s->parked = p;
	evhttp_connection_set_closecb(p->evcon, server_on_conn_close, s);
	if (!s->evaluating)
		server_eval_start(s);
}

/* ---------- renderings off the loop ---------- */

#define RENDER_MAX_PENDING 32

static struct render_job *render_job_of(struct worker_job *wj)
{
	return worker_job_of(wj, struct render_job, rq.wj);
}

/* Free a rendering and its references; also what is left at the end. */
static void free_render(struct worker_job *wj, void *arg)
{
	struct server *s = arg;
	struct render_job *j = render_job_of(wj);
	server_eval_job_unref(s, j->verdict);
	server_eval_state_unref(s, j->st);
	for (size_t i = 0; i < j->nodes.n; i++)
		store_rec_unref(&s->store, j->nodes.entries[i].rec);
	free(j->nodes.entries);
	free(j->buf);
	free(j);
}

/* Renderer thread: only what the job holds references to. */
static void render(struct worker_job *wj, void *arg)
{
	struct render_job *j = render_job_of(wj);
	FILE *f = open_memstream(&j->buf, &j->len);
	if (!f)
		return;
	const struct verdict *v = j->verdict ? &j->verdict->verdict : NULL;
	switch (j->kind) {
	case RENDER_TEXT:
		verdict_render_text_view(f, v, j->gate, j->statuses, false);
		break;
	case RENDER_MARKDOWN:
		verdict_render_markdown_view(f, v, j->gate, j->statuses);
		break;
	case RENDER_HTML:
		verdict_render_html_view(f, v, j->gate, j->statuses, 0);
		break;
	case RENDER_PAGE:
		verdict_render_html_view(f, v, j->gate, j->statuses,
					 j->paused ? -1 : j->interval_s);
		break;
	case RENDER_METRICS:
		/* Of the state, only plain fields (statuses, times) are read: the
		 * evaluator may be using it meanwhile. */
		metrics_render(f, v, &j->nodes, j->st ? &j->st->cs : NULL, &j->mc, j->now_ns);
		break;
	}
	if (fclose(f) != 0) {
		free(j->buf);
		j->buf = NULL;
	}
}

static const char *const render_types[] = {
    [RENDER_TEXT] = "text/plain; charset=utf-8",
    [RENDER_MARKDOWN] = "text/markdown; charset=utf-8",
    [RENDER_HTML] = "text/html; charset=utf-8",
    [RENDER_PAGE] = "text/html; charset=utf-8",
    [RENDER_METRICS] = "text/plain; version=0.0.4; charset=utf-8",
};

static bool same_view(const struct kept *k, const struct render_job *j)
{
	return k->kind == j->kind && k->gate == j->gate && k->statuses == j->statuses &&
	       k->paused == j->paused;
}

static struct kept *kept_find(struct eval_job *v, const struct render_job *j)
{
	for (struct kept *k = v ? v->kept : NULL; k; k = k->next)
		if (same_view(k, j))
			return k;
	return NULL;
}

/* Send a kept rendering by reference. */
static void reply_kept(struct evhttp_request *req, struct kept *k)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	server_content_headers(h, render_types[k->kind]);
	evhttp_add_header(h, "Cache-Control", "no-store");
	struct evbuffer *b = evbuffer_new();
	k->refs++;
	if (!b || evbuffer_add_reference(b, k->buf, k->len, kept_release, k) < 0)
		kept_unref(k);
	evhttp_send_reply(req, HTTP_OK, "OK", b);
	if (b)
		evbuffer_free(b);
}

/* Keep a verdict's rendering for the next requests of the same view (it
 * takes j->buf), unless one is kept already or it is too large. */
static struct kept *keep(struct render_job *j)
{
	struct eval_job *v = j->verdict;
	if (j->kind == RENDER_METRICS || !v || !j->buf || kept_find(v, j) || j->len > KEPT_MAX ||
	    v->kept_bytes + j->len > KEPT_TOTAL_MAX)
		return NULL;
	struct kept *k = xcalloc(1, sizeof(*k));
	*k = (struct kept){.next = v->kept,
			   .kind = j->kind,
			   .gate = j->gate,
			   .paused = j->paused,
			   .statuses = j->statuses,
			   .refs = 1,
			   .buf = j->buf,
			   .len = j->len};
	j->buf = NULL;
	v->kept = k;
	v->kept_bytes += k->len;
	return k;
}

/* Loop: answer with the rendering, unless its client left. */
static void on_rendered(struct worker_job *wj, void *arg)
{
	struct server *s = arg;
	struct render_job *j = render_job_of(wj);
	if (j->kind != RENDER_METRICS && j->verdict)
		s->mc.renderings++;
	struct kept *k = keep(j);
	if (j->rq.req && k)
		reply_kept(j->rq.req, k);
	else if (j->rq.req && j->buf)
		server_reply(j->rq.req, HTTP_OK, "OK", render_types[j->kind], j->buf, j->len);
	else if (j->rq.req)
		server_reply_error(s, j->rq.req, HTTP_INTERNAL, "Internal Server Error",
				   "out of memory");
	struct eval_job *v = j->verdict; /* the last reference to a replaced verdict? */
	j->verdict = NULL;
	free_render(wj, s);
	if (server_eval_job_unref(s, v))
		trim_after_free(s);
}

const struct worker_ops server_eval_renderer = {
    .work = render,
    .finish = on_rendered,
    .drop = free_render,
    .background = true,
};

/* Hand a rendering of the current verdict (metrics: and of the store) to the
 * renderer thread; the answer follows when it is done. */
void server_eval_queue_render(struct server *s, struct evhttp_request *req, enum render_kind kind,
			      int gate, bool paused, unsigned statuses)
{
	struct render_job *j = xcalloc(1, sizeof(*j));
	j->rq.req = req;
	j->rq.evcon = evhttp_request_get_connection(req);
	j->kind = kind;
	j->interval_s = s->o->interval_s;
	j->gate = gate;
	j->paused = paused;
	j->statuses = statuses;
	/* The same view of the verdict served: rendered already (a verdict and
	 * a view decide every byte of it; the metrics read the store too). */
	struct kept *k = kind != RENDER_METRICS ? kept_find(s->current, j) : NULL;
	if (k) {
		free(j);
		reply_kept(req, k);
		return;
	}
	if (s->renderer.pending >= RENDER_MAX_PENDING) {
		free(j);
		server_reply_error(s, req, HTTP_SERVUNAVAIL, "Service Unavailable",
				   "too many renderings in flight; retry later");
		return;
	}
	if (s->current) {
		j->verdict = s->current;
		s->current->refs++;
	}
	j->now_ns = util_now_realtime_ns();
	if (kind == RENDER_METRICS) {
		j->st = s->st ? state_ref(s->st) : NULL;
		j->mc = s->mc;
		j->nodes.n = s->store.n;
		j->nodes.accepted = s->store.accepted;
		j->nodes.stale = s->store.stale;
		j->nodes.entries = xcalloc(s->store.n ? s->store.n : 1, sizeof(struct store_entry));
		for (size_t i = 0; i < s->store.n; i++)
			j->nodes.entries[i].rec = store_rec_ref(s->store.entries[i].rec);
	}
	evhttp_connection_set_closecb(j->rq.evcon, server_on_conn_close, s);
	worker_submit(&s->renderer, &j->rq.wj);
}
