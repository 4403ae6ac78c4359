/*
 * hvready's NFSv4.1 client (agent/nfs41.c):
 *   - every call it builds, word for word against RFC 5531 / RFC 8881
 *     layouts written out here by hand (golden bytes);
 *   - the reply decoder on real NFS-Ganesha replies (fuzz/corpus/nfs41_reply,
 *     captured by fuzz/capture_nfs41_corpus.sh), every truncation of them,
 *     byte flips, and hand-made malformed replies;
 *   - record marking: fragments, the size limit;
 *   - the client against a scripted server on loopback: the whole mount and
 *     canary sequence replayed from ganesha's replies, version negotiation,
 *     NFS4ERR_GRACE retries, RPC rejections, wrong xids, oversized records,
 *     a server that goes silent mid-reply, and one that hangs up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "nfs41.h"
#include "nfs_probe.h"
#include "util.h"
#include "test_src.h"

#define STAMP 0x11223344u
#define CID   UINT64_C(0x0102030405060708)

/* ---------------------------------------------------------------- golden bytes */

/* RPC call header + COMPOUND header: AUTH_SYS uid 0 gid 0 "hvready-probe", empty tag. */
#define HDR(xid, minor, nops)                                                                      \
	(xid), 0, 2, 100003, 4, 1, 1, 36, STAMP, 13, 0x68767265, 0x6164792d, 0x70726f62,           \
	    0x65000000, 0, 0, 0, 0, 0, 0, (minor), (nops)
#define SESSIONID  0x10111213, 0x14151617, 0x18191a1b, 0x1c1d1e1f
#define SEQ(seqid) 53, SESSIONID, (seqid), 0, 0, 0
#define FH	   22, 8, 0x01020304, 0x05060708
#define STATEID	   1, 0xa0a1a2a3, 0xa4a5a6a7, 0xa8a9aaab

static const struct nfs41_fh test_fh = {.len = 8, .data = {1, 2, 3, 4, 5, 6, 7, 8}};
static const struct nfs41_stateid test_st = {
    .seqid = 1, .other = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab}};

static struct nfs41_seqargs test_seq(uint32_t seqid)
{
	struct nfs41_seqargs s = {.seqid = seqid};
	for (int i = 0; i < NFS41_SESSIONID_SIZE; i++)
		s.sessionid[i] = (uint8_t)(0x10 + i);
	return s;
}

