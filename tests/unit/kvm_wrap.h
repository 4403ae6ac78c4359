/*
 * The one replacement of sys_kvm_probe for unit tests (a working /dev/kvm
 * cannot be in a host-root fixture). A test that lists `// wrap: sys_kvm_probe`
 * on its first line includes this header: the probe answers kvm_wrap_fake (a
 * working device unless the test sets another outcome), or runs the real probe
 * on the fixture while kvm_wrap_real is set; kvm_wrap_probes counts the calls.
 */
#pragma once
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "sys_kvm.h"

int __real_sys_kvm_probe(const struct hostroot *root, const char *path, struct sys_kvm_probe *ret);
int __wrap_sys_kvm_probe(const struct hostroot *root, const char *path, struct sys_kvm_probe *ret);

/* A working device, as the probe leaves it. */
#define KVM_WRAP_WORKING_INIT                                                                      \
	{                                                                                          \
		.step = SYS_KVM_STEP_DONE, .file_type = S_IFCHR, .is_char = true,                  \
		.major = SYS_KVM_MAJOR, .minor = SYS_KVM_MINOR,                                    \
		.api_version = SYS_KVM_API_VERSION,                                                \
	}
#define KVM_WRAP_WORKING ((struct sys_kvm_probe)KVM_WRAP_WORKING_INIT)

static struct sys_kvm_probe kvm_wrap_fake = KVM_WRAP_WORKING_INIT;
static bool kvm_wrap_real;
static int kvm_wrap_probes;

int __wrap_sys_kvm_probe(const struct hostroot *root, const char *path, struct sys_kvm_probe *ret)
{
	kvm_wrap_probes++;
	assert_string_equal(path, "dev/kvm");
	if (kvm_wrap_real)
		return __real_sys_kvm_probe(root, path, ret);
	*ret = kvm_wrap_fake;
	return 0;
}
