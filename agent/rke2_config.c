#include "rke2_config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "yamldoc.h"

void rke2_config_clear(struct rke2_config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->items[i].key);
		strv_clear(&c->items[i].items);
		free(c->items[i].file);
	}
	free(c->items);
	strv_clear(&c->files);
	*c = (struct rke2_config){0};
}

const struct rke2_value *rke2_config_get(const struct rke2_config *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (streq(c->items[i].key, key))
			return &c->items[i];
	return NULL;
}

const char *rke2_config_string(const struct rke2_config *c, const char *key)
{
	const struct rke2_value *v = rke2_config_get(c, key);
	return v && v->items.n > 0 ? v->items.items[v->items.n - 1] : NULL;
}

int rke2_parse_bool(const char *s)
{
	static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True"};
	static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False"};
	for (size_t i = 0; i < ELEMENTSOF(t); i++) {
		if (streq(s, t[i]))
			return 1;
		if (streq(s, f[i]))
			return 0;
	}
	return -EINVAL;
}

int rke2_config_bool(const struct rke2_config *c, const char *key)
{
	const struct rke2_value *v = rke2_config_get(c, key);
	int r = -ENOENT;
	if (!v)
		return -ENOENT;
	if (v->non_scalar)
		return -EINVAL;
	/* Every occurrence is parsed by the flag package; the last one wins. */
	for (size_t i = 0; i < v->items.n; i++)
		if ((r = rke2_parse_bool(v->items.items[i])) < 0)
			return -EINVAL;
	return r;
}

/* ---- YAML scalars as yaml.v2 resolves them and RKE2 prints them ---- */

/* An integer in any form yaml.v2 accepts (underscores, 0x, 0o, 0b, leading-zero
 * octal), printed in decimal; false when s is not one. */
