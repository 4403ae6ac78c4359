// wrap: sys_fs_statvfs sys_fs_access sys_clock_adjtimex sys_kvm_probe
/* Every host check on host roots built from real Debian packages with
 * mmdebstrap (tests/fixtures/hostroots/d-*-real, see their README.md): the
 * files the checks read are the ones the packages installed, and /proc and
 * /sys are synthesised as that kernel shows them on a booted node. The
 * seams that ask the live kernel (free space, the clock, /dev/kvm) are
 * replaced, so each finding is decided by the files alone. */
#include "hostroot_fixture.h"
#include "sys_clock.h"
#include "sys_fs.h"
#include "kvm_wrap.h"

#include <sys/timex.h>

int __wrap_sys_fs_statvfs(const struct hostroot *hr, const char *path, struct statvfs *ret);
int __wrap_sys_fs_access(const struct hostroot *hr, const char *path, int mode);
int __wrap_sys_clock_adjtimex(struct timex *tx);

/* A 250 GiB root filesystem, 40 % free, writable. */
int __wrap_sys_fs_statvfs(const struct hostroot *hr, const char *path, struct statvfs *ret)
{
	(void)hr;
	assert_string_equal(path, "/var/lib");
	*ret = (struct statvfs){.f_bsize = 4096,
				.f_frsize = 4096,
				.f_blocks = 250u * 262144u,
				.f_bavail = 100u * 262144u,
				.f_bfree = 100u * 262144u};
	return 0;
}

int __wrap_sys_fs_access(const struct hostroot *hr, const char *path, int mode)
{
	(void)hr;
	(void)path;
	(void)mode;
	return 0;
}

/* As chronyd or systemd-timesyncd leave a synchronised clock. */
int __wrap_sys_clock_adjtimex(struct timex *tx)
{
	*tx = (struct timex){.status = STA_PLL, .offset = -12, .maxerror = 3000, .esterror = 250};
	return TIME_OK;
}

/* Run every host check that reads the host root (not the NETWORK rows of
 * common/checks.def), in the agent's order. */
static void run_all(struct hostroot_fixture *b)
{
	for (size_t i = 0; i < host_checks_len; i++) {
		const char *id = host_checks[i].id;
		if (agent_network_check(id))
			continue;
		hf_run(b, host_checks[i].run, id);
	}
}

static const struct finding *get(const struct hostroot_fixture *b, const char *id)
{
	for (size_t i = 0; i < b->report.results.n; i++)
		if (streq(b->report.results.items[i].check, id))
			return &b->report.results.items[i];
	fail_msg("no finding of %s", id);
	return NULL;
}

static const char *list_item(const struct finding *f, const char *key, size_t i)
{
	const struct value_list *l = kv_get_list(&f->evidence, key);
	if (!l)
		fail_msg("%s: no list evidence \"%s\"", f->check, key);
	if (i >= l->n)
		fail_msg("%s: \"%s\" has %zu items, wanted item %zu", f->check, key, l->n, i);
	assert_int_equal(l->items[i].type, VALUE_STR);
	return l->items[i].s;
}

static size_t list_len(const struct finding *f, const char *key)
{
	const struct value_list *l = kv_get_list(&f->evidence, key);
	if (!l)
		fail_msg("%s: no list evidence \"%s\"", f->check, key);
	return l->n;
}

static const char *map_str(const struct finding *f, const char *map, const char *key)
{
	const struct value *v = kv_get(&f->evidence, map);
	if (!v || v->type != VALUE_MAP)
		fail_msg("%s: no map evidence \"%s\"", f->check, map);
	const char *s = kv_get_str(&v->map, key);
	if (!s)
		fail_msg("%s: no \"%s\" in \"%s\"", f->check, key, map);
	return s;
}

/* What the synthesised kernel files decide, the same on every root: KVM on a
 * VT-x CPU, 16 CPUs and 32 GiB, and the root filesystem as Longhorn's disk. */
static void assert_platform(const struct hostroot_fixture *b)
{
	const struct finding *f = get(b, "host.kvm");
	assert_status(f, STATUS_PASS);
	assert_string_equal(list_item(f, "kvm_modules", 0), "kvm");
	assert_string_equal(list_item(f, "kvm_modules", 1), "kvm_intel");

	f = get(b, "host.cpu.virt");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "virt_flag", "vmx");

	f = get(b, "host.resources");
	assert_status(f, STATUS_PASS);
	int64_t cpus;
	assert_true(kv_get_int(&f->evidence, "cpus", &cpus));
	assert_int_equal(cpus, 16);

	/* No separate disk: /var/lib/longhorn would be on the root filesystem. */
	f = get(b, "host.longhorn.path");
	assert_status(f, STATUS_WARN);
	assert_evidence(f, "judged_path", "/var/lib");
	assert_evidence(f, "mount_point", "/");
	assert_evidence(f, "fs_type", "ext4");
}

