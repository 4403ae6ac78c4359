// wrap: sys_kvm_probe
/* host.kvm and host.cpu.virt on fixture host roots, the KVM seam replaced;
 * and the /proc/cpuinfo parser on the layouts of real architectures. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <sys/stat.h>

#include "hostroot_fixture.h"
#include "cpuinfo.h"
#include "kvm_wrap.h"

static void kvm_works(void)
{
	kvm_wrap_real = false;
	kvm_wrap_fake = KVM_WRAP_WORKING;
}

/* A probe that stopped at step with err (the device node itself was fine). */
static void kvm_fails(enum sys_kvm_step step, int err, int api)
{
	kvm_works();
	kvm_wrap_fake.step = step;
	kvm_wrap_fake.err = err;
	kvm_wrap_fake.api_version = api;
	if (step == SYS_KVM_STEP_STAT)
		kvm_wrap_fake = (struct sys_kvm_probe){.step = step, .err = err, .api_version = -1};
}

static const struct finding *run_kvm(struct hostroot_fixture *h, const char *root)
{
	hf_open(h, root);
	check_kvm(&h->ctx, "host.kvm");
	return hf_finding(h, "host.kvm");
}

static char *modules_of(const struct finding *f)
{
	return hf_list_join(kv_get_list(&f->evidence, "kvm_modules"));
}

/* ---- host.kvm ---- */

static void test_kvm_pass(void **state)
{
	struct hostroot_fixture h;
	kvm_works();
	const struct finding *f = run_kvm(&h, "a-debian-intel");
	assert_verdict(f, STATUS_PASS);
	assert_int_equal(hf_ev_int(f, "api_version"), 12);
	assert_evidence(f, "device_node", "char 10:232");
	assert_evidence(f, "create_vm", "ok");
	char *mods = modules_of(f);
	/* Exact names: irqbypass is not a KVM module, kvm_intel and kvm are. */
	assert_string_equal(mods, "kvm,kvm_intel");
	free(mods);
	assert_evidence(f, "modules_source", "/proc/modules, /sys/module");
	/* The fact is the same list. */
	char *fact = hf_list_join(kv_get_list(&h.report.facts, "kvm_modules"));
	assert_string_equal(fact, "kvm,kvm_intel");
	free(fact);
	hf_close(&h);
}

static void test_kvm_pass_pvm_sys_module_only(void **state)
{
	/* This machine's kind: no /proc/modules, kvm + kvm_pvm in /sys/module. */
	struct hostroot_fixture h;
	kvm_works();
	const struct finding *f = run_kvm(&h, "a-pvm-host");
	assert_verdict(f, STATUS_PASS);
	char *mods = modules_of(f);
	assert_string_equal(mods, "kvm,kvm_pvm");
	free(mods);
	assert_evidence(f, "modules_source", "/sys/module");
	hf_close(&h);
}

static void test_kvm_amd_and_arm_modules(void **state)
{
	struct hostroot_fixture h;
	kvm_works();
	const struct finding *f = run_kvm(&h, "a-slemicro-amd");
	char *mods = modules_of(f);
	assert_string_equal(mods, "kvm,kvm_amd");
	free(mods);
	hf_close(&h);
	/* arm64: KVM built in, visible only in /sys/module. */
	f = run_kvm(&h, "a-aarch64-ampere");
	mods = modules_of(f);
	assert_string_equal(mods, "kvm");
	free(mods);
	hf_close(&h);
}

static void test_kvm_missing_device(void **state)
{
	struct hostroot_fixture h;
	/* The kernel registered the device (sys/class/misc/kvm) but /dev has no node:
	 * the usual container mistake. */
	kvm_fails(SYS_KVM_STEP_STAT, ENOENT, -1);
	const struct finding *f = run_kvm(&h, "a-debian-intel");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "does not exist");
	assert_contains(f->remediation, "container");
	bool reg = false;
	assert_true(kv_get_bool(&f->evidence, "kernel_kvm_device_registered", &reg));
	assert_true(reg);
	hf_close(&h);

	/* No KVM module at all: enable VT-x/AMD-V and load it. */
	f = run_kvm(&h, "a-garbage");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->remediation, "modprobe kvm_intel");
	hf_close(&h);

	/* A vendor module loaded but no device: it failed to initialise. */
	f = run_kvm(&h, "a-nested-guest");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->remediation, "dmesg");
	hf_close(&h);
}

