/*
 * A minimal OCI distribution client (libcurl) that asks one registry endpoint
 * whether a manifest exists, the way containerd's resolver does:
 *
 *   GET  <base>/                        (the API root; 200, or 401 with a challenge)
 *   GET  <realm>?service=…&scope=repository:<repo>:pull   (Bearer token, on 401)
 *        (with credentials: POST <realm> as OAuth2, falling back to GET + Basic)
 *   HEAD <base>/<repo>/manifests/<ref>  (Accept: OCI index/manifest, Docker list/v2)
 *        a HEAD a registry refuses (405) is retried as a bounded GET.
 *
 * <base> is the endpoint URL ("https://host/v2", or a mirror's override path).
 * TLS verification is on unless the endpoint's config says insecure_skip_verify;
 * every request is bounded by the timeout, every response by a size limit.
 */
#pragma once
#include "util.h"

#define OCI_MAX_HEADERS	 (64u << 10)
#define OCI_MAX_SMALL	 (64u << 10) /* API root, token, error bodies */
#define OCI_MAX_MANIFEST (4u << 20)

#define OCI_ACCEPT                                                                                 \
	"application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, "    \
	"application/vnd.docker.distribution.manifest.list.v2+json, "                              \
	"application/vnd.docker.distribution.manifest.v2+json, */*"

struct oci_target {
	const char *base_url;	/* "https://registry-1.docker.io/v2" */
	const char *repository; /* as this endpoint names it (after rewrites) */
	const char *reference;	/* tag or digest */
	const char *ns;		/* registry name sent as ?ns= (NULL: none) */
	long timeout_s;		/* per request */
	bool insecure_skip_verify;
	const char *ca_pem; /* trust store, PEM (NULL: libcurl's default) */
	size_t ca_pem_len;
	const char *cert_pem, *key_pem; /* client certificate (NULL: none) */
	size_t cert_pem_len, key_pem_len;
	const char *basic_b64;	    /* base64("user:password"), NULL: anonymous */
	const char *identity_token; /* an OAuth2 refresh token, NULL: none */
	const char *proxy;	    /* NULL: direct */
	const char *no_proxy;
	/* Where a redirect may go besides the host asked and base_url's host:
	 * host[:port] of the registry's other endpoints; NULL-terminated, may be NULL. */
	const char *const *redirect_hosts;
};

enum oci_outcome {
	OCI_FOUND,
	OCI_NOT_FOUND,	 /* 404 for the manifest */
	OCI_UNREACHABLE, /* DNS, connect, reset */
	OCI_TLS,	 /* handshake or certificate verification */
	OCI_TIMEOUT,
	OCI_AUTH,	/* 401/403, or no usable token */
	OCI_HTTP_ERROR, /* any other status */
	OCI_PROTOCOL,	/* an answer that is not a registry's (too large, malformed) */
};

struct oci_result {
	enum oci_outcome outcome;
	long ping_status;     /* GET <base>/; 0 when it got no answer */
	long manifest_status; /* 0 when not reached */
	char *auth;	      /* "anonymous", "bearer token from REALM", "basic" */
	char *manifest_url;
	char *digest;	  /* Docker-Content-Digest, if sent */
	char *media_type; /* Content-Type */
	int64_t size;	  /* Content-Length, -1 when unknown */
	char *detail;	  /* one line: what happened, with the request, for evidence */
	char *reason;	  /* the same without the request, for messages */
	/* The registry redirected where the agent does not follow (oci_redirect_allowed):
	 * containerd would, so whether the image can be pulled is open. */
	bool redirect_refused;
};

/* Never fails for a bad answer (see ret->outcome); -ENOMEM-like failures abort. */
void oci_probe(const struct oci_target *t, struct oci_result *ret);
void oci_result_clear(struct oci_result *r);
/* Whether a redirect from `from` to `to` is followed: not from https to http,
 * and only to the host[:port] asked, base_url's or one of redirect_hosts. */
bool oci_redirect_allowed(const struct oci_target *t, const char *from, const char *to,
			  const char **why);
const char *oci_outcome_name(enum oci_outcome o);

/* One WWW-Authenticate challenge (RFC 7235): the first Bearer or Basic one. */
struct oci_challenge {
	char scheme[16]; /* "bearer" or "basic" (lower case); "" when none */
	char *realm, *service, *scope, *error;
};
/* Returns 0, or -EINVAL when header holds no Bearer/Basic challenge. */
int oci_parse_challenge(const char *header, struct oci_challenge *ret);
void oci_challenge_clear(struct oci_challenge *c);
