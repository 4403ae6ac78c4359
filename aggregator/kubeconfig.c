#include "kubeconfig.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "util.h"
#include "yamldoc.h"

/* libyaml's document API keeps aliases as references to one node, so a
 * hostile file cannot make us expand anything: we only walk a few fixed
 * paths. */
struct ydoc {
	yaml_document_t doc;
	const char *name;
	char *err;
	size_t errlen;
};

static _printf_(2, 3) int fail(struct ydoc *y, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(y->err, y->errlen, "%s: %s", y->name, msg);
	return -EINVAL;
}

/* A scalar's text, or NULL for a missing node, a non-scalar or YAML null. */
static const char *scalar(yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE || yamldoc_is_null(n))
		return NULL;
	return (const char *)n->data.scalar.value;
}

static yaml_node_t *map_get(struct ydoc *y, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(yaml_document_get_node(&y->doc, p->key));
		if (streq(k, key))
			return yaml_document_get_node(&y->doc, p->value);
	}
	return NULL;
}

static const char *map_str(struct ydoc *y, yaml_node_t *map, const char *key)
{
	return scalar(map_get(y, map, key));
}

/* YAML 1.1 booleans, as sigs.k8s.io/yaml (yaml.v2) reads them. */
static int map_bool(struct ydoc *y, yaml_node_t *map, const char *key, const char *where, bool *ret)
{
	const char *v = map_str(y, map, key);
	*ret = false;
	if (!v || yamldoc_bool(v, ret) == 0)
		return 0;
	return fail(y, "%s: %s is \"%.64s\", not a boolean", where, key, v);
}

/* The "cluster"/"context"/"user" map of the list entry with that name. */
static yaml_node_t *named_entry(struct ydoc *y, yaml_node_t *root, const char *list,
				const char *field, const char *name)
{
	yaml_node_t *seq = map_get(y, root, list);
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return NULL;
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(&y->doc, *it);
		if (streq(map_str(y, e, "name"), name)) {
			yaml_node_t *m = map_get(y, e, field);
			return m ? m : e; /* an entry without its map: all defaults */
		}
	}
	return NULL;
}

static int b64_decode(const char *s, struct kube_blob *ret)
{
	size_t n = strlen(s);
	if (n > INT_MAX / 2)
		return -EFBIG;
	uint8_t *out = xmalloc(n / 4 * 3 + 4);
	EVP_ENCODE_CTX *ctx = EVP_ENCODE_CTX_new();
	if (!ctx)
		abort();
	int len = 0, tail = 0;
	EVP_DecodeInit(ctx);
	int r = EVP_DecodeUpdate(ctx, out, &len, (const unsigned char *)s, (int)n);
	if (r >= 0 && EVP_DecodeFinal(ctx, out + len, &tail) == 1) {
		EVP_ENCODE_CTX_free(ctx);
		ret->data = out;
		ret->len = (size_t)len + (size_t)tail;
		return 0;
	}
	EVP_ENCODE_CTX_free(ctx);
	free(out);
	return -EINVAL;
}

bool kubeconfig_pem_valid(enum kubeconfig_pem kind, const uint8_t *data, size_t len)
{
	if (!data || len == 0 || len > INT_MAX)
		return false;
	BIO *bio = BIO_new_mem_buf(data, (int)len);
	if (!bio)
		return false;
	bool ok = false;
	if (kind == KUBECONFIG_PEM_KEY) {
		EVP_PKEY *k = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
		ok = k != NULL;
		EVP_PKEY_free(k);
	} else {
		X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
		ok = x != NULL;
		X509_free(x);
	}
	BIO_free(bio);
	return ok;
}

static char *resolve_path(const char *base_dir, const char *p)
{
	if (p[0] == '/' || !base_dir || !*base_dir)
		return xstrdup(p);
	return xasprintf("%s/%s", base_dir, p);
}

/* "-data" (base64 PEM) wins over the file, as in kubectl. */
static int read_pem_field(struct ydoc *y, yaml_node_t *map, const char *key, const char *where,
			  enum kubeconfig_pem kind, const char *base_dir, char **ret_file,
			  struct kube_blob *ret_data)
{
	_cleanup_free_ char *dkey = xasprintf("%s-data", key);
	const char *data = map_str(y, map, dkey), *file = map_str(y, map, key);
	if (data) {
		if (b64_decode(data, ret_data) < 0)
			return fail(y, "%s: %s is not valid base64", where, dkey);
		if (!kubeconfig_pem_valid(kind, ret_data->data, ret_data->len))
			return fail(y, "%s: %s does not hold a PEM %s", where, dkey,
				    kind == KUBECONFIG_PEM_KEY ? "private key" : "certificate");
		return 0;
	}
	if (file)
		*ret_file = resolve_path(base_dir, file);
	return 0;
}

