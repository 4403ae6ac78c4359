/* The canary's findings as text, JSON, Markdown or HTML (docs/canary.md). */
#include <stdio.h>
#include <string.h>

#include "canary.h"
#include "render_json.h"

static void text_value(FILE *out, const struct value *v)
{
	switch (v->type) {
	case VALUE_STR:
		fputs(v->s, out);
		break;
	case VALUE_INT:
		fprintf(out, "%lld", (long long)v->i);
		break;
	case VALUE_BOOL:
		fputs(v->b ? "true" : "false", out);
		break;
	case VALUE_LIST:
		for (size_t i = 0; i < v->list.n; i++) {
			fputs(i ? "; " : "", out);
			text_value(out, &v->list.items[i]);
		}
		break;
	case VALUE_MAP:
		for (size_t i = 0; i < v->map.n; i++) {
			fprintf(out, "%s%s=", i ? " " : "", v->map.items[i].key);
			text_value(out, &v->map.items[i].val);
		}
		break;
	}
}

static void html_esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

static void md_esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("|\\`*_<>[]", *s))
			fputc('\\', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
}

static void value_string(const struct value *v, char **ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		abort();
	text_value(m, v);
	fclose(m);
	*ret = buf;
}

void canary_render(FILE *out, const struct canary *c, const char *format)
{
	const struct finding_list *l = &c->findings;
	enum status worst = STATUS_SKIP;
	for (size_t i = 0; i < l->n; i++)
		worst = status_worst(worst, l->items[i].status);
	if (streq(format, "json")) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "schema", json_object_new_string("hvready.canary/v1"));
		json_object_object_add(o, "run", json_object_new_string(c->run_id));
		json_object_object_add(o, "namespace", json_object_new_string(c->o->ns));
		/* The result's age counts from finished_at (canary_result.h). */
		char ts[64];
		util_format_rfc3339(c->started_at_ns, ts, sizeof(ts));
		json_object_object_add(o, "started_at", json_object_new_string(ts));
		util_format_rfc3339(c->ended_at_ns, ts, sizeof(ts));
		json_object_object_add(o, "finished_at", json_object_new_string(ts));
		json_object_object_add(o, "status", json_object_new_string(status_name(worst)));
		json_object_object_add(o, "findings", render_findings_json(l));
		render_json_write(out, o);
		json_object_put(o);
		return;
	}
	bool md = streq(format, "markdown"), html = streq(format, "html");
	if (md)
		fprintf(out,
			"# hvready canary: %s\n\nRun `%s`, namespace `%s`.\n\n"
			"| Check | Status | Message |\n|---|---|---|\n",
			status_name(worst), c->run_id, c->o->ns);
	else if (html)
		fprintf(out,
			"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hvready "
			"canary</title></head><body>\n<h1>hvready canary: %s</h1>\n<p>Run %s, "
			"namespace ",
			status_name(worst), c->run_id);
	if (html) {
		html_esc(out, c->o->ns);
		fputs("</p>\n<table>\n<tr><th>Check</th><th>Status</th><th>Message</th>"
		      "<th>Evidence</th></tr>\n",
		      out);
	}
	if (!md && !html)
		fprintf(out, "hvready canary: %s (run %s, namespace %s)\n", status_name(worst),
			c->run_id, c->o->ns);
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *f = &l->items[i];
		if (md) {
			fprintf(out, "| `%s` | %s | ", f->check, status_name(f->status));
			md_esc(out, f->message);
			fputs(" |\n", out);
		} else if (html) {
			fprintf(out, "<tr><td>%s</td><td>%s</td><td>", f->check,
				status_name(f->status));
			html_esc(out, f->message);
			fputs("</td><td>", out);
			for (size_t k = 0; k < f->evidence.n; k++) {
				_cleanup_free_ char *v = NULL;
				value_string(&f->evidence.items[k].val, &v);
				fprintf(out, "%s<b>", k ? "<br>" : "");
				html_esc(out, f->evidence.items[k].key);
				fputs("</b>: ", out);
				html_esc(out, v);
			}
			fputs("</td></tr>\n", out);
		} else {
			fprintf(out, "\n%-7s %s: %s\n", status_name(f->status), f->check,
				f->message);
			struct strv steps = {0};
			remedy_steps(f->remediation, &steps);
			for (size_t k = 0; k < steps.n; k++) {
				if (steps.n == 1)
					fprintf(out, "        fix: %s\n", steps.items[k]);
				else
					fprintf(out, "%s%zu. %s\n",
						k ? "             " : "        fix: ", k + 1,
						steps.items[k]);
			}
			strv_clear(&steps);
			for (size_t k = 0; k < f->evidence.n; k++) {
				fprintf(out, "        %s: ", f->evidence.items[k].key);
				text_value(out, &f->evidence.items[k].val);
				fputc('\n', out);
			}
		}
	}
	if (md) {
		for (size_t i = 0; i < l->n; i++) {
			const struct finding *f = &l->items[i];
			fprintf(out, "\n## `%s`\n\n", f->check);
			struct strv steps = {0};
			remedy_steps(f->remediation, &steps);
			for (size_t k = 0; k < steps.n; k++) {
				if (steps.n == 1) {
					fputs("Fix: ", out);
				} else {
					if (!k)
						fputs("Fix:\n\n", out);
					fprintf(out, "%zu. ", k + 1);
				}
				md_esc(out, steps.items[k]);
				fputs(steps.n == 1 || k + 1 == steps.n ? "\n\n" : "\n", out);
			}
			strv_clear(&steps);
			for (size_t k = 0; k < f->evidence.n; k++) {
				_cleanup_free_ char *v = NULL;
				value_string(&f->evidence.items[k].val, &v);
				fprintf(out, "- %s: ", f->evidence.items[k].key);
				md_esc(out, v);
				fputc('\n', out);
			}
		}
	}
	if (html)
		fputs("</table>\n</body></html>\n", out);
}
