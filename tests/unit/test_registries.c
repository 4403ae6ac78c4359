/*
 * registries.yaml as RKE2 reads it, the endpoints containerd tries because of
 * it (k3s's hosts.toml rules), mirror rewrites, WWW-Authenticate challenges,
 * and the statuses of host.image.share-manager that need no registry (the
 * ones with a registry are in tests/integration/image_share_manager.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "hostroot_fixture.h"
#include "loopback.h"
#include "oci_client.h"
#include "registries.h"

static void parse_ok(const char *text, struct registries *r)
{
	char err[256];
	if (registries_parse((const uint8_t *)text, strlen(text), "registries.yaml", r, err,
			     sizeof(err)) < 0)
		fail_msg("refused: %s", err);
}

static void parse_bad(const char *text, const char *expect)
{
	struct registries r;
	char err[256] = "";
	if (registries_parse((const uint8_t *)text, strlen(text),
			     "/etc/rancher/rke2/registries.yaml", &r, err, sizeof(err)) == 0) {
		registries_clear(&r);
		fail_msg("accepted:\n%s", text);
	}
	if (!strstr(err, expect))
		fail_msg("expected \"%s\" in \"%s\"", expect, err);
}

/* The "With TLS / With Authentication" example of RKE2's docs, plus rewrites. */
static void test_parse_docs_example(void **state)
{
	struct registries r;
	parse_ok("mirrors:\n"
		 "  docker.io:\n"
		 "    endpoint:\n"
		 "      - \"https://registry.example.com:5000\"\n"
		 "    rewrite:\n"
		 "      \"^rancher/(.*)\": \"mirrorproject/rancher-images/$1\"\n"
		 "      \"^longhornio/(.*)\": \"mirrorproject/longhorn/$1\"\n"
		 "configs:\n"
		 "  \"registry.example.com:5000\":\n"
		 "    auth:\n"
		 "      username: xxxxxx # this is the registry username\n"
		 "      password: xxxxxx # this is the registry password\n"
		 "    tls:\n"
		 "      cert_file: /etc/ssl/client.pem\n"
		 "      key_file: /etc/ssl/client.key\n"
		 "      ca_file: /etc/ssl/ca.pem\n"
		 "      insecure_skip_verify: no\n"
		 "  \"docker.io\":\n"
		 "  \"*\":\n"
		 "    tls:\n"
		 "      insecure_skip_verify: true\n",
		 &r);
	const struct registry_mirror *m = registries_mirror(&r, "docker.io");
	assert_non_null(m);
	assert_int_equal(m->endpoints.n, 1);
	assert_int_equal(m->n_rewrites, 2);
	/* Sorted by pattern, as k3s renders them. */
	assert_string_equal(m->rewrites[0].pattern, "^longhornio/(.*)");
	assert_string_equal(m->rewrites[1].replacement, "mirrorproject/rancher-images/$1");
	const struct registry_config *c = registries_config(&r, "registry.example.com:5000");
	assert_true(c->has_auth && c->has_tls);
	assert_string_equal(c->username, "xxxxxx");
	assert_string_equal(c->ca_file, "/etc/ssl/ca.pem");
	assert_false(c->insecure_skip_verify);
	assert_int_equal(c->line, 10);
	c = registries_config(&r, "docker.io");
	assert_non_null(c);
	assert_false(c->has_auth || c->has_tls);
	assert_true(registries_config(&r, "*")->insecure_skip_verify);
	registries_clear(&r);

	parse_ok("", &r);
	assert_int_equal(r.n_mirrors + r.n_configs, 0);
	registries_clear(&r);
	parse_ok("mirrors:\nconfigs: ~\nunknown: 1\n", &r);
	registries_clear(&r);
	parse_ok("mirrors: {\"registry.local\": {}}\n", &r);
	assert_int_equal(registries_mirror(&r, "registry.local")->endpoints.n, 0);
	registries_clear(&r);
}

