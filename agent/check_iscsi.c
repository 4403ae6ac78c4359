/*
 * host.iscsi: Longhorn v1 volumes reach the node as iSCSI disks: the engine
 * runs an iSCSI target and the node logs in with open-iscsi. That needs the
 * iscsiadm tool, an initiator name (/etc/iscsi/initiatorname.iscsi) and the
 * iscsid daemon, running or ready to start on demand (iscsid.socket).
 */
#include "checks.h"
#include "hostbin.h"
#include "judge.h"
#include "modules.h"
#include "osrelease.h"
#include "procs.h"
#include "unitfiles.h"

#include <errno.h>
#include <string.h>

#define INITIATORNAME_FILE "etc/iscsi/initiatorname.iscsi"
#define ISCSID_CONF	   "etc/iscsi/iscsid.conf"

static const struct os_packages iscsi_packages = {
    .debian = "open-iscsi",
    .suse = "open-iscsi",
    .rhel = "iscsi-initiator-utils",
    .arch = "open-iscsi",
};

struct initiator {
	int err;
	char *name;	/* InitiatorName=..., NULL when absent */
	bool generate;	/* GenerateName=yes: Debian's iscsid writes the name at first start */
	bool debian_ok; /* a line matches Debian's ^InitiatorName=[^ \t\n] */
};

/*
 * The name as iscsid reads it (open-iscsi's cfg_get_string_param()): the first
 * line containing "InitiatorName" where no '#' comes before it, its value after
 * the next '=' (blanks around the '=' allowed), stripped; lines with no '=' or
 * an empty value are skipped. Later lines do not count, so a name appended to a
 * cloned file is not the one iscsid uses. "GenerateName=yes" is Debian's
 * marker (its startup script greps for it at the start of a line).
 */
static void parse_initiator_line(char *line, struct initiator *in)
{
	char *key = strstr(line, "InitiatorName");
	char *hash = strchr(line, '#');
	if (key && !in->name && !(hash && hash < key)) {
		char *eq = strchr(key, '=');
		char *v = eq ? strstrip(eq + 1) : NULL;
		if (v && *v)
			in->name = xstrdup(v);
	}
	if (startswith(line, "GenerateName="))
		in->generate = streq(strstrip(line + strlen("GenerateName=")), "yes");
	/* grep's bracket expression takes "\t" and "\n" as the letters t and n. */
	if (startswith(line, "InitiatorName=") && line[14] && !strchr(" \\tn", line[14]))
		in->debian_ok = true;
}

static int parse_initiatorname(const char *buf, size_t len, struct initiator *in)
{
	if (memchr(buf, '\0', len))
		return -EINVAL;
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		_cleanup_free_ char *line = xstrndup(p, l);
		p += l + 1;
		parse_initiator_line(line, in);
	}
	return 0;
}

static void read_initiator(const struct hostroot *hr, struct initiator *in)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	*in = (struct initiator){0};
	in->err = hostroot_read(hr, INITIATORNAME_FILE, 65536, &buf, &len);
	if (in->err == 0)
		in->err = parse_initiatorname(buf, len, in);
}

/* RFC 3720 §3.2.6: iqn., eui. or naa. names. */
static bool iscsi_name_ok(const char *n)
{
	return startswith(n, "iqn.") || startswith(n, "eui.") || startswith(n, "naa.");
}

struct daemon {
	int procs_err;
	struct procs_found procs;
	int socket, service; /* unitfile state or -errno */
	char *socket_where, *service_where;
	char *init_unit;   /* host path of open-iscsi's iscsi-init.service (not masked), or NULL */
	char *start_check; /* Debian's startup-checks.sh, as ExecStartPre names it */
	char *start_check_unit;	  /* the iscsid.service that runs it */
	bool start_check_no_conf; /* it requires /etc/iscsi/iscsid.conf, which is missing */
};

