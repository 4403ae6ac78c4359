// wrap: sys_fs_statvfs sys_fs_access
/* host.longhorn.path on fixture host roots, with free space and write access
 * from a fake sys_fs seam; and the mountinfo parser it stands on. */
#include "hostroot_fixture.h"
#include "mountinfo.h"
#include "sys_fs.h"

#define ID "host.longhorn.path"

struct fake_fs {
	const char *path;
	uint64_t blocks, bavail; /* in 4 KiB blocks */
	int statvfs_err, access_err;
};
static struct fake_fs fakes[8];
static size_t n_fakes;

/* Set the filesystem behind path (replacing an earlier setting of a sub-case). */
static struct fake_fs *fake(const char *path, uint64_t blocks, uint64_t bavail)
{
	size_t i = 0;
	while (i < n_fakes && !streq(fakes[i].path, path))
		i++;
	assert_true(i < ELEMENTSOF(fakes));
	if (i == n_fakes)
		n_fakes++;
	fakes[i] = (struct fake_fs){.path = path, .blocks = blocks, .bavail = bavail};
	return &fakes[i];
}

static struct fake_fs *lookup(const char *path)
{
	for (size_t i = 0; i < n_fakes; i++)
		if (streq(fakes[i].path, path))
			return &fakes[i];
	fail_msg("the check asked about %s, which the test did not expect", path);
	return NULL;
}

int __wrap_sys_fs_statvfs(const struct hostroot *hr, const char *path, struct statvfs *ret);
int __wrap_sys_fs_access(const struct hostroot *hr, const char *path, int mode);

int __wrap_sys_fs_statvfs(const struct hostroot *hr, const char *path, struct statvfs *ret)
{
	struct fake_fs *f = lookup(path);
	if (f->statvfs_err)
		return f->statvfs_err;
	*ret = (struct statvfs){.f_bsize = 4096,
				.f_frsize = 4096,
				.f_blocks = f->blocks,
				.f_bavail = f->bavail,
				.f_bfree = f->bavail};
	return 0;
}

int __wrap_sys_fs_access(const struct hostroot *hr, const char *path, int mode)
{
	assert_int_equal(mode, W_OK);
	return lookup(path)->access_err;
}

static int reset(void **state)
{
	n_fakes = 0;
	return 0;
}

#define GiB_BLOCKS(n) ((uint64_t)(n)*262144u) /* 4 KiB blocks per GiB */

static const struct finding *run(struct hostroot_fixture *b)
{
	return hf_run(b, check_longhorn_path, ID);
}

/* A scratch root with a mount table; dirs are created under it. */
static void lh_root(struct hostroot_fixture *b, const char *mountinfo)
{
	hf_scratch(b);
	hf_write(b, "proc/1/mountinfo", mountinfo);
	hf_mkdir(b, "var/lib");
}

#define MI_ROOT "28 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"

static void test_debian12_own_mount(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12");
	fake("/var/lib/longhorn", GiB_BLOCKS(500), GiB_BLOCKS(350));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_PASS);
	assert_string_equal(f->object, "path:/var/lib/longhorn");
	assert_contains(f->message, "ext4 /dev/sdb1 on /var/lib/longhorn (its own mount point)");
	assert_contains(f->message, "70.0% free (350.0 GiB of 500.0 GiB, minimum 25%)");
	assert_evidence(f, "mount_point", "/var/lib/longhorn");
	assert_evidence(f, "device", "/dev/sdb1");
	assert_evidence(f, "device_number", "8:17");
	assert_evidence(f, "fs_type", "ext4");
	assert_evidence(f, "mount_options", "rw,relatime");
	assert_evidence(f, "available_pct", "70.0");
	assert_evidence(f, "writable", "yes");
	int64_t v;
	assert_true(kv_get_int(&f->evidence, "threshold_pct", &v));
	assert_int_equal(v, 25);
	assert_true(kv_get_int(&f->evidence, "size_bytes", &v));
	assert_int_equal(v, INT64_C(500) << 30);
	bool ex;
	assert_true(kv_get_bool(&f->evidence, "exists", &ex));
	assert_true(ex);
	hf_close(&b);
}

/* A Kubernetes node: CNI pins each pod's network namespace under /run/netns, and the
 * kernel shows those nsfs mounts' root as "net:[INODE]" (fs/nsfs.c nsfs_show_path),
 * not a path. The line is valid; the check must still decide. */
static void test_rke2_node_with_pod_netns(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-rke2-pod-netns");
	fake("/var/lib/longhorn", GiB_BLOCKS(500), GiB_BLOCKS(350));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "mount_point", "/var/lib/longhorn");
	assert_evidence(f, "device", "/dev/sdb1");
	hf_close(&b);
}

