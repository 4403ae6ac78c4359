/*
 * The header section of one HTTP/1.1 request, parsed before evhttp reads it
 * (server_conn.c): what `serve` decides on before it takes any body byte —
 * the credential, the route, the body's length (docs/robustness.md).
 *
 * It reads the request line and headers as evhttp 2.1 does (lines end in LF
 * or CRLF; the method ends at the first space, the version starts after the
 * last; a value loses its leading spaces and trailing spaces and tabs) but is
 * stricter wherever two readings could differ: a control character other than
 * a tab, a header name that is not a token, a folded line of a header this
 * server reads, more than one Content-Length, Transfer-Encoding or
 * Hvready-Node, both of the first two, an empty Hvready-Node,
 * a Content-Length that is not plain digits: all bad (400). A request it
 * passes is framed by evhttp exactly as here.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most bytes of a request line and headers together. */
#define HTTP_HEAD_MAX (32u << 10)
/* The header server_conn.c adds to a request it refused (dispatch answers
 * it); one a client sends is refused. */
#define HTTP_HEAD_REFUSED "Hvready-Refused"
/* The node a report is for, sent by agents ahead of the body
 * (docs/protocol.md §1): the credential is bound to it at the headers. */
#define HTTP_HEAD_NODE "Hvready-Node"

enum http_head_result {
	HTTP_HEAD_MORE = 0, /* no end of the header section yet */
	HTTP_HEAD_OK = 1,
	HTTP_HEAD_BAD = -1,	 /* malformed or ambiguous: 400 */
	HTTP_HEAD_TOO_LONG = -2, /* no end within HTTP_HEAD_MAX: 431 */
};

/* A piece of the parsed buffer. */
struct http_span {
	size_t off, len;
};

struct http_head {
	size_t len; /* of the header section, through its empty line */
	struct http_span method, target, version;
	bool has_authorization; /* the first Authorization header's value */
	struct http_span authorization;
	bool has_content_length;
	uint64_t content_length;
	bool chunked;  /* Transfer-Encoding: chunked (no Content-Length) */
	bool refused;  /* carries HTTP_HEAD_REFUSED */
	bool has_node; /* one HTTP_HEAD_NODE header (more than one is bad) */
	struct http_span node;
};

/* Parse the start of buf (n bytes). HTTP_HEAD_OK fills h; HTTP_HEAD_BAD sets
 * *why (a constant string). */
enum http_head_result http_head_parse(const char *buf, size_t n, struct http_head *h,
				      const char **why);
