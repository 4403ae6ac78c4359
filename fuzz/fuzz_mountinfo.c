/* The host's mount table parser (host.longhorn.path). */
#include <stdint.h>
#include <stdlib.h>

#include "mountinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	struct mountinfo mi;
	size_t bad = 0;
	if (mountinfo_parse(data, size, &mi, &bad) == 0) {
		mountinfo_find(&mi, "/var/lib/longhorn");
		mountinfo_clear(&mi);
	}
	return 0;
}
