/*
 * host.nfs.probe without an NFS server: every status the check yields, from
 * real loopback sockets (refused, black-holed, disconnected) and from probe
 * results as nfs_probe_run() returns them. The PASS paths against a real
 * NFS-Ganesha are in tests/integration/nfs_probe.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>

#include "hostroot_fixture.h"
#include "loopback.h"

/* The check's static functions (report_result, run_all) are reached directly. */
#include "../../agent/check_nfs_probe.c"

/* The n-th finding, of this check and this node. */
static const struct finding *nth(const struct hostroot_fixture *h, size_t i)
{
	assert_true(i < h->report.results.n);
	const struct finding *f = &h->report.results.items[i];
	assert_string_equal(f->check, "host.nfs.probe");
	assert_string_equal(f->node, HF_NODE);
	return f;
}

static void test_skip(void **state)
{
	struct hostroot_fixture h;
	hf_open_no_root(&h);
	check_nfs_probe(&h.ctx, "host.nfs.probe");
	assert_int_equal(h.report.results.n, 1);
	const struct finding *f = nth(&h, 0);
	assert_int_equal(f->status, STATUS_SKIP);
	assert_string_equal(f->message, "no RWX share endpoints to probe");
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "nfs_endpoints", &n));
	assert_int_equal(n, 0);
	hf_close(&h);
}

static void test_malformed(void **state)
{
	struct hostroot_fixture h;
	hf_open_no_root(&h);
	strv_add(&h.opts.targets.nfs_endpoints, "nfs://10.43.12.7/pvc-a?version=3");
	strv_add(&h.opts.targets.nfs_endpoints, "nfs://10.43.12.7/pvc\x01");
	h.opts.targets.canary_export = xstrdup("10.43.12.7:/canary");
	check_nfs_probe(&h.ctx, "host.nfs.probe");
	assert_int_equal(h.report.results.n, 3);
	/* The canary comes first. */
	const struct finding *f = nth(&h, 0);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_contains(f->message, "malformed NFS endpoint \"10.43.12.7:/canary\"");
	assert_contains(f->remediation, "canary_export");
	assert_string_equal(f->object, "10.43.12.7:/canary");
	f = nth(&h, 1);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_contains(f->message, "query");
	assert_string_equal(f->object, "nfs://10.43.12.7/pvc-a?version=3");
	assert_non_null(kv_get_str(&f->evidence, "parse_error"));
	f = nth(&h, 2);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	/* Control characters never reach a message or an object. */
	assert_string_equal(f->object, "nfs://10.43.12.7/pvc?");
	assert_null(strchr(f->message, '\x01'));
	hf_close(&h);
}

static void test_refused(void **state)
{
	struct hostroot_fixture h;
	hf_open_no_root(&h);
	char url[64];
	snprintf(url, sizeof(url), "nfs://127.0.0.1:%d/pvc-a", loopback_closed_port());
	strv_add(&h.opts.targets.nfs_endpoints, url);
	int64_t t = util_now_mono_ns();
	check_nfs_probe(&h.ctx, "host.nfs.probe");
	assert_true(util_now_mono_ns() - t < NSEC_PER_SEC);
	const struct finding *f = nth(&h, 0);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(f->object, "Volume/longhorn-system/pvc-a");
	assert_contains(f->message, "refused");
	assert_string_equal(kv_get_str(&f->evidence, "errno"), "ECONNREFUSED");
	assert_string_equal(kv_get_str(&f->evidence, "failed_step"), "connect");
	/* Nothing was said in NFS: no client, no version. */
	assert_null(kv_get(&f->evidence, "nfs_version"));
	assert_null(kv_get(&f->evidence, "client"));
	assert_contains(f->remediation, "share-manager-pvc-a");
	assert_contains(f->remediation, "get endpoints pvc-a");
	hf_close(&h);
}

/*
 * A listener with a full accept queue drops further SYNs, as a firewall
 * would: the probes must give up at their deadline, and the check must stop
 * starting new ones when the budget cannot hold another timeout.
 */
