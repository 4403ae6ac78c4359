/*
 * GET /v1/verdict: the JSON verdict sent as the gzip bytes the evaluator made,
 * by reference, or inflated step by step for a client that does not take
 * gzip; the other formats are rendered off the loop (server_eval.c).
 */
#include "server_internal.h"
#include "render_verdict.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <zlib.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "log.h"

#define VERDICT_WRITE_MAX (8u << 20)   /* bytes per write() of a verdict (default 16 KiB) */
#define STREAM_CHUNK	  (256u << 10) /* inflated per step for a client without gzip */

/* ---------- serving the verdict ---------- */

/* libevent is done with the bytes of a response (on the loop thread). */
static void vjson_release(const void *data, size_t len, void *arg)
{
	server_eval_vjson_unref(arg);
}

/* Accept-Encoding names gzip (or *) with a non-zero quality. */
static bool accepts_gzip(struct evhttp_request *req)
{
	const char *ae =
	    evhttp_find_header(evhttp_request_get_input_headers(req), "Accept-Encoding");
	while (ae && *ae) {
		ae += strspn(ae, " \t,");
		size_t n = strcspn(ae, " \t;,");
		bool gz = (n == 4 && strncasecmp(ae, "gzip", 4) == 0) ||
			  (n == 6 && strncasecmp(ae, "x-gzip", 6) == 0) || (n == 1 && *ae == '*');
		ae += n;
		ae += strspn(ae, " \t");
		double q = 1;
		if (*ae == ';') {
			const char *qs = strstr(ae, "q=");
			const char *end = ae + strcspn(ae, ",");
			if (qs && qs < end)
				q = strtod(qs + 2, NULL);
		}
		if (gz && q > 0)
			return true;
		ae = strchr(ae, ',');
	}
	return false;
}

void server_verdict_stream_free(struct server *s, struct stream *st)
{
	for (struct stream **pp = &s->streams; *pp; pp = &(*pp)->next)
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	inflateEnd(&st->z);
	server_eval_vjson_unref(st->vj);
	free(st);
}

static void stream_next(struct evhttp_connection *evcon, void *arg)
{
	struct stream *st = arg;
	struct evbuffer *b = evbuffer_new();
	int r = Z_OK;
	/* Inflate until a chunk has bytes: an empty chunk is never sent, and
	 * its callback would never come. */
	while (r == Z_OK && evbuffer_get_length(b) == 0) {
		struct evbuffer_iovec v;
		if (evbuffer_reserve_space(b, STREAM_CHUNK, &v, 1) < 1)
			break;
		st->z.next_out = v.iov_base;
		st->z.avail_out = (uInt)v.iov_len;
		r = inflate(&st->z, Z_NO_FLUSH);
		v.iov_len -= st->z.avail_out;
		evbuffer_commit_space(b, &v, 1);
	}
	if (r == Z_OK) {
		evhttp_send_reply_chunk_with_cb(st->req, b, stream_next, st);
		evbuffer_free(b);
		return;
	}
	if (r != Z_STREAM_END)
		log_warnx("inflating the verdict: zlib error %d, ignoring", r);
	if (evbuffer_get_length(b))
		evhttp_send_reply_chunk(st->req, b);
	evbuffer_free(b);
	evhttp_send_reply_end(st->req);
	server_verdict_stream_free(st->s, st);
}

static void verdict_headers(struct evhttp_request *req, bool gzip, size_t len)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	char lenbuf[32];
	snprintf(lenbuf, sizeof(lenbuf), "%zu", len);
	server_content_headers(h, "application/json");
	evhttp_add_header(h, "Cache-Control", "no-store");
	evhttp_add_header(h, "Vary", "Accept-Encoding");
	if (gzip)
		evhttp_add_header(h, "Content-Encoding", "gzip");
	evhttp_add_header(h, "Content-Length", lenbuf);
}

/* The current JSON verdict: the gzip bytes by reference, or inflated as the
 * client reads (the plain text of thousands of nodes is kept nowhere). */
