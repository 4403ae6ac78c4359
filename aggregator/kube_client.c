#include "kube_client.h"
#include "log.h"
#include "netguard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include <openssl/crypto.h>

#include "util.h"

#define PEM_MAX_SIZE   (4u << 20)
#define TOKEN_MAX_SIZE (64u << 10)

/* A bearer token, static or from a file that kubelet (projected service
 * account tokens) or an operator may replace at any time: the file is
 * stat()ed before each request and re-read when it changed. */
struct token_source {
	char *path;
	char *token;
	struct stat st;
};

struct kube_client {
	char *origin;		       /* kubeconfig path or the SA dir, for messages */
	char *server;		       /* as configured, for messages */
	char *base_url;		       /* what requests go to (TLS name substituted) */
	struct curl_slist *connect_to; /* tls-server-name: connect to the real host */
	char *proxy;
	bool insecure;
	char *ca_file, *cert_file, *key_file;
	struct kube_blob ca, cert, key;
	struct token_source token;
	long connect_ms, total_ms, list_limit;
};

static void global_init(void)
{
	static bool done;
	if (!done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			abort();
		done = true;
	}
}

static int read_token(const char *path, char **ret, char *err, size_t errlen)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = util_read_file(path, TOKEN_MAX_SIZE, &buf, &len);
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot read the bearer token: %s", path,
			 r == -EFBIG ? "larger than 64 KiB" : util_read_strerror(r));
		return r;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, errlen, "%s: the bearer token file holds a NUL byte", path);
		return -EINVAL;
	}
	strstrip(buf);
	if (!*buf || strpbrk(buf, "\r\n")) {
		snprintf(err, errlen, "%s: the bearer token file is empty or not one line", path);
		return -EINVAL;
	}
	*ret = buf;
	buf = NULL;
	return 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The current token. A rotated file that cannot be read (mid-rotation, say)
 * leaves the last good token in use; the server decides whether it still
 * works. */
static const char *token_get(struct token_source *t)
{
	if (!t->path)
		return t->token;
	struct stat st;
	if (stat(t->path, &st) < 0 || (t->token && same_file(&st, &t->st)))
		return t->token;
	char err[256];
	char *tok = NULL;
	if (read_token(t->path, &tok, err, sizeof(err)) == 0) {
		if (t->token)
			OPENSSL_cleanse(t->token, strlen(t->token));
		free(t->token);
		t->token = tok;
		t->st = st;
	}
	return t->token;
}

static int read_pem_file(const char *origin, const char *what, const char *path,
			 enum kubeconfig_pem kind, char *err, size_t errlen)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = util_read_file(path, PEM_MAX_SIZE, &buf, &len);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s %s: cannot read: %s", origin, what, path,
			 r == -EFBIG ? "larger than 4 MiB" : util_read_strerror(r));
		return r;
	}
	bool ok = kubeconfig_pem_valid(kind, (const uint8_t *)buf, len);
	OPENSSL_cleanse(buf, len);
	if (!ok) {
		snprintf(err, errlen, "%s: %s %s does not hold a PEM %s", origin, what, path,
			 kind == KUBECONFIG_PEM_KEY ? "private key" : "certificate");
		return -EINVAL;
	}
	return 0;
}

static void blob_copy(struct kube_blob *dst, const struct kube_blob *src)
{
	if (!src->data)
		return;
	dst->data = xmalloc(src->len);
	memcpy(dst->data, src->data, src->len);
	dst->len = src->len;
}

static void blob_clear(struct kube_blob *b)
{
	if (b->data)
		OPENSSL_cleanse(b->data, b->len);
	free(b->data);
	*b = (struct kube_blob){0};
}

/* tls-server-name: requests go to https://NAME:PORT/… (so SNI and the
 * certificate check use NAME) while curl connects to the configured host. */
