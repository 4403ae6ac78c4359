#include "report.h"

#include <errno.h>
#include <string.h>

#include "redact.h"

static const char *const status_names[_STATUS_MAX] = {
    [STATUS_PASS] = "PASS",	  [STATUS_WARN] = "WARN", [STATUS_FAIL] = "FAIL",
    [STATUS_UNKNOWN] = "UNKNOWN", [STATUS_SKIP] = "SKIP",
};

const char *status_name(enum status s)
{
	return (unsigned)s < _STATUS_MAX ? status_names[s] : "INVALID";
}

int status_from_name(const char *name)
{
	for (int i = 0; i < _STATUS_MAX; i++)
		if (streq(status_names[i], name))
			return i;
	return -EINVAL;
}

int status_severity(enum status s)
{
	switch (s) {
	case STATUS_SKIP:
		return 0;
	case STATUS_PASS:
		return 1;
	case STATUS_WARN:
		return 2;
	case STATUS_UNKNOWN:
		return 3;
	case STATUS_FAIL:
		return 4;
	default:
		return 4;
	}
}

enum status status_worst(enum status a, enum status b)
{
	return status_severity(a) >= status_severity(b) ? a : b;
}

struct finding *finding_list_add(struct finding_list *l, const char *check)
{
	util_grow((void **)&l->items, &l->cap, l->n + 1, sizeof(struct finding));
	struct finding *f = &l->items[l->n++];
	*f = (struct finding){
	    .check = xstrdup(check),
	    .status = STATUS_UNKNOWN,
	    .message = xstrdup(""),
	    .remediation = xstrdup(""),
	};
	return f;
}

void finding_set(struct finding *f, enum status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	free(f->message);
	f->message = redact_text(m);
	free(m);
	f->status = st;
}

void finding_remedy(struct finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	free(f->remediation);
	f->remediation = redact_text(m);
	free(m);
}

static bool blank_char(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The end of the blank line that starts at p (after its "\n"), or NULL when
 * the line has more than blanks. */
static const char *blank_line_end(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return *p == '\n' ? p + 1 : *p ? NULL : p;
}

void remedy_steps(const char *remediation, struct strv *ret)
{
	const char *p = remediation ? remediation : "";
	while (*p) {
		/* A step runs to the next blank line: a "\n" followed by a line of
		 * nothing but blanks (or the end). */
		const char *e = p;
		const char *next = NULL;
		while (*e) {
			if (*e == '\n' && (next = blank_line_end(e + 1)))
				break;
			e++;
		}
		const char *b = p;
		while (b < e && blank_char(*b))
			b++;
		const char *t = e;
		while (t > b && blank_char(t[-1]))
			t--;
		if (t > b) {
			_cleanup_free_ char *step = xstrndup(b, (size_t)(t - b));
			strv_add(ret, step);
		}
		p = *e ? next : e;
	}
}

void finding_set_node(struct finding *f, const char *node)
{
	free(f->node);
	f->node = node ? xstrdup(node) : NULL;
}

void finding_set_object(struct finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	free(f->object);
	f->object = m;
}

void finding_copy(struct finding *dst, const struct finding *src)
{
	*dst = (struct finding){
	    .check = xstrdup(src->check),
	    .status = src->status,
	    .message = xstrdup(src->message),
	    .remediation = xstrdup(src->remediation),
	    .node = src->node ? xstrdup(src->node) : NULL,
	    .object = src->object ? xstrdup(src->object) : NULL,
	};
	kv_list_copy(&dst->evidence, &src->evidence);
}

void finding_clear(struct finding *f)
{
	free(f->check);
	free(f->message);
	free(f->remediation);
	free(f->node);
	free(f->object);
	kv_list_clear(&f->evidence);
	*f = (struct finding){0};
}

void finding_list_clear(struct finding_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		finding_clear(&l->items[i]);
	free(l->items);
	*l = (struct finding_list){0};
}

const struct finding *finding_list_find(const struct finding_list *l, const char *check)
{
	for (size_t i = 0; i < l->n; i++)
		if (streq(l->items[i].check, check))
			return &l->items[i];
	return NULL;
}

bool finding_list_status(const struct finding_list *l, const char *check, enum status *ret)
{
	bool found = false;
	enum status st = STATUS_SKIP;
	for (size_t i = 0; i < l->n; i++)
		if (streq(l->items[i].check, check)) {
			st = found ? status_worst(st, l->items[i].status) : l->items[i].status;
			found = true;
		}
	if (found)
		*ret = st;
	return found;
}

void node_report_clear(struct node_report *r)
{
	free(r->node);
	free(r->hostname);
	free(r->agent_version);
	free(r->boot_id);
	finding_list_clear(&r->results);
	kv_list_clear(&r->facts);
	*r = (struct node_report){0};
}
