#include "registries.h"

#include <arpa/inet.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "redact.h"
#include "yamldoc.h"

/* ---- parsing ---- */

static void mirror_clear(struct registry_mirror *m)
{
	free(m->host);
	strv_clear(&m->endpoints);
	for (size_t i = 0; i < m->n_rewrites; i++) {
		free(m->rewrites[i].pattern);
		free(m->rewrites[i].replacement);
	}
	free(m->rewrites);
}

static void config_clear(struct registry_config *c)
{
	free(c->host);
	free(c->username);
	free(c->password);
	free(c->auth);
	free(c->identity_token);
	free(c->ca_file);
	free(c->cert_file);
	free(c->key_file);
}

void registries_clear(struct registries *r)
{
	for (size_t i = 0; i < r->n_mirrors; i++)
		mirror_clear(&r->mirrors[i]);
	for (size_t i = 0; i < r->n_configs; i++)
		config_clear(&r->configs[i]);
	free(r->mirrors);
	free(r->configs);
	*r = (struct registries){0};
}

const struct registry_mirror *registries_mirror(const struct registries *r, const char *host)
{
	for (size_t i = 0; r && i < r->n_mirrors; i++)
		if (streq(r->mirrors[i].host, host))
			return &r->mirrors[i];
	return NULL;
}

const struct registry_config *registries_config(const struct registries *r, const char *host)
{
	for (size_t i = 0; r && i < r->n_configs; i++)
		if (streq(r->configs[i].host, host))
			return &r->configs[i];
	return NULL;
}

struct yctx {
	yaml_document_t *doc;
	const char *name;
	char *err;
	size_t errlen;
};

static int yfail(struct yctx *y, const yaml_node_t *n, const char *fmt, ...) _printf_(3, 4);
static int yfail(struct yctx *y, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(y->err, y->errlen, "%s:%zu: %s", y->name, n->start_mark.line + 1, msg);
	return -EINVAL;
}

static yaml_node_t *node(struct yctx *y, int id)
{
	return yaml_document_get_node(y->doc, id);
}

/* yaml.v2 decodes any scalar into a Go string field; anything else is a type error. */
static int get_string(struct yctx *y, const yaml_node_t *n, const char *what, char **ret)
{
	if (yamldoc_is_null(n))
		return 0;
	if (n->type != YAML_SCALAR_NODE)
		return yfail(y, n, "%s must be a string", what);
	free(*ret);
	*ret = xstrndup((const char *)n->data.scalar.value, n->data.scalar.length);
	return 0;
}

/* A Go bool field: YAML 1.1 booleans, unquoted. */
static int get_bool(struct yctx *y, const yaml_node_t *n, const char *what, bool *ret)
{
	if (yamldoc_is_null(n))
		return 0;
	if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    yamldoc_bool((const char *)n->data.scalar.value, ret) == 0)
		return 0;
	return yfail(y, n, "%s must be true or false", what);
}

static const char *key_of(struct yctx *y, yaml_node_pair_t *p)
{
	yaml_node_t *k = node(y, p->key);
	return k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
}

static int cmp_rewrite(const void *a, const void *b)
{
	return strcmp(((const struct registry_rewrite *)a)->pattern,
		      ((const struct registry_rewrite *)b)->pattern);
}

static int parse_rewrites(struct yctx *y, yaml_node_t *n, struct registry_mirror *m)
{
	if (yamldoc_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return yfail(y, n, "\"rewrite\" must be a mapping of patterns to replacements");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node(y, p->key), *v = node(y, p->value);
		if (!k || !v || k->type != YAML_SCALAR_NODE)
			return yfail(y, n, "\"rewrite\" keys must be patterns (strings)");
		char *repl = NULL;
		if (get_string(y, v, "a rewrite replacement", &repl) < 0)
			return -EINVAL;
		/* A Go map keeps the last of duplicate keys. */
		size_t i = 0;
		while (i < m->n_rewrites &&
		       !streq(m->rewrites[i].pattern, (char *)k->data.scalar.value))
			i++;
		if (i == m->n_rewrites) {
			m->rewrites =
			    xrealloc(m->rewrites, (m->n_rewrites + 1) * sizeof(*m->rewrites));
			m->rewrites[m->n_rewrites++] = (struct registry_rewrite){
			    .pattern = xstrdup((const char *)k->data.scalar.value)};
		}
		free(m->rewrites[i].replacement);
		m->rewrites[i].replacement = repl ? repl : xstrdup("");
	}
	qsort(m->rewrites, m->n_rewrites, sizeof(*m->rewrites), cmp_rewrite);
	return 0;
}

