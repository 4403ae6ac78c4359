#include "canary_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define TOKEN_MAX	128
#define TERMINATION_LOG "/dev/termination-log"

/* The result line, on stdout and in the pod's termination message (the
 * kubelet creates the file; elsewhere it does not exist and is not made). */
_printf_(1, 2) static void result(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("%s\n", line);
	fflush(stdout);
	int fd = open(TERMINATION_LOG, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		dprintf(fd, "%s\n", line);
		close(fd);
	}
}

static bool token_valid(const char *t)
{
	size_t n = strlen(t);
	if (n == 0 || n > TOKEN_MAX)
		return false;
	for (const char *p = t; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-'))
			return false;
	return true;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The token and a newline, fsync()ed with its directory: what the reader on
 * the other node sees is on the share, not in this node's page cache. */
static int do_write(const char *path, const char *token)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		result("write-error %s: open: %s", path, strerror(errno));
		return 1;
	}
	_cleanup_free_ char *line = xasprintf("%s\n", token);
	int r = write_all(fd, line, strlen(line));
	const char *what = "write";
	if (r == 0 && fsync(fd) < 0) {
		r = -errno;
		what = "fsync";
	}
	if (close(fd) < 0 && r == 0) {
		r = -errno;
		what = "close";
	}
	if (r < 0) {
		result("write-error %s: %s: %s", path, what, strerror(-r));
		return 1;
	}
	_cleanup_free_ char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	result("write-ok %s", token);
	return 0;
}

static int do_read(const char *path, const char *token)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		result("read-error %s: open: %s", path, strerror(errno));
		return 1;
	}
	char buf[TOKEN_MAX + 2];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			result("read-error %s: read: %s", path, strerror(e));
			return 1;
		}
		if (n == 0 || (len += (size_t)n) == sizeof(buf) - 1)
			break;
	}
	close(fd);
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (streq(buf, token)) {
		result("read-ok %s", token);
		return 0;
	}
	/* What was there, printable and bounded: it is a token we wrote, or not. */
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	result("read-mismatch want %s got \"%.64s\" (%zu bytes)", token, buf, len);
	return 1;
}

int canary_io_main(int argc, char **argv)
{
	if (argc != 4 || (!streq(argv[1], "write") && !streq(argv[1], "read"))) {
		fprintf(stderr, "Usage: hvready-agent canary-io write|read PATH TOKEN\n");
		return 2;
	}
	if (!token_valid(argv[3])) {
		fprintf(stderr, "canary-io: the token must be 1-%d characters of [A-Za-z0-9-]\n",
			TOKEN_MAX);
		return 2;
	}
	return streq(argv[1], "write") ? do_write(argv[2], argv[3]) : do_read(argv[2], argv[3]);
}
