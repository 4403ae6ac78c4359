/* os-release(5): the distribution a host runs. */
#pragma once
#include "hostroot.h"
#include "kv.h"

/* Parse KEY=VALUE lines (values unquoted, 'single' or "double" quoted with
 * backslash escapes) into ret, in file order; comments and malformed lines
 * are skipped. Returns the number of pairs added. */
int osrelease_parse(const uint8_t *buf, size_t len, struct kv_list *ret);
/* etc/os-release, else usr/lib/os-release (the os-release(5) order). Returns
 * the number of pairs, or -errno of the last file tried. */
int osrelease_read(const struct hostroot *root, struct kv_list *ret);