static int parse_mirror(struct yctx *y, const char *host, yaml_node_t *n, struct registry_mirror *m)
{
	*m = (struct registry_mirror){.host = xstrdup(host),
				      .line = (unsigned)n->start_mark.line + 1};
	if (yamldoc_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return yfail(y, n, "mirror \"%s\" must be a mapping with \"endpoint\"", host);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		const char *k = key_of(y, p);
		yaml_node_t *v = node(y, p->value);
		if (!k || !v)
			continue;
		if (streq(k, "endpoint")) {
			if (yamldoc_is_null(v))
				continue;
			if (v->type != YAML_SEQUENCE_NODE)
				return yfail(y, v,
					     "\"endpoint\" of mirror \"%s\" must be a list of URLs",
					     host);
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				yaml_node_t *e = node(y, *it);
				char *s = NULL;
				if (!e || get_string(y, e, "an endpoint", &s) < 0)
					return -EINVAL;
				strv_add(&m->endpoints, s ? s : "");
				free(s);
			}
		} else if (streq(k, "rewrite")) {
			if (parse_rewrites(y, v, m) < 0)
				return -EINVAL;
		}
		/* Other keys: yaml.v2 ignores unknown fields, and so does RKE2. */
	}
	return 0;
}

static int parse_section(struct yctx *y, yaml_node_t *n, const char *what,
			 int (*field)(struct yctx *, const char *, yaml_node_t *, void *),
			 void *target)
{
	if (yamldoc_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return yfail(y, n, "\"%s\" must be a mapping", what);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		const char *k = key_of(y, p);
		yaml_node_t *v = node(y, p->value);
		if (k && v && field(y, k, v, target) < 0)
			return -EINVAL;
	}
	return 0;
}

static int auth_field(struct yctx *y, const char *k, yaml_node_t *v, void *target)
{
	struct registry_config *c = target;
	if (streq(k, "username"))
		return get_string(y, v, "auth.username", &c->username);
	if (streq(k, "password"))
		return get_string(y, v, "auth.password", &c->password);
	if (streq(k, "auth"))
		return get_string(y, v, "auth.auth", &c->auth);
	if (streq(k, "identitytoken"))
		return get_string(y, v, "auth.identitytoken", &c->identity_token);
	return 0;
}

static int tls_field(struct yctx *y, const char *k, yaml_node_t *v, void *target)
{
	struct registry_config *c = target;
	if (streq(k, "ca_file"))
		return get_string(y, v, "tls.ca_file", &c->ca_file);
	if (streq(k, "cert_file"))
		return get_string(y, v, "tls.cert_file", &c->cert_file);
	if (streq(k, "key_file"))
		return get_string(y, v, "tls.key_file", &c->key_file);
	if (streq(k, "insecure_skip_verify"))
		return get_bool(y, v, "tls.insecure_skip_verify", &c->insecure_skip_verify);
	return 0;
}

static int config_field(struct yctx *y, const char *k, yaml_node_t *v, void *target)
{
	struct registry_config *c = target;
	if (streq(k, "auth")) {
		c->has_auth = !yamldoc_is_null(v);
		return parse_section(y, v, "auth", auth_field, c);
	}
	if (streq(k, "tls")) {
		c->has_tls = !yamldoc_is_null(v);
		return parse_section(y, v, "tls", tls_field, c);
	}
	return 0;
}

/* Later duplicates replace earlier ones, as in a Go map. */
static struct registry_mirror *new_mirror(struct registries *r, const char *host)
{
	for (size_t i = 0; i < r->n_mirrors; i++)
		if (streq(r->mirrors[i].host, host)) {
			mirror_clear(&r->mirrors[i]);
			return &r->mirrors[i];
		}
	r->mirrors = xrealloc(r->mirrors, (r->n_mirrors + 1) * sizeof(*r->mirrors));
	return &r->mirrors[r->n_mirrors++];
}

