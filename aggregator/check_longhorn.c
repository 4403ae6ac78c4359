#include "checks_api.h"

void check_longhorn_volume_health(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_longhorn_clone_stuck(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_longhorn_rwx_share(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_longhorn_node_disk(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}
