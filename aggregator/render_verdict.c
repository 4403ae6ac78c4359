/*
 * The verdict for people: text for terminals and Markdown for tickets. Both
 * follow the order a change board reads in: the gates, what blocks them (with
 * evidence and remediation), the VMs that cannot live-migrate, the nodes, and
 * then everything else — problems in full, passes and skips one line per
 * check. The Markdown also carries every finding in one table, so a ticket
 * holds the same findings as the JSON.
 */
#include "render_verdict.h"

#include "finding_groups.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "catalog.h"
#include "json_write.h"
#include "render_json.h"
#include "render_text.h"

/* Sections list every node and VM up to this many; beyond, only the problems. */
#define LIST_ALL_MAX 20

unsigned *render_verdict_blocks(const struct verdict *v)
{
	unsigned *m = xcalloc(v->findings.n ? v->findings.n : 1, sizeof(*m));
	for (int g = 0; g < _GATE_MAX; g++)
		for (size_t i = 0; i < v->gates[g].n_blockers; i++)
			if (v->gates[g].blockers[i] < v->findings.n)
				m[v->gates[g].blockers[i]] |= 1u << g;
	return m;
}

char *render_verdict_subject(const struct finding *fd)
{
	/* "Node/NAME" about node NAME says the same thing twice. */
	if (fd->node && fd->object && startswith(fd->object, "Node/") &&
	    streq(fd->object + 5, fd->node))
		return xstrdup(fd->node);
	if (fd->node && fd->object)
		return xasprintf("%s %s", fd->node, fd->object);
	return xstrdup(fd->node ? fd->node : fd->object ? fd->object : "");
}

char *render_verdict_gate_list(unsigned mask)
{
	char *s = xstrdup("");
	for (int g = 0; g < _GATE_MAX; g++) {
		if (!(mask & (1u << g)))
			continue;
		char *n = xasprintf("%s%s%s", s, *s ? ", " : "", gate_name(g));
		free(s);
		s = n;
	}
	return s;
}

static int cmp_node_check(const void *a, const void *b, void *arg)
{
	const struct finding *items = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	const struct finding *fa = &items[ia], *fb = &items[ib];
	int c = (fa->node != NULL) - (fb->node != NULL);
	if (!c && fa->node)
		c = strcmp(fa->node, fb->node);
	if (!c)
		c = strcmp(fa->check, fb->check);
	return c ? c : (ia > ib) - (ia < ib);
}

size_t *render_verdict_by_node(const struct verdict *v)
{
	size_t *idx = xcalloc(v->findings.n ? v->findings.n : 1, sizeof(*idx));
	for (size_t i = 0; i < v->findings.n; i++)
		idx[i] = i;
	qsort_r(idx, v->findings.n, sizeof(*idx), cmp_node_check, v->findings.items);
	return idx;
}

void render_verdict_counts(const struct verdict *v, size_t ret[_STATUS_MAX])
{
	memset(ret, 0, sizeof(size_t) * _STATUS_MAX);
	for (size_t i = 0; i < v->findings.n; i++)
		if ((unsigned)v->findings.items[i].status < _STATUS_MAX)
			ret[v->findings.items[i].status]++;
}

const char *render_verdict_blocker_word(const struct verdict *v, int g, size_t n)
{
	if (g >= 0 && g < _GATE_MAX && v->gates[g].status == STATUS_WARN)
		return n == 1 ? "finding" : "findings";
	return n == 1 ? "blocker" : "blockers";
}

void render_verdict_blocks_for_gate(const struct verdict *v, unsigned *blocks, int gate)
{
	if (gate < 0 || gate >= _GATE_MAX)
		return;
	for (size_t i = 0; i < v->findings.n; i++)
		blocks[i] &= 1u << gate;
}

bool render_verdict_in_gate(const struct finding *fd, int gate)
{
	if (gate < 0 || gate >= _GATE_MAX)
		return true;
	const struct check_info *ci = catalog_find(fd->check);
	return ci && (ci->gates & (1u << gate));
}

char *render_verdict_go_line(const struct verdict *v, int gate)
{
	const struct gate_result *gr = &v->gates[gate];
	size_t n = gr->n_blockers;
	switch (gr->status) {
	case STATUS_FAIL:
		return xasprintf("%s: NO-GO (%zu %s)", gate_name(gate), n,
				 render_verdict_blocker_word(v, gate, n));
	case STATUS_UNKNOWN:
		return n ? xasprintf("%s: NO EVIDENCE (%zu undecided)", gate_name(gate), n)
			 : xasprintf("%s: NO EVIDENCE (nothing was checked)", gate_name(gate));
	case STATUS_WARN:
		return xasprintf("%s: GO, %zu %s to review", gate_name(gate), n,
				 render_verdict_blocker_word(v, gate, n));
	default:
		return xasprintf("%s: GO", gate_name(gate));
	}
}

size_t render_verdict_vms_blocked(const struct verdict *v)
{
	size_t n = 0;
	for (size_t i = 0; i < v->vms.n; i++)
		n += vm_row_status(&v->vms.items[i]) == STATUS_FAIL;
	return n;
}

void render_verdict_vm_counts(const struct verdict *v, size_t ret[_STATUS_MAX])
{
	memset(ret, 0, _STATUS_MAX * sizeof(*ret));
	for (size_t i = 0; i < v->vms.n; i++)
		ret[vm_row_status(&v->vms.items[i])]++;
}

char *render_verdict_vm_summary(const struct verdict *v)
{
	size_t c[_STATUS_MAX];
	render_verdict_vm_counts(v, c);
	char *s = xasprintf("%zu running VM%s: %zu cannot live-migrate now", v->vms.n,
			    v->vms.n == 1 ? "" : "s", c[STATUS_FAIL]);
	if (c[STATUS_UNKNOWN]) {
		char *t =
		    xasprintf("%s, %zu undecided (not enough evidence)", s, c[STATUS_UNKNOWN]);
		free(s);
		s = t;
	}
	if (c[STATUS_WARN]) {
		char *t = xasprintf("%s, %zu with a warning", s, c[STATUS_WARN]);
		free(s);
		s = t;
	}
	return s;
}

const char *render_verdict_vm_answer(const struct vm_row *r)
{
	switch (vm_row_status(r)) {
	case STATUS_FAIL:
		return "no";
	case STATUS_UNKNOWN:
		return "unknown";
	case STATUS_WARN:
		return "warn";
	default:
		return "yes";
	}
}

int render_verdict_vm_rank(const struct vm_row *r)
{
	switch (vm_row_status(r)) {
	case STATUS_FAIL:
		return 0;
	case STATUS_UNKNOWN:
		return 1;
	case STATUS_WARN:
		return 2;
	default:
		return 3;
	}
}

