/*
 * GET /metrics in the Prometheus text exposition format 0.0.4.
 *
 * Every family is a row in one table (name, type, help, writer), so each is
 * declared once with HELP and TYPE right before its samples, and the
 * families come out in one fixed order. Status-like facts are gauges with a
 * "status" label: gates carry one series per possible status (0 or 1), so
 * `== 0` works as well as `== 1`; checks, resources and the overall verdict
 * carry only the current one (value 1), which keeps the series count at one
 * per check and node.
 */
#include "metrics.h"

#include <stdint.h>
#include <string.h>

#include "catalog.h"
#include "render_text.h"
#include "render_verdict.h"

static const char *const reject_names[_REJECT_MAX] = {
    [REJECT_UNAUTHORIZED] = "unauthorized", [REJECT_FORBIDDEN] = "forbidden",
    [REJECT_BAD_REPORT] = "bad_report",	    [REJECT_MEDIA_TYPE] = "unsupported_media_type",
    [REJECT_TOO_LARGE] = "too_large",	    [REJECT_OTHER] = "other",
};

const char *metrics_reject_name(enum reject_reason r)
{
	return (unsigned)r < _REJECT_MAX ? reject_names[r] : "other";
}

/* FNV-1a, 64 bits: tells apart two long values cut to the same prefix. */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void metrics_label(FILE *f, const char *s)
{
	/* Label values are UTF-8: invalid bytes and control characters become
	 * visible escapes first, then the format's own three escapes. */
	_cleanup_free_ char *safe = render_text_is_plain(s) ? NULL : render_text_sanitize(s);
	const char *v = safe ? safe : s ? s : "";
	size_t n = strlen(v);
	uint64_t hash = 0;
	/* Names come from agents' reports as well as from the API: a value
	 * longer than any Kubernetes name (253) is cut at a character boundary
	 * and ends in "~" and the whole value's hash, so that every series of a
	 * scrape stays short and distinct (docs/robustness.md). */
	if (n > METRICS_LABEL_MAX) {
		hash = fnv1a(v);
		n = METRICS_LABEL_MAX - 17;
		while (n > 0 && ((unsigned char)v[n] & 0xc0) == 0x80)
			n--;
	}
	fputc('"', f);
	for (const char *p = v; p < v + n; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputc(' ', f);
		else
			fputc(*p, f);
	}
	if (hash)
		fprintf(f, "~%016llx", (unsigned long long)hash);
	fputc('"', f);
}

struct metrics_in {
	const struct verdict *v;
	const struct store *s;
	const struct cluster_state *cs;
	const struct metrics_counters *c;
	int64_t now_ns, now_mono_ns;
	size_t *series, *dropped; /* of the family being written */
	const size_t *dropped_by_family;
};

static size_t series_max = METRICS_SERIES_MAX;

void metrics_set_series_max(size_t n)
{
	series_max = n;
}

/* Whether one more series of a family with a label per node, VM or check
 * may be written: at most series_max, the rest counted (a scrape of
 * millions of series would stall Prometheus). */
static bool room(const struct metrics_in *in)
{
	if (*in->series >= series_max) {
		(*in->dropped)++;
		return false;
	}
	(*in->series)++;
	return true;
}

static void seconds(FILE *f, int64_t ns)
{
	fprintf(f, "%lld.%03lld", (long long)(ns / NSEC_PER_SEC),
		(long long)(ns % NSEC_PER_SEC / NSEC_PER_MSEC));
}

static void w_build_info(FILE *f, const struct metrics_in *in)
{
	fputs("hvready_build_info{version=", f);
	metrics_label(f, HVREADY_VERSION);
	fputs("} 1\n", f);
}

static void w_verdict_status(FILE *f, const struct metrics_in *in)
{
	if (!in->v)
		return;
	fputs("hvready_verdict_status{status=", f);
	metrics_label(f, status_name(verdict_status(in->v, -1)));
	fputs("} 1\n", f);
}

static void w_verdict_timestamp(FILE *f, const struct metrics_in *in)
{
	if (!in->v)
		return;
	fputs("hvready_verdict_timestamp_seconds ", f);
	seconds(f, in->v->generated_ns);
	fputc('\n', f);
}