static void test_kvm_stat_denied(void **state)
{
	struct hostroot_fixture h;
	kvm_fails(SYS_KVM_STEP_STAT, EACCES, -1);
	const struct finding *f = run_kvm(&h, "a-debian-intel");
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "cannot stat");
	hf_close(&h);
}

static void test_kvm_wrong_node(void **state)
{
	struct hostroot_fixture h;
	kvm_works();
	kvm_wrap_fake.step = SYS_KVM_STEP_WRONG_NODE;
	kvm_wrap_fake.major = 1;
	kvm_wrap_fake.minor = 3;
	kvm_wrap_fake.api_version = -1;
	const struct finding *f = run_kvm(&h, "a-debian-intel");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "1:3");
	assert_evidence(f, "device_node", "char 1:3");
	hf_close(&h);

	kvm_wrap_fake = (struct sys_kvm_probe){
	    .step = SYS_KVM_STEP_WRONG_NODE, .file_type = S_IFDIR, .api_version = -1};
	f = run_kvm(&h, "a-debian-intel");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "a directory");
	hf_close(&h);
}

static void test_kvm_open_denied_is_unknown(void **state)
{
	static const int errs[] = {EACCES, EPERM};
	for (size_t i = 0; i < ELEMENTSOF(errs); i++) {
		struct hostroot_fixture h;
		kvm_fails(SYS_KVM_STEP_OPEN, errs[i], -1);
		const struct finding *f = run_kvm(&h, "a-debian-intel");
		assert_verdict(f, STATUS_UNKNOWN);
		assert_contains(f->message, strerror(errs[i]));
		assert_contains(f->remediation, "DeviceAllow");
		/* The modules are evidence whatever the verdict. */
		assert_non_null(kv_get_list(&f->evidence, "kvm_modules"));
		hf_close(&h);
	}
}

static void test_kvm_open_fails(void **state)
{
	struct hostroot_fixture h;
	kvm_fails(SYS_KVM_STEP_OPEN, ENODEV, -1);
	const struct finding *f = run_kvm(&h, "a-pvm-host");
	assert_verdict(f, STATUS_FAIL);
	assert_evidence(f, "error", "open: No such device");
	hf_close(&h);
}

static void test_kvm_api_version(void **state)
{
	struct hostroot_fixture h;
	kvm_fails(SYS_KVM_STEP_API_VERSION, 0, 11);
	const struct finding *f = run_kvm(&h, "a-debian-intel");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "version 11, not 12");
	assert_int_equal(hf_ev_int(f, "api_version"), 11);
	hf_close(&h);

	kvm_fails(SYS_KVM_STEP_API_VERSION, ENOTTY, -1);
	f = run_kvm(&h, "a-debian-intel");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "KVM_GET_API_VERSION");
	hf_close(&h);

	kvm_fails(SYS_KVM_STEP_API_VERSION, EPERM, -1);
	f = run_kvm(&h, "a-debian-intel");
	assert_verdict(f, STATUS_UNKNOWN);
	hf_close(&h);
}

static void test_kvm_create_vm(void **state)
{
	struct hostroot_fixture h;
	kvm_fails(SYS_KVM_STEP_CREATE_VM, EBUSY, 12);
	const struct finding *f = run_kvm(&h, "a-slemicro-amd");
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "cannot create a VM");
	assert_contains(f->remediation, "Another hypervisor");
	assert_int_equal(hf_ev_int(f, "api_version"), 12);
	hf_close(&h);

	kvm_fails(SYS_KVM_STEP_CREATE_VM, ENOMEM, 12);
	f = run_kvm(&h, "a-slemicro-amd");
	assert_verdict(f, STATUS_FAIL);
	hf_close(&h);

	kvm_fails(SYS_KVM_STEP_CREATE_VM, EACCES, 12);
	f = run_kvm(&h, "a-slemicro-amd");
	assert_verdict(f, STATUS_UNKNOWN);
	hf_close(&h);
}

static void test_kvm_modules_unreadable(void **state)
{
	struct hostroot_fixture h;
	char *root = scratch_dir();
	kvm_works();
	const struct finding *f = run_kvm(&h, root);
	assert_verdict(f, STATUS_PASS);
	assert_evidence_contains(f, "kvm_modules", "unknown");
	/* An unreadable fact is absent, not empty. */
	assert_null(kv_get(&h.report.facts, "kvm_modules"));
	hf_close(&h);
	scratch_remove(root);
}