static void test_parse_errors(void **state)
{
	parse_bad("mirrors:\n  docker.io:\n    endpoint: https://x\n",
		  "/etc/rancher/rke2/registries.yaml:3: \"endpoint\" of mirror \"docker.io\" must "
		  "be a list of URLs");
	parse_bad("mirrors:\n  docker.io:\n    endpoint:\n      - {url: x}\n",
		  "registries.yaml:4: an endpoint must be a string");
	parse_bad("- mirrors\n", "registries.yaml:1: the top level must be a mapping");
	parse_bad("mirrors: [docker.io]\n", ":1: \"mirrors\" must be a mapping");
	parse_bad("configs:\n  r:\n    tls:\n      insecure_skip_verify: \"true\"\n",
		  ":4: tls.insecure_skip_verify must be true or false");
	parse_bad("configs:\n  r:\n    auth: [a]\n", ":3: \"auth\" must be a mapping");
	parse_bad("mirrors:\n  docker.io:\n    rewrite: [\"^a\"]\n",
		  ":3: \"rewrite\" must be a mapping");
	parse_bad("mirrors:\n  docker.io:\n   endpoint:\n  - x\n", ":4: invalid YAML");
	parse_bad("mirrors:\n\tdocker.io: {}\n", ":2: invalid YAML");
}

/* ---- endpoint plans ---- */

/* The registries a plan points into (mirror rules, configs): replaced by each plan(). */
static struct registries plan_regs;

static struct registry_plan plan(const char *yaml, const char *registry, bool no_default)
{
	struct registry_plan p;
	registries_clear(&plan_regs);
	if (yaml)
		parse_ok(yaml, &plan_regs);
	assert_int_equal(registries_plan(yaml ? &plan_regs : NULL, registry, no_default, NULL, &p),
			 0);
	return p;
}

static int teardown_plan(void **state)
{
	registries_clear(&plan_regs);
	return 0;
}

static void expect_urls(const struct registry_plan *p, const char *const *urls, size_t n)
{
	if (p->n != n) {
		for (size_t i = 0; i < p->n; i++)
			print_message("  got %s\n", p->eps[i].url);
		fail_msg("expected %zu endpoints, got %zu", n, p->n);
	}
	for (size_t i = 0; i < n; i++)
		assert_string_equal(p->eps[i].url, urls[i]);
}

static void test_plan_defaults(void **state)
{
	struct registry_plan p = plan(NULL, "docker.io", false);
	expect_urls(&p, (const char *[]){"https://registry-1.docker.io/v2"}, 1);
	assert_true(p.eps[0].is_default);
	assert_null(p.mirror_key);
	registry_plan_clear(&p);
	p = plan(NULL, "registry.example.com:5000", false);
	expect_urls(&p, (const char *[]){"https://registry.example.com:5000/v2"}, 1);
	registry_plan_clear(&p);
	/* localhost on a port other than 443 is plain HTTP, as in containerd. */
	p = plan(NULL, "127.0.0.1:5000", false);
	expect_urls(&p, (const char *[]){"http://127.0.0.1:5000/v2"}, 1);
	registry_plan_clear(&p);
	p = plan(NULL, "localhost:443", false);
	expect_urls(&p, (const char *[]){"https://localhost:443/v2"}, 1);
	registry_plan_clear(&p);
	p = plan(NULL, "[::1]:5000", false);
	expect_urls(&p, (const char *[]){"http://[::1]:5000/v2"}, 1);
	registry_plan_clear(&p);
	/* No mirror entry: disable-default-registry-endpoint does not apply. */
	p = plan(NULL, "docker.io", true);
	assert_int_equal(p.n, 1);
	registry_plan_clear(&p);
}

