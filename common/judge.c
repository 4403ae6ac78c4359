#include "judge.h"

#include <string.h>

void judge_note(struct judge *j, enum status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *m = xvasprintf(fmt, ap);
	va_end(ap);
	if (!j->noted || status_severity(st) > status_severity(j->status)) {
		strv_clear(&j->reasons);
		j->status = st;
		j->noted = true;
	}
	if (st == j->status)
		strv_add(&j->reasons, m);
}

void judge_remedy(struct judge *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *m = xvasprintf(fmt, ap);
	va_end(ap);
	if (!strv_contains(&j->remedies, m))
		strv_add(&j->remedies, m);
}

/* The items joined by sep (the reasons by "; ", the remedies as steps). */
static char *join(const struct strv *v, const char *sep)
{
	size_t len = 1;
	for (size_t i = 0; i < v->n; i++)
		len += strlen(v->items[i]) + strlen(sep) + 1;
	char *s = xmalloc(len);
	s[0] = '\0';
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			strcat(s, sep);
		strcat(s, v->items[i]);
	}
	return s;
}

void judge_apply(const struct judge *j, struct finding *f, const char *empty_msg)
{
	_cleanup_free_ char *msg = join(&j->reasons, "; ");
	_cleanup_free_ char *rem = join(&j->remedies, REMEDY_STEP_SEP);
	finding_set(f, j->status, "%s", *msg ? msg : empty_msg);
	finding_remedy(f, "%s", rem);
}

void judge_clear(struct judge *j)
{
	strv_clear(&j->reasons);
	strv_clear(&j->remedies);
	j->status = STATUS_PASS;
	j->noted = false;
}

void judge_decide(struct judge *j, struct finding *f, const char *empty_msg)
{
	if (f)
		judge_apply(j, f, empty_msg);
	judge_clear(j);
}