static int parse_cluster(struct ydoc *y, yaml_node_t *root, const char *base_dir,
			 struct kubeconfig *kc)
{
	yaml_node_t *c = named_entry(y, root, "clusters", "cluster", kc->cluster);
	_cleanup_free_ char *where = xasprintf("cluster \"%s\"", kc->cluster);
	if (!c)
		return fail(y, "context \"%s\" names cluster \"%s\", which is not in clusters",
			    kc->context, kc->cluster);
	const char *server = map_str(y, c, "server");
	if (!server)
		return fail(y, "%s has no server", where);
	if (!startswith(server, "https://") && !startswith(server, "http://"))
		return fail(y, "%s: server \"%.128s\" is not an http(s):// URL", where, server);
	if (strlen(server) > 2048 || strpbrk(server, " \t\r\n"))
		return fail(y, "%s: server is not a valid URL", where);
	kc->server = xstrdup(server);
	size_t n = strlen(kc->server);
	while (n > 0 && kc->server[n - 1] == '/')
		kc->server[--n] = '\0';
	const char *s;
	if ((s = map_str(y, c, "tls-server-name")))
		kc->tls_server_name = xstrdup(s);
	if ((s = map_str(y, c, "proxy-url")))
		kc->proxy_url = xstrdup(s);
	int r = map_bool(y, c, "insecure-skip-tls-verify", where, &kc->insecure);
	if (r < 0)
		return r;
	r = read_pem_field(y, c, "certificate-authority", where, KUBECONFIG_PEM_CA, base_dir,
			   &kc->ca_file, &kc->ca_data);
	if (r < 0)
		return r;
	/* kubectl refuses this combination too: it is a configuration mistake. */
	if (kc->insecure && (kc->ca_file || kc->ca_data.data))
		return fail(y,
			    "%s: insecure-skip-tls-verify together with a certificate "
			    "authority is contradictory; remove one",
			    where);
	return 0;
}

static int refuse_user_plugins(struct ydoc *y, yaml_node_t *u, const char *where)
{
	yaml_node_t *n;
	if ((n = map_get(y, u, "exec"))) {
		const char *cmd = map_str(y, n, "command");
		return fail(y,
			    "%s uses an exec credential plugin (%.64s), which is unsupported: "
			    "use a kubeconfig with a token or client certificate (RKE2: "
			    "/etc/rancher/rke2/rke2.yaml) or --in-cluster",
			    where, cmd ? cmd : "no command");
	}
	if ((n = map_get(y, u, "auth-provider"))) {
		const char *name = map_str(y, n, "name");
		return fail(y,
			    "%s uses the auth-provider plugin \"%.64s\", which is unsupported: "
			    "use a kubeconfig with a token or client certificate, or --in-cluster",
			    where, name ? name : "?");
	}
	if (map_str(y, u, "username") || map_str(y, u, "password"))
		return fail(y,
			    "%s uses basic authentication (username/password), which is "
			    "unsupported: use a token or a client certificate",
			    where);
	if (map_str(y, u, "as") || map_get(y, u, "as-groups") || map_str(y, u, "as-uid"))
		return fail(y,
			    "%s asks for impersonation (as/as-groups), which is unsupported: "
			    "use the identity's own credentials",
			    where);
	return 0;
}

