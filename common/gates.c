#include "gates.h"

void gates_compute(const struct finding_list *l, struct gate_result ret[_GATE_MAX])
{
	gates_compute_waived(l, NULL, ret);
}

void gates_compute_waived(const struct finding_list *l, const bool *waived,
			  struct gate_result ret[_GATE_MAX])
{
	bool seen[_GATE_MAX] = {0};
	for (int g = 0; g < _GATE_MAX; g++)
		ret[g] = (struct gate_result){.status = STATUS_PASS};
	for (size_t i = 0; i < l->n; i++) {
		const struct check_info *ci = catalog_find(l->items[i].check);
		if (!ci)
			continue;
		for (int g = 0; g < _GATE_MAX; g++)
			if (ci->gates & (1u << g)) {
				if (l->items[i].status != STATUS_SKIP)
					seen[g] = true;
				if (!(waived && waived[i]))
					ret[g].status =
					    status_worst(ret[g].status, l->items[i].status);
			}
	}
	for (int g = 0; g < _GATE_MAX; g++) {
		if (!seen[g] && ret[g].status != STATUS_FAIL)
			ret[g].status = STATUS_UNKNOWN;
		if (ret[g].status == STATUS_PASS)
			continue;
		for (size_t i = 0; i < l->n; i++) {
			const struct check_info *ci = catalog_find(l->items[i].check);
			if (!ci || !(ci->gates & (1u << g)) ||
			    l->items[i].status != ret[g].status || (waived && waived[i]))
				continue;
			if (!ret[g].blockers)
				ret[g].blockers = xcalloc(l->n, sizeof(size_t));
			ret[g].blockers[ret[g].n_blockers++] = i;
		}
	}
}

void gates_clear(struct gate_result r[_GATE_MAX])
{
	for (int g = 0; g < _GATE_MAX; g++) {
		free(r[g].blockers);
		r[g] = (struct gate_result){0};
	}
}

int gates_exit_code(enum status s)
{
	switch (s) {
	case STATUS_FAIL:
		return 1;
	case STATUS_UNKNOWN:
		return 3;
	default:
		return 0;
	}
}
