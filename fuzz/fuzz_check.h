/*
 * The fuzz targets' oracle: a property that does not hold aborts, so that
 * libFuzzer (and the corpus replay test) stops on this input and keeps it,
 * with the condition and where it was checked on stderr. assert() would not
 * do: release builds define NDEBUG.
 */
#ifndef HVREADY_FUZZ_CHECK_H
#define HVREADY_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
