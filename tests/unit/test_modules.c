/* modules.h: exact-name module lookups and kernel config under a host root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <zlib.h>

#include "hostroot_fixture.h"
#include "modules.h"

static struct hostroot open_root(const char *name)
{
	struct hostroot hr;
	hf_hostroot(&hr, name);
	return hr;
}

/* The calls that return a string: the call succeeds and the string is want. */
static void expect_kconfig(struct hostroot *hr, const char *rel, const char *opt, const char *want)
{
	char *v = NULL;
	assert_int_equal(kconfig_value(hr, rel, opt, &v), 1);
	assert_string_equal(v, want);
	free(v);
}

static void expect_kconfig_source(struct hostroot *hr, const char *rel, const char *want)
{
	char *src = NULL;
	assert_int_equal(kconfig_source(hr, rel, &src), 0);
	assert_string_equal(src, want);
	free(src);
}

static void expect_modules_dir(struct hostroot *hr, const char *rel, const char *want)
{
	char *dir = NULL;
	assert_int_equal(modules_dir(hr, rel, &dir), 0);
	assert_string_equal(dir, want);
	free(dir);
}

static void test_loaded_exact_names(void **state)
{
	struct hostroot hr = open_root("a-debian-intel");
	assert_int_equal(modules_loaded(&hr, "nfs"), 1);
	assert_int_equal(modules_loaded(&hr, "nfsv4"), 1);
	assert_int_equal(modules_loaded(&hr, "nfsd"), 1);
	assert_int_equal(modules_loaded(&hr, "kvm_intel"), 1);
	/* The kernel's '-' == '_'. */
	assert_int_equal(modules_loaded(&hr, "kvm-intel"), 1);
	/* Prefixes and substrings never match. */
	assert_int_equal(modules_loaded(&hr, "nf"), 0);
	assert_int_equal(modules_loaded(&hr, "nfsv3"), 0);
	assert_int_equal(modules_loaded(&hr, "kvm_amd"), 0);
	assert_int_equal(modules_loaded(&hr, "intel"), 0);
	/* Being unloaded is not loaded. */
	assert_int_equal(modules_loaded(&hr, "dm_multipath"), 0);
	/* Built in with parameters: only in /sys/module. */
	assert_int_equal(modules_loaded(&hr, "printk"), 1);
	/* Names are path components under sys/module: nothing that walks. */
	assert_int_equal(modules_loaded(&hr, "../module"), -EINVAL);
	assert_int_equal(modules_loaded(&hr, ""), -EINVAL);
	assert_int_equal(modules_loaded(&hr, ".."), -EINVAL);
	hostroot_close(&hr);
}

static void test_loaded_sys_module_only(void **state)
{
	struct hostroot hr = open_root("a-pvm-host"); /* no proc/modules */
	assert_int_equal(modules_loaded(&hr, "kvm_pvm"), 1);
	assert_int_equal(modules_loaded(&hr, "kvm"), 1);
	assert_int_equal(modules_loaded(&hr, "kvm_intel"), 0);
	assert_int_equal(modules_loaded(&hr, "nfs"), 0);
	hostroot_close(&hr);

	/* Neither source: cannot tell. */
	char *root = scratch_dir();
	hf_hostroot(&hr, root);
	assert_int_equal(modules_loaded(&hr, "nfs"), -ENOENT);
	struct strv found = {0};
	static const char *const pats[] = {"kvm*", NULL};
	assert_int_equal(modules_find(&hr, pats, &found), -ENOENT);
	assert_int_equal(found.n, 0);
	hostroot_close(&hr);
	scratch_remove(root);
}

static void test_find_patterns(void **state)
{
	struct hostroot hr = open_root("a-debian-intel");
	static const char *const nfs[] = {"nfs", "nfsv4", "nfsv3", NULL};
	struct strv found = {0};
	int src = modules_find(&hr, nfs, &found);
	assert_int_equal(src, MODULES_SRC_PROC | MODULES_SRC_SYS);
	assert_int_equal(found.n, 2);
	assert_string_equal(found.items[0], "nfs");
	assert_string_equal(found.items[1], "nfsv4");
	strv_clear(&found);
	static const char *const kvm[] = {"kvm", "kvm-*", NULL}; /* '-' in patterns too */
	assert_true(modules_find(&hr, kvm, &found) > 0);
	assert_int_equal(found.n, 2);
	assert_string_equal(found.items[0], "kvm");
	assert_string_equal(found.items[1], "kvm_intel");
	strv_clear(&found);
	hostroot_close(&hr);

	/* Garbage proc/modules: bad lines are skipped, no crash. */
	hr = open_root("a-garbage");
	static const char *const all[] = {"*", NULL};
	assert_int_equal(modules_find(&hr, all, &found), MODULES_SRC_PROC);
	assert_int_equal(found.n, 0);
	strv_clear(&found);
	assert_int_equal(modules_loaded(&hr, "garbage"), 0);
	hostroot_close(&hr);
}

