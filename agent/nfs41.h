/*
 * A small, strict NFSv4.1 client (RFC 8881) over ONC RPC on TCP (RFC 5531),
 * just enough for host.nfs.probe: a session, the LOOKUP of an export with the
 * GETATTR of its root, and the canary's create/write/read/remove. libnfs 4.0
 * speaks only NFSv4.0, which Longhorn's share-manager (NFS-Ganesha with
 * "Minor_Versions = 1, 2") refuses.
 *
 * Three layers, each usable alone (the first two, the codec, in
 * agent/nfs41_xdr.c; the client in agent/nfs41.c):
 *   - encoders that build one whole call (record mark, RPC header with
 *     AUTH_SYS, COMPOUND) into a fixed buffer: golden-byte tests drive them;
 *   - a record-marking reassembler and a reply decoder that treat every byte
 *     from the server as hostile (bounded lengths, no trailing bytes, the
 *     result array must end at the first failed operation): the fuzz target
 *     drives them;
 *   - a blocking-looking client on a non-blocking socket: every send and
 *     receive is polled against ONE deadline for the whole probe, so a server
 *     that stops answering (SIGSTOP, a dropped network) costs at most the
 *     time left.
 *
 * One slot, one call in flight, no callback channel: the server cannot send
 * us anything but replies, and it grants no delegations without a callback
 * path.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NFS41_RECORD_MAX     (1024 * 1024) /* a larger reply is rejected */
#define NFS41_CALL_MAX	     8192	   /* our largest call is well below */
#define FILE_SYNC4	     2		   /* stable_how4: WRITE asks for it */
#define NFS41_MAX_OPS	     40		   /* operations in one COMPOUND */
#define NFS41_MAX_COMPONENTS 32		   /* LOOKUPs for one export path */
#define NFS41_NAME_MAX	     255	   /* one path component */
#define NFS41_FH_MAX	     128	   /* NFS4_FHSIZE */
#define NFS41_OPAQUE_LIMIT   1024	   /* NFS4_OPAQUE_LIMIT */
#define NFS41_IO_MAX	     4096	   /* READ/WRITE payload we ever ask for */
#define NFS41_SESSIONID_SIZE 16
#define NFS41_VERIFIER_SIZE  8
#define NFS41_MACHINE_NAME   "hvready-probe" /* AUTH_SYS machinename */

enum nfs41_opnum {
	NFS41_OP_CLOSE = 4,
	NFS41_OP_GETATTR = 9,
	NFS41_OP_GETFH = 10,
	NFS41_OP_LOOKUP = 15,
	NFS41_OP_OPEN = 18,
	NFS41_OP_PUTFH = 22,
	NFS41_OP_PUTROOTFH = 24,
	NFS41_OP_READ = 25,
	NFS41_OP_REMOVE = 28,
	NFS41_OP_WRITE = 38,
	NFS41_OP_EXCHANGE_ID = 42,
	NFS41_OP_CREATE_SESSION = 43,
	NFS41_OP_DESTROY_SESSION = 44,
	NFS41_OP_SEQUENCE = 53,
	NFS41_OP_DESTROY_CLIENTID = 57,
	NFS41_OP_RECLAIM_COMPLETE = 58,
	NFS41_OP_ILLEGAL = 10044,
};

#define NFS4_OK			    0
#define NFS4ERR_NOENT		    2
#define NFS4ERR_ACCESS		    13
#define NFS4ERR_EXIST		    17
#define NFS4ERR_ROFS		    30
#define NFS4ERR_DELAY		    10008
#define NFS4ERR_GRACE		    10013
#define NFS4ERR_WRONGSEC	    10016
#define NFS4ERR_MINOR_VERS_MISMATCH 10021
#define NFS4ERR_STALE_CLIENTID	    10022
#define NFS4ERR_OP_ILLEGAL	    10044
#define NFS4ERR_COMPLETE_ALREADY    10054

/* "NFS4ERR_NOENT" for 2; NULL for a code RFC 8881/7862 do not define. */
const char *nfs41_status_name(uint32_t status);
/* "LOOKUP" for 15; "OP_<n>" is never returned: NULL for an operation we do not send. */
const char *nfs41_op_name(uint32_t op);

/* ---------------------------------------------------------------- encoding */

struct nfs41_fh {
	uint32_t len;
	uint8_t data[NFS41_FH_MAX];
};

struct nfs41_stateid {
	uint32_t seqid;
	uint8_t other[12];
};