static void test_blackhole_budget(void **state)
{
	int port;
	int l = loopback_socket(0, &port);
	int filler = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons(port)};
	assert_int_equal(connect(filler, (struct sockaddr *)&a, sizeof(a)), 0);

	struct hostroot_fixture h;
	hf_open_no_root(&h);
	char url[64];
	for (char c = 'a'; c <= 'd'; c++) {
		snprintf(url, sizeof(url), "nfs://127.0.0.1:%d/pvc-%c", port, c);
		strv_add(&h.opts.targets.nfs_endpoints, url);
	}
	const int64_t timeout = 300 * NSEC_PER_MSEC, budget = 700 * NSEC_PER_MSEC;
	int64_t t = util_now_mono_ns();
	run_all(&h.ctx, "host.nfs.probe", timeout, budget);
	int64_t took = util_now_mono_ns() - t;
	assert_true(took >= 2 * timeout);
	/* Bounded (slack for a loaded CI machine), not minutes of SYN retries. */
	assert_true(took <= budget + timeout / 10 + 500 * NSEC_PER_MSEC);
	assert_int_equal(h.report.results.n, 4);
	for (size_t i = 0; i < 2; i++) {
		const struct finding *f = nth(&h, i);
		assert_int_equal(f->status, STATUS_FAIL);
		assert_contains(f->message,
				"no answer within 0.3 s (TCP connection not established)");
		assert_string_equal(kv_get_str(&f->evidence, "outcome"), "timeout");
		bool b;
		assert_true(kv_get_bool(&f->evidence, "tcp_connected", &b));
		assert_false(b);
		assert_contains(f->remediation, "NetworkPolicies");
	}
	for (size_t i = 2; i < 4; i++) {
		const struct finding *f = nth(&h, i);
		assert_int_equal(f->status, STATUS_UNKNOWN);
		assert_contains(f->message,
				"not probed: budget exhausted (0.7 s for the whole check)");
	}
	hf_close(&h);
	close(filler);
	close(l);
}

/* Accepts the probe's connection, reads the first call (EXCHANGE_ID) and
 * hangs up without an answer. */
static void *accept_and_close(void *arg)
{
	int l = *(int *)arg;
	int c = accept(l, NULL, NULL);
	if (c >= 0) {
		char buf[4096];
		(void)!read(c, buf, sizeof(buf));
		close(c);
	}
	return NULL;
}

static void test_disconnected(void **state)
{
	int port;
	int l = loopback_socket(4, &port);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, accept_and_close, &l), 0);
	struct nfs_probe_url u;
	char url[64], err[128];
	snprintf(url, sizeof(url), "nfs://127.0.0.1:%d/pvc-a", port);
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)url, strlen(url), &u, err, sizeof(err)), 0);
	struct nfs_probe_result r;
	nfs_probe_run(&u, util_now_mono_ns() + 2 * NSEC_PER_SEC, false, &r);
	pthread_join(th, NULL);
	close(l);
	assert_true(r.tcp_connected);
	assert_int_equal(r.step, NFS_STEP_MOUNT);
	assert_int_equal(r.client, NFS_CLIENT_HVREADY41);
	assert_int_equal(r.nfs_minor, -1);
	/* FIN after the call was read; RST if the kernel still held unread bytes. */
	if (r.outcome != NFS_PROBE_DISCONNECTED &&
	    !(r.outcome == NFS_PROBE_SOCKET_ERROR && r.sock_errno == ECONNRESET))
		fail_msg("outcome %s: %s", nfs_probe_outcome_name(r.outcome), r.nfs_error);
	assert_true(r.elapsed_ms < 2000);

	struct hostroot_fixture h;
	hf_open_no_root(&h);
	struct endpoint e;
	endpoint_init(&e, url, false);
	report_result(agent_finding(&h.ctx, "host.nfs.probe"), &e, &r);
	assert_int_equal(nth(&h, 0)->status, STATUS_FAIL);
	hf_close(&h);
}

