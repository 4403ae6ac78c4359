/* host.iscsi and host.multipathd on fixture host roots, the multipath.conf
 * parser and its Longhorn coverage rules, and the helpers they share
 * (processes, systemd unit files, os-release). */
#include <dirent.h>

#include "hostroot_fixture.h"
#include "multipath_conf.h"
#include "osrelease.h"
#include "procs.h"
#include "unitfiles.h"

#define ISCSI "host.iscsi"
#define MPATH "host.multipathd"

static const struct finding *iscsi(struct hostroot_fixture *b)
{
	return hf_run(b, check_iscsi, ISCSI);
}

static const struct finding *mpath(struct hostroot_fixture *b)
{
	return hf_run(b, check_multipathd, MPATH);
}

/* A scratch root where iSCSI is complete but for what the test removes. */
static void iscsi_root(struct hostroot_fixture *b)
{
	hf_scratch(b);
	hf_write(b, "etc/os-release", "ID=debian\nVERSION_ID=\"12\"\n");
	hf_exe(b, "usr/sbin/iscsiadm");
	hf_symlink(b, "sbin", "usr/sbin");
	hf_write(b, "etc/iscsi/initiatorname.iscsi",
		 "InitiatorName=iqn.1993-08.org.debian:01:abc\n");
	hf_write(b, "usr/lib/systemd/system/iscsid.socket", "[Socket]\n");
	hf_write(b, "usr/lib/systemd/system/iscsid.service", "[Service]\n");
	hf_mkdir(b, "etc/systemd/system");
	hf_write(b, "proc/1/comm", "systemd\n");
	/* The transport, so that these cases judge the initiator and iscsid alone. */
	hf_write(b, "proc/modules", "iscsi_tcp 24576 0 - Live 0x0000000000000000\n");
}

/* ---- host.iscsi ------------------------------------------------------------------ */

static void test_iscsi_running_debian(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "iscsid running");
	assert_evidence(f, "iscsiadm", "/sbin/iscsiadm");
	assert_evidence(f, "initiator_name", "iqn.1993-08.org.debian:01:5d2f0a6c9b1e");
	assert_evidence(f, "iscsid", "running (pid 733)");
	hf_close(&b);
}

static void test_iscsi_socket_activated_harvester(void **state)
{
	/* SLE Micro as in Harvester: iscsid.socket enabled; the only iscsid is a zombie. */
	struct hostroot_fixture b;
	hf_open(&b, "b-slemicro55-harvester");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "socket-activated");
	assert_evidence(f, "iscsid", "not running");
	assert_evidence_contains(
	    f, "iscsid_socket", "enabled (/etc/systemd/system/sockets.target.wants/iscsid.socket)");
	assert_evidence(f, "package", "open-iscsi");
	hf_close(&b);
}

static void test_iscsi_pass_rhel_ubuntu(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-rhel9");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "package", "iscsi-initiator-utils");
	hf_close(&b);
	hf_open(&b, "b-ubuntu2204-nonfs");
	f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	hf_close(&b);
}

static void test_iscsi_nothing_installed(void **state)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "etc/os-release", "NAME=\"Red Hat Enterprise Linux\"\nID=\"rhel\"\n");
	hf_mkdir(&b, "etc/systemd/system");
	hf_write(&b, "proc/1/comm", "systemd\n");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "iscsiadm is not installed");
	assert_contains(f->message, "/etc/iscsi/initiatorname.iscsi does not exist");
	assert_contains(f->message, "iscsid is not running and not socket-activated");
	assert_contains(f->message, "Longhorn v1 volumes");
	assert_contains(f->remediation, "dnf install -y iscsi-initiator-utils");
	assert_contains(f->remediation, "iscsi-iname");
	assert_contains(f->remediation, "systemctl enable --now iscsid");
	hf_close(&b);
}

static void test_iscsi_generate_name(void **state)
{
	/* Debian's open-iscsi writes the name at iscsid's first start. */
	struct hostroot_fixture b;
	iscsi_root(&b);
	hf_write(&b, "etc/iscsi/initiatorname.iscsi",
		 "## DO NOT EDIT OR REMOVE THIS FILE!\nGenerateName=yes\n");
	hf_symlink(&b, "etc/systemd/system/sockets.target.wants/iscsid.socket",
		   "/usr/lib/systemd/system/iscsid.socket");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "generated when iscsid first starts");
	hf_close(&b);

	iscsi_root(&b);
	hf_write(&b, "etc/iscsi/initiatorname.iscsi", "GenerateName=yes\n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "has no InitiatorName");
	assert_contains(f->message, "iscsid is not running");
	hf_close(&b);
}

/* A fresh RHEL 9 / Fedora / openSUSE install: no initiatorname.iscsi yet;
 * open-iscsi's iscsi-init.service (required by iscsid.service,
 * ConditionPathExists=!/etc/iscsi/initiatorname.iscsi) writes it when iscsid
 * first starts, here on demand through iscsid.socket. */
static void rhel9_fresh_root(struct hostroot_fixture *b)
{
	iscsi_root(b);
	hf_write(b, "etc/os-release",
		 "NAME=\"Rocky Linux\"\nVERSION_ID=\"9.4\"\nID=\"rocky\"\nID_LIKE=\"rhel centos "
		 "fedora\"\n");
	hf_remove(b, "etc/iscsi/initiatorname.iscsi");
	hf_write(b, "usr/lib/systemd/system/iscsi-init.service",
		 "[Unit]\nDescription=One time configuration for iscsi.service\n"
		 "ConditionPathExists=!/etc/iscsi/initiatorname.iscsi\nDefaultDependencies=no\n\n"
		 "[Service]\nType=oneshot\nRemainAfterExit=no\n"
		 "ExecStart=/usr/bin/sh -c 'echo \"InitiatorName=`/usr/sbin/iscsi-iname`\" > "
		 "/etc/iscsi/initiatorname.iscsi'\n");
}

