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
 *
 * The command line may also come from the unit's environment: ExecStart=
 * substitutes $NAME (split into words) and ${NAME} (one word) from
 * Environment= and EnvironmentFile= (k3s's unit reads /etc/default/%N,
 * /etc/sysconfig/%N and k3s.service.env; RKE2's /etc/default/%N,
 * /etc/sysconfig/%N and %N.env), and k3s/RKE2 read the config file's path
 * from --config/-c or from K3S_CONFIG_FILE / RKE2_CONFIG_FILE in that
 * environment (k3s-io/k3s pkg/configfilearg/defaultparser.go: EnvName
 * version.ProgramUpper + "_CONFIG_FILE").
 */
#pragma once
#include "hostroot.h"

/* A unit's effective ExecStart= (the last one of the unit file and its drop-ins,
 * systemd's prefixes removed) as words, its environment substituted. */
struct unit_exec {
	struct strv argv; /* empty when the unit has no ExecStart= */
	char *where;	  /* host path of the file holding that ExecStart=, or NULL */
	struct strv env;  /* NAME=VALUE in systemd's order: a later one wins */
	struct strv
	    env_src; /* for each of env: "/etc/default/k3s", "Environment= of k3s.service" */
	struct strv env_used; /* the assignments substituted into argv */
};

/* Returns 0, or -ENOENT when there is no unit file, -errno when it cannot be read. */
int unit_exec_load(const struct hostroot *hr, const char *unit, struct unit_exec *ret);
void unit_exec_clear(struct unit_exec *ue);
/* The value of NAME in the unit's environment and (may be NULL) where it was set, or NULL. */
const char *unit_exec_env(const struct unit_exec *ue, const char *name, const char **ret_src);
/* The last --flag VALUE / --flag=VALUE (or -alias) of argv; a flag that does not
 * take a value is "true" when bare. Returns 1 with *ret_value, else 0. */
int unit_exec_flag(const struct unit_exec *ue, const char *flag, const char *alias,
		   bool takes_value, char **ret_value);

/* Look for --flag / --flag=VALUE in the last ExecStart= of unit's unit file and its
 * drop-ins (systemd's order). Returns 1 with *ret_value ("true" for the bare flag, or
 * the value) and *ret_where ("/etc/systemd/system/k3s.service", followed by
 * " via K3S_ARGS from /etc/default/k3s" when the flag came through a variable), 0 when not given,
 * -errno when there is no unit file or it cannot be read. */
int unit_cmdline_flag(const struct hostroot *hr, const char *unit, const char *flag,
		      char **ret_value, char **ret_where);

/* The config file k3s/RKE2 reads when started by the first of units that has an
 * ExecStart=: its --config/-c, else env_name ("RKE2_CONFIG_FILE") in its
 * environment, else default_path. *ret_from says where a non-default path came
 * from ("K3S_CONFIG_FILE from /etc/systemd/system/k3s.service.env"), or NULL. */
char *unit_config_path(const struct hostroot *hr, const char *const *units, size_t n,
		       const char *env_name, const char *default_path, char **ret_from);
