/*
 * libcurl, OpenSSL (with libevent's bufferevent_openssl) and libsystemd,
 * loaded when first used — linked into the hvready-agent executable only (not
 * into the libraries the tests use).
 *
 * Why: libcurl pulls in about thirty shared libraries (GnuTLS, Kerberos,
 * LDAP, SSH, …) and libsystemd five more; mapping them costs several MiB of
 * resident memory and most of the start-up time of a one-shot `check` that
 * never makes an HTTP request. libssl and libcrypto alone, only mapped, cost
 * 1.8 MiB. With these definitions in the executable the linker (--as-needed)
 * drops the libraries, and the first curl_, SSL_ or sd_ call dlopen()s them.
 * If a library cannot be loaded the calls fail cleanly (CURLE_FAILED_INIT,
 * NULL, -ENOSYS): the checks that need HTTP say so (UNKNOWN), a report over
 * https fails with its reason, and sd_notify() is skipped as it is outside
 * systemd.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* The type-checking macros of curl.h would rename the definitions below. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <systemd/sd-daemon.h>

static struct {
	void *h;
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	void (*easy_reset)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	char *(*easy_escape)(CURL *, const char *, int);
	void (*free)(void *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
} C;

static struct {
	void *h;
	int (*notify)(int, const char *);
	int (*watchdog_enabled)(int, uint64_t *);
} S;

static struct {
	void *h;
	const SSL_METHOD *(*client_method)(void);
	SSL_CTX *(*ctx_new)(const SSL_METHOD *);
	void (*ctx_free)(SSL_CTX *);
	long (*ctx_ctrl)(SSL_CTX *, int, long, void *);
	void (*ctx_set_verify)(SSL_CTX *, int, SSL_verify_cb);
	int (*ctx_load_verify_locations)(SSL_CTX *, const char *, const char *);
	int (*ctx_set_default_verify_paths)(SSL_CTX *);
	SSL *(*new)(SSL_CTX *);
	void (*free)(SSL *);
	long (*ctrl)(SSL *, int, long, void *);
	X509_VERIFY_PARAM *(*get0_param)(SSL *);
	int (*param_set1_ip_asc)(X509_VERIFY_PARAM *, const char *);
	void (*set_hostflags)(SSL *, unsigned int);
	int (*set1_host)(SSL *, const char *);
	long (*get_verify_result)(const SSL *);
	void (*set_info_callback)(SSL *, void (*)(const SSL *, int, int));
	int (*set_ex_data)(SSL *, int, void *);
	void *(*get_ex_data)(const SSL *, int);
	const char *(*verify_cert_error_string)(long);
	void (*err_error_string_n)(unsigned long, char *, size_t);
	void (*err_clear_error)(void);
	unsigned long (*err_get_error)(void);
	struct bufferevent *(*bev_new)(struct event_base *, evutil_socket_t, SSL *,
				       enum bufferevent_ssl_state, int);
	void (*bev_set_dirty)(struct bufferevent *, int);
	unsigned long (*bev_error)(struct bufferevent *);
} T;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT, sd_once = PTHREAD_ONCE_INIT,
		      tls_once = PTHREAD_ONCE_INIT;

#define SYM(lib, field, name) (*(void **)&lib.field = dlsym(lib.h, name))

static void load_curl(void)
{
	C.h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!C.h) {
		fprintf(stderr,
			"hvready-agent: cannot load libcurl.so.4 (%s): HTTP checks cannot run\n",
			dlerror());
		return;
	}
	bool ok =
	    SYM(C, global_init, "curl_global_init") &&
	    SYM(C, global_cleanup, "curl_global_cleanup") && SYM(C, easy_init, "curl_easy_init") &&
	    SYM(C, easy_setopt, "curl_easy_setopt") && SYM(C, easy_perform, "curl_easy_perform") &&
	    SYM(C, easy_getinfo, "curl_easy_getinfo") &&
	    SYM(C, easy_cleanup, "curl_easy_cleanup") && SYM(C, easy_reset, "curl_easy_reset") &&
	    SYM(C, easy_strerror, "curl_easy_strerror") &&
	    SYM(C, easy_escape, "curl_easy_escape") && SYM(C, free, "curl_free") &&
	    SYM(C, slist_append, "curl_slist_append") &&
	    SYM(C, slist_free_all, "curl_slist_free_all");
	if (!ok) {
		fprintf(stderr, "hvready-agent: libcurl.so.4 lacks a needed function\n");
		dlclose(C.h);
		C.h = NULL;
	}
}

static bool have_curl(void)
{
	pthread_once(&curl_once, load_curl);
	return C.h != NULL;
}

CURLcode curl_global_init(long flags)
{
	return have_curl() ? C.global_init(flags) : CURLE_FAILED_INIT;
}

void curl_global_cleanup(void)
{
	if (have_curl())
		C.global_cleanup();
}

CURL *curl_easy_init(void)
{
	return have_curl() ? C.easy_init() : NULL;
}

/* libcurl's own rule for the third argument: by the option's number range. */
CURLcode curl_easy_setopt(CURL *h, CURLoption opt, ...)
{
	if (!have_curl() || !h)
		return CURLE_FAILED_INIT;
	va_list ap;
	va_start(ap, opt);
	CURLcode r;
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		r = C.easy_setopt(h, opt, va_arg(ap, long));
	else if (opt < CURLOPTTYPE_OFF_T)
		r = C.easy_setopt(h, opt, va_arg(ap, void *)); /* objects, functions */
	else if (opt < CURLOPTTYPE_BLOB)
		r = C.easy_setopt(h, opt, va_arg(ap, curl_off_t));
	else
		r = C.easy_setopt(h, opt, va_arg(ap, void *));
	va_end(ap);
	return r;
}

