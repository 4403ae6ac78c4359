#include "agent.h"
#include "check_select.h"
#include "netguard.h"
#include "checks.h"
#include "helper.h"
#include "log.h"
#include "probe_netns.h"
#include "run_prefetch.h"
#include "sys_uts.h"
#include "threads.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct finding *agent_finding(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = finding_list_add(&ctx->report->results, id);
	finding_set_node(f, ctx->report->node);
	return f;
}

bool agent_result(const struct agent_ctx *ctx, const char *id, enum status *ret)
{
	return finding_list_status(&ctx->report->results, id, ret);
}

void agent_opts_init(struct agent_opts *o)
{
	*o = (struct agent_opts){
	    .host_root = xstrdup("/"),
	    .timeout_s = 10,
	    .interval_s = 30,
	    .thr =
		{
		    .clock_maxerror_warn_us = 1500000,
		    .min_cpu_cores = 8,
		    .min_memory_bytes = INT64_C(32) << 30,
		    .longhorn_min_available_pct = 25,
		},
	};
}

void agent_opts_clear(struct agent_opts *o)
{
	free(o->host_root);
	free(o->node);
	free(o->probe_targets_file);
	free(o->probe_netns);
	free(o->aggregator_url);
	free(o->ca_file);
	free(o->token_file);
	strv_clear(&o->skip);
	strv_clear(&o->only);
	probe_targets_clear(&o->targets);
	*o = (struct agent_opts){0};
}

char *agent_node_name(const struct agent_opts *o, const char *hostname)
{
	return xstrdup(o->node ? o->node : hostname ? hostname : "unknown");
}

bool agent_network_check(const char *id)
{
	for (size_t i = 0; i < helper_network_checks_len; i++)
		if (streq(helper_network_checks[i], id))
			return true;
	return false;
}

/* A network check that cannot probe from the namespace it was asked to
 * probe from decides nothing: from another network its answer would be
 * about another path. */
static void netns_unknown(struct agent_ctx *ctx, const char *id, const char *err)
{
	struct finding *f = agent_finding(ctx, id);
	finding_set(f, STATUS_UNKNOWN, "not probed: cannot enter the network namespace %s",
		    ctx->opts->probe_netns);
	kv_add_str(&f->evidence, "probe_netns", ctx->opts->probe_netns);
	kv_add_str(&f->evidence, "error", err);
	finding_remedy(
	    f, "%s",
	    "Entering the host's network namespace needs CAP_SYS_ADMIN and the host's "
	    "PID namespace (the DaemonSet in deploy/ runs privileged with hostPID and "
	    "--probe-netns=/proc/1/ns/net); on the host itself, leave --probe-netns out.");
}

/* The NFS probe without endpoints says SKIP without going to the network:
 * a namespace it cannot enter changes nothing of that. */
static bool nothing_to_probe(const struct agent_ctx *ctx, const char *id)
{
	const struct probe_targets *t = &ctx->opts->targets;
	return streq(id, "host.nfs.probe") && t->nfs_endpoints.n == 0 && !t->canary_export;
}

/* ---------- the deadline: the steps of a run in a worker thread ----------
 *
 * A read that blocks although it opened O_NONBLOCK (a hung NFS mount under
 * the host root, a stuck procfs or sysfs file, a stat in D state) must not
 * stall the report. The steps of a run (the node's identity, each row of the
 * check table, the facts) run one after the other in a worker thread, on
 * private copies of what they read (the options, the host root's fd, the
 * statuses of the findings so far) and into a private report; after each
 * step the worker hands its findings and facts to the runner's report. The
 * runner sleeps until the worker has done every step, waking when the step
 * that runs reaches its budget (--timeout; NETWORK_BUDGET_TIMEOUTS of them for
 * a network check). A step that misses it is given up: its check is UNKNOWN
 * "blocked", the worker is abandoned (detached, never joined; it hands
 * nothing over once given up, and ends after that step), and a new worker
 * goes on with the next step. The job stays in blocked_jobs until its thread
 * ends; while it lives the step is not started again (the next cycle of `run`
 * reports it "still blocked since ..."). docs/robustness.md.
 *
 * One worker a run, not one thread a check: a thread a check cost 3.8 ms of
 * CPU and 30 context switches a run, and on a loaded machine every hand-over
 * waits for a CPU (docs/benchmarks.md, issue #22). */

/* The network checks bound their own probes in --timeout units (up to 3 for
 * host.nfs.probe, a few requests per registry); the thread's budget is the
 * same backstop as the daemon's probe helper's (daemon.c). */
#define NETWORK_BUDGET_TIMEOUTS 12
#define BLOCKED_JOBS_MAX	64

/* The steps of a run: the identity, row i of the table as STEP_ROW(i), the facts. */
#define STEP_IDENTITY 0
#define STEP_ROW(i)   ((i) + 1)
#define STEP_FACTS    (host_checks_len + 1)

