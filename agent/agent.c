#include "agent.h"
#include "check_select.h"
#include "netguard.h"
#include "checks.h"
#include "helper.h"
#include "log.h"
#include "probe_netns.h"
#include "sys_uts.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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

/* ---------- the deadline: each check in its own thread ----------
 *
 * A read that blocks although it opened O_NONBLOCK (a hung NFS mount under
 * the host root, a stuck procfs or sysfs file, a stat in D state) must not
 * stall the report. Each check runs in a thread of its own, on private copies
 * of everything it reads (the options, the host root's fd, the findings so
 * far) and with a private report it writes into. The runner waits for it until
 * its budget (CHECK_BUDGET_S) runs out; a check that misses it is UNKNOWN
 * "blocked", and its thread is abandoned: detached, never joined, never
 * writing anything shared. Its job stays in blocked_jobs until the thread
 * ends; while it lives the check is not started again (the next cycle of
 * `run` reports it "still blocked since ..."). docs/robustness.md. */

/* The network checks bound their own probes in --timeout units (up to 3 for
 * host.nfs.probe, a few requests per registry); the thread's budget is the
 * same backstop as the daemon's probe helper's (daemon.c). */
#define NETWORK_BUDGET_TIMEOUTS 12
#define BLOCKED_JOBS_MAX	64

