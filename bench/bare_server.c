/*
 * bare_server: the baseline for the ingest benchmark. The same libevent evhttp
 * stack the aggregator serves on, in one thread like the aggregator's loop,
 * with the same body limit; it reads each POST body whole and answers
 * 204 No Content. What the aggregator does beyond this (decode, store,
 * probe targets, verdict) is what the ratio of the two measures.
 *
 *   bare_server [--listen ADDR] [--port N]     (port 0 = any free port)
 *
 * Prints "listening on ADDR:PORT" once bound; stops on SIGTERM or SIGINT.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#define MAX_BODY (1u << 20) /* WIRE_MAX_MESSAGE */

static unsigned long long posts;

static void on_request(struct evhttp_request *req, void *arg)
{
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	if (evhttp_request_get_command(req) == EVHTTP_REQ_POST && path &&
	    strcmp(path, "/v1/reports") == 0) {
		/* The body is all in the input buffer now, as the aggregator gets it. */
		struct evbuffer *in = evhttp_request_get_input_buffer(req);
		evbuffer_drain(in, evbuffer_get_length(in));
		posts++;
		evhttp_send_reply(req, 204, "No Content", NULL);
		return;
	}
	evhttp_send_error(req, HTTP_NOTFOUND, NULL);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopexit(arg, NULL);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"listen", required_argument, NULL, 'l'},
	    {"port", required_argument, NULL, 'p'},
	    {0},
	};
	const char *addr = "127.0.0.1";
	long port = 0;
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'l')
			addr = optarg;
		else if (c == 'p')
			port = strtol(optarg, NULL, 10);
		else
			return 2;
	}
	if (port < 0 || port > 65535) {
		fprintf(stderr, "bare_server: --port %ld is out of range\n", port);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	struct event_base *base = event_base_new();
	struct evhttp *http = base ? evhttp_new(base) : NULL;
	if (!http) {
		fprintf(stderr, "bare_server: cannot create the event loop\n");
		return 2;
	}
	evhttp_set_max_body_size(http, MAX_BODY);
	evhttp_set_timeout(http, 10);
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD);
	evhttp_set_gencb(http, on_request, NULL);
	struct evhttp_bound_socket *b = evhttp_bind_socket_with_handle(http, addr, (uint16_t)port);
	if (!b) {
		fprintf(stderr, "bare_server: cannot listen on %s:%ld\n", addr, port);
		return 2;
	}
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	if (getsockname(evhttp_bound_socket_get_fd(b), (struct sockaddr *)&sin, &sl) < 0) {
		perror("bare_server: getsockname");
		return 2;
	}
	printf("listening on %s:%u\n", addr, (unsigned)ntohs(sin.sin_port));
	fflush(stdout);
	struct event *term = evsignal_new(base, SIGTERM, on_signal, base);
	struct event *intr = evsignal_new(base, SIGINT, on_signal, base);
	event_add(term, NULL);
	event_add(intr, NULL);
	event_base_dispatch(base);
	fprintf(stderr, "bare_server: %llu reports answered\n", posts);
	event_free(term);
	event_free(intr);
	evhttp_free(http);
	event_base_free(base);
	return 0;
}
