#include "oci_client.h"
#include "http_header.h"
#include "netguard.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define USER_AGENT "hvready-agent/" HVREADY_VERSION " (containerd-compatible pull check)"

/* ---- WWW-Authenticate ---- */

void oci_challenge_clear(struct oci_challenge *c)
{
	free(c->realm);
	free(c->service);
	free(c->scope);
	free(c->error);
	*c = (struct oci_challenge){0};
}

static bool tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+.^_`|~-/", c));
}

static const char *skip_ows(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *token(const char *p, size_t *len)
{
	const char *s = p;
	while (tchar(*p))
		p++;
	*len = (size_t)(p - s);
	return s;
}

/* A quoted-string or a token; returns the unescaped value and advances *pp. */
static char *param_value(const char **pp)
{
	const char *p = *pp;
	if (*p != '"') {
		size_t n;
		const char *s = token(p, &n);
		*pp = p + n;
		return xstrndup(s, n);
	}
	p++;
	size_t cap = strlen(p) + 1, o = 0;
	char *v = xmalloc(cap);
	while (*p && *p != '"') {
		if (*p == '\\' && p[1])
			p++;
		v[o++] = *p++;
	}
	v[o] = '\0';
	*pp = *p == '"' ? p + 1 : p;
	return v;
}

int oci_parse_challenge(const char *header, struct oci_challenge *ret)
{
	struct oci_challenge basic = {0};
	const char *p = header;
	*ret = (struct oci_challenge){0};
	while (*p) {
		size_t n;
		p = skip_ows(p);
		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		const char *scheme = token(p, &n);
		if (n == 0)
			break;
		p += n;
		struct oci_challenge c = {0};
		snprintf(c.scheme, sizeof(c.scheme), "%.*s", (int)(n < 15 ? n : 15), scheme);
		for (char *s = c.scheme; *s; s++)
			*s = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
		/* auth-params: name=value pairs separated by commas, until the next scheme. */
		for (;;) {
			const char *save = p;
			p = skip_ows(p);
			size_t kn;
			const char *k = token(p, &kn);
			const char *after = skip_ows(p + kn);
			if (kn == 0 || *after != '=') {
				p = save;
				break;
			}
			p = skip_ows(after + 1);
			char *v = param_value(&p);
			char **slot = kn == 5 && !strncasecmp(k, "realm", 5)	 ? &c.realm
				      : kn == 7 && !strncasecmp(k, "service", 7) ? &c.service
				      : kn == 5 && !strncasecmp(k, "scope", 5)	 ? &c.scope
				      : kn == 5 && !strncasecmp(k, "error", 5)	 ? &c.error
										 : NULL;
			if (slot && !*slot)
				*slot = v;
			else
				free(v);
			p = skip_ows(p);
			if (*p != ',')
				break;
			p++;
		}
		if (streq(c.scheme, "bearer")) {
			oci_challenge_clear(&basic);
			*ret = c;
			return 0;
		}
		if (streq(c.scheme, "basic") && !basic.scheme[0])
			basic = c;
		else
			oci_challenge_clear(&c);
		/* Skip anything unparsable up to the next comma. */
		if (*p && *p != ',' && !tchar(*p))
			p++;
	}
	if (basic.scheme[0]) {
		*ret = basic;
		return 0;
	}
	return -EINVAL;
}

/* ---- one HTTP exchange ---- */

struct exchange {
	long status;
	size_t header_bytes;
	bool too_large;
	size_t max_body;
	struct strv challenges; /* WWW-Authenticate values of the final response */
	char *digest, *content_type;
	int64_t content_length;
	char *body;
	size_t body_len;
	char errbuf[CURL_ERROR_SIZE];
	CURLcode code;
	bool metadata_refused; /* a link-local or metadata address (netguard.h) */
	bool redirect_refused; /* a redirect perform() did not follow */
};

static void exchange_clear(struct exchange *x)
{
	strv_clear(&x->challenges);
	free(x->digest);
	free(x->content_type);
	free(x->body);
	*x = (struct exchange){0};
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *userdata)
{
	struct exchange *x = userdata;
	size_t n = size * nitems;
	char *v;
	x->header_bytes += n;
	if (x->header_bytes > OCI_MAX_HEADERS) {
		x->too_large = true;
		return 0;
	}
	if (n >= 5 && strncmp(buf, "HTTP/", 5) == 0) {
		/* A new response (after a redirect or a 100): keep only the last one's headers. */
		strv_clear(&x->challenges);
		free(x->digest);
		free(x->content_type);
		x->digest = x->content_type = NULL;
		x->content_length = -1;
		return n;
	}
	if ((v = http_header_value(buf, n, "WWW-Authenticate"))) {
		if (x->challenges.n < 8)
			strv_add(&x->challenges, v);
		free(v);
	} else if ((v = http_header_value(buf, n, "Docker-Content-Digest"))) {
		free(x->digest);
		x->digest = v;
	} else if ((v = http_header_value(buf, n, "Content-Type"))) {
		free(x->content_type);
		x->content_type = v;
	} else if ((v = http_header_value(buf, n, "Content-Length"))) {
		int64_t len;
		if (util_parse_i64(v, &len) == 0)
			x->content_length = len;
		free(v);
	}
	return n;
}

static size_t on_body(char *buf, size_t size, size_t nmemb, void *userdata)
{
	struct exchange *x = userdata;
	size_t n = size * nmemb;
	if (x->body_len + n > x->max_body) {
		x->too_large = true;
		return 0;
	}
	x->body = xrealloc(x->body, x->body_len + n + 1);
	memcpy(x->body + x->body_len, buf, n);
	x->body_len += n;
	x->body[x->body_len] = '\0';
	return n;
}

enum method { M_GET, M_HEAD, M_POST };

struct request {
	enum method method;
	const char *url;
	const char *authorization; /* full header value, or NULL */
	const char *accept;
	const char *post_fields; /* application/x-www-form-urlencoded */
	size_t max_body;
};

static void setup_tls(CURL *h, const struct oci_target *t)
{
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, t->insecure_skip_verify ? 0L : 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, t->insecure_skip_verify ? 0L : 2L);
	if (t->ca_pem) {
		/* Exactly the node's trust store: nothing from the agent's own image. */
		struct curl_blob ca = {(void *)t->ca_pem, t->ca_pem_len, CURL_BLOB_COPY};
		curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
		curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
	}
	if (t->cert_pem && t->key_pem) {
		struct curl_blob cert = {(void *)t->cert_pem, t->cert_pem_len, CURL_BLOB_COPY};
		struct curl_blob key = {(void *)t->key_pem, t->key_pem_len, CURL_BLOB_COPY};
		curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
		curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
		curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	}
}

static char *url_authority(const char *url, bool *ret_https);
static const char *host_of(const char *authority);

static void perform_once(CURL *h, const struct oci_target *t, const struct request *rq,
			 struct exchange *x)
{
	struct curl_slist *hdrs = NULL;
	char *auth = NULL, *accept = NULL;
	*x = (struct exchange){.content_length = -1, .max_body = rq->max_body};
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, rq->url);
	_cleanup_free_ char *host = url_authority(rq->url, NULL);
	if (!netguard_probe_host_allowed(host_of(host))) {
		/* Through a proxy the socket check sees only the proxy. */
		x->metadata_refused = true;
		x->code = CURLE_COULDNT_CONNECT;
		return;
	}
	if (!netguard_curl_probe(h, rq->url, &x->metadata_refused, x->errbuf, sizeof(x->errbuf))) {
		x->code = CURLE_COULDNT_CONNECT;
		return;
	}
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, t->timeout_s);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, t->timeout_s);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	/* Redirects are followed by perform(), which checks each one first. */
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, USER_AGENT);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	/* The node's proxy settings, not whatever the agent's environment says. */
	curl_easy_setopt(h, CURLOPT_PROXY, t->proxy ? t->proxy : "");
	if (t->no_proxy)
		curl_easy_setopt(h, CURLOPT_NOPROXY, t->no_proxy);
	setup_tls(h, t);
	if (rq->method == M_HEAD)
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	if (rq->method == M_POST)
		curl_easy_setopt(h, CURLOPT_COPYPOSTFIELDS, rq->post_fields);
	if (rq->authorization) {
		auth = xasprintf("Authorization: %s", rq->authorization);
		hdrs = curl_slist_append(hdrs, auth);
	}
	if (rq->accept) {
		accept = xasprintf("Accept: %s", rq->accept);
		hdrs = curl_slist_append(hdrs, accept);
	}
	if (hdrs)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	x->code = curl_easy_perform(h);
	if (x->code == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x->status);
	curl_slist_free_all(hdrs);
	free(auth);
	free(accept);
}

/* "host[:port]" of an http(s) URL, lower case, the default port spelled out
 * (so that "h" and "h:443" compare equal); *ret_https tells the scheme. NULL
 * when url is not http(s). Malloc'd. */
static char *url_authority(const char *url, bool *ret_https)
{
	const char *p = url ? strstr(url, "://") : NULL;
	if (!p)
		return NULL;
	bool https = (size_t)(p - url) == 5 && strncasecmp(url, "https", 5) == 0;
	if (!https && !((size_t)(p - url) == 4 && strncasecmp(url, "http", 4) == 0))
		return NULL;
	p += 3;
	size_t n = strcspn(p, "/?#");
	const char *at = memchr(p, '@', n);
	if (at) {
		n -= (size_t)(at + 1 - p);
		p = at + 1;
	}
	char *a = xstrndup(p, n);
	for (char *c = a; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	const char *close = a[0] == '[' ? strchr(a, ']') : NULL;
	const char *colon = close ? (close[1] == ':' ? close + 1 : NULL) : strrchr(a, ':');
	if (ret_https)
		*ret_https = https;
	if (!colon) {
		char *full = xasprintf("%s:%s", a, https ? "443" : "80");
		free(a);
		return full;
	}
	return a;
}

/* The host of an authority from url_authority(), without port and brackets,
 * in a static buffer (for netguard_is_metadata_host). */
static const char *host_of(const char *authority)
{
	static _Thread_local char buf[256];
	if (!authority)
		return "";
	const char *p = authority;
	size_t n;
	if (*p == '[') {
		p++;
		n = strcspn(p, "]");
	} else {
		n = strcspn(p, ":");
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
	return buf;
}

/*
 * Whether a redirect from `from` to `to` may be followed: never from https to
 * http (it would send the request, and the token, in clear text), and only to
 * the host[:port] asked or to one of the registry's endpoints (its mirrors,
 * t->redirect_hosts). Anything else would let a registry answer make the
 * agent connect, from the node's network, to an address nobody configured,
 * and report what it found there. why says which rule refused it.
 */
bool oci_redirect_allowed(const struct oci_target *t, const char *from, const char *to,
			  const char **why)
{
	bool from_https = false, to_https = false;
	_cleanup_free_ char *fa = url_authority(from, &from_https);
	_cleanup_free_ char *ta = url_authority(to, &to_https);
	if (!ta) {
		*why = "not an http(s) URL";
		return false;
	}
	if (from_https && !to_https) {
		*why = "from https to http";
		return false;
	}
	if (fa && streq(fa, ta))
		return true;
	_cleanup_free_ char *base = url_authority(t->base_url, NULL);
	if (base && streq(base, ta))
		return true;
	for (size_t i = 0; t->redirect_hosts && t->redirect_hosts[i]; i++) {
		_cleanup_free_ char *u =
		    xasprintf("%s://%s", to_https ? "https" : "http", t->redirect_hosts[i]);
		_cleanup_free_ char *m = url_authority(u, NULL);
		if (m && streq(m, ta))
			return true;
	}
	*why = "to a host that is neither the registry nor one of its mirrors";
	return false;
}

#define OCI_MAX_REDIRECTS 5

/* One request, its redirects followed by hand (oci_redirect_allowed). */
static void perform(CURL *h, const struct oci_target *t, const struct request *rq,
		    struct exchange *x)
{
	struct request cur = *rq;
	_cleanup_free_ char *url = xstrdup(rq->url);
	_cleanup_free_ char *first = url_authority(rq->url, NULL);
	for (int hop = 0;; hop++) {
		cur.url = url;
		perform_once(h, t, &cur, x);
		if (x->code != CURLE_OK || x->status < 300 || x->status > 399 || x->status == 304 ||
		    x->status == 305 || x->status == 306)
			return;
		char *loc = NULL;
		if (curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &loc) != CURLE_OK || !loc)
			return;
		if (hop == OCI_MAX_REDIRECTS) {
			x->code = CURLE_TOO_MANY_REDIRECTS;
			snprintf(x->errbuf, sizeof(x->errbuf), "more than %d redirects",
				 OCI_MAX_REDIRECTS);
			return;
		}
		const char *why = NULL;
		if (!oci_redirect_allowed(t, url, loc, &why)) {
			/* Neither the target's address nor whether it answers: only that
			 * it was not followed (no port-scan oracle). */
			_cleanup_free_ char *to = url_authority(loc, NULL);
			x->redirect_refused = true;
			x->code = CURLE_TOO_MANY_REDIRECTS;
			snprintf(x->errbuf, sizeof(x->errbuf), "redirect %s (%s) not followed", why,
				 to ? to : "?");
			return;
		}
		char *next = xstrdup(loc);
		/* As libcurl: 303 (and 301/302 after a POST) becomes a GET; the
		 * Authorization header goes to the same host only. */
		if (cur.method == M_POST && x->status != 307 && x->status != 308) {
			cur.method = M_GET;
			cur.post_fields = NULL;
		}
		_cleanup_free_ char *na = url_authority(next, NULL);
		if (!first || !na || !streq(first, na))
			cur.authorization = NULL;
		free(url);
		url = next;
		exchange_clear(x);
	}
}

/* Transport failures: outcome and a one-line detail. */
static void transport_failure(const char *what, const char *url, const struct exchange *x,
			      long timeout_s, struct oci_result *r)
{
	const char *msg = x->errbuf[0] ? x->errbuf : curl_easy_strerror(x->code);
	if (x->metadata_refused) {
		r->outcome = OCI_UNREACHABLE;
		r->reason = xstrdup(NETGUARD_METADATA_WHY);
		r->detail = xasprintf("%s %s: %s", what, url, NETGUARD_METADATA_WHY);
		return;
	}
	if (x->redirect_refused) {
		r->redirect_refused = true;
		r->outcome = OCI_PROTOCOL;
		r->reason = xstrdup(msg);
		r->detail = xasprintf("%s %s: %s", what, url, msg);
		return;
	}
	switch (x->code) {
	case CURLE_OPERATION_TIMEDOUT:
		r->outcome = OCI_TIMEOUT;
		r->reason = xasprintf("no answer within %lds", timeout_s);
		r->detail =
		    xasprintf("%s %s: no answer within %lds (%s)", what, url, timeout_s, msg);
		return;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
		r->outcome = OCI_TLS;
		r->reason = xasprintf("TLS: %s", msg);
		r->detail = xasprintf("%s %s: TLS failed: %s", what, url, msg);
		return;
	case CURLE_WRITE_ERROR:
		if (x->too_large) {
			r->outcome = OCI_PROTOCOL;
			r->reason = xstrdup("response too large (not a registry?)");
			r->detail = xasprintf("%s %s: %s", what, url, r->reason);
			return;
		}
		break;
	default:
		break;
	}
	r->outcome = OCI_UNREACHABLE;
	r->reason = xasprintf("unreachable: %s", msg);
	r->detail = xasprintf("%s %s: %s", what, url, msg);
}

/* ---- the token dance ---- */

static char *query_escape(CURL *h, const char *s)
{
	char *e = curl_easy_escape(h, s, 0);
	char *r = xstrdup(e ? e : "");
	curl_free(e);
	return r;
}

static char *token_from_json(const char *body)
{
	json_object *o = json_tokener_parse(body ? body : "");
	char *tok = NULL;
	if (o && json_object_is_type(o, json_type_object)) {
		json_object *v;
		/* Docker's token servers send "token"; OAuth2 ones "access_token". */
		if ((json_object_object_get_ex(o, "token", &v) ||
		     json_object_object_get_ex(o, "access_token", &v)) &&
		    json_object_is_type(v, json_type_string) && json_object_get_string_len(v) > 0)
			tok = xstrdup(json_object_get_string(v));
	}
	json_object_put(o);
	return tok;
}

/*
 * Fetch a Bearer token. With an identity token, an OAuth2 refresh_token POST as
 * containerd's docker authorizer sends it; otherwise a GET on the realm, with
 * Basic credentials when registries.yaml has them (every token server that
 * speaks the Docker token protocol accepts that; containerd tries an OAuth2
 * password POST first and falls back to this GET).
 */
static char *fetch_token(CURL *h, const struct oci_target *t, const struct oci_challenge *c,
			 const char *repo, struct oci_result *r)
{
	_cleanup_free_ char *scope = c->scope && strstr(c->scope, repo)
					 ? xstrdup(c->scope)
					 : xasprintf("repository:%s:pull", repo);
	_cleanup_free_ char *escope = query_escape(h, scope);
	_cleanup_free_ char *eservice = query_escape(h, c->service ? c->service : "");
	struct exchange x;
	char *tok = NULL;
	if (!c->realm || !(startswith(c->realm, "https://") || startswith(c->realm, "http://"))) {
		r->outcome = OCI_AUTH;
		r->detail = xasprintf("the registry asks for a Bearer token but names no usable "
				      "realm (\"%s\")",
				      c->realm ? c->realm : "");
		return NULL;
	}
	if (t->identity_token) {
		_cleanup_free_ char *rt = query_escape(h, t->identity_token);
		_cleanup_free_ char *form =
		    xasprintf("grant_type=refresh_token&refresh_token=%s&service=%s&scope=%s&"
			      "client_id=containerd-client",
			      rt, eservice, escope);
		struct request rq = {M_POST, c->realm, NULL, NULL, form, OCI_MAX_SMALL};
		perform(h, t, &rq, &x);
		if (x.code == CURLE_OK && x.status == 200)
			tok = token_from_json(x.body);
		if (!tok) {
			if (x.code != CURLE_OK)
				transport_failure("POST", c->realm, &x, t->timeout_s, r);
			else {
				r->outcome = OCI_AUTH;
				r->detail =
				    xasprintf("token server %s answered %ld to the identity "
					      "token",
					      c->realm, x.status);
			}
		} else {
			free(r->auth);
			r->auth = xasprintf("bearer token (identity token) from %s", c->realm);
		}
		exchange_clear(&x);
		return tok;
	}
	_cleanup_free_ char *url = xasprintf("%s%sservice=%s&scope=%s", c->realm,
					     strchr(c->realm, '?') ? "&" : "?", eservice, escope);
	_cleanup_free_ char *basic = t->basic_b64 ? xasprintf("Basic %s", t->basic_b64) : NULL;
	struct request rq = {M_GET, url, basic, NULL, NULL, OCI_MAX_SMALL};
	perform(h, t, &rq, &x);
	if (x.code != CURLE_OK) {
		transport_failure("GET", c->realm, &x, t->timeout_s, r);
		exchange_clear(&x);
		return NULL;
	}
	if (x.status == 200)
		tok = token_from_json(x.body);
	if (!tok) {
		r->outcome = OCI_AUTH;
		r->detail = x.status == 200
				? xasprintf("token server %s answered without a token", c->realm)
				: xasprintf("token server %s answered %ld%s", c->realm, x.status,
					    basic ? " for the configured credentials"
						  : " to an anonymous request");
	} else {
		free(r->auth);
		r->auth = xasprintf("bearer token (%s) from %s",
				    basic ? "with credentials" : "anonymous", c->realm);
	}
	exchange_clear(&x);
	return tok;
}

static bool pick_challenge(const struct exchange *x, struct oci_challenge *c)
{
	for (size_t i = 0; i < x->challenges.n; i++)
		if (oci_parse_challenge(x->challenges.items[i], c) == 0) {
			if (streq(c->scheme, "bearer") || i + 1 == x->challenges.n)
				return true;
			oci_challenge_clear(c);
		}
	return false;
}

/* The Authorization header for a 401's challenge, or NULL with r filled. */
static char *authorize(CURL *h, const struct oci_target *t, const struct exchange *x,
		       struct oci_result *r)
{
	struct oci_challenge c;
	char *hdr = NULL;
	if (!pick_challenge(x, &c)) {
		r->outcome = OCI_AUTH;
		r->detail = xstrdup("401 without a Bearer or Basic challenge");
		return NULL;
	}
	if (streq(c.scheme, "bearer")) {
		char *tok = fetch_token(h, t, &c, t->repository, r);
		if (tok)
			hdr = xasprintf("Bearer %s", tok);
		free(tok);
	} else if (t->basic_b64) {
		hdr = xasprintf("Basic %s", t->basic_b64);
		free(r->auth);
		r->auth = xstrdup("basic");
	} else {
		r->outcome = OCI_AUTH;
		r->detail = xasprintf("the registry requires credentials (Basic realm \"%s\") and "
				      "none are configured",
				      c.realm ? c.realm : "");
	}
	oci_challenge_clear(&c);
	return hdr;
}

/* ---- the probe ---- */

const char *oci_outcome_name(enum oci_outcome o)
{
	switch (o) {
	case OCI_FOUND:
		return "found";
	case OCI_NOT_FOUND:
		return "not found";
	case OCI_UNREACHABLE:
		return "unreachable";
	case OCI_TLS:
		return "TLS error";
	case OCI_TIMEOUT:
		return "timeout";
	case OCI_AUTH:
		return "unauthorized";
	case OCI_HTTP_ERROR:
		return "HTTP error";
	case OCI_PROTOCOL:
		return "not a registry";
	}
	return "?";
}

void oci_result_clear(struct oci_result *r)
{
	free(r->auth);
	free(r->manifest_url);
	free(r->digest);
	free(r->media_type);
	free(r->detail);
	free(r->reason);
	*r = (struct oci_result){0};
}

static void global_init(void)
{
	static bool done;
	if (!done) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		done = true;
	}
}

static char *trim_slash(const char *s)
{
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == '/')
		n--;
	return xstrndup(s, n);
}

static void manifest_result(const struct exchange *x, struct oci_result *r)
{
	r->manifest_status = x->status;
	if (x->status >= 200 && x->status < 300) {
		r->outcome = OCI_FOUND;
		r->digest = x->digest ? xstrdup(x->digest) : NULL;
		r->media_type = x->content_type ? xstrdup(x->content_type) : NULL;
		r->size = x->content_length;
		return;
	}
	r->outcome = x->status == 404			    ? OCI_NOT_FOUND
		     : x->status == 401 || x->status == 403 ? OCI_AUTH
							    : OCI_HTTP_ERROR;
	r->reason = xasprintf("%ld%s", x->status,
			      x->status == 404	 ? " manifest unknown"
			      : x->status == 401 ? " unauthorized"
			      : x->status == 403 ? " denied"
						 : "");
	r->detail = xasprintf("HEAD %s: %s", r->manifest_url, r->reason);
}

void oci_probe(const struct oci_target *t, struct oci_result *r)
{
	*r = (struct oci_result){.size = -1, .auth = xstrdup("anonymous")};
	global_init();
	CURL *h = curl_easy_init();
	if (!h) {
		r->outcome = OCI_UNREACHABLE;
		r->detail = xstrdup("cannot initialise libcurl");
		return;
	}
	_cleanup_free_ char *base = trim_slash(t->base_url);
	_cleanup_free_ char *ping_url = xasprintf("%s/", base);
	_cleanup_free_ char *ens = t->ns ? query_escape(h, t->ns) : NULL;
	r->manifest_url = xasprintf("%s/%s/manifests/%s%s%s", base, t->repository, t->reference,
				    ens ? "?ns=" : "", ens ? ens : "");
	struct exchange x;
	char *authz = NULL;

	/* The API root: reachability, TLS, and the authentication the registry wants. */
	struct request ping = {M_GET, ping_url, NULL, NULL, NULL, OCI_MAX_SMALL};
	perform(h, t, &ping, &x);
	if (x.code != CURLE_OK) {
		transport_failure("GET", ping_url, &x, t->timeout_s, r);
		goto out;
	}
	r->ping_status = x.status;
	if (x.status == 401 && !(authz = authorize(h, t, &x, r)))
		goto out;
	exchange_clear(&x);

	/* The manifest, as containerd resolves it; a 401 with a new scope gets one retry. */
	for (int attempt = 0; attempt < 2; attempt++) {
		struct request head = {M_HEAD, r->manifest_url, authz, OCI_ACCEPT, NULL, 0};
		perform(h, t, &head, &x);
		if (x.code == CURLE_OK && x.status == 405) {
			/* Some registries refuse HEAD: containerd falls back to GET. */
			exchange_clear(&x);
			struct request get = {M_GET, r->manifest_url, authz, OCI_ACCEPT,
					      NULL,  OCI_MAX_MANIFEST};
			perform(h, t, &get, &x);
		}
		if (x.code != CURLE_OK) {
			transport_failure("HEAD", r->manifest_url, &x, t->timeout_s, r);
			goto out;
		}
		if (x.status == 401 && attempt == 0) {
			free(authz);
			if (!(authz = authorize(h, t, &x, r)))
				goto out;
			exchange_clear(&x);
			continue;
		}
		manifest_result(&x, r);
		break;
	}
out:
	/* Failures found before a request was made have no request to leave out. */
	if (!r->reason && r->detail)
		r->reason = xstrdup(r->detail);
	exchange_clear(&x);
	free(authz);
	curl_easy_cleanup(h);
}
