#include "checks_api.h"

void check_kubevirt_snapshot_gate(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_kubevirt_gate_stale(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_kubevirt_available(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}
