/*
 * host.kvm (docs/checks/host.kvm.md): decided by trying KVM, as QEMU would, not by looking for
 * CPU flags: /dev/kvm is the character device 10:232, opens read-write, answers
 * KVM_GET_API_VERSION with 12, and KVM_CREATE_VM succeeds.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "checks.h"
#include "facts.h"
#include "judge.h"
#include "modules.h"
#include "sys_kvm.h"

#define KVM_PATH "dev/kvm"

static const char *step_name(enum sys_kvm_step s)
{
	switch (s) {
	case SYS_KVM_STEP_STAT:
		return "stat";
	case SYS_KVM_STEP_WRONG_NODE:
		return "device node";
	case SYS_KVM_STEP_OPEN:
		return "open";
	case SYS_KVM_STEP_API_VERSION:
		return "KVM_GET_API_VERSION";
	case SYS_KVM_STEP_CREATE_VM:
		return "KVM_CREATE_VM";
	default:
		return "done";
	}
}

static const char *file_type(mode_t type)
{
	switch (type) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	default:
		return "not a device";
	}
}

/* The KVM modules in the kernel, as evidence and as the kvm_modules fact. */
static void add_modules(struct agent_ctx *ctx, struct finding *f, struct strv *mods)
{
	int src = modules_find(&ctx->root, facts_kvm_module_patterns, mods);
	if (src < 0) {
		kv_add_strf(&f->evidence, "kvm_modules",
			    "unknown: neither /proc/modules nor "
			    "/sys/module is readable (%s)",
			    strerror(-src));
		return;
	}
	struct value_list *l = kv_add_list(&f->evidence, "kvm_modules");
	for (size_t i = 0; i < mods->n; i++)
		vlist_add_str(l, mods->items[i]);
	kv_add_str(&f->evidence, "modules_source",
		   src == (MODULES_SRC_PROC | MODULES_SRC_SYS) ? "/proc/modules, /sys/module"
		   : src == MODULES_SRC_PROC		       ? "/proc/modules"
							       : "/sys/module");
	facts_set_kvm_modules(ctx, mods);
}

static bool has_vendor_module(const struct strv *mods)
{
	for (size_t i = 0; i < mods->n; i++)
		if (startswith(mods->items[i], "kvm_"))
			return true;
	return false;
}

static bool denied(int err)
{
	return err == EACCES || err == EPERM;
}

static void remedy_no_kvm(struct judge *j, const struct strv *mods)
{
	if (has_vendor_module(mods)) {
		judge_remedy(j,
			     "A KVM module is loaded but KVM is unusable: check `dmesg | grep -i "
			     "kvm` (\"disabled by bios\", \"no hardware support\").");
		judge_remedy(j, "Enable VT-x/AMD-V in the firmware.");
		judge_remedy(j, "Reload the module: `modprobe -r kvm_intel && modprobe kvm_intel` "
				"(`kvm_amd` on AMD).");
	} else {
		judge_remedy(j, "Enable hardware virtualization in the firmware (Intel VT-x, "
				"AMD-V/SVM; on arm64 the kernel must boot at EL2); on a virtual "
				"machine, enable nested virtualization on its hypervisor.");
		judge_remedy(j, "Load KVM: `modprobe kvm_intel` or `modprobe kvm_amd`.");
	}
}

static void missing_device(struct agent_ctx *ctx, struct finding *f, struct judge *j,
			   const char *dev, const struct strv *mods)
{
	struct stat st;
	bool registered = hostroot_stat(&ctx->root, "sys/class/misc/kvm", &st) == 0;
	if (hostroot_exists(&ctx->root, "sys/class/misc"))
		kv_add_bool(&f->evidence, "kernel_kvm_device_registered", registered);
	judge_note(j, STATUS_FAIL, "%s does not exist", dev);
	if (registered)
		judge_remedy(j,
			     "The kernel provides KVM (/sys/class/misc/kvm) but %s is missing: "
			     "in a container, mount the host's /dev/kvm (the DaemonSet's host "
			     "root or a hostPath); on the host, recreate it with `udevadm "
			     "trigger` or `mknod /dev/kvm c 10 232`.",
			     dev);
	else
		remedy_no_kvm(j, mods);
}

