/*
 * host.clock (docs/checks/host.clock.md): is the kernel clock disciplined by a sync daemon?
 * adjtimex(2) reads the kernel's own view: STA_UNSYNC / TIME_ERROR mean no
 * daemon has told the kernel the clock is synchronised; maxerror is the
 * kernel's bound on the error, which grows by 500 µs every second the daemon
 * does not update it. In a container the kernel is the host's, so this is the
 * host's clock whatever the container.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>

#include "checks.h"
#include "facts.h"
#include "judge.h"
#include "timesync.h"
#include "unitfiles.h"

static void add_list(struct finding *f, const char *key, const struct strv *v)
{
	struct value_list *l = kv_add_list(&f->evidence, key);
	for (size_t i = 0; i < v->n; i++)
		vlist_add_str(l, v->items[i]);
}

static void add_daemons(struct finding *f, const struct timesync_daemons *d)
{
	add_list(f, "sync_daemons_running", &d->running);
	add_list(f, "sync_daemons_installed", &d->installed);
	add_list(f, "sync_daemons_enabled", &d->enabled);
	if (d->proc_readable)
		kv_add_strf(&f->evidence, "daemon_evidence",
			    "%lld %s /proc/PID/comm, binaries in /usr/sbin and "
			    "/usr/lib/systemd, unit links in /etc/systemd/system/*.target.wants",
			    (long long)d->processes,
			    plural(d->processes, "process's", "processes'"));
	else
		kv_add_str(&f->evidence, "daemon_evidence",
			   "/proc not readable (running daemons unknown); binaries and unit links "
			   "only");
}

static void add_clock(struct finding *f, const struct timesync_clock *c, int64_t threshold_us)
{
	kv_add_str(&f->evidence, "state", timesync_state_name(c->state));
	timesync_status_names(c->status, kv_add_list(&f->evidence, "status"));
	kv_add_strf(&f->evidence, "status_hex", "0x%04x", (unsigned)c->status);
	kv_add_int(&f->evidence, "offset_us", c->offset_us);
	kv_add_int(&f->evidence, "maxerror_us", c->maxerror_us);
	kv_add_int(&f->evidence, "esterror_us", c->esterror_us);
	kv_add_int(&f->evidence, "maxerror_warn_us", threshold_us);
}

/* How to start or enable a daemon: systemctl only where PID 1 is systemd
 * (unitfiles_pid1_systemd()); elsewhere the init system's own words. */
struct init_sys {
	int systemd; /* 1, 0, or -errno: not known */
	char *comm;  /* PID 1's name, when read */
};

static void remedy_unsynced(struct judge *j, const struct timesync_daemons *d,
			    const struct init_sys *in)
{
	const char *other = in->comm && *in->comm ? in->comm : "not known";
	if (d->running.n > 0) {
		const char *name = d->running.items[0];
		judge_remedy(j,
			     "%s is running but has not synchronised the clock: check its sources "
			     "(%s) and that its NTP servers are reachable (UDP 123).",
			     name,
			     streq(name, "chronyd") ? "`chronyc tracking`, `chronyc sources`"
			     : streq(name, "ntpd")  ? "`ntpq -p`"
						    : "`timedatectl timesync-status`");
	} else if (d->enabled.n > 0 && in->systemd == 1) {
		judge_remedy(j, "%s is enabled but not running: `systemctl restart %s`.",
			     d->enabled.items[0], d->enabled.items[0]);
		judge_remedy(j, "Check its log: `journalctl -u %s`.", d->enabled.items[0]);
	} else if (d->enabled.n > 0) {
		judge_remedy(j,
			     "%s is enabled but not running: start it with the host's init "
			     "system (PID 1 is %s, not systemd), then check its log.",
			     d->enabled.items[0], other);
	} else if (d->installed.n > 0 && in->systemd == 1) {
		judge_remedy(j, "%s is installed but not enabled: `systemctl enable --now %s`.",
			     d->installed.items[0], d->installed.items[0]);
	} else if (d->installed.n > 0) {
		judge_remedy(j,
			     "%s is installed but not started: start it at boot with the host's "
			     "init system (PID 1 is %s, not systemd).",
			     d->installed.items[0], other);
	} else {
		judge_remedy(j, "Install and enable a time sync daemon (chrony: `chronyd`), "
				"pointed at the same NTP servers on every node; Longhorn, etcd "
				"and TLS all need agreeing clocks.");
	}
}

/* The kernel's NTP_PHASE_LIMIT, and what chronyd writes to maxerror while it is
 * not synchronised: below it, a daemon has set a real error bound. */
#define UNSYNC_MAXERROR_US INT64_C(16000000)

static void add_chrony(struct finding *f, const struct timesync_chrony *c)
{
	if (c->err == -ENOENT) {
		kv_add_str(&f->evidence, "chrony_rtcsync",
			   "unknown: no /etc/chrony/chrony.conf or /etc/chrony.conf");
	} else if (c->err < 0) {
		kv_add_strf(&f->evidence, "chrony_rtcsync", "unknown: %s: %s", c->err_file,
			    c->err == -EINVAL ? "not a text file" : util_read_strerror(c->err));
	} else if (c->rtcsync_where) {
		kv_add_strf(&f->evidence, "chrony_rtcsync", "set (%s)", c->rtcsync_where);
	} else {
		_cleanup_free_ char *files = strv_join(&c->files, ", ");
		kv_add_strf(&f->evidence, "chrony_rtcsync", "not set in %s", files);
	}
}

