/* serve's evaluation spacing (server_eval_due, aggregator/server_eval.c): the
 * gaps are counted from the end of the last evaluation, not from its start. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "server_internal.h"

#define S  NSEC_PER_SEC
#define MS NSEC_PER_MSEC

/* An evaluation slowed down by load: 6 s of wall time for 0.5 s of CPU.
 * Counted from its start, the next one was due at once when it ended (the
 * 5 s budget gap had passed); counted from its end it is due 5 s later. */
static void test_slow_evaluation_is_followed_by_the_gap(void **state)
{
	struct eval_clock c = {.start_ns = 100 * S, .end_ns = 106 * S, .cpu_ns = 500 * MS};
	assert_false(server_eval_due(&c, 106 * S + 250 * MS, true));
	assert_false(server_eval_due(&c, 110 * S, true));
	assert_false(server_eval_due(&c, 111 * S - 1, true));
	assert_true(server_eval_due(&c, 111 * S, true));
}

/* A cheap evaluation: at least EVAL_MIN_GAP_NS (1 s) idle after it, even
 * when it took longer than that to run. */
static void test_minimum_idle_gap(void **state)
{
	struct eval_clock c = {.start_ns = 10 * S, .end_ns = 12 * S, .cpu_ns = 1 * MS};
	assert_false(server_eval_due(&c, 12 * S, true));
	assert_false(server_eval_due(&c, 12 * S + 999 * MS, true));
	assert_true(server_eval_due(&c, 13 * S, true));
}

/* Nothing changed: re-evaluated 5 s after the end of the last (ages). */
static void test_refresh_without_changes(void **state)
{
	struct eval_clock c = {.start_ns = 10 * S, .end_ns = 14 * S, .cpu_ns = 1 * MS};
	assert_false(server_eval_due(&c, 15 * S, false));
	assert_false(server_eval_due(&c, 19 * S - 1, false));
	assert_true(server_eval_due(&c, 19 * S, false));
}

/* Before the first evaluation has ended: due (the first starts at once). */
static void test_first(void **state)
{
	struct eval_clock c = {0};
	assert_true(server_eval_due(&c, 1 * S, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slow_evaluation_is_followed_by_the_gap),
	    cmocka_unit_test(test_minimum_idle_gap),
	    cmocka_unit_test(test_refresh_without_changes),
	    cmocka_unit_test(test_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
