/*
 * The verdict's renderings: Markdown carries the same findings as the JSON;
 * the HTML page carries every finding, the four gates, the node × check
 * matrix and the VM rows, and is well-formed; text fits 80 columns; and what
 * comes from the cluster (messages, evidence, object names) is escaped in
 * every format. The strict checks of HTML and Markdown are done by
 * tests/tools/check_html.py (an XML parser) and check_markdown.py (GitHub's
 * cmark-gfm), on files this test writes.
 */
#include "render_fixture.h"

#include <ctype.h>
#include <malloc.h>
#include <dirent.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "agg_harness.h"
#include "finding_groups.h"
#include "render_html.h"
#include "render_verdict.h"
#include "render_json.h"
#include "render_text.h"
#include "judge.h"
#include "test_src.h"

/* ---------- helpers ---------- */

static char *json_string(const struct verdict *v)
{
	json_object *o = verdict_to_json(v);
	char *s = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
	return s;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

struct tmpdir {
	char path[64];
};

static void tmpdir_make(struct tmpdir *t)
{
	snprintf(t->path, sizeof(t->path), "/tmp/hvready-render-XXXXXX");
	assert_non_null(mkdtemp(t->path));
}

static void tmpdir_remove(struct tmpdir *t)
{
	nftw(t->path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Run a checker from tests/tools; its output goes to the test's log. */
static int run_tool(const char *tool, const char *a, const char *b)
{
	_cleanup_free_ char *cmd =
	    xasprintf("python3 '%s/tests/tools/%s' '%s' '%s'", test_src(), tool, a, b);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The strict checkers of tests/tools accept the renderings against the JSON:
 * check_html.py the HTML, check_markdown.py the Markdown (each unless NULL). */
static void assert_checkers_accept(const char *html, const char *md, const char *json)
{
	struct tmpdir t;
	tmpdir_make(&t);
	_cleanup_free_ char *jp = fx_write_tmp(t.path, "v.json", json);
	if (html) {
		_cleanup_free_ char *hp = fx_write_tmp(t.path, "v.html", html);
		assert_int_equal(run_tool("check_html.py", hp, jp), 0);
	}
	if (md) {
		_cleanup_free_ char *mp = fx_write_tmp(t.path, "v.md", md);
		assert_int_equal(run_tool("check_markdown.py", mp, jp), 0);
	}
	tmpdir_remove(&t);
}

/* When HVREADY_RENDER_DUMP names a directory, leave the renderings there to look at. */
static void dump(const char *name, const char *s)
{
	const char *dir = getenv("HVREADY_RENDER_DUMP");
	if (dir && *dir)
		free(fx_write_tmp(dir, name, s));
}

/* Display columns of one line (wide CJK characters count 2). */
static int columns(const char *s, size_t n)
{
	int w = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			w++, i++;
		} else if ((c & 0xe0) == 0xc0) {
			w++, i += 2;
		} else if ((c & 0xf0) == 0xe0) {
			uint32_t cp = (uint32_t)(c & 0x0f) << 12 |
				      (uint32_t)((unsigned char)s[i + 1] & 0x3f) << 6 |
				      ((unsigned char)s[i + 2] & 0x3f);
			w += (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) ? 2
											      : 1;
			i += 3;
		} else {
			w += 2, i += 4;
		}
	}
	return w;
}

/* Every line at most width columns, unless it is one unbreakable word or one
 * command in backticks (which is never broken, so it can be copied whole). */
static void assert_fits(const char *text, int width)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		int w = columns(p, n);
		if (w > width) {
			const char *t = p;
			while (*t == ' ')
				t++;
			const char *close =
			    *t == '`' ? memchr(t + 1, '`', n - (size_t)(t + 1 - p)) : NULL;
			if (close)
				t = close;
			if (memchr(t, ' ', n - (size_t)(t - p)))
				fail_msg("line of %d columns: %.*s", w, (int)n, p);
		}
		p += n + (nl ? 1 : 0);
	}
}

/* Does s contain needle not preceded by a backslash (a Markdown escape)? */
static bool has_unescaped(const char *s, const char *needle)
{
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		if (p == s || p[-1] != '\\')
			return true;
	return false;
}

/* ---------- Markdown: the "All findings" table, parsed back ---------- */

/* One cell's text: backslash escapes undone, code spans taken literally
 * (but GFM's "\|"), <br> back to a newline. */
