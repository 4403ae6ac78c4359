/*
 * host.nfs.kernel: the kernel half of the NFS client. Longhorn's share-manager
 * exports RWX volumes over NFSv4.1 (NFS-Ganesha), so the node's kernel needs
 * the NFSv4 client with 4.1 support: loaded, built in, or at least loadable.
 *
 * Evidence, each read under the host root and reported as found:
 *   proc/modules            loaded modules ("nfsv4 1064960 2 - Live 0x...");
 *                           absent on kernels without loadable module support
 *   sys/module/NAME         loaded modules, and built-in ones with parameters
 *   proc/filesystems        "nodev\tnfs4": the running kernel can mount NFSv4
 *   lib/modules/REL/        (or usr/lib/modules/REL/) modules.builtin and
 *                           modules.dep: built in, or installed as a module
 *   boot/config-REL         (or lib/modules/REL/config, proc/config.gz)
 *                           CONFIG_NFS_FS, CONFIG_NFS_V4 (tristates) and
 *                           CONFIG_NFS_V4_1 / _2 (booleans inside NFS_V4)
 * Module names match exactly: nfsd (the server) and nfs_acl are not nfs.
 */
#include "checks.h"
#include "judge.h"
#include "modprobe_conf.h"
#include "modules.h"
#include "osrelease.h"

#include <errno.h>
#include <string.h>

#define MODULES_FILE_MAX (16u << 20)
#define CONFIG_MAX	 KCONFIG_CACHE_MAX

/* One kernel-config symbol: 'y', 'm', 'n' ("is not set") or 0 (absent). */
struct kconfig {
	char modules, nfs_fs, nfs_v4, nfs_v41, nfs_v42;
};

struct kernel_facts {
	char *release;
	int release_err;
	int pm_err; /* proc/modules */
	bool pm_nfs, pm_nfsv4;
	int sm_err; /* sys/module */
	bool sm_nfs, sm_nfsv4;
	bool sm_builtin; /* sys/module/nfs* without initstate: built in, not a loaded module */
	int fs_err;	 /* proc/filesystems */
	bool fs_nfs, fs_nfs4;
	char *moddir; /* "lib/modules/REL" that exists, or NULL */
	int moddir_err;
	int builtin_err;
	char *builtin_entry; /* the modules.builtin line naming nfs or nfsv4 */
	int dep_err;
	char *dep_entry; /* the modules.dep module path of nfsv4 (or nfs) */
	char *cfg_file;	 /* host path of the config read, or NULL */
	int cfg_err;	 /* -ENOENT: none of the candidates exists */
	char *cfg_bad;	 /* with another error: the candidate that failed */
	struct kconfig cfg;
	struct modprobe_block blk; /* can nfsv4 be loaded at the first mount? */
};

static void facts_clear(struct kernel_facts *k)
{
	free(k->release);
	free(k->moddir);
	free(k->builtin_entry);
	free(k->dep_entry);
	free(k->cfg_file);
	free(k->cfg_bad);
	modprobe_block_clear(&k->blk);
}

/* Iterate over the lines of [*p, end): sets line and len, false at the end. */
static bool next_line(const char **p, const char *end, const char **line, size_t *len)
{
	if (*p >= end)
		return false;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*len = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	*p = nl ? nl + 1 : end;
	return true;
}

