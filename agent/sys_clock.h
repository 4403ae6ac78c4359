/*
 * Seam: the kernel clock's discipline state. adjtimex(2) cannot be redirected
 * by a host root, so it sits alone in this translation unit and unit tests
 * replace it with `// wrap: sys_clock_adjtimex`.
 */
#pragma once
#include <sys/timex.h>

/* adjtimex() with modes = 0: read only, changes nothing. Returns the clock
 * state (TIME_OK … TIME_ERROR) with *tx filled, or -errno. */
int sys_clock_adjtimex(struct timex *tx);