static void test_builtin_and_loadable(void **state)
{
	struct hostroot hr = open_root("a-debian-intel");
	const char *rel = "6.1.0-18-amd64";
	assert_int_equal(modules_builtin(&hr, rel, "ext4"), 1);
	assert_int_equal(modules_builtin(&hr, rel, "nfs"), 0);
	assert_int_equal(modules_loadable(&hr, rel, "nfsv4"), 1);
	assert_int_equal(modules_loadable(&hr, rel, "kvm_amd"), 1);
	assert_int_equal(modules_loadable(&hr, rel, "kvm-intel"), 1);
	assert_int_equal(modules_loadable(&hr, rel, "nfsv4_2"), 0);
	/* Only the module before ':' counts, not its dependencies. */
	assert_int_equal(modules_loadable(&hr, rel, "fscache"), 0);
	assert_int_equal(modules_loadable(&hr, "9.9.9", "nfs"), -ENOENT);
	assert_int_equal(modules_loadable(&hr, "../..", "nfs"), -EINVAL);
	char *dir = NULL;
	expect_modules_dir(&hr, rel, "lib/modules/6.1.0-18-amd64");
	hostroot_close(&hr);

	/* Merged /usr (SLE Micro), compressed modules (.ko.zst). */
	hr = open_root("a-slemicro-amd");
	rel = "5.14.21-150500.55.65-default";
	assert_int_equal(modules_loadable(&hr, rel, "nfsv4"), 1);
	assert_int_equal(modules_loadable(&hr, rel, "kvm_amd"), 1);
	assert_int_equal(modules_builtin(&hr, rel, "btrfs"), 1);
	expect_modules_dir(&hr, rel, "usr/lib/modules/5.14.21-150500.55.65-default");
	hostroot_close(&hr);

	/* .ko.xz (RHEL) */
	hr = open_root("a-rhel-small");
	assert_int_equal(modules_loadable(&hr, "5.14.0-362.24.1.el9_3.x86_64", "nfsv4"), 1);
	hostroot_close(&hr);

	/* No lib/modules at all (this machine's kind). */
	hr = open_root("a-pvm-host");
	char *rel2 = NULL;
	assert_int_equal(modules_kernel_release(&hr, &rel2), 0);
	assert_int_equal(modules_builtin(&hr, rel2, "nfs"), -ENOENT);
	assert_int_equal(modules_loadable(&hr, rel2, "nfs"), -ENOENT);
	assert_int_equal(modules_dir(&hr, rel2, &dir), -ENOENT);
	free(rel2);
	hostroot_close(&hr);
}

static void test_line_parsers(void **state)
{
	char name[64];
	static const char live[] = "kvm_intel 487424 0 - Live 0x0000000000000000";
	assert_true(modules_parse_proc_line(live, strlen(live), name, sizeof(name)));
	assert_string_equal(name, "kvm_intel");
	static const char old[] = "nfs 442368 2 nfsv4"; /* no state column */
	assert_true(modules_parse_proc_line(old, strlen(old), name, sizeof(name)));
	static const char unl[] = "dm_multipath 45056 0 - Unloading 0x0";
	assert_false(modules_parse_proc_line(unl, strlen(unl), name, sizeof(name)));
	assert_false(modules_parse_proc_line("", 0, name, sizeof(name)));
	assert_false(modules_parse_proc_line("onlyname", 8, name, sizeof(name)));
	char longname[200];
	memset(longname, 'a', sizeof(longname));
	memcpy(longname + 150, " 1 2 - Live", 11);
	assert_false(modules_parse_proc_line(longname, 161, name, sizeof(name)));

	static const char dep[] = "kernel/fs/nfs/nfsv4.ko.zst: kernel/fs/nfs/nfs.ko.zst";
	assert_true(modules_parse_path_line(dep, strlen(dep), name, sizeof(name)));
	assert_string_equal(name, "nfsv4");
	static const char dash[] = "kernel/arch/x86/kvm/kvm-intel.ko.xz:";
	assert_true(modules_parse_path_line(dash, strlen(dash), name, sizeof(name)));
	assert_string_equal(name, "kvm_intel");
	static const char builtin[] = "kernel/fs/ext4/ext4.ko";
	assert_true(modules_parse_path_line(builtin, strlen(builtin), name, sizeof(name)));
	assert_string_equal(name, "ext4");
	assert_false(modules_parse_path_line("kernel/fs/readme.txt", 20, name, sizeof(name)));
	assert_false(modules_parse_path_line(".ko", 3, name, sizeof(name)));
	assert_false(modules_parse_path_line("", 0, name, sizeof(name)));
}

