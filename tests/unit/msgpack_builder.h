/*
 * Building msgpack messages by hand in the wire tests (test_wire.c,
 * test_wire_known.c): msgpack-c's packer into a growing buffer, so that a test
 * can write what the encoder never would (cut, patched, odd formats).
 */
#pragma once
#include <msgpack.h>
#include <string.h>

struct mb {
	msgpack_sbuffer sb;
	msgpack_packer pk;
};

static inline void mb_init(struct mb *m)
{
	msgpack_sbuffer_init(&m->sb);
	msgpack_packer_init(&m->pk, &m->sb, msgpack_sbuffer_write);
}

static inline void mb_free(struct mb *m)
{
	msgpack_sbuffer_destroy(&m->sb);
}

static inline void pk_sn(struct mb *m, const char *s, size_t n)
{
	msgpack_pack_str(&m->pk, n);
	msgpack_pack_str_body(&m->pk, s, n);
}

static inline void pk_s(struct mb *m, const char *s)
{
	pk_sn(m, s, strlen(s));
}
