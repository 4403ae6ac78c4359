/*
 * A background thread of the server's event loop (worker.h).
 */
#include "worker.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include "log.h"

#define BACKGROUND_NICE 10 /* added to a background thread's nice value */

static void list_push(struct worker_list *l, struct worker_job *j)
{
	j->next = NULL;
	if (l->last)
		l->last->next = j;
	else
		l->head = j;
	l->last = j;
}

static struct worker_job *list_take(struct worker_list *l)
{
	struct worker_job *head = l->head;
	*l = (struct worker_list){0};
	return head;
}

/* Background work (evaluations, renderings, the refresher's reads) must not
 * slow the loop (ingest, answers) when CPUs are short. Linux threads have nice
 * values of their own. */
void worker_lower_priority(void)
{
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, (id_t)gettid());
	if (errno == 0 && setpriority(PRIO_PROCESS, (id_t)gettid(), nice + BACKGROUND_NICE) < 0)
		log_warn("cannot lower the priority of a background thread, ignoring");
}

static void *thread_main(void *arg)
{
	struct worker *w = arg;
	if (w->ops->background)
		worker_lower_priority();
	pthread_mutex_lock(w->lock);
	for (;;) {
		while (!w->stopping && !w->queue.head)
			pthread_cond_wait(&w->cond, w->lock);
		if (w->stopping)
			break;
		struct worker_job *j = w->queue.head;
		w->queue.head = j->next;
		if (!w->queue.head)
			w->queue.last = NULL;
		if (w->urgent_last == j)
			w->urgent_last = NULL;
		/* Still the loop's to see (worker_each): its client may leave
		 * meanwhile. */
		w->busy = j;
		pthread_mutex_unlock(w->lock);
		w->ops->work(j, w->arg);
		pthread_mutex_lock(w->lock);
		w->busy = NULL;
		list_push(&w->done, j);
		/* Under the lock: on_done takes the list under it too, so a job
		 * pushed after it looked is woken for again, never missed. */
		event_active(w->wake, EV_READ, 0);
	}
	pthread_mutex_unlock(w->lock);
	return NULL;
}

/* Loop: finish what the thread has worked, oldest first. */
static void on_done(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	pthread_mutex_lock(w->lock);
	struct worker_job *j = list_take(&w->done);
	pthread_mutex_unlock(w->lock);
	while (j) {
		struct worker_job *next = j->next;
		w->pending--;
		w->ops->finish(j, w->arg);
		j = next;
	}
}

int worker_start(struct worker *w, const struct worker_ops *ops, void *arg, pthread_mutex_t *lock,
		 struct event_base *base, int priority)
{
	*w = (struct worker){.ops = ops, .arg = arg, .lock = lock};
	w->wake = event_new(base, -1, 0, on_done, w);
	if (!w->wake)
		return -ENOMEM;
	event_priority_set(w->wake, priority);
	pthread_cond_init(&w->cond, NULL);
	int r = pthread_create(&w->thread, NULL, thread_main, w);
	if (r != 0) {
		pthread_cond_destroy(&w->cond);
		event_free(w->wake);
		w->wake = NULL;
		return -r;
	}
	w->started = true;
	return 0;
}

void worker_submit(struct worker *w, struct worker_job *j)
{
	w->pending++;
	pthread_mutex_lock(w->lock);
	list_push(&w->queue, j);
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(w->lock);
}

void worker_submit_urgent(struct worker *w, struct worker_job *j)
{
	w->pending++;
	pthread_mutex_lock(w->lock);
	struct worker_job *after = w->urgent_last;
	j->next = after ? after->next : w->queue.head;
	if (after)
		after->next = j;
	else
		w->queue.head = j;
	if (!j->next)
		w->queue.last = j;
	w->urgent_last = j;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(w->lock);
}

void worker_each(struct worker *w, void (*fn)(struct worker_job *j, void *arg), void *arg)
{
	if (!w->started)
		return;
	pthread_mutex_lock(w->lock);
	for (struct worker_job *j = w->queue.head; j; j = j->next)
		fn(j, arg);
	if (w->busy)
		fn(w->busy, arg);
	for (struct worker_job *j = w->done.head; j; j = j->next)
		fn(j, arg);
	pthread_mutex_unlock(w->lock);
}

void worker_stop(struct worker *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(w->lock);
}

void worker_join(struct worker *w)
{
	if (!w->started)
		return;
	pthread_join(w->thread, NULL);
	w->started = false;
	/* The thread is gone: the lists are the loop's alone. A wake-up still
	 * pending is freed unrun; its jobs are dropped with the queue's. */
	event_free(w->wake);
	w->wake = NULL;
	pthread_cond_destroy(&w->cond);
	struct worker_job *lists[2] = {list_take(&w->queue), list_take(&w->done)};
	for (size_t i = 0; i < 2; i++)
		for (struct worker_job *j = lists[i], *next; j; j = next) {
			next = j->next;
			w->ops->drop(j, w->arg);
		}
	w->pending = 0;
}
