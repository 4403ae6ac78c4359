/*
 * IPv4/IPv6 prefixes: parsing, containment and the smallest common supernet
 * (to find a cluster pod CIDR that covers every node's podCIDR).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cidr {
	int family;	  /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network byte order; IPv4 in the first 4 bytes */
	int prefix;
};

#define CIDR_STRLEN 64 /* INET6_ADDRSTRLEN + "/128" */

/* "10.42.6.0/24", "fd00:42::/64"; host bits are cleared. A bare address
 * ("10.43.0.1") is a /32 or /128. Returns 0 or -EINVAL. */
int cidr_parse(const char *s, struct cidr *ret);
/* The same prefix with a shorter length (prefix <= c->prefix), host bits cleared. */
struct cidr cidr_widen(const struct cidr *c, int prefix);
bool cidr_contains(const struct cidr *outer, const struct cidr *inner);
/* The smallest prefix that covers both; false for different families. */
bool cidr_supernet(const struct cidr *a, const struct cidr *b, struct cidr *ret);
int cidr_max_prefix(int family);
/* "10.42.0.0/16"; with_prefix=false prints the address only. */
void cidr_format(const struct cidr *c, bool with_prefix, char *buf, size_t len);
/* Loopback, link-local, RFC 1918, CGNAT, IPv6 ULA: an address that cannot be
 * an Internet host. */
bool cidr_is_private(const struct cidr *c);