static void serve_json(struct server *s, struct evhttp_request *req)
{
	struct vjson *vj = s->json;
	bool gzip = accepts_gzip(req);
	verdict_headers(req, gzip, gzip ? vj->gz_len : vj->len);
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	if (bev) {
		/* The whole answer in one write, not one per slice of the loop: the
		 * socket's buffer starts at 16 KiB and grows only with use. */
		int sndbuf = (int)((gzip ? vj->gz_len : STREAM_CHUNK) + (64u << 10));
		if (sndbuf > (int)VERDICT_WRITE_MAX)
			sndbuf = (int)VERDICT_WRITE_MAX;
		setsockopt(bufferevent_getfd(bev), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
		bufferevent_set_max_single_write(bev, VERDICT_WRITE_MAX);
	}
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		evhttp_send_reply(req, HTTP_OK, "OK", NULL);
		return;
	}
	if (gzip) {
		struct evbuffer *b = evbuffer_new();
		vj->refs++;
		evbuffer_add_reference(b, vj->gz, vj->gz_len, vjson_release, vj);
		evhttp_send_reply(req, HTTP_OK, "OK", b);
		evbuffer_free(b);
		return;
	}
	struct stream *st = xcalloc(1, sizeof(*st));
	if (inflateInit2(&st->z, 15 + 16) != Z_OK)
		fatalx("zlib: cannot initialise inflate");
	st->s = s;
	st->req = req;
	st->evcon = evcon;
	st->vj = vj;
	vj->refs++;
	st->z.next_in = vj->gz;
	st->z.avail_in = (uInt)vj->gz_len;
	st->next = s->streams;
	s->streams = st;
	evhttp_connection_set_closecb(evcon, server_on_conn_close, s);
	evhttp_send_reply_start(req, HTTP_OK, "OK");
	stream_next(evcon, st);
}

int server_query_view(struct server *s, struct evhttp_request *req, int *gate, bool *paused,
		      unsigned *statuses)
{
	*gate = -1;
	*paused = false;
	*statuses = 0;
	struct evkeyvalq q = {0};
	const char *query = evhttp_uri_get_query(evhttp_request_get_evhttp_uri(req));
	if (!query || evhttp_parse_query_str(query, &q) != 0)
		return 0;
	const char *g = evhttp_find_header(&q, "gate");
	const char *r = evhttp_find_header(&q, "refresh");
	const char *sl = evhttp_find_header(&q, "status");
	int ret = 0;
	if (g && !streq(g, "all") && (*gate = gate_from_name(g)) < 0) {
		*gate = -1;
		server_reply_error(s, req, HTTP_BADREQUEST, "Bad Request",
				   "gate must be preinstall, platform, rwx, live-migration or all");
		ret = -EINVAL;
	} else if (sl && !(*statuses = render_status_mask_parse(sl))) {
		server_reply_error(
		    s, req, HTTP_BADREQUEST, "Bad Request",
		    "status must be a comma list of pass, warn, fail, unknown, skip");
		ret = -EINVAL;
	} else if (r) {
		*paused = streq(r, "0");
	}
	evhttp_clear_headers(&q);
	return ret;
}

/* GET /v1/verdict[?format=json|text|markdown|html][&gate=NAME] (the gate
 * narrows the human formats as report --gate does; JSON is always whole) */
void server_verdict_handle(struct server *s, struct evhttp_request *req, const char *arg)
{
	if (!s->st) {
		server_reply_error(s, req, HTTP_SERVUNAVAIL, "Service Unavailable",
				   "the cluster state has not been read yet");
		return;
	}
	const char *format = "json";
	struct evkeyvalq q = {0};
	const char *query = evhttp_uri_get_query(evhttp_request_get_evhttp_uri(req));
	if (query && evhttp_parse_query_str(query, &q) == 0) {
		const char *fv = evhttp_find_header(&q, "format");
		if (fv)
			format = fv;
	}
	bool known = streq(format, "json") || streq(format, "text") || streq(format, "markdown") ||
		     streq(format, "html");
	int gate;
	bool paused;
	unsigned statuses;
	if (server_query_view(s, req, &gate, &paused, &statuses) < 0) {
		evhttp_clear_headers(&q);
		return;
	}
	if (known && !s->current) {
		server_eval_park(s, req, server_verdict_handle);
	} else if (streq(format, "json")) {
		serve_json(s, req);
	} else if (known) {
		server_eval_queue_render(s, req,
					 streq(format, "text")	     ? RENDER_TEXT
					 : streq(format, "markdown") ? RENDER_MARKDOWN
								     : RENDER_HTML,
					 gate, false, statuses);
	} else {
		server_reply_error(s, req, HTTP_BADREQUEST, "Bad Request",
				   "format must be json, text, markdown or html");
	}
	evhttp_clear_headers(&q);
}
