/*
 * host.image.share-manager (docs/checks/host.image.share-manager.md).
 *
 * Longhorn starts one share-manager pod per RWX volume; a node that cannot pull
 * its image never gets an NFS export, and on air-gapped sites that is the
 * first thing to break. The check resolves the image the way this node's
 * containerd does (the image's registry, RKE2's registries.yaml mirrors and
 * rewrites, then the registry's default endpoint unless
 * disable-default-registry-endpoint removed it) and asks each endpoint, in that
 * order, for the manifest over the OCI distribution API. The first endpoint
 * that has it decides PASS, as it would for containerd.
 *
 * A pull is only needed when the image is not on the node yet: Longhorn starts
 * share-manager pods with its system-managed-pods-image-pull-policy
 * (if-not-present unless changed), and air-gapped nodes (Harvester's ISO among
 * them) have the image preloaded. So the check also asks the node's containerd,
 * as kubelet does before pulling (CRI ImageStatus), and decides with the policy
 * the aggregator reads from Longhorn.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "cri_image.h"
#include "image_ref.h"
#include "judge.h"
#include "oci_client.h"
#include "redact.h"
#include "registries.h"
#include "k8s_distro.h"
#include "rke2_config.h"
#include "unit_cmdline.h"

/* The share-manager of Longhorn v1.11.2, the Longhorn that Harvester v1.8.2 ships. */
#define DEFAULT_IMAGE	  "longhornio/longhorn-share-manager:v1.11.2"
#define DEFAULT_IMAGE_WHY "default: Longhorn v1.11.2's share-manager (Harvester v1.8.2)"
/* Tests move a registry's default endpoint to loopback ("docker.io=http://127.0.0.1:PORT"):
 * Docker Hub must never be contacted from a test. Only loopback URLs are accepted. */
#define TEST_DEFAULT_ENV "HVREADY_TEST_DEFAULT_ENDPOINT"

/* Where containerd serves CRI: RKE2 and k3s run their own containerd at the
 * first, a distribution's containerd listens at the second. */
#define K3S_CONTAINERD_SOCKET	"/run/k3s/containerd/containerd.sock"
#define CONTAINERD_SOCKET	"/run/containerd/containerd.sock"
#define LONGHORN_DEFAULT_POLICY "if-not-present"

struct distro {
	const char *name;
	const char *config;	/* its config file, unless the unit names another */
	const char *config_env; /* the variable that names another (unit_cmdline.h) */
	const char *units[2];
	const char *registries;			     /* default private-registry path */
	const char *markers[K8S_DISTRO_MARKERS_MAX]; /* NULL-padded */
	const char *env_files[4]; /* systemd EnvironmentFiles with the proxy settings */
	const char *restart;
};

static const struct distro distros[] = {
    {"RKE2",
     "/etc/rancher/rke2/config.yaml",
     "RKE2_CONFIG_FILE",
     {"rke2-server.service", "rke2-agent.service"},
     "/etc/rancher/rke2/registries.yaml",
     RKE2_INSTALL_MARKERS,
     {"/etc/default/rke2-server", "/etc/default/rke2-agent", "/etc/sysconfig/rke2-server",
      "/etc/sysconfig/rke2-agent"},
     "systemctl restart rke2-server (rke2-agent on agent nodes)"},
    {"k3s",
     "/etc/rancher/k3s/config.yaml",
     "K3S_CONFIG_FILE",
     {"k3s.service", "k3s-agent.service"},
     "/etc/rancher/k3s/registries.yaml",
     K3S_INSTALL_MARKERS,
     {"/etc/systemd/system/k3s.service.env", "/etc/systemd/system/k3s-agent.service.env", NULL,
      NULL},
     "systemctl restart k3s (k3s-agent on agent nodes)"},
};

/* Where distributions keep the system trust store (SLE Micro / Harvester OS: ca-bundle.pem). */
static const char *const trust_stores[] = {
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/cert.pem",
};

#define TRUST_MAX (8u << 20)

struct node_env {
	char *http_proxy, *https_proxy, *no_proxy;
	char *source;
};

struct attempt {
	const struct registry_endpoint *ep;
	char *repository;
	struct oci_result res;
	char *skipped; /* could not be tried (why); res is empty then */
	bool unknown;  /* the skip leaves the outcome open */
};

struct run {
	struct agent_ctx *ctx;
	struct finding *f;
	struct judge pull; /* what the registries alone say (decide()), before the node's image */
	const struct distro *d;
	struct image_ref ref;
	struct rke2_config rc;
	struct registries regs;
	bool have_regs;
	char *regs_path;
	bool no_default;
	struct registry_plan plan;
	struct node_env env;
	char *host_trust; /* the node's trust store, PEM */
	size_t host_trust_len;
	char *host_trust_path;
	struct attempt *att;
	size_t n_att;
	int local;	      /* the runtime has the image: 1, 0, or -errno (not asked) */
	struct cri_image img; /* when local == 1 */
	char local_why[512];  /* when local < 0 */
};

