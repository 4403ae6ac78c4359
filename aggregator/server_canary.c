/*
 * serve's canary (docs/canary.md#results-in-the-gates): --canary-result FILE,
 * read again when it changes, and --canary-interval DURATION, which runs
 * `hvready-aggregator canary ... --format json` as a child process on that
 * schedule: never two at once (a run still going when the next is due skips
 * it), its stdout read on the loop without blocking, killed at its --timeout
 * plus a grace, and stopped with SIGTERM (so it cleans up) when serve stops.
 * The newer of the two results is the one the verdicts take.
 */
#include "server_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "canary_result.h"
#include "canary_result_cm.h"
#include "log.h"

/* How often the file is looked at (a stat; it is read only when it changed). */
#define POLL_MS 2000
/* After its --timeout a canary has ended on its own; past this grace it is killed. */
#define KILL_GRACE_MS 30000
#define RUN_SOURCE    "serve --canary-interval"

struct server_canary {
	struct server *s;
	/* --canary-result */
	struct canary_result *file_res;
	char *file_error;
	struct stat file_st;
	bool file_known; /* file_st is of the file last read */
	struct event *poll_ev;
	/* --canary-interval */
	struct canary_result *run_res;
	char *run_error; /* the last run gave no result: why */
	struct event *run_ev, *pipe_ev, *reap_ev, *kill_ev;
	pid_t pid; /* the running canary, 0 when none */
	int fd;
	char *buf;
	size_t len;
	bool overflow;
	int64_t started_mono_ns;
	struct strv argv;
};

