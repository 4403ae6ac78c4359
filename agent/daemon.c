/*
 * The agent daemon. The libevent loop owns time: the cycle timer (interval
 * with ±10% jitter, so a thousand agents started together do not report in
 * lockstep), the retry timer (exponential backoff with jitter, capped at 60 s,
 * while the aggregator is down), the watchdog timer and the signals. The
 * checks and the POST run in one worker thread: they block on disks, NFS and
 * registries, and must never stall the loop or the watchdog. The checks run
 * in a thread under it, each bounded by --timeout (agent_run_checks): a
 * blocked one is abandoned, and the worker polls stopping() while it waits.
 *
 * What goes to the network runs in helper processes (agent/helper.h): the
 * network checks of a cycle in one, started first so that it runs while the
 * worker does the host checks, and each POST in another. The daemon itself
 * never maps OpenSSL, libcurl or their libraries, which would more than
 * double its resident memory for good (docs/benchmarks.md), and a helper
 * that hangs is killed at its deadline: its checks are UNKNOWN, the cycle
 * goes on.
 *
 * Intervals use the monotonic clock (libevent's timers); only the report's
 * sent_ns is wall-clock time, stamped by the post helper right before sending.
 */
#include "daemon.h"
#include "check_select.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "helper.h"
#include "http_post.h"
#include "log.h"
#include "wire.h"

#define BACKOFF_CAP_S 60
#define TOKEN_MAX     (16u << 10)
/* Helper deadlines, in --timeout units. The checks bound themselves (every
 * request and NFS endpoint by the timeout, host.nfs.probe by 3 timeouts in
 * all, the registry check by a few requests per endpoint); the deadline is
 * for a helper that does not: it is killed, the cycle goes on. */
#define PROBE_BUDGET_TIMEOUTS 12
/* A POST: the name lookup, then at most two timeouts (agent/http_post.h). */
#define POST_BUDGET_TIMEOUTS 4

enum job { JOB_NONE, JOB_CYCLE, JOB_RESEND };

struct daemon {
	struct agent_opts *o;
	const char *config_path;
	struct event_base *base;
	struct event *cycle_timer, *retry_timer, *done_ev, *watchdog, *sig_term, *sig_int, *sig_hup;
	pthread_t worker;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* shared with the worker, under lock */
	enum job job;
	bool busy, stopping, reload;
	struct probe_targets targets; /* from the aggregator's last reply */
	bool have_targets;
	int post_result; /* 0 ok, else -errno / HTTP status */
	char post_error[640];
	char summary[160];
	/* worker-only */
	struct node_report last;
	bool have_last;
	uint64_t seq;
	char *token;
	struct stat token_st;
	int64_t last_rtt_ns;
	int64_t last_started_mono_ns; /* when the cycle of last began */
	/* loop-only */
	int backoff_s;
	bool ready_sent;
	uint64_t cycles;
};

static double jitter(double base, double frac)
{
	return base * (1.0 - frac + 2.0 * frac * ((double)random() / (double)RAND_MAX));
}

static struct timeval tv_of(double s)
{
	struct timeval tv = {(time_t)s, (suseconds_t)((s - (double)(time_t)s) * 1e6)};
	return tv;
}

/* ---------- worker: checks and POST ---------- */

/* Re-read the token when the file changes: Kubernetes rotates projected
 * service-account tokens in place. */
static void refresh_token(struct daemon *d)
{
	struct stat st;
	if (!d->o->token_file)
		return;
	if (stat(d->o->token_file, &st) < 0) {
		log_warn("--token-file %s, ignoring", d->o->token_file);
		return;
	}
	if (d->token && st.st_ino == d->token_st.st_ino && st.st_size == d->token_st.st_size &&
	    st.st_mtim.tv_sec == d->token_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == d->token_st.st_mtim.tv_nsec)
		return;
	char *buf;
	int r = util_read_file(d->o->token_file, TOKEN_MAX, &buf, NULL);
	if (r < 0) {
		log_warnx("--token-file %s: %s, ignoring", d->o->token_file, util_read_strerror(r));
		return;
	}
	free(d->token);
	d->token = strstrip(buf);
	d->token_st = st;
}

static bool stopping(void *arg)
{
	struct daemon *d = arg;
	pthread_mutex_lock(&d->lock);
	bool s = d->stopping;
	pthread_mutex_unlock(&d->lock);
	return s;
}

