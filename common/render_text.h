/*
 * Text renderings for terminals, in the manner of libvirt's virt-host-validate:
 * one aligned line per check, and under every non-PASS line the evidence and
 * the remediation. Lines are wrapped to 80 columns with a hanging indent.
 * Colour only on a tty, NO_COLOR honoured. Text from outside (messages,
 * evidence, object names) never reaches the terminal raw: control characters,
 * C1 controls, bidi overrides and invalid UTF-8 are shown escaped.
 */
#pragma once
#include <stdio.h>
#include "report.h"

#define RENDER_TEXT_WIDTH 80

/* Should output to f be coloured? (a tty, NO_COLOR unset, TERM not "dumb") */
bool render_text_use_color(FILE *f);
/* "PASS" etc., padded, coloured when color is set. */
void render_text_status(FILE *f, enum status s, bool color);
/* One value on one line: strings as is, lists comma-joined, maps as k=v. */
void render_text_value(FILE *f, const struct value *v);
/* A finding as virt-host-validate prints a check: one aligned line,
 * and under non-PASS lines the message, evidence and remediation. */
void render_text_finding(FILE *f, const struct finding *fd, int id_width, bool color, bool verbose);
/* A node report: header line, one line per check, summary. */
void render_node_report_text(FILE *f, const struct node_report *r, bool color);
/* The agent summary's last line: NOT READY / UNDECIDED / READY and the host
 * checks' status per gate. */
void render_node_overall_text(FILE *f, const struct node_report *r, bool color);

/* How render_text_finding_ex lays a finding out. */
struct text_finding_opts {
	int indent;	     /* columns before the check ID */
	int id_width;	     /* the check ID column */
	const char *subject; /* before the message; NULL: the finding's object */
	const char *note;    /* an extra detail line ("blocks: platform"), may be NULL */
	bool color;
	bool verbose; /* details under PASS lines too */
};
void render_text_finding_ex(FILE *f, const struct finding *fd, const struct text_finding_opts *o);

/*
 * Write s wrapped to width columns, breaking at spaces (and next to wide
 * characters). Output continues at column *col; continuation lines start with
 * indent spaces. hard_breaks: a newline in s starts a new line; otherwise it
 * is a space. Updates *col. Words longer than a line are not cut.
 */
void render_text_wrap(FILE *f, const char *s, int *col, int indent, int width, bool hard_breaks);
/* s made safe to show anywhere: control characters (but newline and tab),
 * C1 controls, bidi controls and invalid UTF-8 replaced by visible escapes
 * ("\x1b", "\u202e"); everything else, unicode included, kept. Malloc'd. */
char *render_text_sanitize(const char *s);
/* render_text_sanitize() for a name shown on one line (a node, an object, a
 * VM): newline and tab escaped too ("\x0a"), so that a name cannot start a
 * line of its own in the text or Markdown output. NULL: "". Malloc'd. */
char *render_text_sanitize_line(const char *s);
/* True when render_text_sanitize(s) would be s itself because s is printable
 * ASCII (newlines and tabs allowed): callers skip the copy. */
bool render_text_is_plain(const char *s);
/* A value as the text renderings show it (top-level lists without brackets,
 * "(none)" for an empty list, "" for an empty string). Malloc'd. */
char *render_text_value_str(const struct value *v);