static void run_clear(struct run *r)
{
	judge_clear(&r->pull);
	image_ref_clear(&r->ref);
	rke2_config_clear(&r->rc);
	registries_clear(&r->regs);
	free(r->regs_path);
	registry_plan_clear(&r->plan);
	free(r->env.http_proxy);
	free(r->env.https_proxy);
	free(r->env.no_proxy);
	free(r->env.source);
	free(r->host_trust);
	free(r->host_trust_path);
	for (size_t i = 0; i < r->n_att; i++) {
		free(r->att[i].repository);
		free(r->att[i].skipped);
		oci_result_clear(&r->att[i].res);
	}
	free(r->att);
	cri_image_clear(&r->img);
}

/* ---- what the node's containerd is configured with ---- */

static int load_distro(struct run *r, char *err, size_t errlen)
{
	struct kv_list *ev = &r->f->evidence;
	for (size_t i = 0; i < ELEMENTSOF(distros) && !r->d; i++)
		for (size_t j = 0; j < ELEMENTSOF(distros[i].markers); j++)
			if (distros[i].markers[j] &&
			    hostroot_exists(&r->ctx->root, distros[i].markers[j])) {
				r->d = &distros[i];
				break;
			}
	if (!r->d) {
		kv_add_str(ev, "runtime", "containerd (no RKE2 or k3s found)");
		return 0;
	}
	kv_add_str(ev, "runtime", r->d->name);
	_cleanup_free_ char *from = NULL;
	_cleanup_free_ char *cfg =
	    unit_config_path(&r->ctx->root, r->d->units, ELEMENTSOF(r->d->units), r->d->config_env,
			     r->d->config, &from);
	if (from) {
		kv_add_str(ev, "config_file", cfg);
		kv_add_str(ev, "config_file_from", from);
	}
	int e = rke2_config_load(&r->rc, &r->ctx->root, cfg, err, errlen);
	if (e < 0)
		return e;
	const char *pr = rke2_config_string(&r->rc, "private-registry");
	r->regs_path = xstrdup(pr && *pr ? pr : r->d->registries);
	int nd = rke2_config_bool(&r->rc, "disable-default-registry-endpoint");
	if (nd == -EINVAL) {
		const struct rke2_value *v =
		    rke2_config_get(&r->rc, "disable-default-registry-endpoint");
		snprintf(err, errlen, "%s:%u: disable-default-registry-endpoint is not a boolean",
			 v->file, v->line);
		return -EINVAL;
	}
	r->no_default = nd == 1;
	if (nd == 1)
		kv_add_bool(ev, "disable-default-registry-endpoint", true);
	return 0;
}

static int load_registries(struct run *r, char *err, size_t errlen)
{
	struct kv_list *ev = &r->f->evidence;
	if (!r->regs_path) {
		kv_add_str(ev, "registries_yaml", "not applicable");
		return 0;
	}
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int e = hostroot_read(&r->ctx->root, r->regs_path, REGISTRIES_MAX_FILE_SIZE, &buf, &len);
	if (e == -ENOENT) {
		kv_add_strf(ev, "registries_yaml", "none (%s does not exist)", r->regs_path);
		return 0;
	}
	if (e < 0) {
		snprintf(err, errlen, "%s: %s", r->regs_path, util_read_strerror(e));
		return e;
	}
	kv_add_str(ev, "registries_yaml", r->regs_path);
	if (registries_parse((const uint8_t *)buf, len, r->regs_path, &r->regs, err, errlen) < 0)
		return -EINVAL;
	r->have_regs = true;
	return 0;
}

static char *unquote(char *v)
{
	v = strstrip(v);
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		v++;
	}
	return v;
}

/* RKE2 passes HTTP_PROXY/HTTPS_PROXY/NO_PROXY from its EnvironmentFile to containerd;
 * CONTAINERD_* variants win for containerd alone. */
