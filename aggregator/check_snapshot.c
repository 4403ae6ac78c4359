#include "checks_api.h"

void check_vsc_longhorn(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_vsc_ambiguous(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_vsc_backup_target(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_vsc_snap_restore_risk(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_snapshot_restorable(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_snapshot_stuck_deletion(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}