static void test_iscsi_name_from_iscsi_init(void **state)
{
	struct hostroot_fixture b;
	rhel9_fresh_root(&b);
	hf_symlink(&b, "etc/systemd/system/sockets.target.wants/iscsid.socket",
		   "/usr/lib/systemd/system/iscsid.socket");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "iscsi-init.service");
	assert_evidence_contains(f, "initiator_name", "absent: iscsi-init.service");
	hf_close(&b);

	/* The generator masked: nothing will write the name. */
	rhel9_fresh_root(&b);
	hf_symlink(&b, "etc/systemd/system/sockets.target.wants/iscsid.socket",
		   "/usr/lib/systemd/system/iscsid.socket");
	hf_symlink(&b, "etc/systemd/system/iscsi-init.service", "/dev/null");
	f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "/etc/iscsi/initiatorname.iscsi does not exist");
	hf_close(&b);

	/* iscsid never starts (neither socket nor service enabled): still FAIL. */
	rhel9_fresh_root(&b);
	f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "/etc/iscsi/initiatorname.iscsi does not exist");
	hf_close(&b);
}

static void test_iscsi_initiator_name_forms(void **state)
{
	struct hostroot_fixture b;
	iscsi_root(&b);
	hf_write(&b, "proc/88/comm", "iscsid\n");
	hf_write(&b, "etc/iscsi/initiatorname.iscsi",
		 "#InitiatorName=iqn.2004-10.com.ubuntu:01:x\n");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "has no InitiatorName");
	hf_close(&b);

	iscsi_root(&b);
	hf_write(&b, "proc/88/comm", "iscsid\n");
	hf_write(&b, "etc/iscsi/initiatorname.iscsi", "InitiatorName=   \n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	hf_close(&b);

	iscsi_root(&b);
	hf_write(&b, "proc/88/comm", "iscsid\n");
	hf_write(&b, "etc/iscsi/initiatorname.iscsi", "  InitiatorName=node1  \n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "\"node1\" is not an iSCSI name");
	hf_close(&b);
}

/* The name iscsid uses (open-iscsi cfg_get_string_param): the FIRST line with
 * InitiatorName not after a '#', the value after the next '=' (blanks around
 * it allowed), lines with an empty value skipped. */
static void test_iscsi_name_as_iscsid_reads_it(void **state)
{
	struct hostroot_fixture b;
	/* A node cloned from an image: a script appended a fresh name, but
	 * iscsid still logs in with the cloned one. */
	iscsi_root(&b);
	hf_write(&b, "proc/88/comm", "iscsid\n");
	hf_write(&b, "etc/iscsi/initiatorname.iscsi",
		 "## DO NOT EDIT OR REMOVE THIS FILE!\n"
		 "## If you remove this file, the iSCSI daemon will not start.\n"
		 "InitiatorName=iqn.2004-10.com.ubuntu:01:3e4f8d2c1a9b\n"
		 "InitiatorName=iqn.2004-10.com.ubuntu:01:node2fresh\n");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "initiator_name", "iqn.2004-10.com.ubuntu:01:3e4f8d2c1a9b");
	hf_close(&b);

	/* Blanks around '=', a commented-out old name, an empty line value. */
	iscsi_root(&b);
	hf_write(&b, "proc/88/comm", "iscsid\n");
	hf_write(&b, "etc/iscsi/initiatorname.iscsi",
		 "#InitiatorName=iqn.1994-05.com.redhat:old\n"
		 "InitiatorName=\n"
		 "\tInitiatorName = iqn.1994-05.com.redhat:7c2d1e9f30ab\n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "initiator_name", "iqn.1994-05.com.redhat:7c2d1e9f30ab");
	hf_close(&b);
}

/* Ubuntu 22.04 on a kernel whose linux-modules-extra is not installed: open-iscsi
 * is complete, but the kernel has no iscsi_tcp, so no login can work
 * ("iscsiadm: Could not insert module tcp"). */
#define UBUNTU_REL "5.15.0-91-generic"
static void ubuntu_no_extra_root(struct hostroot_fixture *b)
{
	iscsi_root(b);
	hf_write(b, "etc/os-release",
		 "PRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\n"
		 "ID=ubuntu\nID_LIKE=debian\n");
	hf_symlink(b, "etc/systemd/system/sockets.target.wants/iscsid.socket",
		   "/usr/lib/systemd/system/iscsid.socket");
	hf_write(b, "proc/sys/kernel/osrelease", UBUNTU_REL "\n");
	hf_write(b, "proc/modules",
		 "dm_multipath 45056 0 - Live 0x0000000000000000\n"
		 "scsi_dh_rdac 20480 0 - Live 0x0000000000000000\n"
		 "virtio_scsi 24576 2 - Live 0x0000000000000000\n");
	hf_mkdir(b, "sys/module/dm_multipath");
	hf_write(b, "lib/modules/" UBUNTU_REL "/modules.dep",
		 "kernel/drivers/md/dm-multipath.ko: \n"
		 "kernel/drivers/scsi/virtio_scsi.ko: \n"
		 "kernel/drivers/scsi/device_handler/scsi_dh_rdac.ko: \n");
	hf_write(b, "lib/modules/" UBUNTU_REL "/modules.builtin",
		 "kernel/drivers/scsi/scsi_mod.ko\nkernel/drivers/scsi/sd_mod.ko\n");
}

