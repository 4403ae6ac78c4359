/* The cluster state's fast JSON reader (aggregator/json_fast.c) on arbitrary
 * bytes, differential: where it decides a value, json_tokener must read the
 * same value from the same bytes (fuzz/json_fast_oracle.h); where it asks
 * for more bytes, json_tokener must not have decided either. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_fast_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	enum jf_result r;
	const char *why = jf_oracle((const char *)data, size, &r);
	if (why) {
		fprintf(stderr, "json_fast: %s\n", why);
		abort();
	}
	return 0;
}