static struct nfs41_callhdr test_hdr(uint32_t xid)
{
	return (struct nfs41_callhdr){.xid = xid, .stamp = STAMP, .minor = 1};
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void expect_words(const struct nfs41_enc *e, const uint32_t *w, size_t n)
{
	assert_false(e->overflow);
	if (e->len != 4 + 4 * n)
		fail_msg("call is %zu bytes, expected %zu", e->len, 4 + 4 * n);
	assert_int_equal(be32(e->buf), 0x80000000u | (uint32_t)(4 * n));
	for (size_t i = 0; i < n; i++)
		if (be32(e->buf + 4 + 4 * i) != w[i])
			fail_msg("word %zu is %08x, expected %08x", i, be32(e->buf + 4 + 4 * i),
				 w[i]);
}

static void expect_ops(const struct nfs41_enc *e, const uint32_t *ops, size_t n)
{
	assert_int_equal(e->nops, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(e->ops[i], ops[i]);
}

static void test_golden_session(void **state)
{
	static struct nfs41_enc e;
	const uint8_t verf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct nfs41_callhdr h = test_hdr(1);
	nfs41_enc_exchange_id(&e, &h, verf, "own");
	/* verifier, co_ownerid, flags MOVED_REFER|MOVED_MIGR|BIND_PRINC_STATEID,
	 * SP4_NONE, no implementation id */
	static const uint32_t eid[] = {HDR(1, 1, 1), 42,    0x01020304, 0x05060708, 3,
				       0x6f776e00,   0x103, 0,		0};
	expect_words(&e, eid, ELEMENTSOF(eid));
	assert_int_equal(e.xid_off, 4);
	assert_int_equal(e.seqid_off, 0);

	h = test_hdr(2);
	nfs41_enc_create_session(&e, &h, CID, 7);
	/* clientid, sequence, flags 0; fore: pad, maxreq, maxresp, cached, ops, reqs, no
	 * RDMA; back likewise; callback program; one AUTH_NONE security parameter */
	static const uint32_t cs[] = {
	    HDR(2, 1, 1), 43, 0x01020304, 0x05060708, 7,    0,	  0, 8192, 20480, 0,
	    40,		  1,  0,	  0,	      4096, 4096, 0, 2,	   1,	  0,
	    0x40000000,	  1,  0};
	expect_words(&e, cs, ELEMENTSOF(cs));

	struct nfs41_seqargs s = test_seq(1);
	h = test_hdr(3);
	nfs41_enc_reclaim_complete(&e, &h, &s);
	static const uint32_t rc[] = {HDR(3, 1, 2), SEQ(1), 58, 0};
	expect_words(&e, rc, ELEMENTSOF(rc));
	/* The sequence id sits right after the session id, for re-stamping. */
	assert_int_equal(e.seqid_off, 4 + 4 * (22 + 5));
	static const uint32_t rc_ops[] = {NFS41_OP_SEQUENCE, NFS41_OP_RECLAIM_COMPLETE};
	expect_ops(&e, rc_ops, ELEMENTSOF(rc_ops));

	h = test_hdr(10);
	nfs41_enc_destroy_session(&e, &h, s.sessionid);
	static const uint32_t ds[] = {HDR(10, 1, 1), 44, SESSIONID};
	expect_words(&e, ds, ELEMENTSOF(ds));

	h = test_hdr(11);
	nfs41_enc_destroy_clientid(&e, &h, CID);
	static const uint32_t dc[] = {HDR(11, 1, 1), 57, 0x01020304, 0x05060708};
	expect_words(&e, dc, ELEMENTSOF(dc));
}

static void test_golden_lookup(void **state)
{
	static struct nfs41_enc e;
	struct nfs41_seqargs s = test_seq(2);
	struct nfs41_callhdr h = test_hdr(4);
	const char *comps[] = {"pvc-test", "sub"};
	nfs41_enc_lookup(&e, &h, &s, comps, 2);
	/* PUTROOTFH, LOOKUP "pvc-test", LOOKUP "sub", GETFH, GETATTR of type, size,
	 * fileid | mode, owner, owner_group */
	static const uint32_t w[] = {HDR(4, 1, 6), SEQ(2),     24, 15,	       8,
				     0x7076632d,   0x74657374, 15, 3,	       0x73756200,
				     10,	   9,	       2,  0x00100012, 0x00000032};
	expect_words(&e, w, ELEMENTSOF(w));
	static const uint32_t ops[] = {NFS41_OP_SEQUENCE, NFS41_OP_PUTROOTFH, NFS41_OP_LOOKUP,
				       NFS41_OP_LOOKUP,	  NFS41_OP_GETFH,     NFS41_OP_GETATTR};
	expect_ops(&e, ops, ELEMENTSOF(ops));

	/* The export root itself: no LOOKUP. */
	nfs41_enc_lookup(&e, &h, &s, comps, 0);
	static const uint32_t root[] = {HDR(4, 1, 4), SEQ(2), 24, 10, 9, 2, 0x00100012, 0x00000032};
	expect_words(&e, root, ELEMENTSOF(root));
}

static void test_golden_canary(void **state)
{
	static struct nfs41_enc e;
	struct nfs41_seqargs s = test_seq(3);
	struct nfs41_callhdr h = test_hdr(5);
	nfs41_enc_open(&e, &h, &s, &test_fh, "f.txt", true, 0600, CID, "o");
	/* OPEN seqid 0, WRITE|WANT_NO_DELEG, deny none, owner {clientid, "o"},
	 * OPEN4_CREATE GUARDED4 {mode 0600}, CLAIM_NULL "f.txt"; GETFH */
	static const uint32_t oc[] = {
	    HDR(5, 1, 4), SEQ(3),     FH, 18, 0, 0x402, 0, 0x01020304, 0x05060708, 1,
	    0x6f000000,	  1,	      1,  2,  0, 2,	4, 0600,       0,	   5,
	    0x662e7478,	  0x74000000, 10};
	expect_words(&e, oc, ELEMENTSOF(oc));

	nfs41_enc_open(&e, &h, &s, &test_fh, "f.txt", false, 0, CID, "o");
	static const uint32_t orr[] = {HDR(5, 1, 4), SEQ(3),	 FH, 18,	 0, 0x401, 0,
				       0x01020304,   0x05060708, 1,  0x6f000000, 0, 0,	   5,
				       0x662e7478,   0x74000000, 10};
	expect_words(&e, orr, ELEMENTSOF(orr));

	h = test_hdr(6);
	s = test_seq(4);
	nfs41_enc_write_close(&e, &h, &s, &test_fh, &test_st, "hello", 5);
	/* WRITE stateid, offset 0, FILE_SYNC4, "hello"; CLOSE seqid 0, stateid */
	static const uint32_t wc[] = {HDR(6, 1, 4), SEQ(4),	FH, 38, STATEID, 0, 0, 2, 5,
				      0x68656c6c,   0x6f000000, 4,  0,	STATEID};
	expect_words(&e, wc, ELEMENTSOF(wc));

	h = test_hdr(7);
	s = test_seq(5);
	nfs41_enc_read_close(&e, &h, &s, &test_fh, &test_st, 160);
	static const uint32_t rc[] = {HDR(7, 1, 4), SEQ(5), FH, 25,	STATEID, 0, 0,
				      160,	    4,	    0,	STATEID};
	expect_words(&e, rc, ELEMENTSOF(rc));

	h = test_hdr(8);
	s = test_seq(6);
	nfs41_enc_close(&e, &h, &s, &test_fh, &test_st);
	static const uint32_t cl[] = {HDR(8, 1, 3), SEQ(6), FH, 4, 0, STATEID};
	expect_words(&e, cl, ELEMENTSOF(cl));

	h = test_hdr(9);
	s = test_seq(7);
	nfs41_enc_remove(&e, &h, &s, &test_fh, "f.txt");
	static const uint32_t rm[] = {HDR(9, 1, 3), SEQ(7), FH, 28, 5, 0x662e7478, 0x74000000};
	expect_words(&e, rm, ELEMENTSOF(rm));
}

static void test_encoder_limits(void **state)
{
	static struct nfs41_enc e;
	struct nfs41_seqargs s = test_seq(1);
	struct nfs41_callhdr h = test_hdr(1);
	/* More operations than a COMPOUND may hold. */
	const char *comps[NFS41_MAX_OPS];
	for (size_t i = 0; i < ELEMENTSOF(comps); i++)
		comps[i] = "x";
	nfs41_enc_lookup(&e, &h, &s, comps, ELEMENTSOF(comps));
	assert_true(e.overflow);
	/* More bytes than the call buffer. */
	static char big[NFS41_CALL_MAX];
	memset(big, 'a', sizeof(big) - 1);
	nfs41_enc_remove(&e, &h, &s, &test_fh, big);
	assert_true(e.overflow);
	/* A good call after an overflow starts afresh. */
	nfs41_enc_remove(&e, &h, &s, &test_fh, "f");
	assert_false(e.overflow);
}

/* ---------------------------------------------------------------- corpus */

struct file {
	char name[256];
	uint8_t *data;
	size_t len;
};

static size_t load_corpus(struct file *files, size_t max, const char *prefix)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/fuzz/corpus/nfs41_reply", test_src());
	DIR *d = opendir(dir);
	if (!d)
		fail_msg("cannot open %s", dir);
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max) {
		if (!startswith(de->d_name, prefix))
			continue;
		char path[4400];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		char *buf;
		size_t len;
		assert_int_equal(util_read_file(path, 1 << 20, &buf, &len), 0);
		snprintf(files[n].name, sizeof(files[n].name), "%s", de->d_name);
		files[n].data = (uint8_t *)buf;
		files[n].len = len;
		n++;
	}
	closedir(d);
	return n;
}

static void free_corpus(struct file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i].data);
}

