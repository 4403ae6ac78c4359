/*
 * The aggregator's request handling as it runs in production: two real
 * `serve` instances (server_run: evhttp, routing, limits, auth, report
 * decoding and ingest, the evaluator, renderer and refresher threads) in
 * threads of this process on loopback ports, and each input written to one of
 * them on a fresh TCP connection, byte for byte as a client would send it.
 * Coverage is collected from the server threads too. There is no socket-less
 * entry point on purpose: evhttp's own parsing, pipelining, clients that
 * leave mid-request and replies deferred to the evaluator are part of what
 * is fuzzed.
 *
 * Input: one mode byte ('2': the server with --node-token-file; else even:
 * the one with --token-file auth; odd: the one with --insecure-no-auth; a
 * '\n' after it is skipped), then raw bytes: one or more HTTP/1.1 requests,
 * or anything else. The connection is half-closed
 * after the input, and the answer read until the server closes it.
 *
 * Oracles beyond "no crash, no leak, no sanitizer report": the server keeps
 * accepting connections; it closes every connection within ANSWER_TIMEOUT_S
 * of the client's end of input (no hang); an answer starts with an HTTP
 * status line of a known code; with token auth, an input that does not carry
 * the token anywhere changes no node's report (the nodes and their sequence
 * numbers in GET /v1/nodes are the same before and after); with node tokens,
 * an input that carries neither node's token changes no node's report, and
 * one that carries only node 1's changes no report but node 1's — whatever it
 * says in Hvready-Node or the body: the header-phase authentication
 * (server_auth_headers, docs/robustness.md) binds a credential to its node.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fuzz_check.h"
#include "log.h"
#include "server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TOKEN "fuzz-token-0123456789"
/* --node-token-file: a token each for the cluster's two nodes */
#define NODE1		 "harvester-node-1"
#define NODE2		 "harvester-node-2"
#define NODE1_TOKEN	 "fuzz-node-one-token-0123"
#define NODE2_TOKEN	 "fuzz-node-two-token-4567"
#define ANSWER_TIMEOUT_S 5
#define ANSWER_MAX	 (64u << 20)
#define INPUT_MAX	 (2u << 20)

/* A small cluster: two Ready nodes, an RWX volume with its share endpoint and
 * the share-manager image, so accepted reports get real probe targets. */