static void test_resolve_name(void **state)
{
	struct nfs_probe_url u;
	char url[64], err[128];
	snprintf(url, sizeof(url), "nfs://localhost:%d/x", loopback_closed_port());
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)url, strlen(url), &u, err, sizeof(err)), 0);
	struct nfs_probe_result r;
	nfs_probe_run(&u, util_now_mono_ns() + 2 * NSEC_PER_SEC, false, &r);
	if (!streq(r.address, "127.0.0.1") && !streq(r.address, "::1"))
		fail_msg("localhost resolved to \"%s\"", r.address);
	assert_int_equal(r.outcome, NFS_PROBE_REFUSED);
	assert_int_equal(r.step, NFS_STEP_CONNECT);

	/* A deadline already past: nothing is attempted beyond resolution. */
	snprintf(url, sizeof(url), "nfs://127.0.0.1:%d/x", loopback_closed_port());
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)url, strlen(url), &u, err, sizeof(err)), 0);
	nfs_probe_run(&u, util_now_mono_ns() - 1, false, &r);
	assert_int_equal(r.outcome, NFS_PROBE_TIMEOUT);
	assert_int_equal(r.limit_ms, 0);
}

/* ---------------------------------------------------------------- results → findings */

static struct nfs_probe_result base_result(void)
{
	struct nfs_probe_result r = {
	    .outcome = NFS_PROBE_OK,
	    .step = NFS_STEP_DONE,
	    .address = "10.43.12.7",
	    .tcp_connected = true,
	    .client = NFS_CLIENT_HVREADY41,
	    .nfs_minor = 1,
	    .minors_tried = 1u << 1,
	    .limit_ms = 3000,
	    .elapsed_ms = 12,
	    .connect_ms = 1,
	    .session_ms = 4,
	    .mount_ms = 2,
	    .getattr_ms = -1,
	    .canary_ms = -1,
	};
	return r;
}

/* Report r for url into a fresh context; returns the finding. */
static const struct finding *report(struct hostroot_fixture *h, const char *url, bool canary,
				    const struct nfs_probe_result *r)
{
	hf_open_no_root(h);
	struct endpoint e;
	endpoint_init(&e, url, canary);
	report_result(endpoint_finding(&h->ctx, "host.nfs.probe", &e), &e, r);
	return nth(h, 0);
}

static void test_report_pass(void **state)
{
	struct hostroot_fixture h;
	struct nfs_probe_result r = base_result();
	/* As the NFSv4.1 client reads a Longhorn share-manager (Only_Numeric_Owners). */
	r.have_root = true;
	r.root_known = NFS_ROOT_MODE | NFS_ROOT_IDS | NFS_ROOT_NAMES;
	r.root_mode = 040755;
	snprintf(r.root_owner, sizeof(r.root_owner), "0");
	snprintf(r.root_group, sizeof(r.root_group), "0");
	const struct finding *f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(f->object, "Volume/longhorn-system/pvc-a");
	assert_contains(f->message, "mounted with NFSv4.1 and read the export root's attributes "
				    "(session 4 ms, lookup and getattr 2 ms)");
	assert_string_equal(kv_get_str(&f->evidence, "client"), "hvready nfs4.1");
	assert_string_equal(kv_get_str(&f->evidence, "nfs_version"), "4.1");
	assert_string_equal(kv_get_str(&f->evidence, "root_mode"), "0755");
	assert_string_equal(kv_get_str(&f->evidence, "root_type"), "directory");
	assert_string_equal(kv_get_str(&f->evidence, "root_owner"), "0");
	assert_string_equal(kv_get_str(&f->evidence, "export"), "/pvc-a");
	int64_t v;
	assert_true(kv_get_int(&f->evidence, "root_uid", &v));
	assert_int_equal(v, 0);
	assert_true(kv_get_int(&f->evidence, "port", &v));
	assert_int_equal(v, 2049);
	assert_true(kv_get_int(&f->evidence, "session_ms", &v));
	assert_int_equal(v, 4);
	assert_null(kv_get(&f->evidence, "getattr_ms"));
	assert_null(kv_get(&f->evidence, "failed_step"));
	/* Nothing was refused: no version lists. */
	assert_null(kv_get(&f->evidence, "nfs_versions_tried"));
	assert_string_equal(f->remediation, "");
	hf_close(&h);

	/* Owner names that are not numbers: the names, and no ids. */
	r.root_known = NFS_ROOT_MODE | NFS_ROOT_NAMES;
	snprintf(r.root_owner, sizeof(r.root_owner), "root@cluster.local");
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_string_equal(kv_get_str(&f->evidence, "root_owner"), "root@cluster.local");
	assert_null(kv_get(&f->evidence, "root_uid"));
	hf_close(&h);

	r.canary_ms = 7;
	snprintf(r.canary_file, sizeof(r.canary_file), "/.hvready-canary-1-00");
	r.canary_bytes = 40;
	f = report(&h, "nfs://[fd00::7]:2050/canary", true, &r);
	assert_int_equal(f->status, STATUS_PASS);
	assert_contains(f->message, "mounted with NFSv4.1; canary file created, written, read back "
				    "identical and removed in 7 ms");
	bool b;
	assert_true(kv_get_bool(&f->evidence, "canary", &b) && b);
	assert_true(kv_get_bool(&f->evidence, "canary_left_behind", &b) && !b);
	hf_close(&h);

	/* An export that is not a volume name: the object is the URL. */
	f = report(&h, "nfs://nas.example/exports/rwx", false, &r);
	assert_string_equal(f->object, "nfs://nas.example/exports/rwx");
	assert_null(kv_get(&f->evidence, "volume"));
	hf_close(&h);

	/* An NFSv4.0-only server, through libnfs after 4.1 and 4.2 were refused. */
	r = base_result();
	r.client = NFS_CLIENT_LIBNFS40;
	r.nfs_minor = 0;
	r.minors_tried = 0x7;
	r.minors_refused = 0x6;
	r.session_ms = -1;
	r.mount_ms = 9;
	r.getattr_ms = 2;
	r.have_root = true;
	r.root_known = NFS_ROOT_MODE | NFS_ROOT_IDS;
	r.root_mode = 040700;
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_PASS);
	assert_contains(f->message, "mounted with NFSv4.0 and read the export root's attributes "
				    "(mount 9 ms, getattr 2 ms)");
	assert_string_equal(kv_get_str(&f->evidence, "client"), "libnfs nfs4.0");
	const struct value_list *l = kv_get_list(&f->evidence, "nfs_versions_tried");
	assert_non_null(l);
	assert_int_equal(l->n, 3);
	assert_string_equal(l->items[0].s, "4.1");
	assert_string_equal(l->items[1].s, "4.2");
	assert_string_equal(l->items[2].s, "4.0");
	l = kv_get_list(&f->evidence, "nfs_versions_refused");
	assert_non_null(l);
	assert_int_equal(l->n, 2);
	assert_null(kv_get(&f->evidence, "root_owner"));
	hf_close(&h);
}

