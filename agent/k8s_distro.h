#pragma once

/* The paths whose existence says RKE2 or k3s is installed on a node, shared by
 * every check that asks, so that one install layout is never known to one check
 * and missed by another.
 *
 * RKE2 (rancher/rke2 install.sh, INSTALL_RKE2_TAR_PREFIX): the tarball method
 * unpacks to /usr/local (bin/rke2), or to /opt/rke2 where /usr/local is read-only
 * or its own mount point; the RPM method (RHEL, Rocky, SLE) installs /usr/bin/rke2.
 * k3s (k3s-io/k3s install.sh, setup_env): /usr/local/bin/k3s, or /opt/bin/k3s
 * where /usr/local/bin is read-only; /usr/bin/k3s from distribution packages.
 * /etc/rancher/<d> and /var/lib/rancher/<d> exist once it was configured or ran. */
#define K8S_DISTRO_MARKERS_MAX 5
#define RKE2_INSTALL_MARKERS                                                                       \
	{                                                                                          \
		"/etc/rancher/rke2", "/var/lib/rancher/rke2", "/usr/local/bin/rke2",               \
		    "/usr/bin/rke2", "/opt/rke2/bin/rke2"                                          \
	}
#define K3S_INSTALL_MARKERS                                                                        \
	{                                                                                          \
		"/etc/rancher/k3s", "/var/lib/rancher/k3s", "/usr/local/bin/k3s", "/usr/bin/k3s",  \
		    "/opt/bin/k3s"                                                                 \
	}
