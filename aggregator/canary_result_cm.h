/*
 * The in-cluster route of a canary's result (docs/canary.md#in-the-cluster-a-configmap):
 * `canary --result-configmap NAME` writes the run's JSON result (what
 * `--format json` prints) into the ConfigMap NAME of the canary's namespace,
 * key result.json; `report` and `serve --canary-result configmap:NS/NAME`
 * read it back through the API with the client they collect with.
 *
 * The ConfigMap carries labels of its own (component canary-result,
 * managed-by hvready-canary-result), never the canary's run labels: the
 * cleanup (which selects managed-by=hvready-canary) never deletes it, and the
 * canary never overwrites a ConfigMap of that name that lacks them.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "canary_result.h"

struct kube_client;

#define CANARY_RESULT_CM_SCHEME		  "configmap:"
#define CANARY_RESULT_CM_KEY		  "result.json"
#define CANARY_RESULT_CM_LABEL_COMPONENT  "app.kubernetes.io/component"
#define CANARY_RESULT_CM_COMPONENT	  "canary-result"
#define CANARY_RESULT_CM_LABEL_MANAGED_BY "app.kubernetes.io/managed-by"
#define CANARY_RESULT_CM_MANAGED_BY	  "hvready-canary-result"
/* A ConfigMap's data (keys and values together) holds at most 1 MiB:
 * kubernetes/kubernetes pkg/apis/core/validation/validation.go,
 * ValidateConfigMap (totalSize against MaxConfigMapSize, 1 * 1024 * 1024 in
 * pkg/apis/core/types.go). */
#define CANARY_RESULT_CM_MAX_BYTES ((size_t)1 << 20)
/* Writes that lose a race (409) are retried after a new GET this often. */
#define CANARY_RESULT_CM_ATTEMPTS 5

/* A ConfigMap's name (a DNS subdomain: lowercase letters, digits, '-', '.',
 * at most 253, starting and ending alphanumeric). */
bool canary_result_cm_valid_name(const char *name);

/* "configmap:NS/NAME": true and ns/name filled when arg starts with the
 * scheme and both parts are valid; false with err otherwise. A plain path
 * (no scheme) is false with err "". */
bool canary_result_cm_ref(const char *arg, char ns[64], char name[254], char *err, size_t errlen);

/* GET the ConfigMap and parse its result.json as canary_result_parse() does
 * (the source is "configmap:NS/NAME"). 0, or -errno with a one-line reason
 * naming the ConfigMap in err (-ENOENT: it does not exist). */
int canary_result_cm_load(struct kube_client *kc, const char *ns, const char *name,
			  struct canary_result *ret, char *err, size_t errlen);

/* Create the ConfigMap NS/NAME with text (len bytes) as result.json, or
 * replace its data with a PUT of the resourceVersion just read; a 409 (a
 * create or an update that lost a race) reads it again, at most
 * CANARY_RESULT_CM_ATTEMPTS times. Every request ends before until_ns
 * (monotonic). 0, or -errno with a one-line reason in err: -EFBIG beyond
 * CANARY_RESULT_CM_MAX_BYTES, -EPERM for a ConfigMap of that name without
 * the labels above. *attempts (may be NULL) gets the writes tried. */
int canary_result_cm_write(struct kube_client *kc, int64_t until_ns, const char *ns,
			   const char *name, const char *text, size_t len, int *attempts, char *err,
			   size_t errlen);
