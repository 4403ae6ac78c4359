/* hvready-agent: host checks on one node, once (`check`) or as a daemon (`run`). */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "canary_io.h"
#include "catalog_list.h"
#include "cli.h"
#include "cli_common_options.h"
#include "config.h"
#include "daemon.h"
#include "helper.h"
#include "log.h"
#include "suggest.h"
#include "output.h"

enum {
	OPT_HOST_ROOT = 256,
	OPT_NODE,
	OPT_FORMAT,
	OPT_OUTPUT,
	OPT_PROBE,
	OPT_CONFIG,
	OPT_TIMEOUT,
	OPT_SKIP,
	OPT_ONLY,
	OPT_AGGREGATOR,
	OPT_CA_FILE,
	OPT_TOKEN_FILE,
	OPT_INTERVAL,
	OPT_PROBE_NETNS,
};

/* The commands, in the order of cmds[] in main(): bit i is cmds[i]. */
enum { CMD_CHECK = 1u << 0, CMD_RUN = 1u << 1 };
#define CMD_BOTH (CMD_CHECK | CMD_RUN)

/* Every option of hvready-agent: the parsers, the usage, --help and the
 * synopsis of docs/man/hvready-agent.8 (tests/integration/help_man.sh). */
static const struct cli_option options[] = {
    {"config", required_argument, OPT_CONFIG, CMD_BOTH, "FILE",
     "YAML configuration; options on the command line win over it", NULL, false},
    {"aggregator", required_argument, OPT_AGGREGATOR, CMD_RUN, "URL",
     "where reports are posted (http:// or https://); required here or in the config", NULL, true},
    {"ca-file", required_argument, OPT_CA_FILE, CMD_RUN, "FILE",
     "CA bundle to verify the aggregator's certificate", "the system's trust store", false},
    {"token-file", required_argument, OPT_TOKEN_FILE, CMD_RUN, "FILE",
     "bearer token sent to the aggregator, re-read when it changes", "none", false},
    {"interval", required_argument, OPT_INTERVAL, CMD_RUN, "SEC",
     "seconds between report cycles, 1 to 86400, with 10% jitter", "30", false},
    {"host-root", required_argument, OPT_HOST_ROOT, CMD_BOTH, "DIR",
     "read every host path under DIR", "/", false},
    {"node", required_argument, OPT_NODE, CMD_BOTH, "NAME", "the Kubernetes node name",
     "the host root's hostname", false},
    {"format", required_argument, OPT_FORMAT, CMD_CHECK, "text|json|msgpack",
     "report format (msgpack: the wire format, for report --node-reports)", "text", false},
    {"output", required_argument, OPT_OUTPUT, CMD_CHECK, "FILE",
     "write the report to FILE atomically", "standard output", false},
    {"probe-targets", required_argument, OPT_PROBE, CMD_BOTH, "FILE",
     "JSON probe targets (share endpoints, share-manager image, Longhorn paths)", "none", false},
    {"timeout", required_argument, OPT_TIMEOUT, CMD_BOTH, "SEC",
     "timeout of each network probe, deadline of each host check (and, in run, of the POST), 1 to "
     "600",
     "10", false},
    CLI_OPTION_SKIP(OPT_SKIP, CMD_BOTH, "host checks"),
    CLI_OPTION_ONLY(OPT_ONLY, CMD_CHECK, "host checks"),
    {"probe-netns", required_argument, OPT_PROBE_NETNS, CMD_BOTH, "PATH",
     "run the network checks from the network namespace at PATH", "the agent's own", false},
};

static const char exit_status[] =
    "Exit status: 0 ready (PASS/WARN), 1 not ready (FAIL), 2 usage or input error,\n"
    "3 not enough evidence (UNKNOWN).\n";

struct cli {
	const char *format, *output, *config;
};

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