static char *md_cell_text(const char *s, size_t n)
{
	while (n && s[0] == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	char *out = xmalloc(n + 1), *o = out;
	for (size_t i = 0; i < n;) {
		if (s[i] == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) {
			*o++ = s[i + 1];
			i += 2;
		} else if (s[i] == '`') {
			size_t run = strspn(s + i, "`");
			if (run > n - i)
				run = n - i;
			const char *body = s + i + run;
			const char *end = NULL;
			for (const char *q = body; q + run <= s + n; q++)
				if (strncmp(q, s + i, run) == 0 &&
				    (q + run == s + n || q[run] != '`')) {
					end = q;
					break;
				}
			assert_non_null(end);
			size_t bl = (size_t)(end - body);
			if (bl >= 2 && body[0] == ' ' && body[bl - 1] == ' ')
				body++, bl -= 2;
			for (size_t k = 0; k < bl; k++) {
				if (body[k] == '\\' && k + 1 < bl && body[k + 1] == '|')
					k++;
				*o++ = body[k];
			}
			i = (size_t)(end - s) + run;
		} else if (strncmp(s + i, "<br>", 4) == 0 && i + 4 <= n) {
			*o++ = '\n';
			i += 4;
		} else {
			*o++ = s[i++];
		}
	}
	*o = 0;
	return out;
}

/* Rows of the table after "| Status | Check | Node | Object | Message |", as
 * "check\tstatus\tnode\tobject\tmessage" strings. */
static void md_findings(const char *md, struct strv *ret)
{
	const char *p = strstr(md, "| Status | Check | Node | Object | Message |\n");
	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	p = strchr(p, '\n') + 1; /* the delimiter row */
	while (*p == '|') {
		const char *nl = strchr(p, '\n');
		assert_non_null(nl);
		char *cells[8];
		size_t nc = 0;
		const char *start = p + 1;
		for (const char *q = p + 1; q < nl; q++) {
			if (*q == '\\') {
				q++;
				continue;
			}
			if (*q == '|') {
				assert_true(nc < ELEMENTSOF(cells));
				cells[nc++] = md_cell_text(start, (size_t)(q - start));
				start = q + 1;
			}
		}
		assert_int_equal(nc, 5);
		strv_add(ret, "");
		free(ret->items[ret->n - 1]);
		ret->items[ret->n - 1] = xasprintf("%s\t%s\t%s\t%s\t%s", cells[1], cells[0],
						   cells[2], cells[3], cells[4]);
		for (size_t i = 0; i < nc; i++)
			free(cells[i]);
		p = nl + 1;
	}
}

static void json_findings(json_object *oj, struct strv *ret)
{
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	struct jv o = jv_from_json(ar, oj);
	const struct jv *a = JQ(&o, "findings");
	for (size_t i = 0; i < jq_len(a); i++) {
		const struct jv *f = jq_at(a, i);
		_cleanup_free_ char *msg = render_text_sanitize(JQS(f, "message"));
		const char *node = JQS(f, "node"), *obj = JQS(f, "object");
		strv_add(ret, "");
		free(ret->items[ret->n - 1]);
		ret->items[ret->n - 1] =
		    xasprintf("%s\t%s\t%s\t%s\t%s", JQS(f, "check"), JQS(f, "status"),
			      node ? node : "", obj ? obj : "", msg);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void assert_same_set(struct strv *a, struct strv *b)
{
	qsort(a->items, a->n, sizeof(char *), cmp_str);
	qsort(b->items, b->n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < a->n && i < b->n; i++)
		if (strcmp(a->items[i], b->items[i]) != 0)
			fail_msg("differ:\n  %s\n  %s", a->items[i], b->items[i]);
	assert_int_equal(a->n, b->n);
}

static void test_markdown_same_findings_as_json(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	char *md = NULL;
	RENDER(md, verdict_render_markdown(f, &v, -1));
	dump("fixture.md", md);
	json_object *o = verdict_to_json(&v);
	struct strv from_md = {0}, from_json = {0};
	md_findings(md, &from_md);
	json_findings(o, &from_json);
	assert_int_equal(from_json.n, v.findings.n);
	assert_same_set(&from_md, &from_json);
	strv_clear(&from_md);
	strv_clear(&from_json);
	json_object_put(o);
	free(md);
	verdict_clear(&v);
}

/* GitHub's own renderer agrees: every finding, nothing turned into markup. */
static void test_markdown_through_cmark_gfm(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	char *md = NULL;
	RENDER(md, verdict_render_markdown(f, &v, -1));
	_cleanup_free_ char *js = json_string(&v);
	assert_checkers_accept(NULL, md, js);
	free(md);
	verdict_clear(&v);
}

static void test_markdown_escaping(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	char *md = NULL;
	RENDER(md, verdict_render_markdown(f, &v, -1));
	/* No raw HTML from the cluster, no raw terminal escape, no bidi override. */
	assert_false(has_unescaped(md, "<script"));
	assert_non_null(strstr(md, "- reason: `OOMKilled <img src=x onerror=alert(1)>`\n"));
	assert_false(has_unescaped(md, "<b>"));
	assert_null(strchr(md, '\033'));
	assert_null(strstr(md, "\u202e"));
	assert_non_null(strstr(md, "\\<script\\>"));
	assert_non_null(strstr(md, "\\x1b[31mred"));
	/* The check's own `commands` stay code spans in the remediation. */
	assert_non_null(strstr(md, "`udevadm trigger`"));
	/* Evidence with a newline becomes a fenced block, a backtick inside a longer fence. */
	assert_non_null(strstr(md, "  ```\n  line1\n  line2 `tick` | pipe & </code></td>\n  ```"));
	/* Gates first, then the blockers; the headline is the worst gate. */
	assert_true(strncmp(md, "# hvready verdict: FAIL\n", 24) == 0);
	const char *gates_h = strstr(md, "## Gates"), *blockers_h = strstr(md, "## Blockers");
	assert_non_null(gates_h);
	assert_non_null(blockers_h);
	assert_true(gates_h < blockers_h);
	assert_non_null(strstr(md, "| live-migration | **FAIL** | 4 |"));
	free(md);
	verdict_clear(&v);
}

/* ---------- HTML ---------- */

static void test_html_complete_and_escaped(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	char *html = NULL;
	RENDER(html, verdict_render_html(f, &v, -1, 0));
	dump("fixture.html", html);
	_cleanup_free_ char *js = json_string(&v);
	dump("fixture.json", js);

	/* Nothing from the cluster became markup. */
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "<b>bold"));
	assert_null(strchr(html, '\033'));
	assert_non_null(strstr(html, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"));
	assert_non_null(strstr(html, "节点重启了 ünïcode ✓"));
	/* Self-contained: no external asset, no script, no refresh unless asked. */
	assert_null(strstr(html, " src=\""));
	assert_null(strstr(html, "<link"));
	assert_null(strstr(html, "http-equiv"));
	assert_non_null(strstr(html, "@media print"));
	/* The four gates, in the order of the catalog, before the matrix. */
	const char *g1 = strstr(html, "id=\"gate-preinstall\" data-gate=\"preinstall\" "
				      "data-status=\"FAIL\"");
	const char *g4 = strstr(html, "id=\"gate-live-migration\" data-gate=\"live-migration\" "
				      "data-status=\"FAIL\" data-blockers=\"4\"");
	assert_non_null(g1);
	assert_non_null(g4);
	assert_true(g1 < g4 && g4 < strstr(html, "id=\"matrix\""));
	/* Every finding once in "All findings", and a matrix cell per node × host check. */
	for (size_t i = 0; i < v.findings.n; i++) {
		_cleanup_free_ char *id = xasprintf("id=\"f-%zu\"", i);
		assert_non_null(strstr(html, id));
	}
	assert_non_null(strstr(html, "<td class=\"cell fail\" data-node=\"harvester-node-3\" "
				     "data-check=\"host.kvm\" data-status=\"FAIL\">"));
	assert_non_null(strstr(html,
			       "<td class=\"cell unknown\" data-node=\"harvester-node-4\" "
			       "data-check=\"host.kvm\" data-status=\"UNKNOWN\" tabindex=\"0\">"));
	assert_non_null(strstr(html, "data-vm=\"default/vm-&lt;003&gt;|&quot;q&quot;\""));

	/* The strict structural comparison with the JSON. */
	assert_checkers_accept(html, NULL, js);
	free(html);
	verdict_clear(&v);
}

static void test_html_refresh_and_gate(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	char *html = NULL;
	RENDER(html, verdict_render_html(f, &v, GATE_RWX, 30));
	assert_non_null(strstr(html, "<meta http-equiv=\"refresh\" content=\"30\"/>"));
	assert_non_null(strstr(html, "reloads every 30 s"));
	/* The gate asked for heads the page: with the clock only WARN, rwx is
	 * UNKNOWN (a node without a report) while the others FAIL. */
	free(html);
	for (size_t i = 0; i < v.findings.n; i++)
		if (streq(v.findings.items[i].check, "host.clock"))
			v.findings.items[i].status = STATUS_WARN;
	gates_clear(v.gates);
	gates_compute(&v.findings, v.gates);
	assert_int_equal(v.gates[GATE_RWX].status, STATUS_UNKNOWN);
	assert_int_equal(verdict_status(&v, -1), STATUS_FAIL);
	RENDER(html, verdict_render_html(f, &v, GATE_RWX, 30));
	const char *want = "hvready verdict for rwx: <span class=\"st unknown\" id=\"overall\" "
			   "data-status=\"UNKNOWN\">UNKNOWN</span>";
	assert_non_null(strstr(html,
			       "<section class=\"gate unknown\" id=\"gate-rwx\" "
			       "data-gate=\"rwx\" data-status=\"UNKNOWN\" data-blockers=\"1\">"
			       "<h3><span>rwx (asked)</span>"));
	assert_non_null(strstr(html, want));
	free(html);
	verdict_clear(&v);
}

/* At scale: one host failure on 60 nodes is one card in every format (its
 * evidence shared once, a differing value per node), the 55 clean nodes and
 * the 300 VMs that can migrate fold below what needs attention. */
static void test_scale_grouped_and_folded(void **state)
{
	struct verdict v = {0};
	v.source = xstrdup("files: generated");
	v.harvester_installed = true;
	for (int i = 0; i < 60; i++) {
		char node[32], init[64];
		snprintf(node, sizeof(node), "node-%03d", i);
		fx_node(&v, node, true, 30);
		struct finding *f =
		    fx_add(&v, "host.iscsi", i < 55 ? STATUS_PASS : STATUS_FAIL, node, NULL,
			   i < 55 ? "iscsid is running" : "iscsiadm is not installed",
			   i < 55 ? NULL : "install open-iscsi");
		kv_add_str(&f->evidence, "package", "open-iscsi");
		snprintf(init, sizeof(init), "iqn.2004-10.com.ubuntu:01:%03d", i);
		kv_add_str(&f->evidence, "initiator", init);
	}
	for (int i = 0; i < 300; i++) {
		char name[32];
		snprintf(name, sizeof(name), "vm-%03d", i);
		struct vm_row *r = vm_table_add(&v.vms, "default", name, "node-000");
		if (i == 7) {
			r->can_migrate = false;
			r->status = STATUS_FAIL;
			strv_add(&r->reasons, "RWO disk");
		}
	}
	gates_compute(&v.findings, v.gates);
	char *html = NULL, *text = NULL, *md = NULL;
	RENDER(html, verdict_render_html(f, &v, -1, 0));
	RENDER(text, verdict_render_text(f, &v, -1, false));
	RENDER(md, verdict_render_markdown(f, &v, -1));
	/* One card, the five nodes named, shared evidence once, the rest per node. */
	assert_non_null(strstr(text, "5 nodes: node-055, node-056, node-057, node-058, node-059"));
	assert_non_null(strstr(md, "### FAIL `host.iscsi` on 5 nodes"));
	assert_non_null(
	    strstr(html, "On 5 nodes: node-055, node-056, node-057, node-058, node-059"));
	assert_non_null(strstr(html, "data-members=\"55 56 57 58 59\""));
	const char *card = strstr(text, "BLOCKERS");
	assert_non_null(card);
	assert_null(strstr(card + 1, "host.iscsi       : node-05")); /* no per-node card */
	assert_non_null(strstr(text, "package: open-iscsi"));
	assert_non_null(strstr(text, "node-059=iqn.2004-10.com.ubuntu:01:059"));
	/* Folded: the clean nodes and the VMs that can migrate, after the rest. */
	const char *fold_nodes =
	    strstr(html, "<details class=\"fold\" id=\"nodes-clean\"><summary>55 "
			 "nodes where every check passed</summary>");
	assert_non_null(fold_nodes);
	const char *bad_node = strstr(html, "<tr class=\"node\" data-node=\"node-059\"");
	assert_non_null(bad_node);
	assert_true(bad_node < fold_nodes);
	const char *fold_vms =
	    strstr(html, "<details class=\"fold\" id=\"vms-yes\"><summary>299 VMs that can "
			 "live-migrate</summary>");
	assert_non_null(fold_vms);
	const char *bad_vm = strstr(html, "data-vm=\"default/vm-007\"");
	assert_non_null(bad_vm);
	assert_true(bad_vm < fold_vms);
	assert_non_null(strstr(html, "<b>preinstall</b>: 5 of 60 nodes need attention"));
	free(html);
	free(text);
	free(md);
	verdict_clear(&v);
}

static size_t count_of(const char *doc, const char *s)
{
	size_t n = 0;
	for (const char *p = strstr(doc, s); p; p = strstr(p + 1, s))
		n++;
	return n;
}

/* A copy of doc from its start to the first "end" (asserted present). */
static char *section(const char *doc, const char *end)
{
	const char *e = strstr(doc, end);
	assert_non_null(e);
	return strndup(doc, (size_t)(e - doc));
}

/* One failure on several nodes is one card, in the text and the Markdown: its
 * heading names the check and how many nodes, then the nodes; the evidence the
 * nodes share is shown once and the values that differ node by node. A
 * rendering without the card's heading fails here, not only one in another
 * order. */
static void test_grouped_card(void **state)
{
	struct verdict v = {0};
	v.source = xstrdup("files: generated");
	v.harvester_installed = true;
	static const char *const nodes[] = {"hv-a", "hv-b", "hv-c", "hv-d"};
	for (int i = 0; i < 4; i++) {
		fx_node(&v, nodes[i], true, 30);
		bool bad = i > 0;
		struct finding *fd = fx_add(
		    &v, "host.multipathd", bad ? STATUS_FAIL : STATUS_PASS, nodes[i], NULL,
		    bad ? "multipathd claims the Longhorn devices" : "multipathd is not running",
		    bad ? "blacklist Longhorn's devices" : NULL);
		kv_add_str(&fd->evidence, "unit", "multipathd.service");
		char conf[64];
		snprintf(conf, sizeof(conf), "/etc/multipath.conf.%s", nodes[i]);
		kv_add_str(&fd->evidence, "config", conf);
	}
	gates_compute(&v.findings, v.gates);
	char *text = NULL, *md = NULL;
	RENDER(text, verdict_render_text(f, &v, -1, false));
	RENDER(md, verdict_render_markdown(f, &v, -1));
	/* Text: the card's heading names the check, the status and the nodes, once. */
	const char *th = strstr(text, "\n  host.multipathd : FAIL    3 nodes: hv-b, hv-c, hv-d\n");
	assert_non_null(th);
	assert_int_equal(count_of(text, "host.multipathd : FAIL"), 1); /* no card per node */
	char *tcard = section(th, "\nNODES");
	assert_non_null(strstr(tcard, "\n      multipathd claims the Longhorn devices\n"));
	assert_int_equal(count_of(tcard, "unit: multipathd.service"), 1); /* shared: once */
	assert_non_null(strstr(tcard, "config: {hv-b=/etc/multipath.conf.hv-b, "
				      "hv-c=/etc/multipath.conf.hv-c,"));
	assert_non_null(strstr(tcard, "hv-d=/etc/multipath.conf.hv-d}"));
	assert_non_null(strstr(tcard, "fix: blacklist Longhorn's devices"));
	assert_null(strstr(tcard, "hv-a")); /* the passing node is not in the card */
	free(tcard);
	/* Markdown: the card is the first thing under "## Blockers". */
	const char *mh = strstr(md, "\n## Blockers\n\n### FAIL `host.multipathd` on 3 nodes\n\n"
				    "Nodes: hv-b, hv-c, hv-d.\n");
	assert_non_null(mh);
	assert_int_equal(count_of(md, "### FAIL `host.multipathd`"), 1);
	char *mcard = section(mh + 1, "\n## Nodes");
	assert_int_equal(count_of(mcard, "- unit: `multipathd.service`\n"), 1);
	assert_non_null(strstr(mcard, "- config: `{hv-b=/etc/multipath.conf.hv-b, "
				      "hv-c=/etc/multipath.conf.hv-c, "
				      "hv-d=/etc/multipath.conf.hv-d}`\n"));
	assert_non_null(strstr(mcard, "**Remediation:** blacklist Longhorn's devices\n"));
	assert_null(strstr(mcard, "hv-a"));
	free(mcard);
	free(text);
	free(md);
	verdict_clear(&v);
}

/* A verdict with nothing in it still renders, and says so. */
static void test_html_empty_verdict(void **state)
{
	struct verdict v = {0};
	v.source = xstrdup("");
	gates_compute(&v.findings, v.gates);
	char *html = NULL, *text = NULL, *md = NULL;
	RENDER(html, verdict_render_html(f, &v, -1, 0));
	RENDER(text, verdict_render_text(f, &v, -1, false));
	RENDER(md, verdict_render_markdown(f, &v, -1));
	assert_non_null(strstr(html, "No findings: nothing was checked."));
	assert_non_null(strstr(html, "No running VMs."));
	assert_non_null(strstr(html, "No nodes"));
	assert_non_null(strstr(text, "no findings: nothing was checked"));
	assert_non_null(strstr(md, "# hvready verdict: UNKNOWN"));
	free(html);
	free(text);
	free(md);
	verdict_clear(&v);
}

/* One finding is "1 finding", in the text, the Markdown and the HTML. */
static void test_one_finding_singular(void **state)
{
	struct verdict v = {0};
	v.source = xstrdup("");
	fx_add(&v, "cluster.nodes.ready", STATUS_PASS, NULL, NULL, "all nodes Ready", NULL);
	gates_compute(&v.findings, v.gates);
	char *html = NULL, *text = NULL, *md = NULL;
	RENDER(html, verdict_render_html(f, &v, -1, 0));
	RENDER(text, verdict_render_text(f, &v, -1, false));
	RENDER(md, verdict_render_markdown(f, &v, -1));
	assert_non_null(strstr(text, "\n1 finding: 0 FAIL"));
	assert_null(strstr(text, "1 findings"));
	assert_non_null(strstr(md, "1 finding: 0 FAIL"));
	assert_null(strstr(md, "1 findings"));
	assert_non_null(strstr(html, "1 finding: 0 FAIL"));
	assert_non_null(strstr(html, "1 finding, problems first"));
	assert_null(strstr(html, "1 findings"));
	free(html);
	free(text);
	free(md);
	verdict_clear(&v);
}

static void assert_has(const char *what, const char *doc, const char *s)
{
	if (!strstr(doc, s))
		fail_msg("%s: \"%s\" missing", what, s);
}

static bool any_finding(size_t i, void *arg)
{
	return true;
}

/* A group of one borrows its finding instead of copying it: at 5,000 nodes
 * most groups are of one (each node's own clock skew, initiator, disk fill),
 * and the copies were a second verdict's worth of memory while serve wrote
 * the JSON (docs/benchmarks.md, figure 3). The bytes the groups hold stay a
 * small constant per group; the shared groups are still merged copies. */
static void test_groups_of_one_borrow(void **state)
{
	struct verdict v = {0};
	enum { N = 2000 };
	for (int i = 0; i < N; i++) {
		char node[32], msg[64];
		snprintf(node, sizeof(node), "node-%04d", i);
		snprintf(msg, sizeof(msg), "initiator iqn.2004-10.com.ubuntu:01:%04d", i);
		struct finding *f = fx_add(&v, "host.iscsi", STATUS_PASS, node, NULL, msg, NULL);
		kv_add_str(&f->evidence, "initiator", msg);
		kv_add_str(&f->evidence, "package", "open-iscsi");
		fx_add(&v, "host.kvm", STATUS_PASS, node, NULL, "/dev/kvm is usable", NULL);
	}
#ifndef __SANITIZE_ADDRESS__
	size_t before = mallinfo2().uordblks;
#endif
	struct finding_groups g;
	finding_groups_build(&v, NULL, any_finding, NULL, &g);
#ifndef __SANITIZE_ADDRESS__
	size_t held = mallinfo2().uordblks - before;
#endif
	assert_int_equal(g.n, N + 1);
	size_t ones = 0;
	for (size_t k = 0; k < g.n; k++) {
		const struct finding *first = &v.findings.items[g.items[k].first];
		if (g.items[k].n == 1) {
			ones++;
			assert_ptr_equal(g.items[k].merged.message, first->message);
			assert_ptr_equal(g.items[k].merged.evidence.items, first->evidence.items);
		} else {
			assert_int_equal(g.items[k].n, N);
			assert_ptr_not_equal(g.items[k].merged.message, first->message);
			assert_string_equal(g.items[k].merged.message, "/dev/kvm is usable");
		}
	}
	assert_int_equal(ones, N);
#ifndef __SANITIZE_ADDRESS__
	/* the group (104 bytes), its members (one index) and the shared group's
	 * names; a copy of each finding was about 400 bytes more */
	assert_in_range(held / (N + 1), 0, 200);
#endif
	finding_groups_clear(&g);
	verdict_clear(&v);
}

/* The JSON's "groups" say what the text's cards say: the 5 nodes of one
 * host.iscsi FAIL in one group (the same card as the text's "on 5 nodes"), the
 * 55 that pass in another, every finding in exactly one group. */
static void test_json_groups(void **state)
{
	struct verdict v = {0};
	v.source = xstrdup("files: generated");
	v.harvester_installed = true;
	for (int i = 0; i < 60; i++) {
		char node[32];
		snprintf(node, sizeof(node), "node-%03d", i);
		fx_node(&v, node, true, 30);
		fx_add(&v, "host.iscsi", i < 55 ? STATUS_PASS : STATUS_FAIL, node, NULL,
		       i < 55 ? "iscsid is running" : "iscsiadm is not installed",
		       i < 55 ? NULL : "install open-iscsi");
	}
	fx_add(&v, "api.storageclass.default", STATUS_WARN, NULL, "StorageClass/longhorn",
	       "two default StorageClasses", NULL);
	gates_compute(&v.findings, v.gates);
	char *text = NULL;
	RENDER(text, verdict_render_text(f, &v, -1, false));
	assert_non_null(strstr(text, "FAIL    5 nodes: node-055, node-056"));
	json_object *o = verdict_to_json(&v), *groups, *x;
	assert_true(json_object_object_get_ex(o, "groups", &groups));
	size_t n = json_object_array_length(groups), seen = 0, fails = 0;
	assert_int_equal(n, 3);
	for (size_t k = 0; k < n; k++) {
		json_object *g = json_object_array_get_idx(groups, k), *mem, *nodes;
		assert_true(json_object_object_get_ex(g, "findings", &mem));
		assert_true(json_object_object_get_ex(g, "nodes", &nodes));
		assert_true(json_object_object_get_ex(g, "count", &x));
		assert_int_equal(json_object_get_int64(x), json_object_array_length(mem));
		seen += json_object_array_length(mem);
		assert_true(json_object_object_get_ex(g, "status", &x));
		if (streq(json_object_get_string(x), "FAIL")) {
			fails++;
			assert_int_equal(json_object_array_length(nodes), 5);
			assert_string_equal(
			    json_object_get_string(json_object_array_get_idx(nodes, 0)),
			    "node-055");
			assert_true(json_object_object_get_ex(g, "blocks", &x));
			assert_true(json_object_array_length(x) > 0);
			assert_true(json_object_object_get_ex(g, "key", &x));
			assert_string_equal(json_object_get_string(x), "host.iscsi/FAIL/55");
		}
	}
	assert_int_equal(fails, 1);
	assert_int_equal(seen, v.findings.n);
	json_object_put(o);
	free(text);
	verdict_clear(&v);
}

/* Every finding links its check's page, the JSON's doc_url, in text,
 * Markdown and HTML; a base that is not http(s) or relative is never a link. */
static void test_doc_links(void **state)
{
	struct verdict v = {0};
	v.source = xstrdup("");
	fx_add(&v, "host.iscsi", STATUS_FAIL, "n1", NULL, "iscsid is not running", NULL);
	gates_compute(&v.findings, v.gates);
	char *html = NULL, *text = NULL, *md = NULL;
	unsetenv("HVREADY_DOCS_URL");
	RENDER(html, verdict_render_html(f, &v, -1, 0));
	RENDER(text, verdict_render_text(f, &v, -1, false));
	RENDER(md, verdict_render_markdown(f, &v, -1));
	const char *url = "https://github.com/hvready/hvready/blob/main/docs/checks/host.iscsi.md";
	assert_non_null(strstr(text, url));
	_cleanup_free_ char *md_link = xasprintf("Docs: [host.iscsi](%s)", url);
	assert_has("markdown", md, md_link);
	_cleanup_free_ char *a = xasprintf("<a class=\"doc\" href=\"%s\">", url);
	assert_has("html", html, a);
	free(html), free(text), free(md);
	/* A relative base (docs next to the report) links relatively. */
	setenv("HVREADY_DOCS_URL", "../docs/checks", 1);
	RENDER(html, verdict_render_html(f, &v, -1, 0));
	RENDER(md, verdict_render_markdown(f, &v, -1));
	assert_has("html", html, "href=\"../docs/checks/host.iscsi.md\"");
	assert_has("markdown", md, "(../docs/checks/host.iscsi.md)");
	free(html), free(md);
	/* Another scheme, or a quote, never becomes a link; text still names it. */
	static const char *const unsafe[] = {"javascript:alert(1)//", "data:text/html,x/",
					     "https://x\"onmouseover=\"alert(1)/"};
	for (size_t i = 0; i < sizeof(unsafe) / sizeof(*unsafe); i++) {
		setenv("HVREADY_DOCS_URL", unsafe[i], 1);
		RENDER(html, verdict_render_html(f, &v, -1, 0));
		RENDER(md, verdict_render_markdown(f, &v, -1));
		RENDER(text, verdict_render_text(f, &v, -1, false));
		assert_null(strstr(html, "class=\"doc\""));
		assert_null(strstr(md, "Docs: ["));
		assert_non_null(strstr(text, "host.iscsi.md"));
		free(html), free(text), free(md);
	}
	unsetenv("HVREADY_DOCS_URL");
	verdict_clear(&v);
}

/* ---------- the change-board header (docs/change-board.md) ---------- */

#define BOARD_UID "4f6c2d0e-9a51-4c3b-8f21-0d5e3b7a9c10"

/* The fixture with the header of a live read (a URL with credentials) and a
 * waiver of its FAIL host.kvm on harvester-node-3. */
static void board_verdict(struct verdict *v)
{
	fixture_verdict(v);
	struct cluster_state cs;
	cluster_state_init(&cs);
	cs.live = true;
	cs.api_server = xstrdup("https://admin:s3cret@10.0.0.1:6443?token=t0ps3cret");
	cs.cluster_uid = xstrdup(BOARD_UID);
	report_header_from_state(&v->header, &cs, v->generated_ns);
	cluster_state_clear(&cs);
	_cleanup_free_ char *op = report_header_operator("Jane <b>Doe</b> | `ops`\nsecond line");
	verdict_set_board(v, op, "v1.5.0-rc1");
	static const char yaml[] = "- check: host.kvm\n  node: harvester-node-3\n"
				   "  reason: KVM module <replaced> tonight\n"
				   "  approvedBy: CAB CHG-2041\n  expires: 2099-01-01\n"
				   "- check: host.kvm\n  node: harvester-node-9\n"
				   "  reason: gone\n  approvedBy: CAB\n  expires: 2020-01-01\n";
	struct waiver_list wl;
	char err[256];
	if (waivers_parse((const uint8_t *)yaml, strlen(yaml), "waivers.yaml", &wl, err,
			  sizeof(err)) < 0)
		fail_msg("%s", err);
	verdict_apply_waivers(v, &wl);
	assert_int_equal(verdict_waived_count(v), 1);
}

static void test_header_in_every_format(void **state)
{
	struct verdict v;
	board_verdict(&v);
	char *html = NULL, *md = NULL, *text = NULL;
	RENDER(html, verdict_render_html(f, &v, -1, 0));
	RENDER(md, verdict_render_markdown(f, &v, -1));
	RENDER(text, verdict_render_text(f, &v, -1, false));
	_cleanup_free_ char *js = json_string(&v);
	dump("board.html", html);
	dump("board.md", md);
	dump("board.txt", text);
	const char *docs[] = {text, md, html, js};
	const char *names[] = {"text", "markdown", "html", "json"};
	for (int i = 0; i < 4; i++) {
		assert_has(names[i], docs[i], BOARD_UID);
		assert_has(names[i], docs[i], "10.0.0.1:6443");
		assert_has(names[i], docs[i], "v1.5.0-rc1");
		assert_has(names[i], docs[i], HVREADY_VERSION);
		assert_has(names[i], docs[i], "2026-09-05T13:20:44Z");
		assert_has(names[i], docs[i], "CAB CHG-2041");
		/* no credential of the URL anywhere */
		assert_null(strstr(docs[i], "s3cret"));
		/* the operator is one line */
		assert_has(names[i], docs[i], "second line");
		assert_null(strstr(docs[i], "\nsecond line"));
	}
	assert_has("text", text, "CHANGE BOARD");
	assert_has("text", text, "  Operator        Jane <b>Doe</b> | `ops` second line");
	assert_has("text", text, "WAIVERS  waivers.yaml: 1 used, 0 unused, 1 expired");
	assert_fits(text, RENDER_TEXT_WIDTH);
	assert_has("markdown", md, "## Change board");
	assert_has("markdown", md, "| FAIL (waived) |");
	assert_null(strstr(md, "<b>Doe"));
	assert_has("html", html, "id=\"change-board\"");
	assert_has("html", html, "Jane &lt;b&gt;Doe&lt;/b&gt;");
	assert_has("html", html, "data-waived=\"true\"");
	assert_null(strstr(html, "<replaced>"));
	json_object *o = verdict_to_json(&v), *h, *x;
	assert_true(json_object_object_get_ex(o, "header", &h));
	static const char *const keys[] = {"api_server",  "cluster",  "hvready_version",
					   "report_time", "operator", "target_version"};
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (!json_object_object_get_ex(h, keys[i], NULL))
			fail_msg("json header: no %s", keys[i]);
	assert_true(json_object_object_get_ex(h, "operator", &x));
	assert_string_equal(json_object_get_string(x), "Jane <b>Doe</b> | `ops` second line");
	assert_true(json_object_object_get_ex(o, "waivers", &x));
	json_object_put(o);
	/* and the strict checkers still accept both documents */
	assert_checkers_accept(html, md, js);
	free(html);
	free(md);
	free(text);
	verdict_clear(&v);
}

/* ---------- text ---------- */

static void test_text_report_layout(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	char *text = NULL;
	RENDER(text, verdict_render_text(f, &v, -1, false));
	dump("fixture.txt", text);
	assert_fits(text, RENDER_TEXT_WIDTH);
	/* Gates first, then blockers with evidence and remediation, then the rest. */
	const char *gates = strstr(text, "\nGATES\n");
	const char *blk = strstr(text, "\nBLOCKERS");
	const char *vms = strstr(text, "\nLIVE MIGRATION");
	const char *nodes = strstr(text, "\nNODES");
	const char *pass = strstr(text, "\nPASS");
	assert_true(gates && blk && vms && nodes && pass);
	assert_true(gates < blk && blk < vms && vms < nodes && nodes < pass);
	assert_non_null(strstr(text, "  live-migration  FAIL     4 blockers\n"));
	/* A FAIL blocker, its gates, its evidence and its fix, wrapped. */
	assert_non_null(strstr(
	    text,
	    "  host.containerd.device-ownership : FAIL    harvester-node-1\n"
	    "      containerd does not set device_ownership_from_security_context: CDI cannot\n"));
	assert_non_null(strstr(text,
			       "  api.vm.live-migratable           : FAIL\n"
			       "      VirtualMachineInstance/default/vm-002: not live-migratable:\n"
			       "        DisksNotLiveMigratable\n"));
	assert_non_null(strstr(text, "      blocks: preinstall, live-migration\n"));
	assert_non_null(strstr(text, "      cri_plugin: io.containerd.grpc.v1.cri\n"));
	assert_non_null(strstr(text, "      fix: Set `nonroot-devices: true` in"));
	/* Several lines of evidence keep their lines. */
	assert_non_null(strstr(text, "/etc/rancher/rke2/config.yaml\n        "
				     "/etc/rancher/rke2/config.yaml.d/50-harvester.yaml\n"));
	/* Passes come one line per check. */
	assert_non_null(strstr(text, "  host.cpu.virt                    : PASS    3 nodes: "
				     "harvester-node-1,\n"));
	/* A node without a report is named; a VM that cannot migrate, with why. */
	assert_non_null(strstr(text, "harvester-node-4         NotReady  NO REPORT"));
	assert_non_null(strstr(text, "default/vm-002        NO       on harvester-node-2"));
	assert_non_null(
	    strstr(text, "      - DisksNotLiveMigratable: PVC default/vm-002-rootdisk"));
	/* Nothing reaches the terminal raw. */
	assert_null(strchr(text, '\033'));
	assert_null(strstr(text, "\u202e"));
	assert_non_null(strstr(text, "\\x1b[31mred\\x1b[0m"));
	assert_non_null(strstr(text, "abc\\u202edcba"));
	assert_non_null(strstr(text, "\nOverall: FAIL\n"));
	free(text);

	RENDER(text, verdict_render_text(f, &v, GATE_PLATFORM, true));
	const char *head = "hvready verdict for platform: \033[1mFAIL\033[0m\n";
	assert_true(strncmp(text, head, strlen(head)) == 0);
	/* --gate platform: its blockers only (host.clock feeds every gate; host.kvm,
	 * preinstall and live-migration only, is not shown). */
	assert_non_null(strstr(text,
			       "  host.clock                       : \033[1;31mFAIL   \033[0m "
			       "harvester-node-2\n"));
	assert_null(strstr(text, "host.kvm "));
	assert_non_null(strstr(text, "(asked)"));
	free(text);
	verdict_clear(&v);
}

static void test_text_wrap(void **state)
{
	char *out = NULL;
	int col;
	/* Hanging indent; no line beyond 30 columns; words not cut. */
	RENDER(out, (col = 10, fputs("0123456789", f),
		     render_text_wrap(f, "alpha beta gamma delta epsilon zeta eta theta", &col, 4,
				      30, false)));
	assert_string_equal(out, "0123456789alpha beta gamma\n    delta epsilon zeta eta\n"
				 "    theta");
	free(out);
	/* A word longer than the line stays whole on its own line. */
	RENDER(out, (col = 0, render_text_wrap(f, "see /var/lib/rancher/rke2/agent/etc/containerd",
					       &col, 2, 20, false)));
	assert_string_equal(out, "see\n  /var/lib/rancher/rke2/agent/etc/containerd");
	free(out);
	/* A command in backticks is not broken, so it can be copied whole; an
	 * unclosed backtick is an ordinary character. */
	RENDER(out,
	       (col = 0, render_text_wrap(f, "run `kubectl -n longhorn-system get pods`, then wait",
					  &col, 2, 30, false)));
	assert_string_equal(out, "run\n  `kubectl -n longhorn-system get pods`,\n  then wait");
	free(out);
	RENDER(out, (col = 0, render_text_wrap(f, "a `b c d e", &col, 0, 6, false)));
	assert_string_equal(out, "a `b c\nd e");
	free(out);
	/* CJK breaks between characters, two columns each. */
	RENDER(out, (col = 0, render_text_wrap(f, "节点重启了节点重启了", &col, 0, 10, false)));
	assert_string_equal(out, "节点重启了\n节点重启了");
	free(out);
	/* Hard breaks only when asked; spaces collapse. */
	RENDER(out, (col = 0, render_text_wrap(f, "a\nb   c", &col, 2, 80, true)));
	assert_string_equal(out, "a\n  b c");
	free(out);
	RENDER(out, (col = 0, render_text_wrap(f, "a\nb", &col, 2, 80, false)));
	assert_string_equal(out, "a b");
	free(out);
	/* Controls, C1, bidi and invalid UTF-8 are shown, not obeyed. */
	RENDER(out, (col = 0, render_text_wrap(f, "x\033[2Jy\xc2\x9bz\xe2\x80\xaew\xff", &col, 0,
					       80, false)));
	assert_string_equal(out, "x\\x1b[2Jy\\u009bz\\u202ew\\xff");
	free(out);
	char *s = render_text_sanitize("tab\tnl\nok ✓ \x01");
	assert_string_equal(s, "tab\tnl\nok ✓ \\x01");
	free(s);
	assert_true(render_text_is_plain("plain ASCII\twith\nbreaks"));
	assert_true(render_text_is_plain(NULL));
	assert_false(render_text_is_plain("✓"));
	assert_false(render_text_is_plain("\x7f"));
	assert_false(render_text_is_plain("\r"));
}

static void test_agent_text(void **state)
{
	struct node_report r = {0};
	r.node = xstrdup("harvester-node-1");
	r.hostname = xstrdup("hv1");
	r.agent_version = xstrdup("0.1.0");
	struct finding *f1 = finding_list_add(&r.results, "host.kvm");
	finding_set(f1, STATUS_PASS, "/dev/kvm works");
	kv_add_str(&f1->evidence, "device", "/dev/kvm");
	struct finding *f2 = finding_list_add(&r.results, "host.containerd.device-ownership");
	finding_set(f2, STATUS_FAIL,
		    "containerd does not set device_ownership_from_security_context: CDI cannot "
		    "import Block-mode VM disks");
	finding_remedy(f2, "Set `nonroot-devices: true` in /etc/rancher/rke2/config.yaml and "
			   "restart rke2-server.");
	kv_add_str(&f2->evidence, "cri_plugin", "io.containerd.grpc.v1.cri");
	struct finding *f3 = finding_list_add(&r.results, "host.nfs.probe");
	finding_set(f3, STATUS_SKIP, "no NFS endpoints to probe");
	char *text = NULL;
	RENDER(text, render_node_report_text(f, &r, false));
	assert_fits(text, RENDER_TEXT_WIDTH);
	assert_string_equal(
	    text,
	    "hvready-agent 0.1.0 on node harvester-node-1 (host hv1)\n\n"
	    "host.kvm                         : PASS    /dev/kvm works\n"
	    "host.containerd.device-ownership : FAIL    containerd does not set\n"
	    "                                           device_ownership_from_security_context:\n"
	    "                                           CDI cannot import Block-mode VM disks\n"
	    "    cri_plugin: io.containerd.grpc.v1.cri\n"
	    "    fix: Set `nonroot-devices: true` in /etc/rancher/rke2/config.yaml and\n"
	    "         restart rke2-server.\n"
	    "    docs:\n"
	    "      https://github.com/hvready/hvready/blob/main/docs/checks/"
	    "host.containerd.device-ownership.md\n"
	    "host.nfs.probe                   : SKIP    no NFS endpoints to probe\n"
	    "\n1 PASS, 0 WARN, 1 FAIL, 0 UNKNOWN, 1 SKIP\n"
	    "node: NOT READY\n"
	    "gates, from this node's checks alone: preinstall FAIL, live-migration FAIL\n");
	free(text);
	/* Colour only when asked, and only on the status. */
	RENDER(text, render_node_report_text(f, &r, true));
	assert_non_null(strstr(text, ": \033[1;31mFAIL   \033[0m containerd"));
	assert_non_null(strstr(text, "    \033[1mfix:\033[0m Set"));
	free(text);
	node_report_clear(&r);
}

/* ---------- the engine's verdict on the example cluster ---------- */

static void load_dir(struct harness *h, const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!endswith(de->d_name, ".json"))
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, de->d_name);
		json_object *o = json_object_from_file(p);
		if (!o)
			fail_msg("cannot parse %s", p);
		harness_add_json(h, o);
		json_object_put(o);
	}
	closedir(d);
}