static void test_plan_mirrors(void **state)
{
	const char *yaml = "mirrors:\n"
			   "  docker.io:\n"
			   "    endpoint:\n"
			   "      - mirror.example.com:5000\n"
			   "      - \"https://harbor.example.com/v2/proxy-cache\"\n"
			   "      - \"http://localhost:5000/\"\n"
			   "      - \"ftp://nope\"\n"
			   "      - \"https://mirror.example.com:5000/v2\"\n"
			   "      - \"https://user:pw@secret.example.com\"\n"
			   "      - \"https://docker.io\"\n"
			   "configs:\n"
			   "  mirror.example.com:5000:\n"
			   "    tls: {ca_file: /etc/ssl/site-ca.pem}\n";
	struct registry_plan p = plan(yaml, "docker.io", false);
	/* The last endpoint is Docker Hub itself: it becomes the default (tried last). */
	expect_urls(&p,
		    (const char *[]){"https://mirror.example.com:5000/v2",
				     "https://harbor.example.com/v2/proxy-cache",
				     "http://localhost:5000/v2", "https://registry-1.docker.io/v2"},
		    4);
	assert_string_equal(p.mirror_key, "docker.io");
	assert_false(p.eps[0].override_path);
	assert_true(p.eps[1].override_path);
	assert_string_equal(p.eps[0].config->ca_file, "/etc/ssl/site-ca.pem");
	assert_null(p.eps[1].config);
	assert_false(p.eps[0].is_default);
	assert_true(p.eps[3].is_default);
	assert_string_equal(p.eps[0].origin, "mirrors.\"docker.io\".endpoint[0]");
	assert_int_equal(p.notes.n, 3);
	assert_non_null(strstr(p.notes.items[0], "endpoint[3] \"ftp://nope\" ignored: the scheme"));
	assert_non_null(strstr(p.notes.items[1], "endpoint[4]"));
	assert_non_null(strstr(p.notes.items[1], "listed twice"));
	assert_non_null(strstr(p.notes.items[2], "credentials in endpoint URLs"));
	registry_plan_clear(&p);

	/* With disable-default-registry-endpoint the same last endpoint stays a mirror. */
	p = plan(yaml, "docker.io", true);
	assert_int_equal(p.n, 4);
	assert_false(p.eps[3].is_default);
	assert_true(p.default_removed);
	registry_plan_clear(&p);
}

static void test_plan_wildcard(void **state)
{
	const char *yaml = "mirrors:\n"
			   "  \"*\":\n"
			   "    endpoint: [\"https://cache.example.com\"]\n"
			   "  quay.io:\n"
			   "    endpoint: [\"https://quay-mirror.example.com\"]\n"
			   "configs:\n"
			   "  registry.example.com:\n"
			   "    tls: {insecure_skip_verify: true}\n"
			   "  empty.example.com:\n"
			   "  \"*\":\n"
			   "    auth: {username: u, password: p}\n";
	/* No entry of its own: the wildcard, then the default with the "*" config. */
	struct registry_plan p = plan(yaml, "docker.io", false);
	expect_urls(
	    &p, (const char *[]){"https://cache.example.com/v2", "https://registry-1.docker.io/v2"},
	    2);
	assert_string_equal(p.mirror_key, "*");
	assert_string_equal(p.eps[1].config->username, "u");
	registry_plan_clear(&p);
	/* A specific mirror wins over the wildcard. */
	p = plan(yaml, "quay.io", false);
	expect_urls(
	    &p, (const char *[]){"https://quay-mirror.example.com/v2", "https://quay.io/v2"}, 2);
	registry_plan_clear(&p);
	/* A configs entry with TLS settings is an entry of its own: no wildcard mirror. */
	p = plan(yaml, "registry.example.com", false);
	expect_urls(&p, (const char *[]){"https://registry.example.com/v2"}, 1);
	assert_true(p.eps[0].config->insecure_skip_verify);
	registry_plan_clear(&p);
	/* An empty configs entry writes no hosts.toml: the wildcard applies. */
	p = plan(yaml, "empty.example.com", false);
	expect_urls(
	    &p, (const char *[]){"https://cache.example.com/v2", "https://empty.example.com/v2"},
	    2);
	registry_plan_clear(&p);
	/* disable-default-registry-endpoint removes the fallback behind the wildcard too. */
	p = plan(yaml, "docker.io", true);
	expect_urls(&p, (const char *[]){"https://cache.example.com/v2"}, 1);
	assert_true(p.default_removed);
	registry_plan_clear(&p);
}

