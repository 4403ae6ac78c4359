/*
 * The one harness for tests that read a host root: an agent context (options,
 * report, host root) over a fixture host root (tests/fixtures/hostroots/NAME,
 * see its README.md), over any directory, or over a scratch root that the test
 * fills file by file and that hf_close() removes again; then "run check Y on
 * it", "the finding of Y", "assert status", "assert evidence / text contains".
 *
 * Fixtures are found under $HVREADY_SRC, which ctest sets to the source tree
 * (CMakeLists.txt, set_tests_properties ENVIRONMENT). There is no fallback: a
 * test run outside ctest, or a fixture that is not there, fails with a message
 * that says which path was looked for.
 *
 * Every finding the harness hands out has passed hf_finding_ok(): a message, a
 * remediation, evidence when it is not PASS; assert_verdict() is assert_status()
 * that also wants a remediation on WARN, FAIL and UNKNOWN.
 */
#pragma once
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent.h"
#include "checks.h"
#include "scratch.h"
#include "test_src.h"

/* The node name of every harness report (no test depends on its value, only
 * on findings carrying the report's name: hf_finding_ok checks that). */
#define HF_NODE "test-node"

struct hostroot_fixture {
	struct agent_opts opts;
	struct node_report report;
	struct agent_ctx ctx;
	char *tmp; /* scratch host root that hf_close() removes, or NULL */
};

/* ---- where the fixtures are ---------------------------------------------------------- */

/* tests/fixtures/hostroots/NAME in the source tree ("" for the directory itself;
 * NAME may go on into the fixture, "a-debian-intel/proc/cpuinfo"); an absolute
 * NAME is taken as it is. Fails the test when it does not exist. */
static inline char *hf_fixture_path(const char *name)
{
	char *p;
	if (name[0] == '/') {
		p = xstrdup(name);
	} else {
		p = xasprintf("%s/tests/fixtures/hostroots/%s", test_src(), name);
	}
	struct stat st;
	if (stat(p, &st) < 0)
		fail_msg("fixture %s: %s (tests/fixtures/hostroots/README.md lists the host roots)",
			 p, strerror(errno));
	return p;
}

/* ---- fixture files ----------------------------------------------------------------------- */

/* The bytes of the fixture file NAME ("a-debian-intel/proc/cpuinfo"), NUL-terminated
 * (caller frees). */
static inline char *hf_fixture_read(const char *name, size_t *len)
{
	_cleanup_free_ char *src = hf_fixture_path(name);
	char *buf;
	int r = util_read_file(src, 1 << 20, &buf, len);
	if (r < 0)
		fail_msg("cannot read %s: %s", src, strerror(-r));
	return buf;
}

/* root/rel as a copy of the fixture file NAME. */
static inline void hf_put_fixture_file(const char *root, const char *rel, const char *name)
{
	size_t len;
	_cleanup_free_ char *buf = hf_fixture_read(name, &len);
	scratch_put(root, rel, buf, len);
}

/* ---- a host root ----------------------------------------------------------------------- */

/* A bare host root over the fixture NAME or an absolute directory, for the
 * readers that take a struct hostroot and no agent context. */
static inline void hf_hostroot(struct hostroot *hr, const char *name)
{
	_cleanup_free_ char *p = hf_fixture_path(name);
	int r = hostroot_open(hr, p);
	if (r < 0)
		fail_msg("cannot open host root %s: %s", p, strerror(-r));
}

/* An agent context (default options, an empty report of node HF_NODE) with no
 * host root, for the checks that only use the network (host.nfs.probe): hf_run
 * works on it, a read under the root fails. */
static inline void hf_open_no_root(struct hostroot_fixture *h)
{
	*h = (struct hostroot_fixture){0};
	agent_opts_init(&h->opts);
	h->report = (struct node_report){.node = xstrdup(HF_NODE)};
	h->ctx = (struct agent_ctx){.opts = &h->opts, .report = &h->report};
	h->ctx.root.fd = -1;
}