static bool word_eq(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* Length of line[0..len) before the first c (len when there is none). */
static size_t span_to(const char *line, size_t len, char c)
{
	const char *p = memchr(line, c, len);
	return p ? (size_t)(p - line) : len;
}

/* proc/modules: "name size refcount deps state address" per line. */
static int parse_proc_modules(const char *buf, size_t len, bool *nfs, bool *nfsv4)
{
	const char *p = buf, *end = buf + len, *line;
	size_t l;
	if (memchr(buf, '\0', len))
		return -EINVAL;
	while (next_line(&p, end, &line, &l)) {
		if (l == 0)
			continue;
		size_t name = span_to(line, l, ' ');
		if (name == 0 || name + 1 >= l || line[name + 1] < '0' || line[name + 1] > '9')
			return -EINVAL;
		*nfs |= word_eq(line, name, "nfs");
		*nfsv4 |= word_eq(line, name, "nfsv4");
	}
	return 0;
}

/* proc/filesystems: "nodev\tnfs4" or "\text4". */
static int parse_filesystems(const char *buf, size_t len, bool *nfs, bool *nfs4)
{
	const char *p = buf, *end = buf + len, *line;
	size_t l;
	if (memchr(buf, '\0', len))
		return -EINVAL;
	while (next_line(&p, end, &line, &l)) {
		const char *tab = memchr(line, '\t', l);
		if (!tab) {
			if (l == 0)
				continue;
			return -EINVAL;
		}
		const char *name = tab + 1;
		size_t n = l - (size_t)(name - line);
		*nfs |= word_eq(name, n, "nfs");
		*nfs4 |= word_eq(name, n, "nfs4");
	}
	return 0;
}

/* "kernel/fs/nfs/nfsv4.ko.zst" → is it module want? Names compare with '-' as '_'. */
static bool path_is_module(const char *path, size_t len, const char *want)
{
	const char *base = path;
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	size_t n = len - (size_t)(base - path);
	const char *ko = NULL;
	for (size_t i = 0; i + 3 <= n; i++)
		if (memcmp(base + i, ".ko", 3) == 0)
			ko = base + i;
	if (!ko)
		return false;
	static const char *const ext[] = {"", ".xz", ".zst", ".gz"};
	bool ext_ok = false;
	for (size_t e = 0; e < ELEMENTSOF(ext); e++)
		if (word_eq(ko + 3, n - (size_t)(ko - base) - 3, ext[e]))
			ext_ok = true;
	size_t nl = (size_t)(ko - base);
	if (!ext_ok || nl != strlen(want))
		return false;
	for (size_t i = 0; i < nl; i++)
		if ((base[i] == '-' ? '_' : base[i]) != want[i])
			return false;
	return true;
}

/* modules.builtin: one path per line; modules.dep: "path: deps". Returns the
 * entry of nfsv4 (preferred) or nfs in *ret. */
static int find_module_entry(const char *buf, size_t len, bool dep, char **ret)
{
	const char *p = buf, *end = buf + len, *line;
	size_t l;
	if (memchr(buf, '\0', len))
		return -EINVAL;
	while (next_line(&p, end, &line, &l)) {
		size_t n = dep ? span_to(line, l, ':') : l;
		while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\r'))
			n--;
		if (path_is_module(line, n, "nfsv4") || (!*ret && path_is_module(line, n, "nfs"))) {
			free(*ret);
			*ret = xstrndup(line, n);
		}
	}
	return 0;
}

static void kconfig_set(struct kconfig *c, const char *sym, size_t n, char v)
{
	if (word_eq(sym, n, "MODULES"))
		c->modules = v;
	else if (word_eq(sym, n, "NFS_FS"))
		c->nfs_fs = v;
	else if (word_eq(sym, n, "NFS_V4"))
		c->nfs_v4 = v;
	else if (word_eq(sym, n, "NFS_V4_1"))
		c->nfs_v41 = v;
	else if (word_eq(sym, n, "NFS_V4_2"))
		c->nfs_v42 = v;
}

/* One line of kernel config output, "CONFIG_X=y|m|..." or "# CONFIG_X is not set":
 * true when it is one; the five symbols of struct kconfig go to c. */
static bool kconfig_parse_line(const char *line, size_t l, struct kconfig *c)
{
	if (l > 7 && memcmp(line, "CONFIG_", 7) == 0) {
		const char *eq = memchr(line, '=', l);
		if (!eq)
			return false;
		char v = eq + 1 < line + l ? eq[1] : 0;
		if (v == 'y' || v == 'm')
			kconfig_set(c, line + 7, (size_t)(eq - line - 7), v);
		return true;
	}
	if (l > 9 && memcmp(line, "# CONFIG_", 9) == 0) {
		const char *sp = memchr(line + 9, ' ', l - 9);
		if (!sp || !word_eq(sp, l - (size_t)(sp - line), " is not set"))
			return false;
		kconfig_set(c, line + 9, (size_t)(sp - line - 9), 'n');
		return true;
	}
	return false;
}

/* A config has at least one symbol line; the last line of each of the five
 * symbols wins. Only lines that start with "CONFIG_MODULES" or "CONFIG_NFS_"
 * (or those after "# ") can name one: the text is searched for those, in
 * order, instead of parsed line by line (a config has ~7,000 lines). */
static int parse_kconfig(const char *buf, size_t len, struct kconfig *c)
{
	const char *p = buf, *end = buf + len, *line;
	size_t l;
	if (memchr(buf, '\0', len))
		return -EINVAL;
	*c = (struct kconfig){0};
	bool any = false;
	struct kconfig scratch = {0};
	while (!any && next_line(&p, end, &line, &l))
		any = kconfig_parse_line(line, l, &scratch);
	if (!any)
		return -EINVAL;
	static const char *const prefixes[] = {"CONFIG_MODULES", "CONFIG_NFS_"};
	for (size_t i = 0; i < ELEMENTSOF(prefixes); i++) {
		size_t plen = strlen(prefixes[i]);
		const char *q = buf;
		while (kconfig_next_line(buf, end, &q, prefixes[i], plen, &line, &l))
			kconfig_parse_line(line, l, c);
	}
	return 0;
}

/* The release is used in paths: accept only what a kernel release looks like. */
static bool release_ok(const char *r)
{
	if (!*r || strlen(r) > 64 || strstr(r, "..") || r[0] == '.')
		return false;
	for (const char *p = r; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || strchr(".-_+~", *p)))
			return false;
	return true;
}

