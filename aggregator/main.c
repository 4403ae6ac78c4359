/* hvready-aggregator: API checks, cross-node checks and the verdict (docs/design.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "canary.h"
#include "canary_result.h"
#include "canary_result_cm.h"
#include "catalog_list.h"
#include "cli.h"
#include "cli_common_options.h"
#include "engine.h"
#include "kube_client.h"
#include "log.h"
#include "node_reports.h"
#include "render_html.h"
#include "render_verdict.h"
#include "render_text.h"
#include "server.h"
#include "source.h"
#include "source_progress.h"
#include "suggest.h"
#include "verdict.h"
#include "verdict_stream.h"

/* Where the cluster state comes from; the options of report, collect and serve. */
struct source_args {
	const char *kubeconfig;
	bool in_cluster;
	const char *token_file; /* canary --in-cluster-token-file */
	bool quiet;		/* --quiet: no progress on the terminal */
	struct strv states;
};

/* Every option value, of every command. */
enum {
	OPT_KUBECONFIG = 256,
	OPT_IN_CLUSTER,
	OPT_STATE,
	OPT_QUIET,
	OPT_NODE_REPORTS,
	OPT_GATE,
	OPT_STATUS,
	OPT_FORMAT,
	OPT_SKIP,
	OPT_ONLY,
	OPT_OUTPUT,
	OPT_LISTEN,
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
	OPT_MAX_INFLIGHT_BODY_BYTES,
	OPT_READ_AUTH,
	OPT_METRICS_AUTH,
	OPT_MARKDOWN,
	OPT_OPERATOR,
	OPT_TARGET_VERSION,
	OPT_WAIVERS,
	OPT_NAMESPACE,
	OPT_STEPS,
	OPT_RWX_CLASS,
	OPT_STORAGE_CLASS,
	OPT_IMAGE,
	OPT_NODE,
	OPT_TIMEOUT,
	OPT_KEEP,
	OPT_CLEANUP,
	OPT_RESULT_CONFIGMAP,
	OPT_CANARY_RESULT,
	OPT_CANARY_MAX_AGE,
	OPT_CANARY_INTERVAL,
	OPT_CANARY_KUBECONFIG,
	OPT_CANARY_TOKEN_FILE,
	OPT_IN_CLUSTER_TOKEN_FILE,
	OPT_CANARY_NAMESPACE,
	OPT_CANARY_STEPS,
	OPT_CANARY_RWX_CLASS,
	OPT_CANARY_STORAGE_CLASS,
	OPT_CANARY_IMAGE,
	OPT_CANARY_NODE,
	OPT_CANARY_TIMEOUT,
};

/* The commands, in the order of cmds[] in main(): bit i is cmds[i]. */
enum {
	CMD_REPORT = 1u << 0,
	CMD_SERVE = 1u << 1,
	CMD_COLLECT = 1u << 2,
	CMD_LIST_CHECKS = 1u << 3,
	CMD_RESOURCES = 1u << 4,
	CMD_CANARY = 1u << 5,
};
#define CMD_LIVE (CMD_REPORT | CMD_SERVE | CMD_COLLECT)

/* Every option of hvready-aggregator: the parsers, the usage, --help and the
 * synopsis of docs/man/hvready-aggregator.8 (tests/integration/help_man.sh). */
