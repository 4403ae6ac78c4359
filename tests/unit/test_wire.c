/* The msgpack wire format of node reports (common/wire.c encodes,
 * common/wirescan.c reads; docs/protocol.md).
 * Malformed messages are built with msgpack-c's packer, then cut or patched. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <msgpack.h>
#include <string.h>
#include <sys/resource.h>

#include "msgpack_builder.h"
#include "render_json.h"
#include "render_text.h"
#include "wire.h"
#include "test_src.h"

/* ---- building messages ---- */

static void pk_kv(struct mb *m, const char *k, const char *v)
{
	pk_s(m, k);
	pk_s(m, v);
}

/* A string of n copies of c. */
static void pk_fill(struct mb *m, char c, size_t n)
{
	char *s = xmalloc(n + 1);
	memset(s, c, n);
	pk_sn(m, s, n);
	free(s);
}

/* The top-level map with schema, node and sent_ns, plus extra entries the
 * caller packs (results among them when it counts it). */
static void begin_report(struct mb *m, unsigned extra)
{
	msgpack_pack_map(&m->pk, 3 + extra);
	pk_kv(m, "schema", "hvready.node/v1");
	pk_kv(m, "node", "harvester-01");
	pk_s(m, "sent_ns");
	msgpack_pack_int64(&m->pk, INT64_C(1757078444123456789));
}

/* begin_report with "results": [] as one of the extras. */
static void begin_report_results(struct mb *m, unsigned extra)
{
	begin_report(m, extra + 1);
	pk_s(m, "results");
	msgpack_pack_array(&m->pk, 0);
}

/* begin_report with a "results" array of n findings the caller packs. */
static void begin_results(struct mb *m, unsigned n)
{
	begin_report(m, 1);
	pk_s(m, "results");
	msgpack_pack_array(&m->pk, n);
}

/* begin_report_results with one more top-level key; the caller packs its value. */
static void begin_field(struct mb *m, const char *key)
{
	begin_report_results(m, 1);
	pk_s(m, key);
}

/* A report whose facts map has one entry: key (NULL: the caller packs it), then
 * the value the caller packs. */
static void begin_fact(struct mb *m, const char *key)
{
	begin_field(m, "facts");
	msgpack_pack_map(&m->pk, 1);
	if (key)
		pk_s(m, key);
}

/* A finding map with check, status and message, plus extra entries. */
static void pk_finding(struct mb *m, const char *status, unsigned extra)
{
	msgpack_pack_map(&m->pk, 3 + extra);
	pk_kv(m, "check", "host.kvm");
	pk_kv(m, "status", status);
	pk_kv(m, "message", "/dev/kvm is usable");
}

/* Decode from an exactly sized heap copy, so ASan sees any read past the end. */
static int decode(const void *buf, size_t len, struct node_report *r, char *err)
{
	uint8_t *copy = xmalloc(len ? len : 1);
	if (len)
		memcpy(copy, buf, len);
	err[0] = '\0';
	int ret = wire_decode_node_report(copy, len, r, err, WIRE_ERR_LEN);
	free(copy);
	return ret;
}

static bool is_zero(const struct node_report *r)
{
	static const struct node_report zero;
	return memcmp(r, &zero, sizeof(zero)) == 0;
}

/* Decoding must fail with -EINVAL (or code), leave *ret zeroed and say exactly msg. */
static void expect_error_code(const struct mb *m, int code, const char *msg)
{
	struct node_report r;
	char err[WIRE_ERR_LEN];
	int ret = decode(m->sb.data, m->sb.size, &r, err);
	if (ret != code || strcmp(err, msg) != 0)
		fail_msg("got %d \"%s\", expected %d \"%s\"", ret, err, code, msg);
	assert_true(is_zero(&r));
}

static void expect_error(const struct mb *m, const char *msg)
{
	expect_error_code(m, -EINVAL, msg);
}

/* expect_error, then an empty buffer for the next message. */
static void next_error(struct mb *m, const char *msg)
{
	expect_error(m, msg);
	msgpack_sbuffer_clear(&m->sb);
}

static void expect_ok(const struct mb *m, struct node_report *r)
{
	char err[WIRE_ERR_LEN];
	int ret = decode(m->sb.data, m->sb.size, r, err);
	if (ret != 0)
		fail_msg("decoding failed (%d): %s", ret, err);
}

/* ---- a realistic report ---- */

static void full_report(struct node_report *r)
{
	*r = (struct node_report){
	    .node = xstrdup("harvester-01"),
	    .hostname = xstrdup("harvester-01.lab.example"),
	    .agent_version = xstrdup("0.1.0"),
	    .boot_id = xstrdup("4f3c2b1a-9d8e-4c7b-a6f5-e4d3c2b1a098"),
	    .sent_ns = INT64_C(1757078444123456789),
	    .seq = UINT64_MAX,
	    .interval_s = 30,
	};
	struct finding *f = finding_list_add(&r->results, "host.kvm");
	finding_set(f, STATUS_PASS, "/dev/kvm is usable (API version 12)");
	finding_set_node(f, "harvester-01");
	kv_add_str(&f->evidence, "device", "/dev/kvm");
	kv_add_int(&f->evidence, "api_version", 12);
	kv_add_bool(&f->evidence, "create_vm", true);
	struct value_list *mods = kv_add_list(&f->evidence, "modules");
	vlist_add_str(mods, "kvm_intel");
	vlist_add_str(mods, "kvm");

	f = finding_list_add(&r->results, "host.clock");
	finding_set(f, STATUS_WARN, "clock maximum error 812 ms (above 500 ms)");
	finding_remedy(f,
		       "Check chronyd: `chronyc tracking`; the node's NTP server is unreachable.");
	kv_add_int(&f->evidence, "offset_us", -1234567);
	kv_add_int(&f->evidence, "maxerror_us", 812000);
	kv_add_int(&f->evidence, "min", INT64_MIN);
	kv_add_int(&f->evidence, "max", INT64_MAX);
	kv_add_bool(&f->evidence, "unsync", false);
	kv_add_str(&f->evidence, "empty", "");
	kv_add_str(&f->evidence, "", "empty key");

	f = finding_list_add(&r->results, "host.nfs.probe");
	finding_set(f, STATUS_FAIL, "nfs://10.43.12.7/pvc-1f2e: GETATTR timed out after 10 s");
	finding_remedy(f, "Check that the share-manager pod of the volume runs.");
	finding_set_object(f, "Volume/longhorn-system/pvc-1f2e");
	struct value_list *eps = kv_add_list(&f->evidence, "endpoints");
	struct kv_list *ep = vlist_add_map(eps);
	kv_add_str(ep, "url", "nfs://10.43.12.7/pvc-1f2e");
	kv_add_int(ep, "port", 2049);
	struct value_list *tries = kv_add_list(ep, "attempts");
	vlist_add_int(tries, -1);
	vlist_add_bool(tries, false);
	vlist_add_list(tries);
	vlist_add_map(tries);
	struct value_list *inner = vlist_add_list(tries);
	vlist_add_str(inner, "nested");

	f = finding_list_add(&r->results, "host.iscsi");
	finding_set(f, STATUS_UNKNOWN, "%s", "");
	f = finding_list_add(&r->results, "host.multipathd");
	finding_set(f, STATUS_SKIP, "Zürich ✓ 日本語 🚀 \"quoted\" \\ tab\there");
	kv_add_str(&f->evidence, "ключ", "значение ✓");

	struct kv_list *cpu = kv_add_map(&r->facts, "cpu");
	kv_add_str(cpu, "vendor", "GenuineIntel");
	kv_add_int(cpu, "family", 6);
	kv_add_int(cpu, "model", 106);
	struct value_list *flags = kv_add_list(cpu, "flags");
	vlist_add_str(flags, "vmx");
	vlist_add_str(flags, "avx512f");
	kv_add_int(&r->facts, "memory_bytes", INT64_C(270582939648));
	kv_add_bool(&r->facts, "kvm", true);
}

