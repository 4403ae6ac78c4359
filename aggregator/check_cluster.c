#include "checks_api.h"

void check_nodes_reporting(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_nodes_count(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_clock_skew(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_cpu_compat(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_hostname_unique(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}
