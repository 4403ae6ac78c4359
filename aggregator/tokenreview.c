#include "tokenreview.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "jq.h"
#include "kube_client.h"

#define REVIEW_MAX_BODY (256u << 10)

void token_identity_clear(struct token_identity *id)
{
	free(id->username);
	free(id->node);
	free(id->pod_namespace);
	free(id->pod);
	free(id->error);
	*id = (struct token_identity){0};
}

static const char *first_extra(const struct jv *extra, const char *key)
{
	return jv_str(jq_at(JQ(extra, key), 0));
}

int tokenreview_parse(const char *body, size_t len, struct token_identity *ret, char *err,
		      size_t errlen)
{
	*ret = (struct token_identity){0};
	json_tokener *tok = json_tokener_new();
	json_object *oj = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	struct jv root = jv_from_json(ar, oj);
	const struct jv *o = oj ? &root : NULL;
	json_object_put(oj);
	if (!o || !streq(jq_kind(o), "TokenReview")) {
		snprintf(err, errlen, "the API answered something that is not a TokenReview");
		return -EINVAL;
	}
	const struct jv *st = JQ(o, "status");
	bool auth = false;
	jq_bool(JQ(st, "authenticated"), &auth);
	bool audience_ok = false;
	const struct jv *auds = JQ(st, "audiences");
	for (size_t i = 0; i < jq_len(auds); i++)
		if (streq(jv_str(jq_at(auds, i)), TOKENREVIEW_AUDIENCE))
			audience_ok = true;
	const char *user = JQS(st, "user", "username");
	if (!auth) {
		const char *e = JQS(st, "error");
		ret->error = xstrdup(e && *e ? e : "the token was not authenticated");
	} else if (!audience_ok) {
		ret->error = xstrdup("the token is not for audience " TOKENREVIEW_AUDIENCE);
	} else {
		ret->authenticated = true;
	}
	ret->username = xstrdup(user ? user : "");
	const struct jv *extra = JQ(st, "user", "extra");
	const char *node = first_extra(extra, "authentication.kubernetes.io/node-name");
	const char *pod = first_extra(extra, "authentication.kubernetes.io/pod-name");
	if (node && *node)
		ret->node = xstrdup(node);
	/* system:serviceaccount:NAMESPACE:NAME */
	if (pod && *pod && startswith(ret->username, "system:serviceaccount:")) {
		const char *ns = ret->username + strlen("system:serviceaccount:");
		const char *colon = strchr(ns, ':');
		if (colon) {
			ret->pod_namespace = xstrndup(ns, (size_t)(colon - ns));
			ret->pod = xstrdup(pod);
		}
	}
	return 0;
}

int tokenreview_review(struct kube_client *kc, const char *token, struct token_identity *ret,
		       char *err, size_t errlen)
{
	json_object *req = json_object_new_object();
	json_object *spec = json_object_new_object();
	json_object *auds = json_object_new_array();
	json_object_array_add(auds, json_object_new_string(TOKENREVIEW_AUDIENCE));
	json_object_object_add(spec, "token", json_object_new_string(token));
	json_object_object_add(spec, "audiences", auds);
	json_object_object_add(req, "apiVersion",
			       json_object_new_string("authentication.k8s.io/v1"));
	json_object_object_add(req, "kind", json_object_new_string("TokenReview"));
	json_object_object_add(req, "spec", spec);
	const char *body = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
	struct kube_response resp = {0};
	int r = kube_client_call(kc, "POST", "/apis/authentication.k8s.io/v1/tokenreviews",
				 "application/json", body, strlen(body), REVIEW_MAX_BODY, &resp,
				 err, errlen);
	json_object_put(req);
	if (r < 0)
		return r;
	if (resp.status != 200 && resp.status != 201) {
		_cleanup_free_ char *msg = kube_client_status_message(resp.body, resp.len);
		snprintf(err, errlen, "TokenReview: HTTP %ld%s%s%s", resp.status, *msg ? " (" : "",
			 msg, *msg ? ")" : "");
		if (resp.status == 401 || resp.status == 403)
			snprintf(
			    err + strlen(err), errlen - strlen(err),
			    "; the aggregator needs create on tokenreviews.authentication.k8s.io");
		kube_response_clear(&resp);
		return -EACCES;
	}
	r = tokenreview_parse(resp.body, resp.len, ret, err, errlen);
	kube_response_clear(&resp);
	return r;
}

void tokenreview_key(const char *token, char ret[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_Digest(token, strlen(token), md, &n, EVP_sha256(), NULL);
	for (unsigned i = 0; i < n && i < 32; i++)
		snprintf(ret + 2 * i, 3, "%02x", md[i]);
	ret[64] = '\0';
}
