#include "nfs_probe.h"
#include "netguard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
/* libnfs.h uses struct timeval without including its header. */
#include <sys/time.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs4.h>

#include "nfs41.h"
#include "util.h"

/* ---------------------------------------------------------------- URL */

static bool ascii_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool ascii_lower_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* RFC 3986 pchar without percent-encoding, plus "/". */
static bool path_char(unsigned char c)
{
	return ascii_alnum(c) || (c && strchr("-._~!$&'()*+,;=:@/", c));
}

static int parse_hostname(const char *h, size_t n, char *err, size_t errlen)
{
	bool numeric = true;
	for (size_t i = 0; i < n; i++)
		if (!(h[i] >= '0' && h[i] <= '9') && h[i] != '.')
			numeric = false;
	if (numeric) {
		struct in_addr a;
		if (inet_pton(AF_INET, h, &a) != 1)
			return util_fail(err, errlen, "\"%s\" is not a valid IPv4 address", h);
		return 0;
	}
	if (n > NFS_PROBE_HOST_MAX)
		return util_fail(err, errlen, "host name longer than %d characters",
				 NFS_PROBE_HOST_MAX);
	size_t label = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || h[i] == '.') {
			if (label == 0 && !(i == n && i > 0))
				return util_fail(err, errlen, "host name \"%s\" has an empty label",
						 h);
			if (label > 63)
				return util_fail(err, errlen,
						 "host name \"%s\" has a label over 63 characters",
						 h);
			if (label > 0 && (h[i - 1] == '-' || h[i - label] == '-'))
				return util_fail(
				    err, errlen,
				    "host name \"%s\": a label starts or ends with '-'", h);
			label = 0;
			continue;
		}
		if (!ascii_alnum((unsigned char)h[i]) && h[i] != '-')
			return util_fail(err, errlen,
					 "character '%c' is not allowed in host name \"%s\"", h[i],
					 h);
		label++;
	}
	return 0;
}

static int parse_port(const char *s, size_t n, uint16_t *ret, char *err, size_t errlen)
{
	if (n == 0)
		return util_fail(err, errlen, "empty port after ':'");
	uint32_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return util_fail(err, errlen, "port \"%.*s\" is not a number", (int)n, s);
		v = v * 10 + (uint32_t)(s[i] - '0');
		if (v > 65535)
			return util_fail(err, errlen, "port \"%.*s\" is above 65535", (int)n, s);
	}
	if (v == 0)
		return util_fail(err, errlen, "port 0 is not a valid port");
	*ret = (uint16_t)v;
	return 0;
}

static int parse_authority(const char *a, size_t n, struct nfs_probe_url *u, char *err,
			   size_t errlen)
{
	const char *port = NULL;
	size_t port_len = 0;
	if (n == 0)
		return util_fail(err, errlen, "no host after nfs://");
	if (memchr(a, '@', n))
		return util_fail(err, errlen, "user information before '@' is not used by NFS");
	if (a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close)
			return util_fail(err, errlen, "'[' without ']' around the IPv6 address");
		size_t hl = (size_t)(close - a - 1);
		if (hl == 0 || hl > sizeof(u->host) - 1)
			return util_fail(err, errlen, "empty or oversized IPv6 address");
		memcpy(u->host, a + 1, hl);
		u->host[hl] = '\0';
		if (strchr(u->host, '%'))
			return util_fail(err, errlen, "IPv6 zone identifiers are not supported");
		struct in6_addr a6;
		if (inet_pton(AF_INET6, u->host, &a6) != 1)
			return util_fail(err, errlen, "\"%s\" is not a valid IPv6 address",
					 u->host);
		u->host_is_v6 = true;
		const char *rest = close + 1;
		size_t rl = n - (size_t)(rest - a);
		if (rl > 0) {
			if (rest[0] != ':')
				return util_fail(err, errlen, "unexpected \"%.*s\" after ']'",
						 (int)rl, rest);
			port = rest + 1;
			port_len = rl - 1;
		}
	} else {
		const char *colon = memchr(a, ':', n);
		size_t hl = colon ? (size_t)(colon - a) : n;
		if (colon) {
			if (memchr(colon + 1, ':', n - hl - 1))
				return util_fail(err, errlen,
						 "an IPv6 address must be written in brackets "
						 "(nfs://[fd00::1]/EXPORT)");
			port = colon + 1;
			port_len = n - hl - 1;
		}
		if (hl == 0)
			return util_fail(err, errlen, "no host after nfs://");
		if (hl > sizeof(u->host) - 1)
			return util_fail(err, errlen, "host name longer than %d characters",
					 NFS_PROBE_HOST_MAX);
		memcpy(u->host, a, hl);
		u->host[hl] = '\0';
		int r = parse_hostname(u->host, hl, err, errlen);
		if (r < 0)
			return r;
	}
	if (port) {
		int r = parse_port(port, port_len, &u->port, err, errlen);
		if (r < 0)
			return r;
		u->port_given = true;
	}
	return 0;
}

/* Validate and normalise the export path into u->export_path. */
static int parse_path(const char *p, size_t n, struct nfs_probe_url *u, char *err, size_t errlen)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++)
		if (!path_char((unsigned char)p[i]))
			return util_fail(err, errlen,
					 "character '%c' is not allowed in the export path", p[i]);
	for (size_t i = 0; i < n;) {
		while (i < n && p[i] == '/')
			i++;
		size_t s = i;
		while (i < n && p[i] != '/')
			i++;
		size_t cl = i - s;
		if (cl == 0)
			break;
		if ((cl == 1 && p[s] == '.') || (cl == 2 && p[s] == '.' && p[s + 1] == '.'))
			return util_fail(err, errlen,
					 "the export path has a \".\" or \"..\" component");
		u->export_path[o++] = '/';
		memcpy(u->export_path + o, p + s, cl);
		o += cl;
	}
	if (o == 0)
		u->export_path[o++] = '/';
	u->export_path[o] = '\0';
	return 0;
}

