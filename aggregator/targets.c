#include "targets.h"

#include <stdlib.h>
#include <string.h>

#include "json_query.h"
#include "longhorn.h"

static const char *flag_value(const struct jv *args, const char *flag)
{
	size_t flen = strlen(flag);
	for (size_t i = 0; i < jq_len(args); i++) {
		const struct jv *a = jq_at(args, i);
		if (!jv_is(a, JV_STRING))
			continue;
		const char *s = jv_str(a);
		if (streq(s, flag)) {
			const struct jv *next = jq_at(args, i + 1);
			return next && jv_is(next, JV_STRING) ? jv_str(next) : NULL;
		}
		if (strncmp(s, flag, flen) == 0 && s[flen] == '=')
			return s + flen + 1;
	}
	return NULL;
}

const char *targets_share_manager_image(const struct cluster_state *cs)
{
	const struct jv *ds = cs_find(cs, RES_DAEMONSETS, "longhorn-system", "longhorn-manager");
	const struct jv *ctrs = JQ(ds, "spec", "template", "spec", "containers");
	for (size_t i = 0; i < jq_len(ctrs); i++) {
		const struct jv *c = jq_at(ctrs, i);
		const char *v = flag_value(JQ(c, "command"), "--share-manager-image");
		if (!v)
			v = flag_value(JQ(c, "args"), "--share-manager-image");
		if (v && *v)
			return v;
	}
	const struct jv *sms = cs_items(cs, RES_LH_SHAREMANAGERS);
	const char *best = NULL, *best_ts = NULL;
	for (size_t i = 0; i < jq_len(sms); i++) {
		const struct jv *sm = jq_at(sms, i);
		const char *img = JQS(sm, "spec", "image");
		const char *ts = JQS(sm, "metadata", "creationTimestamp");
		if (img && *img && (!best || (ts && best_ts && strcmp(ts, best_ts) > 0))) {
			best = img;
			best_ts = ts;
		}
	}
	return best;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void targets_for_node(const struct cluster_state *cs, const char *node, struct probe_targets *ret)
{
	*ret = (struct probe_targets){0};
	const char *img = targets_share_manager_image(cs);
	if (img)
		ret->share_manager_image = xstrdup(img);
	/* Whether a share-manager pod needs its image pulled at all: with Longhorn's
	 * default (if-not-present) an image already on the node is enough. */
	const char *policy = longhorn_setting_value(cs, "system-managed-pods-image-pull-policy");
	if (policy && *policy)
		ret->share_manager_pull_policy = xstrdup(policy);
	/* Every node must be able to mount every share: a pod using the
	 * volume may be scheduled anywhere. */
	const struct jv *vols = cs_items(cs, RES_LH_VOLUMES);
	struct strv eps = {0};
	for (size_t i = 0; i < jq_len(vols); i++) {
		const struct jv *v = jq_at(vols, i);
		bool migratable = false;
		jq_bool(JQ(v, "spec", "migratable"), &migratable);
		const char *ep = JQS(v, "status", "shareEndpoint");
		if (!streq(JQS(v, "spec", "accessMode"), "rwx") || migratable ||
		    !streq(JQS(v, "status", "state"), "attached") || !ep ||
		    !startswith(ep, "nfs://"))
			continue;
		strv_add(&eps, ep);
	}
	if (eps.n) /* qsort(NULL, 0, ...) is undefined behaviour */
		qsort(eps.items, eps.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < eps.n && ret->nfs_endpoints.n < TARGETS_MAX_ENDPOINTS; i++)
		strv_add(&ret->nfs_endpoints, eps.items[i]);
	strv_clear(&eps);
	if (node)
		targets_node_paths(cs, node, &ret->longhorn_data_paths);
}

void targets_node_paths(const struct cluster_state *cs, const char *node, struct strv *ret)
{
	const struct jv *lhn = cs_find(cs, RES_LH_NODES, NULL, node);
	const struct jv *disks = JQ(lhn, "spec", "disks");
	if (disks && jv_is(disks, JV_OBJECT)) {
		jv_foreach(disks, name, d)
		{
			(void)name;
			const char *path = JQS(d, "path");
			const char *type = JQS(d, "diskType");
			/* Block disks (v2 data engine) are devices, not paths to judge. */
			if (path && *path && (!type || !streq(type, "block")) &&
			    !strv_contains(ret, path))
				strv_add(ret, path);
		}
	}
}
