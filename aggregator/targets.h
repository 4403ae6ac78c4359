/*
 * Probe targets learned from the API (docs/design.md#components-and-data-flow):
 * what each agent should probe that only the cluster knows — the share-manager
 * image, the NFS endpoints of attached RWX share volumes, and the Longhorn disk
 * paths of that node.
 */
#pragma once
#include "cluster_state.h"
#include "probe_targets.h"

/* Share endpoints handed to each node at most; beyond, the agent's per-cycle
 * budget could not probe them anyway. The choice is stable (sorted). */
#define TARGETS_MAX_ENDPOINTS 16

/* The share-manager image: longhorn-manager's --share-manager-image flag, else
 * the newest ShareManager's spec.image; NULL if neither is known. */
const char *targets_share_manager_image(const struct cluster_state *cs);
/* Fill ret for node (NULL: cluster-wide part only). */
void targets_for_node(const struct cluster_state *cs, const char *node, struct probe_targets *ret);
/* Add the node's part alone (its Longhorn data paths) to ret. */
void targets_node_paths(const struct cluster_state *cs, const char *node, struct strv *ret);