static void test_rhel9_below_threshold_fails(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-rhel9");
	fake("/var/lib/longhorn", GiB_BLOCKS(200), GiB_BLOCKS(20));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "only 10.0% free (20.0 GiB of 200.0 GiB)");
	assert_contains(f->message, "storage-minimal-available-percentage of 25%");
	assert_contains(f->remediation, "storage-minimal-available-percentage");
	assert_evidence(f, "fs_type", "xfs");
	hf_close(&b);
}

static void test_threshold_from_options(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-rhel9");
	b.opts.thr.longhorn_min_available_pct = 50;
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(40));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "of 50%");
	hf_close(&b);
}

/* A bind mount is not a filesystem of its own: /var/lib/longhorn bound from a
 * directory of / ("mount --bind /srv/longhorn /var/lib/longhorn", or an fstab
 * "bind" line) has its own mount point, but the device (8:1) and the mountinfo
 * root (/srv/longhorn) say it is the root filesystem. It passed as "its own
 * mount point" before. */
static void test_bind_mount_of_root_dir(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b, MI_ROOT "40 28 8:1 /srv/longhorn /var/lib/longhorn rw,relatime shared:1 - ext4 "
			    "/dev/sda1 rw,errors=remount-ro\n");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(80));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "on the root filesystem (ext4 /dev/sda1, through the bind "
				    "mount /var/lib/longhorn of its directory /srv/longhorn");
	assert_null(strstr(f->message, "its own mount point"));
	assert_evidence_contains(f, "mount_root", "/srv/longhorn");
	hf_close(&b);
}

/* Harvester's layout (harvester-installer
 * package/harvester-os/files/system/oem/00_ros-rootfs.yaml and the installed
 * system's persistent state): / is the read-only OS image, COS_PERSISTENT is
 * mounted at /usr/local and its .state directories are bound to the persistent
 * paths, /var/lib/rancher, /var/lib/kubelet and /var/lib/longhorn among them;
 * Longhorn's data disk, when one was chosen, is its own partition at
 * /var/lib/harvester/defaultdisk. /var/lib/longhorn bound from COS_PERSISTENT
 * shares that partition with RKE2's images and etcd and the kubelet. */
#define MI_HARVESTER                                                                               \
	"26 1 7:0 / / ro,relatime shared:1 - ext2 /dev/loop0 ro\n"                                 \
	"45 26 8:2 /cOS /run/initramfs/cos-state ro,relatime shared:23 - ext4 /dev/sda2 ro\n"      \
	"50 26 8:5 / /usr/local rw,relatime shared:28 - ext4 /dev/sda5 rw\n"                       \
	"53 26 8:5 /.state/var-lib-rancher.bind /var/lib/rancher rw,relatime shared:28 - ext4 "    \
	"/dev/sda5 rw\n"                                                                           \
	"54 26 8:5 /.state/var-lib-kubelet.bind /var/lib/kubelet rw,relatime shared:28 - ext4 "    \
	"/dev/sda5 rw\n"                                                                           \
	"55 26 8:5 /.state/var-lib-longhorn.bind /var/lib/longhorn rw,relatime shared:28 - ext4 "  \
	"/dev/sda5 rw\n"                                                                           \
	"56 26 8:6 / /var/lib/harvester/defaultdisk rw,relatime shared:30 - ext4 /dev/sda6 rw\n"

static void test_bind_mount_harvester_persistent(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b, MI_HARVESTER);
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(150), GiB_BLOCKS(120));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "ext4 /dev/sda5 (8:5, bind mount of "
				    "/.state/var-lib-longhorn.bind)");
	assert_contains(f->message, "also holds /usr/local, /var/lib/rancher, /var/lib/kubelet");
	assert_evidence(f, "shares_filesystem_with",
			"/usr/local, /var/lib/rancher, /var/lib/kubelet");
	assert_contains(f->remediation, "/var/lib/harvester/defaultdisk");
	hf_close(&b);
}

/* A bind mount of a directory of a disk of its own: PASS. */
static void test_bind_mount_own_disk_passes(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b, MI_ROOT "41 28 8:17 / /mnt/data rw,relatime shared:2 - xfs /dev/sdb1 rw\n"
			    "42 28 8:17 /longhorn /var/lib/longhorn rw,relatime shared:2 - xfs "
			    "/dev/sdb1 rw\n");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(500), GiB_BLOCKS(400));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_PASS);
	assert_contains(f->message, "xfs /dev/sdb1 on /var/lib/longhorn (a bind mount of a "
				    "filesystem of its own)");
	hf_close(&b);
}

