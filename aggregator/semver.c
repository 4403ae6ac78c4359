#include "semver.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

static int number(const char **p, int *ret)
{
	long v = 0;
	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v > INT_MAX)
			return -EINVAL;
		(*p)++;
	}
	*ret = (int)v;
	return 0;
}

int semver_parse(const char *s, struct semver *ret)
{
	struct semver v = {0};
	if (!s)
		return -EINVAL;
	const char *p = s;
	if (*p == 'v' || *p == 'V')
		p++;
	if (number(&p, &v.major) < 0 || *p++ != '.' || number(&p, &v.minor) < 0)
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (number(&p, &v.patch) < 0)
			return -EINVAL;
	}
	/* "-rc.1", "-150700.3.24.2", "+build": a suffix, ignored. Anything else
	 * ("1.7x") is not a version. */
	if (*p && *p != '-' && *p != '+')
		return -EINVAL;
	*ret = v;
	return 0;
}

int semver_cmp(const struct semver *a, const struct semver *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	return 0;
}

const char *semver_image_tag(const char *image, char *buf, unsigned len)
{
	if (!image || !*image)
		return NULL;
	const char *at = strchr(image, '@');
	size_t n = at ? (size_t)(at - image) : strlen(image);
	/* The tag is after the last ':' that comes after the last '/' (a ':'
	 * before it is a registry port). */
	const char *colon = NULL;
	for (size_t i = 0; i < n; i++) {
		if (image[i] == '/')
			colon = NULL;
		else if (image[i] == ':')
			colon = image + i;
	}
	if (!colon || (size_t)(colon + 1 - image) >= n)
		return NULL;
	if (!at)
		return colon + 1;
	size_t tl = n - (size_t)(colon + 1 - image);
	if (tl + 1 > len)
		return NULL;
	memcpy(buf, colon + 1, tl);
	buf[tl] = '\0';
	return buf;
}
