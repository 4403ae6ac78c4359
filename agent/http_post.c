#include "http_post.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "netguard.h"

#define MAX_REPLY_HEADERS (64u << 10)
#define MAX_ADDRS	  8

struct target {
	bool tls;
	char host[256]; /* without brackets: for the lookup and the certificate */
	char *host_header;
	char *path; /* with the query */
	char port[12];
	char addrs[MAX_ADDRS][INET6_ADDRSTRLEN]; /* what we may connect to, in order */
	size_t n_addrs;
	bool host_is_ip;
};

/* What one exchange leaves behind; filled by the libevent callbacks. */
struct exchange {
	struct event_base *base;
	const struct http_post_request *rq;
	struct evhttp_request *req; /* until it is handed to evhttp's callbacks */
	int64_t sent_at;	    /* monotonic, when the body was (re)stamped */
	bool done, deadline_hit;
	int http_error; /* 1 + enum evhttp_request_error; 0: none */
	int sock_errno; /* errno when evhttp reported the error */
	int status;
	char *body;
	size_t len;
};

static void target_clear(struct target *t)
{
	free(t->host_header);
	free(t->path);
}

static int parse_url(const char *url, struct target *t, char *err, size_t errlen)
{
	struct evhttp_uri *u = evhttp_uri_parse_with_flags(url, 0);
	const char *scheme = u ? evhttp_uri_get_scheme(u) : NULL;
	const char *host = u ? evhttp_uri_get_host(u) : NULL;
	int r = -EINVAL;
	if (!u || !scheme || (!strcaseeq(scheme, "http") && !strcaseeq(scheme, "https"))) {
		snprintf(err, errlen, "%s: not an http:// or https:// URL", url);
		goto out;
	}
	if (!host || !*host) {
		snprintf(err, errlen, "%s: no host in the URL", url);
		goto out;
	}
	if (evhttp_uri_get_userinfo(u)) {
		snprintf(err, errlen, "%s: credentials in the URL are not supported", url);
		goto out;
	}
	t->tls = strcaseeq(scheme, "https");
	size_t hl = strlen(host);
	bool bracketed = host[0] == '[' && hl >= 2 && host[hl - 1] == ']';
	if (hl >= sizeof(t->host) + (bracketed ? 2 : 0)) {
		snprintf(err, errlen, "%s: host name too long", url);
		goto out;
	}
	snprintf(t->host, sizeof(t->host), "%.*s", (int)(bracketed ? hl - 2 : hl),
		 bracketed ? host + 1 : host);
	unsigned char a[16];
	t->host_is_ip = inet_pton(AF_INET, t->host, a) == 1 || inet_pton(AF_INET6, t->host, a) == 1;
	int port = evhttp_uri_get_port(u);
	if (port == 0) {
		snprintf(err, errlen, "%s: port 0", url);
		goto out;
	}
	int dflt = t->tls ? 443 : 80;
	snprintf(t->port, sizeof(t->port), "%d", port > 0 ? port : dflt);
	t->host_header = port > 0 && port != dflt ? xasprintf("%s:%d", host, port) : xstrdup(host);
	const char *path = evhttp_uri_get_path(u), *query = evhttp_uri_get_query(u);
	t->path =
	    xasprintf("%s%s%s", path && *path ? path : "/", query ? "?" : "", query ? query : "");
	r = 0;
out:
	if (u)
		evhttp_uri_free(u);
	return r;
}

/* The host's addresses that netguard allows, as numeric strings (evhttp
 * then connects without a lookup of its own), in getaddrinfo()'s order. */
