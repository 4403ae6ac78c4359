/*
 * YAML (Helm values: HelmChart/HelmChartConfig spec.valuesContent; waivers) to a
 * json-c tree, so that values are read with the same jq helpers as API objects.
 * YAML_JSON_CORE: plain scalars become null, booleans and integers as YAML 1.2's
 * core schema reads them; everything else is a string. YAML_JSON_HELM: as Helm
 * reads values (yaml_json_v2.c: yaml.v2's YAML 1.1 resolution, then JSON; merge
 * keys "<<" applied as yaml.v2 does). An alias is a copy of its anchor's
 * node, so the result is always a tree; merge keys are not interpreted. The
 * result is bounded in depth and in nodes (aliases included).
 */
#pragma once
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#define YAML_JSON_MAX_DEPTH 64
#define YAML_JSON_MAX_NODES 200000

enum yaml_json_schema {
	YAML_JSON_CORE,
	YAML_JSON_HELM,
};

/* Parse the first document of buf. Returns 0 with *ret (owned; a null
 * document gives NULL), or -EINVAL with a one-line reason in err. */
int yaml_json_parse(const uint8_t *buf, size_t len, json_object **ret, char *err, size_t errlen);
int yaml_json_parse_schema(const uint8_t *buf, size_t len, enum yaml_json_schema schema,
			   json_object **ret, char *err, size_t errlen);

/*
 * One plain (unquoted, untagged) scalar as Helm reads a values file: helm/helm
 * pkg/chartutil/values.go ReadValues → sigs.k8s.io/yaml Unmarshal (v1.4.0 at
 * helm v3.16.4, v1.6.0 at v3.19.5) → yaml.v2's resolve() (sigs.k8s.io/yaml
 * goyaml.v2/resolve.go; go.yaml.in/yaml/v2 v2.4.2), converted to JSON and back.
 * Sets *ret (NULL for null) and returns 0, or -EINVAL when Helm fails on it
 * (.nan/.inf cannot be converted to JSON) with the reason in err.
 * As a mapping key the result is its JSON key text (yaml_json_v2_key).
 */
int yaml_json_v2_scalar(const char *v, json_object **ret, char *err, size_t errlen);
/* The key text sigs.k8s.io/yaml's yamlToJSON gives a plain mapping key
 * (true/false/null/decimal integers); caller frees. */
char *yaml_json_v2_key(const char *v);