static void load_env(struct run *r)
{
	if (!r->d)
		return;
	for (size_t i = 0; i < ELEMENTSOF(r->d->env_files) && r->d->env_files[i]; i++) {
		_cleanup_free_ char *buf = NULL;
		if (hostroot_read(&r->ctx->root, r->d->env_files[i], 65536, &buf, NULL) < 0)
			continue;
		char *save = NULL;
		char *plain[3] = {0}, *ctd[3] = {0};
		static const char *const names[3] = {"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"};
		for (char *line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			line = strstrip(line);
			if (startswith(line, "export "))
				line = strstrip(line + 7);
			char *eq = strchr(line, '=');
			if (line[0] == '#' || !eq)
				continue;
			*eq = '\0';
			for (int k = 0; k < 3; k++) {
				char lower[16];
				snprintf(lower, sizeof(lower), "%s", names[k]);
				for (char *c = lower; *c; c++)
					*c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
				_cleanup_free_ char *cn = xasprintf("CONTAINERD_%s", names[k]);
				if (streq(line, names[k]) || streq(line, lower))
					plain[k] = unquote(eq + 1);
				else if (streq(line, cn))
					ctd[k] = unquote(eq + 1);
			}
		}
		char **dst[3] = {&r->env.http_proxy, &r->env.https_proxy, &r->env.no_proxy};
		bool any = false;
		for (int k = 0; k < 3; k++) {
			const char *v = ctd[k] ? ctd[k] : plain[k];
			if (v && *v) {
				free(*dst[k]);
				*dst[k] = xstrdup(v);
				any = true;
			}
		}
		if (any) {
			free(r->env.source);
			r->env.source = xstrdup(r->d->env_files[i]);
		}
	}
	if (r->env.source) {
		struct kv_list *m = kv_add_map(&r->f->evidence, "proxy");
		kv_add_str(m, "source", r->env.source);
		/* A proxy's user:pass is the node's secret, not evidence (common/redact.h);
		 * the unredacted value stays in r->env for the requests themselves. */
		_cleanup_free_ char *https = redact_url(r->env.https_proxy);
		_cleanup_free_ char *http = redact_url(r->env.http_proxy);
		if (https)
			kv_add_str(m, "https", https);
		if (http)
			kv_add_str(m, "http", http);
		if (r->env.no_proxy)
			kv_add_str(m, "no_proxy", r->env.no_proxy);
	}
}

static void load_host_trust(struct run *r)
{
	for (size_t i = 0; i < ELEMENTSOF(trust_stores); i++) {
		size_t len;
		if (hostroot_read(&r->ctx->root, trust_stores[i], TRUST_MAX, &r->host_trust,
				  &len) == 0) {
			r->host_trust_len = len;
			r->host_trust_path = xstrdup(trust_stores[i]);
			return;
		}
	}
}

/* ---- one endpoint ---- */

#define REGISTRY_PLAN_MAX_HOSTS 32

static char *base64(const char *s)
{
	static const char tbl[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), o = 0;
	char *out = xmalloc(4 * ((n + 2) / 3) + 1);
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)(unsigned char)s[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)(unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		out[o++] = tbl[(v >> 18) & 63];
		out[o++] = tbl[(v >> 12) & 63];
		out[o++] = i + 1 < n ? tbl[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? tbl[v & 63] : '=';
	}
	out[o] = '\0';
	return out;
}

/* The node's trust store plus the endpoint's ca_file, as containerd adds a
 * configured CA to the system roots. */
static int trust_for(struct run *r, const struct registry_config *c, char **ret, size_t *ret_len,
		     char *err, size_t errlen)
{
	*ret = NULL;
	*ret_len = 0;
	if (!c || !c->ca_file || !*c->ca_file) {
		if (r->host_trust) {
			*ret = xmalloc(r->host_trust_len + 1);
			memcpy(*ret, r->host_trust, r->host_trust_len);
			*ret_len = r->host_trust_len;
		}
		return 0;
	}
	_cleanup_free_ char *ca = NULL;
	size_t calen;
	int e = hostroot_read(&r->ctx->root, c->ca_file, TRUST_MAX, &ca, &calen);
	if (e < 0) {
		snprintf(err, errlen, "cannot read ca_file %s: %s", c->ca_file, strerror(-e));
		return e;
	}
	_cleanup_free_ char *sys = NULL;
	size_t syslen = 0;
	if (r->host_trust) {
		sys = xmalloc(r->host_trust_len + 1);
		memcpy(sys, r->host_trust, r->host_trust_len);
		syslen = r->host_trust_len;
	} else {
		/* No trust store on the node's side: the agent's own stands in for it. */
		for (size_t i = 0; i < ELEMENTSOF(trust_stores) && !sys; i++)
			if (util_read_file(trust_stores[i], TRUST_MAX, &sys, &syslen) < 0)
				sys = NULL;
	}
	*ret = xmalloc(syslen + calen + 2);
	if (syslen)
		memcpy(*ret, sys, syslen);
	(*ret)[syslen] = '\n';
	memcpy(*ret + syslen + 1, ca, calen);
	*ret_len = syslen + 1 + calen;
	return 0;
}

static int read_pem(struct run *r, const char *path, const char *what, char **ret, size_t *len,
		    char *err, size_t errlen)
{
	int e = hostroot_read(&r->ctx->root, path, TRUST_MAX, ret, len);
	if (e < 0)
		snprintf(err, errlen, "cannot read %s %s: %s", what, path, strerror(-e));
	return e;
}

