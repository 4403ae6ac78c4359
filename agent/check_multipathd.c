/*
 * host.multipathd: multipathd builds a multipath map over every SCSI disk it
 * is not told to leave alone, Longhorn's iSCSI disks included; the disk is
 * then busy and the volume's mount fails with "already mounted or mount point
 * busy" (Longhorn KB troubleshooting-volume-with-multipath). The fix is a
 * blacklist entry in multipath.conf, or not running multipathd at all.
 */
#include "checks.h"
#include "judge.h"
#include "multipath_conf.h"
#include "osrelease.h"
#include "procs.h"
#include "unitfiles.h"

#include <errno.h>
#include <string.h>

#define MAIN_CONF	   "etc/multipath.conf"
#define DEFAULT_CONFIG_DIR "/etc/multipath/conf.d"
#define MAX_DROPINS	   256 /* of multipath.conf.d */
#define MAX_CONDITIONS	   64  /* ConditionKernelCommandLine= values of the unit */
#define CONF_MAX_BYTES	   (1u << 20)
#define LONGHORN_BLACKLIST                                                                         \
	"blacklist {\n    device {\n        vendor \"IET\"\n        product \"VIRTUAL-DISK\"\n   " \
	" "                                                                                        \
	"}\n}"

struct mp_config {
	struct multipath_conf conf;
	struct strv files; /* host paths read */
	bool main_absent;
	char *err; /* the first file that could not be read, with the reason */
};

static int read_one(const struct hostroot *hr, const char *path, struct mp_config *c)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	_cleanup_free_ char *host = xasprintf("/%s", path[0] == '/' ? path + 1 : path);
	int r = hostroot_read(hr, path, CONF_MAX_BYTES, &buf, &len);
	if (r == 0)
		r = multipath_conf_parse((const uint8_t *)buf, len, host, &c->conf);
	if (r < 0) {
		if (r != -ENOENT && !c->err) {
			_cleanup_free_ char *d = hostroot_display(hr, path);
			c->err = xasprintf("%s: %s", d,
					   r == -EINVAL ? "not a multipath.conf" : strerror(-r));
		}
		return r;
	}
	strv_add(&c->files, host);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* multipath.conf, then config_dir's *.conf in alphabetical order, as multipathd reads them.
 * multipath-tools 0.9 and later ignore `config_dir` ("ignoring deprecated option") and
 * always read DEFAULT_CONFIG_DIR: honour_config_dir picks the reading. */
static void read_config(const struct hostroot *hr, struct mp_config *c, bool honour_config_dir)
{
	*c = (struct mp_config){0};
	c->main_absent = read_one(hr, MAIN_CONF, c) == -ENOENT;
	const char *dir =
	    c->conf.config_dir && honour_config_dir ? c->conf.config_dir : DEFAULT_CONFIG_DIR;
	DIR *d = hostroot_opendir(hr, dir);
	if (!d) {
		if (errno != ENOENT && errno != ENOTDIR && !c->err)
			c->err = xasprintf("%s: %s", dir, strerror(errno));
		return;
	}
	struct strv names = {0};
	struct dirent *de;
	while ((de = readdir(d)) && names.n < MAX_DROPINS)
		if (endswith(de->d_name, ".conf") && de->d_name[0] != '.')
			strv_add(&names, de->d_name);
	closedir(d);
	if (names.n)
		qsort(names.items, names.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, names.items[i]);
		read_one(hr, p, c);
	}
	strv_clear(&names);
}

/*
 * multipath-tools' own units (multipathd.service and .socket, upstream and as
 * SUSE, Debian and Ubuntu ship them) carry ConditionKernelCommandLine=!nompath
 * and !multipath=off: with either option on the kernel command line an enabled
 * multipathd never starts. Harvester up to v1.4 boots with multipath=off.
 */
static const char *const off_options[] = {"multipath=off", "nompath"};
#define MULTIPATHD_UNIT "multipathd.service"

/* systemd's match: an option with '=' equals a word; one without matches the
 * word or the word followed by '='. */
