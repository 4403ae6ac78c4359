/*
 * The NFSv4.1 wire codec (RFC 8881, over ONC RPC on TCP, RFC 5531): the
 * encoders of the calls host.nfs.probe makes, each one whole record (record
 * mark, RPC header with AUTH_SYS, COMPOUND); the reply decoder, which treats
 * every byte from the server as hostile; record-marking reassembly; status
 * and operation names. No I/O: the client over a socket is agent/nfs41.c.
 *
 * XDR (RFC 4506) is written by hand here rather than with libtirpc's
 * xdrmem: what we need is a dozen fixed layouts of 32-bit words, 64-bit
 * words and counted opaques. The hand-written cursor below is ~80 lines,
 * checks every length against the bytes left and against a per-field limit
 * before it looks at the data, never allocates and never copies (opaques are
 * views into the record), and reports the first failure with the field it
 * was decoding. xdr_bytes() would allocate server-chosen sizes, xdr_opaque()
 * needs the length up front, and a bool-returning XDR stream says nothing
 * about where a reply went wrong; it would also add a dependency to the
 * agent for no less code.
 */
#include "nfs41.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

#define RPC_CALL	  0
#define RPC_REPLY	  1
#define RPC_VERSION	  2
#define NFS_PROGRAM	  100003
#define NFS_V4		  4
#define NFSPROC4_COMPOUND 1
#define AUTH_NONE	  0
#define AUTH_SYS	  1
#define MSG_ACCEPTED	  0
#define MSG_DENIED	  1
#define RPC_AUTH_BODY_MAX 400 /* RFC 5531: opaque body<400> */
#define RECORD_LAST	  0x80000000u

/* EXCHANGE_ID flags the Linux client sends when it does not use pNFS. */
#define EXCHGID4_FLAG_SUPP_MOVED_REFER	 0x00000001u
#define EXCHGID4_FLAG_SUPP_MOVED_MIGR	 0x00000002u
#define EXCHGID4_FLAG_BIND_PRINC_STATEID 0x00000100u
#define SP4_NONE			 0

#define NFS4_CALLBACK_PROGRAM		 0x40000000u
#define OPEN4_SHARE_ACCESS_READ		 1
#define OPEN4_SHARE_ACCESS_WRITE	 2
#define OPEN4_SHARE_ACCESS_WANT_NO_DELEG 0x0400
#define OPEN4_NOCREATE			 0
#define OPEN4_CREATE			 1
#define GUARDED4			 1
#define CLAIM_NULL			 0
#define OPEN_DELEGATE_NONE		 0
#define OPEN_DELEGATE_READ		 1
#define OPEN_DELEGATE_WRITE		 2
#define OPEN_DELEGATE_NONE_EXT		 3
#define WND4_CONTENTION			 7
#define WND4_RESOURCE			 8
#define NFS_LIMIT_SIZE			 1
#define NFS_LIMIT_BLOCKS		 2

/* GETATTR asks for type(1), size(4), fileid(20) | mode(33), owner(36), owner_group(37). */
#define FATTR4_TYPE	   1
#define FATTR4_SIZE	   4
#define FATTR4_FILEID	   20
#define FATTR4_MODE	   33
#define FATTR4_OWNER	   36
#define FATTR4_OWNER_GROUP 37
#define BIT(n)		   (1u << ((n) % 32))
static const uint32_t attr_request[2] = {
    BIT(FATTR4_TYPE) | BIT(FATTR4_SIZE) | BIT(FATTR4_FILEID),
    BIT(FATTR4_MODE) | BIT(FATTR4_OWNER) | BIT(FATTR4_OWNER_GROUP),
};
#define BITMAP_WORDS_MAX 8 /* longer attribute bitmaps are refused */

/* ---------------------------------------------------------------- names */