static void try_endpoint(struct run *r, const struct registry_endpoint *ep, struct attempt *a)
{
	const struct registry_config *c = ep->config;
	char err[512];
	*a = (struct attempt){.ep = ep};
	if (ep->is_default || !ep->mirror) {
		a->repository = xstrdup(r->ref.repository);
	} else {
		const char *pattern, *why;
		a->repository = registries_rewrite(ep->mirror, r->ref.repository, &pattern, &why);
		if (!a->repository) {
			a->skipped = xasprintf("rewrite \"%s\" not evaluated: %s", pattern, why);
			a->unknown = true;
			return;
		}
	}
	_cleanup_free_ char *ca = NULL, *cert = NULL, *key = NULL, *basic = NULL;
	size_t calen = 0, certlen = 0, keylen = 0;
	if (trust_for(r, c, &ca, &calen, err, sizeof(err)) < 0 ||
	    (c && c->cert_file && *c->cert_file &&
	     read_pem(r, c->cert_file, "cert_file", &cert, &certlen, err, sizeof(err)) < 0) ||
	    (c && c->key_file && *c->key_file &&
	     read_pem(r, c->key_file, "key_file", &key, &keylen, err, sizeof(err)) < 0)) {
		/* containerd cannot build this endpoint's TLS config either: it moves on. */
		a->skipped = xstrdup(err);
		return;
	}
	if (c && c->auth && *c->auth)
		basic = xstrdup(c->auth);
	else if (c && c->username && *c->username) {
		_cleanup_free_ char *up =
		    xasprintf("%s:%s", c->username, c->password ? c->password : "");
		basic = base64(up);
	}
	/* A registry may redirect to its own host or to another endpoint of the
	 * same plan (its mirrors), nowhere else (oci_redirect_allowed). */
	const char *hosts[REGISTRY_PLAN_MAX_HOSTS + 1] = {0};
	for (size_t i = 0, k = 0; i < r->plan.n && k < REGISTRY_PLAN_MAX_HOSTS; i++)
		hosts[k++] = r->plan.eps[i].host;
	struct oci_target t = {
	    .redirect_hosts = hosts,
	    .base_url = ep->url,
	    .repository = a->repository,
	    .reference = image_ref_reference(&r->ref),
	    .ns = streq(ep->host, r->ref.registry) ? NULL : r->ref.registry,
	    .timeout_s = r->ctx->opts->timeout_s > 0 ? r->ctx->opts->timeout_s : 10,
	    .insecure_skip_verify = c && c->insecure_skip_verify,
	    .ca_pem = ca,
	    .ca_pem_len = calen,
	    .cert_pem = cert,
	    .cert_pem_len = certlen,
	    .key_pem = key,
	    .key_pem_len = keylen,
	    .basic_b64 = basic,
	    .identity_token =
		c && c->identity_token && *c->identity_token ? c->identity_token : NULL,
	    .proxy = streq(ep->scheme, "https") ? r->env.https_proxy : r->env.http_proxy,
	    .no_proxy = r->env.no_proxy,
	};
	oci_probe(&t, &a->res);
	if (a->res.redirect_refused)
		a->unknown = true;
}

/* ---- evidence and verdict ---- */

static const char *short_outcome(const struct run *r, const struct attempt *a, char *buf,
				 size_t len)
{
	if (a->skipped)
		snprintf(buf, len, "%s", a->skipped);
	else if (a->res.outcome == OCI_NOT_FOUND && !streq(a->repository, r->ref.repository))
		snprintf(buf, len, "%s for %s", a->res.reason, a->repository);
	else
		snprintf(buf, len, "%s",
			 a->res.reason ? a->res.reason : oci_outcome_name(a->res.outcome));
	return buf;
}

static void add_attempt_evidence(struct value_list *l, const struct attempt *a)
{
	struct kv_list *m = vlist_add_map(l);
	kv_add_str(m, "endpoint", a->ep->url);
	kv_add_str(m, "from", a->ep->origin);
	if (a->repository)
		kv_add_str(m, "repository", a->repository);
	if (a->ep->config && a->ep->config->insecure_skip_verify)
		kv_add_bool(m, "insecure_skip_verify", true);
	if (a->ep->config && a->ep->config->ca_file)
		kv_add_str(m, "ca_file", a->ep->config->ca_file);
	if (a->skipped) {
		kv_add_str(m, "result", a->unknown ? "not evaluated" : "not tried");
		kv_add_str(m, "detail", a->skipped);
		return;
	}
	const struct oci_result *res = &a->res;
	kv_add_str(m, "result",
		   res->redirect_refused ? "redirect not followed"
					 : oci_outcome_name(res->outcome));
	if (res->ping_status)
		kv_add_int(m, "api_status", res->ping_status);
	kv_add_str(m, "auth", res->auth);
	if (res->manifest_status)
		kv_add_int(m, "manifest_status", res->manifest_status);
	if (res->manifest_url)
		kv_add_str(m, "manifest_url", res->manifest_url);
	if (res->digest)
		kv_add_str(m, "digest", res->digest);
	if (res->media_type)
		kv_add_str(m, "media_type", res->media_type);
	if (res->size >= 0 && res->outcome == OCI_FOUND)
		kv_add_int(m, "size", res->size);
	if (res->detail)
		kv_add_str(m, "detail", res->detail);
}

