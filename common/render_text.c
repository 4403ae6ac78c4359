#include "render_text.h"
#include "gates.h"
#include "render_json.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Past this column a message starts on its own line: too little room is left. */
#define MESSAGE_MAX_COL 50
/* Details (evidence, remediation) sit this far in from the line's start. */
#define DETAIL_INDENT 4

bool render_text_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	const char *term = getenv("TERM");
	if (term && streq(term, "dumb"))
		return false;
	return isatty(fileno(f));
}

static const char *status_color(enum status s)
{
	switch (s) {
	case STATUS_PASS:
		return "\033[32m";
	case STATUS_WARN:
		return "\033[33m";
	case STATUS_FAIL:
		return "\033[1;31m";
	case STATUS_UNKNOWN:
		return "\033[35m";
	default:
		return "\033[2m";
	}
}

void render_text_status(FILE *f, enum status s, bool color)
{
	if (color)
		fprintf(f, "%s%-7s\033[0m", status_color(s), status_name(s));
	else
		fprintf(f, "%-7s", status_name(s));
}

void render_text_value(FILE *f, const struct value *v)
{
	switch (v->type) {
	case VALUE_STR:
		fputs(v->s, f);
		break;
	case VALUE_INT:
		fprintf(f, "%lld", (long long)v->i);
		break;
	case VALUE_BOOL:
		fputs(v->b ? "true" : "false", f);
		break;
	case VALUE_LIST:
		fputc('[', f);
		for (size_t i = 0; i < v->list.n; i++) {
			if (i)
				fputs(", ", f);
			render_text_value(f, &v->list.items[i]);
		}
		fputc(']', f);
		break;
	case VALUE_MAP:
		fputc('{', f);
		for (size_t i = 0; i < v->map.n; i++) {
			if (i)
				fputs(", ", f);
			fprintf(f, "%s=", v->map.items[i].key);
			render_text_value(f, &v->map.items[i].val);
		}
		fputc('}', f);
		break;
	}
}

char *render_text_value_str(const struct value *v)
{
	/* Scalars without a stream: renderers call this for every evidence
	 * value, and each open_memstream() zeroes a fresh 8 KiB buffer. */
	if (v->type == VALUE_STR && *v->s)
		return xstrdup(v->s);
	if (v->type == VALUE_INT)
		return xasprintf("%lld", (long long)v->i);
	if (v->type == VALUE_BOOL)
		return xstrdup(v->b ? "true" : "false");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return xstrdup("");
	if (v->type == VALUE_LIST && v->list.n == 0) {
		fputs("(none)", m);
	} else if (v->type == VALUE_STR && !*v->s) {
		fputs("\"\"", m);
	} else if (v->type == VALUE_LIST) {
		for (size_t i = 0; i < v->list.n; i++) {
			if (i)
				fputs(", ", m);
			render_text_value(m, &v->list.items[i]);
		}
	} else {
		render_text_value(m, v);
	}
	fclose(m);
	return buf;
}

/* ---------- UTF-8 aware, terminal-safe wrapping ---------- */

enum atom_kind { ATOM_TEXT, ATOM_SPACE, ATOM_NEWLINE };

/* One character as it will be shown: its bytes (or an escape), its width. */
struct atom {
	enum atom_kind kind;
	const char *p;
	size_t len;
	int width;
	bool wide; /* East Asian wide: a line may break before and after it */
	char esc[12];
};

