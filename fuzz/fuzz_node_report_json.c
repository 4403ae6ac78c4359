/*
 * The agent's JSON node report as `report --node-reports` reads it, on
 * arbitrary bytes. Oracles beyond "no crash, no leak, no deep recursion":
 * - a rejection says why on one line and returns no buffer;
 * - what transcodes is msgpack the wire decoder accepts or refuses with a
 *   reason, never a crash, and a decoded report renders back to JSON that
 *   transcodes and decodes to a report with the same JSON (the JSON rendering
 *   writes "" for an absent hostname, so the reports themselves may differ).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "node_report_json.h"
#include "render_json.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *mp = NULL, err[WIRE_ERR_LEN] = "";
	size_t mplen = 0;
	int r =
	    node_report_json_to_msgpack((const char *)data, size, &mp, &mplen, err, sizeof(err));
	if (r < 0) {
		CHECK(!mp && err[0] && !strchr(err, '\n'));
		return 0;
	}
	struct node_report nr = {0};
	char derr[WIRE_ERR_LEN] = "";
	r = wire_decode_node_report((const uint8_t *)mp, mplen, &nr, derr, sizeof(derr));
	free(mp);
	if (r < 0) {
		CHECK(derr[0]);
		return 0;
	}
	json_object *o = render_node_report_json(&nr);
	const char *js = json_object_to_json_string(o);
	char *mp2 = NULL;
	size_t mp2len = 0;
	CHECK(node_report_json_to_msgpack(js, strlen(js), &mp2, &mp2len, err, sizeof(err)) == 0);
	struct node_report back = {0};
	CHECK(wire_decode_node_report((const uint8_t *)mp2, mp2len, &back, derr, sizeof(derr)) ==
	      0);
	free(mp2);
	json_object *o2 = render_node_report_json(&back);
	CHECK(streq(js, json_object_to_json_string(o2)));
	json_object_put(o2);
	json_object_put(o);
	node_report_clear(&back);
	node_report_clear(&nr);
	return 0;
}