static void w_gate_status(FILE *f, const struct metrics_in *in)
{
	static const enum status gate_statuses[] = {STATUS_PASS, STATUS_WARN, STATUS_UNKNOWN,
						    STATUS_FAIL};
	for (int g = 0; in->v && g < _GATE_MAX; g++)
		for (size_t k = 0; k < ELEMENTSOF(gate_statuses); k++) {
			fprintf(f, "hvready_gate_status{gate=\"%s\",status=\"%s\"} %d\n",
				gate_name(g), status_name(gate_statuses[k]),
				in->v->gates[g].status == gate_statuses[k]);
		}
}

static void w_gate_blockers(FILE *f, const struct metrics_in *in)
{
	for (int g = 0; in->v && g < _GATE_MAX; g++)
		fprintf(f, "hvready_gate_blockers{gate=\"%s\"} %zu\n", gate_name(g),
			in->v->gates[g].n_blockers);
}

/* The worst status per (check, node): one series each. */
static void w_check_status(FILE *f, const struct metrics_in *in)
{
	const struct verdict *v = in->v;
	if (!v)
		return;
	_cleanup_free_ size_t *idx = render_verdict_by_node(v);
	for (size_t i = 0; i < v->findings.n;) {
		const struct finding *a = &v->findings.items[idx[i]];
		enum status worst = a->status;
		size_t j = i + 1;
		for (; j < v->findings.n; j++) {
			const struct finding *b = &v->findings.items[idx[j]];
			if (!streq(a->check, b->check) || !streq(a->node, b->node))
				break;
			worst = status_worst(worst, b->status);
		}
		if (!room(in)) {
			i = j;
			continue;
		}
		fputs("hvready_check_status{check=", f);
		metrics_label(f, a->check);
		fputs(",node=", f);
		metrics_label(f, a->node ? a->node : "");
		fputs(",status=", f);
		metrics_label(f, status_name(worst));
		fputs("} 1\n", f);
		i = j;
	}
}

static void w_findings(FILE *f, const struct metrics_in *in)
{
	size_t count[_STATUS_MAX] = {0};
	if (!in->v)
		return;
	for (size_t i = 0; i < in->v->findings.n; i++)
		if ((unsigned)in->v->findings.items[i].status < _STATUS_MAX)
			count[in->v->findings.items[i].status]++;
	for (int s = 0; s < _STATUS_MAX; s++)
		fprintf(f, "hvready_findings{status=\"%s\"} %zu\n", status_name(s), count[s]);
}

static void w_vm_live_migratable(FILE *f, const struct metrics_in *in)
{
	for (size_t i = 0; in->v && i < in->v->vms.n; i++) {
		const struct vm_row *r = &in->v->vms.items[i];
		if (!room(in))
			continue;
		fputs("hvready_vm_live_migratable{namespace=", f);
		metrics_label(f, r->namespace);
		fputs(",name=", f);
		metrics_label(f, r->name);
		fputs(",node=", f);
		metrics_label(f, r->node);
		fprintf(f, "} %d\n", r->can_migrate);
	}
}

static void w_node_reporting(FILE *f, const struct metrics_in *in)
{
	for (size_t i = 0; in->v && i < in->v->n_nodes; i++) {
		if (!room(in))
			continue;
		fputs("hvready_node_reporting{node=", f);
		metrics_label(f, in->v->nodes[i].name);
		fprintf(f, "} %d\n", in->v->nodes[i].reporting);
	}
}

static void w_node_report_age(FILE *f, const struct metrics_in *in)
{
	for (size_t i = 0; in->s && i < in->s->n; i++) {
		const struct store_rec *rec = in->s->entries[i].rec;
		if (!room(in))
			continue;
		int64_t age = engine_report_age_ns(
		    &(struct node_entry){.report = (struct node_report *)&rec->report,
					 .received_ns = rec->received_ns,
					 .generated_mono_ns = rec->generated_mono_ns},
		    in->now_ns, in->now_mono_ns);
		fputs("hvready_node_report_age_seconds{node=", f);
		metrics_label(f, in->s->entries[i].rec->report.node);
		fputs("} ", f);
		seconds(f, age < 0 ? 0 : age);
		fputc('\n', f);
	}
}

