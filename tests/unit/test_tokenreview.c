/* TokenReview responses: which node a token may report for. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "tokenreview.h"

static void parse(const char *body, struct token_identity *id, int want)
{
	char err[256] = "";
	assert_int_equal(tokenreview_parse(body, strlen(body), id, err, sizeof(err)), want);
}

static void test_node_bound(void **state)
{
	struct token_identity id;
	parse("{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"status\":{"
	      "\"authenticated\":true,\"audiences\":[\"hvready\"],\"user\":{\"username\":"
	      "\"system:serviceaccount:hvready-system:hvready-agent\",\"extra\":{"
	      "\"authentication.kubernetes.io/node-name\":[\"n1\"],"
	      "\"authentication.kubernetes.io/pod-name\":[\"hvready-agent-x\"]}}}}",
	      &id, 0);
	assert_true(id.authenticated);
	assert_string_equal(id.node, "n1");
	assert_string_equal(id.pod, "hvready-agent-x");
	assert_string_equal(id.pod_namespace, "hvready-system");
	token_identity_clear(&id);
}

static void test_pod_only_and_audience(void **state)
{
	struct token_identity id;
	/* Older clusters: no node-name extra, the pod decides. */
	parse("{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":true,\"audiences\":"
	      "[\"hvready\"],\"user\":{\"username\":\"system:serviceaccount:ns1:sa\",\"extra\":{"
	      "\"authentication.kubernetes.io/pod-name\":[\"p\"]}}}}",
	      &id, 0);
	assert_true(id.authenticated);
	assert_null(id.node);
	assert_string_equal(id.pod_namespace, "ns1");
	token_identity_clear(&id);
	/* A token for another audience is not accepted. */
	parse("{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":true,\"audiences\":"
	      "[\"https://kubernetes.default.svc\"],\"user\":{\"username\":\"u\"}}}",
	      &id, 0);
	assert_false(id.authenticated);
	assert_non_null(strstr(id.error, "audience"));
	token_identity_clear(&id);
	parse("{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":false,\"error\":"
	      "\"token expired\"}}",
	      &id, 0);
	assert_false(id.authenticated);
	assert_string_equal(id.error, "token expired");
	token_identity_clear(&id);
}

static void test_garbage(void **state)
{
	struct token_identity id;
	parse("", &id, -EINVAL);
	parse("[1,2]", &id, -EINVAL);
	parse("{\"kind\":\"Status\",\"code\":403}", &id, -EINVAL);
	parse("{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":\"yes\",\"user\":7}}", &id,
	      0);
	assert_false(id.authenticated);
	token_identity_clear(&id);
	char k1[65], k2[65];
	tokenreview_key("abc", k1);
	tokenreview_key("abd", k2);
	assert_int_equal(strlen(k1), 64);
	assert_string_not_equal(k1, k2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_node_bound),
	    cmocka_unit_test(test_pod_only_and_audience),
	    cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
