#include "timesync.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sys_clock.h"

/* Far more processes than a node runs; the scan stays bounded on any host root. */
#define MAX_PROCESSES 1000000

int timesync_read_clock(struct timesync_clock *ret)
{
	struct timex tx;
	int state = sys_clock_adjtimex(&tx);
	if (state < 0)
		return state;
	*ret = (struct timesync_clock){
	    .state = state,
	    .status = tx.status,
	    .offset_us = (tx.status & STA_NANO) ? (int64_t)tx.offset / 1000 : (int64_t)tx.offset,
	    .maxerror_us = tx.maxerror,
	    .esterror_us = tx.esterror,
	    .synced = state != TIME_ERROR && !(tx.status & STA_UNSYNC),
	};
	return 0;
}

const char *timesync_state_name(int state)
{
	static const char *const names[] = {"TIME_OK",	"TIME_INS",  "TIME_DEL",
					    "TIME_OOP", "TIME_WAIT", "TIME_ERROR"};
	static char other[32];
	if (state >= 0 && (size_t)state < ELEMENTSOF(names))
		return names[state];
	snprintf(other, sizeof(other), "state %d", state);
	return other;
}

void timesync_status_names(int status, struct value_list *out)
{
	static const struct {
		int bit;
		const char *name;
	} bits[] = {
	    {STA_PLL, "STA_PLL"},
	    {STA_PPSFREQ, "STA_PPSFREQ"},
	    {STA_PPSTIME, "STA_PPSTIME"},
	    {STA_FLL, "STA_FLL"},
	    {STA_INS, "STA_INS"},
	    {STA_DEL, "STA_DEL"},
	    {STA_UNSYNC, "STA_UNSYNC"},
	    {STA_FREQHOLD, "STA_FREQHOLD"},
	    {STA_PPSSIGNAL, "STA_PPSSIGNAL"},
	    {STA_PPSJITTER, "STA_PPSJITTER"},
	    {STA_PPSWANDER, "STA_PPSWANDER"},
	    {STA_PPSERROR, "STA_PPSERROR"},
	    {STA_CLOCKERR, "STA_CLOCKERR"},
	    {STA_NANO, "STA_NANO"},
	    {STA_MODE, "STA_MODE"},
	    {STA_CLK, "STA_CLK"},
	};
	for (size_t i = 0; i < ELEMENTSOF(bits); i++)
		if (status & bits[i].bit)
			vlist_add_str(out, bits[i].name);
}

void timesync_clock_to_kv(const struct timesync_clock *c, struct kv_list *map)
{
	kv_add_int(map, "offset_us", c->offset_us);
	kv_add_int(map, "maxerror_us", c->maxerror_us);
	kv_add_int(map, "esterror_us", c->esterror_us);
	kv_add_bool(map, "synced", c->synced);
}

static const struct daemon {
	const char *name;
	const char *comm; /* the kernel cuts comm to 15 bytes */
	const char *binaries[3];
	const char *units[4];
} daemons[] = {
    {"chronyd",
     "chronyd",
     {"usr/sbin/chronyd", "sbin/chronyd"},
     {"chronyd.service", "chrony.service"}},
    /* ntpd is also the process name of ntpsec and OpenNTPD. */
    {"ntpd",
     "ntpd",
     {"usr/sbin/ntpd", "sbin/ntpd"},
     {"ntpd.service", "ntp.service", "ntpsec.service", "openntpd.service"}},
    {"systemd-timesyncd",
     "systemd-timesyn",
     {"usr/lib/systemd/systemd-timesyncd", "lib/systemd/systemd-timesyncd"},
     {"systemd-timesyncd.service"}},
};

static const char *const wants_dirs[] = {
    "etc/systemd/system/multi-user.target.wants",
    "etc/systemd/system/sysinit.target.wants",
};

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static void scan_processes(const struct hostroot *root, struct timesync_daemons *d)
{
	DIR *dir = hostroot_opendir(root, "proc");
	if (!dir)
		return;
	d->proc_readable = true;
	struct dirent *de;
	while ((de = readdir(dir)) && d->processes < MAX_PROCESSES &&
	       d->running.n < ELEMENTSOF(daemons)) {
		if (!all_digits(de->d_name))
			continue;
		char path[sizeof(de->d_name) + 16];
		snprintf(path, sizeof(path), "proc/%s/comm", de->d_name);
		_cleanup_free_ char *comm = NULL;
		/* A process may exit between readdir and read: not an error. */
		if (hostroot_read_line(root, path, &comm) < 0)
			continue;
		d->processes++;
		for (size_t i = 0; i < ELEMENTSOF(daemons); i++)
			if (streq(comm, daemons[i].comm) &&
			    !strv_contains(&d->running, daemons[i].name))
				strv_add(&d->running, daemons[i].name);
	}
	closedir(dir);
}

static bool any_exists(const struct hostroot *root, const char *dir, const char *const *names,
		       size_t n)
{
	for (size_t i = 0; i < n && names[i]; i++) {
		_cleanup_free_ char *p =
		    dir ? xasprintf("%s/%s", dir, names[i]) : xstrdup(names[i]);
		if (hostroot_exists(root, p))
			return true;
	}
	return false;
}

void timesync_find_daemons(const struct hostroot *root, struct timesync_daemons *ret)
{
	*ret = (struct timesync_daemons){0};
	scan_processes(root, ret);
	for (size_t i = 0; i < ELEMENTSOF(daemons); i++) {
		const struct daemon *dm = &daemons[i];
		if (any_exists(root, NULL, dm->binaries, ELEMENTSOF(dm->binaries)))
			strv_add(&ret->installed, dm->name);
		for (size_t w = 0; w < ELEMENTSOF(wants_dirs); w++) {
			if (any_exists(root, wants_dirs[w], dm->units, ELEMENTSOF(dm->units))) {
				strv_add(&ret->enabled, dm->name);
				break;
			}
		}
	}
}

void timesync_daemons_clear(struct timesync_daemons *d)
{
	strv_clear(&d->running);
	strv_clear(&d->installed);
	strv_clear(&d->enabled);
}
