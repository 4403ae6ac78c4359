/* The files backend's readers on arbitrary bytes: kubectl get -o json
 * output (objects, Lists, streams of them) and collect.json; then the
 * Harvester chart's values from what was read (HelmChart spec.set and
 * valuesContent are parsed by hand, as helm-controller and helm read them). */
#include <stddef.h>
#include <stdint.h>

#include "helm_values.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (4u << 20))
		return 0;
	struct cluster_state cs;
	char err[SOURCE_ERR_LEN];
	cluster_state_init(&cs);
	struct helm_values hv;
	source_files_parse(&cs, data, size, "fuzz.json", NULL, err, sizeof(err));
	helm_values_harvester(&cs, &hv);
	helm_values_clear(&hv);
	source_files_parse_collect(&cs, data, size, "collect.json", err, sizeof(err));
	cluster_state_clear(&cs);
	return 0;
}