/* Whether an attempt on a mirror (or on the default endpoint) ended with o. */
static bool outcome_seen(const struct run *r, enum oci_outcome o, int on_default)
{
	for (size_t i = 0; i < r->n_att; i++) {
		const struct attempt *a = &r->att[i];
		if (!a->skipped && a->res.outcome == o &&
		    (on_default < 0 || a->ep->is_default == (on_default > 0)))
			return true;
	}
	return false;
}

static bool unreachable(const struct run *r, int on_default)
{
	return outcome_seen(r, OCI_UNREACHABLE, on_default) ||
	       outcome_seen(r, OCI_TIMEOUT, on_default);
}

static void fail_remedy(struct run *r, const char *image)
{
	char buf[2048];
	size_t o = 0;
	const char *regs = r->regs_path ? r->regs_path : "/etc/rancher/rke2/registries.yaml";
	const char *restart = r->d ? r->d->restart : "restart containerd";
	bool mirror = r->plan.mirror_key != NULL;
	buf[0] = '\0';
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (o < sizeof(buf))                                                               \
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, __VA_ARGS__);              \
	} while (0)
	if (unreachable(r, 1) && !mirror)
		ADD("This node cannot reach %s. On an air-gapped or filtered network, mirror %s "
		    "into "
		    "a registry the nodes can reach and add it to %s on every node (mirrors: "
		    "{\"%s\": {endpoint: [\"https://<your-registry>\"]}}), then %s. ",
		    r->ref.registry, image, regs, r->ref.registry, restart);
	else if (unreachable(r, 1))
		ADD("This node cannot reach %s itself, so the mirror must serve the image. ",
		    r->ref.registry);
	if (unreachable(r, 0))
		ADD("Make the mirror endpoints in %s reachable from this node (DNS, routes, "
		    "firewall, proxy in the %s service environment). ",
		    regs, r->d ? r->d->name : "containerd");
	if (outcome_seen(r, OCI_TLS, -1))
		ADD("For a registry with a private CA, set configs.\"<registry host>\".tls.ca_file "
		    "in %s to the CA certificate (verification stays on), then %s. ",
		    regs, restart);
	if (outcome_seen(r, OCI_AUTH, -1))
		ADD("Set credentials for the registry under configs.\"<registry host>\".auth "
		    "(username/password) in %s, then %s. ",
		    regs, restart);
	if (outcome_seen(r, OCI_NOT_FOUND, 0))
		ADD("Push %s to the mirror (under the repository name shown per endpoint, which "
		    "includes the rewrite rules). ",
		    image);
	if (outcome_seen(r, OCI_NOT_FOUND, 1))
		ADD("The registry %s does not have %s: check that the share-manager image matches "
		    "the installed Longhorn version, or push it there. ",
		    r->ref.registry, image);
	if (outcome_seen(r, OCI_HTTP_ERROR, -1) || outcome_seen(r, OCI_PROTOCOL, -1))
		ADD("Check that the endpoints are OCI registries (GET /v2/ must answer 200 or "
		    "401). ");
	for (size_t i = 0; i < r->n_att; i++)
		if (r->att[i].skipped) {
			ADD("Fix the endpoint's configs entry in %s (%s). ", regs,
			    r->att[i].skipped);
			break;
		}
	if (r->plan.default_removed)
		ADD("disable-default-registry-endpoint is set, so containerd does not fall back to "
		    "%s itself. ",
		    r->ref.registry);
#undef ADD
	while (o > 0 && o < sizeof(buf) && buf[o - 1] == ' ')
		buf[--o] = '\0';
	judge_remedy(&r->pull, "%s", buf);
}

