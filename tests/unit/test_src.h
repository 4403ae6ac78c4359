/*
 * The source tree the unit tests read from (fixtures, fuzz corpora, the
 * checkers in tests/tools): $HVREADY_SRC, which ctest sets for every unit test
 * (CMakeLists.txt, set_tests_properties ENVIRONMENT). There is no fallback to
 * "." or "..": a test run outside ctest with it unset fails and says so,
 * instead of reading another tree or nothing.
 */
#pragma once
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "util.h"

/* $HVREADY_SRC; fails the test when it is unset or empty. */
static inline const char *test_src(void)
{
	const char *src = getenv("HVREADY_SRC");
	if (!src || !*src)
		fail_msg("HVREADY_SRC is not set: run the test through ctest, or set it to the "
			 "source tree");
	return src;
}

/* $HVREADY_SRC/rel (caller frees). */
static inline char *test_src_path(const char *rel)
{
	return xasprintf("%s/%s", test_src(), rel);
}
