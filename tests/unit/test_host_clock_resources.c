// wrap: sys_clock_adjtimex
/* host.clock (adjtimex replaced) and host.resources on fixture host roots. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <sys/timex.h>

#include "hostroot_fixture.h"
#include "meminfo.h"
#include "sys_clock.h"
#include "timesync.h"

int __wrap_sys_clock_adjtimex(struct timex *tx);

static struct timex fake_tx;
static int fake_ret;

int __wrap_sys_clock_adjtimex(struct timex *tx)
{
	*tx = fake_tx;
	return fake_ret;
}

/* A clock as chronyd leaves it: PLL on, synchronised. */
static void clock_synced(long maxerror_us)
{
	fake_tx = (struct timex){
	    .status = STA_PLL, .offset = -12, .maxerror = maxerror_us, .esterror = 250};
	fake_ret = TIME_OK;
}

/* As on a host that no daemon has synchronised since boot (this machine). */
static void clock_unsynced(void)
{
	fake_tx = (struct timex){.status = STA_UNSYNC, .maxerror = 16000000, .esterror = 16000000};
	fake_ret = TIME_ERROR;
}

static const struct finding *run_clock(struct hostroot_fixture *h, const char *root)
{
	hf_open(h, root);
	check_clock(&h->ctx, "host.clock");
	return hf_finding(h, "host.clock");
}

static char *list_ev(const struct finding *f, const char *key)
{
	const struct value_list *l = kv_get_list(&f->evidence, key);
	assert_non_null(l);
	return hf_list_join(l);
}

/* ---- host.clock ---- */

static void test_clock_pass_chronyd(void **state)
{
	struct hostroot_fixture h;
	clock_synced(12000);
	const struct finding *f = run_clock(&h, "a-slemicro-amd");
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "by chronyd");
	assert_evidence(f, "state", "TIME_OK");
	char *st = list_ev(f, "status");
	assert_string_equal(st, "STA_PLL");
	free(st);
	assert_int_equal(hf_ev_int(f, "offset_us"), -12);
	assert_int_equal(hf_ev_int(f, "maxerror_us"), 12000);
	assert_int_equal(hf_ev_int(f, "esterror_us"), 250);
	char *run = list_ev(f, "sync_daemons_running");
	char *ins = list_ev(f, "sync_daemons_installed");
	char *en = list_ev(f, "sync_daemons_enabled");
	assert_string_equal(run, "chronyd");
	assert_string_equal(ins, "chronyd");
	assert_string_equal(en, "chronyd");
	free(run);
	free(ins);
	free(en);
	assert_evidence_contains(f, "daemon_evidence", "4 processes");
	/* The fact is the same sample. */
	const struct value *c = kv_get(&h.report.facts, "clock");
	assert_non_null(c);
	int64_t me = 0;
	bool synced = false;
	assert_true(kv_get_int(&c->map, "maxerror_us", &me));
	assert_int_equal(me, 12000);
	assert_true(kv_get_bool(&c->map, "synced", &synced));
	assert_true(synced);
	hf_close(&h);
}

static void test_clock_pass_timesyncd_nano(void **state)
{
	/* systemd-timesyncd sets ADJ_NANO: the offset is in ns and must be shown in µs. */
	struct hostroot_fixture h;
	fake_tx = (struct timex){.status = STA_PLL | STA_NANO, .offset = 1500000, .maxerror = 0};
	fake_ret = TIME_OK;
	const struct finding *f = run_clock(&h, "a-debian-intel");
	assert_verdict(f, STATUS_PASS);
	assert_int_equal(hf_ev_int(f, "offset_us"), 1500);
	char *st = list_ev(f, "status");
	assert_string_equal(st, "STA_PLL,STA_NANO");
	free(st);
	assert_contains(f->message, "systemd-timesyncd");
	hf_close(&h);
}

static void test_clock_leap_states_are_synced(void **state)
{
	struct hostroot_fixture h;
	clock_synced(3000);
	fake_tx.status |= STA_INS;
	fake_ret = TIME_INS;
	const struct finding *f = run_clock(&h, "a-slemicro-amd");
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "state", "TIME_INS");
	hf_close(&h);
}