static bool cmdline_has(const char *cmdline, const char *opt)
{
	size_t ol = strlen(opt);
	bool has_eq = strchr(opt, '=') != NULL;
	for (const char *p = cmdline; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		size_t wl = strcspn(p, " \t\n");
		if (wl == ol && !memcmp(p, opt, ol))
			return true;
		if (!has_eq && wl > ol && !memcmp(p, opt, ol) && p[ol] == '=')
			return true;
		p += wl;
	}
	return false;
}

/* Does the effective multipathd.service refuse to start under opt: the first
 * unit file found (/etc and /run override the vendor one), then its drop-ins,
 * where an empty ConditionKernelCommandLine= drops the earlier ones? Returns
 * the unit file's host path, or NULL. */
static char *unit_refuses(const struct hostroot *hr, const char *opt)
{
	_cleanup_free_ char *want = xasprintf("!%s", opt);
	struct strv conds = {0};
	char *file = unitfiles_values(hr, MULTIPATHD_UNIT, "ConditionKernelCommandLine",
				      MAX_CONDITIONS, &conds);
	bool refuses = false;
	for (size_t i = 0; i < conds.n; i++)
		refuses = refuses || streq(conds.items[i], want);
	strv_clear(&conds);
	if (!refuses) {
		free(file);
		return NULL;
	}
	return file;
}

/* The option of the kernel command line that keeps the enabled multipathd
 * from starting, and the unit file that says so (*ret_unit); NULL when none. */
static const char *cmdline_blocks(const struct hostroot *hr, char **ret_unit)
{
	_cleanup_free_ char *cmdline = NULL;
	*ret_unit = NULL;
	if (hostroot_read(hr, "proc/cmdline", 65536, &cmdline, NULL) < 0)
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(off_options); i++) {
		if (!cmdline_has(cmdline, off_options[i]))
			continue;
		*ret_unit = unit_refuses(hr, off_options[i]);
		if (*ret_unit)
			return off_options[i];
	}
	return NULL;
}

static void mp_config_clear(struct mp_config *c)
{
	multipath_conf_clear(&c->conf);
	strv_clear(&c->files);
	free(c->err);
}

static void add_entries(struct kv_list *ev, const char *key, const struct multipath_conf *conf,
			enum mpconf_section section)
{
	struct value_list *l = NULL;
	for (size_t i = 0; i < conf->n; i++) {
		if (conf->items[i].section != section)
			continue;
		if (!l)
			l = kv_add_list(ev, key);
		_cleanup_free_ char *s = multipath_conf_entry_str(&conf->items[i]);
		vlist_add_strf(l, "%s (%s)", s, conf->items[i].where);
	}
}

/* A config_dir other than the built-in one: releases before 0.9 read it, later ones do not. */
static bool own_config_dir(const struct multipath_conf *conf)
{
	if (!conf->config_dir)
		return false;
	size_t n = strlen(conf->config_dir);
	while (n > 1 && conf->config_dir[n - 1] == '/')
		n--;
	return n != strlen(DEFAULT_CONFIG_DIR) || strncmp(conf->config_dir, DEFAULT_CONFIG_DIR, n);
}

/* The two readings disagree: one covers Longhorn's disks (by), the other does not. */
static void judge_split(struct judge *j, const char *state, const struct multipath_conf *conf,
			const struct multipath_conf_entry *by, bool old_reading_covers)
{
	_cleanup_free_ char *e = multipath_conf_entry_str(by);
	if (old_reading_covers)
		judge_note(j, STATUS_WARN,
			   "multipathd is %s; blacklist %s (%s) keeps Longhorn's disks out only "
			   "for multipath-tools before 0.9: multipath-tools 0.9 and later ignore "
			   "config_dir %s (%s) and read %s, which does not cover them",
			   state, e, by->where, conf->config_dir, conf->config_dir_where,
			   DEFAULT_CONFIG_DIR);
	else
		judge_note(j, STATUS_WARN,
			   "multipathd is %s; blacklist %s (%s) keeps Longhorn's disks out only "
			   "for multipath-tools 0.9 and later, which ignore config_dir %s (%s): "
			   "older releases read that directory instead, which does not cover them",
			   state, e, by->where, conf->config_dir, conf->config_dir_where);
	judge_remedy(j,
		     "Put the blacklist in /etc/multipath.conf itself (every release reads it), "
		     "or drop config_dir from it and keep the blacklist in %s.",
		     DEFAULT_CONFIG_DIR);
	judge_remedy(j, "Restart multipathd: `systemctl restart multipathd`.");
}