static void encode_ok(const struct node_report *r, char **buf, size_t *len)
{
	int ret = wire_encode_node_report(r, buf, len);
	if (ret < 0)
		fail_msg("encoding failed: %s", strerror(-ret));
}

/* Encode in and decode it into out; the encoding stays in *buf for the caller. */
static void roundtrip(const struct node_report *in, struct node_report *out, char **buf,
		      size_t *len)
{
	char err[WIRE_ERR_LEN];
	encode_ok(in, buf, len);
	if (decode(*buf, *len, out, err) != 0)
		fail_msg("decoding failed: %s", err);
}

/* ---- round trips ---- */

static void test_roundtrip_full(void **state)
{
	struct node_report in, out;
	char *buf;
	size_t len;
	full_report(&in);
	roundtrip(&in, &out, &buf, &len);
	assert_true(wire_node_report_equal(&in, &out));

	/* The comparison itself, spelled out for the fields that matter most. */
	assert_string_equal(out.node, "harvester-01");
	assert_string_equal(out.hostname, "harvester-01.lab.example");
	assert_string_equal(out.agent_version, "0.1.0");
	assert_string_equal(out.boot_id, "4f3c2b1a-9d8e-4c7b-a6f5-e4d3c2b1a098");
	assert_int_equal(out.sent_ns, INT64_C(1757078444123456789));
	assert_true(out.seq == UINT64_MAX);
	assert_int_equal(out.interval_s, 30);
	assert_int_equal(out.schema_minor, NODE_SCHEMA_MINOR);
	assert_int_equal(out.results.n, 5);
	const struct finding *f = &out.results.items[0];
	assert_string_equal(f->check, "host.kvm");
	assert_int_equal(f->status, STATUS_PASS);
	assert_string_equal(f->node, "harvester-01");
	assert_null(f->object);
	assert_string_equal(f->remediation, "");
	assert_int_equal(kv_get_list(&f->evidence, "modules")->n, 2);
	f = &out.results.items[1];
	int64_t i;
	assert_true(kv_get_int(&f->evidence, "offset_us", &i));
	assert_int_equal(i, -1234567);
	assert_true(kv_get_int(&f->evidence, "min", &i));
	assert_true(i == INT64_MIN);
	assert_true(kv_get_int(&f->evidence, "max", &i));
	assert_true(i == INT64_MAX);
	assert_string_equal(kv_get_str(&f->evidence, "empty"), "");
	assert_string_equal(kv_get_str(&f->evidence, ""), "empty key");
	assert_null(f->node);
	f = &out.results.items[2];
	assert_string_equal(f->object, "Volume/longhorn-system/pvc-1f2e");
	const struct value_list *eps = kv_get_list(&f->evidence, "endpoints");
	assert_int_equal(eps->items[0].type, VALUE_MAP);
	const struct value_list *tries = kv_get_list(&eps->items[0].map, "attempts");
	assert_int_equal(tries->n, 5);
	assert_int_equal(tries->items[0].i, -1);
	assert_int_equal(tries->items[2].type, VALUE_LIST);
	assert_int_equal(tries->items[3].type, VALUE_MAP);
	assert_string_equal(tries->items[4].list.items[0].s, "nested");
	assert_int_equal(out.results.items[3].status, STATUS_UNKNOWN);
	assert_string_equal(out.results.items[3].message, "");
	assert_string_equal(out.results.items[4].message,
			    "Zürich ✓ 日本語 🚀 \"quoted\" \\ tab\there");
	assert_string_equal(kv_get_str(&out.results.items[4].evidence, "ключ"), "значение ✓");
	const struct value *cpu = kv_get(&out.facts, "cpu");
	assert_int_equal(cpu->type, VALUE_MAP);
	assert_string_equal(kv_get_str(&cpu->map, "vendor"), "GenuineIntel");
	assert_true(kv_get_int(&out.facts, "memory_bytes", &i));
	assert_int_equal(i, INT64_C(270582939648));

	/* Encoding is deterministic: the decoded report encodes to the same bytes. */
	char *buf2;
	size_t len2;
	encode_ok(&out, &buf2, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(buf, buf2, len);

	/* A changed field is seen by the comparison. */
	out.results.items[1].evidence.items[0].val.i++;
	assert_false(wire_node_report_equal(&in, &out));
	free(buf);
	free(buf2);
	node_report_clear(&in);
	node_report_clear(&out);
}

static void test_roundtrip_minimal(void **state)
{
	/* Optional header fields absent, no findings, no facts, negative sent_ns. */
	struct node_report in = {.node = xstrdup("n"), .sent_ns = -5}, out;
	char *buf;
	size_t len;
	roundtrip(&in, &out, &buf, &len);
	assert_true(wire_node_report_equal(&in, &out));
	assert_null(out.hostname);
	assert_null(out.agent_version);
	assert_null(out.boot_id);
	assert_int_equal(out.sent_ns, -5);
	assert_int_equal(out.results.n, 0);
	assert_int_equal(out.facts.n, 0);
	free(buf);
	node_report_clear(&in);
	node_report_clear(&out);
}

static void test_encode_rejects(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	struct node_report r = {0};
	assert_int_equal(wire_encode_node_report(&r, &buf, &len), -EINVAL);
	r.node = xstrdup("");
	assert_int_equal(wire_encode_node_report(&r, &buf, &len), -EINVAL);
	node_report_clear(&r);

	full_report(&r);
	r.results.items[0].status = _STATUS_MAX;
	assert_int_equal(wire_encode_node_report(&r, &buf, &len), -EINVAL);
	r.results.items[0].status = STATUS_PASS;

	/* Evidence (level 1) nested just to the limit, then one level beyond. */
	struct kv_list *m = kv_add_map(&r.results.items[0].evidence, "deep");
	for (int level = 3; level <= WIRE_MAX_DEPTH; level++)
		m = kv_add_map(m, "d");
	assert_int_equal(wire_encode_node_report(&r, &buf, &len), 0);
	free(buf);
	kv_add_map(m, "d");
	assert_int_equal(wire_encode_node_report(&r, &buf, &len), -EINVAL);
	node_report_clear(&r);

	full_report(&r);
	struct value_list *l = kv_add_list(&r.facts, "many");
	for (int i = 0; i <= WIRE_MAX_ARRAY; i++)
		vlist_add_int(l, i);
	assert_int_equal(wire_encode_node_report(&r, &buf, &len), -EMSGSIZE);
	node_report_clear(&r);

	full_report(&r);
	for (int i = 0; i < WIRE_MAX_FINDINGS; i++)
		finding_list_add(&r.results, "host.kvm");
	assert_int_equal(wire_encode_node_report(&r, &buf, &len), -EMSGSIZE);
	node_report_clear(&r);

	/* Every string within its limit, the whole over WIRE_MAX_MESSAGE. */
	full_report(&r);
	char *big = xmalloc(WIRE_MAX_STRING + 1);
	memset(big, 'x', WIRE_MAX_STRING);
	big[WIRE_MAX_STRING] = '\0';
	kv_add_str(&r.facts, "pad", big);
	assert_int_equal(wire_encode_node_report(&r, &buf, &len), 0);
	free(buf);
	for (int i = 0; i < 17; i++) {
		char key[16];
		snprintf(key, sizeof(key), "pad%d", i);
		kv_add_str(&r.facts, key, big);
	}
	assert_int_equal(wire_encode_node_report(&r, &buf, &len), -EMSGSIZE);
	free(big);
	node_report_clear(&r);
}

static void test_encode_repairs_strings(void **state)
{
	struct node_report in = {.node = xstrdup("n")}, out;
	struct finding *f = finding_list_add(&in.results, "host.multipathd");
	/* latin-1 from a host file, a lone continuation byte, an overlong '/' */
	finding_set(f, STATUS_WARN, "caf\xe9 \x80 \xc0\xaf ok");
	/* 40000 two-byte characters: 80000 bytes, cut to whole characters. */
	char *big = xmalloc(80001);
	for (int i = 0; i < 40000; i++)
		memcpy(big + 2 * i, "\xc3\xa9", 2);
	big[80000] = '\0';
	kv_add_str(&f->evidence, "conf", big);
	free(big);
	char *buf;
	size_t len;
	roundtrip(&in, &out, &buf, &len);
	assert_string_equal(out.results.items[0].message,
			    "caf\xef\xbf\xbd \xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd ok");
	const char *conf = kv_get_str(&out.results.items[0].evidence, "conf");
	assert_int_equal(strlen(conf), WIRE_MAX_STRING);
	assert_memory_equal(conf + WIRE_MAX_STRING - 2, "\xc3\xa9", 2);
	free(buf);
	node_report_clear(&in);
	node_report_clear(&out);
}

/* ---- framing ---- */

static void test_truncated_everywhere(void **state)
{
	struct node_report in, out;
	char *buf;
	size_t len;
	char err[WIRE_ERR_LEN];
	full_report(&in);
	encode_ok(&in, &buf, &len);
	for (size_t cut = 0; cut < len; cut++) {
		int ret = decode(buf, cut, &out, err);
		if (ret != -EINVAL)
			fail_msg("cut at %zu of %zu: got %d", cut, len, ret);
		assert_true(is_zero(&out));
		const char *want = cut ? "truncated message (" : "empty message";
		if (strncmp(err, want, strlen(want)) != 0)
			fail_msg("cut at %zu: \"%s\"", cut, err);
	}
	free(buf);
	node_report_clear(&in);
}

static void test_truncated_messages(void **state)
{
	struct mb m;
	mb_init(&m);
	begin_field(&m, "hostname");
	size_t at = m.sb.size;
	pk_s(&m, "harvester-01.lab.example");
	m.sb.size -= 3;
	char want[WIRE_ERR_LEN];
	snprintf(want, sizeof(want),
		 "truncated message (string at byte %zu needs 24 bytes, 21 left)", at);
	expect_error(&m, want);
	m.sb.size = at;
	snprintf(want, sizeof(want),
		 "truncated message (ends at byte %zu, where a value should follow)", at);
	expect_error(&m, want);
	mb_free(&m);
}

static void test_trailing_bytes(void **state)
{
	struct mb m;
	mb_init(&m);
	begin_report_results(&m, 0);
	msgpack_sbuffer_write(&m.sb, "trailing junk", 12);
	next_error(&m, "trailing bytes after the report (12)");

	/* Two complete reports back to back are not one report. */
	begin_report_results(&m, 0);
	size_t one = m.sb.size;
	begin_report_results(&m, 0);
	char want[WIRE_ERR_LEN];
	snprintf(want, sizeof(want), "trailing bytes after the report (%zu)", one);
	expect_error(&m, want);
	mb_free(&m);
}

static void test_empty_and_not_a_map(void **state)
{
	struct mb m;
	mb_init(&m);
	expect_error(&m, "empty message");
	msgpack_pack_array(&m.pk, 1);
	pk_s(&m, "hvready.node/v1");
	next_error(&m, "top level is not a map (array)");

	msgpack_pack_nil(&m.pk);
	next_error(&m, "top level is not a map (nil)");

	/* A JSON report sent to the msgpack endpoint: '{' is the integer 123. */
	msgpack_sbuffer_write(&m.sb, "{\"schema\":\"hvready.node/v1\"}", 28);
	next_error(&m, "trailing bytes after the report (27)");

	msgpack_sbuffer_write(&m.sb, "\xc1", 1);
	expect_error(&m, "invalid msgpack: reserved type byte 0xc1 at byte 0");
	mb_free(&m);
}

/* Bytes, their length (they may hold NUL) and the error they must give. */
struct bytes_case {
	const char *bytes;
	size_t len;
	const char *err;
};

/* A few bytes that declare an enormous container or string must be turned
 * away before anything is reserved for it (msgpack-c's unpacker would ask for
 * 128 GiB). */
static void test_huge_declarations(void **state)
{
	static const struct bytes_case cases[] = {
	    {"\xdd\xff\xff\xff\xff\x01\x02\x03\x04\x05", 10,
	     "truncated message (array at byte 0 declares 4294967295 elements, 5 bytes left)"},
	    {"\xdf\xff\xff\xff\xff\x01\x02\x03\x04\x05", 10,
	     "truncated message (map at byte 0 declares 4294967295 entries, 5 bytes left)"},
	    {"\x81\xa1k\xdc\xff\xff\x01", 7,
	     "truncated message (array at byte 3 declares 65535 elements, 1 bytes left)"},
	    {"\x81\xa1k\xdb\xff\xff\xff\xff\x01", 9,
	     "truncated message (string at byte 3 needs 4294967295 bytes, 1 left)"},
	    {"\x81\xa1k\xc6\xff\xff\xff\xff", 8,
	     "truncated message (binary at byte 3 needs 4294967295 bytes, 0 left)"},
	    {"\x81\xa1k\xc9\xff\xff\xff\xff\x01", 9,
	     "truncated message (extension at byte 3 needs 4294967296 bytes, 1 left)"},
	    {"\x81\xa1k\xdd\x00", 5, "truncated message (array at byte 3 needs 4 bytes, 1 left)"},
	};
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct mb m;
		mb_init(&m);
		msgpack_sbuffer_write(&m.sb, cases[i].bytes, cases[i].len);
		for (int rep = 0; rep < 100; rep++)
			expect_error(&m, cases[i].err);
		mb_free(&m);
	}
	getrusage(RUSAGE_SELF, &after);
	/* ru_maxrss is in KiB: nothing near the declared sizes was touched. */
	assert_true(after.ru_maxrss - before.ru_maxrss < 16 * 1024);
}

