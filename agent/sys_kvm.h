/*
 * Seam: trying /dev/kvm. Everything that cannot be redirected by a path lives
 * here (the device node test, the open, the ioctls), in its own translation
 * unit, so that unit tests replace it with `// wrap: sys_kvm_probe` while the
 * real code runs on real hosts (tests/integration/agent_real_host.sh).
 */
#pragma once
#include "hostroot.h"

/* The misc device the kernel registers for KVM, and the only API version there is. */
#define SYS_KVM_MAJOR	    10
#define SYS_KVM_MINOR	    232
#define SYS_KVM_API_VERSION 12

/* How far the probe got. Each step runs only if the previous one succeeded. */
enum sys_kvm_step {
	SYS_KVM_STEP_STAT,	 /* stat of dev/kvm under the host root */
	SYS_KVM_STEP_WRONG_NODE, /* stat worked, but it is not the character device 10:232 */
	SYS_KVM_STEP_OPEN,	 /* open(O_RDWR) */
	SYS_KVM_STEP_API_VERSION, /* ioctl(KVM_GET_API_VERSION) failed (err), or answered not 12 (err 0) */
	SYS_KVM_STEP_CREATE_VM, /* ioctl(KVM_CREATE_VM) */
	SYS_KVM_STEP_DONE,	/* every step worked (the VM was created and closed) */
};

struct sys_kvm_probe {
	enum sys_kvm_step step; /* the step that failed, or SYS_KVM_STEP_DONE */
	int err;	    /* errno of the failed step (0 for WRONG_NODE, a wrong version, DONE) */
	unsigned file_type; /* st_mode & S_IFMT, from stat */
	bool is_char;	    /* from stat */
	unsigned major, minor; /* from stat, when is_char */
	int api_version;       /* KVM_GET_API_VERSION's answer, -1 before */
};

/* Probe path (normally "dev/kvm") under the host root. The device is opened only
 * if stat says it is a character device; the VM is created and closed at once.
 * Always fills *ret; returns 0. */
int sys_kvm_probe(const struct hostroot *root, const char *path, struct sys_kvm_probe *ret);