struct check_job {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;	/* under lock */
	char last[256]; /* the last host path the check opened, under lock */
	size_t index;	/* its slot in blocked_jobs: the table's row, or FACTS_SLOT */
	host_check_fn fn;
	const char *id;
	int64_t started_mono_ns, started_real_ns;
	struct agent_opts opts;
	struct node_report report;
	struct agent_ctx ctx;
	size_t before; /* findings copied in before the check ran */
	bool
	    own_procs; /* abandoned: ctx.procs, .units, .kconfig (heap) are the job's, freed with it */
	int64_t cpu_ns; /* the thread's CPU time, when done */
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
	pthread_mutex_lock(&j->lock);
	snprintf(j->last, sizeof(j->last), "%s", path);
	pthread_mutex_unlock(&j->lock);
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void *job_main(void *arg)
{
	struct check_job *j = arg;
	hostroot_set_tracer(job_trace, j);
	int64_t cpu0 = thread_cpu_ns();
	j->fn(&j->ctx, j->id);
	int64_t cpu = thread_cpu_ns() - cpu0;
	hostroot_set_tracer(NULL, NULL);
	pthread_mutex_lock(&j->lock);
	j->cpu_ns = cpu;
	j->done = true;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* A job of ctx's check i: private copies of what the check reads. NULL when
 * the host root's fd cannot be duplicated. */
static struct check_job *job_new(struct agent_ctx *ctx, size_t i, host_check_fn fn, const char *id)
{
	struct check_job *j = xmalloc(sizeof(*j));
	*j = (struct check_job){.index = i, .fn = fn, .id = id};
	int fd = fcntl(ctx->root.fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		free(j);
		return NULL;
	}
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	opts_copy(&j->opts, ctx->opts);
	j->report.node = dup_or_null(ctx->report->node);
	j->report.hostname = dup_or_null(ctx->report->hostname);
	j->report.boot_id = dup_or_null(ctx->report->boot_id);
	const struct finding_list *l = &ctx->report->results;
	for (size_t k = 0; k < l->n; k++) {
		/* finding_copy() writes a whole finding: the added one's strings go first */
		struct finding *f = finding_list_add(&j->report.results, l->items[k].check);
		finding_clear(f);
		finding_copy(f, &l->items[k]);
	}
	j->before = j->report.results.n;
	j->ctx = (struct agent_ctx){
	    .root = {.fd = fd, .path = xstrdup(ctx->root.path)},
	    .opts = &j->opts,
	    .report = &j->report,
	    /* Lent for the run; the job keeps it if abandoned (run_bounded). */
	    .procs = ctx->procs,
	    .units = ctx->units,
	    .kconfig = ctx->kconfig,
	};
	return j;
}

/* Move a finished job's findings and facts into ctx's report. */
static void job_merge(struct agent_ctx *ctx, struct check_job *j)
{
	struct finding_list *from = &j->report.results, *to = &ctx->report->results;
	for (size_t k = j->before; k < from->n; k++) {
		util_grow((void **)&to->items, &to->cap, to->n + 1, sizeof(*to->items));
		to->items[to->n++] = from->items[k];
		from->items[k] = (struct finding){0};
	}
	struct kv_list *ff = &j->report.facts, *tf = &ctx->report->facts;
	for (size_t k = 0; k < ff->n; k++) {
		kv_add_value(tf, ff->items[k].key, &ff->items[k].val);
	}
}

static int64_t check_budget_ns(const struct agent_ctx *ctx, const char *id)
{
	int64_t t = (int64_t)ctx->opts->timeout_s * NSEC_PER_SEC;
	return agent_network_check(id) ? NETWORK_BUDGET_TIMEOUTS * t : t;
}

static void blocked_unknown(struct agent_ctx *ctx, const char *id, struct check_job *j, bool still)
{
	pthread_mutex_lock(&j->lock);
	_cleanup_free_ char *at = j->last[0] ? hostroot_display(&ctx->root, j->last) : NULL;
	pthread_mutex_unlock(&j->lock);
	int64_t secs = (util_now_mono_ns() - j->started_mono_ns) / NSEC_PER_SEC;
	struct finding *f = agent_finding(ctx, id);
	char since[64] = "";
	time_t t = (time_t)(j->started_real_ns / NSEC_PER_SEC);
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

/* Whether the check of row i is still blocked from an earlier run (then it is
 * reported so); frees the job of one that has ended. */
static bool still_blocked(struct agent_ctx *ctx, size_t i, const char *id)
{
	if (i >= BLOCKED_JOBS_MAX)
		return false;
	pthread_mutex_lock(&blocked_lock);
	struct check_job *j = blocked_jobs[i];
	bool alive = false;
	if (j) {
		pthread_mutex_lock(&j->lock);
		alive = !j->done;
		pthread_mutex_unlock(&j->lock);
		if (!alive) {
			blocked_jobs[i] = NULL;
			job_free(j);
		}
	}
	pthread_mutex_unlock(&blocked_lock);
	if (alive)
		blocked_unknown(ctx, id, j, true);
	return alive;
}

/* Start j's thread and wait until it ends (1), its budget runs out or the
 * agent stops (0; *ret_stop says which), or it cannot start (-errno). */
static int job_run(struct agent_ctx *ctx, struct check_job *j, int64_t budget_ns, bool *ret_stop)
{
	j->started_mono_ns = util_now_mono_ns();
	j->started_real_ns = util_now_realtime_ns();
	int64_t deadline = j->started_mono_ns + budget_ns;
	/* The thread takes no signal: SIGTERM stays the loop's (daemon.c). */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	int e = pthread_create(&t, &attr, job_main, j);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
		return -e;
	pthread_mutex_lock(&j->lock);
	bool stop = false;
	while (!j->done && !stop) {
		int64_t now = util_now_mono_ns();
		if (now >= deadline)
			break;
		/* Wake at least every 200 ms to see a stop request. */
		int64_t until =
		    now + 200 * NSEC_PER_MSEC < deadline ? now + 200 * NSEC_PER_MSEC : deadline;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		int64_t abs = (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec + (until - now);
		ts = (struct timespec){(time_t)(abs / NSEC_PER_SEC), (long)(abs % NSEC_PER_SEC)};
		pthread_cond_timedwait(&j->cond, &j->lock, &ts);
		if (!j->done && ctx->stop) {
			pthread_mutex_unlock(&j->lock);
			stop = ctx->stop(ctx->stop_arg);
			pthread_mutex_lock(&j->lock);
		}
	}
	bool done = j->done;
	pthread_mutex_unlock(&j->lock);
	*ret_stop = stop;
	return done ? 1 : 0;
}

/* HVREADY_TIMINGS=1 (a benchmark hook, docs/benchmarks.md): each finished
 * check's cost on stderr, "timing<TAB>ID<TAB>wall ms<TAB>cpu ms": the wall
 * time from starting its thread until the runner saw it end, the CPU time
 * of the check's own thread. */
static void job_timing(const struct check_job *j)
{
	const char *tv = getenv("HVREADY_TIMINGS");
	if (!tv || !*tv || streq(tv, "0"))
		return;
	fprintf(stderr, "timing\t%s\t%.3f\t%.3f\n", j->id,
		(double)(util_now_mono_ns() - j->started_mono_ns) / (double)NSEC_PER_MSEC,
		(double)j->cpu_ns / (double)NSEC_PER_MSEC);
}

/* Leave a job whose thread still runs in its slot, for still_blocked(). */
static void job_park(struct check_job *j)
{
	pthread_mutex_lock(&blocked_lock);
	if (j->index < BLOCKED_JOBS_MAX && !blocked_jobs[j->index])
		blocked_jobs[j->index] = j;
	/* No slot (never with the table's size): the job is left to its thread for good. */
	pthread_mutex_unlock(&blocked_lock);
}

/* Run check i in its thread; wait until it ends, its budget runs out or the
 * agent stops. */
static void run_bounded(struct agent_ctx *ctx, size_t i, const char *id)
{
	struct check_job *j = job_new(ctx, i, host_checks[i].run, id);
	if (!j) {
		finding_set(agent_finding(ctx, id), STATUS_UNKNOWN,
			    "not run: cannot duplicate the host root's descriptor: %s",
			    strerror(errno));
		return;
	}
	bool stop = false;
	int r = job_run(ctx, j, check_budget_ns(ctx, id), &stop);
	if (r < 0) {
		finding_set(agent_finding(ctx, id), STATUS_UNKNOWN,
			    "not run: cannot start its thread: %s", strerror(-r));
		job_free(j);
		return;
	}
	if (r > 0) {
		job_timing(j);
		job_merge(ctx, j);
		job_free(j);
		return;
	}
	/* The thread may still write the run's proc/ scan: it is the job's now, the
	 * next checks get a new one. */
	j->own_procs = true;
	if (ctx->procs) {
		ctx->procs = xmalloc(sizeof(*ctx->procs));
		*ctx->procs = (struct procs_scan){0};
	}
	if (ctx->units)
		ctx->units = xcalloc(1, sizeof(*ctx->units));
	if (ctx->kconfig)
		ctx->kconfig = xcalloc(1, sizeof(*ctx->kconfig));
	blocked_unknown(ctx, id, j, false);
	if (stop) {
		struct finding *f = &ctx->report->results.items[ctx->report->results.n - 1];
		finding_set(f, STATUS_UNKNOWN, "not finished: the agent is stopping");
	}
	job_park(j);
}

/* Whether the job parked in slot is still running (then it stays); frees one
 * that has ended. */
static bool slot_alive(size_t slot)
{
	pthread_mutex_lock(&blocked_lock);
	struct check_job *old = blocked_jobs[slot];
	bool alive = false;
	if (old) {
		pthread_mutex_lock(&old->lock);
		alive = !old->done;
		pthread_mutex_unlock(&old->lock);
		if (!alive) {
			blocked_jobs[slot] = NULL;
			job_free(old);
		}
	}
	pthread_mutex_unlock(&blocked_lock);
	return alive;
}

static void facts_step(struct agent_ctx *ctx, const char *id)
{
	facts_collect(ctx);
}

/* facts_collect() under the same deadline (--timeout): it reads proc/cpuinfo,
 * proc/meminfo, etc/os-release... again when no check recorded the fact. Blocked,
 * the report goes with the facts the checks recorded, and a warning in the log. */
static void collect_facts_bounded(struct agent_ctx *ctx)
{
	if (slot_alive(FACTS_SLOT)) {
		log_warnx("facts: still blocked since an earlier cycle, not collected again; the "
			  "report carries the facts its checks recorded, ignoring");
		return;
	}
	struct check_job *j = job_new(ctx, FACTS_SLOT, facts_step, "facts");
	if (!j) {
		log_warn("facts: cannot duplicate the host root's descriptor, ignoring");
		return;
	}
	kv_list_copy(&j->report.facts, &ctx->report->facts);
	bool stop = false;
	int r = job_run(ctx, j, (int64_t)ctx->opts->timeout_s * NSEC_PER_SEC, &stop);
	if (r > 0) {
		job_timing(j);
		kv_list_clear(&ctx->report->facts);
		ctx->report->facts = j->report.facts;
		j->report.facts = (struct kv_list){0};
		job_free(j);
		return;
	}
	if (r < 0) {
		log_warnx("facts: cannot start a thread: %s, ignoring", strerror(-r));
		job_free(j);
		return;
	}
	pthread_mutex_lock(&j->lock);
	_cleanup_free_ char *at = j->last[0] ? hostroot_display(&ctx->root, j->last) : NULL;
	pthread_mutex_unlock(&j->lock);
	log_warnx("facts: blocked%s%s after %d s; the report carries the facts its checks "
		  "recorded, ignoring",
		  at ? ": last at " : "", at ? at : "", ctx->opts->timeout_s);
	job_park(j);
}

static void identity_step(struct agent_ctx *ctx, const char *id)
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

/* The node's identity before the checks (etc/hostname, else the kernel's
 * hostname; proc/sys/kernel/random/boot_id): the same bounded reads as the
 * checks' (hostroot_open_file: O_NONBLOCK, a regular or procfs file, a size
 * cap) under the same deadline (--timeout), in a thread of its own. Blocked,
 * the report goes without them (the node name from --node, else "unknown";
 * an empty boot_id) and the log says where it blocked; while that read has
 * not returned, the next cycles do not start it again. */
static void identity_bounded(struct agent_ctx *ctx)
{
	struct node_report *r = ctx->report;
	if (r->hostname && r->boot_id)
		return;
	const char *why = NULL;
	_cleanup_free_ char *at = NULL;
	struct check_job *j = NULL;
	if (slot_alive(IDENTITY_SLOT)) {
		why = "still blocked since an earlier cycle, not read again";
	} else if (!(j = job_new(ctx, IDENTITY_SLOT, identity_step, "identity"))) {
		why = "cannot duplicate the host root's descriptor";
	} else {
		bool stop = false;
		int rr = job_run(ctx, j, (int64_t)ctx->opts->timeout_s * NSEC_PER_SEC, &stop);
		if (rr > 0) {
			if (!r->hostname) {
				r->hostname = j->report.hostname;
				j->report.hostname = NULL;
			}
			if (!r->boot_id) {
				r->boot_id = j->report.boot_id;
				j->report.boot_id = NULL;
			}
			job_free(j);
			return;
		}
		if (rr < 0) {
			why = "cannot start a thread";
			job_free(j);
		} else {
			pthread_mutex_lock(&j->lock);
			at = j->last[0] ? hostroot_display(&ctx->root, j->last) : NULL;
			pthread_mutex_unlock(&j->lock);
			why = "blocked";
			job_park(j);
		}
	}
	log_warnx("node identity: %s%s%s after at most %d s; the report goes without the "
		  "hostname and boot_id (node name %s)",
		  why, at ? ": last at " : "", at ? at : "", ctx->opts->timeout_s,
		  ctx->opts->node ? "from --node" : "\"unknown\"");
	if (!r->hostname)
		r->hostname = xstrdup("");
	if (!r->boot_id)
		r->boot_id = xstrdup("");
}

void agent_run_check(struct agent_ctx *ctx, size_t i)
{
	const char *id = host_checks[i].id;
	const char *netns = NULL, *err = NULL;
	if (still_blocked(ctx, i, id))
		return;
	bool net = ctx->opts->probe_netns && agent_network_check(id) && !nothing_to_probe(ctx, id);
	/* Entered by this thread, inherited by the check's (probe_netns.h: once per process). */
	if (net && probe_netns_enter(ctx->opts->probe_netns, &netns, &err) < 0) {
		netns_unknown(ctx, id, err);
		return;
	}
	struct finding_list *l = &ctx->report->results;
	size_t before = l->n;
	/* Probe targets come from cluster objects: no metadata service unless allowed. */
	netguard_set_probe_link_local(ctx->opts->allow_link_local_probes);
	run_bounded(ctx, i, id);
	struct finding *none = check_no_result(l, before, id);
	if (none) {
		finding_set_node(none, ctx->report->node);
		return;
	}
	for (size_t j = before; net && j < l->n; j++)
		kv_add_str(&l->items[j].evidence, "network_namespace", netns);
}

void agent_run_checks(struct agent_ctx *ctx)
{
	struct node_report *r = ctx->report;
	identity_bounded(ctx);
	if (!r->node)
		r->node =
		    agent_node_name(ctx->opts, r->hostname && *r->hostname ? r->hostname : NULL);
	if (!r->agent_version)
		r->agent_version = xstrdup(HVREADY_VERSION);
	r->schema_minor = NODE_SCHEMA_MINOR;
	/* On the heap: a check abandoned with it keeps it (run_bounded). */
	ctx->procs = xmalloc(sizeof(*ctx->procs));
	*ctx->procs = (struct procs_scan){0};
	ctx->units = xcalloc(1, sizeof(*ctx->units));
	ctx->kconfig = xcalloc(1, sizeof(*ctx->kconfig));
	for (size_t i = 0; i < host_checks_len; i++) {
		const char *id = host_checks[i].id;
		const char *why = check_left_out(&ctx->opts->skip, &ctx->opts->only, id);
		if (why) {
			finding_set(agent_finding(ctx, id), STATUS_SKIP, "%s", why);
			continue;
		}
		if (ctx->defer_network && agent_network_check(id))
			continue; /* the daemon's probe helper runs it (agent_add_deferred) */
		agent_run_check(ctx, i);
	}
	procs_scan_clear(ctx->procs);
	free(ctx->procs);
	ctx->procs = NULL;
	unit_scan_clear(ctx->units);
	free(ctx->units);
	ctx->units = NULL;
	kconfig_cache_clear(ctx->kconfig);
	free(ctx->kconfig);
	ctx->kconfig = NULL;
	collect_facts_bounded(ctx);
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

int agent_procs_find(struct agent_ctx *ctx, const char *comm, struct procs_found *ret)
{
	return ctx->procs ? procs_scan_find(ctx->procs, &ctx->root, comm, ret)
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