/* The real probe on fixtures: what a host root can hold without devices. */
static void test_kvm_real_probe_on_fixtures(void **state)
{
	struct hostroot_fixture h;
	kvm_wrap_real = true;
	const struct finding *f = run_kvm(&h, "a-garbage"); /* dev/kvm is a regular file */
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "a regular file");
	hf_close(&h);

	f = run_kvm(&h, "a-debian-intel"); /* no dev/kvm */
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "does not exist");
	hf_close(&h);

	/* An absolute symlink resolves inside the host root. */
	char *root = scratch_dir();
	char *dev = xasprintf("%s/dev", root), *lnk = xasprintf("%s/dev/kvm", root);
	assert_int_equal(mkdir(dev, 0755), 0);
	assert_int_equal(symlink("/dev/null", lnk), 0);
	f = run_kvm(&h, root);
	/* "does not exist" with openat2; without it (old kernels), /dev/null is 1:3 and
	 * is never opened. Either way not the test machine's KVM. */
	assert_verdict(f, STATUS_FAIL);
	hf_close(&h);
	free(dev);
	free(lnk);
	scratch_remove(root);
	kvm_wrap_real = false;
}

/* ---- host.cpu.virt ---- */

static const struct finding *run_cpu(struct hostroot_fixture *h, const char *root, bool with_kvm)
{
	hf_open(h, root);
	if (with_kvm)
		check_kvm(&h->ctx, "host.kvm");
	check_cpu_virt(&h->ctx, "host.cpu.virt");
	return hf_finding(h, "host.cpu.virt");
}

static void test_cpu_vmx_pass(void **state)
{
	struct hostroot_fixture h;
	kvm_works();
	const struct finding *f = run_cpu(&h, "a-debian-intel", true);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "virt_flag", "vmx");
	assert_evidence(f, "vendor", "GenuineIntel");
	assert_evidence(f, "model_name", "Intel(R) Xeon(R) E-2288G CPU @ 3.70GHz");
	assert_evidence(f, "family_model_stepping", "6/158/13");
	bool vm = true;
	assert_true(kv_get_bool(&f->evidence, "hypervisor", &vm));
	assert_false(vm);
	assert_null(kv_get(&f->evidence, "nested"));
	hf_close(&h);
}

static void test_cpu_vmx_pass_even_if_kvm_fails(void **state)
{
	/* The flag is the CPU's capability; host.kvm reports the broken KVM. */
	struct hostroot_fixture h;
	kvm_fails(SYS_KVM_STEP_STAT, ENOENT, -1);
	const struct finding *f = run_cpu(&h, "a-rhel-small", true);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "host.kvm", "FAIL");
	hf_close(&h);
}

static void test_cpu_svm_pass(void **state)
{
	struct hostroot_fixture h;
	kvm_works();
	const struct finding *f = run_cpu(&h, "a-slemicro-amd", true);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "virt_flag", "svm");
	assert_evidence(f, "vendor", "AuthenticAMD");
	assert_evidence(f, "family_model_stepping", "25/1/1");
	assert_contains(f->message, "AMD-V");
	assert_not_contains(f->message, "host.kvm FAIL");
	hf_close(&h);

	/* SVM disabled in the firmware (a common server BIOS default): /proc/cpuinfo
	 * still lists svm, kvm_amd refuses to load ("SVM disabled (by BIOS) in MSR_VM_CR"),
	 * so there is no /dev/kvm. The flag is still the CPU's; the message says why KVM
	 * fails. */
	kvm_fails(SYS_KVM_STEP_STAT, ENOENT, -1);
	f = run_cpu(&h, "a-slemicro-amd", true);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "the svm flag stays visible while the firmware "
				    "disables SVM");
	hf_close(&h);
}

static void test_cpu_nested_guest(void **state)
{
	struct hostroot_fixture h;
	kvm_works();
	const struct finding *f = run_cpu(&h, "a-nested-guest", true);
	assert_verdict(f, STATUS_PASS);
	bool vm = false;
	assert_true(kv_get_bool(&f->evidence, "hypervisor", &vm));
	assert_true(vm);
	assert_evidence(f, "nested", "Y (kvm_intel)");
	assert_contains(f->message, "nested virtualization");
	hf_close(&h);
}

