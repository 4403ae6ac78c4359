/* host.nfs.client and host.nfs.kernel on fixture host roots of real distributions,
 * and on scratch roots for the edge cases. */
#include "hostroot_fixture.h"

#define CLIENT "host.nfs.client"
#define KERNEL "host.nfs.kernel"

static const struct finding *client(struct hostroot_fixture *b)
{
	return hf_run(b, check_nfs_client, CLIENT);
}

static const struct finding *kernel(struct hostroot_fixture *b)
{
	return hf_run(b, check_nfs_kernel, KERNEL);
}

static bool list_has(const struct finding *f, const char *key, const char *s)
{
	const struct value_list *l = kv_get_list(&f->evidence, key);
	for (size_t i = 0; l && i < l->n; i++)
		if (l->items[i].type == VALUE_STR && streq(l->items[i].s, s))
			return true;
	return false;
}

/* ---- host.nfs.client ------------------------------------------------------------- */

static void test_client_debian12_sbin_symlink(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12");
	const struct finding *f = client(&b);
	assert_verdict(f, STATUS_PASS);
	/* /sbin -> usr/sbin resolves inside the root; the file is reported once. */
	assert_true(list_has(f, "helpers", "/sbin/mount.nfs"));
	assert_false(list_has(f, "helpers", "/usr/sbin/mount.nfs"));
	assert_evidence(f, "package", "nfs-common");
	hf_close(&b);
}

static void test_client_pass_on_suse_and_rhel(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-slemicro55-harvester");
	const struct finding *f = client(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "package", "nfs-client");
	hf_close(&b);
	hf_open(&b, "b-rhel9");
	f = client(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "package", "nfs-utils");
	hf_close(&b);
}

static void test_client_ubuntu_without_nfs_common(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-ubuntu2204-nonfs");
	const struct finding *f = client(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "no NFS client");
	assert_contains(f->message, "/usr/local/sbin");
	assert_contains(f->remediation, "apt-get install -y nfs-common");
	assert_evidence(f, "os_family", "debian");
	assert_evidence_contains(f, "searched", "/usr/sbin");
	hf_close(&b);
}

static void test_client_fail_remediation_per_family(void **state)
{
	static const struct {
		const char *os_release, *cmd;
	} cases[] = {
	    {"NAME=\"SLE Micro\"\nVERSION_ID=\"5.5\"\nID=\"sle-micro\"\nID_LIKE=\"suse\"\n",
	     "transactional-update pkg install nfs-client"},
	    {"NAME=\"SLES\"\nVERSION_ID=\"15.5\"\nID=\"sles\"\nID_LIKE=\"suse\"\n",
	     "zypper install -y nfs-client"},
	    {"NAME=\"Rocky Linux\"\nID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n",
	     "dnf install -y nfs-utils"},
	    {"NAME=\"Amazon Linux\"\nID=\"amzn\"\nID_LIKE=\"centos rhel fedora\"\n",
	     "dnf install -y nfs-utils"},
	    {"ID=plan9\n", "nfs-common (Debian/Ubuntu), nfs-client (SUSE), nfs-utils"},
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct hostroot_fixture b;
		hf_scratch(&b);
		hf_write(&b, "etc/os-release", cases[i].os_release);
		hf_mkdir(&b, "usr/sbin");
		const struct finding *f = client(&b);
		assert_verdict(f, STATUS_FAIL);
		assert_contains(f->remediation, cases[i].cmd);
		hf_close(&b);
	}
}

static void test_client_warn_outside_mount_search_path(void **state)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "etc/os-release", "ID=debian\n");
	hf_mkdir(&b, "sbin");
	hf_exe(&b, "usr/local/sbin/mount.nfs");
	const struct finding *f = client(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "/usr/local/sbin/mount.nfs");
	assert_contains(f->remediation, "link /usr/local/sbin/mount.nfs into /sbin");
	hf_close(&b);
}

