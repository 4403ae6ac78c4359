#include "osrelease.h"

<<<<<<< HEAD
#include <ctype.h>
#include <errno.h>
#include <string.h>

/* Longest value kept; PRETTY_NAME and URLs are far shorter. */
#define VALUE_MAX 1024

static bool valid_key(const char *k, size_t n)
{
	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isupper((unsigned char)k[i]) && !isdigit((unsigned char)k[i]) && k[i] != '_')
			return false;
	return true;
}

/* Unquote v[0..n) into out (at least n + 1 bytes). false for an unterminated quote. */
static bool unquote(const char *v, size_t n, char *out)
{
	size_t o = 0;
	if (n > 0 && (v[0] == '"' || v[0] == '\'')) {
		char q = v[0];
		size_t i = 1;
		for (; i < n && v[i] != q; i++) {
			if (q == '"' && v[i] == '\\' && i + 1 < n && strchr("\\\"$`", v[i + 1]))
				i++;
			out[o++] = v[i];
		}
		if (i >= n)
			return false;
	} else {
		for (size_t i = 0; i < n; i++) {
			if (v[i] == '\\' && i + 1 < n)
				i++;
			out[o++] = v[i];
		}
	}
	out[o] = '\0';
	return true;
}

int osrelease_parse(const uint8_t *buf, size_t len, struct kv_list *ret)
{
	const char *p = (const char *)buf, *end = p + len;
	int n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		while (p < le && isspace((unsigned char)*p))
			p++;
		const char *eq = memchr(p, '=', (size_t)(le - p));
		if (p < le && *p != '#' && eq && valid_key(p, (size_t)(eq - p))) {
			const char *v = eq + 1;
			size_t vn = (size_t)(le - v);
			while (vn > 0 && isspace((unsigned char)v[vn - 1]))
				vn--;
			char key[65], val[VALUE_MAX + 1];
			memcpy(key, p, (size_t)(eq - p));
			key[eq - p] = '\0';
			if (vn <= VALUE_MAX && !memchr(v, '\0', vn) && unquote(v, vn, val)) {
				kv_add_str(ret, key, val);
				n++;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return n;
}

int osrelease_read(const struct hostroot *root, struct kv_list *ret)
{
	static const char *const paths[] = {"etc/os-release", "usr/lib/os-release"};
	int r = -ENOENT;
	for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
		char *buf;
		size_t len;
		r = hostroot_read(root, paths[i], 65536, &buf, &len);
		if (r < 0)
			continue;
		r = osrelease_parse((const uint8_t *)buf, len, ret);
		free(buf);
		return r;
	}
	return r;
=======
#include <errno.h>
#include <string.h>

/* A value as os-release(5) allows: bare, or in "..." / '...' with \-escapes of $"\`. */
static char *unquote(const char *v, size_t n)
{
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
		n--;
	char *out = xmalloc(n + 1), *o = out;
	char q = 0;
	for (size_t i = 0; i < n; i++) {
		char c = v[i];
		if (!q && (c == '"' || c == '\'')) {
			q = c;
			continue;
		}
		if (q && c == q) {
			q = 0;
			continue;
		}
		if (c == '\\' && q != '\'' && i + 1 < n) {
			*o++ = v[++i];
			continue;
		}
		*o++ = c;
	}
	*o = '\0';
	return out;
}

void osrelease_parse(const uint8_t *buf, size_t len, struct osrelease *ret)
{
	struct {
		const char *key;
		char **dst;
	} keys[] = {
	    {"ID", &ret->id},
	    {"ID_LIKE", &ret->id_like},
	    {"VERSION_ID", &ret->version_id},
	    {"PRETTY_NAME", &ret->pretty_name},
	};
	*ret = (struct osrelease){0};
	const char *s = (const char *)buf;
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (s + i)) : len - i;
		const char *line = s + i;
		i += l + 1;
		while (l > 0 && (*line == ' ' || *line == '\t')) {
			line++;
			l--;
		}
		const char *eq = memchr(line, '=', l);
		if (!eq || line[0] == '#')
			continue;
		size_t kl = (size_t)(eq - line);
		for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
			if (strlen(keys[k].key) != kl || strncmp(line, keys[k].key, kl) != 0)
				continue;
			free(*keys[k].dst);
			*keys[k].dst = unquote(eq + 1, l - kl - 1);
		}
	}
	for (size_t k = 0; k < ELEMENTSOF(keys); k++)
		if (!*keys[k].dst)
			*keys[k].dst = xstrdup("");
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
	return streq(o->id, "sle-micro") || streq(o->id, "sl-micro") ||
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
		return xasprintf("apt-get install -y %s", pkg);
	case OS_FAMILY_SUSE:
		if (osrelease_transactional(o))
			return xasprintf("transactional-update pkg install %s, then reboot", pkg);
		return xasprintf("zypper install -y %s", pkg);
	case OS_FAMILY_RHEL:
		return xasprintf("dnf install -y %s", pkg);
	case OS_FAMILY_ARCH:
		return xasprintf("pacman -S --noconfirm %s", pkg);
	case OS_FAMILY_UNKNOWN:
		break;
	}
	return xasprintf("install %s (Debian/Ubuntu), %s (SUSE), %s (RHEL and relatives) or %s "
			 "(Arch) with the distribution's package manager",
			 pkgs->debian, pkgs->suse, pkgs->rhel, pkgs->arch);
>>>>>>> agent-b
}
