/*
 * Small helpers shared by the storage, snapshot and Longhorn checks
 * (check_storageclass.c, check_pvc.c, check_vsc.c, check_snapshot.c,
 * check_longhorn.c): naming the object a finding is about, ages, and
 * evidence that shows an absent field as absent rather than as an empty
 * string ("" and absent mean different things: an empty shareEndpoint is not
 * a missing one).
 */
#pragma once
#include "engine.h"
#include "json_query.h"

/* What evidence shows for a field that is not in the object (or of another type). */
#define STORAGE_ABSENT "(absent)"

/* A finding about obj, named "Kind/namespace/name" with an explicit kind: items of
 * a live list carry no kind, and Longhorn's Node is not Kubernetes' Node. */
struct finding *storage_object_finding(struct agg_ctx *ctx, const char *id, const char *kind,
				       const struct jv *obj);

/* Seconds from the RFC 3339 time in v to ctx->now_ns (negative if in the future);
 * false if v is absent, not a string or malformed. */
bool storage_age_s(const struct agg_ctx *ctx, const struct jv *v, int64_t *ret_s);

/* "2h5m", "4m10s", "42s"; negative durations as "-42s". */
void storage_format_duration(int64_t s, char *buf, size_t len);

/* Bytes as "118.3 GiB" (binary units, one decimal). */
void storage_format_bytes(int64_t b, char *buf, size_t len);

/* Add a string field to evidence: its value, or STORAGE_ABSENT. */
void storage_ev_str(struct kv_list *ev, const char *key, const char *s);

/* metadata.deletionTimestamp is set. */
bool storage_deleting(const struct jv *obj);

/* metadata.finalizers as "a, b" (caller frees), or NULL when there are none. */
char *storage_finalizers(const struct jv *obj);

/* Append a formatted string to *buf (NULL starts a new one). */
void storage_appendf(char **buf, const char *fmt, ...) _printf_(2, 3);

/* A boolean StorageClass parameter as Longhorn's CSI driver reads it (Go
 * strconv.ParseBool: 1 t T TRUE true True / 0 f F FALSE false False). Absent is
 * false; returns -1 (ret untouched) for a non-string or any other text. */
int storage_go_bool(const struct jv *v, bool *ret);

#define ANN_SC_DEFAULT	    "storageclass.kubernetes.io/is-default-class"
#define ANN_SC_DEFAULT_BETA "storageclass.beta.kubernetes.io/is-default-class"

/* The annotation that makes the StorageClass sc a default class
 * (ANN_SC_DEFAULT or ANN_SC_DEFAULT_BETA), or NULL. Kubernetes compares the
 * value with "true" exactly (storage/util IsDefaultAnnotation). */
const char *storage_sc_default_annotation(const struct jv *sc);
