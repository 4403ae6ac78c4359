/* API and cross-node check functions, one group per file (check_*.c), each a
 * row of common/checks.def. */
#pragma once
#include "engine.h"
#include "json_query.h"
#include "judge.h"

/* The runner of every CLUSTER and API row of common/checks.def, and only
 * those: a check function is declared nowhere else, so one without a row has
 * no prototype and its check_*.c does not compile (-Werror=missing-prototypes,
 * CMakeLists.txt), and a row without its function does not link. */
#define CHECK(id, prog, runner, ...) CHECK_PROTO_##prog(runner)
#define CHECK_PROTO_HOST(runner)
#define CHECK_PROTO_CLUSTER(runner) void runner(struct agg_ctx *ctx, const char *id);
#define CHECK_PROTO_API(runner)	    void runner(struct agg_ctx *ctx, const char *id);
#define CHECK_PROTO_CANARY(runner)  /* aggregator/canary.h */
#include "checks.def"
#undef CHECK
#undef CHECK_PROTO_HOST
#undef CHECK_PROTO_CLUSTER
#undef CHECK_PROTO_API
#undef CHECK_PROTO_CANARY
