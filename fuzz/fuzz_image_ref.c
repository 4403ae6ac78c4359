/* Image references (the share-manager image comes from the aggregator or a file). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image_ref r;
	char err[512];
	if (size > 4096)
		return 0;
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (image_ref_parse(s, &r, err, sizeof(err)) == 0) {
		free(image_ref_string(&r));
		image_ref_clear(&r);
	}
	free(s);
	return 0;
}