static void test_nesting_beyond_scan(void **state)
{
	/* 40 nested arrays: deeper than msgpack-c's own stack (32). */
	struct mb m;
	mb_init(&m);
	begin_fact(&m, "deep");
	size_t at = m.sb.size;
	for (int i = 0; i < 40; i++)
		msgpack_pack_array(&m.pk, 1);
	msgpack_pack_int(&m.pk, 1);
	char want[WIRE_ERR_LEN];
	/* top map (1), facts (2), then the arrays: the 15th array is level 17 */
	snprintf(want, sizeof(want), "nesting deeper than 16 levels at byte %zu", at + 14);
	expect_error(&m, want);
	mb_free(&m);
}

/* ---- required fields and types ---- */

static void test_required_fields(void **state)
{
	struct mb m;
	mb_init(&m);
	msgpack_pack_map(&m.pk, 3);
	pk_kv(&m, "node", "n");
	pk_s(&m, "sent_ns");
	msgpack_pack_int(&m.pk, 1);
	pk_s(&m, "results");
	msgpack_pack_array(&m.pk, 0);
	next_error(&m, "missing required field \"schema\"");

	msgpack_pack_map(&m.pk, 3);
	pk_kv(&m, "schema", "hvready.node/v1");
	pk_s(&m, "sent_ns");
	msgpack_pack_int(&m.pk, 1);
	pk_s(&m, "results");
	msgpack_pack_array(&m.pk, 0);
	next_error(&m, "missing required field \"node\"");

	msgpack_pack_map(&m.pk, 3);
	pk_kv(&m, "schema", "hvready.node/v1");
	pk_kv(&m, "node", "n");
	pk_s(&m, "results");
	msgpack_pack_array(&m.pk, 0);
	next_error(&m, "missing required field \"sent_ns\"");

	begin_report(&m, 0);
	next_error(&m, "missing required field \"results\"");

	msgpack_pack_map(&m.pk, 4);
	pk_kv(&m, "schema", "hvready.node/v1");
	pk_kv(&m, "node", "");
	pk_s(&m, "sent_ns");
	msgpack_pack_int(&m.pk, 1);
	pk_s(&m, "results");
	msgpack_pack_array(&m.pk, 0);
	expect_error(&m, "node: must not be empty");
	mb_free(&m);

	/* Findings: check, status and message are required. */
	static const char *const missing[] = {"check", "status", "message"};
	for (size_t i = 0; i < ELEMENTSOF(missing); i++) {
		mb_init(&m);
		begin_results(&m, 2);
		pk_finding(&m, "PASS", 0);
		msgpack_pack_map(&m.pk, 2);
		for (size_t k = 0; k < ELEMENTSOF(missing); k++)
			if (k != i)
				pk_kv(&m, missing[k], "PASS");
		char want[WIRE_ERR_LEN];
		snprintf(want, sizeof(want), "results[1]: missing required field \"%s\"",
			 missing[i]);
		expect_error(&m, want);
		mb_free(&m);
	}

	mb_init(&m);
	begin_results(&m, 1);
	msgpack_pack_map(&m.pk, 3);
	pk_kv(&m, "check", "");
	pk_kv(&m, "status", "PASS");
	pk_kv(&m, "message", "m");
	expect_error(&m, "results[0].check: must not be empty");
	mb_free(&m);
}

