/* Small helpers shared by the KubeVirt / VM / platform / pre-install checks. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "cluster_state.h"

/* s, or "?" when absent (names of objects read from files may be missing). */
static inline const char *kubevirt_util_str(const char *s)
{
	return s ? s : "?";
}

/* A duration for people: "45s", "12m", "3h05m", "2d4h". Negative → "0s". */
void kubevirt_util_age(int64_t ns, char *buf, size_t len);
/* The value of label key on o, or NULL. */
const char *kubevirt_util_label(const struct jv *o, const char *key);
/* True when the object carries a deletionTimestamp. */
bool kubevirt_util_deleting(const struct jv *o);
/* The first (cluster-wide) object of a resource whose label key=value, in
 * namespace ns (NULL: any), starting at index *pos; advances *pos. */
const struct jv *kubevirt_util_next_labelled(const struct jv *items, size_t *pos, const char *ns,
					     const char *key, const char *value);
/* A string shortened to max bytes (on a UTF-8 boundary) with "…" appended;
 * caller frees. For termination messages and log lines in evidence. */
char *kubevirt_util_trunc(const char *s, size_t max);
