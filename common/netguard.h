/*
 * A guard for tests: with HVREADY_TEST_NET_ALLOW=CIDR[,CIDR...] in the
 * environment, hvready refuses to connect (or even to look up a name) outside
 * those networks. The test suite sets it to loopback, plus the addresses of
 * the network namespaces a test creates, so that no test can send a packet
 * anywhere else — not to Docker Hub, not to a Service IP from a fixture.
 * Unset (production), every function here allows everything.
 */
#pragma once
#include <sys/socket.h>
#include "util.h"

#define NETGUARD_ENV "HVREADY_TEST_NET_ALLOW"

bool netguard_active(void);
/* A host as written in a URL: an IP literal inside an allowed network, or
 * "localhost"; any other name is refused while the guard is active (looking
 * it up would already send a DNS query). */
bool netguard_host_allowed(const char *host);
/* The host part of an http(s)/nfs URL, checked as above. */
bool netguard_url_allowed(const char *url);
bool netguard_addr_allowed(const struct sockaddr *sa);

/* For libcurl users: refuse a URL outside the allowed networks (returns false
 * and says why in err), and make the handle refuse such sockets too. */
typedef void CURL;
bool netguard_curl(CURL *h, const char *url, bool check_url, char *err, size_t errlen);
