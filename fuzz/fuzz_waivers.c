/* A waivers file (report --waivers, docs/change-board.md) is written by
 * people: any bytes. Parsing never crashes; what parses holds what the
 * report relies on (catalog IDs, the required fields, one-line text); and
 * applying it never waives an UNKNOWN. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "catalog.h"
#include "fuzz_check.h"
#include "waivers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool one_line(const char *s)
{
	return !s || (!strchr(s, '\n') && !strchr(s, '\r'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct waiver_list wl;
	char err[512];
	if (size > WAIVERS_FILE_MAX + 16)
		return 0;
	if (waivers_parse(data, size, "fuzz.yaml", &wl, err, sizeof(err)) < 0) {
		CHECK(wl.n == 0 && !wl.items);
		CHECK(*err && !strchr(err, '\n'));
		return 0;
	}
	struct finding_list l = {0};
	static const enum status sts[] = {STATUS_FAIL, STATUS_WARN, STATUS_UNKNOWN, STATUS_PASS};
	for (size_t i = 0; i < wl.n; i++) {
		const struct waiver *w = &wl.items[i];
		CHECK(catalog_find(w->check));
		CHECK(w->reason && *w->reason && w->approved_by && *w->approved_by);
		CHECK(one_line(w->reason) && one_line(w->approved_by) && one_line(w->node) &&
		      one_line(w->object) && one_line(w->expires));
		CHECK(!!w->expires == (w->expires_ns != INT64_MAX));
		for (size_t k = 0; k < ELEMENTSOF(sts) && l.n < 64; k++) {
			struct finding *f = finding_list_add(&l, w->check);
			finding_set(f, sts[k], "%s", "m");
			if (w->node)
				finding_set_node(f, w->node);
			if (w->object)
				finding_set_object(f, "%s", w->object);
		}
	}
	ssize_t of[64];
	waivers_apply(&wl, &l, 0, of);
	for (size_t i = 0; i < l.n; i++) {
		if (of[i] < 0)
			continue;
		CHECK((size_t)of[i] < wl.n);
		CHECK(l.items[i].status == STATUS_FAIL || l.items[i].status == STATUS_WARN);
		CHECK(!wl.items[of[i]].expired);
	}
	finding_list_clear(&l);
	waivers_clear(&wl);
	return 0;
}