int nfs_probe_url_parse(const uint8_t *buf, size_t len, struct nfs_probe_url *ret, char *err,
			size_t errlen)
{
	struct nfs_probe_url u = {.port = NFS_PROBE_DEFAULT_PORT};
	const char *s = (const char *)buf;
	static const char scheme[] = "nfs://";
	const size_t sl = sizeof(scheme) - 1;

	if (len == 0)
		return util_fail(err, errlen, "empty URL");
	if (len >= NFS_PROBE_URL_MAX)
		return util_fail(err, errlen, "URL longer than %d bytes", NFS_PROBE_URL_MAX - 1);
	for (size_t i = 0; i < len; i++)
		if (buf[i] <= 0x20 || buf[i] >= 0x7f)
			return util_fail(err, errlen,
					 "byte %zu is a space, control or non-ASCII character", i);
	if (len < sl || strncasecmp(s, scheme, sl) != 0)
		return util_fail(err, errlen,
				 "not an nfs:// URL (expected nfs://HOST[:PORT]/EXPORT)");
	if (memchr(s, '?', len))
		return util_fail(err, errlen,
				 "a query (\"?...\") is not accepted: the port belongs in "
				 "the host part (nfs://HOST:PORT/EXPORT)");
	if (memchr(s, '#', len))
		return util_fail(err, errlen, "a fragment (\"#...\") is not accepted");
	const char *a = s + sl, *end = s + len;
	const char *slash = memchr(a, '/', (size_t)(end - a));
	int r = parse_authority(a, (size_t)((slash ? slash : end) - a), &u, err, errlen);
	if (r < 0)
		return r;
	if (!slash)
		return util_fail(err, errlen, "no export path (expected nfs://HOST[:PORT]/EXPORT)");
	r = parse_path(slash, (size_t)(end - slash), &u, err, errlen);
	if (r < 0)
		return r;
	*ret = u;
	return 0;
}

bool nfs_probe_url_volume(const struct nfs_probe_url *u, char *buf, size_t len)
{
	/* A Kubernetes object name (DNS-1123 subdomain): the volume's CR name. */
	const char *n = u->export_path + 1;
	size_t nl = strlen(n);
	if (u->export_path[0] != '/' || nl == 0 || nl > 253 || nl >= len || strchr(n, '/'))
		return false;
	for (size_t i = 0; i < nl; i++) {
		unsigned char c = (unsigned char)n[i];
		bool edge = i == 0 || i == nl - 1;
		if (!ascii_lower_alnum(c) && (edge || (c != '-' && c != '.')))
			return false;
	}
	memcpy(buf, n, nl + 1);
	return true;
}

/* ---------------------------------------------------------------- names */

const char *nfs_probe_step_name(enum nfs_probe_step s)
{
	static const char *const names[] = {
	    [NFS_STEP_RESOLVE] = "resolve", [NFS_STEP_CONNECT] = "connect",
	    [NFS_STEP_MOUNT] = "mount",	    [NFS_STEP_GETATTR] = "getattr",
	    [NFS_STEP_CREATE] = "create",   [NFS_STEP_WRITE] = "write",
	    [NFS_STEP_READ] = "read",	    [NFS_STEP_COMPARE] = "compare",
	    [NFS_STEP_REMOVE] = "remove",   [NFS_STEP_DONE] = "done",
	};
	return (unsigned)s < ELEMENTSOF(names) ? names[s] : "unknown";
}

const char *nfs_probe_outcome_name(enum nfs_probe_outcome o)
{
	static const char *const names[] = {
	    [NFS_PROBE_OK] = "ok",
	    [NFS_PROBE_NFS_ERROR] = "nfs-error",
	    [NFS_PROBE_REFUSED] = "connection-refused",
	    [NFS_PROBE_SOCKET_ERROR] = "socket-error",
	    [NFS_PROBE_DISCONNECTED] = "disconnected",
	    [NFS_PROBE_TIMEOUT] = "timeout",
	    [NFS_PROBE_RESOLVE] = "resolve-failed",
	    [NFS_PROBE_NO_VERSION] = "no-common-version",
	    [NFS_PROBE_RPC_ERROR] = "rpc-error",
	    [NFS_PROBE_BAD_REPLY] = "bad-reply",
	    [NFS_PROBE_MISMATCH] = "data-mismatch",
	    [NFS_PROBE_SHORT_IO] = "short-io",
	    [NFS_PROBE_INTERNAL] = "internal-error",
	};
	return (unsigned)o < ELEMENTSOF(names) ? names[o] : "unknown";
}

const char *nfs_probe_client_name(enum nfs_probe_client c)
{
	switch (c) {
	case NFS_CLIENT_NONE:
		return NULL;
	case NFS_CLIENT_HVREADY41:
		return "hvready nfs4.1";
	case NFS_CLIENT_LIBNFS40:
		return "libnfs nfs4.0";
	}
	return NULL;
}

/* ---------------------------------------------------------------- resolution */

static int64_t ms_since(int64_t start_ns)
{
	return (util_now_mono_ns() - start_ns) / NSEC_PER_MSEC;
}

struct target {
	struct sockaddr_storage ss;
	socklen_t len;
};

