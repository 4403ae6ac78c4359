/*
 * Longhorn knowledge shared by the storage checks: how Longhorn writes
 * references to volumes, snapshots and backups (spec.dataSource, CSI snapshot
 * handles), its version, its settings (plain or data-engine-specific values),
 * and which Engine/Replica objects belong to a volume.
 *
 * Sources (longhorn/longhorn-manager v1.8–v1.11, k8s/pkg/apis/longhorn/v1beta2):
 *   spec.dataSource    "vol://<vol>", "snap://<vol>/<snapshot>"  (types/data_source.go)
 *   snapshot handle    "snap://<vol>/<snapshot>", "bak://<vol>/<backup>", the deprecated
 *                      "bs://<vol>/<backup>", "bi://backing?…"     (csi/controller_server.go)
 */
#pragma once
#include <stdint.h>
#include "cluster_state.h"
#include "json_query.h"

#define LONGHORN_DRIVER "driver.longhorn.io"
/* Kubernetes object names are at most 253 characters. */
#define LONGHORN_NAME_MAX 254

enum longhorn_ref_type {
	LONGHORN_REF_VOLUME,	    /* vol://VOL */
	LONGHORN_REF_SNAPSHOT,	    /* snap://VOL/SNAPSHOT */
	LONGHORN_REF_BACKUP,	    /* bak://VOL/BACKUP (also the old bs://) */
	LONGHORN_REF_BACKING_IMAGE, /* bi://backing?name=… */
};

struct longhorn_ref {
	enum longhorn_ref_type type;
	char volume[LONGHORN_NAME_MAX]; /* "" for backing images */
	char name[LONGHORN_NAME_MAX];	/* snapshot or backup; "" for vol:// and bi:// */
};

/* Parse a data source or a CSI snapshot handle. Returns 0, or -EINVAL when buf
 * is not one of the forms above (unknown scheme, missing or over-long parts). */
int longhorn_ref_parse(const uint8_t *buf, size_t len, struct longhorn_ref *ret);

struct longhorn_version {
	int major, minor, patch;
};

/* "v1.11.2", "1.9.0-rc1", or an image reference "longhornio/longhorn-manager:v1.11.2".
 * Returns 0 or -EINVAL. */
int longhorn_version_parse(const uint8_t *buf, size_t len, struct longhorn_version *ret);
/* a >= major.minor */
bool longhorn_version_at_least(const struct longhorn_version *a, int major, int minor);

/* The Setting object called name (any namespace), or NULL. */
const struct jv *longhorn_setting(const struct cluster_state *cs, const char *name);
/* Its top-level "value" when it is a string, else NULL. */
const char *longhorn_setting_value(const struct cluster_state *cs, const char *name);

/* An integer setting value: "25", or data-engine specific JSON {"v1":"3","v2":"3"}
 * (Longhorn 1.10+, longhorn/longhorn-manager#3936; the v1 engine's value is
 * used). Returns 0 or -EINVAL (also when the JSON has no v1 key). */
int longhorn_int_value_parse(const uint8_t *buf, size_t len, int64_t *ret);

/* The same for one data engine ("v1", "v2"): -ENOENT when the JSON form has no
 * key for it (the engine keeps the setting's default). */
int longhorn_engine_int_value_parse(const uint8_t *buf, size_t len, const char *engine,
				    int64_t *ret);

/* Longhorn's built-in default-replica-count (types/setting.go SettingDefinitionDefaultReplicaCount). */
#define LONGHORN_DEFAULT_REPLICAS 3

/* default-replica-count for a data engine ("v1", "v2"): a plain "3" applies to
 * every engine; from Longhorn 1.10 the value may be JSON {"v1":"3","v2":"2"}
 * (longhorn/longhorn-manager#3936). The one reader for cluster.nodes.count and
 * api.longhorn.node-disk. *ret is the value, or LONGHORN_DEFAULT_REPLICAS when
 * the setting (or this engine's key) is absent (-ENOENT); -EINVAL when it is
 * unreadable or below 1. *ret_value (may be NULL) gets the raw value. */
int longhorn_replica_count(const struct cluster_state *cs, const char *engine, int64_t *ret,
			   const char **ret_value);

/* The running version from the current-longhorn-version setting; false if unknown. */
bool longhorn_version_get(const struct cluster_state *cs, struct longhorn_version *ret);

/* The volume an engine or replica belongs to (its longhornvolume label, else
 * spec.volumeName), as a cs_lookup() key. */
const char *longhorn_volume_of(const struct jv *obj);

/* The Longhorn Volume / Snapshot called name (any namespace), or NULL. */
const struct jv *longhorn_volume(const struct cluster_state *cs, const char *name);
const struct jv *longhorn_snapshot(const struct cluster_state *cs, const char *name);

/* Whether a replica of vol is being rebuilt: its active Engine reports a replica
 * in mode WO, or lists one in spec.replicaAddressMap that has no mode yet. Those
 * are the two states in which longhorn-manager reverts a live migration instead
 * of starting it (controller/volume_controller.go
 * prepareReplicasAndEngineForMigration, v1.6.0–v1.11.3). Returns 1 (*ret_replica
 * names it), 0, or -ENODATA when the engines were not collected or the engine
 * reports no modes. */
int longhorn_volume_rebuilding(const struct cluster_state *cs, const struct jv *vol,
			       const char **ret_replica);