/* An iscsid process was seen (a start check that now refuses it is then a WARN:
 * it bites at the next start, not now). */
static bool iscsid_running(const struct daemon *d)
{
	return d->procs_err == 0 && d->procs.total > 0;
}

/* The pattern Debian's startup-checks.sh greps the name file for. */
#define DEBIAN_NAME_PATTERN "^InitiatorName=[^ \\t\\n]"

/*
 * Debian's and Ubuntu's iscsid.service run open-iscsi/startup-checks.sh as
 * ExecStartPre; it exits 1, so iscsid never starts (socket-activated or not),
 * unless a line of the name file matches DEBIAN_NAME_PATTERN. iscsid itself
 * is laxer (blanks around '=', any name), so the script is what decides
 * there. Only a script that exists and greps for the name counts, and not
 * one whose failure the unit ignores ("ExecStartPre=-...").
 */
static void find_start_check(const struct hostroot *hr, struct daemon *d)
{
	struct strv pre = {0};
	char *unit = unitfiles_values(hr, "iscsid.service", "ExecStartPre", 16, &pre);
	for (size_t i = 0; i < pre.n && !d->start_check; i++) {
		const char *cmd = pre.items[i];
		/* systemd's prefixes; with '-' a failing command does not stop the start. */
		bool ignored = false;
		for (; *cmd && strchr("-@:+!|", *cmd); cmd++)
			ignored |= *cmd == '-';
		if (ignored)
			continue;
		_cleanup_free_ char *path = xstrndup(cmd, strcspn(cmd, " \t"));
		const char *base = strrchr(path, '/');
		if (path[0] != '/' || !streq(base + 1, "startup-checks.sh"))
			continue;
		_cleanup_free_ char *text = NULL;
		if (hostroot_read(hr, path, 65536, &text, NULL) == 0 &&
		    strstr(text, "^InitiatorName=")) {
			d->start_check = xstrdup(path);
			d->start_check_unit = xstrdup(unit);
			/* The script also exits 1 when iscsid.conf is missing. */
			d->start_check_no_conf =
			    strstr(text, "/" ISCSID_CONF) && !hostroot_exists(hr, ISCSID_CONF);
		}
	}
	strv_clear(&pre);
	free(unit);
}

/* The name file as Debian's startup check sees it; false when it refuses to start iscsid. */
static bool start_check_passes(const struct initiator *in, const struct daemon *d,
			       struct kv_list *ev)
{
	if (!d->start_check || in->generate || in->err < 0)
		return true;
	kv_add_strf(ev, "iscsid_start_check", "%s (ExecStartPre of %s): %s", d->start_check,
		    d->start_check_unit,
		    in->debian_ok ? "a line matches " DEBIAN_NAME_PATTERN
				  : "no line matches " DEBIAN_NAME_PATTERN);
	return in->debian_ok;
}

static void judge_start_check(const struct initiator *in, const struct daemon *d, struct judge *j)
{
	bool running = iscsid_running(d);
	/* The pattern's class holds the letters t and n: a naa. name never passes. */
	bool letter = in->name && (in->name[0] == 'n' || in->name[0] == 't');
	judge_note(j, running ? STATUS_WARN : STATUS_FAIL,
		   "%s%s (ExecStartPre of iscsid.service) refuses to start iscsid: no line of "
		   "/etc/iscsi/initiatorname.iscsi matches %s%s",
		   running ? "iscsid runs, but it will not start again: " : "", d->start_check,
		   DEBIAN_NAME_PATTERN,
		   letter ? " (a name starting with n or t never does: the pattern excludes "
			    "those letters)"
			  : " (the name must follow \"InitiatorName=\" at the start of a line, "
			    "without blanks)");
	if (letter)
		judge_remedy(j,
			     "Use an iqn. name: `echo \"InitiatorName=$(iscsi-iname -p "
			     "iqn.1993-08.org.debian:01)\" > /etc/iscsi/initiatorname.iscsi`, then "
			     "`systemctl restart iscsid`.");
	else
		judge_remedy(j,
			     "Write the line as `InitiatorName=%s` (at the start of the line, no "
			     "blanks around '='), then `systemctl restart iscsid`.",
			     in->name);
}

