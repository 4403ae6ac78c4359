/*
 * Kernel modules and kernel configuration of a host, read under its host root.
 *
 * Used by host.kvm (which KVM modules are in the kernel) and host.nfs.kernel
 * (is NFSv4.1 there: loaded, built in, loadable, or configured). Every answer
 * is by EXACT module name: "nfs" never matches "nfsd" or "nfsv4". Names are
 * compared the way the kernel does: '-' and '_' are the same character, so
 * "kvm-intel" finds "kvm_intel".
 *
 * Sources, all under the host root:
 *   proc/modules                       loaded modules (absent on kernels built
 *                                      without CONFIG_MODULES and in some sandboxes)
 *   sys/module/NAME                    loaded modules, and built-in ones that
 *                                      have parameters (e.g. a built-in kvm)
 *   lib/modules/REL/modules.builtin    modules compiled into the kernel
 *   lib/modules/REL/modules.dep        modules that can be loaded (modprobe)
 *   usr/lib/modules/REL/...            the same on merged-/usr systems (SLE Micro,
 *                                      Fedora, openSUSE), tried after lib/modules
 *   boot/config-REL, usr/lib/modules/REL/config, lib/modules/REL/config,
 *   proc/config.gz (gzip; only for the running kernel)   the kernel configuration
 *
 * Return convention of every query: 1 yes, 0 no, -errno cannot tell (the
 * sources are missing or unreadable: -ENOENT when none of them exists).
 * -EINVAL for a name or release containing '/' (they become path components).
 */
#pragma once
#include "hostroot.h"

/* Bits of modules_find()'s return value: which sources answered. */
#define MODULES_SRC_PROC 1u /* proc/modules */
#define MODULES_SRC_SYS	 2u /* sys/module */

/* Is module name in the running kernel: listed "Live" (or "Loading") in
 * proc/modules, or present as sys/module/NAME? A built-in module without
 * parameters has no sys/module entry: ask modules_builtin() too when that matters. */
int modules_loaded(const struct hostroot *root, const char *name);

/* Every module in the running kernel (proc/modules and sys/module) whose
 * normalised name matches one of the fnmatch(3) patterns (NULL-terminated,
 * e.g. {"kvm", "kvm_*", NULL}); appended to ret sorted and deduplicated.
 * Returns the MODULES_SRC_* bits of the sources read (> 0), or -errno when
 * neither source could be read. */
int modules_find(const struct hostroot *root, const char *const *patterns, struct strv *ret);

/* Is name listed in modules.builtin of kernel release? */
int modules_builtin(const struct hostroot *root, const char *release, const char *name);

/* Is name a loadable module of release (listed in modules.dep, any compression)? */
int modules_loadable(const struct hostroot *root, const char *release, const char *name);

/* The module directory used for release: "lib/modules/REL" or "usr/lib/modules/REL"
 * (relative to the host root, for messages). Returns 0 or -ENOENT. */
int modules_dir(const struct hostroot *root, const char *release, char **ret_path);

/* The value of option (e.g. "CONFIG_NFS_V4_1") in release's kernel config:
 * 1 and *ret_value ("y", "m", a string without its quotes) when set; 0 when the
 * config says "is not set" or does not mention it; -ENOENT when no config is found. */
int kconfig_value(const struct hostroot *root, const char *release, const char *option,
		  char **ret_value);

/* The next line of a kernel config text [buf, end) that can set or unset a
 * symbol starting with name: one that begins with name, or with "# " and name.
 * Searched for from *pos on (memmem from one occurrence to the next, in order,
 * not line by line: a config has ~7,000 lines). true with *ret_line and
 * *ret_len (without its newline), *pos moved past it; false when none is left. */
bool kconfig_next_line(const char *buf, const char *end, const char **pos, const char *name,
		       size_t nlen, const char **ret_line, size_t *ret_len);

/* Which config kconfig_value() reads for release (host-root-relative path). 0 or -ENOENT. */
int kconfig_source(const struct hostroot *root, const char *release, char **ret_path);

/* A gzip'd kernel config (proc/config.gz) read and inflated once for all the
 * checks of a run that look into it (host.nfs.kernel, host.iscsi): lent to one
 * check at a time, as the run's proc/ scan is (agent.h). Only the first .gz
 * path asked for is kept, and only a well-formed one: a single gzip member
 * that ends where the file ends, inflated to at most KCONFIG_CACHE_MAX bytes
 * with no NUL in them. Anything else (unreadable, truncated, too big, not
 * gzip) is not kept, and each reader reads the file its own way, with the
 * answer it always gave. */
#define KCONFIG_CACHE_MAX (8u << 20)
struct kconfig_cache {
	char *path; /* the path read, or NULL: nothing read yet */
	char *text; /* its inflated text, NUL-terminated; NULL: not kept */
	size_t len;
};
void kconfig_cache_clear(struct kconfig_cache *c);
/* The inflated text of path through c (read on the first call): 0 and *ret,
 * or -ENODATA when c is NULL, path does not end in ".gz", another path is
 * kept, or the file was not well-formed (the caller reads it itself). */
int kconfig_cache_text(struct kconfig_cache *c, const struct hostroot *root, const char *path,
		       const char **ret, size_t *ret_len);
/* kconfig_value() reading a gzip'd config through c (may be NULL). */
int kconfig_value_in(struct kconfig_cache *c, const struct hostroot *root, const char *release,
		     const char *option, char **ret_value);

/* Inflate the gzip data in[0, len) into a NUL-terminated *ret of at most max
 * bytes: 0, -EFBIG beyond max, -EINVAL when it is not one complete gzip
 * stream. With ret_rest, the bytes of in after the stream's end. */
int modules_gunzip(const char *in, size_t len, size_t max, char **ret, size_t *ret_len,
		   size_t *ret_rest);

/* The running kernel's release from proc/sys/kernel/osrelease. 0 or -errno. */
int modules_kernel_release(const struct hostroot *root, char **ret);

/* Parsers, for the fuzzers: the module name of one line of proc/modules
 * ("kvm_intel 487424 0 - Live 0x0"), or of modules.dep / modules.builtin
 * ("kernel/fs/nfs/nfsv4.ko.zst: ..."), normalised, into buf. Returns true when
 * the line names a module (for proc/modules: one that is not being unloaded). */
bool modules_parse_proc_line(const char *line, size_t len, char *buf, size_t bufsz);
bool modules_parse_path_line(const char *line, size_t len, char *buf, size_t bufsz);
