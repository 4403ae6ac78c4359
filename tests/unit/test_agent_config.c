/* The agent's config file (agent/config.c): every key of systemd/agent.yaml
 * and docs/configuration.md lands in its option, values out of range and of
 * the wrong shape are refused naming the file and the key, and unknown keys
 * are ignored (a newer config on an older agent). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

static int parse(const char *yaml, struct agent_opts *o, char *err, size_t errlen)
{
	agent_opts_init(o);
	return config_parse((const uint8_t *)yaml, strlen(yaml), "agent.yaml", o, err, errlen);
}

static void test_every_key(void **state)
{
	static const char yaml[] = "aggregator: https://10.0.0.10:9443\n"
				   "ca_file: /etc/hvready/ca.crt\n"
				   "token_file: /etc/hvready/token\n"
				   "node: node-1\n"
				   "host_root: /host\n"
				   "probe_targets: /etc/hvready/targets.json\n"
				   "probe_netns: /proc/1/ns/net\n"
				   "interval: 45\n"
				   "timeout: 7\n"
				   "skip: [host.iscsi, host.multipathd]\n"
				   "only: host.kvm,host.clock\n"
				   "future_key: {nested: true}\n"
				   "thresholds:\n"
				   "  clock_maxerror_warn_ms: 500\n"
				   "  min_cpu_cores: 4\n"
				   "  min_memory_gib: 16\n"
				   "  longhorn_min_available_percent: 10\n"
				   "  future_threshold: 1\n";
	struct agent_opts o;
	char err[256] = "";
	assert_int_equal(parse(yaml, &o, err, sizeof(err)), 0);
	assert_string_equal(o.aggregator_url, "https://10.0.0.10:9443");
	assert_string_equal(o.ca_file, "/etc/hvready/ca.crt");
	assert_string_equal(o.token_file, "/etc/hvready/token");
	assert_string_equal(o.node, "node-1");
	assert_string_equal(o.host_root, "/host");
	assert_string_equal(o.probe_targets_file, "/etc/hvready/targets.json");
	assert_string_equal(o.probe_netns, "/proc/1/ns/net");
	assert_int_equal(o.interval_s, 45);
	assert_int_equal(o.timeout_s, 7);
	assert_int_equal(o.skip.n, 2);
	assert_string_equal(o.skip.items[1], "host.multipathd");
	assert_int_equal(o.only.n, 2);
	assert_string_equal(o.only.items[1], "host.clock");
	assert_int_equal(o.thr.clock_maxerror_warn_us, 500000);
	assert_int_equal(o.thr.min_cpu_cores, 4);
	assert_int_equal(o.thr.min_memory_bytes, INT64_C(16) << 30);
	assert_int_equal(o.thr.longhorn_min_available_pct, 10);
	agent_opts_clear(&o);
}

static void test_empty_is_defaults(void **state)
{
	struct agent_opts o;
	char err[256] = "";
	assert_int_equal(parse("", &o, err, sizeof(err)), 0);
	assert_int_equal(o.interval_s, 30);
	assert_int_equal(o.timeout_s, 10);
	assert_null(o.probe_netns);
	agent_opts_clear(&o);
}

static void test_refused(void **state)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
	    {"interval: 0\n", "interval"},
	    {"timeout: 601\n", "timeout"},
	    {"timeout: ten\n", "timeout"},
	    {"skip: {a: b}\n", "skip"},
	    {"thresholds: 3\n", "thresholds"},
	    {"thresholds: {min_cpu_cores: -1}\n", "min_cpu_cores"},
	    {"- a\n- b\n", "mapping"},
	    {"aggregator: [\n", "agent.yaml"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct agent_opts o;
		char err[256] = "";
		if (parse(cases[i].yaml, &o, err, sizeof(err)) == 0)
			fail_msg("accepted: %s", cases[i].yaml);
		if (!strstr(err, "agent.yaml") || !strstr(err, cases[i].want))
			fail_msg("%s: the error does not name the file and %s: %s", cases[i].yaml,
				 cases[i].want, err);
		assert_null(strchr(err, '\n'));
		agent_opts_clear(&o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_key),
	    cmocka_unit_test(test_empty_is_defaults),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