static void test_report_failures(void **state)
{
	struct hostroot_fixture h;
	struct nfs_probe_result r = base_result();
	r.outcome = NFS_PROBE_NFS_ERROR;
	r.step = NFS_STEP_MOUNT;
	snprintf(r.nfs_error, sizeof(r.nfs_error),
		 "NFS4: (path /pvc-a) failed with NFS4ERR_NOENT(-2)");
	snprintf(r.nfs_status, sizeof(r.nfs_status), "NFS4ERR_NOENT");
	const struct finding *f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_contains(f->message,
			"mount failed: NFS4: (path /pvc-a) failed with NFS4ERR_NOENT(-2)");
	assert_contains(f->remediation, "volumes.longhorn.io pvc-a");
	hf_close(&h);

	snprintf(r.nfs_status, sizeof(r.nfs_status), "NFS4ERR_ACCESS");
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_contains(f->remediation, "denies this node");
	hf_close(&h);

	/* Timeout with the connection up: the share-manager is hung. */
	r = base_result();
	r.outcome = NFS_PROBE_TIMEOUT;
	r.step = NFS_STEP_GETATTR;
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_contains(f->message, "no answer within 3 s (getattr): the share-manager may be hung "
				    "or a NetworkPolicy blocks 2049");
	assert_contains(f->remediation, "hung");
	hf_close(&h);

	r.step = NFS_STEP_RESOLVE;
	r.tcp_connected = false;
	f = report(&h, "nfs://pvc-a.longhorn-system.svc/pvc-a", false, &r);
	assert_contains(f->message, "name resolution of pvc-a.longhorn-system.svc got no answer");
	assert_contains(f->remediation, "CoreDNS");
	hf_close(&h);

	r = base_result();
	r.outcome = NFS_PROBE_RESOLVE;
	r.step = NFS_STEP_RESOLVE;
	r.address[0] = '\0';
	snprintf(r.nfs_error, sizeof(r.nfs_error), "Name or service not known");
	f = report(&h, "nfs://nas.invalid/x", false, &r);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_contains(f->message, "does not resolve: Name or service not known");
	assert_null(kv_get(&f->evidence, "address"));
	hf_close(&h);

	r = base_result();
	r.outcome = NFS_PROBE_SOCKET_ERROR;
	r.step = NFS_STEP_CONNECT;
	r.tcp_connected = false;
	r.sock_errno = EHOSTUNREACH;
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(kv_get_str(&f->evidence, "errno"), "EHOSTUNREACH");
	assert_contains(f->remediation, "kube-proxy");
	hf_close(&h);

	r = base_result();
	r.outcome = NFS_PROBE_DISCONNECTED;
	r.step = NFS_STEP_MOUNT;
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_contains(f->message, "closed the connection during mount");
	hf_close(&h);
}