/* What Debian 12 and 13 have in common: the same package set, the same
 * enablement links (iscsid.socket, multipathd.service, chrony, containerd). */
static void assert_debian_common(const struct hostroot_fixture *b)
{
	assert_platform(b);
	const struct finding *f = get(b, "host.nfs.client");
	assert_status(f, STATUS_PASS);
	assert_string_equal(list_item(f, "helpers", 0), "/sbin/mount.nfs");
	assert_evidence(f, "package", "nfs-common");

	/* Debian builds the NFS client as modules that load at the first mount. */
	f = get(b, "host.nfs.kernel");
	assert_status(f, STATUS_PASS);
	assert_contains(f->message, "the first NFS mount loads it");
	assert_evidence(f, "proc_filesystems", "neither nfs nor nfs4 registered");
	assert_string_equal(map_str(f, "kernel_config", "CONFIG_NFS_V4"), "m");
	assert_string_equal(map_str(f, "kernel_config", "CONFIG_NFS_V4_1"), "y");

	/* open-iscsi's postinst writes a name; iscsid.socket is enabled. */
	f = get(b, "host.iscsi");
	assert_status(f, STATUS_PASS);
	assert_evidence_contains(f, "initiator_name", "iqn.1993-08.org.debian:01:");
	assert_evidence(f, "iscsid", "not running");
	assert_evidence(f, "iscsid_socket",
			"enabled (/etc/systemd/system/sockets.target.wants/iscsid.socket)");
	assert_evidence(f, "iscsi_tcp",
			"loadable (modules.dep): iscsid loads it at the first login");
	assert_evidence(f, "package", "open-iscsi");

	/* multipath-tools ships no multipath.conf: Longhorn's disks are not blacklisted. */
	f = get(b, "host.multipathd");
	assert_status(f, STATUS_WARN);
	assert_evidence(f, "multipathd", "running (pid 412)");
	assert_evidence(f, "multipathd_service",
			"enabled (/etc/systemd/system/sysinit.target.wants/multipathd.service)");
	assert_int_equal(list_len(f, "config_files"), 0);
	assert_contains(f->message, "there is no multipath.conf");

	/* Debian's containerd ships a version 2 config.toml without the option. */
	f = get(b, "host.containerd.device-ownership");
	assert_status(f, STATUS_FAIL);
	assert_evidence(f, "runtime", "containerd");
	assert_evidence(f, "containerd_config", "/etc/containerd/config.toml");
	assert_evidence(f, "cri_plugin_table", "plugins.\"io.containerd.grpc.v1.cri\"");
	assert_evidence(f, "device_ownership_from_security_context", "not set");
	assert_contains(f->remediation, "[plugins.\"io.containerd.grpc.v1.cri\"]");
}

static void test_debian12_real(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "d-debian12-real");
	run_all(&b);
	assert_debian_common(&b);

	const struct finding *f = get(&b, "host.clock");
	assert_status(f, STATUS_PASS);
	assert_contains(f->message, "by chronyd");
	assert_evidence(f, "chrony_rtcsync", "set (/etc/chrony/chrony.conf:38)");

	f = get(&b, "host.nfs.kernel");
	assert_evidence(f, "kernel_release", "6.1.0-50-amd64");
	assert_evidence(f, "modules_dep", "kernel/fs/nfs/nfsv4.ko");
	assert_string_equal(map_str(f, "kernel_config", "file"), "/boot/config-6.1.0-50-amd64");

	f = get(&b, "host.iscsi");
	assert_evidence(f, "iscsiadm", "/sbin/iscsiadm");
	assert_evidence(f, "initiator_name", "iqn.1993-08.org.debian:01:9e85462be362");
	assert_evidence(f, "iscsid_start_check",
			"/lib/open-iscsi/startup-checks.sh (ExecStartPre of "
			"/usr/lib/systemd/system/iscsid.service): a line matches "
			"^InitiatorName=[^ \\t\\n]");

	f = get(&b, "host.multipathd");
	assert_evidence(f, "multipathd_socket",
			"enabled (/etc/systemd/system/sockets.target.wants/multipathd.socket)");

	f = get(&b, "host.containerd.device-ownership");
	int64_t v;
	assert_true(kv_get_int(&f->evidence, "containerd_config_version", &v));
	assert_int_equal(v, 2);
	hf_close(&b);
}