/* Keep the first address and its numeric form. */
static void take_address(const struct addrinfo *ai, struct target *t, char *buf, size_t len)
{
	memcpy(&t->ss, ai->ai_addr, ai->ai_addrlen);
	t->len = ai->ai_addrlen;
	if (getnameinfo(ai->ai_addr, ai->ai_addrlen, buf, (socklen_t)len, NULL, 0,
			NI_NUMERICHOST) != 0)
		snprintf(buf, len, "?");
}

/*
 * Host name to a numeric address, within the deadline. libnfs resolves with a
 * blocking getaddrinfo(), so it only ever gets numeric addresses from us.
 * Longhorn writes Service IPs; names go through getaddrinfo_a() so that a
 * dead resolver cannot hold the probe past its deadline. A lookup that can
 * no longer be cancelled keeps its request block, which is leaked on purpose.
 */
struct lookup {
	struct gaicb cb;
	struct addrinfo hints;
	char name[NFS_PROBE_HOST_MAX + 1];
};

static int resolve_addr(const struct nfs_probe_url *u, int64_t deadline, struct target *t,
			struct nfs_probe_result *res);

/* The endpoint comes from a cluster object: not a metadata service (netguard.h),
 * whatever name leads there. */
static int resolve(const struct nfs_probe_url *u, int64_t deadline, struct target *t,
		   struct nfs_probe_result *res)
{
	int r = resolve_addr(u, deadline, t, res);
	if (r == 0 && !netguard_probe_addr_allowed((const struct sockaddr *)&t->ss)) {
		snprintf(res->nfs_error, sizeof(res->nfs_error), "%s", NETGUARD_METADATA_WHY);
		return -EPERM;
	}
	return r;
}

static int resolve_addr(const struct nfs_probe_url *u, int64_t deadline, struct target *t,
			struct nfs_probe_result *res)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST};
	struct addrinfo *ai = NULL;
	if (!netguard_host_allowed(u->host)) {
		/* Tests allow loopback and their own namespaces only (netguard.h). */
		snprintf(res->nfs_error, sizeof(res->nfs_error), "not contacted (%s)",
			 NETGUARD_ENV);
		return -EIO;
	}
	if (getaddrinfo(u->host, NULL, &hints, &ai) == 0) {
		take_address(ai, t, res->address, sizeof(res->address));
		freeaddrinfo(ai);
		return 0;
	}
	struct lookup *l = xcalloc(1, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", u->host);
	l->hints = (struct addrinfo){.ai_socktype = SOCK_STREAM};
	l->cb = (struct gaicb){.ar_name = l->name, .ar_request = &l->hints};
	struct gaicb *list[1] = {&l->cb};
	int r = getaddrinfo_a(GAI_NOWAIT, list, 1, NULL);
	if (r != 0) {
		snprintf(res->nfs_error, sizeof(res->nfs_error), "%s", gai_strerror(r));
		free(l);
		return -EIO;
	}
	for (;;) {
		int64_t left = deadline - util_now_mono_ns();
		if (left <= 0) {
			if (gai_cancel(&l->cb) == EAI_NOTCANCELED)
				return -ETIMEDOUT; /* l stays with the resolver thread */
			break;
		}
		struct timespec ts = {.tv_sec = left / NSEC_PER_SEC,
				      .tv_nsec = left % NSEC_PER_SEC};
		r = gai_suspend((const struct gaicb *const *)list, 1, &ts);
		if (r == EAI_AGAIN || r == EAI_INTR)
			continue;
		break;
	}
	r = gai_error(&l->cb);
	if (r == EAI_CANCELED || r == EAI_INPROGRESS) {
		if (l->cb.ar_result)
			freeaddrinfo(l->cb.ar_result);
		free(l);
		return -ETIMEDOUT;
	}
	if (r != 0) {
		snprintf(res->nfs_error, sizeof(res->nfs_error), "%s", gai_strerror(r));
		free(l);
		return -ENOENT;
	}
	take_address(l->cb.ar_result, t, res->address, sizeof(res->address));
	freeaddrinfo(l->cb.ar_result);
	free(l);
	return 0;
}

/* ---------------------------------------------------------------- the event pump */

enum call_kind { CALL_PLAIN, CALL_STAT, CALL_OPEN, CALL_READ };

#define CANARY_MAX 160

struct op {
	enum call_kind kind;
	bool done;
	int status; /* >= 0 success (bytes for READ/WRITE), -errno failure */
	char err[256];
	struct nfsfh *fh;
	struct nfs_stat_64 st;
	uint8_t data[CANARY_MAX];
	size_t data_len;
};

/*
 * A call that missed the deadline stays queued in libnfs until
 * nfs_destroy_context() cancels it and runs its callback, so every op lives
 * in the probe, which outlives the context, and none is ever reused.
 */
#define PROBE_MAX_OPS 16

struct probe {
	struct nfs_context *nfs;
	int64_t deadline;
	struct nfs_probe_result *res;
	bool hup;	     /* the socket reported POLLHUP/POLLERR */
	bool service_failed; /* libnfs gave the connection up (EOF, error) */
	struct op ops[PROBE_MAX_OPS];
	size_t nops;
};

static struct op *op_new(struct probe *p, enum call_kind kind)
{
	if (p->nops == PROBE_MAX_OPS)
		abort(); /* a fixed sequence of calls: a programming error */
	struct op *op = &p->ops[p->nops++];
	*op = (struct op){.kind = kind};
	return op;
}