static void test_plan_disable_default_with_config(void **state)
{
	/* k3s keeps the default endpoint of a registry that also has a configs entry. */
	const char *yaml = "mirrors:\n"
			   "  registry.example.com:\n"
			   "    endpoint: [\"https://mirror.example.com\"]\n"
			   "configs:\n"
			   "  registry.example.com:\n"
			   "    auth: {username: a, password: b}\n";
	struct registry_plan p = plan(yaml, "registry.example.com", true);
	expect_urls(
	    &p,
	    (const char *[]){"https://mirror.example.com/v2", "https://registry.example.com/v2"},
	    2);
	assert_string_equal(p.eps[1].config->username, "a");
	registry_plan_clear(&p);
	/* A mirror entry whose endpoints are all invalid and nothing else: defaults. */
	p = plan("mirrors:\n  docker.io:\n    endpoint: [\"gopher://x\"]\n", "docker.io", false);
	expect_urls(&p, (const char *[]){"https://registry-1.docker.io/v2"}, 1);
	assert_int_equal(p.notes.n, 1);
	registry_plan_clear(&p);
	/* Test override: the default endpoint moves, mirror comparisons do not. */
	struct registries r = {0};
	parse_ok("mirrors:\n  docker.io:\n    endpoint: [\"https://registry-1.docker.io\"]\n", &r);
	assert_int_equal(registries_plan(&r, "docker.io", false, "http://127.0.0.1:9/v2", &p), 0);
	expect_urls(&p, (const char *[]){"http://127.0.0.1:9/v2"}, 1);
	assert_true(p.eps[0].is_default);
	registry_plan_clear(&p);
	registries_clear(&r);
}

static void test_localhost(void **state)
{
	assert_true(registries_is_localhost("localhost"));
	assert_true(registries_is_localhost("localhost:5000"));
	assert_true(registries_is_localhost("127.0.0.1"));
	assert_true(registries_is_localhost("127.8.9.10:80"));
	assert_true(registries_is_localhost("[::1]:5000"));
	assert_true(registries_is_localhost("::1"));
	assert_false(registries_is_localhost("10.0.0.1:5000"));
	assert_false(registries_is_localhost("localhost.example.com"));
	assert_false(registries_is_localhost("[::2]:5000"));
	assert_false(registries_is_localhost(""));
}

/* ---- rewrites ---- */

static void rw(const char *yaml_rules, const char *repo, const char *expect,
	       const char *expect_rule)
{
	struct registries r = {0};
	char *yaml = NULL;
	yaml = xasprintf("mirrors:\n  docker.io:\n    endpoint: [\"https://m\"]\n    rewrite:\n%s",
			 yaml_rules);
	parse_ok(yaml, &r);
	const char *rule, *why;
	char *out = registries_rewrite(registries_mirror(&r, "docker.io"), repo, &rule, &why);
	if (!expect) {
		assert_null(out);
		assert_non_null(why);
	} else {
		if (!out || !streq(out, expect))
			fail_msg("rewrite of %s: got %s (%s), expected %s", repo,
				 out ? out : "NULL", why ? why : "", expect);
		if (expect_rule)
			assert_string_equal(rule, expect_rule);
		else
			assert_null(rule);
	}
	free(out);
	free(yaml);
	registries_clear(&r);
}

