/* hvready-aggregator: API checks, cross-node checks and the verdict (SPEC §2). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "log.h"
#include "node_reports.h"
#include "render_json.h"
#include "render_html.h"
#include "render_text.h"
#include "server.h"
#include "source.h"
#include "verdict.h"

static _Noreturn void usage(FILE *f, int code)
{
	fputs("Usage:\n"
	      "  hvready-aggregator report [--kubeconfig FILE | --in-cluster | --cluster-state "
	      "PATH ...]\n"
	      "                            [--node-reports DIR] [--gate "
	      "preinstall|platform|rwx|live-migration|all]\n"
	      "                            [--format text|json|markdown|html] [--skip ID,...] "
	      "[--only "
	      "ID,...]\n"
	      "  hvready-aggregator serve [--listen ADDR:PORT] [--tls-cert FILE --tls-key FILE]\n"
	      "                           [--kubeconfig FILE | --in-cluster | --cluster-state PATH "
	      "...]\n"
	      "                           (--token-file FILE | --tokenreview | --insecure-no-auth) "
	      "[--interval SEC]\n"
	      "                           [--node-conditions]\n"
	      "  hvready-aggregator collect [--kubeconfig FILE | --in-cluster] --output DIR\n"
	      "  hvready-aggregator --version\n"
	      "\n"
	      "Exit status: 0 ready (PASS/WARN), 1 not ready (FAIL), 2 usage or input error,\n"
	      "3 not enough evidence (UNKNOWN). For report, the status of --gate (default all).\n",
	      f);
	exit(code);
}

static void parse_ids(struct strv *v, const char *arg, const char *opt)
{
	struct strv ids = {0};
	strv_split(&ids, arg, ",");
	for (size_t i = 0; i < ids.n; i++) {
		if (!catalog_find(ids.items[i]))
			fatalx("%s: unknown check \"%s\"", opt, ids.items[i]);
		strv_add(v, ids.items[i]);
	}
	strv_clear(&ids);
}

/* Open the live API client from --kubeconfig / --in-cluster. */
static struct kube_client *open_client(const char *kubeconfig, bool in_cluster)
{
	char err[SOURCE_ERR_LEN];
	struct kube_client *kc = NULL;
	int r = in_cluster ? kube_client_new_in_cluster(&kc, err, sizeof(err))
			   : kube_client_new_kubeconfig(kubeconfig, &kc, err, sizeof(err));
	if (r < 0)
		fatalx("%s", err);
	return kc;
}

