/* Host check functions (one file each, check_*.c; listed in common/checks.def)
 * and fact collection (facts.c). */
#pragma once
#include "agent.h"

/* The runner of every HOST row of common/checks.def, and only those: a check
 * function is declared nowhere else, so one without a row has no prototype and
 * its check_*.c does not compile (-Werror=missing-prototypes, CMakeLists.txt),
 * and a row without its function does not link. */
#define CHECK(id, prog, runner, ...) CHECK_PROTO_##prog(runner)
#define CHECK_PROTO_HOST(runner)     void runner(struct agent_ctx *ctx, const char *id);
#define CHECK_PROTO_CLUSTER(runner)
#define CHECK_PROTO_API(runner)
#define CHECK_PROTO_CANARY(runner)
#include "checks.def"
#undef CHECK
#undef CHECK_PROTO_HOST
#undef CHECK_PROTO_CLUSTER
#undef CHECK_PROTO_API
#undef CHECK_PROTO_CANARY

/* Facts for the aggregator's cross-node checks (docs/design.md#facts). */
void facts_collect(struct agent_ctx *ctx);
