/*
 * The NFSv4.1 client's reply path on arbitrary bytes: every byte comes from a
 * server we do not trust. The input is a byte stream as read from the socket
 * (record marks included): it goes through the record reassembler, each
 * complete record through the decoder and the check against the calls the
 * probe sends. The whole input is also decoded as one bare record. The corpus
 * (fuzz/corpus/nfs41_reply/) holds real NFS-Ganesha replies captured with
 * fuzz/capture_nfs41_corpus.sh, plus hand-made edge cases.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nfs41.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool within(const struct nfs41_bytes *b, const uint8_t *buf, size_t len)
{
	return b->len == 0 ||
	       (b->p >= buf && b->len <= len && b->p - buf <= (ptrdiff_t)(len - b->len));
}

/* What the decoder promises about a reply it accepted. */
static void check_reply(const struct nfs41_reply *r, const uint8_t *buf, size_t len)
{
	if (r->nres > NFS41_MAX_OPS)
		abort();
	if (r->rpc != NFS41_RPC_SUCCESS)
		return;
	for (size_t i = 0; i < r->nres; i++) {
		const struct nfs41_res *res = &r->res[i];
		if (res->status != NFS4_OK) {
			if (i != r->nres - 1 || r->status != res->status)
				abort();
			continue;
		}
		const struct nfs41_bytes *views[4] = {0};
		switch (res->op) {
		case NFS41_OP_GETFH:
			if (res->u.getfh.len > NFS41_FH_MAX)
				abort();
			views[0] = &res->u.getfh;
			break;
		case NFS41_OP_READ:
			if (res->u.read.data.len > NFS41_IO_MAX)
				abort();
			views[0] = &res->u.read.data;
			break;
		case NFS41_OP_GETATTR:
			views[0] = &res->u.getattr.owner;
			views[1] = &res->u.getattr.owner_group;
			if (res->u.getattr.mode > 07777)
				abort();
			break;
		case NFS41_OP_EXCHANGE_ID:
			views[0] = &res->u.exchange_id.major_id;
			views[1] = &res->u.exchange_id.scope;
			views[2] = &res->u.exchange_id.impl_domain;
			views[3] = &res->u.exchange_id.impl_name;
			break;
		}
		for (size_t v = 0; v < 4; v++)
			if (views[v] && !within(views[v], buf, len))
				abort();
	}
	if (r->nres > 0 && r->status != r->res[r->nres - 1].status)
		abort();
}

/* Every kind of call the probe sends, so that the match runs against each. */
static void match_all(const struct nfs41_reply *r)
{
	static struct nfs41_enc calls[4];
	static bool built;
	char err[256];
	if (!built) {
		const struct nfs41_callhdr h = {.xid = r->xid, .minor = 1};
		const struct nfs41_seqargs s = {.seqid = 1};
		const struct nfs41_fh fh = {.len = 8};
		const struct nfs41_stateid st = {0};
		const char *comps[] = {"pvc-test"};
		const uint8_t verf[NFS41_VERIFIER_SIZE] = {0};
		nfs41_enc_exchange_id(&calls[0], &h, verf, "owner");
		nfs41_enc_lookup(&calls[1], &h, &s, comps, 1);
		nfs41_enc_open(&calls[2], &h, &s, &fh, "f", true, 0600, 1, "o");
		nfs41_enc_read_close(&calls[3], &h, &s, &fh, &st, 100);
		built = true;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		/* Same xid as the reply, so that the operation check is reached. */
		calls[i].buf[calls[i].xid_off] = (uint8_t)(r->xid >> 24);
		calls[i].buf[calls[i].xid_off + 1] = (uint8_t)(r->xid >> 16);
		calls[i].buf[calls[i].xid_off + 2] = (uint8_t)(r->xid >> 8);
		calls[i].buf[calls[i].xid_off + 3] = (uint8_t)r->xid;
		err[0] = '\0';
		if (nfs41_reply_match(&calls[i], r, err, sizeof(err)) < 0 &&
		    (err[0] == '\0' || strchr(err, '\n')))
			abort();
	}
}

static void decode(const uint8_t *buf, size_t len)
{
	static struct nfs41_reply reply;
	char err[256];
	err[0] = '\0';
	if (nfs41_reply_parse(buf, len, &reply, err, sizeof(err)) == 0) {
		check_reply(&reply, buf, len);
		match_all(&reply);
	} else if (err[0] == '\0' || strchr(err, '\n')) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4 * 1024 * 1024)
		return 0;
	struct nfs41_rec rec = {0};
	size_t off = 0;
	while (off < size) {
		size_t want = nfs41_rec_want(&rec);
		size_t n = want < size - off ? want : size - off;
		int r = nfs41_rec_feed(&rec, data + off, n);
		off += n;
		if (r < 0)
			break;
		if (r == 1) {
			if (rec.len > NFS41_RECORD_MAX)
				abort();
			decode(rec.buf, rec.len);
			nfs41_rec_reset(&rec);
		}
	}
	nfs41_rec_free(&rec);
	decode(data, size);
	return 0;
}
