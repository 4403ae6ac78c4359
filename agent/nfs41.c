/*
 * The NFSv4.1 client of host.nfs.probe (nfs41.h): a session, LOOKUP and
 * GETATTR of an export, the canary's create/write/read/remove, on a
 * non-blocking socket polled against one deadline for the whole probe. The
 * calls and replies are encoded and decoded by agent/nfs41_xdr.c.
 */
#include "nfs41.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util.h"

#define NFS41_TEARDOWN_NS NSEC_PER_SEC

static int fail_with(struct nfs41_client *c, enum nfs41_err kind, const char *fmt, ...)
    _printf_(3, 4);
static int fail_with(struct nfs41_client *c, enum nfs41_err kind, const char *fmt, ...)
{
	va_list ap;
	c->err.kind = kind;
	va_start(ap, fmt);
	vsnprintf(c->err.msg, sizeof(c->err.msg), fmt, ap);
	va_end(ap);
	if (kind == NFS41_ERR_TIMEOUT || kind == NFS41_ERR_SOCKET || kind == NFS41_ERR_EOF ||
	    kind == NFS41_ERR_PROTO)
		c->broken = true;
	return -EIO;
}

static int fail_errno(struct nfs41_client *c, int e, const char *what)
{
	c->err.sock_errno = e;
	if (e == EPIPE || e == ECONNRESET)
		return fail_with(c, e == EPIPE ? NFS41_ERR_EOF : NFS41_ERR_SOCKET,
				 "the server closed the connection before replying to %s", what);
	/* strerror() is not thread-safe; the daemon probes from a worker thread. */
	const char *desc = strerrordesc_np(e);
	return fail_with(c, NFS41_ERR_SOCKET, "socket error on %s: %s", what,
			 desc ? desc : "unknown error");
}

/* Wait for events on the socket until the deadline. */
static int wait_fd(struct nfs41_client *c, short events, const char *what)
{
	for (;;) {
		int64_t left = c->deadline - util_now_mono_ns();
		if (left <= 0)
			return fail_with(c, NFS41_ERR_TIMEOUT, "no reply to %s in time", what);
		struct pollfd pfd = {.fd = c->fd, .events = events};
		int r = poll(&pfd, 1, (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));
		if (r > 0)
			return 0; /* errors and hang-ups surface in send()/recv() */
		if (r < 0 && errno != EINTR)
			return fail_errno(c, errno, what);
	}
}

