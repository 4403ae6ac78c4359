/*
 * The agent's check framework. Host checks are rows in a table
 * (check_table.c, generated from common/checks.def): an ID from the catalog
 * and a function that adds one or more findings for it. A check never prints
 * and never exits; it reads the host only through ctx->root (the host root)
 * and the sys_* seams (sys_clock.h, sys_fs.h, sys_kvm.h, sys_uts.h), and
 * bounds every network probe by ctx->opts->timeout_s.
 */
#pragma once
#include "hostroot.h"
#include "probe_targets.h"
#include "report.h"
#include "procs.h"
#include "unitfiles.h"
#include "modules.h"

/* Thresholds with their defaults; all can be set in the config file. */
struct agent_thresholds {
	int64_t clock_maxerror_warn_us; /* host.clock: WARN above (default 1.5 s) */
	int64_t min_cpu_cores;		/* host.resources: Harvester minimum (8) */
	int64_t min_memory_bytes;	/* host.resources: Harvester minimum (32 GiB) */
	int64_t
	    longhorn_min_available_pct; /* host.longhorn.path when Longhorn's setting is unknown (25) */
};

struct agent_opts {
	char *host_root;	/* default "/" */
	char *node;		/* NULL: the host root's hostname */
	int timeout_s;		/* per network probe (default 10) */
	struct strv skip, only; /* check IDs */
	char *probe_targets_file;
	char *probe_netns; /* the network checks probe from this namespace (probe_netns.h) */
	struct probe_targets targets;
	struct agent_thresholds thr;
	/* Let probes reach link-local and cloud metadata addresses (netguard.h);
	 * config allow_link_local_probes, default false. */
	bool allow_link_local_probes;
	/* `run` only */
	char *aggregator_url;
	char *ca_file;
	char *token_file;
	int interval_s; /* default 30 */
};

struct agent_ctx {
	struct hostroot root;
	const struct agent_opts *opts;
	struct node_report *report; /* results so far and facts */
	/* proc/ read once for all checks of a run (heap), or NULL; a check abandoned
	 * at its deadline keeps the scan it was lent, the next ones get a new one. */
	struct procs_scan *procs;
	/* The unit directories listed once for all checks of a run (unitfiles.h;
	 * heap, or NULL), lent and kept as procs is. */
	struct unit_scan *units;
	/* proc/config.gz inflated once for all checks of a run (modules.h; heap, or
	 * NULL), lent and kept as procs is. */
	struct kconfig_cache *kconfig;
	/* procs and kconfig read ahead on a second thread (run_prefetch.h), or
	 * NULL: taken into them by agent_run_procs()/agent_run_kconfig(). Each job
	 * lent it holds a reference. */
	struct run_prefetch *prefetch;
	/* The daemon: the network checks --skip/--only leave in are its probe
	 * helper's; agent_run_checks adds nothing for them, agent_add_deferred
	 * puts the helper's findings in their places. */
	bool defer_network;
	/* Polled while a check runs (the daemon: SIGTERM); true abandons it. May be NULL. */
	bool (*stop)(void *arg);
	void *stop_arg;
};

typedef void (*host_check_fn)(struct agent_ctx *ctx, const char *id);

struct host_check {
	const char *id;
	host_check_fn run;
};

extern const struct host_check host_checks[];
extern const size_t host_checks_len;

/* The run's proc/ scan and kernel-config cache (NULL outside a run), with
 * what the prefetch read put in first: what a check passes to procs.h and
 * modules.h instead of ctx->procs and ctx->kconfig. */
struct procs_scan *agent_run_procs(struct agent_ctx *ctx);
struct kconfig_cache *agent_run_kconfig(struct agent_ctx *ctx);

/* Add a finding for id to the report, with the node set. */
struct finding *agent_finding(struct agent_ctx *ctx, const char *id);
/* The worst status a check earlier in the table produced (false if it has not run). */
bool agent_result(const struct agent_ctx *ctx, const char *id, enum status *ret);
/* procs_find through the run's shared scan of proc/ (procs.h), when there is one. */
int agent_procs_find(struct agent_ctx *ctx, const char *comm, struct procs_found *ret);
/* unitfiles_state through the run's shared listing of the unit directories. */
int agent_unitfiles_state(struct agent_ctx *ctx, const char *unit, char **ret_where);

void agent_opts_init(struct agent_opts *o);
void agent_opts_clear(struct agent_opts *o);

/* The node name a report carries: --node, else the hostname, else "unknown". Malloc'd. */
char *agent_node_name(const struct agent_opts *o, const char *hostname);
/* Whether id goes to the network (run by the daemon in a helper process). */
bool agent_network_check(const char *id);
/* Run row i of the check table: a check that adds nothing is UNKNOWN; a
 * network check runs from opts->probe_netns when one is set. The check runs
 * in a worker thread and is bounded (agent_run_checks runs all of a run's
 * steps in one worker, a new one after a check that is given up): --timeout for a local check, 12
 * timeouts for a network one; one that misses it is UNKNOWN "blocked", and
 * while its thread lives later calls report it "still blocked" without
 * starting it again (agent.c, docs/robustness.md). */
void agent_run_check(struct agent_ctx *ctx, size_t i);

/* Run every check of the table in order (honouring skip/only: a left-out
 * check yields SKIP; a deferred one, see defer_network, nothing), then
 * collect facts. Fills r's header too. */
void agent_run_checks(struct agent_ctx *ctx);
/* Whether id is left to the daemon's probe helper (defer_network). */
bool agent_deferred(const struct agent_ctx *ctx, const char *id);
/* After agent_run_checks with defer_network: the report's findings in table
 * order, each deferred check's from probed (the helper's report, which gives
 * them up; node set to the report's), or, without probed, an UNKNOWN "not
 * probed: why". A deferred check probed has nothing for is UNKNOWN too. */
void agent_add_deferred(struct agent_ctx *ctx, struct node_report *probed, const char *why);

/* The host root's hostname: /etc/hostname (its first line that is not blank or a
 * comment), else the host's kernel hostname; NULL when neither is known. */
char *agent_hostname(const struct hostroot *root);
/* The kernel hostname of the host root's PID 1: proc/sys/kernel/hostname when the
 * agent shares PID 1's UTS namespace, else read from inside that namespace
 * (sys_uts); NULL when it cannot be read (never the agent's own pod name). */
char *agent_kernel_hostname(const struct hostroot *root);
