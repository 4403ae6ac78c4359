/*
 * A small Kubernetes API client on libcurl: the connection settings of one
 * kubeconfig context or of the in-cluster service account, turned into
 * configured curl handles. The listing of resources is in source_api.c; this
 * module knows TLS, credentials (bearer tokens re-read when their file is
 * rotated), timeouts and the Status objects the API answers errors with.
 *
 * The constructors kube_client_new_kubeconfig() / _in_cluster() are declared
 * in source.h. Tunables, read from the environment when the client is made
 * (for tests and for slow links): HVREADY_API_TIMEOUT (total seconds per
 * request, default 30), HVREADY_API_CONNECT_TIMEOUT (default 10),
 * HVREADY_LIST_LIMIT (items per list page, default 500), HVREADY_SA_DIR (the
 * service account directory, default /var/run/secrets/kubernetes.io/serviceaccount).
 */
#pragma once
#include <curl/curl.h>
#include <json-c/json.h>

#include "kubeconfig.h"
#include "source.h"

#define KUBE_CLIENT_SA_DIR	       "/var/run/secrets/kubernetes.io/serviceaccount"
#define KUBE_CLIENT_CONNECT_TIMEOUT_MS 10000L
#define KUBE_CLIENT_TIMEOUT_MS	       30000L
#define KUBE_CLIENT_LIST_LIMIT	       500L

/* Create a client from a parsed kubeconfig (kube_client_new_kubeconfig does
 * the parsing). Files named by it are checked here, so a wrong path is
 * reported at start. */
int kube_client_new(const struct kubeconfig *cfg, struct kube_client **ret, char *err,
		    size_t errlen);

void kube_client_set_timeouts(struct kube_client *kc, long connect_ms, long total_ms);
long kube_client_timeout_ms(const struct kube_client *kc);
long kube_client_list_limit(const struct kube_client *kc);
/* Where the credentials came from: the kubeconfig file, or the SA dir. */
const char *kube_client_origin(const struct kube_client *kc);

/* One request's curl handle, configured (URL, TLS, credentials, timeouts,
 * headers). The caller sets the write callback and, for a body, the method
 * and POSTFIELDS, then runs it on its own or in a multi handle. */
struct kube_request {
	CURL *curl;
	struct curl_slist *headers;
	char errbuf[CURL_ERROR_SIZE];
};
int kube_client_request_init(struct kube_client *kc, struct kube_request *req, const char *path,
			     char *err, size_t errlen);
void kube_client_request_clear(struct kube_request *req);

struct kube_response {
	long status; /* HTTP status code */
	char *body;  /* NUL-terminated */
	size_t len;
};
void kube_response_clear(struct kube_response *r);

/* A synchronous request: method "GET", "POST", "PATCH"...; body may be NULL.
 * The response body is kept up to max_body bytes (beyond: -EFBIG). Returns 0
 * when the server answered (any status), or a negative errno with the
 * transport problem (connect, TLS, timeout) in err. */
int kube_client_call(struct kube_client *kc, const char *method, const char *path,
		     const char *content_type, const char *body, size_t body_len, size_t max_body,
		     struct kube_response *ret, char *err, size_t errlen);

/* The "message" of a Kubernetes Status object in body, else the body's first
 * line (bounded), else "" — for error messages. Caller frees. */
char *kube_client_status_message(const char *body, size_t len);

/* A JSON request for the writes of the canary (docs/canary.md): POST a new
 * object, GET one, DELETE one. body (may be NULL) is sent as
 * application/json; *ret (may be NULL) gets the parsed answer of a 2xx, or
 * NULL. Returns 0 for a 2xx; -ENOENT for 404, -EEXIST for 409, -EIO for any
 * other status, with "METHOD PATH: HTTP CODE: the Status message" in err; a
 * transport problem as kube_client_call(). *status (may be NULL) gets the
 * HTTP status, 0 without an answer. */
int kube_client_json(struct kube_client *kc, const char *method, const char *path,
		     json_object *body, long *status, json_object **ret, char *err, size_t errlen);
/* A new object to write: apiVersion, kind, metadata.name and (unless ns is
 * NULL) metadata.namespace; *ret_meta (may be NULL) is its metadata, for
 * more members. */
json_object *kube_object_new(const char *api_version, const char *kind, const char *ns,
			     const char *name, json_object **ret_meta);
