/*
 * Probe targets: what the aggregator learns from the API and hands to agents
 * (docs/protocol.md), or what an operator gives `check --probe-targets FILE` as JSON:
 * {"share_manager_image": "...", "share_manager_pull_policy": "if-not-present",
 *  "nfs_endpoints": ["nfs://..."], "longhorn_data_paths": ["/var/lib/longhorn"],
 *  "canary_export": "nfs://..."}
 * Every key is optional. Unknown keys are ignored (an aggregator newer than the
 * agent may send more), but a file an operator wrote gets them reported: a typo
 * would otherwise silently disable a probe.
 */
#pragma once
#include <json-c/json.h>
#include "util.h"

#define PROBE_TARGETS_MAX_BYTES (1u << 20)
#define PROBE_TARGETS_MAX_ITEMS 1024

struct probe_targets {
	char *share_manager_image; /* NULL: not given */
	/* Longhorn's system-managed-pods-image-pull-policy as Longhorn spells it
	 * ("if-not-present", "always", "never"); NULL: not given. */
	char *share_manager_pull_policy;
	struct strv nfs_endpoints;
	struct strv longhorn_data_paths;
	char *canary_export; /* NULL: none; the only export ever written to */
};

/* Returns 0, or -EINVAL with a one-line reason in err. */
int probe_targets_parse(const uint8_t *buf, size_t len, struct probe_targets *ret, char *err,
			size_t errlen);
/* The same, also listing the top-level keys it does not know in *unknown. */
int probe_targets_parse_keys(const uint8_t *buf, size_t len, struct probe_targets *ret,
			     struct strv *unknown, char *err, size_t errlen);
void probe_targets_unknown_keys(json_object *o, struct strv *ret);
/* The keys this version knows, NULL-terminated. */
extern const char *const probe_targets_known_keys[];
int probe_targets_from_json(json_object *o, struct probe_targets *ret, char *err, size_t errlen);
json_object *probe_targets_to_json(const struct probe_targets *t);
void probe_targets_copy(struct probe_targets *dst, const struct probe_targets *src);
void probe_targets_clear(struct probe_targets *t);