/* The fields of the RPC call header and COMPOUND header that vary. */
struct nfs41_callhdr {
	uint32_t xid;
	uint32_t stamp; /* AUTH_SYS stamp */
	uint32_t minor; /* COMPOUND minorversion */
};

/* SEQUENCE's arguments; we use slot 0 only. */
struct nfs41_seqargs {
	uint8_t sessionid[NFS41_SESSIONID_SIZE];
	uint32_t seqid;
};

/*
 * A call being built. Writes past cap set overflow (and write nothing);
 * builders never fail otherwise. ops lists the operations encoded, for the
 * check of the reply; xid_off/seqid_off let a retry re-stamp the call.
 */
struct nfs41_enc {
	uint8_t buf[NFS41_CALL_MAX];
	size_t len;
	bool overflow;
	uint32_t ops[NFS41_MAX_OPS];
	size_t nops;
	size_t xid_off, seqid_off; /* seqid_off 0: no SEQUENCE */
};

/* The attributes GETATTR asks for (RFC 8881 §5.6, §5.7). */
#define NFS41_ATTR_TYPE	       (1u << 0)
#define NFS41_ATTR_SIZE	       (1u << 1)
#define NFS41_ATTR_FILEID      (1u << 2)
#define NFS41_ATTR_MODE	       (1u << 3)
#define NFS41_ATTR_OWNER       (1u << 4)
#define NFS41_ATTR_OWNER_GROUP (1u << 5)

/* Each builder encodes one complete call: record mark, RPC header, COMPOUND. */
void nfs41_enc_exchange_id(struct nfs41_enc *e, const struct nfs41_callhdr *h,
			   const uint8_t verifier[NFS41_VERIFIER_SIZE], const char *owner);
void nfs41_enc_create_session(struct nfs41_enc *e, const struct nfs41_callhdr *h, uint64_t clientid,
			      uint32_t seqid);
/* SEQUENCE, RECLAIM_COMPLETE(false): we have no state to reclaim. */
void nfs41_enc_reclaim_complete(struct nfs41_enc *e, const struct nfs41_callhdr *h,
				const struct nfs41_seqargs *s);
/* SEQUENCE, PUTROOTFH, LOOKUP per component of path, GETFH, GETATTR. */
void nfs41_enc_lookup(struct nfs41_enc *e, const struct nfs41_callhdr *h,
		      const struct nfs41_seqargs *s, const char *const *components, size_t n);
/* SEQUENCE, PUTFH(dir), OPEN (create GUARDED4 with mode, or no create), GETFH. */
void nfs41_enc_open(struct nfs41_enc *e, const struct nfs41_callhdr *h,
		    const struct nfs41_seqargs *s, const struct nfs41_fh *dir, const char *name,
		    bool create, uint32_t mode, uint64_t clientid, const char *open_owner);
/* SEQUENCE, PUTFH, WRITE (offset 0, FILE_SYNC4), CLOSE. */
void nfs41_enc_write_close(struct nfs41_enc *e, const struct nfs41_callhdr *h,
			   const struct nfs41_seqargs *s, const struct nfs41_fh *fh,
			   const struct nfs41_stateid *st, const void *data, uint32_t len);
/* SEQUENCE, PUTFH, READ (offset 0, count), CLOSE. */
void nfs41_enc_read_close(struct nfs41_enc *e, const struct nfs41_callhdr *h,
			  const struct nfs41_seqargs *s, const struct nfs41_fh *fh,
			  const struct nfs41_stateid *st, uint32_t count);
/* SEQUENCE, PUTFH, CLOSE. */
void nfs41_enc_close(struct nfs41_enc *e, const struct nfs41_callhdr *h,
		     const struct nfs41_seqargs *s, const struct nfs41_fh *fh,
		     const struct nfs41_stateid *st);
/* SEQUENCE, PUTFH(dir), REMOVE. */
void nfs41_enc_remove(struct nfs41_enc *e, const struct nfs41_callhdr *h,
		      const struct nfs41_seqargs *s, const struct nfs41_fh *dir, const char *name);
void nfs41_enc_destroy_session(struct nfs41_enc *e, const struct nfs41_callhdr *h,
			       const uint8_t sessionid[NFS41_SESSIONID_SIZE]);
void nfs41_enc_destroy_clientid(struct nfs41_enc *e, const struct nfs41_callhdr *h,
				uint64_t clientid);
/* A retry of the same call: a new xid and, if the call has a SEQUENCE, the
 * slot's next sequence id. */
void nfs41_enc_restamp(struct nfs41_enc *e, uint32_t xid, uint32_t seqid);

/* ---------------------------------------------------------------- decoding */

