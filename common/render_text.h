/* Text renderings for terminals: aligned, colour only on a tty, NO_COLOR honoured. */
#pragma once
#include <stdio.h>
#include "report.h"

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
