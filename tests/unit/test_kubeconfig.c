/* kubeconfig parsing and the API client's construction (no network). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kube_client.h"
#include "kubeconfig.h"
#include "scratch.h"
#include "test_src.h"

static char *fixture(const char *rel)
{
	return xasprintf("%s/tests/fixtures/cluster/source/kubeconfig/%s", test_src(), rel);
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	assert_int_equal(util_read_file(path, 1 << 20, &buf, NULL), 0);
	return buf;
}

static void write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int parse(const char *yaml, const char *context, struct kubeconfig *kc, char *err)
{
	return kubeconfig_parse((const uint8_t *)yaml, strlen(yaml), "test.yaml", "/etc/kube",
				context, kc, err, SOURCE_ERR_LEN);
}

/* RKE2's /etc/rancher/rke2/rke2.yaml as the server writes it. */
static void test_rke2(void **state)
{
	_cleanup_free_ char *path = fixture("rke2.yaml");
	struct kubeconfig kc;
	char err[SOURCE_ERR_LEN] = "";
	assert_int_equal(kubeconfig_load(path, NULL, &kc, err, sizeof(err)), 0);
	assert_string_equal(kc.context, "default");
	assert_string_equal(kc.server, "https://127.0.0.1:6443");
	assert_non_null(kc.ca_data.data);
	assert_true(kubeconfig_pem_valid(KUBECONFIG_PEM_CA, kc.ca_data.data, kc.ca_data.len));
	assert_true(kubeconfig_pem_valid(KUBECONFIG_PEM_CERT, kc.cert_data.data, kc.cert_data.len));
	assert_true(kubeconfig_pem_valid(KUBECONFIG_PEM_KEY, kc.key_data.data, kc.key_data.len));
	assert_null(kc.ca_file);
	assert_null(kc.cert_file);
	assert_null(kc.token);
	assert_null(kc.token_file);
	assert_false(kc.insecure);

	struct kube_client *cl = NULL;
	assert_int_equal(kube_client_new(&kc, &cl, err, sizeof(err)), 0);
	assert_string_equal(kube_client_server(cl), "https://127.0.0.1:6443");
	assert_string_equal(kube_client_origin(cl), path);
	kube_client_free(cl);
	kubeconfig_clear(&kc);

	assert_int_equal(kube_client_new_kubeconfig(path, &cl, err, sizeof(err)), 0);
	assert_int_equal(kube_client_list_limit(cl), KUBE_CLIENT_LIST_LIMIT);
	assert_int_equal(kube_client_timeout_ms(cl), KUBE_CLIENT_TIMEOUT_MS);
	kube_client_free(cl);
}

/* File paths relative to the kubeconfig's directory; other contexts. */
static void test_paths_and_contexts(void **state)
{
	_cleanup_free_ char *path = fixture("paths/config");
	_cleanup_free_ char *dir = fixture("paths");
	_cleanup_free_ char *ca = xasprintf("%s/certs/ca.crt", dir);
	_cleanup_free_ char *crt = xasprintf("%s/certs/admin.crt", dir);
	_cleanup_free_ char *key = xasprintf("%s/certs/admin.key", dir);
	_cleanup_free_ char *tok = xasprintf("%s/certs/token", dir);
	struct kubeconfig kc;
	char err[SOURCE_ERR_LEN] = "";

	assert_int_equal(kubeconfig_load(path, NULL, &kc, err, sizeof(err)), 0);
	assert_string_equal(kc.context, "admin@rke2");
	assert_string_equal(kc.server, "https://rke2.example.internal:6443");
	assert_string_equal(kc.tls_server_name, "kubernetes.default.svc");
	assert_string_equal(kc.ca_file, ca);
	assert_string_equal(kc.cert_file, crt);
	assert_string_equal(kc.key_file, key);
	assert_null(kc.ca_data.data);
	struct kube_client *cl = NULL;
	assert_int_equal(kube_client_new(&kc, &cl, err, sizeof(err)), 0);
	kube_client_free(cl);
	kubeconfig_clear(&kc);

	assert_int_equal(kubeconfig_load(path, "sa@rke2", &kc, err, sizeof(err)), 0);
	assert_string_equal(kc.token_file, tok);
	assert_null(kc.token); /* tokenFile wins: it can be rotated */
	assert_null(kc.cert_file);
	kubeconfig_clear(&kc);

	assert_int_equal(kubeconfig_load(path, "inline-token@rancher", &kc, err, sizeof(err)), 0);
	assert_string_equal(kc.server, "https://rancher.example.internal/k8s/clusters/c-m-7x2kq");
	assert_true(kc.insecure);
	assert_string_equal(kc.token, "kubeconfig-user-7x2kq:q8l5wz2n4m9cbvx6hzfk7j2dtr4s");
	kubeconfig_clear(&kc);

	assert_int_equal(kubeconfig_load(path, "nope", &kc, err, sizeof(err)), -EINVAL);
	assert_contains(err, path);
	assert_contains(err, "context \"nope\" not found");
}