static const char cluster_json[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"harvester-node-1\"},"
    "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
    "\"addresses\":[{\"type\":\"Hostname\",\"address\":\"harvester-node-1\"}]}},"
    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"harvester-node-2\"},"
    "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}},"
    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"Volume\",\"metadata\":"
    "{\"name\":\"pvc-f3461c9e\",\"namespace\":\"longhorn-system\"},\"spec\":"
    "{\"accessMode\":\"rwx\",\"migratable\":false},\"status\":{\"state\":\"attached\","
    "\"shareEndpoint\":\"nfs://10.53.88.17/pvc-f3461c9e\"}},"
    "{\"apiVersion\":\"longhorn.io/v1beta2\",\"kind\":\"ShareManager\",\"metadata\":"
    "{\"name\":\"pvc-f3461c9e\",\"namespace\":\"longhorn-system\",\"creationTimestamp\":"
    "\"2026-09-01T10:00:00Z\"},\"spec\":{\"image\":"
    "\"longhornio/longhorn-share-manager:v1.11.2\"}}]}";

struct instance {
	struct server_opts opts;
	uint16_t port;
	pthread_t thread;
};

static struct instance servers[3]; /* [0] token auth, [1] no auth, [2] node tokens */
static char workdir[64];

static void write_file(const char *path, const char *content, size_t len)
{
	FILE *f = fopen(path, "w"); /* umask 022 → 0644; the token file is chmod'ed below */
	CHECK(f);
	CHECK(fwrite(content, 1, len, f) == len);
	CHECK(fclose(f) == 0);
}

static void remove_workdir(void)
{
	char p[128];
	const char *names[] = {"token", "cluster.json", "node-tokens"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", workdir, names[i]);
		unlink(p);
	}
	rmdir(workdir);
}

/* A free loopback port: bound, read back, released. */
static uint16_t free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	CHECK(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void *server_main(void *arg)
{
	struct instance *in = arg;
	server_run(&in->opts);
	fprintf(stderr, "fuzz_request: the server on port %u stopped\n", (unsigned)in->port);
	abort();
}

static int connect_to(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write data, half-close, read until the server closes. The writing and the
 * reading interleave: the server may answer (413) and close before it has read
 * everything. Returns the answer's length; *ret is malloc'd, NUL-terminated. */
static size_t exchange(uint16_t port, const uint8_t *data, size_t size, char **ret)
{
	int fd = connect_to(port);
	if (fd < 0) /* the server must keep accepting */
		fprintf(stderr, "fuzz_request: connect to port %u: %s\n", (unsigned)port,
			strerror(errno));
	CHECK(fd >= 0);
	size_t cap = 65536, len = 0, sent = 0;
	char *buf = malloc(cap);
	CHECK(buf);
	bool wr_open = true;
	int64_t deadline = now_ms() + ANSWER_TIMEOUT_S * 1000;
	for (;;) {
		if (wr_open && sent == size) {
			shutdown(fd, SHUT_WR);
			wr_open = false;
			deadline = now_ms() + ANSWER_TIMEOUT_S * 1000;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN | (wr_open ? POLLOUT : 0)};
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			fprintf(stderr, "fuzz_request: no end of answer %d s after the input\n",
				ANSWER_TIMEOUT_S);
			abort();
		}
		int n = poll(&p, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		CHECK(n >= 0);
		if (p.revents & POLLOUT && wr_open) {
			ssize_t w = send(fd, data + sent, size - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w > 0)
				sent += (size_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EINTR)
				wr_open = false; /* the server closed: read what it said */
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			if (len + 1 >= cap) {
				CHECK(cap < ANSWER_MAX);
				cap *= 2;
				buf = realloc(buf, cap);
				CHECK(buf);
			}
			ssize_t r = recv(fd, buf + len, cap - len - 1, MSG_DONTWAIT);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
				break;
			if (r > 0)
				len += (size_t)r;
		}
	}
	/* The server has closed: a reset instead of TIME_WAIT here, or thousands
	 * of inputs a minute would use up the loopback's ephemeral ports. */
	struct linger lg = {.l_onoff = 1, .l_linger = 0};
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	buf[len] = '\0';
	*ret = buf;
	return len;
}

static void check_status_line(const char *answer, size_t len)
{
	static const int known[] = {200, 204, 400, 401, 403, 404, 405, 408,
				    411, 413, 415, 431, 500, 501, 503, 505};
	if (len == 0)
		return; /* nothing was a request: evhttp closes without a word */
	/* evhttp answers in the version the client asked in: "HTTP/0.1", "HTTP/1.10" */
	int major, minor, code, end = 0;
	CHECK(strncmp(answer, "HTTP/", 5) == 0);
	CHECK(sscanf(answer, "HTTP/%d.%d %d%n", &major, &minor, &code, &end) == 3 && end > 0);
	bool ok = false;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		ok |= code == known[i];
	if (!ok)
		fprintf(stderr, "fuzz_request: status %d\n", code);
	CHECK(ok);
}

/* "name=seq;…" of every node the server holds but skip (NULL: none). */
static char *nodes_fingerprint(uint16_t port, const char *skip)
{
	static const char req[] =
	    "GET /v1/nodes HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n";
	char *answer = NULL;
	size_t len = exchange(port, (const uint8_t *)req, sizeof(req) - 1, &answer);
	CHECK(len > 12 && memcmp(answer + 9, "200", 3) == 0);
	const char *body = strstr(answer, "\r\n\r\n");
	CHECK(body);
	json_object *o = json_tokener_parse(body + 4), *nodes = NULL;
	CHECK(o && json_object_object_get_ex(o, "nodes", &nodes));
	size_t cap = 64, n = 0;
	char *fp = calloc(1, cap);
	CHECK(fp);
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		json_object *e = json_object_array_get_idx(nodes, i), *name = NULL, *seq = NULL;
		CHECK(json_object_object_get_ex(e, "name", &name));
		CHECK(json_object_object_get_ex(e, "seq", &seq));
		const char *nm = json_object_get_string(name), *sq = json_object_get_string(seq);
		if (skip && strcmp(nm, skip) == 0)
			continue;
		size_t need = n + strlen(nm) + strlen(sq) + 3;
		if (need > cap) {
			cap = need * 2;
			fp = realloc(fp, cap);
			CHECK(fp);
		}
		n += (size_t)sprintf(fp + n, "%s=%s;", nm, sq);
	}
	json_object_put(o);
	free(answer);
	return fp;
}

static void start(struct instance *in, enum auth_mode auth, const char *token, const char *state)
{
	in->port = free_port();
	char listen[32];
	snprintf(listen, sizeof(listen), "127.0.0.1:%u", (unsigned)in->port);
	in->opts = (struct server_opts){
	    .listen = strdup(listen),
	    .auth = auth,
	    .token_file = auth == AUTH_TOKEN_FILE ? strdup(token) : NULL,
	    .node_token_file = auth == AUTH_NODE_TOKENS ? strdup(token) : NULL,
	    .interval_s = 30,
	};
	strv_add(&in->opts.states, state);
	CHECK(pthread_create(&in->thread, NULL, server_main, in) == 0);
	/* Ready once the cluster state is read (GET /readyz 200). */
	static const char req[] = "GET /readyz HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n";
	for (int i = 0; i < 200; i++) {
		int fd = connect_to(in->port);
		if (fd >= 0) {
			close(fd);
			char *answer = NULL;
			size_t len =
			    exchange(in->port, (const uint8_t *)req, sizeof(req) - 1, &answer);
			bool ready = len > 12 && memcmp(answer + 9, "200", 3) == 0;
			free(answer);
			if (ready)
				return;
		}
		usleep(50 * 1000);
	}
	fprintf(stderr, "fuzz_request: the server on port %u did not become ready\n",
		(unsigned)in->port);
	abort();
}

static void init_once(void)
{
	if (workdir[0])
		return;
	log_set_level(LOG_LEVEL_ERR); /* one line per request otherwise */
	/* Inputs invent node names: without a small bound every evaluation (and
	 * answers waiting for one) would grow with the campaign. The bound's own
	 * path (503) is fuzzed with the rest. */
	setenv("HVREADY_MAX_NODES", "32", 1);
	snprintf(workdir, sizeof(workdir), "/tmp/fuzz_request.XXXXXX");
	CHECK(mkdtemp(workdir));
	atexit(remove_workdir);
	char token[128], state[128], node_tokens[128];
	snprintf(token, sizeof(token), "%s/token", workdir);
	snprintf(node_tokens, sizeof(node_tokens), "%s/node-tokens", workdir);
	static const char node_lines[] = NODE1 " " NODE1_TOKEN "\n" NODE2 " " NODE2_TOKEN "\n";
	write_file(node_tokens, node_lines, sizeof(node_lines) - 1);
	CHECK(chmod(node_tokens, 0600) == 0);
	snprintf(state, sizeof(state), "%s/cluster.json", workdir);
	write_file(token, TOKEN "\n", sizeof(TOKEN));
	CHECK(chmod(token, 0600) == 0); /* serve refuses a token others can read */
	write_file(state, cluster_json, sizeof(cluster_json) - 1);
	start(&servers[0], AUTH_TOKEN_FILE, token, state);
	start(&servers[1], AUTH_NONE, NULL, state);
	start(&servers[2], AUTH_NODE_TOKENS, node_tokens, state);
}

static bool carries(const uint8_t *p, const uint8_t *end, const char *s)
{
	return memmem(p, (size_t)(end - p), s, strlen(s)) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > INPUT_MAX)
		return 0;
	init_once();
	bool node_tokens = data[0] == '2';
	bool token_auth = !node_tokens && (data[0] & 1) == 0;
	const uint8_t *p = data + 1, *end = data + size;
	if (p < end && *p == '\n')
		p++;
	struct instance *in = &servers[node_tokens ? 2 : token_auth ? 0 : 1];
	/* Whose reports the input may change: none without a credential; with
	 * node 1's token alone, node 1's only (skipped in the fingerprint). */
	bool oracle = false;
	const char *may_change = NULL;
	if (token_auth) {
		oracle = !carries(p, end, TOKEN);
	} else if (node_tokens) {
		bool t1 = carries(p, end, NODE1_TOKEN), t2 = carries(p, end, NODE2_TOKEN);
		oracle = !t2;
		may_change = t1 ? NODE1 : NULL;
	}
	char *before = oracle ? nodes_fingerprint(in->port, may_change) : NULL;

	char *answer = NULL;
	size_t len = exchange(in->port, p, (size_t)(end - p), &answer);
	if (getenv("FUZZ_REQUEST_TRACE")) /* to see what a seed exercises */
		fprintf(stderr, "-> %.200s\n", answer);
	check_status_line(answer, len);
	free(answer);

	if (before) {
		char *after = nodes_fingerprint(in->port, may_change);
		if (strcmp(before, after) != 0)
			fprintf(stderr, "fuzz_request: %s, nodes went from %s to %s\n",
				may_change ? "with node 1's token only" : "without a token", before,
				after);
		CHECK(strcmp(before, after) == 0);
		free(after);
		free(before);
	}
	return 0;
}
