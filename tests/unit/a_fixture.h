/*
 * Helpers for the host-check unit tests: an agent context on a fixture host
 * root (tests/fixtures/hostroots/NAME, or any directory), and lookups into the
 * findings and facts it produced. Include after <cmocka.h>.
 */
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "checks.h"

struct a_fixture {
	struct agent_opts opts;
	struct node_report report;
	struct agent_ctx ctx;
};

static inline char *a_fixture_path(const char *name)
{
	const char *src = getenv("HVREADY_SRC");
	if (name[0] == '/')
		return xstrdup(name);
	return xasprintf("%s/tests/fixtures/hostroots/%s", src ? src : ".", name);
}

static inline void a_fixture_open(struct a_fixture *h, const char *name)
{
	memset(h, 0, sizeof(*h));
	agent_opts_init(&h->opts);
	h->report.node = xstrdup("node-under-test");
	h->ctx.opts = &h->opts;
	h->ctx.report = &h->report;
	char *path = a_fixture_path(name);
	int r = hostroot_open(&h->ctx.root, path);
	if (r < 0)
		fprintf(stderr, "fixture %s: %s\n", path, strerror(-r));
	assert_int_equal(r, 0);
	free(path);
}

static inline void a_fixture_close(struct a_fixture *h)
{
	hostroot_close(&h->ctx.root);
	node_report_clear(&h->report);
	agent_opts_clear(&h->opts);
}

/* The only finding of id (asserts there is exactly one). */
static inline const struct finding *a_finding(const struct a_fixture *h, const char *id)
{
	const struct finding *found = NULL;
	for (size_t i = 0; i < h->report.results.n; i++) {
		if (!streq(h->report.results.items[i].check, id))
			continue;
		assert_null(found);
		found = &h->report.results.items[i];
	}
	assert_non_null(found);
	assert_non_null(found->message);
	assert_non_null(found->remediation);
	return found;
}

/* Status, with the message printed when it is not the expected one. */
static inline void a_expect(const struct finding *f, enum status want)
{
	if (f->status != want)
		fprintf(stderr, "%s: got %s (%s), want %s\n", f->check, status_name(f->status),
			f->message, status_name(want));
	assert_int_equal(f->status, want);
	/* Every non-PASS verdict tells the operator what to do. */
	if (want == STATUS_WARN || want == STATUS_FAIL || want == STATUS_UNKNOWN)
		assert_true(strlen(f->remediation) > 0);
}

static inline const char *a_ev_str(const struct finding *f, const char *key)
{
	const char *s = kv_get_str(&f->evidence, key);
	if (!s)
		fprintf(stderr, "%s: no string evidence \"%s\"\n", f->check, key);
	assert_non_null(s);
	return s;
}

static inline int64_t a_ev_int(const struct finding *f, const char *key)
{
	int64_t i = 0;
	if (!kv_get_int(&f->evidence, key, &i))
		fprintf(stderr, "%s: no int evidence \"%s\"\n", f->check, key);
	assert_true(kv_get_int(&f->evidence, key, &i));
	return i;
}

/* A list of strings as "a,b,c" (caller frees). */
static inline char *a_list_join(const struct value_list *l)
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

static inline bool a_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fprintf(stderr, "\"%s\" does not contain \"%s\"\n", haystack, needle);
	return strstr(haystack, needle) != NULL;
}

/* A scratch host root that the test fills (removed by a_tmp_clean). */
static inline char *a_tmp_root(void)
{
	char tmpl[] = "/tmp/hvready-a-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static inline void a_tmp_write(const char *root, const char *rel, const char *content, size_t len)
{
	char *path = xasprintf("%s/%s", root, rel);
	char *cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, len, f), len);
	fclose(f);
	free(cmd);
	free(path);
}

static inline void a_tmp_clean(char *root)
{
	char *cmd = xasprintf("rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(root);
}