static int resolve(const char *url, struct target *t, char *err, size_t errlen)
{
	if (!netguard_host_allowed(t->host)) {
		snprintf(err, errlen, "%s: not contacted (tests allow only %s)", url,
			 getenv(NETGUARD_ENV));
		return -EPERM;
	}
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_ADDRCONFIG | (t->host_is_ip ? AI_NUMERICHOST : 0)};
	struct addrinfo *res = NULL;
	int g = getaddrinfo(t->host, t->port, &hints, &res);
	if (g != 0) {
		snprintf(err, errlen, "%s: cannot resolve %s: %s", url, t->host,
			 g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
		return -EHOSTUNREACH;
	}
	for (struct addrinfo *ai = res; ai && t->n_addrs < MAX_ADDRS; ai = ai->ai_next)
		if (netguard_addr_allowed(ai->ai_addr) &&
		    getnameinfo(ai->ai_addr, ai->ai_addrlen, t->addrs[t->n_addrs],
				sizeof(t->addrs[0]), NULL, 0, NI_NUMERICHOST) == 0)
			t->n_addrs++;
	freeaddrinfo(res);
	if (!t->n_addrs) {
		snprintf(err, errlen, "%s: no address of %s may be contacted (tests allow only %s)",
			 url, t->host, getenv(NETGUARD_ENV));
		return -EPERM;
	}
	return 0;
}

/* OpenSSL's reason for the oldest error in its queue, or NULL. */
static const char *ssl_reason(unsigned long e, char *buf, size_t len)
{
	if (!e)
		return NULL;
	ERR_error_string_n(e, buf, len);
	return buf;
}

static SSL_CTX *tls_context(const char *url, const char *ca_file, int *ret_err, char *err,
			    size_t errlen)
{
	char why[256];
	ERR_clear_error();
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx) {
		snprintf(err, errlen, "%s: cannot set up TLS: %s", url,
			 ssl_reason(ERR_get_error(), why, sizeof(why))
			     ?: "the OpenSSL libraries could not be loaded");
		*ret_err = -ENOTSUP;
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* OpenSSL opens the bundle by path: only a regular file is handed to it,
	 * a FIFO with no writer would block this post for good. */
	int bad = ca_file ? util_path_regular(ca_file) : 0;
	if (bad < 0) {
		snprintf(err, errlen, "--ca-file %s: no CA certificate could be read (%s)", ca_file,
			 util_read_strerror(bad));
		SSL_CTX_free(ctx);
		*ret_err = -EINVAL;
		return NULL;
	}
	int ok = ca_file ? SSL_CTX_load_verify_locations(ctx, ca_file, NULL)
			 : SSL_CTX_set_default_verify_paths(ctx);
	if (ok != 1) {
		const char *r = ssl_reason(ERR_get_error(), why, sizeof(why));
		if (ca_file)
			snprintf(err, errlen, "--ca-file %s: no CA certificate could be read (%s)",
				 ca_file, r ?: "no reason given");
		else
			snprintf(err, errlen, "%s: cannot load the system's trust store (%s)", url,
				 r ?: "no reason given");
		SSL_CTX_free(ctx);
		*ret_err = -EINVAL;
		return NULL;
	}
	return ctx;
}

/* A TLS session for this host: SNI for names, and the name or address the
 * certificate must carry. */
static SSL *tls_session(SSL_CTX *ctx, const struct target *t)
{
	SSL *ssl = SSL_new(ctx);
	if (!ssl)
		return NULL;
	bool ok;
	if (t->host_is_ip) {
		ok = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), t->host) == 1;
	} else {
		SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
		ok =
		    SSL_set1_host(ssl, t->host) == 1 && SSL_set_tlsext_host_name(ssl, t->host) == 1;
	}
	if (!ok) {
		SSL_free(ssl);
		return NULL;
	}
	return ssl;
}

static void on_error(enum evhttp_request_error e, void *arg)
{
	struct exchange *x = arg;
	x->req = NULL;
	x->http_error = (int)e + 1;
	x->sock_errno = errno;
}