struct check_job {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC; signalled when done */
	/* under lock: */
	bool done;	    /* the worker has ended */
	bool abandoned;	    /* the runner gave up on step cur: hand nothing over */
	bool facts_blocked; /* the facts step found an earlier one still blocked */
	char last[256];	    /* the last host path the step opened */
	size_t cur;	    /* the step that runs */
	int64_t started_mono_ns, started_real_ns; /* when cur started */
	/* the worker's: */
	size_t end;		  /* it runs steps [cur, end) */
	bool whole_run;		  /* agent_run_checks: skip/only and deferral apply */
	size_t index;		  /* its slot in blocked_jobs when parked */
	struct agent_ctx *runner; /* handed over to under lock, while not abandoned */
	pthread_t thread;	  /* joined when done, detached when abandoned */
	struct agent_opts opts;
	struct node_report report;
	struct agent_ctx ctx;
	bool
	    own_procs; /* abandoned: ctx.procs, .units, .kconfig (heap) are the job's, freed with it */
};

static pthread_mutex_t blocked_lock = PTHREAD_MUTEX_INITIALIZER;
static struct check_job *blocked_jobs[BLOCKED_JOBS_MAX];
#define FACTS_SLOT    (BLOCKED_JOBS_MAX - 1)
#define IDENTITY_SLOT (BLOCKED_JOBS_MAX - 2)

