/*
 * Can the kernel load a module when it is first needed? A module that is
 * installed (modules.dep) but not loaded is loaded by the kernel's
 * request_module() at first use (a mount of type nfs4 asks for "fs-nfs4",
 * an alias of nfsv4.ko) unless loading is off:
 *   proc/sys/kernel/modules_disabled = 1   no module loads until reboot
 *                                          (Documentation/admin-guide/sysctl/kernel.rst)
 *   "install NAME /bin/false" (or true)    modprobe runs the command instead of
 *                                          loading (modprobe.d(5); CIS hardening)
 *   "blacklist NAME"                       modprobe ignores NAME's aliases, so the
 *                                          kernel's request by alias loads nothing;
 *                                          only `modprobe NAME` by name still works
 *   module_blacklist=NAME on the kernel command line   the kernel refuses it
 * read from /etc, /run, /usr/local/lib, /usr/lib and /lib modprobe.d/NAME.conf under
 * the host root (kmod's search path).
 */
#pragma once
#include "hostroot.h"

struct modprobe_block {
	bool disabled;	 /* modules_disabled = 1 */
	char *refused;	 /* "install nfsv4 /bin/false (/etc/modprobe.d/x.conf:3)", or
			  * "module_blacklist=nfsv4 (/proc/cmdline)" */
	char *blacklist; /* "blacklist nfsv4 (/etc/modprobe.d/x.conf:1)" */
};

/* Fills ret for any of names (NULL-terminated; '-' and '_' alike). */
void modprobe_block_read(const struct hostroot *hr, const char *const *names,
			 struct modprobe_block *ret);
void modprobe_block_clear(struct modprobe_block *b);
