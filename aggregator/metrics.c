#include "metrics.h"

#include <string.h>

#include "catalog.h"

static const char *const reject_names[_REJECT_MAX] = {
    [REJECT_UNAUTHORIZED] = "unauthorized", [REJECT_FORBIDDEN] = "forbidden",
    [REJECT_BAD_REPORT] = "bad_report",	    [REJECT_MEDIA_TYPE] = "unsupported_media_type",
    [REJECT_TOO_LARGE] = "too_large",	    [REJECT_OTHER] = "other",
};

const char *metrics_reject_name(enum reject_reason r)
{
	return (unsigned)r < _REJECT_MAX ? reject_names[r] : "other";
}

void metrics_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void header(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The worst status per (check, node): one series each, value 1. */
static void check_series(FILE *f, const struct verdict *v)
{
	bool *done = xcalloc(v->findings.n ? v->findings.n : 1, sizeof(bool));
	for (size_t i = 0; i < v->findings.n; i++) {
		if (done[i])
			continue;
		const struct finding *a = &v->findings.items[i];
		enum status worst = a->status;
		for (size_t j = i + 1; j < v->findings.n; j++) {
			const struct finding *b = &v->findings.items[j];
			if (!done[j] && streq(a->check, b->check) && streq(a->node, b->node)) {
				worst = status_worst(worst, b->status);
				done[j] = true;
			}
		}
		fputs("hvready_check_status{check=", f);
		metrics_label(f, a->check);
		fputs(",node=", f);
		metrics_label(f, a->node ? a->node : "");
		fputs(",status=", f);
		metrics_label(f, status_name(worst));
		fputs("} 1\n", f);
	}
	free(done);
}

void metrics_render(FILE *f, const struct verdict *v, const struct store *s,
		    const struct cluster_state *cs, const struct metrics_counters *c,
		    int64_t now_ns)
{
	header(f, "hvready_build_info", "gauge", "Build information of the aggregator.");
	fputs("hvready_build_info{version=", f);
	metrics_label(f, HVREADY_VERSION);
	fputs("} 1\n", f);

	if (v) {
		header(f, "hvready_gate_status", "gauge",
		       "1 for the current status of each readiness gate, 0 for the others.");
		for (int g = 0; g < _GATE_MAX; g++)
			for (int st = 0; st < _STATUS_MAX; st++) {
				if (st == STATUS_SKIP)
					continue;
				fputs("hvready_gate_status{gate=", f);
				metrics_label(f, gate_name(g));
				fputs(",status=", f);
				metrics_label(f, status_name(st));
				fprintf(f, "} %d\n", v->gates[g].status == (enum status)st);
			}
		header(f, "hvready_check_status", "gauge",
		       "1 for the worst current status of each check on each node (node=\"\" for "
		       "cluster-wide checks).");
		check_series(f, v);
	}

	header(f, "hvready_node_report_age_seconds", "gauge",
	       "Seconds since the node's latest report was received.");
	for (size_t i = 0; s && i < s->n; i++) {
		int64_t age = now_ns - s->entries[i].received_ns;
		fputs("hvready_node_report_age_seconds{node=", f);
		metrics_label(f, s->entries[i].report->node);
		fprintf(f, "} %.3f\n", (double)(age < 0 ? 0 : age) / 1e9);
	}

	header(f, "hvready_reports_received_total", "counter",
	       "Node reports received on POST /v1/reports, accepted or not.");
	fprintf(f, "hvready_reports_received_total %llu\n",
		(unsigned long long)(c ? c->reports_received : 0));
	header(f, "hvready_report_rejected_total", "counter", "Node reports rejected, by reason.");
	for (int r = 0; r < _REJECT_MAX; r++) {
		fputs("hvready_report_rejected_total{reason=", f);
		metrics_label(f, reject_names[r]);
		fprintf(f, "} %llu\n", (unsigned long long)(c ? c->rejected[r] : 0));
	}

	header(f, "hvready_api_list_duration_seconds", "gauge",
	       "How long the latest list of each resource took (live API only).");
	for (int i = 0; cs && cs->live && i < _RES_MAX; i++) {
		if (cs->res[i].status != RES_COLLECTED && cs->res[i].status != RES_NOT_INSTALLED)
			continue;
		_cleanup_free_ char *name = resource_display_name(&resource_defs[i]);
		fputs("hvready_api_list_duration_seconds{resource=", f);
		metrics_label(f, name);
		fprintf(f, "} %.6f\n", (double)cs->res[i].duration_ns / 1e9);
	}
}