static void test_client_warn_only_mount_nfs4(void **state)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_exe(&b, "sbin/mount.nfs4");
	const struct finding *f = client(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "needs mount.nfs");
	hf_close(&b);
}

static void test_client_not_executable_and_dangling(void **state)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "sbin/mount.nfs", "not a program\n");
	hf_symlink(&b, "sbin/mount.nfs4", "/usr/sbin/gone");
	const struct finding *f = client(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "/sbin/mount.nfs exists but is not an executable file");
	assert_true(list_has(f, "not_executable", "/sbin/mount.nfs"));
	hf_close(&b);
}

static void test_client_unknown_on_symlink_loop(void **state)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_symlink(&b, "sbin/mount.nfs", "mount.nfs");
	const struct finding *f = client(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "/sbin/mount.nfs");
	hf_close(&b);
}

/* ---- host.nfs.kernel ------------------------------------------------------------- */

static void test_kernel_loaded_on_real_distros(void **state)
{
	static const char *const roots[] = {"b-debian12", "b-rhel9", "b-slemicro55-harvester"};
	for (size_t i = 0; i < ELEMENTSOF(roots); i++) {
		struct hostroot_fixture b;
		hf_open(&b, roots[i]);
		const struct finding *f = kernel(&b);
		assert_verdict(f, STATUS_PASS);
		assert_contains(f->message, "nfs, nfsv4 loaded (/proc/modules)");
		assert_contains(f->message, "nfs4 in /proc/filesystems");
		assert_evidence(f, "proc_modules", "nfs, nfsv4");
		hf_close(&b);
	}
}

static void test_kernel_evidence_sources(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-rhel9");
	const struct finding *f = kernel(&b);
	assert_evidence(f, "kernel_release", "5.14.0-362.8.1.el9_3.x86_64");
	assert_evidence(f, "modules_dep", "kernel/fs/nfs/nfsv4.ko.xz");
	/* /lib -> usr/lib resolves inside the root. */
	assert_evidence(f, "modules_dir", "/lib/modules/5.14.0-362.8.1.el9_3.x86_64");
	const struct value *cfg = kv_get(&f->evidence, "kernel_config");
	assert_non_null(cfg);
	assert_int_equal(cfg->type, VALUE_MAP);
	/* RHEL ships the config in the modules directory as well as /boot. */
	assert_contains(kv_get_str(&cfg->map, "file"), "/config");
	assert_string_equal(kv_get_str(&cfg->map, "CONFIG_NFS_V4"), "m");
	assert_string_equal(kv_get_str(&cfg->map, "CONFIG_NFS_V4_1"), "y");
	hf_close(&b);
}

/* Installed, not loaded: the normal state of a fresh Debian/Ubuntu/RHEL node,
 * where the first mount loads it (request_module("fs-nfs4")). A PASS with the
 * fact in the evidence (it was a WARN on every such node), unless module
 * loading is off: modules_disabled (FAIL), an install rule that runs
 * /bin/false or /bin/true instead (FAIL), a blacklist of the alias (WARN). */
static void test_kernel_loadable_not_loaded(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-ubuntu2204-nonfs");
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "kernel/fs/nfs/nfsv4.ko in modules.dep");
	assert_contains(f->message, "not loaded yet");
	assert_contains(f->message, "the first NFS mount loads it");
	assert_evidence(f, "proc_modules", "neither nfs nor nfsv4 loaded");
	assert_evidence_contains(f, "module_loading", "allowed");
	hf_close(&b);

	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_write(&b, "proc/sys/kernel/modules_disabled", "1\n");
	f = kernel(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "modules_disabled = 1");
	assert_evidence_contains(f, "module_loading", "disabled");
	hf_close(&b);

	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_write(&b, "etc/modprobe.d/cis.conf",
		 "# CIS 1.1.1\ninstall cramfs /bin/true\ninstall nfsv4 /bin/false\n");
	f = kernel(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "install nfsv4 /bin/false (/etc/modprobe.d/cis.conf:3)");
	assert_contains(f->remediation, "Remove that line");
	hf_close(&b);

	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_write(&b, "usr/lib/modprobe.d/nfs.conf", "blacklist nfsv4\n");
	f = kernel(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message,
			"blacklisted (blacklist nfsv4 (/usr/lib/modprobe.d/nfs.conf:1))");
	assert_contains(f->remediation, "modules-load.d");
	hf_close(&b);

	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_write(&b, "proc/cmdline", "BOOT_IMAGE=/vmlinuz ro module_blacklist=floppy,nfs\n");
	f = kernel(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "module_blacklist=floppy,nfs (/proc/cmdline)");
	hf_close(&b);
}