static void test_debian13_real(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "d-debian13-real");
	run_all(&b);
	assert_debian_common(&b);

	const struct finding *f = get(&b, "host.clock");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "chrony_rtcsync", "set (/etc/chrony/chrony.conf:35)");

	/* Debian 13's kernel compresses its modules with xz. */
	f = get(&b, "host.nfs.kernel");
	assert_evidence(f, "kernel_release", "6.12.117+deb13-amd64");
	assert_evidence(f, "modules_dep", "kernel/fs/nfs/nfsv4.ko.xz");

	f = get(&b, "host.iscsi");
	assert_evidence(f, "initiator_name", "iqn.1993-08.org.debian:01:709b19ad4915");
	assert_evidence(f, "iscsid_start_check",
			"/usr/lib/open-iscsi/startup-checks.sh (ExecStartPre of "
			"/usr/lib/systemd/system/iscsid.service): a line matches "
			"^InitiatorName=[^ \\t\\n]");

	/* Debian 13's multipath-tools no longer enables multipathd.socket. */
	f = get(&b, "host.multipathd");
	assert_evidence(f, "multipathd_socket", "disabled");
	hf_close(&b);
}

/* Debian's iscsid.service starts iscsid only after its ExecStartPre,
 * /usr/lib/open-iscsi/startup-checks.sh, found a line matching the grep
 * pattern ^InitiatorName=[^ \t\n] (inside brackets \t and \n are the letters
 * t and n). iscsid itself would read "InitiatorName = iqn..." or a naa. name;
 * on Debian the daemon then never starts, and every Longhorn attach fails. */
static void test_iscsi_debian_startup_checks(void **state)
{
	(void)state;
	static const char *const refused[] = {
	    "InitiatorName = iqn.1993-08.org.debian:01:9e85462be362\n",
	    "  InitiatorName=iqn.1993-08.org.debian:01:9e85462be362\n",
	    "InitiatorName=naa.60014055f1c0b6e2\n",
	};
	/* Debian 12's unit names the script under /lib, Debian 13's under /usr/lib. */
	const char *roots[] = {"d-debian12-real", "d-debian13-real"};
	const char *scripts[] = {"/lib/open-iscsi/startup-checks.sh",
				 "/usr/lib/open-iscsi/startup-checks.sh"};
	for (size_t r = 0; r < ELEMENTSOF(roots); r++)
		for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
			struct hostroot_fixture b;
			hf_scratch_from(&b, roots[r]);
			hf_write(&b, "etc/iscsi/initiatorname.iscsi", refused[i]);
			const struct finding *f = hf_run(&b, check_iscsi, "host.iscsi");
			assert_status(f, STATUS_FAIL);
			assert_contains(f->message, "startup-checks.sh");
			_cleanup_free_ char *want = xasprintf(
			    "%s (ExecStartPre of /usr/lib/systemd/system/iscsid.service): no line "
			    "matches ^InitiatorName=[^ \\t\\n]",
			    scripts[r]);
			assert_evidence(f, "iscsid_start_check", want);
			assert_contains(f->remediation, "InitiatorName=");
			assert_contains(f->remediation, i == 2 ? "iscsi-iname" : "no blanks");
			hf_close(&b);
		}

	/* iscsid already running keeps its name; the next start fails. */
	struct hostroot_fixture b;
	hf_scratch_from(&b, "d-debian12-real");
	hf_write(&b, "etc/iscsi/initiatorname.iscsi",
		 "InitiatorName = iqn.1993-08.org.debian:01:9e85462be362\n");
	hf_write(&b, "proc/740/comm", "iscsid\n");
	const struct finding *f = hf_run(&b, check_iscsi, "host.iscsi");
	assert_status(f, STATUS_WARN);
	assert_contains(f->message, "iscsid runs, but");
	hf_close(&b);

	/* The same file where iscsid.service has no such check: iscsid reads it. */
	hf_scratch_from(&b, "d-debian12-real");
	hf_write(&b, "etc/iscsi/initiatorname.iscsi",
		 "InitiatorName = iqn.1993-08.org.debian:01:9e85462be362\n");
	hf_remove(&b, "usr/lib/open-iscsi/startup-checks.sh");
	f = hf_run(&b, check_iscsi, "host.iscsi");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "initiator_name", "iqn.1993-08.org.debian:01:9e85462be362");
	hf_close(&b);

	/* A drop-in that ignores the script's failure (ExecStartPre=-...): iscsid starts. */
	hf_scratch_from(&b, "d-debian13-real");
	hf_write(&b, "etc/iscsi/initiatorname.iscsi",
		 "InitiatorName = iqn.1993-08.org.debian:01:709b19ad4915\n");
	hf_write(&b, "etc/systemd/system/iscsid.service.d/10-lax.conf",
		 "[Service]\nExecStartPre=\nExecStartPre=-/usr/lib/open-iscsi/startup-checks.sh\n");
	f = hf_run(&b, check_iscsi, "host.iscsi");
	assert_status(f, STATUS_PASS);
	assert_null(kv_get(&f->evidence, "iscsid_start_check"));
	hf_close(&b);

	/* The script also refuses to start iscsid without its configuration file. */
	hf_scratch_from(&b, "d-debian12-real");
	hf_remove(&b, "etc/iscsi/iscsid.conf");
	f = hf_run(&b, check_iscsi, "host.iscsi");
	assert_status(f, STATUS_FAIL);
	assert_contains(f->message, "/etc/iscsi/iscsid.conf does not exist");
	assert_contains(f->remediation, "--force-confmiss open-iscsi");
	assert_evidence(f, "iscsid_conf", "absent: /etc/iscsi/iscsid.conf");
	hf_close(&b);

	/* A tab after '=' passes Debian's pattern (it has no tab in it). */
	hf_scratch_from(&b, "d-debian13-real");
	hf_write(
	    &b, "etc/iscsi/initiatorname.iscsi",
	    "## DO NOT EDIT OR REMOVE THIS FILE!\nInitiatorName=\tiqn.2004-10.com.example:node1\n");
	f = hf_run(&b, check_iscsi, "host.iscsi");
	assert_status(f, STATUS_PASS);
	hf_close(&b);
}