static void test_report_canary(void **state)
{
	struct hostroot_fixture h;
	struct nfs_probe_result r = base_result();
	snprintf(r.canary_file, sizeof(r.canary_file), "/.hvready-canary-9-ab");
	r.canary_bytes = 40;

	r.outcome = NFS_PROBE_NFS_ERROR;
	r.step = NFS_STEP_CREATE;
	snprintf(r.nfs_error, sizeof(r.nfs_error), "NFS4: (path /) failed with NFS4ERR_ROFS(-30)");
	snprintf(r.nfs_status, sizeof(r.nfs_status), "NFS4ERR_ROFS");
	const struct finding *f = report(&h, "nfs://10.43.12.7/canary", true, &r);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_contains(f->message,
			"canary create failed: NFS4: (path /) failed with NFS4ERR_ROFS");
	assert_contains(f->remediation, "read-only");
	hf_close(&h);

	r.step = NFS_STEP_WRITE;
	snprintf(r.nfs_status, sizeof(r.nfs_status), "NFS4ERR_NOSPC");
	f = report(&h, "nfs://10.43.12.7/canary", true, &r);
	assert_contains(f->message, "canary write failed");
	assert_contains(f->remediation, "volumes.longhorn.io canary");
	hf_close(&h);

	r.outcome = NFS_PROBE_MISMATCH;
	r.step = NFS_STEP_COMPARE;
	snprintf(r.nfs_error, sizeof(r.nfs_error),
		 "read back 40 bytes starting \"aaaa\" after writing 40");
	f = report(&h, "nfs://10.43.12.7/canary", true, &r);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_contains(f->message, "canary compare failed: read back 40 bytes");
	assert_contains(f->remediation, "unsafe");
	hf_close(&h);

	/* The file could not be removed: say where it is. */
	r.canary_left_behind = true;
	f = report(&h, "nfs://10.43.12.7/canary", true, &r);
	assert_contains(f->remediation, "/canary/.hvready-canary-9-ab was left behind");
	bool b;
	assert_true(kv_get_bool(&f->evidence, "canary_left_behind", &b) && b);
	hf_close(&h);

	/* An OPEN whose answer never came: the file may exist. */
	r.outcome = NFS_PROBE_TIMEOUT;
	r.step = NFS_STEP_CREATE;
	r.canary_left_maybe = true;
	f = report(&h, "nfs://10.43.12.7/canary", true, &r);
	assert_contains(f->remediation, "/canary/.hvready-canary-9-ab may have been left behind: "
					"remove it from the export by hand if it is there.");
	hf_close(&h);
	r.canary_left_maybe = false;

	r.outcome = NFS_PROBE_NFS_ERROR;
	r.step = NFS_STEP_REMOVE;
	snprintf(r.nfs_status, sizeof(r.nfs_status), "NFS4ERR_ACCESS");
	f = report(&h, "nfs://10.43.12.7/", true, &r);
	assert_contains(f->message, "canary remove failed");
	assert_contains(f->remediation, "The canary file /.hvready-canary-9-ab was left behind");
	hf_close(&h);
}

