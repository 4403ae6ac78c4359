/*
 * The header phase of the server's connections (docs/robustness.md). evhttp
 * 2.1 has no hook between a request's headers and its body, so each
 * connection's input buffer has a callback of ours, run as bytes arrive and
 * before evhttp's reader sees them: a request's header section is withheld
 * from evhttp until it is complete (http_head.h), and decided there, before
 * a byte of its body is taken:
 *
 * - the credential, for every auth mode (server_auth_headers): a wrong token
 *   is refused with 401 however large or malformed the body it announces,
 *   and a report's credential is bound to the node its Hvready-Node header
 *   names (403 for another node's), the body's node checked against it once
 *   read (handle_report);
 *   a token that needs a TokenReview holds the request (and, past a header
 *   section's worth, reading from the connection) until the reviewer thread
 *   answers, without blocking the loop;
 * - the framing: what evhttp could read differently is refused (400), a
 *   chunked body too (411: its size is not known up front);
 * - the body's size: over the route's limit 413, and against a budget of
 *   bodies in flight across the server (--max-inflight-body-bytes): over it
 *   503 with Retry-After. The reservation ends when the body has arrived in
 *   full (the request is handled at once then) or the connection is gone.
 *
 * A refused request reaches evhttp without its body, with HTTP_HEAD_REFUSED
 * saying why: dispatch() answers it (so the answer is evhttp's, with the
 * usual headers) and closes the connection; what the client sends after is
 * dropped as it arrives, never buffered. An allowed request reaches evhttp
 * byte for byte, and evhttp keeps its own limits and parsing behind this.
 * The bufferevent stays evhttp's own (a filter bufferevent would report a
 * response written before the socket took it, and evhttp closes then).
 */
#include "server_internal.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/bufferevent.h>
#include <event2/http.h>

#include "http_head.h"
#include "log.h"

#define LINGER_S	      2
#define HEAD_TYPICAL	      4096
#define REFUSED_LOG_EVERY_NS  (10 * NSEC_PER_SEC)
#define REFUSED_LOG_BURST     5
#define INFLIGHT_LOG_EVERY_NS (60 * NSEC_PER_SEC)

const char *server_conn_peer(struct hconn *c)
{
	if (c->peer[0])
		return c->peer;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	evutil_socket_t fd = bufferevent_getfd(c->bev);
	if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    getnameinfo((struct sockaddr *)&ss, sl, c->peer, sizeof(c->peer), NULL, 0,
			NI_NUMERICHOST) != 0)
		c->peer[0] = '\0';
	return c->peer;
}

static void release(struct hconn *c)
{
	c->s->inflight_body -= c->reserved;
	c->reserved = 0;
}

static bool reserve(struct hconn *c, uint64_t n)
{
	struct server *s = c->s;
	if (n > s->max_inflight_body || s->inflight_body > s->max_inflight_body - n) {
		int64_t now = util_now_mono_ns();
		if (!s->inflight_logged_ns || now - s->inflight_logged_ns > INFLIGHT_LOG_EVERY_NS) {
			s->inflight_logged_ns = now;
			log_warnx(
			    "bodies in flight take %zu bytes, %llu more would pass "
			    "--max-inflight-body-bytes %zu: answering 503 (from %s), ignoring",
			    s->inflight_body, (unsigned long long)n, s->max_inflight_body,
			    server_conn_peer(c));
		}
		return false;
	}
	s->inflight_body += n;
	c->reserved = (size_t)n;
	return true;
}

/* At most REFUSED_LOG_BURST lines per REFUSED_LOG_EVERY_NS, the next one
 * with the count of those not logged: a flood of wrong tokens must not fill
 * the journal. Never the token. */
static void log_refused(struct hconn *c, int code, const char *path, const char *why)
{
	struct server *s = c->s;
	int64_t now = util_now_mono_ns();
	if (!s->refused_window_ns || now - s->refused_window_ns >= REFUSED_LOG_EVERY_NS) {
		s->refused_window_ns = now;
		s->refused_logged = 0;
	}
	if (s->refused_logged >= REFUSED_LOG_BURST) {
		s->refused_unlogged++;
		return;
	}
	s->refused_logged++;
	if (s->refused_unlogged)
		log_warnx("refused a request at its headers (%d %.128s from %s): %s (and %lu more "
			  "refusals not logged)",
			  code, path, server_conn_peer(c), why, s->refused_unlogged);
	else
		log_warnx("refused a request at its headers (%d %.128s from %s): %s", code, path,
			  server_conn_peer(c), why);
	s->refused_unlogged = 0;
}