static void test_kconfig_files(void **state)
{
	struct hostroot hr = open_root("a-debian-intel");
	const char *rel = "6.1.0-18-amd64";
	char *v = NULL;
	expect_kconfig(&hr, rel, "CONFIG_NFS_V4_1", "y");
	expect_kconfig(&hr, rel, "CONFIG_NFS_V4", "m");
	/* A prefix of another option is a different option. */
	assert_int_equal(kconfig_value(&hr, rel, "CONFIG_NFS_V", &v), 0);
	assert_int_equal(kconfig_value(&hr, rel, "CONFIG_KVM_XEN", &v), 0);
	assert_int_equal(kconfig_value(&hr, rel, "CONFIG_NOT_THERE", &v), 0);
	expect_kconfig(&hr, rel, "CONFIG_DEFAULT_HOSTNAME", "(none)");
	assert_int_equal(kconfig_value(&hr, rel, "NFS_V4_1", &v), -EINVAL);
	assert_int_equal(kconfig_value(&hr, "1.2.3", "CONFIG_NFS_V4_1", &v), -ENOENT);
	expect_kconfig_source(&hr, rel, "boot/config-6.1.0-18-amd64");
	hostroot_close(&hr);

	hr = open_root("a-slemicro-amd");
	rel = "5.14.21-150500.55.65-default";
	expect_kconfig(&hr, rel, "CONFIG_NFS_V4_2", "y");
	expect_kconfig_source(&hr, rel, "usr/lib/modules/5.14.21-150500.55.65-default/config");
	hostroot_close(&hr);
}

static void write_gz(const char *root, const char *rel, const char *content, size_t cut)
{
	char *path = xasprintf("%s/%s", root, rel);
	gzFile gz = gzopen(path, "wb");
	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, content, (unsigned)strlen(content)), (int)strlen(content));
	assert_int_equal(gzclose(gz), Z_OK);
	if (cut) {
		/* Keep the header and part of the stream: a truncated download. */
		assert_int_equal(truncate(path, (off_t)cut), 0);
	}
	free(path);
}

static void test_kconfig_proc_config_gz(void **state)
{
	char *root = scratch_dir();
	scratch_put(root, "proc/sys/kernel/osrelease", "6.8.0-45-generic\n", 17);
	/* A long config so that a truncated copy ends inside the stream. */
	char *full = NULL;
	size_t flen = 0;
	FILE *m = open_memstream(&full, &flen);
	assert_non_null(m);
	fputs("# Linux/x86 6.8.0 Kernel Configuration\n", m);
	for (int i = 0; i < 4000; i++)
		fprintf(m, "CONFIG_FILLER_%d=%c\n", i, "ymn"[i % 3]);
	fputs("CONFIG_NFS_V4_1=y\n# CONFIG_NFS_V4_2 is not set\n", m);
	assert_int_equal(fclose(m), 0);
	write_gz(root, "proc/config.gz", full, 0);
	struct hostroot hr;
	hf_hostroot(&hr, root);
	char *v = NULL;
	expect_kconfig(&hr, "6.8.0-45-generic", "CONFIG_NFS_V4_1", "y");
	assert_int_equal(kconfig_value(&hr, "6.8.0-45-generic", "CONFIG_NFS_V4_2", &v), 0);
	expect_kconfig_source(&hr, "6.8.0-45-generic", "proc/config.gz");
	/* config.gz describes the running kernel only, not another release. */
	assert_int_equal(kconfig_value(&hr, "6.5.0-1-generic", "CONFIG_NFS_V4_1", &v), -ENOENT);

	/* Truncated: an error, not "is not set". */
	write_gz(root, "proc/config.gz", full, 2000);
	assert_int_equal(kconfig_value(&hr, "6.8.0-45-generic", "CONFIG_NFS_V4_1", &v), -EBADMSG);
	hostroot_close(&hr);
	free(full);
	scratch_remove(root);
}