/* Why the configuration does not cover Longhorn's devices, for the message. */
static char *not_covered_why(const struct mp_config *c, const struct multipath_conf_cover *cov)
{
	if (c->files.n == 0)
		return xstrdup("there is no multipath.conf, so nothing is blacklisted beyond the "
			       "built-in defaults");
	if (cov->undone) {
		_cleanup_free_ char *a = multipath_conf_entry_str(cov->undone);
		_cleanup_free_ char *b = multipath_conf_entry_str(cov->undone_by);
		return xasprintf("blacklist %s (%s) is cancelled by blacklist_exceptions %s (%s)",
				 a, cov->undone->where, b, cov->undone_by->where);
	}
	if (cov->partial) {
		_cleanup_free_ char *a = multipath_conf_entry_str(cov->partial);
		_cleanup_free_ char *miss = NULL;
		for (size_t i = 0; i < cov->uncovered.n; i++) {
			char *m = xasprintf("%s%s%s", miss ? miss : "", miss ? ", " : "",
					    cov->uncovered.items[i]);
			free(miss);
			miss = m;
		}
		return xasprintf("blacklist %s (%s) matches only some sdX disks (not %s)", a,
				 cov->partial->where, miss);
	}
	return xstrdup("its blacklist has no entry for Longhorn's disks (vendor IET, product "
		       "VIRTUAL-DISK)");
}

