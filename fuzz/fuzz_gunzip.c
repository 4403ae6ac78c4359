/* The whole-buffer gzip inflate of a kernel config (modules_gunzip: host.nfs.kernel,
 * host.iscsi): any bytes give a NUL-terminated text of at most the limit, or an error. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	const size_t max = 1u << 20;
	char *out = NULL;
	size_t n = 0, rest = 0;
	if (modules_gunzip((const char *)data, size, max, &out, &n, &rest) == 0) {
		CHECK(n <= max && out[n] == '\0' && rest <= size);
		free(out);
	}
	return 0;
}