static void test_kernel_without_modules_builtin_nfs(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-nomod-nfs");
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "built in");
	assert_evidence_contains(f, "proc_modules", "no loadable module support");
	hf_close(&b);
}

static void test_kernel_without_modules_or_nfs_fails(void **state)
{
	/* Like the CI machine: no /proc/modules, no /lib/modules, config in /proc/config.gz. */
	struct hostroot_fixture b;
	hf_open(&b, "b-nomod-nonfs");
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "configured without an NFSv4 client");
	const struct value *cfg = kv_get(&f->evidence, "kernel_config");
	assert_non_null(cfg);
	assert_string_equal(kv_get_str(&cfg->map, "file"), "/proc/config.gz");
	assert_string_equal(kv_get_str(&cfg->map, "CONFIG_MODULES"), "not set");
	assert_string_equal(kv_get_str(&cfg->map, "CONFIG_NFS_FS"), "absent");
	hf_close(&b);

	/* Without the config, /proc/filesystems and the missing module support decide. */
	hf_scratch_from(&b, "b-nomod-nonfs");
	hf_remove(&b, "proc/config.gz");
	f = kernel(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "cannot load modules");
	assert_evidence_contains(f, "kernel_config", "absent");
	hf_close(&b);
}

/* A host with the NFS server and nfs_acl but no NFS client: names match exactly. */
static void test_kernel_exact_names(void **state)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
	hf_write(&b, "proc/modules",
		 "nfsd 856064 13 - Live 0x0000000000000000\n"
		 "nfs_acl 16384 1 nfsd, Live 0x0000000000000000\n"
		 "nfs_ssc 16384 1 nfsd, Live 0x0000000000000000\n"
		 "sunrpc 708608 18 nfsd,nfs_acl, Live 0x0000000000000000\n");
	hf_write(&b, "proc/filesystems", "nodev\tsysfs\n\text4\nnodev\tnfsd\nnodev\trpc_pipefs\n");
	hf_write(&b, "sys/module/nfsd/initstate", "live\n");
	hf_write(&b, "sys/module/nfs_acl/initstate", "live\n");
	hf_write(&b, "lib/modules/6.1.0-18-amd64/modules.builtin", "kernel/fs/fat/vfat.ko\n");
	hf_write(
	    &b, "lib/modules/6.1.0-18-amd64/modules.dep",
	    "kernel/fs/nfsd/nfsd.ko: kernel/fs/nfs_common/nfs_acl.ko kernel/net/sunrpc/sunrpc.ko\n"
	    "kernel/fs/nfs_common/nfs_acl.ko: kernel/net/sunrpc/sunrpc.ko\n"
	    "kernel/fs/nfs_common/nfs_ssc.ko:\n"
	    "kernel/fs/nfsv4x/helper.ko:\n");
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "not loaded, not built in, and not in modules.dep");
	assert_evidence(f, "proc_modules", "neither nfs nor nfsv4 loaded");
	assert_evidence(f, "sys_module", "neither nfs nor nfsv4");
	hf_close(&b);
}