static void test_iscsi_tcp_module(void **state)
{
	struct hostroot_fixture b;
	ubuntu_no_extra_root(&b);
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "no iscsi_tcp");
	assert_contains(f->remediation, "linux-modules-extra-" UBUNTU_REL);
	assert_evidence_contains(f, "iscsi_tcp", "absent");
	hf_close(&b);

	/* Installed but not loaded: iscsid loads it at the first login. */
	ubuntu_no_extra_root(&b);
	hf_write(&b, "lib/modules/" UBUNTU_REL "/modules.dep",
		 "kernel/drivers/scsi/iscsi_tcp.ko.zst: kernel/drivers/scsi/libiscsi_tcp.ko.zst "
		 "kernel/drivers/scsi/libiscsi.ko.zst "
		 "kernel/drivers/scsi/scsi_transport_iscsi.ko.zst\n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence_contains(f, "iscsi_tcp", "loadable");
	hf_close(&b);

	/* Built into the kernel. */
	ubuntu_no_extra_root(&b);
	hf_write(&b, "lib/modules/" UBUNTU_REL "/modules.builtin",
		 "kernel/drivers/scsi/iscsi_tcp.ko\n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence_contains(f, "iscsi_tcp", "built in");
	hf_close(&b);

	/* Loaded. */
	ubuntu_no_extra_root(&b);
	hf_write(&b, "proc/modules", "iscsi_tcp 24576 0 - Live 0x0000000000000000\n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "iscsi_tcp", "loaded");
	hf_close(&b);

	/* The module list cannot be read: no verdict is a guess, UNKNOWN with why. */
	ubuntu_no_extra_root(&b);
	hf_remove(&b, "lib/modules");
	f = iscsi(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "modules.dep");
	assert_evidence_contains(f, "iscsi_tcp", "unknown");
	hf_close(&b);

	/* modules.dep unreadable (here a directory where the file should be) while the
	 * kernel config does not mention CONFIG_ISCSI_TCP: absence is not proven (it
	 * was a FAIL "no iscsi_tcp" before). */
	ubuntu_no_extra_root(&b);
	hf_remove(&b, "lib/modules/" UBUNTU_REL "/modules.dep");
	hf_mkdir(&b, "lib/modules/" UBUNTU_REL "/modules.dep");
	hf_write(&b, "boot/config-" UBUNTU_REL, "CONFIG_MODULES=y\nCONFIG_SCSI=y\n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "cannot be told");
	assert_evidence_contains(f, "iscsi_tcp", "modules.dep");
	hf_close(&b);

	/* The same with "# CONFIG_ISCSI_TCP is not set" and a readable modules.dep
	 * without it: proven absent. */
	ubuntu_no_extra_root(&b);
	hf_write(&b, "boot/config-" UBUNTU_REL,
		 "CONFIG_MODULES=y\n# CONFIG_ISCSI_TCP is not set\n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	hf_close(&b);
}

static void test_iscsi_masked_and_stopped(void **state)
{
	struct hostroot_fixture b;
	iscsi_root(&b);
	hf_symlink(&b, "etc/systemd/system/iscsid.socket", "/dev/null");
	hf_symlink(&b, "etc/systemd/system/sockets.target.wants/iscsid.socket",
		   "/usr/lib/systemd/system/iscsid.socket");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "masked (/etc/systemd/system/iscsid.socket)");
	assert_contains(f->remediation, "systemctl unmask");
	hf_close(&b);

	iscsi_root(&b);
	hf_symlink(&b, "etc/systemd/system/multi-user.target.wants/iscsid.service",
		   "/usr/lib/systemd/system/iscsid.service");
	f = iscsi(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "enabled but iscsid is not running");
	hf_close(&b);
}

static void test_iscsi_unknown_inputs(void **state)
{
	struct hostroot_fixture b;
	iscsi_root(&b);
	hf_write(&b, "proc/88/comm", "iscsid\n");
	hf_remove(&b, "etc/iscsi/initiatorname.iscsi");
	hf_mkdir(&b, "etc/iscsi/initiatorname.iscsi");
	const struct finding *f = iscsi(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "etc/iscsi/initiatorname.iscsi");
	hf_close(&b);

	static const uint8_t bin[] = {'I', 'n', 0, 0xfe, '\n'};
	iscsi_root(&b);
	hf_write(&b, "proc/88/comm", "iscsid\n");
	hf_write_mode(&b, "etc/iscsi/initiatorname.iscsi", bin, sizeof(bin), 0644);
	f = iscsi(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "not a text file");
	hf_close(&b);

	/* No PID 1 in proc/: whether iscsid runs cannot be seen. */
	iscsi_root(&b);
	hf_remove(&b, "proc/1");
	hf_write(&b, "proc/88/comm", "iscsid\n");
	f = iscsi(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_evidence_contains(f, "iscsid", "PID 1 not visible");
	hf_close(&b);
}

/* ---- host.multipathd ------------------------------------------------------------- */

static void test_mpath_not_running(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12");
	const struct finding *f = mpath(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "multipathd", "not running");
	hf_close(&b);
}

static void test_mpath_harvester_dropin_blacklist(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-slemicro55-harvester");
	const struct finding *f = mpath(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence_contains(f, "longhorn_blacklisted_by",
				 "device { vendor \"IET\" product \"VIRTUAL-DISK\" } "
				 "(/etc/multipath/conf.d/99-longhorn.conf:4)");
	assert_evidence(f, "find_multipaths", "yes");
	const struct value_list *files = kv_get_list(&f->evidence, "config_files");
	assert_non_null(files);
	assert_int_equal(files->n, 2);
	assert_string_equal(files->items[0].s, "/etc/multipath.conf");
	hf_close(&b);
}

static void test_mpath_rhel_without_blacklist_warns(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-rhel9");
	const struct finding *f = mpath(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "multipathd is running");
	assert_contains(f->message, "already mounted or mount point busy");
	assert_contains(f->remediation, "vendor \"IET\"");
	assert_contains(f->remediation, "product \"VIRTUAL-DISK\"");
	assert_evidence(f, "multipathd", "running (pid 704)");
	hf_close(&b);
}

static void test_mpath_ubuntu_default_warns(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-ubuntu2204-nonfs");
	const struct finding *f = mpath(&b);
	assert_verdict(f, STATUS_WARN);
	assert_evidence_contains(f, "multipathd_socket", "enabled");
	hf_close(&b);
}

static void test_mpath_rhel_without_config_is_safe(void **state)
{
	struct hostroot_fixture b;
	hf_scratch_from(&b, "b-rhel9");
	hf_remove(&b, "etc/multipath.conf");
	const struct finding *f = mpath(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "RHEL's multipath blacklists every device");
	hf_close(&b);

	/* Not on Debian-likes: there, no config means the built-in defaults. */
	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_remove(&b, "etc/multipath.conf");
	f = mpath(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "there is no multipath.conf");
	hf_close(&b);
}

static const struct finding *mpath_with_conf(struct hostroot_fixture *b, const char *conf)
{
	hf_scratch_from(b, "b-ubuntu2204-nonfs");
	hf_write(b, "etc/multipath.conf", conf);
	return mpath(b);
}

static void test_mpath_devnode_forms(void **state)
{
	struct hostroot_fixture b;
	const struct finding *f =
	    mpath_with_conf(&b, "blacklist {\n    devnode \"^sd[a-z0-9]+\"\n}\n");
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "devnode \"^sd[a-z0-9]+\" (/etc/multipath.conf:2)");
	hf_close(&b);

	/* Only the host's own two disks: Longhorn's sdc... are not covered. */
	f = mpath_with_conf(&b, "blacklist {\n\tdevnode \"^sd[ab]$\"\n}\n");
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "matches only some sdX disks (not sdc, sdm, sdz, sdaa, sdcz)");
	hf_close(&b);

	/* A commented-out entry does not count, '#' and '!' both. */
	f = mpath_with_conf(&b, "blacklist {\n#    devnode \"^sd[a-z0-9]+\"\n"
				"  ! devnode \"^sd\"\n}\n");
	assert_verdict(f, STATUS_WARN);
	hf_close(&b);

	/* Cancelled by an exception. */
	f = mpath_with_conf(&b, "blacklist {\n    devnode \".*\"\n}\n"
				"blacklist_exceptions {\n    devnode \"^sd[a-z]+\"\n}\n");
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "is cancelled by blacklist_exceptions devnode \"^sd[a-z]+\"");
	hf_close(&b);

	/* A negated regex: everything but nvme is blacklisted. */
	f = mpath_with_conf(&b, "blacklist {\n    devnode \"!^nvme[0-9]\"\n}\n");
	assert_verdict(f, STATUS_PASS);
	hf_close(&b);
}

static void test_mpath_other_covering_entries(void **state)
{
	struct hostroot_fixture b;
	const struct finding *f =
	    mpath_with_conf(&b, "blacklist {\n  wwid \".*\"\n}\nblacklist_exceptions {\n"
				"  wwid \"3600a098038303053453f463045727a4b\"\n}\n");
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "wwid \".*\"");
	hf_close(&b);

	f = mpath_with_conf(&b, "blacklist {\n  protocol \"scsi:iscsi\"\n}\n");
	assert_verdict(f, STATUS_PASS);
	hf_close(&b);

	/* Vendor regex, product missing: matches every IET product. */
	f = mpath_with_conf(&b, "blacklist {\n  device {\n    vendor \"^IET\"\n  }\n}\n");
	assert_verdict(f, STATUS_PASS);
	hf_close(&b);

	/* Some other vendor only. */
	f = mpath_with_conf(&b, "blacklist {\n  device {\n    vendor \"VMware\"\n"
				"    product \"Virtual disk\"\n  }\n}\n");
	assert_verdict(f, STATUS_WARN);
	const struct value_list *bl = kv_get_list(&f->evidence, "blacklist");
	assert_non_null(bl);
	assert_int_equal(bl->n, 1);
	assert_string_equal(bl->items[0].s, "device { vendor \"VMware\" product \"Virtual disk\" } "
					    "(/etc/multipath.conf:2)");
	hf_close(&b);
}

static void test_mpath_invalid_regex_and_garbage(void **state)
{
	struct hostroot_fixture b;
	const struct finding *f = mpath_with_conf(&b, "blacklist {\n  devnode \"^sd[a-z\"\n}\n");
	assert_verdict(f, STATUS_WARN);
	const struct value_list *bad = kv_get_list(&f->evidence, "invalid_regex");
	assert_non_null(bad);
	assert_contains(bad->items[0].s, "/etc/multipath.conf:2");
	hf_close(&b);

	/* Stacked quantifiers take glibc's regcomp minutes: not evaluated, listed. */
	f = mpath_with_conf(&b, "blacklist {\n  device {\n    vendor \"(SCSI_+++++++++++++++"
				"+++++++++++++++++|ID)]+\"\n  }\n}\n");
	assert_verdict(f, STATUS_WARN);
	bad = kv_get_list(&f->evidence, "invalid_regex");
	assert_non_null(bad);
	assert_contains(bad->items[0].s, "(SCSI_++");
	hf_close(&b);
	f = mpath_with_conf(
	    &b, "blacklist {\n  devnode \"((((((((a)+)+)+)+)+)+)+)+\"\n"
		"  devnode \"x{1000}\"\n  devnode \"^(ram|loop|fd|md|dm-|sr|scd|st)[0-9]*\"\n"
		"  devnode \"^hd[a-z]{1,3}[+*?]\"\n}\n");
	bad = kv_get_list(&f->evidence, "invalid_regex");
	assert_non_null(bad);
	assert_int_equal(bad->n, 2); /* the usual two entries are evaluated */
	hf_close(&b);

	static const uint8_t bin[] = {'b', 'l', 0, 0x80, '{', '\n'};
	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_write_mode(&b, "etc/multipath.conf", bin, sizeof(bin), 0644);
	f = mpath(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "etc/multipath.conf: not a multipath.conf");
	hf_close(&b);

	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_remove(&b, "etc/multipath.conf");
	hf_mkdir(&b, "etc/multipath.conf");
	f = mpath(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_evidence_contains(f, "config_error", "Is a directory");
	hf_close(&b);
}

static void test_mpath_enabled_not_running(void **state)
{
	struct hostroot_fixture b;
	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_remove(&b, "proc/402");
	const struct finding *f = mpath(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "enabled (it starts at boot)");
	hf_close(&b);

	/* Only the socket enabled: it starts on demand. */
	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_remove(&b, "proc/402");
	hf_remove(&b, "etc/systemd/system/sysinit.target.wants");
	f = mpath(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "socket-enabled (the first multipath command starts it)");
	hf_close(&b);

	/* Not running, not enabled: the configuration does not matter. */
	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_remove(&b, "proc/402");
	hf_remove(&b, "etc/systemd/system/sysinit.target.wants");
	hf_remove(&b, "etc/systemd/system/sockets.target.wants/multipathd.socket");
	f = mpath(&b);
	assert_verdict(f, STATUS_PASS);
	hf_close(&b);

	/* Cannot see processes and not enabled, config not covering: UNKNOWN. */
	hf_scratch_from(&b, "b-ubuntu2204-nonfs");
	hf_remove(&b, "proc/1");
	hf_remove(&b, "etc/systemd/system/sysinit.target.wants");
	hf_remove(&b, "etc/systemd/system/sockets.target.wants/multipathd.socket");
	f = mpath(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	hf_close(&b);
}

/* What Harvester's installer writes from os.externalStorageConfig (v1.7 test
 * plan of harvester/harvester#6975): negated device entries, wwid ".*" and
 * exceptions for the SAN. Longhorn's IET disk matches both negations. */
static void test_mpath_harvester_external_storage(void **state)
{
	struct hostroot_fixture b;
	const struct finding *f = mpath_with_conf(&b, "defaults {\n"
						      "  user_friendly_names yes\n"
						      "  find_multipaths yes\n"
						      "}\n"
						      "blacklist {\n"
						      "  device {\n"
						      "    vendor \"!QEMU\"\n"
						      "    product \"!QEMU HARDDISK\"\n"
						      "  }\n"
						      "  wwid \".*\"\n"
						      "}\n"
						      "blacklist_exceptions {\n"
						      "  device {\n"
						      "    vendor \"DELL\"\n"
						      "    product \"POWERVAULT\"\n"
						      "  }\n"
						      "  wwid \"^0QEMU_QEMU_HARDDISK_disk[0-9]+\"\n"
						      "}\n");
	assert_verdict(f, STATUS_PASS);
	assert_evidence_contains(
	    f, "longhorn_blacklisted_by",
	    "device { vendor \"!QEMU\" product \"!QEMU HARDDISK\" } (/etc/multipath.conf:6)");
	hf_close(&b);

	/* An exception for every iSCSI disk (a SAN reached over iSCSI) lets
	 * Longhorn's through again. */
	f = mpath_with_conf(&b, "blacklist {\n  wwid \".*\"\n}\n"
				"blacklist_exceptions {\n  wwid \"^36\"\n}\n");
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "cancelled by blacklist_exceptions wwid \"^36\"");
	hf_close(&b);
}

/* Harvester up to v1.4: multipathd.service enabled, but the installer puts
 * multipath=off on the kernel command line, and the unit (upstream's, as SLE
 * Micro ships it) has ConditionKernelCommandLine=!multipath=off: it never
 * starts, so no Longhorn blacklist is needed. */
#define SLE_MULTIPATHD_SERVICE                                                                     \
	"[Unit]\nDescription=Device-Mapper Multipath Device Controller\n"                          \
	"Before=lvm2-activation-early.service\n"                                                   \
	"Before=local-fs-pre.target blk-availability.service shutdown.target\n"                    \
	"Wants=systemd-udevd-kernel.socket modprobe@dm_multipath.service\n"                        \
	"After=multipathd.socket systemd-remount-fs.service\nDefaultDependencies=no\n"             \
	"Conflicts=shutdown.target\nConditionKernelCommandLine=!nompath\n"                         \
	"ConditionKernelCommandLine=!multipath=off\nConditionVirtualization=!container\n\n"        \
	"[Service]\nType=notify\nNotifyAccess=main\nExecStart=/sbin/multipathd -d -s\n"            \
	"ExecReload=/sbin/multipathd reconfigure\nTasksMax=infinity\n\n[Install]\n"                \
	"WantedBy=sysinit.target\n"
#define HARVESTER_CMDLINE                                                                          \
	"BOOT_IMAGE=(loop0)/boot/vmlinuz console=tty1 root=LABEL=COS_STATE "                       \
	"cos-img/filename=/cOS/active.img panic=5 net.ifnames=1 rd.cos.oemlabel=COS_OEM "          \
	"rd.emergency=reboot rd.shell=0 systemd.journald.forward_to_console=1 multipath=off\n"

static void harvester14_root(struct hostroot_fixture *b)
{
	hf_scratch_from(b, "b-slemicro55-harvester");
	hf_remove(b, "proc/602");
	hf_remove(b, "etc/multipath/conf.d/99-longhorn.conf");
	hf_write(b, "usr/lib/systemd/system/multipathd.service", SLE_MULTIPATHD_SERVICE);
	hf_write(b, "proc/cmdline", HARVESTER_CMDLINE);
}

static void test_mpath_kernel_cmdline_off(void **state)
{
	struct hostroot_fixture b;
	harvester14_root(&b);
	const struct finding *f = mpath(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "multipath=off");
	assert_evidence(f, "kernel_cmdline_blocks",
			"multipath=off (ConditionKernelCommandLine=!multipath=off in "
			"/usr/lib/systemd/system/multipathd.service)");
	hf_close(&b);

	/* nompath likewise. */
	harvester14_root(&b);
	hf_write(&b, "proc/cmdline", "root=/dev/sda2 quiet nompath\n");
	f = mpath(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "nompath");
	hf_close(&b);

	/* Harvester v1.5 overrides the unit in /etc without the condition, so
	 * that multipathd can be enabled for third-party CSI drivers: it starts. */
	harvester14_root(&b);
	hf_write(&b, "etc/systemd/system/multipathd.service",
		 "[Unit]\nDescription=Device-Mapper Multipath Device Controller\n"
		 "DefaultDependencies=no\n\n[Service]\nType=notify\n"
		 "ExecStart=/sbin/multipathd -d -s\n\n[Install]\nWantedBy=sysinit.target\n");
	f = mpath(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "enabled (it starts at boot)");
	hf_close(&b);

	/* A drop-in that empties the conditions: it starts too. */
	harvester14_root(&b);
	hf_write(&b, "etc/systemd/system/multipathd.service.d/10-start.conf",
		 "[Unit]\nConditionKernelCommandLine=\n");
	f = mpath(&b);
	assert_verdict(f, STATUS_WARN);
	hf_close(&b);

	/* Running anyway (started by hand): the condition does not matter. */
	harvester14_root(&b);
	hf_write(&b, "proc/602/comm", "multipathd\n");
	f = mpath(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "multipathd is running");
	hf_close(&b);

	/* Without the option on the command line: WARN as before. */
	harvester14_root(&b);
	hf_write(&b, "proc/cmdline", "root=/dev/sda2 quiet multipath=on\n");
	f = mpath(&b);
	assert_verdict(f, STATUS_WARN);
	hf_close(&b);
}

/* ---- multipath.conf parser -------------------------------------------------------- */

static void parse(struct multipath_conf *c, const char *text)
{
	*c = (struct multipath_conf){0};
	assert_int_equal(multipath_conf_parse((const uint8_t *)text, strlen(text), "/t.conf", c),
			 0);
}

static void test_parser_grammar(void **state)
{
	struct multipath_conf c;
	parse(&c, "defaults {\n"
		  "\tconfig_dir \"/etc/mp.d\"\n"
		  "\tfind_multipaths \"greedy\" # trailing comment\n"
		  "}\n"
		  "blacklist{\n"
		  "  devnode \"^(ram|raw|loop|fd|md|dm-|sr|scd|st)[0-9]*\"\n"
		  "  devnode ^hd[a-z]\n"
		  "  wwid \"has \"\"quotes\"\" and # hash\"\n"
		  "  device {\n"
		  "    vendor \"IET\"\n"
		  "    product \"VIRTUAL-DISK\"\n"
		  "  }\n"
		  "  property \"(SCSI_IDENT_|ID_WWN)\"\n"
		  "}\n"
		  "devices {\n"
		  "  device {\n"
		  "    vendor \"NETAPP\"\n"
		  "    product \"LUN\"\n"
		  "  }\n"
		  "}\n"
		  "blacklist_exceptions {\n"
		  "  devnode \"^sdz\"\n"
		  "}\n");
	assert_string_equal(c.config_dir, "/etc/mp.d");
	assert_string_equal(c.find_multipaths, "greedy");
	assert_int_equal(c.n, 6);
	assert_int_equal(c.items[0].kind, MPCONF_DEVNODE);
	assert_string_equal(c.items[1].value, "^hd[a-z]");
	assert_string_equal(c.items[2].value, "has \"quotes\" and # hash");
	assert_int_equal(c.items[3].kind, MPCONF_DEVICE);
	assert_string_equal(c.items[3].vendor, "IET");
	assert_string_equal(c.items[3].product, "VIRTUAL-DISK");
	assert_string_equal(c.items[3].where, "/t.conf:9");
	assert_int_equal(c.items[4].kind, MPCONF_PROPERTY);
	/* The devices section's NETAPP entry is not a blacklist entry. */
	assert_int_equal(c.items[5].section, MPCONF_EXCEPTIONS);
	assert_string_equal(c.items[5].value, "^sdz");
	multipath_conf_clear(&c);
}

static void test_parser_nesting_like_multipathd(void **state)
{
	struct multipath_conf c;
	/* A device entry outside blacklist is not one; multipaths { multipath { } } nests. */
	parse(&c, "multipaths {\n  multipath {\n    wwid 3600\n    alias data\n  }\n}\n"
		  "devnode \"^sd\"\n"
		  "}\n"
		  "blacklist {\n  device {\n    product \"X\"\n  }\n  devnode \"^sd\"\n}\n");
	assert_int_equal(c.n, 2);
	assert_int_equal(c.items[0].kind, MPCONF_DEVICE);
	assert_null(c.items[0].vendor);
	assert_int_equal(c.items[1].kind, MPCONF_DEVNODE);
	assert_int_equal(c.items[1].section, MPCONF_BLACKLIST);
	multipath_conf_clear(&c);

	/* Unterminated sections and quotes end with the file, without harm. */
	parse(&c, "blacklist {\n  devnode \"^sd[a-z]\n  device {\n    vendor \"IET");
	assert_int_equal(c.n, 2);
	assert_string_equal(c.items[0].value, "^sd[a-z]");
	assert_string_equal(c.items[1].vendor, "IET");
	multipath_conf_clear(&c);
}

static void test_parser_cover(void **state)
{
	struct multipath_conf c;
	struct multipath_conf_cover cov;
	parse(&c,
	      "blacklist {\n  device {\n    vendor \"IET\"\n    product \"VIRTUAL-DISK\"\n  }\n}\n"
	      "blacklist_exceptions {\n  device {\n    vendor \"IE.\"\n  }\n}\n");
	multipath_conf_covers_longhorn(&c, &cov);
	assert_null(cov.by);
	assert_non_null(cov.undone);
	assert_int_equal(cov.undone_by->section, MPCONF_EXCEPTIONS);
	multipath_conf_cover_clear(&cov);
	multipath_conf_clear(&c);

	parse(&c, "");
	multipath_conf_covers_longhorn(&c, &cov);
	assert_null(cov.by);
	assert_null(cov.partial);
	multipath_conf_cover_clear(&cov);
	multipath_conf_clear(&c);

	uint8_t nul[] = "blacklist {\0}";
	c = (struct multipath_conf){0};
	assert_int_equal(multipath_conf_parse(nul, sizeof(nul), "/x", &c), -EINVAL);
	multipath_conf_clear(&c);
}

/* ---- shared helpers ---------------------------------------------------------------- */

static void test_helpers(void **state)
{
	struct osrelease o;
	const char *text = "# comment\nID='opensuse-leap-micro'\nID_LIKE=\"suse opensuse\"\n"
			   "PRETTY_NAME=\"openSUSE \\\"Leap\\\" Micro 5.5\"\n";
	osrelease_parse((const uint8_t *)text, strlen(text), &o);
	assert_string_equal(o.id, "opensuse-leap-micro");
	assert_string_equal(o.pretty_name, "openSUSE \"Leap\" Micro 5.5");
	assert_int_equal(osrelease_family(&o), OS_FAMILY_SUSE);
	assert_true(osrelease_transactional(&o));
	osrelease_clear(&o);

	/* A Harvester node's /etc/os-release (harvester/tests, SLE Micro 5.2 based; the same
	 * ID is used by SLE Micro for Rancher): a read-only, image-based system. */
	const char *harvester = "NAME=\"SLE Micro\"\nVERSION=\"5.2\"\nVERSION_ID=\"5.2\"\n"
				"PRETTY_NAME=\"Harvester master\"\nID=\"sle-micro-rancher\"\n"
				"ID_LIKE=\"suse\"\nVARIANT=\"Harvester\"\n";
	osrelease_parse((const uint8_t *)harvester, strlen(harvester), &o);
	assert_int_equal(osrelease_family(&o), OS_FAMILY_SUSE);
	assert_true(osrelease_transactional(&o));
	static const struct os_packages pk = {"open-iscsi", "open-iscsi", "iscsi-initiator-utils",
					      "open-iscsi"};
	char *hint = osrelease_install_hint(&o, &pk);
	/* the command in backticks: copyable (docs/decisions.md#remedies-as-numbered-steps) */
	assert_string_equal(hint, "`transactional-update pkg install open-iscsi`, then reboot");
	free(hint);
	osrelease_clear(&o);

	struct hostroot_fixture b;
	hf_open(&b, "b-rhel9");
	struct procs_found p;
	assert_int_equal(procs_find(&b.ctx.root, "iscsid", &p), 0);
	assert_int_equal(p.total, 2);
	/* Exact names: "nfs" is not "nfsd". */
	assert_int_equal(procs_find(&b.ctx.root, "nfs", &p), 0);
	assert_int_equal(p.total, 0);
	char *where = NULL;
	assert_int_equal(unitfiles_state(&b.ctx.root, "iscsid.service", &where), UNITFILE_DISABLED);
	assert_null(where);
	assert_int_equal(unitfiles_state(&b.ctx.root, "iscsid.socket", &where), UNITFILE_ENABLED);
	assert_string_equal(where, "/etc/systemd/system/sockets.target.wants/iscsid.socket");
	free(where);
	hf_close(&b);

	/* An enablement link whose unit file is gone does not enable anything. */
	hf_scratch(&b);
	hf_symlink(&b, "etc/systemd/system/sockets.target.wants/iscsid.socket",
		   "/usr/lib/systemd/system/iscsid.socket");
	assert_int_equal(unitfiles_state(&b.ctx.root, "iscsid.socket", NULL), UNITFILE_DISABLED);
	hf_close(&b);
	hf_scratch(&b);
	assert_int_equal(unitfiles_state(&b.ctx.root, "iscsid.socket", NULL), -ENOENT);
	assert_int_equal(procs_find(&b.ctx.root, "iscsid", &p), -ENOENT);
	hf_close(&b);
}

/* RKE2's install.sh with the default tar method unpacks its units into
 * /usr/local/lib/systemd/system (rancher/rke2 v1.33.13+rke2r2 install.sh
 * unpack_tarball: they move to /etc/systemd/system only for another prefix), a
 * directory systemd loads between /run/systemd/system and /usr/lib/systemd/system
 * (systemd.unit(5) "System Unit Search Path"). */
static void test_unitfiles_usr_local(void **state)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "usr/local/lib/systemd/system/rke2-server.service",
		 "[Service]\nExecStart=/usr/local/bin/rke2 server\n");
	hf_write(&b, "usr/local/lib/systemd/system/rke2-server.service.d/10-nonroot.conf",
		 "[Service]\nEnvironment=A=1\n");
	hf_write(&b, "usr/lib/systemd/system/rke2-server.service",
		 "[Service]\nExecStart=/usr/bin/rke2 server\n");
	char *path = unitfiles_find(&b.ctx.root, "rke2-server.service");
	assert_string_equal(path, "/usr/local/lib/systemd/system/rke2-server.service");
	free(path);
	struct strv d = {0};
	unitfiles_dropins(&b.ctx.root, "rke2-server.service", 8, &d);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.items[0], "usr/local/lib/systemd/system/rke2-server.service.d/"));
	strv_clear(&d);
	hf_symlink(&b, "etc/systemd/system/multi-user.target.wants/rke2-server.service",
		   "/usr/local/lib/systemd/system/rke2-server.service");
	assert_int_equal(unitfiles_state(&b.ctx.root, "rke2-server.service", NULL),
			 UNITFILE_ENABLED);
	hf_close(&b);
}

