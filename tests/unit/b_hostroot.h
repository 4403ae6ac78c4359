/*
 * Test harness for host checks: an agent context over a fixture host root
 * (tests/fixtures/hostroots/NAME) or over a scratch host root that a test
 * fills file by file, removed again at the end.
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
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "checks.h"

struct bctx {
	struct agent_opts opts;
	struct node_report rep;
	struct agent_ctx ctx;
	char *tmp; /* scratch host root, or NULL */
};

static inline char *b_fixture_path(const char *name)
{
	const char *src = getenv("HVREADY_SRC");
	if (!src)
		fail_msg("HVREADY_SRC is not set (run the test through ctest)");
	return xasprintf("%s/tests/fixtures/hostroots/%s", src, name);
}

static inline void b_open_dir(struct bctx *b, const char *dir)
{
	agent_opts_init(&b->opts);
	b->rep = (struct node_report){.node = xstrdup("test-node")};
	b->ctx = (struct agent_ctx){.opts = &b->opts, .report = &b->rep};
	int r = hostroot_open(&b->ctx.root, dir);
	if (r < 0)
		fail_msg("cannot open host root %s: %s", dir, strerror(-r));
}

static inline void b_fixture(struct bctx *b, const char *name)
{
	*b = (struct bctx){0};
	_cleanup_free_ char *p = b_fixture_path(name);
	b_open_dir(b, p);
}

static inline void b_scratch(struct bctx *b)
{
	*b = (struct bctx){0};
	char tmpl[] = "/tmp/hvready-test-b-XXXXXX";
	if (!mkdtemp(tmpl))
		fail_msg("mkdtemp: %s", strerror(errno));
	b->tmp = xstrdup(tmpl);
	b_open_dir(b, b->tmp);
}

/* A scratch root that starts as a copy of a fixture, to change one thing in it. */
static inline void b_scratch_from(struct bctx *b, const char *fixture)
{
	b_scratch(b);
	_cleanup_free_ char *src = b_fixture_path(fixture);
	_cleanup_free_ char *cmd = xasprintf("cp -a '%s/.' '%s/'", src, b->tmp);
	if (system(cmd) != 0)
		fail_msg("%s failed", cmd);
}

static inline void b_mkdirs(const char *path)
{
	_cleanup_free_ char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
}

static inline char *b_path(struct bctx *b, const char *rel)
{
	assert_non_null(b->tmp);
	return xasprintf("%s/%s", b->tmp, rel);
}

static inline void b_write_mode(struct bctx *b, const char *rel, const void *data, size_t len,
				mode_t mode)
{
	_cleanup_free_ char *p = b_path(b, rel);
	b_mkdirs(p);
	unlink(p);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		fail_msg("open %s: %s", p, strerror(errno));
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	fchmod(fd, mode);
	close(fd);
}

static inline void b_write(struct bctx *b, const char *rel, const char *text)
{
	b_write_mode(b, rel, text, strlen(text), 0644);
}

static inline void b_exe(struct bctx *b, const char *rel)
{
	b_write_mode(b, rel, "#!/bin/sh\nexit 0\n", 17, 0755);
}

static inline void b_mkdir(struct bctx *b, const char *rel)
{
	_cleanup_free_ char *p = b_path(b, rel);
	_cleanup_free_ char *slash = xasprintf("%s/", p);
	b_mkdirs(slash);
}

static inline void b_symlink(struct bctx *b, const char *rel, const char *target)
{
	_cleanup_free_ char *p = b_path(b, rel);
	b_mkdirs(p);
	unlink(p);
	if (symlink(target, p) < 0)
		fail_msg("symlink %s: %s", p, strerror(errno));
}

static inline void b_remove(struct bctx *b, const char *rel)
{
	_cleanup_free_ char *p = b_path(b, rel);
	_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", p);
	if (system(cmd) != 0)
		fail_msg("%s failed", cmd);
}

static inline int b_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

static inline void b_close(struct bctx *b)
{
	node_report_clear(&b->rep);
	agent_opts_clear(&b->opts);
	hostroot_close(&b->ctx.root);
	if (b->tmp) {
		nftw(b->tmp, b_rm_one, 16, FTW_DEPTH | FTW_PHYS);
		free(b->tmp);
	}
	*b = (struct bctx){0};
}

/* Run one check; returns its first finding. */
static inline const struct finding *b_run(struct bctx *b, host_check_fn fn, const char *id)
{
	size_t before = b->rep.results.n;
	fn(&b->ctx, id);
	assert_true(b->rep.results.n > before);
	for (size_t i = before; i < b->rep.results.n; i++) {
		const struct finding *f = &b->rep.results.items[i];
		assert_string_equal(f->check, id);
		assert_non_null(f->message);
		assert_true(*f->message);
		assert_non_null(f->remediation);
		if (f->status != STATUS_PASS)
			assert_true(f->evidence.n > 0);
	}
	return &b->rep.results.items[before];
}

#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (!h_ || !strstr(h_, n_))                                                        \
			fail_msg("expected \"%s\" in \"%s\"", n_, h_ ? h_ : "(null)");             \
	} while (0)

#define assert_status(f, st)                                                                       \
	do {                                                                                       \
		const struct finding *f_ = (f);                                                    \
		if (f_->status != (st))                                                            \
			fail_msg("%s: status %s, expected %s: %s", f_->check,                      \
				 status_name(f_->status), status_name(st), f_->message);           \
	} while (0)

static inline const char *b_ev(const struct finding *f, const char *key)
{
	const char *s = kv_get_str(&f->evidence, key);
	if (!s)
		fail_msg("%s: no string evidence \"%s\"", f->check, key);
	return s;
}