static void test_kernel_module_name_suffixes(void **state)
{
	static const char *const deps[] = {
	    "kernel/fs/nfs/nfsv4.ko.zst: kernel/fs/nfs/nfs.ko.zst\n",
	    "kernel/fs/nfs/nfsv4.ko.gz: kernel/fs/nfs/nfs.ko.gz\n",
	    "updates/dkms/nfs.ko:\n",
	};
	for (size_t i = 0; i < ELEMENTSOF(deps); i++) {
		struct hostroot_fixture b;
		hf_scratch(&b);
		hf_write(&b, "proc/sys/kernel/osrelease", "5.14.21-150500.55.83-default\n");
		hf_write(&b, "proc/modules", "ext4 1011712 2 - Live 0x0000000000000000\n");
		hf_write(&b, "proc/filesystems", "\text4\n");
		hf_write(&b, "lib/modules/5.14.21-150500.55.83-default/modules.builtin", "");
		hf_write(&b, "lib/modules/5.14.21-150500.55.83-default/modules.dep", deps[i]);
		const struct finding *f = kernel(&b);
		assert_verdict(f, STATUS_PASS);
		hf_close(&b);
	}
}

static void test_kernel_nfs_without_v4_fails(void **state)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "proc/sys/kernel/osrelease", "6.6.30-custom\n");
	hf_write(&b, "proc/modules", "nfs 446464 0 - Live 0x0000000000000000\n");
	hf_write(&b, "proc/filesystems", "\text4\nnodev\tnfs\n");
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "without NFSv4");
	hf_close(&b);
}

static void test_kernel_without_v41_fails(void **state)
{
	struct hostroot_fixture b;
	hf_scratch_from(&b, "b-debian12");
	hf_write(
	    &b, "boot/config-6.1.0-18-amd64",
	    "CONFIG_MODULES=y\nCONFIG_NFS_FS=m\nCONFIG_NFS_V4=m\n# CONFIG_NFS_V4_1 is not set\n");
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "no NFSv4.1");
	assert_contains(f->message, "# CONFIG_NFS_V4_1 is not set");
	hf_close(&b);
}

static void test_kernel_builtin_from_modules_builtin(void **state)
{
	/* /proc/filesystems unreadable (a directory here): the modules directory decides. */
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "proc/sys/kernel/osrelease", "6.8.0-31-generic\n");
	hf_write(&b, "proc/modules", "ext4 1011712 2 - Live 0x0000000000000000\n");
	hf_mkdir(&b, "proc/filesystems");
	hf_write(&b, "usr/lib/modules/6.8.0-31-generic/modules.builtin",
		 "kernel/fs/nfs/nfs.ko\nkernel/fs/nfs/nfsv4.ko\nkernel/fs/lockd/lockd.ko\n");
	hf_write(&b, "usr/lib/modules/6.8.0-31-generic/modules.dep", "");
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "modules.builtin: kernel/fs/nfs/nfsv4.ko");
	assert_evidence_contains(f, "proc_filesystems", "unreadable");
	assert_evidence_contains(f, "proc_filesystems", "proc/filesystems");
	hf_close(&b);
}

static void test_kernel_known_regression_warns(void **state)
{
	struct hostroot_fixture b;
	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_write(&b, "proc/sys/kernel/osrelease", "5.15.0-94-generic\n");
	hf_write(&b, "proc/modules",
		 "nfsv4 1105920 0 - Live 0x0000000000000000\n"
		 "nfs 557056 1 nfsv4, Live 0x0000000000000000\n");
	hf_write(&b, "proc/filesystems", "\text4\nnodev\tnfs\nnodev\tnfs4\n");
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "Protocol not supported");
	hf_close(&b);
}

static void test_kernel_unknown_when_nothing_readable(void **state)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "could not read any kernel evidence");
	assert_evidence_contains(f, "kernel_release", "proc/sys/kernel/osrelease");
	hf_close(&b);
}

