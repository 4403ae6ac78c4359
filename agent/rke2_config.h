/*
 * RKE2's (and k3s's) own configuration: /etc/rancher/rke2/config.yaml, then
 * every *.yaml / *.yml file in /etc/rancher/rke2/config.yaml.d/ in lexical
 * order, exactly as RKE2's config loader (k3s pkg/configfilearg) reads them:
 *
 *  - each file is a YAML mapping of flag names to values;
 *  - a later value for a key replaces the earlier one (lists too);
 *  - a key written "name+" appends to the value so far (a scalar counts as a
 *    one-element list), and replaces when there is no value yet;
 *  - values become command-line flags: `key: [a, b]` is `--key=a --key=b`,
 *    `key: true` is `--key=true`. For a boolean flag, repeated values mean the
 *    last one wins, so `nonroot-devices+: true` is the same as `true`.
 *
 * Values are kept as the strings RKE2 turns them into (YAML 1.1 as yaml.v2
 * reads it: unquoted yes/on/true are "true", a quoted "yes" stays "yes").
 */
#pragma once
#include "hostroot.h"

#define RKE2_CONFIG_MAX_FILE_SIZE (1u << 20)
#define RKE2_CONFIG_MAX_DROPINS	  256

struct rke2_value {
	char *key;
	struct strv items; /* one per flag occurrence */
	bool is_list;	   /* written as a YAML sequence (or grown by "key+") */
	bool non_scalar;   /* a mapping, or a sequence inside a sequence: not a flag value */
	char *file;	   /* where it was last set */
	unsigned line;
};

struct rke2_config {
	struct rke2_value *items;
	size_t n, cap;
	struct strv files; /* the files read, in order (host paths) */
};

/* Merge one YAML document (a file's content) into c. name is used in errors.
 * Returns 0 or -EINVAL with "NAME:LINE: reason" in err. */
int rke2_config_parse(struct rke2_config *c, const uint8_t *buf, size_t len, const char *name,
		      char *err, size_t errlen);
/* Read path (a host path such as "/etc/rancher/rke2/config.yaml") and path.d/ under
 * root. Neither existing is not an error (c->files stays empty). Returns 0 or -errno
 * with err. */
int rke2_config_load(struct rke2_config *c, const struct hostroot *root, const char *path,
		     char *err, size_t errlen);
void rke2_config_clear(struct rke2_config *c);

const struct rke2_value *rke2_config_get(const struct rke2_config *c, const char *key);
/* The value of a string flag (the last occurrence), or NULL when unset. */
const char *rke2_config_string(const struct rke2_config *c, const char *key);
/* A boolean flag as RKE2's flag parser reads it (Go strconv.ParseBool, last
 * occurrence wins). Returns 1 true, 0 false, -ENOENT when unset, -EINVAL when a
 * value is not a boolean (RKE2 refuses to start). */
int rke2_config_bool(const struct rke2_config *c, const char *key);
/* Go's strconv.ParseBool: 1, 0 or -EINVAL. */
int rke2_parse_bool(const char *s);
