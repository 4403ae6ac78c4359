/* nfs_probe_url_parse() on arbitrary bytes: endpoint URLs come from the API and from operators. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nfs_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfs_probe_url u;
	char err[256], vol[300];
	if (nfs_probe_url_parse(data, size, &u, err, sizeof(err)) == 0) {
		/* What was accepted is well formed. */
		if (u.export_path[0] != '/' || strlen(u.host) == 0 || u.port == 0)
			abort();
		(void)nfs_probe_url_volume(&u, vol, sizeof(vol));
	} else if (memchr(err, '\0', sizeof(err)) == NULL || strchr(err, '\n')) {
		abort();
	}
	return 0;
}