/* chronyd synchronised, but without rtcsync it never clears STA_UNSYNC: the
 * kernel's flag says nothing about the clock then, so say that, not "check the
 * sources". */
static bool chrony_without_rtcsync(const struct timesync_clock *c, const struct timesync_daemons *d,
				   const struct timesync_chrony *cc)
{
	return (c->status & STA_UNSYNC) && !(c->status & STA_CLOCKERR) &&
	       strv_contains(&d->running, "chronyd") && c->maxerror_us < UNSYNC_MAXERROR_US &&
	       c->maxerror_us >= 0 && cc->err == 0 && !cc->rtcsync_where;
}

static void fmt_us(char *buf, size_t len, int64_t us)
{
	if (us >= 1000000 || us <= -1000000)
		snprintf(buf, len, "%.1f s", (double)us / 1e6);
	else
		snprintf(buf, len, "%lld ms", (long long)(us / 1000));
}

void check_clock(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = agent_finding(ctx, id);
	_cleanup_(judge_clear) struct judge j = {.status = STATUS_PASS};
	int64_t thr = ctx->opts->thr.clock_maxerror_warn_us;
	struct timesync_daemons d;
	timesync_find_daemons(&ctx->root, agent_run_procs(ctx), &d);
	struct timesync_clock c;
	int r = timesync_read_clock(&c);
	if (r < 0) {
		add_daemons(f, &d);
		kv_add_strf(&f->evidence, "error", "adjtimex: %s", strerror(-r));
		judge_note(&j, STATUS_UNKNOWN, "cannot read the kernel clock state: adjtimex: %s",
			   strerror(-r));
		judge_remedy(&j, "adjtimex() with modes 0 only reads; allow it in the agent's "
				 "seccomp profile (container runtimes allow it by default).");
		judge_apply(&j, f, "");
		timesync_daemons_clear(&d);
		return;
	}
	facts_set_clock(ctx, &c);
	add_clock(f, &c, thr);
	add_daemons(f, &d);

	char maxerr[32], limit[32];
	fmt_us(maxerr, sizeof(maxerr), c.maxerror_us);
	fmt_us(limit, sizeof(limit), thr);
	struct timesync_chrony cc = {.err = -ENOENT};
	if (strv_contains(&d.running, "chronyd") || strv_contains(&d.installed, "chronyd")) {
		timesync_chrony_read(&ctx->root, &cc);
		add_chrony(f, &cc);
	}
	const char *via = d.running.n > 0 ? d.running.items[0] : NULL;
	struct init_sys in = {0};
	in.systemd = unitfiles_pid1_systemd(&ctx->root, &in.comm);
	kv_add_str(&f->evidence, "init",
		   in.systemd == 1   ? "systemd"
		   : in.systemd == 0 ? in.comm
				     : "unknown: /proc/1/comm unreadable, no /run/systemd/system");
	if (chrony_without_rtcsync(&c, &d, &cc)) {
		/* chronyd writes its real error bound only while it is synchronised (16 s
		 * otherwise), so the bound, not the flag, says whether it is: a healthy
		 * node is not failed for a flag chronyd never clears. */
		judge_note(
		    &j, STATUS_WARN,
		    "chronyd runs synchronised (it bounds the error at %s%s%s) but leaves the "
		    "kernel clock flagged unsynchronised (%s, STA_UNSYNC): its configuration "
		    "has no rtcsync, and without it chronyd on Linux never clears the flag, "
		    "so whatever reads the kernel's flag (timedatectl, time-sync.target) "
		    "reports the clock unsynchronised",
		    maxerr, c.maxerror_us > thr ? ", above " : "", c.maxerror_us > thr ? limit : "",
		    timesync_state_name(c.state));
		judge_remedy(&j,
			     "Add the line `rtcsync` to %s (the distributions' default "
			     "configuration has it; remove any `rtcfile` line).",
			     cc.files.items[0]);
		judge_remedy(&j, "Restart chronyd%s.",
			     in.systemd == 1 ? ": `systemctl restart chronyd`" : "");
		judge_remedy(&j, "Confirm with `chronyc tracking` (Leap status: Normal).");
	} else if (!c.synced) {
		judge_note(&j, STATUS_FAIL, "the kernel clock is not synchronised (%s%s)",
			   timesync_state_name(c.state),
			   (c.status & STA_UNSYNC) ? ", STA_UNSYNC" : "");
		remedy_unsynced(&j, &d, &in);
	} else if (c.maxerror_us > thr) {
		judge_note(&j, STATUS_WARN,
			   "the kernel clock's maximum error is %s, above %s: its sync daemon has "
			   "not updated it for a long time",
			   maxerr, limit);
		judge_remedy(&j,
			     "Check that the sync daemon%s%s still reaches its servers; the "
			     "bound grows by 0.5 ms per second without an update.",
			     via ? " " : "", via ? via : "");
	} else {
		judge_note(&j, STATUS_PASS, "synchronised (%s), maximum error %s%s%s",
			   timesync_state_name(c.state), maxerr, via ? ", by " : "",
			   via ? via : "");
	}
	judge_apply(&j, f, "");
	timesync_chrony_clear(&cc);
	timesync_daemons_clear(&d);
	free(in.comm);
}
