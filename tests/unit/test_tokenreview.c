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

#define HDR_RS256 "eyJhbGciOiJSUzI1NiIsImtpZCI6InQifQ" /* {"alg":"RS256","kid":"t"} */
#define HDR_NONE  "eyJhbGciOiJub25lIn0"		       /* {"alg":"none"} */
/* {"aud":["hvready"],"exp":4102444800,"iss":"https://kubernetes.default.svc.cluster.local"} */
#define PL_OK                                                                                      \
	"eyJhdWQiOlsiaHZyZWFkeSJdLCJleHAiOjQxMDI0NDQ4MDAsImlzcyI6Imh0dHBzOi8va3ViZXJuZXRlcy5kZWZh" \
	"dWx0LnN2Yy5jbHVzdGVyLmxvY2FsIn0"
/* the same for audience "vault" */
#define PL_VAULT                                                                                   \
	"eyJhdWQiOlsidmF1bHQiXSwiZXhwIjo0MTAyNDQ0ODAwLCJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVs" \
	"dC5zdmMuY2x1c3Rlci5sb2NhbCJ9"
#define PL_EXPIRED                                                                                 \
	"eyJhdWQiOiJodnJlYWR5IiwiZXhwIjoxMDAwLCJpc3MiOiJrIn0" /* exp 1000, aud a string */
#define PL_NO_ISS "eyJhdWQiOlsiaHZyZWFkeSJdLCJleHAiOjQxMDI0NDQ4MDB9"

static void precheck(const char *token, int64_t now, int want, const char *why_has)
{
	char why[256] = "";
	int64_t exp = 0;
	assert_int_equal(tokenreview_precheck(token, now, &exp, why, sizeof(why)), want);
	if (want == 0)
		assert_true(exp > now);
	else
		assert_non_null(strstr(why, why_has));
	/* The reason never quotes the token. */
	if (want)
		assert_null(strstr(why, "eyJ"));
}

/* Tokens that cannot be a ServiceAccount JWT for "hvready" are refused
 * before the API is asked (the flood of random bearer tokens). */
static void test_precheck(void **state)
{
	precheck(HDR_RS256 "." PL_OK ".c2lnbmF0dXJl", 1700000000, 0, NULL);
	precheck(HDR_RS256 "." PL_OK ".sig-node_1", 1700000000, 0, NULL);
	precheck("tok-node-1", 1700000000, -EINVAL, "three");
	precheck("a.b", 1700000000, -EINVAL, "three");
	precheck("a.b.c.d", 1700000000, -EINVAL, "three");
	precheck(HDR_RS256 "." PL_OK ".", 1700000000, -EINVAL, "signature");
	precheck(HDR_RS256 "." PL_OK ".si+g", 1700000000, -EINVAL, "signature");
	precheck("!!!." PL_OK ".sig", 1700000000, -EINVAL, "header");
	precheck(HDR_NONE "." PL_OK ".sig", 1700000000, -EINVAL, "alg");
	precheck(HDR_RS256 "." HDR_RS256 ".sig", 1700000000, -EINVAL, "aud");
	precheck(HDR_RS256 "." PL_VAULT ".sig", 1700000000, -EINVAL, "aud");
	precheck(HDR_RS256 "." PL_EXPIRED ".sig", 1700000000, -EINVAL, "expired");
	/* Before its exp the same token passes: aud may be a plain string. */
	precheck(HDR_RS256 "." PL_EXPIRED ".sig", 999, 0, NULL);
	precheck(HDR_RS256 "." PL_NO_ISS ".sig", 1700000000, -EINVAL, "iss");
	precheck(HDR_RS256 ".eyJhdWQiOlsiaHZyZWFkeSJd.sig", 1700000000, -EINVAL, "payload");
	precheck(HDR_RS256 ".bnVsbA.sig", 1700000000, -EINVAL, "payload"); /* "null" */
	precheck(HDR_RS256 ".e30.sig", 1700000000, -EINVAL, "aud");	   /* {} */
	precheck("..", 1700000000, -EINVAL, "signature");
	/* A part too long to be real is not decoded at all. */
	char big[20000];
	memset(big, 'A', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, HDR_RS256 ".", strlen(HDR_RS256) + 1);
	memcpy(big + sizeof(big) - 5, ".sig", 4);
	precheck(big, 1700000000, -EINVAL, "payload");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_node_bound),
	    cmocka_unit_test(test_pod_only_and_audience),
	    cmocka_unit_test(test_garbage),
	    cmocka_unit_test(test_precheck),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
