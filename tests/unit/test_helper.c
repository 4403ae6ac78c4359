/* The daemon's helper processes (agent/helper.c): this test binary is its own
 * helper (/proc/self/exe _helper JOB, dispatched in main as hvready-agent does),
 * so the real spawn, envelope, deadline and kill run here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper.h"
#include "loopback.h"

#define SECOND NSEC_PER_SEC

static bool never(void *arg)
{
	return false;
}

static bool always(void *arg)
{
	return true;
}

/* A probe helper for host.nfs.probe, as the daemon starts it for node
 * harvester-node-7 on host root root, with one NFS endpoint (or none). */
struct probe {
	struct agent_opts o;
	struct strv ids;
	struct helper h;
	char err[512];
};

static void probe_start(struct probe *p, const char *root, const char *endpoint,
			int64_t deadline_ns)
{
	agent_opts_init(&p->o);
	free(p->o.host_root);
	p->o.host_root = xstrdup(root);
	p->o.node = xstrdup("harvester-node-7");
	p->o.timeout_s = 2;
	if (endpoint)
		strv_add(&p->o.targets.nfs_endpoints, endpoint);
	p->ids = (struct strv){0};
	strv_add(&p->ids, "host.nfs.probe");
	p->err[0] = '\0';
	assert_int_equal(
	    helper_start_probe(&p->h, &p->o, &p->ids, deadline_ns, p->err, sizeof(p->err)), 0);
}

/* helper_finish_probe's result; frees what probe_start made. */
static int probe_finish(struct probe *p, bool (*stop)(void *), struct node_report *r)
{
	int rc = helper_finish_probe(&p->h, stop, NULL, r, p->err, sizeof(p->err));
	strv_clear(&p->ids);
	agent_opts_clear(&p->o);
	return rc;
}

/* No endpoints: the helper runs the check, which says so; the node is ours. */
static void test_probe_no_targets(void **state)
{
	struct probe p;
	probe_start(&p, "/", NULL, 30 * SECOND);
	assert_true(p.h.pid > 0);
	struct node_report r;
	assert_int_equal(probe_finish(&p, never, &r), 0);
	assert_int_equal(p.h.pid, 0);
	assert_int_equal(r.results.n, 1);
	const struct finding *f = &r.results.items[0];
	assert_string_equal(f->check, "host.nfs.probe");
	assert_int_equal(f->status, STATUS_SKIP);
	assert_string_equal(f->message, "no RWX share endpoints to probe");
	assert_string_equal(r.node, "harvester-node-7");
	node_report_clear(&r);
}

/* The targets travel to the helper: the endpoint is probed (and refused). */
static void test_probe_targets_reach_the_helper(void **state)
{
	char url[64];
	snprintf(url, sizeof(url), "nfs://127.0.0.1:%d/pvc-1", loopback_closed_port());
	struct probe p;
	probe_start(&p, "/", url, 30 * SECOND);
	struct node_report r;
	assert_int_equal(probe_finish(&p, never, &r), 0);
	assert_int_equal(r.results.n, 1);
	const struct finding *f = &r.results.items[0];
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, url));
	assert_non_null(strstr(f->message, "refused"));
	node_report_clear(&r);
}

/* A helper that fails says how. */
static void test_probe_helper_fails(void **state)
{
	struct probe p;
	probe_start(&p, "/nonexistent/host-root", NULL, 30 * SECOND);
	struct node_report r;
	assert_int_equal(probe_finish(&p, never, &r), -ECHILD);
	assert_string_equal(p.err, "the probe helper process exited with status 2");
	assert_int_equal(r.results.n, 0);
}

/* A helper that hangs is killed at its deadline, and reaped. */
static void test_probe_deadline(void **state)
{
	struct probe p;
	probe_start(&p, "/", NULL, 300 * NSEC_PER_MSEC);
	pid_t pid = p.h.pid;
	assert_int_equal(kill(pid, SIGSTOP), 0);
	int64_t t0 = util_now_mono_ns();
	struct node_report r;
	assert_int_equal(probe_finish(&p, never, &r), -ETIMEDOUT);
	int64_t took = util_now_mono_ns() - t0;
	assert_string_equal(p.err,
			    "the probe helper process did not finish within 0.3 s and was killed");
	assert_true(took < 3 * SECOND);
	assert_int_equal(kill(pid, 0), -1); /* killed and reaped: gone */
	assert_int_equal(errno, ESRCH);
}