static void test_field_types(void **state)
{
	struct mb m;
	mb_init(&m);
	begin_report(&m, 1);
	pk_s(&m, "results");
	msgpack_pack_map(&m.pk, 0);
	next_error(&m, "results: not an array (map)");

	begin_field(&m, "hostname");
	msgpack_pack_int(&m.pk, 7);
	next_error(&m, "hostname: not a string (integer)");

	begin_field(&m, "boot_id");
	msgpack_pack_bin(&m.pk, 2);
	msgpack_pack_bin_body(&m.pk, "ab", 2);
	next_error(&m, "boot_id: not a string (binary)");

	begin_field(&m, "seq");
	msgpack_pack_int(&m.pk, -1);
	next_error(&m, "seq: out of range (-1, must not be negative)");

	begin_field(&m, "interval");
	msgpack_pack_uint64(&m.pk, UINT64_C(5000000000));
	next_error(&m, "interval: out of range (5000000000, at most 4294967295)");

	begin_field(&m, "schema_minor");
	msgpack_pack_double(&m.pk, 1.5);
	next_error(&m, "schema_minor: not an integer (float)");

	msgpack_pack_map(&m.pk, 4);
	pk_kv(&m, "schema", "hvready.node/v1");
	pk_kv(&m, "node", "n");
	pk_s(&m, "sent_ns");
	msgpack_pack_uint64(&m.pk, UINT64_MAX);
	pk_s(&m, "results");
	msgpack_pack_array(&m.pk, 0);
	next_error(&m, "sent_ns: out of range (18446744073709551615, at most 9223372036854775807)");

	begin_field(&m, "facts");
	msgpack_pack_array(&m.pk, 0);
	next_error(&m, "facts: not a map (array)");

	begin_results(&m, 1);
	pk_s(&m, "host.kvm");
	next_error(&m, "results[0]: not a map (string)");

	begin_results(&m, 1);
	pk_finding(&m, "PASS", 1);
	pk_s(&m, "object");
	msgpack_pack_nil(&m.pk);
	next_error(&m, "results[0].object: not a string (nil)");

	/* Keys of the maps the report keeps must be strings. */
	begin_report_results(&m, 1);
	msgpack_pack_int(&m.pk, 5);
	pk_s(&m, "five");
	next_error(&m, "top level: map key is not a string (integer)");

	begin_fact(&m, "cpu");
	msgpack_pack_map(&m.pk, 1);
	msgpack_pack_true(&m.pk);
	pk_s(&m, "x");
	expect_error(&m, "facts.cpu: map key is not a string (boolean)");
	mb_free(&m);
}

