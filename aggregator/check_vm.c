#include "checks_api.h"

void check_vm_live_migratable(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_vm_run_strategy(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}

void check_cdi_import_source(struct agg_ctx *ctx, const char *id)
{
	finding_set(agg_finding(ctx, id), STATUS_UNKNOWN, "this check is not in this build yet");
}
