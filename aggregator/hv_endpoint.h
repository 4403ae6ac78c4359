/*
 * One HTTPS GET to the Harvester API as a browser would make it: TLS with the
 * SNI host name and Host header of the Harvester URL, while the TCP connection
 * goes to a Service or node address (curl --resolve HOST:PORT:IP). Bounded in
 * time and in body size.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hv_endpoint_req {
	const char *host; /* SNI and Host, e.g. "harvester.local" */
	const char *ip;	  /* where to connect (IPv4 or IPv6 literal) */
	int port;
	const char *path;   /* "/v1/harvester" */
	const char *ca_pem; /* verify the chain and name against this CA; NULL: no verification */
	long connect_timeout_ms, timeout_ms;
	size_t max_body;
};

struct hv_endpoint_resp {
	int curl_code; /* CURLcode, 0 = a response arrived */
	char error[256];
	int os_errno;	/* of a failed connect (ECONNREFUSED, ETIMEDOUT, …) */
	bool connected; /* the TCP connection was established */
	long http_status;
	char *body; /* NUL-terminated, at most max_body bytes */
	size_t body_len;
	bool truncated;
	bool verified; /* ca_pem was given and the certificate verified */
	char *cert_subject, *cert_issuer, *cert_expire; /* of the server's certificate */
};

/* Returns 0 when an HTTP response arrived (any status), else -EIO with the
 * reason in ret->error. ret is always filled; clear it with hv_endpoint_resp_clear. */
int hv_endpoint_get(const struct hv_endpoint_req *rq, struct hv_endpoint_resp *ret);
void hv_endpoint_resp_clear(struct hv_endpoint_resp *r);
/* curl's "Expire date" ("Sep  5 13:20:44 2027 GMT") as ns since the epoch. */
bool hv_endpoint_parse_expire(const char *s, int64_t *ret_ns);