const char *nfs41_status_name(uint32_t s)
{
	static const struct {
		uint32_t code;
		const char *name;
	} t[] = {
	    {0, "NFS4_OK"},
	    {1, "NFS4ERR_PERM"},
	    {2, "NFS4ERR_NOENT"},
	    {5, "NFS4ERR_IO"},
	    {6, "NFS4ERR_NXIO"},
	    {13, "NFS4ERR_ACCESS"},
	    {17, "NFS4ERR_EXIST"},
	    {18, "NFS4ERR_XDEV"},
	    {20, "NFS4ERR_NOTDIR"},
	    {21, "NFS4ERR_ISDIR"},
	    {22, "NFS4ERR_INVAL"},
	    {27, "NFS4ERR_FBIG"},
	    {28, "NFS4ERR_NOSPC"},
	    {30, "NFS4ERR_ROFS"},
	    {31, "NFS4ERR_MLINK"},
	    {63, "NFS4ERR_NAMETOOLONG"},
	    {66, "NFS4ERR_NOTEMPTY"},
	    {69, "NFS4ERR_DQUOT"},
	    {70, "NFS4ERR_STALE"},
	    {10001, "NFS4ERR_BADHANDLE"},
	    {10003, "NFS4ERR_BAD_COOKIE"},
	    {10004, "NFS4ERR_NOTSUPP"},
	    {10005, "NFS4ERR_TOOSMALL"},
	    {10006, "NFS4ERR_SERVERFAULT"},
	    {10007, "NFS4ERR_BADTYPE"},
	    {10008, "NFS4ERR_DELAY"},
	    {10009, "NFS4ERR_SAME"},
	    {10010, "NFS4ERR_DENIED"},
	    {10011, "NFS4ERR_EXPIRED"},
	    {10012, "NFS4ERR_LOCKED"},
	    {10013, "NFS4ERR_GRACE"},
	    {10014, "NFS4ERR_FHEXPIRED"},
	    {10015, "NFS4ERR_SHARE_DENIED"},
	    {10016, "NFS4ERR_WRONGSEC"},
	    {10017, "NFS4ERR_CLID_INUSE"},
	    {10018, "NFS4ERR_RESOURCE"},
	    {10019, "NFS4ERR_MOVED"},
	    {10020, "NFS4ERR_NOFILEHANDLE"},
	    {10021, "NFS4ERR_MINOR_VERS_MISMATCH"},
	    {10022, "NFS4ERR_STALE_CLIENTID"},
	    {10023, "NFS4ERR_STALE_STATEID"},
	    {10024, "NFS4ERR_OLD_STATEID"},
	    {10025, "NFS4ERR_BAD_STATEID"},
	    {10026, "NFS4ERR_BAD_SEQID"},
	    {10027, "NFS4ERR_NOT_SAME"},
	    {10028, "NFS4ERR_LOCK_RANGE"},
	    {10029, "NFS4ERR_SYMLINK"},
	    {10030, "NFS4ERR_RESTOREFH"},
	    {10031, "NFS4ERR_LEASE_MOVED"},
	    {10032, "NFS4ERR_ATTRNOTSUPP"},
	    {10033, "NFS4ERR_NO_GRACE"},
	    {10034, "NFS4ERR_RECLAIM_BAD"},
	    {10035, "NFS4ERR_RECLAIM_CONFLICT"},
	    {10036, "NFS4ERR_BADXDR"},
	    {10037, "NFS4ERR_LOCKS_HELD"},
	    {10038, "NFS4ERR_OPENMODE"},
	    {10039, "NFS4ERR_BADOWNER"},
	    {10040, "NFS4ERR_BADCHAR"},
	    {10041, "NFS4ERR_BADNAME"},
	    {10042, "NFS4ERR_BAD_RANGE"},
	    {10043, "NFS4ERR_LOCK_NOTSUPP"},
	    {10044, "NFS4ERR_OP_ILLEGAL"},
	    {10045, "NFS4ERR_DEADLOCK"},
	    {10046, "NFS4ERR_FILE_OPEN"},
	    {10047, "NFS4ERR_ADMIN_REVOKED"},
	    {10048, "NFS4ERR_CB_PATH_DOWN"},
	    {10049, "NFS4ERR_BADIOMODE"},
	    {10050, "NFS4ERR_BADLAYOUT"},
	    {10051, "NFS4ERR_BAD_SESSION_DIGEST"},
	    {10052, "NFS4ERR_BADSESSION"},
	    {10053, "NFS4ERR_BADSLOT"},
	    {10054, "NFS4ERR_COMPLETE_ALREADY"},
	    {10055, "NFS4ERR_CONN_NOT_BOUND_TO_SESSION"},
	    {10056, "NFS4ERR_DELEG_ALREADY_WANTED"},
	    {10057, "NFS4ERR_BACK_CHAN_BUSY"},
	    {10058, "NFS4ERR_LAYOUTTRYLATER"},
	    {10059, "NFS4ERR_LAYOUTUNAVAILABLE"},
	    {10060, "NFS4ERR_NOMATCHING_LAYOUT"},
	    {10061, "NFS4ERR_RECALLCONFLICT"},
	    {10062, "NFS4ERR_UNKNOWN_LAYOUTTYPE"},
	    {10063, "NFS4ERR_SEQ_MISORDERED"},
	    {10064, "NFS4ERR_SEQUENCE_POS"},
	    {10065, "NFS4ERR_REQ_TOO_BIG"},
	    {10066, "NFS4ERR_REP_TOO_BIG"},
	    {10067, "NFS4ERR_REP_TOO_BIG_TO_CACHE"},
	    {10068, "NFS4ERR_RETRY_UNCACHED_REP"},
	    {10069, "NFS4ERR_UNSAFE_COMPOUND"},
	    {10070, "NFS4ERR_TOO_MANY_OPS"},
	    {10071, "NFS4ERR_OP_NOT_IN_SESSION"},
	    {10072, "NFS4ERR_HASH_ALG_UNSUPP"},
	    {10074, "NFS4ERR_CLIENTID_BUSY"},
	    {10075, "NFS4ERR_PNFS_IO_HOLE"},
	    {10076, "NFS4ERR_SEQ_FALSE_RETRY"},
	    {10077, "NFS4ERR_BAD_HIGH_SLOT"},
	    {10078, "NFS4ERR_DEADSESSION"},
	    {10079, "NFS4ERR_ENCR_ALG_UNSUPP"},
	    {10080, "NFS4ERR_PNFS_NO_LAYOUT"},
	    {10081, "NFS4ERR_NOT_ONLY_OP"},
	    {10082, "NFS4ERR_WRONG_CRED"},
	    {10083, "NFS4ERR_WRONG_TYPE"},
	    {10084, "NFS4ERR_DIRDELEG_UNAVAIL"},
	    {10085, "NFS4ERR_REJECT_DELEG"},
	    {10086, "NFS4ERR_RETURNCONFLICT"},
	    {10087, "NFS4ERR_DELEG_REVOKED"},
	    {10088, "NFS4ERR_PARTNER_NOTSUPP"},
	    {10089, "NFS4ERR_PARTNER_NO_AUTH"},
	    {10090, "NFS4ERR_UNION_NOTSUPP"},
	    {10091, "NFS4ERR_OFFLOAD_DENIED"},
	    {10092, "NFS4ERR_WRONG_LFS"},
	    {10093, "NFS4ERR_BADLABEL"},
	    {10094, "NFS4ERR_OFFLOAD_NO_REQS"},
	};
	for (size_t i = 0; i < ELEMENTSOF(t); i++)
		if (t[i].code == s)
			return t[i].name;
	return NULL;
}

const char *nfs41_op_name(uint32_t op)
{
	switch (op) {
	case NFS41_OP_CLOSE:
		return "CLOSE";
	case NFS41_OP_GETATTR:
		return "GETATTR";
	case NFS41_OP_GETFH:
		return "GETFH";
	case NFS41_OP_LOOKUP:
		return "LOOKUP";
	case NFS41_OP_OPEN:
		return "OPEN";
	case NFS41_OP_PUTFH:
		return "PUTFH";
	case NFS41_OP_PUTROOTFH:
		return "PUTROOTFH";
	case NFS41_OP_READ:
		return "READ";
	case NFS41_OP_REMOVE:
		return "REMOVE";
	case NFS41_OP_WRITE:
		return "WRITE";
	case NFS41_OP_EXCHANGE_ID:
		return "EXCHANGE_ID";
	case NFS41_OP_CREATE_SESSION:
		return "CREATE_SESSION";
	case NFS41_OP_DESTROY_SESSION:
		return "DESTROY_SESSION";
	case NFS41_OP_SEQUENCE:
		return "SEQUENCE";
	case NFS41_OP_DESTROY_CLIENTID:
		return "DESTROY_CLIENTID";
	case NFS41_OP_RECLAIM_COMPLETE:
		return "RECLAIM_COMPLETE";
	case NFS41_OP_ILLEGAL:
		return "ILLEGAL";
	}
	return NULL;
}

