/*
 * RKE2's /etc/rancher/rke2/registries.yaml (k3s: /etc/rancher/k3s/registries.yaml),
 * and where this node's containerd pulls an image from because of it.
 *
 *   mirrors:
 *     docker.io:                       # or "*": every registry without its own entry
 *       endpoint: ["https://mirror.example.com:5000", "https://mirror2/v2/prefix"]
 *       rewrite: {"^longhornio/(.*)": "mirror/longhornio/$1"}
 *   configs:
 *     mirror.example.com:5000:
 *       auth: {username: u, password: p}   # or auth: base64(u:p), identitytoken
 *       tls: {ca_file: /etc/ssl/site-ca.pem, cert_file: …, key_file: …,
 *             insecure_skip_verify: false}
 *
 * The plan follows k3s's hosts.toml generation (pkg/agent/containerd/config.go)
 * and containerd's resolver: the mirror's endpoints in order, then the
 * registry's default endpoint (docker.io -> https://registry-1.docker.io/v2)
 * unless disable-default-registry-endpoint removed it. Rewrites apply to mirror
 * endpoints only. An endpoint without a scheme is https, except on localhost
 * with a port; an endpoint path other than "", "/" or "/v2" is used as is
 * (override_path) instead of "/v2".
 */
#pragma once
#include "util.h"

#define REGISTRIES_MAX_FILE_SIZE (1u << 20)
#define REGISTRIES_MAX_ENTRIES	 1024

struct registry_rewrite {
	char *pattern; /* a Go (RE2) regular expression */
	char *replacement;
};

struct registry_mirror {
	char *host; /* "docker.io", "*" */
	struct strv endpoints;
	struct registry_rewrite *rewrites; /* sorted by pattern, as k3s renders them */
	size_t n_rewrites;
	unsigned line;
};

struct registry_config {
	char *host;
	bool has_auth, has_tls; /* the sections exist (k3s writes hosts.toml only then) */
	char *username, *password, *auth, *identity_token;
	char *ca_file, *cert_file, *key_file;
	bool insecure_skip_verify;
	unsigned line;
};

struct registries {
	struct registry_mirror *mirrors;
	size_t n_mirrors;
	struct registry_config *configs;
	size_t n_configs;
};

/* Returns 0 or -EINVAL with "NAME:LINE: reason" in err (what makes RKE2 refuse the file). */
int registries_parse(const uint8_t *buf, size_t len, const char *name, struct registries *ret,
		     char *err, size_t errlen);
void registries_clear(struct registries *r);
const struct registry_mirror *registries_mirror(const struct registries *r, const char *host);
const struct registry_config *registries_config(const struct registries *r, const char *host);

struct registry_endpoint {
	char *url;	/* scheme://host[:port]/path, e.g. "https://registry-1.docker.io/v2" */
	char *scheme;	/* "https" or "http" */
	char *host;	/* host[:port] as contacted */
	char *registry; /* the registry name this endpoint is (configs are looked up by it) */
	bool override_path;
	bool is_default;		      /* the registry's own endpoint: no rewrites */
	const struct registry_mirror *mirror; /* rewrites come from it (NULL: none) */
	const struct registry_config *config; /* TLS and credentials (NULL: none) */
	char *origin;			      /* where it comes from, for evidence */
};

struct registry_plan {
	struct registry_endpoint *eps;
	size_t n, cap;
	const char *mirror_key; /* the mirrors entry used ("docker.io", "*") or NULL */
	bool default_removed;	/* disable-default-registry-endpoint left no fallback */
	struct strv notes;	/* endpoints ignored and why */
};

/*
 * The endpoints containerd tries, in order, to pull from registry (an image
 * reference's registry, e.g. "docker.io"). r may be NULL (no registries.yaml).
 * default_override, when not NULL, replaces the default endpoint's URL (tests
 * use it to keep Docker Hub out of reach). Returns 0 or -EINVAL if registry is
 * not a valid host.
 */
int registries_plan(const struct registries *r, const char *registry, bool no_default_endpoint,
		    const char *default_override, struct registry_plan *ret);
void registry_plan_clear(struct registry_plan *p);

/*
 * The repository name containerd asks a mirror endpoint for: the mirror's
 * rewrite rules in pattern order, the first whose ReplaceAll changes the name
 * wins (k3s's containerd). Go regular expressions are evaluated as POSIX
 * extended ones after translating \d and (?:…); a pattern that cannot be
 * evaluated makes the result NULL with *ret_error set (static text).
 * *ret_pattern is the rule used, or NULL if none matched.
 */
char *registries_rewrite(const struct registry_mirror *m, const char *repo,
			 const char **ret_pattern, const char **ret_error);

/* containerd's docker.IsLocalhost: "localhost" or a loopback IP, with or without a port. */
bool registries_is_localhost(const char *hostport);