static int send_call(struct nfs41_client *c, const char *what)
{
	size_t off = 0;
	while (off < c->call.len) {
		if (util_now_mono_ns() >= c->deadline)
			return fail_with(c, NFS41_ERR_TIMEOUT, "no reply to %s in time", what);
		ssize_t n = send(c->fd, c->call.buf + off, c->call.len - off, MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return fail_errno(c, errno, what);
		int r = wait_fd(c, POLLOUT, what);
		if (r < 0)
			return r;
	}
	return 0;
}

static int recv_record(struct nfs41_client *c, const char *what)
{
	nfs41_rec_reset(&c->rec);
	for (;;) {
		if (util_now_mono_ns() >= c->deadline)
			return fail_with(c, NFS41_ERR_TIMEOUT, "no reply to %s in time", what);
		size_t want = nfs41_rec_want(&c->rec);
		if (want > sizeof(c->scratch))
			want = sizeof(c->scratch);
		ssize_t n = recv(c->fd, c->scratch, want, 0);
		if (n > 0) {
			int r = nfs41_rec_feed(&c->rec, c->scratch, (size_t)n);
			if (r < 0)
				return fail_with(c, NFS41_ERR_PROTO,
						 "the server's reply to %s is larger than %d bytes",
						 what, NFS41_RECORD_MAX);
			if (r == 1)
				return 0;
			continue;
		}
		if (n == 0)
			return fail_with(c, NFS41_ERR_EOF,
					 "the server closed the connection before replying to %s",
					 what);
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return fail_errno(c, errno, what);
		int r = wait_fd(c, POLLIN, what);
		if (r < 0)
			return r;
	}
}

/* Send c->call, receive and decode its reply, check it answers the call. */
static int rpc_call(struct nfs41_client *c, const char *what)
{
	char why[160];
	if (c->broken)
		return fail_with(c, c->err.kind ? c->err.kind : NFS41_ERR_PROTO,
				 "the connection is unusable after an earlier failure");
	c->err = (struct nfs41_error){0};
	if (c->call.overflow)
		return fail_with(c, NFS41_ERR_LIMIT, "the call to %s is larger than %d bytes", what,
				 NFS41_CALL_MAX);
	if (c->have_session && (c->call.nops > c->fore.maxops || c->call.len - 4 > c->fore.maxreq))
		return fail_with(c, NFS41_ERR_LIMIT,
				 "the call to %s (%zu operations, %zu bytes) exceeds the session's "
				 "limits (%u operations, %u bytes)",
				 what, c->call.nops, c->call.len - 4, c->fore.maxops,
				 c->fore.maxreq);
	int r = send_call(c, what);
	if (r < 0)
		return r;
	r = recv_record(c, what);
	if (r < 0)
		return r;
	if (nfs41_reply_parse(c->rec.buf, c->rec.len, &c->reply, why, sizeof(why)) < 0 ||
	    nfs41_reply_match(&c->call, &c->reply, why, sizeof(why)) < 0)
		return fail_with(c, NFS41_ERR_PROTO, "%s: %s", what, why);
	if (c->reply.rpc != NFS41_RPC_SUCCESS) {
		nfs41_rpc_describe(&c->reply, why, sizeof(why));
		snprintf(c->err.rpc_status, sizeof(c->err.rpc_status), "%s",
			 nfs41_rpc_status_name(&c->reply));
		return fail_with(c, NFS41_ERR_RPC, "the server refused the RPC call to %s: %s",
				 what, why);
	}
	return 0;
}

static int fail_status(struct nfs41_client *c, uint32_t op, uint32_t status)
{
	const char *name = nfs41_status_name(status), *opn = nfs41_op_name(op);
	c->err.op = op;
	c->err.status = status;
	if (name)
		return fail_with(c, NFS41_ERR_NFS, "%s failed with %s", opn ? opn : "COMPOUND",
				 name);
	return fail_with(c, NFS41_ERR_NFS, "%s failed with NFS status %u", opn ? opn : "COMPOUND",
			 status);
}

/* One COMPOUND: the call, the SEQUENCE bookkeeping, the first failed operation. */
static int compound(struct nfs41_client *c, const char *what)
{
	int r = rpc_call(c, what);
	if (r < 0)
		return r;
	const struct nfs41_reply *rep = &c->reply;
	if (c->call.seqid_off && rep->nres > 0 && rep->res[0].status == NFS4_OK) {
		const __typeof__(rep->res[0].u.sequence) *s = &rep->res[0].u.sequence;
		if (memcmp(s->sessionid, c->sessionid, NFS41_SESSIONID_SIZE) != 0 ||
		    s->seqid != c->slot_seqid + 1 || s->slotid != 0)
			return fail_with(c, NFS41_ERR_PROTO,
					 "%s: SEQUENCE answered for another session, slot or "
					 "sequence id",
					 what);
		c->slot_seqid = s->seqid;
	}
	if (rep->status == NFS4_OK)
		return 0;
	uint32_t op = rep->nres > 0 ? rep->res[rep->nres - 1].op : c->call.ops[0];
	if (op == NFS41_OP_ILLEGAL)
		op = c->call.ops[rep->nres - 1];
	return fail_status(c, op, rep->status);
}

static void restamp(struct nfs41_client *c)
{
	nfs41_enc_restamp(&c->call, ++c->xid, c->slot_seqid + 1);
}

/*
 * compound(), again while the server answers NFS4ERR_DELAY or NFS4ERR_GRACE
 * (a share-manager that just restarted), with a growing pause, as long as
 * the deadline allows; the last answer is what is reported.
 */
static int compound_retry(struct nfs41_client *c, const char *what)
{
	int64_t pause = 50 * NSEC_PER_MSEC;
	for (;;) {
		restamp(c);
		int r = compound(c, what);
		if (r == 0 || c->err.kind != NFS41_ERR_NFS ||
		    (c->err.status != NFS4ERR_DELAY && c->err.status != NFS4ERR_GRACE))
			return r;
		if (util_now_mono_ns() + pause >= c->deadline)
			return r;
		(void)poll(NULL, 0, (int)(pause / NSEC_PER_MSEC));
		if (pause < NSEC_PER_SEC)
			pause *= 2;
	}
}

static struct nfs41_callhdr hdr(const struct nfs41_client *c)
{
	/* restamp() sets the xid. */
	return (struct nfs41_callhdr){.xid = 0, .stamp = c->stamp, .minor = c->minor};
}

static struct nfs41_seqargs seqargs(const struct nfs41_client *c)
{
	struct nfs41_seqargs s = {.seqid = c->slot_seqid + 1};
	memcpy(s.sessionid, c->sessionid, NFS41_SESSIONID_SIZE);
	return s;
}

void nfs41_client_init(struct nfs41_client *c, int fd, int64_t deadline)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->deadline = deadline;
	c->stamp = (uint32_t)(util_now_realtime_ns() / NSEC_PER_SEC);
	uint64_t rnd[2] = {0, 0};
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		rnd[0] = (uint64_t)util_now_realtime_ns() ^ ((uint64_t)getpid() << 32);
		rnd[1] = (uint64_t)util_now_mono_ns();
	}
	c->xid = (uint32_t)rnd[1];
	char host[64] = "";
	if (gethostname(host, sizeof(host)) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	/* Unique per probe: the server must never take it for the node's kernel client. */
	snprintf(c->owner, sizeof(c->owner), "hvready-probe/%s/%ld/%016llx", host, (long)getpid(),
		 (unsigned long long)rnd[0]);
}