static void test_status(void **state)
{
	struct mb m;
	mb_init(&m);
	begin_results(&m, 4);
	pk_finding(&m, "PASS", 0);
	pk_finding(&m, "WARN", 0);
	pk_finding(&m, "SKIP", 0);
	pk_finding(&m, "MAYBE", 0);
	next_error(&m, "results[3].status: unknown status \"MAYBE\" (expected PASS, WARN, FAIL, "
		       "UNKNOWN or SKIP)");

	begin_results(&m, 1);
	pk_finding(&m, "pass", 0);
	expect_error(&m, "results[0].status: unknown status \"pass\" (expected PASS, WARN, FAIL, "
			 "UNKNOWN or SKIP)");
	mb_free(&m);

	/* Every status name decodes to its value. */
	for (int st = 0; st < _STATUS_MAX; st++) {
		mb_init(&m);
		begin_results(&m, 1);
		pk_finding(&m, status_name(st), 0);
		struct node_report r;
		expect_ok(&m, &r);
		assert_int_equal(r.results.items[0].status, st);
		assert_string_equal(r.results.items[0].remediation, "");
		assert_int_equal(r.results.items[0].evidence.n, 0);
		node_report_clear(&r);
		mb_free(&m);
	}
}

static void test_value_types(void **state)
{
	struct mb m;
	mb_init(&m);
	begin_fact(&m, "load");
	msgpack_pack_double(&m.pk, 0.5);
	next_error(&m, "unsupported type float at facts.load (values are strings, integers, "
		       "booleans, arrays or maps)");

	begin_results(&m, 1);
	pk_finding(&m, "PASS", 1);
	pk_s(&m, "evidence");
	msgpack_pack_map(&m.pk, 1);
	pk_s(&m, "paths");
	msgpack_pack_array(&m.pk, 2);
	pk_s(&m, "/var/lib/longhorn");
	msgpack_pack_nil(&m.pk);
	next_error(&m, "unsupported type nil at results[0].evidence.paths[1] (values are strings, "
		       "integers, booleans, arrays or maps)");

	begin_fact(&m, "big");
	msgpack_pack_uint64(&m.pk, UINT64_C(9223372036854775808));
	next_error(&m, "integer out of range at facts.big (9223372036854775808, at most "
		       "9223372036854775807)");

	/* Keys that are no identifier are quoted in the path. */
	begin_fact(&m, "/dev/sda \"1\"");
	msgpack_pack_ext(&m.pk, 1, 5);
	msgpack_pack_ext_body(&m.pk, "x", 1);
	expect_error(&m,
		     "unsupported type extension at facts[\"/dev/sda \\x221\\x22\"] (values are "
		     "strings, integers, booleans, arrays or maps)");
	mb_free(&m);
}

/* ---- versions and forward compatibility ---- */

static void test_unknown_keys_ignored(void **state)
{
	struct mb m;
	mb_init(&m);
	begin_report(&m, 4);
	pk_s(&m, "schema_minor");
	msgpack_pack_uint32(&m.pk, 7);
	/* A future top-level field of any type, even ones v1 values cannot be. */
	pk_s(&m, "future");
	msgpack_pack_map(&m.pk, 4);
	msgpack_pack_int(&m.pk, 1);
	msgpack_pack_double(&m.pk, 2.5);
	msgpack_pack_nil(&m.pk);
	msgpack_pack_bin(&m.pk, 1);
	msgpack_pack_bin_body(&m.pk, "\xff", 1);
	pk_s(&m, "dup");
	msgpack_pack_int(&m.pk, 1);
	pk_s(&m, "dup"); /* not kept, so not checked for duplicates */
	msgpack_pack_ext(&m.pk, 1, -1);
	msgpack_pack_ext_body(&m.pk, "\x00", 1);
	pk_s(&m, "invalid_utf8_ignored");
	pk_s(&m, "\xff\xfe");
	pk_s(&m, "results");
	msgpack_pack_array(&m.pk, 1);
	pk_finding(&m, "FAIL", 2);
	pk_s(&m, "severity"); /* a future finding field */
	msgpack_pack_int(&m.pk, 3);
	pk_s(&m, "links");
	msgpack_pack_array(&m.pk, 1);
	pk_s(&m, "https://docs.harvesterhci.io/");
	struct node_report r;
	expect_ok(&m, &r);
	assert_int_equal(r.schema_minor, 7);
	assert_string_equal(r.node, "harvester-01");
	assert_int_equal(r.results.n, 1);
	assert_int_equal(r.results.items[0].status, STATUS_FAIL);
	assert_int_equal(r.facts.n, 0);
	node_report_clear(&r);
	mb_free(&m);

	/* ... but unknown content is held to the same limits. */
	mb_init(&m);
	begin_field(&m, "future");
	msgpack_pack_array(&m.pk, 1);
	pk_fill(&m, 'x', WIRE_MAX_STRING + 1);
	expect_error(&m, "string too long at future[0] (65537 bytes, at most 65536)");
	mb_free(&m);
}