static void on_reply(struct evhttp_request *req, void *arg)
{
	struct exchange *x = arg;
	x->done = true;
	x->req = NULL;
	int code = req ? evhttp_request_get_response_code(req) : 0;
	if (code > 0 && !x->http_error) {
		struct evbuffer *in = evhttp_request_get_input_buffer(req);
		size_t n = evbuffer_get_length(in);
		x->status = code;
		if (n) {
			x->body = xmalloc(n + 1);
			evbuffer_remove(in, x->body, n);
			x->body[n] = '\0';
			x->len = n;
		}
	}
	event_base_loopbreak(x->base);
}

/* Put the body into the request, restamped now. */
static void fill_body(struct exchange *x, struct evbuffer *out)
{
	const struct http_post_request *rq = x->rq;
	char *body = NULL;
	size_t len = 0;
	if (rq->restamp)
		rq->restamp(rq->restamp_arg, &body, &len);
	evbuffer_drain(out, evbuffer_get_length(out));
	evbuffer_add(out, body ? body : rq->body, body ? len : rq->len);
	free(body);
	x->sent_at = util_now_mono_ns();
}

/* The TLS handshake is done: evhttp writes the request next (its connect
 * callback is deferred), so the body is stamped here. */
static void on_tls_info(const SSL *ssl, int where, int ret)
{
	struct exchange *x = SSL_get_ex_data(ssl, 0);
	if (!(where & SSL_CB_HANDSHAKE_DONE) || !x || !x->req || x->sent_at)
		return;
	fill_body(x, evhttp_request_get_output_buffer(x->req));
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct exchange *x = arg;
	x->deadline_hit = true;
	event_base_loopbreak(x->base);
}

static bool unreachable(int e)
{
	return e == ENETUNREACH || e == EHOSTUNREACH || e == EADDRNOTAVAIL;
}

/* Why the exchange failed, from what the callbacks and OpenSSL saw. */
static int failure(const struct http_post_request *rq, const struct exchange *x, SSL *ssl,
		   struct bufferevent *bev, int64_t elapsed_ns, char *err, size_t errlen)
{
	char why[256];
	long vr = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
	if (vr != X509_V_OK) {
		snprintf(err, errlen, "%s: TLS: the server's certificate is not trusted: %s%s",
			 rq->url, X509_verify_cert_error_string(vr),
			 rq->ca_file ? "" : " (no --ca-file: the system's trust store was used)");
		return -EPROTO;
	}
	const char *tls =
	    bev ? ssl_reason(bufferevent_get_openssl_error(bev), why, sizeof(why)) : NULL;
	if (tls) {
		snprintf(err, errlen, "%s: TLS: %s", rq->url, tls);
		return -EPROTO;
	}
	if (x->deadline_hit || x->http_error == EVREQ_HTTP_TIMEOUT + 1) {
		snprintf(err, errlen, "%s: no complete reply within %ds", rq->url,
			 x->deadline_hit ? 2 * rq->timeout_s : rq->timeout_s);
		return -ETIMEDOUT;
	}
	/* evhttp ends a refused connection attempt and one that timed out (TCP,
	 * or the TLS handshake) alike: the request callback without an error
	 * code, and errno already overwritten. The time tells them apart. */
	if (!x->http_error) {
		if (elapsed_ns >= rq->timeout_s * NSEC_PER_SEC - 50 * NSEC_PER_MSEC) {
			snprintf(err, errlen,
				 "%s: no connection within %ds (TCP connect or TLS handshake)",
				 rq->url, rq->timeout_s);
			return -ETIMEDOUT;
		}
		snprintf(err, errlen, "%s: connection refused", rq->url);
		return -ECONNREFUSED;
	}
	switch (x->http_error - 1) {
	case EVREQ_HTTP_DATA_TOO_LONG:
		snprintf(err, errlen, "%s: reply larger than %zu bytes", rq->url, rq->max_reply);
		return -EMSGSIZE;
	case EVREQ_HTTP_INVALID_HEADER:
		snprintf(err, errlen, "%s: malformed HTTP reply", rq->url);
		return -EIO;
	case EVREQ_HTTP_EOF:
		if (unreachable(x->sock_errno)) {
			snprintf(err, errlen, "%s: cannot connect: %s", rq->url,
				 strerror(x->sock_errno));
			return -x->sock_errno;
		}
		snprintf(err, errlen, "%s: connection closed before a complete reply%s%s", rq->url,
			 x->sock_errno ? ": " : "", x->sock_errno ? strerror(x->sock_errno) : "");
		return -EIO;
	default:
		snprintf(err, errlen, "%s: no reply (%s)", rq->url,
			 x->sock_errno ? strerror(x->sock_errno) : "the exchange failed");
		return -EIO;
	}
}

