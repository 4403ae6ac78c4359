/*
 * The daemon's helper processes: everything of a cycle that goes to the
 * network runs in a short-lived child, `hvready-agent _helper JOB` (the same
 * executable, /proc/self/exe), so that the long-lived daemon never maps
 * OpenSSL, libcurl and their libraries, and a probe wedged in a library call
 * cannot hold the daemon: the child is killed at its deadline.
 *
 *   probe: the network checks (host.image.share-manager, host.nfs.probe) of
 *          one cycle; the reply is a node report (common/wire.h) with their
 *          findings, which the daemon puts in place of the in-process run.
 *   post:  POST one report to the aggregator (agent/http_post.h); the reply
 *          is the HTTP status, the body, the round trip, or why it failed.
 *
 * Requests go to the child's stdin (a memfd, so writing never blocks), replies
 * come back on its stdout; both are msgpack maps (listed in helper.c).
 * The token travels on stdin, never in argv or the environment. The child's
 * stderr is the daemon's (the journal). docs/decisions.md says why and what
 * it costs.
 */
#pragma once
#include <sys/types.h>

#include "agent.h"
#include "http_post.h"

/* The checks that go to the network (NETWORK rows of common/checks.def), in
 * the order of the check table. */
extern const char *const helper_network_checks[];
extern const size_t helper_network_checks_len;

struct helper {
	pid_t pid; /* 0: not running */
	int out_fd;
	int64_t timeout_ns;
	int64_t deadline_ns; /* monotonic: the child is killed then */
};

/* What the daemon asks for. */
struct helper_post_request {
	const char *url; /* the aggregator's reports URL */
	const char *ca_file;
	const char *token; /* NULL: none */
	int timeout_s;
	int64_t last_rtt_ns; /* sent as Hvready-Last-Rtt-Ns */
	/* CLOCK_MONOTONIC (system-wide) when the report's cycle began: the
	 * helper sends the report's age from it (Hvready-Report-Age-Ns) */
	int64_t started_mono_ns;
	const struct node_report *report;
};

/* Start a probe job for the checks ids (a subset of helper_network_checks)
 * with the options of this cycle (host root, node, timeout, probe targets).
 * The child is killed timeout_ns after the start. Returns 0 or -errno (err). */
int helper_start_probe(struct helper *h, const struct agent_opts *o, const struct strv *ids,
		       int64_t timeout_ns, char *err, size_t errlen);
/* Wait for the probe job and decode its findings into *ret (a node report
 * holding only them). stop() is polled a few times a second: when it says
 * true, the child is killed. Returns 0 or -errno (err: what happened to the
 * child, for the UNKNOWN findings that replace the missing ones). */
int helper_finish_probe(struct helper *h, bool (*stop)(void *), void *arg, struct node_report *ret,
			char *err, size_t errlen);

/* Run a post job to completion (killed after timeout_ns). Returns 0 when the
 * aggregator answered (any status, in *ret), else -errno with the reason in err
 * (http_post_run's, or what happened to the child). */
int helper_post(const struct helper_post_request *rq, int64_t timeout_ns, bool (*stop)(void *),
		void *arg, struct http_post_reply *ret, char *err, size_t errlen);

/* The child: `hvready-agent _helper probe|post`. Returns the exit code. */
int helper_main(int argc, char **argv);
