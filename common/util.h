/* Small utilities every module needs: allocation, strings, clocks. */
#pragma once
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f)   __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_       __attribute__((unused))
#define ELEMENTSOF(x)  (sizeof(x) / sizeof((x)[0]))
#define NSEC_PER_SEC   INT64_C(1000000000)
#define NSEC_PER_MSEC  INT64_C(1000000)

/* Allocation failure is not recoverable for a checker: these abort with a message. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) _printf_(1, 2);
char *xvasprintf(const char *fmt, va_list ap) _printf_(1, 0);
/* *p (freed first) becomes the formatted string, or NULL when fmt is NULL. */
void xvasprintf_replace(char **p, const char *fmt, va_list ap) _printf_(2, 0);

/* A parser's error: the message formatted into err, kept one line (a control
 * character becomes '?', whatever the input held), and -EINVAL to return. */
int util_fail(char *err, size_t errlen, const char *fmt, ...) _printf_(3, 4);

/* Grow *items (each of size elem) so that it holds at least need elements. */
void util_grow(void **items, size_t *cap, size_t need, size_t elem);

static inline void freep(void *p)
{
	free(*(void **)p);
}
static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
#define _cleanup_free_	_cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* NULL-safe string helpers. */
bool streq(const char *a, const char *b);
bool strcaseeq(const char *a, const char *b);
bool startswith(const char *s, const char *prefix);
bool endswith(const char *s, const char *suffix);
/* one when n is 1, else many: "%zu %s", n, plural(n, "node", "nodes"). */
const char *plural(int64_t n, const char *one, const char *many);
/* Strip leading and trailing ASCII white space in place; returns s. */
char *strstrip(char *s);

/* Clocks. realtime for timestamps on the wire, monotonic for intervals and timeouts. */
int64_t util_now_realtime_ns(void);
int64_t util_now_mono_ns(void);
/* RFC 3339 / ISO 8601 "2026-09-05T13:20:44Z" (fraction and offset allowed) → ns since epoch. */
int util_parse_rfc3339(const char *s, int64_t *ret_ns);
/* Format ns since epoch as RFC 3339 UTC with seconds ("2026-09-05T13:20:44Z"). */
void util_format_rfc3339(int64_t ns, char *buf, size_t len);

/* Parse a decimal integer with full validation (no trailing garbage, no overflow). */
int util_parse_i64(const char *s, int64_t *ret);

/* a - b, clamped to [-INT64_MAX, INT64_MAX]: times from a peer (a report's
 * sent_ns) may be anything, and signed overflow is undefined. -INT64_MAX, not
 * INT64_MIN, so that the result's magnitude is representable too. */
static inline int64_t util_sub_sat_i64(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : -INT64_MAX;
	return r == INT64_MIN ? -INT64_MAX : r;
}

/* A growable array of owned strings. */
struct strv {
	char **items;
	size_t n, cap;
};
void strv_add(struct strv *v, const char *s);
bool strv_contains(const struct strv *v, const char *s);
void strv_clear(struct strv *v);
/* Split s on any of seps, dropping empty fields. */
void strv_split(struct strv *v, const char *s, const char *seps);
/* The items joined with sep between them ("" for none). Malloc'd. */
char *strv_join(const struct strv *v, const char *sep);

/* The one file reader: all of fd, at most max bytes, into a NUL-terminated buffer the
 * caller frees (*ret_len without the NUL; ret_len may be NULL). Longer: -EFBIG, or with
 * ret_truncated the first max bytes and *ret_truncated = true. Retries on EINTR; a read
 * error is -errno, with nothing returned. fd stays open. Returns 0 or -errno. */
int util_read_fd(int fd, size_t max, char **ret_buf, size_t *ret_len, bool *ret_truncated);
/* util_read_fd() of a file by path (not under a host root): a regular file, or a
 * pipe/FIFO read within UTIL_PIPE_WAIT_MS (-ETIMEDOUT after; -ENODATA when nothing
 * was written, a FIFO with no writer included: it never blocks the open). A
 * directory is -EISDIR, a device -ESPIPE. Returns 0 or -errno. */
#define UTIL_PIPE_WAIT_MS 5000
#define UTIL_PIPE_WAIT_S  "5"
int util_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len);
/* 0 when path is a regular file; -errno from stat(), -ESPIPE when it is anything
 * else. For paths a library opens itself (OpenSSL's *_file calls): open() of a
 * FIFO with no writer would block it for good, and stat() does not open. */
int util_path_regular(const char *path);
/* A secret (a token, a key) must not be readable by others: 0 for mode, or
 * -EPERM with "readable by others (mode 0644); chmod o-r it" in err. The one
 * rule of serve's --token-file, --tls-key, node tokens and the canary's token. */
int util_secret_mode(unsigned mode, char *err, size_t errlen);
/* How to say a reader's error: "file too large" for -EFBIG, else strerror(). */
const char *util_read_strerror(int r);
