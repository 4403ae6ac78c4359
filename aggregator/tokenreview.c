#include "tokenreview.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <openssl/evp.h>

#include "json_query.h"
#include "kube_client.h"

#define REVIEW_MAX_BODY (256u << 10)

void token_identity_clear(struct token_identity *id)
{
	free(id->username);
	free(id->node);
	free(id->pod_namespace);
	free(id->pod);
	free(id->error);
	strv_clear(&id->groups);
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
	const struct jv *groups = JQ(st, "user", "groups");
	for (size_t i = 0; i < jq_len(groups) && i < 256; i++) {
		const char *g = jv_str(jq_at(groups, i));
		if (g && *g)
			strv_add(&ret->groups, g);
	}
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

/* ---------- the shape of a ServiceAccount token ---------- */

#define JWT_PART_MAX 8192 /* decoded header or payload; real ones are < 2 KiB */

static int b64url_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '-' ? 62 : c == '_' ? 63 : -1;
}

/* Decode n characters of unpadded base64url into a NUL-terminated buffer of
 * JWT_PART_MAX + 1 bytes; -1 if they are not base64url or too long. */
static ssize_t b64url_decode(const char *in, size_t n, char *out)
{
	if (n == 0 || n % 4 == 1 || n / 4 * 3 + 2 > JWT_PART_MAX)
		return -1;
	uint32_t acc = 0;
	size_t len = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64url_val((unsigned char)in[i]);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[len++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[len] = '\0';
	return (ssize_t)len;
}

static json_object *jwt_part(const char *in, size_t n)
{
	char buf[JWT_PART_MAX + 1];
	ssize_t len = b64url_decode(in, n, buf);
	if (len <= 0 || memchr(buf, '\0', (size_t)len))
		return NULL;
	json_tokener *tok = json_tokener_new();
	json_object *o = tok ? json_tokener_parse_ex(tok, buf, (int)len) : NULL;
	bool whole = tok && json_tokener_get_error(tok) == json_tokener_success &&
		     json_tokener_get_parse_end(tok) == (size_t)len;
	json_tokener_free(tok);
	if (!whole || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* kube-apiserver signs ServiceAccount tokens with its RSA or ECDSA key
 * (k8s.io/kubernetes pkg/serviceaccount/jwt.go, signerFromRSAPrivateKey and
 * signerFromECDSAPrivateKey: RS256, ES256/384/512); "none" or an HMAC
 * algorithm is never a ServiceAccount token. */
static bool alg_plausible(const char *alg)
{
	static const char *const ok[] = {"RS256", "RS384", "RS512", "PS256", "PS384",
					 "PS512", "ES256", "ES384", "ES512"};
	for (size_t i = 0; alg && i < ELEMENTSOF(ok); i++)
		if (streq(alg, ok[i]))
			return true;
	return false;
}

static bool aud_has_ours(json_object *aud)
{
	if (json_object_is_type(aud, json_type_string))
		return streq(json_object_get_string(aud), TOKENREVIEW_AUDIENCE);
	if (!json_object_is_type(aud, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(aud); i++) {
		json_object *a = json_object_array_get_idx(aud, i);
		if (json_object_is_type(a, json_type_string) &&
		    streq(json_object_get_string(a), TOKENREVIEW_AUDIENCE))
			return true;
	}
	return false;
}

static int refuse(char *why, size_t whylen, const char *what)
{
	snprintf(why, whylen,
		 "not a ServiceAccount token for audience " TOKENREVIEW_AUDIENCE ": %s", what);
	return -EINVAL;
}

int tokenreview_precheck(const char *token, int64_t now_s, int64_t *ret_exp, char *why,
			 size_t whylen)
{
	const char *d1 = strchr(token, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	if (!d1 || !d2 || strchr(d2 + 1, '.'))
		return refuse(why, whylen, "not three dot-separated parts");
	const char *sig = d2 + 1;
	if (!*sig ||
	    strspn(sig, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") !=
		strlen(sig))
		return refuse(why, whylen, "the signature is not base64url");
	json_object *hdr = jwt_part(token, (size_t)(d1 - token));
	if (!hdr)
		return refuse(why, whylen, "the header is not base64url JSON");
	json_object *v;
	bool alg_ok = json_object_object_get_ex(hdr, "alg", &v) &&
		      json_object_is_type(v, json_type_string) &&
		      alg_plausible(json_object_get_string(v));
	json_object_put(hdr);
	if (!alg_ok)
		return refuse(why, whylen, "the header's alg is not RSA or ECDSA");
	json_object *pl = jwt_part(d1 + 1, (size_t)(d2 - d1 - 1));
	if (!pl)
		return refuse(why, whylen, "the payload is not base64url JSON");
	const char *what = NULL;
	int64_t exp = 0;
	if (!json_object_object_get_ex(pl, "aud", &v) || !aud_has_ours(v))
		what = "its aud does not include " TOKENREVIEW_AUDIENCE;
	else if (!json_object_object_get_ex(pl, "exp", &v) ||
		 !(json_object_is_type(v, json_type_int) ||
		   json_object_is_type(v, json_type_double)))
		what = "it has no exp";
	else if ((exp = json_object_get_int64(v)) <= now_s)
		what = "it has expired";
	else if (!json_object_object_get_ex(pl, "iss", &v) ||
		 !json_object_is_type(v, json_type_string) || !*json_object_get_string(v))
		what = "it has no iss";
	json_object_put(pl);
	if (what)
		return refuse(why, whylen, what);
	if (ret_exp)
		*ret_exp = exp;
	return 0;
}