static const struct file *find_file(const struct file *files, size_t n, const char *part)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(files[i].name, part))
			return &files[i];
	fail_msg("no corpus file matching %s", part);
	return NULL;
}

/* The record of a one-record stream (marks removed), into buf. */
static size_t unmark(const struct file *f, uint8_t *buf, size_t cap)
{
	struct nfs41_rec rec = {0};
	size_t off = 0;
	int r = 0;
	while (off < f->len && r == 0) {
		size_t n = nfs41_rec_want(&rec);
		if (n > f->len - off)
			n = f->len - off;
		r = nfs41_rec_feed(&rec, f->data + off, n);
		off += n;
	}
	if (r != 1 || off != f->len || rec.len > cap)
		fail_msg("%s is not one complete record", f->name);
	memcpy(buf, rec.buf, rec.len);
	size_t len = rec.len;
	nfs41_rec_free(&rec);
	return len;
}

static void test_corpus_decodes(void **state)
{
	static struct file files[128];
	size_t n = load_corpus(files, ELEMENTSOF(files), "ganesha-");
	assert_true(n >= 30);
	static struct nfs41_reply r;
	static uint8_t buf[8192];
	char err[256];
	for (size_t i = 0; i < n; i++) {
		size_t len = unmark(&files[i], buf, sizeof(buf));
		if (nfs41_reply_parse(buf, len, &r, err, sizeof(err)) != 0)
			fail_msg("%s: %s", files[i].name, err);
		assert_int_equal(r.rpc, NFS41_RPC_SUCCESS);
		/* Every shorter prefix is refused, with a one-line reason. */
		for (size_t cut = 0; cut < len; cut++) {
			err[0] = '\0';
			if (nfs41_reply_parse(buf, cut, &r, err, sizeof(err)) != -EBADMSG)
				fail_msg("%s cut at %zu decoded", files[i].name, cut);
			assert_true(err[0] && !strchr(err, '\n'));
		}
		/* Flipped bytes: decoded or refused, never a crash (ASan watches). */
		for (size_t at = 0; at < len; at++) {
			buf[at] ^= 0xff;
			(void)nfs41_reply_parse(buf, len, &r, err, sizeof(err));
			buf[at] ^= 0xff;
		}
	}

	/* What the decoder read from ganesha configured like Longhorn's share-manager. */
	{
		size_t len = unmark(find_file(files, n, "ganesha-l-004-"), buf, sizeof(buf));
		assert_int_equal(nfs41_reply_parse(buf, len, &r, err, sizeof(err)), 0);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(r.nres, 5); /* SEQUENCE PUTROOTFH LOOKUP GETFH GETATTR */
		assert_int_equal(r.res[4].op, NFS41_OP_GETATTR);
		const struct nfs41_attrs *a = &r.res[4].u.getattr;
		assert_int_equal(a->type, 2); /* NF4DIR */
		assert_int_equal(a->mode, 0755);
		assert_true(a->present & NFS41_ATTR_OWNER);
		assert_int_equal(a->owner.len, 1); /* Only_Numeric_Owners: "0" */
		assert_memory_equal(a->owner.p, "0", 1);
		assert_true(r.res[3].u.getfh.len > 0);

		len = unmark(find_file(files, n, "ganesha-l-021-"), buf, sizeof(buf));
		assert_int_equal(nfs41_reply_parse(buf, len, &r, err, sizeof(err)), 0);
		assert_int_equal(r.status, NFS4ERR_NOENT);
		assert_int_equal(r.nres, 3);
		assert_int_equal(r.res[2].op, NFS41_OP_LOOKUP);

		len = unmark(find_file(files, n, "ganesha-d-001-"), buf, sizeof(buf));
		assert_int_equal(nfs41_reply_parse(buf, len, &r, err, sizeof(err)), 0);
		assert_int_equal(r.status, NFS4ERR_MINOR_VERS_MISMATCH);
		assert_int_equal(r.nres, 0);

		len = unmark(find_file(files, n, "ganesha-a-005-"), buf, sizeof(buf));
		assert_int_equal(nfs41_reply_parse(buf, len, &r, err, sizeof(err)), 0);
		assert_int_equal(r.status, NFS4ERR_ROFS);
		assert_int_equal(r.res[r.nres - 1].op, NFS41_OP_OPEN);
	}
	free_corpus(files, n);
}

/* ---------------------------------------------------------------- malformed replies */

struct wbuf {
	uint8_t b[4096];
	size_t n;
};

