/*
 * api.harvester.endpoint (docs/checks/api.harvester.endpoint.md): the Harvester
 * API endpoint answers when reached with its SNI host name, and /v1/harvester
 * lists the snapshot.kubevirt.io schemas.
 */
#include "checks_api.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hv_endpoint.h"

#define DEFAULT_SNI	   "harvester.local"
#define EP_CONNECT_MS	   3000
#define EP_TIMEOUT_MS	   8000
#define EP_DEADLINE_NS	   (20 * NSEC_PER_SEC)
#define EP_MAX_BODY	   (16u << 20)
#define EP_MAX_TARGETS	   6
#define SNAPSHOT_SCHEMA_NS "snapshot.kubevirt.io."

/* Effective value of a Harvester setting: value if non-empty, else default. */
static const char *hv_setting(const struct cluster_state *cs, const char *name)
{
	const struct jv *s = cs_find(cs, RES_HV_SETTINGS, NULL, name);
	const char *v = JQS(s, "value");
	if (v && *v)
		return v;
	v = JQS(s, "default");
	return v && *v ? v : NULL;
}

/* The host of server-url when it names a host (not an IP), else harvester.local. */
static char *sni_host(const struct cluster_state *cs, const char **ret_from)
{
	const char *url = hv_setting(cs, "server-url");
	*ret_from = "default (server-url unset or an IP address)";
	if (!url)
		return xstrdup(DEFAULT_SNI);
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	size_t n = strcspn(p, ":/?#");
	_cleanup_free_ char *h = xstrndup(p, n);
	bool ip = n == 0 || h[0] == '[' || strspn(h, "0123456789.") == n;
	if (ip)
		return xstrdup(DEFAULT_SNI);
	*ret_from = "setting server-url";
	return xstrdup(h);
}

/* The custom CA of the ssl-certificates setting (never its private key). */
static char *custom_ca(const struct cluster_state *cs)
{
	const char *v = hv_setting(cs, "ssl-certificates");
	if (!v)
		return NULL;
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	const char *ca = JQS(jv_parse(ar, v), "ca");
	char *r = ca && *ca ? xstrdup(ca) : NULL;
	return r;
}

struct target {
	char ip[64];
	int port;
	const char *via;
};

static void add_target(struct target *t, size_t *n, const char *ip, int64_t port, const char *via)
{
	if (!ip || !*ip || streq(ip, "None") || port <= 0 || port > 65535 || *n >= EP_MAX_TARGETS)
		return;
	for (size_t i = 0; i < *n; i++)
		if (streq(t[i].ip, ip) && t[i].port == port)
			return;
	snprintf(t[*n].ip, sizeof(t[*n].ip), "%s", ip);
	t[*n].port = (int)port;
	t[*n].via = via;
	(*n)++;
}

/* The Service's https port: named "https", else 443, else the first. */
static const struct jv *https_port(const struct jv *svc)
{
	const struct jv *ports = JQ(svc, "spec", "ports");
	for (size_t i = 0; i < jq_len(ports); i++)
		if (streq(JQS(jq_at(ports, i), "name"), "https"))
			return jq_at(ports, i);
	for (size_t i = 0; i < jq_len(ports); i++) {
		int64_t p;
		if (jq_int(JQ(jq_at(ports, i), "port"), &p) && p == 443)
			return jq_at(ports, i);
	}
	return jq_at(ports, 0);
}

/* ClusterIP first (in-cluster), then load balancer, then NodePort on node addresses. */
static size_t endpoint_targets(const struct cluster_state *cs, const struct jv *svc,
			       struct target *t)
{
	size_t n = 0;
	const struct jv *port = https_port(svc);
	int64_t p = 0, np = 0;
	jq_int(JQ(port, "port"), &p);
	jq_int(JQ(port, "nodePort"), &np);
	const struct jv *ips = JQ(svc, "spec", "clusterIPs");
	add_target(t, &n, JQS(svc, "spec", "clusterIP"), p, "ClusterIP");
	for (size_t i = 0; i < jq_len(ips); i++)
		add_target(t, &n, jv_str(jq_at(ips, i)), p, "ClusterIP");
	const struct jv *ing = JQ(svc, "status", "loadBalancer", "ingress");
	for (size_t i = 0; i < jq_len(ing); i++)
		add_target(t, &n, JQS(jq_at(ing, i), "ip"), p, "LoadBalancer");
	const struct jv *nodes = cs_items(cs, RES_NODES);
	for (size_t i = 0; i < jq_len(nodes) && np > 0; i++) {
		const struct jv *addrs = JQ(jq_at(nodes, i), "status", "addresses");
		for (size_t j = 0; j < jq_len(addrs); j++)
			if (streq(JQS(jq_at(addrs, j), "type"), "InternalIP"))
				add_target(t, &n, JQS(jq_at(addrs, j), "address"), np, "NodePort");
	}
	return n;
}

