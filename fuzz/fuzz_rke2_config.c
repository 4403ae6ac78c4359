/* RKE2's config.yaml reader: a file merged twice (as config.yaml and a drop-in),
 * then the lookups the checks make. */
#include <stdint.h>
#include <stdlib.h>

#include "rke2_config.h"

#define FUZZ_MAX_INPUT (256u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rke2_config c = {0};
	char err[512];
	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (rke2_config_parse(&c, data, size, "config.yaml", err, sizeof(err)) == 0)
		(void)rke2_config_parse(&c, data, size, "config.yaml.d/50.yaml", err, sizeof(err));
	(void)rke2_config_bool(&c, "nonroot-devices");
	(void)rke2_config_bool(&c, "disable-default-registry-endpoint");
	(void)rke2_config_string(&c, "data-dir");
	(void)rke2_config_string(&c, "private-registry");
	for (size_t i = 0; i < c.n; i++)
		(void)rke2_config_bool(&c, c.items[i].key);
	rke2_config_clear(&c);
	return 0;
}
