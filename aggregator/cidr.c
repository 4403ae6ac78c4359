#include "cidr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int cidr_max_prefix(int family)
{
	return family == AF_INET ? 32 : 128;
}

static void clear_host_bits(struct cidr *c)
{
	int bytes = cidr_max_prefix(c->family) / 8;
	for (int i = 0; i < bytes; i++) {
		int keep = c->prefix - i * 8;
		if (keep >= 8)
			continue;
		c->addr[i] &= keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
	}
}

int cidr_parse(const char *s, struct cidr *ret)
{
	char buf[CIDR_STRLEN];
	struct cidr c = {0};
	if (!s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	char *slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, c.addr) == 1)
		c.family = AF_INET;
	else if (inet_pton(AF_INET6, buf, c.addr) == 1)
		c.family = AF_INET6;
	else
		return -EINVAL;
	c.prefix = cidr_max_prefix(c.family);
	if (slash) {
		const char *p = slash + 1;
		int v = 0;
		if (!*p || strlen(p) > 3)
			return -EINVAL;
		for (; *p; p++) {
			if (*p < '0' || *p > '9')
				return -EINVAL;
			v = v * 10 + (*p - '0');
		}
		if (v > c.prefix)
			return -EINVAL;
		c.prefix = v;
	}
	clear_host_bits(&c);
	*ret = c;
	return 0;
}

struct cidr cidr_widen(const struct cidr *c, int prefix)
{
	struct cidr r = *c;
	if (prefix < r.prefix)
		r.prefix = prefix < 0 ? 0 : prefix;
	clear_host_bits(&r);
	return r;
}

static int common_bits(const struct cidr *a, const struct cidr *b, int limit)
{
	int n = 0;
	while (n < limit) {
		int byte = n / 8, bit = 7 - n % 8;
		if (((a->addr[byte] >> bit) & 1) != ((b->addr[byte] >> bit) & 1))
			break;
		n++;
	}
	return n;
}

bool cidr_contains(const struct cidr *outer, const struct cidr *inner)
{
	if (outer->family != inner->family || outer->prefix > inner->prefix)
		return false;
	return common_bits(outer, inner, outer->prefix) == outer->prefix;
}

bool cidr_supernet(const struct cidr *a, const struct cidr *b, struct cidr *ret)
{
	if (a->family != b->family)
		return false;
	int limit = a->prefix < b->prefix ? a->prefix : b->prefix;
	*ret = cidr_widen(a, common_bits(a, b, limit));
	return true;
}

void cidr_format(const struct cidr *c, bool with_prefix, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	if (!inet_ntop(c->family, c->addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (with_prefix)
		snprintf(buf, len, "%s/%d", a, c->prefix);
	else
		snprintf(buf, len, "%s", a);
}

bool cidr_is_private(const struct cidr *c)
{
	static const char *const nets[] = {
	    "10.0.0.0/8",    "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "169.254.0.0/16",
	    "100.64.0.0/10", "::1/128",	      "fc00::/7",	"fe80::/10",
	};
	for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		struct cidr n;
		if (cidr_parse(nets[i], &n) == 0 && cidr_contains(&n, c))
			return true;
	}
	return false;
}
