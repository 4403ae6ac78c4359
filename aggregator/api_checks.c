#include "checks_api.h"

/* The CLUSTER and API rows of common/checks.def, in its order. The resources
 * each check needs: a need that was not collected makes the check UNKNOWN
 * before it runs (engine.c). NEEDS() expands to a braced list, so the row
 * macros take it as their variadic tail (its commas are not protected). A
 * list longer than CHECK_MAX_NEEDS - 1 is an "excess elements" diagnostic. */
/* clang-format off */
#define NEEDS(...) {__VA_ARGS__, RES_NONE}
#define NO_NEEDS   {RES_NONE}
/* clang-format on */
const struct api_check api_checks[] = {
#define CHECK(id, prog, runner, gates, net, stem, needs, ...) CHECK_ROW_##prog(id, runner, needs)
#define CHECK_ROW_HOST(...)
#define CHECK_ROW_CLUSTER(id, runner, ...) {id, runner, __VA_ARGS__},
#define CHECK_ROW_API(id, runner, ...)	   {id, runner, __VA_ARGS__},
#define CHECK_ROW_CANARY(id, runner, ...)  /* the canary's table: aggregator/canary.c */
#include "checks.def"
#undef CHECK
};
const size_t api_checks_len = ELEMENTSOF(api_checks);