static const struct cli_option options[] = {
    {"kubeconfig", required_argument, OPT_KUBECONFIG, CMD_LIVE | CMD_CANARY, "FILE",
     "read the live API with this kubeconfig", NULL, false},
    {"in-cluster", no_argument, OPT_IN_CLUSTER, CMD_LIVE | CMD_CANARY, NULL,
     "read the live API with the pod's ServiceAccount", NULL, false},
    {"cluster-state", required_argument, OPT_STATE, CMD_REPORT | CMD_SERVE, "PATH",
     "a file or directory of `kubectl get -o json` output; repeatable", NULL, false},
    {"quiet", no_argument, OPT_QUIET, CMD_LIVE, NULL,
     "no progress on stderr (shown only on a terminal; serve shows none)", NULL, false},
    {"node-reports", required_argument, OPT_NODE_REPORTS, CMD_REPORT, "DIR",
     "the agents' reports (msgpack or JSON files)", "none", false},
    {"gate", required_argument, OPT_GATE, CMD_REPORT, "preinstall|platform|rwx|live-migration|all",
     "the gate the exit status follows", "all", false},
    {"status", required_argument, OPT_STATUS, CMD_REPORT, "LIST",
     "human formats: list only findings of these statuses (fail,warn,...); gates stay whole", "all",
     false},
    {"format", required_argument, OPT_FORMAT, CMD_REPORT | CMD_CANARY, "text|json|markdown|html",
     "report format", "text", false},
    CLI_OPTION_SKIP(OPT_SKIP, CMD_REPORT, "checks"),
    CLI_OPTION_ONLY(OPT_ONLY, CMD_REPORT, "checks"),
    {"operator", required_argument, OPT_OPERATOR, CMD_REPORT, "NAME",
     "who runs it, in the change-board header (free text, one line)", NULL, false},
    {"target-version", required_argument, OPT_TARGET_VERSION, CMD_REPORT, "VERSION",
     "the release the change installs, in the header (v1.5.0, 1.5.0-rc1)", NULL, false},
    {"waivers", required_argument, OPT_WAIVERS, CMD_REPORT, "FILE",
     "a YAML list of approved waivers of WARN/FAIL findings (docs/change-board.md)", NULL, false},
    {"output", required_argument, OPT_OUTPUT, CMD_COLLECT, "DIR",
     "write every resource hvready reads to DIR", NULL, true},
    {"listen", required_argument, OPT_LISTEN, CMD_SERVE, "ADDR:PORT", "address to serve on",
     "0.0.0.0:9443", false},
    {"tls-cert", required_argument, OPT_CERT, CMD_SERVE, "FILE",
     "serve HTTPS with this certificate (with --tls-key)", "plain HTTP", false},
    {"tls-key", required_argument, OPT_KEY, CMD_SERVE, "FILE",
     "the certificate's private key (with --tls-cert)", NULL, false},
    {"node-token-file", required_argument, OPT_NODE_TOKEN_FILE, CMD_SERVE, "FILE",
     "auth: a token per node, lines NODE TOKEN (one auth mode is required)", NULL, false},
    {"tokenreview", no_argument, OPT_TOKENREVIEW, CMD_SERVE, NULL,
     "auth: agents' ServiceAccount tokens, checked by TokenReview", NULL, false},
    {"token-file", required_argument, OPT_TOKEN_FILE, CMD_SERVE, "FILE",
     "auth: one bearer token for every node (lab use)", NULL, false},
    {"insecure-no-auth", no_argument, OPT_NO_AUTH, CMD_SERVE, NULL,
     "auth: accept reports from anyone (loopback tests only)", NULL, false},
    {"agent-serviceaccount", required_argument, OPT_AGENT_SA, CMD_SERVE,
     "system:serviceaccount:NS:NAME", "with --tokenreview: the only username accepted",
     "NS the aggregator's namespace or hvready-system, NAME hvready-agent", false},
    {"max-report-bytes", required_argument, OPT_MAX_REPORT_BYTES, CMD_SERVE, "BYTES",
     "refuse reports of new nodes once the stored ones take this much", "268435456", false},
    {"max-inflight-body-bytes", required_argument, OPT_MAX_INFLIGHT_BODY_BYTES, CMD_SERVE, "BYTES",
     "refuse requests (503) while the bodies being received take this much", "67108864", false},
    {"read-auth", required_argument, OPT_READ_AUTH, CMD_SERVE, "token:FILE|tokenreview:GROUP",
     "credential the read routes (verdict, nodes, dashboard) need", "open", false},
    {"metrics-auth", no_argument, OPT_METRICS_AUTH, CMD_SERVE, NULL,
     "with --read-auth: /metrics needs the credential too", NULL, false},
    {"interval", required_argument, OPT_INTERVAL, CMD_SERVE, "SEC",
     "seconds between re-reads of the cluster state, 1 to 3600", "30", false},
    {"node-conditions", no_argument, OPT_NODE_CONDITIONS, CMD_SERVE, NULL,
     "write the Hvready* conditions on every Node (needs the API)", NULL, false},
    {"markdown", no_argument, OPT_MARKDOWN, CMD_LIST_CHECKS, NULL,
     "print the tables of docs/checks.md instead of one row per check", NULL, false},
    {"namespace", required_argument, OPT_NAMESPACE, CMD_CANARY, "NS",
     "the canary's own namespace (created, labelled, deleted)", "hvready-canary", false},
    {"steps", required_argument, OPT_STEPS, CMD_CANARY, "rwx,...", "the steps to run", "rwx",
     false},
    {"rwx-class", required_argument, OPT_RWX_CLASS, CMD_CANARY, "NAME",
     "the non-migratable Longhorn StorageClass of the RWX step", "the first one found", false},
    {"storage-class", required_argument, OPT_STORAGE_CLASS, CMD_CANARY, "NAME",
     "the StorageClass of the VM's disk (RWX Block)", "the default class for VMs", false},
    {"image", required_argument, OPT_IMAGE, CMD_CANARY, "IMAGE", "the image of the canary's pods",
     "the hvready-agent DaemonSet's", false},
    {"node", required_argument, OPT_NODE, CMD_CANARY, "NAME",
     "given twice: node A (the RWX writer; the VM starts there) then node B (the reader; the "
     "migration's target)",
     "two Ready nodes", false},
    {"timeout", required_argument, OPT_TIMEOUT, CMD_CANARY, "DURATION",
     "the whole run, cleanup included: N, Ns, Nm or Nh, 10s to 24h", "300s", false},
    {"in-cluster-token-file", required_argument, OPT_IN_CLUSTER_TOKEN_FILE, CMD_CANARY, "FILE",
     "with --in-cluster: the bearer token of FILE, not the pod's ServiceAccount's (the API "
     "address and CA stay the pod's)",
     NULL, false},
    {"keep", no_argument, OPT_KEEP, CMD_CANARY, NULL,
     "leave what the run created, for a person to look at", NULL, false},
    {"cleanup", no_argument, OPT_CLEANUP, CMD_CANARY, NULL,
     "only delete what earlier runs left (by label)", NULL, false},
    {"result-configmap", required_argument, OPT_RESULT_CONFIGMAP, CMD_CANARY, "NAME",
     "also write the JSON result to this ConfigMap of --namespace (key result.json)", NULL, false},
    {"canary-result", required_argument, OPT_CANARY_RESULT, CMD_REPORT | CMD_SERVE,
     "FILE|configmap:NS/NAME",
     "a `canary --format json` result (a file, or a ConfigMap read through the API): its steps "
     "count in the gates, with their age",
     NULL, false},
    {"canary-max-age", required_argument, OPT_CANARY_MAX_AGE, CMD_REPORT | CMD_SERVE, "DURATION",
     "an older canary result proves nothing: N, Ns, Nm, Nh or Nd, 1s to 365d", "7d", false},
    {"canary-interval", required_argument, OPT_CANARY_INTERVAL, CMD_SERVE, "DURATION",
     "run the canary every so often (the first at start; never two at once): N, Ns, Nm, Nh, "
     "10s to 24h",
     "never", false},
    {"canary-kubeconfig", required_argument, OPT_CANARY_KUBECONFIG, CMD_SERVE, "FILE",
     "with --canary-interval: the canary's own credential (serve's stays its own)",
     "serve's --kubeconfig; with --in-cluster one of the two is required", false},
    {"canary-token-file", required_argument, OPT_CANARY_TOKEN_FILE, CMD_SERVE, "FILE",
     "with --canary-interval --in-cluster: the canary's bearer token (its own ServiceAccount's), "
     "read again every run",
     NULL, false},
    {"canary-namespace", required_argument, OPT_CANARY_NAMESPACE, CMD_SERVE, "NS",
     "with --canary-interval: the canary's --namespace", "hvready-canary", false},
    {"canary-steps", required_argument, OPT_CANARY_STEPS, CMD_SERVE, "rwx,...",
     "with --canary-interval: the canary's --steps", "rwx", false},
    {"canary-rwx-class", required_argument, OPT_CANARY_RWX_CLASS, CMD_SERVE, "NAME",
     "with --canary-interval: the canary's --rwx-class", "the first one found", false},
    {"canary-storage-class", required_argument, OPT_CANARY_STORAGE_CLASS, CMD_SERVE, "NAME",
     "with --canary-interval: the canary's --storage-class", "the default class for VMs", false},
    {"canary-image", required_argument, OPT_CANARY_IMAGE, CMD_SERVE, "IMAGE",
     "with --canary-interval: the canary's --image", "the hvready-agent DaemonSet's", false},
    {"canary-node", required_argument, OPT_CANARY_NODE, CMD_SERVE, "NAME",
     "with --canary-interval, given twice: the canary's --node A --node B", "two Ready nodes",
     false},
    {"canary-timeout", required_argument, OPT_CANARY_TIMEOUT, CMD_SERVE, "DURATION",
     "with --canary-interval: the canary's --timeout, 10s to 24h", "300s", false},
};

