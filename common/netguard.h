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

/*
 * What the agent's probes (registries, token servers, NFS endpoints: targets
 * that come from cluster objects and registry answers) must not reach from
 * the node's network: link-local addresses (169.254.0.0/16, fe80::/10) and
 * the cloud metadata services (AWS 169.254.169.254 and fd00:ec2::254, Alibaba
 * 100.100.100.200), where a node's cloud credentials are served to whoever
 * asks. Refused unless the agent's config says allow_link_local_probes: true.
 * Independent of the test guard above; the aggregator never calls these.
 */
void netguard_set_probe_link_local(bool allow);
/* The address is link-local or a metadata service (whatever the setting). */
bool netguard_is_metadata_addr(const struct sockaddr *sa);
/* A numeric host ("169.254.169.254", "fe80::1") as above; false for names. */
bool netguard_is_metadata_host(const char *host);
/* A numeric host that is a metadata address, unless allowed: false. Names: true. */
bool netguard_probe_host_allowed(const char *host);
/* netguard_addr_allowed() and, unless allowed, not a metadata address. */
bool netguard_probe_addr_allowed(const struct sockaddr *sa);
/* The sentence that says why such an address was not contacted. */
#define NETGUARD_METADATA_WHY                                                                      \
	"a link-local or cloud metadata address: not contacted (allow_link_local_probes in the "   \
	"agent config allows it)"

/* For the probes' libcurl handles: like netguard_curl(), and every socket
 * libcurl opens (after DNS, through redirects and proxies) is checked with
 * netguard_probe_addr_allowed(); *refused is set when one was refused
 * because it is a metadata address. refused must outlive the transfer. */
bool netguard_curl_probe(CURL *h, const char *url, bool *refused, char *err, size_t errlen);