/* Bytes inside the record being decoded: valid while that record is. */
struct nfs41_bytes {
	const uint8_t *p;
	uint32_t len;
};

struct nfs41_chan_attrs {
	uint32_t headerpad, maxreq, maxresp, maxresp_cached, maxops, maxreqs;
};

struct nfs41_attrs {
	uint32_t present; /* NFS41_ATTR_* */
	uint32_t type;	  /* nfs_ftype4: 1 regular, 2 directory, ... */
	uint64_t size, fileid;
	uint32_t mode; /* permission bits only (mode4) */
	struct nfs41_bytes owner, owner_group;
};

/* One operation's result; u is set only when status is NFS4_OK. */
struct nfs41_res {
	uint32_t op, status;
	union {
		struct {
			uint64_t clientid;
			uint32_t seqid, flags;
			struct nfs41_bytes major_id, scope, impl_domain, impl_name;
		} exchange_id;
		struct {
			uint8_t sessionid[NFS41_SESSIONID_SIZE];
			uint32_t seqid, flags;
			struct nfs41_chan_attrs fore, back;
		} create_session;
		struct {
			uint8_t sessionid[NFS41_SESSIONID_SIZE];
			uint32_t seqid, slotid, highest_slotid, target_highest_slotid, status_flags;
		} sequence;
		struct nfs41_bytes getfh;
		struct nfs41_attrs getattr;
		struct {
			struct nfs41_stateid stateid;
			uint32_t rflags, delegation;
		} open;
		struct {
			uint32_t count, committed;
		} write;
		struct {
			bool eof;
			struct nfs41_bytes data;
		} read;
		struct nfs41_stateid close;
	} u;
};

enum nfs41_rpc_outcome {
	NFS41_RPC_SUCCESS,	 /* accepted, results follow */
	NFS41_RPC_PROG_UNAVAIL,	 /* no NFS program on this port */
	NFS41_RPC_PROG_MISMATCH, /* no NFS version 4: low..high */
	NFS41_RPC_PROC_UNAVAIL,
	NFS41_RPC_GARBAGE_ARGS,
	NFS41_RPC_SYSTEM_ERR,
	NFS41_RPC_RPC_MISMATCH, /* denied: RPC version low..high */
	NFS41_RPC_AUTH_ERROR,	/* denied: auth_stat */
};

struct nfs41_reply {
	uint32_t xid;
	enum nfs41_rpc_outcome rpc;
	uint32_t low, high, auth_stat;
	uint32_t status; /* COMPOUND status, when rpc is SUCCESS */
	size_t nres;
	struct nfs41_res res[NFS41_MAX_OPS];
};

/*
 * Decode one RPC reply record (without its record marks). Returns 0, or
 * -EBADMSG with a one-line reason in err. Strict: every length is bounded,
 * every discriminant known, the results end at the first failed operation,
 * the COMPOUND status is the last result's, and no byte is left over.
 */
int nfs41_reply_parse(const uint8_t *buf, size_t len, struct nfs41_reply *ret, char *err,
		      size_t errlen);

/*
 * Does reply answer call e? Checks the xid and that the results are, in
 * order, the operations sent (all of them when the COMPOUND succeeded).
 * Returns 0 or -EBADMSG with the reason.
 */
int nfs41_reply_match(const struct nfs41_enc *e, const struct nfs41_reply *reply, char *err,
		      size_t errlen);

/* "PROG_UNAVAIL", "AUTH_TOOWEAK" (the auth_stat for AUTH_ERROR), ... */
const char *nfs41_rpc_status_name(const struct nfs41_reply *r);
/* "AUTH_ERROR (AUTH_TOOWEAK, auth_stat 5)": the name and its details. */
void nfs41_rpc_describe(const struct nfs41_reply *r, char *buf, size_t len);

/*
 * Record marking (RFC 5531 §11): a reply arrives as fragments, each with a
 * 4-byte header (last-fragment bit, 31-bit length). Feed the byte stream in
 * pieces of at most nfs41_rec_want() bytes, so that reading never passes the
 * end of the current record.
 */
struct nfs41_rec {
	uint8_t *buf; /* the record, without marks */
	size_t len, cap;
	uint8_t hdr[4];
	unsigned hdr_have;
	uint32_t frag_left;
	bool last, done;
};
size_t nfs41_rec_want(const struct nfs41_rec *r);
/* Returns 1 when the record is complete, 0 for more, -EMSGSIZE past NFS41_RECORD_MAX. */
int nfs41_rec_feed(struct nfs41_rec *r, const uint8_t *data, size_t len);
void nfs41_rec_reset(struct nfs41_rec *r); /* for the next record; keeps the buffer */
void nfs41_rec_free(struct nfs41_rec *r);

