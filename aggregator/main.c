/* hvready-aggregator: API checks, cross-node checks and the verdict (docs/design.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "canary.h"
#include "catalog_list.h"
#include "cli.h"
#include "engine.h"
#include "json_pretty.h"
#include "log.h"
#include "node_reports.h"
#include "render_html.h"
#include "render_text.h"
#include "server.h"
#include "source.h"
#include "source_progress.h"
#include "suggest.h"
#include "verdict.h"
#include "verdict_stream.h"

static _Noreturn void usage(FILE *f, int code)
{
	fputs("Usage:\n"
	      "  hvready-aggregator report [--kubeconfig FILE | --in-cluster | --cluster-state "
	      "PATH ...]\n"
	      "                            [--node-reports DIR] [--gate "
	      "preinstall|platform|rwx|live-migration|all]\n"
	      "                            [--format text|json|markdown|html] [--skip ID,...] "
	      "[--only "
	      "ID,...] [--quiet]\n"
	      "  hvready-aggregator serve [--listen ADDR:PORT] [--tls-cert FILE --tls-key FILE]\n"
	      "                           [--kubeconfig FILE | --in-cluster | --cluster-state PATH "
	      "...]\n"
	      "                           (--tokenreview | --node-token-file FILE | --token-file "
	      "FILE\n"
	      "                            | --insecure-no-auth) "
	      "[--interval SEC]\n"
	      "                           [--node-conditions] [--agent-serviceaccount "
	      "system:serviceaccount:NS:NAME]\n"
	      "                           [--max-report-bytes BYTES]\n"
	      "                           [--read-auth token:FILE|tokenreview:GROUP "
	      "[--metrics-auth]]\n"
	      "  hvready-aggregator collect [--kubeconfig FILE | --in-cluster] --output DIR "
	      "[--quiet]\n"
	      "  hvready-aggregator canary (--kubeconfig FILE | --in-cluster) [--namespace NS]\n"
	      "                            [--steps rwx,...] [--rwx-class NAME] [--image IMAGE]\n"
	      "                            [--node A --node B] [--timeout DURATION] [--keep]\n"
	      "                            [--format text|json|markdown|html]\n"
	      "  hvready-aggregator canary --cleanup (--kubeconfig FILE | --in-cluster)\n"
	      "                            [--timeout DURATION] [--format ...]\n"
	      "                            (creates and deletes test objects: docs/canary.md)\n"
	      "  hvready-aggregator list-checks [--markdown]\n"
	      "  hvready-aggregator resources\n"
	      "  hvready-aggregator --version\n"
	      "\n"
	      "Exit status: 0 ready (PASS/WARN), 1 not ready (FAIL), 2 usage or input error,\n"
	      "3 not enough evidence (UNKNOWN). For report, the status of --gate (default all).\n",
	      f);
	exit(code);
}

/* Where the cluster state comes from; the options of report, collect and serve. */
struct source_args {
	const char *kubeconfig;
	bool in_cluster;
	bool quiet; /* --quiet: no progress on the terminal */
	struct strv states;
};

/* Option values of the source options; each command numbers its own after them. */
enum { OPT_KUBECONFIG = 256, OPT_IN_CLUSTER, OPT_STATE, OPT_QUIET, OPT_COMMAND };

/* clang-format off */
#define LIVE_SOURCE_OPTIONS \
	{"kubeconfig", required_argument, NULL, OPT_KUBECONFIG}, \
	{"in-cluster", no_argument, NULL, OPT_IN_CLUSTER}, \
	{"quiet", no_argument, NULL, OPT_QUIET}
#define SOURCE_OPTIONS LIVE_SOURCE_OPTIONS, {"cluster-state", required_argument, NULL, OPT_STATE}
/* clang-format on */

/* Takes getopt_long()'s c when it is a source option. */
static bool source_option(struct source_args *s, int c)
{
	switch (c) {
	case OPT_KUBECONFIG:
		s->kubeconfig = optarg;
		return true;
	case OPT_IN_CLUSTER:
		s->in_cluster = true;
		return true;
	case OPT_STATE:
		strv_add(&s->states, optarg);
		return true;
	case OPT_QUIET:
		s->quiet = true;
		return true;
	}
	return false;
}

/* Progress of a live read on the terminal (collect, report): only where a
 * person watches, so never into a pipe, a file or a CI log. */
static void source_progress_start(const struct source_args *s)
{
	if (!s->quiet && isatty(STDERR_FILENO))
		source_progress_enable(stderr, true);
}

static int source_count(const struct source_args *s)
{
	return (s->kubeconfig != NULL) + s->in_cluster + (s->states.n > 0);
}