static void w_reports_received(FILE *f, const struct metrics_in *in)
{
	fprintf(f, "hvready_reports_received_total %llu\n",
		(unsigned long long)(in->c ? in->c->reports_received : 0));
}

static void w_reports_accepted(FILE *f, const struct metrics_in *in)
{
	fprintf(f, "hvready_reports_accepted_total %llu\n",
		(unsigned long long)(in->s ? in->s->accepted : 0));
}

static void w_reports_stale(FILE *f, const struct metrics_in *in)
{
	fprintf(f, "hvready_reports_stale_total %llu\n",
		(unsigned long long)(in->s ? in->s->stale : 0));
}

static void w_reports_rejected(FILE *f, const struct metrics_in *in)
{
	for (int r = 0; r < _REJECT_MAX; r++)
		fprintf(f, "hvready_report_rejected_total{reason=\"%s\"} %llu\n", reject_names[r],
			(unsigned long long)(in->c ? in->c->rejected[r] : 0));
}

static void w_state_timestamp(FILE *f, const struct metrics_in *in)
{
	if (!in->cs || !in->cs->read_at_ns)
		return;
	fputs("hvready_cluster_state_timestamp_seconds ", f);
	seconds(f, in->cs->read_at_ns);
	fputc('\n', f);
}

static const char *resource_status_label(enum resource_status s)
{
	switch (s) {
	case RES_COLLECTED:
		return "collected";
	case RES_NOT_INSTALLED:
		return "not_installed";
	case RES_FORBIDDEN:
		return "forbidden";
	case RES_FAILED:
		return "failed";
	default:
		return "not_collected";
	}
}

static void w_resource_status(FILE *f, const struct metrics_in *in)
{
	for (int i = 0; in->cs && i < _RES_MAX; i++) {
		_cleanup_free_ char *name = resource_display_name(&resource_defs[i]);
		fputs("hvready_resource_status{resource=", f);
		metrics_label(f, name);
		fprintf(f, ",status=\"%s\"} 1\n", resource_status_label(in->cs->res[i].status));
	}
}

static void w_api_list_duration(FILE *f, const struct metrics_in *in)
{
	for (int i = 0; in->cs && in->cs->live && i < _RES_MAX; i++) {
		if (in->cs->res[i].status != RES_COLLECTED &&
		    in->cs->res[i].status != RES_NOT_INSTALLED)
			continue;
		_cleanup_free_ char *name = resource_display_name(&resource_defs[i]);
		fputs("hvready_api_list_duration_seconds{resource=", f);
		metrics_label(f, name);
		fprintf(f, "} %.6f\n", (double)in->cs->res[i].duration_ns / 1e9);
	}
}

struct family {
	const char *name, *type, *help;
	void (*write)(FILE *f, const struct metrics_in *in);
};

/* The canary in the gates (docs/canary.md#results-in-the-gates): the result
 * the verdict took, and serve --canary-interval's runs. */
static const struct verdict_canary *canary_of(const struct metrics_in *in)
{
	return in->v && in->v->canary.present ? &in->v->canary : NULL;
}

static void w_canary_last_run(FILE *f, const struct metrics_in *in)
{
	const struct verdict_canary *vc = canary_of(in);
	if (!vc)
		return;
	fputs("hvready_canary_last_run_timestamp_seconds{run=", f);
	metrics_label(f, vc->run);
	fputs("} ", f);
	seconds(f, vc->finished_ns);
	fputc('\n', f);
}

static void w_canary_age(FILE *f, const struct metrics_in *in)
{
	const struct verdict_canary *vc = canary_of(in);
	if (!vc)
		return;
	int64_t age = util_sub_sat_i64(in->now_ns, vc->finished_ns);
	fputs("hvready_canary_result_age_seconds ", f);
	seconds(f, age > 0 ? age : 0);
	fputc('\n', f);
}

static void w_canary_stale(FILE *f, const struct metrics_in *in)
{
	const struct verdict_canary *vc = canary_of(in);
	if (vc)
		fprintf(f, "hvready_canary_result_stale %d\n", vc->stale || vc->future);
}