/* The run's one listing of the unit directories (unit_scan) answers as a
 * listing per question does, on every fixture host root and for every unit
 * the checks ask about; and it is one listing: a *.wants directory made after
 * the first question is not in it. */
static void test_unit_scan_same_answers(void **state)
{
	(void)state;
	static const char *const units[] = {
	    "iscsid.socket",	 "iscsid.service",  "iscsi-init.service", "multipathd.service",
	    "multipathd.socket", "chronyd.service", "rke2-server.service"};
	_cleanup_free_ char *top = hf_fixture_path("");
	DIR *d = opendir(top);
	assert_non_null(d);
	struct dirent *de;
	size_t roots = 0, enabled = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || streq(de->d_name, "README.md"))
			continue;
		struct hostroot_fixture b;
		hf_open(&b, de->d_name);
		struct unit_scan scan = {0};
		for (size_t i = 0; i < ELEMENTSOF(units); i++) {
			char *w1 = NULL, *w2 = NULL;
			int a = unitfiles_state(&b.ctx.root, units[i], &w1);
			int c = unitfiles_state_in(&scan, &b.ctx.root, units[i], &w2);
			if (a != c || !streq(w1 ? w1 : "", w2 ? w2 : ""))
				fail_msg("%s %s: %d %s, with the shared listing %d %s", de->d_name,
					 units[i], a, w1 ? w1 : "-", c, w2 ? w2 : "-");
			enabled += a == UNITFILE_ENABLED;
			free(w1);
			free(w2);
		}
		unit_scan_clear(&scan);
		hf_close(&b);
		roots++;
	}
	closedir(d);
	assert_true(roots >= 40);
	assert_true(enabled > 0);

	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "usr/lib/systemd/system/multipathd.service", "[Service]\n");
	hf_write(&b, "usr/lib/systemd/system/multipathd.socket", "[Socket]\n");
	hf_mkdir(&b, "etc/systemd/system");
	struct unit_scan scan = {0};
	b.ctx.units = &scan;
	assert_int_equal(agent_unitfiles_state(&b.ctx, "multipathd.service", NULL),
			 UNITFILE_DISABLED);
	hf_symlink(&b, "etc/systemd/system/sockets.target.wants/multipathd.socket",
		   "/usr/lib/systemd/system/multipathd.socket");
	assert_int_equal(agent_unitfiles_state(&b.ctx, "multipathd.socket", NULL),
			 UNITFILE_DISABLED);
	assert_int_equal(unitfiles_state(&b.ctx.root, "multipathd.socket", NULL), UNITFILE_ENABLED);
	unit_scan_clear(&scan);
	assert_int_equal(agent_unitfiles_state(&b.ctx, "multipathd.socket", NULL),
			 UNITFILE_ENABLED);
	unit_scan_clear(&scan);
	b.ctx.units = NULL;
	hf_close(&b);
}

