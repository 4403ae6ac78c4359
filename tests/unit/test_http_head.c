/* The header phase's parser (aggregator/http_head.c): what it takes, what it
 * refuses where evhttp could read otherwise, and node_tokens_known(). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "http_head.h"
#include "node_tokens.h"

static enum http_head_result parse(const char *text, struct http_head *h, const char **why)
{
	return http_head_parse(text, strlen(text), h, why);
}

static void test_ok(void **state)
{
	struct http_head h;
	const char *why = NULL;
	const char *req =
	    "POST /v1/reports HTTP/1.1\r\nHost: a\r\nAuthorization:  Bearer t0k \t\r\n"
	    "Content-Length: 0042\r\n\r\nbody";
	assert_int_equal(parse(req, &h, &why), HTTP_HEAD_OK);
	assert_int_equal(h.len, strlen(req) - 4);
	assert_true(h.has_authorization);
	/* leading spaces off, trailing spaces and tabs off, as evhttp does */
	assert_int_equal(h.authorization.len, 10);
	assert_memory_equal(req + h.authorization.off, "Bearer t0k", 10);
	assert_true(h.has_content_length);
	assert_int_equal(h.content_length, 42);
	assert_memory_equal(req + h.target.off, "/v1/reports", h.target.len);
	/* bare LF lines; the first Authorization counts */
	assert_int_equal(parse("GET / HTTP/1.0\nAuthorization: a\nAuthorization: b\n\n", &h, &why),
			 HTTP_HEAD_OK);
	assert_int_equal(h.authorization.len, 1);
	assert_false(h.has_content_length);
	/* a folded line of a header not read here is fine */
	assert_int_equal(parse("GET / HTTP/1.1\r\nX-A: 1\r\n 2\r\n\r\n", &h, &why), HTTP_HEAD_OK);
	assert_int_equal(parse("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", &h, &why),
			 HTTP_HEAD_OK);
	assert_true(h.chunked);
}

static void test_more_and_too_long(void **state)
{
	struct http_head h;
	const char *why = NULL;
	assert_int_equal(parse("GET / HTTP/1.1\r\nHost: a\r\n", &h, &why), HTTP_HEAD_MORE);
	assert_int_equal(parse("", &h, &why), HTTP_HEAD_MORE);
	static char big[HTTP_HEAD_MAX + 10];
	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	assert_int_equal(http_head_parse(big, sizeof(big) - 1, &h, &why), HTTP_HEAD_TOO_LONG);
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
	    "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
	    "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
	    "POST / HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n",
	    "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
	    "POST / HTTP/1.1\r\nTransfer-Encoding: x\r\n chunked\r\n\r\n",
	    "POST / HTTP/1.1\r\nAuthorization: Bearer\r\n a\r\n\r\n",
	    "POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n",
	    "POST / HTTP/1.1\r\nContent-Length: 5 6\r\n\r\n",
	    "POST / HTTP/1.1\r\nContent-Length:\t5\r\n\r\n",
	    "POST / HTTP/1.1\r\n folded first\r\n\r\n",
	    "POST / HTTP/1.1\r\nno colon\r\n\r\n",
	    "POST / HTTP/1.1\r\nX: a\rb\r\n\r\n",
	    "GET  / HTTP/1.1\r\n\r\n",
	    "GET / HTTP/2.0\r\n\r\n",
	    "G / HTTP/1.1\r\n\r\n",
	    "\r\nGET / HTTP/1.1\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct http_head h;
		const char *why = NULL;
		if (parse(bad[i], &h, &why) != HTTP_HEAD_BAD)
			fail_msg("not refused: %s", bad[i]);
		assert_non_null(why);
	}
	/* a NUL in a header */
	struct http_head h;
	const char *why = NULL;
	static const char nul[] = "GET / HTTP/1.1\r\nX: a\0b\r\n\r\n";
	assert_int_equal(http_head_parse(nul, sizeof(nul) - 1, &h, &why), HTTP_HEAD_BAD);
	/* the header only the server sets is marked, for a 400 */
	assert_int_equal(parse("GET / HTTP/1.1\r\n" HTTP_HEAD_REFUSED ": 200 x\r\n\r\n", &h, &why),
			 HTTP_HEAD_OK);
	assert_true(h.refused);
}

/* The report's node ahead of its body (Hvready-Node): one, not empty. */
static void test_node(void **state)
{
	struct http_head h;
	const char *why = NULL;
	const char *req = "POST /v1/reports HTTP/1.1\r\nhvready-node:  hv-01 \t\r\n\r\n";
	assert_int_equal(parse(req, &h, &why), HTTP_HEAD_OK);
	assert_true(h.has_node);
	assert_int_equal(h.node.len, 5);
	assert_memory_equal(req + h.node.off, "hv-01", 5);
	assert_int_equal(parse("POST / HTTP/1.1\r\nHost: a\r\n\r\n", &h, &why), HTTP_HEAD_OK);
	assert_false(h.has_node);
	static const char *const bad[] = {
	    "POST / HTTP/1.1\r\n" HTTP_HEAD_NODE ": a\r\n" HTTP_HEAD_NODE ": b\r\n\r\n",
	    "POST / HTTP/1.1\r\n" HTTP_HEAD_NODE ": a\r\n" HTTP_HEAD_NODE ": a\r\n\r\n",
	    "POST / HTTP/1.1\r\n" HTTP_HEAD_NODE ":  \r\n\r\n",
	    "POST / HTTP/1.1\r\n" HTTP_HEAD_NODE ": a\r\n b\r\n\r\n", /* folded */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (parse(bad[i], &h, &why) != HTTP_HEAD_BAD)
			fail_msg("not refused: %s", bad[i]);
		assert_non_null(why);
	}
}

static void test_node_tokens_known(void **state)
{
	struct node_tokens *nt = NULL;
	char err[256];
	static const char file[] = "n1 token-of-node-one-0123\nn2 token-of-node-two-4567\n";
	assert_int_equal(node_tokens_parse(file, sizeof(file) - 1, &nt, err, sizeof(err)), 0);
	assert_true(node_tokens_known(nt, "token-of-node-one-0123"));
	assert_true(node_tokens_known(nt, "token-of-node-two-4567"));
	assert_false(node_tokens_known(nt, "token-of-node-one-012"));
	assert_false(node_tokens_known(nt, ""));
	node_tokens_free(nt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ok),
	    cmocka_unit_test(test_more_and_too_long),
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_node),
	    cmocka_unit_test(test_node_tokens_known),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
