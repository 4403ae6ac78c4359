#include "timesync.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* In readdir order, as far as needed: the count of processes looked at stops
 * where every daemon was found. */
static void scan_processes(const struct hostroot *root, struct procs_scan *scan,
			   struct timesync_daemons *d)
{
	struct procs_scan own = {0};
	if (!scan)
		scan = &own;
	procs_scan_fill(scan, root);
	d->proc_readable = scan->listed;
	for (size_t k = 0;
	     k < scan->n && d->processes < MAX_PROCESSES && d->running.n < ELEMENTSOF(daemons);
	     k++) {
		const struct procs_entry *e = &scan->p[k];
		d->processes++;
		for (size_t i = 0; i < ELEMENTSOF(daemons); i++)
			if (!e->long_comm && streq(e->comm, daemons[i].comm) &&
			    !strv_contains(&d->running, daemons[i].name))
				strv_add(&d->running, daemons[i].name);
	}
	procs_scan_clear(&own);
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

void timesync_find_daemons(const struct hostroot *root, struct procs_scan *scan,
			   struct timesync_daemons *ret)
{
	*ret = (struct timesync_daemons){0};
	scan_processes(root, scan, ret);
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

/* A chrony configuration is a handful of small files; stay bounded on any root. */
#define CHRONY_MAX_FILES 64
#define CHRONY_MAX_BYTES (1u << 20)

/* The words of one line (chrony's CPS_NormalizeLine: blanks separate, a line
 * whose first character is one of !;#% is a comment). */
static size_t line_words(const char *p, const char *end, char **w, size_t max)
{
	size_t n = 0;
	while (p < end && n < max) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end || (n == 0 && strchr("!;#%", *p)))
			break;
		const char *s = p;
		while (p < end && !isspace((unsigned char)*p))
			p++;
		w[n++] = xstrndup(s, (size_t)(p - s));
	}
	return n;
}

int timesync_chrony_parse(const uint8_t *buf, size_t len, size_t *ret_rtcsync_line,
			  struct strv *includes, struct strv *confdirs)
{
	const char *s = (const char *)buf, *end = s + len;
	*ret_rtcsync_line = 0;
	if (memchr(buf, '\0', len))
		return -EINVAL;
	for (size_t lineno = 1; s < end; lineno++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		char *w[8];
		size_t n = line_words(s, eol, w, ELEMENTSOF(w));
		s = eol + 1;
		/* chronyd compares directive names case-insensitively. */
		if (n >= 1 && !strcasecmp(w[0], "rtcsync") && !*ret_rtcsync_line)
			*ret_rtcsync_line = lineno;
		else if (n >= 2 && !strcasecmp(w[0], "include"))
			strv_add(includes, w[1]);
		else if (n >= 2 && !strcasecmp(w[0], "confdir"))
			for (size_t i = 1; i < n; i++)
				strv_add(confdirs, w[i]);
		for (size_t i = 0; i < n; i++)
			free(w[i]);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of dir (host path) whose names match pattern, sorted, appended to queue. */
static void add_matches(const struct hostroot *root, const char *dir, const char *pattern,
			struct strv *queue)
{
	DIR *d = hostroot_opendir(root, dir);
	if (!d)
		return;
	struct strv names = {0};
	struct dirent *de;
	while ((de = readdir(d)) && names.n < CHRONY_MAX_FILES)
		if (fnmatch(pattern, de->d_name, FNM_PERIOD) == 0)
			strv_add(&names, de->d_name);
	closedir(d);
	if (names.n > 1)
		qsort(names.items, names.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *p =
		    xasprintf("%s/%s", streq(dir, "/") ? "" : dir, names.items[i]);
		if (!strv_contains(queue, p))
			strv_add(queue, p);
	}
	strv_clear(&names);
}

/* include PATTERN: a glob in the last path component (what chrony's
 * configurations use: /etc/chrony.d/\*.conf). */
static void add_include(const struct hostroot *root, const char *pattern, struct strv *queue)
{
	const char *slash = strrchr(pattern, '/');
	if (!slash || pattern[0] != '/')
		return;
	_cleanup_free_ char *dir =
	    slash == pattern ? xstrdup("/") : xstrndup(pattern, (size_t)(slash - pattern));
	if (strpbrk(dir, "*?["))
		return;
	add_matches(root, dir, slash + 1, queue);
}

static int read_chrony_file(const struct hostroot *root, const char *path,
			    struct timesync_chrony *c, struct strv *queue)
{
	_cleanup_free_ char *buf = NULL;
	size_t len, line;
	struct strv includes = {0}, confdirs = {0};
	int r = hostroot_read(root, path, CHRONY_MAX_BYTES, &buf, &len);
	if (r == 0)
		r = timesync_chrony_parse((const uint8_t *)buf, len, &line, &includes, &confdirs);
	if (r == 0) {
		strv_add(&c->files, path);
		if (line && !c->rtcsync_where)
			c->rtcsync_where = xasprintf("%s:%zu", path, line);
		for (size_t i = 0; i < includes.n; i++)
			add_include(root, includes.items[i], queue);
		for (size_t i = 0; i < confdirs.n; i++)
			if (confdirs.items[i][0] == '/')
				add_matches(root, confdirs.items[i], "*.conf", queue);
	}
	strv_clear(&includes);
	strv_clear(&confdirs);
	return r;
}

void timesync_chrony_read(const struct hostroot *root, struct timesync_chrony *ret)
{
	static const char *const mains[] = {"/etc/chrony/chrony.conf", "/etc/chrony.conf"};
	*ret = (struct timesync_chrony){.err = -ENOENT};
	struct strv queue = {0};
	for (size_t i = 0; i < ELEMENTSOF(mains) && !queue.n; i++)
		if (hostroot_exists(root, mains[i]))
			strv_add(&queue, mains[i]);
	for (size_t i = 0; i < queue.n && i < CHRONY_MAX_FILES; i++) {
		int r = read_chrony_file(root, queue.items[i], ret, &queue);
		/* A listed file may go away between the listing and the read. */
		if (r < 0 && ret->err == -ENOENT && (i == 0 || r != -ENOENT)) {
			ret->err = r;
			ret->err_file = xstrdup(queue.items[i]);
		}
	}
	if (ret->files.n && !ret->err_file)
		ret->err = 0;
	strv_clear(&queue);
}

void timesync_chrony_clear(struct timesync_chrony *c)
{
	strv_clear(&c->files);
	free(c->err_file);
	free(c->rtcsync_where);
	*c = (struct timesync_chrony){0};
}