static void test_cpu_pvm_warn(void **state)
{
	/* No vmx/svm, hypervisor set, KVM works through kvm_pvm: WARN, never FAIL. */
	struct hostroot_fixture h;
	kvm_works();
	const struct finding *f = run_cpu(&h, "a-pvm-host", true);
	assert_verdict(f, STATUS_WARN);
	assert_evidence(f, "virt_flag", "none");
	assert_evidence(f, "host.kvm", "PASS");
	assert_contains(f->message, "KVM works without hardware virtualization flags");
	hf_close(&h);
}

static void test_cpu_no_flags_no_kvm_fail(void **state)
{
	struct hostroot_fixture h;
	kvm_fails(SYS_KVM_STEP_OPEN, ENODEV, -1);
	const struct finding *f = run_cpu(&h, "a-pvm-host", true);
	assert_verdict(f, STATUS_FAIL);
	/* It is a VM: the advice is about nested virtualization. */
	assert_contains(f->remediation, "nested virtualization");
	hf_close(&h);
}

static void test_cpu_no_flags_kvm_unknown(void **state)
{
	struct hostroot_fixture h;
	kvm_fails(SYS_KVM_STEP_OPEN, EACCES, -1);
	const struct finding *f = run_cpu(&h, "a-pvm-host", true);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_evidence(f, "host.kvm", "UNKNOWN");
	hf_close(&h);

	/* host.kvm did not run at all. */
	f = run_cpu(&h, "a-pvm-host", false);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_evidence(f, "host.kvm", "not run");
	hf_close(&h);
}

static void test_cpu_aarch64(void **state)
{
	struct hostroot_fixture h;
	kvm_works();
	const struct finding *f = run_cpu(&h, "a-aarch64-ampere", true);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "arch", "arm");
	assert_evidence(f, "vendor", "ARM");
	assert_evidence(f, "model_name", "Neoverse-N1");
	assert_evidence(f, "implementer_part", "0x41/0xd0c");
	hf_close(&h);

	kvm_fails(SYS_KVM_STEP_STAT, ENOENT, -1);
	f = run_cpu(&h, "a-aarch64-ampere", true);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->remediation, "EL2");
	hf_close(&h);

	f = run_cpu(&h, "a-aarch64-ampere", false);
	assert_verdict(f, STATUS_UNKNOWN);
	hf_close(&h);
}

static void test_cpu_unreadable(void **state)
{
	struct hostroot_fixture h;
	char *root = scratch_dir();
	kvm_works();
	const struct finding *f = run_cpu(&h, root, true);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "proc/cpuinfo");
	assert_contains(f->message, "No such file");
	assert_null(kv_get(&h.report.facts, "cpu"));
	hf_close(&h);
	scratch_remove(root);

	f = run_cpu(&h, "a-garbage", true);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "a-garbage/proc/cpuinfo");
	assert_contains(f->message, "not cpuinfo");
	hf_close(&h);
}

static void test_cpu_records_fact(void **state)
{
	struct hostroot_fixture h;
	kvm_works();
	run_cpu(&h, "a-slemicro-amd", true);
	const struct value *cpu = kv_get(&h.report.facts, "cpu");
	assert_non_null(cpu);
	assert_int_equal(cpu->type, VALUE_MAP);
	assert_string_equal(kv_get_str(&cpu->map, "vendor"), "AuthenticAMD");
	assert_string_equal(kv_get_str(&cpu->map, "model_name"),
			    "AMD EPYC 7313P 16-Core Processor");
	int64_t fam = 0;
	assert_true(kv_get_int(&cpu->map, "family", &fam));
	assert_int_equal(fam, 25);
	const struct value_list *fl = kv_get_list(&cpu->map, "flags");
	assert_non_null(fl);
	for (size_t i = 1; i < fl->n; i++)
		assert_true(strcmp(fl->items[i - 1].s, fl->items[i].s) < 0);
	hf_close(&h);
}

/* ---- the parser ---- */

static void test_parse_x86_this_machine_kind(void **state)
{
	size_t len;
	char *buf = hf_fixture_read("a-pvm-host/proc/cpuinfo", &len);
	struct cpuinfo ci;
	assert_int_equal(cpuinfo_parse((const uint8_t *)buf, len, &ci), 0);
	assert_int_equal(ci.arch, CPUINFO_ARCH_X86);
	assert_true(ci.processors >= 1);
	assert_true(cpuinfo_has_flag(&ci, "hypervisor"));
	assert_false(cpuinfo_has_flag(&ci, "vmx"));
	assert_false(cpuinfo_has_flag(&ci, "svm"));
	assert_false(cpuinfo_has_flag(&ci, "hyper"));
	/* The flags line has runs of blanks ("pti        vmmcall"): no empty flags. */
	for (size_t i = 0; i < ci.flags.n; i++)
		assert_true(strlen(ci.flags.items[i]) > 0);
	cpuinfo_clear(&ci);
	free(buf);
}