int nfs41_exchange_id(struct nfs41_client *c, uint32_t minor)
{
	uint8_t verifier[NFS41_VERIFIER_SIZE];
	uint64_t v = (uint64_t)util_now_realtime_ns();
	for (size_t i = 0; i < sizeof(verifier); i++)
		verifier[i] = (uint8_t)(v >> (8 * i));
	c->minor = minor;
	struct nfs41_callhdr h = hdr(c);
	nfs41_enc_exchange_id(&c->call, &h, verifier, c->owner);
	int r = compound_retry(c, "EXCHANGE_ID");
	if (r < 0)
		return r;
	const __typeof__(c->reply.res[0].u.exchange_id) *x = &c->reply.res[0].u.exchange_id;
	c->clientid = x->clientid;
	c->eid_seqid = x->seqid;
	c->have_clientid = true;
	struct nfs41_server_info *si = &c->server;
	snprintf(si->impl_domain, sizeof(si->impl_domain), "%.*s", (int)x->impl_domain.len,
		 (const char *)x->impl_domain.p);
	snprintf(si->impl_name, sizeof(si->impl_name), "%.*s", (int)x->impl_name.len,
		 (const char *)x->impl_name.p);
	snprintf(si->major_id, sizeof(si->major_id), "%.*s", (int)x->major_id.len,
		 (const char *)x->major_id.p);
	for (char *s = (char *)si; s < (char *)(si + 1); s++)
		if (*s && ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f))
			*s = '?';
	return 0;
}

int nfs41_create_session(struct nfs41_client *c)
{
	struct nfs41_callhdr h = hdr(c);
	nfs41_enc_create_session(&c->call, &h, c->clientid, c->eid_seqid);
	int r = compound_retry(c, "CREATE_SESSION");
	if (r < 0)
		return r;
	const __typeof__(c->reply.res[0].u.create_session) *s = &c->reply.res[0].u.create_session;
	if (s->seqid != c->eid_seqid)
		return fail_with(c, NFS41_ERR_PROTO,
				 "CREATE_SESSION answered sequence id %u, not %u", s->seqid,
				 c->eid_seqid);
	if (s->fore.maxreqs == 0 || s->fore.maxops < 2)
		return fail_with(c, NFS41_ERR_PROTO,
				 "CREATE_SESSION granted no usable fore channel (%u slots, %u "
				 "operations)",
				 s->fore.maxreqs, s->fore.maxops);
	memcpy(c->sessionid, s->sessionid, NFS41_SESSIONID_SIZE);
	c->fore = s->fore;
	c->slot_seqid = 0;
	c->have_session = true;

	struct nfs41_seqargs sa = seqargs(c);
	h = hdr(c);
	nfs41_enc_reclaim_complete(&c->call, &h, &sa);
	r = compound_retry(c, "RECLAIM_COMPLETE");
	/* A server that already counts us as done is as good as done. */
	if (r < 0 && c->err.kind == NFS41_ERR_NFS && c->err.status == NFS4ERR_COMPLETE_ALREADY)
		return 0;
	return r;
}

