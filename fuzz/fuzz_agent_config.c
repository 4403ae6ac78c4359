/*
 * The agent's YAML config parser (config_parse, --config FILE) on arbitrary
 * bytes. Beyond "no crash, no leak": a rejection names the file and says why
 * on one line, and values that were accepted are within their documented
 * ranges.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_opts o;
	char err[512] = "";
	agent_opts_init(&o);
	if (config_parse(data, size, "agent.yaml", &o, err, sizeof(err)) < 0) {
		CHECK(strncmp(err, "agent.yaml", strlen("agent.yaml")) == 0);
		CHECK(!strchr(err, '\n'));
	} else {
		CHECK(o.timeout_s >= 1 && o.timeout_s <= 600);
		CHECK(o.interval_s >= 1 && o.interval_s <= 86400);
		CHECK(o.thr.longhorn_min_available_pct >= 0 &&
		      o.thr.longhorn_min_available_pct <= 100);
		CHECK(o.thr.min_cpu_cores >= 1);
		CHECK(o.host_root);
	}
	agent_opts_clear(&o);
	return 0;
}