static void decide(struct run *r, const char *image)
{
	size_t found = r->n_att;
	bool unknown = false, earlier_broken = false;
	char buf[600];
	for (size_t i = 0; i < r->n_att && found == r->n_att; i++) {
		const struct attempt *a = &r->att[i];
		if (!a->skipped && a->res.outcome == OCI_FOUND)
			found = i;
		else if (a->unknown)
			unknown = true;
		else if (a->skipped || a->res.outcome != OCI_NOT_FOUND)
			earlier_broken = true;
	}
	if (found < r->n_att) {
		const struct attempt *a = &r->att[found];
		const char *digest = a->res.digest ? a->res.digest : "no digest header";
		const char *mt = a->res.media_type ? a->res.media_type : "no media type";
		if (earlier_broken) {
			char list[1024];
			size_t o = 0;
			list[0] = '\0';
			for (size_t i = 0; i < found && o < sizeof(list); i++)
				o += (size_t)snprintf(
				    list + o, sizeof(list) - o, "%s%s (%s)", i ? ", " : "",
				    r->att[i].ep->url,
				    short_outcome(r, &r->att[i], buf, sizeof(buf)));
			judge_note(
			    &r->pull, STATUS_WARN,
			    "%s can be pulled, but only from %s after earlier endpoints failed: %s",
			    image, a->ep->url, list);
			judge_remedy(&r->pull,
				     "Fix or remove the failing endpoints in %s: every pull "
				     "waits for them before falling back.",
				     r->regs_path ? r->regs_path : "registries.yaml");
			return;
		}
		bool insecure = a->ep->config && a->ep->config->insecure_skip_verify &&
				streq(a->ep->scheme, "https");
		judge_note(&r->pull, STATUS_PASS, "%s can be pulled from %s%s%s (%s, %s%s%s)",
			   image, a->ep->url, a->ep->is_default ? "" : " via the mirror for ",
			   a->ep->is_default ? "" : r->plan.mirror_key, digest, mt,
			   found > 0 ? "; earlier endpoints do not have it" : "",
			   insecure ? "; TLS not verified: insecure_skip_verify" : "");
		return;
	}
	char list[1600];
	size_t o = 0;
	list[0] = '\0';
	for (size_t i = 0; i < r->n_att && o < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s (%s)", i ? ", " : "",
				      r->att[i].ep->url,
				      short_outcome(r, &r->att[i], buf, sizeof(buf)));
	bool redirected = false;
	for (size_t i = 0; i < r->n_att; i++)
		redirected |= r->att[i].res.redirect_refused;
	if (unknown && redirected) {
		judge_note(&r->pull, STATUS_UNKNOWN,
			   "cannot tell whether %s can be pulled: a registry redirected the agent "
			   "to another host (or from https to http), which it does not follow; "
			   "tried %s",
			   image, list);
		judge_remedy(&r->pull,
			     "The agent follows redirects only within the registry and its "
			     "mirrors (docs/robustness.md); check the pull on the node with "
			     "`crictl pull %s`.",
			     image);
		return;
	}
	if (unknown) {
		judge_note(
		    &r->pull, STATUS_UNKNOWN,
		    "cannot tell whether %s can be pulled: a mirror endpoint's rewrite could "
		    "not be evaluated; tried %s",
		    image, list);
		judge_remedy(
		    &r->pull,
		    "Use a rewrite pattern in POSIX-compatible syntax (e.g. \"^longhornio/(.*)\"), "
		    "or check the pull on the node with `crictl pull %s`.",
		    image);
		return;
	}
	judge_note(&r->pull, STATUS_FAIL, "%s cannot be pulled: tried %zu endpoint%s: %s", image,
		   r->n_att, r->n_att == 1 ? "" : "s", list);
	fail_remedy(r, image);
}

static const char *test_default_override(struct run *r, char *buf, size_t len)
{
	const char *v = getenv(TEST_DEFAULT_ENV);
	const char *eq = v ? strchr(v, '=') : NULL;
	if (!eq || (size_t)(eq - v) != strlen(r->ref.registry) ||
	    strncmp(v, r->ref.registry, (size_t)(eq - v)) != 0)
		return NULL;
	const char *url = eq + 1;
	const char *host = strstr(url, "://") ? strstr(url, "://") + 3 : url;
	char hp[256];
	snprintf(hp, sizeof(hp), "%.*s", (int)strcspn(host, "/"), host);
	if (!registries_is_localhost(hp)) {
		kv_add_strf(&r->f->evidence, "ignored", "%s: only loopback URLs are accepted",
			    TEST_DEFAULT_ENV);
		return NULL;
	}
	snprintf(buf, len, "%s", url);
	kv_add_strf(&r->f->evidence, "test_override", "%s=%s", r->ref.registry, buf);
	return buf;
}

/* ---- the image already on the node ---- */

/* Ask the node's containerd (under the host root) whether it has the image. */
/* The runtime kubelet uses: RKE2/k3s's own containerd unless their
 * container-runtime-endpoint option names another ("unix:///path" or a path). */
static const char *runtime_endpoint(const struct run *r)
{
	const char *ep = r->d ? rke2_config_string(&r->rc, "container-runtime-endpoint") : NULL;
	if (!ep || !*ep)
		return NULL;
	if (startswith(ep, "unix://"))
		ep += strlen("unix://");
	return *ep == '/' ? ep : NULL;
}

