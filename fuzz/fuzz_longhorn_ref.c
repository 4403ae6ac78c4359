/* The Longhorn reference, version and setting-value parsers (aggregator/longhorn.c):
 * every byte string from a cluster must parse or be rejected, never crash. */
#include <stddef.h>
#include <stdint.h>

#include "longhorn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct longhorn_ref r;
	struct longhorn_version v;
	int64_t n;
	if (size > 8192)
		return 0;
	if (longhorn_ref_parse(data, size, &r) == 0 &&
	    (r.volume[LONGHORN_NAME_MAX - 1] != '\0' || r.name[LONGHORN_NAME_MAX - 1] != '\0'))
		__builtin_trap();
	longhorn_version_parse(data, size, &v);
	longhorn_int_value_parse(data, size, &n);
	return 0;
}