static int setup_url(struct kube_client *kc, const char *tls_name, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *url = NULL, *ct = NULL;
	int r = -EINVAL;
	if (!u)
		abort();
	if (curl_url_set(u, CURLUPART_URL, kc->server, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
		snprintf(err, errlen, "%s: server \"%s\" is not a valid URL", kc->origin,
			 kc->server);
		goto out;
	}
	if (!tls_name) {
		kc->base_url = xstrdup(kc->server);
		r = 0;
		goto out;
	}
	if (strpbrk(tls_name, ":/[]@ ") ||
	    curl_url_set(u, CURLUPART_HOST, tls_name, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK) {
		snprintf(err, errlen, "%s: tls-server-name \"%s\" is not a host name", kc->origin,
			 tls_name);
		goto out;
	}
	kc->base_url = xstrdup(url);
	size_t n = strlen(kc->base_url);
	while (n > 0 && kc->base_url[n - 1] == '/')
		kc->base_url[--n] = '\0';
	ct = xasprintf("%s:%s:%s:%s", tls_name, port, host, port);
	kc->connect_to = curl_slist_append(NULL, ct);
	if (!kc->connect_to)
		abort();
	r = 0;
out:
	free(ct);
	curl_free(host);
	curl_free(port);
	curl_free(url);
	curl_url_cleanup(u);
	return r;
}

static int env_long(const char *name, long def, long scale, long *ret, char *err, size_t errlen)
{
	const char *v = getenv(name);
	int64_t n;
	*ret = def;
	if (!v || !*v)
		return 0;
	if (util_parse_i64(v, &n) < 0 || n < 1 || n > 86400) {
		snprintf(err, errlen, "%s=\"%s\" is not a whole number between 1 and 86400", name,
			 v);
		return -EINVAL;
	}
	*ret = (long)n * scale;
	return 0;
}

static int read_tunables(struct kube_client *kc, char *err, size_t errlen)
{
	int r = env_long("HVREADY_API_TIMEOUT", KUBE_CLIENT_TIMEOUT_MS, 1000, &kc->total_ms, err,
			 errlen);
	if (r == 0)
		r = env_long("HVREADY_API_CONNECT_TIMEOUT", KUBE_CLIENT_CONNECT_TIMEOUT_MS, 1000,
			     &kc->connect_ms, err, errlen);
	if (r == 0)
		r = env_long("HVREADY_LIST_LIMIT", KUBE_CLIENT_LIST_LIMIT, 1, &kc->list_limit, err,
			     errlen);
	return r;
}

static int check_files(struct kube_client *kc, char *err, size_t errlen)
{
	int r = 0;
	if (kc->ca_file)
		r = read_pem_file(kc->origin, "certificate-authority", kc->ca_file,
				  KUBECONFIG_PEM_CA, err, errlen);
	if (r == 0 && kc->cert_file)
		r = read_pem_file(kc->origin, "client-certificate", kc->cert_file,
				  KUBECONFIG_PEM_CERT, err, errlen);
	if (r == 0 && kc->key_file)
		r = read_pem_file(kc->origin, "client-key", kc->key_file, KUBECONFIG_PEM_KEY, err,
				  errlen);
	if (r == 0 && kc->token.path) {
		/* stat first: a rotation in between is then seen at the next request */
		if (stat(kc->token.path, &kc->token.st) < 0)
			memset(&kc->token.st, 0, sizeof(kc->token.st));
		r = read_token(kc->token.path, &kc->token.token, err, errlen);
	}
	return r;
}

int kube_client_new(const struct kubeconfig *cfg, struct kube_client **ret, char *err,
		    size_t errlen)
{
	global_init();
	struct kube_client *kc = xcalloc(1, sizeof(*kc));
	kc->origin = xstrdup(cfg->origin ? cfg->origin : "kubeconfig");
	kc->server = xstrdup(cfg->server);
	kc->proxy = cfg->proxy_url ? xstrdup(cfg->proxy_url) : NULL;
	kc->insecure = cfg->insecure;
	kc->ca_file = cfg->ca_file ? xstrdup(cfg->ca_file) : NULL;
	kc->cert_file = cfg->cert_file ? xstrdup(cfg->cert_file) : NULL;
	kc->key_file = cfg->key_file ? xstrdup(cfg->key_file) : NULL;
	blob_copy(&kc->ca, &cfg->ca_data);
	blob_copy(&kc->cert, &cfg->cert_data);
	blob_copy(&kc->key, &cfg->key_data);
	if (cfg->token_file)
		kc->token.path = xstrdup(cfg->token_file);
	else if (cfg->token)
		kc->token.token = xstrdup(cfg->token);
	if (kc->token.token && strpbrk(kc->token.token, "\r\n")) {
		snprintf(err, errlen, "%s: the bearer token is not one line", kc->origin);
		kube_client_free(kc);
		return -EINVAL;
	}
	int r = read_tunables(kc, err, errlen);
	if (r == 0)
		r = setup_url(kc, cfg->tls_server_name, err, errlen);
	if (r == 0)
		r = check_files(kc, err, errlen);
	if (r < 0) {
		kube_client_free(kc);
		return r;
	}
	*ret = kc;
	return 0;
}

int kube_client_new_kubeconfig(const char *path, struct kube_client **ret, char *err, size_t errlen)
{
	struct kubeconfig cfg;
	int r = kubeconfig_load(path, NULL, &cfg, err, errlen);
	if (r < 0)
		return r;
	/* Honoured as kubectl does, but said: anyone on the path to the API server
	 * can impersonate it and take the credentials this kubeconfig sends. */
	if (cfg.insecure)
		log_warnx("WARNING: %s sets insecure-skip-tls-verify: true: the API server %s is "
			  "not authenticated and the credentials are sent to whoever answers",
			  path, cfg.server ? cfg.server : "");
	r = kube_client_new(&cfg, ret, err, errlen);
	kubeconfig_clear(&cfg);
	return r;
}

int kube_client_new_in_cluster(struct kube_client **ret, char *err, size_t errlen)
{
	return kube_client_new_in_cluster_token(NULL, ret, err, errlen);
}

int kube_client_new_in_cluster_token(const char *token_file, struct kube_client **ret, char *err,
				     size_t errlen)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST"),
		   *port = getenv("KUBERNETES_SERVICE_PORT");
	const char *dir = getenv("HVREADY_SA_DIR");
	if (!dir || !*dir)
		dir = KUBE_CLIENT_SA_DIR;
	if (!host || !*host || !port || !*port) {
		snprintf(
		    err, errlen,
		    "--in-cluster: KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set: "
		    "not running in a pod (use --kubeconfig FILE)");
		return -ENOENT;
	}
	bool v6 = strchr(host, ':') != NULL;
	struct kubeconfig cfg = {
	    .origin = token_file ? xasprintf("in-cluster API, the token of %s", token_file)
				 : xasprintf("in-cluster service account %s", dir),
	    .server = xasprintf("https://%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port),
	    .ca_file = xasprintf("%s/ca.crt", dir),
	    .token_file = token_file ? xstrdup(token_file) : xasprintf("%s/token", dir),
	};
	int r = kube_client_new(&cfg, ret, err, errlen);
	kubeconfig_clear(&cfg);
	return r;
}

void kube_client_free(struct kube_client *kc)
{
	if (!kc)
		return;
	free(kc->origin);
	free(kc->server);
	free(kc->base_url);
	curl_slist_free_all(kc->connect_to);
	free(kc->proxy);
	free(kc->ca_file);
	free(kc->cert_file);
	free(kc->key_file);
	blob_clear(&kc->ca);
	blob_clear(&kc->cert);
	blob_clear(&kc->key);
	if (kc->token.token)
		OPENSSL_cleanse(kc->token.token, strlen(kc->token.token));
	free(kc->token.token);
	free(kc->token.path);
	free(kc);
}

const char *kube_client_server(const struct kube_client *kc)
{
	return kc ? kc->server : "";
}

const char *kube_client_origin(const struct kube_client *kc)
{
	return kc ? kc->origin : "";
}

void kube_client_set_timeouts(struct kube_client *kc, long connect_ms, long total_ms)
{
	kc->connect_ms = connect_ms;
	kc->total_ms = total_ms;
}

long kube_client_timeout_ms(const struct kube_client *kc)
{
	return kc->total_ms;
}

long kube_client_list_limit(const struct kube_client *kc)
{
	return kc->list_limit;
}

static void set_blob(CURL *c, CURLoption opt, const struct kube_blob *b)
{
	struct curl_blob blob = {.data = b->data, .len = b->len, .flags = CURL_BLOB_COPY};
	curl_easy_setopt(c, opt, &blob);
}

static void setup_tls(struct kube_client *kc, CURL *c)
{
	curl_easy_setopt(c, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	if (kc->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (kc->ca.data) {
		set_blob(c, CURLOPT_CAINFO_BLOB, &kc->ca);
	} else if (kc->ca_file) {
		curl_easy_setopt(c, CURLOPT_CAINFO, kc->ca_file);
	}
	if (kc->cert.data) {
		curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
		set_blob(c, CURLOPT_SSLCERT_BLOB, &kc->cert);
		curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
		set_blob(c, CURLOPT_SSLKEY_BLOB, &kc->key);
	}
	/* Files are given by path so that a renewed certificate is used by the
	 * next connection. */
	if (kc->cert_file)
		curl_easy_setopt(c, CURLOPT_SSLCERT, kc->cert_file);
	if (kc->key_file)
		curl_easy_setopt(c, CURLOPT_SSLKEY, kc->key_file);
}

int kube_client_request_init(struct kube_client *kc, struct kube_request *req, const char *path,
			     char *err, size_t errlen)
{
	*req = (struct kube_request){0};
	req->curl = curl_easy_init();
	if (!req->curl) {
		snprintf(err, errlen, "cannot create a curl handle");
		return -ENOMEM;
	}
	CURL *c = req->curl;
	_cleanup_free_ char *url = xasprintf("%s%s", kc->base_url, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	/* With tls-server-name the URL names the certificate's host and
	 * CONNECT_TO pins the address: guard the socket, not the name. */
	if (!netguard_curl(c, url, !kc->connect_to, err, errlen)) {
		curl_easy_cleanup(c);
		req->curl = NULL;
		return -EPERM;
	}
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, req->errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, kc->connect_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, kc->total_ms);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "hvready-aggregator/" HVREADY_VERSION);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	if (kc->connect_to)
		curl_easy_setopt(c, CURLOPT_CONNECT_TO, kc->connect_to);
	if (kc->proxy)
		curl_easy_setopt(c, CURLOPT_PROXY, kc->proxy);
	setup_tls(kc, c);

	struct curl_slist *h = curl_slist_append(NULL, "Accept: application/json");
	const char *tok = token_get(&kc->token);
	if (h && tok) {
		_cleanup_free_ char *auth = xasprintf("Authorization: Bearer %s", tok);
		struct curl_slist *h2 = curl_slist_append(h, auth);
		OPENSSL_cleanse(auth, strlen(auth));
		h = h2;
	}
	if (!h)
		abort();
	req->headers = h;
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, req->headers);
	return 0;
}

void kube_client_request_clear(struct kube_request *req)
{
	if (req->curl)
		curl_easy_cleanup(req->curl);
	curl_slist_free_all(req->headers);
	*req = (struct kube_request){0};
}

void kube_response_clear(struct kube_response *r)
{
	free(r->body);
	*r = (struct kube_response){0};
}

struct sink {
	char *buf;
	size_t len, cap, max;
	bool too_big;
};

static size_t sink_write(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct sink *s = userdata;
	size_t n = size * nmemb;
	if (n > s->max - s->len) {
		s->too_big = true;
		return 0;
	}
	util_grow((void **)&s->buf, &s->cap, s->len + n + 1, 1);
	memcpy(s->buf + s->len, data, n);
	s->len += n;
	s->buf[s->len] = '\0';
	return n;
}

int kube_client_call(struct kube_client *kc, const char *method, const char *path,
		     const char *content_type, const char *body, size_t body_len, size_t max_body,
		     struct kube_response *ret, char *err, size_t errlen)
{
	struct kube_request req;
	int r = kube_client_request_init(kc, &req, path, err, errlen);
	if (r < 0)
		return r;
	struct sink s = {.max = max_body};
	CURL *c = req.curl;
	if (!streq(method, "GET"))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	}
	if (content_type) {
		_cleanup_free_ char *ct = xasprintf("Content-Type: %s", content_type);
		struct curl_slist *h = curl_slist_append(req.headers, ct);
		if (!h)
			abort();
		req.headers = h;
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, req.headers);
	}
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	CURLcode cr = curl_easy_perform(c);
	if (cr != CURLE_OK) {
		if (s.too_big) {
			snprintf(err, errlen, "%s %s%s: the answer is larger than %zu bytes",
				 method, kc->server, path, max_body);
			r = -EFBIG;
		} else {
			snprintf(err, errlen, "%s %s%s: %s", method, kc->server, path,
				 req.errbuf[0] ? req.errbuf : curl_easy_strerror(cr));
			r = cr == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -ECONNREFUSED;
		}
		free(s.buf);
		kube_client_request_clear(&req);
		return r;
	}
	*ret = (struct kube_response){.body = s.buf ? s.buf : xstrdup(""), .len = s.len};
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &ret->status);
	kube_client_request_clear(&req);
	return 0;
}

