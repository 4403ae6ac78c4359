/*
 * host.nfs.client: the userspace half of the NFS client. Longhorn's CSI plugin
 * mounts an RWX volume's share with the host's mount(8) (`mount -t nfs -o
 * vers=4.1,...`), which execs the mount.nfs helper from nfs-common /
 * nfs-client / nfs-utils. Without it the mount fails before any packet is
 * sent, and the RWX volume's pod hangs in ContainerCreating with a mount error.
 */
#include "checks.h"
#include "hostbin.h"
#include "judge.h"
#include "osrelease.h"

#include <string.h>

static const struct os_packages nfs_packages = {
    .debian = "nfs-common",
    .suse = "nfs-client",
    .rhel = "nfs-utils",
    .arch = "nfs-utils",
};

static void add_paths(struct value_list *l, const struct strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		vlist_add_str(l, v->items[i]);
}

static char *first_or_none(const struct strv *v)
{
	return xstrdup(v->n ? v->items[0] : "none");
}

void check_nfs_client(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = agent_finding(ctx, id);
	struct osrelease os;
	osrelease_read(&ctx->root, &os);
	struct hostbin nfs, nfs4;
	hostbin_find(&ctx->root, "mount.nfs", &nfs);
	hostbin_find(&ctx->root, "mount.nfs4", &nfs4);
	_cleanup_free_ char *dirs = hostbin_dirs_str();
	_cleanup_free_ char *install = osrelease_install_hint(&os, &nfs_packages);
	const char *pkg = osrelease_package(&os, &nfs_packages);

	struct value_list *found = kv_add_list(&f->evidence, "helpers");
	add_paths(found, &nfs.found);
	add_paths(found, &nfs4.found);
	if (nfs.not_exec.n || nfs4.not_exec.n) {
		struct value_list *ne = kv_add_list(&f->evidence, "not_executable");
		add_paths(ne, &nfs.not_exec);
		add_paths(ne, &nfs4.not_exec);
	}
	if (nfs.unreadable.n || nfs4.unreadable.n) {
		struct value_list *un = kv_add_list(&f->evidence, "unreadable");
		add_paths(un, &nfs.unreadable);
		add_paths(un, &nfs4.unreadable);
	}
	kv_add_str(&f->evidence, "searched", dirs);
	kv_add_str(&f->evidence, "os", *os.pretty_name ? os.pretty_name : os.id);
	kv_add_str(&f->evidence, "os_family", os_family_name(osrelease_family(&os)));
	if (pkg)
		kv_add_str(&f->evidence, "package", pkg);

	struct judge j = {0};
	if (nfs.found.n && nfs.in_sbin) {
		_cleanup_free_ char *p = first_or_none(&nfs.found);
		judge_note(&j, STATUS_PASS, "NFS mount helper present: %s", p);
	} else if (nfs.found.n) {
		_cleanup_free_ char *p = first_or_none(&nfs.found);
		judge_note(&j, STATUS_WARN,
			   "mount.nfs is only at %s, outside /sbin, /sbin/fs.d and /sbin/fs where "
			   "mount(8) looks for helpers",
			   p);
		judge_remedy(&j,
			     "Install the distribution's NFS client (%s) or link %s into /sbin.",
			     install, p);
	} else if (nfs4.found.n) {
		_cleanup_free_ char *p = first_or_none(&nfs4.found);
		judge_note(&j, STATUS_WARN,
			   "only %s is present: Longhorn mounts RWX shares with `mount -t nfs`, "
			   "which needs mount.nfs",
			   p);
		judge_remedy(&j, "Install the distribution's NFS client: %s.", install);
	} else if (nfs.not_exec.n || nfs4.not_exec.n) {
		_cleanup_free_ char *p =
		    first_or_none(nfs.not_exec.n ? &nfs.not_exec : &nfs4.not_exec);
		judge_note(&j, STATUS_FAIL, "%s exists but is not an executable file", p);
		judge_remedy(&j, "Reinstall the NFS client: %s.", install);
	} else if (nfs.unreadable.n || nfs4.unreadable.n) {
		judge_note(&j, STATUS_UNKNOWN, "could not look for mount.nfs: %s",
			   nfs.unreadable.n ? nfs.unreadable.items[0] : nfs4.unreadable.items[0]);
		judge_remedy(&j, "Run the agent as root with the host's / as its host root.");
	} else {
		judge_note(
		    &j, STATUS_FAIL,
		    "no NFS client: neither mount.nfs nor mount.nfs4 in %s; this node cannot "
		    "mount Longhorn RWX (NFS) volumes",
		    dirs);
		judge_remedy(&j, "Install the NFS client on this node: %s.", install);
	}
	judge_apply(&j, f, "");
	judge_clear(&j);
	hostbin_clear(&nfs);
	hostbin_clear(&nfs4);
	osrelease_clear(&os);
}
