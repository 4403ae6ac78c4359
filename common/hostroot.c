#include "hostroot.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/openat2.h>

int hostroot_open(struct hostroot *hr, const char *dir)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	hr->fd = fd;
	hr->path = xstrdup(dir);
	return 0;
}

void hostroot_close(struct hostroot *hr)
{
	if (hr->fd >= 0)
		close(hr->fd);
	free(hr->path);
	hr->fd = -1;
	hr->path = NULL;
}

static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static _Thread_local void (*tracer_fn)(void *arg, const char *path);
static _Thread_local void *tracer_arg;

void hostroot_set_tracer(void (*fn)(void *arg, const char *path), void *arg)
{
	tracer_fn = fn;
	tracer_arg = arg;
}

void hostroot_trace(const char *path)
{
	if (tracer_fn)
		tracer_fn(tracer_arg, rel(path));
}

static _Atomic bool no_openat2; /* checks run in threads (agent/agent.c) */

int hostroot_openat(const struct hostroot *hr, const char *path, int flags)
{
	const char *r = rel(path);
	int fd;
	if (tracer_fn)
		tracer_fn(tracer_arg, r);
	if (!no_openat2) {
		struct open_how how = {
		    .flags = (uint64_t)(flags | O_CLOEXEC),
		    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
		};
		fd = (int)syscall(SYS_openat2, hr->fd, r, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		/* ENOSYS: old kernel; EPERM: seccomp filters that do not know openat2. */
		no_openat2 = true;
	}
	fd = openat(hr->fd, r, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int hostroot_open_file(const struct hostroot *hr, const char *path)
{
	int fd = hostroot_openat(hr, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	if (S_ISREG(st.st_mode))
		return fd;
	struct statfs sf;
	if (!S_ISDIR(st.st_mode) && fstatfs(fd, &sf) == 0 &&
	    (sf.f_type == PROC_SUPER_MAGIC || sf.f_type == SYSFS_MAGIC))
		return fd;
	close(fd);
	return S_ISDIR(st.st_mode) ? -EISDIR : -ESPIPE;
}

int hostroot_read_prefix(const struct hostroot *hr, const char *path, size_t max, char **ret_buf,
			 size_t *ret_len, bool *ret_truncated)
{
	int fd = hostroot_open_file(hr, path);
	if (fd < 0)
		return fd;
	int r = util_read_fd(fd, max ? max : HOSTROOT_MAX_FILE, ret_buf, ret_len, ret_truncated);
	close(fd);
	return r;
}

int hostroot_read(const struct hostroot *hr, const char *path, size_t max, char **ret_buf,
		  size_t *ret_len)
{
	return hostroot_read_prefix(hr, path, max, ret_buf, ret_len, NULL);
}

int hostroot_stat(const struct hostroot *hr, const char *path, struct stat *ret)
{
	int fd = hostroot_openat(hr, path, O_PATH);
	if (fd < 0)
		return fd;
	int r = fstat(fd, ret) < 0 ? -errno : 0;
	close(fd);
	return r;
}

bool hostroot_exists(const struct hostroot *hr, const char *path)
{
	struct stat st;
	return hostroot_stat(hr, path, &st) == 0;
}

DIR *hostroot_opendir(const struct hostroot *hr, const char *path)
{
	int fd = hostroot_openat(hr, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}

char *hostroot_display(const struct hostroot *hr, const char *path)
{
	const char *r = rel(path);
	if (!hr->path || streq(hr->path, "/"))
		return xasprintf("/%s", streq(r, ".") ? "" : r);
	size_t n = strlen(hr->path);
	return xasprintf("%.*s/%s", (int)(n > 0 && hr->path[n - 1] == '/' ? n - 1 : n), hr->path,
			 streq(r, ".") ? "" : r);
}

bool hostroot_is_procfs(int dir_fd)
{
	struct statfs sf;
	return fstatfs(dir_fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

int hostroot_read_procfs_line(const struct hostroot *hr, int dir_fd, const char *path,
			      size_t dir_len, char **ret)
{
	if (no_openat2)
		return 0;
	const char *r = rel(path);
	if (tracer_fn)
		tracer_fn(tracer_arg, r);
	/* Beneath the procfs directory, through no symlink and no mount point:
	 * what opens is a file of that procfs, which never blocks. */
	struct open_how how = {
	    .flags = O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
	    .resolve =
		RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd = (int)syscall(SYS_openat2, dir_fd, r + dir_len, &how, sizeof(how));
	if (fd < 0)
		return 0;
	char buf[256];
	ssize_t n;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	char *nl = n > 0 ? memchr(buf, '\n', (size_t)n) : NULL;
	if (!nl)
		return 0;
	/* As hostroot_read_line(): the first line, up to a NUL, stripped. */
	*nl = '\0';
	*ret = strstrip(xstrdup(buf));
	return 1;
}

int hostroot_read_line(const struct hostroot *hr, const char *path, char **ret)
{
	char *buf;
	int r = hostroot_read(hr, path, 65536, &buf, NULL);
	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	*ret = strstrip(buf);
	return 0;
}