/* ---------------------------------------------------------------- encoder */

static size_t pad4(size_t n)
{
	return (4 - (n & 3)) & 3;
}

static void put_raw(struct nfs41_enc *e, const void *p, size_t n)
{
	size_t pad = pad4(n);
	if (e->overflow || n > sizeof(e->buf) - e->len || pad > sizeof(e->buf) - e->len - n) {
		e->overflow = true;
		return;
	}
	if (n)
		memcpy(e->buf + e->len, p, n);
	memset(e->buf + e->len + n, 0, pad);
	e->len += n + pad;
}

static void put_u32(struct nfs41_enc *e, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
	put_raw(e, b, 4);
}

static void put_u64(struct nfs41_enc *e, uint64_t v)
{
	put_u32(e, (uint32_t)(v >> 32));
	put_u32(e, (uint32_t)v);
}

static void put_opaque(struct nfs41_enc *e, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		e->overflow = true;
		return;
	}
	put_u32(e, (uint32_t)n);
	put_raw(e, p, n);
}

static void put_string(struct nfs41_enc *e, const char *s)
{
	put_opaque(e, s, strlen(s));
}

static void patch_u32(struct nfs41_enc *e, size_t off, uint32_t v)
{
	e->buf[off] = (uint8_t)(v >> 24);
	e->buf[off + 1] = (uint8_t)(v >> 16);
	e->buf[off + 2] = (uint8_t)(v >> 8);
	e->buf[off + 3] = (uint8_t)v;
}

static void put_op(struct nfs41_enc *e, uint32_t op)
{
	if (e->nops == NFS41_MAX_OPS) {
		e->overflow = true;
		return;
	}
	e->ops[e->nops++] = op;
	put_u32(e, op);
}

/* The 13-character machine name, padded: the AUTH_SYS body is 36 bytes. */
#define AUTH_SYS_BODY_LEN (4 + 4 + 16 + 4 + 4 + 4)

/* Record mark placeholder, RPC call header (AUTH_SYS uid 0 gid 0), COMPOUND header. */
static size_t begin_call(struct nfs41_enc *e, const struct nfs41_callhdr *h)
{
	e->len = 0;
	e->overflow = false;
	e->nops = 0;
	e->seqid_off = 0;
	put_u32(e, 0);
	e->xid_off = e->len;
	put_u32(e, h->xid);
	put_u32(e, RPC_CALL);
	put_u32(e, RPC_VERSION);
	put_u32(e, NFS_PROGRAM);
	put_u32(e, NFS_V4);
	put_u32(e, NFSPROC4_COMPOUND);
	put_u32(e, AUTH_SYS);
	put_u32(e, AUTH_SYS_BODY_LEN);
	put_u32(e, h->stamp);
	put_string(e, NFS41_MACHINE_NAME);
	put_u32(e, 0); /* uid */
	put_u32(e, 0); /* gid */
	put_u32(e, 0); /* no supplementary groups */
	put_u32(e, AUTH_NONE);
	put_u32(e, 0);
	put_u32(e, 0); /* empty tag, as the Linux client sends */
	put_u32(e, h->minor);
	size_t count_off = e->len;
	put_u32(e, 0); /* number of operations, set by end_call() */
	return count_off;
}

static void end_call(struct nfs41_enc *e, size_t count_off)
{
	if (e->overflow)
		return;
	patch_u32(e, count_off, (uint32_t)e->nops);
	patch_u32(e, 0, RECORD_LAST | (uint32_t)(e->len - 4));
}

static void put_sequence(struct nfs41_enc *e, const struct nfs41_seqargs *s)
{
	put_op(e, NFS41_OP_SEQUENCE);
	put_raw(e, s->sessionid, NFS41_SESSIONID_SIZE);
	e->seqid_off = e->len;
	put_u32(e, s->seqid);
	put_u32(e, 0); /* slot */
	put_u32(e, 0); /* highest slot in use */
	put_u32(e, 0); /* cachethis: a lost reply is never retried on this slot */
}

static void put_fh(struct nfs41_enc *e, const struct nfs41_fh *fh)
{
	put_op(e, NFS41_OP_PUTFH);
	put_opaque(e, fh->data, fh->len <= NFS41_FH_MAX ? fh->len : NFS41_FH_MAX);
}

static void put_stateid(struct nfs41_enc *e, const struct nfs41_stateid *st)
{
	put_u32(e, st->seqid);
	put_raw(e, st->other, sizeof(st->other));
}

static void put_chan_attrs(struct nfs41_enc *e, const struct nfs41_chan_attrs *a)
{
	put_u32(e, a->headerpad);
	put_u32(e, a->maxreq);
	put_u32(e, a->maxresp);
	put_u32(e, a->maxresp_cached);
	put_u32(e, a->maxops);
	put_u32(e, a->maxreqs);
	put_u32(e, 0); /* no RDMA */
}

void nfs41_enc_exchange_id(struct nfs41_enc *e, const struct nfs41_callhdr *h,
			   const uint8_t verifier[NFS41_VERIFIER_SIZE], const char *owner)
{
	size_t c = begin_call(e, h);
	put_op(e, NFS41_OP_EXCHANGE_ID);
	put_raw(e, verifier, NFS41_VERIFIER_SIZE);
	put_string(e, owner);
	put_u32(e, EXCHGID4_FLAG_SUPP_MOVED_REFER | EXCHGID4_FLAG_SUPP_MOVED_MIGR |
		       EXCHGID4_FLAG_BIND_PRINC_STATEID);
	put_u32(e, SP4_NONE);
	put_u32(e, 0); /* no implementation id */
	end_call(e, c);
}