static void w32(struct wbuf *w, uint32_t v)
{
	assert_true(w->n + 4 <= sizeof(w->b));
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static void wbytes(struct wbuf *w, const void *p, size_t n)
{
	assert_true(w->n + n + 3 <= sizeof(w->b));
	memcpy(w->b + w->n, p, n);
	w->n += n;
	while (w->n % 4)
		w->b[w->n++] = 0;
}

/* An accepted, successful RPC reply header, without record mark. */
static void reply_head(struct wbuf *w, uint32_t xid)
{
	w->n = 0;
	w32(w, xid);
	w32(w, 1);
	w32(w, 0);
	w32(w, 0);
	w32(w, 0);
	w32(w, 0);
}

/* A COMPOUND reply: status, an empty tag, and the count of results that follow. */
static void compound_head(struct wbuf *w, uint32_t xid, uint32_t status, uint32_t nres)
{
	reply_head(w, xid);
	w32(w, status);
	w32(w, 0);
	w32(w, nres);
}

/* A successful COMPOUND reply with one result: op's, NFS4_OK, then its body. */
static void one_result(struct wbuf *w, uint32_t xid, uint32_t op)
{
	compound_head(w, xid, 0, 1);
	w32(w, op);
	w32(w, 0);
}

static int parse(const struct wbuf *w, struct nfs41_reply *r, char *err, size_t errlen)
{
	err[0] = '\0';
	return nfs41_reply_parse(w->b, w->n, r, err, errlen);
}

static void expect_bad(const struct wbuf *w, const char *reason)
{
	static struct nfs41_reply r;
	char err[256];
	if (parse(w, &r, err, sizeof(err)) != -EBADMSG)
		fail_msg("decoded, expected \"%s\"", reason);
	if (!strstr(err, reason))
		fail_msg("\"%s\" does not say \"%s\"", err, reason);
}

static void test_malformed(void **state)
{
	struct wbuf w;
	static struct nfs41_reply r;
	char err[256];

	/* A call, not a reply. */
	w.n = 0;
	w32(&w, 7);
	w32(&w, 0);
	expect_bad(&w, "not a reply");

	/* The COMPOUND status must be the last operation's. */
	compound_head(&w, 7, NFS4ERR_NOENT, 1);
	w32(&w, NFS41_OP_PUTROOTFH);
	w32(&w, 0);
	expect_bad(&w, "differs from the last operation");

	/* Nothing may follow a failed operation. */
	compound_head(&w, 7, NFS4ERR_NOENT, 2);
	w32(&w, NFS41_OP_LOOKUP);
	w32(&w, NFS4ERR_NOENT);
	w32(&w, NFS41_OP_GETFH);
	w32(&w, NFS4ERR_NOENT);
	expect_bad(&w, "results after a failed operation");

	/* More results than a COMPOUND of ours can have. */
	compound_head(&w, 7, 0, NFS41_MAX_OPS + 1);
	expect_bad(&w, "result count");

	/* A file handle longer than NFS4_FHSIZE. */
	one_result(&w, 7, NFS41_OP_GETFH);
	w32(&w, NFS41_FH_MAX + 1);
	static const uint8_t zeros[NFS41_FH_MAX + 4];
	wbytes(&w, zeros, NFS41_FH_MAX + 1);
	expect_bad(&w, "GETFH file handle");

	/* A length that runs past the end of the record. */
	one_result(&w, 7, NFS41_OP_GETFH);
	w32(&w, 64);
	wbytes(&w, zeros, 8);
	expect_bad(&w, "GETFH file handle");

	/* The result of an operation we never send. */
	one_result(&w, 7, 26); /* READDIR */
	expect_bad(&w, "not sent");

	/* An attribute that was not asked for (fsid, bit 8). */
	one_result(&w, 7, NFS41_OP_GETATTR);
	w32(&w, 1);
	w32(&w, 1u << 8);
	w32(&w, 16);
	wbytes(&w, zeros, 16);
	expect_bad(&w, "not requested");

	/* Attribute values longer than their attributes. */
	one_result(&w, 7, NFS41_OP_GETATTR);
	w32(&w, 1);
	w32(&w, 1u << 1); /* type */
	w32(&w, 8);
	w32(&w, 2);
	w32(&w, 0);
	expect_bad(&w, "longer than their attributes");

	/* A mode with bits above 07777, a bool that is neither 0 nor 1. */
	one_result(&w, 7, NFS41_OP_GETATTR);
	w32(&w, 2);
	w32(&w, 0);
	w32(&w, 1u << 1); /* mode */
	w32(&w, 4);
	w32(&w, 0100755);
	expect_bad(&w, "mode above 07777");
	one_result(&w, 7, NFS41_OP_READ);
	w32(&w, 2);
	expect_bad(&w, "READ result");

	/* A READ of more than we ever ask for. */
	one_result(&w, 7, NFS41_OP_READ);
	w32(&w, 1);
	w32(&w, NFS41_IO_MAX + 4);
	expect_bad(&w, "READ data");

	/* EXCHANGE_ID with state protection we did not ask for. */
	one_result(&w, 7, NFS41_OP_EXCHANGE_ID);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 0);
	w32(&w, 1); /* SP4_MACH_CRED */
	expect_bad(&w, "SP4_NONE");

	/* A trailing word. */
	one_result(&w, 7, NFS41_OP_PUTROOTFH);
	w32(&w, 0);
	expect_bad(&w, "bytes after the end");

	/* An unknown reply status, accept status, reject status. */
	w.n = 0;
	w32(&w, 7);
	w32(&w, 1);
	w32(&w, 2);
	expect_bad(&w, "RPC reply status");
	reply_head(&w, 7);
	w.n -= 4;
	w32(&w, 9);
	expect_bad(&w, "accept status");
	w.n = 0;
	w32(&w, 7);
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 2);
	expect_bad(&w, "reject status");

	/* RPC rejections decode, and are named. */
	w.n = 0;
	w32(&w, 7);
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 5);
	assert_int_equal(parse(&w, &r, err, sizeof(err)), 0);
	assert_int_equal(r.rpc, NFS41_RPC_AUTH_ERROR);
	assert_string_equal(nfs41_rpc_status_name(&r), "AUTH_TOOWEAK");
	char desc[96];
	nfs41_rpc_describe(&r, desc, sizeof(desc));
	assert_string_equal(desc, "AUTH_ERROR (AUTH_TOOWEAK, auth_stat 5)");
	reply_head(&w, 7);
	w.n -= 4;
	w32(&w, 2);
	w32(&w, 2);
	w32(&w, 3);
	assert_int_equal(parse(&w, &r, err, sizeof(err)), 0);
	assert_int_equal(r.rpc, NFS41_RPC_PROG_MISMATCH);
	nfs41_rpc_describe(&r, desc, sizeof(desc));
	assert_string_equal(desc, "PROG_MISMATCH (NFS versions 2 to 3, not 4)");
}