static void test_parse_layouts(void **state)
{
	/* Only "flags" counts, not "vmx flags"; duplicates collapse; first CPU wins. */
	static const char x86[] =
	    "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
	    "model\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6230R\n"
	    "stepping\t: 7\nflags\t\t: sse vmx sse fpu\nvmx flags\t: ept vpid\n\n"
	    "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 7\n"
	    "flags\t\t: other\n";
	struct cpuinfo ci;
	assert_int_equal(cpuinfo_parse((const uint8_t *)x86, strlen(x86), &ci), 0);
	assert_int_equal(ci.processors, 2);
	assert_int_equal(ci.family, 6);
	assert_int_equal(ci.model, 85);
	assert_int_equal(ci.stepping, 7);
	assert_int_equal(ci.flags.n, 3);
	assert_string_equal(ci.flags.items[0], "fpu");
	assert_false(cpuinfo_has_flag(&ci, "ept"));
	assert_false(cpuinfo_has_flag(&ci, "other"));
	cpuinfo_clear(&ci);

	static const char s390[] =
	    "vendor_id       : IBM/S390\n# processors    : 4\n"
	    "bogomips per cpu: 3241.00\nfeatures\t: esan3 zarch stfle msa "
	    "ldisp eimm dfp edat etf3eh highgprs te vx sie\n"
	    "processor 0: version = FF,  identification = 0133E8,  machine = "
	    "2964\n";
	assert_int_equal(cpuinfo_parse((const uint8_t *)s390, strlen(s390), &ci), 0);
	assert_int_equal(ci.arch, CPUINFO_ARCH_S390);
	assert_int_equal(ci.processors, 4);
	assert_true(cpuinfo_has_flag(&ci, "sie"));
	cpuinfo_clear(&ci);

	static const char ppc[] =
	    "processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\n"
	    "clock\t\t: 2750.000000MHz\nrevision\t: 2.2 (pvr 004e 1202)\n\n"
	    "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,9009-22A\n";
	assert_int_equal(cpuinfo_parse((const uint8_t *)ppc, strlen(ppc), &ci), 0);
	assert_int_equal(ci.arch, CPUINFO_ARCH_POWER);
	assert_string_equal(ci.model_name, "POWER9 (architected), altivec supported");
	assert_int_equal(ci.model, -1);
	cpuinfo_clear(&ci);

	/* Older arm64 kernels start with a "Processor" line that is not a CPU. */
	static const char arm_old[] =
	    "Processor\t: AArch64 Processor rev 4 (aarch64)\n"
	    "processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x51\n"
	    "CPU architecture: 8\nCPU variant\t: 0xa\nCPU part\t: 0x801\n"
	    "CPU revision\t: 4\n";
	assert_int_equal(cpuinfo_parse((const uint8_t *)arm_old, strlen(arm_old), &ci), 0);
	assert_int_equal(ci.arch, CPUINFO_ARCH_ARM);
	assert_int_equal(ci.processors, 1);
	assert_string_equal(ci.vendor, "Qualcomm");
	assert_null(ci.model_name);
	assert_int_equal(ci.part, 0x801);
	assert_int_equal(ci.variant, 0xa);
	cpuinfo_clear(&ci);

	static const char riscv[] = "processor\t: 0\nhart\t\t: 1\nisa\t\t: rv64imafdc_zicsr\n"
				    "mmu\t\t: sv39\nuarch\t\t: sifive,u74-mc\n";
	assert_int_equal(cpuinfo_parse((const uint8_t *)riscv, strlen(riscv), &ci), 0);
	assert_int_equal(ci.arch, CPUINFO_ARCH_RISCV);
	assert_string_equal(ci.model_name, "sifive,u74-mc");
	cpuinfo_clear(&ci);
}