/* Hand evhttp the request without its body, marked refused; drop the rest. */
static void refuse(struct hconn *c, struct evbuffer *src, struct evbuffer *dst, const char *method,
		   const char *target, const char *path, int code, const char *why)
{
	char clean[256];
	size_t n = 0;
	for (; why[n] && n + 1 < sizeof(clean); n++) /* a header value: no control bytes */
		clean[n] = (unsigned char)why[n] < 0x20 || why[n] == 0x7f ? ' ' : why[n];
	clean[n] = '\0';
	if (!streq(method, "GET") && !streq(method, "HEAD") && !streq(method, "POST"))
		method = "GET";
	evbuffer_add_printf(dst, "%s %s HTTP/1.1\r\n%s: %d %s\r\nContent-Length: 0\r\n\r\n", method,
			    target ? target : "/", HTTP_HEAD_REFUSED, code, clean);
	evbuffer_drain(src, evbuffer_get_length(src));
	c->state = HC_DRAIN;
	log_refused(c, code, path ? path : "?", clean);
}

/* evhttp reads a body for these methods only (http.c, evhttp_method_may_have_body). */
static bool may_have_body(const char *m)
{
	static const char *const with[] = {"POST",   "PUT",	"PATCH",  "GET",
					   "DELETE", "OPTIONS", "CONNECT"};
	for (size_t i = 0; i < ELEMENTSOF(with); i++)
		if (streq(m, with[i]))
			return true;
	return false;
}

/* The header section at the start of src, if complete: decided, and passed
 * on or refused. false if nothing moved (more bytes needed, or held). */
static bool head(struct hconn *c, struct evbuffer *src, struct evbuffer *dst)
{
	size_t n = evbuffer_get_length(src);
	/* Most header sections are short: no copy of a body's start to find it. */
	size_t avail = n < HEAD_TYPICAL ? n : HEAD_TYPICAL;
	const char *buf = (const char *)evbuffer_pullup(src, (ev_ssize_t)avail);
	struct http_head h;
	const char *why = NULL;
	enum http_head_result r = http_head_parse(buf, avail, &h, &why);
	if (r == HTTP_HEAD_MORE && n > avail) {
		avail = n < HTTP_HEAD_MAX ? n : HTTP_HEAD_MAX;
		buf = (const char *)evbuffer_pullup(src, (ev_ssize_t)avail);
		r = http_head_parse(buf, avail, &h, &why);
	}
	if (r == HTTP_HEAD_MORE)
		return false;
	if (r != HTTP_HEAD_OK) {
		refuse(c, src, dst, "GET", NULL, NULL, r == HTTP_HEAD_TOO_LONG ? 431 : 400, why);
		return true;
	}
	char method[16] = "";
	if (h.method.len < sizeof(method))
		memcpy(method, buf + h.method.off, h.method.len);
	_cleanup_free_ char *target = xstrndup(buf + h.target.off, h.target.len);
	/* As evhttp parses it (http.c, evhttp_parse_request_line); dispatch()
	 * routes on this path. */
	struct evhttp_uri *uri = evhttp_uri_parse_with_flags(target, EVHTTP_URI_NONCONFORMANT);
	if (!uri) {
		refuse(c, src, dst, method, NULL, NULL, 400, "a request target that is not a URI");
		return true;
	}
	_cleanup_free_ char *path =
	    xstrdup(evhttp_uri_get_path(uri) ? evhttp_uri_get_path(uri) : "/");
	evhttp_uri_free(uri);
	if (h.refused) {
		refuse(c, src, dst, method, target, path, 400,
		       "a header only this server sets (" HTTP_HEAD_REFUSED ")");
		return true;
	}
	struct server_route_info ri;
	server_route_lookup(method, path, &ri);
	int code;
	char whybuf[256];
	if (c->reviewed) { /* the held request, its token reviewed */
		c->reviewed = false;
		code = c->review_code;
		snprintf(whybuf, sizeof(whybuf), "%s", c->review_why);
	} else if (!ri.found) {
		code = 0; /* 404 or 405: no credential needed to learn that */
	} else {
		_cleanup_free_ char *authz =
		    h.has_authorization ? xstrndup(buf + h.authorization.off, h.authorization.len)
					: NULL;
		/* The node a report says it is for (agents send it, older ones
		 * not): the credential is bound to it here, before the body. */
		_cleanup_free_ char *node =
		    h.has_node ? xstrndup(buf + h.node.off, h.node.len) : NULL;
		code = server_auth_headers(c->s, c, ri.report, path, authz, node, whybuf,
					   sizeof(whybuf));
		if (authz)
			explicit_bzero(authz, strlen(authz));
		if (code < 0) {
			c->state = HC_HOLD; /* server_conn_reviewed() resumes */
			return false;
		}
	}
	if (code) {
		refuse(c, src, dst, method, target, path, code, whybuf);
		return true;
	}
	uint64_t body = may_have_body(method) && h.has_content_length ? h.content_length : 0;
	if (h.chunked && may_have_body(method)) {
		refuse(c, src, dst, method, target, path, 411,
		       "a body needs a Content-Length (chunked is not taken)");
		return true;
	}
	if (body > 0 && !ri.found) {
		refuse(c, src, dst, method, target, path, ri.path_known ? 405 : 404,
		       ri.path_known ? "method not allowed" : "no such path");
		return true;
	}
	if (body > ri.max_body) {
		snprintf(whybuf, sizeof(whybuf), "body of %llu bytes (at most %zu)",
			 (unsigned long long)body, ri.max_body);
		refuse(c, src, dst, method, target, path, 413, whybuf);
		return true;
	}
	if (body > 0 && !reserve(c, body)) {
		refuse(
		    c, src, dst, method, target, path, 503,
		    "too many request bodies in flight (--max-inflight-body-bytes); retry later");
		return true;
	}
	evbuffer_remove_buffer(src, dst, h.len);
	c->body_left = body;
	c->state = body ? HC_BODY : HC_HEAD;
	return true;
}

