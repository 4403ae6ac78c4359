// wrap: sys_kvm_probe sys_clock_adjtimex
/* facts_collect(): the node facts on fixture host roots, facts shared with the
 * checks (one sample, no second read), absent facts, os-release parsing, and
 * the facts in the node report's JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostroot_fixture.h"
#include "osrelease_kv.h"
#include "sys_clock.h"
#include "kvm_wrap.h"
#include "render_json.h"

int __wrap_sys_clock_adjtimex(struct timex *tx);

static int clock_ret;
static long clock_maxerror;

int __wrap_sys_clock_adjtimex(struct timex *tx)
{
	*tx = (struct timex){.status = STA_PLL, .maxerror = clock_maxerror, .esterror = 40};
	return clock_ret;
}

static void setup_clock(int ret, long maxerror)
{
	clock_ret = ret;
	clock_maxerror = maxerror;
}

static const struct kv_list *fact_map(const struct hostroot_fixture *h, const char *key)
{
	const struct value *v = kv_get(&h->report.facts, key);
	if (!v)
		fprintf(stderr, "no fact \"%s\"\n", key);
	assert_non_null(v);
	assert_int_equal(v->type, VALUE_MAP);
	return &v->map;
}

static int64_t fact_int(const struct hostroot_fixture *h, const char *key)
{
	int64_t i = 0;
	assert_true(kv_get_int(&h->report.facts, key, &i));
	return i;
}

static void test_facts_slemicro(void **state)
{
	struct hostroot_fixture h;
	setup_clock(TIME_OK, 8000);
	hf_open(&h, "a-slemicro-amd");
	facts_collect(&h.ctx);

	const struct kv_list *cpu = fact_map(&h, "cpu");
	assert_string_equal(kv_get_str(cpu, "arch"), "x86");
	assert_string_equal(kv_get_str(cpu, "vendor"), "AuthenticAMD");
	assert_string_equal(kv_get_str(cpu, "model_name"), "AMD EPYC 7313P 16-Core Processor");
	int64_t i = 0;
	assert_true(kv_get_int(cpu, "family", &i));
	assert_int_equal(i, 25);
	assert_true(kv_get_int(cpu, "model", &i));
	assert_int_equal(i, 1);
	assert_true(kv_get_int(cpu, "stepping", &i));
	assert_int_equal(i, 1);
	const struct value_list *flags = kv_get_list(cpu, "flags");
	assert_non_null(flags);
	assert_true(flags->n > 100);
	/* Sorted and unique: the cross-node comparison relies on it. */
	for (size_t k = 1; k < flags->n; k++)
		assert_true(strcmp(flags->items[k - 1].s, flags->items[k].s) < 0);

	assert_string_equal(kv_get_str(&h.report.facts, "kernel_release"),
			    "5.14.21-150500.55.65-default");
	const struct kv_list *os = fact_map(&h, "os_release");
	assert_string_equal(kv_get_str(os, "ID"), "sle-micro");
	assert_string_equal(kv_get_str(os, "VERSION_ID"), "5.5");
	assert_string_equal(kv_get_str(os, "PRETTY_NAME"), "SUSE Linux Enterprise Micro 5.5");
	assert_int_equal(os->n, 3);
	assert_string_equal(kv_get_str(&h.report.facts, "hostname"), "harvester-node-0");
	assert_string_equal(kv_get_str(&h.report.facts, "boot_id"),
			    "0c6e8d1a-93b2-4f57-b1c4-5e2a7d9f0b13");
	assert_int_equal(fact_int(&h, "cpu_cores"), 32);
	assert_int_equal(fact_int(&h, "memory_bytes"), INT64_C(131600468) * 1024);
	char *mods = hf_list_join(kv_get_list(&h.report.facts, "kvm_modules"));
	assert_string_equal(mods, "kvm,kvm_amd");
	free(mods);
	const struct kv_list *clock = fact_map(&h, "clock");
	bool synced = false;
	assert_true(kv_get_bool(clock, "synced", &synced));
	assert_true(synced);
	assert_true(kv_get_int(clock, "maxerror_us", &i));
	assert_int_equal(i, 8000);
	assert_true(kv_get_int(clock, "esterror_us", &i));
	assert_int_equal(i, 40);
	assert_true(kv_get_int(clock, "offset_us", &i));
	hf_close(&h);
}

