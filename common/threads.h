/*
 * The two ways this project starts and waits on threads, written once.
 */
#pragma once
#include <pthread.h>

/* Start fn(arg) on a detached thread that takes no signal: every signal stays
 * blocked in it, so SIGTERM and SIGINT stay the main loop's (agent/daemon.c)
 * whatever thread the kernel would pick. 0, or the positive errno of
 * pthread_create. */
int thread_start_detached(void *(*fn)(void *), void *arg);

/* The same thread, joinable: *ret is its handle, which the caller joins or
 * detaches. A thread whose end the process waits for is joined, not detached:
 * a library's per-thread state (OpenSSL's error queue, which libcurl's calls
 * allocate) is freed by the thread's own exit, which a process that exits
 * right after a detached thread said "done" does not wait for. */
int thread_start(pthread_t *ret, void *(*fn)(void *), void *arg);

/* pthread_cond_init on CLOCK_MONOTONIC: a pthread_cond_timedwait deadline from
 * util_now_mono_ns(), which a step of the wall clock does not stretch or cut. */
void cond_init_monotonic(pthread_cond_t *cond);