static void test_example_cluster(void **state)
{
	struct harness h;
	harness_init(&h);
	_cleanup_free_ char *dir = test_src_path("examples/cluster");
	load_dir(&h, dir);
	struct agg_ctx ctx = harness_ctx(&h);
	struct verdict v;
	verdict_evaluate(&v, &ctx, NULL);
	assert_true(v.findings.n > 20);
	assert_int_equal(v.n_nodes, 3);

	char *html = NULL, *md = NULL, *text = NULL;
	RENDER(html, verdict_render_html(f, &v, -1, 0));
	RENDER(md, verdict_render_markdown(f, &v, -1));
	RENDER(text, verdict_render_text(f, &v, -1, false));
	dump("example.html", html);
	dump("example.txt", text);
	assert_fits(text, RENDER_TEXT_WIDTH);
	_cleanup_free_ char *js = json_string(&v);
	assert_checkers_accept(html, md, js);

	json_object *o = verdict_to_json(&v);
	struct strv from_md = {0}, from_json = {0};
	md_findings(md, &from_md);
	json_findings(o, &from_json);
	assert_same_set(&from_md, &from_json);
	strv_clear(&from_md);
	strv_clear(&from_json);
	json_object_put(o);
	free(html);
	free(md);
	free(text);
	verdict_clear(&v);
	harness_clear(&h);
}