/* POST the last report. Returns 0, a negative errno, or the HTTP status. */
static int post_report(struct daemon *d, struct probe_targets *ret_targets, bool *ret_have,
		       char *err, size_t errlen)
{
	refresh_token(d);
	d->last.sent_ns = util_now_realtime_ns();
	size_t blen = strlen(d->o->aggregator_url);
	while (blen > 0 && d->o->aggregator_url[blen - 1] == '/')
		blen--;
	_cleanup_free_ char *url =
	    xasprintf("%.*s%s", (int)blen, d->o->aggregator_url, WIRE_REPORTS_PATH);
	struct helper_post_request rq = {
	    .url = url,
	    .ca_file = d->o->ca_file,
	    .token = d->token,
	    .timeout_s = d->o->timeout_s,
	    .last_rtt_ns = d->last_rtt_ns,
	    .started_mono_ns = d->last_started_mono_ns,
	    .report = &d->last,
	};
	struct http_post_reply rep;
	char why[512];
	int r = helper_post(&rq, POST_BUDGET_TIMEOUTS * (int64_t)d->o->timeout_s * NSEC_PER_SEC,
			    stopping, d, &rep, why, sizeof(why));
	if (r < 0) {
		snprintf(err, errlen, "POST %s", why);
		return r;
	}
	d->last_rtt_ns = rep.rtt_ns;
	if (rep.status != 200) {
		/* The aggregator says why in a JSON {"error": ...}; pass it on. */
		json_object *o = rep.body ? json_tokener_parse(rep.body) : NULL;
		json_object *e = NULL;
		snprintf(err, errlen, "POST %s: HTTP %d: %s", url, rep.status,
			 o && json_object_object_get_ex(o, "error", &e) ? json_object_get_string(e)
									: "no reason given");
		json_object_put(o);
		r = rep.status;
		http_post_reply_clear(&rep);
		return r;
	}
	char perr[256];
	struct probe_targets t;
	if (rep.body &&
	    probe_targets_parse((const uint8_t *)rep.body, rep.len, &t, perr, sizeof(perr)) == 0) {
		*ret_targets = t;
		*ret_have = true;
	} else {
		log_warnx("the aggregator's reply carries no valid probe targets (%s), ignoring",
			  rep.body ? perr : "empty body");
	}
	http_post_reply_clear(&rep);
	return 0;
}

/* The probe targets for this cycle: the aggregator's, plus what the operator
 * configured locally (the canary export is only ever the operator's choice). */
static void merge_targets(struct agent_opts *cycle, const struct agent_opts *o,
			  const struct probe_targets *agg, bool have_agg)
{
	if (!have_agg)
		return;
	struct probe_targets t;
	probe_targets_copy(&t, agg);
	if (o->targets.share_manager_image && !t.share_manager_image)
		t.share_manager_image = xstrdup(o->targets.share_manager_image);
	if (o->targets.share_manager_pull_policy && !t.share_manager_pull_policy)
		t.share_manager_pull_policy = xstrdup(o->targets.share_manager_pull_policy);
	for (size_t i = 0; i < o->targets.nfs_endpoints.n; i++)
		if (!strv_contains(&t.nfs_endpoints, o->targets.nfs_endpoints.items[i]))
			strv_add(&t.nfs_endpoints, o->targets.nfs_endpoints.items[i]);
	if (!t.longhorn_data_paths.n)
		for (size_t i = 0; i < o->targets.longhorn_data_paths.n; i++)
			strv_add(&t.longhorn_data_paths, o->targets.longhorn_data_paths.items[i]);
	free(t.canary_export);
	t.canary_export = o->targets.canary_export ? xstrdup(o->targets.canary_export) : NULL;
	cycle->targets = t;
}

/* The network checks this cycle runs: those --skip/--only leave in. */
static void network_checks(const struct agent_opts *o, struct strv *ret)
{
	for (size_t i = 0; i < helper_network_checks_len; i++) {
		const char *id = helper_network_checks[i];
		if (!check_left_out(&o->skip, &o->only, id))
			strv_add(ret, id);
	}
}

/* The checks: the network ones in a helper process, started first, the host
 * ones meanwhile in this thread; the helper's findings then go in the network
 * checks' places (agent_add_deferred). */
static void run_checks(struct daemon *d, struct agent_ctx *ctx, struct agent_opts *cycle)
{
	struct strv net = {0};
	network_checks(cycle, &net);
	struct helper h = {0};
	char why[512] = "";
	int hr = net.n ? helper_start_probe(&h, cycle, &net,
					    PROBE_BUDGET_TIMEOUTS * (int64_t)d->o->timeout_s *
						NSEC_PER_SEC,
					    why, sizeof(why))
		       : 0;
	ctx->defer_network = true;
	ctx->stop = stopping;
	ctx->stop_arg = d;
	agent_run_checks(ctx);
	struct node_report probed = {0};
	if (net.n && hr == 0)
		hr = helper_finish_probe(&h, stopping, d, &probed, why, sizeof(why));
	if (net.n) {
		if (hr < 0)
			log_warnx("network checks: %s, ignoring", why);
		agent_add_deferred(ctx, hr == 0 ? &probed : NULL, why);
	}
	node_report_clear(&probed);
	strv_clear(&net);
}