static void test_rewrites(void **state)
{
	rw("      \"^longhornio/(.*)\": \"mirror/longhornio/$1\"\n",
	   "longhornio/longhorn-share-manager", "mirror/longhornio/longhorn-share-manager",
	   "^longhornio/(.*)");
	rw("      \"^rancher/(.*)\": \"x/$1\"\n", "longhornio/longhorn-share-manager",
	   "longhornio/longhorn-share-manager", NULL);
	/* ${1}, $$, and a name that is not a group (expands to nothing, as in Go). */
	rw("      \"^(longhornio)/(.*)$\": \"${1}_cache/$2$$x$name\"\n", "longhornio/a",
	   "longhornio_cache/a$x", "^(longhornio)/(.*)$");
	/* $1x is the group named "1x": nothing. */
	rw("      \"^(a)/(b)\": \"$1x/$2\"\n", "a/b", "/b", "^(a)/(b)");
	/* Rules in pattern order; the first that changes the name wins. */
	rw("      \"^longhornio/\": \"second/\"\n      \"^long\": \"first-\"\n", "longhornio/x",
	   "first-hornio/x", "^long");
	/* ReplaceAll: every match, not only the first. */
	rw("      \"o\": \"0\"\n", "longhornio/foo", "l0ngh0rni0/f00", "o");
	/* Go syntax the agent translates: \\d and (?:...) with group renumbering. */
	rw("      \"^(?:library|longhornio)/(.*)-manager$\": \"m/$1\"\n",
	   "longhornio/longhorn-share-manager", "m/longhorn-share",
	   "^(?:library|longhornio)/(.*)-manager$");
	rw("      \"v\\\\d+\": \"vN\"\n", "longhornio/v12-x", "longhornio/vN-x", "v\\d+");
	/* Empty matches: Go inserts at every position but not right after a match. */
	rw("      \"x*\": \"-\"\n", "abc", "-a-b-c-", "x*");
	/* Syntax POSIX cannot do: the endpoint's repository is unknown. */
	rw("      \"^(?P<ns>[a-z]+)/(.*)\": \"$2\"\n", "longhornio/x", NULL, NULL);
	rw("      \"^lo.*?/(.*)\": \"$1\"\n", "longhornio/x", NULL, NULL);
	rw("      \"^(unclosed\": \"x\"\n", "longhornio/x", NULL, NULL);
}

/* ---- WWW-Authenticate ---- */

static void test_challenges(void **state)
{
	struct oci_challenge c;
	assert_int_equal(oci_parse_challenge("Bearer realm=\"https://auth.docker.io/token\","
					     "service=\"registry.docker.io\",scope=\"repository:"
					     "longhornio/longhorn-share-manager:pull\"",
					     &c),
			 0);
	assert_string_equal(c.scheme, "bearer");
	assert_string_equal(c.realm, "https://auth.docker.io/token");
	assert_string_equal(c.service, "registry.docker.io");
	assert_string_equal(c.scope, "repository:longhornio/longhorn-share-manager:pull");
	assert_null(c.error);
	oci_challenge_clear(&c);
	/* Two challenges: Bearer wins over Basic; odd spacing, escapes, unknown params. */
	assert_int_equal(oci_parse_challenge("Basic realm=\"Harbor\" , BEARER   realm = "
					     "\"https://h/service/token\", service=harbor-registry,"
					     " error=\"insufficient_scope\", x=\"a\\\"b\"",
					     &c),
			 0);
	assert_string_equal(c.scheme, "bearer");
	assert_string_equal(c.realm, "https://h/service/token");
	assert_string_equal(c.service, "harbor-registry");
	assert_string_equal(c.error, "insufficient_scope");
	oci_challenge_clear(&c);
	assert_int_equal(oci_parse_challenge("Basic realm=\"Registry Realm\"", &c), 0);
	assert_string_equal(c.scheme, "basic");
	assert_string_equal(c.realm, "Registry Realm");
	oci_challenge_clear(&c);
	assert_int_equal(oci_parse_challenge("Negotiate abcdef==", &c), -EINVAL);
	assert_int_equal(oci_parse_challenge("", &c), -EINVAL);
	assert_int_equal(oci_parse_challenge("Bearer realm=\"unterminated", &c), 0);
	assert_string_equal(c.realm, "unterminated");
	oci_challenge_clear(&c);
}

/* ---- the check, without a registry ---- */

struct run {
	struct hostroot_fixture h;
	const struct finding *f;
};

static void run_check(struct run *run, const char *fixture, const char *image)
{
	hf_open(&run->h, fixture);
	run->h.opts.timeout_s = 2;
	if (image)
		run->h.opts.targets.share_manager_image = xstrdup(image);
	run->f = hf_run(&run->h, check_image_share_manager, "host.image.share-manager");
	assert_int_equal(run->h.report.results.n, 1);
}

static void run_clear(struct run *run)
{
	hf_close(&run->h);
}