char *kube_client_status_message(const char *body, size_t len)
{
	if (!body || len == 0)
		return xstrdup("");
	if (len > 65536)
		len = 65536;
	json_tokener *tok = json_tokener_new();
	if (!tok)
		abort();
	json_object *o = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	json_object *m = NULL;
	char *ret;
	if (o && json_object_object_get_ex(o, "message", &m) &&
	    json_object_is_type(m, json_type_string))
		ret = xstrdup(json_object_get_string(m));
	else {
		size_t n = 0;
		while (n < len && n < 200 && body[n] != '\n' && body[n] != '\r' && body[n])
			n++;
		ret = xstrndup(body, n);
	}
	json_object_put(o);
	for (char *p = ret; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	return ret;
}

#define KUBE_JSON_MAX_BODY (16u << 20)

json_object *kube_object_new(const char *api_version, const char *kind, const char *ns,
			     const char *name, json_object **ret_meta)
{
	json_object *o = json_object_new_object(), *meta = json_object_new_object();
	json_object_object_add(o, "apiVersion", json_object_new_string(api_version));
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(meta, "name", json_object_new_string(name));
	if (ns)
		json_object_object_add(meta, "namespace", json_object_new_string(ns));
	json_object_object_add(o, "metadata", meta);
	if (ret_meta)
		*ret_meta = meta;
	return o;
}

int kube_client_json(struct kube_client *kc, const char *method, const char *path,
		     json_object *body, long *status, json_object **ret, char *err, size_t errlen)
{
	const char *text =
	    body ? json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN) : NULL;
	struct kube_response resp = {0};
	if (status)
		*status = 0;
	if (ret)
		*ret = NULL;
	int r = kube_client_call(kc, method, path, text ? "application/json" : NULL, text,
				 text ? strlen(text) : 0, KUBE_JSON_MAX_BODY, &resp, err, errlen);
	if (r < 0)
		return r;
	if (status)
		*status = resp.status;
	if (resp.status >= 200 && resp.status < 300) {
		if (ret)
			*ret = json_tokener_parse(resp.body);
		kube_response_clear(&resp);
		return 0;
	}
	_cleanup_free_ char *msg = kube_client_status_message(resp.body, resp.len);
	snprintf(err, errlen, "%s %s: HTTP %ld%s%s", method, path, resp.status, *msg ? ": " : "",
		 msg);
	r = resp.status == 404 ? -ENOENT : resp.status == 409 ? -EEXIST : -EIO;
	kube_response_clear(&resp);
	return r;
}