CURLcode curl_easy_perform(CURL *h)
{
	return have_curl() && h ? C.easy_perform(h) : CURLE_FAILED_INIT;
}

CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
	if (!have_curl() || !h)
		return CURLE_FAILED_INIT;
	va_list ap;
	va_start(ap, info);
	CURLcode r = C.easy_getinfo(h, info, va_arg(ap, void *)); /* always a pointer */
	va_end(ap);
	return r;
}

void curl_easy_cleanup(CURL *h)
{
	if (have_curl() && h)
		C.easy_cleanup(h);
}

void curl_easy_reset(CURL *h)
{
	if (have_curl() && h)
		C.easy_reset(h);
}

const char *curl_easy_strerror(CURLcode c)
{
	return have_curl() ? C.easy_strerror(c) : "libcurl could not be loaded";
}

char *curl_easy_escape(CURL *h, const char *s, int len)
{
	return have_curl() ? C.easy_escape(h, s, len) : NULL;
}

void curl_free(void *p)
{
	if (have_curl())
		C.free(p);
}

struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s)
{
	return have_curl() ? C.slist_append(l, s) : NULL;
}

void curl_slist_free_all(struct curl_slist *l)
{
	if (have_curl())
		C.slist_free_all(l);
}

/* libevent_openssl brings libssl and libcrypto: dlsym() on its handle finds
 * their symbols too. */
static void load_tls(void)
{
	T.h = dlopen("libevent_openssl-2.1.so.7", RTLD_NOW | RTLD_LOCAL);
	if (!T.h) {
		fprintf(stderr,
			"hvready-agent: cannot load libevent_openssl-2.1.so.7 (%s): no TLS\n",
			dlerror());
		return;
	}
	bool ok =
	    SYM(T, client_method, "TLS_client_method") && SYM(T, ctx_new, "SSL_CTX_new") &&
	    SYM(T, ctx_free, "SSL_CTX_free") && SYM(T, ctx_ctrl, "SSL_CTX_ctrl") &&
	    SYM(T, ctx_set_verify, "SSL_CTX_set_verify") &&
	    SYM(T, ctx_load_verify_locations, "SSL_CTX_load_verify_locations") &&
	    SYM(T, ctx_set_default_verify_paths, "SSL_CTX_set_default_verify_paths") &&
	    SYM(T, new, "SSL_new") && SYM(T, free, "SSL_free") && SYM(T, ctrl, "SSL_ctrl") &&
	    SYM(T, get0_param, "SSL_get0_param") &&
	    SYM(T, param_set1_ip_asc, "X509_VERIFY_PARAM_set1_ip_asc") &&
	    SYM(T, set_hostflags, "SSL_set_hostflags") && SYM(T, set1_host, "SSL_set1_host") &&
	    SYM(T, get_verify_result, "SSL_get_verify_result") &&
	    SYM(T, set_info_callback, "SSL_set_info_callback") &&
	    SYM(T, set_ex_data, "SSL_set_ex_data") && SYM(T, get_ex_data, "SSL_get_ex_data") &&
	    SYM(T, verify_cert_error_string, "X509_verify_cert_error_string") &&
	    SYM(T, err_error_string_n, "ERR_error_string_n") &&
	    SYM(T, err_clear_error, "ERR_clear_error") && SYM(T, err_get_error, "ERR_get_error") &&
	    SYM(T, bev_new, "bufferevent_openssl_socket_new") &&
	    SYM(T, bev_set_dirty, "bufferevent_openssl_set_allow_dirty_shutdown") &&
	    SYM(T, bev_error, "bufferevent_get_openssl_error");
	if (!ok) {
		fprintf(stderr,
			"hvready-agent: libevent_openssl or OpenSSL lacks a needed function\n");
		dlclose(T.h);
		T.h = NULL;
	}
}

static bool have_tls(void)
{
	pthread_once(&tls_once, load_tls);
	return T.h != NULL;
}

/* Only TLS_client_method() and the error functions can be reached without a
 * context; every other function gets objects that only a loaded OpenSSL made. */