static void decide(struct agent_ctx *ctx, struct finding *f, struct judge *j,
		   const struct sys_kvm_probe *p, const char *dev, const struct strv *mods)
{
	const char *err = p->err ? strerror(p->err) : NULL;
	switch (p->step) {
	case SYS_KVM_STEP_STAT:
		if (p->err == ENOENT || p->err == ENOTDIR) {
			missing_device(ctx, f, j, dev, mods);
			return;
		}
		judge_note(j, STATUS_UNKNOWN, "cannot stat %s: %s", dev, err);
		judge_remedy(j, "Run the agent with read access to the host's /dev.");
		return;
	case SYS_KVM_STEP_WRONG_NODE:
		if (p->is_char)
			judge_note(j, STATUS_FAIL,
				   "%s is the character device %u:%u, not KVM's 10:232", dev,
				   p->major, p->minor);
		else
			judge_note(j, STATUS_FAIL, "%s is %s, not KVM's character device 10:232",
				   dev, file_type((mode_t)p->file_type));
		judge_remedy(j,
			     "Replace it with the real device: `rm %s && mknod %s c 10 232` "
			     "(udev normally creates it), or fix the mount that put something "
			     "else there.",
			     dev, dev);
		return;
	case SYS_KVM_STEP_OPEN:
		if (denied(p->err)) {
			judge_note(j, STATUS_UNKNOWN,
				   "cannot open %s: %s; whether KVM works cannot be told", dev,
				   err);
			judge_remedy(j, "Run the agent as root with access to the device: "
					"privileged in Kubernetes, or `DeviceAllow=/dev/kvm rw` "
					"under systemd.");
			return;
		}
		judge_note(j, STATUS_FAIL, "cannot open %s: %s", dev, err);
		remedy_no_kvm(j, mods);
		return;
	case SYS_KVM_STEP_API_VERSION:
		if (p->err && denied(p->err)) {
			judge_note(j, STATUS_UNKNOWN, "KVM_GET_API_VERSION on %s was refused: %s",
				   dev, err);
			judge_remedy(j, "A seccomp or LSM policy restricts the agent; run it "
					"unconfined to test KVM.");
			return;
		}
		if (p->err)
			judge_note(j, STATUS_FAIL, "KVM_GET_API_VERSION on %s failed: %s", dev,
				   err);
		else
			judge_note(j, STATUS_FAIL, "%s reports KVM API version %d, not %d", dev,
				   p->api_version, SYS_KVM_API_VERSION);
		judge_remedy(j, "This is not a working KVM device; check `dmesg | grep -i kvm`.");
		return;
	case SYS_KVM_STEP_CREATE_VM:
		if (denied(p->err)) {
			judge_note(j, STATUS_UNKNOWN, "KVM_CREATE_VM on %s was refused: %s", dev,
				   err);
			judge_remedy(j, "A seccomp or LSM policy restricts the agent; run it "
					"unconfined to test KVM.");
			return;
		}
		judge_note(j, STATUS_FAIL, "%s opens but cannot create a VM (KVM_CREATE_VM: %s)",
			   dev, err);
		if (p->err == EBUSY)
			judge_remedy(j, "Another hypervisor (VirtualBox, VMware) holds the "
					"virtualization extensions: stop it.");
		else
			judge_remedy(j,
				     "Check `dmesg | grep -i kvm`; KVM_CREATE_VM fails when "
				     "the module could not enable VT-x/AMD-V or memory is short.");
		return;
	case SYS_KVM_STEP_DONE:
		judge_note(j, STATUS_PASS, "%s works: API version %d, a VM was created", dev,
			   p->api_version);
		return;
	}
}

void check_kvm(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = agent_finding(ctx, id);
	_cleanup_free_ char *dev = hostroot_display(&ctx->root, KVM_PATH);
	struct sys_kvm_probe p;
	sys_kvm_probe(&ctx->root, KVM_PATH, &p);

	kv_add_str(&f->evidence, "device", dev);
	if (p.is_char)
		kv_add_strf(&f->evidence, "device_node", "char %u:%u", p.major, p.minor);
	if (p.api_version >= 0)
		kv_add_int(&f->evidence, "api_version", p.api_version);
	if (p.step == SYS_KVM_STEP_DONE)
		kv_add_str(&f->evidence, "create_vm", "ok");
	else if (p.err)
		kv_add_strf(&f->evidence, "error", "%s: %s", step_name(p.step), strerror(p.err));

	struct strv mods = {0};
	add_modules(ctx, f, &mods);
	_cleanup_(judge_clear) struct judge j = {.status = STATUS_PASS};
	decide(ctx, f, &j, &p, dev, &mods);
	judge_apply(&j, f, "");
	strv_clear(&mods);
}
