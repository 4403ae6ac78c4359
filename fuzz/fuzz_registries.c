/* registries.yaml: parsing, the endpoint plans for a few registries, the mirror
 * rewrites of the share-manager repository, and WWW-Authenticate parsing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oci_client.h"
#include "registries.h"

#define FUZZ_MAX_INPUT (256u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const regs[] = {"docker.io", "quay.io", "127.0.0.1:5000",
					   "registry.example.com"};
	struct registries r;
	char err[512];
	if (size > FUZZ_MAX_INPUT)
		return 0;
	/* The same bytes as a challenge header (NUL-terminated copy). */
	char *hdr = malloc(size + 1);
	if (!hdr)
		return 0;
	memcpy(hdr, data, size);
	hdr[size] = '\0';
	struct oci_challenge ch;
	if (oci_parse_challenge(hdr, &ch) == 0)
		oci_challenge_clear(&ch);
	free(hdr);

	if (registries_parse(data, size, "registries.yaml", &r, err, sizeof(err)) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		for (int nd = 0; nd < 2; nd++) {
			struct registry_plan p;
			if (registries_plan(&r, regs[i], nd, NULL, &p) < 0)
				continue;
			for (size_t e = 0; e < p.n; e++) {
				const char *rule, *why;
				free(registries_rewrite(p.eps[e].mirror,
							"longhornio/longhorn-share-manager", &rule,
							&why));
			}
			registry_plan_clear(&p);
		}
	}
	registries_clear(&r);
	return 0;
}
