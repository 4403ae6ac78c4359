/* hvready-agent: host checks on one node (SPEC §2). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "catalog.h"
#include "config.h"
#include "log.h"
#include "output.h"

static _Noreturn void usage(FILE *f, int code)
{
	fputs("Usage:\n"
	      "  hvready-agent check [--host-root DIR] [--node NAME] [--format text|json|msgpack]\n"
	      "                      [--output FILE] [--probe-targets FILE] [--config FILE]\n"
	      "                      [--timeout SEC] [--skip ID,...] [--only ID,...]\n"
	      "  hvready-agent --version\n"
	      "\n"
	      "Exit status: 0 ready (PASS/WARN), 1 not ready (FAIL), 2 usage or input error,\n"
	      "3 not enough evidence (UNKNOWN).\n",
	      f);
	exit(code);
}

static void parse_ids(struct strv *v, const char *arg, const char *opt)
{
	struct strv ids = {0};
	strv_split(&ids, arg, ",");
	for (size_t i = 0; i < ids.n; i++) {
		const struct check_info *ci = catalog_find(ids.items[i]);
		if (!ci || ci->source != CHECK_HOST)
			fatalx("%s: unknown host check \"%s\"", opt, ids.items[i]);
		strv_add(v, ids.items[i]);
	}
	strv_clear(&ids);
}

static int cmd_check(int argc, char **argv)
{
	enum {
		OPT_HOST_ROOT = 256,
		OPT_NODE,
		OPT_FORMAT,
		OPT_OUTPUT,
		OPT_PROBE,
		OPT_CONFIG,
		OPT_TIMEOUT,
		OPT_SKIP,
		OPT_ONLY
	};
	static const struct option longopts[] = {
	    {"host-root", required_argument, NULL, OPT_HOST_ROOT},
	    {"node", required_argument, NULL, OPT_NODE},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"output", required_argument, NULL, OPT_OUTPUT},
	    {"probe-targets", required_argument, NULL, OPT_PROBE},
	    {"config", required_argument, NULL, OPT_CONFIG},
	    {"timeout", required_argument, NULL, OPT_TIMEOUT},
	    {"skip", required_argument, NULL, OPT_SKIP},
	    {"only", required_argument, NULL, OPT_ONLY},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct agent_opts o;
	char err[512];
	const char *format = "text", *output = NULL;
	agent_opts_init(&o);

	/* The config file first, so that options on the command line win over it. */
	for (int i = 1; i < argc; i++) {
		const char *path = NULL;
		if (streq(argv[i], "--config") && i + 1 < argc)
			path = argv[i + 1];
		else if (startswith(argv[i], "--config="))
			path = argv[i] + strlen("--config=");
		if (path && config_load(path, &o, err, sizeof(err)) < 0)
			fatalx("%s", err);
	}

	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		int64_t t;
		switch (c) {
		case OPT_HOST_ROOT:
			free(o.host_root);
			o.host_root = xstrdup(optarg);
			break;
		case OPT_NODE:
			free(o.node);
			o.node = xstrdup(optarg);
			break;
		case OPT_FORMAT:
			if (!streq(optarg, "text") && !streq(optarg, "json") &&
			    !streq(optarg, "msgpack"))
				fatalx("--format: \"%s\" is not one of text, json, msgpack",
				       optarg);
			format = optarg;
			break;
		case OPT_OUTPUT:
			output = optarg;
			break;
		case OPT_PROBE:
			free(o.probe_targets_file);
			o.probe_targets_file = xstrdup(optarg);
			break;
		case OPT_CONFIG:
			break; /* loaded above */
		case OPT_TIMEOUT:
			if (util_parse_i64(optarg, &t) < 0 || t < 1 || t > 600)
				fatalx("--timeout: \"%s\" is not a number of seconds from 1 to 600",
				       optarg);
			o.timeout_s = (int)t;
			break;
		case OPT_SKIP:
			parse_ids(&o.skip, optarg, "--skip");
			break;
		case OPT_ONLY:
			parse_ids(&o.only, optarg, "--only");
			break;
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
		}
	}
	if (optind < argc)
		fatalx("check: unexpected argument \"%s\"", argv[optind]);

	if (o.probe_targets_file) {
		char *buf;
		size_t len;
		int r = util_read_file(o.probe_targets_file, PROBE_TARGETS_MAX_BYTES, &buf, &len);
		if (r < 0)
			fatalx("%s: %s", o.probe_targets_file,
			       r == -EFBIG ? "file too large" : strerror(-r));
		r = probe_targets_parse((const uint8_t *)buf, len, &o.targets, err, sizeof(err));
		free(buf);
		if (r < 0)
			fatalx("%s: %s", o.probe_targets_file, err);
	}

	struct node_report report = {0};
	struct agent_ctx ctx = {.opts = &o, .report = &report};
	int r = hostroot_open(&ctx.root, o.host_root);
	if (r < 0)
		fatalx("--host-root %s: %s", o.host_root, strerror(-r));
	agent_run_checks(&ctx);

	r = output_node_report(&report, format, output, err, sizeof(err));
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

int main(int argc, char **argv)
{
	log_set_prefix("hvready-agent");
	if (argc < 2)
		usage(stderr, 2);
	if (streq(argv[1], "--version")) {
		printf("hvready-agent %s\n", HVREADY_VERSION);
		return 0;
	}
	if (streq(argv[1], "--help") || streq(argv[1], "-h"))
		usage(stdout, 0);
	if (streq(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	log_warnx("unknown command \"%s\"", argv[1]);
	usage(stderr, 2);
}