/* The fixture host root NAME, or an absolute directory the test owns. */
static inline void hf_open(struct hostroot_fixture *h, const char *name)
{
	hf_open_no_root(h);
	hf_hostroot(&h->ctx.root, name);
}

/* An empty scratch root; hf_write() and friends fill it, hf_close() removes it.
 * (A root that outlives one context, opened again and again, is a directory the
 * test owns: scratch_dir, scratch_put, hf_open on its path, scratch_remove.) */
static inline void hf_scratch(struct hostroot_fixture *h)
{
	char *tmp = scratch_dir();
	hf_open(h, tmp);
	h->tmp = tmp;
}

/* A scratch root that starts as a copy of a fixture, to change one thing in it. */
static inline void hf_scratch_from(struct hostroot_fixture *h, const char *fixture)
{
	_cleanup_free_ char *src = hf_fixture_path(fixture); /* before a scratch root to leave */
	hf_scratch(h);
	_cleanup_free_ char *cmd = xasprintf("cp -a '%s/.' '%s/'", src, h->tmp);
	if (system(cmd) != 0)
		fail_msg("%s failed", cmd);
}

static inline void hf_close(struct hostroot_fixture *h)
{
	node_report_clear(&h->report);
	agent_opts_clear(&h->opts);
	hostroot_close(&h->ctx.root);
	if (h->tmp)
		scratch_remove(h->tmp);
	*h = (struct hostroot_fixture){0};
}

/* ---- filling the scratch root --------------------------------------------------------- */

/* The scratch root of h (a fixture is never written to). */
static inline const char *hf_tmp(const struct hostroot_fixture *h, const char *rel)
{
	if (!h->tmp)
		fail_msg("%s: not a scratch host root (hf_scratch)", rel);
	return h->tmp;
}

static inline char *hf_path(struct hostroot_fixture *h, const char *rel)
{
	return xasprintf("%s/%s", hf_tmp(h, rel), rel);
}

static inline void hf_write_mode(struct hostroot_fixture *h, const char *rel, const void *data,
				 size_t len, mode_t mode)
{
	scratch_put_mode(hf_tmp(h, rel), rel, data, len, mode);
}

static inline void hf_write(struct hostroot_fixture *h, const char *rel, const char *text)
{
	hf_write_mode(h, rel, text, strlen(text), 0644);
}

/* An executable that exits 0. */
static inline void hf_exe(struct hostroot_fixture *h, const char *rel)
{
	hf_write_mode(h, rel, "#!/bin/sh\nexit 0\n", 17, 0755);
}

static inline void hf_mkdir(struct hostroot_fixture *h, const char *rel)
{
	_cleanup_free_ char *p = hf_path(h, rel);
	_cleanup_free_ char *slash = xasprintf("%s/", p);
	scratch_mkdirs(slash);
}

static inline void hf_symlink(struct hostroot_fixture *h, const char *rel, const char *target)
{
	_cleanup_free_ char *p = hf_path(h, rel);
	scratch_mkdirs(p);
	unlink(p);
	if (symlink(target, p) < 0)
		fail_msg("symlink %s: %s", p, strerror(errno));
}

static inline void hf_remove(struct hostroot_fixture *h, const char *rel)
{
	_cleanup_free_ char *p = hf_path(h, rel);
	_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", p);
	if (system(cmd) != 0)
		fail_msg("%s failed", cmd);
}

/* ---- findings ---------------------------------------------------------------------------- */

/* What every finding must have: its check's ID, the report's node (when it names
 * one), a message, a remediation, and evidence when it is not PASS. */
static inline void hf_finding_ok(const struct finding *f, const char *id)
{
	assert_non_null(f->check);
	assert_string_equal(f->check, id);
	if (f->node)
		assert_string_equal(f->node, HF_NODE);
	if (!f->message || !*f->message)
		fail_msg("%s: no message", id);
	assert_non_null(f->remediation);
	if (f->status != STATUS_PASS && f->evidence.n == 0)
		fail_msg("%s: %s without evidence: %s", id, status_name(f->status), f->message);
}

