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
#include "config.h"
#include "daemon.h"
#include "helper.h"
#include "log.h"
#include "suggest.h"
#include "output.h"

static _Noreturn void usage(FILE *f, int code)
{
	fputs("Usage:\n"
	      "  hvready-agent check [--host-root DIR] [--node NAME] [--format text|json|msgpack]\n"
	      "                      [--output FILE] [--probe-targets FILE] [--config FILE]\n"
	      "                      [--timeout SEC] [--skip ID,...] [--only ID,...]\n"
	      "                      [--probe-netns PATH]\n"
	      "  hvready-agent run   [--config FILE] --aggregator URL [--ca-file FILE]\n"
	      "                      [--token-file FILE] [--interval SEC] [--host-root DIR]\n"
	      "                      [--node NAME] [--skip ID,...] [--probe-targets FILE]\n"
	      "                      [--probe-netns PATH]\n"
	      "  hvready-agent list-checks\n"
	      "  hvready-agent canary-io write|read PATH TOKEN   (in the canary's pods, "
	      "docs/canary.md)\n"
	      "  hvready-agent --version\n"
	      "\n"
	      "Exit status: 0 ready (PASS/WARN), 1 not ready (FAIL), 2 usage or input error,\n"
	      "3 not enough evidence (UNKNOWN).\n",
	      f);
	exit(code);
}

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
	static const struct option check_opts[] = {
	    {"host-root", required_argument, NULL, OPT_HOST_ROOT},
	    {"node", required_argument, NULL, OPT_NODE},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"output", required_argument, NULL, OPT_OUTPUT},
	    {"probe-targets", required_argument, NULL, OPT_PROBE},
	    {"config", required_argument, NULL, OPT_CONFIG},
	    {"timeout", required_argument, NULL, OPT_TIMEOUT},
	    {"skip", required_argument, NULL, OPT_SKIP},
	    {"only", required_argument, NULL, OPT_ONLY},
	    {"probe-netns", required_argument, NULL, OPT_PROBE_NETNS},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static const struct option run_opts[] = {
	    {"config", required_argument, NULL, OPT_CONFIG},
	    {"aggregator", required_argument, NULL, OPT_AGGREGATOR},
	    {"ca-file", required_argument, NULL, OPT_CA_FILE},
	    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
	    {"interval", required_argument, NULL, OPT_INTERVAL},
	    {"host-root", required_argument, NULL, OPT_HOST_ROOT},
	    {"node", required_argument, NULL, OPT_NODE},
	    {"skip", required_argument, NULL, OPT_SKIP},
	    {"probe-targets", required_argument, NULL, OPT_PROBE},
	    {"timeout", required_argument, NULL, OPT_TIMEOUT},
	    {"probe-netns", required_argument, NULL, OPT_PROBE_NETNS},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
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
	while ((c = getopt_long(argc, argv, "h", run ? run_opts : check_opts, NULL)) != -1) {
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
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
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
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h')
			usage(stdout, 0);
		usage(stderr, 2);
	}
	cli_no_operands(argc, argv, "list-checks");
	for (size_t i = 0; i < host_checks_len; i++)
		catalog_print_row(stdout, catalog_find(host_checks[i].id), NULL);
	return 0;
}

int main(int argc, char **argv)
{
	/* _helper: internal, the network work of `run` in a child process (agent/helper.h). */
	static const struct cli_command cmds[] = {{"check", cmd_check},
						  {"run", cmd_run},
						  {"list-checks", cmd_list_checks},
						  {"canary-io", canary_io_main},
						  {"_helper", helper_main}};
	return cli_main(argc, argv, "hvready-agent", cmds, ELEMENTSOF(cmds), usage);
}