/* Move the last m bytes of input to the end of the stash. */
static void withhold(struct hconn *c, struct evbuffer *input, size_t m)
{
	size_t len = evbuffer_get_length(input);
	if (m < len)
		evbuffer_remove_buffer(input, c->scratch, len - m);
	evbuffer_add_buffer(c->stash, input);
	if (m < len)
		evbuffer_add_buffer(input, c->scratch);
}

/* Hand evhttp what the stash holds, as far as it is decided. */
static void process(struct hconn *c, struct evbuffer *input)
{
	for (size_t n; (n = evbuffer_get_length(c->stash)) > 0;) {
		if (c->state == HC_DRAIN) {
			evbuffer_drain(c->stash, n);
			return;
		}
		if (c->state == HC_HOLD)
			return;
		if (c->state == HC_BODY) {
			size_t k = n < c->body_left ? n : (size_t)c->body_left;
			evbuffer_remove_buffer(c->stash, input, k);
			c->body_left -= k;
			if (!c->body_left) {
				release(c);
				c->state = HC_HEAD;
			}
			continue;
		}
		/* One request ahead of evhttp at most: the next one is decided
		 * once evhttp has taken all it was given (on_input sees it take
		 * the last byte), so a client that sends requests without reading
		 * the answers leaves them here, where reading stops past
		 * HOLD_MAX, not in evhttp's buffer. */
		if (evbuffer_get_length(input) > 0) {
			c->waiting = true;
			return;
		}
		if (!head(c, c->stash, input))
			return;
	}
}

/* While held, at most this much waits in the stash before reading slows. */
#define HOLD_MAX (HTTP_HEAD_MAX + (16u << 10))

/* Reading slowed to a byte a second (a rate limit, not bufferevent_disable:
 * whether evhttp reads is evhttp's to say, and it reads by it). */
static void throttle(struct hconn *c, bool on)
{
	struct server *s = c->s;
	if (on == c->read_off)
		return;
	if (on && !s->throttle_cfg) {
		struct timeval tick = {1, 0};
		s->throttle_cfg =
		    ev_token_bucket_cfg_new(1, 1, EV_RATE_LIMIT_MAX, EV_RATE_LIMIT_MAX, &tick);
		if (!s->throttle_cfg)
			return;
	}
	if (bufferevent_set_rate_limit(c->bev, on ? s->throttle_cfg : NULL) == 0)
		c->read_off = on;
}

static void stop_reading_if_full(struct hconn *c)
{
	if ((c->state == HC_HOLD || c->waiting) && evbuffer_get_length(c->stash) > HOLD_MAX)
		throttle(c, true);
}

static void resume(struct hconn *c);

static void on_resume(evutil_socket_t fd, short what, void *arg)
{
	resume(arg);
}

/* Decide the stash later in this pass of the loop, outside evhttp's and the
 * reviewer's callbacks. */
static void schedule_resume(struct hconn *c)
{
	if (!c->resume_ev)
		c->resume_ev = event_new(bufferevent_get_base(c->bev), -1, 0, on_resume, c);
	if (c->resume_ev)
		event_active(c->resume_ev, EV_TIMEOUT, 1);
}