static struct registry_config *new_config(struct registries *r, const char *host)
{
	for (size_t i = 0; i < r->n_configs; i++)
		if (streq(r->configs[i].host, host)) {
			config_clear(&r->configs[i]);
			return &r->configs[i];
		}
	r->configs = xrealloc(r->configs, (r->n_configs + 1) * sizeof(*r->configs));
	return &r->configs[r->n_configs++];
}

static int parse_top(struct yctx *y, yaml_node_t *root, struct registries *r)
{
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		const char *k = key_of(y, p);
		yaml_node_t *v = node(y, p->value);
		bool mirrors = streq(k, "mirrors"), configs = streq(k, "configs");
		if (!v || !(mirrors || configs) || yamldoc_is_null(v))
			continue;
		if (v->type != YAML_MAPPING_NODE)
			return yfail(y, v, "\"%s\" must be a mapping of registry names", k);
		for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
		     q < v->data.mapping.pairs.top; q++) {
			const char *host = key_of(y, q);
			yaml_node_t *hv = node(y, q->value);
			if (!host || !hv)
				return yfail(y, v, "registry names must be strings");
			if (r->n_mirrors + r->n_configs >= REGISTRIES_MAX_ENTRIES)
				return yfail(y, hv, "more than %d registries",
					     REGISTRIES_MAX_ENTRIES);
			if (mirrors) {
				if (parse_mirror(y, host, hv, new_mirror(r, host)) < 0)
					return -EINVAL;
				continue;
			}
			struct registry_config *c = new_config(r, host);
			*c = (struct registry_config){.host = xstrdup(host),
						      .line = (unsigned)hv->start_mark.line + 1};
			if (parse_section(y, hv, host, config_field, c) < 0)
				return -EINVAL;
		}
	}
	return 0;
}

int registries_parse(const uint8_t *buf, size_t len, const char *name, struct registries *ret,
		     char *err, size_t errlen)
{
	yaml_document_t doc;
	int r = 0;
	*ret = (struct registries){0};
	if (yamldoc_load(buf, len, REGISTRIES_MAX_FILE_SIZE, name, &doc, err, errlen) < 0)
		return -EINVAL;
	struct yctx y = {.doc = &doc, .name = name, .err = err, .errlen = errlen};
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (root && !yamldoc_is_null(root)) {
		if (root->type != YAML_MAPPING_NODE)
			r = yfail(&y, root, "the top level must be a mapping (mirrors, configs)");
		else
			r = parse_top(&y, root, ret);
	}
	yaml_document_delete(&doc);
	if (r < 0)
		registries_clear(ret);
	return r;
}

/* ---- endpoints ---- */

