/*
 * The verdict as one self-contained HTML page, for a change board and for the
 * aggregator's dashboard. Order of reading: the overall verdict, the four
 * gates with what blocks each, the blockers in full (evidence, remediation),
 * the running VMs that cannot live-migrate, the node × host-check matrix, and
 * every finding. No script and no external asset: it reads the same from a
 * file, a mail attachment or a print-out. Hovering (or focusing) a matrix cell
 * shows the finding's evidence; every finding expands to its evidence and
 * remediation; printing expands the problems.
 *
 * The page is also well-formed XML (void elements closed, attributes quoted,
 * no named entities), so tests can parse it strictly and compare every
 * finding with the JSON verdict.
 */
#include "render_html.h"

#include "finding_groups.h"

#include <string.h>

#include "catalog.h"
#include "render_json.h"
#include "render_text.h"
#include "render_verdict.h"

/* Blockers are shown expanded up to this many; beyond, collapsed. */
#define OPEN_BLOCKERS_MAX 40
/* A gate card lists this many of its blockers by name. */
#define GATE_CARD_LIST 6

static void esc(FILE *f, const char *s)
{
	_cleanup_free_ char *safe = render_text_is_plain(s) ? NULL : render_text_sanitize(s);
	for (const char *p = safe ? safe : s ? s : ""; *p; p++) {
		switch (*p) {
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
			fputc(*p, f);
		}
	}
}

/* Text a check wrote: `…` pairs become <code> (commands to copy). */
static void esc_rich(FILE *f, const char *s)
{
	const char *p = s ? s : "";
	while (*p) {
		const char *open = strchr(p, '`');
		const char *close = open ? strchr(open + 1, '`') : NULL;
		if (!close || close == open + 1) {
			esc(f, p);
			return;
		}
		_cleanup_free_ char *before = xstrndup(p, (size_t)(open - p));
		_cleanup_free_ char *code = xstrndup(open + 1, (size_t)(close - open - 1));
		esc(f, before);
		fputs("<code>", f);
		esc(f, code);
		fputs("</code>", f);
		p = close + 1;
	}
}

/* A remediation: one step as a paragraph (as before steps existed), several
 * as a numbered list. A command (`…` in a step) is a <code> the reader
 * selects whole with one click (user-select:all), to copy without script. */
