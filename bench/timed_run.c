/*
 * timed_run: run one command and write "wall_s peak_rss_kib exit cpu_s" of it.
 *
 *   timed_run -o FILE [-t SECONDS] -- CMD [ARG...]
 *
 * The wall time runs from just before the command is spawned to the moment it
 * is reaped; peak RSS and CPU time (user + system) are the child's, from
 * wait4(2). This replaces `/usr/bin/time` around bash's $EPOCHREALTIME in
 * bench/run.sh: that interval also held bash's fork, the exec of
 * /usr/bin/time (a dynamic binary) and its output file, about 1.5 ms on the
 * machines of docs/benchmarks.md, added to both sides of a comparison of
 * programs that take 5 and 17 ms. Spawning with posix_spawn (a vfork in
 * glibc) keeps what is counted to what the command itself costs, start-up
 * included.
 *
 * -t: after SECONDS the command gets SIGTERM, and SIGKILL 5 s later; the exit
 * written is then 124, as timeout(1) says. A command that cannot be started is
 * exit 127. timed_run's own exit status is the command's (or 124/127).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait for pid until `until` (0: for ever): 1 reaped, 0 timed out. */
static int reap_by(pid_t pid, double until, const sigset_t *chld, int *status, struct rusage *ru)
{
	for (;;) {
		pid_t r = wait4(pid, status, WNOHANG, ru);
		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR) {
			perror("timed_run: wait4");
			exit(2);
		}
		double left = until > 0 ? until - now_s() : 3600;
		if (left <= 0)
			return 0;
		struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
		sigtimedwait(chld, NULL, &ts);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: timed_run -o FILE [-t SECONDS] -- CMD [ARG...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	double timeout = 0;
	int c;
	while ((c = getopt(argc, argv, "+o:t:")) != -1) {
		if (c == 'o') {
			out = optarg;
		} else if (c == 't') {
			char *end;
			timeout = strtod(optarg, &end);
			if (*end || timeout <= 0)
				usage();
		} else {
			usage();
		}
	}
	if (!out || optind >= argc)
		usage();
	FILE *f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "timed_run: %s: %s\n", out, strerror(errno));
		return 2;
	}
	/* SIGCHLD blocked here, so sigtimedwait sees it; the child gets the
	 * default mask back. */
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &old);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	pid_t pid;
	double t0 = now_s();
	int e = posix_spawnp(&pid, argv[optind], NULL, &attr, argv + optind, environ);
	posix_spawnattr_destroy(&attr);
	int rc, status = 0;
	struct rusage ru = {0};
	if (e != 0) {
		fprintf(stderr, "timed_run: %s: %s\n", argv[optind], strerror(e));
		rc = 127;
	} else if (reap_by(pid, timeout > 0 ? t0 + timeout : 0, &chld, &status, &ru)) {
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	} else {
		kill(pid, SIGTERM);
		if (!reap_by(pid, now_s() + 5, &chld, &status, &ru)) {
			kill(pid, SIGKILL);
			reap_by(pid, 0, &chld, &status, &ru);
		}
		rc = 124;
	}
	double wall = now_s() - t0;
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	fprintf(f, "%.6f %ld %d %.4f\n", wall, e == 0 ? ru.ru_maxrss : -1L, rc, cpu);
	if (fclose(f) != 0) {
		fprintf(stderr, "timed_run: %s: %s\n", out, strerror(errno));
		return 2;
	}
	return rc;
}
