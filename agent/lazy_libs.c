/*
 * libcurl and libsystemd, loaded when first used — linked into the
 * hvready-agent executable only (not into the libraries the tests use).
 *
 * Why: libcurl pulls in about thirty shared libraries (GnuTLS, Kerberos,
 * LDAP, SSH, …) and libsystemd five more; mapping them costs several MiB of
 * resident memory and most of the start-up time of a one-shot `check` that
 * never makes an HTTP request. With these definitions in the executable the
 * linker (--as-needed) drops both libraries, and the first curl_ or sd_ call
 * dlopen()s them. If a library cannot be loaded the calls fail cleanly
 * (CURLE_FAILED_INIT, -ENOSYS): the checks that need HTTP say so (UNKNOWN),
 * and sd_notify() is skipped as it is outside systemd.
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

static pthread_once_t curl_once = PTHREAD_ONCE_INIT, sd_once = PTHREAD_ONCE_INIT;

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