static void test_facts_pvm_and_arm(void **state)
{
	struct hostroot_fixture h;
	setup_clock(TIME_ERROR, 16000000);
	hf_open(&h, "a-pvm-host");
	facts_collect(&h.ctx);
	char *mods = hf_list_join(kv_get_list(&h.report.facts, "kvm_modules"));
	assert_string_equal(mods, "kvm,kvm_pvm");
	free(mods);
	/* etc/os-release is a symlink into usr/lib, resolved inside the root. */
	assert_string_equal(kv_get_str(fact_map(&h, "os_release"), "ID"), "debian");
	assert_string_equal(kv_get_str(&h.report.facts, "hostname"), "vm");
	bool synced = true;
	assert_true(kv_get_bool(fact_map(&h, "clock"), "synced", &synced));
	assert_false(synced);
	hf_close(&h);

	hf_open(&h, "a-aarch64-ampere");
	facts_collect(&h.ctx);
	const struct kv_list *cpu = fact_map(&h, "cpu");
	assert_string_equal(kv_get_str(cpu, "arch"), "arm");
	assert_string_equal(kv_get_str(cpu, "vendor"), "ARM");
	assert_string_equal(kv_get_str(cpu, "implementer"), "0x41");
	assert_string_equal(kv_get_str(cpu, "part"), "0xd0c");
	assert_string_equal(kv_get_str(cpu, "variant"), "0x3");
	assert_null(kv_get(cpu, "family"));
	assert_int_equal(fact_int(&h, "cpu_cores"), 80);
	mods = hf_list_join(kv_get_list(&h.report.facts, "kvm_modules"));
	assert_string_equal(mods, "kvm");
	free(mods);
	hf_close(&h);
}

static void test_facts_absent_when_unreadable(void **state)
{
	struct hostroot_fixture h;
	char *root = scratch_dir();
	setup_clock(-EPERM, 0);
	hf_open(&h, root);
	facts_collect(&h.ctx);
	/* Nothing to read and adjtimex refused: no facts at all, not empty ones. */
	if (h.report.facts.n)
		fprintf(stderr, "unexpected fact %s\n", h.report.facts.items[0].key);
	assert_int_equal(h.report.facts.n, 0);
	hf_close(&h);
	scratch_remove(root);

	/* Garbage files: the same. */
	hf_open(&h, "a-garbage");
	facts_collect(&h.ctx);
	assert_null(kv_get(&h.report.facts, "cpu"));
	assert_null(kv_get(&h.report.facts, "cpu_cores"));
	assert_null(kv_get(&h.report.facts, "memory_bytes"));
	assert_null(kv_get(&h.report.facts, "kernel_release"));
	assert_null(kv_get(&h.report.facts, "os_release"));
	assert_null(kv_get(&h.report.facts, "hostname"));
	/* proc/modules is readable (garbage lines): no KVM module is a fact. */
	const struct value_list *mods = kv_get_list(&h.report.facts, "kvm_modules");
	assert_non_null(mods);
	assert_int_equal(mods->n, 0);
	hf_close(&h);
}

static void test_facts_shared_with_checks(void **state)
{
	/* What the checks read is what the facts say: change the host between the
	 * checks and facts_collect, and the facts keep the checks' sample. */
	struct hostroot_fixture h;
	char *root = scratch_dir();
	hf_put_fixture_file(root, "proc/cpuinfo", "a-debian-intel/proc/cpuinfo");
	scratch_put(root, "sys/devices/system/cpu/online", "0-15\n", 5);
	scratch_put(root, "proc/meminfo", "MemTotal: 33554432 kB\n", 22);
	const char *mods = "kvm_intel 380928 0 - Live 0x0\nkvm 1142784 1 kvm_intel, Live 0x0\n";
	scratch_put(root, "proc/modules", mods, strlen(mods));
	setup_clock(TIME_OK, 1000);
	hf_open(&h, root);
	check_kvm(&h.ctx, "host.kvm");
	check_cpu_virt(&h.ctx, "host.cpu.virt");
	check_clock(&h.ctx, "host.clock");
	check_resources(&h.ctx, "host.resources");
	size_t n_after_checks = h.report.facts.n;
	assert_int_equal(n_after_checks, 5); /* kvm_modules, cpu, clock, cpu_cores, memory */

	const char *amd = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
			  "flags\t\t: svm\n";
	scratch_put(root, "proc/cpuinfo", amd, strlen(amd));
	scratch_put(root, "sys/devices/system/cpu/online", "0-1\n", 4);
	setup_clock(TIME_ERROR, 16000000);
	facts_collect(&h.ctx);

	assert_string_equal(kv_get_str(fact_map(&h, "cpu"), "vendor"), "GenuineIntel");
	assert_int_equal(fact_int(&h, "cpu_cores"), 16);
	int64_t me = 0;
	assert_true(kv_get_int(fact_map(&h, "clock"), "maxerror_us", &me));
	assert_int_equal(me, 1000);
	/* Each fact once. */
	for (size_t i = 0; i < h.report.facts.n; i++)
		for (size_t j = i + 1; j < h.report.facts.n; j++)
			assert_string_not_equal(h.report.facts.items[i].key,
						h.report.facts.items[j].key);
	hf_close(&h);
	scratch_remove(root);
}

