#include "image_ref.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_DOMAIN "docker.io"
#define LEGACY_DOMAIN  "index.docker.io"

void image_ref_clear(struct image_ref *r)
{
	free(r->registry);
	free(r->repository);
	free(r->tag);
	free(r->digest);
	*r = (struct image_ref){0};
}

const char *image_ref_reference(const struct image_ref *r)
{
	return r->digest ? r->digest : r->tag;
}

char *image_ref_string(const struct image_ref *r)
{
	if (r->digest)
		return xasprintf("%s/%s@%s", r->registry, r->repository, r->digest);
	return xasprintf("%s/%s:%s", r->registry, r->repository, r->tag);
}

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* domain-component: [a-zA-Z0-9] | [a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9] */
static bool domain_component(const char *s, size_t n)
{
	if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

/* host [":" port], host = domain-name | "[" ipv6 "]" */
static bool valid_domain(const char *s, size_t n)
{
	size_t hostlen = n;
	const char *colon = NULL;
	if (n > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close || close == s + 1)
			return false;
		for (const char *p = s + 1; p < close; p++)
			if (!is_hex(*p) && *p != ':')
				return false;
		hostlen = (size_t)(close - s) + 1;
		if (hostlen < n) {
			if (s[hostlen] != ':')
				return false;
			colon = s + hostlen;
		}
	} else {
		colon = memchr(s, ':', n);
		if (colon)
			hostlen = (size_t)(colon - s);
		const char *p = s, *end = s + hostlen;
		while (p <= end) {
			const char *dot = memchr(p, '.', (size_t)(end - p));
			const char *e = dot ? dot : end;
			if (!domain_component(p, (size_t)(e - p)))
				return false;
			p = e + 1;
		}
	}
	if (colon) {
		size_t plen = n - (size_t)(colon - s) - 1;
		if (plen == 0)
			return false;
		for (size_t i = 0; i < plen; i++)
			if (colon[1 + i] < '0' || colon[1 + i] > '9')
				return false;
	}
	return true;
}

/* path-component: [a-z0-9]+ ( ( [._] | __ | [-]+ ) [a-z0-9]+ )* */
static bool path_component(const char *s, size_t n)
{
	size_t i = 0;
	if (n == 0 || !is_lower_alnum(s[0]))
		return false;
	while (i < n) {
		while (i < n && is_lower_alnum(s[i]))
			i++;
		if (i == n)
			return true;
		size_t sep = i;
		if (s[i] == '.' || s[i] == '_') {
			i++;
			if (s[sep] == '_' && i < n && s[i] == '_')
				i++;
		} else if (s[i] == '-') {
			while (i < n && s[i] == '-')
				i++;
		} else {
			return false;
		}
		if (i == n || !is_lower_alnum(s[i]))
			return false;
	}
	return true;
}

static bool valid_path(const char *s, size_t n)
{
	const char *p = s, *end = s + n;
	while (p <= end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		const char *e = slash ? slash : end;
		if (!path_component(p, (size_t)(e - p)))
			return false;
		p = e + 1;
	}
	return true;
}

/* tag: [\w][\w.-]{0,127} */
static bool valid_tag(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 128 || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-')
			return false;
	return true;
}

