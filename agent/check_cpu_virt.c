/*
 * host.cpu.virt (docs/checks/host.cpu.virt.md): does the CPU offer hardware virtualization (vmx,
 * svm)? The flags are how most tools decide (virt-host-validate, the runbook's
 * `egrep -c '(vmx|svm)' /proc/cpuinfo`), but what VMs need is a working KVM:
 * paravirtual KVM (kvm_pvm) runs VMs on CPUs without those flags. So a CPU
 * without the flags on a host where host.kvm PASSes is WARN, never FAIL.
 * host.kvm runs first (check_table.c).
 */
#include <errno.h>
#include <string.h>

#include "checks.h"
#include "facts.h"
#include "judge.h"

static void add_identity(struct finding *f, const struct cpuinfo *ci)
{
	kv_add_str(&f->evidence, "arch", cpuinfo_arch_name(ci->arch));
	if (ci->vendor)
		kv_add_str(&f->evidence, "vendor", ci->vendor);
	if (ci->model_name)
		kv_add_str(&f->evidence, "model_name", ci->model_name);
	if (ci->family >= 0)
		kv_add_strf(&f->evidence, "family_model_stepping", "%lld/%lld/%lld",
			    (long long)ci->family, (long long)ci->model, (long long)ci->stepping);
	if (ci->implementer >= 0)
		kv_add_strf(&f->evidence, "implementer_part", "0x%02llx/0x%03llx",
			    (unsigned long long)ci->implementer, (unsigned long long)ci->part);
}

/* In a VM, KVM's `nested` parameter of this kernel says whether VMs started here
 * could run VMs themselves; it is evidence, not the verdict (the vmx/svm flag
 * seen here is what says the outer hypervisor passes virtualization through). */
static void add_nested(struct agent_ctx *ctx, struct finding *f)
{
	static const char *const mods[] = {"kvm_intel", "kvm_amd"};
	for (size_t i = 0; i < ELEMENTSOF(mods); i++) {
		_cleanup_free_ char *path = xasprintf("sys/module/%s/parameters/nested", mods[i]);
		_cleanup_free_ char *v = NULL;
		if (hostroot_read_line(&ctx->root, path, &v) < 0)
			continue;
		bool on = streq(v, "Y") || streq(v, "1");
		bool off = streq(v, "N") || streq(v, "0");
		kv_add_strf(&f->evidence, "nested", "%s (%s)", on ? "Y" : off ? "N" : v, mods[i]);
		return;
	}
}

/* host.kvm's verdict; STATUS_SKIP with "not run" when it has not run. */
static enum status kvm_state(struct agent_ctx *ctx, const char **ret_name)
{
	enum status st;
	if (!agent_result(ctx, "host.kvm", &st)) {
		*ret_name = "not run";
		return STATUS_SKIP;
	}
	*ret_name = status_name(st);
	return st;
}

static void decide_x86(struct agent_ctx *ctx, struct finding *f, struct judge *j,
		       const struct cpuinfo *ci, bool vm)
{
	const char *flag = cpuinfo_has_flag(ci, "vmx")	 ? "vmx"
			   : cpuinfo_has_flag(ci, "svm") ? "svm"
							 : NULL;
	const char *kvm_name;
	enum status kvm = kvm_state(ctx, &kvm_name);
	kv_add_str(&f->evidence, "virt_flag", flag ? flag : "none");
	kv_add_str(&f->evidence, "host.kvm", kvm_name);
	if (flag) {
		/* Intel's flag disappears when the firmware disables VT-x (Linux 5.6+,
		 * feat_ctl.c); AMD's svm stays while VM_CR.SVMDIS turns it off, so a
		 * failing host.kvm is then most likely the firmware. */
		const char *kvm_note =
		    kvm != STATUS_FAIL	 ? ""
		    : streq(flag, "svm") ? "; but KVM does not work (host.kvm FAIL): the svm flag "
					   "stays visible while the firmware disables SVM"
					 : "; but KVM does not work (host.kvm FAIL)";
		judge_note(j, STATUS_PASS, "%s (%s)%s%s", flag,
			   streq(flag, "vmx") ? "Intel VT-x" : "AMD-V",
			   vm ? "; the node is a VM and its hypervisor passes it through (nested "
				"virtualization)"
			      : "",
			   kvm_note);
		return;
	}
	if (kvm == STATUS_PASS) {
		judge_note(j, STATUS_WARN,
			   "no vmx/svm flag, but KVM works without hardware virtualization flags "
			   "(paravirtual or nested KVM%s)",
			   vm ? " in a VM" : "");
		judge_remedy(j,
			     "VMs run here (host.kvm PASS), so this is not a blocker; tools that "
			     "look only at the flags (virt-host-validate) say FAIL. Expect "
			     "paravirtual-KVM limits (performance, nested guests); production "
			     "Harvester nodes should have VT-x/AMD-V.");
		return;
	}
	if (kvm == STATUS_FAIL) {
		judge_note(j, STATUS_FAIL, "no vmx/svm flag and KVM does not work (host.kvm FAIL)");
		judge_remedy(
		    j, vm ? "The node is a VM: enable nested virtualization on its "
			    "hypervisor (KVM: `kvm_intel nested=1` / `kvm_amd nested=1` and "
			    "CPU mode host-passthrough; vSphere: \"Expose hardware assisted "
			    "virtualization\"; Hyper-V: ExposeVirtualizationExtensions)."
			  : "Enable VT-x (Intel) or AMD-V/SVM (AMD) in the firmware; since "
			    "Linux 5.6 the flag is hidden from /proc/cpuinfo while the firmware "
			    "disables it.");
		return;
	}
	judge_note(j, STATUS_UNKNOWN,
		   "no vmx/svm flag, and whether KVM works without them is unknown (host.kvm %s)",
		   kvm_name);
	judge_remedy(j, "Let host.kvm run with access to /dev/kvm: it decides whether VMs can "
			"run here.");
}