bool registries_is_localhost(const char *hostport)
{
	char host[256];
	const char *h = hostport;
	size_t n = strlen(hostport);
	if (hostport[0] == '[') {
		const char *close = strchr(hostport, ']');
		if (!close)
			return false;
		h = hostport + 1;
		n = (size_t)(close - h);
	} else {
		const char *colon = strchr(hostport, ':');
		/* More than one colon: a bare IPv6 address, no port. */
		if (colon && !strchr(colon + 1, ':'))
			n = (size_t)(colon - hostport);
	}
	if (n == 0 || n >= sizeof(host))
		return false;
	memcpy(host, h, n);
	host[n] = '\0';
	if (streq(host, "localhost"))
		return true;
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

/* docker.DefaultHost: Docker Hub's API lives on registry-1.docker.io. */
static const char *default_host(const char *host)
{
	return streq(host, "docker.io") ? "registry-1.docker.io" : host;
}

struct url {
	char *scheme, *host, *path;
};

static void url_clear(struct url *u)
{
	free(u->scheme);
	free(u->host);
	free(u->path);
	*u = (struct url){0};
}

static bool valid_host(const char *h)
{
	if (!*h)
		return false;
	if (h[0] == '[') {
		const char *close = strchr(h, ']');
		if (!close || (close[1] && close[1] != ':'))
			return false;
		h = close + 1;
		if (!*h)
			return true;
	} else {
		for (const char *p = h; *p && *p != ':'; p++)
			if (!(((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') ||
			      (*p >= '0' && *p <= '9') || strchr("-._~%!$&'()*+,;=", *p)))
				return false;
		h = strchr(h, ':');
		if (!h)
			return true;
	}
	/* ":" port: digits, possibly empty (Go accepts "host:") */
	for (h++; *h; h++)
		if (*h < '0' || *h > '9')
			return false;
	return true;
}

/*
 * k3s's normalizeEndpointAddress: a default scheme (http only for localhost on a
 * port other than 443), Docker Hub's API host, and the path: "", "/" and "/v2"
 * mean the standard "/v2"; anything else is used as is.
 */
static int normalize_endpoint(const char *endpoint, struct url *u, char **ret_registry,
			      bool *ret_override, const char **ret_why)
{
	const char *s = endpoint, *sep = strstr(endpoint, "://");
	*u = (struct url){0};
	if (sep) {
		u->scheme = xstrndup(endpoint, (size_t)(sep - endpoint));
		for (char *c = u->scheme; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
		s = sep + 3;
		if (!streq(u->scheme, "http") && !streq(u->scheme, "https")) {
			*ret_why = "the scheme must be http or https";
			url_clear(u);
			return -EINVAL;
		}
	}
	size_t hl = strcspn(s, "/?#");
	u->host = xstrndup(s, hl);
	if (strchr(u->host, '@')) {
		*ret_why = "credentials in endpoint URLs are not supported (use configs.auth)";
		url_clear(u);
		return -EINVAL;
	}
	if (!valid_host(u->host)) {
		*ret_why = "not a valid host[:port]";
		url_clear(u);
		return -EINVAL;
	}
	u->path = xstrndup(s + hl, strcspn(s + hl, "?#"));
	const char *colon = u->host[0] == '[' ? strstr(u->host, "]:") : strchr(u->host, ':');
	const char *port = colon ? colon + (u->host[0] == '[' ? 2 : 1) : "";
	if (!u->scheme)
		u->scheme = xstrdup(registries_is_localhost(u->host) && *port && !streq(port, "443")
					? "http"
					: "https");
	char *registry = xstrdup(u->host);
	const char *dh = default_host(u->host);
	if (!streq(dh, u->host)) {
		free(u->host);
		u->host = xstrdup(dh);
	}
	if (streq(u->host, "registry-1.docker.io")) {
		free(registry);
		registry = xstrdup("docker.io");
	}
	bool std = !*u->path || streq(u->path, "/") || streq(u->path, "/v2");
	if (std) {
		free(u->path);
		u->path = xstrdup("/v2");
	}
	*ret_override = !std;
	*ret_registry = registry;
	return 0;
}

static char *url_string(const struct url *u)
{
	return xasprintf("%s://%s%s", u->scheme, u->host, u->path);
}

void registry_plan_clear(struct registry_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->eps[i].url);
		free(p->eps[i].scheme);
		free(p->eps[i].host);
		free(p->eps[i].registry);
		free(p->eps[i].origin);
	}
	free(p->eps);
	strv_clear(&p->notes);
	*p = (struct registry_plan){0};
}

static void note(struct strv *v, char *owned)
{
	strv_add(v, owned);
	free(owned);
}

/* k3s's configForHost: the config under Docker Hub's API host, else under the name. */
static const struct registry_config *config_for_host(const struct registries *r, const char *host)
{
	const char *dh = default_host(host);
	const struct registry_config *c = NULL;
	if (!streq(dh, host))
		c = registries_config(r, dh);
	return c ? c : registries_config(r, host);
}

static bool config_matters(const struct registry_config *c)
{
	return c && (c->has_auth || c->has_tls);
}

/* One hosts.toml as k3s would write it for key (a registry name or "*"). */
struct hostcfg {
	struct registry_endpoint *eps;
	size_t n, cap;
	bool has_default;
	const struct registry_config *default_config;
	bool exists; /* k3s writes (keeps) the file */
	const struct registry_mirror *mirror;
};

static void hostcfg_clear(struct hostcfg *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->eps[i].url);
		free(h->eps[i].scheme);
		free(h->eps[i].host);
		free(h->eps[i].registry);
		free(h->eps[i].origin);
	}
	free(h->eps);
	*h = (struct hostcfg){0};
}