static void nfs_done(int status, struct nfs_context *nfs, void *data, void *priv)
{
	struct op *op = priv;
	op->done = true;
	op->status = status;
	if (status < 0) {
		snprintf(op->err, sizeof(op->err), "%s", data ? (const char *)data : "");
		return;
	}
	switch (op->kind) {
	case CALL_STAT:
		if (data)
			op->st = *(const struct nfs_stat_64 *)data;
		break;
	case CALL_OPEN:
		op->fh = data;
		break;
	case CALL_READ:
		op->data_len =
		    (size_t)status < sizeof(op->data) ? (size_t)status : sizeof(op->data);
		if (data)
			memcpy(op->data, data, op->data_len);
		break;
	case CALL_PLAIN:
		break;
	}
}

static void note_connected(struct probe *p, int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (!p->res->tcp_connected && fd >= 0 && getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		p->res->tcp_connected = true;
}

/*
 * Drive rpc (or nfs, which owns its rpc) until *done or the deadline.
 * Returns 0 when done, -ETIMEDOUT, or -EPIPE when the socket failed (its
 * errno, if any, is in res->sock_errno). A failing rpc_service() may have
 * completed the operation with an error first: callers look at *done.
 */
static int pump(struct probe *p, struct nfs_context *nfs, struct rpc_context *rpc, const bool *done)
{
	while (!*done) {
		int64_t left = p->deadline - util_now_mono_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		int fd = nfs ? nfs_get_fd(nfs) : rpc_get_fd(rpc);
		if (fd < 0)
			return -EPIPE;
		struct pollfd pfd = {
		    .fd = fd,
		    .events = (short)(nfs ? nfs_which_events(nfs) : rpc_which_events(rpc))};
		int ms = (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
		int r = poll(&pfd, 1, ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
			int e = 0;
			socklen_t el = sizeof(e);
			p->hup = true;
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e != 0)
				p->res->sock_errno = e;
		}
		note_connected(p, fd);
		r = nfs ? nfs_service(nfs, pfd.revents) : rpc_service(rpc, pfd.revents);
		if (r < 0) {
			p->service_failed = true;
			return *done ? 0 : -EPIPE;
		}
	}
	return 0;
}

/* "... failed with NFS4ERR_NOENT(-2)" → "NFS4ERR_NOENT". */
static void extract_status(const char *msg, char *buf, size_t len)
{
	const char *s = strstr(msg, "NFS4ERR_");
	buf[0] = '\0';
	if (!s)
		return;
	size_t n = 0;
	while (s[n] && (ascii_alnum((unsigned char)s[n]) || s[n] == '_'))
		n++;
	snprintf(buf, len, "%.*s", (int)n, s);
}

/* Record why op (at step) did not succeed; pump_r is pump()'s return. */
static void record_failure(struct probe *p, const struct op *op, int pump_r,
			   enum nfs_probe_step step)
{
	struct nfs_probe_result *res = p->res;
	res->step = step;
	/* A call failed by a dropped connection carries no message of its own. */
	if (op && op->done && op->err[0])
		snprintf(res->nfs_error, sizeof(res->nfs_error), "%s", op->err);
	else if (p->nfs && nfs_get_error(p->nfs))
		snprintf(res->nfs_error, sizeof(res->nfs_error), "%s", nfs_get_error(p->nfs));
	extract_status(res->nfs_error, res->nfs_status, sizeof(res->nfs_status));
	if (!res->tcp_connected && (step == NFS_STEP_MOUNT || step == NFS_STEP_CONNECT))
		res->step = NFS_STEP_CONNECT;
	if (pump_r == -ETIMEDOUT)
		res->outcome = NFS_PROBE_TIMEOUT;
	else if (res->sock_errno == ECONNREFUSED)
		res->outcome = NFS_PROBE_REFUSED;
	else if (res->sock_errno)
		res->outcome = NFS_PROBE_SOCKET_ERROR;
	else if (res->nfs_status[0])
		res->outcome = NFS_PROBE_NFS_ERROR;
	else if (pump_r == -EPIPE || p->hup || p->service_failed)
		res->outcome = NFS_PROBE_DISCONNECTED;
	else
		res->outcome = NFS_PROBE_NFS_ERROR;
}

/* Queue with submit() (its return), then pump; on failure record it and return false. */
static bool finish(struct probe *p, struct op *op, int submit_r, enum nfs_probe_step step)
{
	if (submit_r < 0) {
		p->res->step = step;
		p->res->outcome = NFS_PROBE_INTERNAL;
		snprintf(p->res->nfs_error, sizeof(p->res->nfs_error), "%s",
			 nfs_get_error(p->nfs) ? nfs_get_error(p->nfs) : "libnfs refused the call");
		return false;
	}
	int r = pump(p, p->nfs, NULL, &op->done);
	if (r == 0 && op->done && op->status >= 0)
		return true;
	record_failure(p, op, r, step);
	return false;
}

/* ---------------------------------------------------------------- the probe */

/*
 * Our own TCP connect, under the probe's deadline. It tells a refused or
 * unanswered connection apart with the socket's own errno. Returns the
 * connected non-blocking socket (the NFSv4.1 client speaks on it), or -1 with
 * the failure recorded. libnfs connects again on its own: our connect also
 * keeps it out of the one state it cannot be torn down from without a leak
 * (a context destroyed while its connect is pending loses the connect's
 * callback data).
 */
static int preflight(struct probe *p, struct target *t, uint16_t port)
{
	struct nfs_probe_result *res = p->res;
	if (t->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&t->ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&t->ss)->sin_port = htons(port);
	int64_t start = util_now_mono_ns();
	_cleanup_close_ int fd =
	    socket(t->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		res->sock_errno = errno;
		res->outcome = NFS_PROBE_SOCKET_ERROR;
		res->step = NFS_STEP_CONNECT;
		return -1;
	}
	int e = 0;
	if (connect(fd, (struct sockaddr *)&t->ss, t->len) < 0) {
		e = errno;
		while (e == EINPROGRESS || e == EINTR) {
			int64_t left = p->deadline - util_now_mono_ns();
			if (left <= 0) {
				res->outcome = NFS_PROBE_TIMEOUT;
				res->step = NFS_STEP_CONNECT;
				return -1;
			}
			struct pollfd pfd = {.fd = fd, .events = POLLOUT};
			int r = poll(&pfd, 1, (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));
			if (r < 0 && errno != EINTR) {
				e = errno;
				break;
			}
			if (r > 0) {
				socklen_t el = sizeof(e);
				if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
					e = errno;
				break;
			}
		}
	}
	if (e != 0) {
		res->sock_errno = e;
		res->outcome = e == ECONNREFUSED ? NFS_PROBE_REFUSED : NFS_PROBE_SOCKET_ERROR;
		res->step = NFS_STEP_CONNECT;
		return -1;
	}
	res->tcp_connected = true;
	res->connect_ms = ms_since(start);
	int ret = fd;
	fd = -1;
	return ret;
}

static void canary_name(char *buf, size_t len)
{
	uint64_t rnd = 0;
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd = (uint64_t)util_now_realtime_ns();
	snprintf(buf, len, "/.hvready-canary-%ld-%016llx", (long)getpid(), (unsigned long long)rnd);
}

/* Name the canary file and fill msg with what will be written; returns its length. */
static size_t canary_begin(struct nfs_probe_result *res, char *msg, size_t len)
{
	canary_name(res->canary_file, sizeof(res->canary_file));
	int n = snprintf(msg, len, "hvready canary %s %lld\n", res->canary_file + 1,
			 (long long)util_now_realtime_ns());
	res->canary_bytes = (size_t)n;
	return (size_t)n;
}

static bool canary_compare(struct nfs_probe_result *res, const uint8_t *got, size_t got_len,
			   const char *msg, size_t n)
{
	if (got_len == n && memcmp(got, msg, n) == 0)
		return true;
	res->step = NFS_STEP_COMPARE;
	res->outcome = got_len < n ? NFS_PROBE_SHORT_IO : NFS_PROBE_MISMATCH;
	snprintf(res->nfs_error, sizeof(res->nfs_error),
		 "read back %zu bytes starting \"%.*s\" after writing %zu", got_len,
		 (int)(got_len > 32 ? 32 : got_len), (const char *)got, n);
	for (char *c = res->nfs_error; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	return false;
}

/* ---------------------------------------------------------------- NFSv4.1 */

/* Record why the NFSv4.1 client failed at step. */
static void record_nfs41(struct nfs_probe_result *res, const struct nfs41_client *c,
			 enum nfs_probe_step step)
{
	const struct nfs41_error *e = &c->err;
	res->step = step;
	snprintf(res->nfs_error, sizeof(res->nfs_error), "%s", e->msg);
	switch (e->kind) {
	case NFS41_ERR_NONE: /* a failure always says why; never taken */
		res->outcome = NFS_PROBE_INTERNAL;
		break;
	case NFS41_ERR_NFS: {
		const char *name = nfs41_status_name(e->status);
		if (name)
			snprintf(res->nfs_status, sizeof(res->nfs_status), "%s", name);
		else
			snprintf(res->nfs_status, sizeof(res->nfs_status), "NFS4ERR_%u", e->status);
		res->outcome = NFS_PROBE_NFS_ERROR;
		if (e->op == NFS41_OP_GETATTR && step == NFS_STEP_MOUNT)
			res->step = NFS_STEP_GETATTR;
		break;
	}
	case NFS41_ERR_RPC:
		res->outcome = NFS_PROBE_RPC_ERROR;
		snprintf(res->rpc_status, sizeof(res->rpc_status), "%s", e->rpc_status);
		break;
	case NFS41_ERR_PROTO:
		res->outcome = NFS_PROBE_BAD_REPLY;
		break;
	case NFS41_ERR_TIMEOUT:
		res->outcome = NFS_PROBE_TIMEOUT;
		break;
	case NFS41_ERR_SOCKET:
		res->sock_errno = e->sock_errno;
		res->outcome = NFS_PROBE_SOCKET_ERROR;
		break;
	case NFS41_ERR_EOF:
		res->outcome = NFS_PROBE_DISCONNECTED;
		break;
	case NFS41_ERR_LIMIT:
		res->outcome = NFS_PROBE_INTERNAL;
		break;
	}
}

/* Did this failure leave the server's state unknown (the call may have taken effect)? */
static bool nfs41_outcome_unknown(const struct nfs41_client *c)
{
	return c->err.kind != NFS41_ERR_NFS && c->err.kind != NFS41_ERR_LIMIT &&
	       c->err.kind != NFS41_ERR_RPC;
}

/* WRITE+CLOSE; a failed WRITE leaves the file open: close it on the way out. */
static bool canary41_write(struct nfs41_client *c, struct nfs_probe_result *res,
			   const struct nfs41_open *o, const char *msg, size_t n)
{
	uint32_t written = 0;
	if (nfs41_write_close(c, o, msg, (uint32_t)n, &written) < 0) {
		record_nfs41(res, c, NFS_STEP_WRITE);
		if (c->err.kind == NFS41_ERR_NFS && c->err.op != NFS41_OP_CLOSE)
			(void)nfs41_close_file(c, o);
		return false;
	}
	if (written != n) {
		res->step = NFS_STEP_WRITE;
		res->outcome = NFS_PROBE_SHORT_IO;
		snprintf(res->nfs_error, sizeof(res->nfs_error), "the server wrote %u of %zu bytes",
			 written, n);
		return false;
	}
	return true;
}

/* A fresh OPEN by name, READ, CLOSE: what another client would see. */
static bool canary41_read(struct nfs41_client *c, struct nfs_probe_result *res,
			  const struct nfs41_fh *dir, const char *name, uint8_t *buf, size_t cap,
			  uint32_t *ret_len)
{
	struct nfs41_open o;
	if (nfs41_open(c, dir, name, false, 0, &o) < 0) {
		record_nfs41(res, c, NFS_STEP_READ);
		return false;
	}
	if (nfs41_read_close(c, &o, buf, (uint32_t)cap, ret_len) < 0) {
		record_nfs41(res, c, NFS_STEP_READ);
		if (c->err.kind == NFS41_ERR_NFS && c->err.op != NFS41_OP_CLOSE)
			(void)nfs41_close_file(c, &o);
		return false;
	}
	return true;
}

static void canary41(struct nfs41_client *c, struct nfs_probe_result *res,
		     const struct nfs41_fh *root)
{
	char msg[CANARY_MAX];
	uint8_t got[CANARY_MAX];
	uint32_t got_len = 0;
	int64_t t = util_now_mono_ns();
	size_t n = canary_begin(res, msg, sizeof(msg));
	const char *name = res->canary_file + 1;

	struct nfs41_open o;
	if (nfs41_open(c, root, name, true, 0600, &o) < 0) {
		record_nfs41(res, c, NFS_STEP_CREATE);
		/* An OPEN lost on the way back may still have created the file. */
		if (nfs41_outcome_unknown(c)) {
			res->canary_left_behind = true;
			res->canary_left_maybe = true;
		}
		return;
	}
	res->canary_left_behind = true;
	bool ok = canary41_write(c, res, &o, msg, n) &&
		  canary41_read(c, res, root, name, got, sizeof(got), &got_len) &&
		  canary_compare(res, got, got_len, msg, n);
	/* Remove the file whatever happened, while the connection and deadline allow. */
	if (nfs41_remove(c, root, name) == 0) {
		res->canary_left_behind = false;
	} else if (ok) {
		record_nfs41(res, c, NFS_STEP_REMOVE);
		ok = false;
	}
	if (ok)
		res->canary_ms = ms_since(t);
}

static void copy_root_attrs(struct nfs_probe_result *res, const struct nfs41_attrs *a)
{
	static const uint32_t types[] = {0,	  S_IFREG,  S_IFDIR, S_IFBLK, S_IFCHR,
					 S_IFLNK, S_IFSOCK, S_IFIFO, S_IFDIR, S_IFREG};
	res->have_root = true;
	res->root_mode = a->type < ELEMENTSOF(types) ? types[a->type] : 0;
	res->root_known = 0;
	if (a->present & NFS41_ATTR_MODE) {
		res->root_mode |= a->mode;
		res->root_known |= NFS_ROOT_MODE;
	}
	if (a->present & NFS41_ATTR_FILEID)
		res->root_ino = a->fileid;
	if ((a->present & NFS41_ATTR_OWNER) && (a->present & NFS41_ATTR_OWNER_GROUP)) {
		snprintf(res->root_owner, sizeof(res->root_owner), "%.*s",
			 (int)(a->owner.len < 63 ? a->owner.len : 63), (const char *)a->owner.p);
		snprintf(res->root_group, sizeof(res->root_group), "%.*s",
			 (int)(a->owner_group.len < 63 ? a->owner_group.len : 63),
			 (const char *)a->owner_group.p);
		res->root_known |= NFS_ROOT_NAMES;
		for (char *s = res->root_owner; *s; s++)
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
				*s = '?';
		for (char *s = res->root_group; *s; s++)
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
				*s = '?';
		/* Longhorn's share-manager sets Only_Numeric_Owners: "0", not "root@domain". */
		int64_t uid, gid;
		if (util_parse_i64(res->root_owner, &uid) == 0 &&
		    util_parse_i64(res->root_group, &gid) == 0 && uid >= 0 && uid <= UINT32_MAX &&
		    gid >= 0 && gid <= UINT32_MAX) {
			res->root_uid = (uint32_t)uid;
			res->root_gid = (uint32_t)gid;
			res->root_known |= NFS_ROOT_IDS;
		}
	}
}

/*
 * Minor versions 1, then 2; returns -EPROTONOSUPPORT when libnfs (NFSv4.0)
 * should try: the server refused both, or refused 4.1 and then hung up on
 * 4.2 (RFC 7530 servers answer NFS4ERR_MINOR_VERS_MISMATCH, but the 4.0
 * probe runs on a connection of its own anyway).
 */
static int nfs41_negotiate(struct nfs41_client *c, struct nfs_probe_result *res)
{
	for (uint32_t m = 1; m <= 2; m++) {
		res->minors_tried |= 1u << m;
		if (nfs41_exchange_id(c, m) == 0) {
			res->nfs_minor = (int)m;
			return 0;
		}
		if (m > 1 && (c->err.kind == NFS41_ERR_EOF || c->err.kind == NFS41_ERR_SOCKET))
			return -EPROTONOSUPPORT;
		if (c->err.kind != NFS41_ERR_NFS || c->err.status != NFS4ERR_MINOR_VERS_MISMATCH)
			return -EIO;
		res->minors_refused |= 1u << m;
	}
	return -EPROTONOSUPPORT;
}

/* The NFSv4.1 probe on fd (taken). Returns false when libnfs 4.0 should try instead. */
static bool probe_nfs41(struct probe *p, const struct nfs_probe_url *u, int fd, bool canary)
{
	struct nfs_probe_result *res = p->res;
	_cleanup_free_ struct nfs41_client *c = xmalloc(sizeof(*c));
	nfs41_client_init(c, fd, p->deadline);
	res->client = NFS_CLIENT_HVREADY41;
	int64_t t = util_now_mono_ns();
	int r = nfs41_negotiate(c, res);
	if (r == -EPROTONOSUPPORT) {
		nfs41_client_fini(c);
		return false;
	}
	if (r == 0) {
		const struct nfs41_server_info *si = &c->server;
		if (si->impl_domain[0] || si->impl_name[0])
			snprintf(res->server_impl, sizeof(res->server_impl), "%s%s%s",
				 si->impl_name, si->impl_domain[0] ? " @ " : "", si->impl_domain);
		r = nfs41_create_session(c);
	}
	if (r < 0) {
		record_nfs41(res, c, NFS_STEP_MOUNT);
		nfs41_client_fini(c);
		return true;
	}
	res->session_ms = ms_since(t);
	t = util_now_mono_ns();
	struct nfs41_fh root;
	struct nfs41_attrs a;
	if (nfs41_lookup(c, u->export_path, &root, &a) < 0) {
		record_nfs41(res, c, NFS_STEP_MOUNT);
	} else {
		res->mount_ms = ms_since(t);
		copy_root_attrs(res, &a);
		if (canary)
			canary41(c, res, &root);
	}
	nfs41_client_fini(c);
	return true;
}

/* ---------------------------------------------------------------- libnfs NFSv4.0 */

static struct nfs_context *new_context(uint16_t port)
{
	struct nfs_context *nfs = nfs_init_context();
	if (!nfs)
		return NULL;
	/*
	 * libnfs 4.0 has no nfs_set_nfsport(): its URL options are the only way
	 * to set the port. The host in this URL is never used; the mount gets
	 * the address we resolved.
	 */
	char opts[96];
	snprintf(opts, sizeof(opts), "nfs://localhost/?version=4&nfsport=%u", port);
	struct nfs_url *url = nfs_parse_url_incomplete(nfs, opts);
	if (!url || nfs_set_version(nfs, NFS_V4) != 0) {
		nfs_destroy_url(url);
		nfs_destroy_context(nfs);
		return NULL;
	}
	nfs_destroy_url(url);
	nfs_set_autoreconnect(nfs, 0);
	/* No client-side caching: the canary must read what the server stored. */
	nfs_set_pagecache(nfs, 0);
	nfs_set_readahead(nfs, 0);
	nfs_set_dircache(nfs, 0);
	/* No nfs4_set_client_name(): libnfs 4.0 never frees the name. Its
	 * default ("Libnfs pid:PID TIME") is unique per context already. */
	return nfs;
}

static bool mount_and_getattr(struct probe *p, const struct nfs_probe_url *u)
{
	struct nfs_probe_result *res = p->res;
	int64_t t = util_now_mono_ns();
	struct op *op = op_new(p, CALL_PLAIN);
	res->minors_tried |= 1u;
	if (!finish(p, op, nfs_mount_async(p->nfs, res->address, u->export_path, nfs_done, op),
		    NFS_STEP_MOUNT)) {
		if (res->outcome == NFS_PROBE_NFS_ERROR &&
		    streq(res->nfs_status, "NFS4ERR_MINOR_VERS_MISMATCH")) {
			res->outcome = NFS_PROBE_NO_VERSION;
			res->minors_refused |= 1u;
		} else if (res->outcome == NFS_PROBE_NFS_ERROR && res->nfs_status[0]) {
			res->nfs_minor = 0; /* it answered in NFSv4.0 */
		}
		return false;
	}
	res->nfs_minor = 0;
	res->mount_ms = ms_since(t);
	res->tcp_connected = true;

	t = util_now_mono_ns();
	op = op_new(p, CALL_STAT);
	if (!finish(p, op, nfs_stat64_async(p->nfs, "/", nfs_done, op), NFS_STEP_GETATTR))
		return false;
	res->getattr_ms = ms_since(t);
	res->have_root = true;
	/* libnfs maps owner names to ids itself. */
	res->root_known = NFS_ROOT_MODE | NFS_ROOT_IDS;
	res->root_mode = (uint32_t)op->st.nfs_mode;
	res->root_uid = op->st.nfs_uid;
	res->root_gid = op->st.nfs_gid;
	res->root_ino = op->st.nfs_ino;
	return true;
}

/* Close fh, ignoring the outcome (on the way out of a failed step). */
static void close_quietly(struct probe *p, struct nfsfh *fh)
{
	struct op *op = op_new(p, CALL_PLAIN);
	if (nfs_close_async(p->nfs, fh, nfs_done, op) == 0)
		(void)pump(p, p->nfs, NULL, &op->done);
}

/* WRITE, COMMIT, CLOSE; returns false with the failure recorded. */
static bool canary_write(struct probe *p, struct nfsfh *fh, const char *msg, size_t n)
{
	struct op *op = op_new(p, CALL_PLAIN);
	bool ok =
	    finish(p, op, nfs_pwrite_async(p->nfs, fh, 0, n, msg, nfs_done, op), NFS_STEP_WRITE);
	if (ok && (size_t)op->status != n) {
		p->res->step = NFS_STEP_WRITE;
		p->res->outcome = NFS_PROBE_SHORT_IO;
		snprintf(p->res->nfs_error, sizeof(p->res->nfs_error),
			 "the server wrote %d of %zu bytes", op->status, n);
		ok = false;
	}
	if (ok) {
		op = op_new(p, CALL_PLAIN);
		ok = finish(p, op, nfs_fsync_async(p->nfs, fh, nfs_done, op), NFS_STEP_WRITE);
	}
	if (!ok) {
		close_quietly(p, fh);
		return false;
	}
	op = op_new(p, CALL_PLAIN);
	return finish(p, op, nfs_close_async(p->nfs, fh, nfs_done, op), NFS_STEP_WRITE);
}

/* A fresh OPEN, READ and CLOSE: what another client would see. Returns the READ op. */
static const struct op *canary_read(struct probe *p, const char *name)
{
	struct op *op = op_new(p, CALL_OPEN);
	if (!finish(p, op, nfs_open_async(p->nfs, name, O_RDONLY, nfs_done, op), NFS_STEP_READ))
		return NULL;
	struct nfsfh *fh = op->fh;
	struct op *rd = op_new(p, CALL_READ);
	if (!finish(p, rd, nfs_pread_async(p->nfs, fh, 0, sizeof(rd->data), nfs_done, rd),
		    NFS_STEP_READ)) {
		close_quietly(p, fh);
		return NULL;
	}
	op = op_new(p, CALL_PLAIN);
	if (!finish(p, op, nfs_close_async(p->nfs, fh, nfs_done, op), NFS_STEP_READ))
		return NULL;
	return rd;
}

/* REMOVE; a failure is recorded only when nothing failed before. */
static bool canary_remove(struct probe *p, const char *name, bool record)
{
	struct op *op = op_new(p, CALL_PLAIN);
	int r = nfs_unlink_async(p->nfs, name, nfs_done, op);
	if (record)
		return finish(p, op, r, NFS_STEP_REMOVE);
	return r == 0 && pump(p, p->nfs, NULL, &op->done) == 0 && op->status >= 0;
}

static void run_canary(struct probe *p)
{
	struct nfs_probe_result *res = p->res;
	char msg[CANARY_MAX];
	int64_t t = util_now_mono_ns();
	size_t n = canary_begin(res, msg, sizeof(msg));

	struct op *op = op_new(p, CALL_OPEN);
	if (!finish(
		p, op,
		nfs_create_async(p->nfs, res->canary_file, O_WRONLY | O_EXCL, 0600, nfs_done, op),
		NFS_STEP_CREATE))
		return;
	res->canary_left_behind = true;

	const struct op *rd = NULL;
	bool ok = canary_write(p, op->fh, msg, n) &&
		  (rd = canary_read(p, res->canary_file)) != NULL &&
		  canary_compare(res, rd->data, rd->data_len, msg, n);
	/* Remove the file whatever happened, while the deadline allows. */
	if (canary_remove(p, res->canary_file, ok))
		res->canary_left_behind = false;
	if (res->outcome == NFS_PROBE_OK)
		res->canary_ms = ms_since(t);
}

static void probe_libnfs(struct probe *p, const struct nfs_probe_url *u, bool canary)
{
	struct nfs_probe_result *res = p->res;
	/* libnfs connects on its own; from here on, tcp_connected is about its socket. */
	res->tcp_connected = false;
	res->client = NFS_CLIENT_LIBNFS40;
	errno = 0;
	p->nfs = new_context(u->port);
	if (!p->nfs) {
		res->step = NFS_STEP_MOUNT;
		res->outcome = NFS_PROBE_INTERNAL;
		/* ELIBACC: the agent executable could not load libnfs (lazy_libnfs.c). */
		snprintf(res->nfs_error, sizeof(res->nfs_error), "%s",
			 errno == ELIBACC ? "could not load libnfs, which the NFSv4.0 probe needs "
					    "(Debian: libnfs13)"
					  : "could not set up a libnfs NFSv4 context");
		return;
	}
	if (mount_and_getattr(p, u) && canary)
		run_canary(p);
	/* Cancels calls still queued; their callbacks write into p->ops. */
	nfs_destroy_context(p->nfs);
	p->nfs = NULL;
}

void nfs_probe_run(const struct nfs_probe_url *u, int64_t deadline_ns, bool canary,
		   struct nfs_probe_result *ret)
{
	int64_t start = util_now_mono_ns();
	*ret = (struct nfs_probe_result){
	    .outcome = NFS_PROBE_OK,
	    .step = NFS_STEP_DONE,
	    .limit_ms =
		deadline_ns > start ? (deadline_ns - start + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC : 0,
	    .nfs_minor = -1,
	    .connect_ms = -1,
	    .session_ms = -1,
	    .mount_ms = -1,
	    .getattr_ms = -1,
	    .canary_ms = -1,
	};
	_cleanup_free_ struct probe *p = xcalloc(1, sizeof(*p));
	p->deadline = deadline_ns;
	p->res = ret;

	struct target t = {0};
	int r = resolve(u, deadline_ns, &t, ret);
	if (r < 0) {
		ret->step = NFS_STEP_RESOLVE;
		ret->outcome = r == -ETIMEDOUT ? NFS_PROBE_TIMEOUT : NFS_PROBE_RESOLVE;
		goto out;
	}
	int fd = preflight(p, &t, u->port);
	if (fd < 0)
		goto out;
	if (!probe_nfs41(p, u, fd, canary))
		probe_libnfs(p, u, canary);
out:
	ret->elapsed_ms = ms_since(start);
}