static const char exit_status[] =
    "Exit status: 0 ready (PASS/WARN), 1 not ready (FAIL), 2 usage or input error,\n"
    "3 not enough evidence (UNKNOWN). For report, the status of --gate (default all).\n";

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
	int r = s->in_cluster
		    ? kube_client_new_in_cluster_token(s->token_file, &kc, err, sizeof(err))
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
	struct verdict_stream_out out = {.write = write_stdout, .pretty = true};
	verdict_stream_json(v, &out);
	putchar('\n');
}

/* The report's time: now, or SOURCE_DATE_EPOCH (seconds since the epoch,
 * the reproducible-builds convention) so that a report of files is the same
 * bytes on every run (examples/reports/, scripts/gen_example_reports.sh). */
static int64_t report_now_ns(void)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	if (!e)
		return util_now_realtime_ns();
	char *end = NULL;
	errno = 0;
	long long s = strtoll(e, &end, 10);
	if (errno || end == e || *end || s < 0 || s > INT64_MAX / 1000000000)
		fatalx("SOURCE_DATE_EPOCH: not a number of seconds since 1970");
	return (int64_t)s * 1000000000;
}

/* *dst = a copy of s (an option given again replaces it). */
static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup(s);
}

/* A number of bytes above 0, or exit. */
static size_t bytes_arg(const char *opt, const char *arg)
{
	int64_t n;
	if (util_parse_i64(arg, &n) < 0 || n < 1)
		fatalx("%s %s: not a whole number of bytes above 0", opt, arg);
	return (size_t)n;
}