/* A VM the evidence cannot decide is UNKNOWN in every format, listed after
 * those that cannot migrate and counted apart from them; a warned one is
 * neither. */
static void test_vm_unknown_apart(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	struct vm_row *r = vm_table_add(&v.vms, "default", "vm-unk", "harvester-node-1");
	r->can_migrate = false;
	r->status = STATUS_UNKNOWN;
	strv_add(&r->reasons, "PVC default/vm-unk-disk not found: cannot tell its access mode");
	r = vm_table_add(&v.vms, "default", "vm-warn", "harvester-node-2");
	r->can_migrate = false;
	r->status = STATUS_WARN;
	strv_add(&r->reasons, "volume pvc-1 is degraded");
	char *text = NULL;
	RENDER(text, verdict_render_text(f, &v, -1, false));
	dump("vm-unknown.txt", text);
	assert_non_null(strstr(text, "5 running VMs: 1 cannot live-migrate now, 1 undecided (not\n"
				     "  enough evidence), 1 with a warning\n"));
	const char *no = strstr(text, "default/vm-002        NO       on harvester-node-2");
	const char *unk = strstr(text, "default/vm-unk        UNKNOWN  on harvester-node-1");
	const char *warn = strstr(text, "default/vm-warn       warn     on harvester-node-2");
	assert_non_null(no);
	assert_non_null(unk);
	assert_non_null(warn);
	assert_true(no < unk && unk < warn);
	free(text);
	RENDER(text, verdict_render_markdown(f, &v, -1));
	dump("vm-unknown.md", text);
	assert_non_null(strstr(text, "| default/vm-unk | harvester-node-1 | **unknown** |"));
	assert_non_null(strstr(text, "| default/vm-002 | harvester-node-2 | **no** |"));
	free(text);
	RENDER(text, verdict_render_html(f, &v, -1, 0));
	assert_non_null(strstr(text, "data-vm=\"default/vm-unk\" data-node=\"harvester-node-1\" "
				     "data-can-migrate=\"unknown\""));
	assert_non_null(strstr(text, "1 cannot live-migrate now, 1 undecided"));
	free(text);
	json_object *vo = verdict_vm_json(&v.vms.items[3]);
	assert_string_equal(json_object_get_string(json_object_object_get(vo, "status")),
			    "UNKNOWN");
	json_object_put(vo);
	verdict_clear(&v);
}