size_t render_verdict_nodes_reporting(const struct verdict *v)
{
	size_t n = 0;
	for (size_t i = 0; i < v->n_nodes; i++)
		n += v->nodes[i].reporting;
	return n;
}

static int id_width(const struct verdict *v)
{
	int w = 0;
	for (size_t i = 0; i < v->findings.n; i++) {
		int n = (int)strlen(v->findings.items[i].check);
		if (n > w)
			w = n;
	}
	return w;
}

/* ---------- text ---------- */

static void text_heading(FILE *f, const char *title, const char *extra, bool color)
{
	fputc('\n', f);
	if (color)
		fprintf(f, "\033[1m%s\033[0m", title);
	else
		fputs(title, f);
	if (extra && *extra) {
		int col = (int)strlen(title) + 2;
		fputs("  ", f);
		render_text_wrap(f, extra, &col, 2, RENDER_TEXT_WIDTH, false);
	}
	fputc('\n', f);
}

static void text_line(FILE *f, const char *s, int indent, int hang)
{
	int col = indent;
	fprintf(f, "%*s", indent, "");
	render_text_wrap(f, s, &col, hang, RENDER_TEXT_WIDTH, false);
	fputc('\n', f);
}

static void text_one(FILE *f, const struct finding *fd, int w, const char *note, bool color)
{
	_cleanup_free_ char *subject = render_verdict_subject(fd);
	struct text_finding_opts o = {
	    .indent = 2, .id_width = w, .subject = subject, .note = note, .color = color};
	render_text_finding_ex(f, fd, &o);
}

char *render_verdict_canary_proof(const struct verdict *v, int g)
{
	const struct verdict_canary *vc = &v->canary;
	if (!vc->present)
		return NULL;
	size_t proved = 0, steps = 0;
	for (size_t i = 0; i < v->findings.n; i++) {
		const struct finding *fd = &v->findings.items[i];
		const struct check_info *ci = catalog_find(fd->check);
		/* the cleanup proves nothing of a gate; its residue is a finding */
		if (!ci || ci->source != CHECK_CANARY || !(ci->gates & (1u << g)) ||
		    fd->status == STATUS_SKIP || streq(fd->check, "canary.cleanup"))
			continue;
		steps++;
		proved += fd->status == STATUS_PASS;
	}
	if (!steps)
		return NULL;
	char age[32];
	canary_result_age(vc->age_ns, age, sizeof(age));
	if (vc->future)
		return xasprintf("canary run %s: its time is %s in the future, no proof", vc->run,
				 age);
	if (vc->stale)
		return xasprintf("canary run %s is stale (%s ago), no proof", vc->run, age);
	if (proved == steps)
		return xasprintf("proved by canary run %s, %s ago", vc->run, age);
	return xasprintf("canary run %s, %s ago: %zu of %zu %s proved", vc->run, age, proved, steps,
			 plural((int64_t)steps, "step", "steps"));
}

/* The canary result the gates take, or why it could not be read: one line
 * (text, Markdown). Malloc'd. */
char *render_verdict_canary_line(const struct verdict *v)
{
	const struct verdict_canary *vc = &v->canary;
	_cleanup_free_ char *sched = NULL;
	if (vc->interval_ns) {
		char every[32];
		canary_result_age(vc->interval_ns, every, sizeof(every));
		sched = xasprintf(" Serve runs it every %s (%" PRIu64 " %s so far%s)%s%s.", every,
				  vc->runs, vc->runs == 1 ? "run" : "runs",
				  vc->running ? ", one running now" : "",
				  vc->run_error ? "; the last gave no result: " : "",
				  vc->run_error ? vc->run_error : "");
	}
	if (!vc->present && !vc->error)
		return xasprintf("Canary: no result yet.%s", sched ? sched : "");
	if (vc->error)
		return xasprintf("Canary: %s: no proof from it (%s).%s", vc->source, vc->error,
				 sched ? sched : "");
	char ts[64], age[32], max[32];
	util_format_rfc3339(vc->finished_ns, ts, sizeof(ts));
	canary_result_age(vc->age_ns, age, sizeof(age));
	canary_result_age(vc->max_age_ns, max, sizeof(max));
	_cleanup_free_ char *until = xasprintf("proof until it is %s old", max);
	return xasprintf("Canary: run %s (%s) ended %s, %s %s, from %s; %s.%s", vc->run, vc->status,
			 ts, age, vc->future ? "in the future" : "ago", vc->source,
			 vc->future  ? "the clocks disagree: it proves nothing"
			 : vc->stale ? "stale (past --canary-max-age): it proves nothing"
				     : until,
			 sched ? sched : "");
}

static void text_canary(FILE *f, const struct verdict *v)
{
	if (!v->canary.present && !v->canary.error && !v->canary.interval_ns)
		return;
	_cleanup_free_ char *raw = render_verdict_canary_line(v);
	_cleanup_free_ char *line = render_text_sanitize_line(raw);
	text_line(f, line, 0, 2);
}

static void text_gates(FILE *f, const struct verdict *v, int gate, bool color)
{
	text_heading(f, "GATES", NULL, color);
	for (int g = 0; g < _GATE_MAX; g++) {
		const struct gate_result *gr = &v->gates[g];
		fprintf(f, "  %-16s", gate_name(g));
		render_text_status(f, gr->status, color);
		if (gr->n_blockers)
			fprintf(f, "  %zu %s", gr->n_blockers,
				render_verdict_blocker_word(v, g, gr->n_blockers));
		else if (gr->status == STATUS_UNKNOWN)
			fputs("  no findings: nothing was checked", f);
		size_t waived = 0;
		for (size_t i = 0; i < v->findings.n; i++) {
			const struct check_info *ci = catalog_find(v->findings.items[i].check);
			waived += ci && (ci->gates & (1u << g)) && verdict_waiver(v, i);
		}
		if (waived)
			fprintf(f, "  %zu waived", waived);
		_cleanup_free_ char *proof = render_verdict_canary_proof(v, g);
		if (proof)
			fprintf(f, "  %s", proof);
		if (g == gate)
			fputs("  (asked)", f);
		fputc('\n', f);
	}
}

static bool is_blocker(size_t i, void *arg)
{
	return ((const unsigned *)arg)[i] != 0;
}

/* Findings outside the gates' blockers, of a problem status, in the asked gate. */
struct other_problems {
	const struct verdict *v;
	const unsigned *blocks;
	int gate;
	bool skip_waived; /* the text report lists them apart */
};

