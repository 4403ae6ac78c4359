/* The CRI ImageStatus answer as containerd sends it (a gRPC frame around an
 * ImageStatusResponse), and answers no runtime sends. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cri_image.h"

struct msg {
	uint8_t b[4096];
	size_t n;
};

static void put(struct msg *m, const void *p, size_t n)
{
	assert_true(m->n + n <= sizeof(m->b));
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void varint(struct msg *m, uint64_t v)
{
	do {
		uint8_t c = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		put(m, &c, 1);
		v >>= 7;
	} while (v);
}

static void field_bytes(struct msg *m, unsigned no, const void *p, size_t n)
{
	varint(m, (uint64_t)no << 3 | 2);
	varint(m, n);
	put(m, p, n);
}

static void field_str(struct msg *m, unsigned no, const char *s)
{
	field_bytes(m, no, s, strlen(s));
}

static void field_varint(struct msg *m, unsigned no, uint64_t v)
{
	varint(m, (uint64_t)no << 3);
	varint(m, v);
}

/* A gRPC frame: flag 0, big-endian length, the message. */
static struct msg frame(const struct msg *body)
{
	struct msg f = {0};
	uint8_t h[5] = {0, (uint8_t)(body->n >> 24), (uint8_t)(body->n >> 16),
			(uint8_t)(body->n >> 8), (uint8_t)body->n};
	put(&f, h, 5);
	put(&f, body->b, body->n);
	return f;
}

/* The Image message containerd 1.7 sends for a pulled share-manager image. */
static struct msg share_manager_image(void)
{
	struct msg img = {0};
	field_str(&img, 1,
		  "sha256:5c3a1a3ff3b1a2e5c1e8e2b54a6f1f1b8b4e8c4e56a1d5ab0e8d6f2a9e7c1b3d");
	field_str(&img, 2, "docker.io/longhornio/longhorn-share-manager:v1.11.2");
	field_str(&img, 3,
		  "docker.io/longhornio/longhorn-share-manager@sha256:"
		  "0f2b6c6d1f63c2b1e4a4a3e8d8c1b5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2");
	field_varint(&img, 4, 94371840);
	struct msg spec = {0};
	field_str(&spec, 1,
		  "sha256:5c3a1a3ff3b1a2e5c1e8e2b54a6f1f1b8b4e8c4e56a1d5ab0e8d6f2a9e7c1b3d");
	field_bytes(&img, 7, spec.b, spec.n); /* spec */
	field_varint(&img, 8, 0);	      /* pinned */
	return img;
}

static void test_present(void **state)
{
	(void)state;
	struct msg img = share_manager_image();
	struct msg resp = {0};
	field_bytes(&resp, 1, img.b, img.n);
	field_bytes(&resp, 2, "", 0); /* an empty info map entry: skipped */
	struct msg f = frame(&resp);
	struct cri_image out;
	char err[256] = "";
	assert_int_equal(cri_image_decode(f.b, f.n, &out, err, sizeof(err)), 1);
	assert_string_equal(
	    out.id, "sha256:5c3a1a3ff3b1a2e5c1e8e2b54a6f1f1b8b4e8c4e56a1d5ab0e8d6f2a9e7c1b3d");
	assert_int_equal(out.repo_tags.n, 1);
	assert_string_equal(out.repo_tags.items[0],
			    "docker.io/longhornio/longhorn-share-manager:v1.11.2");
	assert_int_equal(out.repo_digests.n, 1);
	assert_int_equal(out.size, 94371840);
	cri_image_clear(&out);
}

static void test_absent(void **state)
{
	(void)state;
	/* containerd's answer for an image it does not have: an empty message. */
	static const uint8_t empty[] = {0, 0, 0, 0, 0};
	struct cri_image out;
	char err[256] = "";
	assert_int_equal(cri_image_decode(empty, sizeof(empty), &out, err, sizeof(err)), 0);
	assert_null(out.id);
	/* An Image without an id is no image either. */
	struct msg img = {0};
	field_str(&img, 2, "docker.io/x/y:1");
	struct msg resp = {0};
	field_bytes(&resp, 1, img.b, img.n);
	struct msg f = frame(&resp);
	assert_int_equal(cri_image_decode(f.b, f.n, &out, err, sizeof(err)), 0);
	assert_int_equal(out.repo_tags.n, 0);
}

