#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "log.h"
#include "suggest.h"
#include "yamldoc.h"

#define CONFIG_MAX_BYTES (256u << 10)

static const char *scalar(yaml_document_t *doc, yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int set_int(const char *name, const char *key, const char *v, int64_t min, int64_t max,
		   int64_t *ret, char *err, size_t errlen)
{
	int64_t i;
	if (!v || util_parse_i64(v, &i) < 0 || i < min || i > max) {
		snprintf(err, errlen, "%s: \"%s\" must be an integer from %lld to %lld", name, key,
			 (long long)min, (long long)max);
		return -EINVAL;
	}
	*ret = i;
	return 0;
}

static int set_str(const char *name, const char *key, const char *v, char **ret, char *err,
		   size_t errlen)
{
	if (!v) {
		snprintf(err, errlen, "%s: \"%s\" must be a string", name, key);
		return -EINVAL;
	}
	free(*ret);
	*ret = xstrdup(v);
	return 0;
}

/* A list of check IDs: a YAML sequence or a comma-separated string. */
static int set_ids(yaml_document_t *doc, const char *name, const char *key, yaml_node_t *n,
		   struct strv *ret, char *err, size_t errlen)
{
	if (n->type == YAML_SCALAR_NODE) {
		strv_split(ret, scalar(doc, n), ", ");
		return 0;
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		snprintf(err, errlen, "%s: \"%s\" must be a list of check IDs", name, key);
		return -EINVAL;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		const char *s = scalar(doc, yaml_document_get_node(doc, *it));
		if (!s) {
			snprintf(err, errlen, "%s: \"%s\" must be a list of check IDs", name, key);
			return -EINVAL;
		}
		strv_add(ret, s);
	}
	return 0;
}

static const char *const top_keys[] = {
    "node",	     "host_root",   "aggregator", "ca_file",  "token_file",
    "probe_targets", "probe_netns", "timeout",	  "interval", "skip",
    "only",	     "thresholds",  NULL,
};
static const char *const threshold_keys[] = {
    "clock_maxerror_warn_ms",
    "min_cpu_cores",
    "min_memory_gib",
    "longhorn_min_available_percent",
    NULL,
};

/* An unknown key still loads (a newer config on an older agent), but a typo
 * must not pass unnoticed: say so, with the nearest known key. */
static void warn_unknown(const char *name, const char *prefix, const char *key,
			 const char *const *known)
{
	char hint[160], shown[65];
	log_warnx("%s: unknown key \"%s%s\" ignored%s", name, prefix,
		  suggest_quote(key, shown, sizeof(shown)),
		  suggest_hint(key, known, SIZE_MAX, hint, sizeof(hint)));
}

static int load_thresholds(yaml_document_t *doc, const char *name, yaml_node_t *n,
			   struct agent_thresholds *t, char *err, size_t errlen)
{
	if (n->type != YAML_MAPPING_NODE) {
		snprintf(err, errlen, "%s: \"thresholds\" must be a mapping", name);
		return -EINVAL;
	}
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(doc, yaml_document_get_node(doc, p->key));
		const char *v = scalar(doc, yaml_document_get_node(doc, p->value));
		int64_t i = 0;
		int r = 0;
		if (!k)
			continue;
		if (streq(k, "clock_maxerror_warn_ms")) {
			r = set_int(name, k, v, 1, 3600000, &i, err, errlen);
			t->clock_maxerror_warn_us = i * 1000;
		} else if (streq(k, "min_cpu_cores")) {
			r = set_int(name, k, v, 1, 100000, &t->min_cpu_cores, err, errlen);
		} else if (streq(k, "min_memory_gib")) {
			r = set_int(name, k, v, 1, 1 << 20, &i, err, errlen);
			t->min_memory_bytes = i << 30;
		} else if (streq(k, "longhorn_min_available_percent")) {
			r = set_int(name, k, v, 0, 100, &t->longhorn_min_available_pct, err,
				    errlen);
		} else
			warn_unknown(name, "thresholds.", k, threshold_keys);
		if (r < 0)
			return r;
	}
	return 0;
}

int config_parse(const uint8_t *buf, size_t len, const char *name, struct agent_opts *o, char *err,
		 size_t errlen)
{
	yaml_document_t doc;
	int r = 0;
	if (yamldoc_load(buf, len, CONFIG_MAX_BYTES, name, &doc, err, errlen) < 0)
		return -EINVAL;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) /* empty file: all defaults */
		goto out;
	if (root->type != YAML_MAPPING_NODE) {
		snprintf(err, errlen, "%s: the top level must be a mapping", name);
		r = -EINVAL;
		goto out;
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *vn = yaml_document_get_node(&doc, p->value);
		const char *k = scalar(&doc, yaml_document_get_node(&doc, p->key));
		const char *v = scalar(&doc, vn);
		int64_t i = 0;
		if (!k)
			continue;
		if (streq(k, "node"))
			r = set_str(name, k, v, &o->node, err, errlen);
		else if (streq(k, "host_root"))
			r = set_str(name, k, v, &o->host_root, err, errlen);
		else if (streq(k, "aggregator"))
			r = set_str(name, k, v, &o->aggregator_url, err, errlen);
		else if (streq(k, "ca_file"))
			r = set_str(name, k, v, &o->ca_file, err, errlen);
		else if (streq(k, "token_file"))
			r = set_str(name, k, v, &o->token_file, err, errlen);
		else if (streq(k, "probe_targets"))
			r = set_str(name, k, v, &o->probe_targets_file, err, errlen);
		else if (streq(k, "probe_netns"))
			r = set_str(name, k, v, &o->probe_netns, err, errlen);
		else if (streq(k, "timeout")) {
			if ((r = set_int(name, k, v, 1, 600, &i, err, errlen)) == 0)
				o->timeout_s = (int)i;
		} else if (streq(k, "interval")) {
			if ((r = set_int(name, k, v, 1, 86400, &i, err, errlen)) == 0)
				o->interval_s = (int)i;
		} else if (streq(k, "allow_link_local_probes")) {
			if (streq(v, "true") || streq(v, "false"))
				o->allow_link_local_probes = streq(v, "true");
			else {
				snprintf(err, errlen, "%s: %s must be true or false", name, k);
				r = -EINVAL;
			}
		} else if (streq(k, "skip"))
			r = set_ids(&doc, name, k, vn, &o->skip, err, errlen);
		else if (streq(k, "only"))
			r = set_ids(&doc, name, k, vn, &o->only, err, errlen);
		else if (streq(k, "thresholds"))
			r = load_thresholds(&doc, name, vn, &o->thr, err, errlen);
		else
			warn_unknown(name, "", k, top_keys);
		if (r < 0)
			break;
	}
out:
	yaml_document_delete(&doc);
	return r;
}

int config_load(const char *path, struct agent_opts *o, char *err, size_t errlen)
{
	_cleanup_free_ char *buf = NULL;
	size_t n;
	int r = util_read_file(path, CONFIG_MAX_BYTES, &buf, &n);
	if (r == -EFBIG) {
		snprintf(err, errlen, "%s: larger than %u bytes", path, CONFIG_MAX_BYTES);
		return -EINVAL;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, util_read_strerror(r));
		return r;
	}
	return config_parse((const uint8_t *)buf, n, path, o, err, errlen);
}
