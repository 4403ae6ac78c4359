#include "cri_image.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "http_header.h"
#include "netguard.h"

#define CRI_MAX_STRING	   4096
#define GRPC_UNIMPLEMENTED 12

void cri_image_clear(struct cri_image *img)
{
	free(img->id);
	strv_clear(&img->repo_tags);
	strv_clear(&img->repo_digests);
	*img = (struct cri_image){.size = -1};
}

/* ---- protobuf: only what ImageStatusResponse needs ---- */

struct pb {
	const uint8_t *p, *end;
};

static int pb_varint(struct pb *b, uint64_t *ret)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (b->p >= b->end)
			return -EBADMSG;
		uint8_t c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*ret = v;
			return 0;
		}
	}
	return -EBADMSG;
}

/* The next field: its number, wire type, and for length-delimited fields the
 * bytes; varints in *ret_v; fixed-size fields skipped. */
static int pb_field(struct pb *b, uint32_t *ret_no, unsigned *ret_wt, struct pb *ret_sub,
		    uint64_t *ret_v)
{
	uint64_t key;
	if (pb_varint(b, &key) < 0 || key >> 3 == 0 || key >> 3 > UINT32_MAX)
		return -EBADMSG;
	*ret_no = (uint32_t)(key >> 3);
	*ret_wt = (unsigned)(key & 7);
	size_t skip;
	switch (*ret_wt) {
	case 0:
		return pb_varint(b, ret_v);
	case 1:
		skip = 8;
		break;
	case 5:
		skip = 4;
		break;
	case 2: {
		uint64_t n;
		if (pb_varint(b, &n) < 0 || n > (uint64_t)(b->end - b->p))
			return -EBADMSG;
		*ret_sub = (struct pb){b->p, b->p + n};
		b->p += n;
		return 0;
	}
	default: /* groups (3, 4) are not in the CRI messages; 6 and 7 do not exist */
		return -EBADMSG;
	}
	if (skip > (size_t)(b->end - b->p))
		return -EBADMSG;
	b->p += skip;
	return 0;
}

static int pb_string(const struct pb *s, char **ret)
{
	size_t n = (size_t)(s->end - s->p);
	if (n > CRI_MAX_STRING || memchr(s->p, '\0', n))
		return -EBADMSG;
	*ret = xstrndup((const char *)s->p, n);
	return 0;
}

static int decode_image(struct pb b, struct cri_image *img, char *err, size_t errlen)
{
	while (b.p < b.end) {
		uint32_t no;
		unsigned wt;
		struct pb sub = {0};
		uint64_t v = 0;
		if (pb_field(&b, &no, &wt, &sub, &v) < 0) {
			snprintf(err, errlen, "the Image message is malformed");
			return -EBADMSG;
		}
		if (no == 4 && wt == 0) {
			img->size = v > INT64_MAX ? INT64_MAX : (int64_t)v;
			continue;
		}
		if (wt != 2 || no < 1 || no > 3)
			continue; /* uid, username, spec, pinned, …: not needed */
		char *s;
		if (pb_string(&sub, &s) < 0) {
			snprintf(err, errlen, "field %u of the Image message is not a name", no);
			return -EBADMSG;
		}
		if (no == 1) {
			free(img->id);
			img->id = s;
			continue;
		}
		struct strv *l = no == 2 ? &img->repo_tags : &img->repo_digests;
		if (l->n < CRI_MAX_NAMES)
			strv_add(l, s);
		free(s);
	}
	return 0;
}

int cri_image_decode(const uint8_t *buf, size_t len, struct cri_image *ret, char *err,
		     size_t errlen)
{
	*ret = (struct cri_image){.size = -1};
	if (len < 5) {
		snprintf(err, errlen, "the gRPC response has %zu bytes, less than a frame header",
			 len);
		return -EBADMSG;
	}
	if (buf[0] != 0) {
		snprintf(err, errlen, "the gRPC response is compressed (flag %u), not asked for",
			 buf[0]);
		return -EBADMSG;
	}
	uint32_t n = (uint32_t)buf[1] << 24 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 8 |
		     (uint32_t)buf[4];
	if (n != len - 5) {
		snprintf(err, errlen, "the gRPC frame says %u bytes, the response has %zu", n,
			 len - 5);
		return -EBADMSG;
	}
	struct pb b = {buf + 5, buf + len};
	bool have = false;
	while (b.p < b.end) {
		uint32_t no;
		unsigned wt;
		struct pb sub = {0};
		uint64_t v;
		if (pb_field(&b, &no, &wt, &sub, &v) < 0) {
			snprintf(err, errlen, "the ImageStatusResponse message is malformed");
			cri_image_clear(ret);
			return -EBADMSG;
		}
		if (no != 1 || wt != 2)
			continue; /* info (verbose only) */
		have = true;
		if (decode_image(sub, ret, err, errlen) < 0) {
			cri_image_clear(ret);
			return -EBADMSG;
		}
	}
	/* An absent image is an empty response; an image always has an id. */
	if (!have || !ret->id || !*ret->id) {
		cri_image_clear(ret);
		return 0;
	}
	return 1;
}