static int setup_env(void **state)
{
	char v[64];
	snprintf(v, sizeof(v), "docker.io=http://127.0.0.1:%d", loopback_closed_port());
	/* Docker Hub is never contacted from a test. */
	setenv("HVREADY_TEST_DEFAULT_ENDPOINT", v, 1);
	return 0;
}

static void test_check_unknown(void **state)
{
	struct run run;
	run_check(&run, "c-registries-broken", NULL);
	assert_int_equal(run.f->status, STATUS_UNKNOWN);
	assert_non_null(
	    strstr(run.f->message, "/etc/rancher/rke2/registries.yaml:7: invalid YAML"));
	assert_true(*run.f->remediation);
	run_clear(&run);

	run_check(&run, "c-rke2-v133-nonroot", "Longhornio/Longhorn-Share-Manager:v1");
	assert_int_equal(run.f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(run.f->message, "must be lowercase"));
	assert_string_equal(kv_get_str(&run.f->evidence, "image_source"), "probe targets");
	run_clear(&run);

	run_check(&run, "c-rke2-broken-yaml", NULL);
	assert_int_equal(run.f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(run.f->message, "/etc/rancher/rke2/config.yaml:4"));
	run_clear(&run);

	/* A rewrite the agent cannot evaluate leaves that mirror's answer open. */
	run_check(&run, "c-registries-go-rewrite", NULL);
	assert_int_equal(run.f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(run.f->message, "rewrite could not be evaluated"));
	run_clear(&run);
}

static void test_check_fail_unreachable(void **state)
{
	struct run run;
	run_check(&run, "c-rke2-v133-default", NULL);
	assert_int_equal(run.f->status, STATUS_FAIL);
	assert_non_null(strstr(
	    run.f->message, "longhornio/longhorn-share-manager:v1.11.2 cannot be pulled: tried 1 "
			    "endpoint"));
	assert_string_equal(kv_get_str(&run.f->evidence, "image_source"),
			    "default: Longhorn v1.11.2's share-manager (Harvester v1.8.2)");
	assert_string_equal(kv_get_str(&run.f->evidence, "resolved_image"),
			    "docker.io/longhornio/longhorn-share-manager:v1.11.2");
	assert_non_null(strstr(run.f->remediation, "This node cannot reach docker.io"));
	assert_non_null(strstr(run.f->remediation, "/etc/rancher/rke2/registries.yaml"));
	const struct value_list *eps = kv_get_list(&run.f->evidence, "endpoints");
	assert_int_equal(eps->n, 1);
	assert_string_equal(kv_get_str(&eps->items[0].map, "result"), "unreachable");
	run_clear(&run);

	/* k3s: its own registries.yaml, mirror first (unreachable too), then the default. */
	run_check(&run, "c-registries-k3s", NULL);
	assert_int_equal(run.f->status, STATUS_FAIL);
	assert_string_equal(kv_get_str(&run.f->evidence, "registries_yaml"),
			    "/etc/rancher/k3s/registries.yaml");
	eps = kv_get_list(&run.f->evidence, "endpoints");
	assert_int_equal(eps->n, 2);
	assert_string_equal(kv_get_str(&eps->items[0].map, "repository"),
			    "platform/longhornio/longhorn-share-manager");
	assert_non_null(strstr(run.f->remediation, "Make the mirror endpoints"));
	const struct kv_list *proxy = &kv_get(&run.f->evidence, "proxy")->map;
	assert_string_equal(kv_get_str(proxy, "no_proxy"), "127.0.0.0/8,localhost,.svc");
	run_clear(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_docs_example),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_plan_defaults),
	    cmocka_unit_test(test_plan_mirrors),
	    cmocka_unit_test(test_plan_wildcard),
	    cmocka_unit_test(test_plan_disable_default_with_config),
	    cmocka_unit_test(test_localhost),
	    cmocka_unit_test(test_rewrites),
	    cmocka_unit_test(test_challenges),
	    cmocka_unit_test(test_check_unknown),
	    cmocka_unit_test(test_check_fail_unreachable),
	};
	return cmocka_run_group_tests(tests, setup_env, teardown_plan);
}
