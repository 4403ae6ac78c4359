/*
 * A k3s/RKE2 flag given on the service's command line rather than in
 * config.yaml. k3s's install.sh writes the arguments of `sh -s - server
 * --nonroot-devices` (and INSTALL_K3S_EXEC) into the unit's ExecStart, one
 * quoted argument per continued line:
 *
 *   ExecStart=/usr/local/bin/k3s \
 *       server \
 *   	'--nonroot-devices' \
 *
 * (k3s-io/k3s install.sh, create_systemd_service_file). RKE2's units run
 * `/usr/bin/rke2 server` (rancher/rke2 bundle/lib/systemd/system/rke2-server.service)
 * and take extra flags only from drop-ins that replace ExecStart. Flags on the
 * command line win over config.yaml (k3s pkg/configfilearg puts the config's
 * flags before the command line's; for a boolean the last one counts).
 */
#pragma once
#include "hostroot.h"

/* Look for --flag / --flag=VALUE in the last ExecStart= of unit's unit file and its
 * drop-ins (systemd's order). Returns 1 with *ret_value ("true" for the bare flag, or
 * the value) and *ret_where ("/etc/systemd/system/k3s.service"), 0 when not given,
 * -errno when there is no unit file or it cannot be read. */
int unit_cmdline_flag(const struct hostroot *hr, const char *unit, const char *flag,
		      char **ret_value, char **ret_where);