void nfs41_enc_create_session(struct nfs41_enc *e, const struct nfs41_callhdr *h, uint64_t clientid,
			      uint32_t seqid)
{
	/*
	 * One slot each way, small messages: the largest reply we ask for is
	 * a READ of NFS41_IO_MAX bytes. The back channel is never bound to a
	 * connection (no CONN_BACK_CHAN flag), but its attributes must still
	 * pass the server's minimums.
	 */
	static const struct nfs41_chan_attrs fore = {
	    .maxreq = NFS41_CALL_MAX,
	    .maxresp = 2 * NFS41_CALL_MAX + NFS41_IO_MAX,
	    .maxresp_cached = 0,
	    .maxops = NFS41_MAX_OPS,
	    .maxreqs = 1,
	};
	static const struct nfs41_chan_attrs back = {
	    .maxreq = 4096, .maxresp = 4096, .maxops = 2, .maxreqs = 1};
	size_t c = begin_call(e, h);
	put_op(e, NFS41_OP_CREATE_SESSION);
	put_u64(e, clientid);
	put_u32(e, seqid);
	put_u32(e, 0); /* flags: not persistent, no back channel on this connection */
	put_chan_attrs(e, &fore);
	put_chan_attrs(e, &back);
	put_u32(e, NFS4_CALLBACK_PROGRAM);
	put_u32(e, 1); /* one callback security parameter: */
	put_u32(e, AUTH_NONE);
	end_call(e, c);
}

void nfs41_enc_reclaim_complete(struct nfs41_enc *e, const struct nfs41_callhdr *h,
				const struct nfs41_seqargs *s)
{
	size_t c = begin_call(e, h);
	put_sequence(e, s);
	put_op(e, NFS41_OP_RECLAIM_COMPLETE);
	put_u32(e, 0); /* rca_one_fs: false, for the whole server */
	end_call(e, c);
}

void nfs41_enc_lookup(struct nfs41_enc *e, const struct nfs41_callhdr *h,
		      const struct nfs41_seqargs *s, const char *const *components, size_t n)
{
	size_t c = begin_call(e, h);
	put_sequence(e, s);
	put_op(e, NFS41_OP_PUTROOTFH);
	for (size_t i = 0; i < n; i++) {
		put_op(e, NFS41_OP_LOOKUP);
		put_string(e, components[i]);
	}
	put_op(e, NFS41_OP_GETFH);
	put_op(e, NFS41_OP_GETATTR);
	put_u32(e, ELEMENTSOF(attr_request));
	for (size_t i = 0; i < ELEMENTSOF(attr_request); i++)
		put_u32(e, attr_request[i]);
	end_call(e, c);
}

void nfs41_enc_open(struct nfs41_enc *e, const struct nfs41_callhdr *h,
		    const struct nfs41_seqargs *s, const struct nfs41_fh *dir, const char *name,
		    bool create, uint32_t mode, uint64_t clientid, const char *open_owner)
{
	size_t c = begin_call(e, h);
	put_sequence(e, s);
	put_fh(e, dir);
	put_op(e, NFS41_OP_OPEN);
	put_u32(e, 0); /* seqid: ignored by NFSv4.1 */
	put_u32(e, (create ? OPEN4_SHARE_ACCESS_WRITE : OPEN4_SHARE_ACCESS_READ) |
		       OPEN4_SHARE_ACCESS_WANT_NO_DELEG);
	put_u32(e, 0); /* deny none */
	put_u64(e, clientid);
	put_string(e, open_owner);
	if (create) {
		/* GUARDED4: fails with NFS4ERR_EXIST rather than open a file already there. */
		put_u32(e, OPEN4_CREATE);
		put_u32(e, GUARDED4);
		put_u32(e, 2);
		put_u32(e, 0);
		put_u32(e, BIT(FATTR4_MODE));
		put_u32(e, 4);
		put_u32(e, mode & 07777);
	} else {
		put_u32(e, OPEN4_NOCREATE);
	}
	put_u32(e, CLAIM_NULL);
	put_string(e, name);
	put_op(e, NFS41_OP_GETFH);
	end_call(e, c);
}

void nfs41_enc_write_close(struct nfs41_enc *e, const struct nfs41_callhdr *h,
			   const struct nfs41_seqargs *s, const struct nfs41_fh *fh,
			   const struct nfs41_stateid *st, const void *data, uint32_t len)
{
	size_t c = begin_call(e, h);
	put_sequence(e, s);
	put_fh(e, fh);
	put_op(e, NFS41_OP_WRITE);
	put_stateid(e, st);
	put_u64(e, 0);
	put_u32(e, FILE_SYNC4);
	put_opaque(e, data, len);
	put_op(e, NFS41_OP_CLOSE);
	put_u32(e, 0);
	put_stateid(e, st);
	end_call(e, c);
}

void nfs41_enc_read_close(struct nfs41_enc *e, const struct nfs41_callhdr *h,
			  const struct nfs41_seqargs *s, const struct nfs41_fh *fh,
			  const struct nfs41_stateid *st, uint32_t count)
{
	size_t c = begin_call(e, h);
	put_sequence(e, s);
	put_fh(e, fh);
	put_op(e, NFS41_OP_READ);
	put_stateid(e, st);
	put_u64(e, 0);
	put_u32(e, count);
	put_op(e, NFS41_OP_CLOSE);
	put_u32(e, 0);
	put_stateid(e, st);
	end_call(e, c);
}

void nfs41_enc_close(struct nfs41_enc *e, const struct nfs41_callhdr *h,
		     const struct nfs41_seqargs *s, const struct nfs41_fh *fh,
		     const struct nfs41_stateid *st)
{
	size_t c = begin_call(e, h);
	put_sequence(e, s);
	put_fh(e, fh);
	put_op(e, NFS41_OP_CLOSE);
	put_u32(e, 0);
	put_stateid(e, st);
	end_call(e, c);
}

void nfs41_enc_remove(struct nfs41_enc *e, const struct nfs41_callhdr *h,
		      const struct nfs41_seqargs *s, const struct nfs41_fh *dir, const char *name)
{
	size_t c = begin_call(e, h);
	put_sequence(e, s);
	put_fh(e, dir);
	put_op(e, NFS41_OP_REMOVE);
	put_string(e, name);
	end_call(e, c);
}

