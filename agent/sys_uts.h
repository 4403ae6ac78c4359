/*
 * Seam: the hostname of another UTS namespace. /proc/sys/kernel/hostname and
 * uname(2) answer for the caller's own namespace, which a host root cannot
 * redirect: in a pod without hostNetwork that is the pod's name, not the host's.
 */
#pragma once
#include <stddef.h>

/* The nodename of the UTS namespace open at ns_fd (a /proc/PID/ns/uts), read by
 * a short-lived thread that joins it (setns needs CAP_SYS_ADMIN over it); the
 * caller's own namespace is left alone. Returns 0, or -errno. */
int sys_uts_nodename(int ns_fd, char *buf, size_t len);