/* A kubeconfig with one context; server, extra cluster lines and the user map. */
#define BASE                                                                                       \
	"apiVersion: v1\n"                                                                         \
	"kind: Config\n"                                                                           \
	"current-context: c\n"                                                                     \
	"contexts:\n"                                                                              \
	"- name: c\n"                                                                              \
	"  context: {cluster: k, user: u}\n"                                                       \
	"clusters:\n"                                                                              \
	"- name: k\n"                                                                              \
	"  cluster:\n"                                                                             \
	"    server: %s\n"                                                                         \
	"%s"                                                                                       \
	"users:\n"                                                                                 \
	"- name: u\n"                                                                              \
	"  user:\n"                                                                                \
	"%s"

static int parse_fmt(const char *server, const char *cluster_extra, const char *user,
		     struct kubeconfig *kc, char *err)
{
	_cleanup_free_ char *y = xasprintf(BASE, server, cluster_extra, user);
	return parse(y, NULL, kc, err);
}

static void test_tokens(void **state)
{
	struct kubeconfig kc;
	char err[SOURCE_ERR_LEN] = "";
	assert_int_equal(parse_fmt("https://10.0.0.1:6443", "", "    token: abc.def\n", &kc, err),
			 0);
	assert_string_equal(kc.token, "abc.def");
	assert_null(kc.token_file);
	kubeconfig_clear(&kc);

	assert_int_equal(
	    parse_fmt("https://10.0.0.1:6443", "", "    tokenFile: secrets/tok\n", &kc, err), 0);
	assert_string_equal(kc.token_file, "/etc/kube/secrets/tok");
	kubeconfig_clear(&kc);

	assert_int_equal(
	    parse_fmt("https://10.0.0.1:6443", "", "    tokenFile: /abs/tok\n", &kc, err), 0);
	assert_string_equal(kc.token_file, "/abs/tok");
	kubeconfig_clear(&kc);

	/* YAML 1.1 booleans as kubectl's YAML reader takes them */
	assert_int_equal(parse_fmt("http://127.0.0.1:8001", "    insecure-skip-tls-verify: yes\n",
				   "    {}\n", &kc, err),
			 0);
	assert_true(kc.insecure);
	assert_string_equal(kc.server, "http://127.0.0.1:8001");
	kubeconfig_clear(&kc);
}

static void expect_error(const char *server, const char *cluster_extra, const char *user,
			 const char *message)
{
	struct kubeconfig kc;
	char err[SOURCE_ERR_LEN] = "";
	assert_int_equal(parse_fmt(server, cluster_extra, user, &kc, err), -EINVAL);
	assert_contains(err, "test.yaml: ");
	assert_contains(err, message);
	assert_null(strchr(err, '\n'));
}

static void test_refused(void **state)
{
	const char *s = "https://10.0.0.1:6443";
	expect_error(s, "",
		     "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
		     "      command: kubelogin\n",
		     "exec credential plugin (kubelogin), which is unsupported");
	expect_error(s, "", "    auth-provider:\n      name: oidc\n",
		     "auth-provider plugin \"oidc\", which is unsupported");
	expect_error(s, "", "    username: admin\n    password: x\n", "basic authentication");
	expect_error(s, "", "    token: t\n    as: someone\n", "impersonation");
	expect_error(s, "", "    client-certificate: a.crt\n",
		     "has a client certificate but no client key");
	expect_error(s, "", "    client-key-data: '!!!notbase64'\n",
		     "client-key-data is not valid base64");
	/* "hello world" in base64: not a PEM */
	expect_error(s, "", "    client-certificate-data: aGVsbG8gd29ybGQ=\n",
		     "client-certificate-data does not hold a PEM certificate");
	expect_error(s, "    insecure-skip-tls-verify: true\n    certificate-authority: ca.crt\n",
		     "    {}\n", "contradictory");
	expect_error(s, "    insecure-skip-tls-verify: maybe\n", "    {}\n", "not a boolean");
	expect_error("ftp://10.0.0.1", "", "    {}\n", "is not an http(s):// URL");
	expect_error("'https://a b'", "", "    {}\n", "not a valid URL");
}