/* Split an absolute path into its components (in buf). Returns the count or -E2BIG. */
static int split_path(const char *path, char *buf, size_t buflen,
		      const char *comps[NFS41_MAX_COMPONENTS])
{
	size_t n = 0;
	if (strlen(path) >= buflen)
		return -E2BIG;
	strcpy(buf, path);
	for (char *save = NULL, *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (n == NFS41_MAX_COMPONENTS || strlen(t) > NFS41_NAME_MAX)
			return -E2BIG;
		comps[n++] = t;
	}
	return (int)n;
}

int nfs41_lookup(struct nfs41_client *c, const char *path, struct nfs41_fh *ret_fh,
		 struct nfs41_attrs *ret_attrs)
{
	char buf[1024];
	const char *comps[NFS41_MAX_COMPONENTS];
	int n = split_path(path, buf, sizeof(buf), comps);
	if (n < 0)
		return fail_with(c, NFS41_ERR_LIMIT,
				 "the export path has more than %d components or one longer than "
				 "%d bytes",
				 NFS41_MAX_COMPONENTS, NFS41_NAME_MAX);
	struct nfs41_seqargs sa = seqargs(c);
	struct nfs41_callhdr h = hdr(c);
	nfs41_enc_lookup(&c->call, &h, &sa, comps, (size_t)n);
	int r = compound_retry(c, "LOOKUP");
	if (r < 0) {
		/* Results: SEQUENCE, PUTROOTFH, then LOOKUP i at index i + 2. */
		size_t failed = c->reply.nres;
		if (c->err.kind == NFS41_ERR_NFS && c->err.op == NFS41_OP_LOOKUP && failed >= 3 &&
		    failed - 3 < (size_t)n) {
			const char *name = nfs41_status_name(c->err.status);
			snprintf(c->err.msg, sizeof(c->err.msg),
				 "LOOKUP of \"%.*s\" (component %zu of %d) failed with %s", 96,
				 comps[failed - 3], failed - 2, n,
				 name ? name : "an unknown status");
		}
		return r;
	}
	const struct nfs41_reply *rep = &c->reply;
	const struct nfs41_bytes *fh = &rep->res[rep->nres - 2].u.getfh;
	const struct nfs41_attrs *a = &rep->res[rep->nres - 1].u.getattr;
	/* type and size are REQUIRED attributes (RFC 8881 §5.6). */
	if ((a->present & (NFS41_ATTR_TYPE | NFS41_ATTR_SIZE)) !=
	    (NFS41_ATTR_TYPE | NFS41_ATTR_SIZE))
		return fail_with(c, NFS41_ERR_PROTO,
				 "GETATTR did not return the REQUIRED type and size");
	ret_fh->len = fh->len;
	memcpy(ret_fh->data, fh->p, fh->len);
	*ret_attrs = *a;
	return 0;
}

int nfs41_open(struct nfs41_client *c, const struct nfs41_fh *dir, const char *name, bool create,
	       uint32_t mode, struct nfs41_open *ret)
{
	struct nfs41_seqargs sa = seqargs(c);
	struct nfs41_callhdr h = hdr(c);
	nfs41_enc_open(&c->call, &h, &sa, dir, name, create, mode, c->clientid, "hvready-canary");
	int r = compound_retry(c, "OPEN");
	if (r < 0)
		return r;
	/* SEQUENCE, PUTFH, OPEN, GETFH */
	const struct nfs41_bytes *fh = &c->reply.res[3].u.getfh;
	ret->stateid = c->reply.res[2].u.open.stateid;
	ret->fh.len = fh->len;
	memcpy(ret->fh.data, fh->p, fh->len);
	return 0;
}

