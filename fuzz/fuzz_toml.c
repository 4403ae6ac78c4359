/* The TOML reader and containerd's view of a config (the option lookups and the
 * search for misplaced settings that host.containerd.device-ownership runs). */
#include <stdint.h>
#include <stdlib.h>

#include "containerd_config.h"

#define FUZZ_MAX_INPUT (256u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct containerd_config c;
	struct containerd_setting s;
	struct strv found = {0};
	char err[512];
	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (containerd_config_parse(data, size, "fuzz.toml", &c, err, sizeof(err)) < 0)
		return 0;
	containerd_config_plugin_key(&c, containerd_cri_runtime_plugin(c.version),
				     "device_ownership_from_security_context", &s);
	containerd_config_plugin_key(&c, "io.containerd.grpc.v1.cri", "registry", &s);
	containerd_config_find_key(&c, "device_ownership_from_security_context", &found, 16);
	strv_clear(&found);
	containerd_config_find_ignored(&c, containerd_cri_runtime_plugin(c.version),
				       "device_ownership_from_security_context", &found, 16);
	(void)toml_lookup(c.files[0].root, "plugins", "io.containerd.cri.v1.images", "registry",
			  "config_path", NULL);
	strv_clear(&found);
	containerd_config_clear(&c);
	return 0;
}