static void test_bad_documents(void **state)
{
	struct kubeconfig kc;
	char err[SOURCE_ERR_LEN] = "";
	assert_int_equal(parse("clusters: [\n  - {name: x\n", NULL, &kc, err), -EINVAL);
	assert_contains(err, "test.yaml:2: invalid YAML: did not find expected node content");
	assert_int_equal(parse("just a string\n", NULL, &kc, err), -EINVAL);
	assert_contains(err, "not a kubeconfig");
	assert_int_equal(parse("", NULL, &kc, err), -EINVAL);
	assert_contains(err, "not a kubeconfig");
	assert_int_equal(parse("apiVersion: v1\nkind: Config\n", NULL, &kc, err), -EINVAL);
	assert_contains(err, "no current-context");
	assert_int_equal(
	    parse("current-context: a\ncontexts:\n- name: a\n  context: {cluster: k}\n", NULL, &kc,
		  err),
	    -EINVAL);
	assert_contains(err, "names cluster \"k\", which is not in clusters");
	assert_int_equal(parse("current-context: a\ncontexts:\n- name: a\n  context: {user: u}\n",
			       NULL, &kc, err),
			 -EINVAL);
	assert_contains(err, "names no cluster");
	assert_int_equal(parse("current-context: a\ncontexts:\n- name: a\n  context: {cluster: k, "
			       "user: u}\nclusters:\n- name: k\n  cluster: {server: "
			       "'https://x'}\n",
			       NULL, &kc, err),
			 -EINVAL);
	assert_contains(err, "names user \"u\", which is not in users");
	assert_int_equal(parse("current-context: a\ncontexts:\n- name: a\n  context: {cluster: k}\n"
			       "clusters:\n- name: k\n  cluster: {}\n",
			       NULL, &kc, err),
			 -EINVAL);
	assert_contains(err, "cluster \"k\" has no server");

	assert_int_equal(kubeconfig_load("/nonexistent/kubeconfig", NULL, &kc, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err,
			    "/nonexistent/kubeconfig: cannot read the kubeconfig: No such file or "
			    "directory");
}

/* Files named by a kubeconfig are checked when the client is made. */
static void test_client_checks_files(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *cfg = xasprintf("%s/config", dir);
	_cleanup_free_ char *bad = xasprintf("%s/bad.crt", dir);
	write_file(bad, "not a certificate\n");
	char err[SOURCE_ERR_LEN] = "";
	struct kube_client *cl = NULL;

	_cleanup_free_ char *y1 = xasprintf(BASE, "https://10.0.0.1:6443",
					    "    certificate-authority: missing.crt\n", "    {}\n");
	write_file(cfg, y1);
	assert_int_equal(kube_client_new_kubeconfig(cfg, &cl, err, sizeof(err)), -ENOENT);
	assert_contains(err, "certificate-authority");
	assert_contains(err, "missing.crt: cannot read: No such file or directory");

	_cleanup_free_ char *y2 = xasprintf(BASE, "https://10.0.0.1:6443",
					    "    certificate-authority: bad.crt\n", "    {}\n");
	write_file(cfg, y2);
	assert_int_equal(kube_client_new_kubeconfig(cfg, &cl, err, sizeof(err)), -EINVAL);
	assert_contains(err, "bad.crt does not hold a PEM certificate");

	_cleanup_free_ char *y3 =
	    xasprintf(BASE, "https://10.0.0.1:6443", "", "    tokenFile: empty-token\n");
	_cleanup_free_ char *tokf = xasprintf("%s/empty-token", dir);
	write_file(tokf, "\n");
	write_file(cfg, y3);
	assert_int_equal(kube_client_new_kubeconfig(cfg, &cl, err, sizeof(err)), -EINVAL);
	assert_contains(err, "empty-token: the bearer token file is empty");

	setenv("HVREADY_API_TIMEOUT", "soon", 1);
	_cleanup_free_ char *y4 = xasprintf(BASE, "https://10.0.0.1:6443", "", "    {}\n");
	write_file(cfg, y4);
	assert_int_equal(kube_client_new_kubeconfig(cfg, &cl, err, sizeof(err)), -EINVAL);
	assert_contains(err, "HVREADY_API_TIMEOUT=\"soon\"");
	setenv("HVREADY_API_TIMEOUT", "2", 1);
	setenv("HVREADY_LIST_LIMIT", "7", 1);
	assert_int_equal(kube_client_new_kubeconfig(cfg, &cl, err, sizeof(err)), 0);
	assert_int_equal(kube_client_timeout_ms(cl), 2000);
	assert_int_equal(kube_client_list_limit(cl), 7);
	kube_client_free(cl);
	unsetenv("HVREADY_API_TIMEOUT");
	unsetenv("HVREADY_LIST_LIMIT");
}

static char *auth_header(struct kube_client *cl)
{
	struct kube_request req;
	char err[SOURCE_ERR_LEN];
	assert_int_equal(kube_client_request_init(cl, &req, "/version", err, sizeof(err)), 0);
	char *ret = NULL;
	for (struct curl_slist *h = req.headers; h; h = h->next)
		if (startswith(h->data, "Authorization: "))
			ret = xstrdup(h->data);
	kube_client_request_clear(&req);
	return ret;
}

/* In-cluster: the service account directory, and a rotated token is used
 * by the next request. */
static void test_in_cluster(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *tok = xasprintf("%s/token", dir);
	_cleanup_free_ char *ca = xasprintf("%s/ca.crt", dir);
	_cleanup_free_ char *src_ca = fixture("paths/certs/ca.crt");
	_cleanup_free_ char *pem = slurp(src_ca);
	char err[SOURCE_ERR_LEN] = "";
	struct kube_client *cl = NULL;

	unsetenv("KUBERNETES_SERVICE_HOST");
	assert_int_equal(kube_client_new_in_cluster(&cl, err, sizeof(err)), -ENOENT);
	assert_contains(err, "KUBERNETES_SERVICE_HOST");

	setenv("KUBERNETES_SERVICE_HOST", "127.0.0.43", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	setenv("HVREADY_SA_DIR", dir, 1);
	assert_int_equal(kube_client_new_in_cluster(&cl, err, sizeof(err)), -ENOENT);
	assert_contains(err, ca);

	write_file(ca, pem);
	write_file(tok, "first-token\n");
	assert_int_equal(kube_client_new_in_cluster(&cl, err, sizeof(err)), 0);
	assert_string_equal(kube_client_server(cl), "https://127.0.0.43:443");
	_cleanup_free_ char *h1 = auth_header(cl);
	assert_string_equal(h1, "Authorization: Bearer first-token");

	/* kubelet swaps the projected token in; mtime and size change */
	struct timespec ts[2] = {{.tv_sec = 1700000000}, {.tv_sec = 1700000000}};
	write_file(tok, "the-second-token\n");
	assert_int_equal(utimensat(AT_FDCWD, tok, ts, 0), 0);
	_cleanup_free_ char *h2 = auth_header(cl);
	assert_string_equal(h2, "Authorization: Bearer the-second-token");
	/* mid-rotation an unreadable token leaves the last good one in use */
	write_file(tok, "");
	_cleanup_free_ char *h3 = auth_header(cl);
	assert_string_equal(h3, "Authorization: Bearer the-second-token");
	kube_client_free(cl);

	setenv("KUBERNETES_SERVICE_HOST", "fd00:10:43::1", 1);
	write_file(tok, "t\n");
	assert_int_equal(kube_client_new_in_cluster(&cl, err, sizeof(err)), 0);
	assert_string_equal(kube_client_server(cl), "https://[fd00:10:43::1]:443");
	kube_client_free(cl);

	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	unsetenv("HVREADY_SA_DIR");
}

static void test_status_message(void **state)
{
	const char *st = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
			 "\"message\":\"pods is forbidden: User \\\"x\\\" cannot list\","
			 "\"reason\":\"Forbidden\",\"code\":403}";
	_cleanup_free_ char *m1 = kube_client_status_message(st, strlen(st));
	assert_string_equal(m1, "pods is forbidden: User \"x\" cannot list");
	const char *plain = "404 page not found\nmore";
	_cleanup_free_ char *m2 = kube_client_status_message(plain, strlen(plain));
	assert_string_equal(m2, "404 page not found");
	_cleanup_free_ char *m3 = kube_client_status_message(NULL, 0);
	assert_string_equal(m3, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rke2),
	    cmocka_unit_test(test_paths_and_contexts),
	    cmocka_unit_test(test_tokens),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_bad_documents),
	    cmocka_unit_test_setup_teardown(test_client_checks_files, scratch_setup,
					    scratch_teardown),
	    cmocka_unit_test_setup_teardown(test_in_cluster, scratch_setup, scratch_teardown),
	    cmocka_unit_test(test_status_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