static void w_canary_step(FILE *f, const struct metrics_in *in)
{
	if (!canary_of(in))
		return;
	for (size_t i = 0; i < in->v->findings.n; i++) {
		const struct finding *fd = &in->v->findings.items[i];
		const struct check_info *ci = catalog_find(fd->check);
		if (!ci || ci->source != CHECK_CANARY)
			continue;
		fputs("hvready_canary_step_status{check=", f);
		metrics_label(f, fd->check);
		fputs(",status=", f);
		metrics_label(f, status_name(fd->status));
		fputs("} 1\n", f);
	}
}

static void w_canary_running(FILE *f, const struct metrics_in *in)
{
	if (in->c && in->c->canary_scheduled)
		fprintf(f, "hvready_canary_running %d\n", in->c->canary_running);
}

static void w_canary_runs(FILE *f, const struct metrics_in *in)
{
	if (in->c && in->c->canary_scheduled)
		fprintf(f, "hvready_canary_runs_total %llu\n",
			(unsigned long long)in->c->canary_runs);
}

static void w_canary_skipped(FILE *f, const struct metrics_in *in)
{
	if (in->c && in->c->canary_scheduled)
		fprintf(f, "hvready_canary_runs_skipped_total %llu\n",
			(unsigned long long)in->c->canary_skipped);
}

static void w_evaluations(FILE *f, const struct metrics_in *in)
{
	if (in->c && in->c->serving)
		fprintf(f, "hvready_verdict_evaluations_total %llu\n",
			(unsigned long long)in->c->evaluations);
}

static void w_eval_seconds(FILE *f, const struct metrics_in *in)
{
	if (in->c && in->c->serving && in->c->evaluations)
		fprintf(f, "hvready_verdict_evaluation_seconds %.3f\n",
			(double)in->c->eval_wall_ns / 1e9);
}

static void w_eval_cpu_seconds(FILE *f, const struct metrics_in *in)
{
	if (in->c && in->c->serving && in->c->evaluations)
		fprintf(f, "hvready_verdict_evaluation_cpu_seconds %.3f\n",
			(double)in->c->eval_cpu_ns / 1e9);
}

static void w_eval_nodes(FILE *f, const struct metrics_in *in)
{
	if (in->c && in->c->serving && in->c->evaluations)
		fprintf(f, "hvready_verdict_evaluation_nodes %zu\n", in->c->eval_nodes);
}

static void w_renderings(FILE *f, const struct metrics_in *in)
{
	if (in->c && in->c->serving)
		fprintf(f, "hvready_verdict_renderings_total %llu\n",
			(unsigned long long)in->c->renderings);
}

static void w_series_dropped(FILE *f, const struct metrics_in *in);