static bool is_other_problem(size_t i, void *arg)
{
	const struct other_problems *op = arg;
	const struct finding *fd = &op->v->findings.items[i];
	if (op->skip_waived && verdict_waiver(op->v, i))
		return false;
	return !op->blocks[i] &&
	       (fd->status == STATUS_FAIL || fd->status == STATUS_UNKNOWN ||
		fd->status == STATUS_WARN) &&
	       render_verdict_in_gate(fd, op->gate);
}

unsigned *render_verdict_group_keys(const struct verdict *v, const unsigned *blocks)
{
	unsigned *keys = xcalloc(v->findings.n + 1, sizeof(*keys));
	for (size_t i = 0; i < v->findings.n; i++) {
		ssize_t w = v->waiver_of ? v->waiver_of[i] : -1;
		keys[i] = blocks[i] << 24 | (unsigned)(w + 1);
	}
	return keys;
}

void render_verdict_blocker_groups(const struct verdict *v, const unsigned *blocks,
				   struct finding_groups *ret)
{
	_cleanup_free_ unsigned *keys = render_verdict_group_keys(v, blocks);
	finding_groups_build(v, keys, is_blocker, (void *)blocks, ret);
}

size_t render_verdict_groups_worst_first(const struct finding_groups *groups, unsigned mask,
					 const struct finding_group ***ret)
{
	static const enum status order[] = {STATUS_FAIL, STATUS_UNKNOWN, STATUS_WARN};
	const struct finding_group **out = xcalloc(groups->n + 1, sizeof(*out));
	size_t n = 0;
	for (size_t k = 0; k < ELEMENTSOF(order); k++)
		for (size_t i = 0; i < groups->n; i++)
			if (groups->items[i].merged.status == order[k] &&
			    render_status_shown(mask, order[k]))
				out[n++] = &groups->items[i];
	*ret = out;
	return n;
}

unsigned render_status_mask_parse(const char *list)
{
	if (!list || !*list)
		return 0;
	unsigned mask = 0;
	_cleanup_free_ char *copy = xstrdup(list);
	char *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int st = -1;
		for (int i = 0; i < _STATUS_MAX; i++)
			if (strcasecmp(t, status_name(i)) == 0)
				st = i;
		if (st < 0)
			return 0;
		mask |= 1u << st;
	}
	/* "fail,,warn" or a trailing comma is a typo, not a filter */
	size_t n = strlen(list);
	if (list[0] == ',' || list[n - 1] == ',' || strstr(list, ",,"))
		return 0;
	return mask;
}

char *render_status_mask_names(unsigned mask)
{
	static const enum status order[] = {STATUS_FAIL, STATUS_UNKNOWN, STATUS_WARN, STATUS_PASS,
					    STATUS_SKIP};
	char *ret = xstrdup("");
	for (size_t k = 0; k < ELEMENTSOF(order); k++)
		if (mask & (1u << order[k])) {
			char *n = xasprintf("%s%s%s", ret, *ret ? ", " : "", status_name(order[k]));
			free(ret);
			ret = n;
		}
	return ret;
}

bool render_status_shown(unsigned mask, enum status st)
{
	return !mask || (mask & (1u << st));
}

char *render_status_showing(const struct verdict *v, unsigned mask)
{
	if (!mask || (mask & RENDER_STATUS_ALL) == RENDER_STATUS_ALL)
		return NULL;
	_cleanup_free_ char *names = render_status_mask_names(mask);
	return xasprintf("showing %s of %zu %s", names, v->findings.n,
			 plural((int64_t)v->findings.n, "finding", "findings"));
}

static bool any_finding(size_t i, void *arg)
{
	(void)i, (void)arg;
	return true;
}

void verdict_groups_write(struct jw *w, const struct verdict *v)
{
	_cleanup_free_ unsigned *blocks = render_verdict_blocks(v);
	_cleanup_free_ unsigned *keys = render_verdict_group_keys(v, blocks);
	struct finding_groups groups;
	finding_groups_build(v, keys, any_finding, NULL, &groups);
	jw_array_begin(w);
	for (size_t k = 0; k < groups.n; k++) {
		const struct finding_group *g = &groups.items[k];
		const struct finding *fd = &g->merged;
		jw_object_begin(w);
		/* The key: what the members share (the first member names it). */
		_cleanup_free_ char *key =
		    xasprintf("%s/%s/%zu", fd->check, status_name(fd->status), g->first);
		jw_member_str(w, "key", key);
		jw_member_str(w, "check", fd->check);
		jw_member_str(w, "status", status_name(fd->status));
		jw_member_str(w, "message", fd->message ? fd->message : "");
		if (fd->object)
			jw_member_str(w, "object", fd->object);
		jw_key(w, "blocks");
		jw_array_begin(w);
		for (int gi = 0; gi < _GATE_MAX; gi++)
			if (blocks[g->first] & (1u << gi))
				jw_string(w, gate_name(gi));
		jw_array_end(w);
		jw_member_bool(w, "waived", v->waiver_of && v->waiver_of[g->first] >= 0);
		jw_member_int(w, "count", (int64_t)g->n);
		jw_key(w, "nodes");
		jw_array_begin(w);
		for (size_t m = 0; m < g->n; m++) {
			const struct finding *mf = &v->findings.items[g->members[m]];
			if (mf->node)
				jw_string(w, mf->node);
		}
		jw_array_end(w);
		jw_key(w, "findings");
		jw_array_begin(w);
		for (size_t m = 0; m < g->n; m++)
			jw_int(w, (int64_t)g->members[m]);
		jw_array_end(w);
		jw_object_end(w);
	}
	jw_array_end(w);
	finding_groups_clear(&groups);
}

/* Names shown in a text card of a group; the JSON lists them all. */
#define TEXT_GROUP_NAMES 8

static void text_group(FILE *f, const struct verdict *v, const struct finding_group *g, int w,
		       const char *note, bool color)
{
	if (g->n == 1) {
		text_one(f, &v->findings.items[g->first], w, note, color);
		return;
	}
	_cleanup_free_ char *subject = finding_group_subject(g, TEXT_GROUP_NAMES);
	struct text_finding_opts o = {
	    .indent = 2, .id_width = w, .subject = subject, .note = note, .color = color};
	render_text_finding_ex(f, &g->merged, &o);
}