static void read_release(const struct hostroot *hr, struct kernel_facts *k)
{
	char *r = NULL;
	k->release_err = hostroot_read_line(hr, "proc/sys/kernel/osrelease", &r);
	if (k->release_err == 0 && !release_ok(r))
		k->release_err = -EINVAL;
	if (k->release_err == 0)
		k->release = r;
	else
		free(r);
}

static void read_loaded(const struct hostroot *hr, struct kernel_facts *k)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	k->pm_err = hostroot_read(hr, "proc/modules", MODULES_FILE_MAX, &buf, &len);
	if (k->pm_err == 0)
		k->pm_err = parse_proc_modules(buf, len, &k->pm_nfs, &k->pm_nfsv4);

	struct stat st;
	k->sm_err = hostroot_stat(hr, "sys/module", &st);
	if (k->sm_err == 0 && !S_ISDIR(st.st_mode))
		k->sm_err = -ENOTDIR;
	if (k->sm_err == 0) {
		k->sm_nfs = hostroot_stat(hr, "sys/module/nfs", &st) == 0 && S_ISDIR(st.st_mode);
		k->sm_nfsv4 =
		    hostroot_stat(hr, "sys/module/nfsv4", &st) == 0 && S_ISDIR(st.st_mode);
		/* Loaded modules have an initstate file; built-in ones only their parameters. */
		k->sm_builtin = (k->sm_nfs && !hostroot_exists(hr, "sys/module/nfs/initstate")) ||
				(k->sm_nfsv4 && !hostroot_exists(hr, "sys/module/nfsv4/initstate"));
	}

	free(buf);
	buf = NULL;
	k->fs_err = hostroot_read(hr, "proc/filesystems", 0, &buf, &len);
	if (k->fs_err == 0)
		k->fs_err = parse_filesystems(buf, len, &k->fs_nfs, &k->fs_nfs4);
}