/* Options of both commands; `run` = true accepts the daemon's, else check's. */
static void parse(int argc, char **argv, bool run, struct agent_opts *o, struct cli *cli)
{
	char err[512];
	/* The config file first, so that options on the command line win over it. */
	for (int i = 1; i < argc; i++) {
		const char *path = NULL;
		if (streq(argv[i], "--config") && i + 1 < argc)
			path = argv[i + 1];
		else if (startswith(argv[i], "--config="))
			path = argv[i] + strlen("--config=");
		if (path) {
			if (config_load(path, o, err, sizeof(err)) < 0)
				fatalx("%s", err);
			cli->config = path;
		}
	}
	static const char *const formats[] = {"text", "json", "msgpack", NULL};
	int c;
	while ((c = cli_getopt(argc, argv)) != -1) {
		switch (c) {
		case OPT_HOST_ROOT:
			set_str(&o->host_root, optarg);
			break;
		case OPT_NODE:
			set_str(&o->node, optarg);
			break;
		case OPT_FORMAT:
			cli->format = cli_choice("--format", optarg, formats);
			break;
		case OPT_OUTPUT:
			cli->output = optarg;
			break;
		case OPT_PROBE:
			set_str(&o->probe_targets_file, optarg);
			break;
		case OPT_CONFIG:
			break; /* loaded above */
		case OPT_TIMEOUT:
			o->timeout_s = cli_seconds("--timeout", optarg, 600);
			break;
		case OPT_SKIP:
			cli_check_ids(&o->skip, optarg, "--skip", true);
			break;
		case OPT_ONLY:
			cli_check_ids(&o->only, optarg, "--only", true);
			break;
		case OPT_AGGREGATOR:
			set_str(&o->aggregator_url, optarg);
			break;
		case OPT_CA_FILE:
			set_str(&o->ca_file, optarg);
			break;
		case OPT_TOKEN_FILE:
			set_str(&o->token_file, optarg);
			break;
		case OPT_PROBE_NETNS:
			set_str(&o->probe_netns, optarg);
			break;
		case OPT_INTERVAL:
			o->interval_s = cli_seconds("--interval", optarg, 86400);
			break;
		default:
			abort(); /* a row of options[] without its case */
		}
	}
	cli_no_operands(argc, argv, run ? "run" : "check");
	if (o->probe_targets_file) {
		char *buf;
		size_t len;
		int r = util_read_file(o->probe_targets_file, PROBE_TARGETS_MAX_BYTES, &buf, &len);
		if (r < 0)
			fatalx("%s: %s", o->probe_targets_file, util_read_strerror(r));
		struct strv unknown = {0};
		r = probe_targets_parse_keys((const uint8_t *)buf, len, &o->targets, &unknown, err,
					     sizeof(err));
		free(buf);
		if (r < 0)
			fatalx("%s: %s", o->probe_targets_file, err);
		for (size_t i = 0; i < unknown.n; i++) {
			char hint[160], shown[65];
			log_warnx("%s: unknown key \"%s\" ignored%s", o->probe_targets_file,
				  suggest_quote(unknown.items[i], shown, sizeof(shown)),
				  suggest_hint(unknown.items[i], probe_targets_known_keys, SIZE_MAX,
					       hint, sizeof(hint)));
		}
		strv_clear(&unknown);
	}
}

static int cmd_check(int argc, char **argv)
{
	struct agent_opts o;
	struct cli cli = {.format = "text"};
	char err[512];
	agent_opts_init(&o);
	parse(argc, argv, false, &o, &cli);

	struct node_report report = {0};
	struct agent_ctx ctx = {.opts = &o, .report = &report};
	int r = hostroot_open(&ctx.root, o.host_root);
	if (r < 0)
		fatalx("--host-root %s: %s", o.host_root, strerror(-r));
	agent_run_checks(&ctx);

	r = output_node_report(&report, cli.format, cli.output, err, sizeof(err));
	if (r < 0)
		fatalx("%s", err);

	enum status worst = STATUS_SKIP;
	for (size_t i = 0; i < report.results.n; i++)
		worst = status_worst(worst, report.results.items[i].status);
	node_report_clear(&report);
	hostroot_close(&ctx.root);
	agent_opts_clear(&o);
	return worst == STATUS_FAIL ? 1 : worst == STATUS_UNKNOWN ? 3 : 0;
}

static int cmd_run(int argc, char **argv)
{
	struct agent_opts o;
	struct cli cli = {0};
	agent_opts_init(&o);
	parse(argc, argv, true, &o, &cli);
	if (!o.aggregator_url)
		fatalx("run: --aggregator URL is required (or aggregator: in the config file)");
	if (!startswith(o.aggregator_url, "https://") && !startswith(o.aggregator_url, "http://"))
		fatalx("--aggregator %s: expected an http:// or https:// URL", o.aggregator_url);
	struct hostroot probe;
	int r = hostroot_open(&probe, o.host_root);
	if (r < 0)
		fatalx("--host-root %s: %s", o.host_root, strerror(-r));
	hostroot_close(&probe);
	if (o.token_file && access(o.token_file, R_OK) < 0)
		fatal("--token-file %s", o.token_file);
	if (o.ca_file && access(o.ca_file, R_OK) < 0)
		fatal("--ca-file %s", o.ca_file);
	int code = daemon_run(&o, cli.config);
	agent_opts_clear(&o);
	return code;
}

/* The host rows of the check registry (common/checks.def), in run order, in
 * the format of `hvready-aggregator list-checks`. */
static int cmd_list_checks(int argc, char **argv)
{
	if (cli_getopt(argc, argv) != -1)
		abort(); /* list-checks has no option but --help */
	cli_no_operands(argc, argv, "list-checks");
	for (size_t i = 0; i < host_checks_len; i++)
		catalog_print_row(stdout, catalog_find(host_checks[i].id), NULL);
	return 0;
}

int main(int argc, char **argv)
{
	/* _helper: internal, the network work of `run` in a child process (agent/helper.h). */
	static const struct cli_command cmds[] = {
	    {"check", cmd_check, "run the host checks once and print the node's report"},
	    {"run", cmd_run, "run the host checks every interval and post them to the aggregator"},
	    {"list-checks", cmd_list_checks, "print the host checks, in the order they run"},
	    /* run in the canary's pods (docs/canary.md), not by people */
	    {"canary-io", canary_io_main, NULL},
	    {"_helper", helper_main, NULL},
	};
	static const struct cli_program prog = {
	    .name = "hvready-agent",
	    .cmds = cmds,
	    .n_cmds = ELEMENTSOF(cmds),
	    .opts = options,
	    .n_opts = ELEMENTSOF(options),
	    .exit_status = exit_status,
	};
	return cli_main(argc, argv, &prog);
}