static void test_clock_warn_maxerror(void **state)
{
	struct hostroot_fixture h;
	clock_synced(0);
	hf_open(&h, "a-slemicro-amd");
	fake_tx.maxerror = (long)h.opts.thr.clock_maxerror_warn_us + 1;
	check_clock(&h.ctx, "host.clock");
	const struct finding *f = hf_finding(&h, "host.clock");
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "maximum error");
	assert_int_equal(hf_ev_int(f, "maxerror_warn_us"), h.opts.thr.clock_maxerror_warn_us);
	hf_close(&h);

	/* At the threshold exactly: not above it. */
	hf_open(&h, "a-slemicro-amd");
	fake_tx.maxerror = (long)h.opts.thr.clock_maxerror_warn_us;
	check_clock(&h.ctx, "host.clock");
	assert_verdict(hf_finding(&h, "host.clock"), STATUS_PASS);
	hf_close(&h);

	/* A configured threshold is honoured. */
	hf_open(&h, "a-slemicro-amd");
	h.opts.thr.clock_maxerror_warn_us = 100000;
	fake_tx.maxerror = 250000;
	check_clock(&h.ctx, "host.clock");
	assert_verdict(hf_finding(&h, "host.clock"), STATUS_WARN);
	hf_close(&h);
}

static void test_clock_fail_unsynced_remedies(void **state)
{
	struct hostroot_fixture h;
	clock_unsynced();
	/* chronyd running but unsynchronised */
	const struct finding *f = run_clock(&h, "a-slemicro-amd");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "TIME_ERROR, STA_UNSYNC");
	assert_contains(f->remediation, "chronyc");
	bool synced = true;
	const struct value *c = kv_get(&h.report.facts, "clock");
	assert_true(kv_get_bool(&c->map, "synced", &synced));
	assert_false(synced);
	hf_close(&h);

	/* chronyd enabled, not running */
	f = run_clock(&h, "a-rhel-small");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->remediation, "enabled but not running");
	hf_close(&h);

	/* timesyncd running (no unit link): its own status command */
	f = run_clock(&h, "a-nested-guest");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->remediation, "timedatectl timesync-status");
	hf_close(&h);

	/* nothing at all */
	f = run_clock(&h, "a-pvm-host");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->remediation, "Install and enable");
	hf_close(&h);
}

static void test_clock_fail_status_only(void **state)
{
	/* STA_UNSYNC alone decides, whatever the returned state. */
	struct hostroot_fixture h;
	clock_synced(1000);
	fake_tx.status |= STA_UNSYNC;
	const struct finding *f = run_clock(&h, "a-debian-intel");
	assert_verdict(f, STATUS_FAIL);
	hf_close(&h);

	/* TIME_ERROR alone too (e.g. STA_CLOCKERR). */
	clock_synced(1000);
	fake_tx.status |= STA_CLOCKERR;
	fake_ret = TIME_ERROR;
	f = run_clock(&h, "a-debian-intel");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "TIME_ERROR");
	hf_close(&h);
}

static void test_clock_installed_only(void **state)
{
	/* The binary alone, nothing running or enabled. */
	struct hostroot_fixture h;
	char *root = scratch_dir();
	scratch_put(root, "usr/sbin/chronyd", "", 0);
	scratch_put(root, "proc/1/comm", "systemd\n", 8);
	clock_unsynced();
	const struct finding *f = run_clock(&h, root);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->remediation, "systemctl enable --now chronyd");
	assert_evidence(f, "init", "systemd");
	hf_close(&h);
	scratch_remove(root);
}

/* PID 1 is not systemd (an Alpine/OpenRC node, a container's own init):
 * systemctl would fail there, so the remedy does not propose it. */
static void test_clock_remedy_without_systemd(void **state)
{
	struct hostroot_fixture h;
	char *root = scratch_dir();
	scratch_put(root, "usr/sbin/chronyd", "", 0);
	scratch_put(root, "proc/1/comm", "openrc-init\n", 12);
	clock_unsynced();
	const struct finding *f = run_clock(&h, root);
	assert_verdict(f, STATUS_FAIL);
	assert_not_contains(f->remediation, "systemctl");
	assert_contains(f->remediation, "PID 1 is openrc-init");
	assert_evidence(f, "init", "openrc-init");
	hf_close(&h);
	/* /run/systemd/system decides as sd_booted() does, whatever comm says. */
	scratch_put(root, "run/systemd/system/.keep", "", 0);
	f = run_clock(&h, root);
	assert_contains(f->remediation, "systemctl enable --now chronyd");
	hf_close(&h);
	scratch_remove(root);
}

