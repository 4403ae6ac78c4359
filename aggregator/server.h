/* `hvready-aggregator serve`: the HTTP(S) API agents report to and operators
 * read the verdict from (docs/protocol.md). */
#pragma once
#include "util.h"

enum auth_mode {
	AUTH_NONE,	  /* --insecure-no-auth: warned at every start */
	AUTH_TOKEN_FILE,  /* one shared bearer token (systemd / pre-install) */
	AUTH_TOKENREVIEW, /* Kubernetes service-account tokens, bound to a node */
	AUTH_NODE_TOKENS, /* --node-token-file: a token per node (systemd), node_tokens.h */
};

/* --read-auth: what GET routes other than /healthz and /readyz need. */
enum read_auth_mode {
	READ_AUTH_NONE,	       /* open (the default outside the manifests) */
	READ_AUTH_TOKEN,       /* token:FILE, a bearer token */
	READ_AUTH_TOKENREVIEW, /* tokenreview:GROUP, a reviewed token of a member of GROUP */
};

struct server_opts {
	char *listen; /* "ADDR:PORT", default "0.0.0.0:9443" */
	char *tls_cert, *tls_key;
	enum auth_mode auth;
	char *token_file;
	char *node_token_file; /* AUTH_NODE_TOKENS */
	/* --tokenreview: the only username accepted, system:serviceaccount:NS:NAME */
	char *agent_sa;
	enum read_auth_mode read_auth;
	char *read_auth_arg; /* the token file, or the group */
	bool metrics_auth;   /* --metrics-auth: /metrics needs --read-auth's credential too */
	int interval_s;	     /* cluster state re-read, and the agents' expected interval */
	char *kubeconfig;
	bool in_cluster;
	struct strv states;   /* --cluster-state paths */
	bool node_conditions; /* write Node conditions and Events (node_conditions.h) */
	/* --max-report-bytes: stored report bytes before new nodes are refused;
	 * 0 = SERVER_MAX_REPORT_BYTES */
	size_t max_report_bytes;
	/* --max-inflight-body-bytes: request bodies announced (Content-Length)
	 * and not yet read in full, across all connections, before more are
	 * refused with 503; 0 = SERVER_MAX_INFLIGHT_BODY_BYTES */
	size_t max_inflight_body_bytes;
	/* The canary in the gates (docs/canary.md#results-in-the-gates):
	 * --canary-result, read again when it changes; --canary-max-age. */
	char *canary_result;
	int64_t canary_max_age_ns;
	/* --canary-interval: serve runs `canary` itself every so often (0: never),
	 * with these (the canary's own options, checked by main.c): */
	int64_t canary_interval_ms, canary_timeout_ms;
	char *canary_ns, *canary_steps, *canary_rwx_class, *canary_vm_class, *canary_image;
	char *canary_nodes[2];
	/* The canary's own credential (serve's is kubeconfig/in_cluster above):
	 * --canary-kubeconfig, or --canary-token-file with in_cluster; neither:
	 * serve's --kubeconfig (main.c refuses neither with --in-cluster). */
	char *canary_kubeconfig, *canary_token_file;
};

/* --canary-token-file's size bound (a ServiceAccount token is about 1 KiB). */
#define CANARY_TOKEN_MAX_SIZE ((size_t)64 << 10)

/* The agent's ServiceAccount outside a cluster's pod (main.c finds the
 * namespace in one). */
#define SERVER_AGENT_SA_DEFAULT "system:serviceaccount:hvready-system:hvready-agent"

/* 256 MiB of stored reports: half the memory limit of the shipped manifests. */
#define SERVER_MAX_REPORT_BYTES ((size_t)256 << 20)

/* 64 MiB: 64 reports of the largest size (WIRE_MAX_MESSAGE) being received at
 * once; an agent's report is read in milliseconds. */
#define SERVER_MAX_INFLIGHT_BODY_BYTES ((size_t)64 << 20)

/* Run until SIGTERM/SIGINT. Returns the process exit code. */
int server_run(const struct server_opts *o);