static void fix_html(FILE *f, const char *remediation, const char *cls_attr)
{
	struct strv steps = {0};
	remedy_steps(remediation, &steps);
	if (steps.n == 1) {
		fprintf(f, "<p%s><b>Remediation:</b> ", cls_attr);
		esc_rich(f, steps.items[0]);
		fputs("</p>", f);
	} else if (steps.n > 1) {
		fprintf(f, "<div%s><b>Remediation:</b><ol class=\"steps\">", cls_attr);
		for (size_t i = 0; i < steps.n; i++) {
			fputs("<li>", f);
			esc_rich(f, steps.items[i]);
			fputs("</li>", f);
		}
		fputs("</ol></div>", f);
	}
	strv_clear(&steps);
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

static bool is_problem(enum status s)
{
	return s == STATUS_FAIL || s == STATUS_UNKNOWN || s == STATUS_WARN;
}

static const char *gate_title(enum gate g)
{
	switch (g) {
	case GATE_PREINSTALL:
		return "Installing Harvester onto this RKE2 cluster";
	case GATE_PLATFORM:
		return "Harvester platform health";
	case GATE_RWX:
		return "Longhorn RWX volumes (NFS share)";
	default:
		return "Live migration of running VMs";
	}
}

static const char *verdict_words(enum status s)
{
	switch (s) {
	case STATUS_PASS:
		return "Ready";
	case STATUS_WARN:
		return "Ready, with warnings";
	case STATUS_FAIL:
		return "Not ready";
	default:
		return "Undecided: evidence is missing";
	}
}

static const char css[] =
    ":root{--fail:#b00020;--fail-bg:#fde3e6;--warn:#7a5200;--warn-bg:#fff1c7;"
    "--unk:#5b2a86;--unk-bg:#efe3fa;--pass:#1c6b2a;--pass-bg:#ddf4e1;--skip:#5f6368;"
    "--skip-bg:#eceff1;--line:#d6d9dc}"
    "*{box-sizing:border-box}"
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "margin:0 auto;padding:1.2em 1.5em 3em;max-width:78em;color:#1d1f21;background:#fff}"
    "h1{font-size:1.6em;margin:0 0 .2em}h2{font-size:1.2em;margin:1.8em 0 .6em;"
    "padding-bottom:.2em;border-bottom:2px solid var(--line)}h3{font-size:1.05em;margin:0}"
    "code{font:.9em/1.3 ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;"
    "background:#f3f4f5;border-radius:3px;padding:0 .25em;overflow-wrap:anywhere}"
    "a{color:inherit}.meta{color:#555;margin:.2em 0}"
    ".st{display:inline-block;min-width:5.6em;text-align:center;border-radius:3px;"
    "padding:0 .4em;font-weight:700;font-size:.8em;letter-spacing:.03em;border:1px solid;"
    "-webkit-print-color-adjust:exact;print-color-adjust:exact}"
    ".st.pass{color:var(--pass);background:var(--pass-bg)}"
    ".st.warn{color:var(--warn);background:var(--warn-bg)}"
    ".st.fail{color:var(--fail);background:var(--fail-bg)}"
    ".st.unknown{color:var(--unk);background:var(--unk-bg)}"
    ".st.skip{color:var(--skip);background:var(--skip-bg)}"
    ".banner{border-left:.5em solid;padding:.6em 1em;margin:.8em 0;background:#f7f7f8}"
    ".banner.fail{border-color:var(--fail)}.banner.warn{border-color:#d4a000}"
    ".banner.unknown{border-color:var(--unk)}.banner.pass{border-color:var(--pass)}"
    ".banner b{font-size:1.15em}"
    "nav{margin:.6em 0;font-size:.9em}nav a{margin-right:1em}"
    ".gates{display:grid;grid-template-columns:repeat(auto-fit,minmax(16em,1fr));gap:.8em}"
    ".gate{border:1px solid var(--line);border-top:.35em solid;border-radius:4px;"
    "padding:.6em .8em;break-inside:avoid}"
    ".gate.fail{border-top-color:var(--fail)}.gate.warn{border-top-color:#d4a000}"
    ".gate.unknown{border-top-color:var(--unk)}.gate.pass{border-top-color:var(--pass)}"
    ".gate h3{display:flex;justify-content:space-between;align-items:center;gap:.5em}"
    ".gate .what{color:#555;font-size:.88em;margin:.1em 0 .4em}"
    ".gate ul{margin:.2em 0 0;padding-left:1.1em;font-size:.88em}"
    ".gate li{margin:.15em 0;overflow-wrap:anywhere}.gate .none{color:#555;font-size:.88em}"
    "details.finding{border:1px solid var(--line);border-left:.3em solid var(--line);"
    "border-radius:3px;margin:.35em 0;padding:.25em .6em;break-inside:avoid}"
    "details.fail{border-left-color:var(--fail)}details.warn{border-left-color:#d4a000}"
    "details.unknown{border-left-color:var(--unk)}details.pass{border-left-color:var(--pass)}"
    "details:target{outline:2px solid #1a73e8}"
    "summary{cursor:pointer;overflow-wrap:anywhere}summary .subj{font-weight:600}"
    "a.up{font-size:.85em;color:#555}"
    ".msg{white-space:pre-line}"
    ".body{margin:.4em 0 .2em 1.2em}.blocks{margin:.2em 0;font-size:.88em;color:#444}"
    ".tag{display:inline-block;border:1px solid var(--line);border-radius:2em;"
    "padding:0 .5em;margin-right:.3em}"
    "table{border-collapse:collapse;margin:.4em 0}"
    "th,td{border:1px solid var(--line);padding:.25em .5em;vertical-align:top;text-align:left}"
    "th{background:#f3f4f5}"
    "table.ev{font-size:.9em;width:100%}table.ev th{width:1%;white-space:nowrap;"
    "font-weight:600;background:#fafafa}"
    "table.ev td code{white-space:pre-wrap;background:none;padding:0}"
    ".fix{margin:.4em 0;padding:.3em .6em;background:#eef5ff;border-radius:3px}"
    ".fix{white-space:pre-wrap}.fix ol{margin:.2em 0;padding-left:1.6em;white-space:normal}"
    ".fix li{margin:.15em 0;white-space:pre-wrap}"
    ".fix code,.tip code{user-select:all;-webkit-user-select:all;white-space:pre-wrap}"
    ".noev{color:#555;font-size:.9em}"
    ".scroll{overflow-x:auto}"
    "details.fold{margin:.5em 0}details.fold>summary{cursor:pointer;color:var(--skip)}"
    "ul.gate-nodes{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3em 1.5em}"
    "table.matrix td.cell{padding:0;text-align:center;position:relative;min-width:3.2em}"
    "table.matrix td.cell>a,table.matrix td.cell>span{display:block;padding:.2em .25em;"
    "text-decoration:none;font-size:.72em;font-weight:700}"
    "td.cell.pass{background:var(--pass-bg);color:var(--pass)}"
    "td.cell.warn{background:var(--warn-bg);color:var(--warn)}"
    "td.cell.fail{background:var(--fail-bg);color:var(--fail)}"
    "td.cell.unknown{background:var(--unk-bg);color:var(--unk)}"
    "td.cell.skip{background:var(--skip-bg);color:var(--skip)}td.cell.none{color:#999}"
    "table.matrix td.cell{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
    "table.matrix th.rot{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;"
    "font-weight:500;font-size:.85em;padding:.4em .2em}"
    "table.matrix th.node{white-space:nowrap}table.matrix th.node small{display:block;"
    "font-weight:400;color:#555}"
    ".tip{display:none;position:absolute;z-index:5;left:50%;top:100%;width:26em;"
    "text-align:left;background:#fff;color:#1d1f21;border:1px solid #999;border-radius:4px;"
    "box-shadow:0 2px 8px rgba(0,0,0,.25);padding:.4em .6em;font-size:.82em;font-weight:400}"
    "td.cell:hover .tip,td.cell:focus-within .tip,td.cell:focus .tip{display:block}"
    "td.cell:nth-last-child(-n+5) .tip{left:auto;right:40%}"
    ".tip p{margin:.3em 0 0}.tip dl{margin:.3em 0 0}.tip dt{font-weight:600}.tip dd{margin:0 0 "
    ".2em 1em;"
    "overflow-wrap:anywhere;white-space:pre-wrap}"
    "table.vms{width:100%}table.vms td:nth-child(-n+3){white-space:nowrap}"
    "tr.vm.no td:first-child{font-weight:600}ul.why{margin:0;padding-left:1.1em}"
    "footer{margin-top:2em;color:#666;font-size:.85em}"
    "table.board{border-collapse:collapse;margin:.5em 0}table.board caption{text-align:left;"
    "font-weight:600}table.board th{text-align:left;padding-right:1em;font-weight:normal;"
    "color:#555}.tag.waived{background:#eee;color:#333}"
    "@media print{"
    "@page{margin:12mm}"
    "body{font-size:10pt;max-width:none;padding:0}"
    "nav,.tip,.reload,.screen{display:none}"
    "a{text-decoration:none}"
    "h2{break-after:avoid}"
    "details.problem:not(.blocking)::details-content{content-visibility:visible;display:block}"
    "details.problem>summary{list-style:none}"
    "details.finding,.gate,tr{break-inside:avoid}"
    ".gates{grid-template-columns:1fr 1fr}"
    "table.ev td code{white-space:pre-wrap}"
    "}";

static void finding_attrs(FILE *f, const struct finding *fd)
{
	fputs(" data-check=\"", f);
	esc(f, fd->check);
	fprintf(f, "\" data-status=\"%s\"", status_name(fd->status));
	if (fd->node) {
		fputs(" data-node=\"", f);
		esc(f, fd->node);
		fputc('"', f);
	}
	if (fd->object) {
		fputs(" data-object=\"", f);
		esc(f, fd->object);
		fputc('"', f);
	}
}

static void evidence_table(FILE *f, const struct finding *fd)
{
	if (!fd->evidence.n) {
		fputs("<p class=\"noev\">No evidence recorded.</p>", f);
		return;
	}
	fputs("<table class=\"ev\">", f);
	for (size_t i = 0; i < fd->evidence.n; i++) {
		_cleanup_free_ char *val = render_text_value_str(&fd->evidence.items[i].val);
		fputs("<tr><th>", f);
		esc(f, fd->evidence.items[i].key);
		fputs("</th><td><code>", f);
		esc(f, val);
		fputs("</code></td></tr>", f);
	}
	fputs("</table>", f);
}

/* One finding, expandable to its evidence and remediation. id_prefix "f"
 * (all findings) or "b" (blockers), so each has its own anchor. */
/* A card standing for several findings (a group of nodes), or NULL; up: the
 * anchor of the blocker card a finding of "All findings" belongs to. */
struct detail_opts {
	const struct finding_group *group;
	size_t up;
	const struct waiver *waived; /* --waivers: shown, counted toward no gate */
};

static void finding_detail_ex(FILE *f, const struct finding *fd, size_t idx, const char *id_prefix,
			      unsigned blocks, bool open, const struct detail_opts *o);

static void finding_detail_ex(FILE *f, const struct finding *fd, size_t idx, const char *id_prefix,
			      unsigned blocks, bool open, const struct detail_opts *o)
{
	/* In "All findings", a blocker is already printed in full above it. */
	bool repeat = blocks && streq(id_prefix, "f");
	fprintf(f, "<details class=\"finding %s%s%s\" id=\"%s-%zu\"", cls(fd->status),
		is_problem(fd->status) ? " problem" : "", repeat ? " blocking" : "", id_prefix,
		idx);
	finding_attrs(f, fd);
	if (o->group && o->group->n > 1) {
		/* The findings this card stands for, by their index in the JSON. */
		fputs(" data-members=\"", f);
		for (size_t i = 0; i < o->group->n; i++)
			fprintf(f, "%s%zu", i ? " " : "", o->group->members[i]);
		fputc('"', f);
	}
	if (o->waived)
		fputs(" data-waived=\"true\"", f);
	if (open)
		fputs(" open=\"open\"", f);
	fprintf(f, "><summary><span class=\"st %s\">%s</span> <code class=\"check\">",
		cls(fd->status), status_name(fd->status));
	esc(f, fd->check);
	fputs("</code> ", f);
	_cleanup_free_ char *subject =
	    o->group && o->group->n > 1 ? xasprintf("%s%s%zu nodes", fd->object ? fd->object : "",
						    fd->object ? " on " : "", o->group->n)
					: render_verdict_subject(fd);
	if (*subject) {
		fputs("<span class=\"subj\">", f);
		esc(f, subject);
		fputs("</span>: ", f);
	}
	fputs("<span class=\"msg\">", f);
	esc(f, fd->message);
	fputs("</span>", f);
	if (repeat)
		fprintf(f, " <a class=\"up\" href=\"#b-%zu\">(blocker)</a>", o->up);
	_cleanup_free_ char *note = o->waived ? waiver_note(o->waived) : NULL;
	if (note) {
		fputs(" <span class=\"tag waived\">", f);
		esc(f, note);
		fputs("</span>", f);
	}
	fputs("</summary><div class=\"body\">", f);
	if (note)
		fputs("<p class=\"waived\">Waived: counts toward no gate.</p>", f);
	if (o->group && o->group->n > 1) {
		fprintf(f, "<p class=\"nodes\">On %zu nodes: ", o->group->n);
		for (size_t i = 0; i < o->group->n; i++) {
			if (i)
				fputs(", ", f);
			esc(f, o->group->names[i]);
		}
		fputs("</p>", f);
	}
	if (blocks) {
		fputs("<p class=\"blocks\">Blocks: ", f);
		for (int g = 0; g < _GATE_MAX; g++)
			if (blocks & (1u << g))
				fprintf(f, "<a class=\"tag\" href=\"#gate-%s\">%s</a>",
					gate_name(g), gate_name(g));
		fputs("</p>", f);
	}
	evidence_table(f, fd);
	if (fd->remediation && *fd->remediation && fd->status != STATUS_PASS &&
	    fd->status != STATUS_SKIP) {
		fix_html(f, fd->remediation, " class=\"fix\"");
	}
	/* The check's page, the same URL as the JSON's doc_url; only an http(s)
	 * or relative one becomes a link (tests/tools/check_html.py). */
	_cleanup_free_ char *doc = render_doc_url(fd->check);
	if (render_doc_url_linkable(doc)) {
		fputs("<p class=\"doc\"><a class=\"doc\" href=\"", f);
		esc(f, doc);
		fputs("\">", f);
		esc(f, fd->check);
		fputs(" documentation</a></p>", f);
	}
	fputs("</div></details>\n", f);
}

/* The versions read from the cluster, and each outside the support matrix. */
static void html_versions(FILE *f, const struct cluster_versions *cv)
{
	_cleanup_free_ char *line = cluster_versions_line(cv);
	fputs("<p class=\"meta\" id=\"versions\">Versions: ", f);
	esc(f, line ? line : "none found in the cluster state");
	fputs("</p>\n", f);
	for (int c = 0; c < _VC_MAX; c++)
		if (cv->c[c].note) {
			fputs("<p class=\"meta version-note\">Note: ", f);
			esc(f, cv->c[c].note);
			fputs("</p>\n", f);
		}
}

/* The change-board header (docs/change-board.md). */
static void html_board(FILE *f, const struct verdict *v)
{
	struct report_header_row rows[REPORT_HEADER_ROWS];
	report_header_rows(&v->header, rows);
	fputs("<table class=\"board\" id=\"change-board\"><caption>Change board</caption>", f);
	for (int i = 0; i < REPORT_HEADER_ROWS; i++) {
		fprintf(f, "<tr data-field=\"%s\"><th>%s</th><td>", rows[i].key, rows[i].label);
		esc(f, rows[i].value);
		fputs("</td></tr>", f);
	}
	fputs("</table>\n", f);
	report_header_rows_clear(rows);
}

static void html_waivers(FILE *f, const struct verdict *v)
{
	if (!v->have_waivers)
		return;
	fputs("<section id=\"waivers\"><h2>Waivers</h2>\n<p class=\"meta\">From ", f);
	esc(f, v->waivers.file);
	size_t n = verdict_waived_count(v);
	fprintf(f, ": %zu finding%s waived. UNKNOWN findings are never waived.</p>\n", n,
		n == 1 ? "" : "s");
	if (v->waivers.n)
		fputs("<table class=\"waivers\"><tr><th>State</th><th>Check</th><th>Node</th>"
		      "<th>Object</th><th>Reason</th><th>Approved by</th><th>Expires</th>"
		      "<th>Findings</th></tr>",
		      f);
	for (size_t i = 0; i < v->waivers.n; i++) {
		const struct waiver *w = &v->waivers.items[i];
		fprintf(f, "<tr class=\"%s\" data-state=\"%s\"><td>%s</td><td><code>",
			waiver_state(w), waiver_state(w), waiver_state(w));
		esc(f, w->check);
		fputs("</code></td>", f);
		const char *cells[] = {w->node ? w->node : "", w->object ? w->object : "",
				       w->reason, w->approved_by,
				       w->expires ? w->expires : "no expiry"};
		for (size_t k = 0; k < ELEMENTSOF(cells); k++) {
			fputs("<td>", f);
			esc(f, cells[k]);
			fputs("</td>", f);
		}
		fprintf(f, "<td>%zu", w->applied);
		if (w->unknown_matched)
			fprintf(f, " (%zu UNKNOWN not waived)", w->unknown_matched);
		fputs("</td></tr>", f);
	}
	if (v->waivers.n)
		fputs("</table>\n", f);
	fputs("</section>\n", f);
}

/* The query of a view link: the gate and pause the reader chose, then
 * status (one of the fixed filters). Only fixed words: nothing from the
 * request is echoed. */
static void view_query(FILE *f, int gate, int refresh_s, const char *status)
{
	const char *sep = "?";
	if (gate >= 0 && gate < _GATE_MAX) {
		fprintf(f, "%sgate=%s", sep, gate_name(gate));
		sep = "&amp;";
	}
	if (refresh_s < 0) {
		fprintf(f, "%srefresh=0", sep);
		sep = "&amp;";
	}
	if (status)
		fprintf(f, "%sstatus=%s", sep, status);
	else if (*sep == '?')
		fputs("?", f);
}

/* What the finding lists show, and on the dashboard (refresh_s != 0) the
 * links to the status filters (?status=): all, what needs attention, what
 * fails. A file or /v1/verdict?format=html gets no links: "?status=" there
 * would not filter (a file) or lose the format. */
static const struct {
	const char *label, *query;
	unsigned mask;
} status_views[] = {
    {"all", NULL, 0},
    {"fail + warn", "fail,warn", 1u << STATUS_FAIL | 1u << STATUS_WARN},
    {"fail", "fail", 1u << STATUS_FAIL},
};

/* The ?status= of the fixed view a filter is, NULL for any other (or all):
 * pause and resume keep only what the header's links could have asked. */
static const char *status_view_query(unsigned statuses)
{
	for (size_t i = 0; i < ELEMENTSOF(status_views); i++)
		if (statuses && status_views[i].mask == statuses)
			return status_views[i].query;
	return NULL;
}

static void status_links(FILE *f, const struct verdict *v, unsigned statuses, int gate,
			 int refresh_s)
{
	unsigned cur = (statuses & RENDER_STATUS_ALL) == RENDER_STATUS_ALL ? 0 : statuses;
	_cleanup_free_ char *showing = render_status_showing(v, cur);
	fputs("<p class=\"meta\" id=\"filter\">Findings: ", f);
	if (showing)
		esc(f, showing);
	else
		fprintf(f, "showing all %zu", v->findings.n);
	if (!refresh_s) {
		fputs("</p>\n", f);
		return;
	}
	fputs(" · show", f);
	for (size_t i = 0; i < ELEMENTSOF(status_views); i++) {
		if (status_views[i].mask == cur) {
			fprintf(f, " <b>%s</b>", status_views[i].label);
			continue;
		}
		fputs(" <a class=\"view\" href=\"", f);
		view_query(f, gate, refresh_s, status_views[i].query);
		fprintf(f, "\">%s</a>", status_views[i].label);
	}
	fputs("</p>\n", f);
}

static void header(FILE *f, const struct verdict *v, int gate, unsigned statuses, int refresh_s)
{
	char ts[64];
	util_format_rfc3339(v->generated_ns, ts, sizeof(ts));
	enum status overall = verdict_status(v, gate);
	fprintf(f,
		"<header><h1>hvready verdict%s%s: <span class=\"st %s\" id=\"overall\" "
		"data-status=\"%s\">%s</span></h1>\n",
		gate >= 0 && gate < _GATE_MAX ? " for " : "",
		gate >= 0 && gate < _GATE_MAX ? gate_name(gate) : "", cls(overall),
		status_name(overall), status_name(overall));
	fprintf(f, "<p class=\"meta\">Generated <time datetime=\"%s\">%s</time> · %s · ", ts, ts,
		v->live ? "live" : "offline");
	esc(f, *v->source ? v->source : "unknown source");
	fprintf(f, " · Harvester installed: %s", v->harvester_installed ? "yes" : "no");
	if (refresh_s > 0) {
		/* A reload closes what the reader opened: they can stop it (serve's
		 * ?refresh=0; the gate and status filter they asked for stay). */
		fprintf(f, "<span class=\"reload\"> · reloads every %d s (<a href=\"", refresh_s);
		view_query(f, gate, -1, status_view_query(statuses));
		fputs("\">pause</a>)</span>", f);
	} else if (refresh_s < 0) {
		fputs("<span class=\"reload\"> · reloading paused (<a href=\"", f);
		view_query(f, gate, 0, status_view_query(statuses));
		fputs("\">resume</a>)</span>", f);
	}
	fputs("</p>\n", f);
	html_versions(f, &v->versions);
	if (v->canary.present || v->canary.error || v->canary.interval_ns) {
		_cleanup_free_ char *line = render_verdict_canary_line(v);
		fprintf(f, "<p class=\"canary\" id=\"canary\" data-stale=\"%s\">",
			v->canary.error || v->canary.stale || v->canary.future ? "true" : "false");
		esc(f, line);
		fputs("</p>\n", f);
	}
	html_board(f, v);
	if (statuses || refresh_s)
		status_links(f, v, statuses, gate, refresh_s);
	if (gate >= 0 && gate < _GATE_MAX) {
		_cleanup_free_ char *go = render_verdict_go_line(v, gate);
		fprintf(f, "<p class=\"go %s\" id=\"go\" data-gate=\"%s\"><b>", cls(overall),
			gate_name(gate));
		esc(f, go);
		fputs("</b></p>\n", f);
	}

	size_t c[_STATUS_MAX];
	render_verdict_counts(v, c);
	fprintf(f, "<div class=\"banner %s\"><b>%s.</b> ", cls(overall), verdict_words(overall));
	int failing = 0;
	for (int g = 0; g < _GATE_MAX; g++)
		failing += v->gates[g].status == STATUS_FAIL;
	if (failing)
		fprintf(f, "%d of %d gates FAIL. ", failing, _GATE_MAX);
	fprintf(f,
		"%zu %s: %zu FAIL, %zu UNKNOWN, %zu WARN, %zu PASS, %zu SKIP · %zu of %zu "
		"nodes reporting",
		v->findings.n, plural((int64_t)v->findings.n, "finding", "findings"),
		c[STATUS_FAIL], c[STATUS_UNKNOWN], c[STATUS_WARN], c[STATUS_PASS], c[STATUS_SKIP],
		render_verdict_nodes_reporting(v), v->n_nodes);
	if (v->vms.n) {
		size_t vc[_STATUS_MAX];
		render_verdict_vm_counts(v, vc);
		fprintf(f, " · %zu of %zu running VMs cannot live-migrate", vc[STATUS_FAIL],
			v->vms.n);
		if (vc[STATUS_UNKNOWN])
			fprintf(f, ", %zu undecided", vc[STATUS_UNKNOWN]);
	}
	fputs("</div>\n<nav><a href=\"#gates\">Gates</a><a href=\"#blockers\">Blockers</a>"
	      "<a href=\"#vms\">Live migration</a><a href=\"#matrix\">Nodes × checks</a>"
	      "<a href=\"#findings\">All findings</a></nav></header>\n",
	      f);
}

static void gate_cards(FILE *f, const struct verdict *v, int gate, const size_t *up,
		       unsigned statuses)
{
	fputs("<section id=\"gates\"><h2>Gates</h2><div class=\"gates\">\n", f);
	for (int g = 0; g < _GATE_MAX; g++) {
		const struct gate_result *gr = &v->gates[g];
		fprintf(f,
			"<section class=\"gate %s\" id=\"gate-%s\" data-gate=\"%s\" "
			"data-status=\"%s\" data-blockers=\"%zu\"><h3><span>%s%s</span><span "
			"class=\"st %s\">%s</span></h3><p class=\"what\">%s</p>",
			cls(gr->status), gate_name(g), gate_name(g), status_name(gr->status),
			gr->n_blockers, gate_name(g), g == gate ? " (asked)" : "", cls(gr->status),
			status_name(gr->status), gate_title(g));
		_cleanup_free_ char *proof = render_verdict_canary_proof(v, g);
		if (proof) {
			fputs("<p class=\"canary\">", f);
			esc(f, proof);
			fputs("</p>", f);
		}
		if (!gr->n_blockers)
			fputs(gr->status == STATUS_UNKNOWN
				  ? "<p class=\"none\">No findings: nothing was checked.</p>"
				  : "<p class=\"none\">No blockers.</p>",
			      f);
		else
			fprintf(f, "<p class=\"none\">%zu %s:</p><ul>", gr->n_blockers,
				render_verdict_blocker_word(v, g, gr->n_blockers));
		for (size_t i = 0; i < gr->n_blockers && i < GATE_CARD_LIST; i++) {
			size_t idx = gr->blockers[i];
			const struct finding *fd = &v->findings.items[idx];
			_cleanup_free_ char *subject = render_verdict_subject(fd);
			/* a card the status filter hides: the line that says so */
			if (render_status_shown(statuses, fd->status))
				fprintf(f, "<li class=\"blocker\"><a href=\"#b-%zu\"><code>",
					up[idx]);
			else
				fputs("<li class=\"blocker\"><a href=\"#filter\"><code>", f);
			esc(f, fd->check);
			fputs("</code>", f);
			if (*subject) {
				fputs(" ", f);
				esc(f, subject);
			}
			fputs("</a></li>", f);
		}
		if (gr->n_blockers > GATE_CARD_LIST)
			fprintf(f, "<li><a href=\"#blockers\">and %zu more</a></li>",
				gr->n_blockers - GATE_CARD_LIST);
		if (gr->n_blockers)
			fputs("</ul>", f);
		fputs("</section>\n", f);
	}
	fputs("</div></section>\n", f);
}

/* The blockers, identical findings on several nodes as one card (groups). */
static void blockers(FILE *f, const struct verdict *v, const unsigned *blocks,
		     const struct finding_groups *groups, unsigned statuses)
{
	size_t n = 0;
	for (size_t i = 0; i < v->findings.n; i++)
		n += blocks[i] != 0;
	fputs("<section id=\"blockers\"><h2>Blockers</h2>\n", f);
	if (!n)
		fputs("<p>Nothing blocks any gate.</p>\n", f);
	else if (groups->n == n)
		fprintf(
		    f,
		    "<p class=\"meta\">The %zu finding%s that decide the gates, worst first.</p>\n",
		    n, n == 1 ? "" : "s");
	else
		fprintf(f,
			"<p class=\"meta\">The %zu findings that decide the gates, worst first, as "
			"%zu cards: identical findings on several nodes are one.</p>\n",
			n, groups->n);
	_cleanup_free_ const struct finding_group **gs = NULL;
	size_t ng = render_verdict_groups_worst_first(groups, statuses, &gs);
	for (size_t i = 0; i < ng; i++) {
		struct detail_opts o = {.group = gs[i], .up = gs[i]->first};
		finding_detail_ex(f, &gs[i]->merged, gs[i]->first, "b", blocks[gs[i]->first],
				  groups->n <= OPEN_BLOCKERS_MAX, &o);
	}
	fputs("</section>\n", f);
}

/* Beyond this many rows that need no attention (VMs that can migrate, nodes
 * where every check passed), those rows fold into a closed <details> below
 * the ones that do: 5,000 VMs or 500 nodes stay readable, without JavaScript. */
#define FOLD_MIN 20

static void vm_row_html(FILE *f, const struct vm_row *r)
{
	const char *ans = render_verdict_vm_answer(r);
	_cleanup_free_ char *vm = xasprintf("%s/%s", r->namespace, r->name);
	fprintf(f, "<tr class=\"vm %s\" data-vm=\"", ans);
	esc(f, vm);
	fputs("\" data-node=\"", f);
	esc(f, r->node);
	fprintf(f, "\" data-can-migrate=\"%s\" data-status=\"%s\"><td>", ans,
		status_name(vm_row_status(r)));
	esc(f, vm);
	fputs("</td><td>", f);
	esc(f, r->node);
	fprintf(f, "</td><td><span class=\"st %s\">%s</span></td><td>",
		vm_row_status(r) == STATUS_FAIL	     ? "fail"
		: vm_row_status(r) == STATUS_UNKNOWN ? "unknown"
		: vm_row_status(r) == STATUS_WARN    ? "warn"
						     : "pass",
		ans);
	if (r->reasons.n) {
		fputs("<ul class=\"why\">", f);
		for (size_t j = 0; j < r->reasons.n; j++) {
			fputs("<li>", f);
			esc(f, r->reasons.items[j]);
			fputs("</li>", f);
		}
		fputs("</ul>", f);
	}
	fputs("</td></tr>\n", f);
}

static const char vm_thead[] = "<table class=\"vms\"><thead><tr><th>VM</th><th>node</th>"
			       "<th>can live-migrate</th><th>why not</th></tr></thead><tbody>\n";

/* A status filter that narrows (not 0, not every status). */
static bool filtering(unsigned statuses)
{
	return statuses && (statuses & RENDER_STATUS_ALL) != RENDER_STATUS_ALL;
}

static void vm_table(FILE *f, const struct verdict *v, unsigned statuses)
{
	fputs("<section id=\"vms\"><h2>Live migration</h2>\n", f);
	if (!v->vms.n) {
		fputs("<p>No running VMs.</p></section>\n", f);
		return;
	}
	_cleanup_free_ char *summary = render_verdict_vm_summary(v);
	fprintf(f, "<p class=\"meta\">");
	esc(f, summary);
	fputs(".</p>\n", f);
	if (filtering(statuses)) {
		/* The view's filter (?status=, report --status): only the VMs of
		 * those statuses, worst first, and how many that is. */
		size_t shown = 0;
		for (size_t i = 0; i < v->vms.n; i++)
			shown += render_status_shown(statuses, vm_row_status(&v->vms.items[i]));
		_cleanup_free_ char *names = render_status_mask_names(statuses);
		fprintf(f, "<p class=\"meta\" id=\"vms-filter\">VMs: showing %s, %zu of %zu.</p>\n",
			names, shown, v->vms.n);
		if (shown) {
			fprintf(f, "<div class=\"scroll\">%s", vm_thead);
			for (int pass = 0; pass < 4; pass++)
				for (size_t i = 0; i < v->vms.n; i++) {
					const struct vm_row *r = &v->vms.items[i];
					if (render_verdict_vm_rank(r) == pass &&
					    render_status_shown(statuses, vm_row_status(r)))
						vm_row_html(f, r);
				}
			fputs("</tbody></table></div>\n", f);
		}
		fputs("</section>\n", f);
		return;
	}
	size_t n_yes = 0;
	for (size_t i = 0; i < v->vms.n; i++)
		n_yes += render_verdict_vm_rank(&v->vms.items[i]) == 3;
	bool fold = n_yes > FOLD_MIN;
	fprintf(f, "<div class=\"scroll\">%s", vm_thead);
	for (int pass = 0; pass < (fold ? 3 : 4); pass++)
		for (size_t i = 0; i < v->vms.n; i++)
			if (render_verdict_vm_rank(&v->vms.items[i]) == pass)
				vm_row_html(f, &v->vms.items[i]);
	fputs("</tbody></table></div>\n", f);
	if (fold) {
		fprintf(f,
			"<details class=\"fold\" id=\"vms-yes\"><summary>%zu VM%s that can "
			"live-migrate</summary><div class=\"scroll\">%s",
			n_yes, n_yes == 1 ? "" : "s", vm_thead);
		for (size_t i = 0; i < v->vms.n; i++)
			if (render_verdict_vm_rank(&v->vms.items[i]) == 3)
				vm_row_html(f, &v->vms.items[i]);
		fputs("</tbody></table></div></details>\n", f);
	}
	fputs("</section>\n", f);
}

/* The columns of the matrix: every host check, and every other check that
 * has findings about nodes (cluster.clock.skew, api.vm.live-migratable by the
 * VM's node, ...). */
static void matrix_columns(const struct verdict *v, struct strv *ret)
{
	struct strv about_nodes = {0};
	for (size_t k = 0; k < v->findings.n; k++) {
		const struct finding *fd = &v->findings.items[k];
		if (fd->node && !strv_contains(&about_nodes, fd->check))
			strv_add(&about_nodes, fd->check);
	}
	for (size_t i = 0; i < catalog_len; i++)
		if (catalog[i].source == CHECK_HOST || strv_contains(&about_nodes, catalog[i].id))
			strv_add(ret, catalog[i].id);
	strv_clear(&about_nodes);
}

static void cell_tip(FILE *f, const struct finding *fd, const char *fallback)
{
	fputs("<div class=\"tip\" role=\"tooltip\">", f);
	if (!fd) {
		esc(f, fallback);
		fputs("</div>", f);
		return;
	}
	fprintf(f, "<b>%s</b> ", status_name(fd->status));
	esc(f, fd->message);
	/* A passing cell's tip is its message: its evidence is one click away
	 * (the cell links to the finding), and 500 nodes × every host check of
	 * evidence would be most of the page. */
	if (fd->evidence.n && fd->status != STATUS_PASS && fd->status != STATUS_SKIP) {
		fputs("<dl>", f);
		for (size_t i = 0; i < fd->evidence.n; i++) {
			_cleanup_free_ char *val =
			    render_text_value_str(&fd->evidence.items[i].val);
			fputs("<dt>", f);
			esc(f, fd->evidence.items[i].key);
			fputs("</dt><dd>", f);
			esc(f, val);
			fputs("</dd>", f);
		}
		fputs("</dl>", f);
	}
	if (fd->remediation && *fd->remediation && fd->status != STATUS_PASS &&
	    fd->status != STATUS_SKIP) {
		fix_html(f, fd->remediation, "");
	}
	fputs("</div>", f);
}

/* The findings of one node: [*lo, *hi) in idx (sorted by node, check). */
static void node_range(const struct verdict *v, const size_t *idx, const char *node, size_t *lo,
		       size_t *hi)
{
	size_t a = 0, b = v->findings.n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		const char *mn = v->findings.items[idx[m]].node;
		if (!mn || strcmp(mn, node) < 0)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (a < v->findings.n && streq(v->findings.items[idx[a]].node, node))
		a++;
	*hi = a;
}

/* The statuses of a node's row, a mask of 1u << status: each cell's worst
 * status, UNKNOWN for a host check the node did not report (a cell with
 * nothing, "–", adds none). What the matrix cells show (matrix_cell). */
static unsigned row_statuses(const struct verdict *v, const size_t *idx, size_t lo, size_t hi,
			     const struct strv *checks)
{
	unsigned mask = 0;
	for (size_t c = 0; c < checks->n; c++) {
		int worst = -1;
		for (size_t k = lo; k < hi; k++) {
			const struct finding *fd = &v->findings.items[idx[k]];
			if (streq(fd->check, checks->items[c]) &&
			    (worst < 0 ||
			     status_severity(fd->status) > status_severity((enum status)worst)))
				worst = (int)fd->status;
		}
		const struct check_info *ci = catalog_find(checks->items[c]);
		if (worst < 0 && ci && ci->source == CHECK_HOST)
			worst = STATUS_UNKNOWN;
		if (worst >= 0)
			mask |= 1u << worst;
	}
	return mask;
}

static enum status mask_worst(unsigned mask)
{
	enum status w = STATUS_SKIP;
	for (int s = 0; s < _STATUS_MAX; s++)
		if (mask & (1u << s))
			w = status_worst(w, (enum status)s);
	return w;
}

static void matrix_cell(FILE *f, const struct verdict *v, const size_t *idx, size_t lo, size_t hi,
			const struct verdict_node *node, const char *check)
{
	const struct finding *worst = NULL;
	size_t widx = 0, n = 0;
	for (size_t k = lo; k < hi; k++) {
		size_t i = idx[k];
		const struct finding *fd = &v->findings.items[i];
		if (!streq(fd->check, check))
			continue;
		n++;
		if (!worst || status_severity(fd->status) > status_severity(worst->status)) {
			worst = fd;
			widx = i;
		}
	}
	/* A host check missing from a node is UNKNOWN (no report, or a report
	 * without it: a skipped check would be there as SKIP). Other checks speak
	 * of a node only when they have something to say about it. */
	const struct check_info *ci = catalog_find(check);
	bool host = ci && ci->source == CHECK_HOST;
	const char *label = worst ? status_name(worst->status) : host ? "UNKNOWN" : "NONE";
	const char *fallback = !host		 ? "no finding about this node"
			       : node->reporting ? "no finding for this check in the node's report"
						 : "no report from this node";
	fprintf(f, "<td class=\"cell %s\" data-node=\"",
		worst  ? cls(worst->status)
		: host ? "unknown"
		       : "none");
	esc(f, node->name);
	fputs("\" data-check=\"", f);
	esc(f, check);
	fprintf(f, "\" data-status=\"%s\"", label);
	if (n > 1)
		fprintf(f, " data-findings=\"%zu\"", n);
	if (worst)
		fprintf(f, "><a href=\"#f-%zu\">%s</a>", widx, label);
	else
		fprintf(f, " tabindex=\"0\"><span>%s</span>", host ? "UNKNOWN" : "–");
	cell_tip(f, worst, fallback);
	fputs("</td>", f);
}

/* Nothing on this node needs attention: reporting, Ready, no finding worse
 * than PASS. */
static bool node_clean(const struct verdict *v, const size_t *idx, const struct verdict_node *node,
		       size_t lo, size_t hi)
{
	if (!node->reporting || !node->in_cluster || !node->k8s_ready)
		return false;
	for (size_t k = lo; k < hi; k++) {
		enum status st = v->findings.items[idx[k]].status;
		if (st != STATUS_PASS && st != STATUS_SKIP)
			return false;
	}
	return true;
}

static void matrix_head(FILE *f, const struct strv *checks)
{
	fputs("<table class=\"matrix\"><thead><tr><th>node</th>", f);
	for (size_t c = 0; c < checks->n; c++) {
		fputs("<th class=\"rot\" scope=\"col\">", f);
		esc(f, checks->items[c]);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
}

static void matrix_row(FILE *f, const struct verdict *v, const size_t *idx,
		       const struct verdict_node *node, size_t lo, size_t hi,
		       const struct strv *checks)
{
	fputs("<tr class=\"node\" data-node=\"", f);
	esc(f, node->name);
	unsigned mask = row_statuses(v, idx, lo, hi, checks);
	fprintf(f, "\" data-reporting=\"%s\" data-status=\"%s\"><th class=\"node\" scope=\"row\">",
		node->reporting ? "yes" : "no", mask ? status_name(mask_worst(mask)) : "NONE");
	esc(f, node->name);
	fputs("<small>", f);
	fputs(!node->in_cluster ? "no Node object" : node->k8s_ready ? "Ready" : "NotReady", f);
	if (node->reporting)
		fprintf(f, " · report %llds old", (long long)(node->report_age_ns / NSEC_PER_SEC));
	else
		fputs(" · no report", f);
	fputs("</small></th>", f);
	for (size_t c = 0; c < checks->n; c++)
		matrix_cell(f, v, idx, lo, hi, node, checks->items[c]);
	fputs("</tr>\n", f);
}

/* The matrix of the nodes n with pick[n] == want (every node when pick is
 * NULL), up to its closing tag. */
static void matrix_table(FILE *f, const struct verdict *v, const size_t *idx, const bool *pick,
			 bool want, const struct strv *checks)
{
	matrix_head(f, checks);
	for (size_t n = 0; n < v->n_nodes; n++) {
		if (pick && pick[n] != want)
			continue;
		size_t lo, hi;
		node_range(v, idx, v->nodes[n].name, &lo, &hi);
		matrix_row(f, v, idx, &v->nodes[n], lo, hi, checks);
	}
	fputs("</tbody></table>", f);
}

/* Per gate, on how many nodes a finding of that gate needs attention. */
static void matrix_gate_summary(FILE *f, const struct verdict *v, const size_t *idx)
{
	fputs("<ul class=\"gate-nodes\">", f);
	for (int g = 0; g < _GATE_MAX; g++) {
		size_t bad = 0;
		for (size_t n = 0; n < v->n_nodes; n++) {
			size_t lo, hi;
			node_range(v, idx, v->nodes[n].name, &lo, &hi);
			bool hit = false;
			for (size_t k = lo; k < hi && !hit; k++) {
				const struct finding *fd = &v->findings.items[idx[k]];
				const struct check_info *ci = catalog_find(fd->check);
				hit = ci && (ci->gates & (1u << g)) && fd->status != STATUS_PASS &&
				      fd->status != STATUS_SKIP && !verdict_waiver(v, idx[k]);
			}
			bad += hit;
		}
		fprintf(f, "<li data-gate=\"%s\"><b>%s</b>: ", gate_name(g), gate_name(g));
		if (bad)
			fprintf(f, "%zu of %zu node%s need%s attention", bad, v->n_nodes,
				v->n_nodes == 1 ? "" : "s", bad == 1 ? "s" : "");
		else
			fprintf(f, "no node finding on %zu node%s", v->n_nodes,
				v->n_nodes == 1 ? "" : "s");
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

static void matrix(FILE *f, const struct verdict *v, unsigned statuses)
{
	fputs("<section id=\"matrix\"><h2>Nodes × checks</h2>\n", f);
	if (!v->n_nodes) {
		fputs(
		    "<p>No nodes: no Kubernetes Node objects and no node reports.</p></section>\n",
		    f);
		return;
	}
	struct strv checks = {0};
	matrix_columns(v, &checks);
	fputs("<p class=\"meta\">The worst status of each check on each node.<span "
	      "class=\"screen\"> Hover or focus a cell for its evidence; follow it to the "
	      "finding.</span></p>\n",
	      f);
	_cleanup_free_ size_t *idx = render_verdict_by_node(v);
	matrix_gate_summary(f, v, idx);
	_cleanup_free_ bool *clean = xcalloc(v->n_nodes + 1, sizeof(*clean));
	size_t n_clean = 0;
	for (size_t n = 0; n < v->n_nodes; n++) {
		size_t lo, hi;
		node_range(v, idx, v->nodes[n].name, &lo, &hi);
		clean[n] = node_clean(v, idx, &v->nodes[n], lo, hi);
		n_clean += clean[n];
	}
	if (filtering(statuses)) {
		/* The view's filter: the rows with a cell of those statuses (the
		 * whole row, for the context), and how many that is. */
		_cleanup_free_ bool *shown = xcalloc(v->n_nodes + 1, sizeof(*shown));
		size_t n_shown = 0;
		for (size_t n = 0; n < v->n_nodes; n++) {
			size_t lo, hi;
			node_range(v, idx, v->nodes[n].name, &lo, &hi);
			shown[n] = (row_statuses(v, idx, lo, hi, &checks) & statuses) != 0;
			n_shown += shown[n];
		}
		_cleanup_free_ char *names = render_status_mask_names(statuses);
		fprintf(f,
			"<p class=\"meta\" id=\"matrix-filter\">Nodes: showing those with a %s "
			"cell, %zu of %zu.</p>\n",
			names, n_shown, v->n_nodes);
		if (n_shown) {
			matrix_table(f, v, idx, shown, true, &checks);
			fputc('\n', f);
		}
		fputs("</section>\n", f);
		strv_clear(&checks);
		return;
	}
	bool fold = n_clean > FOLD_MIN;
	/* No scrolling box around the matrix: it would clip the hover boxes. */
	matrix_table(f, v, idx, fold ? clean : NULL, false, &checks);
	fputc('\n', f);
	if (fold) {
		fprintf(f,
			"<details class=\"fold\" id=\"nodes-clean\"><summary>%zu node%s where "
			"every check passed</summary>",
			n_clean, n_clean == 1 ? "" : "s");
		matrix_table(f, v, idx, clean, true, &checks);
		fputs("</details>\n", f);
	}
	fputs("</section>\n", f);
	strv_clear(&checks);
}

static void all_findings(FILE *f, const struct verdict *v, const unsigned *blocks, const size_t *up,
			 unsigned statuses)
{
	static const enum status order[] = {STATUS_FAIL, STATUS_UNKNOWN, STATUS_WARN, STATUS_PASS,
					    STATUS_SKIP};
	fprintf(f,
		"<section id=\"findings\"><h2>All findings</h2>\n<p class=\"meta\">%zu %s, "
		"problems first. Each expands to its evidence and remediation.</p>\n",
		v->findings.n, plural((int64_t)v->findings.n, "finding", "findings"));
	for (size_t k = 0; k < ELEMENTSOF(order); k++)
		for (size_t i = 0; i < v->findings.n; i++)
			if (v->findings.items[i].status == order[k] &&
			    render_status_shown(statuses, order[k])) {
				struct detail_opts o = {.up = up[i],
							.waived = verdict_waiver(v, i)};
				finding_detail_ex(f, &v->findings.items[i], i, "f", blocks[i],
						  false, &o);
			}
	fputs("</section>\n", f);
}

const char *verdict_html_css(void)
{
	return css;
}

void verdict_render_html(FILE *f, const struct verdict *v, int gate, int refresh_s)
{
	verdict_render_html_view(f, v, gate, 0, refresh_s);
}

void verdict_render_html_view(FILE *f, const struct verdict *v, int gate, unsigned statuses,
			      int refresh_s)
{
	enum status overall = verdict_status(v, gate);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n",
	      f);
	if (refresh_s > 0)
		fprintf(f, "<meta http-equiv=\"refresh\" content=\"%d\"/>\n", refresh_s);
	fprintf(f, "<title>hvready: %s — %s</title>\n<style>%s</style></head><body>\n",
		status_name(overall), verdict_words(overall), css);
	_cleanup_free_ unsigned *blocks = render_verdict_blocks(v);
	header(f, v, gate, statuses, refresh_s);
	/* The card each blocker is shown in: its group's first finding. */
	struct finding_groups groups;
	render_verdict_blocker_groups(v, blocks, &groups);
	_cleanup_free_ size_t *up = xcalloc(v->findings.n + 1, sizeof(*up));
	for (size_t i = 0; i < v->findings.n; i++)
		up[i] = i;
	for (size_t i = 0; i < groups.n; i++)
		for (size_t m = 0; m < groups.items[i].n; m++)
			up[groups.items[i].members[m]] = groups.items[i].first;
	gate_cards(f, v, gate, up, statuses);
	blockers(f, v, blocks, &groups, statuses);
	finding_groups_clear(&groups);
	vm_table(f, v, statuses);
	matrix(f, v, statuses);
	html_waivers(f, v);
	all_findings(f, v, blocks, up, statuses);
	fputs("<footer>hvready-aggregator " HVREADY_VERSION
	      " · statuses: FAIL blocks, UNKNOWN means the evidence to decide is missing, WARN "
	      "does not block · JSON: <code>report --format json</code> or <code>GET "
	      "/v1/verdict</code></footer>\n</body></html>\n",
	      f);
}
