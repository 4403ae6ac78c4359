/* The files backend's readers on arbitrary bytes: kubectl get -o json
 * output (objects, Lists, streams of them) and collect.json. */
#include <stddef.h>
#include <stdint.h>

#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (4u << 20))
		return 0;
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN];
	cluster_state_init(&cs);
	source_files_parse(&cs, data, size, "fuzz.json", NULL, err, sizeof(err));
	source_files_parse_collect(&cs, data, size, "collect.json", err, sizeof(err));
	cluster_state_clear(&cs);
	return 0;
}
