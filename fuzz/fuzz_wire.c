/*
 * The msgpack node report decoder on arbitrary bytes (the aggregator's input
 * from the network). Oracles beyond "no crash, no leak":
 * - a rejection leaves the report zeroed and says why on one line;
 * - what decodes also renders as JSON that parses back, and as text;
 * - what decodes re-encodes, decodes to the same report, and encodes to the
 *   same bytes again (the encoder is deterministic).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "render_json.h"
#include "render_text.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_zero(const struct node_report *r)
{
	static const struct node_report zero;
	return memcmp(r, &zero, sizeof(zero)) == 0;
}

static void check_renderings(const struct node_report *r)
{
	json_object *o = render_node_report_json(r);
	CHECK(o);
	json_object *back = json_tokener_parse(json_object_to_json_string(o));
	CHECK(back);
	json_object_put(back);
	json_object_put(o);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f);
	render_node_report_text(f, r, true);
	CHECK(fclose(f) == 0);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct node_report r1, r2;
	char err[WIRE_ERR_LEN] = "";
	int ret = wire_decode_node_report(data, size, &r1, err, sizeof(err));
	if (ret < 0) {
		CHECK(ret == -EINVAL || ret == -EPROTONOSUPPORT);
		CHECK(is_zero(&r1));
		CHECK(err[0] != '\0' && !strchr(err, '\n'));
		return 0;
	}
	CHECK(r1.node && r1.node[0]);
	check_renderings(&r1);

	char *buf1, *buf2;
	size_t len1, len2;
	ret = wire_encode_node_report(&r1, &buf1, &len1);
	/* Re-encoding writes defaults the input may have left out (an empty
	 * evidence map, an empty remediation), so only a large input may grow
	 * beyond the message limit. */
	if (ret == -EMSGSIZE && size > WIRE_MAX_MESSAGE / 2) {
		node_report_clear(&r1);
		return 0;
	}
	CHECK(ret == 0);
	ret = wire_decode_node_report((const uint8_t *)buf1, len1, &r2, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "fuzz_wire: re-encoded report rejected: %s\n", err);
	CHECK(ret == 0);
	CHECK(wire_node_report_equal(&r1, &r2));
	CHECK(r2.schema_minor == NODE_SCHEMA_MINOR);
	CHECK(wire_encode_node_report(&r2, &buf2, &len2) == 0);
	CHECK(len1 == len2 && memcmp(buf1, buf2, len1) == 0);

	free(buf1);
	free(buf2);
	node_report_clear(&r1);
	node_report_clear(&r2);
	return 0;
}
