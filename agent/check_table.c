#include "checks.h"
#include "helper.h"

/* Generated from common/checks.def, in its order (the run order). */
const struct host_check host_checks[] = {
#define CHECK(id, prog, runner, ...) CHECK_ROW_##prog(id, runner)
#define CHECK_ROW_HOST(id, runner)   {id, runner},
#define CHECK_ROW_CLUSTER(id, runner)
#define CHECK_ROW_API(id, runner)
#define CHECK_ROW_CANARY(id, runner)
#include "checks.def"
#undef CHECK
};
const size_t host_checks_len = ELEMENTSOF(host_checks);

/* The NETWORK rows, in the same order. */
const char *const helper_network_checks[] = {
#define CHECK(id, prog, runner, gates, net, ...) CHECK_NET_##net(id)
#define CHECK_NET_NETWORK(id)			 id,
#define CHECK_NET_LOCAL(id)
#include "checks.def"
#undef CHECK
};
const size_t helper_network_checks_len = ELEMENTSOF(helper_network_checks);
