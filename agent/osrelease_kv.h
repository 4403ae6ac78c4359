/* os-release(5) as key/values, for the facts (osrelease.h names the distribution family). */
#pragma once
#include "hostroot.h"
#include "kv.h"

/* Parse KEY=VALUE lines (values unquoted, 'single' or "double" quoted with
 * backslash escapes) into ret, in file order; comments and malformed lines
 * are skipped. Returns the number of pairs added. */
int osrelease_kv_parse(const uint8_t *buf, size_t len, struct kv_list *ret);
/* etc/os-release, else usr/lib/os-release (the os-release(5) order). Returns
 * the number of pairs, or -errno of the last file tried. */
int osrelease_kv_read(const struct hostroot *root, struct kv_list *ret);