/* A namespace name (RFC 1123 label), or exit. */
static const char *canary_namespace_arg(const char *opt, const char *arg)
{
	if (!*arg || strlen(arg) > 63 ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(arg))
		fatalx("%s %s: not a namespace name", opt, arg);
	return arg;
}

/* A canary duration from min_ms to 24 h, or exit. */
static int64_t canary_duration_arg(const char *opt, const char *arg, int64_t min_ms)
{
	int64_t ms;
	if (canary_parse_duration(arg, &ms) < 0 || ms < min_ms)
		fatalx("%s %s: expected a duration from %llds to 24h (N, Ns, Nm, Nh)", opt, arg,
		       (long long)(min_ms / 1000));
	return ms;
}

/* --canary-max-age DURATION, or exit. */
static int64_t canary_max_age_arg(const char *arg)
{
	int64_t ns;
	if (canary_result_parse_age(arg, &ns) < 0)
		fatalx("--canary-max-age %s: expected a duration from 1s to 365d (N, Ns, Nm, Nh, "
		       "Nd)",
		       arg);
	return ns;
}

static int cmd_report(int argc, char **argv)
{
	static const char *const formats[] = {"text", "json", "markdown", "html", NULL};
	const char *node_dir = NULL, *format = "text", *target_version = NULL, *waivers_file = NULL;
	const char *canary_file = NULL;
	int64_t canary_max_age_ns = CANARY_MAX_AGE_DEFAULT_NS;
	_cleanup_free_ char *operator_name = NULL;
	struct source_args src = {0};
	int gate = -1;
	unsigned statuses = 0;
	struct engine_opts eo = {0};
	int c;
	while ((c = cli_getopt(argc, argv)) != -1) {
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
		case OPT_STATUS:
			if (!(statuses = render_status_mask_parse(optarg)))
				fatalx("--status: give a comma list of pass, warn, fail, unknown, "
				       "skip");
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
		case OPT_OPERATOR:
			free(operator_name);
			if (!(operator_name = report_header_operator(optarg)))
				fatalx("--operator: give a name (free text, one line)");
			break;
		case OPT_TARGET_VERSION: {
			char q[80];
			if (!report_header_valid_version(optarg))
				fatalx("--target-version: \"%s\" is not a version (like v1.5.0 "
				       "or 1.5.0-rc1)",
				       suggest_quote(optarg, q, sizeof(q)));
			target_version = optarg;
			break;
		}
		case OPT_WAIVERS:
			waivers_file = optarg;
			break;
		case OPT_CANARY_RESULT:
			canary_file = optarg;
			break;
		case OPT_CANARY_MAX_AGE:
			canary_max_age_ns = canary_max_age_arg(optarg);
			break;
		default:
			abort(); /* a row of options[] without its case */
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
	/* A bad waivers file stops the run before anything is read. */
	struct waiver_list waivers = {0};
	if (waivers_file && waivers_load(waivers_file, &waivers, err, sizeof(err)) < 0)
		fatalx("--waivers %s", err);
	/* So does a bad canary result: it was given as proof. A ConfigMap
	 * (configmap:NS/NAME) is read with the client the state is read with. */
	struct canary_result canary = {0};
	char cm_ns[64], cm_name[254];
	bool canary_cm =
	    canary_file && canary_result_cm_ref(canary_file, cm_ns, cm_name, err, sizeof(err));
	if (canary_file && !canary_cm && *err)
		fatalx("--canary-result %s", err);
	if (canary_cm && src.states.n)
		fatalx("report: --canary-result %s needs the API (--kubeconfig or --in-cluster)",
		       canary_file);
	if (canary_file && !canary_cm &&
	    canary_result_load(canary_file, &canary, NULL, err, sizeof(err)) < 0)
		fatalx("--canary-result %s", err);
	cluster_state_init(&cs);
	if (src.states.n) {
		for (size_t i = 0; i < src.states.n; i++)
			if (source_files_load(&cs, src.states.items[i], err, sizeof(err)) < 0)
				fatalx("%s", err);
	} else {
		kc = open_client(&src);
		if (canary_cm &&
		    canary_result_cm_load(kc, cm_ns, cm_name, &canary, err, sizeof(err)) < 0)
			fatalx("--canary-result %s", err);
		source_progress_start(&src);
		if (source_api_load(&cs, kc, err, sizeof(err)) < 0)
			fatalx("%s", err);
	}

	struct node_entries nodes = {0};
	if (node_dir && node_reports_load_dir(node_dir, &nodes, err, sizeof(err)) < 0)
		fatalx("%s", err);

	int64_t now_ns = report_now_ns();
	/* The files' own times (their mtimes: a checkout's time) are clamped to
	 * SOURCE_DATE_EPOCH, as the convention has it, or the bytes would differ. */
	if (getenv("SOURCE_DATE_EPOCH") && cs.read_at_ns > now_ns)
		cs.read_at_ns = now_ns;
	struct agg_ctx ctx = {
	    .cs = &cs,
	    .nodes = nodes.items,
	    .n_nodes = nodes.n,
	    .now_ns = now_ns,
	    .interval_s = 30,
	    .live = kc != NULL,
	    .kc = kc,
	};
	struct verdict v;
	verdict_evaluate(&v, &ctx, &eo);
	verdict_set_board(&v, operator_name, target_version);
	if (canary_file)
		verdict_apply_canary(&v, &canary, canary_max_age_ns, &eo);
	canary_result_clear(&canary);
	if (waivers_file)
		verdict_apply_waivers(&v, &waivers);

	int64_t render_t0 = util_now_mono_ns();
	errno = 0; /* rendering only writes: a failed write leaves its errno */
	if (streq(format, "json")) {
		print_json(&v);
	} else if (streq(format, "html")) {
		verdict_render_html_view(stdout, &v, gate, statuses, 0);
	} else if (streq(format, "markdown")) {
		verdict_render_markdown_view(stdout, &v, gate, statuses);
	} else {
		verdict_render_text_view(stdout, &v, gate, statuses, render_text_use_color(stdout));
	}
	/* A full disk behind "> FILE" must not pass for a verdict. */
	int write_errno = errno;
	if (fflush(stdout) != 0)
		fatal("writing the report to stdout");
	/* HVREADY_TIMINGS (engine.c's per-check lines): the rendering too, for
	 * make bench's grouping figure. */
	const char *tv = getenv("HVREADY_TIMINGS");
	if (tv && *tv && !streq(tv, "0"))
		fprintf(stderr, "timing\t(render %s)\t%.3f\n", format,
			(double)(util_now_mono_ns() - render_t0) / 1e6);
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
	const char *out = NULL;
	struct source_args src = {0};
	int c;
	while ((c = cli_getopt(argc, argv)) != -1) {
		if (source_option(&src, c))
			continue;
		switch (c) {
		case OPT_OUTPUT:
			out = optarg;
			break;
		default:
			abort(); /* a row of options[] without its case */
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

/* A credential file of the canary (--canary-kubeconfig, --canary-token-file),
 * checked at start: it exists, is a regular file (a FIFO is refused, never
 * opened for good), readable, at most max bytes and, for a token, one line
 * that others cannot read (as serve's own --token-file: the manifests mount
 * it 0440). A kubeconfig is held to what kubectl holds it to, not its mode.
 * What it holds is never printed. Exits 2 with a one-line reason. */
static void canary_credential_arg(const char *opt, const char *path, size_t max, bool token)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		fatalx("serve: %s %s: %s", opt, path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0)
		fatalx("serve: %s %s: %s", opt, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		fatalx("serve: %s %s: %s, not a regular file", opt, path,
		       S_ISFIFO(st.st_mode)  ? "a FIFO"
		       : S_ISDIR(st.st_mode) ? "a directory"
					     : "a special file");
	char why[64];
	if (token && util_secret_mode(st.st_mode, why, sizeof(why)) < 0)
		fatalx("serve: %s %s is %s", opt, path, why);
	if ((uint64_t)st.st_size > max)
		fatalx("serve: %s %s: larger than %zu KiB", opt, path, max >> 10);
	char *buf = NULL;
	size_t len = 0;
	int r = util_read_fd(fd, max, &buf, &len, NULL);
	close(fd);
	if (r < 0)
		fatalx("serve: %s %s: %s", opt, path, util_read_strerror(r));
	bool bad = len == 0 || memchr(buf, '\0', len);
	if (token && !bad) {
		strstrip(buf);
		bad = !*buf || strpbrk(buf, "\r\n");
	}
	OPENSSL_cleanse(buf, len);
	free(buf);
	if (bad)
		fatalx("serve: %s %s: %s", opt, path,
		       token ? "empty, not one line or holding a NUL byte: not a bearer token"
			     : "empty or holding a NUL byte: not a kubeconfig");
}

/* The agent's ServiceAccount, in the aggregator's own namespace when it runs
 * in the cluster (the manifests put both in one), else in hvready-system. */
static char *default_agent_sa(bool in_cluster)
{
	char *ns = NULL;
	const char *dir = getenv("HVREADY_SA_DIR"); /* as kube_client_new_in_cluster reads it */
	_cleanup_free_ char *path =
	    xasprintf("%s/namespace", dir && *dir ? dir : KUBE_CLIENT_SA_DIR);
	if (in_cluster && util_read_file(path, 256, &ns, NULL) >= 0)
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
	struct server_opts o = {.listen = xstrdup("0.0.0.0:9443"),
				.interval_s = 30,
				.canary_max_age_ns = CANARY_MAX_AGE_DEFAULT_NS,
				.canary_timeout_ms = CANARY_DEFAULT_TIMEOUT_S * 1000LL};
	struct source_args src = {0};
	int auth_modes = 0, canary_opts = 0, n_canary_nodes = 0, c;
	while ((c = cli_getopt(argc, argv)) != -1) {
		if (source_option(&src, c))
			continue;
		switch (c) {
		case OPT_LISTEN:
			set_str(&o.listen, optarg);
			break;
		case OPT_CERT:
			set_str(&o.tls_cert, optarg);
			break;
		case OPT_KEY:
			set_str(&o.tls_key, optarg);
			break;
		case OPT_TOKEN_FILE:
			set_str(&o.token_file, optarg);
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
		case OPT_MAX_REPORT_BYTES:
			o.max_report_bytes = bytes_arg("serve: --max-report-bytes", optarg);
			break;
		case OPT_MAX_INFLIGHT_BODY_BYTES:
			o.max_inflight_body_bytes =
			    bytes_arg("serve: --max-inflight-body-bytes", optarg);
			break;
		case OPT_NODE_TOKEN_FILE:
			set_str(&o.node_token_file, optarg);
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
			set_str(&o.agent_sa, optarg);
			break;
		case OPT_CANARY_RESULT:
			set_str(&o.canary_result, optarg);
			break;
		case OPT_CANARY_MAX_AGE:
			o.canary_max_age_ns = canary_max_age_arg(optarg);
			break;
		case OPT_CANARY_INTERVAL:
			o.canary_interval_ms =
			    canary_duration_arg("serve: --canary-interval", optarg, 10000);
			break;
		case OPT_CANARY_KUBECONFIG:
			free(o.canary_kubeconfig);
			o.canary_kubeconfig = xstrdup(optarg);
			canary_opts++;
			break;
		case OPT_CANARY_TOKEN_FILE:
			free(o.canary_token_file);
			o.canary_token_file = xstrdup(optarg);
			canary_opts++;
			break;
		case OPT_CANARY_NAMESPACE:
			free(o.canary_ns);
			o.canary_ns =
			    xstrdup(canary_namespace_arg("serve: --canary-namespace", optarg));
			canary_opts++;
			break;
		case OPT_CANARY_STEPS: {
			unsigned steps;
			char err[512];
			if (canary_parse_steps(optarg, &steps, err, sizeof(err)) < 0)
				fatalx("serve: --canary-%s", err + 2);
			set_str(&o.canary_steps, optarg);
			canary_opts++;
			break;
		}
		case OPT_CANARY_RWX_CLASS:
			set_str(&o.canary_rwx_class, optarg);
			canary_opts++;
			break;
		case OPT_CANARY_STORAGE_CLASS:
			set_str(&o.canary_vm_class, optarg);
			canary_opts++;
			break;
		case OPT_CANARY_IMAGE:
			set_str(&o.canary_image, optarg);
			canary_opts++;
			break;
		case OPT_CANARY_NODE:
			if (n_canary_nodes == 2)
				fatalx("serve: --canary-node goes twice, for node A and node B");
			o.canary_nodes[n_canary_nodes++] = xstrdup(optarg);
			canary_opts++;
			break;
		case OPT_CANARY_TIMEOUT:
			o.canary_timeout_ms =
			    canary_duration_arg("serve: --canary-timeout", optarg, 10000);
			canary_opts++;
			break;
		default:
			abort(); /* a row of options[] without its case */
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
	if (canary_opts && !o.canary_interval_ms)
		fatalx("serve: --canary-namespace, --canary-steps, --canary-rwx-class, "
		       "--canary-storage-class, --canary-image, --canary-node, --canary-timeout, "
		       "--canary-kubeconfig and --canary-token-file go with "
		       "--canary-interval");
	if (o.canary_interval_ms && o.states.n)
		fatalx("serve: --canary-interval needs the API (--kubeconfig or --in-cluster)");
	/* The canary creates and deletes; serve's ServiceAccount only reads. */
	if (o.canary_kubeconfig && o.canary_token_file)
		fatalx("serve: give one of --canary-kubeconfig, --canary-token-file");
	if (o.canary_token_file && !o.in_cluster)
		fatalx("serve: --canary-token-file goes with --in-cluster (the API address and CA "
		       "are the pod's); out of the cluster give --canary-kubeconfig FILE");
	if (o.canary_interval_ms && o.in_cluster && !o.canary_kubeconfig && !o.canary_token_file)
		fatalx("serve: --in-cluster --canary-interval needs the canary's own credential, "
		       "--canary-token-file FILE (the hvready-canary ServiceAccount's token) or "
		       "--canary-kubeconfig FILE: serve's ServiceAccount is read-only");
	if (o.canary_kubeconfig)
		canary_credential_arg("--canary-kubeconfig", o.canary_kubeconfig,
				      KUBECONFIG_MAX_SIZE, false);
	if (o.canary_token_file)
		canary_credential_arg("--canary-token-file", o.canary_token_file,
				      CANARY_TOKEN_MAX_SIZE, true);
	if (o.canary_result) {
		char cerr[512], cns[64], cname[254];
		bool cm = canary_result_cm_ref(o.canary_result, cns, cname, cerr, sizeof(cerr));
		if (!cm && *cerr)
			fatalx("serve: --canary-result %s", cerr);
		if (cm && o.states.n)
			fatalx("serve: --canary-result %s needs the API (--kubeconfig or "
			       "--in-cluster)",
			       o.canary_result);
	}
	if (n_canary_nodes == 1)
		fatalx("serve: --canary-node goes twice, for node A (writer) and node B (reader)");
	int code = server_run(&o);
	free(o.listen);
	free(o.tls_cert);
	free(o.tls_key);
	free(o.kubeconfig);
	free(o.token_file);
	free(o.agent_sa);
	free(o.node_token_file);
	free(o.read_auth_arg);
	free(o.canary_result);
	free(o.canary_kubeconfig);
	free(o.canary_token_file);
	free(o.canary_ns);
	free(o.canary_steps);
	free(o.canary_rwx_class);
	free(o.canary_vm_class);
	free(o.canary_image);
	free(o.canary_nodes[0]);
	free(o.canary_nodes[1]);
	strv_clear(&o.states);
	return code;
}

/* The opt-in active test (docs/canary.md). */
static int cmd_canary(int argc, char **argv)
{
	static const char *const formats[] = {"text", "json", "markdown", "html", NULL};
	struct canary_opts o = {.ns = CANARY_DEFAULT_NS,
				.timeout_ms = CANARY_DEFAULT_TIMEOUT_S * 1000LL};
	struct source_args src = {0};
	const char *format = "text";
	char err[512];
	if (canary_parse_steps(CANARY_DEFAULT_STEPS, &o.steps, err, sizeof(err)) < 0)
		fatalx("canary: %s", err);
	int c;
	while ((c = cli_getopt(argc, argv)) != -1) {
		if (source_option(&src, c))
			continue;
		switch (c) {
		case OPT_NAMESPACE:
			o.ns = canary_namespace_arg("canary: --namespace", optarg);
			break;
		case OPT_STEPS:
			if (canary_parse_steps(optarg, &o.steps, err, sizeof(err)) < 0)
				fatalx("canary: %s", err);
			break;
		case OPT_RWX_CLASS:
			o.rwx_class = optarg;
			break;
		case OPT_STORAGE_CLASS:
			o.vm_class = optarg;
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
			o.timeout_ms = canary_duration_arg("canary: --timeout", optarg, 10000);
			break;
		case OPT_IN_CLUSTER_TOKEN_FILE:
			src.token_file = optarg;
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
		case OPT_RESULT_CONFIGMAP:
			if (!canary_result_cm_valid_name(optarg))
				fatalx("canary: --result-configmap %s: not a ConfigMap name",
				       optarg);
			o.result_cm = optarg;
			break;
		default:
			abort(); /* a row of options[] without its case */
		}
	}
	cli_no_operands(argc, argv, "canary");
	if (src.kubeconfig && src.in_cluster)
		fatalx("canary: give one of --kubeconfig, --in-cluster");
	if (!src.kubeconfig && !src.in_cluster)
		fatalx("canary: give --kubeconfig FILE or --in-cluster");
	if (src.token_file && !src.in_cluster)
		fatalx("canary: --in-cluster-token-file goes with --in-cluster");
	if (o.n_nodes == 1)
		fatalx("canary: --node goes twice, for node A (writer) and node B (reader)");
	/* A cleanup's result has no step: it would replace the proof of the last run. */
	if (o.cleanup_only && (o.keep || o.n_nodes || o.rwx_class || o.image || o.result_cm))
		fatalx("canary: --cleanup takes only the source, --timeout and --format");
	struct canary run = {.kc = open_client(&src), .o = &o};
	int code = canary_run(&run);
	errno = 0;
	canary_render(stdout, &run, format);
	if (fflush(stdout) != 0 || ferror(stdout))
		fatalx("writing the canary's report to stdout: %s", strerror(errno ? errno : EIO));
	/* After the output, so a failed write never loses it: the same JSON
	 * --format json prints, in the ConfigMap (canary_result_cm.h). */
	if (o.result_cm && run.refused)
		/* someone else's namespace: the canary makes nothing there */
		log_warnx("canary: --result-configmap %s: not written: namespace %s was refused",
			  o.result_cm, o.ns);
	else if (o.result_cm) {
		char *json = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&json, &len);
		if (!m)
			fatal("open_memstream");
		canary_render(m, &run, "json");
		if (fclose(m) != 0)
			fatal("the canary's JSON result");
		char werr[1024];
		int64_t until = run.start_ns + o.timeout_ms * 1000000 - 100000000LL;
		if (canary_result_cm_write(run.kc, until, o.ns, o.result_cm, json, len, NULL, werr,
					   sizeof(werr)) < 0) {
			log_warnx("canary: --result-configmap: %s%s", werr,
				  run.ns_created && !o.keep
				      ? " (this run made the namespace and deleted it: "
					"create it beforehand, as deploy/overlays/canary "
					"does)"
				      : "");
			/* a run that would pass must not: the result went nowhere */
			if (code == 0)
				code = 2;
		}
		free(json);
	}
	finding_list_clear(&run.findings);
	strv_clear(&run.created);
	strv_clear(&run.made_for);
	kube_client_free(run.kc);
	return code;
}

/* The resource table, for RBAC and docs: GROUP VERSION PLURAL SCOPE. */
static int cmd_resources(int argc, char **argv)
{
	if (cli_getopt(argc, argv) != -1)
		abort(); /* resources has no option but --help */
	cli_no_operands(argc, argv, "resources");
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
	bool markdown = false;
	int c;
	while ((c = cli_getopt(argc, argv)) != -1) {
		switch (c) {
		case OPT_MARKDOWN:
			markdown = true;
			break;
		default:
			abort(); /* a row of options[] without its case */
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
	    {"report", cmd_report, "print the verdict of the four gates once"},
	    {"serve", cmd_serve,
	     "receive the agents' reports; serve the verdict, metrics, a dashboard"},
	    {"collect", cmd_collect,
	     "write every resource hvready reads to a directory (offline report)"},
	    {"list-checks", cmd_list_checks, "print every check of the registry, one per line"},
	    {"resources", cmd_resources, "print the resources hvready reads (for RBAC)"},
	    {"canary", cmd_canary,
	     "create test objects, prove RWX end to end, delete them (docs/canary.md)"},
	};
	static const struct cli_program prog = {
	    .name = "hvready-aggregator",
	    .cmds = cmds,
	    .n_cmds = ELEMENTSOF(cmds),
	    .opts = options,
	    .n_opts = ELEMENTSOF(options),
	    .exit_status = exit_status,
	};
	return cli_main(argc, argv, &prog);
}
