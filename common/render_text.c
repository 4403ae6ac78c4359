#include "render_text.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void render_text_finding(FILE *f, const struct finding *fd, int id_width, bool color, bool verbose)
{
	fprintf(f, "%-*s : ", id_width, fd->check);
	render_text_status(f, fd->status, color);
	if (fd->object)
		fprintf(f, " %s:", fd->object);
	fprintf(f, " %s\n", fd->message);
	if (fd->status == STATUS_PASS && !verbose)
		return;
	for (size_t i = 0; i < fd->evidence.n; i++) {
		fprintf(f, "%*s  %s: ", id_width, "", fd->evidence.items[i].key);
		render_text_value(f, &fd->evidence.items[i].val);
		fputc('\n', f);
	}
	if (fd->remediation && *fd->remediation && fd->status != STATUS_PASS &&
	    fd->status != STATUS_SKIP)
		fprintf(f, "%*s  -> %s\n", id_width, "", fd->remediation);
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
	fprintf(f, "hvready-agent %s on node %s (host %s)\n",
		r->agent_version ? r->agent_version : "", r->node ? r->node : "",
		r->hostname ? r->hostname : "");
	for (size_t i = 0; i < r->results.n; i++)
		render_text_finding(f, &r->results.items[i], w, color, false);
	fprintf(f, "\n%d PASS, %d WARN, %d FAIL, %d UNKNOWN, %d SKIP\n", count[STATUS_PASS],
		count[STATUS_WARN], count[STATUS_FAIL], count[STATUS_UNKNOWN], count[STATUS_SKIP]);
}
