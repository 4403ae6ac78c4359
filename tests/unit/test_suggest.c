/* "Did you mean": typos of check IDs, gates and config keys find the word
 * meant, unrelated words find nothing, and unknown keys in the agent's config
 * and a probe-targets file are reported rather than silently ignored. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "catalog.h"
#include "probe_targets.h"
#include "suggest.h"
#include "test_src.h"

static const char *const keys[] = {"interval",	    "timeout", "thresholds",
				   "min_cpu_cores", "node",    NULL};

static void test_closest(void **state)
{
	assert_string_equal(suggest_closest("intervall", keys, SIZE_MAX), "interval");
	assert_string_equal(suggest_closest("timout", keys, SIZE_MAX), "timeout");
	assert_string_equal(suggest_closest("tresholds", keys, SIZE_MAX), "thresholds");
	assert_string_equal(suggest_closest("Interval", keys, SIZE_MAX), "interval");
	assert_string_equal(suggest_closest("ndoe", keys, SIZE_MAX), "node"); /* transposition */
	assert_null(suggest_closest("color", keys, SIZE_MAX));
	assert_null(suggest_closest("", keys, SIZE_MAX));
	assert_null(suggest_closest("x", keys, 0));
	/* Short words allow one edit only: "nod" is node, "no" is nothing. */
	assert_string_equal(suggest_closest("nod", keys, SIZE_MAX), "node");
	assert_null(suggest_closest("no", keys, SIZE_MAX));
	char long_word[200];
	memset(long_word, 'a', sizeof(long_word) - 1);
	long_word[sizeof(long_word) - 1] = 0;
	assert_null(suggest_closest(long_word, keys, SIZE_MAX));

	const char *ids[64];
	size_t n = 0;
	for (size_t i = 0; i < catalog_len && n < 64; i++)
		ids[n++] = catalog[i].id;
	assert_string_equal(suggest_closest("host.iscssi", ids, n), "host.iscsi");
	assert_string_equal(suggest_closest("host.nfs.kernal", ids, n), "host.nfs.kernel");
	assert_string_equal(suggest_closest("api.vsc.backuptarget", ids, n),
			    "api.vsc.backup-target");
	char buf[128], q[8];
	assert_string_equal(suggest_hint("timout", keys, SIZE_MAX, buf, sizeof(buf)),
			    " (did you mean \"timeout\"?)");
	assert_string_equal(suggest_hint("zzz", keys, SIZE_MAX, buf, sizeof(buf)), "");
	assert_string_equal(suggest_quote("a\nb\x1b"
					  "cdefgh",
					  q, sizeof(q)),
			    "a?b?cde");
}

static void test_probe_targets_keys(void **state)
{
	const char *js = "{\"nfs_endpoint\": [\"nfs://10.0.0.1/x\"], \"share_manager_image\": "
			 "\"longhornio/longhorn-share-manager:v1.11.2\", \"later\": 1}";
	struct probe_targets t = {0};
	struct strv unknown = {0};
	char err[256];
	assert_int_equal(probe_targets_parse_keys((const uint8_t *)js, strlen(js), &t, &unknown,
						  err, sizeof(err)),
			 0);
	assert_int_equal(unknown.n, 2);
	assert_string_equal(unknown.items[0], "nfs_endpoint");
	assert_string_equal(unknown.items[1], "later");
	assert_int_equal(t.nfs_endpoints.n, 0); /* the typo did not fill the real key */
	assert_string_equal(suggest_closest(unknown.items[0], probe_targets_known_keys, SIZE_MAX),
			    "nfs_endpoints");
	strv_clear(&unknown);
	probe_targets_clear(&t);
}

/* The agent binary warns about an unknown key in its config, and still runs. */
static void test_agent_config_warns(void **state)
{
	const char *bin = getenv("HVREADY_BIN"), *src = test_src();
	if (!bin)
		fail_msg("HVREADY_BIN must be set (ctest sets it)");
	char cfg[] = "/tmp/hvready-suggest-XXXXXX";
	int fd = mkstemp(cfg);
	assert_true(fd >= 0);
	const char *yaml = "intervall: 30\nthresholds:\n  min_cpu_core: 4\ntimeout: 5\n";
	assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
	close(fd);
	char *cmd;
	assert_true(asprintf(&cmd,
			     "%s/hvready-agent check --config %s --host-root "
			     "%s/tests/fixtures/hostroots/c-empty --only host.kvm 2>&1 >/dev/null",
			     bin, cfg, src) > 0);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char out[4096] = "";
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	int rc = pclose(p);
	unlink(cfg);
	free(cmd);
	assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) != 2); /* the config loaded */
	assert_non_null(
	    strstr(out, "unknown key \"intervall\" ignored (did you mean \"interval\"?)"));
	assert_non_null(strstr(out, "unknown key \"thresholds.min_cpu_core\" ignored (did you mean "
				    "\"min_cpu_cores\"?)"));
	assert_null(strstr(out, "\"timeout\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_closest),
	    cmocka_unit_test(test_probe_targets_keys),
	    cmocka_unit_test(test_agent_config_warns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