static void test_schema_versions(void **state)
{
	static const char *const unsupported[] = {"hvready.node/v2", "hvready.node/v0",
						  "hvready.node/v10"};
	for (size_t i = 0; i < ELEMENTSOF(unsupported); i++) {
		struct mb m;
		mb_init(&m);
		/* A v2 message may differ in anything else: the version is what is said. */
		msgpack_pack_map(&m.pk, 2);
		pk_kv(&m, "schema", unsupported[i]);
		pk_s(&m, "results");
		msgpack_pack_map(&m.pk, 0);
		char want[WIRE_ERR_LEN];
		snprintf(want, sizeof(want), "unsupported schema %s (this aggregator speaks v1)",
			 unsupported[i]);
		expect_error_code(&m, -EPROTONOSUPPORT, want);
		mb_free(&m);
	}
	static const char *const other[] = {"hvready.report/v1",
					    "hvready.node/1",
					    "hvready.node/v",
					    "hvready.node/v1.1",
					    "hvready.node/v01",
					    "HVREADY.NODE/V1",
					    ""};
	for (size_t i = 0; i < ELEMENTSOF(other); i++) {
		struct mb m;
		mb_init(&m);
		msgpack_pack_map(&m.pk, 4);
		pk_kv(&m, "schema", other[i]);
		pk_kv(&m, "node", "n");
		pk_s(&m, "sent_ns");
		msgpack_pack_int(&m.pk, 1);
		pk_s(&m, "results");
		msgpack_pack_array(&m.pk, 0);
		char want[WIRE_ERR_LEN];
		snprintf(want, sizeof(want),
			 "schema: not a node report schema: \"%s\" (expected hvready.node/v1)",
			 other[i]);
		expect_error(&m, want);
		mb_free(&m);
	}
	struct mb m;
	mb_init(&m);
	msgpack_pack_map(&m.pk, 1);
	pk_s(&m, "schema");
	msgpack_pack_int(&m.pk, 1);
	next_error(&m, "schema: not a string (integer)");

	/* Huge version numbers are unsupported, not misparsed. */
	msgpack_pack_map(&m.pk, 1);
	pk_kv(&m, "schema", "hvready.node/v4294967297");
	expect_error_code(
	    &m, -EPROTONOSUPPORT,
	    "unsupported schema hvready.node/v4294967297 (this aggregator speaks v1)");
	mb_free(&m);
}

/* ---- keys and strings ---- */

static void test_duplicate_keys(void **state)
{
	struct mb m;
	mb_init(&m);
	begin_report_results(&m, 1);
	pk_kv(&m, "node", "other-node");
	next_error(&m, "duplicate key \"node\" at top level");

	begin_results(&m, 1);
	pk_finding(&m, "PASS", 1);
	pk_kv(&m, "status", "FAIL");
	next_error(&m, "duplicate key \"status\" at results[0]");

	/* A large map (sorted, not pairwise, comparison) with one duplicate at the end. */
	begin_fact(&m, "mounts");
	msgpack_pack_map(&m.pk, 1001);
	for (int i = 0; i < 1000; i++) {
		char k[32];
		snprintf(k, sizeof(k), "/var/lib/kubelet/pods/%d", i);
		pk_kv(&m, k, "ext4");
	}
	pk_kv(&m, "/var/lib/kubelet/pods/500", "xfs");
	expect_error(&m, "duplicate key \"/var/lib/kubelet/pods/500\" at facts.mounts");
	mb_free(&m);
}

static void test_invalid_strings(void **state)
{
	static const struct bytes_case cases[] = {
	    {"\xc3\x28", 2, "invalid UTF-8 at results[0].message (byte 0)"},
	    {"ok \xc0\xaf", 5, "invalid UTF-8 at results[0].message (byte 3)"},	 /* overlong */
	    {"\xed\xa0\x80", 3, "invalid UTF-8 at results[0].message (byte 0)"}, /* surrogate */
	    {"\xf4\x90\x80\x80", 4,
	     "invalid UTF-8 at results[0].message (byte 0)"},		     /* > U+10FFFF */
	    {"caf\xe9", 4, "invalid UTF-8 at results[0].message (byte 3)"},  /* latin-1 */
	    {"\xe2\x9c", 2, "invalid UTF-8 at results[0].message (byte 0)"}, /* cut sequence */
	    {"a\0b", 3, "NUL byte at results[0].message (byte 1)"},
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct mb m;
		mb_init(&m);
		begin_results(&m, 1);
		msgpack_pack_map(&m.pk, 3);
		pk_kv(&m, "check", "host.kvm");
		pk_kv(&m, "status", "PASS");
		pk_s(&m, "message");
		pk_sn(&m, cases[i].bytes, cases[i].len);
		expect_error(&m, cases[i].err);
		mb_free(&m);
	}

	struct mb m;
	mb_init(&m);
	begin_fact(&m, NULL);
	pk_sn(&m, "\xff", 1);
	msgpack_pack_true(&m.pk);
	next_error(&m, "invalid UTF-8 in a map key at facts (byte 0)");

	begin_fact(&m, NULL);
	pk_sn(&m, "a\0", 2);
	msgpack_pack_true(&m.pk);
	expect_error(&m, "NUL byte in a map key at facts (byte 1)");
	mb_free(&m);
}

/* ---- limits: just at each is accepted, one beyond is not ---- */

static void pk_result_message(struct mb *m, size_t n)
{
	begin_results(m, 1);
	msgpack_pack_map(&m->pk, 3);
	pk_kv(m, "check", "host.kvm");
	pk_kv(m, "status", "PASS");
	pk_s(m, "message");
	pk_fill(m, 'm', n);
}

static void test_limit_string(void **state)
{
	struct mb m;
	struct node_report r;
	mb_init(&m);
	pk_result_message(&m, WIRE_MAX_STRING);
	expect_ok(&m, &r);
	assert_int_equal(strlen(r.results.items[0].message), WIRE_MAX_STRING);
	node_report_clear(&r);
	mb_free(&m);

	mb_init(&m);
	pk_result_message(&m, 70000);
	next_error(&m, "string too long at results[0].message (70000 bytes, at most 65536)");

	begin_fact(&m, NULL);
	pk_fill(&m, 'k', WIRE_MAX_STRING + 1);
	msgpack_pack_true(&m.pk);
	expect_error(&m, "map key too long at facts (65537 bytes, at most 65536)");
	mb_free(&m);
}