/* ---------------------------------------------------------------- the client */

enum nfs41_err {
	NFS41_ERR_NONE,
	NFS41_ERR_NFS,	   /* an operation failed: op, status */
	NFS41_ERR_RPC,	   /* the RPC layer refused the call */
	NFS41_ERR_PROTO,   /* a malformed or unexpected reply */
	NFS41_ERR_TIMEOUT, /* the deadline passed */
	NFS41_ERR_SOCKET,  /* a socket error: sock_errno */
	NFS41_ERR_EOF,	   /* the server closed the connection */
	NFS41_ERR_LIMIT,   /* the request exceeds our or the server's limits */
};

struct nfs41_error {
	enum nfs41_err kind;
	uint32_t op, status; /* NFS41_ERR_NFS */
	int sock_errno;	     /* NFS41_ERR_SOCKET */
	char rpc_status[32]; /* NFS41_ERR_RPC: nfs41_rpc_status_name() */
	char msg[224];	     /* always one line: what failed and how */
};

/* What the server said about itself in EXCHANGE_ID (printable copies). */
struct nfs41_server_info {
	char impl_domain[64], impl_name[128];
	char major_id[64];
};

struct nfs41_client {
	int fd;
	int64_t deadline; /* CLOCK_MONOTONIC ns, for every send and receive */
	uint32_t xid, stamp, minor;
	uint64_t clientid;
	uint32_t eid_seqid;
	uint8_t sessionid[NFS41_SESSIONID_SIZE];
	uint32_t slot_seqid; /* the last sequence id the server accepted on slot 0 */
	bool have_clientid, have_session;
	bool broken; /* the stream is no longer in step with the server: no more calls */
	struct nfs41_chan_attrs fore;
	struct nfs41_server_info server;
	char owner[128]; /* co_ownerid: unique per client */
	struct nfs41_enc call;
	struct nfs41_rec rec;
	struct nfs41_reply reply;
	struct nfs41_error err;
	uint8_t scratch[16384];
};

/* An open file: its handle and the open stateid. */
struct nfs41_open {
	struct nfs41_fh fh;
	struct nfs41_stateid stateid;
};

/*
 * Take over fd (a connected, non-blocking TCP socket) for a client whose
 * every I/O ends by deadline. The client closes fd in nfs41_client_fini().
 */
void nfs41_client_init(struct nfs41_client *c, int fd, int64_t deadline);

/*
 * EXCHANGE_ID with COMPOUND minor version minor. A server that does not
 * speak it fails with NFS41_ERR_NFS / NFS4ERR_MINOR_VERS_MISMATCH, and the
 * connection stays usable for another minor version.
 */
int nfs41_exchange_id(struct nfs41_client *c, uint32_t minor);
/* CREATE_SESSION, then RECLAIM_COMPLETE as a fresh client does. */
int nfs41_create_session(struct nfs41_client *c);
/*
 * The export's root: PUTROOTFH + LOOKUP per component of path + GETFH +
 * GETATTR. ret_attrs's owner strings point into the reply: valid until the
 * next call on c.
 */
int nfs41_lookup(struct nfs41_client *c, const char *path, struct nfs41_fh *ret_fh,
		 struct nfs41_attrs *ret_attrs);
/* OPEN name in dir: created (GUARDED4, never an existing file) for writing, or for reading. */
int nfs41_open(struct nfs41_client *c, const struct nfs41_fh *dir, const char *name, bool create,
	       uint32_t mode, struct nfs41_open *ret);
/* WRITE data at offset 0 with FILE_SYNC4, then CLOSE; ret_written is what the server took. */
int nfs41_write_close(struct nfs41_client *c, const struct nfs41_open *o, const void *data,
		      uint32_t len, uint32_t *ret_written);
/* READ up to cap bytes from offset 0, then CLOSE. */
int nfs41_read_close(struct nfs41_client *c, const struct nfs41_open *o, void *buf, uint32_t cap,
		     uint32_t *ret_len);
int nfs41_close_file(struct nfs41_client *c, const struct nfs41_open *o);
int nfs41_remove(struct nfs41_client *c, const struct nfs41_fh *dir, const char *name);
/*
 * DESTROY_SESSION and DESTROY_CLIENTID while the deadline allows (the lease
 * expires on the server otherwise), then close the socket. Keeps c->err.
 */
void nfs41_client_fini(struct nfs41_client *c);