static void add_headers(struct evkeyvalq *h, const struct http_post_request *rq,
			const struct target *t)
{
	evhttp_add_header(h, "Host", t->host_header);
	evhttp_add_header(h, "Content-Type", rq->content_type);
	if (rq->accept)
		evhttp_add_header(h, "Accept", rq->accept);
	if (rq->bearer) {
		_cleanup_free_ char *auth = xasprintf("Bearer %s", rq->bearer);
		evhttp_add_header(h, "Authorization", auth);
	}
	for (const char *const *p = rq->headers; p && p[0] && p[1]; p += 2)
		evhttp_add_header(h, p[0], p[1]);
	/* One request per connection: the agent reports once an interval, and the
	 * aggregator closes idle connections long before that. */
	evhttp_add_header(h, "Connection", "close");
}

/* Whether the next address is worth a try: this one refused or could not be
 * routed to (nothing was sent). A timeout is not: the time is spent. */
static bool try_next(int r)
{
	return r == -ECONNREFUSED || unreachable(-r);
}

/* One exchange with one address, until deadline_ns (monotonic). */
static int attempt(const struct http_post_request *rq, const struct target *t, const char *addr,
		   SSL_CTX *ctx, struct event_base *base, int64_t deadline_ns,
		   struct http_post_reply *ret, bool *ret_next, char *err, size_t errlen)
{
	struct exchange x = {.base = base, .rq = rq};
	SSL *ssl = NULL;
	struct bufferevent *bev = NULL;
	struct evhttp_connection *conn = NULL;
	struct event *deadline = NULL;
	int r;
	*ret_next = false;
	if (ctx) {
		ssl = tls_session(ctx, t);
		bev = ssl ? bufferevent_openssl_socket_new(
				base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
				BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS)
			  : NULL;
		if (!bev) {
			if (ssl)
				SSL_free(ssl);
			snprintf(err, errlen, "%s: cannot set up a TLS session for %s", rq->url,
				 t->host);
			return -ENOMEM;
		}
		/* Servers (evhttp among them) often close without close_notify; the
		 * reply's Content-Length still tells a complete body from a cut one. */
		bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
		SSL_set_ex_data(ssl, 0, &x);
		SSL_set_info_callback(ssl, on_tls_info);
	}
	/* The connection owns bev (and bev the SSL) from here on. */
	conn = evhttp_connection_base_bufferevent_new(base, NULL, bev, addr,
						      (unsigned short)atoi(t->port));
	if (!conn) {
		if (bev)
			bufferevent_free(bev);
		snprintf(err, errlen, "%s: cannot create an HTTP connection", rq->url);
		return -ENOMEM;
	}
	evhttp_connection_set_timeout(conn, rq->timeout_s);
	evhttp_connection_set_max_body_size(conn, (ev_ssize_t)rq->max_reply);
	evhttp_connection_set_max_headers_size(conn, MAX_REPLY_HEADERS);
	int64_t t0 = util_now_mono_ns();
	struct evhttp_request *req = evhttp_request_new(on_reply, &x);
	evhttp_request_set_error_cb(req, on_error);
	add_headers(evhttp_request_get_output_headers(req), rq, t);
	if (ctx) {
		/* Restamped by on_tls_info() once the handshake is done. */
		evbuffer_add(evhttp_request_get_output_buffer(req), rq->body, rq->len);
		x.req = req;
	} else {
		fill_body(&x, evhttp_request_get_output_buffer(req));
	}
	if (evhttp_make_request(conn, req, EVHTTP_REQ_POST, t->path) < 0) {
		/* evhttp freed the request. */
		snprintf(err, errlen, "%s: cannot send the request", rq->url);
		r = -EIO;
		goto out;
	}
	deadline = evtimer_new(base, on_deadline, &x);
	int64_t left = deadline_ns - util_now_mono_ns();
	left = left > 0 ? left : 0;
	struct timeval tv = {(time_t)(left / NSEC_PER_SEC),
			     (suseconds_t)(left % NSEC_PER_SEC / 1000)};
	evtimer_add(deadline, &tv);
	while (!x.done && !x.deadline_hit)
		if (event_base_dispatch(base) < 0)
			break;
	if (x.status > 0) {
		ret->status = x.status;
		ret->body = x.body;
		ret->len = x.len;
		ret->rtt_ns = util_now_mono_ns() - (x.sent_at ? x.sent_at : t0);
		x.body = NULL;
		r = 0;
	} else {
		r = failure(rq, &x, ssl, bev, util_now_mono_ns() - t0, err, errlen);
		*ret_next = try_next(r);
	}
out:
	if (deadline)
		event_free(deadline);
	evhttp_connection_free(conn); /* with a request still pending */
	free(x.body);
	return r;
}