static int parse_user(struct ydoc *y, yaml_node_t *root, const char *base_dir,
		      struct kubeconfig *kc)
{
	if (!kc->user)
		return 0; /* no user: anonymous, as kubectl would be */
	yaml_node_t *u = named_entry(y, root, "users", "user", kc->user);
	_cleanup_free_ char *where = xasprintf("user \"%s\"", kc->user);
	if (!u)
		return fail(y, "context \"%s\" names user \"%s\", which is not in users",
			    kc->context, kc->user);
	int r = refuse_user_plugins(y, u, where);
	if (r < 0)
		return r;
	r = read_pem_field(y, u, "client-certificate", where, KUBECONFIG_PEM_CERT, base_dir,
			   &kc->cert_file, &kc->cert_data);
	if (r < 0)
		return r;
	r = read_pem_field(y, u, "client-key", where, KUBECONFIG_PEM_KEY, base_dir, &kc->key_file,
			   &kc->key_data);
	if (r < 0)
		return r;
	bool cert = kc->cert_file || kc->cert_data.data, key = kc->key_file || kc->key_data.data;
	if (cert != key)
		return fail(y, "%s has a client %s but no client %s", where,
			    cert ? "certificate" : "key", cert ? "key" : "certificate");
	const char *s;
	if ((s = map_str(y, u, "tokenFile")))
		kc->token_file = resolve_path(base_dir, s);
	else if ((s = map_str(y, u, "token")))
		kc->token = xstrdup(s);
	return 0;
}

static int parse_doc(struct ydoc *y, const char *base_dir, const char *context,
		     struct kubeconfig *kc)
{
	yaml_node_t *root = yaml_document_get_root_node(&y->doc);
	if (!root || root->type != YAML_MAPPING_NODE)
		return fail(y, "not a kubeconfig (expected a mapping with clusters, contexts "
			       "and users)");
	const char *name = context ? context : map_str(y, root, "current-context");
	if (!name)
		return fail(y, "no current-context is set");
	kc->context = xstrdup(name);
	yaml_node_t *ctx = named_entry(y, root, "contexts", "context", name);
	if (!ctx)
		return fail(y, "context \"%s\" not found", name);
	const char *s = map_str(y, ctx, "cluster");
	if (!s)
		return fail(y, "context \"%s\" names no cluster", name);
	kc->cluster = xstrdup(s);
	if ((s = map_str(y, ctx, "user")))
		kc->user = xstrdup(s);
	int r = parse_cluster(y, root, base_dir, kc);
	if (r < 0)
		return r;
	return parse_user(y, root, base_dir, kc);
}

int kubeconfig_parse(const uint8_t *buf, size_t len, const char *name, const char *base_dir,
		     const char *context, struct kubeconfig *ret, char *err, size_t errlen)
{
	struct ydoc y = {.name = name, .err = err, .errlen = errlen};
	if (len > KUBECONFIG_MAX_SIZE)
		return fail(&y, "%zu bytes is larger than a kubeconfig can be", len);
	if (yamldoc_load(buf, len, KUBECONFIG_MAX_SIZE, name, &y.doc, err, errlen) < 0)
		return -EINVAL;
	struct kubeconfig kc = {.origin = xstrdup(name)};
	int r = parse_doc(&y, base_dir, context, &kc);
	yaml_document_delete(&y.doc);
	if (r < 0) {
		kubeconfig_clear(&kc);
		return r;
	}
	*ret = kc;
	return 0;
}

int kubeconfig_load(const char *path, const char *context, struct kubeconfig *ret, char *err,
		    size_t errlen)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = util_read_file(path, KUBECONFIG_MAX_SIZE, &buf, &len);
	if (r == -EFBIG) {
		snprintf(err, errlen, "%s: larger than %u MiB, not a kubeconfig", path,
			 KUBECONFIG_MAX_SIZE >> 20);
		return r;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot read the kubeconfig: %s", path,
			 util_read_strerror(r));
		return r;
	}
	_cleanup_free_ char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		strcpy(dir, ".");
	return kubeconfig_parse((const uint8_t *)buf, len, path, dir, context, ret, err, errlen);
}

static void blob_clear(struct kube_blob *b)
{
	if (b->data)
		OPENSSL_cleanse(b->data, b->len);
	free(b->data);
	*b = (struct kube_blob){0};
}

void kubeconfig_clear(struct kubeconfig *kc)
{
	if (!kc)
		return;
	free(kc->origin);
	free(kc->context);
	free(kc->cluster);
	free(kc->user);
	free(kc->server);
	free(kc->tls_server_name);
	free(kc->proxy_url);
	free(kc->ca_file);
	free(kc->cert_file);
	free(kc->key_file);
	blob_clear(&kc->ca_data);
	blob_clear(&kc->cert_data);
	blob_clear(&kc->key_data);
	if (kc->token)
		OPENSSL_cleanse(kc->token, strlen(kc->token));
	free(kc->token);
	free(kc->token_file);
	*kc = (struct kubeconfig){0};
}
