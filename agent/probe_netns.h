/*
 * The network namespace the network checks probe from (--probe-netns).
 *
 * In the DaemonSet the agent lives in the pod network, but the consumers its
 * probes stand for do not: Longhorn's CSI plugin mounts RWX volumes after
 * entering the host's mount and network namespaces (nsenter -t 1 -m -n), and
 * containerd pulls images from the host network. A probe from the pod network
 * would take the CNI's route, through NetworkPolicies and Service routing
 * that differ from the node's. So the process that runs the network checks
 * enters the namespace at PATH (the host's: /proc/1/ns/net with hostPID)
 * before its first probe, as Longhorn's nsmounter does; the agent's own
 * connection to the aggregator stays in the pod network (the daemon posts
 * from another process). Names are still resolved with the process's own
 * /etc/resolv.conf (cluster DNS in a pod).
 */
#pragma once

/* Enter the network namespace at path, once per process: the first call
 * decides, later ones return what it returned. 0 and *ret_desc ("PATH
 * (net:[INODE])", static) on success; -errno and *ret_err (static) if not. */
int probe_netns_enter(const char *path, const char **ret_desc, const char **ret_err);