/* Ubuntu 22.04 with its chrony.conf replaced by one for in-house NTP servers,
 * without Ubuntu's `rtcsync`: chronyd on Linux then never clears STA_UNSYNC,
 * though it is synchronised and keeps maxerror small (it writes 16 s when not):
 * WARN, since the bound says it is synchronised (chrony's sys_timex.c). */
#define CHRONY_CONF_NO_RTCSYNC                                                                     \
	"# Welcome to the chrony configuration file. See chrony.conf(5) for more\n"                \
	"confdir /etc/chrony/conf.d\n"                                                             \
	"server ntp1.corp.example iburst\n"                                                        \
	"server ntp2.corp.example iburst\n"                                                        \
	"keyfile /etc/chrony/chrony.keys\n"                                                        \
	"driftfile /var/lib/chrony/chrony.drift\n"                                                 \
	"! rtcsync\n"                                                                              \
	"logdir /var/log/chrony\n"                                                                 \
	"maxupdateskew 100.0\n"                                                                    \
	"makestep 1 3\n"                                                                           \
	"leapsectz right/UTC\n"

static char *chrony_root(const char *dropin)
{
	char *root = scratch_dir();
	scratch_put(root, "proc/1/comm", "systemd\n", 8);
	scratch_put(root, "proc/812/comm", "chronyd\n", 8);
	scratch_put(root, "usr/sbin/chronyd", "", 0);
	scratch_put(root, "etc/chrony/chrony.conf", CHRONY_CONF_NO_RTCSYNC,
		    strlen(CHRONY_CONF_NO_RTCSYNC));
	scratch_put(root, "etc/chrony/conf.d/local.conf", dropin, strlen(dropin));
	return root;
}

static void test_clock_chrony_without_rtcsync(void **state)
{
	struct hostroot_fixture h;
	char *root = chrony_root("# site settings\nminsources 2\n");
	fake_tx = (struct timex){
	    .status = STA_PLL | STA_UNSYNC, .offset = 41, .maxerror = 38000, .esterror = 900};
	fake_ret = TIME_ERROR;
	const struct finding *f = run_clock(&h, root);
	/* Synchronised by chronyd's own bound: a WARN about the flag, never a FAIL. */
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "rtcsync");
	assert_contains(f->message, "38 ms");
	assert_contains(f->message, "chronyd runs synchronised");
	assert_not_contains(f->remediation, "chronyc sources");
	assert_contains(f->remediation, "rtcsync");
	assert_contains(f->remediation, "/etc/chrony/chrony.conf");
	assert_evidence_contains(
	    f, "chrony_rtcsync",
	    "not set in /etc/chrony/chrony.conf, /etc/chrony/conf.d/local.conf");
	hf_close(&h);

	/* A clock hardware fault (STA_CLOCKERR) is not chrony's flag handling. */
	fake_tx.status |= STA_CLOCKERR;
	f = run_clock(&h, root);
	assert_verdict(f, STATUS_FAIL);
	assert_not_contains(f->message, "rtcsync");
	hf_close(&h);

	/* chronyd not synchronised: it writes maxerror 16 s; its sources are the problem. */
	clock_unsynced();
	f = run_clock(&h, root);
	assert_verdict(f, STATUS_FAIL);
	assert_not_contains(f->message, "rtcsync");
	assert_contains(f->remediation, "chronyc sources");
	hf_close(&h);
	scratch_remove(root);

	/* rtcsync in a drop-in (case-insensitive, like chronyd): the explanation
	 * does not apply, and the evidence says where it is set. */
	root = chrony_root("  RTCSync\n");
	fake_tx = (struct timex){.status = STA_PLL | STA_UNSYNC, .maxerror = 38000};
	fake_ret = TIME_ERROR;
	f = run_clock(&h, root);
	assert_verdict(f, STATUS_FAIL);
	assert_not_contains(f->message, "rtcsync");
	assert_evidence(f, "chrony_rtcsync", "set (/etc/chrony/conf.d/local.conf:1)");
	hf_close(&h);
	scratch_remove(root);
}