static void build_hostcfg(const struct registries *r, const char *key, const char *default_url,
			  bool no_default, struct hostcfg *h, struct strv *notes)
{
	const struct registry_mirror *m = registries_mirror(r, key);
	const struct registry_config *own = registries_config(r, key);
	*h = (struct hostcfg){0};
	if (own && !m) {
		/* Only a configs entry: the default endpoint with that config. */
		h->has_default = true;
		h->default_config = own;
		h->exists = config_matters(own);
		return;
	}
	if (!m)
		return;
	h->mirror = m;
	/* The configs loop runs first: a registry that also has a configs entry keeps its
	 * default endpoint even with disable-default-registry-endpoint ("*" is stored under
	 * another name there, so it never does). */
	h->has_default = !no_default || (own && !streq(key, "*"));
	h->default_config = own && !streq(key, "*") ? own : config_for_host(r, key);
	for (size_t i = 0; i < m->endpoints.n; i++) {
		const char *raw = m->endpoints.items[i];
		struct url u;
		char *registry;
		bool override;
		const char *why = NULL;
		if (normalize_endpoint(raw, &u, &registry, &override, &why) < 0) {
			/* The refused endpoint may carry a password ("https://u:p@host"). */
			_cleanup_free_ char *shown = redact_url(raw);
			note(notes, xasprintf("mirrors.\"%s\".endpoint[%zu] \"%s\" ignored: %s",
					      key, i, shown, why));
			continue;
		}
		char *url = url_string(&u);
		bool dup = false;
		for (size_t j = 0; j < h->n && !dup; j++)
			dup = streq(h->eps[j].url, url);
		if (dup) {
			_cleanup_free_ char *shown = redact_url(raw);
			note(notes, xasprintf("mirrors.\"%s\".endpoint[%zu] \"%s\" ignored: listed "
					      "twice",
					      key, i, shown));
		} else if (i + 1 == m->endpoints.n && h->has_default && !streq(key, "*") &&
			   streq(url, default_url)) {
			/* The last endpoint equal to the default one becomes the default: tried
			 * last and without rewrites. */
			h->default_config = config_for_host(r, registry);
		} else {
			util_grow((void **)&h->eps, &h->cap, h->n + 1, sizeof(*h->eps));
			h->eps[h->n++] = (struct registry_endpoint){
			    .url = url,
			    .scheme = u.scheme,
			    .host = u.host,
			    .registry = registry,
			    .override_path = override,
			    .mirror = m,
			    .config = config_for_host(r, registry),
			    .origin = xasprintf("mirrors.\"%s\".endpoint[%zu]", key, i),
			};
			free(u.path);
			continue;
		}
		free(url);
		free(registry);
		url_clear(&u);
	}
	/* k3s removes a hosts.toml that would only repeat containerd's defaults. */
	h->exists = h->n > 0 || (h->has_default && config_matters(h->default_config));
}

int registries_plan(const struct registries *r, const char *registry, bool no_default_endpoint,
		    const char *default_override, struct registry_plan *ret)
{
	struct url du, real;
	char *dreg, *rreg;
	bool dover, rover;
	const char *why;
	*ret = (struct registry_plan){0};
	if (normalize_endpoint(registry, &real, &rreg, &rover, &why) < 0)
		return -EINVAL;
	if (normalize_endpoint(default_override ? default_override : registry, &du, &dreg, &dover,
			       &why) < 0) {
		url_clear(&real);
		free(rreg);
		return -EINVAL;
	}
	char *default_url = url_string(&du);
	/* Mirror endpoints are compared with the real default, even when a test moves it. */
	_cleanup_free_ char *real_url = url_string(&real);
	url_clear(&real);
	free(rreg);

	struct hostcfg own, wild;
	build_hostcfg(r, registry, real_url, no_default_endpoint, &own, &ret->notes);
	build_hostcfg(r, "*", real_url, no_default_endpoint, &wild, &ret->notes);
	/* containerd reads certs.d/<registry>/hosts.toml, else certs.d/_default/hosts.toml. */
	struct hostcfg *use = own.exists ? &own : wild.exists ? &wild : NULL;
	if (use && use->mirror)
		ret->mirror_key = use->mirror->host;
	if (use) {
		ret->eps = use->eps;
		ret->n = ret->cap = use->n;
		use->eps = NULL;
		use->n = use->cap = 0;
	}
	bool has_default = use ? use->has_default : true;
	if (has_default) {
		util_grow((void **)&ret->eps, &ret->cap, ret->n + 1, sizeof(*ret->eps));
		ret->eps[ret->n++] = (struct registry_endpoint){
		    .url = default_url,
		    .scheme = du.scheme,
		    .host = du.host,
		    .registry = xstrdup(registry),
		    .override_path = dover,
		    .is_default = true,
		    .config = use ? use->default_config : config_for_host(r, registry),
		    .origin = xstrdup(default_override ? "default endpoint (overridden for tests)"
						       : "default endpoint"),
		};
		default_url = NULL;
		free(du.path);
	} else {
		ret->default_removed = true;
		url_clear(&du);
	}
	free(default_url);
	free(dreg);
	hostcfg_clear(&own);
	hostcfg_clear(&wild);
	return 0;
}