static void test_match(void **state)
{
	static struct nfs41_enc e;
	static struct nfs41_reply r;
	char err[160];
	struct nfs41_seqargs s = test_seq(1);
	struct nfs41_callhdr h = test_hdr(0x42);
	nfs41_enc_reclaim_complete(&e, &h, &s);

	r = (struct nfs41_reply){.xid = 0x43, .rpc = NFS41_RPC_SUCCESS};
	assert_int_equal(nfs41_reply_match(&e, &r, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "reply to call 00000043 while waiting for 00000042");

	r.xid = 0x42;
	r.nres = 2;
	r.res[0].op = NFS41_OP_SEQUENCE;
	r.res[1].op = NFS41_OP_PUTROOTFH;
	assert_int_equal(nfs41_reply_match(&e, &r, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "result 2 is for PUTROOTFH, not RECLAIM_COMPLETE");

	/* Success must answer every operation. */
	r.nres = 1;
	assert_int_equal(nfs41_reply_match(&e, &r, err, sizeof(err)), -EBADMSG);
	/* A failure may stop early, and an unknown operation is OP_ILLEGAL. */
	r.status = NFS4ERR_OP_ILLEGAL;
	r.nres = 2;
	r.res[1].op = NFS41_OP_ILLEGAL;
	r.res[1].status = NFS4ERR_OP_ILLEGAL;
	assert_int_equal(nfs41_reply_match(&e, &r, err, sizeof(err)), 0);

	assert_string_equal(nfs41_status_name(NFS4ERR_MINOR_VERS_MISMATCH),
			    "NFS4ERR_MINOR_VERS_MISMATCH");
	assert_string_equal(nfs41_status_name(NFS4ERR_WRONGSEC), "NFS4ERR_WRONGSEC");
	assert_string_equal(nfs41_status_name(10087), "NFS4ERR_DELEG_REVOKED");
	assert_null(nfs41_status_name(10073));
	assert_null(nfs41_op_name(26));
}

/* ---------------------------------------------------------------- record marking */

static void test_record_marking(void **state)
{
	struct nfs41_rec rec = {0};
	/* Two fragments and an empty one, fed a byte at a time. */
	static const uint8_t stream[] = {0x00, 0x00, 0x00, 0x03, 'a',  'b',  'c', 0x00, 0x00,
					 0x00, 0x00, 0x80, 0x00, 0x00, 0x02, 'd', 'e'};
	int r = 0;
	for (size_t i = 0; i < sizeof(stream); i++) {
		assert_true(nfs41_rec_want(&rec) >= 1);
		assert_int_equal(r, 0);
		r = nfs41_rec_feed(&rec, stream + i, 1);
	}
	assert_int_equal(r, 1);
	assert_int_equal(nfs41_rec_want(&rec), 0);
	assert_int_equal(rec.len, 5);
	assert_memory_equal(rec.buf, "abcde", 5);

	/* want never reaches past the record: the next one stays in the socket. */
	nfs41_rec_reset(&rec);
	assert_int_equal(nfs41_rec_want(&rec), 4);
	assert_int_equal(nfs41_rec_feed(&rec, stream, 4), 0);
	assert_int_equal(nfs41_rec_want(&rec), 3);

	/* A record over the limit is refused at its header, before any allocation. */
	nfs41_rec_reset(&rec);
	static const uint8_t big[] = {0x80, 0x10, 0x00, 0x01};
	assert_int_equal(nfs41_rec_feed(&rec, big, 4), -EMSGSIZE);
	/* So are fragments that add up past it. */
	nfs41_rec_reset(&rec);
	static const uint8_t half[] = {0x00, 0x08, 0x00, 0x00};
	static uint8_t zeros[1 << 19];
	assert_int_equal(nfs41_rec_feed(&rec, half, 4), 0);
	assert_int_equal(nfs41_rec_feed(&rec, zeros, sizeof(zeros)), 0);
	assert_int_equal(nfs41_rec_feed(&rec, half, 4), 0);
	assert_int_equal(nfs41_rec_feed(&rec, zeros, sizeof(zeros)), 0);
	assert_int_equal(nfs41_rec_feed(&rec, stream + 11, 4), -EMSGSIZE);
	nfs41_rec_free(&rec);
}

/* ---------------------------------------------------------------- a scripted server */

/* Offsets in our calls (without record mark), fixed by the golden layouts above. */
#define CALL_SEQ_SESSION 92
#define CALL_SEQ_SEQID	 108

struct server {
	int listen_fd;
	uint16_t port;
	pthread_t thread;
	void (*script)(struct server *s, int fd);
	struct file *files;
	size_t nfiles;
	uint32_t seqids[16]; /* the SEQUENCE ids of the calls, as received */
	size_t ncalls;
	bool failed;
	char why[160];
};

static void server_fail(struct server *s, const char *why)
{
	if (!s->failed)
		snprintf(s->why, sizeof(s->why), "%s", why);
	s->failed = true;
}

/* One call, record marks removed. Returns its length, 0 at EOF. */
static size_t read_call(struct server *s, int fd, uint8_t *buf, size_t cap)
{
	size_t len = 0;
	for (;;) {
		uint8_t hdr[4];
		if (recv(fd, hdr, 4, MSG_WAITALL) != 4)
			return 0;
		uint32_t h = be32(hdr), n = h & 0x7fffffff;
		if (len + n > cap) {
			server_fail(s, "call too large");
			return 0;
		}
		if (n && recv(fd, buf + len, n, MSG_WAITALL) != (ssize_t)n)
			return 0;
		len += n;
		if (h & 0x80000000)
			break;
	}
	if (len >= CALL_SEQ_SEQID + 4 && s->ncalls < ELEMENTSOF(s->seqids))
		s->seqids[s->ncalls] = be32(buf + CALL_SEQ_SEQID);
	s->ncalls++;
	return len;
}

static void send_marked(int fd, const uint8_t *p, size_t n)
{
	uint8_t hdr[4] = {0x80, (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
	(void)!send(fd, hdr, 4, MSG_NOSIGNAL);
	(void)!send(fd, p, n, MSG_NOSIGNAL);
}

/* Answer call with a captured reply whose xid is patched to the call's. */
static void answer_with(struct server *s, int fd, const uint8_t *call, const char *part)
{
	const struct file *f = find_file(s->files, s->nfiles, part);
	uint8_t *copy = xmalloc(f->len);
	memcpy(copy, f->data, f->len);
	memcpy(copy + 4, call, 4);
	(void)!send(fd, copy, f->len, MSG_NOSIGNAL);
	free(copy);
}

/* SEQUENCE's result echoing the call's session and sequence id. */
static void w_sequence(struct wbuf *w, const uint8_t *call)
{
	w32(w, NFS41_OP_SEQUENCE);
	w32(w, 0);
	wbytes(w, call + CALL_SEQ_SESSION, NFS41_SESSIONID_SIZE);
	w32(w, be32(call + CALL_SEQ_SEQID));
	w32(w, 0);
	w32(w, 0);
	w32(w, 0);
	w32(w, 0);
}

static void *server_main(void *arg)
{
	struct server *s = arg;
	int fd = accept(s->listen_fd, NULL, NULL);
	if (fd < 0) {
		server_fail(s, "accept");
		return NULL;
	}
	struct timeval tv = {.tv_sec = 5};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	s->script(s, fd);
	close(fd);
	return NULL;
}

static void server_start(struct server *s, void (*script)(struct server *, int), struct file *files,
			 size_t nfiles)
{
	memset(s, 0, sizeof(*s));
	s->script = script;
	s->files = files;
	s->nfiles = nfiles;
	s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	assert_int_equal(bind(s->listen_fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s->listen_fd, 4), 0);
	assert_int_equal(getsockname(s->listen_fd, (struct sockaddr *)&a, &al), 0);
	s->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&s->thread, NULL, server_main, s), 0);
}

static void server_join(struct server *s)
{
	pthread_join(s->thread, NULL);
	close(s->listen_fd);
	if (s->failed)
		fail_msg("scripted server: %s", s->why);
}

static int connect_to(const struct server *s)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons(s->port)};
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/* ganesha's replies to a whole probe of the Longhorn-like server, in order. */
static void script_replay(struct server *s, int fd)
{
	static const char *const order[] = {
	    "ganesha-l-001-", "ganesha-l-002-", "ganesha-l-003-", "ganesha-l-004-",
	    "ganesha-l-005-", "ganesha-l-006-", "ganesha-l-007-", "ganesha-l-008-",
	    "ganesha-l-009-", "ganesha-l-010-", "ganesha-l-011-",
	};
	uint8_t call[NFS41_CALL_MAX];
	for (size_t i = 0; i < ELEMENTSOF(order); i++) {
		if (read_call(s, fd, call, sizeof(call)) == 0) {
			server_fail(s, "the client stopped early");
			return;
		}
		answer_with(s, fd, call, order[i]);
	}
}

static void test_client_replay(void **state)
{
	static struct file files[128];
	size_t n = load_corpus(files, ELEMENTSOF(files), "ganesha-l-");
	struct server srv;
	server_start(&srv, script_replay, files, n);
	struct nfs41_client *c = xmalloc(sizeof(*c));
	nfs41_client_init(c, connect_to(&srv), util_now_mono_ns() + 5 * NSEC_PER_SEC);
	assert_true(startswith(c->owner, "hvready-probe/"));

	assert_int_equal(nfs41_exchange_id(c, 1), 0);
	assert_int_equal(nfs41_create_session(c), 0);
	assert_true(c->have_session);
	assert_int_equal(c->slot_seqid, 1); /* RECLAIM_COMPLETE went through slot 0 */
	struct nfs41_fh root;
	struct nfs41_attrs a;
	assert_int_equal(nfs41_lookup(c, "/pvc-test", &root, &a), 0);
	assert_int_equal(a.type, 2);
	assert_int_equal(a.mode, 0755);
	assert_true(root.len > 0);

	/* The canary's calls, answered as ganesha answered them. */
	struct nfs41_open o, o2;
	assert_int_equal(nfs41_open(c, &root, ".hvready-canary-x", true, 0600, &o), 0);
	assert_true(o.fh.len > 0);
	/* ganesha acknowledged the canary's own length: write at least as much. */
	static const char data[200] = "hvready canary";
	uint32_t written = 0;
	assert_int_equal(nfs41_write_close(c, &o, data, sizeof(data), &written), 0);
	assert_true(written > 14 && written < sizeof(data));
	assert_int_equal(nfs41_open(c, &root, ".hvready-canary-x", false, 0, &o2), 0);
	uint8_t buf[160];
	uint32_t got = 0;
	assert_int_equal(nfs41_read_close(c, &o2, buf, sizeof(buf), &got), 0);
	assert_true(got > 0 && got <= sizeof(buf));
	assert_memory_equal(buf, "hvready canary ", 15);
	assert_int_equal(nfs41_remove(c, &root, ".hvready-canary-x"), 0);
	assert_int_equal(c->err.kind, NFS41_ERR_NONE);
	nfs41_client_fini(c);
	server_join(&srv);
	/* Sequence ids 1, 2, ... on slot 0 for every SEQUENCE'd call (calls 3 to 9). */
	for (uint32_t i = 2; i < 9; i++)
		assert_int_equal(srv.seqids[i], i - 1);
	assert_int_equal(srv.ncalls, 11); /* with DESTROY_SESSION, DESTROY_CLIENTID */
	free(c);
	free_corpus(files, n);
}

/* NFSv4.1 refused, then NFSv4.2 accepted on the same connection. */
static void script_minor(struct server *s, int fd)
{
	uint8_t call[NFS41_CALL_MAX];
	if (!read_call(s, fd, call, sizeof(call)))
		return;
	if (be32(call + 80) != 1)
		server_fail(s, "first EXCHANGE_ID not for minor version 1");
	answer_with(s, fd, call, "ganesha-e-001-");
	if (!read_call(s, fd, call, sizeof(call)))
		return;
	if (be32(call + 80) != 2)
		server_fail(s, "second EXCHANGE_ID not for minor version 2");
	answer_with(s, fd, call, "ganesha-e-002-");
	while (read_call(s, fd, call, sizeof(call)))
		;
}

static void test_client_minor(void **state)
{
	static struct file files[128];
	size_t n = load_corpus(files, ELEMENTSOF(files), "ganesha-e-");
	struct server srv;
	server_start(&srv, script_minor, files, n);
	struct nfs41_client *c = xmalloc(sizeof(*c));
	nfs41_client_init(c, connect_to(&srv), util_now_mono_ns() + 5 * NSEC_PER_SEC);
	assert_int_equal(nfs41_exchange_id(c, 1), -EIO);
	assert_int_equal(c->err.kind, NFS41_ERR_NFS);
	assert_int_equal(c->err.status, NFS4ERR_MINOR_VERS_MISMATCH);
	assert_int_equal(c->err.op, NFS41_OP_EXCHANGE_ID);
	assert_string_equal(c->err.msg, "EXCHANGE_ID failed with NFS4ERR_MINOR_VERS_MISMATCH");
	assert_false(c->broken);
	assert_int_equal(nfs41_exchange_id(c, 2), 0);
	assert_true(c->have_clientid);
	/* Teardown: DESTROY_CLIENTID goes out, its answer never comes, and the deadline holds. */
	c->deadline = util_now_mono_ns() + 200 * NSEC_PER_MSEC;
	nfs41_client_fini(c);
	server_join(&srv);
	assert_int_equal(srv.ncalls, 3);
	free(c);
	free_corpus(files, n);
}

/* CREATE_SESSION from the capture, then OPEN answered NFS4ERR_GRACE twice, then NOENT. */
static void script_grace(struct server *s, int fd)
{
	uint8_t call[NFS41_CALL_MAX];
	if (!read_call(s, fd, call, sizeof(call)))
		return;
	answer_with(s, fd, call, "ganesha-l-001-");
	if (!read_call(s, fd, call, sizeof(call)))
		return;
	answer_with(s, fd, call, "ganesha-l-002-");
	for (int i = 0; i < 4; i++) {
		if (!read_call(s, fd, call, sizeof(call)))
			return;
		struct wbuf w;
		/* RECLAIM_COMPLETE: fine; OPEN: GRACE, GRACE, NOENT. */
		uint32_t st = i == 0 ? NFS4_OK : i < 3 ? NFS4ERR_GRACE : NFS4ERR_NOENT;
		compound_head(&w, be32(call), st, i == 0 ? 2 : 3);
		w_sequence(&w, call);
		if (i == 0) {
			w32(&w, NFS41_OP_RECLAIM_COMPLETE);
			w32(&w, 0);
		} else {
			w32(&w, NFS41_OP_PUTFH);
			w32(&w, 0);
			w32(&w, NFS41_OP_OPEN);
			w32(&w, st);
		}
		send_marked(fd, w.b, w.n);
	}
	while (read_call(s, fd, call, sizeof(call)))
		;
}

static void test_client_grace(void **state)
{
	static struct file files[128];
	size_t n = load_corpus(files, ELEMENTSOF(files), "ganesha-l-");
	struct server srv;
	server_start(&srv, script_grace, files, n);
	struct nfs41_client *c = xmalloc(sizeof(*c));
	nfs41_client_init(c, connect_to(&srv), util_now_mono_ns() + 5 * NSEC_PER_SEC);
	assert_int_equal(nfs41_exchange_id(c, 1), 0);
	assert_int_equal(nfs41_create_session(c), 0);
	struct nfs41_open o;
	int64_t t = util_now_mono_ns();
	assert_int_equal(nfs41_open(c, &test_fh, "f", true, 0600, &o), -EIO);
	/* Two pauses of 50 and 100 ms between the attempts. */
	assert_true(util_now_mono_ns() - t >= 150 * NSEC_PER_MSEC);
	assert_int_equal(c->err.status, NFS4ERR_NOENT);
	assert_string_equal(c->err.msg, "OPEN failed with NFS4ERR_NOENT");
	/* The server does not answer the teardown: do not wait long for it. */
	c->deadline = util_now_mono_ns() + 100 * NSEC_PER_MSEC;
	nfs41_client_fini(c);
	server_join(&srv);
	/* Each retry is a new request on the slot: sequence ids 2, 3, 4. */
	assert_int_equal(srv.seqids[3], 2);
	assert_int_equal(srv.seqids[4], 3);
	assert_int_equal(srv.seqids[5], 4);
	free(c);
	free_corpus(files, n);
}

enum misbehaviour { WRONG_XID, OVERSIZED, SILENT_MIDWAY, HANG_UP, AUTH_DENIED, GARBAGE };

struct misbehaving {
	struct server s;
	enum misbehaviour how;
};

static void script_misbehave(struct server *s, int fd)
{
	const struct misbehaving *m = (const struct misbehaving *)s;
	uint8_t call[NFS41_CALL_MAX];
	if (!read_call(s, fd, call, sizeof(call)))
		return;
	struct wbuf w;
	switch (m->how) {
	case WRONG_XID:
		/* well formed, but for another call */
		compound_head(&w, be32(call) + 1, NFS4ERR_MINOR_VERS_MISMATCH, 0);
		send_marked(fd, w.b, w.n);
		break;
	case OVERSIZED: {
		static const uint8_t hdr[] = {0x80, 0x20, 0x00, 0x00};
		(void)!send(fd, hdr, 4, MSG_NOSIGNAL);
		break;
	}
	case SILENT_MIDWAY: {
		static const uint8_t part[] = {0x80, 0x00, 0x00, 0x40, 0x00, 0x00};
		(void)!send(fd, part, sizeof(part), MSG_NOSIGNAL);
		/* then nothing, until the client gives up and closes */
		while (read_call(s, fd, call, sizeof(call)))
			;
		break;
	}
	case HANG_UP:
		break;
	case AUTH_DENIED:
		w.n = 0;
		w32(&w, be32(call));
		w32(&w, 1);
		w32(&w, 1);
		w32(&w, 1);
		w32(&w, 5);
		send_marked(fd, w.b, w.n);
		break;
	case GARBAGE:
		one_result(&w, be32(call), NFS41_OP_EXCHANGE_ID);
		w32(&w, 0); /* and the record ends inside the result */
		send_marked(fd, w.b, w.n);
		break;
	}
}

static const struct nfs41_client *misbehave(enum misbehaviour how, int64_t budget_ns)
{
	static struct misbehaving m;
	static struct nfs41_client c;
	m.how = how;
	server_start(&m.s, script_misbehave, NULL, 0);
	nfs41_client_init(&c, connect_to(&m.s), util_now_mono_ns() + budget_ns);
	int64_t t = util_now_mono_ns();
	assert_int_equal(nfs41_exchange_id(&c, 1), -EIO);
	/* Never past the deadline (slack for a loaded machine). */
	assert_true(util_now_mono_ns() - t < budget_ns + 250 * NSEC_PER_MSEC);
	nfs41_client_fini(&c);
	server_join(&m.s);
	assert_int_equal(c.fd, -1);
	return &c;
}

static void test_client_misbehaving(void **state)
{
	const struct nfs41_client *c = misbehave(WRONG_XID, NSEC_PER_SEC);
	assert_int_equal(c->err.kind, NFS41_ERR_PROTO);
	assert_true(strstr(c->err.msg, "EXCHANGE_ID: reply to call"));
	assert_true(c->broken);

	c = misbehave(OVERSIZED, NSEC_PER_SEC);
	assert_int_equal(c->err.kind, NFS41_ERR_PROTO);
	assert_string_equal(c->err.msg,
			    "the server's reply to EXCHANGE_ID is larger than 1048576 bytes");

	int64_t t = util_now_mono_ns();
	c = misbehave(SILENT_MIDWAY, 300 * NSEC_PER_MSEC);
	assert_true(util_now_mono_ns() - t >= 300 * NSEC_PER_MSEC);
	assert_int_equal(c->err.kind, NFS41_ERR_TIMEOUT);
	assert_string_equal(c->err.msg, "no reply to EXCHANGE_ID in time");

	c = misbehave(HANG_UP, NSEC_PER_SEC);
	if (c->err.kind != NFS41_ERR_EOF &&
	    !(c->err.kind == NFS41_ERR_SOCKET && c->err.sock_errno == ECONNRESET))
		fail_msg("hang-up reported as %d: %s", c->err.kind, c->err.msg);

	c = misbehave(AUTH_DENIED, NSEC_PER_SEC);
	assert_int_equal(c->err.kind, NFS41_ERR_RPC);
	assert_string_equal(c->err.rpc_status, "AUTH_TOOWEAK");
	assert_false(c->broken);

	c = misbehave(GARBAGE, NSEC_PER_SEC);
	assert_int_equal(c->err.kind, NFS41_ERR_PROTO);
	assert_true(strstr(c->err.msg, "malformed reply: EXCHANGE_ID result"));
}

/* The probe maps the client's failures: an undecodable reply is UNKNOWN material. */
static void test_probe_bad_reply(void **state)
{
	static struct misbehaving m;
	m.how = GARBAGE;
	server_start(&m.s, script_misbehave, NULL, 0);
	char url[64], err[128];
	struct nfs_probe_url u;
	snprintf(url, sizeof(url), "nfs://127.0.0.1:%u/pvc-a", m.s.port);
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)url, strlen(url), &u, err, sizeof(err)), 0);
	struct nfs_probe_result r;
	nfs_probe_run(&u, util_now_mono_ns() + 2 * NSEC_PER_SEC, false, &r);
	server_join(&m.s);
	assert_int_equal(r.outcome, NFS_PROBE_BAD_REPLY);
	assert_int_equal(r.step, NFS_STEP_MOUNT);
	assert_int_equal(r.client, NFS_CLIENT_HVREADY41);
	assert_int_equal(r.minors_tried, 1u << 1);
	assert_true(strstr(r.nfs_error, "malformed reply"));

	m.how = AUTH_DENIED;
	server_start(&m.s, script_misbehave, NULL, 0);
	snprintf(url, sizeof(url), "nfs://127.0.0.1:%u/pvc-a", m.s.port);
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)url, strlen(url), &u, err, sizeof(err)), 0);
	nfs_probe_run(&u, util_now_mono_ns() + 2 * NSEC_PER_SEC, false, &r);
	server_join(&m.s);
	assert_int_equal(r.outcome, NFS_PROBE_RPC_ERROR);
	assert_string_equal(r.rpc_status, "AUTH_TOOWEAK");
}