/* Open the live API client from --kubeconfig / --in-cluster. */
static struct kube_client *open_client(const struct source_args *s)
{
	char err[SOURCE_ERR_LEN];
	struct kube_client *kc = NULL;
	int r = s->in_cluster ? kube_client_new_in_cluster(&kc, err, sizeof(err))
			      : kube_client_new_kubeconfig(s->kubeconfig, &kc, err, sizeof(err));
	if (r < 0)
		fatalx("%s", err);
	return kc;
}

static void write_stdout(void *ctx, const char *buf, size_t len)
{
	fwrite(buf, 1, len, stdout);
}

/* The JSON report, indented as json-c prints it, streamed: with thousands of
 * nodes json-c's tree of it was a seventh of the run and tens of MiB. A
 * failed write is seen by the caller's ferror(stdout). */
static void print_json(const struct verdict *v)
{
	struct json_pretty *p = xmalloc(sizeof(*p));
	json_pretty_init(p, write_stdout, NULL);
	struct verdict_stream_out out = {.write = json_pretty_write, .ctx = p};
	verdict_stream_json(v, &out);
	json_pretty_flush(p);
	free(p);
	putchar('\n');
}

static int cmd_report(int argc, char **argv)
{
	enum { OPT_NODE_REPORTS = OPT_COMMAND, OPT_GATE, OPT_FORMAT, OPT_SKIP, OPT_ONLY };
	static const struct option longopts[] = {
	    SOURCE_OPTIONS,
	    {"node-reports", required_argument, NULL, OPT_NODE_REPORTS},
	    {"gate", required_argument, NULL, OPT_GATE},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"skip", required_argument, NULL, OPT_SKIP},
	    {"only", required_argument, NULL, OPT_ONLY},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static const char *const formats[] = {"text", "json", "markdown", "html", NULL};
	const char *node_dir = NULL, *format = "text";
	struct source_args src = {0};
	int gate = -1;
	struct engine_opts eo = {0};
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (source_option(&src, c))
			continue;
		switch (c) {
		case OPT_NODE_REPORTS:
			node_dir = optarg;
			break;
		case OPT_GATE:
			if (streq(optarg, "all"))
				gate = -1;
			else if ((gate = gate_from_name(optarg)) < 0) {
				const char *names[_GATE_MAX + 1];
				for (int g = 0; g < _GATE_MAX; g++)
					names[g] = gate_name((enum gate)g);
				names[_GATE_MAX] = "all";
				char hint[128];
				fatalx(
				    "--gate: \"%s\" is not one of preinstall, platform, rwx, "
				    "live-migration, all%s",
				    optarg,
				    suggest_hint(optarg, names, _GATE_MAX + 1, hint, sizeof(hint)));
			}
			break;
		case OPT_FORMAT:
			format = cli_choice("--format", optarg, formats);
			break;
		case OPT_SKIP:
			cli_check_ids(&eo.skip, optarg, "--skip", false);
			break;
		case OPT_ONLY:
			cli_check_ids(&eo.only, optarg, "--only", false);
			break;
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
		}
	}
	cli_no_operands(argc, argv, "report");
	if (source_count(&src) > 1)
		fatalx("report: give one of --kubeconfig, --in-cluster, --cluster-state");
	if (source_count(&src) == 0)
		fatalx("report: give --kubeconfig FILE, --in-cluster or --cluster-state PATH");

	struct cluster_state cs;
	char err[SOURCE_ERR_LEN];
	struct kube_client *kc = NULL;
	cluster_state_init(&cs);
	if (src.states.n) {
		for (size_t i = 0; i < src.states.n; i++)
			if (source_files_load(&cs, src.states.items[i], err, sizeof(err)) < 0)
				fatalx("%s", err);
	} else {
		kc = open_client(&src);
		source_progress_start(&src);
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
		print_json(&v);
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
	strv_clear(&src.states);
	strv_clear(&eo.skip);
	strv_clear(&eo.only);
	return code;
}

static int cmd_collect(int argc, char **argv)
{
	enum { OPT_OUTPUT = OPT_COMMAND };
	static const struct option longopts[] = {
	    LIVE_SOURCE_OPTIONS,
	    {"output", required_argument, NULL, OPT_OUTPUT},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *out = NULL;
	struct source_args src = {0};
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (source_option(&src, c))
			continue;
		switch (c) {
		case OPT_OUTPUT:
			out = optarg;
			break;
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
		}
	}
	cli_no_operands(argc, argv, "collect");
	if (!out)
		fatalx("collect: --output DIR is required");
	if (source_count(&src) == 0)
		fatalx("collect: give --kubeconfig FILE or --in-cluster");
	char err[SOURCE_ERR_LEN];
	struct cluster_state cs;
	cluster_state_init(&cs);
	struct kube_client *kc = open_client(&src);
	source_progress_start(&src);
	if (source_api_load(&cs, kc, err, sizeof(err)) < 0)
		fatalx("%s", err);
	if (collect_write(&cs, out, err, sizeof(err)) < 0)
		fatalx("%s", err);
	cluster_state_clear(&cs);
	kube_client_free(kc);
	return 0;
}