int nfs41_write_close(struct nfs41_client *c, const struct nfs41_open *o, const void *data,
		      uint32_t len, uint32_t *ret_written)
{
	if (len > NFS41_IO_MAX)
		return fail_with(c, NFS41_ERR_LIMIT, "a WRITE of more than %d bytes", NFS41_IO_MAX);
	struct nfs41_seqargs sa = seqargs(c);
	struct nfs41_callhdr h = hdr(c);
	nfs41_enc_write_close(&c->call, &h, &sa, &o->fh, &o->stateid, data, len);
	int r = compound_retry(c, "WRITE");
	if (r < 0)
		return r;
	const __typeof__(c->reply.res[2].u.write) *w = &c->reply.res[2].u.write;
	if (w->count > len)
		return fail_with(c, NFS41_ERR_PROTO, "WRITE acknowledged %u bytes of %u", w->count,
				 len);
	/* FILE_SYNC4 asked: the server must not answer with a weaker stability. */
	if (w->committed != FILE_SYNC4)
		return fail_with(c, NFS41_ERR_PROTO, "WRITE with FILE_SYNC4 acknowledged as %s",
				 w->committed == 0 ? "UNSTABLE4" : "DATA_SYNC4");
	*ret_written = w->count;
	return 0;
}

int nfs41_read_close(struct nfs41_client *c, const struct nfs41_open *o, void *buf, uint32_t cap,
		     uint32_t *ret_len)
{
	if (cap > NFS41_IO_MAX)
		cap = NFS41_IO_MAX;
	struct nfs41_seqargs sa = seqargs(c);
	struct nfs41_callhdr h = hdr(c);
	nfs41_enc_read_close(&c->call, &h, &sa, &o->fh, &o->stateid, cap);
	int r = compound_retry(c, "READ");
	if (r < 0)
		return r;
	const struct nfs41_bytes *d = &c->reply.res[2].u.read.data;
	if (d->len > cap)
		return fail_with(c, NFS41_ERR_PROTO, "READ returned %u bytes for %u asked", d->len,
				 cap);
	memcpy(buf, d->p, d->len);
	*ret_len = d->len;
	return 0;
}

int nfs41_close_file(struct nfs41_client *c, const struct nfs41_open *o)
{
	struct nfs41_seqargs sa = seqargs(c);
	struct nfs41_callhdr h = hdr(c);
	nfs41_enc_close(&c->call, &h, &sa, &o->fh, &o->stateid);
	return compound_retry(c, "CLOSE");
}

int nfs41_remove(struct nfs41_client *c, const struct nfs41_fh *dir, const char *name)
{
	struct nfs41_seqargs sa = seqargs(c);
	struct nfs41_callhdr h = hdr(c);
	nfs41_enc_remove(&c->call, &h, &sa, dir, name);
	return compound_retry(c, "REMOVE");
}

void nfs41_client_fini(struct nfs41_client *c)
{
	struct nfs41_error saved = c->err;
	struct nfs41_callhdr h = hdr(c);
	/* The probe is decided: a server slow to tear down gets a second, not the rest. */
	int64_t cap = util_now_mono_ns() + NFS41_TEARDOWN_NS;
	if (c->deadline > cap)
		c->deadline = cap;
	if (c->fd >= 0 && !c->broken && c->have_session) {
		nfs41_enc_destroy_session(&c->call, &h, c->sessionid);
		restamp(c);
		(void)compound(c, "DESTROY_SESSION");
	}
	if (c->fd >= 0 && !c->broken && c->have_clientid) {
		nfs41_enc_destroy_clientid(&c->call, &h, c->clientid);
		restamp(c);
		(void)compound(c, "DESTROY_CLIENTID");
	}
	c->err = saved;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->have_session = c->have_clientid = false;
	nfs41_rec_free(&c->rec);
}
