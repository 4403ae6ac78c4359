#include "sys_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sys_fs_statvfs(const struct hostroot *hr, const char *path, struct statvfs *ret)
{
	/* fstatvfs() is fstatfs() underneath, which O_PATH descriptors allow (Linux >= 3.12),
	 * so this needs no read permission on the directory. */
	_cleanup_close_ int fd = hostroot_openat(hr, path, O_PATH);
	if (fd < 0)
		return fd;
	return fstatvfs(fd, ret) < 0 ? -errno : 0;
}

int sys_fs_access(const struct hostroot *hr, const char *path, int mode)
{
	_cleanup_close_ int fd = hostroot_openat(hr, path, O_PATH);
	if (fd < 0)
		return fd;
	if (faccessat(fd, "", mode, AT_EMPTY_PATH | AT_EACCESS) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EPERM)
		return -errno;
	/* Kernels before faccessat2 (5.8) reject AT_EMPTY_PATH: go through the fd's magic link. */
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return access(link, mode) < 0 ? -errno : 0;
}

static int fd_path(int fd, char **ret)
{
	char link[64], buf[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(buf) - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	*ret = xstrdup(buf);
	return 0;
}

int sys_fs_realpath(const struct hostroot *hr, const char *path, char **ret)
{
	_cleanup_close_ int fd = hostroot_openat(hr, path, O_PATH);
	if (fd < 0)
		return fd;
	_cleanup_free_ char *root = NULL, *full = NULL;
	int r;
	if ((r = fd_path(hr->fd, &root)) < 0 || (r = fd_path(fd, &full)) < 0)
		return r;
	if (streq(root, "/")) {
		*ret = xstrdup(full);
		return 0;
	}
	size_t n = strlen(root);
	if (strncmp(full, root, n) != 0 || (full[n] != '\0' && full[n] != '/'))
		return -EXDEV;
	*ret = xstrdup(full[n] ? full + n : "/");
	return 0;
}