/* openSUSE / SLES: /etc/chrony.conf pulls in /etc/chrony.d/\*.conf. */
static void test_chrony_conf_include(void **state)
{
	char *root = scratch_dir();
	const char *main_conf = "! pool pool.ntp.org iburst\ninclude /etc/chrony.d/*.conf\n"
				"driftfile /var/lib/chrony/drift\nmakestep 1.0 3\n";
	scratch_put(root, "etc/chrony.conf", main_conf, strlen(main_conf));
	scratch_put(root, "etc/chrony.d/pool.conf", "pool 2.opensuse.pool.ntp.org iburst\n", 36);
	scratch_put(root, "etc/chrony.d/rtc.conf", "# keep the RTC\nrtcsync\n", 23);
	scratch_put(root, "etc/chrony.d/README", "rtcsync\n", 8);
	struct hostroot hr;
	hf_hostroot(&hr, root);
	struct timesync_chrony c;
	timesync_chrony_read(&hr, &c);
	assert_int_equal(c.err, 0);
	_cleanup_free_ char *files = strv_join(&c.files, " ");
	assert_string_equal(files,
			    "/etc/chrony.conf /etc/chrony.d/pool.conf /etc/chrony.d/rtc.conf");
	assert_string_equal(c.rtcsync_where, "/etc/chrony.d/rtc.conf:2");
	timesync_chrony_clear(&c);

	/* A binary main file: unknown, naming it. */
	scratch_put(root, "etc/chrony.conf", "rtcsync\0\n", 9);
	timesync_chrony_read(&hr, &c);
	assert_int_equal(c.err, -EINVAL);
	assert_string_equal(c.err_file, "/etc/chrony.conf");
	timesync_chrony_clear(&c);

	/* No chrony.conf at all. */
	scratch_remove(root);
	root = scratch_dir();
	hostroot_close(&hr);
	hf_hostroot(&hr, root);
	timesync_chrony_read(&hr, &c);
	assert_int_equal(c.err, -ENOENT);
	timesync_chrony_clear(&c);
	hostroot_close(&hr);
	scratch_remove(root);
}

static void test_clock_unknown(void **state)
{
	static const int errs[] = {EPERM, ENOSYS};
	for (size_t i = 0; i < ELEMENTSOF(errs); i++) {
		struct hostroot_fixture h;
		fake_ret = -errs[i];
		const struct finding *f = run_clock(&h, "a-debian-intel");
		assert_verdict(f, STATUS_UNKNOWN);
		assert_contains(f->message, strerror(errs[i]));
		assert_null(kv_get(&h.report.facts, "clock"));
		/* The daemons are evidence even then. */
		assert_non_null(kv_get_list(&f->evidence, "sync_daemons_running"));
		hf_close(&h);
	}
}

static void test_clock_no_proc(void **state)
{
	struct hostroot_fixture h;
	char *root = scratch_dir();
	clock_synced(1000);
	const struct finding *f = run_clock(&h, root);
	assert_verdict(f, STATUS_PASS);
	assert_evidence_contains(f, "daemon_evidence", "/proc not readable");
	hf_close(&h);
	scratch_remove(root);
}

#define W(root, rel, text) scratch_put(root, rel, text, strlen(text))

/* host.clock with the run's shared scan of proc/ (agent_ctx.procs) says what
 * it says with a scan of its own, and fills that scan for host.iscsi and
 * host.multipathd: a process started after host.clock ran is not seen by them
 * (the scan is the run's one). With and without PID 1 (procs_find: -ESRCH). */
static void test_clock_shares_proc_scan(void **state)
{
	for (int with_pid1 = 1; with_pid1 >= 0; with_pid1--) {
		char *root = scratch_dir();
		if (with_pid1) {
			W(root, "proc/1/comm", "systemd\n");
			W(root, "proc/1/stat", "1 (systemd) S 0\n");
		}
		W(root, "proc/50/comm", "chronyd\n");
		W(root, "proc/50/stat", "50 (chronyd) S 1\n");
		W(root, "proc/60/comm", "a-comm-of-twenty-chars\n");
		W(root, "proc/60/stat", "60 (a-comm-of-twenty-chars) S 1\n");
		W(root, "usr/sbin/chronyd", "");
		clock_synced(12000);
		struct hostroot_fixture own, shared;
		const struct finding *a = run_clock(&own, root);
		hf_open(&shared, root);
		struct procs_scan scan = {0};
		shared.ctx.procs = &scan;
		check_clock(&shared.ctx, "host.clock");
		const struct finding *b = hf_finding(&shared, "host.clock");
		assert_int_equal(a->status, b->status);
		assert_string_equal(a->message, b->message);
		assert_evidence(a, "daemon_evidence", hf_ev_str(b, "daemon_evidence"));
		assert_evidence_contains(b, "daemon_evidence",
					 with_pid1 ? "3 processes" : "2 processes");
		char *ra = list_ev(a, "sync_daemons_running"),
		     *rb = list_ev(b, "sync_daemons_running");
		assert_string_equal(ra, "chronyd");
		assert_string_equal(ra, rb);
		free(ra);
		free(rb);
		/* filled by host.clock: a later daemon is not in it */
		assert_true(scan.done);
		W(root, "proc/900/comm", "multipathd\n");
		W(root, "proc/900/stat", "900 (multipathd) S 1\n");
		struct procs_found p;
		int r = agent_procs_find(&shared.ctx, "multipathd", &p);
		if (with_pid1) {
			assert_int_equal(r, 0);
			assert_int_equal(p.total, 0);
			assert_int_equal(agent_procs_find(&shared.ctx, "chronyd", &p), 0);
			assert_int_equal(p.total, 1);
			assert_int_equal(p.pids[0], 50);
		} else {
			assert_int_equal(r, -ESRCH);
		}
		procs_scan_clear(&scan);
		shared.ctx.procs = NULL;
		hf_close(&own);
		hf_close(&shared);
		scratch_remove(root);
	}
}