static int cmd_report(int argc, char **argv)
{
	enum {
		OPT_KUBECONFIG = 256,
		OPT_IN_CLUSTER,
		OPT_STATE,
		OPT_NODE_REPORTS,
		OPT_GATE,
		OPT_FORMAT,
		OPT_SKIP,
		OPT_ONLY
	};
	static const struct option longopts[] = {
	    {"kubeconfig", required_argument, NULL, OPT_KUBECONFIG},
	    {"in-cluster", no_argument, NULL, OPT_IN_CLUSTER},
	    {"cluster-state", required_argument, NULL, OPT_STATE},
	    {"node-reports", required_argument, NULL, OPT_NODE_REPORTS},
	    {"gate", required_argument, NULL, OPT_GATE},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"skip", required_argument, NULL, OPT_SKIP},
	    {"only", required_argument, NULL, OPT_ONLY},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *kubeconfig = NULL, *node_dir = NULL, *format = "text";
	bool in_cluster = false;
	int gate = -1;
	struct strv states = {0};
	struct engine_opts eo = {0};
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_KUBECONFIG:
			kubeconfig = optarg;
			break;
		case OPT_IN_CLUSTER:
			in_cluster = true;
			break;
		case OPT_STATE:
			strv_add(&states, optarg);
			break;
		case OPT_NODE_REPORTS:
			node_dir = optarg;
			break;
		case OPT_GATE:
			if (streq(optarg, "all"))
				gate = -1;
			else if ((gate = gate_from_name(optarg)) < 0)
				fatalx("--gate: \"%s\" is not one of preinstall, platform, rwx, "
				       "live-migration, all",
				       optarg);
			break;
		case OPT_FORMAT:
			if (!streq(optarg, "text") && !streq(optarg, "json") &&
			    !streq(optarg, "markdown") && !streq(optarg, "html"))
				fatalx("--format: \"%s\" is not one of text, json, markdown, html",
				       optarg);
			format = optarg;
			break;
		case OPT_SKIP:
			parse_ids(&eo.skip, optarg, "--skip");
			break;
		case OPT_ONLY:
			parse_ids(&eo.only, optarg, "--only");
			break;
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
		}
	}
	if (optind < argc)
		fatalx("report: unexpected argument \"%s\"", argv[optind]);
	if ((kubeconfig != NULL) + in_cluster + (states.n > 0) > 1)
		fatalx("report: give one of --kubeconfig, --in-cluster, --cluster-state");
	if (!kubeconfig && !in_cluster && states.n == 0)
		fatalx("report: give --kubeconfig FILE, --in-cluster or --cluster-state PATH");

	struct cluster_state cs;
	char err[SOURCE_ERR_LEN];
	struct kube_client *kc = NULL;
	cluster_state_init(&cs);
	if (states.n) {
		for (size_t i = 0; i < states.n; i++)
			if (source_files_load(&cs, states.items[i], err, sizeof(err)) < 0)
				fatalx("%s", err);
	} else {
		kc = open_client(kubeconfig, in_cluster);
		if (source_api_load(&cs, kc, err, sizeof(err)) < 0)
			fatalx("%s", err);
	}

	struct node_entries nodes = {0};
	if (node_dir && node_reports_load_dir(node_dir, &nodes, err, sizeof(err)) < 0)
		fatalx("%s", err);

	struct agg_ctx ctx = {
	    .cs = &cs,
	    .nodes = nodes.items,
	    .n_nodes = nodes.n,
	    .now_ns = util_now_realtime_ns(),
	    .interval_s = 30,
	    .live = kc != NULL,
	    .kc = kc,
	};
	struct verdict v;
	verdict_evaluate(&v, &ctx, &eo);

	errno = 0; /* rendering only writes: a failed write leaves its errno */
	if (streq(format, "json")) {
		json_object *o = verdict_to_json(&v);
		render_json_write(stdout, o);
		json_object_put(o);
	} else if (streq(format, "html")) {
		verdict_render_html(stdout, &v, gate, 0);
	} else if (streq(format, "markdown")) {
		verdict_render_markdown(stdout, &v, gate);
	} else {
		verdict_render_text(stdout, &v, gate, render_text_use_color(stdout));
	}
	/* A full disk behind "> FILE" must not pass for a verdict. */
	int write_errno = errno;
	if (fflush(stdout) != 0)
		fatal("writing the report to stdout");
	if (ferror(stdout))
		fatalx("writing the report to stdout: %s",
		       strerror(write_errno ? write_errno : EIO));
	int code = gates_exit_code(verdict_status(&v, gate));
	verdict_clear(&v);
	node_entries_clear(&nodes);
	cluster_state_clear(&cs);
	kube_client_free(kc);
	strv_clear(&states);
	strv_clear(&eo.skip);
	strv_clear(&eo.only);
	return code;
}

static int cmd_collect(int argc, char **argv)
{
	enum { OPT_KUBECONFIG = 256, OPT_IN_CLUSTER, OPT_OUTPUT };
	static const struct option longopts[] = {
	    {"kubeconfig", required_argument, NULL, OPT_KUBECONFIG},
	    {"in-cluster", no_argument, NULL, OPT_IN_CLUSTER},
	    {"output", required_argument, NULL, OPT_OUTPUT},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *kubeconfig = NULL, *out = NULL;
	bool in_cluster = false;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_KUBECONFIG:
			kubeconfig = optarg;
			break;
		case OPT_IN_CLUSTER:
			in_cluster = true;
			break;
		case OPT_OUTPUT:
			out = optarg;
			break;
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
		}
	}
	if (optind < argc)
		fatalx("collect: unexpected argument \"%s\"", argv[optind]);
	if (!out)
		fatalx("collect: --output DIR is required");
	if (!kubeconfig && !in_cluster)
		fatalx("collect: give --kubeconfig FILE or --in-cluster");
	char err[SOURCE_ERR_LEN];
	struct cluster_state cs;
	cluster_state_init(&cs);
	struct kube_client *kc = open_client(kubeconfig, in_cluster);
	if (source_api_load(&cs, kc, err, sizeof(err)) < 0)
		fatalx("%s", err);
	if (collect_write(&cs, out, err, sizeof(err)) < 0)
		fatalx("%s", err);
	cluster_state_clear(&cs);
	kube_client_free(kc);
	return 0;
}