/* The input buffer's callback: bytes arrived (or evhttp took some). */
static void on_input(struct evbuffer *input, const struct evbuffer_cb_info *info, void *arg)
{
	struct hconn *c = arg;
	if (c->busy)
		return;
	if (!info->n_added) {
		/* evhttp took bytes: all of them, and a request waits? */
		if (c->waiting && evbuffer_get_length(input) == 0)
			schedule_resume(c);
		return;
	}
	c->busy = true;
	size_t fresh = info->n_added, len = evbuffer_get_length(input);
	if (fresh > len)
		fresh = len;
	/* A body's bytes stay where they are, for evhttp. */
	if (c->state == HC_BODY && evbuffer_get_length(c->stash) == 0) {
		size_t k = fresh < c->body_left ? fresh : (size_t)c->body_left;
		c->body_left -= k;
		fresh -= k;
		if (!c->body_left) {
			release(c);
			c->state = HC_HEAD;
		}
	}
	if (fresh) {
		withhold(c, input, fresh);
		process(c, input);
		stop_reading_if_full(c);
	}
	c->busy = false;
}

void server_conn_reviewed(struct hconn *c, int code, const char *why)
{
	c->job = NULL;
	if (c->state != HC_HOLD)
		return;
	c->state = HC_HEAD;
	c->reviewed = true;
	c->review_code = code;
	snprintf(c->review_why, sizeof(c->review_why), "%s", why ? why : "");
	schedule_resume(c);
}

/* Decide what the stash holds now (a review is done, or evhttp took what it
 * was given) and wake evhttp's reader. */
static void resume(struct hconn *c)
{
	c->waiting = false;
	struct evbuffer *input = bufferevent_get_input(c->bev);
	c->busy = true;
	/* A socket bufferevent keeps its input's end frozen between reads. */
	if (!c->tls)
		evbuffer_unfreeze(input, 0);
	process(c, input);
	if (!c->tls)
		evbuffer_freeze(input, 0);
	c->busy = false;
	if (c->state != HC_HOLD && !c->waiting)
		throttle(c, false);
	/* evhttp's reader, if it is reading now. Between a request and its
	 * answer it has reading off and must not be called (http.c,
	 * evhttp_read_cb exits on "illegal connection state"); it looks at its
	 * input when it starts reading again. Not deferred: by then the state
	 * may have changed. */
	bufferevent_data_cb readcb = NULL;
	bufferevent_getcb(c->bev, &readcb, NULL, NULL, NULL);
	if (readcb && (bufferevent_get_enabled(c->bev) & EV_READ) && evbuffer_get_length(input) > 0)
		bufferevent_trigger(c->bev, EV_READ, 0);
}

static void linger_read(struct bufferevent *bev, void *arg)
{
	evbuffer_drain(bufferevent_get_input(bev), evbuffer_get_length(bufferevent_get_input(bev)));
}

static void linger_event(struct bufferevent *bev, short what, void *arg)
{
	bufferevent_disable(bev, EV_READ | EV_WRITE);
	bufferevent_setcb(bev, NULL, NULL, NULL, NULL); /* the sweep frees it now */
}

bool server_conn_linger(struct hconn *c)
{
	if (c->state != HC_DRAIN || c->lingered || bufferevent_getfd(c->bev) < 0)
		return false;
	c->lingered = true;
	throttle(c, false);
	struct timeval tv = {LINGER_S, 0};
	bufferevent_set_timeouts(c->bev, &tv, NULL);
	bufferevent_setcb(c->bev, linger_read, NULL, linger_event, c);
	bufferevent_enable(c->bev, EV_READ);
	return true;
}

void server_conn_free(struct hconn *c)
{
	if (!c)
		return;
	release(c);
	if (c->job)
		c->job->hc = NULL;
	if (c->cb)
		evbuffer_remove_cb_entry(bufferevent_get_input(c->bev), c->cb);
	if (c->resume_ev)
		event_free(c->resume_ev);
	throttle(c, false);
	evbuffer_free(c->stash);
	evbuffer_free(c->scratch);
	free(c);
}

void server_conn_end(struct server *s)
{
	if (s->throttle_cfg)
		ev_token_bucket_cfg_free(s->throttle_cfg);
	s->throttle_cfg = NULL;
}

struct hconn *server_conn_new(struct server *s, struct bufferevent *bev)
{
	struct hconn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	*c = (struct hconn){.s = s, .bev = bev, .tls = s->ssl != NULL};
	c->stash = evbuffer_new();
	c->scratch = evbuffer_new();
	if (c->stash && c->scratch)
		c->cb = evbuffer_add_cb(bufferevent_get_input(bev), on_input, c);
	if (!c->cb) {
		server_conn_free(c);
		return NULL;
	}
	return c;
}
