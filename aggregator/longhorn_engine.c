#include "longhorn_engine.h"

#include <errno.h>
#include <string.h>

#include "json_query.h"
#include "longhorn.h"
#include "storage.h"

const char *longhorn_engine_name(enum longhorn_engine e)
{
	return e == LONGHORN_V2 ? "v2" : "v1";
}

const char *longhorn_engine_disk_type(enum longhorn_engine e)
{
	return e == LONGHORN_V2 ? "block" : "filesystem";
}

enum longhorn_engine longhorn_volume_engine(const struct jv *vol)
{
	const char *e = JQS(vol, "spec", "dataEngine");
	if (!e || !*e)
		e = JQS(vol, "spec", "backendStoreDriver"); /* Longhorn 1.5 */
	return streq(e, "v2") ? LONGHORN_V2 : LONGHORN_V1;
}

enum longhorn_engine longhorn_disk_engine(const struct jv *disk_spec)
{
	return streq(JQS(disk_spec, "diskType"), "block") ? LONGHORN_V2 : LONGHORN_V1;
}

int longhorn_engine_enabled(const struct cluster_state *cs, enum longhorn_engine e,
			    const char **ret_value)
{
	const char *name = e == LONGHORN_V2 ? "v2-data-engine" : "v1-data-engine";
	if (ret_value)
		*ret_value = NULL;
	if (cs->res[RES_LH_SETTINGS].status != RES_COLLECTED)
		return -ENODATA;
	const struct jv *s = longhorn_setting(cs, name);
	if (!s)
		return e == LONGHORN_V1; /* the defaults: v1 "true", v2 "false" */
	const char *v = JQS(s, "value");
	if (ret_value)
		*ret_value = v;
	/* A bool setting: longhorn-manager GetSettingAsBool is strconv.ParseBool. */
	bool on = false;
	const struct jv *val = JQ(s, "value");
	if (val && storage_go_bool(val, &on) == 0)
		return on;
	return e == LONGHORN_V1;
}

bool longhorn_engine_version(const struct cluster_state *cs, struct longhorn_version *ret)
{
	if (longhorn_version_get(cs, ret))
		return true;
	const struct jv *ds = cs_find(cs, RES_DAEMONSETS, NULL, "longhorn-manager");
	const struct jv *cts = JQ(ds, "spec", "template", "spec", "containers");
	for (size_t i = 0; i < jq_len(cts); i++) {
		const struct jv *ct = jq_at(cts, i);
		const char *image = JQS(ct, "image");
		if ((streq(JQS(ct, "name"), "longhorn-manager") || jq_len(cts) == 1) && image &&
		    longhorn_version_parse((const uint8_t *)image, strlen(image), ret) == 0)
			return true;
	}
	return false;
}

int longhorn_node_v2_disabled(const struct cluster_state *cs, const char *node)
{
	struct longhorn_version v;
	if (longhorn_engine_version(cs, &v) && !longhorn_version_at_least(&v, 1, 6))
		return 0;
	if (!node || cs->res[RES_NODES].status != RES_COLLECTED)
		return -ENODATA;
	const struct jv *n = cs_find(cs, RES_NODES, NULL, node);
	if (!n)
		return -ENODATA;
	return streq(JQS(n, "metadata", "labels", LONGHORN_V2_DISABLE_LABEL), "true");
}