static void res_unref(struct canary_result *r)
{
	if (r && --r->refs == 0) {
		canary_result_clear(r);
		free(r);
	}
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Read --canary-result if it changed. A file that does not exist (yet) is no
 * result and no error: a missing result changes nothing. */
static void poll_file(struct server_canary *c, bool first)
{
	const char *path = c->s->o->canary_result;
	struct stat st;
	int sr = stat(path, &st);
	if (sr < 0 && errno == ENOENT) {
		if (!c->file_res && !c->file_error && !first)
			return; /* still none */
		log_info("--canary-result %s: no such file (yet): no canary proof from it", path);
		res_unref(c->file_res);
		c->file_res = NULL;
		free(c->file_error);
		c->file_error = NULL;
		c->file_known = false;
		c->s->dirty = true;
		return;
	}
	if (sr < 0) /* unreadable: a fixed "stat" of it, so it is not read again until it changes */
		memset(&st, 0, sizeof(st));
	if (c->file_known && same_file(&st, &c->file_st))
		return;
	struct canary_result *r = xcalloc(1, sizeof(*r));
	char err[512];
	struct stat got;
	int rc = canary_result_load(path, r, &got, err, sizeof(err));
	free(c->file_error);
	c->file_error = NULL;
	res_unref(c->file_res);
	c->file_res = NULL;
	if (rc < 0) {
		free(r);
		log_warnx("--canary-result %s: no canary proof from it", err);
		c->file_error = xstrdup(err);
		/* try again when it changes (a FIFO, a directory: never) */
		c->file_st = st;
		c->file_known = true;
	} else {
		r->refs = 1;
		c->file_res = r;
		c->file_st = got;
		c->file_known = true;
		log_info("--canary-result %s: canary run %s (%s)", path, r->run, r->status);
	}
	c->s->dirty = true;
}

static void on_poll(evutil_socket_t fd, short what, void *arg)
{
	poll_file(arg, false);
}

/* ---------- the runs ---------- */

static void build_argv(struct server_canary *c)
{
	const struct server_opts *o = c->s->o;
	struct strv *v = &c->argv;
	strv_add(v, "hvready-aggregator");
	strv_add(v, "canary");
	/* The canary's credential, as paths: never a token in its argv. */
	if (o->canary_kubeconfig) {
		strv_add(v, "--kubeconfig");
		strv_add(v, o->canary_kubeconfig);
	} else if (o->canary_token_file) {
		strv_add(v, "--in-cluster");
		strv_add(v, "--in-cluster-token-file");
		strv_add(v, o->canary_token_file);
	} else if (o->in_cluster)
		strv_add(v, "--in-cluster");
	else {
		strv_add(v, "--kubeconfig");
		strv_add(v, o->kubeconfig);
	}
	strv_add(v, "--format");
	strv_add(v, "json");
	_cleanup_free_ char *tmo = xasprintf("%llds", (long long)(o->canary_timeout_ms / 1000));
	strv_add(v, "--timeout");
	strv_add(v, tmo);
	const char *pairs[][2] = {
	    {"--namespace", o->canary_ns},	  {"--steps", o->canary_steps},
	    {"--rwx-class", o->canary_rwx_class}, {"--storage-class", o->canary_vm_class},
	    {"--image", o->canary_image},	  {"--node", o->canary_nodes[0]},
	    {"--node", o->canary_nodes[1]}};
	for (size_t i = 0; i < ELEMENTSOF(pairs); i++)
		if (pairs[i][1]) {
			strv_add(v, pairs[i][0]);
			strv_add(v, pairs[i][1]);
		}
	/* NULL-terminated for execv */
	util_grow((void **)&v->items, &v->cap, v->n + 1, sizeof(char *));
	v->items[v->n] = NULL;
}

static void on_pipe(evutil_socket_t fd, short what, void *arg);
static void on_reap(evutil_socket_t fd, short what, void *arg);

static void run_ended(struct server_canary *c, int wstatus)
{
	struct server *s = c->s;
	c->pid = 0;
	s->mc.canary_running = false;
	s->mc.canary_runs++;
	event_del(c->kill_ev);
	double took = (double)(util_now_mono_ns() - c->started_mono_ns) / 1e9;
	char how[64];
	if (WIFEXITED(wstatus))
		snprintf(how, sizeof(how), "exit %d", WEXITSTATUS(wstatus));
	else
		snprintf(how, sizeof(how), "signal %d",
			 WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
	struct canary_result *r = xcalloc(1, sizeof(*r));
	char err[512];
	int rc = c->overflow ? (snprintf(err, sizeof(err), "its output is too large"), -EFBIG)
			     : canary_result_parse(c->buf ? c->buf : "", c->len, RUN_SOURCE, r, err,
						   sizeof(err));
	free(c->buf);
	c->buf = NULL;
	c->len = 0;
	c->overflow = false;
	free(c->run_error);
	c->run_error = NULL;
	if (rc < 0) {
		free(r);
		c->run_error =
		    xasprintf("the canary run (%s after %.1fs) gave no result: %s", how, took, err);
		log_warnx("canary: %s", c->run_error);
	} else {
		r->refs = 1;
		res_unref(c->run_res);
		c->run_res = r;
		log_info("canary: run %s ended (%s, %s) in %.1fs", r->run, r->status, how, took);
	}
	s->dirty = true;
}

static void reap(struct server_canary *c)
{
	int wstatus = 0;
	pid_t p = waitpid(c->pid, &wstatus, WNOHANG);
	if (p == 0) { /* closed its stdout, not ended yet */
		struct timeval tv = {0, 50000};
		event_add(c->reap_ev, &tv);
		return;
	}
	if (p < 0)
		wstatus = 0;
	run_ended(c, wstatus);
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	reap(arg);
}

static void on_pipe(evutil_socket_t fd, short what, void *arg)
{
	struct server_canary *c = arg;
	char chunk[16384];
	for (;;) {
		ssize_t n = read(c->fd, chunk, sizeof(chunk));
		if (n > 0) {
			if (c->len + (size_t)n > CANARY_RESULT_MAX_BYTES) {
				c->overflow = true;
				continue;
			}
			c->buf = xrealloc(c->buf, c->len + (size_t)n + 1);
			memcpy(c->buf + c->len, chunk, (size_t)n);
			c->len += (size_t)n;
			c->buf[c->len] = '\0';
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		break; /* EOF or an error: the run is over */
	}
	event_free(c->pipe_ev);
	c->pipe_ev = NULL;
	close(c->fd);
	c->fd = -1;
	reap(c);
}

static void on_kill(evutil_socket_t fd, short what, void *arg)
{
	struct server_canary *c = arg;
	if (c->pid > 0) {
		log_warnx("canary: run (pid %d) still going past its --timeout: killed",
			  (int)c->pid);
		kill(c->pid, SIGKILL);
	}
}

static void start_run(struct server_canary *c)
{
	struct server *s = c->s;
	if (c->pid > 0) {
		log_info("canary: the last run (pid %d) is still going: this interval's run is "
			 "skipped",
			 (int)c->pid);
		s->mc.canary_skipped++;
		return;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		log_warn("canary: pipe");
		return;
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t pid = fork();
	if (pid == 0) {
		/* only async-signal-safe calls until execv */
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		sigemptyset(&dfl.sa_mask);
		for (int sig = 1; sig < NSIG; sig++)
			sigaction(sig, &dfl, NULL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* serve killed outright: the canary still cleans up */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(p[1], STDOUT_FILENO);
		/* none of serve's sockets and files */
		syscall(SYS_close_range, 3U, ~0U, 0U);
		execv("/proc/self/exe", c->argv.items);
		_exit(127);
	}
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		errno = e;
		log_warn("canary: fork");
		return;
	}
	c->pid = pid;
	c->fd = p[0];
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	c->started_mono_ns = util_now_mono_ns();
	c->pipe_ev = event_new(s->base, c->fd, EV_READ | EV_PERSIST, on_pipe, c);
	event_add(c->pipe_ev, NULL);
	int64_t kill_ms = s->o->canary_timeout_ms + KILL_GRACE_MS;
	struct timeval ktv = {(time_t)(kill_ms / 1000), (suseconds_t)(kill_ms % 1000 * 1000)};
	event_add(c->kill_ev, &ktv);
	s->mc.canary_running = true;
	log_info("canary: run started (pid %d)", (int)pid);
}

static void on_run(evutil_socket_t fd, short what, void *arg)
{
	start_run(arg);
}

/* ---------- the server's side ---------- */

void server_canary_start(struct server *s)
{
	const struct server_opts *o = s->o;
	if (!o->canary_result && !o->canary_interval_ms)
		return;
	struct server_canary *c = xcalloc(1, sizeof(*c));
	c->s = s;
	c->fd = -1;
	s->canary = c;
	char ns[64], name[254], err[512];
	/* a ConfigMap is read by the refresher (server_canary_read_cm) */
	if (o->canary_result &&
	    !canary_result_cm_ref(o->canary_result, ns, name, err, sizeof(err))) {
		poll_file(c, true);
		c->poll_ev = event_new(s->base, -1, EV_PERSIST, on_poll, c);
		struct timeval tv = {POLL_MS / 1000, POLL_MS % 1000 * 1000};
		event_add(c->poll_ev, &tv);
	}
	if (o->canary_interval_ms) {
		build_argv(c);
		c->reap_ev = evtimer_new(s->base, on_reap, c);
		c->kill_ev = evtimer_new(s->base, on_kill, c);
		c->run_ev = event_new(s->base, -1, EV_PERSIST, on_run, c);
		struct timeval tv = {(time_t)(o->canary_interval_ms / 1000),
				     (suseconds_t)(o->canary_interval_ms % 1000 * 1000)};
		event_add(c->run_ev, &tv);
		s->mc.canary_scheduled = true;
		start_run(c); /* the first now */
	}
}

void server_canary_stop(struct server *s)
{
	struct server_canary *c = s->canary;
	if (!c)
		return;
	if (c->pid > 0) {
		log_info("canary: stopping the running canary (pid %d): it cleans up first",
			 (int)c->pid);
		kill(c->pid, SIGTERM);
		/* it ends within its --timeout; the grace is for a stuck one */
		int64_t until =
		    c->started_mono_ns + (s->o->canary_timeout_ms + KILL_GRACE_MS) * NSEC_PER_MSEC;
		int wstatus = 0;
		pid_t p;
		while ((p = waitpid(c->pid, &wstatus, WNOHANG)) == 0 &&
		       util_now_mono_ns() < until) {
			/* drain its output so it never blocks on a full pipe */
			char chunk[16384];
			while (c->fd >= 0 && read(c->fd, chunk, sizeof(chunk)) > 0)
				;
			usleep(100000);
		}
		if (p == 0) {
			log_warnx("canary: pid %d did not end: killed", (int)c->pid);
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &wstatus, 0);
		} else
			log_info("canary: pid %d ended", (int)c->pid);
		c->pid = 0;
	}
	if (c->pipe_ev)
		event_free(c->pipe_ev);
	if (c->fd >= 0)
		close(c->fd);
	if (c->poll_ev)
		event_free(c->poll_ev);
	if (c->run_ev)
		event_free(c->run_ev);
	if (c->reap_ev)
		event_free(c->reap_ev);
	if (c->kill_ev)
		event_free(c->kill_ev);
	free(c->buf);
	res_unref(c->file_res);
	res_unref(c->run_res);
	free(c->file_error);
	free(c->run_error);
	strv_clear(&c->argv);
	free(c);
	s->canary = NULL;
}

void server_canary_snapshot(struct server *s, struct server_canary_view *ret)
{
	*ret = (struct server_canary_view){0};
	struct server_canary *c = s->canary;
	if (!c)
		return;
	struct canary_result *best = c->file_res;
	if (c->run_res && (!best || c->run_res->finished_ns >= best->finished_ns))
		best = c->run_res;
	if (best) {
		best->refs++;
		ret->res = best;
	} else if (c->file_error) {
		ret->error_source = xstrdup(s->o->canary_result);
		ret->error = xstrdup(c->file_error);
	}
	ret->run_error = c->run_error ? xstrdup(c->run_error) : NULL;
	ret->interval_ms = s->o->canary_interval_ms;
	ret->running = c->pid > 0;
	ret->runs = s->mc.canary_runs;
}

void server_canary_view_clear(struct server_canary_view *v)
{
	res_unref(v->res);
	free(v->error_source);
	free(v->error);
	free(v->run_error);
	*v = (struct server_canary_view){0};
}

void server_canary_apply(const struct server *s, const struct server_canary_view *cv,
			 struct verdict *v)
{
	if (cv->res)
		verdict_apply_canary(v, cv->res, s->o->canary_max_age_ns, NULL);
	else if (cv->error)
		verdict_canary_error(v, cv->error_source, cv->error);
	if (cv->interval_ms && !v->canary.source)
		v->canary.source = xstrdup(RUN_SOURCE);
	v->canary.interval_ns = cv->interval_ms * NSEC_PER_MSEC;
	v->canary.running = cv->running;
	v->canary.runs = cv->runs;
	if (cv->run_error)
		v->canary.run_error = xstrdup(cv->run_error);
}

/* ---------- --canary-result configmap:NS/NAME ---------- */

bool server_canary_read_cm(struct server *s, struct canary_result **ret, char **ret_err)
{
	char ns[64], name[254], err[1024];
	*ret = NULL;
	*ret_err = NULL;
	if (!s->o->canary_result || !s->kc ||
	    !canary_result_cm_ref(s->o->canary_result, ns, name, err, sizeof(err)))
		return false;
	struct canary_result *r = xcalloc(1, sizeof(*r));
	if (canary_result_cm_load(s->kc, ns, name, r, err, sizeof(err)) < 0) {
		free(r);
		*ret_err = xstrdup(err);
	} else
		*ret = r;
	return true;
}

void server_canary_offer_cm(struct server *s, struct canary_result *r, char *err)
{
	struct server_canary *c = s->canary;
	if (!c) {
		if (r)
			canary_result_clear(r);
		free(r);
		free(err);
		return;
	}
	if (r) {
		/* said once per run, not once per re-read */
		if (!c->file_res || !streq(c->file_res->run, r->run) ||
		    c->file_res->finished_ns != r->finished_ns)
			log_info("--canary-result %s: canary run %s (%s)", s->o->canary_result,
				 r->run, r->status);
		r->refs = 1;
		res_unref(c->file_res);
		c->file_res = r;
		free(c->file_error);
		c->file_error = NULL;
	} else if (err) {
		if (!c->file_error || !streq(c->file_error, err))
			log_warnx("--canary-result %s: no canary proof from it", err);
		res_unref(c->file_res);
		c->file_res = NULL;
		free(c->file_error);
		c->file_error = err;
	}
	s->dirty = true;
}
