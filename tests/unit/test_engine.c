/* The engine: needs that were not collected make a check UNKNOWN; preinstall after install is SKIP. */
#include "agg_harness.h"

static void test_not_collected_is_unknown(void **state)
{
	struct harness h;
	harness_init(&h);
	cs_set_status(&h.cs, RES_STORAGECLASSES, RES_NOT_COLLECTED, "no file");
	harness_run(&h, "api.storageclass.default");
	assert_int_equal(harness_status(&h, "api.storageclass.default"), STATUS_UNKNOWN);
	const struct finding *f = harness_finding(&h, "api.storageclass.default", NULL);
	assert_non_null(strstr(f->message, "storageclasses.storage.k8s.io not collected"));
	harness_clear(&h);

	harness_init(&h);
	cs_set_status(&h.cs, RES_PODS, RES_FORBIDDEN, "403 Forbidden");
	harness_run(&h, "api.pods.restarts");
	f = harness_finding(&h, "api.pods.restarts", NULL);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->remediation, "get/list on pods"));
	harness_clear(&h);
}

static void test_preinstall_skip_after_install(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_add(&h, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":"
			"{\"name\":\"harvester\",\"namespace\":\"harvester-system\"}}");
	assert_true(engine_harvester_installed(&h.cs));
	harness_run(&h, "api.preinstall.conflicts");
	assert_int_equal(harness_status(&h, "api.preinstall.conflicts"), STATUS_SKIP);
	harness_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_not_collected_is_unknown),
	    cmocka_unit_test(test_preinstall_skip_after_install),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
