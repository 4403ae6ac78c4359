/*
 * The host's distribution from etc/os-release (fallback usr/lib/os-release),
 * to name the package that provides a missing tool and the command that
 * installs it. Families follow ID and ID_LIKE (os-release(5)).
 */
#pragma once
#include "hostroot.h"

struct osrelease {
	char *id;	   /* "debian", "ubuntu", "sle-micro", "rhel", ... ("" when absent) */
	char *id_like;	   /* space-separated, "" when absent */
	char *version_id;  /* "" when absent */
	char *pretty_name; /* "" when absent */
};

enum os_family {
	OS_FAMILY_UNKNOWN,
	OS_FAMILY_DEBIAN, /* Debian, Ubuntu and derivatives: apt */
	OS_FAMILY_SUSE,	  /* SLES, openSUSE: zypper; SLE Micro / MicroOS: transactional-update */
	OS_FAMILY_RHEL,	  /* RHEL, CentOS, Rocky, Alma, Oracle, Fedora: dnf */
	OS_FAMILY_ARCH,	  /* pacman */
};

/* Parse os-release text (KEY=value, values optionally quoted with shell escapes). */
void osrelease_parse(const uint8_t *buf, size_t len, struct osrelease *ret);
/* Returns 0 or -errno of etc/os-release when neither file could be read. */
int osrelease_read(const struct hostroot *hr, struct osrelease *ret);
void osrelease_clear(struct osrelease *o);

enum os_family osrelease_family(const struct osrelease *o);
/* An image-based SUSE (SLE Micro, SL Micro, openSUSE MicroOS / Leap Micro, and
 * so Harvester's own OS): packages go in with transactional-update and a reboot. */
bool osrelease_transactional(const struct osrelease *o);
/* "debian", "suse", "rhel", "arch" or "unknown". */
const char *os_family_name(enum os_family f);
/* The package names for one tool per family, e.g. {"nfs-common", "nfs-client", "nfs-utils", "nfs-utils"}. */
struct os_packages {
	const char *debian, *suse, *rhel, *arch;
};
/* The command that installs the family's package: "apt-get install -y nfs-common",
 * "transactional-update pkg install nfs-client" (then reboot), ... For an
 * unknown family, every family's package is named. */
char *osrelease_install_hint(const struct osrelease *o, const struct os_packages *pkgs);
/* The family's package name, or NULL for an unknown family. */
const char *osrelease_package(const struct osrelease *o, const struct os_packages *pkgs);