/* ---- host.resources ---- */

static const struct finding *run_res(struct hostroot_fixture *h, const char *root)
{
	hf_open(h, root);
	check_resources(&h->ctx, "host.resources");
	return hf_finding(h, "host.resources");
}

static void test_resources_pass(void **state)
{
	struct hostroot_fixture h;
	const struct finding *f = run_res(&h, "a-slemicro-amd");
	assert_verdict(f, STATUS_PASS);
	assert_int_equal(hf_ev_int(f, "cpus"), 32);
	assert_evidence_contains(f, "cpus_source", "sys/devices/system/cpu/online");
	assert_int_equal(hf_ev_int(f, "memory_bytes"), INT64_C(131600468) * 1024);
	int64_t v = 0;
	assert_true(kv_get_int(&h.report.facts, "cpu_cores", &v));
	assert_int_equal(v, 32);
	assert_true(kv_get_int(&h.report.facts, "memory_bytes", &v));
	assert_int_equal(v, INT64_C(131600468) * 1024);
	hf_close(&h);
}

static void test_resources_real_32g_host_passes(void **state)
{
	/* A 32 GiB server shows MemTotal ~31.1 GiB: within the tolerance. */
	struct hostroot_fixture h;
	const struct finding *f = run_res(&h, "a-debian-intel");
	assert_verdict(f, STATUS_PASS);
	assert_true(hf_ev_int(f, "memory_bytes") < (INT64_C(32) << 30));
	hf_close(&h);
	/* And a 32 GiB VM (31.3 GiB) with 8 vCPUs, exactly the minimum. */
	f = run_res(&h, "a-nested-guest");
	assert_verdict(f, STATUS_PASS);
	assert_int_equal(hf_ev_int(f, "cpus"), 8);
	hf_close(&h);
}

static void test_resources_warn(void **state)
{
	struct hostroot_fixture h;
	const struct finding *f = run_res(&h, "a-rhel-small"); /* 6 CPUs, 16 GiB */
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "6 CPUs");
	assert_contains(f->message, "15.4 GiB");
	hf_close(&h);

	/* Memory alone below the tolerance (30 GiB < 95% of 32 GiB). */
	char *root = scratch_dir();
	const char *mem = "MemTotal:       31457280 kB\nMemFree:        1000 kB\n";
	scratch_put(root, "proc/meminfo", mem, strlen(mem));
	scratch_put(root, "sys/devices/system/cpu/online", "0-15\n", 5);
	f = run_res(&h, root);
	assert_verdict(f, STATUS_WARN);
	hf_close(&h);

	/* CPUs alone below a configured minimum. */
	hf_open(&h, "a-slemicro-amd");
	h.opts.thr.min_cpu_cores = 64;
	check_resources(&h.ctx, "host.resources");
	f = hf_finding(&h, "host.resources");
	assert_verdict(f, STATUS_WARN);
	assert_int_equal(hf_ev_int(f, "min_cpus"), 64);
	hf_close(&h);

	/* One CPU is "1 CPU" (a minimum of 1 too): "1 CPUs" read wrong. */
	scratch_put(root, "sys/devices/system/cpu/online", "0\n", 2);
	hf_open(&h, root);
	h.opts.thr.min_cpu_cores = 1;
	check_resources(&h.ctx, "host.resources");
	f = hf_finding(&h, "host.resources");
	assert_verdict(f, STATUS_WARN); /* 30 GiB of memory */
	assert_contains(f->message, "1 CPU and");
	assert_contains(f->message, "minimum of 1 CPU and");
	assert_not_contains(f->message, "CPUs");
	hf_close(&h);
	scratch_remove(root);
}