static int cmd_serve(int argc, char **argv)
{
	enum {
		OPT_LISTEN = 256,
		OPT_CERT,
		OPT_KEY,
		OPT_KUBECONFIG,
		OPT_IN_CLUSTER,
		OPT_STATE,
		OPT_TOKEN_FILE,
		OPT_TOKENREVIEW,
		OPT_NO_AUTH,
		OPT_INTERVAL,
		OPT_NODE_CONDITIONS
	};
	static const struct option longopts[] = {
	    {"listen", required_argument, NULL, OPT_LISTEN},
	    {"tls-cert", required_argument, NULL, OPT_CERT},
	    {"tls-key", required_argument, NULL, OPT_KEY},
	    {"kubeconfig", required_argument, NULL, OPT_KUBECONFIG},
	    {"in-cluster", no_argument, NULL, OPT_IN_CLUSTER},
	    {"cluster-state", required_argument, NULL, OPT_STATE},
	    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
	    {"tokenreview", no_argument, NULL, OPT_TOKENREVIEW},
	    {"insecure-no-auth", no_argument, NULL, OPT_NO_AUTH},
	    {"interval", required_argument, NULL, OPT_INTERVAL},
	    {"node-conditions", no_argument, NULL, OPT_NODE_CONDITIONS},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct server_opts o = {.listen = xstrdup("0.0.0.0:9443"), .interval_s = 30};
	int auth_modes = 0, c;
	int64_t t;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LISTEN:
			free(o.listen);
			o.listen = xstrdup(optarg);
			break;
		case OPT_CERT:
			o.tls_cert = xstrdup(optarg);
			break;
		case OPT_KEY:
			o.tls_key = xstrdup(optarg);
			break;
		case OPT_KUBECONFIG:
			o.kubeconfig = xstrdup(optarg);
			break;
		case OPT_IN_CLUSTER:
			o.in_cluster = true;
			break;
		case OPT_STATE:
			strv_add(&o.states, optarg);
			break;
		case OPT_TOKEN_FILE:
			o.token_file = xstrdup(optarg);
			o.auth = AUTH_TOKEN_FILE;
			auth_modes++;
			break;
		case OPT_TOKENREVIEW:
			o.auth = AUTH_TOKENREVIEW;
			auth_modes++;
			break;
		case OPT_NO_AUTH:
			o.auth = AUTH_NONE;
			auth_modes++;
			break;
		case OPT_INTERVAL:
			if (util_parse_i64(optarg, &t) < 0 || t < 1 || t > 3600)
				fatalx(
				    "--interval: \"%s\" is not a number of seconds from 1 to 3600",
				    optarg);
			o.interval_s = (int)t;
			break;
		case OPT_NODE_CONDITIONS:
			o.node_conditions = true;
			break;
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
		}
	}
	if (optind < argc)
		fatalx("serve: unexpected argument \"%s\"", argv[optind]);
	if (auth_modes != 1)
		fatalx("serve: give exactly one of --token-file FILE, --tokenreview, "
		       "--insecure-no-auth");
	if (o.auth == AUTH_TOKENREVIEW && o.states.n)
		fatalx("serve: --tokenreview needs the API (--kubeconfig or --in-cluster)");
	if (o.node_conditions && o.states.n)
		fatalx("serve: --node-conditions needs the API (--kubeconfig or --in-cluster)");
	if ((o.kubeconfig != NULL) + o.in_cluster + (o.states.n > 0) != 1)
		fatalx("serve: give one of --kubeconfig, --in-cluster, --cluster-state");
	if (!o.tls_cert != !o.tls_key)
		fatalx("serve: --tls-cert and --tls-key go together");
	int code = server_run(&o);
	free(o.listen);
	free(o.tls_cert);
	free(o.tls_key);
	free(o.kubeconfig);
	free(o.token_file);
	strv_clear(&o.states);
	return code;
}

int main(int argc, char **argv)
{
	log_set_prefix("hvready-aggregator");
	if (argc < 2)
		usage(stderr, 2);
	if (streq(argv[1], "--version")) {
		printf("hvready-aggregator %s\n", HVREADY_VERSION);
		return 0;
	}
	if (streq(argv[1], "--help") || streq(argv[1], "-h"))
		usage(stdout, 0);
	if (streq(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (streq(argv[1], "resources")) {
		/* The resource table, for RBAC and docs: GROUP VERSION PLURAL SCOPE. */
		for (int i = 0; i < _RES_MAX; i++)
			printf("%s\t%s\t%s\t%s\n",
			       *resource_defs[i].group ? resource_defs[i].group : "core",
			       resource_defs[i].version, resource_defs[i].plural,
			       resource_defs[i].namespaced ? "Namespaced" : "Cluster");
		return 0;
	}
	if (streq(argv[1], "serve"))
		return cmd_serve(argc - 1, argv + 1);
	if (streq(argv[1], "collect"))
		return cmd_collect(argc - 1, argv + 1);
	log_warnx("unknown command \"%s\"", argv[1]);
	usage(stderr, 2);
}