/* facts.cpu holding containers down to nesting level `levels` (facts is 1). */
static void pk_deep_facts(struct mb *m, int levels, bool arrays)
{
	begin_fact(m, "cpu");
	for (int level = 2; level <= levels; level++) {
		if (arrays) {
			msgpack_pack_array(&m->pk, 1);
		} else {
			msgpack_pack_map(&m->pk, 1);
			pk_s(m, "l");
		}
	}
	pk_s(m, "leaf");
}

static void test_limit_depth(void **state)
{
	for (int arrays = 0; arrays <= 1; arrays++) {
		struct mb m;
		struct node_report r;
		mb_init(&m);
		pk_deep_facts(&m, WIRE_MAX_DEPTH, arrays);
		expect_ok(&m, &r);
		node_report_clear(&r);
		mb_free(&m);

		mb_init(&m);
		pk_deep_facts(&m, WIRE_MAX_DEPTH + 1, arrays);
		expect_error(&m, arrays ? "nesting deeper than 8 at facts.cpu[0][0][0][0][0][0][0]"
					: "nesting deeper than 8 at facts.cpu.l.l.l.l.l.l.l");
		mb_free(&m);
	}

	/* Evidence counts the same way, from the evidence map. */
	struct mb m;
	mb_init(&m);
	begin_results(&m, 1);
	pk_finding(&m, "PASS", 1);
	pk_s(&m, "evidence");
	for (int level = 1; level <= WIRE_MAX_DEPTH + 1; level++)
		msgpack_pack_array(&m.pk, 1);
	msgpack_pack_int(&m.pk, 0);
	next_error(&m, "results[0].evidence: not a map (array)");

	begin_results(&m, 1);
	pk_finding(&m, "PASS", 1);
	pk_s(&m, "evidence");
	msgpack_pack_map(&m.pk, 1);
	pk_s(&m, "e");
	for (int level = 2; level <= WIRE_MAX_DEPTH + 1; level++)
		msgpack_pack_array(&m.pk, 1);
	msgpack_pack_int(&m.pk, 0);
	expect_error(&m, "nesting deeper than 8 at results[0].evidence.e[0][0][0][0][0][0][0]");
	mb_free(&m);
}

static void pk_many(struct mb *m, unsigned n, bool map)
{
	begin_fact(m, "many");
	if (map)
		msgpack_pack_map(&m->pk, n);
	else
		msgpack_pack_array(&m->pk, n);
	for (unsigned i = 0; i < n; i++) {
		if (map) {
			char k[16];
			snprintf(k, sizeof(k), "k%u", i);
			pk_s(m, k);
		}
		msgpack_pack_unsigned_int(&m->pk, i);
	}
}

static void test_limit_entries(void **state)
{
	for (int map = 0; map <= 1; map++) {
		struct mb m;
		struct node_report r;
		mb_init(&m);
		pk_many(&m, WIRE_MAX_ARRAY, map);
		expect_ok(&m, &r);
		const struct value *v = kv_get(&r.facts, "many");
		assert_int_equal(map ? v->map.n : v->list.n, WIRE_MAX_ARRAY);
		node_report_clear(&r);
		mb_free(&m);

		mb_init(&m);
		pk_many(&m, WIRE_MAX_ARRAY + 1, map);
		expect_error(&m, "too many entries at facts.many (4097, at most 4096)");
		mb_free(&m);
	}
}

static void pk_findings(struct mb *m, unsigned n)
{
	begin_results(m, n);
	for (unsigned i = 0; i < n; i++)
		pk_finding(m, "PASS", 0);
}

static void test_limit_findings(void **state)
{
	struct mb m;
	struct node_report r;
	mb_init(&m);
	pk_findings(&m, WIRE_MAX_FINDINGS);
	expect_ok(&m, &r);
	assert_int_equal(r.results.n, WIRE_MAX_FINDINGS);
	node_report_clear(&r);
	mb_free(&m);

	mb_init(&m);
	pk_findings(&m, WIRE_MAX_FINDINGS + 1);
	expect_error(&m, "too many results (1025, at most 1024)");
	mb_free(&m);
}

/* A valid report of exactly size bytes: facts padded with strings. */
static void pk_sized(struct mb *m, size_t size)
{
	size_t pad = 0;
	for (int attempt = 0; attempt < 8; attempt++) {
		msgpack_sbuffer_clear(&m->sb);
		begin_field(m, "facts");
		size_t chunks = pad / WIRE_MAX_STRING + 1;
		msgpack_pack_map(&m->pk, chunks);
		for (size_t i = 0; i < chunks; i++) {
			char k[32];
			snprintf(k, sizeof(k), "pad%zu", i);
			pk_s(m, k);
			pk_fill(m, 'p', i + 1 < chunks ? WIRE_MAX_STRING : pad % WIRE_MAX_STRING);
		}
		if (m->sb.size == size)
			return;
		pad += size - m->sb.size;
	}
	fail_msg("could not build a message of %zu bytes", size);
}

static void test_limit_message(void **state)
{
	struct mb m;
	struct node_report r;
	mb_init(&m);
	pk_sized(&m, WIRE_MAX_MESSAGE);
	assert_int_equal(m.sb.size, WIRE_MAX_MESSAGE);
	expect_ok(&m, &r);
	node_report_clear(&r);
	msgpack_sbuffer_write(&m.sb, "", 1);
	expect_error(&m, "message too large (1048577 bytes, at most 1048576)");
	mb_free(&m);
}

/* ---- failure hygiene and renderings ---- */

static void test_failure_after_allocations(void **state)
{
	/* Everything before the bad status is decoded and allocated, then freed:
	 * ASan's leak check and the zeroed result show it. */
	struct mb m;
	mb_init(&m);
	begin_report(&m, 4);
	pk_kv(&m, "hostname", "h");
	pk_s(&m, "facts");
	msgpack_pack_map(&m.pk, 1);
	pk_s(&m, "cpu");
	msgpack_pack_array(&m.pk, 2);
	pk_s(&m, "vmx");
	msgpack_pack_map(&m.pk, 1);
	pk_kv(&m, "k", "v");
	pk_kv(&m, "boot_id", "b");
	pk_s(&m, "results");
	msgpack_pack_array(&m.pk, 2);
	pk_finding(&m, "PASS", 1);
	pk_s(&m, "evidence");
	msgpack_pack_map(&m.pk, 1);
	pk_s(&m, "list");
	msgpack_pack_array(&m.pk, 2);
	pk_s(&m, "one");
	msgpack_pack_double(&m.pk, 2.0);
	pk_finding(&m, "PASS", 0);
	expect_error(&m, "unsupported type float at results[0].evidence.list[1] (values are "
			 "strings, integers, booleans, arrays or maps)");
	mb_free(&m);
}