/* ---- the call ---- */

struct call {
	uint8_t *body;
	size_t body_len;
	bool too_large;
	int grpc_status; /* -1: none seen */
	char grpc_message[256];
	char errbuf[CURL_ERROR_SIZE];
};

static void percent_decode(const char *s, size_t n, char *out, size_t outlen)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < outlen; i++) {
		unsigned c;
		if (s[i] == '%' && i + 2 < n && sscanf(s + i + 1, "%2x", &c) == 1) {
			out[o++] = c >= 0x20 && c != 0x7f ? (char)c : '?';
			i += 2;
		} else {
			out[o++] = s[i] >= 0x20 && s[i] != 0x7f ? s[i] : '?';
		}
	}
	out[o] = '\0';
}

/* Headers and, after the body, trailers: grpc-status and grpc-message come in
 * either (a "trailers-only" error has them in the headers). */
static size_t on_header(char *buf, size_t size, size_t nmemb, void *userdata)
{
	struct call *c = userdata;
	size_t n = size * nmemb;
	_cleanup_free_ char *st = http_header_value(buf, n, "grpc-status");
	_cleanup_free_ char *msg = st ? NULL : http_header_value(buf, n, "grpc-message");
	if (st) {
		int code = 0;
		size_t len = strlen(st);
		bool ok = len > 0 && len <= 3;
		for (size_t i = 0; ok && i < len; i++) {
			ok = st[i] >= '0' && st[i] <= '9';
			code = code * 10 + (st[i] - '0');
		}
		c->grpc_status = ok ? code : 2; /* unparsable: UNKNOWN, as gRPC clients do */
	} else if (msg) {
		percent_decode(msg, strlen(msg), c->grpc_message, sizeof(c->grpc_message));
	}
	return n;
}

static size_t on_body(char *buf, size_t size, size_t nmemb, void *userdata)
{
	struct call *c = userdata;
	size_t n = size * nmemb;
	if (c->body_len + n > CRI_MAX_RESPONSE) {
		c->too_large = true;
		return 0;
	}
	c->body = xrealloc(c->body, c->body_len + n + 1);
	memcpy(c->body + c->body_len, buf, n);
	c->body_len += n;
	return n;
}

static const char *grpc_code_name(int st)
{
	static const char *const names[] = {"OK",
					    "CANCELLED",
					    "UNKNOWN",
					    "INVALID_ARGUMENT",
					    "DEADLINE_EXCEEDED",
					    "NOT_FOUND",
					    "ALREADY_EXISTS",
					    "PERMISSION_DENIED",
					    "RESOURCE_EXHAUSTED",
					    "FAILED_PRECONDITION",
					    "ABORTED",
					    "OUT_OF_RANGE",
					    "UNIMPLEMENTED",
					    "INTERNAL",
					    "UNAVAILABLE",
					    "DATA_LOSS",
					    "UNAUTHENTICATED"};
	return st >= 0 && (size_t)st < ELEMENTSOF(names) ? names[st] : "unknown code";
}