/* The daemon stopping stops the helper. */
static void test_probe_stopped(void **state)
{
	struct probe p;
	probe_start(&p, "/", NULL, 30 * SECOND);
	pid_t pid = p.h.pid;
	kill(pid, SIGSTOP);
	struct node_report r;
	assert_int_equal(probe_finish(&p, always, &r), -ECANCELED);
	assert_string_equal(p.err, "the probe helper process was stopped with the daemon");
	assert_int_equal(kill(pid, 0), -1);
}

static void report(struct node_report *r)
{
	*r = (struct node_report){.node = xstrdup("harvester-node-7"), .seq = 3, .interval_s = 30};
	struct finding *f = finding_list_add(&r->results, "host.kvm");
	finding_set(f, STATUS_PASS, "KVM works");
	finding_remedy(f, "%s", "");
}

struct post {
	char url[64];
	char err[640];
};

/* helper_post of a small report to the loopback port with rq's settings. */
static int post_report(struct post *p, struct helper_post_request rq, int port, int64_t deadline_ns)
{
	snprintf(p->url, sizeof(p->url), "http://127.0.0.1:%d/v1/reports", port);
	struct node_report rep;
	report(&rep);
	rq.url = p->url;
	rq.report = &rep;
	struct http_post_reply r;
	p->err[0] = '\0';
	int rc = helper_post(&rq, deadline_ns, never, NULL, &r, p->err, sizeof(p->err));
	node_report_clear(&rep);
	return rc;
}

/* The post helper's answer comes back with http_post_run's reason. */
static void test_post_refused(void **state)
{
	struct post p;
	struct helper_post_request rq = {.token = "t0ken", .timeout_s = 2, .last_rtt_ns = 5};
	assert_int_equal(post_report(&p, rq, loopback_closed_port(), 10 * SECOND), -ECONNREFUSED);
	char want[128];
	snprintf(want, sizeof(want), "%s: connection refused", p.url);
	assert_string_equal(p.err, want);
}

/* A server that accepts and never answers: the helper's own timeout, not the kill. */
static void test_post_timeout(void **state)
{
	int port, fd = loopback_socket(4, &port);
	struct post p;
	struct helper_post_request rq = {.timeout_s = 1};
	assert_int_equal(post_report(&p, rq, port, 10 * SECOND), -ETIMEDOUT);
	assert_non_null(strstr(p.err, "no complete reply within"));
	close(fd);
}

/* The post helper killed at the daemon's deadline (shorter than its own timeouts). */
static void test_post_killed(void **state)
{
	int port, fd = loopback_socket(4, &port);
	struct post p;
	struct helper_post_request rq = {.timeout_s = 30};
	assert_int_equal(post_report(&p, rq, port, 500 * NSEC_PER_MSEC), -ETIMEDOUT);
	char want[160];
	snprintf(want, sizeof(want),
		 "%s: the post helper process did not finish within 0.5 s and was killed", p.url);
	assert_string_equal(p.err, want);
	close(fd);
}

/* The helper refuses what is not a request from the daemon. */
static void test_helper_main_refuses(void **state)
{
	char *bad_job[] = {"_helper", "frobnicate", NULL};
	assert_int_equal(helper_main(2, bad_job), 2);
}

int main(int argc, char **argv)
{
	/* The helper processes the tests start are this binary. */
	if (argc >= 2 && streq(argv[1], "_helper"))
		return helper_main(argc - 1, argv + 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_probe_no_targets),
	    cmocka_unit_test(test_probe_targets_reach_the_helper),
	    cmocka_unit_test(test_probe_helper_fails),
	    cmocka_unit_test(test_probe_deadline),
	    cmocka_unit_test(test_probe_stopped),
	    cmocka_unit_test(test_post_refused),
	    cmocka_unit_test(test_post_timeout),
	    cmocka_unit_test(test_post_killed),
	    cmocka_unit_test(test_helper_main_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
