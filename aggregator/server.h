/* `hvready-aggregator serve`: the HTTP(S) API agents report to and operators
 * read the verdict from (SPEC §1, docs/protocol.md). */
#pragma once
#include "util.h"

enum auth_mode {
	AUTH_NONE,	  /* --insecure-no-auth: warned at every start */
	AUTH_TOKEN_FILE,  /* one shared bearer token (systemd / pre-install) */
	AUTH_TOKENREVIEW, /* Kubernetes service-account tokens, bound to a node */
	AUTH_NODE_TOKENS, /* --node-token-file: a token per node (systemd), node_tokens.h */
};

struct server_opts {
	char *listen; /* "ADDR:PORT", default "0.0.0.0:9443" */
	char *tls_cert, *tls_key;
	enum auth_mode auth;
	char *token_file;
	char *node_token_file; /* AUTH_NODE_TOKENS */
	char *
	    agent_sa; /* --tokenreview: the only username accepted, system:serviceaccount:NS:NAME */
	int interval_s; /* cluster state re-read, and the agents' expected interval */
	char *kubeconfig;
	bool in_cluster;
	struct strv states;   /* --cluster-state paths */
	bool node_conditions; /* write Node conditions and Events (node_conditions.h) */
	size_t
	    max_report_bytes; /* --max-report-bytes: stored report bytes before new nodes are refused */
};

/* Run until SIGTERM/SIGINT. Returns the process exit code. */
int server_run(const struct server_opts *o);