static void text_blockers(FILE *f, const struct verdict *v, const unsigned *blocks, int w,
			  unsigned statuses, bool color)
{
	struct finding_groups groups;
	render_verdict_blocker_groups(v, blocks, &groups);
	_cleanup_free_ const struct finding_group **gs = NULL;
	size_t n = render_verdict_groups_worst_first(&groups, statuses, &gs);
	if (n)
		text_heading(f, "BLOCKERS", "the findings that decide the gates", color);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *gl = render_verdict_gate_list(blocks[gs[i]->first]);
		_cleanup_free_ char *note = xasprintf("blocks: %s", gl);
		text_group(f, v, gs[i], w, note, color);
	}
	finding_groups_clear(&groups);
}

static void text_vms(FILE *f, const struct verdict *v, bool color)
{
	if (!v->vms.n)
		return;
	size_t c[_STATUS_MAX];
	render_verdict_vm_counts(v, c);
	_cleanup_free_ char *extra = render_verdict_vm_summary(v);
	text_heading(f, "LIVE MIGRATION", extra, color);
	int nw = 0;
	for (size_t i = 0; i < v->vms.n; i++) {
		int n = (int)(strlen(v->vms.items[i].namespace) + strlen(v->vms.items[i].name) + 1);
		if (n > nw)
			nw = n;
	}
	if (nw > 40)
		nw = 40;
	for (int pass = 0; pass < 4; pass++)
		for (size_t i = 0; i < v->vms.n; i++) {
			const struct vm_row *r = &v->vms.items[i];
			/* Those that cannot migrate first, then the undecided and the
			 * warned; those that can only in small clusters. */
			if (render_verdict_vm_rank(r) != pass ||
			    (pass == 3 && v->vms.n > LIST_ALL_MAX))
				continue;
			_cleanup_free_ char *vm = xasprintf("%s/%s", r->namespace, r->name);
			_cleanup_free_ char *svm = render_text_sanitize_line(vm);
			_cleanup_free_ char *snode =
			    render_text_sanitize_line(r->node && *r->node ? r->node : "(no node)");
			const char *ans = render_verdict_vm_answer(r);
			fprintf(f, "  %-*s  %-7s  on %s\n", nw, svm,
				vm_row_status(r) == STATUS_FAIL	     ? "NO"
				: vm_row_status(r) == STATUS_UNKNOWN ? "UNKNOWN"
								     : ans,
				snode);
			for (size_t j = 0; j < r->reasons.n; j++) {
				_cleanup_free_ char *reason =
				    xasprintf("- %s", r->reasons.items[j]);
				text_line(f, reason, 6, 8);
			}
		}
	if (v->vms.n > LIST_ALL_MAX && c[STATUS_PASS])
		fprintf(f, "  (%zu VM%s that can live-migrate %s not listed)\n", c[STATUS_PASS],
			c[STATUS_PASS] == 1 ? "" : "s", c[STATUS_PASS] == 1 ? "is" : "are");
}

static void text_nodes(FILE *f, const struct verdict *v, bool color)
{
	size_t reporting = render_verdict_nodes_reporting(v);
	_cleanup_free_ char *extra = xasprintf("%zu known, %zu reporting", v->n_nodes, reporting);
	text_heading(f, "NODES", extra, color);
	if (!v->n_nodes)
		fputs("  no nodes: no Kubernetes Node objects and no node reports\n", f);
	size_t hidden = 0;
	for (size_t i = 0; i < v->n_nodes; i++) {
		const struct verdict_node *n = &v->nodes[i];
		bool problem = !n->reporting || !n->in_cluster || !n->k8s_ready;
		if (!problem && v->n_nodes > LIST_ALL_MAX) {
			hidden++;
			continue;
		}
		_cleanup_free_ char *state =
		    n->reporting ? xasprintf("report %llds old",
					     (long long)(n->report_age_ns / NSEC_PER_SEC))
				 : xstrdup("NO REPORT");
		_cleanup_free_ char *name = render_text_sanitize_line(n->name);
		fprintf(f, "  %-24s %-9s %s\n", name,
			!n->in_cluster ? "no Node"
			: n->k8s_ready ? "Ready"
				       : "NotReady",
			state);
	}
	if (hidden)
		fprintf(f, "  (%zu Ready, reporting nodes are not listed)\n", hidden);
}

/* One line standing for several findings of a check with the same status. */
static void text_grouped(FILE *f, const struct verdict *v, const unsigned *blocks, size_t first,
			 enum status st, int w, bool color)
{
	const struct finding *a = &v->findings.items[first];
	struct strv subjects = {0};
	bool same_msg = true;
	size_t n = 0;
	int kinds = 0; /* 1: all about nodes, 2: all about objects, 3: mixed */
	for (size_t i = first; i < v->findings.n; i++) {
		const struct finding *b = &v->findings.items[i];
		if (blocks[i] || b->status != st || !streq(a->check, b->check))
			continue;
		n++;
		kinds |= b->object ? 2 : b->node ? 1 : 3;
		same_msg = same_msg && streq(a->message, b->message);
		if (subjects.n < 6) {
			char *s = render_verdict_subject(b);
			strv_add(&subjects, *s ? s : "cluster");
			free(s);
		}
	}
	if (n == 1) {
		text_one(f, a, w, NULL, color);
		strv_clear(&subjects);
		return;
	}
	char *list = xstrdup("");
	for (size_t i = 0; i < subjects.n && i < 5; i++) {
		char *l = xasprintf("%s%s%s", list, i ? ", " : "", subjects.items[i]);
		free(list);
		list = l;
	}
	_cleanup_free_ char *more = n > 5 ? xasprintf(" and %zu more", n - 5) : xstrdup("");
	_cleanup_free_ char *subject = xasprintf("%zu %s: %s%s", n,
						 kinds == 1   ? "nodes"
						 : kinds == 2 ? "objects"
							      : "findings",
						 list, more);
	struct finding tmp = {.check = a->check, .status = st};
	tmp.message = same_msg ? a->message : "(the messages differ: see --format json)";
	struct text_finding_opts o = {
	    .indent = 2, .id_width = w, .subject = subject, .color = color};
	render_text_finding_ex(f, &tmp, &o);
	free(list);
	strv_clear(&subjects);
}

