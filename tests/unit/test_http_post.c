/* http_post_run() against a one-shot server in a thread of this test: plain HTTP
 * and TLS (OpenSSL, certificates made with the openssl command), the request as
 * the server saw it, SNI, and every way the exchange can fail. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "http_post.h"
#include "loopback.h"

static char dir[64];

/* ---- the server ---- */

struct srv {
	int lfd, port;
	SSL_CTX *tls; /* NULL: plain */
	const char *reply;
	size_t reply_len; /* 0 with reply NULL: close without a reply */
	bool greet;	  /* write the reply at once, without reading a request */
	char req[16384];
	size_t req_len;
	char sni[256];
	bool sni_seen;
	pthread_t th;
};

static int sni_cb(SSL *ssl, int *al, void *arg)
{
	struct srv *s = arg;
	const char *n = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
	if (n) {
		snprintf(s->sni, sizeof(s->sni), "%s", n);
		s->sni_seen = true;
	}
	return SSL_TLSEXT_ERR_OK;
}

static bool request_complete(const char *r, size_t len)
{
	const char *end = memmem(r, len, "\r\n\r\n", 4);
	if (!end)
		return false;
	const char *cl = strcasestr(r, "\r\nContent-Length:");
	size_t body = cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0;
	return len >= (size_t)(end + 4 - r) + body;
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	struct pollfd p = {.fd = s->lfd, .events = POLLIN};
	if (poll(&p, 1, 10000) != 1)
		return NULL;
	int fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	struct timeval tv = {10, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	SSL *ssl = NULL;
	if (s->tls) {
		ssl = SSL_new(s->tls);
		SSL_set_fd(ssl, fd);
		if (SSL_accept(ssl) != 1)
			goto out;
	}
	while (!s->greet && !request_complete(s->req, s->req_len)) {
		size_t room = sizeof(s->req) - 1 - s->req_len;
		int n = ssl ? SSL_read(ssl, s->req + s->req_len, (int)room)
			    : (int)read(fd, s->req + s->req_len, room);
		if (n <= 0)
			break;
		s->req_len += (size_t)n;
		s->req[s->req_len] = '\0';
	}
	if (s->reply) {
		if (ssl)
			SSL_write(ssl, s->reply, (int)s->reply_len);
		else if (write(fd, s->reply, s->reply_len) < 0)
			goto out;
	}
out:
	if (ssl) {
		SSL_shutdown(ssl);
		SSL_free(ssl);
	}
	close(fd);
	return NULL;
}

static SSL_CTX *server_tls(const char *name)
{
	char crt[128], key[128];
	snprintf(crt, sizeof(crt), "%s/%s.crt", dir, name);
	snprintf(key, sizeof(key), "%s/%s.key", dir, name);
	SSL_CTX *c = SSL_CTX_new(TLS_server_method());
	assert_int_equal(SSL_CTX_use_certificate_chain_file(c, crt), 1);
	assert_int_equal(SSL_CTX_use_PrivateKey_file(c, key, SSL_FILETYPE_PEM), 1);
	return c;
}

/* Start a server; cert NULL for plain HTTP. */
static void srv_start_greeting(struct srv *s, const char *cert, const char *reply, bool greet)
{
	memset(s, 0, sizeof(*s));
	s->greet = greet;
	s->lfd = loopback_socket(4, &s->port);
	s->reply = reply;
	s->reply_len = reply ? strlen(reply) : 0;
	if (cert) {
		s->tls = server_tls(cert);
		SSL_CTX_set_tlsext_servername_callback(s->tls, sni_cb);
		SSL_CTX_set_tlsext_servername_arg(s->tls, s);
	}
	assert_int_equal(pthread_create(&s->th, NULL, srv_main, s), 0);
}

static void srv_start(struct srv *s, const char *cert, const char *reply)
{
	srv_start_greeting(s, cert, reply, false);
}

static void srv_stop(struct srv *s)
{
	pthread_join(s->th, NULL);
	close(s->lfd);
	if (s->tls)
		SSL_CTX_free(s->tls);
}

/* ---- the client ---- */

static const char *const extra[] = {"Hvready-Last-Rtt-Ns", "1234", NULL};

static int post(const char *url, const char *ca, int timeout, size_t max, struct http_post_reply *r,
		char *err, size_t errlen)
{
	struct http_post_request rq = {
	    .url = url,
	    .ca_file = ca,
	    .content_type = "application/msgpack",
	    .accept = "application/json",
	    .bearer = "s3cret",
	    .headers = extra,
	    .body = "\x81\xa1k\xa1v",
	    .len = 5,
	    .timeout_s = timeout,
	    .max_reply = max,
	};
	err[0] = '\0';
	return http_post_run(&rq, r, err, errlen);
}

static const char ok_reply[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
			       "Content-Length: 11\r\n\r\n{\"a\": true}";

static void test_plain_ok(void **state)
{
	struct srv s;
	srv_start(&s, NULL, ok_reply);
	char url[128], err[512];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/reports?x=1", s.port);
	struct http_post_reply r;
	assert_int_equal(post(url, NULL, 5, 1024, &r, err, sizeof(err)), 0);
	srv_stop(&s);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.len, 11);
	assert_string_equal(r.body, "{\"a\": true}");
	assert_true(r.rtt_ns > 0);
	/* The request as the server saw it. */
	assert_non_null(strstr(s.req, "POST /v1/reports?x=1 HTTP/1.1\r\n"));
	char host[64];
	snprintf(host, sizeof(host), "\r\nHost: 127.0.0.1:%d\r\n", s.port);
	assert_non_null(strstr(s.req, host));
	assert_non_null(strstr(s.req, "\r\nContent-Type: application/msgpack\r\n"));
	assert_non_null(strstr(s.req, "\r\nAccept: application/json\r\n"));
	assert_non_null(strstr(s.req, "\r\nAuthorization: Bearer s3cret\r\n"));
	assert_non_null(strstr(s.req, "\r\nHvready-Last-Rtt-Ns: 1234\r\n"));
	assert_non_null(strstr(s.req, "\r\nConnection: close\r\n"));
	assert_non_null(strstr(s.req, "\r\nContent-Length: 5\r\n"));
	assert_memory_equal(s.req + s.req_len - 5, "\x81\xa1k\xa1v", 5);
	http_post_reply_clear(&r);
}

static void test_plain_status_and_empty_body(void **state)
{
	struct srv s;
	srv_start(&s, NULL, "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
	char url[128], err[512];
	snprintf(url, sizeof(url), "http://localhost:%d", s.port);
	struct http_post_reply r;
	assert_int_equal(post(url, NULL, 5, 1024, &r, err, sizeof(err)), 0);
	srv_stop(&s);
	assert_int_equal(r.status, 401);
	assert_null(r.body);
	assert_non_null(strstr(s.req, "POST / HTTP/1.1\r\n"));
	char host[64];
	snprintf(host, sizeof(host), "\r\nHost: localhost:%d\r\n", s.port);
	assert_non_null(strstr(s.req, host));
	http_post_reply_clear(&r);
}

static void test_reply_too_large(void **state)
{
	static char big[4096];
	int n = snprintf(big, sizeof(big), "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n");
	memset(big + n, 'x', 2000);
	big[n + 2000] = '\0';
	struct srv s;
	srv_start(&s, NULL, big);
	char url[128], err[512];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", s.port);
	struct http_post_reply r;
	assert_int_equal(post(url, NULL, 5, 100, &r, err, sizeof(err)), -EMSGSIZE);
	srv_stop(&s);
	assert_non_null(strstr(err, "reply larger than 100 bytes"));
	assert_null(r.body);
}

static void test_closed_without_reply(void **state)
{
	struct srv s;
	srv_start(&s, NULL, NULL);
	char url[128], err[512];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", s.port);
	struct http_post_reply r;
	assert_int_equal(post(url, NULL, 5, 100, &r, err, sizeof(err)), -EIO);
	srv_stop(&s);
	assert_non_null(strstr(err, "connection closed before a complete reply"));
}

static void test_malformed_reply(void **state)
{
	struct srv s;
	srv_start(&s, NULL, "this is not HTTP\r\n\r\n");
	char url[128], err[512];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", s.port);
	struct http_post_reply r;
	int rc = post(url, NULL, 5, 100, &r, err, sizeof(err));
	srv_stop(&s);
	assert_int_equal(rc, -EIO);
	assert_non_null(strstr(err, url));
}

static void test_refused(void **state)
{
	int port;
	close(loopback_socket(4, &port));
	char url[128], err[512];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	struct http_post_reply r;
	assert_int_equal(post(url, NULL, 5, 100, &r, err, sizeof(err)), -ECONNREFUSED);
	assert_non_null(strstr(err, "connection refused"));
}

/* Accepted by the kernel (backlog), never answered: the read times out. */
static void test_silent_server(void **state)
{
	int port, fd = loopback_socket(4, &port);
	char url[128], err[512];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	struct http_post_reply r;
	int64_t t0 = util_now_mono_ns();
	assert_int_equal(post(url, NULL, 1, 100, &r, err, sizeof(err)), -ETIMEDOUT);
	int64_t took = util_now_mono_ns() - t0;
	close(fd);
	assert_non_null(strstr(err, "no complete reply within"));
	assert_true(took >= NSEC_PER_SEC - 100 * NSEC_PER_MSEC);
	assert_true(took < 5 * NSEC_PER_SEC);
}

static void test_bad_urls(void **state)
{
	static const char *const bad[] = {"ftp://127.0.0.1/", "http://", "127.0.0.1:8080",
					  "https://user:pw@127.0.0.1/", "http://127.0.0.1:0/"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		char err[512];
		struct http_post_reply r;
		assert_int_equal(post(bad[i], NULL, 1, 100, &r, err, sizeof(err)), -EINVAL);
		assert_true(strlen(err) > 0);
	}
}

/* ctest sets HVREADY_TEST_NET_ALLOW to loopback: nothing else is contacted,
 * and no name but localhost is even looked up. */
static void test_netguard(void **state)
{
	if (!getenv("HVREADY_TEST_NET_ALLOW"))
		setenv("HVREADY_TEST_NET_ALLOW", "127.0.0.0/8", 1);
	char err[512];
	struct http_post_reply r;
	assert_int_equal(post("http://192.0.2.1/", NULL, 1, 100, &r, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "not contacted"));
	assert_int_equal(
	    post("https://aggregator.example.invalid/", NULL, 1, 100, &r, err, sizeof(err)),
	    -EPERM);
}

/* ---- TLS ---- */

static char *path(const char *name)
{
	static char p[4][128];
	static int i;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

/* POST to the started server s over TLS, reached as host, trusting ca (NULL:
 * the system's store); s is stopped when this returns. */
static int tls_post(struct srv *s, const char *host, const char *ca, struct http_post_reply *r,
		    char *err, size_t errlen)
{
	char url[128];
	snprintf(url, sizeof(url), "https://%s:%d/v1/reports", host, s->port);
	int rc = post(url, ca, 5, 1024, r, err, errlen);
	srv_stop(s);
	return rc;
}

static void test_tls_name_ok_with_sni(void **state)
{
	struct srv s;
	srv_start(&s, "by-name", ok_reply);
	char err[512];
	struct http_post_reply r;
	int rc = tls_post(&s, "localhost", path("ca.crt"), &r, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "{\"a\": true}");
	assert_true(s.sni_seen);
	assert_string_equal(s.sni, "localhost");
	assert_non_null(strstr(s.req, "\r\nAuthorization: Bearer s3cret\r\n"));
	http_post_reply_clear(&r);
}

static void test_tls_ip_ok_without_sni(void **state)
{
	struct srv s;
	srv_start(&s, "by-ip", ok_reply);
	char err[512];
	struct http_post_reply r;
	int rc = tls_post(&s, "127.0.0.1", path("ca.crt"), &r, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_int_equal(r.status, 200);
	assert_false(s.sni_seen); /* RFC 6066: no SNI for an IP address */
	http_post_reply_clear(&r);
}

static void refused_tls(const char *cert, const char *host, const char *ca, const char *want)
{
	struct srv s;
	srv_start(&s, cert, ok_reply);
	char err[512];
	struct http_post_reply r;
	int rc = tls_post(&s, host, ca, &r, err, sizeof(err));
	assert_int_equal(rc, -EPROTO);
	if (!strstr(err, want))
		fail_msg("expected \"%s\" in \"%s\"", want, err);
	assert_int_equal(s.req_len, 0); /* nothing was sent */
}

struct stamp {
	int calls;
	struct srv *s;
	bool sni_seen_then; /* the handshake had started when the body was stamped */
};

static void restamp(void *arg, char **ret_body, size_t *ret_len)
{
	struct stamp *st = arg;
	st->calls++;
	st->sni_seen_then = st->s->sni_seen;
	*ret_body = xstrdup("restamped body");
	*ret_len = strlen("restamped body");
}

/* The body is stamped once, when the request goes out: over TLS after the
 * handshake has begun (the server saw the SNI), and what the server gets is
 * the stamped body. */
static void test_restamp(void **state)
{
	for (int tls = 0; tls < 2; tls++) {
		struct srv s;
		srv_start(&s, tls ? "by-name" : NULL, ok_reply);
		struct stamp st = {.s = &s};
		char url[128], err[512];
		snprintf(url, sizeof(url), "%s://localhost:%d/", tls ? "https" : "http", s.port);
		struct http_post_request rq = {
		    .url = url,
		    .ca_file = tls ? path("ca.crt") : NULL,
		    .content_type = "text/plain",
		    .body = "original",
		    .len = 8,
		    .timeout_s = 5,
		    .max_reply = 1024,
		    .restamp = restamp,
		    .restamp_arg = &st,
		};
		struct http_post_reply r;
		int rc = http_post_run(&rq, &r, err, sizeof(err));
		srv_stop(&s);
		assert_int_equal(rc, 0);
		assert_int_equal(st.calls, 1);
		assert_int_equal(st.sni_seen_then, tls);
		assert_non_null(strstr(s.req, "\r\nContent-Length: 14\r\n"));
		assert_memory_equal(s.req + s.req_len - 14, "restamped body", 14);
		assert_null(strstr(s.req, "original"));
		http_post_reply_clear(&r);
	}
}

static void test_tls_untrusted_ca(void **state)
{
	refused_tls("by-name", "localhost", path("rogue.crt"),
		    "not trusted: unable to get local issuer certificate");
}

static void test_tls_hostname_mismatch(void **state)
{
	refused_tls("by-ip", "localhost", path("ca.crt"), "not trusted: hostname mismatch");
}

static void test_tls_ip_mismatch(void **state)
{
	refused_tls("by-name", "127.0.0.1", path("ca.crt"), "not trusted: IP address mismatch");
}

static void test_tls_self_signed_not_in_store(void **state)
{
	/* No --ca-file: the system's trust store, which does not hold the test CA. */
	refused_tls("by-name", "localhost", NULL, "the system's trust store was used");
}

static void test_tls_ca_file_unreadable(void **state)
{
	char err[512];
	struct http_post_reply r;
	assert_int_equal(
	    post("https://127.0.0.1:1/", path("missing.crt"), 1, 100, &r, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "no CA certificate could be read"));
}

static void test_tls_to_plain_server(void **state)
{
	struct srv s;
	srv_start_greeting(&s, NULL, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", true);
	char err[512];
	struct http_post_reply r;
	int rc = tls_post(&s, "127.0.0.1", path("ca.crt"), &r, err, sizeof(err));
	assert_int_equal(rc, -EPROTO);
	assert_non_null(strstr(err, "TLS: "));
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/hvready-http-post-XXXXXX");
	assert_non_null(mkdtemp(dir));
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "set -e; cd %s; ec='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'; "
		 "for ca in ca rogue; do openssl req -x509 $ec -keyout $ca.key -out $ca.crt "
		 "-subj /CN=hvready-test-$ca -days 2 2>/dev/null; done; "
		 "for s in by-name:DNS:localhost by-ip:IP:127.0.0.1; do n=${s%%%%:*}; "
		 "openssl req $ec -keyout $n.key -out $n.csr -subj /CN=$n 2>/dev/null; "
		 "printf 'subjectAltName=%%s\\n' ${s#*:} > $n.ext; "
		 "openssl x509 -req -in $n.csr -CA ca.crt -CAkey ca.key -CAcreateserial "
		 "-out $n.crt -days 2 -extfile $n.ext 2>/dev/null; done",
		 dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_ok),
	    cmocka_unit_test(test_plain_status_and_empty_body),
	    cmocka_unit_test(test_reply_too_large),
	    cmocka_unit_test(test_closed_without_reply),
	    cmocka_unit_test(test_malformed_reply),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_silent_server),
	    cmocka_unit_test(test_bad_urls),
	    cmocka_unit_test(test_netguard),
	    cmocka_unit_test(test_tls_name_ok_with_sni),
	    cmocka_unit_test(test_tls_ip_ok_without_sni),
	    cmocka_unit_test(test_restamp),
	    cmocka_unit_test(test_tls_untrusted_ca),
	    cmocka_unit_test(test_tls_hostname_mismatch),
	    cmocka_unit_test(test_tls_ip_mismatch),
	    cmocka_unit_test(test_tls_self_signed_not_in_store),
	    cmocka_unit_test(test_tls_ca_file_unreadable),
	    cmocka_unit_test(test_tls_to_plain_server),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