/* The request: ImageStatusRequest{image: ImageSpec{image: name}} in a gRPC frame. */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static uint8_t *build_request(const char *image, size_t *ret_len)
{
	size_t il = strlen(image);
	uint8_t spec_hdr[11], req_hdr[11];
	size_t sh = 0, rh = 0;
	spec_hdr[sh++] = 0x0a; /* ImageSpec.image = 1, length-delimited */
	sh += put_varint(spec_hdr + sh, il);
	size_t spec_len = sh + il;
	req_hdr[rh++] = 0x0a; /* ImageStatusRequest.image = 1 */
	rh += put_varint(req_hdr + rh, spec_len);
	size_t msg_len = rh + spec_len;
	uint8_t *out = xmalloc(5 + msg_len);
	out[0] = 0;
	out[1] = (uint8_t)(msg_len >> 24);
	out[2] = (uint8_t)(msg_len >> 16);
	out[3] = (uint8_t)(msg_len >> 8);
	out[4] = (uint8_t)msg_len;
	memcpy(out + 5, req_hdr, rh);
	memcpy(out + 5 + rh, spec_hdr, sh);
	memcpy(out + 5 + rh + sh, image, il);
	*ret_len = 5 + msg_len;
	return out;
}

static int call_once(CURL *h, const char *socket_path, const char *api, const uint8_t *req,
		     size_t req_len, long timeout_s, struct call *c, char *err, size_t errlen)
{
	char url[128];
	snprintf(url, sizeof(url), "http://localhost/runtime.%s.ImageService/ImageStatus", api);
	*c = (struct call){.grpc_status = -1};
	curl_easy_reset(h);
	if (!netguard_curl(h, url, true, err, errlen))
		return -EPERM;
	char timeout_hdr[48];
	snprintf(timeout_hdr, sizeof(timeout_hdr), "grpc-timeout: %ldS", timeout_s);
	struct curl_slist *hdrs = NULL;
	hdrs = curl_slist_append(hdrs, "Content-Type: application/grpc");
	hdrs = curl_slist_append(hdrs, "TE: trailers");
	hdrs = curl_slist_append(hdrs, timeout_hdr);
	hdrs = curl_slist_append(hdrs, "Accept:");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, socket_path);
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
	curl_easy_setopt(h, CURLOPT_PROXY, "");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, timeout_s);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, timeout_s);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(h, CURLOPT_USERAGENT, "hvready-agent (grpc)");
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, (const char *)req);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)req_len);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, c);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
	CURLcode rc = curl_easy_perform(h);
	curl_slist_free_all(hdrs);
	if (c->too_large) {
		snprintf(err, errlen, "the runtime's answer is larger than %u bytes",
			 CRI_MAX_RESPONSE);
		return -EMSGSIZE;
	}
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s", c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
		return rc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -EIO;
	}
	long http = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &http);
	if (http != 200) {
		snprintf(err, errlen, "the socket answered HTTP %ld, not gRPC", http);
		return -EPROTO;
	}
	return 0;
}

int cri_image_status(const char *socket_path, const char *image, long timeout_s,
		     struct cri_image *ret, const char **ret_api, char *err, size_t errlen)
{
	static const char *const apis[] = {"v1", "v1alpha2"};
	*ret = (struct cri_image){.size = -1};
	*ret_api = NULL;
	CURL *h = curl_easy_init();
	if (!h) {
		snprintf(err, errlen, "libcurl is not available");
		return -ENOSYS;
	}
	size_t req_len;
	_cleanup_free_ uint8_t *req = build_request(image, &req_len);
	int r = -EPROTO;
	for (size_t i = 0; i < ELEMENTSOF(apis); i++) {
		struct call c;
		r = call_once(h, socket_path, apis[i], req, req_len, timeout_s, &c, err, errlen);
		if (r == 0 && c.grpc_status == GRPC_UNIMPLEMENTED && i + 1 < ELEMENTSOF(apis)) {
			free(c.body);
			continue;
		}
		if (r == 0 && c.grpc_status < 0) {
			snprintf(err, errlen, "the answer has no grpc-status: not a gRPC server");
			r = -EPROTO;
		} else if (r == 0 && c.grpc_status != 0) {
			snprintf(err, errlen, "CRI %s ImageStatus failed: %s%s%s", apis[i],
				 grpc_code_name(c.grpc_status), c.grpc_message[0] ? ": " : "",
				 c.grpc_message);
			r = c.grpc_status == GRPC_UNIMPLEMENTED ? -EOPNOTSUPP : -EPROTO;
		} else if (r == 0) {
			r = cri_image_decode(c.body, c.body_len, ret, err, errlen);
			if (r >= 0)
				*ret_api = apis[i];
		}
		free(c.body);
		break;
	}
	curl_easy_cleanup(h);
	return r;
}