/* ---- rewrites ---- */

#define REWRITE_MAX_PATTERN 1024

/*
 * Go (RE2) syntax to POSIX extended: \d and \D become classes, (?:…) becomes a
 * capturing group, and map[] records which POSIX group each Go group number
 * is. Other Go-only syntax is refused.
 */
static int translate_regex(const char *go, char **ret, int *map, int maxgroups)
{
	size_t n = strlen(go), o = 0;
	if (n > REWRITE_MAX_PATTERN)
		return -EINVAL;
	char *out = xmalloc(n * 6 + 1);
	int posix_groups = 0, go_groups = 0;
	bool in_class = false;
	for (size_t i = 0; i < n; i++) {
		char c = go[i];
		if (c == '\\' && i + 1 < n) {
			char e = go[i + 1];
			if (!in_class && (e == 'd' || e == 'D')) {
				const char *cls = e == 'd' ? "[0-9]" : "[^0-9]";
				memcpy(out + o, cls, strlen(cls));
				o += strlen(cls);
			} else if (in_class && e == 'd') {
				memcpy(out + o, "0-9", 3);
				o += 3;
			} else if (strchr("pPzAQEC", e) || (e >= '0' && e <= '9')) {
				/* Unicode classes, \z, \A, \Q…\E: no POSIX equivalent; back-references
				 * are not Go syntax (and would make matching exponential). */
				free(out);
				return -EINVAL;
			} else {
				out[o++] = c;
				out[o++] = e;
			}
			i++;
			continue;
		}
		if (in_class) {
			if (c == ']')
				in_class = false;
			out[o++] = c;
			continue;
		}
		if (c == '[') {
			in_class = true;
			out[o++] = c;
			/* A leading ] or ^] is literal inside a class. */
			if (i + 1 < n && go[i + 1] == '^')
				out[o++] = go[++i];
			if (i + 1 < n && go[i + 1] == ']')
				out[o++] = go[++i];
			continue;
		}
		if (c == '(') {
			if (i + 2 < n && go[i + 1] == '?') {
				if (go[i + 2] != ':') {
					free(out);
					return -EINVAL; /* flags, named groups */
				}
				i += 2;
				posix_groups++;
			} else {
				posix_groups++;
				if (++go_groups < maxgroups)
					map[go_groups] = posix_groups;
			}
			out[o++] = '(';
			continue;
		}
		if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < n &&
		    go[i + 1] == '?') {
			free(out);
			return -EINVAL; /* lazy quantifiers */
		}
		out[o++] = c;
	}
	out[o] = '\0';
	if (go_groups >= maxgroups) {
		free(out);
		return -EINVAL;
	}
	map[0] = 0;
	for (int g = go_groups + 1; g < maxgroups; g++)
		map[g] = -1;
	*ret = out;
	return 0;
}