static void test_kernel_release(void **state)
{
	struct hostroot hr = open_root("a-rhel-small");
	char *rel = NULL;
	assert_int_equal(modules_kernel_release(&hr, &rel), 0);
	assert_string_equal(rel, "5.14.0-362.24.1.el9_3.x86_64");
	free(rel);
	hostroot_close(&hr);
	hr = open_root("a-garbage"); /* "../../etc" */
	assert_int_equal(modules_kernel_release(&hr, &rel), -EBADMSG);
	hostroot_close(&hr);
}

/* gzip of text[0, n) in memory (one member), into buf; its length. */
static size_t gz_member(const char *text, size_t n, unsigned char *buf, size_t cap)
{
	z_stream z = {0};
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
			 Z_OK);
	z.next_in = (Bytef *)(uintptr_t)text;
	z.avail_in = (uInt)n;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t len = cap - z.avail_out;
	deflateEnd(&z);
	return len;
}

/* modules_gunzip: one whole member, its size limit, and what is not one. */
static void test_gunzip(void **state)
{
	(void)state;
	size_t n = 300000;
	char *text = malloc(n);
	for (size_t i = 0; i < n; i++)
		text[i] = (char)('a' + (i * 7 + i / 13) % 26);
	size_t cap = n + 1024;
	unsigned char *gz = malloc(2 * cap);
	size_t len = gz_member(text, n, gz, cap);
	char *out = NULL;
	size_t olen = 0, rest = 99;

	assert_int_equal(modules_gunzip((char *)gz, len, n, &out, &olen, &rest), 0);
	assert_int_equal(olen, n);
	assert_int_equal(rest, 0);
	assert_memory_equal(out, text, n);
	assert_int_equal(out[n], '\0');
	free(out);
	/* One byte over the limit. */
	assert_int_equal(modules_gunzip((char *)gz, len, n - 1, &out, &olen, NULL), -EFBIG);
	/* Cut short (the "trailer" is then other bytes: an error, which one
	 * depends on them), and a wrong CRC-32 or length in the trailer. */
	assert_true(modules_gunzip((char *)gz, len - 1, n, &out, &olen, NULL) < 0);
	assert_true(modules_gunzip((char *)gz, len / 2, n, &out, &olen, NULL) < 0);
	assert_int_equal(modules_gunzip((char *)gz, 10, n, &out, &olen, NULL), -EINVAL);
	gz[len - 8] ^= 1;
	assert_int_equal(modules_gunzip((char *)gz, len, n, &out, &olen, NULL), -EINVAL);
	gz[len - 8] ^= 1;
	gz[len - 4] ^= 1;
	assert_int_equal(modules_gunzip((char *)gz, len, n, &out, &olen, NULL), -EINVAL);
	gz[len - 4] ^= 1;
	/* A second member after the first: the first, and how much follows. */
	size_t len2 = gz_member("second\n", 7, gz + len, cap);
	assert_int_equal(modules_gunzip((char *)gz, len + len2, n, &out, &olen, &rest), 0);
	assert_int_equal(olen, n);
	assert_int_equal(rest, len2);
	free(out);
	/* Not gzip at all. */
	assert_int_equal(modules_gunzip(text, 4096, n, &out, &olen, NULL), -EINVAL);
	free(gz);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loaded_exact_names),
	    cmocka_unit_test(test_loaded_sys_module_only),
	    cmocka_unit_test(test_find_patterns),
	    cmocka_unit_test(test_builtin_and_loadable),
	    cmocka_unit_test(test_line_parsers),
	    cmocka_unit_test(test_kconfig_files),
	    cmocka_unit_test(test_kconfig_proc_config_gz),
	    cmocka_unit_test(test_kernel_release),
	    cmocka_unit_test(test_gunzip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
