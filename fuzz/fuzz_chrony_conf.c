/* chronyd's configuration as host.clock reads it for rtcsync, include and confdir. */
#include <stdint.h>
#include <stdlib.h>

#include "timesync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	size_t line;
	struct strv includes = {0}, confdirs = {0};
	timesync_chrony_parse(data, size, &line, &includes, &confdirs);
	strv_clear(&includes);
	strv_clear(&confdirs);
	return 0;
}
