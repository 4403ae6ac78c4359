/* Helm values (HelmChart spec.valuesContent) come from the cluster: any bytes. */
#include <stddef.h>
#include <stdint.h>

#include "helm_values.h"
#include "yaml_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *o = NULL;
	char err[256];
	if (size > 1 << 20)
		return 0;
	if (yaml_json_parse(data, size, &o, err, sizeof(err)) == 0) {
		/* read as helm_values_harvester keeps it: compact */
		struct jv_arena *ar = jv_arena_new();
		struct jv v = jv_from_json(ar, o);
		helm_values_get(&v,
				"kubevirt.spec.configuration.developerConfiguration.featureGates");
		helm_values_get(&v, "promote.clusterPodCIDR");
		jv_arena_free(ar);
		json_object_put(o);
	}
	return 0;
}
