#include "threads.h"

#include <signal.h>
#include <time.h>

int thread_start(pthread_t *ret, void *(*fn)(void *), void *arg)
{
	/* The new thread inherits the mask it is created with. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(ret, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

int thread_start_detached(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int e = thread_start(&t, fn, arg);
	if (e == 0)
		pthread_detach(t);
	return e;
}

void cond_init_monotonic(pthread_cond_t *cond)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &ca);
	pthread_condattr_destroy(&ca);
}
