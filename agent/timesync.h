/*
 * Time synchronisation of a host: the kernel clock's discipline state (through
 * the sys_clock seam) and which sync daemon the host has (under its host root).
 */
#pragma once
#include "hostroot.h"
#include "kv.h"
#include "procs.h"

struct timesync_clock {
	int state;	     /* adjtimex's answer: TIME_OK … TIME_ERROR */
	int status;	     /* STA_* bits */
	int64_t offset_us;   /* in µs also when the kernel reports ns (STA_NANO) */
	int64_t maxerror_us; /* the kernel's bound on the error; grows 500 µs/s between updates */
	int64_t esterror_us; /* the sync daemon's estimate */
	bool synced;	     /* state is not TIME_ERROR and STA_UNSYNC is clear */
};

/* Read the kernel clock (adjtimex, read only). Returns 0 or -errno. */
int timesync_read_clock(struct timesync_clock *ret);
/* "TIME_OK", … "TIME_ERROR", or "state N". Returns a static string. */
const char *timesync_state_name(int state);
/* Names of the set STA_* bits ("STA_PLL", "STA_UNSYNC", …), in bit order. */
void timesync_status_names(int status, struct value_list *out);
/* The clock facts: offset_us, maxerror_us, esterror_us, synced. */
void timesync_clock_to_kv(const struct timesync_clock *c, struct kv_list *map);

/* Sync daemons, each looked for three ways: a running process (proc/PID/comm),
 * its binary, and an enabled systemd unit (a link in a *.target.wants dir). */
struct timesync_daemons {
	struct strv running, installed, enabled; /* "chronyd", "ntpd", "systemd-timesyncd" */
	bool proc_readable;			 /* proc could be listed */
	int64_t processes;			 /* processes looked at */
};

/* The processes from scan (procs.h: the run's one scan of proc/, filled on
 * first use), or from a scan of its own when scan is NULL. */
void timesync_find_daemons(const struct hostroot *root, struct procs_scan *scan,
			   struct timesync_daemons *ret);
void timesync_daemons_clear(struct timesync_daemons *d);

/*
 * chronyd's `rtcsync` directive. chronyd on Linux clears the kernel's
 * STA_UNSYNC only with rtcsync (sys_timex.c, set_sync_status(): the flag also
 * turns on the kernel's 11-minute RTC mode); without it a synchronised chronyd
 * leaves STA_UNSYNC set and only writes a small maxerror (16 s while it is not
 * synchronised). Read from chrony.conf (/etc/chrony/chrony.conf on Debian and
 * Ubuntu, /etc/chrony.conf elsewhere) and the files its `include` and
 * `confdir` directives name.
 */
struct timesync_chrony {
	int err;	     /* 0; -ENOENT: no chrony.conf; else why the first file failed */
	char *err_file;	     /* with err other than -ENOENT: the host path that failed */
	struct strv files;   /* host paths read, in order */
	char *rtcsync_where; /* "FILE:LINE" of an rtcsync directive, NULL when none */
};

void timesync_chrony_read(const struct hostroot *root, struct timesync_chrony *ret);
void timesync_chrony_clear(struct timesync_chrony *c);
/* One chrony configuration file: sets *ret_rtcsync_line (1-based; 0 when none)
 * and appends the arguments of `include` (glob patterns) and `confdir`
 * (directories) to the lists. Returns 0, or -EINVAL for binary data. */
int timesync_chrony_parse(const uint8_t *buf, size_t len, size_t *ret_rtcsync_line,
			  struct strv *includes, struct strv *confdirs);