/* docs/outputs.md describes each of these; keep the two in step. */
static const struct family families[] = {
    {"hvready_build_info", "gauge", "Build information of the aggregator (always 1).",
     w_build_info},
    {"hvready_verdict_status", "gauge",
     "1 for the overall verdict: the worst status of the four gates.", w_verdict_status},
    {"hvready_verdict_timestamp_seconds", "gauge",
     "Unix time at which the current verdict was computed.", w_verdict_timestamp},
    {"hvready_gate_status", "gauge",
     "1 for the current status of each readiness gate, 0 for the other statuses.", w_gate_status},
    {"hvready_gate_blockers", "gauge",
     "Findings that decide each gate (those with the gate's status; 0 when it passes).",
     w_gate_blockers},
    {"hvready_check_status", "gauge",
     "1 for the worst current status of each check on each node (node=\"\" for "
     "cluster-wide checks).",
     w_check_status},
    {"hvready_findings", "gauge", "Findings in the current verdict, by status.", w_findings},
    {"hvready_vm_live_migratable", "gauge",
     "1 if the running VM can live-migrate now, 0 if not (the reasons are in the verdict).",
     w_vm_live_migratable},
    {"hvready_node_reporting", "gauge",
     "1 if the node has a fresh agent report, 0 if not (every Kubernetes node and every "
     "reporting node).",
     w_node_reporting},
    {"hvready_node_report_age_seconds", "gauge",
     "Age of the node's latest report: since the agent generated it.", w_node_report_age},
    {"hvready_reports_received_total", "counter",
     "Node reports received on POST /v1/reports, accepted or not.", w_reports_received},
    {"hvready_reports_accepted_total", "counter",
     "Node reports accepted and stored (newer than the one held for the node).",
     w_reports_accepted},
    {"hvready_reports_stale_total", "counter",
     "Node reports accepted but ignored: not newer than the one held for the node.",
     w_reports_stale},
    {"hvready_report_rejected_total", "counter",
     "Node reports rejected, by reason (unauthorized 401, forbidden 403, bad_report 400, "
     "unsupported_media_type 415, too_large 413, other).",
     w_reports_rejected},
    {"hvready_cluster_state_timestamp_seconds", "gauge",
     "Unix time at which the cluster state in use was read.", w_state_timestamp},
    {"hvready_resource_status", "gauge",
     "1 for how each Kubernetes resource was obtained: collected, not_installed, forbidden, "
     "failed or not_collected.",
     w_resource_status},
    {"hvready_api_list_duration_seconds", "gauge",
     "How long the latest list of each resource took (live API only).", w_api_list_duration},
    {"hvready_canary_last_run_timestamp_seconds", "gauge",
     "Unix time at which the canary run whose result the verdict takes ended (run=its id).",
     w_canary_last_run},
    {"hvready_canary_result_age_seconds", "gauge",
     "Age of that canary result: since its run ended.", w_canary_age},
    {"hvready_canary_result_stale", "gauge",
     "1 if that canary result is older than --canary-max-age (or from the future): no proof.",
     w_canary_stale},
    {"hvready_canary_step_status", "gauge",
     "1 for the status each canary step counts with in the gates (stale: WARN).", w_canary_step},
    {"hvready_canary_running", "gauge", "serve --canary-interval: 1 while a canary run is going.",
     w_canary_running},
    {"hvready_canary_runs_total", "counter",
     "serve --canary-interval: canary runs that ended, with a result or not.", w_canary_runs},
    {"hvready_canary_runs_skipped_total", "counter",
     "serve --canary-interval: runs not started because the last was still going.",
     w_canary_skipped},
    {"hvready_verdict_evaluations_total", "counter",
     "Verdicts evaluated (each one served until the next).", w_evaluations},
    {"hvready_verdict_evaluation_seconds", "gauge",
     "The last evaluation's wall time, from its snapshot to its verdict served.", w_eval_seconds},
    {"hvready_verdict_evaluation_cpu_seconds", "gauge",
     "The evaluator thread's CPU time for the last evaluation.", w_eval_cpu_seconds},
    {"hvready_verdict_evaluation_nodes", "gauge",
     "The node reports the last evaluation took (its snapshot of the store).", w_eval_nodes},
    {"hvready_verdict_renderings_total", "counter",
     "Text, Markdown and HTML renderings of a verdict made; a view asked for again of the "
     "same verdict is sent from the one kept.",
     w_renderings},
    {"hvready_metrics_series_dropped", "gauge",
     "Series of a family not written in this scrape: past the most written per family "
     "(METRICS_SERIES_MAX).",
     w_series_dropped},
};

static void w_series_dropped(FILE *f, const struct metrics_in *in)
{
	for (size_t i = 0; i < ELEMENTSOF(families); i++)
		if (in->dropped_by_family[i])
			fprintf(f, "hvready_metrics_series_dropped{family=\"%s\"} %zu\n",
				families[i].name, in->dropped_by_family[i]);
}

void metrics_render(FILE *f, const struct verdict *v, const struct store *s,
		    const struct cluster_state *cs, const struct metrics_counters *c,
		    int64_t now_ns)
{
	size_t series = 0, dropped[ELEMENTSOF(families)] = {0};
	struct metrics_in in = {.v = v,
				.s = s,
				.cs = cs,
				.c = c,
				.now_ns = now_ns,
				.now_mono_ns = util_now_mono_ns(),
				.series = &series,
				.dropped_by_family = dropped};
	for (size_t i = 0; i < ELEMENTSOF(families); i++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", families[i].name, families[i].help,
			families[i].name, families[i].type);
		series = 0;
		in.dropped = &dropped[i];
		families[i].write(f, &in);
	}
}
