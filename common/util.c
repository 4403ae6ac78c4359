#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ctype.h>
#include <limits.h>

static void oom(void)
{
	fputs("hvready: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s ? s : "", n);
	if (!p)
		oom();
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *p;
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	return p;
}

void xvasprintf_replace(char **p, const char *fmt, va_list ap)
{
	free(*p);
	*p = fmt ? xvasprintf(fmt, ap) : NULL;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void util_grow(void **items, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / elem)
		oom();
	*items = xrealloc(*items, ncap * elem);
	memset((char *)*items + *cap * elem, 0, (ncap - *cap) * elem);
	*cap = ncap;
}

bool streq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

bool strcaseeq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcasecmp(a, b) == 0;
}

bool startswith(const char *s, const char *prefix)
{
	return s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool endswith(const char *s, const char *suffix)
{
	if (!s || !suffix)
		return false;
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

const char *plural(int64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

char *strstrip(char *s)
{
	if (!s)
		return s;
	char *p = s;
	while (*p && isspace((unsigned char)*p))
		p++;
	size_t n = strlen(p);
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		n--;
	memmove(s, p, n);
	s[n] = '\0';
	return s;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int64_t util_now_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

int64_t util_now_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static int digits(const char **p, int n, int *ret)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)**p))
			return -EINVAL;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	*ret = v;
	return 0;
}

/* Days from 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int util_parse_rfc3339(const char *s, int64_t *ret_ns)
{
	int y, mo, d, h, mi, sec;
	const char *p = s;
	if (!s)
		return -EINVAL;
	if (digits(&p, 4, &y) < 0 || *p++ != '-' || digits(&p, 2, &mo) < 0 || *p++ != '-' ||
	    digits(&p, 2, &d) < 0)
		return -EINVAL;
	if (*p != 'T' && *p != 't' && *p != ' ')
		return -EINVAL;
	p++;
	if (digits(&p, 2, &h) < 0 || *p++ != ':' || digits(&p, 2, &mi) < 0 || *p++ != ':' ||
	    digits(&p, 2, &sec) < 0)
		return -EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -EINVAL;
	int64_t frac = 0;
	if (*p == '.') {
		p++;
		int64_t scale = NSEC_PER_SEC / 10;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		while (isdigit((unsigned char)*p)) {
			frac += (*p - '0') * scale;
			scale /= 10;
			p++;
		}
	}
	int64_t off = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p == '-' ? -1 : 1, oh, om;
		p++;
		if (digits(&p, 2, &oh) < 0 || *p++ != ':' || digits(&p, 2, &om) < 0)
			return -EINVAL;
		off = sign * (oh * 3600 + om * 60);
	} else {
		return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
	/* Nanoseconds in an int64_t end in 2262: a later date is out of range,
	 * not a wrapped-around time (found by fuzz_cluster_state). */
	if (secs >= INT64_MAX / NSEC_PER_SEC || secs <= INT64_MIN / NSEC_PER_SEC)
		return -ERANGE;
	*ret_ns = secs * NSEC_PER_SEC + frac;
	return 0;
}

void util_format_rfc3339(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / NSEC_PER_SEC);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int util_parse_i64(const char *s, int64_t *ret)
{
	if (!s || !*s)
		return -EINVAL;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end || end == s)
		return -EINVAL;
	*ret = v;
	return 0;
}

void strv_add(struct strv *v, const char *s)
{
	util_grow((void **)&v->items, &v->cap, v->n + 1, sizeof(char *));
	v->items[v->n++] = xstrdup(s);
}

bool strv_contains(const struct strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (streq(v->items[i], s))
			return true;
	return false;
}

void strv_clear(struct strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->items[i]);
	free(v->items);
	*v = (struct strv){0};
}

void strv_split(struct strv *v, const char *s, const char *seps)
{
	while (s && *s) {
		size_t n = strcspn(s, seps);
		if (n > 0) {
			_cleanup_free_ char *w = xstrndup(s, n);
			strv_add(v, w);
		}
		s += n;
		if (*s)
			s++;
	}
}

