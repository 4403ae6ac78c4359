/*
 * kubeconfig files (client-go's clientcmd v1 format), reduced to what one
 * connection needs: the chosen context's cluster (server, CA, TLS name,
 * proxy) and user (client certificate, bearer token). Relative file paths
 * are resolved against the kubeconfig's directory, as kubectl does. Credential
 * plugins (exec, auth-provider), basic auth and impersonation are refused with
 * a clear error rather than silently connecting as someone else.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kubeconfigs are small (RKE2's is ~3 KiB); anything beyond this is not one. */
#define KUBECONFIG_MAX_SIZE (16u << 20)

struct kube_blob {
	uint8_t *data;
	size_t len;
};

struct kubeconfig {
	char *origin;  /* the file, for messages */
	char *context; /* the context used */
	char *cluster, *user;
	char *server; /* http(s)://host[:port][/prefix], no trailing slash */
	char *tls_server_name;
	char *proxy_url;
	bool insecure;
	/* At most one of each pair is set: *-data wins over the file, as in kubectl. */
	char *ca_file;
	struct kube_blob ca_data; /* PEM */
	char *cert_file, *key_file;
	struct kube_blob cert_data, key_data; /* PEM */
	char *token;
	char *token_file; /* wins over token: it may be rotated */
};

/* Parse a kubeconfig held in buf. name is for messages; base_dir resolves
 * relative paths; context NULL means current-context. On failure ret is
 * untouched and err names the file and the problem. */
int kubeconfig_parse(const uint8_t *buf, size_t len, const char *name, const char *base_dir,
		     const char *context, struct kubeconfig *ret, char *err, size_t errlen);
/* Read and parse a kubeconfig file. */
int kubeconfig_load(const char *path, const char *context, struct kubeconfig *ret, char *err,
		    size_t errlen);
void kubeconfig_clear(struct kubeconfig *kc);

enum kubeconfig_pem {
	KUBECONFIG_PEM_CA,   /* one or more certificates */
	KUBECONFIG_PEM_CERT, /* a certificate (chain) */
	KUBECONFIG_PEM_KEY,  /* a private key */
};
/* Whether data holds what kind says, so that a wrong file is named at start
 * instead of failing later inside the TLS handshake. */
bool kubeconfig_pem_valid(enum kubeconfig_pem kind, const uint8_t *data, size_t len);