/* NFSv4.1 refused, a hang-up on 4.2, then the libnfs connection: read, and hung up on too. */
static void script_fallback(struct server *s, int fd)
{
	uint8_t call[NFS41_CALL_MAX];
	if (!read_call(s, fd, call, sizeof(call)))
		return;
	answer_with(s, fd, call, "ganesha-d-001-");
	if (!read_call(s, fd, call, sizeof(call)))
		return;
	shutdown(fd, SHUT_RDWR);
	int c = accept(s->listen_fd, NULL, NULL);
	if (c < 0) {
		server_fail(s, "libnfs did not connect");
		return;
	}
	struct timeval tv = {.tv_sec = 5};
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	uint8_t buf[4096];
	if (recv(c, buf, sizeof(buf), 0) <= 0)
		server_fail(s, "libnfs sent nothing");
	close(c);
}

static void test_probe_fallback(void **state)
{
	static struct file files[128];
	size_t n = load_corpus(files, ELEMENTSOF(files), "ganesha-d-");
	struct server srv;
	server_start(&srv, script_fallback, files, n);
	char url[64], err[128];
	struct nfs_probe_url u;
	snprintf(url, sizeof(url), "nfs://127.0.0.1:%u/pvc-a", srv.port);
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)url, strlen(url), &u, err, sizeof(err)), 0);
	struct nfs_probe_result r;
	nfs_probe_run(&u, util_now_mono_ns() + 3 * NSEC_PER_SEC, false, &r);
	server_join(&srv);
	assert_int_equal(r.client, NFS_CLIENT_LIBNFS40);
	assert_int_equal(r.minors_tried, 0x7);
	assert_int_equal(r.minors_refused, 1u << 1);
	assert_int_equal(r.step, NFS_STEP_MOUNT);
	assert_true(r.tcp_connected);
	if (r.outcome != NFS_PROBE_DISCONNECTED &&
	    !(r.outcome == NFS_PROBE_SOCKET_ERROR && r.sock_errno == ECONNRESET))
		fail_msg("outcome %s: %s", nfs_probe_outcome_name(r.outcome), r.nfs_error);
	free_corpus(files, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden_session),  cmocka_unit_test(test_golden_lookup),
	    cmocka_unit_test(test_golden_canary),   cmocka_unit_test(test_encoder_limits),
	    cmocka_unit_test(test_corpus_decodes),  cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_match),	    cmocka_unit_test(test_record_marking),
	    cmocka_unit_test(test_client_replay),   cmocka_unit_test(test_client_minor),
	    cmocka_unit_test(test_client_grace),    cmocka_unit_test(test_client_misbehaving),
	    cmocka_unit_test(test_probe_bad_reply), cmocka_unit_test(test_probe_fallback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
