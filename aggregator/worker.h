/*
 * A background thread of the server's event loop. The loop submits jobs; the
 * thread works them one at a time, oldest first, off the loop; each worked job
 * goes back to the loop through a done list and a libevent wake-up, and the
 * loop finishes it (answers a request, frees the job) in a callback of its own.
 *
 * The evaluator, the renderer and the token reviewer are workers (server*.c).
 * A job is whatever struct embeds a struct worker_job; the worker only links
 * it. While a job is queued, in hand or done, the loop and the thread share
 * nothing of it but the link: work() reads and writes the job's payload,
 * finish() runs after it on the loop, and fields that only the loop touches
 * (a request the client may abandon) stay the loop's throughout.
 *
 * The lists are guarded by a mutex the worker is given, not one of its own:
 * the server's, which also guards what its other threads hand over.
 */
#pragma once
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

struct worker_job {
	struct worker_job *next;
};

/* The struct of type that embeds the job link p as member. */
#define worker_job_of(p, type, member) ((type *)(void *)((char *)(p)-offsetof(type, member)))

struct worker_ops {
	void (*work)(struct worker_job *j, void *arg);	 /* the thread, without the lock */
	void (*finish)(struct worker_job *j, void *arg); /* the loop, once worked */
	void (*drop)(struct worker_job *j, void *arg);	 /* the loop, at the end: never finished */
	bool background; /* lower the thread's priority below the loop's */
};

struct worker_list {
	struct worker_job *head, *last;
};

struct worker {
	size_t pending; /* loop: submitted, not finished yet */
	/* the rest is the worker's own */
	const struct worker_ops *ops;
	void *arg;
	pthread_mutex_t *lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool started;			/* loop */
	bool stopping;			/* under lock */
	struct worker_list queue, done; /* under lock */
	struct worker_job *busy;	/* under lock: the job in the thread's hands */
	struct worker_job *urgent_last; /* under lock: the last urgent job queued, or NULL */
	struct event *wake;		/* runs on_done on the loop */
};

/* Start the thread; ops->finish runs on base's loop at event priority
 * priority. 0, or -errno (nothing started). */
int worker_start(struct worker *w, const struct worker_ops *ops, void *arg, pthread_mutex_t *lock,
		 struct event_base *base, int priority);
/* Loop: queue j for the thread. */
void worker_submit(struct worker *w, struct worker_job *j);
/* Loop: queue j ahead of every job not submitted urgent (after the urgent
 * ones, oldest first): the token reviews of known nodes pass a flood. */
void worker_submit_urgent(struct worker *w, struct worker_job *j);
/* Loop: call fn on every job submitted and not yet taken back to be finished,
 * with the lock held (fn must not call into the worker). */
void worker_each(struct worker *w, void (*fn)(struct worker_job *j, void *arg), void *arg);
/* Ask the thread to end after the job in hand; returns at once, so that all
 * threads are told before any is waited for. */
void worker_stop(struct worker *w);
/* After worker_stop: wait for the thread to end, drop the jobs the loop will
 * not finish and free the rest. A worker never started is left alone. */
void worker_join(struct worker *w);
/* Lower the calling thread's priority below the loop's. */
void worker_lower_priority(void);