void nfs41_enc_destroy_session(struct nfs41_enc *e, const struct nfs41_callhdr *h,
			       const uint8_t sessionid[NFS41_SESSIONID_SIZE])
{
	size_t c = begin_call(e, h);
	put_op(e, NFS41_OP_DESTROY_SESSION);
	put_raw(e, sessionid, NFS41_SESSIONID_SIZE);
	end_call(e, c);
}

void nfs41_enc_destroy_clientid(struct nfs41_enc *e, const struct nfs41_callhdr *h,
				uint64_t clientid)
{
	size_t c = begin_call(e, h);
	put_op(e, NFS41_OP_DESTROY_CLIENTID);
	put_u64(e, clientid);
	end_call(e, c);
}

void nfs41_enc_restamp(struct nfs41_enc *e, uint32_t xid, uint32_t seqid)
{
	patch_u32(e, e->xid_off, xid);
	if (e->seqid_off)
		patch_u32(e, e->seqid_off, seqid);
}

/* ---------------------------------------------------------------- decoder */

struct dec {
	const uint8_t *base, *p;
	size_t left;
	const char *bad; /* what was being decoded when it failed */
};

static bool bad(struct dec *d, const char *what)
{
	if (!d->bad)
		d->bad = what;
	return false;
}

static bool get_u32(struct dec *d, uint32_t *v, const char *what)
{
	if (d->left < 4)
		return bad(d, what);
	*v = (uint32_t)d->p[0] << 24 | (uint32_t)d->p[1] << 16 | (uint32_t)d->p[2] << 8 | d->p[3];
	d->p += 4;
	d->left -= 4;
	return true;
}