static bool yaml_int(const char *s, char *out, size_t outlen)
{
	char digits[80];
	size_t n = 0;
	for (const char *p = s; *p; p++)
		if (*p != '_') {
			if (n + 1 >= sizeof(digits))
				return false;
			digits[n++] = *p;
		}
	digits[n] = '\0';
	const char *p = digits;
	bool neg = false;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	int base = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16, p += 2;
	else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
		base = 8, p += 2;
	else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
		base = 2, p += 2;
	else if (p[0] == '0' && p[1])
		base = 8, p += 1;
	if (!*p)
		return false;
	uint64_t v = 0;
	for (; *p; p++) {
		int d = *p >= '0' && *p <= '9'	 ? *p - '0'
			: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
						 : 99;
		if (d >= base || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (v > (uint64_t)INT64_MAX + (neg ? 1 : 0))
		return false;
	if (neg)
		snprintf(out, outlen, "-%llu", (unsigned long long)v);
	else
		snprintf(out, outlen, "%llu", (unsigned long long)v);
	return true;
}

/* yaml.v2's float form: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static bool yaml_float(const char *s, double *ret)
{
	const char *p = s;
	bool lead = false, frac = false;
	if (*p == '+' || *p == '-')
		p++;
	while (*p >= '0' && *p <= '9')
		p++, lead = true;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, frac = true;
	}
	if (!lead && !frac)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return false;
	*ret = strtod(s, NULL);
	return true;
}

/*
 * The flag value RKE2 makes of a scalar: yaml.v2 resolves a plain scalar into
 * null, a bool, an int or a float, and RKE2 prints it back with Go's %v. Only the
 * results that matter for flag parsing are reproduced exactly (null, booleans,
 * integers, and floats that print as 0 or 1); other plain scalars stay as written.
 */
static char *flag_string(const yaml_node_t *n, bool *is_null)
{
	const char *s = (const char *)n->data.scalar.value;
	char num[32];
	double d;
	bool b;
	*is_null = false;
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return xstrndup(s, n->data.scalar.length);
	if (yamldoc_is_null(n)) {
		*is_null = true;
		return xstrdup("");
	}
	if (yamldoc_bool(s, &b) == 0)
		return xstrdup(b ? "true" : "false");
	if (yaml_int(s, num, sizeof(num)))
		return xstrdup(num);
	if (yaml_float(s, &d) && (d == 0 || d == 1))
		return xstrdup(d == 0 ? "0" : "1");
	return xstrdup(s);
}

struct flagval {
	struct strv items;
	bool is_list, non_scalar, is_null;
};

static void flagval_from_node(yaml_document_t *doc, yaml_node_t *n, struct flagval *ret)
{
	*ret = (struct flagval){0};
	if (n->type == YAML_SCALAR_NODE) {
		char *s = flag_string(n, &ret->is_null);
		strv_add(&ret->items, s);
		free(s);
		return;
	}
	if (n->type == YAML_MAPPING_NODE) {
		ret->non_scalar = true;
		return;
	}
	ret->is_list = true;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = yaml_document_get_node(doc, *it);
		bool null;
		if (!e || e->type != YAML_SCALAR_NODE) {
			ret->non_scalar = true;
			continue;
		}
		char *s = flag_string(e, &null);
		strv_add(&ret->items, s);
		free(s);
	}
}

static void set_value(struct rke2_config *c, const char *key, bool append, struct flagval *fv,
		      const char *name, unsigned line)
{
	struct rke2_value *v = (struct rke2_value *)rke2_config_get(c, key);
	if (v && append) {
		/* toSlice(): a null adds nothing, a scalar adds itself, a list its items. */
		if (!fv->is_null)
			for (size_t i = 0; i < fv->items.n; i++)
				strv_add(&v->items, fv->items.items[i]);
		v->is_list = true;
		v->non_scalar |= fv->non_scalar;
		strv_clear(&fv->items);
	} else {
		if (!v) {
			util_grow((void **)&c->items, &c->cap, c->n + 1, sizeof(struct rke2_value));
			v = &c->items[c->n++];
			*v = (struct rke2_value){.key = xstrdup(key)};
		}
		strv_clear(&v->items);
		v->items = fv->items;
		fv->items = (struct strv){0};
		v->is_list = fv->is_list;
		v->non_scalar = fv->non_scalar;
	}
	free(v->file);
	v->file = xstrdup(name);
	v->line = line;
}

int rke2_config_parse(struct rke2_config *c, const uint8_t *buf, size_t len, const char *name,
		      char *err, size_t errlen)
{
	yaml_document_t doc;
	int r = 0;
	if (yamldoc_load(buf, len, RKE2_CONFIG_MAX_FILE_SIZE, name, &doc, err, errlen) < 0)
		return -EINVAL;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (root && root->type == YAML_SCALAR_NODE) {
		bool null;
		free(flag_string(root, &null));
		if (null)
			root = NULL; /* an empty document, or just "~" */
	}
	if (root && root->type != YAML_MAPPING_NODE) {
		snprintf(err, errlen, "%s:%zu: the top level must be a mapping of option names",
			 name, root->start_mark.line + 1);
		r = -EINVAL;
		goto out;
	}
	for (yaml_node_pair_t *p = root ? root->data.mapping.pairs.start : NULL;
	     root && p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&doc, p->value);
		if (!k || !v || k->type != YAML_SCALAR_NODE)
			continue; /* RKE2 turns such keys into flags nobody knows: ignored */
		_cleanup_free_ char *key =
		    xstrndup((const char *)k->data.scalar.value, k->data.scalar.length);
		size_t kl = strlen(key);
		bool append = kl > 0 && key[kl - 1] == '+';
		if (append)
			key[kl - 1] = '\0';
		struct flagval fv;
		flagval_from_node(&doc, v, &fv);
		set_value(c, key, append, &fv, name, (unsigned)k->start_mark.line + 1);
		strv_clear(&fv.items);
	}
out:
	yaml_document_delete(&doc);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool yaml_name(const char *n)
{
	size_t l = strlen(n);
	return (l > 5 && strcasecmp(n + l - 5, ".yaml") == 0) ||
	       (l > 4 && strcasecmp(n + l - 4, ".yml") == 0);
}

static int load_one(struct rke2_config *c, const struct hostroot *root, const char *path, char *err,
		    size_t errlen)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = hostroot_read(root, path, RKE2_CONFIG_MAX_FILE_SIZE, &buf, &len);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, util_read_strerror(r));
		return r;
	}
	strv_add(&c->files, path);
	return rke2_config_parse(c, (const uint8_t *)buf, len, path, err, errlen);
}

int rke2_config_load(struct rke2_config *c, const struct hostroot *root, const char *path,
		     char *err, size_t errlen)
{
	struct strv dropins = {0};
	_cleanup_free_ char *dir = xasprintf("%s.d", path);
	int r = 0;
	if (hostroot_exists(root, path) && (r = load_one(c, root, path, err, errlen)) < 0)
		return r;
	DIR *d = hostroot_opendir(root, dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	struct dirent *de;
	while ((de = readdir(d)) && dropins.n < RKE2_CONFIG_MAX_DROPINS) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || streq(de->d_name, "..")))
			continue;
		if (!yaml_name(de->d_name))
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (hostroot_stat(root, p, &st) == 0 && S_ISDIR(st.st_mode))
			continue;
		strv_add(&dropins, p);
	}
	closedir(d);
	qsort(dropins.items, dropins.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < dropins.n && r == 0; i++)
		r = load_one(c, root, dropins.items[i], err, errlen);
	strv_clear(&dropins);
	return r;
}
