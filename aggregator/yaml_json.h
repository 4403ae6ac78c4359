/*
 * YAML (Helm values: HelmChart/HelmChartConfig spec.valuesContent) to a json-c
 * tree, so that values are read with the same jq helpers as API objects.
 * Plain scalars become null, booleans and integers as YAML 1.2's core schema
 * reads them; everything else is a string. An alias is a copy of its anchor's
 * node, so the result is always a tree; merge keys are not interpreted. The
 * result is bounded in depth and in nodes (aliases included).
 */
#pragma once
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#define YAML_JSON_MAX_DEPTH 64
#define YAML_JSON_MAX_NODES 200000

/* Parse the first document of buf. Returns 0 with *ret (owned; a null
 * document gives NULL), or -EINVAL with a one-line reason in err. */
int yaml_json_parse(const uint8_t *buf, size_t len, json_object **ret, char *err, size_t errlen);