const SSL_METHOD *TLS_client_method(void)
{
	return have_tls() ? T.client_method() : NULL;
}

SSL_CTX *SSL_CTX_new(const SSL_METHOD *m)
{
	return have_tls() && m ? T.ctx_new(m) : NULL;
}

void SSL_CTX_free(SSL_CTX *c)
{
	if (have_tls())
		T.ctx_free(c);
}

long SSL_CTX_ctrl(SSL_CTX *c, int cmd, long larg, void *parg)
{
	return have_tls() ? T.ctx_ctrl(c, cmd, larg, parg) : 0;
}

void SSL_CTX_set_verify(SSL_CTX *c, int mode, SSL_verify_cb cb)
{
	if (have_tls())
		T.ctx_set_verify(c, mode, cb);
}

int SSL_CTX_load_verify_locations(SSL_CTX *c, const char *file, const char *path)
{
	return have_tls() ? T.ctx_load_verify_locations(c, file, path) : 0;
}

int SSL_CTX_set_default_verify_paths(SSL_CTX *c)
{
	return have_tls() ? T.ctx_set_default_verify_paths(c) : 0;
}

SSL *SSL_new(SSL_CTX *c)
{
	return have_tls() ? T.new(c) : NULL;
}

void SSL_free(SSL *s)
{
	if (have_tls())
		T.free(s);
}

long SSL_ctrl(SSL *s, int cmd, long larg, void *parg)
{
	return have_tls() ? T.ctrl(s, cmd, larg, parg) : 0;
}

X509_VERIFY_PARAM *SSL_get0_param(SSL *s)
{
	return have_tls() ? T.get0_param(s) : NULL;
}

int X509_VERIFY_PARAM_set1_ip_asc(X509_VERIFY_PARAM *p, const char *ip)
{
	return have_tls() && p ? T.param_set1_ip_asc(p, ip) : 0;
}

void SSL_set_hostflags(SSL *s, unsigned int flags)
{
	if (have_tls())
		T.set_hostflags(s, flags);
}

int SSL_set1_host(SSL *s, const char *host)
{
	return have_tls() ? T.set1_host(s, host) : 0;
}

long SSL_get_verify_result(const SSL *s)
{
	return have_tls() ? T.get_verify_result(s) : X509_V_OK;
}

void SSL_set_info_callback(SSL *s, void (*cb)(const SSL *, int, int))
{
	if (have_tls())
		T.set_info_callback(s, cb);
}

int SSL_set_ex_data(SSL *s, int idx, void *data)
{
	return have_tls() ? T.set_ex_data(s, idx, data) : 0;
}

void *SSL_get_ex_data(const SSL *s, int idx)
{
	return have_tls() ? T.get_ex_data(s, idx) : NULL;
}

const char *X509_verify_cert_error_string(long n)
{
	return have_tls() ? T.verify_cert_error_string(n) : "OpenSSL could not be loaded";
}

void ERR_error_string_n(unsigned long e, char *buf, size_t len)
{
	if (have_tls())
		T.err_error_string_n(e, buf, len);
	else if (len)
		snprintf(buf, len, "OpenSSL error %lu", e);
}

void ERR_clear_error(void)
{
	if (have_tls())
		T.err_clear_error();
}

unsigned long ERR_get_error(void)
{
	return have_tls() ? T.err_get_error() : 0;
}

struct bufferevent *bufferevent_openssl_socket_new(struct event_base *base, evutil_socket_t fd,
						   SSL *ssl, enum bufferevent_ssl_state state,
						   int options)
{
	return have_tls() ? T.bev_new(base, fd, ssl, state, options) : NULL;
}

void bufferevent_openssl_set_allow_dirty_shutdown(struct bufferevent *bev, int allow)
{
	if (have_tls())
		T.bev_set_dirty(bev, allow);
}

unsigned long bufferevent_get_openssl_error(struct bufferevent *bev)
{
	return have_tls() ? T.bev_error(bev) : 0;
}

static void load_sd(void)
{
	S.h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
	if (S.h &&
	    !(SYM(S, notify, "sd_notify") && SYM(S, watchdog_enabled, "sd_watchdog_enabled"))) {
		dlclose(S.h);
		S.h = NULL;
	}
}

/* Outside systemd (no NOTIFY_SOCKET) libsystemd is not even loaded. */
int sd_notify(int unset_environment, const char *state)
{
	if (!getenv("NOTIFY_SOCKET"))
		return 0;
	pthread_once(&sd_once, load_sd);
	return S.h ? S.notify(unset_environment, state) : -ENOSYS;
}

int sd_watchdog_enabled(int unset_environment, uint64_t *usec)
{
	if (!getenv("WATCHDOG_USEC"))
		return 0;
	pthread_once(&sd_once, load_sd);
	return S.h ? S.watchdog_enabled(unset_environment, usec) : -ENOSYS;
}
