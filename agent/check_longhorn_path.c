/*
 * host.longhorn.path: the directory where Longhorn keeps this node's replicas
 * (its default data path /var/lib/longhorn, or the disks Longhorn reports for
 * the node, handed over as probe targets). One finding per path, with object
 * "path:<path>".
 *
 * Judged on the filesystem that holds it, from the host's mount table
 * (proc/1/mountinfo) and statvfs/access through the sys_fs seam:
 *   - exists and is a directory; a missing path (before Longhorn's install) is
 *     judged on the filesystem it will be created on, its nearest existing parent;
 *   - writable: not on a read-only mount;
 *   - its own filesystem: on the root filesystem Longhorn competes with the OS
 *     (and etcd, and the container images) for space;
 *   - ext4 or XFS, the filesystems Longhorn supports for data paths;
 *   - free space at or above Longhorn's storage-minimal-available-percentage,
 *     below which Longhorn schedules no replica on the disk.
 */
#include "checks.h"
#include "judge.h"
#include "mountinfo.h"
#include "sys_fs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define LONGHORN_DEFAULT_PATH "/var/lib/longhorn"

/* Lexically normalised absolute path ("/var//lib/./x/.." → "/var/lib"), NULL if relative. */
static char *normalize(const char *p)
{
	if (!p || p[0] != '/')
		return NULL;
	size_t n = strlen(p);
	char *out = xmalloc(n + 2);
	size_t o = 0;
	out[o++] = '/';
	for (const char *s = p; *s;) {
		while (*s == '/')
			s++;
		size_t l = strcspn(s, "/");
		if (l == 0)
			break;
		if (l == 1 && s[0] == '.') {
		} else if (l == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 1 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
		} else {
			if (o > 1)
				out[o++] = '/';
			memcpy(out + o, s, l);
			o += l;
		}
		s += l;
	}
	out[o] = '\0';
	return out;
}

/* "/var/lib/longhorn" → "/var/lib", "/var" → "/", "/" → NULL. */
static char *parent_of(const char *p)
{
	if (streq(p, "/"))
		return NULL;
	const char *slash = strrchr(p, '/');
	return slash == p ? xstrdup("/") : xstrndup(p, (size_t)(slash - p));
}

