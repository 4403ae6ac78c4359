#include "catalog.h"

#include <errno.h>

/* Row checks the compiler can make: gates within G_ALL and not none; only
 * host checks go to the network. */
#define CHECK(id_, prog, runner_, gates_, net, stem_, needs, title_, summary_)                     \
	_Static_assert((gates_) != 0 && ((gates_) & ~G_ALL) == 0, id_ ": GATES");                  \
	_Static_assert(CHECK_##prog == CHECK_HOST || !CHECK_NET_##net,                             \
		       id_ ": only HOST is NETWORK");
#define CHECK_NET_NETWORK true
#define CHECK_NET_LOCAL	  false
#include "checks.def"
#undef CHECK

const struct check_info catalog[] = {
#define CHECK(id_, prog, runner_, gates_, net, stem_, needs, title_, summary_)                     \
	{                                                                                          \
	    .id = id_,                                                                             \
	    .source = CHECK_##prog,                                                                \
	    .gates = gates_,                                                                       \
	    .title = title_,                                                                       \
	    .summary = summary_,                                                                   \
	    .runner = #runner_,                                                                    \
	    .stem = stem_,                                                                         \
	    .doc = "checks/" id_ ".md",                                                            \
	    .network = CHECK_NET_##net,                                                            \
	},
#include "checks.def"
#undef CHECK
};
const size_t catalog_len = ELEMENTSOF(catalog);

const struct check_info *catalog_find(const char *id)
{
	for (size_t i = 0; i < catalog_len; i++)
		if (streq(catalog[i].id, id))
			return &catalog[i];
	return NULL;
}

const char *check_source_name(enum check_source s)
{
	switch (s) {
	case CHECK_HOST:
		return "host";
	case CHECK_CLUSTER:
		return "cluster";
	case CHECK_API:
		return "api";
	case CHECK_CANARY:
		return "canary";
	}
	return "invalid";
}

static const char *const gate_names[_GATE_MAX] = {
    [GATE_PREINSTALL] = "preinstall",
    [GATE_PLATFORM] = "platform",
    [GATE_RWX] = "rwx",
    [GATE_LIVE_MIGRATION] = "live-migration",
};

const char *gate_name(enum gate g)
{
	return (unsigned)g < _GATE_MAX ? gate_names[g] : "invalid";
}

int gate_from_name(const char *name)
{
	for (int i = 0; i < _GATE_MAX; i++)
		if (streq(gate_names[i], name))
			return i;
	return -EINVAL;
}