/* algorithm ":" hex, with the lengths go-digest requires of the algorithms it knows. */
static int valid_digest(const char *s, char *err, size_t errlen)
{
	static const struct {
		const char *alg;
		size_t hexlen;
	} known[] = {{"sha256", 64}, {"sha384", 96}, {"sha512", 128}};
	const char *colon = strchr(s, ':');
	if (!colon || colon == s) {
		snprintf(err, errlen, "invalid digest \"%s\"", s);
		return -EINVAL;
	}
	for (const char *p = s; p < colon; p++)
		if (!is_alnum(*p) && !strchr("+._-", *p)) {
			snprintf(err, errlen, "invalid digest \"%s\"", s);
			return -EINVAL;
		}
	for (size_t i = 0; i < ELEMENTSOF(known); i++) {
		if (strlen(known[i].alg) != (size_t)(colon - s) ||
		    strncmp(s, known[i].alg, (size_t)(colon - s)) != 0)
			continue;
		const char *hex = colon + 1;
		bool ok = strlen(hex) == known[i].hexlen;
		for (const char *p = hex; ok && *p; p++)
			ok = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f');
		if (!ok) {
			snprintf(err, errlen,
				 "invalid digest \"%s\": %s needs %zu lower-case hex digits", s,
				 known[i].alg, known[i].hexlen);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(err, errlen, "unsupported digest algorithm in \"%s\"", s);
	return -EINVAL;
}

static bool all_hex64(const char *s)
{
	if (strlen(s) != 64)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

static bool has_upper(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			return true;
	return false;
}

int image_ref_parse(const char *s, struct image_ref *ret, char *err, size_t errlen)
{
	*ret = (struct image_ref){0};
	if (!s || !*s) {
		snprintf(err, errlen, "empty image reference");
		return -EINVAL;
	}
	if (all_hex64(s)) {
		snprintf(err, errlen,
			 "invalid image reference \"%.80s\": a 64-character hex string is an image "
			 "ID, not a name",
			 s);
		return -EINVAL;
	}
	/* splitDockerDomain: the first component is a registry only if it looks like one. */
	const char *slash = strchr(s, '/');
	size_t dlen = slash ? (size_t)(slash - s) : 0;
	bool has_domain =
	    slash && (memchr(s, '.', dlen) || memchr(s, ':', dlen) ||
		      (dlen == 9 && strncmp(s, "localhost", 9) == 0) || has_upper(s, dlen));
	_cleanup_free_ char *domain = has_domain ? xstrndup(s, dlen) : xstrdup(DEFAULT_DOMAIN);
	const char *rest = has_domain ? slash + 1 : s;
	if (streq(domain, LEGACY_DOMAIN)) {
		free(domain);
		domain = xstrdup(DEFAULT_DOMAIN);
	}

	/* rest = path [":" tag] ["@" digest] */
	_cleanup_free_ char *path = NULL, *tag = NULL, *digest = NULL;
	const char *at = strchr(rest, '@');
	size_t before_at = at ? (size_t)(at - rest) : strlen(rest);
	const char *last_slash = NULL;
	for (const char *p = rest; p < rest + before_at; p++)
		if (*p == '/')
			last_slash = p;
	const char *colon = memchr(last_slash ? last_slash : rest, ':',
				   (size_t)(rest + before_at - (last_slash ? last_slash : rest)));
	size_t plen = colon ? (size_t)(colon - rest) : before_at;
	path = xstrndup(rest, plen);
	if (colon)
		tag = xstrndup(colon + 1, (size_t)(rest + before_at - colon - 1));
	if (at)
		digest = xstrdup(at + 1);

	if (has_upper(path, plen)) {
		snprintf(err, errlen,
			 "invalid image reference \"%.200s\": repository name must be "
			 "lowercase",
			 s);
		return -EINVAL;
	}
	if (!valid_domain(domain, strlen(domain))) {
		snprintf(err, errlen, "invalid image reference \"%.200s\": bad registry \"%.100s\"",
			 s, domain);
		return -EINVAL;
	}
	if (!valid_path(path, plen)) {
		snprintf(err, errlen, "invalid image reference \"%.200s\": bad repository name", s);
		return -EINVAL;
	}
	if (tag && !valid_tag(tag)) {
		snprintf(err, errlen, "invalid image reference \"%.200s\": bad tag \"%.130s\"", s,
			 tag);
		return -EINVAL;
	}
	if (digest && valid_digest(digest, err, errlen) < 0)
		return -EINVAL;
	bool official = streq(domain, DEFAULT_DOMAIN) && !strchr(path, '/');
	char *repo = official ? xasprintf("library/%s", path) : xstrdup(path);
	if (strlen(domain) + 1 + strlen(repo) > IMAGE_REF_NAME_MAX) {
		snprintf(err, errlen, "invalid image reference \"%.80s...\": name longer than %d",
			 s, IMAGE_REF_NAME_MAX);
		free(repo);
		return -EINVAL;
	}
	ret->registry = domain;
	ret->repository = repo;
	domain = NULL;
	if (digest) {
		/* containerd pulls by digest and drops the tag. */
		ret->digest = digest;
		digest = NULL;
	} else {
		ret->tag = tag ? tag : xstrdup("latest");
		ret->tag_defaulted = !tag;
		tag = NULL;
	}
	return 0;
}
