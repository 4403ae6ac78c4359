/* API and cross-node check functions, one group per file (check_*.c). */
#pragma once
#include "engine.h"
#include "jq.h"

/* storage, snapshots, Longhorn (check_storage.c, check_snapshot.c, check_longhorn.c) */
void check_storageclass_default(struct agg_ctx *ctx, const char *id);
void check_vsc_longhorn(struct agg_ctx *ctx, const char *id);
void check_vsc_ambiguous(struct agg_ctx *ctx, const char *id);
void check_vsc_backup_target(struct agg_ctx *ctx, const char *id);
void check_vsc_snap_restore_risk(struct agg_ctx *ctx, const char *id);
void check_longhorn_volume_health(struct agg_ctx *ctx, const char *id);
void check_longhorn_clone_stuck(struct agg_ctx *ctx, const char *id);
void check_snapshot_restorable(struct agg_ctx *ctx, const char *id);
void check_snapshot_stuck_deletion(struct agg_ctx *ctx, const char *id);
void check_longhorn_rwx_share(struct agg_ctx *ctx, const char *id);
void check_pvc_rwx_class_mismatch(struct agg_ctx *ctx, const char *id);
void check_longhorn_node_disk(struct agg_ctx *ctx, const char *id);
void check_dns_replicas(struct agg_ctx *ctx, const char *id);

/* KubeVirt, VMs, platform (check_kubevirt.c, check_vm.c, check_platform.c, check_preinstall.c) */
void check_kubevirt_snapshot_gate(struct agg_ctx *ctx, const char *id);
void check_kubevirt_gate_stale(struct agg_ctx *ctx, const char *id);
void check_kubevirt_available(struct agg_ctx *ctx, const char *id);
void check_webhooks_harvester(struct agg_ctx *ctx, const char *id);
void check_pods_restarts(struct agg_ctx *ctx, const char *id);
void check_vm_live_migratable(struct agg_ctx *ctx, const char *id);
void check_apiservices(struct agg_ctx *ctx, const char *id);
void check_harvester_endpoint(struct agg_ctx *ctx, const char *id);
void check_vm_run_strategy(struct agg_ctx *ctx, const char *id);
void check_cdi_import_source(struct agg_ctx *ctx, const char *id);
void check_preinstall_conflicts(struct agg_ctx *ctx, const char *id);
void check_preinstall_cidrs(struct agg_ctx *ctx, const char *id);

/* cross-node (check_cluster.c) */
void check_nodes_reporting(struct agg_ctx *ctx, const char *id);
void check_nodes_count(struct agg_ctx *ctx, const char *id);
void check_clock_skew(struct agg_ctx *ctx, const char *id);
void check_cpu_compat(struct agg_ctx *ctx, const char *id);
void check_hostname_unique(struct agg_ctx *ctx, const char *id);