static void test_kernel_unknown_when_module_list_unreadable(void **state)
{
	struct hostroot_fixture b;
	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_remove(&b, "usr/lib/modules/5.15.0-91-generic/modules.dep");
	hf_mkdir(&b, "usr/lib/modules/5.15.0-91-generic/modules.dep");
	hf_remove(&b, "boot");
	const struct finding *f = kernel(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "modules.dep");
	assert_evidence_contains(f, "modules_dep", "unreadable");
	hf_close(&b);
}

static void test_kernel_garbage_inputs(void **state)
{
	static const uint8_t junk[] = {0x7f, 'E', 'L', 'F', 0, 1, 2, 0xff, '\n', 0};
	struct hostroot_fixture b;
	hf_scratch_from(&b, "b-debian12");
	hf_write_mode(&b, "proc/modules", junk, sizeof(junk), 0644);
	hf_write(&b, "boot/config-6.1.0-18-amd64", "this is not a kernel config\n");
	hf_write_mode(&b, "usr/lib/modules/6.1.0-18-amd64/modules.builtin", junk, sizeof(junk),
		      0644);
	const struct finding *f = kernel(&b);
	/* /proc/filesystems and /sys/module still show the loaded client. */
	assert_verdict(f, STATUS_PASS);
	assert_evidence_contains(f, "proc_modules", "not in the expected format");
	assert_evidence_contains(f, "proc_modules", "proc/modules");
	assert_evidence_contains(f, "kernel_config", "not a kernel configuration");
	assert_evidence_contains(f, "modules_builtin", "unreadable");
	hf_close(&b);

	/* A kernel release that would walk out of /lib/modules is not used as a path. */
	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_write(&b, "proc/sys/kernel/osrelease", "../../../etc\n");
	f = kernel(&b);
	assert_evidence_contains(f, "kernel_release", "not in the expected format");
	assert_evidence_contains(f, "modules_dir", "unknown");
	assert_verdict(f, STATUS_UNKNOWN);
	hf_close(&b);

	/* A corrupt /proc/config.gz. */
	hf_scratch_from(&b, "b-nomod-nonfs");
	hf_write(&b, "proc/config.gz", "\x1f\x8b\x08\x00garbage");
	f = kernel(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_evidence_contains(f, "kernel_config", "/proc/config.gz");
	hf_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_client_debian12_sbin_symlink),
	    cmocka_unit_test(test_client_pass_on_suse_and_rhel),
	    cmocka_unit_test(test_client_ubuntu_without_nfs_common),
	    cmocka_unit_test(test_client_fail_remediation_per_family),
	    cmocka_unit_test(test_client_warn_outside_mount_search_path),
	    cmocka_unit_test(test_client_warn_only_mount_nfs4),
	    cmocka_unit_test(test_client_not_executable_and_dangling),
	    cmocka_unit_test(test_client_unknown_on_symlink_loop),
	    cmocka_unit_test(test_kernel_loaded_on_real_distros),
	    cmocka_unit_test(test_kernel_evidence_sources),
	    cmocka_unit_test(test_kernel_loadable_not_loaded),
	    cmocka_unit_test(test_kernel_without_modules_builtin_nfs),
	    cmocka_unit_test(test_kernel_without_modules_or_nfs_fails),
	    cmocka_unit_test(test_kernel_exact_names),
	    cmocka_unit_test(test_kernel_module_name_suffixes),
	    cmocka_unit_test(test_kernel_nfs_without_v4_fails),
	    cmocka_unit_test(test_kernel_without_v41_fails),
	    cmocka_unit_test(test_kernel_builtin_from_modules_builtin),
	    cmocka_unit_test(test_kernel_known_regression_warns),
	    cmocka_unit_test(test_kernel_unknown_when_nothing_readable),
	    cmocka_unit_test(test_kernel_unknown_when_module_list_unreadable),
	    cmocka_unit_test(test_kernel_garbage_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