static void text_rest(FILE *f, const struct verdict *v, const unsigned *blocks, int gate, int w,
		      unsigned statuses, bool color)
{
	static const enum status order[] = {STATUS_FAIL, STATUS_UNKNOWN, STATUS_WARN, STATUS_PASS,
					    STATUS_SKIP};
	static const char *const titles[] = {"OTHER FAIL", "OTHER UNKNOWN", "OTHER WARN", "PASS",
					     "SKIP"};
	static const char *const extras[] = {
	    NULL, "undecided, in gates decided by a FAIL", "in gates decided by a worse status",
	    "one line per check", "not applicable here, one line per check"};
	bool any = false;
	for (size_t i = 0; i < v->findings.n; i++) {
		const struct waiver *wv = verdict_waiver(v, i);
		if (!wv || !render_verdict_in_gate(&v->findings.items[i], gate) ||
		    !render_status_shown(statuses, v->findings.items[i].status))
			continue;
		if (!any)
			text_heading(f, "WAIVED",
				     "accepted by the change board: they count toward no gate",
				     color);
		any = true;
		_cleanup_free_ char *raw = waiver_note(wv);
		_cleanup_free_ char *note = render_text_sanitize_line(raw);
		text_one(f, &v->findings.items[i], w, note, color);
	}
	for (size_t k = 0; k < ELEMENTSOF(order); k++) {
		if (!render_status_shown(statuses, order[k]))
			continue;
		bool grouped = order[k] == STATUS_PASS || order[k] == STATUS_SKIP;
		if (!grouped) {
			/* identical findings on several nodes: one card */
			struct other_problems op = {
			    .v = v, .blocks = blocks, .gate = gate, .skip_waived = true};
			struct finding_groups groups;
			finding_groups_build(v, blocks, is_other_problem, &op, &groups);
			any = false;
			for (size_t i = 0; i < groups.n; i++) {
				const struct finding_group *g = &groups.items[i];
				if (g->merged.status != order[k])
					continue;
				if (!any)
					text_heading(f, titles[k], extras[k], color);
				any = true;
				text_group(f, v, g, w, NULL, color);
			}
			finding_groups_clear(&groups);
			continue;
		}
		struct strv done = {0};
		any = false;
		for (size_t i = 0; i < v->findings.n; i++) {
			const struct finding *fd = &v->findings.items[i];
			if (blocks[i] || fd->status != order[k] ||
			    !render_verdict_in_gate(fd, gate) || verdict_waiver(v, i))
				continue;
			if (!any)
				text_heading(f, titles[k], extras[k], color);
			any = true;
			if (!strv_contains(&done, fd->check)) {
				strv_add(&done, fd->check);
				text_grouped(f, v, blocks, i, order[k], w, color);
			}
		}
		strv_clear(&done);
	}
}

/* The change-board header (docs/change-board.md), one aligned line each. */
static void text_board(FILE *f, const struct verdict *v, bool color)
{
	struct report_header_row rows[REPORT_HEADER_ROWS];
	report_header_rows(&v->header, rows);
	text_heading(f, "CHANGE BOARD", NULL, color);
	for (int i = 0; i < REPORT_HEADER_ROWS; i++) {
		_cleanup_free_ char *val = render_text_sanitize_line(rows[i].value);
		int col = 2 + 16;
		fprintf(f, "  %-15s ", rows[i].label);
		render_text_wrap(f, val, &col, col, RENDER_TEXT_WIDTH, false);
		fputc('\n', f);
	}
	report_header_rows_clear(rows);
}

/* The waivers of --waivers: used, unused, expired (docs/change-board.md). */
static void text_waivers(FILE *f, const struct verdict *v, bool color)
{
	if (!v->have_waivers)
		return;
	size_t n[3] = {0};
	for (size_t i = 0; i < v->waivers.n; i++) {
		const char *st = waiver_state(&v->waivers.items[i]);
		n[streq(st, "used") ? 0 : streq(st, "unused") ? 1 : 2]++;
	}
	_cleanup_free_ char *file = render_text_sanitize_line(v->waivers.file);
	_cleanup_free_ char *extra =
	    xasprintf("%s: %zu used, %zu unused, %zu expired; %zu finding%s waived", file, n[0],
		      n[1], n[2], verdict_waived_count(v), verdict_waived_count(v) == 1 ? "" : "s");
	text_heading(f, "WAIVERS", extra, color);
	for (size_t i = 0; i < v->waivers.n; i++) {
		const struct waiver *w = &v->waivers.items[i];
		_cleanup_free_ char *sel = xasprintf(
		    "%s%s%s%s%s", w->check, w->node ? " node " : "", w->node ? w->node : "",
		    w->object ? " object " : "", w->object ? w->object : "");
		_cleanup_free_ char *unknown =
		    w->unknown_matched
			? xasprintf("; %zu UNKNOWN finding%s not waived: UNKNOWN is never waivable",
				    w->unknown_matched, w->unknown_matched == 1 ? "" : "s")
			: xstrdup("");
		_cleanup_free_ char *raw = xasprintf(
		    "%s: %s: %s; approved by %s; %s%s; %zu finding%s waived%s", waiver_state(w),
		    sel, w->reason, w->approved_by, w->expires ? "expires " : "no expiry",
		    w->expires ? w->expires : "", w->applied, w->applied == 1 ? "" : "s", unknown);
		_cleanup_free_ char *line = render_text_sanitize_line(raw);
		text_line(f, line, 2, 4);
	}
}

/* The versions read from the cluster, and each one outside the support
 * matrix (docs/support-matrix.md). */
static void text_versions(FILE *f, const struct cluster_versions *cv)
{
	_cleanup_free_ char *line = cluster_versions_line(cv);
	_cleanup_free_ char *text =
	    xasprintf("Versions: %s.", line ? line : "none found in the cluster state");
	text_line(f, text, 0, 2);
	for (int c = 0; c < _VC_MAX; c++)
		if (cv->c[c].note) {
			_cleanup_free_ char *n = xasprintf("Note: %s.", cv->c[c].note);
			text_line(f, n, 0, 2);
		}
}

void verdict_render_text(FILE *f, const struct verdict *v, int gate, bool color)
{
	verdict_render_text_view(f, v, gate, 0, color);
}