/* The agent's ServiceAccount, in the aggregator's own namespace when it runs
 * in the cluster (the manifests put both in one), else in hvready-system. */
static char *default_agent_sa(bool in_cluster)
{
	char *ns = NULL;
	if (in_cluster && util_read_file("/var/run/secrets/kubernetes.io/serviceaccount/namespace",
					 256, &ns, NULL) >= 0)
		strstrip(ns);
	char *sa =
	    xasprintf("system:serviceaccount:%s:hvready-agent", ns && *ns ? ns : "hvready-system");
	free(ns);
	return sa;
}

/* system:serviceaccount:NAMESPACE:NAME, both parts non-empty, no more colons. */
static bool valid_sa_username(const char *u)
{
	if (!startswith(u, "system:serviceaccount:"))
		return false;
	const char *ns = u + strlen("system:serviceaccount:"), *colon = strchr(ns, ':');
	return colon && colon > ns && colon[1] && !strchr(colon + 1, ':');
}

static int cmd_serve(int argc, char **argv)
{
	enum {
		OPT_LISTEN = OPT_COMMAND,
		OPT_CERT,
		OPT_KEY,
		OPT_TOKEN_FILE,
		OPT_TOKENREVIEW,
		OPT_NO_AUTH,
		OPT_INTERVAL,
		OPT_NODE_CONDITIONS,
		OPT_AGENT_SA,
		OPT_NODE_TOKEN_FILE,
		OPT_MAX_REPORT_BYTES,
		OPT_READ_AUTH,
		OPT_METRICS_AUTH
	};
	static const struct option longopts[] = {
	    {"listen", required_argument, NULL, OPT_LISTEN},
	    {"tls-cert", required_argument, NULL, OPT_CERT},
	    {"tls-key", required_argument, NULL, OPT_KEY},
	    SOURCE_OPTIONS,
	    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
	    {"tokenreview", no_argument, NULL, OPT_TOKENREVIEW},
	    {"insecure-no-auth", no_argument, NULL, OPT_NO_AUTH},
	    {"interval", required_argument, NULL, OPT_INTERVAL},
	    {"node-conditions", no_argument, NULL, OPT_NODE_CONDITIONS},
	    {"agent-serviceaccount", required_argument, NULL, OPT_AGENT_SA},
	    {"node-token-file", required_argument, NULL, OPT_NODE_TOKEN_FILE},
	    {"max-report-bytes", required_argument, NULL, OPT_MAX_REPORT_BYTES},
	    {"read-auth", required_argument, NULL, OPT_READ_AUTH},
	    {"metrics-auth", no_argument, NULL, OPT_METRICS_AUTH},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct server_opts o = {.listen = xstrdup("0.0.0.0:9443"), .interval_s = 30};
	struct source_args src = {0};
	int auth_modes = 0, c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (source_option(&src, c))
			continue;
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
		case OPT_TOKEN_FILE:
			o.token_file = xstrdup(optarg);
			o.auth = AUTH_TOKEN_FILE;
			auth_modes++;
			break;
		case OPT_READ_AUTH:
			free(o.read_auth_arg);
			if (startswith(optarg, "token:") && optarg[6]) {
				o.read_auth = READ_AUTH_TOKEN;
				o.read_auth_arg = xstrdup(optarg + 6);
			} else if (startswith(optarg, "tokenreview:") && optarg[12]) {
				o.read_auth = READ_AUTH_TOKENREVIEW;
				o.read_auth_arg = xstrdup(optarg + 12);
			} else {
				fatalx("serve: --read-auth %s: expected token:FILE or "
				       "tokenreview:GROUP",
				       optarg);
			}
			break;
		case OPT_METRICS_AUTH:
			o.metrics_auth = true;
			break;
		case OPT_MAX_REPORT_BYTES: {
			int64_t n;
			if (util_parse_i64(optarg, &n) < 0 || n < 1)
				fatalx("serve: --max-report-bytes %s: not a whole number of bytes "
				       "above 0",
				       optarg);
			o.max_report_bytes = (size_t)n;
			break;
		}
		case OPT_NODE_TOKEN_FILE:
			free(o.node_token_file);
			free(o.read_auth_arg);
			o.node_token_file = xstrdup(optarg);
			o.auth = AUTH_NODE_TOKENS;
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
			o.interval_s = cli_seconds("--interval", optarg, 3600);
			break;
		case OPT_NODE_CONDITIONS:
			o.node_conditions = true;
			break;
		case OPT_AGENT_SA:
			free(o.agent_sa);
			free(o.node_token_file);
			free(o.read_auth_arg);
			o.agent_sa = xstrdup(optarg);
			break;
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
		}
	}
	cli_no_operands(argc, argv, "serve");
	o.kubeconfig = src.kubeconfig ? xstrdup(src.kubeconfig) : NULL;
	o.in_cluster = src.in_cluster;
	o.states = src.states;
	if (auth_modes != 1)
		fatalx("serve: give exactly one of --node-token-file FILE, --token-file FILE, "
		       "--tokenreview, --insecure-no-auth");
	if (o.auth == AUTH_TOKENREVIEW && o.states.n)
		fatalx("serve: --tokenreview needs the API (--kubeconfig or --in-cluster)");
	if (o.read_auth == READ_AUTH_TOKENREVIEW && o.states.n)
		fatalx(
		    "serve: --read-auth tokenreview: needs the API (--kubeconfig or --in-cluster)");
	if (o.metrics_auth && o.read_auth == READ_AUTH_NONE)
		fatalx("serve: --metrics-auth goes with --read-auth");
	if (o.agent_sa && o.auth != AUTH_TOKENREVIEW)
		fatalx("serve: --agent-serviceaccount goes with --tokenreview");
	if (o.auth == AUTH_TOKENREVIEW && !o.agent_sa)
		o.agent_sa = default_agent_sa(o.in_cluster);
	if (o.agent_sa && !valid_sa_username(o.agent_sa))
		fatalx("serve: --agent-serviceaccount %s: expected "
		       "system:serviceaccount:NAMESPACE:NAME",
		       o.agent_sa);
	if (o.node_conditions && o.states.n)
		fatalx("serve: --node-conditions needs the API (--kubeconfig or --in-cluster)");
	if (source_count(&src) != 1)
		fatalx("serve: give one of --kubeconfig, --in-cluster, --cluster-state");
	if (!o.tls_cert != !o.tls_key)
		fatalx("serve: --tls-cert and --tls-key go together");
	int code = server_run(&o);
	free(o.listen);
	free(o.tls_cert);
	free(o.tls_key);
	free(o.kubeconfig);
	free(o.token_file);
	free(o.agent_sa);
	free(o.node_token_file);
	free(o.read_auth_arg);
	strv_clear(&o.states);
	return code;
}

