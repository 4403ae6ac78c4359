#include "netguard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool netguard_active(void)
{
	const char *v = getenv(NETGUARD_ENV);
	return v && *v;
}

/* Is addr (16 bytes for v6, 4 for v4) inside one of the allowed CIDRs? */
static bool in_allowed(int family, const unsigned char *addr)
{
	const char *list = getenv(NETGUARD_ENV);
	struct strv cidrs = {0};
	bool ok = false;
	strv_split(&cidrs, list, ", ");
	for (size_t i = 0; i < cidrs.n && !ok; i++) {
		char *c = cidrs.items[i], *slash = strchr(c, '/');
		int bits = family == AF_INET ? 32 : 128;
		if (slash) {
			*slash = '\0';
			bits = atoi(slash + 1);
		}
		unsigned char net[16];
		if (inet_pton(family, c, net) != 1)
			continue;
		int bytes = bits / 8, rem = bits % 8;
		int max = family == AF_INET ? 4 : 16;
		if (bits < 0 || bytes > max)
			continue;
		ok = memcmp(net, addr, (size_t)bytes) == 0 &&
		     (rem == 0 || ((net[bytes] ^ addr[bytes]) & (0xff << (8 - rem))) == 0);
	}
	strv_clear(&cidrs);
	return ok;
}

bool netguard_addr_allowed(const struct sockaddr *sa)
{
	if (!netguard_active())
		return true;
	if (sa->sa_family == AF_INET)
		return in_allowed(
		    AF_INET, (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr);
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a))
			return in_allowed(AF_INET, a->s6_addr + 12);
		return in_allowed(AF_INET6, a->s6_addr);
	}
	return sa->sa_family == AF_UNIX;
}

bool netguard_host_allowed(const char *host)
{
	if (!netguard_active())
		return true;
	if (!host)
		return false;
	if (strcaseeq(host, "localhost"))
		return true;
	unsigned char a[16];
	if (inet_pton(AF_INET, host, a) == 1)
		return in_allowed(AF_INET, a);
	if (inet_pton(AF_INET6, host, a) == 1)
		return in_allowed(AF_INET6, a);
	return false;
}

bool netguard_url_allowed(const char *url)
{
	if (!netguard_active())
		return true;
	const char *p = url ? strstr(url, "://") : NULL;
	if (!p)
		return false;
	p += 3;
	const char *at = strpbrk(p, "@/");
	if (at && *at == '@')
		p = at + 1;
	size_t n;
	if (*p == '[') {
		p++;
		n = strcspn(p, "]");
	} else {
		n = strcspn(p, ":/?#");
	}
	_cleanup_free_ char *host = xstrndup(p, n);
	return netguard_host_allowed(host);
}

static bool probe_link_local_allowed;

void netguard_set_probe_link_local(bool allow)
{
	probe_link_local_allowed = allow;
}

static bool v4_metadata(const unsigned char *a)
{
	return (a[0] == 169 && a[1] == 254) ||
	       (a[0] == 100 && a[1] == 100 && a[2] == 100 && a[3] == 200);
}

static bool v6_metadata(const struct in6_addr *a)
{
	static const unsigned char ec2[16] = {0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0,	  0,
					      0,    0,	  0,	0,    0, 0, 0x02, 0x54};
	if (IN6_IS_ADDR_V4MAPPED(a) || IN6_IS_ADDR_V4COMPAT(a))
		return v4_metadata(a->s6_addr + 12);
	return IN6_IS_ADDR_LINKLOCAL(a) || memcmp(a->s6_addr, ec2, 16) == 0;
}

bool netguard_is_metadata_addr(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_metadata(
		    (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr);
	if (sa->sa_family == AF_INET6)
		return v6_metadata(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

bool netguard_is_metadata_host(const char *host)
{
	unsigned char a[16];
	if (!host)
		return false;
	if (inet_pton(AF_INET, host, a) == 1)
		return v4_metadata(a);
	struct in6_addr a6;
	char buf[64];
	/* fe80::1%eth0: the zone is not part of the address. */
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(host, "%"), host);
	return inet_pton(AF_INET6, buf, &a6) == 1 && v6_metadata(&a6);
}

bool netguard_probe_addr_allowed(const struct sockaddr *sa)
{
	if (!probe_link_local_allowed && netguard_is_metadata_addr(sa))
		return false;
	return netguard_addr_allowed(sa);
}

bool netguard_probe_host_allowed(const char *host)
{
	return probe_link_local_allowed || !netguard_is_metadata_host(host);
}