static void ask_runtime(struct run *r, const char *image)
{
	const char *sockets[] = {K3S_CONTAINERD_SOCKET, CONTAINERD_SOCKET};
	struct kv_list *m = kv_add_map(&r->f->evidence, "on_node");
	const char *configured = runtime_endpoint(r);
	size_t n = ELEMENTSOF(sockets);
	if (configured) {
		sockets[0] = configured;
		n = 1;
	} else if (r->d) {
		n = 1; /* plain containerd's socket is not the one RKE2/k3s's kubelet uses */
	}
	int fd = -ENOENT;
	const char *sock = NULL;
	for (size_t i = 0; i < n && fd == -ENOENT; i++) {
		fd = hostroot_openat(&r->ctx->root, sockets[i], O_PATH);
		sock = sockets[i];
	}
	if (fd < 0) {
		r->local = fd;
		if (fd == -ENOENT)
			snprintf(r->local_why, sizeof(r->local_why),
				 "no containerd socket at %s%s%s", sockets[0], n > 1 ? " or " : "",
				 n > 1 ? sockets[1] : "");
		else
			snprintf(r->local_why, sizeof(r->local_why), "%s: %s", sock, strerror(-fd));
		kv_add_str(m, "result", "not asked");
		kv_add_str(m, "detail", r->local_why);
		return;
	}
	/* Through the descriptor: the socket is the one under the host root even
	 * where a symlink on the way points elsewhere, and no path is too long. */
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	const char *api = NULL;
	long timeout = r->ctx->opts->timeout_s > 0 ? r->ctx->opts->timeout_s : 10;
	r->local = cri_image_status(path, image, timeout, &r->img, &api, r->local_why,
				    sizeof(r->local_why));
	close(fd);
	if (r->local < 0) {
		_cleanup_free_ char *why = xstrdup(r->local_why);
		snprintf(r->local_why, sizeof(r->local_why), "containerd at %s: %.400s", sock, why);
	}
	kv_add_str(m, "socket", sock);
	if (api)
		kv_add_strf(m, "api", "CRI runtime.%s ImageStatus", api);
	if (r->local < 0) {
		kv_add_str(m, "result", "not asked");
		kv_add_str(m, "detail", r->local_why);
		return;
	}
	kv_add_str(m, "result", r->local ? "present" : "absent");
	if (r->local) {
		kv_add_str(m, "id", r->img.id);
		_cleanup_free_ char *tags = strv_join(&r->img.repo_tags, ", ");
		_cleanup_free_ char *digests = strv_join(&r->img.repo_digests, ", ");
		if (r->img.repo_tags.n)
			kv_add_str(m, "repo_tags", tags);
		if (r->img.repo_digests.n)
			kv_add_str(m, "repo_digests", digests);
		if (r->img.size >= 0)
			kv_add_int(m, "size", r->img.size);
	}
}

static void take_remedies(struct judge *j, const struct judge *from)
{
	for (size_t i = 0; i < from->remedies.n; i++)
		judge_remedy(j, "%s", from->remedies.items[i]);
}

/* With the pull policy, what the image on the node changes in the registries'
 * verdict (r->pull): the finding is judged here, once. */
static void apply_pull_policy(struct run *r, const char *image)
{
	const char *given = r->ctx->opts->targets.share_manager_pull_policy;
	const char *policy = given && *given ? given : LONGHORN_DEFAULT_POLICY;
	const struct judge *pull = &r->pull;
	const char *pulled = pull->reasons.n ? pull->reasons.items[0] : "";
	_cleanup_(judge_clear) struct judge j = {.status = STATUS_PASS};
	kv_add_str(&r->f->evidence, "pull_policy", policy);
	kv_add_str(&r->f->evidence, "pull_policy_source",
		   given && *given
		       ? "probe targets (Longhorn's system-managed-pods-image-pull-policy)"
		       : "Longhorn's default (no policy in the probe targets)");
	if (streq(policy, "never")) {
		/* kubelet never pulls: only the image on the node counts. */
		if (r->local == 1)
			judge_note(
			    &j, STATUS_PASS,
			    "%s is on this node (containerd: %s), and Longhorn's pull policy "
			    "is never: share-manager pods start from it",
			    image, r->img.id);
		else if (r->local == 0) {
			judge_note(&j, STATUS_FAIL,
				   "%s is not on this node, and Longhorn's pull policy is never: "
				   "share-manager pods cannot start here",
				   image);
			judge_remedy(&j,
				     "Import the image into containerd's k8s.io namespace on every "
				     "node (`ctr -n k8s.io images import`, or RKE2's "
				     "/var/lib/rancher/rke2/agent/images/), or set Longhorn's "
				     "system-managed-pods-image-pull-policy to if-not-present.");
		} else {
			judge_note(
			    &j, STATUS_UNKNOWN,
			    "cannot tell whether %s is on this node (%s), and Longhorn's pull "
			    "policy is never",
			    image, r->local_why);
			judge_remedy(&j,
				     "Check on the node: `crictl inspecti %s` (RKE2: "
				     "/var/lib/rancher/rke2/bin/crictl).",
				     image);
		}
	} else if (r->local == 1 && streq(policy, "always") && pull->status == STATUS_FAIL) {
		judge_note(
		    &j, STATUS_FAIL,
		    "%s; this node's containerd has it, but Longhorn's pull policy is always",
		    pulled);
		take_remedies(&j, pull);
	} else if (r->local == 1 && !streq(policy, "always") &&
		   (pull->status == STATUS_FAIL || pull->status == STATUS_UNKNOWN)) {
		/* if-not-present (and anything else: Longhorn falls back to it) */
		judge_note(&j, STATUS_WARN,
			   "%s, but this node's containerd already has it (%s): share-manager pods "
			   "start from it without a pull, as long as kubelet's image garbage "
			   "collection does not remove it",
			   pulled, r->img.id);
		judge_remedy(&j,
			     "Make the image pullable too, so that a node that loses it (image "
			     "garbage collection at disk pressure, a reinstalled node) can get it "
			     "back.");
		take_remedies(&j, pull);
	} else {
		judge_note(&j, pull->status, "%s", pulled);
		take_remedies(&j, pull);
		if (pull->status == STATUS_FAIL && r->local == 0 && !streq(policy, "always"))
			judge_remedy(
			    &j,
			    "Or, on an air-gapped site, import the image into containerd's "
			    "k8s.io namespace on every node (`ctr -n k8s.io images import`, or "
			    "RKE2's /var/lib/rancher/rke2/agent/images/): Longhorn's pull "
			    "policy %s then needs no registry.",
			    policy);
	}
	judge_apply(&j, r->f, "");
}

