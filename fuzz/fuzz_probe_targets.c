/*
 * The probe targets parser (--probe-targets FILE, and the agent's reading of
 * the aggregator's reply) on arbitrary bytes. Beyond "no crash, no leak": a
 * rejection says why on one line, and what parses renders back to JSON that
 * parses to the same targets.
 */
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "probe_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool strv_equal(const struct strv *a, const struct strv *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!streq(a->items[i], b->items[i]))
			return false;
	return true;
}

static bool targets_equal(const struct probe_targets *a, const struct probe_targets *b)
{
	return streq(a->share_manager_image, b->share_manager_image) &&
	       streq(a->canary_export, b->canary_export) &&
	       streq(a->share_manager_pull_policy, b->share_manager_pull_policy) &&
	       strv_equal(&a->nfs_endpoints, &b->nfs_endpoints) &&
	       strv_equal(&a->longhorn_data_paths, &b->longhorn_data_paths);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_targets t = {0}, back = {0}, copy;
	char err[256] = "";
	if (probe_targets_parse(data, size, &t, err, sizeof(err)) < 0) {
		CHECK(err[0] != '\0' && !strchr(err, '\n'));
		return 0;
	}
	json_object *o = probe_targets_to_json(&t);
	const char *s = json_object_to_json_string(o);
	CHECK(probe_targets_parse((const uint8_t *)s, strlen(s), &back, err, sizeof(err)) == 0);
	CHECK(targets_equal(&t, &back));
	probe_targets_copy(&copy, &t);
	CHECK(targets_equal(&t, &copy));
	json_object_put(o);
	probe_targets_clear(&t);
	probe_targets_clear(&back);
	probe_targets_clear(&copy);
	return 0;
}
