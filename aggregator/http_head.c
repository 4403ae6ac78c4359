/* The header section of a request, read before its body (http_head.h). */
#include "http_head.h"

#include <string.h>
#include <strings.h>

/* RFC 9110 §5.6.2 tchar */
static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool span_is(const char *buf, struct http_span s, const char *name)
{
	return s.len == strlen(name) && strncasecmp(buf + s.off, name, s.len) == 0;
}

/* A header line: its name and value as evhttp makes them. */
static int header_line(const char *buf, size_t off, size_t len, struct http_span *name,
		       struct http_span *value)
{
	const char *l = buf + off;
	const char *colon = memchr(l, ':', len);
	if (!colon || colon == l)
		return -1;
	size_t nl = (size_t)(colon - l);
	for (size_t i = 0; i < nl; i++)
		if (!is_tchar((unsigned char)l[i]))
			return -1;
	size_t v = nl + 1;
	while (v < len && l[v] == ' ') /* evhttp skips spaces only */
		v++;
	size_t e = len;
	while (e > v && (l[e - 1] == ' ' || l[e - 1] == '\t'))
		e--;
	*name = (struct http_span){off, nl};
	*value = (struct http_span){off + v, e - v};
	return 0;
}

static int content_length(const char *buf, struct http_span v, uint64_t *ret)
{
	if (v.len == 0 || v.len > 19)
		return -1;
	uint64_t n = 0;
	for (size_t i = 0; i < v.len; i++) {
		char c = buf[v.off + i];
		if (c < '0' || c > '9')
			return -1;
		n = n * 10 + (uint64_t)(c - '0');
	}
	*ret = n;
	return 0;
}

static int request_line(const char *buf, size_t len, struct http_head *h)
{
	while (len > 0 && buf[len - 1] == ' ') /* evhttp strips trailing spaces */
		len--;
	const char *sp = memchr(buf, ' ', len);
	if (!sp || sp == buf)
		return -1;
	size_t ml = (size_t)(sp - buf), last = len;
	while (last > 0 && buf[last - 1] != ' ')
		last--;
	/* method SP target SP version, one space each: evhttp would read a
	 * second one into the target */
	if (last <= ml + 1 || last - 1 == ml + 1)
		return -1;
	for (size_t i = 0; i < ml; i++)
		if (!is_tchar((unsigned char)buf[i]))
			return -1;
	h->method = (struct http_span){0, ml};
	h->target = (struct http_span){ml + 1, last - 1 - (ml + 1)};
	h->version = (struct http_span){last, len - last};
	if (memchr(buf + h->target.off, ' ', h->target.len))
		return -1;
	/* evhttp: at least "GET / HTTP/1.0"; HTTP/MAJOR.MINOR with MAJOR <= 1
	 * (http.c, evhttp_parse_http_version), here in plain digits only */
	if (len < 14 || h->version.len < 8 || strncmp(buf + last, "HTTP/", 5) != 0)
		return -1;
	const char *v = buf + last + 5, *ve = buf + len;
	size_t major_len = 0, minor_len = 0;
	unsigned major = 0;
	while (v < ve && *v >= '0' && *v <= '9' && major_len < 9) {
		major = major * 10 + (unsigned)(*v++ - '0');
		major_len++;
	}
	if (!major_len || major > 1 || v == ve || *v++ != '.')
		return -1;
	while (v < ve && *v >= '0' && *v <= '9' && minor_len < 9) {
		v++;
		minor_len++;
	}
	return minor_len && v == ve ? 0 : -1;
}

enum http_head_result http_head_parse(const char *buf, size_t n, struct http_head *h,
				      const char **why)
{
	*h = (struct http_head){0};
	size_t limit = n < HTTP_HEAD_MAX ? n : HTTP_HEAD_MAX;
	size_t off = 0, n_cl = 0, n_te = 0, n_node = 0;
	bool first = true, any_header = false;
	bool last_read = false; /* the previous header is one read here */
	struct http_span te = {0};
	for (;;) {
		const char *nl = memchr(buf + off, '\n', limit - off);
		if (!nl) {
			if (n >= HTTP_HEAD_MAX) {
				*why = "the request line and headers are too long";
				return HTTP_HEAD_TOO_LONG;
			}
			return HTTP_HEAD_MORE;
		}
		size_t end = (size_t)(nl - buf), len = end - off;
		if (len > 0 && buf[end - 1] == '\r')
			len--;
		for (size_t i = off; i < off + len; i++) {
			unsigned char c = (unsigned char)buf[i];
			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				*why = "a control character in the request line or headers";
				return HTTP_HEAD_BAD;
			}
		}
		if (first) {
			if (request_line(buf + off, len, h) < 0) {
				*why = "not an HTTP/1.x request line";
				return HTTP_HEAD_BAD;
			}
			h->method.off += off;
			h->target.off += off;
			h->version.off += off;
			first = false;
		} else if (len == 0) {
			h->len = end + 1;
			break;
		} else if (buf[off] == ' ' || buf[off] == '\t') {
			/* obs-fold: evhttp appends it to the previous value */
			if (last_read || !any_header) {
				*why = "a folded header line (obs-fold)";
				return HTTP_HEAD_BAD;
			}
		} else {
			struct http_span name, value;
			if (header_line(buf, off, len, &name, &value) < 0) {
				*why = "a header line that is not NAME: VALUE with a token NAME";
				return HTTP_HEAD_BAD;
			}
			last_read = true;
			any_header = true;
			if (span_is(buf, name, "Authorization")) {
				if (!h->has_authorization) {
					h->has_authorization = true;
					h->authorization = value;
				}
			} else if (span_is(buf, name, "Content-Length")) {
				n_cl++;
				if (content_length(buf, value, &h->content_length) < 0) {
					*why = "a Content-Length that is not a number";
					return HTTP_HEAD_BAD;
				}
			} else if (span_is(buf, name, "Transfer-Encoding")) {
				n_te++;
				te = value;
			} else if (span_is(buf, name, HTTP_HEAD_REFUSED)) {
				h->refused = true;
			} else if (span_is(buf, name, HTTP_HEAD_NODE)) {
				n_node++;
				h->node = value;
			} else {
				last_read = false;
			}
		}
		off = end + 1;
	}
	if (n_cl > 1) {
		*why = "more than one Content-Length";
		return HTTP_HEAD_BAD;
	}
	if (n_te > 1) {
		*why = "more than one Transfer-Encoding";
		return HTTP_HEAD_BAD;
	}
	if (n_node > 1) {
		*why = "more than one " HTTP_HEAD_NODE;
		return HTTP_HEAD_BAD;
	}
	if (n_node && h->node.len == 0) {
		*why = "an empty " HTTP_HEAD_NODE;
		return HTTP_HEAD_BAD;
	}
	if (n_te && n_cl) {
		*why = "both Content-Length and Transfer-Encoding";
		return HTTP_HEAD_BAD;
	}
	if (n_te && !span_is(buf, te, "chunked")) {
		*why = "a Transfer-Encoding other than chunked";
		return HTTP_HEAD_BAD;
	}
	h->has_content_length = n_cl == 1;
	h->chunked = n_te == 1;
	h->has_node = n_node == 1;
	return HTTP_HEAD_OK;
}