/* arm64 (and s390x, ppc64le, riscv64) CPUs advertise no virtualization flag:
 * on arm64, KVM needs the kernel booted at EL2, which only KVM itself shows. */
static void decide_other(struct agent_ctx *ctx, struct finding *f, struct judge *j,
			 const struct cpuinfo *ci)
{
	const char *kvm_name;
	enum status kvm = kvm_state(ctx, &kvm_name);
	const char *arch = cpuinfo_arch_name(ci->arch);
	kv_add_str(&f->evidence, "host.kvm", kvm_name);
	if (kvm == STATUS_PASS) {
		judge_note(
		    j, STATUS_PASS,
		    "%s CPUs have no virtualization flag to check; KVM works (host.kvm PASS)",
		    arch);
		return;
	}
	if (kvm == STATUS_FAIL) {
		judge_note(j, STATUS_FAIL,
			   "%s CPUs have no virtualization flag to check, and KVM does not work "
			   "(host.kvm FAIL)",
			   arch);
		judge_remedy(j, ci->arch == CPUINFO_ARCH_ARM
				    ? "On arm64 the kernel must boot at EL2 (`dmesg | grep -i "
				      "kvm` says \"HYP mode not available\" otherwise): check the "
				      "firmware, or the hypervisor if this is a VM."
				    : "Check `dmesg | grep -i kvm` for why KVM is unavailable.");
		return;
	}
	judge_note(j, STATUS_UNKNOWN,
		   "%s CPUs have no virtualization flag to check, and host.kvm is %s", arch,
		   kvm_name);
	judge_remedy(j, "Let host.kvm run with access to /dev/kvm: on this architecture it "
			"alone decides.");
}

void check_cpu_virt(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = agent_finding(ctx, id);
	_cleanup_(judge_clear) struct judge j = {.status = STATUS_PASS};
	_cleanup_free_ char *path = hostroot_display(&ctx->root, "proc/cpuinfo");
	struct cpuinfo ci;
	int r = cpuinfo_read(&ctx->root, &ci);
	if (r < 0) {
		kv_add_str(&f->evidence, "file", path);
		if (r == -EBADMSG)
			judge_note(&j, STATUS_UNKNOWN, "%s has no processor entries: not cpuinfo",
				   path);
		else
			judge_note(&j, STATUS_UNKNOWN, "cannot read %s: %s", path,
				   util_read_strerror(r));
		judge_remedy(&j, "Give the agent the host's /proc (the host root must contain "
				 "proc/cpuinfo).");
		judge_apply(&j, f, "");
		cpuinfo_clear(&ci);
		return;
	}
	facts_set_cpu(ctx, &ci);
	add_identity(f, &ci);
	bool vm = cpuinfo_has_flag(&ci, "hypervisor");
	kv_add_bool(&f->evidence, "hypervisor", vm);
	if (vm)
		add_nested(ctx, f);
	if (ci.arch == CPUINFO_ARCH_X86 || ci.arch == CPUINFO_ARCH_UNKNOWN)
		decide_x86(ctx, f, &j, &ci, vm);
	else
		decide_other(ctx, f, &j, &ci);
	judge_apply(&j, f, "");
	cpuinfo_clear(&ci);
}