void verdict_render_text_view(FILE *f, const struct verdict *v, int gate, unsigned statuses,
			      bool color)
{
	char ts[64];
	util_format_rfc3339(v->generated_ns, ts, sizeof(ts));
	enum status overall = verdict_status(v, gate);
	if (gate >= 0 && gate < _GATE_MAX)
		fprintf(f, "hvready verdict for %s: ", gate_name(gate));
	else
		fputs("hvready verdict: ", f);
	if (color)
		fputs("\033[1m", f);
	fputs(status_name(overall), f);
	if (color)
		fputs("\033[0m", f);
	fputc('\n', f);
	_cleanup_free_ char *meta = xasprintf(
	    "Generated %s, %s, from %s. Harvester installed: %s.", ts, v->live ? "live" : "offline",
	    *v->source ? v->source : "(unknown source)", v->harvester_installed ? "yes" : "no");
	text_line(f, meta, 0, 2);
	text_versions(f, &v->versions);
	text_canary(f, v);
	text_board(f, v, color);
	_cleanup_free_ char *showing = render_status_showing(v, statuses);
	if (showing)
		fprintf(f, "Findings: %s.\n", showing);

	_cleanup_free_ unsigned *blocks = render_verdict_blocks(v);
	/* --gate: that gate's blockers and findings only, and its VMs */
	render_verdict_blocks_for_gate(v, blocks, gate);
	int w = id_width(v);
	text_gates(f, v, gate, color);
	text_blockers(f, v, blocks, w, statuses, color);
	if (gate < 0 || gate == GATE_LIVE_MIGRATION)
		text_vms(f, v, color);
	text_nodes(f, v, color);
	text_rest(f, v, blocks, gate, w, statuses, color);
	text_waivers(f, v, color);
	size_t c[_STATUS_MAX];
	render_verdict_counts(v, c);
	fprintf(f, "\n%zu %s: %zu FAIL, %zu UNKNOWN, %zu WARN, %zu PASS, %zu SKIP", v->findings.n,
		plural((int64_t)v->findings.n, "finding", "findings"), c[STATUS_FAIL],
		c[STATUS_UNKNOWN], c[STATUS_WARN], c[STATUS_PASS], c[STATUS_SKIP]);
	if (v->have_waivers)
		fprintf(f, " (%zu waived)", verdict_waived_count(v));
	fputc('\n', f);
	if (gate >= 0 && gate < _GATE_MAX) {
		_cleanup_free_ char *go = render_verdict_go_line(v, gate);
		fprintf(f, "%s\n", go);
	} else
		fprintf(f, "Overall: %s\n", status_name(overall));
}

/* ---------- Markdown ---------- */

/*
 * Markdown is read rendered (GitHub, GitLab) and raw; what comes from the
 * cluster must render as the literal text it is, never as markup, HTML or a
 * mention. Outside code spans every character that CommonMark or GFM could
 * give a meaning is backslash-escaped; a newline becomes <br> (the only raw
 * HTML we write), and "|" is escaped in tables even inside code spans, as GFM
 * requires.
 */
static void md_text_at(FILE *f, const char *s, bool line_start)
{
	_cleanup_free_ char *safe = render_text_sanitize(s);
	const char *p = safe;
	if (line_start) {
		/* What would open a block at the start of a line: a list item
		 * ("- ", "+ ", "1. "), a thematic break, indented code. */
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '-' || *p == '+' || *p == '=')
			fprintf(f, "\\%c", *p++);
		size_t d = strspn(p, "0123456789");
		if (d && (p[d] == '.' || p[d] == ')')) {
			fwrite(p, 1, d, f);
			fprintf(f, "\\%c", p[d]);
			p += d + 1;
		}
	}
	for (; *p; p++) {
		/* An underscore between two letters or digits cannot open or close
		 * emphasis: leave snake_case readable in the raw text. */
		bool intraword = *p == '_' && p > safe && isalnum((unsigned char)p[-1]) &&
				 isalnum((unsigned char)p[1]);
		if (intraword)
			fputc('_', f);
		else if (*p == '\n')
			fputs("<br>", f);
		else if (*p == '\t')
			fputc(' ', f);
		else if (strchr("\\`*_[]<>|&~#$@!", *p))
			fprintf(f, "\\%c", *p);
		else
			fputc(*p, f);
	}
}

static void md_text(FILE *f, const char *s)
{
	md_text_at(f, s, false);
}

/* The longest run of backticks in s. */
static size_t backtick_run(const char *s)
{
	size_t best = 0, cur = 0;
	for (; *s; s++) {
		cur = *s == '`' ? cur + 1 : 0;
		if (cur > best)
			best = cur;
	}
	return best;
}

/* s as one code span (single line). */
static void md_code(FILE *f, const char *s, bool table)
{
	_cleanup_free_ char *safe = render_text_sanitize(s);
	size_t fence = backtick_run(safe) + 1;
	size_t len = strlen(safe);
	/* CommonMark strips one space from each end when both are there: pad
	 * whenever the content starts or ends with a backtick or a space. */
	bool pad = len && (safe[0] == '`' || safe[len - 1] == '`' || safe[0] == ' ' ||
			   safe[len - 1] == ' ');
	for (size_t i = 0; i < fence; i++)
		fputc('`', f);
	if (pad)
		fputc(' ', f);
	for (const char *p = safe; *p; p++) {
		if (*p == '|' && table)
			fputs("\\|", f);
		else if (*p == '\n' || *p == '\t')
			fputc(' ', f);
		else
			fputc(*p, f);
	}
	if (pad)
		fputc(' ', f);
	for (size_t i = 0; i < fence; i++)
		fputc('`', f);
}

/* Text a check wrote (remediation): `…` pairs stay code spans (commands to
 * copy), the rest is escaped. */
static void md_rich_at(FILE *f, const char *s, bool line_start)
{
	const char *p = s ? s : "";
	while (*p) {
		const char *open = strchr(p, '`');
		const char *close = open ? strchr(open + 1, '`') : NULL;
		if (close && memchr(open, '\n', (size_t)(close - open)))
			close = NULL;
		if (!close || close == open + 1) {
			md_text_at(f, p, line_start && p == s);
			return;
		}
		_cleanup_free_ char *before = xstrndup(p, (size_t)(open - p));
		_cleanup_free_ char *code = xstrndup(open + 1, (size_t)(close - open - 1));
		md_text_at(f, before, line_start && p == s);
		md_code(f, code, false);
		p = close + 1;
	}
}

static void md_rich(FILE *f, const char *s)
{
	md_rich_at(f, s, false);
}

static void md_value(FILE *f, const struct value *val)
{
	_cleanup_free_ char *s = render_text_value_str(val);
	if (!strchr(s, '\n')) {
		fputc(' ', f);
		md_code(f, s, false);
		return;
	}
	/* Several lines: a fenced block inside the list item. */
	_cleanup_free_ char *safe = render_text_sanitize(s);
	size_t fence = backtick_run(safe) + 1;
	if (fence < 3)
		fence = 3;
	fputs("\n\n  ", f);
	for (size_t i = 0; i < fence; i++)
		fputc('`', f);
	fputs("\n  ", f);
	for (const char *p = safe; *p; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fputs("  ", f);
	}
	fputs("\n  ", f);
	for (size_t i = 0; i < fence; i++)
		fputc('`', f);
}

static void md_blocker_body(FILE *f, const struct finding *fd, unsigned blocks,
			    const struct waiver *waived);
static void md_blocker(FILE *f, const struct finding *fd, unsigned blocks,
		       const struct waiver *waived);