static void read_modules_dir(const struct hostroot *hr, struct kernel_facts *k)
{
	static const char *const bases[] = {"lib/modules", "usr/lib/modules"};
	k->moddir_err = k->release_err ? k->release_err : -ENOENT;
	k->builtin_err = k->dep_err = k->moddir_err;
	if (!k->release)
		return;
	for (size_t i = 0; i < ELEMENTSOF(bases) && !k->moddir; i++) {
		_cleanup_free_ char *d = xasprintf("%s/%s", bases[i], k->release);
		struct stat st;
		int r = hostroot_stat(hr, d, &st);
		if (r == 0 && S_ISDIR(st.st_mode)) {
			k->moddir = xstrdup(d);
			k->moddir_err = 0;
		} else if (r < 0 && r != -ENOENT && k->moddir_err == -ENOENT) {
			k->moddir_err = r;
		}
	}
	k->builtin_err = k->dep_err = k->moddir_err;
	if (!k->moddir)
		return;
	static const char *const files[] = {"modules.builtin", "modules.dep"};
	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		_cleanup_free_ char *path = xasprintf("%s/%s", k->moddir, files[i]);
		_cleanup_free_ char *buf = NULL;
		size_t len;
		int *err = i == 0 ? &k->builtin_err : &k->dep_err;
		char **entry = i == 0 ? &k->builtin_entry : &k->dep_entry;
		*err = hostroot_read(hr, path, MODULES_FILE_MAX, &buf, &len);
		if (*err == 0)
			*err = find_module_entry(buf, len, i == 1, entry);
	}
}

/* The first config that parses; proc/config.gz through the run's inflated copy (kc, may be
 * NULL), which host.iscsi reads too. */
static void read_config(const struct hostroot *hr, struct kconfig_cache *kc, struct kernel_facts *k)
{
	struct strv cands = {0};
	if (k->release) {
		_cleanup_free_ char *b = xasprintf("boot/config-%s", k->release);
		strv_add(&cands, b);
		if (k->moddir) {
			_cleanup_free_ char *m = xasprintf("%s/config", k->moddir);
			strv_add(&cands, m);
		}
	}
	strv_add(&cands, "proc/config.gz");
	k->cfg_err = -ENOENT;
	for (size_t i = 0; i < cands.n && !k->cfg_file; i++) {
		_cleanup_free_ char *buf = NULL, *plain = NULL;
		size_t len, plen;
		const char *text;
		size_t tlen;
		if (kconfig_cache_text(kc, hr, cands.items[i], &text, &tlen) == 0) {
			/* CONFIG_MAX is the cache's bound: the same text as below. */
			if (parse_kconfig(text, tlen, &k->cfg) == 0) {
				k->cfg_file = xasprintf("/%s", cands.items[i]);
				k->cfg_err = 0;
			} else if (k->cfg_err == -ENOENT) {
				k->cfg_err = -EINVAL;
				k->cfg_bad = xasprintf("/%s", cands.items[i]);
			}
			continue;
		}
		int r = hostroot_read(hr, cands.items[i], CONFIG_MAX, &buf, &len);
		if (r == 0 && endswith(cands.items[i], ".gz")) {
			r = modules_gunzip(buf, len, CONFIG_MAX, &plain, &plen, NULL);
			if (r == 0) {
				free(buf);
				buf = plain;
				plain = NULL;
				len = plen;
			}
		}
		if (r == 0)
			r = parse_kconfig(buf, len, &k->cfg);
		if (r == 0) {
			k->cfg_file = xasprintf("/%s", cands.items[i]);
			k->cfg_err = 0;
		} else if (r != -ENOENT && k->cfg_err == -ENOENT) {
			k->cfg_err = r;
			k->cfg_bad = xasprintf("/%s", cands.items[i]);
		}
	}
	strv_clear(&cands);
}