#define ISCSI_INIT_UNIT "iscsi-init.service"

/*
 * open-iscsi's iscsi-init.service (RHEL/Rocky 9, Fedora, openSUSE, SLE) writes
 * the initiator name when the file is missing (ConditionPathExists=!…), and
 * iscsid.service Requires= it: so images ship without the file and every
 * node gets its own name at iscsid's first start.
 */
static char *find_init_unit(struct agent_ctx *ctx, const struct hostroot *hr)
{
	if (agent_unitfiles_state(ctx, ISCSI_INIT_UNIT, NULL) == UNITFILE_MASKED)
		return NULL;
	return unitfiles_find(hr, ISCSI_INIT_UNIT);
}

static void judge_iscsiadm(const struct hostbin *b, const char *install, const char *dirs,
			   struct kv_list *ev, struct judge *j)
{
	if (b->found.n) {
		kv_add_str(ev, "iscsiadm", b->found.items[0]);
		judge_note(j, STATUS_PASS, "iscsiadm at %s", b->found.items[0]);
	} else if (b->not_exec.n) {
		kv_add_strf(ev, "iscsiadm", "%s (not an executable file)", b->not_exec.items[0]);
		judge_note(j, STATUS_FAIL, "%s is not an executable file", b->not_exec.items[0]);
		judge_remedy(j, "Reinstall open-iscsi: %s.", install);
	} else if (b->unreadable.n) {
		kv_add_strf(ev, "iscsiadm", "unknown: %s", b->unreadable.items[0]);
		judge_note(j, STATUS_UNKNOWN, "could not look for iscsiadm: %s",
			   b->unreadable.items[0]);
		judge_remedy(j,
			     "Run the agent with the host's / as the host root (the DaemonSet "
			     "mounts it at /host), or check on the node: `command -v iscsiadm`.");
	} else {
		kv_add_strf(ev, "iscsiadm", "not found in %s", dirs);
		judge_note(j, STATUS_FAIL, "iscsiadm is not installed");
		judge_remedy(j, "Install the iSCSI initiator: %s.", install);
	}
}

static bool iscsid_ready(const struct daemon *d)
{
	return (d->procs_err == 0 && d->procs.total > 0) || d->socket == UNITFILE_ENABLED;
}

