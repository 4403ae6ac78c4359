/*
 * The run's proc/ scan and kernel-config inflate on a second thread
 * (run_prefetch.h: what, why, and the rules that keep it a head start only).
 */
#include "run_prefetch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "threads.h"
#include "util.h"

struct run_prefetch {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC; signalled when a part is done */
	/* under lock: */
	int refs;
	bool procs_done, kconfig_done, ended;
	bool procs_taken, kconfig_taken;
	char last[256]; /* the last host path the thread opened */
	/* the thread's until its part is done, then under lock: */
	struct hostroot root;
	struct procs_scan procs;
	struct kconfig_cache kconfig;
};

static void trace(void *arg, const char *path)
{
	struct run_prefetch *p = arg;
	size_t n = strnlen(path, sizeof(p->last) - 1);
	pthread_mutex_lock(&p->lock);
	memcpy(p->last, path, n);
	p->last[n] = '\0';
	pthread_mutex_unlock(&p->lock);
}

static void part_done(struct run_prefetch *p, bool *flag)
{
	pthread_mutex_lock(&p->lock);
	*flag = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* proc/config.gz inflated only where it is the config in use: no plain config
 * for the running release (kconfig_source's order, host.iscsi's rule;
 * host.nfs.kernel reads a plain one first too). Otherwise nothing is cached
 * and a check that does want the .gz inflates it itself. */
static void inflate_kconfig(struct run_prefetch *p)
{
	_cleanup_free_ char *rel = NULL, *path = NULL;
	const char *text;
	size_t len;
	if (modules_kernel_release(&p->root, &rel) == 0 &&
	    kconfig_source(&p->root, rel, &path) == 0)
		kconfig_cache_text(&p->kconfig, &p->root, path, &text, &len);
}

static void *prefetch_main(void *arg)
{
	struct run_prefetch *p = arg;
	hostroot_set_tracer(trace, p);
	procs_scan_fill(&p->procs, &p->root);
	part_done(p, &p->procs_done);
	inflate_kconfig(p);
	hostroot_set_tracer(NULL, NULL);
	/* Ended with the last part: a run that took it starts the next prefetch. */
	pthread_mutex_lock(&p->lock);
	p->kconfig_done = p->ended = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	run_prefetch_unref(p);
	return NULL;
}

struct run_prefetch *run_prefetch_start(const struct hostroot *root)
{
	int fd = fcntl(root->fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return NULL;
	struct run_prefetch *p = xcalloc(1, sizeof(*p));
	p->root = (struct hostroot){.fd = fd, .path = xstrdup(root->path)};
	p->refs = 2; /* the caller's and the thread's */
	pthread_mutex_init(&p->lock, NULL);
	cond_init_monotonic(&p->cond);
	/* The thread takes no signal: they stay the main loop's (daemon.c). */
	int e = thread_start_detached(prefetch_main, p);
	if (e != 0) {
		p->refs = 1;
		run_prefetch_unref(p);
		return NULL;
	}
	return p;
}

struct run_prefetch *run_prefetch_ref(struct run_prefetch *p)
{
	if (p) {
		pthread_mutex_lock(&p->lock);
		p->refs++;
		pthread_mutex_unlock(&p->lock);
	}
	return p;
}

void run_prefetch_unref(struct run_prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	bool last = --p->refs == 0;
	pthread_mutex_unlock(&p->lock);
	if (!last)
		return;
	procs_scan_clear(&p->procs);
	kconfig_cache_clear(&p->kconfig);
	hostroot_close(&p->root);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

bool run_prefetch_ended(struct run_prefetch *p)
{
	pthread_mutex_lock(&p->lock);
	bool e = p->ended;
	pthread_mutex_unlock(&p->lock);
	return e;
}

/* Until *done (under p->lock, held): the prefetch's last path goes to this
 * thread's tracer each time it changes, so a wait that outlives the check's
 * deadline is reported where the prefetch is stuck. */
static void wait_part(struct run_prefetch *p, const bool *done)
{
	char seen[sizeof(p->last)] = "";
	while (!*done) {
		if (p->last[0] && strcmp(seen, p->last) != 0) {
			memcpy(seen, p->last, sizeof(seen));
			pthread_mutex_unlock(&p->lock);
			hostroot_trace(seen);
			pthread_mutex_lock(&p->lock);
			continue;
		}
		int64_t until = util_now_mono_ns() + 100 * NSEC_PER_MSEC;
		struct timespec ts = {(time_t)(until / NSEC_PER_SEC), (long)(until % NSEC_PER_SEC)};
		pthread_cond_timedwait(&p->cond, &p->lock, &ts);
	}
}

void run_prefetch_take_procs(struct run_prefetch *p, struct procs_scan *scan)
{
	pthread_mutex_lock(&p->lock);
	wait_part(p, &p->procs_done);
	if (!p->procs_taken && !scan->done) {
		procs_scan_clear(scan);
		*scan = p->procs;
		p->procs = (struct procs_scan){0};
	}
	p->procs_taken = true;
	pthread_mutex_unlock(&p->lock);
}

void run_prefetch_take_kconfig(struct run_prefetch *p, struct kconfig_cache *cache)
{
	pthread_mutex_lock(&p->lock);
	wait_part(p, &p->kconfig_done);
	if (!p->kconfig_taken && !cache->path && p->kconfig.path) {
		*cache = p->kconfig;
		p->kconfig = (struct kconfig_cache){0};
	}
	p->kconfig_taken = true;
	pthread_mutex_unlock(&p->lock);
}