/* The snapshot.kubevirt.io schema IDs a Steve schema collection lists. */
static void snapshot_schemas(const char *body, struct strv *out, size_t *ret_total)
{
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	const struct jv *data = JQ(jv_parse(ar, body), "data");
	*ret_total = jq_len(data);
	for (size_t i = 0; i < jq_len(data); i++) {
		const char *sid = JQS(jq_at(data, i), "id");
		if (startswith(sid, SNAPSHOT_SCHEMA_NS) && !strv_contains(out, sid))
			strv_add(out, sid);
	}
	if (data)
		return;
	/* Not a schema collection: look for the IDs in the text, as `grep` would. */
	for (const char *p = body; (p = strstr(p, SNAPSHOT_SCHEMA_NS)); p++) {
		size_t n = strlen(SNAPSHOT_SCHEMA_NS);
		while (p[n] && (p[n] == '-' || p[n] == '.' || (p[n] >= 'a' && p[n] <= 'z')))
			n++;
		_cleanup_free_ char *sid = xstrndup(p, n);
		if (n > strlen(SNAPSHOT_SCHEMA_NS) && !strv_contains(out, sid))
			strv_add(out, sid);
	}
}

static void endpoint_cert_evidence(struct agg_ctx *ctx, struct finding *f,
				   const struct hv_endpoint_resp *r, bool ca, enum status *st,
				   char **msg)
{
	kv_add_bool(&f->evidence, "tls_verified", r->verified);
	if (!ca)
		kv_add_str(&f->evidence, "tls_verification",
			   "off: no CA in the ssl-certificates setting; Harvester's default "
			   "certificate is self-signed, so TLS and SNI routing are proven, not "
			   "the certificate chain");
	if (r->cert_subject)
		kv_add_str(&f->evidence, "cert_subject", r->cert_subject);
	if (r->cert_issuer)
		kv_add_str(&f->evidence, "cert_issuer", r->cert_issuer);
	if (r->cert_expire)
		kv_add_str(&f->evidence, "cert_expires", r->cert_expire);
	int64_t exp;
	if (hv_endpoint_parse_expire(r->cert_expire, &exp) && exp < ctx->now_ns &&
	    *st == STATUS_PASS) {
		*st = STATUS_WARN;
		char *m = xasprintf("%s, but its certificate expired on %s", *msg, r->cert_expire);
		free(*msg);
		*msg = m;
	}
}

static void endpoint_attempt(struct hv_endpoint_req *rq, const struct target *t,
			     struct value_list *attempts, struct hv_endpoint_resp *r, bool *reached,
			     bool *refused)
{
	rq->ip = t->ip;
	rq->port = t->port;
	int rc = hv_endpoint_get(rq, r);
	if (rc < 0 && rq->ca_pem && r->curl_code == CURLE_PEER_FAILED_VERIFICATION) {
		/* Not signed by the configured CA: say so, and still test the rest. */
		vlist_add_strf(attempts,
			       "%s %s:%d sni=%s: certificate not verified against the "
			       "ssl-certificates CA (%s); retried without verification",
			       t->via, t->ip, t->port, rq->host, r->error);
		hv_endpoint_resp_clear(r);
		const char *ca = rq->ca_pem;
		rq->ca_pem = NULL;
		rc = hv_endpoint_get(rq, r);
		rq->ca_pem = ca;
	}
	*reached |= r->connected;
	if (!r->connected && r->os_errno != ECONNREFUSED)
		*refused = false;
	if (rc == 0)
		vlist_add_strf(attempts, "%s %s:%d sni=%s: HTTP %ld", t->via, t->ip, t->port,
			       rq->host, r->http_status);
	else
		vlist_add_strf(attempts, "%s %s:%d sni=%s: %s", t->via, t->ip, t->port, rq->host,
			       r->error);
}

static void endpoint_judge(struct agg_ctx *ctx, struct finding *f, struct judge *j,
			   const struct target *t, const char *host, struct hv_endpoint_resp *r,
			   bool ca)
{
	struct strv schemas = {0};
	size_t total = 0;
	enum status st;
	char *msg;
	snapshot_schemas(r->body, &schemas, &total);
	kv_add_strf(&f->evidence, "answered", "%s %s:%d", t->via, t->ip, t->port);
	kv_add_int(&f->evidence, "http_status", r->http_status);
	kv_add_int(&f->evidence, "schemas", (int64_t)total);
	struct value_list *l = kv_add_list(&f->evidence, "snapshot_kubevirt_io_schemas");
	for (size_t i = 0; i < schemas.n; i++)
		vlist_add_str(l, schemas.items[i]);
	if (r->http_status == 200 && schemas.n > 0) {
		st = STATUS_PASS;
		msg = xasprintf("https://%s:%d/v1/harvester answers over TLS with SNI %s and lists "
				"%zu snapshot.kubevirt.io %s",
				host, t->port, host, schemas.n,
				plural((int64_t)schemas.n, "schema", "schemas"));
	} else if (r->http_status == 200) {
		st = STATUS_WARN;
		msg = xasprintf("https://%s:%d/v1/harvester answers but lists no "
				"snapshot.kubevirt.io schema (%zu %s): VM snapshots are "
				"KubeVirt's snapshot.kubevirt.io API in Harvester 1.8",
				host, t->port, total, plural((int64_t)total, "schema", "schemas"));
		judge_remedy(j, "kubectl get crd virtualmachinesnapshots.snapshot.kubevirt.io "
				"virtualmachinerestores.snapshot.kubevirt.io; an unauthenticated "
				"client may see fewer schemas than an admin");
	} else if (r->http_status == 401 || r->http_status == 403) {
		st = STATUS_WARN;
		msg = xasprintf("https://%s:%d/v1/harvester answers over TLS with SNI %s but "
				"refuses an unauthenticated client (HTTP %ld): schemas not checked",
				host, t->port, host, r->http_status);
	} else {
		st = STATUS_FAIL;
		msg = xasprintf("https://%s:%d/v1/harvester answers HTTP %ld with SNI %s", host,
				t->port, r->http_status, host);
		judge_remedy(j,
			     "curl -k --resolve %s:%d:%s https://%s:%d/v1/harvester; kubectl -n "
			     "harvester-system logs deploy/harvester --tail=50",
			     host, t->port, t->ip, host, t->port);
	}
	endpoint_cert_evidence(ctx, f, r, ca, &st, &msg);
	judge_note(j, st, "%s", msg);
	free(msg);
	strv_clear(&schemas);
}

