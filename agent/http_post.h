/*
 * One HTTP(S) POST, synchronously: libevent's HTTP client on a private event
 * loop, TLS by OpenSSL through bufferevent_openssl. The agent reports with it.
 *
 * Why not libcurl: Debian's libcurl maps about thirty libraries (GnuTLS,
 * Kerberos, LDAP, SSH, nghttp2, …) into the process and keeps them resident;
 * libevent is linked anyway and OpenSSL is all a POST needs. libcurl stays for
 * the registry check, which needs its proxies and client certificates.
 *
 * TLS: the chain is verified against ca_file (else the system's trust store),
 * the certificate must name the URL's host (DNS name, or IP address for an IP
 * literal: SSL_set1_host / X509_VERIFY_PARAM_set1_ip_asc), SNI is sent for
 * names, TLS 1.2 at least. Nothing can switch verification off.
 *
 * Time: connecting and every read and write each within timeout_s; the whole
 * exchange within twice that (a server trickling bytes cannot hold it longer).
 * The host name is resolved with getaddrinfo() (the caller's thread blocks);
 * its addresses (those netguard allows) are tried in order while they refuse
 * the connection or cannot be routed to.
 */
#pragma once
#include "util.h"

struct http_post_request {
	const char *url;	    /* http://HOST[:PORT]/PATH or https://… */
	const char *ca_file;	    /* PEM trust anchors for https; NULL: the system's */
	const char *content_type;   /* of body */
	const char *accept;	    /* NULL: no Accept header */
	const char *bearer;	    /* NULL: no Authorization header */
	const char *const *headers; /* more headers: name, value, …, NULL; may be NULL */
	const void *body;
	size_t len;
	int timeout_s;	  /* > 0 */
	size_t max_reply; /* a longer reply body fails the exchange */
	/* Called once, right before the request goes out: over TLS once the
	 * handshake is done, so that a clock reading in the body does not count
	 * connecting (the agent's sent_ns). It may replace the body with a new
	 * malloc'd one of the same meaning; http_post frees it. May be NULL. */
	void (*restamp)(void *arg, char **ret_body, size_t *ret_len);
	void *restamp_arg;
};

struct http_post_reply {
	int status;	/* the HTTP status */
	char *body;	/* NUL-terminated (NULL when the body is empty) */
	size_t len;	/* of body */
	int64_t rtt_ns; /* from sending (restamp) to the complete reply; over TLS
			 * without the handshake, over plain HTTP with the connect */
};

/* Returns 0 when the server answered (any status, in *ret), else -errno and a
 * one-line reason in err (the URL first): -EINVAL for a bad URL or CA file,
 * -EPERM when netguard forbids the address, -EHOSTUNREACH when the name does not
 * resolve, -ECONNREFUSED, -ENETUNREACH/-EHOSTUNREACH, -ETIMEDOUT, -EPROTO for a TLS failure (an untrusted certificate, a
 * host name it does not cover, no common protocol), -EMSGSIZE for a reply over
 * max_reply, -ENOTSUP when OpenSSL cannot be loaded, -EIO otherwise. *ret is
 * zeroed on failure. */
int http_post_run(const struct http_post_request *rq, struct http_post_reply *ret, char *err,
		  size_t errlen);
void http_post_reply_clear(struct http_post_reply *r);

/* Whether a bearer token sent to url crosses the network in clear text: a
 * plain http:// URL whose host is not loopback (localhost, 127.0.0.0/8, ::1).
 * Anyone on the path can take the token and report as this node. */
bool http_post_url_exposes_token(const char *url);