static void strv_copy(struct strv *dst, const struct strv *src)
{
	*dst = (struct strv){0};
	for (size_t i = 0; i < src->n; i++)
		strv_add(dst, src->items[i]);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void opts_copy(struct agent_opts *dst, const struct agent_opts *src)
{
	*dst = *src;
	dst->host_root = dup_or_null(src->host_root);
	dst->node = dup_or_null(src->node);
	dst->probe_targets_file = dup_or_null(src->probe_targets_file);
	dst->probe_netns = dup_or_null(src->probe_netns);
	dst->aggregator_url = dup_or_null(src->aggregator_url);
	dst->ca_file = dup_or_null(src->ca_file);
	dst->token_file = dup_or_null(src->token_file);
	strv_copy(&dst->skip, &src->skip);
	strv_copy(&dst->only, &src->only);
	probe_targets_copy(&dst->targets, &src->targets);
}

static void job_free(struct check_job *j)
{
	if (j->own_procs && j->ctx.procs) {
		procs_scan_clear(j->ctx.procs);
		free(j->ctx.procs);
	}
	if (j->own_procs && j->ctx.units) {
		unit_scan_clear(j->ctx.units);
		free(j->ctx.units);
	}
	if (j->own_procs && j->ctx.kconfig) {
		kconfig_cache_clear(j->ctx.kconfig);
		free(j->ctx.kconfig);
	}
	run_prefetch_unref(j->ctx.prefetch);
	hostroot_close(&j->ctx.root);
	node_report_clear(&j->report);
	agent_opts_clear(&j->opts);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
}

static void job_trace(void *arg, const char *path)
{
	struct check_job *j = arg;
	/* Called for every path a check opens: a plain bounded copy (as
	 * snprintf "%s" truncates), not a format. */
	size_t n = strnlen(path, sizeof(j->last) - 1);
	pthread_mutex_lock(&j->lock);
	memcpy(j->last, path, n);
	j->last[n] = '\0';
	pthread_mutex_unlock(&j->lock);
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* What a finding handed over leaves behind: its check and status, all that
 * agent_result() reads. */
static struct finding finding_stub(const struct finding *f)
{
	return (struct finding){.check = dup_or_null(f->check), .status = f->status};
}

/* A job for steps [first, end) of ctx's run: private copies of what the steps
 * read. NULL when the host root's fd cannot be duplicated. */
static struct check_job *job_new(struct agent_ctx *ctx, size_t first, size_t end, bool whole_run)
{
	struct check_job *j = xmalloc(sizeof(*j));
	*j = (struct check_job){.cur = first, .end = end, .whole_run = whole_run, .runner = ctx};
	int fd = fcntl(ctx->root.fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		free(j);
		return NULL;
	}
	pthread_mutex_init(&j->lock, NULL);
	cond_init_monotonic(&j->cond);
	opts_copy(&j->opts, ctx->opts);
	j->report.node = dup_or_null(ctx->report->node);
	j->report.hostname = dup_or_null(ctx->report->hostname);
	j->report.boot_id = dup_or_null(ctx->report->boot_id);
	/* The statuses of the findings so far, for agent_result(). */
	const struct finding_list *l = &ctx->report->results;
	if (l->n) {
		j->report.results.items = xcalloc(l->n, sizeof(*l->items));
		j->report.results.cap = l->n;
	}
	for (size_t k = 0; k < l->n; k++)
		j->report.results.items[j->report.results.n++] = finding_stub(&l->items[k]);
	j->ctx = (struct agent_ctx){
	    .root = {.fd = fd, .path = xstrdup(ctx->root.path)},
	    .opts = &j->opts,
	    .report = &j->report,
	    /* Lent for the run; the job keeps them if abandoned (run_steps). */
	    .procs = ctx->procs,
	    .units = ctx->units,
	    .kconfig = ctx->kconfig,
	    .prefetch = run_prefetch_ref(ctx->prefetch),
	    /* The daemon's probe helper runs the network checks (row_wanted). */
	    .defer_network = ctx->defer_network,
	};
	return j;
}

static int64_t check_budget_ns(const struct agent_ctx *ctx, const char *id)
{
	int64_t t = (int64_t)ctx->opts->timeout_s * NSEC_PER_SEC;
	return agent_network_check(id) ? NETWORK_BUDGET_TIMEOUTS * t : t;
}

static int64_t step_budget_ns(const struct agent_ctx *ctx, size_t step)
{
	if (step == STEP_IDENTITY || step == STEP_FACTS)
		return (int64_t)ctx->opts->timeout_s * NSEC_PER_SEC;
	return check_budget_ns(ctx, host_checks[step - 1].id);
}

/* The abandoned (or earlier) job j's last path and start, under its lock. */
static char *job_last(const struct agent_ctx *ctx, struct check_job *j, int64_t *ret_mono,
		      int64_t *ret_real)
{
	pthread_mutex_lock(&j->lock);
	char *at = j->last[0] ? hostroot_display(&ctx->root, j->last) : NULL;
	if (ret_mono)
		*ret_mono = j->started_mono_ns;
	if (ret_real)
		*ret_real = j->started_real_ns;
	pthread_mutex_unlock(&j->lock);
	return at;
}

static void blocked_unknown(struct agent_ctx *ctx, const char *id, struct check_job *j, bool still)
{
	int64_t mono, real;
	_cleanup_free_ char *at = job_last(ctx, j, &mono, &real);
	int64_t secs = (util_now_mono_ns() - mono) / NSEC_PER_SEC;
	struct finding *f = agent_finding(ctx, id);
	char since[64] = "";
	time_t t = (time_t)(real / NSEC_PER_SEC);
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (still)
		finding_set(f, STATUS_UNKNOWN,
			    "still blocked since %s%s%s (%lld s), not started again", since,
			    at ? ": last at " : "", at ? at : "", (long long)secs);
	else
		finding_set(f, STATUS_UNKNOWN, "blocked: %s%s after %lld s",
			    at ? "last at " : "reading the host", at ? at : "", (long long)secs);
	if (at)
		kv_add_str(&f->evidence, "blocked_last_path", at);
	kv_add_int(&f->evidence, "blocked_seconds", secs);
	kv_add_str(&f->evidence, "blocked_since", since);
	finding_remedy(f, "%s",
		       "A host read did not return within the check's deadline (--timeout): look "
		       "for a hung mount (NFS) under the host root or a process in D state "
		       "(ps -eo pid,stat,wchan,cmd | awk '$2 ~ /D/'); the agent runs the check "
		       "again once the blocked read returns.");
}

/* The job parked in slot whose thread still runs (it stays parked), or NULL;
 * frees one that has ended. */
static struct check_job *slot_job(size_t slot)
{
	if (slot >= BLOCKED_JOBS_MAX)
		return NULL;
	pthread_mutex_lock(&blocked_lock);
	struct check_job *j = blocked_jobs[slot];
	if (j) {
		pthread_mutex_lock(&j->lock);
		bool alive = !j->done;
		pthread_mutex_unlock(&j->lock);
		if (!alive) {
			blocked_jobs[slot] = NULL;
			job_free(j);
			j = NULL;
		}
	}
	pthread_mutex_unlock(&blocked_lock);
	/* A parked job is freed only here, by the runner or its one worker. */
	return j;
}

static bool slot_alive(size_t slot)
{
	return slot_job(slot) != NULL;
}

/* Whether the check of row i is still blocked from an earlier run (then it is
 * reported so); frees the job of one that has ended. */
static bool still_blocked(struct agent_ctx *ctx, size_t i, const char *id)
{
	struct check_job *j = slot_job(i);
	if (j)
		blocked_unknown(ctx, id, j, true);
	return j != NULL;
}

/* HVREADY_TIMINGS=1 (a benchmark hook, docs/benchmarks.md): each finished
 * check's cost on stderr, "timing<TAB>ID<TAB>wall ms<TAB>cpu ms": the step's
 * wall time and the CPU time the worker spent in it. */
static void step_timing(const char *id, int64_t wall_ns, int64_t cpu_ns)
{
	const char *tv = getenv("HVREADY_TIMINGS");
	if (!tv || !*tv || streq(tv, "0"))
		return;
	fprintf(stderr, "timing\t%s\t%.3f\t%.3f\n", id, (double)wall_ns / (double)NSEC_PER_MSEC,
		(double)cpu_ns / (double)NSEC_PER_MSEC);
}

/* Leave a job whose thread still runs in its slot, for still_blocked(). */
static void job_park(struct check_job *j, size_t slot)
{
	j->index = slot;
	pthread_mutex_lock(&blocked_lock);
	if (j->index < BLOCKED_JOBS_MAX && !blocked_jobs[j->index])
		blocked_jobs[j->index] = j;
	/* No slot (never with the table's size): the job is left to its thread for good. */
	pthread_mutex_unlock(&blocked_lock);
}

/* Whether row i is a network check to run from --probe-netns. */
static bool row_in_netns(const struct agent_ctx *ctx, size_t i)
{
	const char *id = host_checks[i].id;
	return ctx->opts->probe_netns && agent_network_check(id) && !nothing_to_probe(ctx, id);
}

/* What comes before row i's check runs: SKIP for a check --skip/--only leave
 * out, nothing for one the daemon's probe helper runs, "still blocked" for one
 * whose earlier thread lives. Returns whether the check is to run. */
static bool row_wanted(struct agent_ctx *ctx, size_t i, bool whole_run)
{
	const char *id = host_checks[i].id;
	if (whole_run) {
		const char *why = check_left_out(&ctx->opts->skip, &ctx->opts->only, id);
		if (why) {
			finding_set(agent_finding(ctx, id), STATUS_SKIP, "%s", why);
			return false;
		}
		if (ctx->defer_network && agent_network_check(id))
			return false; /* the daemon's probe helper runs it (agent_add_deferred) */
	}
	return !still_blocked(ctx, i, id);
}

/* The findings from `before` on: every one with the node set, and the
 * network namespace of a check that probed from one. */
static void row_finish(struct agent_ctx *ctx, size_t i, size_t before, const char *netns)
{
	struct finding_list *l = &ctx->report->results;
	struct finding *none = check_no_result(l, before, host_checks[i].id);
	if (none) {
		finding_set_node(none, ctx->report->node);
		return;
	}
	for (size_t k = before; netns && k < l->n; k++)
		kv_add_str(&l->items[k].evidence, "network_namespace", netns);
}

/* Row i in the worker; whether its check ran. */
static bool row_step(struct check_job *j, size_t i)
{
	struct agent_ctx *ctx = &j->ctx;
	const char *id = host_checks[i].id;
	if (!row_wanted(ctx, i, j->whole_run))
		return false;
	const char *netns = NULL, *err = NULL;
	/* Entered by the runner before this worker started (run_steps): the
	 * answer is the process's. */
	if (row_in_netns(ctx, i) && probe_netns_enter(ctx->opts->probe_netns, &netns, &err) < 0) {
		netns_unknown(ctx, id, err);
		return false;
	}
	size_t before = ctx->report->results.n;
	/* Probe targets come from cluster objects: no metadata service unless allowed. */
	netguard_set_probe_link_local(ctx->opts->allow_link_local_probes);
	host_checks[i].run(ctx, id);
	row_finish(ctx, i, before, netns);
	return true;
}

static void identity_step(struct agent_ctx *ctx)
{
	struct node_report *r = ctx->report;
	if (!r->hostname)
		r->hostname = agent_hostname(&ctx->root);
	if (!r->boot_id) {
		char *b = NULL;
		r->boot_id =
		    hostroot_read_line(&ctx->root, "proc/sys/kernel/random/boot_id", &b) == 0
			? b
			: xstrdup("");
	}
}

/* The node's name, as the runner gives it once the identity is read. */
static void node_from_identity(struct node_report *r, const struct agent_opts *o)
{
	if (!r->node)
		r->node = agent_node_name(o, r->hostname && *r->hostname ? r->hostname : NULL);
}

static void worker_node(struct check_job *j)
{
	node_from_identity(&j->report, &j->opts);
}

/* Step s's results into the runner's report (under j->lock, not abandoned). */
static void hand_over(struct check_job *j, size_t s, size_t before)
{
	struct node_report *from = &j->report, *to = j->runner->report;
	if (s == STEP_IDENTITY) {
		if (!to->hostname)
			to->hostname = dup_or_null(from->hostname);
		if (!to->boot_id)
			to->boot_id = dup_or_null(from->boot_id);
		if (!to->node)
			to->node = dup_or_null(from->node);
		return;
	}
	if (s == STEP_FACTS) {
		kv_list_clear(&to->facts);
		to->facts = from->facts;
		from->facts = (struct kv_list){0};
		return;
	}
	struct finding_list *fl = &from->results, *tl = &to->results;
	for (size_t k = before; k < fl->n; k++) {
		util_grow((void **)&tl->items, &tl->cap, tl->n + 1, sizeof(*tl->items));
		tl->items[tl->n++] = fl->items[k];
		fl->items[k] = finding_stub(&tl->items[tl->n - 1]);
	}
	/* A row's facts, as a check recorded them (facts.h). */
	struct kv_list *ff = &from->facts, *tf = &to->facts;
	for (size_t k = 0; k < ff->n; k++)
		kv_add_value(tf, ff->items[k].key, &ff->items[k].val);
	kv_list_clear(ff);
}

static void *worker_main(void *arg)
{
	struct check_job *j = arg;
	hostroot_set_tracer(job_trace, j);
	pthread_mutex_lock(&j->lock);
	size_t s = j->cur, end = j->end;
	pthread_mutex_unlock(&j->lock);
	for (; s < end; s++) {
		int64_t t0 = util_now_mono_ns(), cpu0 = thread_cpu_ns();
		size_t before = j->report.results.n;
		bool ran = true, facts_blocked = false;
		if (s == STEP_IDENTITY) {
			identity_step(&j->ctx);
			worker_node(j);
			ran = false; /* no timing line, as before */
		} else if (s == STEP_FACTS) {
			/* Not the run's scans: facts read what they read themselves. */
			j->ctx.procs = NULL;
			j->ctx.units = NULL;
			j->ctx.kconfig = NULL;
			run_prefetch_unref(j->ctx.prefetch);
			j->ctx.prefetch = NULL;
			facts_blocked = slot_alive(FACTS_SLOT);
			if (!facts_blocked) {
				/* The facts the checks recorded: collected only when missing. */
				pthread_mutex_lock(&j->lock);
				kv_list_clear(&j->report.facts);
				kv_list_copy(&j->report.facts, &j->runner->report->facts);
				pthread_mutex_unlock(&j->lock);
				facts_collect(&j->ctx);
			}
			ran = !facts_blocked;
		} else {
			ran = row_step(j, s - 1);
		}
		int64_t now = util_now_mono_ns(), cpu = thread_cpu_ns() - cpu0;
		pthread_mutex_lock(&j->lock);
		bool gone = j->abandoned;
		if (!gone) {
			if (facts_blocked)
				j->facts_blocked = true;
			else
				hand_over(j, s, before);
			/* The next step's budget starts now; s is done, in the same breath. */
			j->cur = s + 1;
			j->started_mono_ns = now;
			j->started_real_ns = util_now_realtime_ns();
			j->last[0] = '\0';
		}
		pthread_mutex_unlock(&j->lock);
		if (gone)
			break;
		if (ran)
			step_timing(s == STEP_FACTS ? "facts" : host_checks[s - 1].id, now - t0,
				    cpu);
	}
	hostroot_set_tracer(NULL, NULL);
	pthread_mutex_lock(&j->lock);
	j->done = true;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* Start j's worker and wait until it has done its steps (1), the step that
 * runs misses its budget or the agent stops (0: j->cur is that step, the job
 * is abandoned, *ret_stop says which), or it cannot start (-errno). */
static int job_run(struct agent_ctx *ctx, struct check_job *j, bool *ret_stop)
{
	j->started_mono_ns = util_now_mono_ns();
	j->started_real_ns = util_now_realtime_ns();
	/* The thread takes no signal: SIGTERM stays the loop's (daemon.c). */
	int e = thread_start(&j->thread, worker_main, j);
	if (e != 0)
		return -e;
	pthread_mutex_lock(&j->lock);
	bool stop = false;
	while (!j->done && !stop) {
		if (j->cur >= j->end) {
			/* Every step done: the worker is ending. */
			pthread_cond_wait(&j->cond, &j->lock);
			continue;
		}
		int64_t now = util_now_mono_ns();
		int64_t deadline = j->started_mono_ns + step_budget_ns(ctx, j->cur);
		if (now >= deadline)
			break;
		/* Wake at least every 200 ms to see a stop request. */
		int64_t until = ctx->stop && now + 200 * NSEC_PER_MSEC < deadline
				    ? now + 200 * NSEC_PER_MSEC
				    : deadline;
		struct timespec ts = {(time_t)(until / NSEC_PER_SEC), (long)(until % NSEC_PER_SEC)};
		pthread_cond_timedwait(&j->cond, &j->lock, &ts);
		if (!j->done && ctx->stop) {
			pthread_mutex_unlock(&j->lock);
			stop = ctx->stop(ctx->stop_arg);
			pthread_mutex_lock(&j->lock);
		}
	}
	bool done = j->done;
	if (!done)
		j->abandoned = true;
	pthread_mutex_unlock(&j->lock);
	/* Done: the worker is returning; its exit frees its libraries' per-thread
	 * state (threads.h), so wait for it. Abandoned: it ends when it ends. */
	if (done)
		pthread_join(j->thread, NULL);
	else
		pthread_detach(j->thread);
	*ret_stop = stop;
	return done ? 1 : 0;
}

/* The node's identity could not be read (why; at: where it blocked): the
 * report goes without the hostname and boot_id. */
static void identity_missing(struct agent_ctx *ctx, const char *why, const char *at)
{
	struct node_report *r = ctx->report;
	log_warnx("node identity: %s%s%s after at most %d s; the report goes without the "
		  "hostname and boot_id (node name %s)",
		  why, at ? ": last at " : "", at ? at : "", ctx->opts->timeout_s,
		  ctx->opts->node ? "from --node" : "\"unknown\"");
	if (!r->hostname)
		r->hostname = xstrdup("");
	if (!r->boot_id)
		r->boot_id = xstrdup("");
}

/* Step s, which no worker could run (why): what the old runner said. */
static void step_not_run(struct agent_ctx *ctx, size_t s, bool whole_run, const char *why, int err)
{
	if (s == STEP_IDENTITY) {
		identity_missing(ctx, why, NULL);
		node_from_identity(ctx->report, ctx->opts);
		return;
	}
	if (s == STEP_FACTS) {
		log_warnx("facts: %s: %s, ignoring", why, strerror(err));
		return;
	}
	size_t i = s - 1;
	if (!row_wanted(ctx, i, whole_run))
		return;
	size_t before = ctx->report->results.n;
	struct finding *f = agent_finding(ctx, host_checks[i].id);
	finding_set(f, STATUS_UNKNOWN, "not run: %s: %s", why, strerror(err));
	const char *netns = NULL, *nerr = NULL;
	if (row_in_netns(ctx, i))
		probe_netns_enter(ctx->opts->probe_netns, &netns, &nerr);
	row_finish(ctx, i, before, netns);
}

/* Step s of j, given up: UNKNOWN "blocked" for a check (the agent stopping
 * says so), a warning for the identity and the facts; the job is parked. */
static void step_abandoned(struct agent_ctx *ctx, struct check_job *j, size_t s, bool stop)
{
	_cleanup_free_ char *at = job_last(ctx, j, NULL, NULL);
	if (s == STEP_IDENTITY) {
		identity_missing(ctx, "blocked", at);
		node_from_identity(ctx->report, ctx->opts);
		job_park(j, IDENTITY_SLOT);
		return;
	}
	if (s == STEP_FACTS) {
		log_warnx("facts: blocked%s%s after %d s; the report carries the facts its checks "
			  "recorded, ignoring",
			  at ? ": last at " : "", at ? at : "", ctx->opts->timeout_s);
		job_park(j, FACTS_SLOT);
		return;
	}
	size_t i = s - 1;
	const char *id = host_checks[i].id;
	/* The thread may still use the run's scans: they are the job's now, the
	 * next checks get new ones. */
	j->own_procs = true;
	if (ctx->procs) {
		ctx->procs = xmalloc(sizeof(*ctx->procs));
		*ctx->procs = (struct procs_scan){0};
	}
	if (ctx->units)
		ctx->units = xcalloc(1, sizeof(*ctx->units));
	if (ctx->kconfig)
		ctx->kconfig = xcalloc(1, sizeof(*ctx->kconfig));
	/* Nor what the prefetch read: it may be what blocked. */
	run_prefetch_unref(ctx->prefetch);
	ctx->prefetch = NULL;
	size_t before = ctx->report->results.n;
	blocked_unknown(ctx, id, j, false);
	if (stop) {
		struct finding *f = &ctx->report->results.items[ctx->report->results.n - 1];
		finding_set(f, STATUS_UNKNOWN, "not finished: the agent is stopping");
	}
	const char *netns = NULL, *err = NULL;
	if (row_in_netns(ctx, i))
		probe_netns_enter(ctx->opts->probe_netns, &netns, &err);
	row_finish(ctx, i, before, netns);
	job_park(j, i);
}

/* Whether the process has tried --probe-netns (probe_netns_enter: once). */
static bool netns_tried;

/* Steps [s, end) of ctx's run, each bounded (see above). */
static void run_steps(struct agent_ctx *ctx, size_t s, size_t end, bool whole_run)
{
	while (s < end) {
		/* The network namespace is entered by this thread before the first
		 * check that probes from it, and the workers started from then on are
		 * in it (setns is a thread's): a worker ends before that row. */
		size_t stop_at = end;
		for (size_t t = s; !netns_tried && t < end; t++)
			if (t != STEP_IDENTITY && t != STEP_FACTS && row_in_netns(ctx, t - 1) &&
			    (!whole_run || (!check_left_out(&ctx->opts->skip, &ctx->opts->only,
							    host_checks[t - 1].id) &&
					    !(ctx->defer_network &&
					      agent_network_check(host_checks[t - 1].id))))) {
				if (t == s) {
					const char *d, *e;
					probe_netns_enter(ctx->opts->probe_netns, &d, &e);
					netns_tried = true;
				} else {
					stop_at = t;
				}
				break;
			}
		struct check_job *j = job_new(ctx, s, stop_at, whole_run);
		if (!j) {
			step_not_run(ctx, s, whole_run,
				     "cannot duplicate the host root's descriptor", errno);
			s++;
			continue;
		}
		bool stop = false;
		int r = job_run(ctx, j, &stop);
		if (r < 0) {
			job_free(j);
			step_not_run(ctx, s, whole_run, "cannot start its thread", -r);
			s++;
			continue;
		}
		if (r > 0) {
			bool facts_blocked = j->facts_blocked;
			job_free(j);
			if (facts_blocked)
				log_warnx(
				    "facts: still blocked since an earlier cycle, not collected "
				    "again; the report carries the facts its checks recorded, "
				    "ignoring");
			s = stop_at;
			continue;
		}
		size_t c = j->cur; /* abandoned: the worker writes no field of j any more */
		step_abandoned(ctx, j, c, stop);
		s = c + 1;
	}
}

void agent_run_check(struct agent_ctx *ctx, size_t i)
{
	run_steps(ctx, STEP_ROW(i), STEP_ROW(i) + 1, false);
}

/* The prefetch of an earlier run whose thread may still run (a hung proc/):
 * while it does, no run starts another; one reference is held here. */
static struct run_prefetch *last_prefetch;

/* A prefetch for a whole run (run_prefetch.h), or NULL: --only names the
 * checks to run, which then read what they need themselves; an earlier
 * prefetch still blocked is not joined by a second. */
static struct run_prefetch *prefetch_for_run(struct agent_ctx *ctx)
{
	if (ctx->opts->only.n)
		return NULL;
	if (last_prefetch && !run_prefetch_ended(last_prefetch))
		return NULL;
	run_prefetch_unref(last_prefetch);
	last_prefetch = run_prefetch_start(&ctx->root);
	return run_prefetch_ref(last_prefetch);
}

void agent_run_checks(struct agent_ctx *ctx)
{
	struct node_report *r = ctx->report;
	size_t first = STEP_IDENTITY;
	if (r->hostname && r->boot_id) {
		first = STEP_ROW(0);
	} else if (slot_alive(IDENTITY_SLOT)) {
		identity_missing(ctx, "still blocked since an earlier cycle, not read again", NULL);
		first = STEP_ROW(0);
	}
	/* The node's name once the identity is read: agent_finding() gives it to
	 * each finding (the worker's own: worker_node). */
	if (first != STEP_IDENTITY)
		node_from_identity(r, ctx->opts);
	if (!r->agent_version)
		r->agent_version = xstrdup(HVREADY_VERSION);
	r->schema_minor = NODE_SCHEMA_MINOR;
	/* On the heap: a check abandoned with them keeps them (step_abandoned). */
	ctx->procs = xmalloc(sizeof(*ctx->procs));
	*ctx->procs = (struct procs_scan){0};
	ctx->units = xcalloc(1, sizeof(*ctx->units));
	ctx->kconfig = xcalloc(1, sizeof(*ctx->kconfig));
	ctx->prefetch = prefetch_for_run(ctx);
	run_steps(ctx, first, STEP_FACTS + 1, true);
	run_prefetch_unref(ctx->prefetch);
	ctx->prefetch = NULL;
	procs_scan_clear(ctx->procs);
	free(ctx->procs);
	ctx->procs = NULL;
	unit_scan_clear(ctx->units);
	free(ctx->units);
	ctx->units = NULL;
	kconfig_cache_clear(ctx->kconfig);
	free(ctx->kconfig);
	ctx->kconfig = NULL;
	r->sent_ns = util_now_realtime_ns();
}

bool agent_deferred(const struct agent_ctx *ctx, const char *id)
{
	return ctx->defer_network && agent_network_check(id) &&
	       !check_left_out(&ctx->opts->skip, &ctx->opts->only, id);
}

static void move_finding(struct finding_list *l, struct finding *f)
{
	util_grow((void **)&l->items, &l->cap, l->n + 1, sizeof(*l->items));
	l->items[l->n++] = *f;
	*f = (struct finding){0};
}

/* Move the findings of id from `from` to the end of `to`, in their order. */
static void move_check(struct finding_list *to, struct finding_list *from, const char *id)
{
	for (size_t j = 0; j < from->n; j++)
		if (from->items[j].check && streq(from->items[j].check, id))
			move_finding(to, &from->items[j]);
}

void agent_add_deferred(struct agent_ctx *ctx, struct node_report *probed, const char *why)
{
	struct node_report *r = ctx->report;
	struct finding_list out = {0};
	for (size_t i = 0; i < host_checks_len; i++) {
		const char *id = host_checks[i].id;
		if (!agent_deferred(ctx, id)) {
			move_check(&out, &r->results, id);
			continue;
		}
		size_t before = out.n;
		if (probed) {
			move_check(&out, &probed->results, id);
			check_no_result(&out, before, id);
			for (size_t j = before; j < out.n; j++)
				finding_set_node(&out.items[j], r->node);
			continue;
		}
		struct finding *u = finding_list_add(&out, id);
		finding_set_node(u, r->node);
		finding_set(u, STATUS_UNKNOWN, "not probed: %s", why);
		kv_add_str(&u->evidence, "probe_process", why);
		finding_remedy(u, "%s",
			       "See the agent's log (journalctl -u hvready-agent, "
			       "or the pod's log); the probe runs again next cycle.");
	}
	/* Findings of no row of the table (none today): kept, after the others. */
	for (size_t j = 0; j < r->results.n; j++)
		if (r->results.items[j].check)
			move_finding(&out, &r->results.items[j]);
	for (size_t j = 0; j < r->results.n; j++)
		finding_clear(&r->results.items[j]);
	free(r->results.items);
	r->results = out;
}

struct procs_scan *agent_run_procs(struct agent_ctx *ctx)
{
	if (ctx->procs && ctx->prefetch)
		run_prefetch_take_procs(ctx->prefetch, ctx->procs);
	return ctx->procs;
}

struct kconfig_cache *agent_run_kconfig(struct agent_ctx *ctx)
{
	if (ctx->kconfig && ctx->prefetch)
		run_prefetch_take_kconfig(ctx->prefetch, ctx->kconfig);
	return ctx->kconfig;
}

int agent_procs_find(struct agent_ctx *ctx, const char *comm, struct procs_found *ret)
{
	struct procs_scan *scan = agent_run_procs(ctx);
	return scan ? procs_scan_find(scan, &ctx->root, comm, ret)
		    : procs_find(&ctx->root, comm, ret);
}

int agent_unitfiles_state(struct agent_ctx *ctx, const char *unit, char **ret_where)
{
	return unitfiles_state_in(ctx->units, &ctx->root, unit, ret_where);
}

/* systemd's is_localhost(): such a static hostname counts as unset, and the kernel's
 * (DHCP's, the installer's) is the one in use. */
static bool is_localhost(const char *h)
{
	return strcasecmp(h, "localhost") == 0 || strcasecmp(h, "localhost.") == 0 ||
	       strcasecmp(h, "localhost.localdomain") == 0 ||
	       strcasecmp(h, "localhost.localdomain.") == 0 || endswith(h, ".localhost") ||
	       endswith(h, ".localhost.");
}

/* hostname(5): the first line that is neither blank nor a comment. */
static char *etc_hostname(const struct hostroot *root)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	if (hostroot_read(root, "etc/hostname", 4096, &buf, &len) < 0 || memchr(buf, '\0', len))
		return NULL;
	for (char *line = buf, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *s = strstrip(line);
		if (*s && *s != '#')
			return is_localhost(s) ? NULL : xstrdup(s);
	}
	return NULL;
}

char *agent_kernel_hostname(const struct hostroot *root)
{
	char host_ns[64], own_ns[64], name[256];
	_cleanup_close_ int nsdir = hostroot_openat(root, "proc/1/ns", O_PATH | O_DIRECTORY);
	/* No proc/1/ns under the root (a copied tree, no /proc): only the file is left. */
	if (nsdir != -ENOENT) {
		ssize_t a = nsdir >= 0 ? readlinkat(nsdir, "uts", host_ns, sizeof(host_ns)) : -1;
		ssize_t b = readlink("/proc/self/ns/uts", own_ns, sizeof(own_ns));
		/* Whose namespace the file would show cannot be told. */
		if (a <= 0 || b <= 0)
			return NULL;
		if (a != b || memcmp(host_ns, own_ns, (size_t)a) != 0) {
			/* Another UTS namespace (a pod without hostNetwork): the file gives the
			 * pod's name. Ask PID 1's namespace, or know nothing. */
			_cleanup_close_ int fd = openat(nsdir, "uts", O_RDONLY | O_CLOEXEC);
			if (fd < 0 || sys_uts_nodename(fd, name, sizeof(name)) < 0 || !*name)
				return NULL;
			return xstrdup(name);
		}
	}
	char *h = NULL;
	if (hostroot_read_line(root, "proc/sys/kernel/hostname", &h) == 0 && *h)
		return h;
	free(h);
	return NULL;
}

char *agent_hostname(const struct hostroot *root)
{
	char *h = etc_hostname(root);
	return h ? h : agent_kernel_hostname(root);
}