static void test_report_protocol(void **state)
{
	struct hostroot_fixture h;
	/* A server that refuses every minor version a client speaks. */
	struct nfs_probe_result r = base_result();
	r.outcome = NFS_PROBE_NO_VERSION;
	r.step = NFS_STEP_MOUNT;
	r.client = NFS_CLIENT_LIBNFS40;
	r.nfs_minor = -1;
	r.minors_tried = 0x7;
	r.minors_refused = 0x7;
	snprintf(r.nfs_status, sizeof(r.nfs_status), "NFS4ERR_MINOR_VERS_MISMATCH");
	const struct finding *f = report(&h, "nfs://[fd00::1]/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_contains(f->message, "refuses NFSv4.0, 4.1 and 4.2");
	assert_contains(f->remediation, "Minor_Versions");
	assert_null(kv_get(&f->evidence, "nfs_version"));
	const struct value_list *l = kv_get_list(&f->evidence, "nfs_versions_refused");
	assert_non_null(l);
	assert_int_equal(l->n, 3);
	hf_close(&h);

	/* The RPC layer refuses our credentials. */
	r = base_result();
	r.outcome = NFS_PROBE_RPC_ERROR;
	r.step = NFS_STEP_MOUNT;
	r.nfs_minor = -1;
	snprintf(r.nfs_error, sizeof(r.nfs_error),
		 "the server refused the RPC call to EXCHANGE_ID: AUTH_ERROR (AUTH_TOOWEAK, "
		 "auth_stat 5)");
	snprintf(r.rpc_status, sizeof(r.rpc_status), "AUTH_TOOWEAK");
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_contains(f->message, "mount failed: the server refused the RPC call to EXCHANGE_ID");
	assert_string_equal(kv_get_str(&f->evidence, "rpc_status"), "AUTH_TOOWEAK");
	assert_contains(f->remediation, "AUTH_SYS");
	hf_close(&h);

	snprintf(r.rpc_status, sizeof(r.rpc_status), "PROG_UNAVAIL");
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_contains(f->remediation,
			"Something other than an NFSv4 server answers on 10.43.12.7 "
			"port 2049");
	hf_close(&h);

	/* A reply hvready cannot decode: not checked, so UNKNOWN, with the manual mount. */
	r = base_result();
	r.outcome = NFS_PROBE_BAD_REPLY;
	r.step = NFS_STEP_MOUNT;
	snprintf(r.nfs_error, sizeof(r.nfs_error),
		 "LOOKUP: malformed reply: GETFH file handle (at byte 96 of 112)");
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_contains(f->message, "could not decode the server's reply during mount (LOOKUP: "
				    "malformed reply: GETFH file handle");
	assert_contains(f->remediation, "mount -t nfs4 -o vers=4.1");
	assert_contains(f->remediation, "10.43.12.7:/pvc-a");
	assert_string_equal(kv_get_str(&f->evidence, "outcome"), "bad-reply");
	hf_close(&h);

	/* The server forgot us, or stayed in its grace period. */
	r = base_result();
	r.outcome = NFS_PROBE_NFS_ERROR;
	r.step = NFS_STEP_MOUNT;
	snprintf(r.nfs_status, sizeof(r.nfs_status), "NFS4ERR_STALE_CLIENTID");
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_contains(f->remediation, "restarted");
	hf_close(&h);
	snprintf(r.nfs_status, sizeof(r.nfs_status), "NFS4ERR_GRACE");
	f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_contains(f->remediation, "grace period");
	hf_close(&h);
}

static void test_report_unknown(void **state)
{
	struct hostroot_fixture h;
	struct nfs_probe_result r = base_result();
	r.outcome = NFS_PROBE_INTERNAL;
	r.step = NFS_STEP_MOUNT;
	snprintf(r.nfs_error, sizeof(r.nfs_error), "could not set up a libnfs NFSv4 context");
	const struct finding *f = report(&h, "nfs://10.43.12.7/pvc-a", false, &r);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_contains(f->message, "the probe could not run");
	hf_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_skip),	   cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_refused),	   cmocka_unit_test(test_blackhole_budget),
	    cmocka_unit_test(test_disconnected),   cmocka_unit_test(test_resolve_name),
	    cmocka_unit_test(test_report_pass),	   cmocka_unit_test(test_report_failures),
	    cmocka_unit_test(test_report_canary),  cmocka_unit_test(test_report_protocol),
	    cmocka_unit_test(test_report_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