static void judge_initiator(const struct hostroot *hr, const struct initiator *in,
			    const struct daemon *d, struct kv_list *ev, struct judge *j)
{
	_cleanup_free_ char *file = hostroot_display(hr, INITIATORNAME_FILE);
	kv_add_str(ev, "initiatorname_file", "/" INITIATORNAME_FILE);
	const char *gen =
	    "`echo \"InitiatorName=$(iscsi-iname)\" > /etc/iscsi/initiatorname.iscsi`, "
	    "then `systemctl restart iscsid`.";
	bool will_start = d->socket == UNITFILE_ENABLED || d->service == UNITFILE_ENABLED;
	bool running = iscsid_running(d);
	if (in->err == -ENOENT && d->init_unit && will_start && !running) {
		kv_add_strf(ev, "initiator_name", "absent: %s writes it when iscsid first starts",
			    ISCSI_INIT_UNIT);
		kv_add_str(ev, "initiator_generator", d->init_unit);
		judge_note(j, STATUS_PASS,
			   "no initiator name yet: %s (%s) generates it when iscsid first starts",
			   ISCSI_INIT_UNIT, d->init_unit);
	} else if (in->err == -ENOENT) {
		kv_add_str(ev, "initiator_name", "absent: no such file");
		judge_note(j, STATUS_FAIL, "/etc/iscsi/initiatorname.iscsi does not exist");
		judge_remedy(j, "Create an initiator name: %s", gen);
	} else if (in->err < 0) {
		kv_add_strf(ev, "initiator_name", "unreadable: %s",
			    in->err == -EINVAL ? "not a text file" : util_read_strerror(in->err));
		judge_note(j, STATUS_UNKNOWN, "could not read %s: %s", file,
			   in->err == -EINVAL ? "not a text file" : util_read_strerror(in->err));
		judge_remedy(j, "Make %s a readable text file with one InitiatorName= line: %s",
			     file, gen);
	} else if (in->name) {
		kv_add_str(ev, "initiator_name", in->name);
		if (!start_check_passes(in, d, ev)) {
			judge_start_check(in, d, j);
		} else if (iscsi_name_ok(in->name)) {
			judge_note(j, STATUS_PASS, "initiator %s", in->name);
		} else {
			judge_note(j, STATUS_WARN,
				   "InitiatorName \"%s\" is not an iSCSI name (iqn., eui. or naa.)",
				   in->name);
			judge_remedy(j, "Replace it with a generated one: %s", gen);
		}
	} else if (in->generate && iscsid_ready(d)) {
		kv_add_str(ev, "initiator_name",
			   "GenerateName=yes: written when iscsid first starts");
		judge_note(j, STATUS_PASS, "initiator name generated when iscsid first starts");
	} else {
		kv_add_str(ev, "initiator_name",
			   in->generate ? "GenerateName=yes, and iscsid never started" : "absent");
		judge_note(j, STATUS_FAIL, "/etc/iscsi/initiatorname.iscsi has no InitiatorName");
		judge_remedy(j, "Create an initiator name: %s", gen);
	}
}

/* Where the agent cannot see the host's processes (hidepid, another PID namespace). */
#define ISCSID_SEE_REMEDY                                                                          \
	"Run the agent in the host's PID namespace (the DaemonSet sets hostPID), or check on the " \
	"node: `systemctl status iscsid`."

static void judge_iscsid(const struct hostroot *hr, const struct daemon *d, struct kv_list *ev,
			 struct judge *j)
{
	bool running = iscsid_running(d);
	if (running)
		kv_add_strf(ev, "iscsid", "running (pid %d)", d->procs.pids[0]);
	else if (d->procs_err == 0)
		kv_add_str(ev, "iscsid", "not running");
	else {
		_cleanup_free_ char *p = hostroot_display(hr, "proc");
		kv_add_strf(ev, "iscsid", "unknown: %s: %s", p,
			    d->procs_err == -ESRCH ? "PID 1 not visible (hidepid or another PID "
						     "namespace)"
						   : strerror(-d->procs_err));
	}
	unitfiles_evidence(hr, ev, "iscsid_socket", "iscsid.socket", d->socket, d->socket_where);
	unitfiles_evidence(hr, ev, "iscsid_service", "iscsid.service", d->service,
			   d->service_where);