static char *err_str(const struct hostroot *hr, const char *path, int err)
{
	_cleanup_free_ char *d = hostroot_display(hr, path);
	return xasprintf("unreadable: %s: %s", d,
			 err == -EINVAL ? "not in the expected format" : util_read_strerror(err));
}

static const char *names(bool nfs, bool nfsv4)
{
	return nfs && nfsv4 ? "nfs, nfsv4" : nfsv4 ? "nfsv4" : nfs ? "nfs" : NULL;
}

static const char *kc(char v)
{
	return v == 'y' ? "y" : v == 'm' ? "m" : v == 'n' ? "not set" : "absent";
}

static void add_evidence(const struct hostroot *hr, const struct kernel_facts *k,
			 struct kv_list *ev)
{
	_cleanup_free_ char *s = NULL;
	if (k->release)
		kv_add_str(ev, "kernel_release", k->release);
	else
		kv_add_str(ev, "kernel_release",
			   (s = err_str(hr, "proc/sys/kernel/osrelease", k->release_err)));
	free(s);
	s = NULL;

	if (k->pm_err == 0)
		kv_add_strf(ev, "proc_modules", "%s",
			    names(k->pm_nfs, k->pm_nfsv4) ? names(k->pm_nfs, k->pm_nfsv4)
							  : "neither nfs nor nfsv4 loaded");
	else if (k->pm_err == -ENOENT && (k->fs_err == 0 || k->sm_err == 0))
		kv_add_str(ev, "proc_modules", "absent: the kernel has no loadable module support");
	else
		kv_add_str(ev, "proc_modules", (s = err_str(hr, "proc/modules", k->pm_err)));
	free(s);
	s = NULL;

	if (k->sm_err == 0 && names(k->sm_nfs, k->sm_nfsv4))
		kv_add_strf(ev, "sys_module", "%s%s", names(k->sm_nfs, k->sm_nfsv4),
			    k->sm_builtin ? " (built in: no initstate)" : "");
	else if (k->sm_err == 0)
		kv_add_str(ev, "sys_module", "neither nfs nor nfsv4");
	else
		kv_add_str(ev, "sys_module", (s = err_str(hr, "sys/module", k->sm_err)));
	free(s);
	s = NULL;

	if (k->fs_err == 0)
		kv_add_str(ev, "proc_filesystems",
			   k->fs_nfs4  ? "nfs4 registered"
			   : k->fs_nfs ? "nfs registered, nfs4 not"
				       : "neither nfs nor nfs4 registered");
	else
		kv_add_str(ev, "proc_filesystems",
			   (s = err_str(hr, "proc/filesystems", k->fs_err)));
	free(s);
	s = NULL;

	if (k->moddir)
		kv_add_strf(ev, "modules_dir", "/%s", k->moddir);
	else if (k->release && k->moddir_err == -ENOENT)
		kv_add_strf(ev, "modules_dir",
			    "absent: neither /lib/modules/%s nor /usr/lib/modules/%s", k->release,
			    k->release);
	else if (k->release)
		kv_add_strf(ev, "modules_dir", "unreadable: %s", strerror(-k->moddir_err));
	else
		kv_add_str(ev, "modules_dir", "unknown: no kernel release");
	if (k->moddir) {
		static const char *const keys[] = {"modules_builtin", "modules_dep"};
		for (int i = 0; i < 2; i++) {
			int err = i ? k->dep_err : k->builtin_err;
			const char *entry = i ? k->dep_entry : k->builtin_entry;
			_cleanup_free_ char *file =
			    xasprintf("%s/%s", k->moddir, i ? "modules.dep" : "modules.builtin");
			_cleanup_free_ char *e = err ? err_str(hr, file, err) : NULL;
			kv_add_str(ev, keys[i], e ? e : entry ? entry : "neither nfs nor nfsv4");
		}
	}