/* One card for a group: "on 37 nodes", then every node by name. */
static void md_group(FILE *f, const struct verdict *v, const struct finding_group *g,
		     unsigned blocks)
{
	/* Members share their waiver: it is part of the grouping key. */
	const struct waiver *waived = verdict_waiver(v, g->first);
	if (g->n == 1) {
		md_blocker(f, &v->findings.items[g->first], blocks, waived);
		return;
	}
	fprintf(f, "\n### %s ", status_name(g->merged.status));
	md_code(f, g->merged.check, false);
	fprintf(f, " on %zu nodes", g->n);
	if (g->merged.object) {
		fputs(" — ", f);
		md_text(f, g->merged.object);
	}
	fputs("\n\nNodes: ", f);
	for (size_t i = 0; i < g->n; i++) {
		if (i)
			fputs(", ", f);
		md_text(f, g->names[i]);
	}
	fputc('.', f);
	md_blocker_body(f, &g->merged, blocks, waived);
}

/* "## TITLE" and the groups, worst first, of the statuses shown; nothing
 * without one. blocks: the gates each blocks (by its first finding), or NULL. */
static void md_section(FILE *f, const struct verdict *v, const struct finding_groups *groups,
		       unsigned statuses, const char *title, const unsigned *blocks)
{
	_cleanup_free_ const struct finding_group **gs = NULL;
	size_t n = render_verdict_groups_worst_first(groups, statuses, &gs);
	if (n)
		fprintf(f, "\n## %s\n", title);
	for (size_t i = 0; i < n; i++)
		md_group(f, v, gs[i], blocks ? blocks[gs[i]->first] : 0);
}

static void md_blocker(FILE *f, const struct finding *fd, unsigned blocks,
		       const struct waiver *waived)
{
	fprintf(f, "\n### %s ", status_name(fd->status));
	md_code(f, fd->check, false);
	if (fd->node) {
		fputs(" on ", f);
		md_text(f, fd->node);
	}
	/* "Node/NAME" about node NAME says the same thing twice. */
	if (fd->object &&
	    !(fd->node && startswith(fd->object, "Node/") && streq(fd->object + 5, fd->node))) {
		fputs(" — ", f);
		md_text(f, fd->object);
	}
	md_blocker_body(f, fd, blocks, waived);
}

/* Everything of a card after its heading. */
static void md_blocker_body(FILE *f, const struct finding *fd, unsigned blocks,
			    const struct waiver *waived)
{
	_cleanup_free_ char *gl = render_verdict_gate_list(blocks);
	if (blocks) {
		fprintf(f, "\n\nBlocks: %s.\n\n", gl);
	} else if (waived) {
		_cleanup_free_ char *note = waiver_note(waived);
		fputs("\n\n**", f);
		md_text(f, note);
		fputs("**: blocks nothing.\n\n", f);
	} else
		fputs("\n\nBlocks nothing: its gates are decided by worse findings.\n\n", f);
	md_text_at(f, fd->message, true);
	fputs("\n\n", f);
	if (fd->evidence.n)
		fputs("Evidence:\n\n", f);
	for (size_t k = 0; k < fd->evidence.n; k++) {
		fputs("- ", f);
		md_text(f, fd->evidence.items[k].key);
		fputc(':', f);
		md_value(f, &fd->evidence.items[k].val);
		fputc('\n', f);
	}
	struct strv steps = {0};
	remedy_steps(fd->remediation, &steps);
	if (steps.n == 1) {
		fputs(fd->evidence.n ? "\n**Remediation:** " : "**Remediation:** ", f);
		md_rich(f, steps.items[0]);
		fputs("\n", f);
	} else if (steps.n > 1) {
		/* Numbered steps; a command stays a code span inside its step. */
		fputs(fd->evidence.n ? "\n**Remediation:**\n\n" : "**Remediation:**\n\n", f);
		for (size_t k = 0; k < steps.n; k++) {
			fprintf(f, "%zu. ", k + 1);
			/* In a list item: what would open a block there is escaped. */
			md_rich_at(f, steps.items[k], true);
			fputc('\n', f);
		}
	}
	strv_clear(&steps);
	/* The check's page, the same URL as the JSON's doc_url (only an http(s)
	 * or relative one becomes a link). */
	_cleanup_free_ char *doc = render_doc_url(fd->check);
	if (render_doc_url_linkable(doc))
		fprintf(f, "\nDocs: [%s](%s)\n", fd->check, doc);
}

static void md_vms(FILE *f, const struct verdict *v)
{
	if (!v->vms.n)
		return;
	_cleanup_free_ char *summary = render_verdict_vm_summary(v);
	fprintf(f, "\n## Live migration\n\n%s.\n\n", summary);
	fputs("| VM | Node | Can live-migrate | Why not |\n|---|---|---|---|\n", f);
	for (int pass = 0; pass < 4; pass++)
		for (size_t i = 0; i < v->vms.n; i++) {
			const struct vm_row *r = &v->vms.items[i];
			if (render_verdict_vm_rank(r) != pass)
				continue;
			fputs("| ", f);
			md_text(f, r->namespace);
			fputc('/', f);
			md_text(f, r->name);
			fputs(" | ", f);
			md_text(f, r->node);
			fprintf(f, " | %s | ",
				vm_row_status(r) == STATUS_FAIL	     ? "**no**"
				: vm_row_status(r) == STATUS_UNKNOWN ? "**unknown**"
								     : render_verdict_vm_answer(r));
			for (size_t j = 0; j < r->reasons.n; j++) {
				if (j)
					fputs("<br>", f);
				md_text(f, r->reasons.items[j]);
			}
			fputs(" |\n", f);
		}
}

static void md_nodes(FILE *f, const struct verdict *v)
{
	fprintf(f, "\n## Nodes\n\n%zu known, %zu reporting.\n", v->n_nodes,
		render_verdict_nodes_reporting(v));
	if (!v->n_nodes)
		return;
	fputs("\n| Node | Kubernetes | Report |\n|---|---|---|\n", f);
	for (size_t i = 0; i < v->n_nodes; i++) {
		const struct verdict_node *n = &v->nodes[i];
		fputs("| ", f);
		md_text(f, n->name);
		fprintf(f, " | %s | ",
			!n->in_cluster ? "no Node object"
			: n->k8s_ready ? "Ready"
				       : "**NotReady**");
		if (n->reporting)
			fprintf(f, "%llds old |\n", (long long)(n->report_age_ns / NSEC_PER_SEC));
		else
			fputs("**none** |\n", f);
	}
}