/* The opt-in active test (docs/canary.md). */
static int cmd_canary(int argc, char **argv)
{
	enum {
		OPT_NAMESPACE = OPT_COMMAND,
		OPT_STEPS,
		OPT_RWX_CLASS,
		OPT_IMAGE,
		OPT_NODE,
		OPT_TIMEOUT,
		OPT_KEEP,
		OPT_FORMAT,
		OPT_CLEANUP
	};
	static const struct option longopts[] = {
	    LIVE_SOURCE_OPTIONS,
	    {"namespace", required_argument, NULL, OPT_NAMESPACE},
	    {"steps", required_argument, NULL, OPT_STEPS},
	    {"rwx-class", required_argument, NULL, OPT_RWX_CLASS},
	    {"image", required_argument, NULL, OPT_IMAGE},
	    {"node", required_argument, NULL, OPT_NODE},
	    {"timeout", required_argument, NULL, OPT_TIMEOUT},
	    {"keep", no_argument, NULL, OPT_KEEP},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"cleanup", no_argument, NULL, OPT_CLEANUP},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	static const char *const formats[] = {"text", "json", "markdown", "html", NULL};
	struct canary_opts o = {.ns = CANARY_DEFAULT_NS,
				.timeout_ms = CANARY_DEFAULT_TIMEOUT_S * 1000LL};
	struct source_args src = {0};
	const char *format = "text";
	char err[512];
	if (canary_parse_steps(CANARY_DEFAULT_STEPS, &o.steps, err, sizeof(err)) < 0)
		fatalx("canary: %s", err);
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (source_option(&src, c))
			continue;
		switch (c) {
		case OPT_NAMESPACE:
			if (!*optarg || strlen(optarg) > 63 ||
			    strspn(optarg, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
				strlen(optarg))
				fatalx("canary: --namespace %s: not a namespace name", optarg);
			o.ns = optarg;
			break;
		case OPT_STEPS:
			if (canary_parse_steps(optarg, &o.steps, err, sizeof(err)) < 0)
				fatalx("canary: %s", err);
			break;
		case OPT_RWX_CLASS:
			o.rwx_class = optarg;
			break;
		case OPT_IMAGE:
			o.image = optarg;
			break;
		case OPT_NODE:
			if (o.n_nodes == 2)
				fatalx("canary: --node goes twice, for node A and node B");
			o.nodes[o.n_nodes++] = optarg;
			break;
		case OPT_TIMEOUT:
			if (canary_parse_duration(optarg, &o.timeout_ms) < 0 ||
			    o.timeout_ms < 10000)
				fatalx(
				    "canary: --timeout %s: expected a duration from 10s to 24h (N, "
				    "Ns, Nm, Nh)",
				    optarg);
			break;
		case OPT_KEEP:
			o.keep = true;
			break;
		case OPT_FORMAT:
			format = cli_choice("--format", optarg, formats);
			break;
		case OPT_CLEANUP:
			o.cleanup_only = true;
			break;
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
		}
	}
	cli_no_operands(argc, argv, "canary");
	if (src.kubeconfig && src.in_cluster)
		fatalx("canary: give one of --kubeconfig, --in-cluster");
	if (!src.kubeconfig && !src.in_cluster)
		fatalx("canary: give --kubeconfig FILE or --in-cluster");
	if (o.n_nodes == 1)
		fatalx("canary: --node goes twice, for node A (writer) and node B (reader)");
	if (o.cleanup_only && (o.keep || o.n_nodes || o.rwx_class || o.image))
		fatalx("canary: --cleanup takes only the source, --timeout and --format");
	struct canary run = {.kc = open_client(&src), .o = &o};
	int code = canary_run(&run);
	errno = 0;
	canary_render(stdout, &run, format);
	if (fflush(stdout) != 0 || ferror(stdout))
		fatalx("writing the canary's report to stdout: %s", strerror(errno ? errno : EIO));
	finding_list_clear(&run.findings);
	strv_clear(&run.created);
	kube_client_free(run.kc);
	return code;
}

