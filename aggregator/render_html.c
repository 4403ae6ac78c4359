#include "render_html.h"

#include <string.h>

#include "catalog.h"
#include "render_text.h"

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

static void esc_value(FILE *f, const struct value *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	render_text_value(m, v);
	fclose(m);
	esc(f, buf);
	free(buf);
}

static const char *cls(enum status s)
{
	switch (s) {
	case STATUS_PASS:
		return "pass";
	case STATUS_WARN:
		return "warn";
	case STATUS_FAIL:
		return "fail";
	case STATUS_UNKNOWN:
		return "unknown";
	default:
		return "skip";
	}
}

static const char css[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em;color:#1b1b1b}"
    "h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.15em;margin:1.6em 0 .5em;border-bottom:"
    "1px solid #ccc}.meta{color:#555}"
    ".st{display:inline-block;min-width:5.5em;text-align:center;border-radius:3px;padding:0 .3em;"
    "font-weight:600;font-size:.85em}"
    ".pass{background:#d6f5d6;color:#145214}.warn{background:#fff0c2;color:#6b4e00}"
    ".fail{background:#ffd1d1;color:#8a0000}.unknown{background:#e8d9f7;color:#4b2a73}"
    ".skip{background:#eee;color:#666}"
    ".gates{display:flex;gap:1em;flex-wrap:wrap}.gate{border:1px solid #ccc;border-radius:6px;"
    "padding:.6em 1em;min-width:12em}.gate h3{margin:0 0 .3em;font-size:1em}"
    "table{border-collapse:collapse;margin:.4em 0}th,td{border:1px solid #ddd;padding:.25em .5em;"
    "vertical-align:top;text-align:left}th{background:#f4f4f4}"
    "td.cell{text-align:center;padding:0}td.cell span{display:block;padding:.25em .4em}"
    "details{margin:.25em 0}summary{cursor:pointer}.ev{margin:.2em 0 .2em 1.5em;color:#333}"
    ".ev code{background:#f6f6f6;padding:0 .2em}.fix{margin:.2em 0 .4em 1.5em}"
    ".matrix th.rot{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;"
    "font-weight:normal}"
    "@media print{details{display:block}details>summary{list-style:none}"
    ".gate{break-inside:avoid}body{margin:0}}";

static void finding_detail(FILE *f, const struct finding *fd, bool open)
{
	fprintf(f, "<details class=\"finding\" data-check=\"");
	esc(f, fd->check);
	fprintf(f, "\" data-status=\"%s\"%s><summary><span class=\"st %s\">%s</span> <code>",
		status_name(fd->status), open ? " open" : "", cls(fd->status),
		status_name(fd->status));
	esc(f, fd->check);
	fputs("</code>", f);
	if (fd->node) {
		fputs(" on <b>", f);
		esc(f, fd->node);
		fputs("</b>", f);
	}
	if (fd->object) {
		fputs(" <i>", f);
		esc(f, fd->object);
		fputs("</i>", f);
	}
	fputs(": ", f);
	esc(f, fd->message);
	fputs("</summary>", f);
	if (fd->evidence.n) {
		fputs("<div class=\"ev\">", f);
		for (size_t i = 0; i < fd->evidence.n; i++) {
			esc(f, fd->evidence.items[i].key);
			fputs(": <code>", f);
			esc_value(f, &fd->evidence.items[i].val);
			fputs("</code><br>", f);
		}
		fputs("</div>", f);
	}
	if (fd->remediation && *fd->remediation && fd->status != STATUS_PASS) {
		fputs("<div class=\"fix\">&#8594; ", f);
		esc(f, fd->remediation);
		fputs("</div>", f);
	}
	fputs("</details>\n", f);
}

/* Node × host-check matrix: the worst status of each check on each node. */
static void matrix(FILE *f, const struct verdict *v)
{
	struct strv checks = {0};
	for (size_t i = 0; i < catalog_len; i++)
		if (catalog[i].source == CHECK_HOST)
			strv_add(&checks, catalog[i].id);
	fputs("<table class=\"matrix\" id=\"matrix\"><tr><th>node</th>", f);
	for (size_t c = 0; c < checks.n; c++) {
		fputs("<th class=\"rot\">", f);
		esc(f, checks.items[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t n = 0; n < v->n_nodes; n++) {
		const struct verdict_node *node = &v->nodes[n];
		fputs("<tr><th>", f);
		esc(f, node->name);
		fputs("</th>", f);
		for (size_t c = 0; c < checks.n; c++) {
			bool found = false;
			enum status worst = STATUS_SKIP;
			const char *msg = "no report";
			for (size_t i = 0; i < v->findings.n; i++) {
				const struct finding *fd = &v->findings.items[i];
				if (!streq(fd->check, checks.items[c]) ||
				    !streq(fd->node, node->name))
					continue;
				if (!found ||
				    status_severity(fd->status) > status_severity(worst)) {
					worst = fd->status;
					msg = fd->message;
				}
				found = true;
			}
			if (!found)
				worst = STATUS_UNKNOWN;
			fprintf(f, "<td class=\"cell\" data-node=\"");
			esc(f, node->name);
			fputs("\" data-check=\"", f);
			esc(f, checks.items[c]);
			fprintf(f, "\" data-status=\"%s\"><span class=\"%s\" title=\"",
				status_name(worst), cls(worst));
			esc(f, msg);
			fprintf(f, "\">%s</span></td>", status_name(worst));
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	strv_clear(&checks);
}

void verdict_render_html(FILE *f, const struct verdict *v, int gate, int refresh_s)
{
	char ts[64];
	util_format_rfc3339(v->generated_ns, ts, sizeof(ts));
	enum status overall = verdict_status(v, gate);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n", f);
	if (refresh_s > 0)
		fprintf(f, "<meta http-equiv=\"refresh\" content=\"%d\">\n", refresh_s);
	fprintf(f, "<title>hvready verdict: %s</title>\n<style>%s</style></head><body>\n",
		status_name(overall), css);
	fprintf(f, "<h1>hvready verdict: <span class=\"st %s\" id=\"overall\">%s</span></h1>\n",
		cls(overall), status_name(overall));
	fprintf(f, "<p class=\"meta\">Generated %s &middot; %s &middot; ", ts,
		v->live ? "live" : "offline");
	esc(f, v->source);
	fprintf(f, " &middot; Harvester installed: %s</p>\n",
		v->harvester_installed ? "yes" : "no");

	fputs("<h2>Gates</h2><div class=\"gates\">\n", f);
	for (int g = 0; g < _GATE_MAX; g++) {
		const struct gate_result *gr = &v->gates[g];
		fprintf(f,
			"<div class=\"gate\" id=\"gate-%s\" data-status=\"%s\"><h3>%s <span "
			"class=\"st %s\">%s</span></h3>",
			gate_name(g), status_name(gr->status), gate_name(g), cls(gr->status),
			status_name(gr->status));
		if (!gr->n_blockers)
			fputs("no blockers", f);
		for (size_t i = 0; i < gr->n_blockers; i++)
			finding_detail(f, &v->findings.items[gr->blockers[i]], false);
		fputs("</div>\n", f);
	}
	fputs("</div>\n", f);

	fputs("<h2>Nodes &times; host checks</h2>\n", f);
	matrix(f, v);

	fputs("<h2>Live migration</h2>\n", f);
	if (!v->vms.n) {
		fputs("<p>No running VMs.</p>\n", f);
	} else {
		fputs("<table id=\"vms\"><tr><th>VM</th><th>node</th><th>can live-migrate</th>"
		      "<th>why not</th></tr>\n",
		      f);
		for (size_t i = 0; i < v->vms.n; i++) {
			const struct vm_row *r = &v->vms.items[i];
			fputs("<tr class=\"vm\"><td>", f);
			esc(f, r->namespace);
			fputc('/', f);
			esc(f, r->name);
			fputs("</td><td>", f);
			esc(f, r->node);
			fprintf(f, "</td><td><span class=\"st %s\">%s</span></td><td>",
				r->can_migrate ? "pass" : "fail", r->can_migrate ? "yes" : "no");
			for (size_t j = 0; j < r->reasons.n; j++) {
				if (j)
					fputs("<br>", f);
				esc(f, r->reasons.items[j]);
			}
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}

	fputs("<h2>All findings</h2>\n<div id=\"findings\">\n", f);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < v->findings.n; i++) {
			const struct finding *fd = &v->findings.items[i];
			bool bad = fd->status == STATUS_FAIL || fd->status == STATUS_UNKNOWN ||
				   fd->status == STATUS_WARN;
			/* Problems first, the rest after. */
			if ((pass == 0) != bad)
				continue;
			finding_detail(f, fd, false);
		}
	fputs("</div>\n</body></html>\n", f);
}