/* Runs one check; every finding it adds passes hf_finding_ok. Returns the first. */
static inline const struct finding *hf_run(struct hostroot_fixture *h, host_check_fn fn,
					   const char *id)
{
	size_t before = h->report.results.n;
	fn(&h->ctx, id);
	if (h->report.results.n <= before)
		fail_msg("%s produced no finding", id);
	for (size_t i = before; i < h->report.results.n; i++)
		hf_finding_ok(&h->report.results.items[i], id);
	return &h->report.results.items[before];
}

/* The only finding of id in the report (fails on none or more than one). */
static inline const struct finding *hf_finding(const struct hostroot_fixture *h, const char *id)
{
	const struct finding *found = NULL;
	for (size_t i = 0; i < h->report.results.n; i++) {
		if (!streq(h->report.results.items[i].check, id))
			continue;
		if (found)
			fail_msg("%s: more than one finding", id);
		found = &h->report.results.items[i];
	}
	if (!found)
		fail_msg("%s: no finding", id);
	hf_finding_ok(found, id);
	return found;
}

/* The status, with the message printed when it is not the expected one. */
#define assert_status(f, st)                                                                       \
	do {                                                                                       \
		const struct finding *f_ = (f);                                                    \
		enum status st_ = (st);                                                            \
		if (f_->status != st_)                                                             \
			fail_msg("%s: status %s, expected %s: %s", f_->check,                      \
				 status_name(f_->status), status_name(st_), f_->message);          \
	} while (0)

/* assert_status, and a WARN, FAIL or UNKNOWN must tell the operator what to do
 * (a remediation that is not empty). The report format allows an empty one, so
 * this is for the checks that promise it: host.kvm, host.cpu.virt, host.clock,
 * host.resources, the facts' checks, host.iscsi, host.multipathd, host.nfs.*,
 * host.longhorn.path (their tests use it for every status). */
#define assert_verdict(f, st)                                                                      \
	do {                                                                                       \
		const struct finding *v_ = (f);                                                    \
		enum status vst_ = (st);                                                           \
		assert_status(v_, vst_);                                                           \
		if ((vst_ == STATUS_WARN || vst_ == STATUS_FAIL || vst_ == STATUS_UNKNOWN) &&      \
		    (!v_->remediation || !*v_->remediation))                                       \
			fail_msg("%s: %s without a remediation", v_->check, status_name(vst_));    \
	} while (0)

/* ---- evidence ------------------------------------------------------------------------------ */

static inline const char *hf_ev_str(const struct finding *f, const char *key)
{
	const char *s = kv_get_str(&f->evidence, key);
	if (!s)
		fail_msg("%s: no string evidence \"%s\"", f->check, key);
	return s;
}

static inline int64_t hf_ev_int(const struct finding *f, const char *key)
{
	int64_t i = 0;
	if (!kv_get_int(&f->evidence, key, &i))
		fail_msg("%s: no int evidence \"%s\"", f->check, key);
	return i;
}

/* The string evidence key is want, or contains part. */
#define assert_evidence(f, key, want)	       assert_string_equal(hf_ev_str((f), (key)), (want))
#define assert_evidence_contains(f, key, part) assert_contains(hf_ev_str((f), (key)), (part))

/* A list of strings as "a,b,c" (caller frees; "" for no list). */
static inline char *hf_list_join(const struct value_list *l)
{
	char *s = xstrdup("");
	for (size_t i = 0; l && i < l->n; i++) {
		assert_int_equal(l->items[i].type, VALUE_STR);
		char *n = xasprintf("%s%s%s", s, i ? "," : "", l->items[i].s);
		free(s);
		s = n;
	}
	return s;
}