static void bad(const uint8_t *buf, size_t len, const char *needle)
{
	struct cri_image out;
	char err[256] = "";
	assert_int_equal(cri_image_decode(buf, len, &out, err, sizeof(err)), -EBADMSG);
	if (!strstr(err, needle))
		fail_msg("error \"%s\" does not say \"%s\"", err, needle);
	assert_null(strchr(err, '\n'));
	assert_null(out.id);
	assert_int_equal(out.repo_tags.n, 0);
}

static void test_bad(void **state)
{
	(void)state;
	bad((const uint8_t *)"", 0, "less than a frame header");
	static const uint8_t compressed[] = {1, 0, 0, 0, 0};
	bad(compressed, sizeof(compressed), "compressed");
	static const uint8_t short_frame[] = {0, 0, 0, 0, 9, 0x0a, 0x00};
	bad(short_frame, sizeof(short_frame), "frame says 9 bytes");
	/* A length beyond the message. */
	static const uint8_t overlong[] = {0, 0, 0, 0, 2, 0x0a, 0x7f};
	bad(overlong, sizeof(overlong), "malformed");
	/* A varint that never ends. */
	static const uint8_t endless[] = {0,	0,    0,    0,	  11,	0x20, 0xff, 0xff,
					  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	bad(endless, sizeof(endless), "malformed");
	/* A group (wire type 3) and field number 0. */
	static const uint8_t group[] = {0, 0, 0, 0, 1, 0x0b};
	bad(group, sizeof(group), "malformed");
	static const uint8_t field0[] = {0, 0, 0, 0, 2, 0x02, 0x00};
	bad(field0, sizeof(field0), "malformed");
	/* An id with a NUL byte inside the Image. */
	struct msg img = {0};
	field_bytes(&img, 1, "sha256:a\0b", 10);
	struct msg resp = {0};
	field_bytes(&resp, 1, img.b, img.n);
	struct msg f = frame(&resp);
	bad(f.b, f.n, "field 1 of the Image message");
	/* A truncated Image inside a well-formed response. */
	struct msg img2 = share_manager_image();
	struct msg resp2 = {0};
	field_bytes(&resp2, 1, img2.b, img2.n - 3);
	struct msg f2 = frame(&resp2);
	bad(f2.b, f2.n, "Image message is malformed");
}

static void test_limits(void **state)
{
	(void)state;
	/* More names than kept: the first CRI_MAX_NAMES, no failure. */
	static struct msg img, resp;
	memset(&img, 0, sizeof(img));
	memset(&resp, 0, sizeof(resp));
	field_str(&img, 1, "sha256:1");
	for (int i = 0; i < 300; i++)
		field_str(&img, 2, "a:1");
	field_bytes(&resp, 1, img.b, img.n);
	struct msg f = frame(&resp);
	struct cri_image out;
	char err[256] = "";
	assert_int_equal(cri_image_decode(f.b, f.n, &out, err, sizeof(err)), 1);
	assert_int_equal(out.repo_tags.n, CRI_MAX_NAMES);
	cri_image_clear(&out);
	/* Fixed-size fields (wire types 1 and 5) are skipped, also when cut short. */
	static const uint8_t fixed[] = {0, 0, 0, 0, 14,	  0x19, 1, 2, 3, 4,
					5, 6, 7, 8, 0x25, 1,	2, 3, 4};
	assert_int_equal(cri_image_decode(fixed, sizeof(fixed), &out, err, sizeof(err)), 0);
	static const uint8_t fixed_cut[] = {0, 0, 0, 0, 4, 0x19, 1, 2, 3};
	bad(fixed_cut, sizeof(fixed_cut), "malformed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_present),
	    cmocka_unit_test(test_absent),
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
