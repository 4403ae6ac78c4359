/*
 * The parts of multipath.conf(5) that decide whether multipathd leaves
 * Longhorn's devices alone: the `blacklist` and `blacklist_exceptions`
 * sections, and `defaults { config_dir find_multipaths }`.
 *
 * The grammar is multipath-tools' own (libmultipath/parser.c): one keyword per
 * line; `#` or `!` outside double quotes starts a comment; a value is a word or
 * a "quoted string" ("" is a literal quote); a section keyword opens its
 * section (its `{` belongs on the same line) and a line starting with `}`
 * closes the innermost one. Unknown keywords are ignored, as multipathd does.
 *
 * Longhorn v1 volumes are iSCSI disks from Longhorn's tgt target: kernel names
 * sdX, SCSI vendor "IET", product "VIRTUAL-DISK", transport "scsi:iscsi".
 * Every entry value is a POSIX extended regex; a leading `!` negates it.
 */
#pragma once
#include "util.h"

enum mpconf_section { MPCONF_BLACKLIST, MPCONF_EXCEPTIONS };
enum mpconf_kind { MPCONF_DEVNODE, MPCONF_WWID, MPCONF_PROPERTY, MPCONF_PROTOCOL, MPCONF_DEVICE };

#define MULTIPATH_CONF_MAX_ENTRIES 4096

struct multipath_conf_entry {
	enum mpconf_section section;
	enum mpconf_kind kind;
	char *value;		/* the regex; NULL for a device entry */
	char *vendor, *product; /* device entries; NULL when not given */
	char *where;		/* "FILE:LINE" */
};

struct multipath_conf {
	struct multipath_conf_entry *items;
	size_t n, cap;
	char *config_dir;	/* defaults { config_dir }, NULL when not set */
	char *config_dir_where; /* its "FILE:LINE" */
	char *find_multipaths;	/* defaults { find_multipaths }, NULL when not set */
};

/* Parse one file and append its entries to conf (files accumulate like
 * multipathd reads multipath.conf and then config_dir/\*.conf). file names it in
 * `where`. Returns 0, or -EINVAL for binary data (a NUL byte) or more than
 * MULTIPATH_CONF_MAX_ENTRIES entries. */
int multipath_conf_parse(const uint8_t *buf, size_t len, const char *file,
			 struct multipath_conf *conf);
void multipath_conf_clear(struct multipath_conf *conf);

/* One entry as it would be written: `devnode "^sd[a-z0-9]+"`,
 * `device { vendor "IET" product "VIRTUAL-DISK" }`. */
char *multipath_conf_entry_str(const struct multipath_conf_entry *e);

struct multipath_conf_cover {
	const struct multipath_conf_entry *by; /* an entry that keeps Longhorn's devices out */
	const struct multipath_conf_entry
	    *partial;	       /* a devnode entry covering only some sdX names */
	struct strv uncovered; /* with partial: sample names it misses */
	const struct multipath_conf_entry *undone;    /* a covering entry cancelled by... */
	const struct multipath_conf_entry *undone_by; /* ...this blacklist_exceptions entry */
	struct strv bad_regex; /* "where: value" of entries that do not compile */
};

/* Decide whether the blacklist keeps Longhorn's devices out of multipathd. */
void multipath_conf_covers_longhorn(const struct multipath_conf *conf,
				    struct multipath_conf_cover *ret);
void multipath_conf_cover_clear(struct multipath_conf_cover *c);