/* Debian 11: /bin, /sbin and /lib are real directories (no merged /usr),
 * iscsid.service itself is enabled, and containerd is 1.4. */
static void test_debian11_real(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "d-debian11-real");
	run_all(&b);
	assert_platform(&b);

	const struct finding *f = get(&b, "host.nfs.client");
	assert_status(f, STATUS_PASS);
	assert_string_equal(list_item(f, "helpers", 0), "/sbin/mount.nfs");
	assert_string_equal(list_item(f, "helpers", 1), "/sbin/mount.nfs4");

	f = get(&b, "host.nfs.kernel");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "kernel_release", "5.10.0-32-amd64");
	assert_evidence(f, "modules_dir", "/lib/modules/5.10.0-32-amd64");
	assert_evidence(f, "modules_dep", "kernel/fs/nfs/nfsv4.ko");

	f = get(&b, "host.iscsi");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "iscsid", "running (pid 740)");
	assert_evidence(f, "iscsid_service",
			"enabled (/etc/systemd/system/sysinit.target.wants/iscsid.service)");
	assert_evidence(f, "iscsid_start_check",
			"/lib/open-iscsi/startup-checks.sh (ExecStartPre of "
			"/lib/systemd/system/iscsid.service): a line matches "
			"^InitiatorName=[^ \\t\\n]");

	f = get(&b, "host.multipathd");
	assert_status(f, STATUS_WARN);

	f = get(&b, "host.clock");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "chrony_rtcsync", "set (/etc/chrony/chrony.conf:38)");

	/* Not set: a FAIL whatever the binary knows, so it is not read (tens of
	 * MB); the remedy says that containerd 1.4 predates the option. */
	f = get(&b, "host.containerd.device-ownership");
	assert_status(f, STATUS_FAIL);
	assert_null(kv_get_str(&f->evidence, "containerd_binary"));
	assert_contains(f->remediation, "containerd before 1.6");
	hf_close(&b);
}

/* Setting the option where containerd does not know it: containerd 1.x ignores
 * unknown keys, so the file says true and devices stay root's. */
