/* kubeconfig parsing (libyaml, base64, PEM checks) on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

#include "kubeconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	static const char *const contexts[] = {NULL, "default", "admin@rke2"};
	for (size_t i = 0; i < sizeof(contexts) / sizeof(contexts[0]); i++) {
		struct kubeconfig kc;
		char err[512];
		if (kubeconfig_parse(data, size, "fuzz.yaml", "/fuzz", contexts[i], &kc, err,
				     sizeof(err)) == 0)
			kubeconfig_clear(&kc);
	}
	return 0;
}