/* --gate narrows the human report to that gate and ends with its decision;
 * a gate that only WARNs has findings to review, not blockers. */
static void test_gate_go_no_go(void **state)
{
	struct verdict v;
	fixture_verdict(&v);
	char *text = NULL;
	RENDER(text, verdict_render_text(f, &v, GATE_LIVE_MIGRATION, false));
	assert_fits(text, RENDER_TEXT_WIDTH);
	const char *last = strrchr(text, '\n');
	assert_non_null(last);
	while (last > text && last[-1] != '\n')
		last--;
	assert_string_equal(last, "live-migration: NO-GO (4 blockers)\n");
	/* host.clock FAILs platform too, but its lm share is what is shown; a
	 * check that feeds no lm gate (api.vsc.backup-target) is left out. */
	assert_null(strstr(text, "api.vsc.backup-target"));
	assert_non_null(strstr(text, "blocks: live-migration\n"));
	assert_null(strstr(text, "blocks: preinstall"));
	assert_non_null(strstr(text, "LIVE MIGRATION"));
	free(text);
	RENDER(text, verdict_render_text(f, &v, GATE_PLATFORM, false));
	assert_null(strstr(text, "LIVE MIGRATION")); /* the VMs are live-migration's */
	assert_null(strstr(text, "Overall:"));
	free(text);
	RENDER(text, verdict_render_markdown(f, &v, GATE_LIVE_MIGRATION));
	assert_non_null(strstr(text, "\n**live-migration: NO-GO (4 blockers)**\n"));
	free(text);
	RENDER(text, verdict_render_html(f, &v, GATE_LIVE_MIGRATION, 0));
	assert_non_null(strstr(text, "id=\"go\" data-gate=\"live-migration\"><b>live-migration: "
				     "NO-GO (4 blockers)</b>"));
	free(text);
	verdict_clear(&v);

	/* Only a WARN in a gate: GO, with findings to review. */
	struct verdict w;
	memset(&w, 0, sizeof(w));
	w.source = xstrdup("test");
	fx_add(&w, "api.dns.replicas", STATUS_WARN, NULL, "Deployment/kube-system/coredns",
	       "CoreDNS runs 1 replica", NULL);
	fx_add(&w, "api.longhorn.rwx-share", STATUS_PASS, NULL, NULL, "ok", NULL);
	gates_compute(&w.findings, w.gates);
	RENDER(text, verdict_render_text(f, &w, GATE_RWX, false));
	assert_non_null(strstr(text, "  rwx             WARN     1 finding  (asked)\n"));
	assert_non_null(strstr(text, "rwx: GO, 1 finding to review\n"));
	assert_null(strstr(text, "blocker"));
	free(text);
	RENDER(text, verdict_render_html(f, &w, GATE_RWX, 0));
	assert_non_null(strstr(text, "1 finding:"));
	free(text);
	verdict_clear(&w);
}