static void test_containerd_option_unknown_to_binary(void **state)
{
	(void)state;
	static const char *const conf =
	    "version = 2\n\n[plugins]\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n"
	    "    device_ownership_from_security_context = true\n";
	struct hostroot_fixture b;
	hf_scratch_from(&b, "d-debian11-real");
	hf_write(&b, "etc/containerd/config.toml", conf);
	const struct finding *f =
	    hf_run(&b, check_containerd_device_ownership, "host.containerd.device-ownership");
	assert_status(f, STATUS_FAIL);
	assert_contains(f->message, "ignores it");
	assert_evidence(f, "containerd_binary",
			"/usr/bin/containerd: does not know "
			"device_ownership_from_security_context");
	assert_contains(f->remediation, "Upgrade containerd");
	bool v;
	assert_true(kv_get_bool(&f->evidence, "device_ownership_from_security_context", &v));
	assert_true(v);
	hf_close(&b);

	/* Debian 12's containerd 1.6 reads it. */
	hf_scratch_from(&b, "d-debian12-real");
	hf_write(&b, "etc/containerd/config.toml", conf);
	f = hf_run(&b, check_containerd_device_ownership, "host.containerd.device-ownership");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "containerd_binary",
			"/usr/bin/containerd: knows device_ownership_from_security_context");
	hf_close(&b);
}

/* Debian's multipathd.service (and .socket) carry ConditionKernelCommandLine=
 * !nompath and !multipath=off: booted with either, the enabled daemon never
 * starts, and Longhorn's disks are safe. */
static void test_multipathd_kernel_cmdline(void **state)
{
	(void)state;
	const char *roots[] = {"d-debian11-real", "d-debian12-real", "d-debian13-real"};
	const char *units[] = {"/lib/systemd/system/multipathd.service",
			       "/usr/lib/systemd/system/multipathd.service",
			       "/usr/lib/systemd/system/multipathd.service"};
	for (size_t i = 0; i < ELEMENTSOF(roots); i++) {
		struct hostroot_fixture b;
		hf_scratch_from(&b, roots[i]);
		hf_remove(&b, "proc/412");
		hf_write(&b, "proc/cmdline",
			 "BOOT_IMAGE=/boot/vmlinuz root=/dev/sda1 ro quiet multipath=off\n");
		const struct finding *f = hf_run(&b, check_multipathd, "host.multipathd");
		assert_status(f, STATUS_PASS);
		_cleanup_free_ char *want = xasprintf(
		    "multipath=off (ConditionKernelCommandLine=!multipath=off in %s)", units[i]);
		assert_evidence(f, "kernel_cmdline_blocks", want);
		hf_close(&b);

		/* Without the option, enabled but not (yet) running still warns. */
		hf_scratch_from(&b, roots[i]);
		hf_remove(&b, "proc/412");
		f = hf_run(&b, check_multipathd, "host.multipathd");
		assert_status(f, STATUS_WARN);
		assert_evidence(f, "multipathd", "not running");
		hf_close(&b);
	}
}

/* Debian 12 as minimal images are: systemd-timesyncd, no nfs-common. */
static void test_debian12_timesyncd_nonfs(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "d-debian12-real-timesyncd-nonfs");
	run_all(&b);
	assert_platform(&b);

	const struct finding *f = get(&b, "host.clock");
	assert_status(f, STATUS_PASS);
	assert_contains(f->message, "by systemd-timesyncd");
	assert_string_equal(list_item(f, "sync_daemons_enabled", 0), "systemd-timesyncd");
	assert_string_equal(list_item(f, "sync_daemons_installed", 0), "systemd-timesyncd");
	assert_null(kv_get(&f->evidence, "chrony_rtcsync"));

	f = get(&b, "host.nfs.client");
	assert_status(f, STATUS_FAIL);
	assert_int_equal(list_len(f, "helpers"), 0);
	assert_contains(f->remediation, "nfs-common");

	/* The kernel half is there all the same. */
	f = get(&b, "host.nfs.kernel");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "modules_dep", "kernel/fs/nfs/nfsv4.ko");

	assert_status(get(&b, "host.iscsi"), STATUS_PASS);
	assert_status(get(&b, "host.multipathd"), STATUS_WARN);
	assert_status(get(&b, "host.containerd.device-ownership"), STATUS_FAIL);
	hf_close(&b);
}