struct sbuf {
	char *s;
	size_t n, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	util_grow((void **)&b->s, &b->cap, b->n + n + 1, 1);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

#define MAX_GROUPS 32

/* Go's Regexp.Expand: $1, ${1}, $$; names are the longest [A-Za-z0-9_]+ run, and a
 * name that is not a group number expands to nothing (POSIX has no named groups). */
static void expand(struct sbuf *b, const char *tmpl, const char *subject, const regmatch_t *m,
		   const int *map)
{
	for (const char *p = tmpl; *p;) {
		if (*p != '$') {
			sb_add(b, p++, 1);
			continue;
		}
		if (p[1] == '$') {
			sb_add(b, "$", 1);
			p += 2;
			continue;
		}
		const char *name = p + 1, *end;
		bool brace = *name == '{';
		if (brace)
			name++;
		end = name;
		while ((*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z') ||
		       (*end >= '0' && *end <= '9') || *end == '_')
			end++;
		if (end == name || (brace && *end != '}')) {
			sb_add(b, p++, 1); /* malformed: a literal $ */
			continue;
		}
		bool numeric = true;
		long g = 0;
		for (const char *q = name; q < end; q++) {
			numeric &= *q >= '0' && *q <= '9';
			if (numeric && g < 1000)
				g = g * 10 + (*q - '0');
		}
		if (numeric && g < MAX_GROUPS && map[g] >= 0 && m[map[g]].rm_so >= 0)
			sb_add(b, subject + m[map[g]].rm_so,
			       (size_t)(m[map[g]].rm_eo - m[map[g]].rm_so));
		p = brace ? end + 1 : end;
	}
}

/* Go's ReplaceAllString: every non-overlapping match; an empty match right after the
 * previous match is skipped. */
static char *replace_all(const regex_t *re, const char *s, const char *tmpl, const int *map)
{
	struct sbuf b = {0};
	regmatch_t m[MAX_GROUPS];
	size_t pos = 0, len = strlen(s);
	long last_end = -1;
	sb_add(&b, "", 0);
	while (pos <= len) {
		int flags = pos > 0 ? REG_NOTBOL : 0;
		if (regexec(re, s + pos, MAX_GROUPS, m, flags) != 0)
			break;
		size_t so = pos + (size_t)m[0].rm_so, eo = pos + (size_t)m[0].rm_eo;
		if (so == eo && (long)so == last_end) {
			/* Skip an empty match abutting the previous one. */
			if (pos >= len)
				break;
			sb_add(&b, s + pos, 1);
			pos++;
			continue;
		}
		sb_add(&b, s + pos, so - pos);
		/* Shift offsets to the whole subject for expand(). */
		for (int g = 0; g < MAX_GROUPS; g++)
			if (m[g].rm_so >= 0) {
				m[g].rm_so += (regoff_t)pos;
				m[g].rm_eo += (regoff_t)pos;
			}
		expand(&b, tmpl, s, m, map);
		last_end = (long)eo;
		if (eo == so) {
			if (so >= len)
				break;
			sb_add(&b, s + so, 1);
			pos = so + 1;
		} else {
			pos = eo;
		}
	}
	if (pos < len)
		sb_add(&b, s + pos, len - pos);
	return b.s;
}

char *registries_rewrite(const struct registry_mirror *m, const char *repo,
			 const char **ret_pattern, const char **ret_error)
{
	*ret_pattern = NULL;
	*ret_error = NULL;
	for (size_t i = 0; m && i < m->n_rewrites; i++) {
		const struct registry_rewrite *rw = &m->rewrites[i];
		int map[MAX_GROUPS];
		char *posix;
		regex_t re;
		if (translate_regex(rw->pattern, &posix, map, MAX_GROUPS) < 0) {
			*ret_pattern = rw->pattern;
			*ret_error = "the rewrite pattern uses Go regexp syntax this agent cannot "
				     "evaluate";
			return NULL;
		}
		int rc = regcomp(&re, posix, REG_EXTENDED);
		free(posix);
		if (rc != 0) {
			/* containerd logs and skips a pattern that does not compile; one POSIX
			 * refuses may still be valid Go, so the result is unknown. */
			*ret_pattern = rw->pattern;
			*ret_error = "the rewrite pattern does not compile";
			return NULL;
		}
		char *out = replace_all(&re, repo, rw->replacement, map);
		regfree(&re);
		if (!streq(out, repo)) {
			*ret_pattern = rw->pattern;
			return out;
		}
		free(out);
	}
	return xstrdup(repo);
}