static void test_facts_hostname_from_report(void **state)
{
	struct hostroot_fixture h;
	setup_clock(TIME_OK, 1000);
	hf_open(&h, "a-debian-intel");
	h.report.hostname = xstrdup("from-report");
	h.report.boot_id = xstrdup("");
	facts_collect(&h.ctx);
	assert_string_equal(kv_get_str(&h.report.facts, "hostname"), "from-report");
	/* An empty boot_id in the header is not a fact: read it from the host root. */
	assert_string_equal(kv_get_str(&h.report.facts, "boot_id"),
			    "8f3b2c1e-4d5a-4e6f-9a7b-1c2d3e4f5a6b");
	hf_close(&h);
}

static void test_facts_json(void **state)
{
	/* The facts as the node report's JSON carries them (docs/protocol.md): typed values. */
	struct hostroot_fixture h;
	setup_clock(TIME_OK, 1000);
	hf_open(&h, "a-nested-guest");
	check_kvm(&h.ctx, "host.kvm");
	check_cpu_virt(&h.ctx, "host.cpu.virt");
	facts_collect(&h.ctx);
	json_object *o = render_node_report_json(&h.report);
	json_object *facts, *cpu, *v;
	assert_true(json_object_object_get_ex(o, "facts", &facts));
	assert_true(json_object_object_get_ex(facts, "cpu", &cpu));
	assert_true(json_object_object_get_ex(cpu, "flags", &v));
	assert_true(json_object_is_type(v, json_type_array));
	assert_true(json_object_object_get_ex(cpu, "family", &v));
	assert_true(json_object_is_type(v, json_type_int));
	assert_true(json_object_object_get_ex(facts, "clock", &v));
	assert_true(json_object_object_get_ex(v, "synced", &v));
	assert_true(json_object_is_type(v, json_type_boolean));
	assert_true(json_object_object_get_ex(facts, "memory_bytes", &v));
	assert_int_equal(json_object_get_int64(v), INT64_C(32858384) * 1024);
	assert_true(json_object_object_get_ex(facts, "kvm_modules", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_true(json_object_object_get_ex(facts, "os_release", &v));
	assert_true(json_object_object_get_ex(v, "VERSION_ID", &v));
	assert_string_equal(json_object_get_string(v), "24.04");
	json_object_put(o);
	hf_close(&h);
}

static void test_osrelease_parser(void **state)
{
	static const char text[] = "# comment\n"
				   "NAME=\"SLE Micro\"\n"
				   "  VERSION_ID='5.5'\n"
				   "PRETTY_NAME=\"A \\\"quoted\\\" \\$name \\\\ x\"\n"
				   "ID=plain\\ value\n"
				   "lower=ignored\n"
				   "BROKEN=\"unterminated\n"
				   "=novalue\n"
				   "EMPTY=\n"
				   "TRAILING=\"x\"   \n";
	struct kv_list l = {0};
	int n = osrelease_kv_parse((const uint8_t *)text, strlen(text), &l);
	assert_int_equal(n, 6);
	assert_string_equal(kv_get_str(&l, "NAME"), "SLE Micro");
	assert_string_equal(kv_get_str(&l, "VERSION_ID"), "5.5");
	assert_string_equal(kv_get_str(&l, "PRETTY_NAME"), "A \"quoted\" $name \\ x");
	assert_string_equal(kv_get_str(&l, "ID"), "plain value");
	assert_string_equal(kv_get_str(&l, "EMPTY"), "");
	assert_string_equal(kv_get_str(&l, "TRAILING"), "x");
	assert_null(kv_get(&l, "lower"));
	assert_null(kv_get(&l, "BROKEN"));
	kv_list_clear(&l);

	/* Binary garbage: no crash, nothing or little parsed. */
	size_t len;
	char *buf = hf_fixture_read("a-garbage/etc/os-release", &len);
	assert_true(osrelease_kv_parse((const uint8_t *)buf, len, &l) >= 0);
	kv_list_clear(&l);
	free(buf);
}

static void test_osrelease_fallback(void **state)
{
	struct hostroot_fixture h;
	hf_scratch(&h);
	hf_write(&h, "usr/lib/os-release", "ID=fedora\nVERSION_ID=40\n");
	struct kv_list l = {0};
	assert_int_equal(osrelease_kv_read(&h.ctx.root, &l), 2);
	assert_string_equal(kv_get_str(&l, "ID"), "fedora");
	kv_list_clear(&l);
	/* etc/os-release wins when both exist. */
	hf_write(&h, "etc/os-release", "ID=rhel\n");
	assert_int_equal(osrelease_kv_read(&h.ctx.root, &l), 1);
	assert_string_equal(kv_get_str(&l, "ID"), "rhel");
	kv_list_clear(&l);
	hf_close(&h);
}

/* hostname(5) allows comment lines; cloud images start the file with one. */
static void test_hostname_file_comments(void **state)
{
	struct hostroot_fixture h;
	hf_scratch(&h);
	hf_write(&h, "etc/hostname", "# Managed by cloud-init\n\n  worker-7  \nignored\n");
	char *name = agent_hostname(&h.ctx.root);
	assert_string_equal(name, "worker-7");
	free(name);
	/* Only comments, and no proc/1/ns under the root: the kernel's, from the file. */
	hf_write(&h, "etc/hostname", "# none\n");
	hf_write(&h, "proc/sys/kernel/hostname", "node-from-kernel\n");
	name = agent_hostname(&h.ctx.root);
	assert_string_equal(name, "node-from-kernel");
	free(name);
	/* A RHEL image's placeholder: systemd uses the kernel's (DHCP) hostname instead. */
	hf_write(&h, "etc/hostname", "localhost.localdomain\n");
	name = agent_hostname(&h.ctx.root);
	assert_string_equal(name, "node-from-kernel");
	free(name);
	hf_close(&h);
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		_exit(90);
	close(fd);
}

/* Become root of a new user namespace when plain unshare(flags) is refused. */
static bool enter(int flags)
{
	if (unshare(flags) == 0)
		return true;
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (unshare(CLONE_NEWUSER | flags) < 0)
		return false;
	char map[64];
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	write_file("/proc/self/gid_map", map);
	return true;
}

static int wait_child(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 91;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 92;
}

/* The agent in its own UTS namespace (a DaemonSet pod without hostNetwork), PID 1 in
 * the host's: the kernel hostname it reports is the host's, or none, never the pod's.
 * Exit codes: 0 host's name, 1 none, 2 the pod's name, 77 namespaces unavailable. */
static int pod_view(const char *host_name)
{
	if (!enter(CLONE_NEWNS | CLONE_NEWPID))
		return 77;
	pid_t init = fork();
	if (init != 0)
		return init < 0 ? 93 : wait_child(init);
	/* PID 1 of the new PID namespace, in the original UTS namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		_exit(77);
	pid_t pod = fork();
	if (pod == 0) {
		if (unshare(CLONE_NEWUTS) < 0)
			_exit(77);
		const char *pod_name = "hvready-agent-x7k2p";
		if (sethostname(pod_name, strlen(pod_name)) < 0)
			_exit(77);
		/* Not hf_hostroot: this is a forked child that answers by its exit
		 * code, where a cmocka failure cannot reach the test. */
		struct hostroot hr;
		if (hostroot_open(&hr, "/") < 0)
			_exit(94);
		char *h = agent_kernel_hostname(&hr);
		int rc = !h ? 1 : streq(h, host_name) ? 0 : streq(h, pod_name) ? 2 : 95;
		free(h);
		hostroot_close(&hr);
		_exit(rc);
	}
	_exit(pod < 0 ? 93 : wait_child(pod));
}

static void test_kernel_hostname_from_a_pod(void **state)
{
	char host_name[256] = "";
	assert_int_equal(gethostname(host_name, sizeof(host_name) - 1), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(pod_view(host_name));
	int rc = wait_child(pid);
	if (rc == 77)
		skip();
	/* 0 with CAP_SYS_ADMIN over the host's namespace, 1 without it. */
	if (rc != 0 && rc != 1)
		fail_msg("agent_kernel_hostname in a pod's UTS namespace: exit %d (2: it "
			 "reported the pod's own name)",
			 rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_facts_slemicro),
	    cmocka_unit_test(test_facts_pvm_and_arm),
	    cmocka_unit_test(test_facts_absent_when_unreadable),
	    cmocka_unit_test(test_facts_shared_with_checks),
	    cmocka_unit_test(test_facts_hostname_from_report),
	    cmocka_unit_test(test_facts_json),
	    cmocka_unit_test(test_osrelease_parser),
	    cmocka_unit_test(test_osrelease_fallback),
	    cmocka_unit_test(test_hostname_file_comments),
	    cmocka_unit_test(test_kernel_hostname_from_a_pod),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