	if (k->cfg_err == 0) {
		struct kv_list *m = kv_add_map(ev, "kernel_config");
		kv_add_str(m, "file", k->cfg_file);
		kv_add_str(m, "CONFIG_MODULES", kc(k->cfg.modules));
		kv_add_str(m, "CONFIG_NFS_FS", kc(k->cfg.nfs_fs));
		kv_add_str(m, "CONFIG_NFS_V4", kc(k->cfg.nfs_v4));
		kv_add_str(m, "CONFIG_NFS_V4_1", kc(k->cfg.nfs_v41));
		kv_add_str(m, "CONFIG_NFS_V4_2", kc(k->cfg.nfs_v42));
	} else if (k->cfg_err == -ENOENT) {
		kv_add_str(ev, "kernel_config",
			   k->release ? "absent: no /boot/config-RELEASE, modules-dir config or "
					"/proc/config.gz"
				      : "absent: no /proc/config.gz");
	} else {
		kv_add_strf(ev, "kernel_config", "unreadable: %s: %s", k->cfg_bad,
			    k->cfg_err == -EINVAL ? "not a kernel configuration"
						  : strerror(-k->cfg_err));
	}
	/* Whether a module that is not loaded yet can be (modprobe_conf.h). */
	if (k->blk.disabled)
		kv_add_str(ev, "module_loading", "disabled: /proc/sys/kernel/modules_disabled = 1");
	else if (k->blk.refused)
		kv_add_strf(ev, "module_loading", "refused: %s", k->blk.refused);
	else if (k->blk.blacklist)
		kv_add_strf(ev, "module_loading", "by name only: %s", k->blk.blacklist);
	else
		kv_add_str(ev, "module_loading",
			   "allowed (no modules_disabled, no modprobe.d "
			   "blacklist or install rule for nfs, nfsv4)");
}

/* Kernels whose NFS client cannot mount Longhorn's shares ("Protocol not
 * supported"; Longhorn KB troubleshooting-rwx-volume-fails-to-attached-caused-by-
 * protocol-not-supported): vanilla 6.5.6 and the Ubuntu kernels that carry the
 * same regression. Distributions may backport the fix, hence WARN. */
static const char *known_broken(const char *rel)
{
	static const char *const prefixes[] = {"6.5.6-", "5.15.0-94-", "6.5.0-21-"};
	if (streq(rel, "6.5.6"))
		return "6.5.6";
	for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
		if (startswith(rel, prefixes[i]))
			return prefixes[i];
	return NULL;
}

static void remedy_kernel(struct judge *j, const struct osrelease *os, const char *rel)
{
	judge_remedy(j,
		     "Boot a kernel with the NFS client: CONFIG_NFS_FS and CONFIG_NFS_V4 (=y, or "
		     "=m with the modules installed) and CONFIG_NFS_V4_1=y.");
	if (streq(os->id, "ubuntu"))
		judge_remedy(j,
			     "On Ubuntu the kernel's modules come in linux-modules-%s and "
			     "linux-modules-extra-%s: install both, or use the generic kernel.",
			     rel, rel);
}

static void judge_present(const struct kernel_facts *k, struct judge *j, const char *rel)
{
	const char *how;
	_cleanup_free_ char *tmp = NULL;
	if (k->pm_err == 0 && (k->pm_nfs || k->pm_nfsv4))
		how = tmp = xasprintf("%s loaded (/proc/modules)", names(k->pm_nfs, k->pm_nfsv4));
	else if ((k->sm_nfs || k->sm_nfsv4) && k->sm_builtin)
		how = tmp = xasprintf("built in (/sys/module/%s has no initstate)",
				      k->sm_nfsv4 ? "nfsv4" : "nfs");
	else if (k->sm_nfs || k->sm_nfsv4)
		how = tmp = xasprintf("%s loaded (/sys/module)", names(k->sm_nfs, k->sm_nfsv4));
	else if (k->builtin_entry)
		how = tmp = xasprintf("built in (modules.builtin: %s)", k->builtin_entry);
	else if (k->cfg.nfs_v4 == 'y')
		how = tmp = xasprintf("built in (%s: CONFIG_NFS_V4=y)", k->cfg_file);
	else
		how = "registered";
	judge_note(j, STATUS_PASS, "NFSv4 client in kernel %s: %s%s", rel, how,
		   k->fs_err == 0 && k->fs_nfs4 ? ", nfs4 in /proc/filesystems" : "");
}

