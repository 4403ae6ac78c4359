/*
 * The tests' oracle for the JSON the aggregator streams
 * (aggregator/verdict_stream.c and the *_write functions beside it): the same
 * document built as json-c trees, byte for byte what json-c prints for them in
 * compact form. Only the tests link it (tests/unit/verdict_oracle.c, the
 * hvoracle library in CMakeLists.txt): the product streams.
 */
#pragma once
#include <json-c/json.h>

#include "cluster_versions.h"
#include "report_header.h"
#include "verdict.h"

/* The "header" object (report_header_write). */
json_object *report_header_json(const struct report_header *h);
/* The "versions" object (cluster_versions_write). */
json_object *cluster_versions_json(const struct cluster_versions *v);
/* The "waiver" member of finding i, or NULL when it is not waived
 * (verdict_waiver_write). */
json_object *verdict_waiver_json(const struct verdict *v, size_t i);
/* Finding i as the report shows it, with its "waiver". */
json_object *verdict_finding_json(const struct verdict *v, size_t i);
/* The members before "gates" (verdict_head_members_write), one node
 * (verdict_node_write), one VM (verdict_vm_write). */
json_object *verdict_head_json(const struct verdict *v);
json_object *verdict_node_json(const struct verdict_node *n);
json_object *verdict_vm_json(const struct vm_row *r);
/* The "groups" array (verdict_groups_write). */
json_object *verdict_groups_json(const struct verdict *v);
/* The whole verdict as one tree (verdict_stream_json). */
json_object *verdict_to_json(const struct verdict *v);
