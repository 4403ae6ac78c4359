/*
 * The aggregator's request handling (server_handle: routing, method and body
 * limits, bearer auth, content type, report decoding and ingest, every GET
 * view) on arbitrary HTTP requests, without a socket.
 *
 * Input: one mode byte ('0'-like even: --token-file auth, odd: no auth; a
 * '\n' after it is skipped), then one or more HTTP/1.1 requests back to back,
 * as a client would write them: request line, headers, empty line, body of
 * Content-Length bytes (none without one). A Content-Length
 * beyond the input is padded with zero bytes up to 2 MiB, so a small seed can
 * stand for an oversized body. Requests evhttp would refuse before calling the
 * server (unknown method, unparsable URI, bad header) are skipped.
 *
 * Oracles beyond "no crash, no leak": every answer has a known status, a type
 * and a body; JSON answers parse, errors are {"error": one line, "code":
 * status}; an accepted report's answer is valid probe targets; with token
 * auth, no POST without the token is accepted, and no rejected POST changes
 * the node list.
 */
#include <stdio.h>
#include <sys/queue.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "probe_targets.h"
#include "server.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz_request: %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define TOKEN	    "fuzz-token-0123456789"
#define PAD_MAX	    (2u << 20)
#define MAX_REQUEST 16

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

static char token_path[64];

static void remove_token_file(void)
{
	if (token_path[0])
		unlink(token_path);
}

static void init_once(void)
{
	if (token_path[0])
		return;
	snprintf(token_path, sizeof(token_path), "/tmp/fuzz_request.XXXXXX");
	int fd = mkstemp(token_path); /* mode 0600: serve refuses a token others can read */
	CHECK(fd >= 0);
	CHECK(write(fd, TOKEN "\n", sizeof(TOKEN)) == (ssize_t)sizeof(TOKEN));
	close(fd);
	atexit(remove_token_file);
}

static enum evhttp_cmd_type method_of(const char *m, size_t n, bool *ok)
{
	static const struct {
		const char *name;
		enum evhttp_cmd_type type;
	} methods[] = {
	    {"GET", EVHTTP_REQ_GET},	   {"POST", EVHTTP_REQ_POST},
	    {"HEAD", EVHTTP_REQ_HEAD},	   {"PUT", EVHTTP_REQ_PUT},
	    {"DELETE", EVHTTP_REQ_DELETE}, {"OPTIONS", EVHTTP_REQ_OPTIONS},
	    {"TRACE", EVHTTP_REQ_TRACE},   {"CONNECT", EVHTTP_REQ_CONNECT},
	    {"PATCH", EVHTTP_REQ_PATCH},
	};
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strlen(methods[i].name) == n && memcmp(methods[i].name, m, n) == 0) {
			*ok = true;
			return methods[i].type;
		}
	*ok = false;
	return EVHTTP_REQ_GET;
}

/* The next line (without its CR LF) as a C string; NULL at the end. */
static char *next_line(const uint8_t **p, const uint8_t *end)
{
	if (*p >= end)
		return NULL;
	const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
	const uint8_t *stop = nl ? nl : end;
	size_t n = (size_t)(stop - *p);
	if (n && (*p)[n - 1] == '\r')
		n--;
	char *line = xstrndup((const char *)*p, n);
	*p = nl ? nl + 1 : end;
	return line;
}

static size_t node_count(struct server *s)
{
	struct evkeyvalq h;
	TAILQ_INIT(&h);
	struct server_req rq = {.method = EVHTTP_REQ_GET, .path = "/v1/nodes", .headers = &h};
	server_handle(s, &rq);
	CHECK(rq.code == 200);
	json_object *o = json_tokener_parse(rq.out);
	json_object *nodes = NULL;
	CHECK(o && json_object_object_get_ex(o, "nodes", &nodes));
	size_t n = json_object_array_length(nodes);
	json_object_put(o);
	free(rq.out);
	return n;
}

static void check_answer(const struct server_req *rq)
{
	static const int known[] = {200, 400, 401, 403, 404, 405, 413, 415, 500, 503};
	bool ok = false;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		ok |= rq->code == known[i];
	CHECK(ok);
	CHECK(!rq->deferred);
	CHECK(rq->reason && rq->type && rq->out);
	CHECK(strlen(rq->out) == rq->out_len); /* no NUL inside any body we send */
	if (strcmp(rq->type, "application/json") != 0)
		return;
	json_tokener *tok = json_tokener_new_ex(1024);
	json_object *o = json_tokener_parse_ex(tok, rq->out, (int)rq->out_len);
	CHECK(o && json_tokener_get_error(tok) == json_tokener_success);
	json_tokener_free(tok);
	if (rq->code >= 400) {
		json_object *e = NULL, *c = NULL;
		CHECK(json_object_object_get_ex(o, "error", &e) &&
		      json_object_is_type(e, json_type_string));
		CHECK(!strchr(json_object_get_string(e), '\n'));
		CHECK(json_object_object_get_ex(o, "code", &c) &&
		      json_object_get_int(c) == rq->code);
	}
	json_object_put(o);
}

