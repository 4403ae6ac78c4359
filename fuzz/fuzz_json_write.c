/* The verdict's JSON writer (aggregator/json_write.c) on values made of
 * arbitrary bytes, differential: compact and pretty, it must print what
 * json-c prints for the same value (fuzz/json_write_oracle.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_write_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 16))
		return 0;
	const char *why = jw_oracle(data, size);
	if (why) {
		fprintf(stderr, "json_write: %s\n", why);
		abort();
	}
	return 0;
}
