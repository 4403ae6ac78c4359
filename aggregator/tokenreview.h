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
 *
 * Only the agent's own ServiceAccount is accepted (server_auth.c), and a
 * token that cannot be a ServiceAccount JWT for our audience is refused
 * before any review (tokenreview_precheck): the API is asked only about
 * tokens that could pass. docs/deployment.md, "Agent identity".
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
	struct strv groups;  /* status.user.groups (for --read-auth tokenreview:GROUP) */
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
/* Whether token can be a ServiceAccount JWT for TOKENREVIEW_AUDIENCE, read
 * without verifying its signature (the review does that): three base64url
 * parts, a header with an asymmetric "alg", a payload whose "aud" holds our
 * audience, whose "exp" is after now_s and whose "iss" is a non-empty string.
 * 0, or -EINVAL with why (never any part of the token). On success
 * *ret_exp is the token's exp (seconds since the epoch). */
int tokenreview_precheck(const char *token, int64_t now_s, int64_t *ret_exp, char *why,
			 size_t whylen);
/* SHA-256 of the token, hex, for the cache key. */
void tokenreview_key(const char *token, char ret[65]);