	if (d->start_check_no_conf) {
		kv_add_str(ev, "iscsid_conf", "absent: /" ISCSID_CONF);
		judge_note(j, running ? STATUS_WARN : STATUS_FAIL,
			   "%s/" ISCSID_CONF " does not exist: %s (ExecStartPre of iscsid.service) "
			   "refuses to start iscsid without it",
			   running ? "iscsid runs, but it will not start again: " : "",
			   d->start_check);
		judge_remedy(
		    j, "Restore Debian's configuration file: `apt-get install --reinstall -o "
		       "Dpkg::Options::=--force-confmiss open-iscsi`, then `systemctl restart "
		       "iscsid`.");
	}
	const char *enable = "`systemctl enable --now iscsid.socket iscsid.service`";
	if (running) {
		judge_note(j, STATUS_PASS, "iscsid running");
	} else if (d->socket == UNITFILE_ENABLED) {
		judge_note(j, STATUS_PASS, "iscsid socket-activated (iscsid.socket enabled)");
	} else if (d->socket == UNITFILE_MASKED || d->service == UNITFILE_MASKED) {
		judge_note(j, STATUS_FAIL, "iscsid is masked (%s)",
			   d->socket == UNITFILE_MASKED ? d->socket_where : d->service_where);
		judge_remedy(j, "Unmask iscsid: `systemctl unmask iscsid.socket iscsid.service`.");
		judge_remedy(j, "Enable it: %s.", enable);
	} else if (d->procs_err == 0 && d->service == UNITFILE_ENABLED) {
		judge_note(j, STATUS_FAIL,
			   "iscsid.service is enabled but iscsid is not running, and iscsid.socket "
			   "is not enabled: iscsiadm cannot reach it");
		judge_remedy(j, "Start it: `systemctl start iscsid`.");
		judge_remedy(j, "See why it stopped: `journalctl -u iscsid`.");
	} else if (d->procs_err == 0) {
		judge_note(j, STATUS_FAIL, "iscsid is not running and not socket-activated");
		judge_remedy(j, "Enable iscsid: %s.", enable);
	} else if (d->service == UNITFILE_ENABLED) {
		judge_note(j, STATUS_UNKNOWN,
			   "iscsid.service is enabled, but whether iscsid runs could not be seen");
		judge_remedy(j, "%s", ISCSID_SEE_REMEDY);
	} else {
		judge_note(j, STATUS_UNKNOWN,
			   "iscsid is not socket-activated, and whether it runs could not be seen");
		judge_remedy(j, "%s", ISCSID_SEE_REMEDY);
	}
}

/*
 * The kernel's iSCSI-over-TCP transport. iscsid loads iscsi_tcp at the first
 * login, so a loadable module is enough; a kernel without it (Ubuntu kernels
 * whose linux-modules-extra is not installed) fails every login with
 * "iscsiadm: Could not insert module tcp". Only a module known to be absent
 * fails; when what would prove it absent cannot be read, UNKNOWN with the reason.
 */