static void test_ubuntu_missing_on_root(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-ubuntu2204-nonfs");
	fake("/var/lib", GiB_BLOCKS(98), GiB_BLOCKS(61));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "/var/lib/longhorn does not exist yet");
	assert_contains(f->message,
			"on the root filesystem (ext4 /dev/mapper/ubuntu--vg-ubuntu--lv)");
	assert_contains(f->remediation, "own disk or partition");
	assert_evidence(f, "judged_path", "/var/lib");
	assert_evidence(f, "mount_point", "/");
	bool ex;
	assert_true(kv_get_bool(&f->evidence, "exists", &ex));
	assert_false(ex);
	hf_close(&b);
}

static void test_missing_and_full_fails(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-ubuntu2204-nonfs");
	fake("/var/lib", GiB_BLOCKS(98), GiB_BLOCKS(9));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "below Longhorn's storage-minimal-available-percentage");
	hf_close(&b);
}

static void test_harvester_probe_target_paths(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-slemicro55-harvester");
	strv_add(&b.opts.targets.longhorn_data_paths, "/var/lib/harvester/defaultdisk");
	strv_add(&b.opts.targets.longhorn_data_paths, "/var/lib/longhorn/");
	fake("/var/lib/harvester/defaultdisk", GiB_BLOCKS(800), GiB_BLOCKS(610));
	fake("/var/lib/longhorn", GiB_BLOCKS(150), GiB_BLOCKS(120));
	check_longhorn_path(&b.ctx, ID);
	assert_int_equal(b.report.results.n, 2);
	const struct finding *f = &b.report.results.items[0];
	assert_verdict(f, STATUS_PASS);
	assert_string_equal(f->object, "path:/var/lib/harvester/defaultdisk");
	assert_evidence(f, "device", "/dev/sda6");
	f = &b.report.results.items[1];
	assert_string_equal(f->object, "path:/var/lib/longhorn/");
	/* Harvester's root is a read-only image and /var a tmpfs overlay; /var/lib/longhorn
	 * is one of the persistent paths bind-mounted from COS_PERSISTENT, the partition of
	 * /usr/local, /var/lib/rancher and /var/lib/kubelet (harvester/harvester-installer
	 * v1.4.1 pkg/config/templates/cos-rootfs.yaml): not a filesystem of its own. */
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "also holds /usr/local, /var/lib/rancher, /var/lib/kubelet");
	assert_evidence(f, "mount_point", "/var/lib/longhorn");
	assert_evidence(f, "device", "/dev/sda5");
	hf_close(&b);
}

static void test_read_only_mount_fails(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b, MI_ROOT "45 28 8:17 / /var/lib/longhorn ro,relatime shared:27 - ext4 /dev/sdb1 "
			    "ro\n");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(90))->access_err = -EROFS;
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "read-only mount (/var/lib/longhorn, ro,relatime)");
	assert_contains(f->remediation, "mount -o remount,rw /var/lib/longhorn");
	assert_evidence(f, "writable", "no: read-only file system");
	hf_close(&b);

	/* Read-only in the superblock options only (ext4 remounted ro after errors). */
	lh_root(&b, MI_ROOT "45 28 8:17 / /var/lib/longhorn rw,relatime - ext4 /dev/sdb1 "
			    "ro,errors=remount-ro\n");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(90));
	f = run(&b);
	assert_verdict(f, STATUS_FAIL);
	hf_close(&b);
}

static void test_agent_view_read_only_is_not_the_hosts(void **state)
{
	/* The DaemonSet may mount the host root readOnly: EROFS there says nothing. */
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(90))->access_err = -EROFS;
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence_contains(f, "writable", "not testable");
	hf_close(&b);

	hf_open(&b, "b-debian12");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(90))->access_err = -EPERM;
	f = run(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "immutable attribute");
	hf_close(&b);
}

static void test_filesystem_types(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b, MI_ROOT "45 28 0:52 /@longhorn /var/lib/longhorn rw,relatime - btrfs /dev/sdb2 "
			    "rw,ssd,space_cache=v2,subvolid=257,subvol=/@longhorn\n");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(90));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "is on btrfs; Longhorn supports ext4 and XFS");
	hf_close(&b);

	lh_root(&b, MI_ROOT "45 28 0:60 / /var/lib/longhorn rw,relatime - tmpfs tmpfs "
			    "rw,size=8388608k\n");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(8), GiB_BLOCKS(8));
	f = run(&b);
	assert_verdict(f, STATUS_WARN);
	assert_contains(f->message, "lost at reboot");
	hf_close(&b);
}

