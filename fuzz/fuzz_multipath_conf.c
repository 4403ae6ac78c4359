/* The multipath.conf parser and its Longhorn coverage rules (host.multipathd). */
#include <stdint.h>
#include <stdlib.h>

#include "multipath_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	struct multipath_conf c = {0};
	multipath_conf_parse(data, size, "/fuzz.conf", &c);
	struct multipath_conf_cover cov;
	multipath_conf_covers_longhorn(&c, &cov);
	for (size_t i = 0; i < c.n; i++)
		free(multipath_conf_entry_str(&c.items[i]));
	multipath_conf_cover_clear(&cov);
	multipath_conf_clear(&c);
	return 0;
}
