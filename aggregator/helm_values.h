/*
 * The Harvester chart's values as RKE2/k3s's helm-controller would pass them:
 * a HelmChart (helm.cattle.io/v1) for the harvester chart, its
 * spec.valuesContent, the HelmChartConfig of the same name and namespace
 * (its valuesContent comes after), and spec.set (--set, highest precedence).
 * A release installed with the helm CLI keeps its values in a Secret, which
 * hvready does not read; then nothing is found and callers say so.
 */
#pragma once
#include "cluster_state.h"

struct helm_values {
	bool found;		 /* a HelmChart for the harvester chart exists */
	const struct jv *values; /* merged values (in arena), NULL when none */
	struct jv_arena *arena;
	char *source;	    /* "HelmChart kube-system/harvester + HelmChartConfig …" */
	struct strv errors; /* unparsable valuesContent, one line each */
};

/* Never fails: a missing or unreadable chart is recorded in ret. */
void helm_values_harvester(const struct cluster_state *cs, struct helm_values *ret);
void helm_values_clear(struct helm_values *v);
/* The value at a dotted path ("promote.clusterDNS"), or NULL. */
const struct jv *helm_values_get(const struct jv *values, const char *dotted);
/* Apply one --set style assignment ("a.b.c", "x" or "{x,y}") to values. */
void helm_values_set(json_object *values, const char *dotted, json_object *value);