int http_post_run(const struct http_post_request *rq, struct http_post_reply *ret, char *err,
		  size_t errlen)
{
	*ret = (struct http_post_reply){0};
	struct target t = {0};
	SSL_CTX *ctx = NULL;
	struct event_base *base = NULL;
	int r = parse_url(rq->url, &t, err, errlen);
	if (r < 0)
		goto out;
	r = resolve(rq->url, &t, err, errlen);
	if (r < 0)
		goto out;
	int64_t t0 = util_now_mono_ns();
	base = event_base_new();
	if (!base) {
		snprintf(err, errlen, "%s: cannot create an event loop", rq->url);
		r = -ENOMEM;
		goto out;
	}
	if (t.tls && !(ctx = tls_context(rq->url, rq->ca_file, &r, err, errlen)))
		goto out;
	bool next = true;
	for (size_t i = 0; i < t.n_addrs && next; i++)
		r = attempt(rq, &t, t.addrs[i], ctx, base, t0 + 2 * rq->timeout_s * NSEC_PER_SEC,
			    ret, &next, err, errlen);
out:
	if (ctx)
		SSL_CTX_free(ctx);
	if (base)
		event_base_free(base);
	target_clear(&t);
	return r;
}

void http_post_reply_clear(struct http_post_reply *r)
{
	free(r->body);
	*r = (struct http_post_reply){0};
}

bool http_post_url_exposes_token(const char *url)
{
	struct evhttp_uri *u = url ? evhttp_uri_parse_with_flags(url, 0) : NULL;
	const char *scheme = u ? evhttp_uri_get_scheme(u) : NULL;
	const char *host = u ? evhttp_uri_get_host(u) : NULL;
	bool exposed = false;
	if (scheme && strcaseeq(scheme, "http") && host) {
		char h[256];
		size_t hl = strlen(host);
		bool br = hl >= 2 && host[0] == '[' && host[hl - 1] == ']';
		snprintf(h, sizeof(h), "%.*s", (int)(br ? hl - 2 : hl), br ? host + 1 : host);
		struct in_addr a4;
		struct in6_addr a6;
		bool loopback =
		    strcaseeq(h, "localhost") || endswith(h, ".localhost") ||
		    (inet_pton(AF_INET, h, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127) ||
		    (inet_pton(AF_INET6, h, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6));
		exposed = !loopback;
	}
	if (u)
		evhttp_uri_free(u);
	return exposed;
}