static bool get_u64(struct dec *d, uint64_t *v, const char *what)
{
	uint32_t hi, lo;
	if (!get_u32(d, &hi, what) || !get_u32(d, &lo, what))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

static bool get_bool(struct dec *d, bool *v, const char *what)
{
	uint32_t b;
	if (!get_u32(d, &b, what))
		return false;
	if (b > 1)
		return bad(d, what);
	*v = b;
	return true;
}

/* n bytes and their padding; *ret points into the record. */
static bool get_fixed(struct dec *d, size_t n, const uint8_t **ret, const char *what)
{
	size_t total = n + pad4(n);
	if (total < n || d->left < total)
		return bad(d, what);
	*ret = d->p;
	d->p += total;
	d->left -= total;
	return true;
}

static bool get_copy(struct dec *d, void *out, size_t n, const char *what)
{
	const uint8_t *p;
	if (!get_fixed(d, n, &p, what))
		return false;
	memcpy(out, p, n);
	return true;
}

/* A counted opaque of at most max bytes. */
static bool get_opaque(struct dec *d, struct nfs41_bytes *ret, uint32_t max, const char *what)
{
	uint32_t n;
	if (!get_u32(d, &n, what))
		return false;
	if (n > max)
		return bad(d, what);
	ret->len = n;
	return get_fixed(d, n, &ret->p, what);
}

static bool skip_opaque(struct dec *d, uint32_t max, const char *what)
{
	struct nfs41_bytes b;
	return get_opaque(d, &b, max, what);
}

/* A bitmap4 of at most BITMAP_WORDS_MAX words; missing words are zero. */
static bool get_bitmap(struct dec *d, uint32_t words[BITMAP_WORDS_MAX], const char *what)
{
	uint32_t n;
	if (!get_u32(d, &n, what))
		return false;
	if (n > BITMAP_WORDS_MAX)
		return bad(d, what);
	memset(words, 0, BITMAP_WORDS_MAX * sizeof(words[0]));
	for (uint32_t i = 0; i < n; i++)
		if (!get_u32(d, &words[i], what))
			return false;
	return true;
}

static bool get_stateid(struct dec *d, struct nfs41_stateid *st, const char *what)
{
	return get_u32(d, &st->seqid, what) && get_copy(d, st->other, sizeof(st->other), what);
}

static bool get_change_info(struct dec *d, const char *what)
{
	bool atomic;
	uint64_t before, after;
	return get_bool(d, &atomic, what) && get_u64(d, &before, what) && get_u64(d, &after, what);
}

static bool dec_exchange_id(struct dec *d, struct nfs41_res *r)
{
	static const char w[] = "EXCHANGE_ID result";
	uint32_t how, n;
	uint64_t minor_id, secs;
	uint32_t nsecs;
	if (!get_u64(d, &r->u.exchange_id.clientid, w) || !get_u32(d, &r->u.exchange_id.seqid, w) ||
	    !get_u32(d, &r->u.exchange_id.flags, w) || !get_u32(d, &how, w))
		return false;
	/* We asked for SP4_NONE; any other answer is not one we can follow. */
	if (how != SP4_NONE)
		return bad(d, "EXCHANGE_ID state protection other than SP4_NONE");
	if (!get_u64(d, &minor_id, w) ||
	    !get_opaque(d, &r->u.exchange_id.major_id, NFS41_OPAQUE_LIMIT, w) ||
	    !get_opaque(d, &r->u.exchange_id.scope, NFS41_OPAQUE_LIMIT, w) || !get_u32(d, &n, w))
		return false;
	if (n > 1)
		return bad(d, "EXCHANGE_ID implementation id count");
	if (n == 1 && (!get_opaque(d, &r->u.exchange_id.impl_domain, NFS41_OPAQUE_LIMIT, w) ||
		       !get_opaque(d, &r->u.exchange_id.impl_name, NFS41_OPAQUE_LIMIT, w) ||
		       !get_u64(d, &secs, w) || !get_u32(d, &nsecs, w)))
		return false;
	return true;
}

static bool get_chan_attrs(struct dec *d, struct nfs41_chan_attrs *a, const char *what)
{
	uint32_t n, ird;
	if (!get_u32(d, &a->headerpad, what) || !get_u32(d, &a->maxreq, what) ||
	    !get_u32(d, &a->maxresp, what) || !get_u32(d, &a->maxresp_cached, what) ||
	    !get_u32(d, &a->maxops, what) || !get_u32(d, &a->maxreqs, what) ||
	    !get_u32(d, &n, what))
		return false;
	if (n > 1)
		return bad(d, what);
	return n == 0 || get_u32(d, &ird, what);
}

static bool dec_create_session(struct dec *d, struct nfs41_res *r)
{
	static const char w[] = "CREATE_SESSION result";
	return get_copy(d, r->u.create_session.sessionid, NFS41_SESSIONID_SIZE, w) &&
	       get_u32(d, &r->u.create_session.seqid, w) &&
	       get_u32(d, &r->u.create_session.flags, w) &&
	       get_chan_attrs(d, &r->u.create_session.fore, w) &&
	       get_chan_attrs(d, &r->u.create_session.back, w);
}

static bool dec_sequence(struct dec *d, struct nfs41_res *r)
{
	static const char w[] = "SEQUENCE result";
	return get_copy(d, r->u.sequence.sessionid, NFS41_SESSIONID_SIZE, w) &&
	       get_u32(d, &r->u.sequence.seqid, w) && get_u32(d, &r->u.sequence.slotid, w) &&
	       get_u32(d, &r->u.sequence.highest_slotid, w) &&
	       get_u32(d, &r->u.sequence.target_highest_slotid, w) &&
	       get_u32(d, &r->u.sequence.status_flags, w);
}

/* The attribute values, in bit order, of exactly the attributes in mask. */
static bool dec_attr_values(struct dec *d, const uint32_t mask[2], struct nfs41_attrs *a)
{
	static const char w[] = "GETATTR attribute values";
	static const struct {
		unsigned bit;
		uint32_t flag;
	} order[] = {
	    {FATTR4_TYPE, NFS41_ATTR_TYPE},	{FATTR4_SIZE, NFS41_ATTR_SIZE},
	    {FATTR4_FILEID, NFS41_ATTR_FILEID}, {FATTR4_MODE, NFS41_ATTR_MODE},
	    {FATTR4_OWNER, NFS41_ATTR_OWNER},	{FATTR4_OWNER_GROUP, NFS41_ATTR_OWNER_GROUP},
	};
	for (size_t i = 0; i < ELEMENTSOF(order); i++) {
		unsigned b = order[i].bit;
		if (!(mask[b / 32] & BIT(b)))
			continue;
		bool ok = false;
		switch (b) {
		case FATTR4_TYPE:
			ok = get_u32(d, &a->type, w) &&
			     ((a->type >= 1 && a->type <= 9) || bad(d, "GETATTR file type"));
			break;
		case FATTR4_SIZE:
			ok = get_u64(d, &a->size, w);
			break;
		case FATTR4_FILEID:
			ok = get_u64(d, &a->fileid, w);
			break;
		case FATTR4_MODE:
			ok = get_u32(d, &a->mode, w) &&
			     (a->mode <= 07777 || bad(d, "GETATTR mode above 07777"));
			break;
		case FATTR4_OWNER:
			ok = get_opaque(d, &a->owner, NFS41_OPAQUE_LIMIT, w);
			break;
		case FATTR4_OWNER_GROUP:
			ok = get_opaque(d, &a->owner_group, NFS41_OPAQUE_LIMIT, w);
			break;
		}
		if (!ok)
			return false;
		a->present |= order[i].flag;
	}
	return d->left == 0 || bad(d, "GETATTR attribute values longer than their attributes");
}

static bool dec_getattr(struct dec *d, struct nfs41_res *r)
{
	uint32_t mask[BITMAP_WORDS_MAX];
	struct nfs41_bytes vals;
	if (!get_bitmap(d, mask, "GETATTR attribute mask") ||
	    !get_opaque(d, &vals, NFS41_RECORD_MAX, "GETATTR attribute values"))
		return false;
	/* Values cannot be skipped without knowing their layout: only what we asked for. */
	for (size_t i = 0; i < BITMAP_WORDS_MAX; i++) {
		uint32_t asked = i < ELEMENTSOF(attr_request) ? attr_request[i] : 0;
		if (mask[i] & ~asked)
			return bad(d, "GETATTR returned an attribute that was not requested");
	}
	struct dec v = {.base = d->base, .p = vals.p, .left = vals.len};
	r->u.getattr = (struct nfs41_attrs){0};
	if (!dec_attr_values(&v, mask, &r->u.getattr))
		return bad(d, v.bad);
	return true;
}

static bool get_nfsace(struct dec *d, const char *what)
{
	uint32_t type, flag, mask;
	return get_u32(d, &type, what) && get_u32(d, &flag, what) && get_u32(d, &mask, what) &&
	       skip_opaque(d, NFS41_OPAQUE_LIMIT, what);
}

static bool dec_delegation(struct dec *d, uint32_t *type)
{
	static const char w[] = "OPEN delegation";
	struct nfs41_stateid st;
	bool recall, b;
	uint32_t why, limitby, u;
	uint64_t size;
	if (!get_u32(d, type, w))
		return false;
	switch (*type) {
	case OPEN_DELEGATE_NONE:
		return true;
	case OPEN_DELEGATE_READ:
		return get_stateid(d, &st, w) && get_bool(d, &recall, w) && get_nfsace(d, w);
	case OPEN_DELEGATE_WRITE:
		if (!get_stateid(d, &st, w) || !get_bool(d, &recall, w) || !get_u32(d, &limitby, w))
			return false;
		if (limitby == NFS_LIMIT_SIZE) {
			if (!get_u64(d, &size, w))
				return false;
		} else if (limitby == NFS_LIMIT_BLOCKS) {
			if (!get_u32(d, &u, w) || !get_u32(d, &u, w))
				return false;
		} else {
			return bad(d, w);
		}
		return get_nfsace(d, w);
	case OPEN_DELEGATE_NONE_EXT:
		if (!get_u32(d, &why, w))
			return false;
		if (why == WND4_CONTENTION || why == WND4_RESOURCE)
			return get_bool(d, &b, w);
		return true;
	}
	return bad(d, w);
}

static bool dec_open(struct dec *d, struct nfs41_res *r)
{
	static const char w[] = "OPEN result";
	uint32_t attrset[BITMAP_WORDS_MAX];
	return get_stateid(d, &r->u.open.stateid, w) && get_change_info(d, w) &&
	       get_u32(d, &r->u.open.rflags, w) && get_bitmap(d, attrset, w) &&
	       dec_delegation(d, &r->u.open.delegation);
}

static bool dec_write(struct dec *d, struct nfs41_res *r)
{
	static const char w[] = "WRITE result";
	const uint8_t *verf;
	if (!get_u32(d, &r->u.write.count, w) || !get_u32(d, &r->u.write.committed, w) ||
	    !get_fixed(d, NFS41_VERIFIER_SIZE, &verf, w))
		return false;
	return r->u.write.committed <= FILE_SYNC4 || bad(d, "WRITE stability level");
}

static bool dec_read(struct dec *d, struct nfs41_res *r)
{
	return get_bool(d, &r->u.read.eof, "READ result") &&
	       get_opaque(d, &r->u.read.data, NFS41_IO_MAX, "READ data");
}

static bool dec_result(struct dec *d, struct nfs41_res *r)
{
	switch (r->op) {
	case NFS41_OP_EXCHANGE_ID:
		return dec_exchange_id(d, r);
	case NFS41_OP_CREATE_SESSION:
		return dec_create_session(d, r);
	case NFS41_OP_SEQUENCE:
		return dec_sequence(d, r);
	case NFS41_OP_GETFH:
		return get_opaque(d, &r->u.getfh, NFS41_FH_MAX, "GETFH file handle");
	case NFS41_OP_GETATTR:
		return dec_getattr(d, r);
	case NFS41_OP_OPEN:
		return dec_open(d, r);
	case NFS41_OP_WRITE:
		return dec_write(d, r);
	case NFS41_OP_READ:
		return dec_read(d, r);
	case NFS41_OP_CLOSE:
		return get_stateid(d, &r->u.close, "CLOSE result");
	case NFS41_OP_REMOVE:
		return get_change_info(d, "REMOVE result");
	case NFS41_OP_PUTFH:
	case NFS41_OP_PUTROOTFH:
	case NFS41_OP_LOOKUP:
	case NFS41_OP_DESTROY_SESSION:
	case NFS41_OP_DESTROY_CLIENTID:
	case NFS41_OP_RECLAIM_COMPLETE:
		return true;
	}
	/* OP_ILLEGAL only ever fails; any other operation we never send. */
	return bad(d, "result of an operation that was not sent");
}

static bool dec_compound(struct dec *d, struct nfs41_reply *r)
{
	uint32_t n;
	if (!get_u32(d, &r->status, "COMPOUND status") ||
	    !skip_opaque(d, NFS41_OPAQUE_LIMIT, "COMPOUND tag") ||
	    !get_u32(d, &n, "COMPOUND result count"))
		return false;
	if (n > NFS41_MAX_OPS)
		return bad(d, "COMPOUND result count");
	for (uint32_t i = 0; i < n; i++) {
		struct nfs41_res *res = &r->res[i];
		memset(res, 0, sizeof(*res));
		if (!get_u32(d, &res->op, "operation number") ||
		    !get_u32(d, &res->status, "operation status"))
			return false;
		r->nres = i + 1;
		if (res->status != NFS4_OK) {
			/* Processing stops at the first failure: it is the last result. */
			if (i != n - 1)
				return bad(d, "results after a failed operation");
			if (!nfs41_op_name(res->op))
				return bad(d, "result of an operation that was not sent");
			continue;
		}
		if (res->op == NFS41_OP_ILLEGAL)
			return bad(d, "OP_ILLEGAL with status NFS4_OK");
		if (!dec_result(d, res))
			return false;
	}
	if (n > 0 && r->status != r->res[n - 1].status)
		return bad(d, "COMPOUND status differs from the last operation's");
	if (n == 0 && r->status == NFS4_OK)
		return bad(d, "COMPOUND succeeded without results");
	return true;
}

static bool dec_accepted(struct dec *d, struct nfs41_reply *r)
{
	uint32_t flavor, stat;
	if (!get_u32(d, &flavor, "reply verifier") ||
	    !skip_opaque(d, RPC_AUTH_BODY_MAX, "reply verifier") ||
	    !get_u32(d, &stat, "accept status"))
		return false;
	switch (stat) {
	case 0:
		r->rpc = NFS41_RPC_SUCCESS;
		return dec_compound(d, r);
	case 1:
		r->rpc = NFS41_RPC_PROG_UNAVAIL;
		return true;
	case 2:
		r->rpc = NFS41_RPC_PROG_MISMATCH;
		return get_u32(d, &r->low, "version range") &&
		       get_u32(d, &r->high, "version range");
	case 3:
		r->rpc = NFS41_RPC_PROC_UNAVAIL;
		return true;
	case 4:
		r->rpc = NFS41_RPC_GARBAGE_ARGS;
		return true;
	case 5:
		r->rpc = NFS41_RPC_SYSTEM_ERR;
		return true;
	}
	return bad(d, "accept status");
}

static bool dec_denied(struct dec *d, struct nfs41_reply *r)
{
	uint32_t stat;
	if (!get_u32(d, &stat, "reject status"))
		return false;
	if (stat == 0) {
		r->rpc = NFS41_RPC_RPC_MISMATCH;
		return get_u32(d, &r->low, "RPC version range") &&
		       get_u32(d, &r->high, "RPC version range");
	}
	if (stat == 1) {
		r->rpc = NFS41_RPC_AUTH_ERROR;
		return get_u32(d, &r->auth_stat, "auth status");
	}
	return bad(d, "reject status");
}

int nfs41_reply_parse(const uint8_t *buf, size_t len, struct nfs41_reply *ret, char *err,
		      size_t errlen)
{
	struct dec d = {.base = buf, .p = buf, .left = len};
	uint32_t type, stat;
	ret->nres = 0;
	ret->status = 0;
	ret->low = ret->high = ret->auth_stat = 0;
	bool ok = get_u32(&d, &ret->xid, "RPC header") && get_u32(&d, &type, "RPC header") &&
		  (type == RPC_REPLY || bad(&d, "RPC message type (not a reply)")) &&
		  get_u32(&d, &stat, "RPC reply status");
	if (ok) {
		if (stat == MSG_ACCEPTED)
			ok = dec_accepted(&d, ret);
		else if (stat == MSG_DENIED)
			ok = dec_denied(&d, ret);
		else
			ok = bad(&d, "RPC reply status");
	}
	if (ok && d.left != 0)
		ok = bad(&d, "bytes after the end of the reply");
	if (ok)
		return 0;
	size_t at = (size_t)(d.p - buf);
	snprintf(err, errlen, "malformed reply: %s (at byte %zu of %zu)", d.bad ? d.bad : "?", at,
		 len);
	return -EBADMSG;
}

int nfs41_reply_match(const struct nfs41_enc *e, const struct nfs41_reply *r, char *err,
		      size_t errlen)
{
	uint32_t xid = (uint32_t)e->buf[e->xid_off] << 24 | (uint32_t)e->buf[e->xid_off + 1] << 16 |
		       (uint32_t)e->buf[e->xid_off + 2] << 8 | e->buf[e->xid_off + 3];
	if (r->xid != xid) {
		snprintf(err, errlen, "reply to call %08x while waiting for %08x", r->xid, xid);
		return -EBADMSG;
	}
	if (r->rpc != NFS41_RPC_SUCCESS)
		return 0;
	if (r->nres > e->nops) {
		snprintf(err, errlen, "%zu results for %zu operations", r->nres, e->nops);
		return -EBADMSG;
	}
	for (size_t i = 0; i < r->nres; i++) {
		const struct nfs41_res *res = &r->res[i];
		if (res->op == e->ops[i] || (res->op == NFS41_OP_ILLEGAL && i == r->nres - 1))
			continue;
		const char *got = nfs41_op_name(res->op), *want = nfs41_op_name(e->ops[i]);
		snprintf(err, errlen, "result %zu is for %s, not %s", i + 1, got ? got : "?",
			 want ? want : "?");
		return -EBADMSG;
	}
	if (r->status == NFS4_OK && r->nres != e->nops) {
		snprintf(err, errlen, "%zu results for %zu operations", r->nres, e->nops);
		return -EBADMSG;
	}
	return 0;
}

const char *nfs41_rpc_status_name(const struct nfs41_reply *r)
{
	static const char *const auth[] = {
	    "AUTH_OK",		 "AUTH_BADCRED", "AUTH_REJECTEDCRED", "AUTH_BADVERF",
	    "AUTH_REJECTEDVERF", "AUTH_TOOWEAK", "AUTH_INVALIDRESP",  "AUTH_FAILED",
	};
	switch (r->rpc) {
	case NFS41_RPC_SUCCESS:
		return "SUCCESS";
	case NFS41_RPC_PROG_UNAVAIL:
		return "PROG_UNAVAIL";
	case NFS41_RPC_PROG_MISMATCH:
		return "PROG_MISMATCH";
	case NFS41_RPC_PROC_UNAVAIL:
		return "PROC_UNAVAIL";
	case NFS41_RPC_GARBAGE_ARGS:
		return "GARBAGE_ARGS";
	case NFS41_RPC_SYSTEM_ERR:
		return "SYSTEM_ERR";
	case NFS41_RPC_RPC_MISMATCH:
		return "RPC_MISMATCH";
	case NFS41_RPC_AUTH_ERROR:
		return r->auth_stat < ELEMENTSOF(auth) ? auth[r->auth_stat] : "AUTH_ERROR";
	}
	return "?";
}

void nfs41_rpc_describe(const struct nfs41_reply *r, char *buf, size_t len)
{
	const char *name = nfs41_rpc_status_name(r);
	switch (r->rpc) {
	case NFS41_RPC_PROG_UNAVAIL:
		snprintf(buf, len, "%s (no NFS service on this port)", name);
		return;
	case NFS41_RPC_PROG_MISMATCH:
		snprintf(buf, len, "%s (NFS versions %u to %u, not 4)", name, r->low, r->high);
		return;
	case NFS41_RPC_RPC_MISMATCH:
		snprintf(buf, len, "%s (RPC versions %u to %u)", name, r->low, r->high);
		return;
	case NFS41_RPC_AUTH_ERROR:
		snprintf(buf, len, "AUTH_ERROR (%s, auth_stat %u)", name, r->auth_stat);
		return;
	default:
		snprintf(buf, len, "%s", name);
		return;
	}
}

/* ---------------------------------------------------------------- record marking */

size_t nfs41_rec_want(const struct nfs41_rec *r)
{
	if (r->done)
		return 0;
	if (r->hdr_have < 4)
		return 4 - r->hdr_have;
	return r->frag_left;
}

static int rec_header(struct nfs41_rec *r)
{
	uint32_t h = (uint32_t)r->hdr[0] << 24 | (uint32_t)r->hdr[1] << 16 |
		     (uint32_t)r->hdr[2] << 8 | r->hdr[3];
	r->last = h & RECORD_LAST;
	r->frag_left = h & ~RECORD_LAST;
	if (r->frag_left > NFS41_RECORD_MAX - r->len)
		return -EMSGSIZE;
	/* Room for the fragment as it arrives, never more than the limit. */
	if (r->len + r->frag_left > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		while (cap < r->len + r->frag_left)
			cap *= 2;
		if (cap > NFS41_RECORD_MAX)
			cap = NFS41_RECORD_MAX;
		r->buf = xrealloc(r->buf, cap);
		r->cap = cap;
	}
	return 0;
}

int nfs41_rec_feed(struct nfs41_rec *r, const uint8_t *data, size_t len)
{
	while (len > 0 && !r->done) {
		if (r->hdr_have < 4) {
			size_t n = 4 - r->hdr_have < len ? 4 - r->hdr_have : len;
			memcpy(r->hdr + r->hdr_have, data, n);
			r->hdr_have += (unsigned)n;
			data += n;
			len -= n;
			if (r->hdr_have < 4)
				return 0;
			int e = rec_header(r);
			if (e < 0)
				return e;
		} else {
			size_t n = r->frag_left < len ? r->frag_left : len;
			memcpy(r->buf + r->len, data, n);
			r->len += n;
			r->frag_left -= (uint32_t)n;
			data += n;
			len -= n;
		}
		if (r->hdr_have == 4 && r->frag_left == 0) {
			if (r->last)
				r->done = true;
			else
				r->hdr_have = 0;
		}
	}
	return r->done ? 1 : 0;
}

void nfs41_rec_reset(struct nfs41_rec *r)
{
	r->len = 0;
	r->hdr_have = 0;
	r->frag_left = 0;
	r->last = r->done = false;
}

void nfs41_rec_free(struct nfs41_rec *r)
{
	free(r->buf);
	*r = (struct nfs41_rec){0};
}
