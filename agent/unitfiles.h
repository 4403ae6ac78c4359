/*
 * Whether a systemd unit is enabled, read from the unit directories on disk
 * (systemd is not asked: the agent may run in a container, and systemctl may
 * not exist in it). "Enabled" is what `systemctl enable` leaves behind: a link
 * named after the unit in some `*.wants/` or `*.requires/` directory of
 * /etc/systemd/system, /run/systemd/system or the vendor directories
 * (/usr/local/lib/systemd/system, /usr/lib/systemd/system, /lib/systemd/system),
 * whose target exists inside
 * the host root. "Masked" is a link to /dev/null named after the unit in
 * /etc/systemd/system or /run/systemd/system; it wins over any enablement.
 */
#pragma once
#include "hostroot.h"
#include "kv.h"

enum unitfile_state {
	UNITFILE_DISABLED,
	UNITFILE_ENABLED,
	UNITFILE_MASKED,
};

/*
 * Returns the state, or -ENOENT when the host root has none of the unit
 * directories (not a systemd host). *ret_where (may be NULL) gets the host path
 * of the link that decided ENABLED or MASKED, else NULL.
 */
int unitfiles_state(const struct hostroot *hr, const char *unit, char **ret_where);

/*
 * The unit directories' *.wants and *.requires subdirectories, listed once
 * for several questions (a vendor directory holds hundreds of units, and one
 * run of the agent asks about five units): zero-initialised, filled on first
 * use, unit_scan_clear frees it. Used by one thread at a time (agent.c lends
 * it to one check at a time, as the proc/ scan).
 */
#define UNIT_SCAN_DIRS 5
struct unit_scan {
	bool done;
	struct unit_scan_dir {
		int err;  /* of opening it: 0 or -errno */
		bool dup; /* the same directory as an earlier one (merged /usr): not listed */
		struct strv wants; /* its *.wants and *.requires names, in readdir order */
	} dirs[UNIT_SCAN_DIRS];
};
/* unitfiles_state, the directories listed from scan (NULL: listed for this call). */
int unitfiles_state_in(struct unit_scan *scan, const struct hostroot *hr, const char *unit,
		       char **ret_where);
void unit_scan_clear(struct unit_scan *scan);
const char *unitfile_state_name(enum unitfile_state s);
/* Evidence key: the state unitfiles_state() returned (st) for unit and the link that
 * decided it; a disabled unit without any unit file is "not installed". */
void unitfiles_evidence(const struct hostroot *hr, struct kv_list *ev, const char *key,
			const char *unit, int st, const char *where);
/* The unit file systemd loads for unit: the first regular file named unit in
 * /etc/systemd/system, /run/systemd/system, /usr/local/lib/systemd/system,
 * /usr/lib/systemd/system, /lib/systemd/system (earlier ones override later ones). Returns its host path
 * ("/usr/lib/systemd/system/x.service"), or NULL. */
char *unitfiles_find(const struct hostroot *hr, const char *unit);
/* Its drop-ins (unit.d/\*.conf of every unit directory, at most max), in the order
 * systemd applies them: by file name. */
void unitfiles_dropins(const struct hostroot *hr, const char *unit, size_t max, struct strv *ret);
/* The values of setting key (e.g. "ExecStartPre") in the unit file systemd loads
 * for unit and then its drop-ins, in order; an empty assignment drops the values
 * before it, as systemd does for list settings. Returns the unit file's host path
 * (NULL when there is none, and ret stays empty). At most max values. */
char *unitfiles_values(const struct hostroot *hr, const char *unit, const char *key, size_t max,
		       struct strv *ret);

/* Is PID 1 of the host systemd? 1 when /proc/1/comm says "systemd" or
 * /run/systemd/system is a directory (sd_booted(3)'s test); 0 when /proc/1/comm
 * names another init and /run/systemd/system is not there; -errno when neither
 * can be read. *ret_init (may be NULL) gets PID 1's comm when it was read. A
 * remedy proposes systemctl only on 1: on a container's init or OpenRC it fails. */
int unitfiles_pid1_systemd(const struct hostroot *hr, char **ret_init);