void check_harvester_endpoint(struct agg_ctx *ctx, const char *id)
{
	if (!ctx->live) {
		agg_not_applicable(ctx, id,
				   "offline: the endpoint is only probed against a live cluster");
		return;
	}
	if (!ctx->harvester_installed) {
		agg_not_applicable(ctx, id, "Harvester is not installed");
		return;
	}
	const struct jv *svc = cs_find(ctx->cs, RES_SERVICES, "harvester-system", "harvester");
	if (!svc) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		judge_note(&j, STATUS_FAIL, "Service harvester-system/harvester does not exist");
		judge_remedy(&j, "kubectl -n harvester-system get svc; the chart's "
				 "service.harvester.type sets how it is exposed");
		judge_decide(&j, f, "");
		return;
	}
	struct target t[EP_MAX_TARGETS];
	size_t n = endpoint_targets(ctx->cs, svc, t);
	const char *sni_from;
	_cleanup_free_ char *host = sni_host(ctx->cs, &sni_from);
	_cleanup_free_ char *ca = custom_ca(ctx->cs);
	struct finding *f = agg_object_finding(ctx, id, svc);
	struct judge j = {0};
	kv_add_str(&f->evidence, "sni", host);
	kv_add_str(&f->evidence, "sni_from", sni_from);
	const char *sslp = hv_setting(ctx->cs, "ssl-parameters");
	if (sslp)
		kv_add_str(&f->evidence, "ssl_parameters", sslp);
	if (n == 0) {
		judge_note(
		    &j, STATUS_FAIL,
		    "Service harvester-system/harvester has no address and port to connect to");
		judge_remedy(&j, "kubectl -n harvester-system get svc harvester -o yaml");
		goto out;
	}
	struct hv_endpoint_req rq = {.host = host,
				     .path = "/v1/harvester",
				     .ca_pem = ca,
				     .connect_timeout_ms = EP_CONNECT_MS,
				     .timeout_ms = EP_TIMEOUT_MS,
				     .max_body = EP_MAX_BODY};
	struct value_list *attempts = kv_add_list(&f->evidence, "attempts");
	bool reached = false, refused = true;
	int64_t start = util_now_mono_ns();
	for (size_t i = 0; i < n; i++) {
		if (util_now_mono_ns() - start > EP_DEADLINE_NS) {
			vlist_add_strf(attempts, "%s %s:%d: not tried, time budget spent", t[i].via,
				       t[i].ip, t[i].port);
			continue;
		}
		struct hv_endpoint_resp r;
		endpoint_attempt(&rq, &t[i], attempts, &r, &reached, &refused);
		if (r.curl_code == 0) {
			endpoint_judge(ctx, f, &j, &t[i], host, &r, ca != NULL);
			hv_endpoint_resp_clear(&r);
			goto out;
		}
		hv_endpoint_resp_clear(&r);
	}
	if (reached || refused) {
		judge_note(&j, STATUS_FAIL,
			   "no address of the harvester Service answered https://%s/v1/harvester "
			   "(%s)",
			   host,
			   reached ? "connected, but TLS or HTTP failed" : "connection refused");
		judge_remedy(&j,
			     "curl -k --resolve %s:PORT:NODE_IP https://%s:PORT/v1/harvester "
			     "(PORT: kubectl -n harvester-system get svc harvester -o "
			     "jsonpath='{.spec.ports[?(@.name==\"https\")].nodePort}'); kubectl -n "
			     "harvester-system get pod -l app.kubernetes.io/name=harvester",
			     host, host);
	} else {
		judge_note(&j, STATUS_UNKNOWN,
			   "could not reach any address of the harvester Service from where the "
			   "aggregator runs (timeouts): not evidence that it is down");
		judge_remedy(&j, "run the aggregator in the cluster (it then reaches the "
				 "ClusterIP), or allow it to reach the NodePort");
	}
out:
	judge_decide(&j, f, "");
}