static void judge_iscsi_tcp(const struct hostroot *hr, struct kconfig_cache *kcache,
			    const struct osrelease *os, struct kv_list *ev, struct judge *j)
{
	const char *mod = "iscsi_tcp";
	int loaded = modules_loaded(hr, mod);
	if (loaded == 1) {
		kv_add_str(ev, mod, "loaded");
		return;
	}
	_cleanup_free_ char *rel = NULL, *cfg = NULL;
	int rr = modules_kernel_release(hr, &rel);
	if (rr < 0) {
		kv_add_strf(ev, mod, "unknown: kernel release unreadable: %s",
			    util_read_strerror(rr));
		judge_note(j, STATUS_UNKNOWN,
			   "iscsi_tcp is not loaded, and the kernel release "
			   "(/proc/sys/kernel/osrelease) to look it up for cannot be read");
		judge_remedy(j,
			     "Run the agent with the host's / (with its /proc) as the host root, "
			     "or check on the node: `modinfo iscsi_tcp`.");
		return;
	}
	int builtin = modules_builtin(hr, rel, mod);
	int kc = kconfig_value_in(kcache, hr, rel, "CONFIG_ISCSI_TCP", &cfg);
	if (builtin == 1 || (kc == 1 && streq(cfg, "y"))) {
		kv_add_strf(ev, mod, "built in (%s)",
			    builtin == 1 ? "modules.builtin" : "CONFIG_ISCSI_TCP=y");
		return;
	}
	int loadable = modules_loadable(hr, rel, mod);
	if (loadable == 1) {
		kv_add_str(ev, mod, "loadable (modules.dep): iscsid loads it at the first login");
		return;
	}
	/* Absent only when the running kernel is known not to have it now (not
	 * loaded), not to have it built in (modules.builtin, or the config), and not
	 * to be able to load it: modules.dep read and without it. The config alone
	 * does not say a module is not installed (an out-of-tree build, a DKMS
	 * package), and an unreadable modules.dep says nothing at all. */
	if (loaded == 0 && (builtin == 0 || kc == 0) && loadable == 0) {
		kv_add_strf(ev, mod, "absent: not loaded, not built in, not in modules.dep of %s",
			    rel);
		judge_note(
		    j, STATUS_FAIL,
		    "kernel %s has no iscsi_tcp (the iSCSI TCP transport): every iSCSI login "
		    "fails",
		    rel);
		if (streq(os->id, "ubuntu"))
			judge_remedy(j,
				     "Install the kernel's extra modules: `apt-get install -y "
				     "linux-modules-extra-%s`, then `modprobe iscsi_tcp`.",
				     rel);
		else
			judge_remedy(j, "Boot a kernel with CONFIG_ISCSI_TCP (=m with its module "
					"installed, or =y), then `modprobe iscsi_tcp`.");
		return;
	}
	/* Not seen, and not proven absent: what could not be read decides nothing,
	 * and a PASS would be a guess (host.nfs.kernel says UNKNOWN the same way). */
	const char *why = loaded < 0 ? "neither /proc/modules nor /sys/module is readable"
			  : loadable < 0
			      ? "modules.dep of the running kernel could not be read"
			      : "modules.builtin and the kernel configuration could not be read";
	_cleanup_free_ char *dep = NULL;
	if (loadable < 0 && loaded >= 0)
		dep = xasprintf(" (%s)", util_read_strerror(loadable));
	kv_add_strf(ev, mod, "unknown: %s%s", why, dep ? dep : "");
	judge_note(j, STATUS_UNKNOWN,
		   "whether kernel %s has iscsi_tcp (the iSCSI TCP transport) cannot be told: %s",
		   rel, why);
	judge_remedy(j, "Run the agent with the host's / (with its /proc, /sys and /lib/modules) "
			"as the host root.");
}

void check_iscsi(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = agent_finding(ctx, id);
	const struct hostroot *hr = &ctx->root;
	struct osrelease os;
	osrelease_read(hr, &os);
	_cleanup_free_ char *install = osrelease_install_hint(&os, &iscsi_packages);
	_cleanup_free_ char *dirs = hostbin_dirs_str();
	struct hostbin adm;
	hostbin_find(hr, "iscsiadm", &adm);
	struct initiator in;
	read_initiator(hr, &in);
	struct daemon d = {0};
	d.procs_err = agent_procs_find(ctx, "iscsid", &d.procs);
	d.socket = agent_unitfiles_state(ctx, "iscsid.socket", &d.socket_where);
	d.service = agent_unitfiles_state(ctx, "iscsid.service", &d.service_where);
	d.init_unit = find_init_unit(ctx, hr);
	find_start_check(hr, &d);

	struct judge j = {0};
	judge_iscsiadm(&adm, install, dirs, &f->evidence, &j);
	judge_initiator(hr, &in, &d, &f->evidence, &j);
	judge_iscsid(hr, &d, &f->evidence, &j);
	judge_iscsi_tcp(hr, agent_run_kconfig(ctx), &os, &f->evidence, &j);
	kv_add_str(&f->evidence, "os", *os.pretty_name ? os.pretty_name : os.id);
	const char *pkg = osrelease_package(&os, &iscsi_packages);
	if (pkg)
		kv_add_str(&f->evidence, "package", pkg);
	if (j.status == STATUS_FAIL)
		judge_note(&j, STATUS_FAIL, "Longhorn v1 volumes cannot attach to this node");
	judge_apply(&j, f, "");

	judge_clear(&j);
	free(d.socket_where);
	free(d.service_where);
	free(d.init_unit);
	free(d.start_check);
	free(d.start_check_unit);
	free(in.name);
	hostbin_clear(&adm);
	osrelease_clear(&os);
}
