#include "check_select.h"

const char *check_left_out(const struct strv *skip, const struct strv *only, const char *id)
{
	if (skip && strv_contains(skip, id))
		return "skipped by --skip";
	if (only && only->n > 0 && !strv_contains(only, id))
		return "not selected by --only";
	return NULL;
}

struct finding *check_no_result(struct finding_list *l, size_t before, const char *id)
{
	if (l->n != before)
		return NULL;
	struct finding *f = finding_list_add(l, id);
	finding_set(f, STATUS_UNKNOWN, "the check produced no result");
	return f;
}
