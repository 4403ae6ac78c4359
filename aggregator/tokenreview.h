/*
 * Agent authentication with Kubernetes TokenReviews (serve --tokenreview).
 *
 * Agents send their projected service-account token (audience "hvready").
 * A reviewer thread asks the API server about each token it has not seen
 * recently; the answer binds the token to a node — the review's
 * authentication.kubernetes.io/node-name extra, or else the pod named in
 * authentication.kubernetes.io/pod-name, whose spec.nodeName the loop looks
 * up in the cluster state. Results are cached (by SHA-256 of the token, never
 * the token itself) for a minute, failures for ten seconds.
 */
#pragma once
#include <pthread.h>
#include "source.h"

#define TOKENREVIEW_AUDIENCE "hvready"

struct token_identity {
	bool authenticated;
	char *username;	     /* system:serviceaccount:NS:NAME */
	char *node;	     /* from the node-name extra, or NULL */
	char *pod_namespace; /* from the username, when a pod-name extra is there */
	char *pod;	     /* from the pod-name extra, or NULL */
	char *error;	     /* why not authenticated (for the 401 message) */
};

void token_identity_clear(struct token_identity *id);
/* Review one token (blocking; call from a worker thread). Returns 0 when the
 * API answered (authenticated or not: see ret), or -errno with err set when it
 * could not be asked. */
int tokenreview_review(struct kube_client *kc, const char *token, struct token_identity *ret,
		       char *err, size_t errlen);
/* Parse a TokenReview response body (for tests and the fuzzer). */
int tokenreview_parse(const char *body, size_t len, struct token_identity *ret, char *err,
		      size_t errlen);
/* SHA-256 of the token, hex, for the cache key. */
void tokenreview_key(const char *token, char ret[65]);