/* One read of proc/ answers every question of a run: after the first answer
 * a process that appears is not seen (the comm files are not read again),
 * while a zombie is still judged when asked. */
static void test_procs_one_scan(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "proc/1/comm", "systemd\n");
	hf_write(&b, "proc/1/stat", "1 (systemd) S 0\n");
	hf_write(&b, "proc/700/comm", "iscsid\n");
	hf_write(&b, "proc/700/stat", "700 (iscsid) S 1\n");
	hf_write(&b, "proc/800/comm", "multipathd\n");
	hf_write(&b, "proc/800/stat", "800 (multipathd) S 1\n");
	struct procs_scan scan = {0};
	struct procs_found p;
	assert_int_equal(procs_scan_find(&scan, &b.ctx.root, "iscsid", &p), 0);
	assert_int_equal(p.total, 1);
	assert_int_equal(p.pids[0], 700);
	hf_write(&b, "proc/900/comm", "multipathd\n");
	hf_write(&b, "proc/900/stat", "900 (multipathd) S 1\n");
	hf_write(&b, "proc/800/stat", "800 (multipathd) Z 1\n");
	assert_int_equal(procs_scan_find(&scan, &b.ctx.root, "multipathd", &p), 0);
	assert_int_equal(p.total, 0); /* 800 is a zombie now; 900 came after the scan */
	procs_scan_clear(&scan);
	/* A fresh scan (procs_find) sees 900. */
	assert_int_equal(procs_find(&b.ctx.root, "multipathd", &p), 0);
	assert_int_equal(p.total, 1);
	assert_int_equal(p.pids[0], 900);
	hf_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_procs_one_scan),
	    cmocka_unit_test(test_iscsi_running_debian),
	    cmocka_unit_test(test_iscsi_socket_activated_harvester),
	    cmocka_unit_test(test_iscsi_pass_rhel_ubuntu),
	    cmocka_unit_test(test_iscsi_nothing_installed),
	    cmocka_unit_test(test_iscsi_generate_name),
	    cmocka_unit_test(test_iscsi_name_from_iscsi_init),
	    cmocka_unit_test(test_iscsi_name_as_iscsid_reads_it),
	    cmocka_unit_test(test_iscsi_tcp_module),
	    cmocka_unit_test(test_iscsi_initiator_name_forms),
	    cmocka_unit_test(test_iscsi_masked_and_stopped),
	    cmocka_unit_test(test_iscsi_unknown_inputs),
	    cmocka_unit_test(test_mpath_not_running),
	    cmocka_unit_test(test_mpath_harvester_dropin_blacklist),
	    cmocka_unit_test(test_mpath_rhel_without_blacklist_warns),
	    cmocka_unit_test(test_mpath_ubuntu_default_warns),
	    cmocka_unit_test(test_mpath_rhel_without_config_is_safe),
	    cmocka_unit_test(test_mpath_devnode_forms),
	    cmocka_unit_test(test_mpath_other_covering_entries),
	    cmocka_unit_test(test_mpath_invalid_regex_and_garbage),
	    cmocka_unit_test(test_mpath_enabled_not_running),
	    cmocka_unit_test(test_mpath_kernel_cmdline_off),
	    cmocka_unit_test(test_mpath_harvester_external_storage),
	    cmocka_unit_test(test_parser_grammar),
	    cmocka_unit_test(test_parser_nesting_like_multipathd),
	    cmocka_unit_test(test_parser_cover),
	    cmocka_unit_test(test_helpers),
	    cmocka_unit_test(test_unitfiles_usr_local),
	    cmocka_unit_test(test_unit_scan_same_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
