#include "sys_kvm.h"
#include "threads.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <linux/kvm.h>

static int ioctl_retry(int fd, unsigned long req, unsigned long arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

static void *close_main(void *arg)
{
	close((int)(intptr_t)arg);
	return NULL;
}

/* Closing the VM destroys it, and that waits for the kernel (kvm_destroy_vm
 * waits out an SRCU grace period: 3 ms on the bench machine, more under
 * load) without using a CPU: done in a detached thread of its own, beside the
 * checks that follow, or here when that thread cannot start. */
static void close_behind(int fd)
{
	if (thread_start_detached(close_main, (void *)(intptr_t)fd) != 0)
		close(fd);
}

int sys_kvm_probe(const struct hostroot *root, const char *path, struct sys_kvm_probe *ret)
{
	*ret = (struct sys_kvm_probe){.step = SYS_KVM_STEP_STAT, .api_version = -1};
	struct stat st;
	int r = hostroot_stat(root, path, &st);
	if (r < 0) {
		ret->err = -r;
		return 0;
	}
	ret->file_type = st.st_mode & S_IFMT;
	ret->is_char = S_ISCHR(st.st_mode);
	if (!ret->is_char) {
		ret->step = SYS_KVM_STEP_WRONG_NODE;
		return 0;
	}
	ret->major = major(st.st_rdev);
	ret->minor = minor(st.st_rdev);
	/* Opening another device could have side effects: only ever open KVM's. */
	if (ret->major != SYS_KVM_MAJOR || ret->minor != SYS_KVM_MINOR) {
		ret->step = SYS_KVM_STEP_WRONG_NODE;
		return 0;
	}

	ret->step = SYS_KVM_STEP_OPEN;
	_cleanup_close_ int fd = hostroot_openat(root, path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret->err = -fd;
		return 0;
	}
	ret->step = SYS_KVM_STEP_API_VERSION;
	int v = ioctl_retry(fd, KVM_GET_API_VERSION, 0);
	if (v < 0) {
		ret->err = errno;
		return 0;
	}
	ret->api_version = v;
	if (v != SYS_KVM_API_VERSION)
		return 0;
	ret->step = SYS_KVM_STEP_CREATE_VM;
	int vm = ioctl_retry(fd, KVM_CREATE_VM, 0);
	if (vm < 0) {
		ret->err = errno;
		return 0;
	}
	close_behind(vm);
	ret->step = SYS_KVM_STEP_DONE;
	return 0;
}