static void test_resources_cpuinfo_fallback(void **state)
{
	/* No sys/devices/system/cpu/online: count the processors in cpuinfo. */
	struct hostroot_fixture h;
	char *root = scratch_dir();
	hf_put_fixture_file(root, "proc/cpuinfo", "a-slemicro-amd/proc/cpuinfo");
	const char *mem = "MemTotal:       65536000 kB\n";
	scratch_put(root, "proc/meminfo", mem, strlen(mem));
	const struct finding *f = run_res(&h, root);
	assert_verdict(f, STATUS_PASS);
	assert_int_equal(hf_ev_int(f, "cpus"), 32);
	assert_evidence_contains(f, "cpus_source", "proc/cpuinfo");
	hf_close(&h);
	scratch_remove(root);
}

static void test_resources_unknown(void **state)
{
	struct hostroot_fixture h;
	const struct finding *f = run_res(&h, "a-garbage");
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "a-garbage/sys/devices/system/cpu/online");
	assert_contains(f->message, "a-garbage/proc/meminfo");
	assert_null(kv_get(&h.report.facts, "cpu_cores"));
	assert_null(kv_get(&h.report.facts, "memory_bytes"));
	hf_close(&h);

	/* Few CPUs known, memory unknown: still UNKNOWN (never a guess). */
	char *root = scratch_dir();
	scratch_put(root, "sys/devices/system/cpu/online", "0-1\n", 4);
	f = run_res(&h, root);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "proc/meminfo: No such file or directory");
	assert_int_equal(hf_ev_int(f, "cpus"), 2);
	hf_close(&h);
	scratch_remove(root);
}

static void test_meminfo_parser(void **state)
{
	int64_t b = 0;
	static const char ok[] = "MemTotal:       24683620 kB\nMemFree: 1 kB\n";
	assert_int_equal(meminfo_parse((const uint8_t *)ok, strlen(ok), "MemTotal", &b), 0);
	assert_int_equal(b, INT64_C(24683620) * 1024);
	assert_int_equal(meminfo_parse((const uint8_t *)ok, strlen(ok), "MemFree", &b), 0);
	assert_int_equal(b, 1024);
	assert_int_equal(meminfo_parse((const uint8_t *)ok, strlen(ok), "Mem", &b), -ENODATA);
	static const char *const bad[] = {
	    "MemTotal: lots kB\n", "MemTotal: 12\n",   "MemTotal: -5 kB\n",
	    "MemTotal: kB\n",	   "MemTotal: 1 MB\n", "MemTotal: 99999999999999999999 kB\n",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		assert_int_equal(
		    meminfo_parse((const uint8_t *)bad[i], strlen(bad[i]), "MemTotal", &b),
		    -EBADMSG);
	assert_int_equal(meminfo_parse((const uint8_t *)"", 0, "MemTotal", &b), -ENODATA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clock_pass_chronyd),
	    cmocka_unit_test(test_clock_pass_timesyncd_nano),
	    cmocka_unit_test(test_clock_leap_states_are_synced),
	    cmocka_unit_test(test_clock_warn_maxerror),
	    cmocka_unit_test(test_clock_fail_unsynced_remedies),
	    cmocka_unit_test(test_clock_fail_status_only),
	    cmocka_unit_test(test_clock_installed_only),
	    cmocka_unit_test(test_clock_remedy_without_systemd),
	    cmocka_unit_test(test_clock_chrony_without_rtcsync),
	    cmocka_unit_test(test_chrony_conf_include),
	    cmocka_unit_test(test_clock_unknown),
	    cmocka_unit_test(test_clock_no_proc),
	    cmocka_unit_test(test_clock_shares_proc_scan),
	    cmocka_unit_test(test_resources_pass),
	    cmocka_unit_test(test_resources_real_32g_host_passes),
	    cmocka_unit_test(test_resources_warn),
	    cmocka_unit_test(test_resources_cpuinfo_fallback),
	    cmocka_unit_test(test_resources_unknown),
	    cmocka_unit_test(test_meminfo_parser),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