/* Debian 13 without multipath-tools, with systemd-timesyncd. */
static void test_debian13_timesyncd_nompath(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "d-debian13-real-timesyncd-nompath");
	run_all(&b);
	assert_platform(&b);

	const struct finding *f = get(&b, "host.multipathd");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "multipathd", "not running");
	assert_evidence(f, "multipathd_service", "not installed: no multipathd.service unit file");
	assert_evidence(f, "multipathd_socket", "not installed: no multipathd.socket unit file");

	f = get(&b, "host.clock");
	assert_status(f, STATUS_PASS);
	assert_contains(f->message, "by systemd-timesyncd");

	/* open-iscsi installed and enabled its socket; iscsid.service stays disabled. */
	f = get(&b, "host.iscsi");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "iscsid_service", "disabled");

	assert_status(get(&b, "host.nfs.client"), STATUS_PASS);
	f = get(&b, "host.nfs.kernel");
	assert_status(f, STATUS_PASS);
	assert_evidence(f, "modules_dep", "kernel/fs/nfs/nfsv4.ko.xz");
	assert_status(get(&b, "host.containerd.device-ownership"), STATUS_FAIL);
	hf_close(&b);
}

/* multipath-tools 0.9 and later (Debian 12's 0.9.4, 13's 0.11.1) ignore
 * defaults { config_dir } ("ignoring deprecated option", multipath -t) and
 * read /etc/multipath/conf.d; 0.8 (Debian 11, RHEL 9, Ubuntu 22.04) reads the
 * configured directory. A blacklist that only one reading sees is no promise. */
static void test_multipathd_config_dir(void **state)
{
	(void)state;
	static const char *const lh = "blacklist {\n\tdevice {\n\t\tvendor \"IET\"\n"
				      "\t\tproduct \"VIRTUAL-DISK\"\n\t}\n}\n";
	/* Only in the configured directory: only multipath-tools 0.8 reads it. */
	struct hostroot_fixture b;
	hf_scratch_from(&b, "d-debian12-real");
	hf_write(&b, "etc/multipath.conf", "defaults {\n\tconfig_dir \"/etc/mpx\"\n}\n");
	hf_write(&b, "etc/mpx/longhorn.conf", lh);
	const struct finding *f = hf_run(&b, check_multipathd, "host.multipathd");
	assert_status(f, STATUS_WARN);
	assert_contains(f->message, "multipath-tools 0.9 and later ignore config_dir");
	assert_evidence(f, "config_dir",
			"/etc/mpx (/etc/multipath.conf:2; multipath-tools 0.9 and later ignore "
			"it and read /etc/multipath/conf.d)");
	assert_string_equal(list_item(f, "config_files", 1), "/etc/mpx/longhorn.conf");
	assert_int_equal(list_len(f, "config_files_ignoring_config_dir"), 1);
	assert_string_equal(list_item(f, "config_files_ignoring_config_dir", 0),
			    "/etc/multipath.conf");
	hf_close(&b);

	/* Only in /etc/multipath/conf.d: only 0.9 and later read it. */
	hf_scratch_from(&b, "d-debian13-real");
	hf_write(&b, "etc/multipath.conf", "defaults {\n\tconfig_dir \"/etc/mpx\"\n}\n");
	hf_write(&b, "etc/multipath/conf.d/longhorn.conf", lh);
	f = hf_run(&b, check_multipathd, "host.multipathd");
	assert_status(f, STATUS_WARN);
	assert_contains(f->message, "only for multipath-tools 0.9 and later");
	hf_close(&b);

	/* In both: every release keeps Longhorn's disks out. */
	hf_scratch_from(&b, "d-debian13-real");
	hf_write(&b, "etc/multipath.conf", "defaults {\n\tconfig_dir \"/etc/mpx\"\n}\n");
	hf_write(&b, "etc/multipath/conf.d/longhorn.conf", lh);
	hf_write(&b, "etc/mpx/longhorn.conf", lh);
	f = hf_run(&b, check_multipathd, "host.multipathd");
	assert_status(f, STATUS_PASS);
	hf_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_debian12_real),
	    cmocka_unit_test(test_debian13_real),
	    cmocka_unit_test(test_iscsi_debian_startup_checks),
	    cmocka_unit_test(test_debian11_real),
	    cmocka_unit_test(test_containerd_option_unknown_to_binary),
	    cmocka_unit_test(test_multipathd_kernel_cmdline),
	    cmocka_unit_test(test_debian12_timesyncd_nonfs),
	    cmocka_unit_test(test_debian13_timesyncd_nompath),
	    cmocka_unit_test(test_multipathd_config_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