void check_image_share_manager(struct agent_ctx *ctx, const char *id)
{
	struct run r = {.ctx = ctx, .f = agent_finding(ctx, id)};
	/* Why the image cannot be checked at all, when it cannot (then nothing else is judged). */
	_cleanup_(judge_clear) struct judge cannot = {.status = STATUS_PASS};
	struct kv_list *ev = &r.f->evidence;
	const char *given = ctx->opts->targets.share_manager_image;
	const char *image = given && *given ? given : DEFAULT_IMAGE;
	char err[512], ovr[512];
	char *full = NULL;
	kv_add_str(ev, "image", image);
	kv_add_str(ev, "image_source", given && *given ? "probe targets" : DEFAULT_IMAGE_WHY);
	if (image_ref_parse(image, &r.ref, err, sizeof(err)) < 0) {
		judge_note(&cannot, STATUS_UNKNOWN, "cannot check the share-manager image: %s",
			   err);
		judge_remedy(&cannot, "Give a valid image reference (probe targets "
				      "\"share_manager_image\").");
		goto out;
	}
	full = image_ref_string(&r.ref);
	kv_add_str(ev, "resolved_image", full);
	if (load_distro(&r, err, sizeof(err)) < 0 || load_registries(&r, err, sizeof(err)) < 0) {
		judge_note(&cannot, STATUS_UNKNOWN,
			   "cannot tell where containerd pulls %s from: %s", image, err);
		judge_remedy(
		    &cannot,
		    "Fix the file (%s refuses to start with it too), then rerun the check.",
		    r.d ? r.d->name : "containerd");
		goto out;
	}
	if (!r.d)
		kv_add_str(ev, "note",
			   "plain containerd: certs.d/hosts.toml mirrors are not read; "
			   "the registry's own endpoint is checked");
	load_env(&r);
	load_host_trust(&r);
	if (r.host_trust_path)
		kv_add_str(ev, "trust_store", r.host_trust_path);
	const char *override = test_default_override(&r, ovr, sizeof(ovr));
	if (registries_plan(r.have_regs ? &r.regs : NULL, r.ref.registry, r.no_default, override,
			    &r.plan) < 0) {
		judge_note(&cannot, STATUS_UNKNOWN, "cannot resolve the registry \"%s\" of %s",
			   r.ref.registry, image);
		judge_remedy(&cannot,
			     "Check the registry's entry in registries.yaml (RKE2: "
			     "/etc/rancher/rke2/registries.yaml; the evidence names the file "
			     "read as registries_yaml).");
		goto out;
	}
	if (r.plan.mirror_key)
		kv_add_str(ev, "mirror", r.plan.mirror_key);
	if (r.plan.notes.n) {
		struct value_list *l = kv_add_list(ev, "ignored_endpoints");
		for (size_t i = 0; i < r.plan.notes.n; i++)
			vlist_add_str(l, r.plan.notes.items[i]);
	}
	if (r.plan.n == 0) {
		judge_note(
		    &r.pull, STATUS_FAIL,
		    "%s cannot be pulled: no endpoint is left for %s (its mirror has no usable "
		    "endpoint and disable-default-registry-endpoint is set)",
		    image, r.ref.registry);
		judge_remedy(&r.pull, "Give the mirror for \"%s\" in %s a reachable endpoint.",
			     r.plan.mirror_key ? r.plan.mirror_key : r.ref.registry,
			     r.regs_path ? r.regs_path : "registries.yaml");
		goto local;
	}
	r.att = xcalloc(r.plan.n, sizeof(*r.att));
	struct value_list *tried = kv_add_list(ev, "endpoints");
	for (size_t i = 0; i < r.plan.n; i++) {
		try_endpoint(&r, &r.plan.eps[i], &r.att[i]);
		r.n_att++;
		add_attempt_evidence(tried, &r.att[i]);
		if (!r.att[i].skipped && r.att[i].res.outcome == OCI_FOUND)
			break; /* containerd stops at the first endpoint that has it */
	}
	decide(&r, image);
local:
	ask_runtime(&r, full);
	apply_pull_policy(&r, image);
out:
	if (cannot.reasons.n)
		judge_apply(&cannot, r.f, "");
	free(full);
	run_clear(&r);
}