static void run_cycle(struct daemon *d)
{
	struct agent_opts cycle = *d->o;
	struct probe_targets local = d->o->targets;
	pthread_mutex_lock(&d->lock);
	bool merged = d->have_targets;
	if (merged)
		merge_targets(&cycle, d->o, &d->targets, true);
	pthread_mutex_unlock(&d->lock);

	if (d->have_last)
		node_report_clear(&d->last);
	d->last_started_mono_ns = util_now_mono_ns();
	d->last = (struct node_report){.seq = ++d->seq, .interval_s = (uint32_t)d->o->interval_s};
	struct agent_ctx ctx = {.opts = &cycle, .report = &d->last};
	int r = hostroot_open(&ctx.root, d->o->host_root);
	if (r < 0) {
		/* The host root vanished (unmounted?): report that, do not die. */
		struct finding *f = finding_list_add(&d->last.results, "host.kvm");
		finding_set(f, STATUS_UNKNOWN, "cannot open the host root %s: %s", d->o->host_root,
			    strerror(-r));
		d->last.node = agent_node_name(d->o, NULL);
		d->last.hostname = xstrdup("");
	} else {
		run_checks(d, &ctx, &cycle);
		hostroot_close(&ctx.root);
	}
	d->have_last = true;
	if (merged)
		probe_targets_clear(&cycle.targets);
	d->o->targets = local;

	int count[_STATUS_MAX] = {0};
	for (size_t i = 0; i < d->last.results.n; i++)
		count[d->last.results.items[i].status]++;
	pthread_mutex_lock(&d->lock);
	snprintf(d->summary, sizeof(d->summary),
		 "cycle %llu: %d PASS, %d WARN, %d FAIL, %d UNKNOWN", (unsigned long long)d->seq,
		 count[STATUS_PASS], count[STATUS_WARN], count[STATUS_FAIL], count[STATUS_UNKNOWN]);
	pthread_mutex_unlock(&d->lock);
}