static void test_not_a_directory(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b, MI_ROOT);
	hf_write(&b, "var/lib/longhorn", "oops\n");
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "exists but is not a directory");
	hf_close(&b);

	lh_root(&b, MI_ROOT);
	hf_write(&b, "data", "a file where a directory should be\n");
	strv_add(&b.opts.targets.longhorn_data_paths, "/data/longhorn");
	f = run(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "/data is not a directory");
	hf_close(&b);
}

static void test_bad_paths_from_targets(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b, MI_ROOT);
	hf_mkdir(&b, "var/lib/longhorn");
	strv_add(&b.opts.targets.longhorn_data_paths, "var/lib/longhorn");
	strv_add(&b.opts.targets.longhorn_data_paths, "/var//lib/./x/../longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(50));
	check_longhorn_path(&b.ctx, ID);
	assert_int_equal(b.report.results.n, 2);
	assert_verdict(&b.report.results.items[0], STATUS_UNKNOWN);
	assert_contains(b.report.results.items[0].message, "not an absolute path");
	/* Normalised, on the root filesystem. */
	assert_verdict(&b.report.results.items[1], STATUS_WARN);
	assert_contains(b.report.results.items[1].message,
			"/var/lib/longhorn is on the root filesystem");
	hf_close(&b);
}

static void test_mount_table_problems(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b, MI_ROOT "this is not a mountinfo line\n");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(50));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "proc/1/mountinfo: line 2 is malformed");
	/* The free space is still reported. */
	assert_evidence(f, "available_pct", "50.0");
	hf_close(&b);

	/* Unreadable mount table and EROFS: read-only for sure. */
	lh_root(&b, MI_ROOT);
	hf_remove(&b, "proc/1/mountinfo");
	hf_mkdir(&b, "proc/1/mountinfo");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(50))->access_err = -EROFS;
	f = run(&b);
	assert_verdict(f, STATUS_FAIL);
	assert_contains(f->message, "read-only filesystem");
	hf_close(&b);

	/* Unreadable mount table alone: UNKNOWN, and the remedy says how to let the
	 * agent read it. */
	lh_root(&b, MI_ROOT);
	hf_remove(&b, "proc/1/mountinfo");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(50));
	f = run(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "could not read the host's mount table");
	assert_contains(f->remediation, "hostPID");
	hf_close(&b);

	/* No mount holds the path. */
	lh_root(&b, "45 28 8:17 / /boot rw - ext4 /dev/sda2 rw\n");
	hf_mkdir(&b, "var/lib/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(100), GiB_BLOCKS(50));
	f = run(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "no mount in");
	hf_close(&b);
}

static void test_statvfs_problems(void **state)
{
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12");
	fake("/var/lib/longhorn", 0, 0)->statvfs_err = -EIO;
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "could not get the free space");
	hf_close(&b);

	hf_open(&b, "b-debian12");
	fake("/var/lib/longhorn", 0, 0);
	f = run(&b);
	assert_verdict(f, STATUS_UNKNOWN);
	assert_contains(f->message, "reports no size");
	hf_close(&b);
}

static void test_symlinked_path_resolves_in_root(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b, MI_ROOT "50 28 253:3 / /data rw,noatime - xfs /dev/mapper/vg0-data rw,attr2\n");
	hf_mkdir(&b, "data/longhorn");
	hf_symlink(&b, "var/lib/longhorn", "/data/longhorn");
	fake("/var/lib/longhorn", GiB_BLOCKS(1000), GiB_BLOCKS(900));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "resolved_path", "/data/longhorn");
	assert_evidence(f, "mount_point", "/data");
	assert_evidence(f, "fs_type", "xfs");
	hf_close(&b);
}

static void test_escaped_mount_point(void **state)
{
	struct hostroot_fixture b;
	lh_root(&b,
		MI_ROOT "51 28 8:33 / /mnt/longhorn\\040disk rw,relatime - ext4 /dev/sdc1 rw\n");
	hf_mkdir(&b, "mnt/longhorn disk");
	strv_add(&b.opts.targets.longhorn_data_paths, "/mnt/longhorn disk");
	fake("/mnt/longhorn disk", GiB_BLOCKS(10), GiB_BLOCKS(5));
	const struct finding *f = run(&b);
	assert_verdict(f, STATUS_PASS);
	assert_evidence(f, "mount_point", "/mnt/longhorn disk");
	hf_close(&b);
}

/* ---- mountinfo ------------------------------------------------------------------ */