/* Parse and serve one request; returns false at the end of the input. */
static bool one_request(struct server *s, bool token_auth, const uint8_t **p, const uint8_t *end)
{
	_cleanup_free_ char *line = next_line(p, end);
	if (!line)
		return false;
	char *sp1 = strchr(line, ' ');
	if (!sp1)
		return true;
	char *uri_s = sp1 + 1;
	char *sp2 = strchr(uri_s, ' ');
	if (sp2)
		*sp2 = '\0';
	bool method_ok;
	enum evhttp_cmd_type method = method_of(line, (size_t)(sp1 - line), &method_ok);

	struct evkeyvalq headers;
	TAILQ_INIT(&headers);
	bool headers_ok = true;
	int64_t content_length = -1;
	for (;;) {
		_cleanup_free_ char *h = next_line(p, end);
		if (!h || !*h)
			break;
		char *colon = strchr(h, ':');
		if (!colon) {
			headers_ok = false;
			continue;
		}
		*colon = '\0';
		char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		if (evhttp_add_header(&headers, h, v) < 0)
			headers_ok = false;
		if (strcasecmp(h, "Content-Length") == 0 && util_parse_i64(v, &content_length) < 0)
			content_length = -1;
	}
	/* No Content-Length, no body (HTTP/1.1 §3.3.3). */
	size_t left = (size_t)(end - *p), body_len = 0;
	if (content_length >= 0)
		body_len = (size_t)content_length < PAD_MAX ? (size_t)content_length : PAD_MAX;
	uint8_t *body = NULL;
	if (body_len) {
		body = xcalloc(1, body_len);
		memcpy(body, *p, body_len < left ? body_len : left);
	}
	*p += body_len < left ? body_len : left;

	struct evhttp_uri *uri = evhttp_uri_parse_with_flags(uri_s, EVHTTP_URI_NONCONFORMANT);
	if (method_ok && headers_ok && uri) {
		const char *path = evhttp_uri_get_path(uri);
		bool is_post_report =
		    method == EVHTTP_REQ_POST && path && strcmp(path, "/v1/reports") == 0;
		size_t before = is_post_report ? node_count(s) : 0;
		struct server_req rq = {
		    .method = method,
		    .path = path,
		    .query = evhttp_uri_get_query(uri),
		    .headers = &headers,
		    .body = body,
		    .body_len = body_len,
		};
		server_handle(s, &rq);
		if (getenv("FUZZ_REQUEST_TRACE")) /* to see what a seed exercises */
			fprintf(stderr, "%.8s %s -> %d %.120s\n", line, uri_s, rq.code, rq.out);
		check_answer(&rq);
		if (is_post_report) {
			const char *auth = evhttp_find_header(&headers, "Authorization");
			if (token_auth && (!auth || !strstr(auth, TOKEN)))
				CHECK(rq.code != 200);
			if (rq.code == 200) {
				struct probe_targets t;
				char err[256];
				CHECK(probe_targets_parse((const uint8_t *)rq.out, rq.out_len, &t,
							  err, sizeof(err)) == 0);
				probe_targets_clear(&t);
			} else {
				CHECK(node_count(s) == before);
			}
		}
		free(rq.out);
	}
	if (uri)
		evhttp_uri_free(uri);
	evhttp_clear_headers(&headers);
	free(body);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1u << 20))
		return 0;
	init_once();
	bool token_auth = (data[0] & 1) == 0;
	const uint8_t *p = data + 1, *end = data + size;
	if (p < end && *p == '\n')
		p++;

	struct cluster_state cs;
	char err[SOURCE_ERR_LEN];
	cluster_state_init(&cs);
	CHECK(source_files_parse(&cs, (const uint8_t *)cluster_json, sizeof(cluster_json) - 1,
				 "fuzz-cluster.json", NULL, err, sizeof(err)) == 0);
	struct server_opts o = {
	    .auth = token_auth ? AUTH_TOKEN_FILE : AUTH_NONE,
	    .token_file = token_path,
	    .interval_s = 30,
	};
	struct server *s = server_new(&o, &cs);
	for (int i = 0; i < MAX_REQUEST && one_request(s, token_auth, &p, end); i++)
		;
	server_free(s);
	cluster_state_clear(&cs);
	return 0;
}