/* A status filter (serve's ?status=, report --status) narrows the finding
 * lists of every human format; the gates, their status lines and the counts
 * stay whole, and the header says what is shown. The dashboard links to the
 * other filters, keeping the gate and the pause; unknown names are refused. */
static void test_status_filter(void **state)
{
	(void)state;
	assert_int_equal(render_status_mask_parse("fail,warn"),
			 1u << STATUS_FAIL | 1u << STATUS_WARN);
	assert_int_equal(render_status_mask_parse("PASS"), 1u << STATUS_PASS);
	assert_int_equal(render_status_mask_parse("fail,bogus"), 0);
	assert_int_equal(render_status_mask_parse("fail,"), 0);
	assert_int_equal(render_status_mask_parse(",fail"), 0);
	assert_int_equal(render_status_mask_parse("fail,,warn"), 0);
	assert_int_equal(render_status_mask_parse(""), 0);

	struct verdict v;
	fixture_verdict(&v);
	const unsigned fail = 1u << STATUS_FAIL;
	char *text = NULL;
	RENDER(text, verdict_render_text_view(f, &v, -1, fail, false));
	assert_fits(text, RENDER_TEXT_WIDTH);
	_cleanup_free_ char *showing =
	    xasprintf("Findings: showing FAIL of %zu findings.\n", v.findings.n);
	assert_non_null(strstr(text, showing));
	assert_non_null(strstr(text, "host.kvm"));	    /* the FAIL */
	assert_null(strstr(text, "host.cpu.virt"));	    /* only PASS */
	assert_null(strstr(text, "host.nfs.kernel"));	    /* only WARN */
	assert_null(strstr(text, "\nPASS  "));		    /* no PASS list */
	assert_non_null(strstr(text, "\nGATES\n"));	    /* the gates whole */
	assert_non_null(strstr(text, "\nOverall: FAIL\n")); /* and the counts */
	free(text);
	RENDER(text, verdict_render_text(f, &v, -1, false));
	assert_null(strstr(text, "showing"));
	assert_non_null(strstr(text, "host.cpu.virt"));
	free(text);

	RENDER(text, verdict_render_markdown_view(f, &v, -1, fail | 1u << STATUS_WARN));
	assert_non_null(strstr(text, "showing FAIL, WARN of"));
	assert_non_null(strstr(text, "host.nfs.kernel"));
	assert_null(strstr(text, "host.cpu.virt"));
	assert_null(strstr(text, "| PASS |"));
	assert_non_null(strstr(text, "| preinstall | **FAIL** |"));
	free(text);

	/* The dashboard: the cards filtered, the gate cards whole (a hidden
	 * blocker links to the filter line), links to the fixed filters. */
	RENDER(text, verdict_render_html_view(f, &v, GATE_RWX, fail, -1));
	assert_non_null(strstr(text, "id=\"filter\">Findings: showing FAIL of "));
	assert_non_null(strstr(text, "<a class=\"view\" href=\"?gate=rwx&amp;refresh=0\">all</a>"));
	assert_non_null(strstr(text, "<a class=\"view\" href=\"?gate=rwx&amp;refresh=0&amp;"
				     "status=fail,warn\">fail + warn</a> <b>fail</b>"));
	/* a finding card (a matrix cell names its node first) */
	assert_null(strstr(text, "data-check=\"host.cpu.virt\" data-status=\"PASS\" data-node="));
	assert_non_null(strstr(text, "data-check=\"host.kvm\" data-status=\"FAIL\" data-node="));
	assert_non_null(strstr(text, "id=\"gate-platform\""));
	/* resuming keeps the gate and the filter */
	assert_non_null(strstr(text, "<a href=\"?gate=rwx&amp;status=fail\">resume</a>"));
	free(text);
	RENDER(text, verdict_render_html_view(f, &v, -1, fail | 1u << STATUS_WARN, 30));
	assert_non_null(strstr(text, "<a href=\"?refresh=0&amp;status=fail,warn\">pause</a>"));
	free(text);
	RENDER(text, verdict_render_html_view(f, &v, -1, 0, 30));
	assert_non_null(strstr(text, "id=\"filter\">Findings: showing all "));
	assert_non_null(strstr(text, "<b>all</b> <a class=\"view\" href=\"?status=fail,warn\">"));
	assert_non_null(
	    strstr(text, "data-check=\"host.cpu.virt\" data-status=\"PASS\" data-node="));
	free(text);
	/* a file: what is shown, no links that would not filter */
	RENDER(text, verdict_render_html_view(f, &v, -1, fail, 0));
	assert_non_null(strstr(text, "id=\"filter\">Findings: showing FAIL of "));
	assert_null(strstr(text, "class=\"view\""));
	free(text);
	verdict_clear(&v);
}

