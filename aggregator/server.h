/* `hvready-aggregator serve`: the HTTP(S) API agents report to and operators
 * read the verdict from (SPEC §1, docs/protocol.md). */
#pragma once
#include <event2/http.h>

#include "cluster_state.h"
#include "util.h"

enum auth_mode {
	AUTH_NONE,	  /* --insecure-no-auth: warned at every start */
	AUTH_TOKEN_FILE,  /* one shared bearer token (systemd / pre-install) */
	AUTH_TOKENREVIEW, /* Kubernetes service-account tokens, bound to a node */
};

struct server_opts {
	char *listen; /* "ADDR:PORT", default "0.0.0.0:9443" */
	char *tls_cert, *tls_key;
	enum auth_mode auth;
	char *token_file;
	int interval_s; /* cluster state re-read, and the agents' expected interval */
	char *kubeconfig;
	bool in_cluster;
	struct strv states;   /* --cluster-state paths */
	bool node_conditions; /* write Node conditions and Events (node_conditions.h) */
};

/* Run until SIGTERM/SIGINT. Returns the process exit code. */
int server_run(const struct server_opts *o);

/* One HTTP exchange as the handlers see it. The evhttp callback fills it from
 * the connection and sends the answer; the fuzzer (fuzz/fuzz_request.c)
 * drives server_handle() without a socket. */
struct server_req {
	/* the request */
	enum evhttp_cmd_type method;
	const char *path;  /* as sent, not decoded; NULL means "/" */
	const char *query; /* NULL if none */
	const struct evkeyvalq *headers;
	const uint8_t *body;
	size_t body_len;
	struct evhttp_request *ev; /* NULL without a connection */
	/* the answer */
	int code;
	const char *reason, *type;
	char *out; /* malloc'd; the caller frees it */
	size_t out_len;
	bool deferred; /* answered later by the server (a token review); needs ev */
};

/* A server that serves requests but runs no loop, thread or socket: the
 * token file is read as serve does; cs (may be NULL: not read yet) is
 * adopted and zeroed. */
struct server *server_new(const struct server_opts *o, struct cluster_state *cs);
void server_handle(struct server *s, struct server_req *req);
void server_free(struct server *s);