char *strv_join(const struct strv *v, const char *sep)
{
	size_t len = 0, sl = strlen(sep);
	for (size_t i = 0; i < v->n; i++)
		len += strlen(v->items[i]) + (i ? sl : 0);
	char *s = xmalloc(len + 1), *p = s;
	for (size_t i = 0; i < v->n; i++) {
		if (i) {
			memcpy(p, sep, sl);
			p += sl;
		}
		size_t n = strlen(v->items[i]);
		memcpy(p, v->items[i], n);
		p += n;
	}
	*p = '\0';
	return s;
}

/* Poll fd for input until *deadline_ns (util_now_mono_ns(); set on the first
 * call to now + UTIL_PIPE_WAIT_MS, one deadline for the whole read, so a writer
 * that trickles cannot hold the reader either). -ETIMEDOUT when it passes. */
static int wait_readable(int fd, int64_t *deadline_ns)
{
	int64_t now = util_now_mono_ns();
	if (!*deadline_ns)
		*deadline_ns = now + (int64_t)UTIL_PIPE_WAIT_MS * 1000000;
	for (;;) {
		if (now >= *deadline_ns)
			return -ETIMEDOUT;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, (int)((*deadline_ns - now + 999999) / 1000000));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		now = util_now_mono_ns();
	}
}

int util_read_fd(int fd, size_t max, char **ret_buf, size_t *ret_len, bool *ret_truncated)
{
	int64_t deadline_ns = 0;
	size_t cap = max < 4096 ? max : 4096, len = 0;
	char *buf = xmalloc(cap + 1);
	bool truncated = false;
	for (;;) {
		if (len == cap && cap < max) {
			cap = cap > max / 2 ? max : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		/* At the limit, one more byte tells a file of max bytes from a longer one. */
		bool full = len == cap;
		char probe;
		ssize_t n = full ? read(fd, &probe, 1) : read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* Only a pipe or FIFO opened O_NONBLOCK gets here: wait for its
			 * writer, within one deadline for the whole read. */
			int w = wait_readable(fd, &deadline_ns);
			if (w < 0) {
				free(buf);
				return w;
			}
			continue;
		}
		if (n < 0) {
			int e = -errno;
			free(buf);
			return e;
		}
		if (n == 0)
			break;
		if (full) {
			truncated = true;
			break;
		}
		len += (size_t)n;
	}
	if (truncated && !ret_truncated) {
		free(buf);
		return -EFBIG;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	if (ret_len)
		*ret_len = len;
	if (ret_truncated)
		*ret_truncated = truncated;
	return 0;
}

int util_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len)
{
	/* Not a host file: the programs' own config, tokens, kubeconfig, waivers,
	 * where a pipe (`--token-file <(...)`) is legitimate. Host files:
	 * hostroot_open_file(). O_NONBLOCK: a FIFO with no writer opens at once
	 * (it would block open() for good) and reads as nothing written; a writer
	 * that never writes is waited for UTIL_PIPE_WAIT_MS. A regular file
	 * ignores it. A device (a terminal, /dev/zero) is no file to read. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		r = -ESPIPE;
	size_t len = 0;
	if (r == 0)
		r = util_read_fd(fd, max, ret_buf, &len, NULL);
	close(fd);
	if (r == 0 && len == 0 && S_ISFIFO(st.st_mode)) {
		free(*ret_buf);
		*ret_buf = NULL;
		return -ENODATA;
	}
	if (r == 0 && ret_len)
		*ret_len = len;
	return r;
}

int util_path_regular(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : -ESPIPE;
}

int util_secret_mode(unsigned mode, char *err, size_t errlen)
{
	if (!(mode & S_IROTH))
		return 0;
	snprintf(err, errlen, "readable by others (mode %04o); chmod o-r it", mode & 07777);
	return -EPERM;
}

const char *util_read_strerror(int r)
{
	if (r == -EFBIG)
		return "file too large";
	/* hostroot_open_file(): a FIFO, socket or device where a file was expected. */
	if (r == -ESPIPE)
		return "not a regular file";
	/* util_read_file() of a pipe or FIFO. */
	if (r == -ENODATA)
		return "a pipe or FIFO with nothing written to it";
	if (r == -ETIMEDOUT)
		return "a pipe or FIFO whose writer did not finish within " UTIL_PIPE_WAIT_S " s";
	return strerror(-r);
}

int util_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	for (char *p = err; errlen && *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	return -EINVAL;
}