/* Remedies as numbered steps: a blank line between steps (report.h). One step
 * renders as before (no "1."); several as 1., 2., … in text (80 columns) and
 * Markdown, an <ol> in HTML with each command a <code>, and remedy_steps in
 * JSON. A single "\n" stays inside its step. */
static void test_remedy_steps(void **state)
{
	(void)state;
	struct strv st = {0};
	remedy_steps("one", &st);
	assert_int_equal(st.n, 1);
	strv_clear(&st);
	remedy_steps("", &st);
	remedy_steps(NULL, &st);
	assert_int_equal(st.n, 0);
	remedy_steps("  a\nstill a \n \n\n b\n\nc  \n", &st);
	assert_int_equal(st.n, 3);
	assert_string_equal(st.items[0], "a\nstill a");
	assert_string_equal(st.items[1], "b");
	assert_string_equal(st.items[2], "c");
	strv_clear(&st);
	/* judge_apply joins its remedies as steps. */
	struct judge j = {0};
	judge_note(&j, STATUS_FAIL, "broken");
	judge_remedy(&j, "Install it: `apt-get install -y open-iscsi`.");
	judge_remedy(&j, "Enable it: `systemctl enable --now iscsid.socket`.");
	struct finding_list fl = {0};
	struct finding *jf = finding_list_add(&fl, "host.iscsi");
	judge_apply(&j, jf, "");
	assert_string_equal(jf->remediation, "Install it: `apt-get install -y open-iscsi`.\n\n"
					     "Enable it: `systemctl enable --now iscsid.socket`.");
	judge_clear(&j);
	finding_list_clear(&fl);

	struct verdict v;
	fixture_verdict(&v);
	struct finding *f3 = fx_add(
	    &v, "host.iscsi", STATUS_FAIL, "harvester-node-2", NULL, "iscsid is not running",
	    "Install the iSCSI initiator: `zypper install -y open-iscsi`.\n\n"
	    "Enable iscsid and its socket so that iscsiadm can reach it at every boot, also after "
	    "a reinstall: `systemctl enable --now iscsid.socket iscsid.service`.\n\n"
	    "- Check: `iscsiadm -m session` <b>x</b>");
	(void)f3;
	gates_clear(v.gates);
	gates_compute(&v.findings, v.gates);

	char *text = NULL;
	RENDER(text, verdict_render_text(f, &v, -1, false));
	dump("steps.txt", text);
	assert_fits(text, RENDER_TEXT_WIDTH);
	const char *s1 = strstr(text, "fix: 1. Install the iSCSI initiator: `zypper install -y "
				      "open-iscsi`.\n");
	assert_non_null(s1);
	/* 2. under 1., its second line under its own text, 3. under 2. */
	const char *line1 = s1;
	while (line1 > text && line1[-1] != '\n')
		line1--;
	int c1 = (int)(s1 - line1) + 5; /* the column of "1." */
	_cleanup_free_ char *l2 = xasprintf("\n%*s2. Enable iscsid and its socket", c1, "");
	_cleanup_free_ char *l2b = xasprintf("\n%*severy boot", c1 + 3, "");
	_cleanup_free_ char *l3 =
	    xasprintf("\n%*s3. - Check: `iscsiadm -m session` <b>x</b>\n", c1, "");
	const char *s2 = strstr(s1, l2);
	assert_non_null(s2);
	assert_non_null(strstr(s2, l2b));
	assert_non_null(strstr(s2, l3));
	/* one step: as before */
	assert_non_null(strstr(text, "fix: raise the memory limit"));
	assert_null(strstr(text, "fix: 1. raise"));
	free(text);

	RENDER(text, verdict_render_markdown(f, &v, -1));
	dump("steps.md", text);
	const char *m1 = strstr(text, "**Remediation:**\n\n1. Install the iSCSI initiator: "
				      "`zypper install -y open-iscsi`.\n2. Enable iscsid");
	assert_non_null(m1);
	/* a step that would open a nested list is escaped */
	assert_non_null(strstr(m1, "\n3. \\- Check: `iscsiadm -m session` \\<b\\>x\\</b\\>\n"));
	assert_non_null(strstr(text, "**Remediation:** raise the memory limit"));
	/* GitHub's renderer makes it a list of three, the JSON's remedy_steps */
	_cleanup_free_ char *mjs = json_string(&v);
	dump("steps.json", mjs);
	assert_checkers_accept(NULL, text, mjs);
	free(text);

	char *html = NULL;
	RENDER(html, verdict_render_html(f, &v, -1, 0));
	dump("steps.html", html);
	assert_non_null(strstr(html, "<div class=\"fix\"><b>Remediation:</b><ol class=\"steps\">"
				     "<li>Install the iSCSI initiator: <code>zypper install -y "
				     "open-iscsi</code>.</li><li>Enable iscsid"));
	assert_non_null(strstr(html, "<li>- Check: <code>iscsiadm -m session</code> "
				     "&lt;b&gt;x&lt;/b&gt;</li></ol></div>"));
	assert_non_null(strstr(html, "<p class=\"fix\"><b>Remediation:</b> raise the memory"));
	/* commands are selected whole, without script */
	assert_non_null(strstr(html, ".fix code,.tip code{user-select:all;"));
	assert_null(strstr(html, "<script"));

	_cleanup_free_ char *js = json_string(&v);
	json_object *o = json_tokener_parse(js);
	assert_non_null(o);
	json_object *fa = json_object_object_get(o, "findings");
	bool seen_steps = false, seen_one = false;
	for (size_t i = 0; i < json_object_array_length(fa); i++) {
		json_object *fo = json_object_array_get_idx(fa, i);
		json_object *rs = json_object_object_get(fo, "remedy_steps");
		assert_non_null(rs);
		assert_true(json_object_is_type(rs, json_type_array));
		const char *rem = json_object_get_string(json_object_object_get(fo, "remediation"));
		if (!*rem)
			assert_int_equal(json_object_array_length(rs), 0);
		if (strstr(rem, "zypper install")) {
			seen_steps = true;
			assert_int_equal(json_object_array_length(rs), 3);
			assert_string_equal(
			    json_object_get_string(json_object_array_get_idx(rs, 0)),
			    "Install the iSCSI initiator: `zypper install -y "
			    "open-iscsi`.");
		} else if (*rem) {
			seen_one = true;
			assert_int_equal(json_object_array_length(rs), 1);
			assert_string_equal(
			    json_object_get_string(json_object_array_get_idx(rs, 0)), rem);
		}
	}
	assert_true(seen_steps && seen_one);
	json_object_put(o);

	/* The strict comparison with the JSON (check_html.py compares the steps). */
	assert_checkers_accept(html, NULL, js);
	free(html);
	verdict_clear(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_markdown_same_findings_as_json),
	    cmocka_unit_test(test_markdown_through_cmark_gfm),
	    cmocka_unit_test(test_markdown_escaping),
	    cmocka_unit_test(test_html_complete_and_escaped),
	    cmocka_unit_test(test_html_refresh_and_gate),
	    cmocka_unit_test(test_html_empty_verdict),
	    cmocka_unit_test(test_scale_grouped_and_folded),
	    cmocka_unit_test(test_grouped_card),
	    cmocka_unit_test(test_one_finding_singular),
	    cmocka_unit_test(test_doc_links),
	    cmocka_unit_test(test_json_groups),
	    cmocka_unit_test(test_groups_of_one_borrow),
	    cmocka_unit_test(test_text_report_layout),
	    cmocka_unit_test(test_vm_unknown_apart),
	    cmocka_unit_test(test_gate_go_no_go),
	    cmocka_unit_test(test_text_wrap),
	    cmocka_unit_test(test_agent_text),
	    cmocka_unit_test(test_example_cluster),
	    cmocka_unit_test(test_header_in_every_format),
	    cmocka_unit_test(test_status_filter),
	    cmocka_unit_test(test_remedy_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
