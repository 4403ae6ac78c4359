#include "osrelease.h"
#include "osrelease_kv.h"

#include <errno.h>
#include <string.h>

/* The grammar lives in osrelease_kv.c (one parser for the facts and for this);
 * here only the fields that name the distribution are kept. */
void osrelease_parse(const uint8_t *buf, size_t len, struct osrelease *ret)
{
	struct kv_list l = {0};
	osrelease_kv_parse(buf, len, &l);
	const char *id = kv_get_str(&l, "ID"), *like = kv_get_str(&l, "ID_LIKE");
	*ret = (struct osrelease){
	    .id = xstrdup(id ? id : ""),
	    .id_like = xstrdup(like ? like : ""),
	    .version_id = xstrdup(kv_get_str(&l, "VERSION_ID") ? kv_get_str(&l, "VERSION_ID") : ""),
	    .pretty_name =
		xstrdup(kv_get_str(&l, "PRETTY_NAME") ? kv_get_str(&l, "PRETTY_NAME") : ""),
	};
	kv_list_clear(&l);
	/* IDs are lower case by definition; be lenient with hand-edited files. */
	for (char *p = ret->id; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	for (char *p = ret->id_like; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
}

int osrelease_read(const struct hostroot *hr, struct osrelease *ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = hostroot_read(hr, "etc/os-release", 65536, &buf, &len);
	if (r < 0 && hostroot_read(hr, "usr/lib/os-release", 65536, &buf, &len) < 0) {
		*ret = (struct osrelease){xstrdup(""), xstrdup(""), xstrdup(""), xstrdup("")};
		return r;
	}
	osrelease_parse((const uint8_t *)buf, len, ret);
	return 0;
}

void osrelease_clear(struct osrelease *o)
{
	free(o->id);
	free(o->id_like);
	free(o->version_id);
	free(o->pretty_name);
	*o = (struct osrelease){0};
}

static bool word_in(const char *words, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = words; p && *p;) {
		p += strspn(p, " \t");
		size_t l = strcspn(p, " \t");
		if (l == n && strncmp(p, w, n) == 0)
			return true;
		p += l;
	}
	return false;
}

static enum os_family family_of(const char *id)
{
	static const struct {
		const char *id;
		enum os_family f;
	} ids[] = {
	    {"debian", OS_FAMILY_DEBIAN},
	    {"ubuntu", OS_FAMILY_DEBIAN},
	    {"suse", OS_FAMILY_SUSE},
	    {"opensuse", OS_FAMILY_SUSE},
	    {"sles", OS_FAMILY_SUSE},
	    {"sle-micro", OS_FAMILY_SUSE},
	    {"sl-micro", OS_FAMILY_SUSE},
	    {"opensuse-leap", OS_FAMILY_SUSE},
	    {"opensuse-tumbleweed", OS_FAMILY_SUSE},
	    {"opensuse-microos", OS_FAMILY_SUSE},
	    {"opensuse-leap-micro", OS_FAMILY_SUSE},
	    {"rhel", OS_FAMILY_RHEL},
	    {"centos", OS_FAMILY_RHEL},
	    {"fedora", OS_FAMILY_RHEL},
	    {"rocky", OS_FAMILY_RHEL},
	    {"almalinux", OS_FAMILY_RHEL},
	    {"ol", OS_FAMILY_RHEL},
	    {"arch", OS_FAMILY_ARCH},
	};
	for (size_t i = 0; i < ELEMENTSOF(ids); i++)
		if (streq(id, ids[i].id))
			return ids[i].f;
	return OS_FAMILY_UNKNOWN;
}

enum os_family osrelease_family(const struct osrelease *o)
{
	enum os_family f = family_of(o->id);
	if (f != OS_FAMILY_UNKNOWN)
		return f;
	/* ID_LIKE lists the closest relatives first. */
	for (const char *p = o->id_like; p && *p;) {
		p += strspn(p, " \t");
		size_t l = strcspn(p, " \t");
		if (l > 0) {
			_cleanup_free_ char *w = xstrndup(p, l);
			if ((f = family_of(w)) != OS_FAMILY_UNKNOWN)
				return f;
		}
		p += l;
	}
	return OS_FAMILY_UNKNOWN;
}

bool osrelease_transactional(const struct osrelease *o)
{
	/* "sle-micro-rancher": SLE Micro for Rancher and Harvester's OS. */
	return startswith(o->id, "sle-micro") || streq(o->id, "sl-micro") ||
	       streq(o->id, "opensuse-microos") || streq(o->id, "opensuse-leap-micro") ||
	       (osrelease_family(o) == OS_FAMILY_SUSE && word_in(o->id_like, "microos"));
}

const char *os_family_name(enum os_family f)
{
	switch (f) {
	case OS_FAMILY_DEBIAN:
		return "debian";
	case OS_FAMILY_SUSE:
		return "suse";
	case OS_FAMILY_RHEL:
		return "rhel";
	case OS_FAMILY_ARCH:
		return "arch";
	case OS_FAMILY_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *osrelease_package(const struct osrelease *o, const struct os_packages *pkgs)
{
	switch (osrelease_family(o)) {
	case OS_FAMILY_DEBIAN:
		return pkgs->debian;
	case OS_FAMILY_SUSE:
		return pkgs->suse;
	case OS_FAMILY_RHEL:
		return pkgs->rhel;
	case OS_FAMILY_ARCH:
		return pkgs->arch;
	case OS_FAMILY_UNKNOWN:
		break;
	}
	return NULL;
}

char *osrelease_install_hint(const struct osrelease *o, const struct os_packages *pkgs)
{
	const char *pkg = osrelease_package(o, pkgs);
	switch (osrelease_family(o)) {
	case OS_FAMILY_DEBIAN:
		return xasprintf("`apt-get install -y %s`", pkg);
	case OS_FAMILY_SUSE:
		if (osrelease_transactional(o))
			return xasprintf("`transactional-update pkg install %s`, then reboot", pkg);
		return xasprintf("`zypper install -y %s`", pkg);
	case OS_FAMILY_RHEL:
		return xasprintf("`dnf install -y %s`", pkg);
	case OS_FAMILY_ARCH:
		return xasprintf("`pacman -S --noconfirm %s`", pkg);
	case OS_FAMILY_UNKNOWN:
		break;
	}
	return xasprintf("install %s (Debian/Ubuntu), %s (SUSE), %s (RHEL and relatives) or %s "
			 "(Arch) with the distribution's package manager",
			 pkgs->debian, pkgs->suse, pkgs->rhel, pkgs->arch);
}