static void test_mountinfo_parse(void **state)
{
	const char *text =
	    "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n"
	    "40 36 0:50 / /var rw shared:5 master:2 propagate_from:3 - xfs /dev/sdb rw\n"
	    "41 36 0:51 / /variable rw - tmpfs  rw\n"
	    "42 40 0:52 / /var/lib\\134x rw - ext4 /dev/sd\\011c rw\n"
	    "43 40 0:53 / /var rw - overlay overlay rw\n"
	    "44 26 0:4 net:[4026532587] /run/netns/cni-4f1b2d3c rw shared:632 - nsfs nsfs rw\n";
	struct mountinfo mi;
	size_t bad = 0;
	assert_int_equal(mountinfo_parse((const uint8_t *)text, strlen(text), &mi, &bad), 0);
	assert_int_equal(mi.n, 6);
	assert_string_equal(mi.items[5].root, "net:[4026532587]");
	assert_string_equal(mi.items[5].fstype, "nsfs");
	assert_int_equal(mi.items[0].major, 98);
	assert_string_equal(mi.items[0].root, "/mnt1");
	assert_string_equal(mi.items[0].fstype, "ext3");
	assert_string_equal(mi.items[0].super_opts, "rw,errors=continue");
	assert_string_equal(mi.items[1].fstype, "xfs");
	assert_string_equal(mi.items[2].source, "");
	assert_string_equal(mi.items[3].mount_point, "/var/lib\\x");
	assert_string_equal(mi.items[3].source, "/dev/sd\tc");
	/* Longest prefix, the topmost of stacked mounts, and whole components only. */
	assert_string_equal(mountinfo_find(&mi, "/var/lib/longhorn")->fstype, "overlay");
	assert_string_equal(mountinfo_find(&mi, "/variable/x")->fstype, "tmpfs");
	assert_null(mountinfo_find(&mi, "/"));
	assert_true(mountinfo_has_opt("rw,noatime", "noatime"));
	assert_false(mountinfo_has_opt("rw,noatime", "atime"));
	assert_false(mountinfo_has_opt("rw,ro=1", "ro"));
	mountinfo_clear(&mi);

	static const char *const bad_lines[] = {
	    "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw\n", /* no separator */
	    "36 35 98 / / rw - ext4 /dev/sda rw\n",			      /* no minor */
	    "x 35 8:0 / / rw - ext4 /dev/sda rw\n",			      /* id */
	    "36 35 8:0 / / rw - ext4 /dev/sda rw extra\n",		      /* field count */
	    "36 35 8:0 / relative rw - ext4 /dev/sda rw\n",		      /* mount point */
	    "36 35 8:0  / rw - ext4 /dev/sda rw\n",			      /* empty root */
	};
	for (size_t i = 0; i < ELEMENTSOF(bad_lines); i++) {
		char buf[256];
		snprintf(buf, sizeof(buf), "26 1 8:1 / / rw - ext4 /dev/sda1 rw\n%s", bad_lines[i]);
		bad = 0;
		assert_int_equal(mountinfo_parse((const uint8_t *)buf, strlen(buf), &mi, &bad),
				 -EINVAL);
		assert_int_equal(bad, 2);
		assert_int_equal(mi.n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_debian12_own_mount, reset),
	    cmocka_unit_test_setup(test_bind_mount_of_root_dir, reset),
	    cmocka_unit_test_setup(test_bind_mount_harvester_persistent, reset),
	    cmocka_unit_test_setup(test_bind_mount_own_disk_passes, reset),
	    cmocka_unit_test_setup(test_rke2_node_with_pod_netns, reset),
	    cmocka_unit_test_setup(test_rhel9_below_threshold_fails, reset),
	    cmocka_unit_test_setup(test_threshold_from_options, reset),
	    cmocka_unit_test_setup(test_ubuntu_missing_on_root, reset),
	    cmocka_unit_test_setup(test_missing_and_full_fails, reset),
	    cmocka_unit_test_setup(test_harvester_probe_target_paths, reset),
	    cmocka_unit_test_setup(test_read_only_mount_fails, reset),
	    cmocka_unit_test_setup(test_agent_view_read_only_is_not_the_hosts, reset),
	    cmocka_unit_test_setup(test_filesystem_types, reset),
	    cmocka_unit_test_setup(test_not_a_directory, reset),
	    cmocka_unit_test_setup(test_bad_paths_from_targets, reset),
	    cmocka_unit_test_setup(test_mount_table_problems, reset),
	    cmocka_unit_test_setup(test_statvfs_problems, reset),
	    cmocka_unit_test_setup(test_symlinked_path_resolves_in_root, reset),
	    cmocka_unit_test_setup(test_escaped_mount_point, reset),
	    cmocka_unit_test(test_mountinfo_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
