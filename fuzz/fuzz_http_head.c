/*
 * The header-phase parser (aggregator/http_head.c), which decides what
 * `serve` lets evhttp read (server_conn.c). Oracles beyond "no crash, no
 * sanitizer report":
 * - a result is one of the four, and a complete section lies within the
 *   input and HTTP_HEAD_MAX, its spans within it, and it ends in an empty line;
 * - a section is decided on its own bytes: a shorter prefix is not complete
 *   yet (MORE), and what follows it changes nothing;
 * - what it passes, evhttp 2.1 reads the same way (its own parser, exported
 *   for its regression tests): the request line and headers parse, exactly
 *   the section is consumed, and the first Authorization, the Content-Length
 *   and Transfer-Encoding and the method are the ones read here. The parser
 *   is stricter than evhttp on purpose; the other way round is a finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/http_struct.h>

#include "fuzz_check.h"
#include "http_head.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libevent's http-internal.h (2.1): exported, not installed. */
enum message_read_status {
	ALL_DATA_READ = 1,
	MORE_DATA_EXPECTED = 0,
	DATA_CORRUPTED = -1,
	REQUEST_CANCELED = -2,
	DATA_TOO_LONG = -3
};
enum message_read_status evhttp_parse_firstline_(struct evhttp_request *, struct evbuffer *);
enum message_read_status evhttp_parse_headers_(struct evhttp_request *, struct evbuffer *);

static bool same(const struct http_head *a, const struct http_head *b)
{
	return a->len == b->len && a->has_authorization == b->has_authorization &&
	       a->authorization.off == b->authorization.off &&
	       a->authorization.len == b->authorization.len &&
	       a->has_content_length == b->has_content_length &&
	       a->content_length == b->content_length && a->chunked == b->chunked &&
	       a->refused == b->refused && a->method.off == b->method.off &&
	       a->method.len == b->method.len && a->target.off == b->target.off &&
	       a->target.len == b->target.len;
}

static bool span_eq(const char *buf, struct http_span s, const char *v)
{
	return v && strlen(v) == s.len && memcmp(buf + s.off, v, s.len) == 0;
}

/* evhttp's reading of the section, compared. */
static void against_evhttp(const char *buf, const struct http_head *h)
{
	/* An absolute target makes evhttp look up a virtual host on the
	 * connection's server, which a bare request does not have. */
	if (h->target.len == 0 || buf[h->target.off] != '/')
		return;
	struct evhttp_request *req = evhttp_request_new(NULL, NULL);
	struct evbuffer *b = evbuffer_new();
	CHECK(req && b);
	req->kind = EVHTTP_REQUEST;
	CHECK(evbuffer_add(b, buf, h->len) == 0);
	enum message_read_status r = evhttp_parse_firstline_(req, b);
	if (r == DATA_CORRUPTED) {
		/* only for a target evhttp cannot parse, which serve refuses */
		char *t = strndup(buf + h->target.off, h->target.len);
		struct evhttp_uri *u = evhttp_uri_parse_with_flags(t, EVHTTP_URI_NONCONFORMANT);
		CHECK(u == NULL);
		free(t);
	} else {
		CHECK(r == ALL_DATA_READ);
		CHECK(evhttp_parse_headers_(req, b) == ALL_DATA_READ);
		CHECK(evbuffer_get_length(b) == 0);
		const struct evkeyvalq *in = evhttp_request_get_input_headers(req);
		const char *authz = evhttp_find_header(in, "Authorization");
		CHECK(h->has_authorization == (authz != NULL));
		if (authz)
			CHECK(span_eq(buf, h->authorization, authz));
		const char *cl = evhttp_find_header(in, "Content-Length");
		CHECK(h->has_content_length == (cl != NULL));
		if (cl)
			CHECK(strtoull(cl, NULL, 10) == h->content_length);
		const char *te = evhttp_find_header(in, "Transfer-Encoding");
		CHECK(h->chunked == (te && strcasecmp(te, "chunked") == 0));
		CHECK(!te || h->chunked);
		enum evhttp_cmd_type m = evhttp_request_get_command(req);
		if (h->method.len == 3 && memcmp(buf + h->method.off, "GET", 3) == 0)
			CHECK(m == EVHTTP_REQ_GET);
		if (h->method.len == 4 && memcmp(buf + h->method.off, "POST", 4) == 0)
			CHECK(m == EVHTTP_REQ_POST);
		if (h->method.len == 4 && memcmp(buf + h->method.off, "HEAD", 4) == 0)
			CHECK(m == EVHTTP_REQ_HEAD);
	}
	evbuffer_free(b);
	evhttp_request_free(req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 2 * HTTP_HEAD_MAX)
		return 0;
	const char *buf = (const char *)data;
	struct http_head h;
	const char *why = NULL;
	enum http_head_result r = http_head_parse(buf, size, &h, &why);
	CHECK(r == HTTP_HEAD_MORE || r == HTTP_HEAD_OK || r == HTTP_HEAD_BAD ||
	      r == HTTP_HEAD_TOO_LONG);
	if (r == HTTP_HEAD_BAD || r == HTTP_HEAD_TOO_LONG)
		CHECK(why && *why);
	if (r == HTTP_HEAD_TOO_LONG)
		CHECK(size >= HTTP_HEAD_MAX);
	if (r != HTTP_HEAD_OK)
		return 0;
	CHECK(h.len >= 16 && h.len <= size && h.len <= HTTP_HEAD_MAX);
	CHECK(buf[h.len - 1] == '\n');
	CHECK(buf[h.len - 2] == '\n' || (buf[h.len - 2] == '\r' && buf[h.len - 3] == '\n'));
	struct http_span spans[] = {h.method, h.target, h.version, h.authorization};
	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++)
		CHECK(spans[i].off + spans[i].len <= h.len);
	CHECK(!h.chunked || !h.has_content_length);
	/* decided on its own bytes */
	struct http_head p;
	CHECK(http_head_parse(buf, h.len - 1, &p, &why) == HTTP_HEAD_MORE);
	CHECK(http_head_parse(buf, h.len, &p, &why) == HTTP_HEAD_OK && same(&h, &p));
	against_evhttp(buf, &h);
	return 0;
}
