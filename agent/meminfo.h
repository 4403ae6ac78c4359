/* Memory of a host from /proc/meminfo. */
#pragma once
#include "hostroot.h"

/* The value of key ("MemTotal") in /proc/meminfo content, in bytes.
 * Returns 0, -ENODATA when the key is absent, -EBADMSG when its value is not "N kB". */
int meminfo_parse(const uint8_t *buf, size_t len, const char *key, int64_t *ret_bytes);
/* MemTotal of proc/meminfo under the root. Returns 0 or -errno/-ENODATA/-EBADMSG. */
int meminfo_total(const struct hostroot *root, int64_t *ret_bytes);
