/*
 * Longhorn's two data engines: which one a volume uses, which disks serve it,
 * and whether a node runs it. docs/support-matrix-longhorn.md lists the rules
 * with their versions; the sources (longhorn/longhorn-manager):
 *
 *   volume engine   spec.dataEngine "v1"/"v2" (v1.6.0+), spec.backendStoreDriver
 *                   (v1.5.x); anything but "v2" is v1: types.IsDataEngineV1 is
 *                   `!= v2` (types/types.go v1.7.0–v1.11.3; datastore v1.6.0)
 *   disk engine     spec.disks[].diskType "filesystem" (v1 replicas) / "block" (v2
 *                   replicas), "" is made "filesystem" by the node mutator
 *                   (k8s/pkg/apis/longhorn/v1beta2/node.go, webhook/resources/node/
 *                   mutator.go; scheduler/replica_scheduler.go isV1EngineFilesystemDisk /
 *                   isV2EngineBlockDisk, v1.5.0–v1.11.3)
 *   engine enabled  settings v2-data-engine (v1.5.0+, default "false") and
 *                   v1-data-engine (v1.6.0+, default "true") (types/setting.go)
 *   node opt-out    label node.longhorn.io/disable-v2-data-engine: "true" on the
 *                   Kubernetes Node (types/types.go, datastore IsV2DataEngineDisabledForNode,
 *                   v1.6.0+): no v2 instance manager there (controller/node_controller.go),
 *                   no v2 replica (scheduler/replica_scheduler.go)
 */
#pragma once
#include <stdbool.h>

#include "cluster_state.h"
#include "longhorn.h"

enum longhorn_engine {
	LONGHORN_V1,
	LONGHORN_V2,
	_LONGHORN_ENGINE_MAX,
};

#define LONGHORN_V2_DISABLE_LABEL "node.longhorn.io/disable-v2-data-engine"

/* "v1", "v2". */
const char *longhorn_engine_name(enum longhorn_engine e);
/* "filesystem" (v1), "block" (v2): the disk type that holds the engine's replicas. */
const char *longhorn_engine_disk_type(enum longhorn_engine e);

/* The engine of a Longhorn Volume. */
enum longhorn_engine longhorn_volume_engine(const struct jv *vol);

/* The engine whose replicas a disk (an entry of nodes.longhorn.io spec.disks) holds. */
enum longhorn_engine longhorn_disk_engine(const struct jv *disk_spec);

/* Whether the engine is enabled cluster-wide: 1, 0, or -ENODATA when the
 * Longhorn settings were not collected. An absent setting is its default (v1
 * on, v2 off). *ret_value (may be NULL) gets the setting's raw value or NULL. */
int longhorn_engine_enabled(const struct cluster_state *cs, enum longhorn_engine e,
			    const char **ret_value);

/* The running Longhorn version: the current-longhorn-version setting, else the
 * longhorn-manager DaemonSet's image tag (as cluster_versions.c reads it).
 * false when neither is known. */
bool longhorn_engine_version(const struct cluster_state *cs, struct longhorn_version *ret);

/* Whether the Kubernetes Node carries node.longhorn.io/disable-v2-data-engine=true:
 * 1, 0, or -ENODATA when the Nodes were not collected or the node is not among
 * them. Before Longhorn 1.6 (a known version) the label means nothing: 0. */
int longhorn_node_v2_disabled(const struct cluster_state *cs, const char *node);
