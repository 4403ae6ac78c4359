/* The canary's option parsers and its step table (aggregator/canary.c, docs/canary.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "canary.h"

static void test_duration(void **state)
{
	int64_t ms = 0;
	assert_int_equal(canary_parse_duration("90", &ms), 0);
	assert_int_equal(ms, 90000);
	assert_int_equal(canary_parse_duration("45s", &ms), 0);
	assert_int_equal(ms, 45000);
	assert_int_equal(canary_parse_duration("5m", &ms), 0);
	assert_int_equal(ms, 300000);
	assert_int_equal(canary_parse_duration("24h", &ms), 0);
	assert_int_equal(ms, 86400000);
	assert_int_equal(canary_parse_duration("25h", &ms), -ERANGE);
	assert_int_equal(canary_parse_duration("99999999999999999999", &ms), -EINVAL);
	assert_int_equal(canary_parse_duration("0", &ms), -EINVAL);
	assert_int_equal(canary_parse_duration("-5s", &ms), -EINVAL);
	assert_int_equal(canary_parse_duration("5 m", &ms), -EINVAL);
	assert_int_equal(canary_parse_duration("5ms", &ms), -EINVAL);
	assert_int_equal(canary_parse_duration("", &ms), -EINVAL);
	assert_int_equal(canary_parse_duration("m", &ms), -EINVAL);
}

static size_t index_of(const char *id)
{
	for (size_t i = 0; i < canary_checks_len; i++)
		if (streq(canary_checks[i].id, id))
			return i;
	fail_msg("%s not in canary_checks", id);
	return 0;
}

static void test_steps(void **state)
{
	char err[256];
	unsigned steps = 0;
	assert_int_equal(canary_parse_steps("rwx", &steps, err, sizeof(err)), 0);
	assert_int_equal(steps, 1u << index_of("canary.rwx"));
	assert_int_equal(canary_parse_steps("rwx,rwx", &steps, err, sizeof(err)), 0);
	assert_int_equal(steps, 1u << index_of("canary.rwx"));
	/* the VM steps; "vm" names canary.vm.start (the first word of its ID) */
	assert_int_equal(canary_parse_steps("vm,migrate", &steps, err, sizeof(err)), 0);
	assert_int_equal(steps,
			 (1u << index_of("canary.vm.start")) | (1u << index_of("canary.migrate")));
	assert_int_equal(canary_parse_steps("vm.start", &steps, err, sizeof(err)), 0);
	assert_int_equal(steps, 1u << index_of("canary.vm.start"));
	/* a prefix that is not a word of the ID is no step */
	assert_int_equal(canary_parse_steps("v", &steps, err, sizeof(err)), -EINVAL);
	assert_int_equal(canary_parse_steps("migr", &steps, err, sizeof(err)), -EINVAL);
	/* the snapshot steps */
	assert_int_equal(canary_parse_steps("vm,snapshot,restore", &steps, err, sizeof(err)), 0);
	assert_int_equal(steps, (1u << index_of("canary.vm.start")) |
				    (1u << index_of("canary.snapshot")) |
				    (1u << index_of("canary.restore")));
	/* an unknown step is refused, with the steps there are */
	assert_int_equal(canary_parse_steps("rwx,nfs", &steps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ": rwx, vm.start, migrate, snapshot, restore"));
	/* cleanup is not a step, nor is a full ID or an unknown name */
	assert_int_equal(canary_parse_steps("cleanup", &steps, err, sizeof(err)), -EINVAL);
	assert_int_equal(canary_parse_steps("canary.rwx", &steps, err, sizeof(err)), -EINVAL);
	assert_int_equal(canary_parse_steps("nfs", &steps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "\"nfs\" is not a step: rwx"));
	assert_int_equal(canary_parse_steps(",", &steps, err, sizeof(err)), -EINVAL);
}

/* The registry's CANARY rows, in its order, cleanup last; at most 32 (a bit each). */
static void test_table(void **state)
{
	static const char *const want[] = {"canary.rwx",      "canary.vm.start", "canary.migrate",
					   "canary.snapshot", "canary.restore",	 "canary.cleanup"};
	assert_int_equal(canary_checks_len, ELEMENTSOF(want));
	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		assert_string_equal(canary_checks[i].id, want[i]);
		assert_non_null(canary_checks[i].run);
	}
	assert_ptr_equal(canary_checks[0].run, canary_step_rwx);
	assert_ptr_equal(canary_checks[5].run, canary_step_cleanup);
	assert_true(canary_checks_len <= 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_duration),
	    cmocka_unit_test(test_steps),
	    cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