static void decide(const struct kernel_facts *k, const struct osrelease *os, struct judge *j)
{
	const char *rel = k->release ? k->release : "(unknown release)";
	bool cfg = k->cfg_err == 0;
	bool fs = k->fs_err == 0;
	bool no_modules =
	    (k->pm_err == -ENOENT && (fs || k->sm_err == 0)) || (cfg && k->cfg.modules == 'n');
	bool cfg_no_nfs4 = cfg && (k->cfg.nfs_fs == 'n' || k->cfg.nfs_fs == 0 ||
				   k->cfg.nfs_v4 == 'n' || k->cfg.nfs_v4 == 0);
	bool no41 = cfg && !cfg_no_nfs4 && k->cfg.nfs_v41 == 'n';
	bool loaded = (k->pm_err == 0 && (k->pm_nfs || k->pm_nfsv4)) || k->sm_nfs || k->sm_nfsv4;
	bool builtin = k->builtin_entry || (cfg && k->cfg.nfs_fs == 'y' && k->cfg.nfs_v4 == 'y');
	bool loadable = !no_modules && k->dep_entry;
	/* nfs.ko registers both "nfs" and, when built with NFSv4, "nfs4": so
	 * /proc/filesystems, when readable, says what the running kernel can mount. */
	bool present = fs ? k->fs_nfs4 : loaded || builtin;

	if (k->pm_err && k->sm_err && !fs && !cfg && k->builtin_err && k->dep_err) {
		judge_note(j, STATUS_UNKNOWN,
			   "could not read any kernel evidence (/proc/modules, "
			   "/sys/module, /proc/filesystems, modules, config)");
		judge_remedy(j, "Run the agent with the host's / (with its /proc and /sys) as the "
				"host root.");
		return;
	}
	if (fs && k->fs_nfs && !k->fs_nfs4) {
		judge_note(j, STATUS_FAIL,
			   "kernel %s has an NFS client without NFSv4 (nfs in /proc/filesystems, "
			   "nfs4 not); Longhorn RWX volumes are NFSv4.1 shares",
			   rel);
		remedy_kernel(j, os, rel);
		return;
	}
	if ((present || loadable) && no41) {
		judge_note(j, STATUS_FAIL,
			   "kernel %s has an NFSv4 client but no NFSv4.1 (%s: # CONFIG_NFS_V4_1 is "
			   "not set); Longhorn mounts RWX shares with vers=4.1",
			   rel, k->cfg_file);
		remedy_kernel(j, os, rel);
		return;
	}
	if (present || loadable) {
		if (present) {
			judge_present(k, j, rel);
		} else if (k->blk.disabled || k->blk.refused) {
			/* Installed, but nothing will load it: the first mount fails. */
			judge_note(
			    j, STATUS_FAIL,
			    "NFSv4 client is a module of kernel %s that is not loaded (%s in "
			    "modules.dep), and it cannot be loaded: %s; every RWX mount "
			    "fails",
			    rel, k->dep_entry,
			    k->blk.disabled ? "module loading is disabled "
					      "(/proc/sys/kernel/modules_disabled = 1)"
					    : k->blk.refused);
			judge_remedy(
			    j, k->blk.disabled
				   ? "modules_disabled stays on until reboot: load nfsv4 "
				     "before it is set (/etc/modules-load.d/nfsv4.conf) "
				     "and reboot."
				   : "Remove that line, then `modprobe nfsv4`; and at boot: `echo "
				     "nfsv4 > /etc/modules-load.d/nfsv4.conf`.");
		} else if (k->blk.blacklist) {
			judge_note(
			    j, STATUS_WARN,
			    "NFSv4 client is a module of kernel %s that is not loaded (%s in "
			    "modules.dep) and is blacklisted (%s): the mount's request by "
			    "alias (fs-nfs4) loads nothing",
			    rel, k->dep_entry, k->blk.blacklist);
			judge_remedy(j,
				     "Remove the blacklist line, or load it by name at boot: `echo "
				     "nfsv4 > /etc/modules-load.d/nfsv4.conf`.");
			judge_remedy(j, "Load it now: `modprobe nfsv4`.");
		} else {
			/* The normal state of a fresh RHEL/Debian/Ubuntu node: the kernel's
			 * request_module("fs-nfs4") at the first mount loads it. */
			judge_note(j, STATUS_PASS,
				   "NFSv4 client is a module of kernel %s, not loaded yet (%s in "
				   "modules.dep): the first NFS mount loads it",
				   rel, k->dep_entry);
		}
		const char *bad = k->release ? known_broken(k->release) : NULL;
		if (bad) {
			judge_note(
			    j, STATUS_WARN,
			    "kernel %s is of a series (%s) with a known NFS client regression: "
			    "RWX mounts fail with \"Protocol not supported\"",
			    rel, bad);
			judge_remedy(j, "Check whether the distribution fixed it (Longhorn KB "
					"\"RWX Volume Fails to Be Attached Caused by Protocol not "
					"supported\") or update the kernel.");
		}
		return;
	}

	/* Nothing found: FAIL needs evidence both that it is not there now and that it
	 * cannot be loaded; otherwise say what could not be read. */
	bool absent_known =
	    fs || cfg_no_nfs4 || (k->pm_err == 0 && k->sm_err == 0 && k->builtin_err == 0);
	bool unloadable_known =
	    no_modules || cfg_no_nfs4 || k->dep_err == 0 || k->moddir_err == -ENOENT;
	if (!absent_known || !unloadable_known) {
		judge_note(j, STATUS_UNKNOWN,
			   "no NFSv4 client seen in kernel %s, but %s could not be read", rel,
			   !absent_known ? "/proc/filesystems"
					 : "the kernel's module list (modules.dep)");
		judge_remedy(j, "Run the agent with the host's / (with its /proc, /sys and "
				"/lib/modules) as the host root.");
		return;
	}
	const char *why =
	    cfg_no_nfs4	 ? "the kernel is configured without an NFSv4 client"
	    : no_modules ? "nfs4 is not a registered filesystem and the kernel cannot load modules"
	    : k->moddir_err == -ENOENT ? "nfs4 is not registered and the kernel's modules are not "
					 "installed"
	    : k->cfg.nfs_v4 == 'm'     ? "configured as a module (CONFIG_NFS_V4=m) that is not "
					 "installed (not in modules.dep)"
				       : "not loaded, not built in, and not in modules.dep";
	judge_note(j, STATUS_FAIL,
		   "no NFSv4 client in kernel %s: %s; Longhorn RWX volumes cannot be mounted on "
		   "this node",
		   rel, why);
	remedy_kernel(j, os, rel);
}

void check_nfs_kernel(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = agent_finding(ctx, id);
	struct kernel_facts k = {0};
	read_release(&ctx->root, &k);
	read_loaded(&ctx->root, &k);
	read_modules_dir(&ctx->root, &k);
	read_config(&ctx->root, agent_run_kconfig(ctx), &k);
	static const char *const nfs_mods[] = {"nfs", "nfsv4", NULL};
	modprobe_block_read(&ctx->root, nfs_mods, &k.blk);
	struct osrelease os;
	osrelease_read(&ctx->root, &os);

	add_evidence(&ctx->root, &k, &f->evidence);
	struct judge j = {0};
	decide(&k, &os, &j);
	judge_apply(&j, f, "");
	judge_clear(&j);
	osrelease_clear(&os);
	facts_clear(&k);
}