static void md_versions(FILE *f, const struct cluster_versions *cv)
{
	_cleanup_free_ char *line = cluster_versions_line(cv);
	fputs("Versions: ", f);
	md_text(f, line ? line : "none found in the cluster state");
	fputs(".\n\n", f);
	for (int c = 0; c < _VC_MAX; c++)
		if (cv->c[c].note) {
			fputs("> **Note:** ", f);
			md_text(f, cv->c[c].note);
			fputs(".\n\n", f);
		}
}

static void md_board(FILE *f, const struct verdict *v)
{
	struct report_header_row rows[REPORT_HEADER_ROWS];
	report_header_rows(&v->header, rows);
	fputs("## Change board\n\n| Field | Value |\n|---|---|\n", f);
	for (int i = 0; i < REPORT_HEADER_ROWS; i++) {
		fprintf(f, "| %s | ", rows[i].label);
		md_text(f, rows[i].value);
		fputs(" |\n", f);
	}
	fputc('\n', f);
	report_header_rows_clear(rows);
}

static void md_waivers(FILE *f, const struct verdict *v)
{
	if (!v->have_waivers)
		return;
	fputs("\n## Waivers\n\nFrom ", f);
	md_text(f, v->waivers.file);
	size_t n = verdict_waived_count(v);
	fprintf(f, ": %zu finding%s waived. UNKNOWN findings are never waived.\n\n", n,
		n == 1 ? "" : "s");
	if (!v->waivers.n)
		return;
	fputs("| State | Check | Node | Object | Reason | Approved by | Expires | Findings |\n"
	      "|---|---|---|---|---|---|---|---|\n",
	      f);
	for (size_t i = 0; i < v->waivers.n; i++) {
		const struct waiver *w = &v->waivers.items[i];
		fprintf(f, "| %s | ", waiver_state(w));
		md_code(f, w->check, true);
		const char *cells[] = {w->node ? w->node : "", w->object ? w->object : "",
				       w->reason, w->approved_by,
				       w->expires ? w->expires : "no expiry"};
		for (size_t k = 0; k < ELEMENTSOF(cells); k++) {
			fputs(" | ", f);
			md_text(f, cells[k]);
		}
		fprintf(f, " | %zu", w->applied);
		if (w->unknown_matched)
			fprintf(f, " (%zu UNKNOWN not waived)", w->unknown_matched);
		fputs(" |\n", f);
	}
}

void verdict_render_markdown(FILE *f, const struct verdict *v, int gate)
{
	verdict_render_markdown_view(f, v, gate, 0);
}

void verdict_render_markdown_view(FILE *f, const struct verdict *v, int gate, unsigned statuses)
{
	char ts[64];
	util_format_rfc3339(v->generated_ns, ts, sizeof(ts));
	if (gate >= 0 && gate < _GATE_MAX)
		fprintf(f, "# hvready verdict for %s: %s\n\n", gate_name(gate),
			status_name(verdict_status(v, gate)));
	else
		fprintf(f, "# hvready verdict: %s\n\n", status_name(verdict_status(v, gate)));
	fprintf(f, "Generated %s (%s, ", ts, v->live ? "live" : "offline");
	md_text(f, *v->source ? v->source : "unknown source");
	fprintf(f, "). Harvester installed: %s.\n\n", v->harvester_installed ? "yes" : "no");
	md_versions(f, &v->versions);
	md_board(f, v);
	_cleanup_free_ char *showing = render_status_showing(v, statuses);
	if (showing)
		fprintf(f, "Findings: %s.\n\n", showing);

	if (v->canary.present || v->canary.error || v->canary.interval_ns) {
		_cleanup_free_ char *line = render_verdict_canary_line(v);
		md_text(f, line);
		fputs("\n\n", f);
	}
	fputs("## Gates\n\n| Gate | Status | Blockers |\n|---|---|---|\n", f);
	for (int g = 0; g < _GATE_MAX; g++) {
		fprintf(f, "| %s%s | **%s** | %zu%s", gate_name(g), g == gate ? " (asked)" : "",
			status_name(v->gates[g].status), v->gates[g].n_blockers,
			v->gates[g].status == STATUS_WARN && v->gates[g].n_blockers
			    ? " (findings to review, none blocks)"
			    : "");
		_cleanup_free_ char *proof = render_verdict_canary_proof(v, g);
		if (proof) {
			fputs("; ", f);
			md_text(f, proof);
		}
		fputs(" |\n", f);
	}

	_cleanup_free_ unsigned *blocks = render_verdict_blocks(v);
	render_verdict_blocks_for_gate(v, blocks, gate);
	struct finding_groups groups;
	render_verdict_blocker_groups(v, blocks, &groups);
	_cleanup_free_ unsigned *keys = render_verdict_group_keys(v, blocks);
	md_section(f, v, &groups, statuses, "Blockers", blocks);
	finding_groups_clear(&groups);
	struct other_problems op = {.v = v, .blocks = blocks, .gate = gate};
	finding_groups_build(v, keys, is_other_problem, &op, &groups);
	md_section(f, v, &groups, statuses, "Other problems", NULL);
	finding_groups_clear(&groups);
	if (gate < 0 || gate == GATE_LIVE_MIGRATION)
		md_vms(f, v);
	md_nodes(f, v);
	md_waivers(f, v);

	size_t c[_STATUS_MAX];
	render_verdict_counts(v, c);
	fprintf(f,
		"\n## All findings\n\n%zu %s: %zu FAIL, %zu UNKNOWN, %zu WARN, %zu PASS, "
		"%zu SKIP.\n\n",
		v->findings.n, plural((int64_t)v->findings.n, "finding", "findings"),
		c[STATUS_FAIL], c[STATUS_UNKNOWN], c[STATUS_WARN], c[STATUS_PASS], c[STATUS_SKIP]);
	fputs("| Status | Check | Node | Object | Message |\n|---|---|---|---|---|\n", f);
	for (size_t i = 0; i < v->findings.n; i++) {
		const struct finding *fd = &v->findings.items[i];
		if (!render_status_shown(statuses, fd->status))
			continue;
		fprintf(f, "| %s%s | ", status_name(fd->status),
			verdict_waiver(v, i) ? " (waived)" : "");
		md_code(f, fd->check, true);
		fputs(" | ", f);
		md_text(f, fd->node ? fd->node : "");
		fputs(" | ", f);
		md_text(f, fd->object ? fd->object : "");
		fputs(" | ", f);
		md_text(f, fd->message);
		fputs(" |\n", f);
	}
	if (gate >= 0 && gate < _GATE_MAX) {
		_cleanup_free_ char *go = render_verdict_go_line(v, gate);
		fprintf(f, "\n**%s**\n", go);
	}
}