void check_multipathd(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = agent_finding(ctx, id);
	const struct hostroot *hr = &ctx->root;
	struct kv_list *ev = &f->evidence;
	struct procs_found procs;
	int perr = agent_procs_find(ctx, "multipathd", &procs);
	_cleanup_free_ char *svc_where = NULL, *sock_where = NULL;
	int svc = agent_unitfiles_state(ctx, "multipathd.service", &svc_where);
	int sock = agent_unitfiles_state(ctx, "multipathd.socket", &sock_where);
	bool running = perr == 0 && procs.total > 0;
	bool enabled = svc == UNITFILE_ENABLED || sock == UNITFILE_ENABLED;

	if (running)
		kv_add_strf(ev, "multipathd", "running (pid %d)", procs.pids[0]);
	else if (perr == 0)
		kv_add_str(ev, "multipathd", "not running");
	else
		kv_add_strf(ev, "multipathd", "unknown: %s",
			    perr == -ESRCH ? "PID 1 not visible under /proc" : strerror(-perr));
	unitfiles_evidence(hr, ev, "multipathd_service", "multipathd.service", svc, svc_where);
	unitfiles_evidence(hr, ev, "multipathd_socket", "multipathd.socket", sock, sock_where);

	struct judge j = {0};
	if (perr == 0 && !running && !enabled) {
		judge_note(&j, STATUS_PASS, "multipathd is not running and not enabled");
		judge_apply(&j, f, "");
		judge_clear(&j);
		return;
	}
	_cleanup_free_ char *blocking_unit = NULL;
	const char *off = perr == 0 && !running ? cmdline_blocks(hr, &blocking_unit) : NULL;
	if (off) {
		kv_add_strf(ev, "kernel_cmdline_blocks",
			    "%s (ConditionKernelCommandLine=!%s in %s)", off, off, blocking_unit);
		judge_note(&j, STATUS_PASS,
			   "multipathd is enabled but does not start: the kernel command line has "
			   "%s, and %s refuses to start with it",
			   off, blocking_unit);
		judge_apply(&j, f, "");
		judge_clear(&j);
		return;
	}

	struct mp_config c, alt = {0};
	read_config(hr, &c, true);
	struct osrelease os;
	osrelease_read(hr, &os);
	struct value_list *files = kv_add_list(ev, "config_files");
	for (size_t i = 0; i < c.files.n; i++)
		vlist_add_str(files, c.files.items[i]);
	add_entries(ev, "blacklist", &c.conf, MPCONF_BLACKLIST);
	add_entries(ev, "blacklist_exceptions", &c.conf, MPCONF_EXCEPTIONS);
	if (c.conf.find_multipaths)
		kv_add_str(ev, "find_multipaths", c.conf.find_multipaths);

	struct multipath_conf_cover cov, alt_cov = {0};
	multipath_conf_covers_longhorn(&c.conf, &cov);
	bool split = false;
	if (!c.err && own_config_dir(&c.conf)) {
		kv_add_strf(ev, "config_dir",
			    "%s (%s; multipath-tools 0.9 and later ignore it and read %s)",
			    c.conf.config_dir, c.conf.config_dir_where, DEFAULT_CONFIG_DIR);
		read_config(hr, &alt, false);
		struct value_list *l = kv_add_list(ev, "config_files_ignoring_config_dir");
		for (size_t i = 0; i < alt.files.n; i++)
			vlist_add_str(l, alt.files.items[i]);
		if (!alt.err) {
			multipath_conf_covers_longhorn(&alt.conf, &alt_cov);
			split = !cov.by != !alt_cov.by;
		}
	}
	if (cov.bad_regex.n) {
		struct value_list *bad = kv_add_list(ev, "invalid_regex");
		for (size_t i = 0; i < cov.bad_regex.n; i++)
			vlist_add_str(bad, cov.bad_regex.items[i]);
	}
	/* RHEL's multipath-tools (mpathconf) blacklists every device while
	 * /etc/multipath.conf does not exist, and its unit does not start without it. */
	bool rhel_default = c.main_absent && !c.err && osrelease_family(&os) == OS_FAMILY_RHEL;
	/* Only the socket enabled: the first client (multipath(8), udev's
	 * multipath -u) starts it. */
	const char *state = running		      ? "running"
			    : perr != 0		      ? "enabled"
			    : svc == UNITFILE_ENABLED ? "enabled (it starts at boot)"
						      : "socket-enabled (the first multipath "
							"command starts it)";

	if (c.err) {
		kv_add_str(ev, "config_error", c.err);
		judge_note(&j, STATUS_UNKNOWN,
			   "multipathd is %s, and its configuration could not be "
			   "read: %s",
			   state, c.err);
		judge_remedy(&j, "Make the file named above a readable multipath.conf (`multipathd "
				 "show config` prints what multipathd uses), then run the check "
				 "again.");
	} else if (split) {
		judge_split(&j, state, &c.conf, cov.by ? cov.by : alt_cov.by, cov.by != NULL);
	} else if (cov.by) {
		_cleanup_free_ char *e = multipath_conf_entry_str(cov.by);
		kv_add_strf(ev, "longhorn_blacklisted_by", "%s (%s)", e, cov.by->where);
		judge_note(&j, STATUS_PASS,
			   "multipathd is %s; blacklist %s (%s) keeps Longhorn's "
			   "disks out",
			   state, e, cov.by->where);
	} else if (rhel_default) {
		kv_add_str(ev, "longhorn_blacklisted_by",
			   "no /etc/multipath.conf: RHEL's multipath blacklists every device");
		judge_note(&j, STATUS_PASS,
			   "multipathd is %s, but without /etc/multipath.conf RHEL's multipath "
			   "blacklists every device",
			   state);
	} else {
		_cleanup_free_ char *why = not_covered_why(&c, &cov);
		if (!running && perr != 0 && !enabled)
			judge_note(&j, STATUS_UNKNOWN,
				   "whether multipathd runs could not be seen, and %s", why);
		else
			judge_note(&j, STATUS_WARN,
				   "multipathd is %s and %s: it can claim Longhorn volumes' disks "
				   "(mount fails with \"already mounted or mount point busy\")",
				   state, why);
		judge_remedy(
		    &j,
		    "Add to /etc/multipath.conf (or a .conf file in /etc/multipath/conf.d):\n%s",
		    LONGHORN_BLACKLIST);
		judge_remedy(&j, "Restart multipathd: `systemctl restart multipathd`.");
		judge_remedy(&j, "Or, if this node needs no multipath: `systemctl disable --now "
				 "multipathd.service multipathd.socket`.");
	}
	judge_apply(&j, f, "");
	judge_clear(&j);
	multipath_conf_cover_clear(&cov);
	multipath_conf_cover_clear(&alt_cov);
	osrelease_clear(&os);
	mp_config_clear(&c);
	mp_config_clear(&alt);
}
