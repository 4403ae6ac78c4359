/*
 * Scratch directories for unit tests, and assertions on text. A scratch
 * directory is made under /tmp (scratch_dir), filled file by file with the
 * parents created (scratch_put, scratch_write), and removed with all it holds
 * (scratch_remove); scratch_setup/scratch_teardown do the same as a cmocka
 * fixture, the directory in *state, removed even when the test fails.
 * hostroot_fixture.h builds its scratch host roots on this.
 */
#pragma once
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static inline char *scratch_dir(void)
{
	char tmpl[] = "/tmp/hvready-test-XXXXXX";
	if (!mkdtemp(tmpl))
		fail_msg("mkdtemp: %s", strerror(errno));
	return xstrdup(tmpl);
}

/* Every missing parent directory of path. */
static inline void scratch_mkdirs(const char *path)
{
	_cleanup_free_ char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				fail_msg("mkdir %s: %s", p, strerror(errno));
			*s = '/';
		}
}

/* dir/rel with these bytes and mode, parents created, whatever was there replaced. */
static inline void scratch_put_mode(const char *dir, const char *rel, const void *data, size_t len,
				    mode_t mode)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, rel);
	scratch_mkdirs(p);
	unlink(p);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		fail_msg("open %s: %s", p, strerror(errno));
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	fchmod(fd, mode);
	close(fd);
}

static inline void scratch_put(const char *dir, const char *rel, const void *data, size_t len)
{
	scratch_put_mode(dir, rel, data, len, 0644);
}

static inline void scratch_write(const char *dir, const char *rel, const char *text)
{
	scratch_put(dir, rel, text, strlen(text));
}

static inline int scratch_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

/* Removes dir with all it holds, and frees its name. */
static inline void scratch_remove(char *dir)
{
	if (nftw(dir, scratch_rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fail_msg("cannot remove %s: %s", dir, strerror(errno));
	free(dir);
}

/* cmocka setup and teardown: a scratch directory in *state. */
static inline int scratch_setup(void **state)
{
	*state = scratch_dir();
	return 0;
}

static inline int scratch_teardown(void **state)
{
	if (*state)
		scratch_remove(*state);
	*state = NULL;
	return 0;
}

#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (!h_ || !strstr(h_, n_))                                                        \
			fail_msg("expected \"%s\" in \"%s\"", n_, h_ ? h_ : "(null)");             \
	} while (0)

#define assert_not_contains(hay, needle)                                                           \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (!h_)                                                                           \
			fail_msg("expected a text without \"%s\", got (null)", n_);                \
		if (strstr(h_, n_))                                                                \
			fail_msg("did not expect \"%s\" in \"%s\"", n_, h_);                       \
	} while (0)