static void *worker_main(void *arg)
{
	struct daemon *d = arg;
	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (!d->stopping && d->job == JOB_NONE)
			pthread_cond_wait(&d->cond, &d->lock);
		if (d->stopping)
			break;
		enum job job = d->job;
		d->job = JOB_NONE;
		d->busy = true;
		pthread_mutex_unlock(&d->lock);

		if (job == JOB_CYCLE)
			run_cycle(d);
		int pr = 0;
		char err[640] = "";
		struct probe_targets t = {0};
		bool have = false;
		/* Stopping: the report would be cut short by the helper's kill anyway. */
		if (d->o->aggregator_url && d->have_last && !stopping(d))
			pr = post_report(d, &t, &have, err, sizeof(err));

		pthread_mutex_lock(&d->lock);
		d->post_result = pr;
		snprintf(d->post_error, sizeof(d->post_error), "%s", err);
		if (have) {
			probe_targets_clear(&d->targets);
			d->targets = t;
			d->have_targets = true;
		}
		d->busy = false;
		event_active(d->done_ev, EV_READ, 0);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* ---------- loop ---------- */

static void submit(struct daemon *d, enum job job)
{
	pthread_mutex_lock(&d->lock);
	if (d->busy || d->job != JOB_NONE) {
		/* The previous cycle is still running (a slow probe): do not queue
		 * up work behind it; the next tick will try again. */
		pthread_mutex_unlock(&d->lock);
		log_warnx("previous cycle still running, skipping this one");
		return;
	}
	d->job = job;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

static void schedule_cycle(struct daemon *d)
{
	struct timeval tv = tv_of(jitter(d->o->interval_s, 0.1));
	event_add(d->cycle_timer, &tv);
}

static void on_cycle(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	submit(d, JOB_CYCLE);
	schedule_cycle(d);
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
	submit(arg, JOB_RESEND);
}

static void on_done(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	char status[1024];
	pthread_mutex_lock(&d->lock);
	int pr = d->post_result;
	_cleanup_free_ char *perr = xstrdup(d->post_error);
	_cleanup_free_ char *summary = xstrdup(d->summary);
	pthread_mutex_unlock(&d->lock);
	d->cycles++;
	if (!d->o->aggregator_url || pr == 0) {
		if (d->backoff_s)
			log_info("report delivered again after backoff");
		d->backoff_s = 0;
		snprintf(status, sizeof(status), "STATUS=%s; report delivered", summary);
	} else {
		d->backoff_s = d->backoff_s ? d->backoff_s * 2 : 1;
		if (d->backoff_s > BACKOFF_CAP_S)
			d->backoff_s = BACKOFF_CAP_S;
		double delay = jitter(d->backoff_s, 0.2);
		log_warnx("%s; retrying in %.1fs, ignoring", perr, delay);
		struct timeval tv = tv_of(delay);
		/* Only resend before the next cycle would send anyway. */
		if (delay < d->o->interval_s)
			event_add(d->retry_timer, &tv);
		snprintf(status, sizeof(status), "STATUS=%s; aggregator: %s", summary, perr);
	}
	sd_notify(0, status);
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	sd_notify(0, "WATCHDOG=1");
}

static void on_stop(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	log_info("signal %d: stopping", (int)sig);
	sd_notify(0, "STOPPING=1");
	event_base_loopexit(d->base, NULL);
}

static void on_hup(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	if (!d->config_path) {
		log_info("SIGHUP: no --config to reload");
		return;
	}
	pthread_mutex_lock(&d->lock);
	bool busy = d->busy;
	pthread_mutex_unlock(&d->lock);
	if (busy) {
		/* The worker reads the options; reload between cycles. */
		log_warnx("SIGHUP during a cycle: reload postponed to the next signal, ignoring");
		return;
	}
	struct agent_opts fresh;
	char err[512];
	agent_opts_init(&fresh);
	if (config_load(d->config_path, &fresh, err, sizeof(err)) < 0) {
		log_warnx("SIGHUP: %s; keeping the previous configuration, ignoring", err);
		agent_opts_clear(&fresh);
		return;
	}
	/* What the config may change at run time: thresholds, timeouts, skip/only. */
	d->o->thr = fresh.thr;
	d->o->timeout_s = fresh.timeout_s;
	strv_clear(&d->o->skip);
	strv_clear(&d->o->only);
	d->o->skip = fresh.skip;
	d->o->only = fresh.only;
	fresh.skip = (struct strv){0};
	fresh.only = (struct strv){0};
	agent_opts_clear(&fresh);
	log_info("SIGHUP: configuration reloaded from %s", d->config_path);
}

int daemon_run(struct agent_opts *o, const char *config_path)
{
	struct daemon d = {.o = o, .config_path = config_path};
	signal(SIGPIPE, SIG_IGN);
	srandom((unsigned)(util_now_realtime_ns() ^ getpid()));
	evthread_use_pthreads();
	pthread_mutex_init(&d.lock, NULL);
	pthread_cond_init(&d.cond, NULL);
	d.base = event_base_new();
	if (!d.base)
		fatalx("cannot create the event loop");
	d.cycle_timer = evtimer_new(d.base, on_cycle, &d);
	d.retry_timer = evtimer_new(d.base, on_retry, &d);
	d.done_ev = event_new(d.base, -1, 0, on_done, &d);
	d.sig_term = evsignal_new(d.base, SIGTERM, on_stop, &d);
	d.sig_int = evsignal_new(d.base, SIGINT, on_stop, &d);
	d.sig_hup = evsignal_new(d.base, SIGHUP, on_hup, &d);
	evsignal_add(d.sig_term, NULL);
	evsignal_add(d.sig_int, NULL);
	evsignal_add(d.sig_hup, NULL);
	uint64_t wd_usec = 0;
	if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
		d.watchdog = event_new(d.base, -1, EV_PERSIST, on_watchdog, &d);
		struct timeval half = {(time_t)(wd_usec / 2 / 1000000),
				       (suseconds_t)(wd_usec / 2 % 1000000)};
		event_add(d.watchdog, &half);
	}
	if (pthread_create(&d.worker, NULL, worker_main, &d) != 0)
		fatalx("cannot start the worker thread");
	/* The first cycle right away, the next ones every interval. */
	submit(&d, JOB_CYCLE);
	schedule_cycle(&d);
	if (o->token_file && http_post_url_exposes_token(o->aggregator_url))
		log_warnx("WARNING: %s is plain http:// to a non-loopback host: the token from %s "
			  "crosses the network unencrypted (use https://)",
			  o->aggregator_url, o->token_file);
	log_info("reporting every %ds to %s", o->interval_s,
		 o->aggregator_url ? o->aggregator_url : "(nowhere)");
	sd_notify(0, "READY=1\nSTATUS=first check cycle running");

	event_base_dispatch(d.base);

	pthread_mutex_lock(&d.lock);
	d.stopping = true;
	pthread_cond_broadcast(&d.cond);
	pthread_mutex_unlock(&d.lock);
	/* A cycle in progress finishes within its probes' timeouts. */
	pthread_join(d.worker, NULL);
	if (d.have_last)
		node_report_clear(&d.last);
	probe_targets_clear(&d.targets);
	free(d.token);
	event_free(d.cycle_timer);
	event_free(d.retry_timer);
	event_free(d.done_ev);
	event_free(d.sig_term);
	event_free(d.sig_int);
	event_free(d.sig_hup);
	if (d.watchdog)
		event_free(d.watchdog);
	event_base_free(d.base);
	pthread_mutex_destroy(&d.lock);
	pthread_cond_destroy(&d.cond);
	return 0;
}