static void test_parse_garbage(void **state)
{
	static const char *const bad[] = {
	    "",
	    "\n\n\n",
	    "no colons here\n",
	    "key: value\nother: thing\n",
	    "processor : x\n",
	    "cpu family : 6\nmodel : 1\n", /* numbers but no identity */
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct cpuinfo ci;
		assert_int_equal(cpuinfo_parse((const uint8_t *)bad[i], strlen(bad[i]), &ci),
				 -EBADMSG);
		cpuinfo_clear(&ci);
	}
	/* NULs, huge numbers, signs and a flags line without a newline do not crash. */
	static const char weird[] = "processor\t: 0\ncpu family\t: 99999999999999999999\n"
				    "model\t: -5\nstepping\t: +3\nvendor_id\t: \0GenuineIntel\n"
				    "flags\t: a\0b c";
	struct cpuinfo ci;
	assert_int_equal(cpuinfo_parse((const uint8_t *)weird, sizeof(weird) - 1, &ci), 0);
	assert_int_equal(ci.family, -1);
	assert_int_equal(ci.model, -1);
	assert_int_equal(ci.stepping, -1);
	cpuinfo_clear(&ci);
}

static void test_read_truncated(void **state)
{
	/* More than CPUINFO_MAX_BYTES: the first CPU is still read, no error. */
	char *root = scratch_dir();
	static const char block[] = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
				    "model\t\t: 106\nflags\t\t: fpu vmx\n\n";
	size_t n = CPUINFO_MAX_BYTES / (sizeof(block) - 1) + 10;
	char *big = xmalloc(n * (sizeof(block) - 1));
	for (size_t i = 0; i < n; i++)
		memcpy(big + i * (sizeof(block) - 1), block, sizeof(block) - 1);
	scratch_put(root, "proc/cpuinfo", big, n * (sizeof(block) - 1));
	struct hostroot hr;
	hf_hostroot(&hr, root);
	struct cpuinfo ci;
	assert_int_equal(cpuinfo_read(&hr, &ci), 0);
	assert_true(ci.truncated);
	assert_true(cpuinfo_has_flag(&ci, "vmx"));
	cpuinfo_clear(&ci);
	hostroot_close(&hr);
	free(big);
	scratch_remove(root);
}

static void test_cpulist(void **state)
{
	static const struct {
		const char *s;
		int64_t n;
	} good[] = {{"0\n", 1}, {"0-1\n", 2}, {"0-3,8,10-11\n", 7}, {"0-63", 64}, {"5", 1}};
	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		int64_t n = 0;
		assert_int_equal(
		    cpuinfo_parse_cpulist((const uint8_t *)good[i].s, strlen(good[i].s), &n), 0);
		assert_int_equal(n, good[i].n);
	}
	static const char *const bad[] = {"",	  "\n", "zz-\n", "3-1",		"0-",	"-1",
					  "0,,1", "0,", "1-2-3", "0-999999999", "0x10", "0 - 3\n"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		int64_t n = 0;
		assert_int_equal(cpuinfo_parse_cpulist((const uint8_t *)bad[i], strlen(bad[i]), &n),
				 -EBADMSG);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kvm_pass),
	    cmocka_unit_test(test_kvm_pass_pvm_sys_module_only),
	    cmocka_unit_test(test_kvm_amd_and_arm_modules),
	    cmocka_unit_test(test_kvm_missing_device),
	    cmocka_unit_test(test_kvm_stat_denied),
	    cmocka_unit_test(test_kvm_wrong_node),
	    cmocka_unit_test(test_kvm_open_denied_is_unknown),
	    cmocka_unit_test(test_kvm_open_fails),
	    cmocka_unit_test(test_kvm_api_version),
	    cmocka_unit_test(test_kvm_create_vm),
	    cmocka_unit_test(test_kvm_modules_unreadable),
	    cmocka_unit_test(test_kvm_real_probe_on_fixtures),
	    cmocka_unit_test(test_cpu_vmx_pass),
	    cmocka_unit_test(test_cpu_vmx_pass_even_if_kvm_fails),
	    cmocka_unit_test(test_cpu_svm_pass),
	    cmocka_unit_test(test_cpu_nested_guest),
	    cmocka_unit_test(test_cpu_pvm_warn),
	    cmocka_unit_test(test_cpu_no_flags_no_kvm_fail),
	    cmocka_unit_test(test_cpu_no_flags_kvm_unknown),
	    cmocka_unit_test(test_cpu_aarch64),
	    cmocka_unit_test(test_cpu_unreadable),
	    cmocka_unit_test(test_cpu_records_fact),
	    cmocka_unit_test(test_parse_x86_this_machine_kind),
	    cmocka_unit_test(test_parse_layouts),
	    cmocka_unit_test(test_parse_garbage),
	    cmocka_unit_test(test_read_truncated),
	    cmocka_unit_test(test_cpulist),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