/* Decode one UTF-8 sequence; 0 when s does not start a valid one. */
static size_t utf8_decode(const unsigned char *s, uint32_t *ret)
{
	uint32_t cp;
	size_t n;
	if (s[0] < 0x80) {
		*ret = s[0];
		return 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		cp = s[0] & 0x1f, n = 2;
	} else if ((s[0] & 0xf0) == 0xe0) {
		cp = s[0] & 0x0f, n = 3;
	} else if ((s[0] & 0xf8) == 0xf0) {
		cp = s[0] & 0x07, n = 4;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*ret = cp;
	return n;
}

static bool is_wide(uint32_t c)
{
	return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) ||
	       (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	       (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	       (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
	       (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd);
}

/* Characters that would make a terminal do something other than print:
 * C1 controls (0x9b is CSI on some terminals) and the bidi controls that can
 * make a line read differently from what it says; and the noncharacters
 * U+xFFFE/U+xFFFF, which XML (the HTML page is well-formed XML) forbids. */
static bool is_hidden_control(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f || (c & 0xfffe) == 0xfffe;
}

static size_t next_atom(const char *s, struct atom *a)
{
	const unsigned char *u = (const unsigned char *)s;
	*a = (struct atom){.kind = ATOM_TEXT, .p = s, .len = 1, .width = 1};
	if (*u == ' ' || *u == '\t') {
		a->kind = ATOM_SPACE;
		return 1;
	}
	if (*u == '\n') {
		a->kind = ATOM_NEWLINE;
		return 1;
	}
	if (*u < 0x20 || *u == 0x7f) {
		snprintf(a->esc, sizeof(a->esc), "\\x%02x", *u);
		a->p = a->esc, a->len = strlen(a->esc), a->width = (int)a->len;
		return 1;
	}
	if (*u < 0x80)
		return 1;
	uint32_t cp;
	size_t n = utf8_decode(u, &cp);
	if (n == 0) {
		snprintf(a->esc, sizeof(a->esc), "\\x%02x", *u);
		a->p = a->esc, a->len = strlen(a->esc), a->width = (int)a->len;
		return 1;
	}
	if (is_hidden_control(cp)) {
		snprintf(a->esc, sizeof(a->esc), "\\u%04x", (unsigned)cp);
		a->p = a->esc, a->len = strlen(a->esc), a->width = (int)a->len;
		return n;
	}
	a->len = n;
	a->wide = is_wide(cp);
	a->width = a->wide ? 2 : 1;
	return n;
}

bool render_text_is_plain(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p >= 0x7f)
			return false;
	return true;
}

/* Only printable ASCII: what the sanitizers below give back unchanged. */
static bool is_printable_ascii(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return false;
	return true;
}

char *render_text_sanitize(const char *s)
{
	if (is_printable_ascii(s ? s : ""))
		return xstrdup(s ? s : "");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return xstrdup("");
	for (const char *p = s ? s : ""; *p;) {
		struct atom a;
		size_t n = next_atom(p, &a);
		if (a.kind == ATOM_TEXT)
			fwrite(a.p, 1, a.len, m);
		else
			fwrite(p, 1, n, m);
		p += n;
	}
	fclose(m);
	return buf;
}

char *render_text_sanitize_line(const char *s)
{
	if (is_printable_ascii(s ? s : ""))
		return xstrdup(s ? s : "");
	_cleanup_free_ char *safe = render_text_sanitize(s);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return xstrdup("");
	for (const char *p = safe; *p; p++)
		if (*p == '\n' || *p == '\t')
			fprintf(m, "\\x%02x", (unsigned)*p);
		else
			fputc(*p, m);
	fclose(m);
	return buf;
}

/* A byte next_atom() makes a one-column text atom of itself (not a space, a
 * control or part of a UTF-8 sequence). */
static inline bool is_plain_graph(char c)
{
	return (unsigned char)c > 0x20 && (unsigned char)c < 0x7f;
}

/* The end of the word starting at s and its width. A wide character is a
 * word of its own (CJK text has no spaces to break at). */
static const char *word_end(const char *s, int *ret_width)
{
	struct atom a;
	int w = 0;
	const char *p = s;
	size_t n = next_atom(p, &a);
	if (a.wide) {
		*ret_width = a.width;
		return p + n;
	}
	while (*p) {
		if (is_plain_graph(*p)) { /* the common case: one column, one byte */
			w++;
			p++;
			continue;
		}
		n = next_atom(p, &a);
		if (a.kind != ATOM_TEXT || a.wide)
			break;
		w += a.width;
		p += n;
	}
	*ret_width = w;
	return p;
}

/* A command in backticks is one word, spaces and all, so that the terminal
 * shows it on one line and it can be copied whole: the end of the span that
 * starts at s (with what follows the closing backtick up to the next space,
 * e.g. "`cmd`."), or NULL when s opens no span closed on the same line. */
static const char *code_end(const char *s, int *ret_width)
{
	if (*s != '`')
		return NULL;
	const char *close = s + 1;
	while (*close && *close != '`' && *close != '\n')
		close++;
	if (*close != '`' || close == s + 1)
		return NULL;
	int w = 0;
	struct atom a;
	for (const char *p = s; p <= close; w += a.width)
		p += next_atom(p, &a);
	const char *end = close + 1;
	if (*end && (next_atom(end, &a), a.kind == ATOM_TEXT && !a.wide)) {
		int tail;
		end = word_end(end, &tail);
		w += tail;
	}
	*ret_width = w;
	return end;
}

static void wrap_newline(FILE *f, int *col, int indent)
{
	fprintf(f, "\n%*s", indent, "");
	*col = indent;
}

void render_text_wrap(FILE *f, const char *s, int *col, int indent, int width, bool hard_breaks)
{
	bool line_has_word = false, space = false;
	const char *p = s ? s : "";
	while (*p) {
		struct atom a;
		size_t n = next_atom(p, &a);
		if (a.kind == ATOM_NEWLINE && hard_breaks) {
			p += n;
			wrap_newline(f, col, indent);
			line_has_word = space = false;
			continue;
		}
		if (a.kind != ATOM_TEXT) {
			p += n;
			space = true;
			continue;
		}
		int w;
		const char *end = code_end(p, &w);
		if (!end)
			end = word_end(p, &w);
		int sep = space && line_has_word;
		/* Break before a word that does not fit, unless it would not fit on
		 * a fresh line either and nothing of this text is on the line yet. */
		if ((line_has_word || (*col > indent && indent + w <= width)) &&
		    *col + sep + w > width) {
			wrap_newline(f, col, indent);
			sep = 0;
		}
		if (sep)
			fputc(' ', f);
		*col += sep + w;
		while (p < end) {
			/* A run of printable ASCII is shown as it is: one write. */
			const char *run = p;
			while (run < end && is_plain_graph(*run))
				run++;
			if (run > p) {
				fwrite(p, 1, (size_t)(run - p), f);
				p = run;
				continue;
			}
			p += next_atom(p, &a);
			if (a.kind == ATOM_SPACE)
				fputc(' ', f); /* inside a code span; a tab shown as one column */
			else
				fwrite(a.p, 1, a.len, f);
		}
		line_has_word = true;
		space = false;
	}
}

/* ---------- findings ---------- */

static void detail_line(FILE *f, const char *label, const char *text, int indent, bool bold,
			bool hard_breaks)
{
	int col = indent;
	fprintf(f, "%*s", indent, "");
	if (bold)
		fputs("\033[1m", f);
	render_text_wrap(f, label, &col, indent + 2, RENDER_TEXT_WIDTH, false);
	if (bold)
		fputs("\033[0m", f);
	fputc(' ', f);
	col++;
	/* A short label gets a hanging indent under its text; a long key a fixed one. */
	int hang = col - indent <= 12 ? col : indent + 2;
	render_text_wrap(f, text, &col, hang, RENDER_TEXT_WIDTH, hard_breaks);
	fputc('\n', f);
}

/* Remedy steps under their label: "fix: 1. …", the next "2. …" under the "1.",
 * each wrapped under its own text. One step is one detail_line, as before. */
static void detail_steps(FILE *f, const char *label, const char *remediation, int indent, bool bold)
{
	struct strv steps = {0};
	remedy_steps(remediation, &steps);
	if (steps.n <= 1) {
		detail_line(f, label, steps.n ? steps.items[0] : "", indent, bold, true);
		strv_clear(&steps);
		return;
	}
	int numw = steps.n >= 10 ? 3 : 2; /* "1." or "10." */
	int start = indent + (int)strlen(label) + 1;
	for (size_t i = 0; i < steps.n; i++) {
		int col;
		if (i == 0) {
			fprintf(f, "%*s", indent, "");
			if (bold)
				fputs("\033[1m", f);
			fputs(label, f);
			if (bold)
				fputs("\033[0m", f);
			fputc(' ', f);
		} else {
			fprintf(f, "%*s", start, "");
		}
		char num[24];
		snprintf(num, sizeof(num), "%zu.", i + 1);
		fprintf(f, "%-*s ", numw, num);
		col = start + numw + 1;
		render_text_wrap(f, steps.items[i], &col, col, RENDER_TEXT_WIDTH, true);
		fputc('\n', f);
	}
	strv_clear(&steps);
}

static void detail_text(FILE *f, const char *text, int indent)
{
	int col = indent;
	fprintf(f, "%*s", indent, "");
	render_text_wrap(f, text, &col, indent, RENDER_TEXT_WIDTH, false);
	fputc('\n', f);
}

/*
 * ID : STATUS  head
 * head is the message, or the subject (a node, an object) when there is one:
 * then the message follows on its own lines, at full width, since a name and
 * a sentence side by side in the message column wrap into a narrow ribbon.
 */
void render_text_finding_ex(FILE *f, const struct finding *fd, const struct text_finding_opts *o)
{
	int col = o->indent + o->id_width + 3;
	fprintf(f, "%*s%-*s : ", o->indent, "", o->id_width, fd->check);
	/* A name is one line: a newline in it must not start a forged line. */
	_cleanup_free_ char *subject_line =
	    render_text_sanitize_line(o->subject ? o->subject : fd->object);
	const char *subject = o->subject || fd->object ? subject_line : NULL;
	const char *msg = fd->message ? fd->message : "";
	bool has_subject = subject && *subject;
	const char *head = has_subject ? subject : msg;
	int di = o->indent + DETAIL_INDENT;
	int w;
	word_end(head, &w);
	col += 8;
	bool own_line = *head && (col > MESSAGE_MAX_COL || col + w > RENDER_TEXT_WIDTH);
	if (!*head || own_line) {
		/* No padding: nothing follows on this line. */
		if (o->color)
			fprintf(f, "%s%s\033[0m", status_color(fd->status),
				status_name(fd->status));
		else
			fputs(status_name(fd->status), f);
	} else {
		render_text_status(f, fd->status, o->color);
		fputc(' ', f);
	}
	if (own_line) {
		/* Subject and message together under the line, as one sentence. */
		_cleanup_free_ char *both =
		    has_subject && *msg ? xasprintf("%s: %s", subject, msg) : xstrdup(head);
		fputc('\n', f);
		col = di;
		fprintf(f, "%*s", di, "");
		render_text_wrap(f, both, &col, di + 2, RENDER_TEXT_WIDTH, false);
		fputc('\n', f);
	} else {
		render_text_wrap(f, head, &col, col, RENDER_TEXT_WIDTH, false);
		fputc('\n', f);
		if (has_subject && *msg)
			detail_text(f, msg, di);
	}
	if (fd->status == STATUS_PASS && !o->verbose)
		return;
	if (o->note)
		detail_text(f, o->note, di);
	for (size_t i = 0; i < fd->evidence.n; i++) {
		_cleanup_free_ char *label = xasprintf("%s:", fd->evidence.items[i].key);
		_cleanup_free_ char *val = render_text_value_str(&fd->evidence.items[i].val);
		detail_line(f, label, val, di, false, true);
	}
	if (fd->remediation && *fd->remediation && fd->status != STATUS_PASS &&
	    fd->status != STATUS_SKIP)
		detail_steps(f, "fix:", fd->remediation, di, o->color);
	if (fd->status != STATUS_PASS && fd->status != STATUS_SKIP) {
		/* The check's page, the same URL as the JSON's doc_url. */
		_cleanup_free_ char *doc = render_doc_url(fd->check);
		if (di + 6 + (int)strlen(doc) <= RENDER_TEXT_WIDTH)
			detail_line(f, "docs:", doc, di, false, false);
		else /* a URL is not broken: alone on the next line, copyable */
			fprintf(f, "%*sdocs:\n%*s%s\n", di, "", di + 2, "", doc);
	}
}

void render_text_finding(FILE *f, const struct finding *fd, int id_width, bool color, bool verbose)
{
	struct text_finding_opts o = {
	    .id_width = id_width,
	    .color = color,
	    .verbose = verbose,
	};
	render_text_finding_ex(f, fd, &o);
}

void render_node_report_text(FILE *f, const struct node_report *r, bool color)
{
	int w = 0;
	int count[_STATUS_MAX] = {0};
	for (size_t i = 0; i < r->results.n; i++) {
		int n = (int)strlen(r->results.items[i].check);
		if (n > w)
			w = n;
		count[r->results.items[i].status]++;
	}
	_cleanup_free_ char *node = render_text_sanitize_line(r->node);
	_cleanup_free_ char *host = render_text_sanitize_line(r->hostname);
	_cleanup_free_ char *version = render_text_sanitize_line(r->agent_version);
	_cleanup_free_ char *head =
	    xasprintf("hvready-agent %s on node %s (host %s)", version, node, host);
	int col = 0;
	render_text_wrap(f, head, &col, 2, RENDER_TEXT_WIDTH, false);
	fputs("\n\n", f);
	for (size_t i = 0; i < r->results.n; i++)
		render_text_finding(f, &r->results.items[i], w, color, false);
	fprintf(f, "\n%d PASS, %d WARN, %d FAIL, %d UNKNOWN, %d SKIP\n", count[STATUS_PASS],
		count[STATUS_WARN], count[STATUS_FAIL], count[STATUS_UNKNOWN], count[STATUS_SKIP]);
	render_node_overall_text(f, r, color);
}

/* The last line: what the exit status says, in words, and the host checks'
 * share of each gate (the cluster's verdict also needs the aggregator's checks). */
void render_node_overall_text(FILE *f, const struct node_report *r, bool color)
{
	enum status worst = STATUS_SKIP;
	for (size_t i = 0; i < r->results.n; i++)
		worst = status_worst(worst, r->results.items[i].status);
	const char *word = worst == STATUS_FAIL	     ? "NOT READY"
			   : worst == STATUS_UNKNOWN ? "UNDECIDED (not enough evidence)"
			   : worst == STATUS_WARN    ? "READY, with warnings"
			   : worst == STATUS_PASS    ? "READY"
						     : "NO CHECK DECIDED";
	if (color)
		fprintf(f, "node: %s%s\033[0m", status_color(worst), word);
	else
		fprintf(f, "node: %s", word);
	fputs("\n", f);
	struct gate_result g[_GATE_MAX];
	gates_compute(&r->results, g);
	_cleanup_free_ char *line = xstrdup("gates, from this node's checks alone:");
	bool first = true;
	for (int i = 0; i < _GATE_MAX; i++) {
		/* a gate none of this node's findings speaks to is not shown: its
		 * UNKNOWN would only say that host checks do not decide it */
		bool spoken = false;
		for (size_t k = 0; k < r->results.n && !spoken; k++) {
			const struct check_info *ci = catalog_find(r->results.items[k].check);
			spoken = ci && (ci->gates & (1u << i)) &&
				 r->results.items[k].status != STATUS_SKIP;
		}
		if (!spoken)
			continue;
		char *l = xasprintf("%s%s %s %s", line, first ? "" : ",", gate_name((enum gate)i),
				    status_name(g[i].status));
		free(line);
		line = l;
		first = false;
	}
	if (first) {
		free(line);
		line = xstrdup("gates: no check of this node decided anything");
	}
	gates_clear(g);
	int col = 0;
	render_text_wrap(f, line, &col, 2, RENDER_TEXT_WIDTH, false);
	fputs("\n", f);
}