static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)b;
	size_t u = 0;
	while (v >= 1024 && u + 1 < ELEMENTSOF(units)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

struct mounts {
	int err;
	struct mountinfo mi;
	char *file;
	size_t bad_line;
};

/* Where a missing path would be created: its nearest existing ancestor. Returns 0
 * with *ret set, or -errno (-ENOTDIR: that ancestor is not a directory). */
static int nearest_ancestor(const struct hostroot *hr, const char *path, char **ret)
{
	_cleanup_free_ char *cur = parent_of(path);
	while (cur) {
		struct stat st;
		int r = hostroot_stat(hr, cur, &st);
		if (r == 0) {
			if (!S_ISDIR(st.st_mode)) {
				*ret = xstrdup(cur);
				return -ENOTDIR;
			}
			*ret = cur;
			cur = NULL;
			return 0;
		}
		if (r != -ENOENT && r != -ENOTDIR)
			return r;
		char *up = parent_of(cur);
		free(cur);
		cur = up;
	}
	return -ENOENT;
}

static void judge_mount(const struct mounts *m, const char *path, const char *real, bool exists,
			struct kv_list *ev, struct judge *j, bool *ret_ro_known, bool *ret_ro)
{
	*ret_ro_known = false;
	if (m->err) {
		_cleanup_free_ char *why = m->err == -EINVAL
					       ? xasprintf("line %zu is malformed", m->bad_line)
					       : xstrdup(util_read_strerror(m->err));
		kv_add_strf(ev, "mount_point", "unknown: %s: %s", m->file ? m->file : "mountinfo",
			    why);
		judge_note(j, STATUS_UNKNOWN, "could not read the host's mount table (%s: %s)",
			   m->file ? m->file : "mountinfo", why);
		judge_remedy(j, "Run the agent with the host's PID namespace and root filesystem "
				"(the DaemonSet sets hostPID and mounts / at /host) so it can read "
				"/proc/1/mountinfo.");
		return;
	}
	const struct mountinfo_entry *e = mountinfo_find(&m->mi, real);
	if (!e) {
		kv_add_strf(ev, "mount_point", "unknown: no mount in %s holds %s", m->file, real);
		judge_note(j, STATUS_UNKNOWN, "no mount in %s holds %s", m->file, real);
		judge_remedy(j,
			     "Run the agent with the host's PID namespace and root filesystem "
			     "(the DaemonSet sets hostPID and mounts / at /host), so that %s is "
			     "the host's mount table.",
			     m->file);
		return;
	}
	kv_add_str(ev, "mount_point", e->mount_point);
	kv_add_str(ev, "device", e->source);
	kv_add_strf(ev, "device_number", "%u:%u", e->major, e->minor);
	kv_add_str(ev, "fs_type", e->fstype);
	kv_add_str(ev, "mount_options", e->mount_opts);
	kv_add_str(ev, "superblock_options", e->super_opts);
	*ret_ro_known = true;
	*ret_ro = mountinfo_has_opt(e->mount_opts, "ro") || mountinfo_has_opt(e->super_opts, "ro");

	if (*ret_ro) {
		judge_note(j, STATUS_FAIL, "%s is on a read-only mount (%s, %s)", path,
			   e->mount_point, e->mount_opts);
		judge_remedy(j, "Mount %s read-write: `mount -o remount,rw %s`.", e->mount_point,
			     e->mount_point);
		judge_remedy(j, "Fix its /etc/fstab entry so that it mounts read-write at boot.");
	}
	/* A bind mount has a mount point of its own but not a filesystem: the
	 * device (major:minor) says which filesystem it is, the mountinfo root
	 * which directory of it. A directory of / bound to the path, or (Harvester,
	 * whose persistent paths are bind mounts of the COS_PERSISTENT partition
	 * also mounted at /usr/local: harvester-installer
	 * package/harvester-os/files/system/oem/00_ros-rootfs.yaml) a directory of
	 * the partition that holds /usr/local, /var/lib/rancher and
	 * /var/lib/kubelet, is that filesystem's space, shared. */
	const struct mountinfo_entry *rootfs = mountinfo_find(&m->mi, "/");
	bool on_root = streq(e->mount_point, "/") ||
		       (rootfs && rootfs->major == e->major && rootfs->minor == e->minor);
	bool bind = !streq(e->root, "/");
	if (bind)
		kv_add_strf(ev, "mount_root", "%s (a bind mount of that directory of %s)", e->root,
			    e->source);
	static const char *const state_paths[] = {"/usr/local", "/var/lib/rancher",
						  "/var/lib/kubelet"};
	struct strv shared = {0};
	if (!on_root)
		for (size_t i = 0; i < ELEMENTSOF(state_paths); i++) {
			const struct mountinfo_entry *s = mountinfo_find(&m->mi, state_paths[i]);
			if (s && s->major == e->major && s->minor == e->minor &&
			    !startswith(real, state_paths[i]))
				strv_add(&shared, state_paths[i]);
		}
	if (on_root) {
		_cleanup_free_ char *how =
		    streq(e->mount_point, "/")
			? xstrdup("")
			: xasprintf(", through the bind mount %s of its directory %s, device %u:%u",
				    e->mount_point, e->root, e->major, e->minor);
		judge_note(
		    j, STATUS_WARN,
		    "%s is on the root filesystem (%s %s%s): Longhorn's replicas compete with "
		    "the OS, etcd and container images for its space",
		    path, e->fstype, rootfs ? rootfs->source : e->source, how);
		judge_remedy(j,
			     "Give Longhorn its own disk or partition (ext4 or XFS) mounted at "
			     "%s, in /etc/fstab%s.",
			     path,
			     exists ? ", moving the existing data first" : ", before installing");
	} else if (shared.n > 0) {
		_cleanup_free_ char *list = strv_join(&shared, ", ");
		kv_add_str(ev, "shares_filesystem_with", list);
		judge_note(j, STATUS_WARN,
			   "%s is on %s %s (%u:%u%s%s), the filesystem that also holds %s: "
			   "Longhorn's replicas compete with container images, etcd and the "
			   "kubelet for its space",
			   path, e->fstype, e->source, e->major, e->minor,
			   bind ? ", bind mount of " : "", bind ? e->root : "", list);
		judge_remedy(j,
			     "Give Longhorn a disk or partition of its own (ext4 or XFS) at %s "
			     "(on Harvester: the data disk chosen at install, mounted at "
			     "/var/lib/harvester/defaultdisk), or add such a disk to the Longhorn "
			     "node.",
			     path);
	} else {
		judge_note(j, STATUS_PASS, "%s %s on %s%s", e->fstype, e->source, e->mount_point,
			   !streq(e->mount_point, real) ? ""
			   : bind ? " (a bind mount of a filesystem of its own)"
				  : " (its own mount point)");
	}
	strv_clear(&shared);
	if (!streq(e->fstype, "ext4") && !streq(e->fstype, "xfs")) {
		judge_note(j, STATUS_WARN,
			   "%s is on %s; Longhorn supports ext4 and XFS for its data path%s", path,
			   e->fstype,
			   streq(e->fstype, "tmpfs") || streq(e->fstype, "ramfs")
			       ? " (and this one is lost at reboot)"
			       : "");
		judge_remedy(j, "Put %s on an ext4 or XFS filesystem.", path);
	}
}

static void judge_write(const struct hostroot *hr, const char *judged, const char *path,
			bool ro_known, bool ro, struct kv_list *ev, struct judge *j)
{
	int r = sys_fs_access(hr, judged, W_OK);
	if (r == 0) {
		kv_add_str(ev, "writable", "yes");
		return;
	}
	if (r == -EROFS && ro_known && !ro) {
		/* The host mounts it rw: the read-only view is the agent's own (a readOnly
		 * hostPath mount of the host root), which says nothing about the host. */
		kv_add_str(ev, "writable",
			   "not testable: the agent's view of the host root is "
			   "read-only; the host mount is rw");
		return;
	}
	if (r == -EROFS) {
		kv_add_str(ev, "writable", "no: read-only file system");
		if (!ro_known)
			judge_note(j, STATUS_FAIL, "%s is on a read-only filesystem", path);
		return;
	}
	if (r == -EACCES && ro_known) {
		/* Longhorn runs as root; a non-root agent is refused where Longhorn is not. */
		kv_add_str(ev, "writable", "not testable: permission denied to the agent");
		return;
	}
	kv_add_strf(ev, "writable", "unknown: %s", strerror(-r));
	judge_note(j, r == -EPERM ? STATUS_WARN : STATUS_UNKNOWN,
		   "write access to %s refused: %s%s", path, strerror(-r),
		   r == -EPERM ? " (immutable attribute or a security module)" : "");
	if (r == -EPERM)
		judge_remedy(
		    j,
		    "Clear the immutable attribute (`lsattr -d %s`, `chattr -i %s`), or let "
		    "Longhorn write there in the security module (SELinux: `ausearch -m "
		    "avc`; AppArmor: `dmesg | grep apparmor`).",
		    path, path);
	else
		judge_remedy(j,
			     "Try a write as root on the node (`touch %s/.hvready-test && rm "
			     "%s/.hvready-test`) and fix what refuses it.",
			     path, path);
}

static void judge_space(const struct hostroot *hr, const char *judged, const char *path,
			int64_t threshold, struct kv_list *ev, struct judge *j)
{
	struct statvfs sv;
	int r = sys_fs_statvfs(hr, judged, &sv);
	kv_add_int(ev, "threshold_pct", threshold);
	if (r < 0) {
		kv_add_strf(ev, "available_pct", "unknown: statvfs: %s", strerror(-r));
		judge_note(j, STATUS_UNKNOWN, "could not get the free space of %s: %s", path,
			   strerror(-r));
		judge_remedy(j,
			     "Run `df -h %s` on the node; an I/O error there means a failing "
			     "disk or mount, which Longhorn would meet too.",
			     path);
		return;
	}
	uint64_t frsize = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	uint64_t size = (uint64_t)sv.f_blocks * frsize, avail = (uint64_t)sv.f_bavail * frsize;
	kv_add_int(ev, "size_bytes", (int64_t)size);
	kv_add_int(ev, "available_bytes", (int64_t)avail);
	if (sv.f_blocks == 0) {
		kv_add_str(ev, "available_pct", "unknown: the filesystem reports no size");
		judge_note(j, STATUS_UNKNOWN, "the filesystem of %s reports no size", path);
		judge_remedy(j,
			     "Run `df -h %s` on the node: a filesystem without a size (a "
			     "pseudo or network filesystem) is no place for Longhorn's replicas.",
			     path);
		return;
	}
	double pct = 100.0 * (double)sv.f_bavail / (double)sv.f_blocks;
	kv_add_strf(ev, "available_pct", "%.1f", pct);
	char a[32], s[32];
	fmt_bytes(a, sizeof(a), avail);
	fmt_bytes(s, sizeof(s), size);
	if (pct < (double)threshold) {
		judge_note(
		    j, STATUS_FAIL,
		    "only %.1f%% free (%s of %s), below Longhorn's "
		    "storage-minimal-available-percentage of %lld%%: no replica is scheduled "
		    "on it",
		    pct, a, s, (long long)threshold);
		judge_remedy(j,
			     "Free space on that filesystem or grow it (or add a disk); the "
			     "threshold is Longhorn's setting storage-minimal-available-percentage "
			     "(default 25).");
	} else {
		judge_note(j, STATUS_PASS, "%.1f%% free (%s of %s, minimum %lld%%)", pct, a, s,
			   (long long)threshold);
	}
}

/* A path the agent cannot stat: its view of the host, or the path itself. */
#define LOOKUP_REMEDY                                                                              \
	"Run the agent with the host's / as the host root (the DaemonSet mounts it at /host), "    \
	"and check the path as root on the node: `ls -ld` it."

static void check_one(struct agent_ctx *ctx, const char *id, const char *path,
		      const struct mounts *m)
{
	const struct hostroot *hr = &ctx->root;
	struct finding *f = agent_finding(ctx, id);
	struct kv_list *ev = &f->evidence;
	finding_set_object(f, "path:%s", path);
	kv_add_str(ev, "path", path);
	struct judge j = {0};
	_cleanup_free_ char *norm = normalize(path);
	_cleanup_free_ char *judged = NULL, *real = NULL;
	bool exists = false;
	struct stat st;
	int r;

	if (!norm) {
		judge_note(&j, STATUS_UNKNOWN, "\"%s\" is not an absolute path", path);
		judge_remedy(&j,
			     "Give longhorn_data_paths in the probe targets as absolute paths, as "
			     "Longhorn's disk paths are (/var/lib/longhorn).");
		goto done;
	}
	r = hostroot_stat(hr, norm, &st);
	if (r == 0 && !S_ISDIR(st.st_mode)) {
		kv_add_bool(ev, "exists", true);
		judge_note(&j, STATUS_FAIL, "%s exists but is not a directory", norm);
		judge_remedy(
		    &j, "Move the file at %s away, or point Longhorn's data path elsewhere.", norm);
		goto done;
	} else if (r == 0) {
		exists = true;
		judged = xstrdup(norm);
	} else if (r == -ENOENT || r == -ENOTDIR) {
		r = nearest_ancestor(hr, norm, &judged);
		if (r == -ENOTDIR) {
			judge_note(&j, STATUS_FAIL, "%s cannot be created: %s is not a directory",
				   norm, judged);
			judge_remedy(&j, "Point Longhorn's data path at a directory.");
			goto done;
		}
		if (r < 0) {
			judge_note(&j, STATUS_UNKNOWN, "could not look up %s: %s", norm,
				   strerror(-r));
			judge_remedy(&j, "%s", LOOKUP_REMEDY);
			goto done;
		}
		judge_note(
		    &j, STATUS_WARN,
		    "%s does not exist yet (Longhorn creates it); judged on %s, where it will "
		    "be created",
		    norm, judged);
	} else {
		_cleanup_free_ char *d = hostroot_display(hr, norm);
		judge_note(&j, STATUS_UNKNOWN, "could not look up %s: %s", d, strerror(-r));
		judge_remedy(&j, "%s", LOOKUP_REMEDY);
		goto done;
	}
	kv_add_bool(ev, "exists", exists);
	if (!exists)
		kv_add_str(ev, "judged_path", judged);
	if (sys_fs_realpath(hr, judged, &real) < 0)
		real = xstrdup(judged);
	if (!streq(real, judged))
		kv_add_str(ev, "resolved_path", real);

	bool ro_known, ro = false;
	judge_mount(m, norm, real, exists, ev, &j, &ro_known, &ro);
	judge_write(hr, judged, norm, ro_known, ro, ev, &j);
	judge_space(hr, judged, norm, ctx->opts->thr.longhorn_min_available_pct, ev, &j);
done:
	judge_apply(&j, f, "");
	judge_clear(&j);
}

void check_longhorn_path(struct agent_ctx *ctx, const char *id)
{
	struct mounts m = {0};
	m.err = mountinfo_read(&ctx->root, &m.mi, &m.file, &m.bad_line);
	const struct strv *paths = &ctx->opts->targets.longhorn_data_paths;
	if (paths->n == 0)
		check_one(ctx, id, LONGHORN_DEFAULT_PATH, &m);
	for (size_t i = 0; i < paths->n; i++)
		check_one(ctx, id, paths->items[i], &m);
	mountinfo_clear(&m.mi);
	free(m.file);
}