static void test_renderings_of_decoded(void **state)
{
	/* Control characters, quotes and non-ASCII are valid in strings: the JSON
	 * rendering must stay parseable and give them back unchanged. */
	struct node_report in = {.node = xstrdup("n\x01\x1b[2J")}, out;
	struct finding *f = finding_list_add(&in.results, "x\ny");
	finding_set(f, STATUS_FAIL, "line1\nline2\t\"q\" \\ \x7f ✓");
	kv_add_str(&f->evidence, "", "\r");
	kv_add_str(&f->evidence, "k\"ey", "v");
	kv_add_int(&in.facts, "min", INT64_MIN);
	char *buf;
	size_t len;
	roundtrip(&in, &out, &buf, &len);
	json_object *o = render_node_report_json(&out);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	json_object *back = json_tokener_parse(s);
	assert_non_null(back);
	json_object *v;
	assert_true(json_object_object_get_ex(back, "node", &v));
	assert_string_equal(json_object_get_string(v), "n\x01\x1b[2J");
	json_object *res = json_object_object_get(back, "results");
	json_object *f0 = json_object_array_get_idx(res, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(f0, "message")),
			    "line1\nline2\t\"q\" \\ \x7f ✓");
	json_object_put(back);
	json_object_put(o);
	char *text = NULL;
	size_t tlen = 0;
	FILE *mf = open_memstream(&text, &tlen);
	render_node_report_text(mf, &out, false);
	fclose(mf);
	assert_non_null(strstr(text, "1 FAIL"));
	free(text);
	free(buf);
	node_report_clear(&in);
	node_report_clear(&out);
}

/* The wire corpus seeds are msgpack written by fuzz/gen_corpus.py's own
 * encoder, not by msgpack-c: the decoder must read another implementation's
 * bytes as the protocol says. */
static void test_independent_encoder(void **state)
{
	static const struct {
		const char *seed;
		int ret;
		const char *err;
	} cases[] = {
	    {"healthy", 0, NULL},
	    {"broken", 0, NULL},
	    {"all-value-types", 0, NULL},
	    {"wide-encodings", 0, NULL},
	    {"unknown-keys", 0, NULL},
	    {"depth-8", 0, NULL},
	    {"array-at-limit", 0, NULL},
	    {"findings-at-limit", 0, NULL},
	    {"string-at-limit", 0, NULL},
	    {"depth-9", -EINVAL, "nesting deeper than 8 at facts.cpu.l.l.l.l.l.l.l"},
	    {"schema-v2", -EPROTONOSUPPORT,
	     "unsupported schema hvready.node/v2 (this aggregator speaks v1)"},
	    {"status-maybe", -EINVAL,
	     "results[1].status: unknown status \"MAYBE\" (expected PASS, WARN, FAIL, UNKNOWN or "
	     "SKIP)"},
	    {"trailing", -EINVAL, "trailing bytes after the report (13)"},
	    {"huge-array32", -EINVAL,
	     "truncated message (array at byte 0 declares 4294967295 elements, 5 bytes left)"},
	};
	const char *src = test_src();
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_free_ char *path =
		    xasprintf("%s/fuzz/corpus/wire/seed-%s", src, cases[i].seed);
		char *buf;
		size_t len;
		assert_int_equal(util_read_file(path, WIRE_MAX_MESSAGE, &buf, &len), 0);
		struct node_report r;
		char err[WIRE_ERR_LEN];
		int ret = decode(buf, len, &r, err);
		free(buf);
		if (ret != cases[i].ret || (cases[i].err && strcmp(err, cases[i].err) != 0))
			fail_msg("%s: got %d \"%s\"", cases[i].seed, ret, ret ? err : "");
		if (ret == 0) {
			assert_non_null(r.node);
			assert_true(r.results.n > 0 || r.facts.n > 0);
		}
		node_report_clear(&r);
	}

	/* The realistic ones carry what the generator wrote. */
	_cleanup_free_ char *path = xasprintf("%s/fuzz/corpus/wire/seed-broken", src);
	char *buf;
	size_t len;
	assert_int_equal(util_read_file(path, WIRE_MAX_MESSAGE, &buf, &len), 0);
	struct node_report r;
	char err[WIRE_ERR_LEN];
	assert_int_equal(decode(buf, len, &r, err), 0);
	free(buf);
	assert_string_equal(r.node, "edge-rpi-03");
	assert_true(r.seq == UINT64_MAX);
	assert_int_equal(r.interval_s, 0);
	const struct finding *f = finding_list_find(&r.results, "host.nfs.probe");
	assert_non_null(f);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(f->object, "Volume/longhorn-system/pvc-1f2e");
	f = finding_list_find(&r.results, "host.image.share-manager");
	const struct value_list *eps = kv_get_list(&f->evidence, "endpoints");
	assert_int_equal(eps->n, 2);
	assert_string_equal(kv_get_str(&eps->items[0].map, "url"),
			    "https://mirror.corp.example:5000/v2/");
	int64_t status;
	assert_true(kv_get_int(&eps->items[0].map, "status", &status));
	assert_int_equal(status, 404);
	node_report_clear(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip_full),
	    cmocka_unit_test(test_roundtrip_minimal),
	    cmocka_unit_test(test_encode_rejects),
	    cmocka_unit_test(test_encode_repairs_strings),
	    cmocka_unit_test(test_truncated_everywhere),
	    cmocka_unit_test(test_truncated_messages),
	    cmocka_unit_test(test_trailing_bytes),
	    cmocka_unit_test(test_empty_and_not_a_map),
	    cmocka_unit_test(test_huge_declarations),
	    cmocka_unit_test(test_nesting_beyond_scan),
	    cmocka_unit_test(test_required_fields),
	    cmocka_unit_test(test_field_types),
	    cmocka_unit_test(test_status),
	    cmocka_unit_test(test_value_types),
	    cmocka_unit_test(test_unknown_keys_ignored),
	    cmocka_unit_test(test_schema_versions),
	    cmocka_unit_test(test_duplicate_keys),
	    cmocka_unit_test(test_invalid_strings),
	    cmocka_unit_test(test_limit_string),
	    cmocka_unit_test(test_limit_depth),
	    cmocka_unit_test(test_limit_entries),
	    cmocka_unit_test(test_limit_findings),
	    cmocka_unit_test(test_limit_message),
	    cmocka_unit_test(test_failure_after_allocations),
	    cmocka_unit_test(test_renderings_of_decoded),
	    cmocka_unit_test(test_independent_encoder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