/* The resource table, for RBAC and docs: GROUP VERSION PLURAL SCOPE. */
static int cmd_resources(int argc, char **argv)
{
	for (int i = 0; i < _RES_MAX; i++)
		printf("%s\t%s\t%s\t%s\n",
		       *resource_defs[i].group ? resource_defs[i].group : "core",
		       resource_defs[i].version, resource_defs[i].plural,
		       resource_defs[i].namespaced ? "Namespaced" : "Cluster");
	return 0;
}

/* The resources an aggregator row needs, as display names joined by ",". */
static char *row_needs(const char *id)
{
	char *s = xstrdup("");
	for (size_t i = 0; i < api_checks_len; i++) {
		if (!streq(api_checks[i].id, id))
			continue;
		for (size_t k = 0; k < CHECK_MAX_NEEDS && api_checks[i].needs[k] != RES_NONE; k++) {
			_cleanup_free_ char *r =
			    resource_display_name(&resource_defs[api_checks[i].needs[k]]);
			char *t = xasprintf("%s%s%s", s, *s ? "," : "", r);
			free(s);
			s = t;
		}
	}
	return s;
}

/* The check registry (common/checks.def): one row per check, or with
 * --markdown the tables of docs/checks.md. */
static int cmd_list_checks(int argc, char **argv)
{
	enum { OPT_MARKDOWN = OPT_COMMAND };
	static const struct option longopts[] = {
	    {"markdown", no_argument, NULL, OPT_MARKDOWN},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	bool markdown = false;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_MARKDOWN:
			markdown = true;
			break;
		case 'h':
			usage(stdout, 0);
		default:
			usage(stderr, 2);
		}
	}
	cli_no_operands(argc, argv, "list-checks");
	if (markdown) {
		catalog_print_markdown(stdout);
		return 0;
	}
	for (size_t i = 0; i < catalog_len; i++) {
		_cleanup_free_ char *needs = row_needs(catalog[i].id);
		catalog_print_row(stdout, &catalog[i], needs);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct cli_command cmds[] = {
	    {"report", cmd_report}, {"list-checks", cmd_list_checks}, {"resources", cmd_resources},
	    {"serve", cmd_serve},   {"collect", cmd_collect},	      {"canary", cmd_canary},
	};
	return cli_main(argc, argv, "hvready-aggregator", cmds, ELEMENTSOF(cmds), usage);
}
