/* Host check functions (one file each, check_*.c) and fact collection (facts.c). */
#pragma once
#include "agent.h"

void check_kvm(struct agent_ctx *ctx, const char *id);
void check_cpu_virt(struct agent_ctx *ctx, const char *id);
void check_clock(struct agent_ctx *ctx, const char *id);
void check_nfs_client(struct agent_ctx *ctx, const char *id);
void check_nfs_kernel(struct agent_ctx *ctx, const char *id);
void check_iscsi(struct agent_ctx *ctx, const char *id);
void check_multipathd(struct agent_ctx *ctx, const char *id);
void check_longhorn_path(struct agent_ctx *ctx, const char *id);
void check_image_share_manager(struct agent_ctx *ctx, const char *id);
void check_containerd_device_ownership(struct agent_ctx *ctx, const char *id);
void check_nfs_probe(struct agent_ctx *ctx, const char *id);
void check_resources(struct agent_ctx *ctx, const char *id);

/* Facts for the aggregator's cross-node checks (docs/design.md#facts). */
void facts_collect(struct agent_ctx *ctx);
