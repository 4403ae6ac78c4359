/*
 * LD_PRELOAD shim for tests/integration/host_deadline.sh: opening a path that
 * ends with HVREADY_TEST_BLOCK_OPEN blocks, as an open on a hung NFS mount
 * does, while the file named by HVREADY_TEST_BLOCK_FLAG exists (forever when
 * that is unset). It wraps syscall(SYS_openat2, ...) (common/hostroot.c) and
 * openat(). Built by the test with the system compiler; not part of the product.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void maybe_block(const char *path)
{
	const char *want = getenv("HVREADY_TEST_BLOCK_OPEN");
	if (!want || !*want || !path)
		return;
	size_t n = strlen(path), w = strlen(want);
	if (n < w || strcmp(path + n - w, want) != 0)
		return;
	const char *flag = getenv("HVREADY_TEST_BLOCK_FLAG");
	for (;;) {
		if (flag && access(flag, F_OK) != 0)
			return;
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

long syscall(long nr, ...);
long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "syscall");
	va_list ap;
	va_start(ap, nr);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_openat2)
		maybe_block((const char *)a[1]);
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int openat(int dirfd, const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "openat");
	va_list ap;
	va_start(ap, flags);
	mode_t mode = va_arg(ap, mode_t);
	va_end(ap);
	maybe_block(path);
	return real(dirfd, path, flags, mode);
}
