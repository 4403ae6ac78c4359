/* common/judge.h: the worst note decides, and no note is lost for the status
 * the judge was started at (a SKIP note gives SKIP even in a judge started at
 * PASS, as {0} starts it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "judge.h"

/* Apply j to a fresh finding and check status, message and remediation. */
static void expect(const struct judge *j, enum status st, const char *msg, const char *rem)
{
	struct finding_list l = {0};
	struct finding *f = finding_list_add(&l, "host.test");
	judge_apply(j, f, "nothing noted");
	assert_int_equal(f->status, st);
	assert_string_equal(f->message, msg);
	assert_string_equal(f->remediation, rem);
	finding_list_clear(&l);
}

/* Only SKIP notes: SKIP, whatever the judge was started at. */
static void test_skip_only(void **state)
{
	(void)state;
	struct judge j = {0};
	judge_note(&j, STATUS_SKIP, "no endpoint to probe");
	expect(&j, STATUS_SKIP, "no endpoint to probe", "");
	judge_clear(&j);

	j = (struct judge){.status = STATUS_PASS};
	judge_note(&j, STATUS_SKIP, "a");
	judge_note(&j, STATUS_SKIP, "b");
	expect(&j, STATUS_SKIP, "a; b", "");
	judge_clear(&j);

	j = (struct judge){.status = STATUS_SKIP};
	judge_note(&j, STATUS_SKIP, "c");
	expect(&j, STATUS_SKIP, "c", "");
	judge_clear(&j);

	/* After judge_clear the judge starts again: a SKIP note is not lost either. */
	judge_note(&j, STATUS_FAIL, "x");
	judge_clear(&j);
	judge_note(&j, STATUS_SKIP, "d");
	expect(&j, STATUS_SKIP, "d", "");
	judge_clear(&j);
}

/* SKIP ranks below every other status, in either order. */
static void test_skip_ranks_lowest(void **state)
{
	(void)state;
	struct judge j = {0};
	judge_note(&j, STATUS_SKIP, "not applicable");
	judge_note(&j, STATUS_PASS, "fine");
	expect(&j, STATUS_PASS, "fine", "");
	judge_clear(&j);

	judge_note(&j, STATUS_PASS, "fine");
	judge_note(&j, STATUS_SKIP, "not applicable");
	expect(&j, STATUS_PASS, "fine", "");
	judge_clear(&j);

	judge_note(&j, STATUS_SKIP, "not applicable");
	judge_note(&j, STATUS_WARN, "odd");
	judge_note(&j, STATUS_SKIP, "not applicable either");
	expect(&j, STATUS_WARN, "odd", "");
	judge_clear(&j);
}

/* The worst status decides; its notes are the message in order; remedies are
 * kept, once each, in order, whatever their note's status. */
static void test_worst_decides(void **state)
{
	(void)state;
	struct judge j = {0};
	judge_note(&j, STATUS_PASS, "p");
	judge_note(&j, STATUS_WARN, "w1");
	judge_remedy(&j, "fix w");
	judge_note(&j, STATUS_FAIL, "f1");
	judge_remedy(&j, "fix f");
	judge_note(&j, STATUS_UNKNOWN, "u");
	judge_note(&j, STATUS_FAIL, "f2");
	judge_remedy(&j, "fix w");
	expect(&j, STATUS_FAIL, "f1; f2", "fix w" REMEDY_STEP_SEP "fix f");
	judge_clear(&j);
}

/* Remedies are steps, each as given, joined by REMEDY_STEP_SEP (the renderers
 * number them); one remedy is one step, without a separator. */
static void test_remedies_are_steps(void **state)
{
	(void)state;
	struct judge j = {0};
	judge_note(&j, STATUS_WARN, "w");
	judge_remedy(&j, "let the restore finish");
	judge_remedy(&j, "Restart it.");
	judge_remedy(&j, "read the log: kubectl logs x");
	expect(&j, STATUS_WARN, "w",
	       "let the restore finish" REMEDY_STEP_SEP "Restart it." REMEDY_STEP_SEP
	       "read the log: kubectl logs x");
	judge_clear(&j);
	judge_remedy(&j, "only one");
	expect(&j, STATUS_PASS, "nothing noted", "only one");
	judge_clear(&j);
}

/* Nothing noted: the status the judge was started at, with empty_msg. */
static void test_nothing_noted(void **state)
{
	(void)state;
	struct judge j = {0};
	expect(&j, STATUS_PASS, "nothing noted", "");
	j = (struct judge){.status = STATUS_SKIP};
	judge_remedy(&j, "r");
	expect(&j, STATUS_SKIP, "nothing noted", "r");
	judge_clear(&j);
	expect(&j, STATUS_PASS, "nothing noted", "");
}

/* judge_decide applies and clears; with no finding (none was made) it only clears. */
static void test_decide(void **state)
{
	(void)state;
	struct finding_list l = {0};
	struct finding *f = finding_list_add(&l, "api.test");
	struct judge j = {0};
	judge_note(&j, STATUS_SKIP, "Longhorn is not installed");
	judge_remedy(&j, "install it");
	judge_decide(&j, f, "");
	assert_int_equal(f->status, STATUS_SKIP);
	assert_string_equal(f->message, "Longhorn is not installed");
	assert_string_equal(f->remediation, "install it");
	assert_false(j.noted);
	assert_int_equal(j.reasons.n, 0);
	assert_int_equal(j.remedies.n, 0);
	judge_note(&j, STATUS_FAIL, "x");
	judge_decide(&j, NULL, "");
	assert_false(j.noted);
	assert_int_equal(j.reasons.n, 0);
	finding_list_clear(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_skip_only),	  cmocka_unit_test(test_skip_ranks_lowest),
	    cmocka_unit_test(test_worst_decides), cmocka_unit_test(test_remedies_are_steps),
	    cmocka_unit_test(test_nothing_noted), cmocka_unit_test(test_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
