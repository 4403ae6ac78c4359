#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <msgpack.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "log.h"
#include "wire.h"

#define SELF		"/proc/self/exe"
#define REQUEST_MAX	(WIRE_MAX_MESSAGE + (64u << 10))
#define POST_REPLY_MAX	((1u << 20) + (64u << 10)) /* the body (1 MiB at most) and a little */
#define PROBE_REPLY_MAX WIRE_MAX_MESSAGE
#define POLL_SLICE_MS	200 /* how often stop() is asked */
#define REPLY_BODY_MAX	(1u << 20)

extern char **environ;

/* ---------- small I/O ---------- */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read fd to its end, at most max bytes (more: -EFBIG). */
static int read_all(int fd, size_t max, char **ret, size_t *ret_len)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	for (;;) {
		if (len == cap) {
			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			cap = cap ? cap * 2 : 64u << 10;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;
			free(buf);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(buf);
		return -EFBIG;
	}
	buf = buf ? buf : xmalloc(1);
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* fds 0–2 of the daemon may be closed: keep ours above them, so that the
 * child's dup2() onto 0 and 1 never hits one of them. */
static int above_stdio(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	int e = errno;
	close(fd);
	errno = e;
	return n;
}

/* ---------- msgpack envelope ----------
 *
 *   probe request: {checks: [ID, ...], host_root, node (nil: the hostname),
 *                   timeout_s, targets (JSON, as --probe-targets reads it),
 *                   probe_targets_file (nil, or the operator's, for evidence)}
 *   probe reply:   a node report (common/wire.h) with those checks' findings
 *   post request:  {url, ca_file (nil), token (nil), timeout_s, last_rtt_ns,
 *                   started_mono_ns, report (bin: a node report)}
 *   post reply:    {result: 0, status, rtt_ns, body (bin)}
 *                  or {result: -errno, error (one line, the URL first)}
 */

static void pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

static void pack_key_str(msgpack_packer *pk, const char *k, const char *v)
{
	pack_str(pk, k);
	if (v)
		pack_str(pk, v);
	else
		msgpack_pack_nil(pk);
}

static void pack_key_int(msgpack_packer *pk, const char *k, int64_t v)
{
	pack_str(pk, k);
	msgpack_pack_int64(pk, v);
}

static void pack_key_bin(msgpack_packer *pk, const char *k, const void *v, size_t len)
{
	pack_str(pk, k);
	msgpack_pack_bin(pk, len);
	msgpack_pack_bin_body(pk, v, len);
}

static const msgpack_object *field(const msgpack_object *map, const char *key)
{
	if (map->type != MSGPACK_OBJECT_MAP)
		return NULL;
	size_t n = strlen(key);
	for (uint32_t i = 0; i < map->via.map.size; i++) {
		const msgpack_object_kv *kv = &map->via.map.ptr[i];
		if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == n &&
		    memcmp(kv->key.via.str.ptr, key, n) == 0)
			return &kv->val;
	}
	return NULL;
}

/* A string field as a new C string; NULL when absent, nil or not a string. */
static char *field_str(const msgpack_object *map, const char *key)
{
	const msgpack_object *o = field(map, key);
	if (!o || o->type != MSGPACK_OBJECT_STR || memchr(o->via.str.ptr, 0, o->via.str.size))
		return NULL;
	return xstrndup(o->via.str.ptr, o->via.str.size);
}

static int64_t field_int(const msgpack_object *map, const char *key, int64_t dflt)
{
	const msgpack_object *o = field(map, key);
	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return o->via.i64;
	return dflt;
}

static const msgpack_object_bin *field_bin(const msgpack_object *map, const char *key)
{
	const msgpack_object *o = field(map, key);
	return o && o->type == MSGPACK_OBJECT_BIN ? &o->via.bin : NULL;
}

/* Decode one msgpack map from buf; the caller destroys *zone. The envelope
 * comes from this very executable on the other end of a pipe, but is read as
 * carefully as anything else: a map, bounded by the buffer. */
static int unpack_map(const char *buf, size_t len, msgpack_zone *zone, msgpack_object *ret)
{
	msgpack_zone_init(zone, 4096);
	size_t off = 0;
	if (msgpack_unpack(buf, len, &off, zone, ret) != MSGPACK_UNPACK_SUCCESS ||
	    ret->type != MSGPACK_OBJECT_MAP || off != len) {
		msgpack_zone_destroy(zone);
		return -EBADMSG;
	}
	return 0;
}

/* ---------- the daemon's side ---------- */

/* The environment for the child: the daemon's, without what makes a process
 * talk to systemd (only the daemon reports to it). */
static char **child_environ(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 1, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!startswith(environ[i], "NOTIFY_SOCKET=") &&
		    !startswith(environ[i], "WATCHDOG_USEC=") &&
		    !startswith(environ[i], "WATCHDOG_PID="))
			env[k++] = environ[i];
	return env;
}

static int spawn(struct helper *h, const char *job, const void *in, size_t len, int64_t timeout_ns,
		 char *err, size_t errlen)
{
	*h = (struct helper){.out_fd = -1};
	_cleanup_close_ int mfd = above_stdio(memfd_create("hvready-helper-request", MFD_CLOEXEC));
	int r = mfd < 0 ? -errno : write_all(mfd, in, len);
	if (r == 0 && lseek(mfd, 0, SEEK_SET) < 0)
		r = -errno;
	if (r < 0) {
		snprintf(err, errlen, "cannot pass the %s request to a helper process: %s", job,
			 strerror(-r));
		return r;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot create a pipe for a helper process: %s",
			 strerror(-r));
		return r;
	}
	_cleanup_close_ int rd = above_stdio(p[0]);
	_cleanup_close_ int wr = above_stdio(p[1]);
	if (rd < 0 || wr < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot create a pipe for a helper process: %s",
			 strerror(-r));
		return r;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, mfd, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, wr, STDOUT_FILENO);
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	posix_spawnattr_init(&at);
	sigset_t none, dflt;
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE); /* the daemon ignores it */
	sigaddset(&dflt, SIGTERM);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGHUP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dflt);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	char *argv[] = {"hvready-agent", "_helper", (char *)job, NULL};
	_cleanup_free_ char **env = child_environ();
	pid_t pid;
	r = -posix_spawn(&pid, SELF, &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (r < 0) {
		snprintf(err, errlen, "cannot start a helper process (%s _helper %s): %s", SELF,
			 job, strerror(-r));
		return r;
	}
	h->pid = pid;
	h->out_fd = rd;
	rd = -1;
	h->timeout_ns = timeout_ns;
	h->deadline_ns = util_now_mono_ns() + timeout_ns;
	return 0;
}

static void kill_and_reap(struct helper *h)
{
	if (h->pid > 0) {
		kill(h->pid, SIGKILL);
		while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	h->pid = 0;
	if (h->out_fd >= 0)
		close(h->out_fd);
	h->out_fd = -1;
}

/* Collect the child's stdout until it exits. Returns 0 with the output, or
 * -errno with what happened to the child in err. */
static int collect(struct helper *h, const char *job, size_t max, bool (*stop)(void *), void *arg,
		   char **ret, size_t *ret_len, char *err, size_t errlen)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int r = 0;
	for (;;) {
		int64_t left = h->deadline_ns - util_now_mono_ns();
		if (left <= 0) {
			snprintf(
			    err, errlen,
			    "the %s helper process did not finish within %.1f s and was killed",
			    job, (double)h->timeout_ns / NSEC_PER_SEC);
			r = -ETIMEDOUT;
			break;
		}
		if (stop && stop(arg)) {
			snprintf(err, errlen, "the %s helper process was stopped with the daemon",
				 job);
			r = -ECANCELED;
			break;
		}
		struct pollfd pfd = {.fd = h->out_fd, .events = POLLIN};
		int64_t ms = left / NSEC_PER_MSEC + 1;
		int n = poll(&pfd, 1, ms < POLL_SLICE_MS ? (int)ms : POLL_SLICE_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			snprintf(err, errlen, "waiting for the %s helper process: %s", job,
				 strerror(errno));
			break;
		}
		if (n == 0)
			continue;
		if (len == cap) {
			cap = cap ? cap * 2 : 16u << 10;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t got = read(h->out_fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			snprintf(err, errlen, "reading from the %s helper process: %s", job,
				 strerror(errno));
			break;
		}
		if (got == 0)
			break; /* the child closed stdout: it is exiting */
		len += (size_t)got;
		if (len > max) {
			snprintf(err, errlen, "the %s helper process wrote more than %zu bytes",
				 job, max);
			r = -EMSGSIZE;
			break;
		}
	}
	close(h->out_fd);
	h->out_fd = -1;
	/* Past EOF the child is exiting; it gets until its deadline to do so. */
	int st = 0;
	while (r == 0) {
		pid_t w = waitpid(h->pid, &st, WNOHANG);
		if (w == h->pid) {
			h->pid = 0;
			break;
		}
		if (w < 0 && errno != EINTR) {
			r = -errno;
			snprintf(err, errlen, "waiting for the %s helper process: %s", job,
				 strerror(errno));
			break;
		}
		if (util_now_mono_ns() >= h->deadline_ns) {
			snprintf(err, errlen,
				 "the %s helper process did not exit in time and was killed", job);
			r = -ETIMEDOUT;
			break;
		}
		struct timespec ts = {0, 5 * NSEC_PER_MSEC};
		nanosleep(&ts, NULL);
	}
	kill_and_reap(h);
	if (r == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		if (WIFSIGNALED(st))
			snprintf(err, errlen, "the %s helper process was killed by signal %d (%s)",
				 job, WTERMSIG(st), strsignal(WTERMSIG(st)));
		else
			snprintf(err, errlen, "the %s helper process exited with status %d", job,
				 WEXITSTATUS(st));
		r = -ECHILD;
	}
	if (r < 0) {
		free(buf);
		return r;
	}
	buf = buf ? buf : xmalloc(1);
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

static int start_job(msgpack_sbuffer *sb, struct helper *h, const char *job, int64_t timeout_ns,
		     char *err, size_t errlen)
{
	int r = spawn(h, job, sb->data, sb->size, timeout_ns, err, errlen);
	msgpack_sbuffer_destroy(sb);
	return r;
}

int helper_start_probe(struct helper *h, const struct agent_opts *o, const struct strv *ids,
		       int64_t timeout_ns, char *err, size_t errlen)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	json_object *tj = probe_targets_to_json(&o->targets);
	const char *targets = json_object_to_json_string_ext(tj, JSON_C_TO_STRING_PLAIN);
	msgpack_pack_map(&pk, 7);
	pack_str(&pk, "checks");
	msgpack_pack_array(&pk, ids->n);
	for (size_t i = 0; i < ids->n; i++)
		pack_str(&pk, ids->items[i]);
	pack_key_str(&pk, "host_root", o->host_root);
	pack_key_str(&pk, "node", o->node);
	pack_key_int(&pk, "timeout_s", o->timeout_s);
	pack_key_str(&pk, "targets", targets);
	pack_key_str(&pk, "probe_targets_file", o->probe_targets_file);
	pack_key_str(&pk, "probe_netns", o->probe_netns);
	json_object_put(tj);
	return start_job(&sb, h, "probe", timeout_ns, err, errlen);
}

int helper_finish_probe(struct helper *h, bool (*stop)(void *), void *arg, struct node_report *ret,
			char *err, size_t errlen)
{
	*ret = (struct node_report){0};
	_cleanup_free_ char *out = NULL;
	size_t len;
	int r = collect(h, "probe", PROBE_REPLY_MAX, stop, arg, &out, &len, err, errlen);
	if (r < 0)
		return r;
	char why[WIRE_ERR_LEN];
	r = wire_decode_node_report((const uint8_t *)out, len, ret, why, sizeof(why));
	if (r < 0)
		snprintf(err, errlen, "the probe helper process sent a malformed report: %s", why);
	return r;
}

int helper_post(const struct helper_post_request *rq, int64_t timeout_ns, bool (*stop)(void *),
		void *arg, struct http_post_reply *ret, char *err, size_t errlen)
{
	*ret = (struct http_post_reply){0};
	_cleanup_free_ char *report = NULL;
	size_t rlen;
	int r = wire_encode_node_report(rq->report, &report, &rlen);
	if (r < 0) {
		snprintf(err, errlen, "encoding the report: %s", strerror(-r));
		return r;
	}
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 7);
	pack_key_str(&pk, "url", rq->url);
	pack_key_str(&pk, "ca_file", rq->ca_file);
	pack_key_str(&pk, "token", rq->token);
	pack_key_int(&pk, "timeout_s", rq->timeout_s);
	pack_key_int(&pk, "last_rtt_ns", rq->last_rtt_ns);
	pack_key_int(&pk, "started_mono_ns", rq->started_mono_ns);
	pack_key_bin(&pk, "report", report, rlen);
	struct helper h;
	char why[384];
	r = start_job(&sb, &h, "post", timeout_ns, why, sizeof(why));
	_cleanup_free_ char *out = NULL;
	size_t len;
	if (r == 0)
		r = collect(&h, "post", POST_REPLY_MAX, stop, arg, &out, &len, why, sizeof(why));
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", rq->url, why);
		return r;
	}
	msgpack_zone zone;
	msgpack_object m;
	if (unpack_map(out, len, &zone, &m) < 0) {
		snprintf(err, errlen, "%s: the post helper process sent a malformed reply",
			 rq->url);
		return -EBADMSG;
	}
	r = (int)field_int(&m, "result", -EBADMSG);
	if (r < 0) {
		_cleanup_free_ char *e = field_str(&m, "error");
		if (e)
			snprintf(err, errlen, "%s", e);
		else
			snprintf(err, errlen, "%s: the post helper process gave no reason",
				 rq->url);
		r = r < -4095 ? -EIO : r;
	} else {
		const msgpack_object_bin *b = field_bin(&m, "body");
		ret->status = (int)field_int(&m, "status", 0);
		ret->rtt_ns = field_int(&m, "rtt_ns", 0);
		if (b && b->size) {
			ret->body = xmalloc(b->size + 1);
			memcpy(ret->body, b->ptr, b->size);
			ret->body[b->size] = '\0';
			ret->len = b->size;
		}
		r = 0;
	}
	msgpack_zone_destroy(&zone);
	return r;
}

/* ---------- the child's side ---------- */

static int write_packed(msgpack_sbuffer *sb)
{
	int r = write_all(STDOUT_FILENO, sb->data, sb->size);
	msgpack_sbuffer_destroy(sb);
	if (r < 0) {
		log_warnx("_helper: writing the reply: %s", strerror(-r));
		return 2;
	}
	return 0;
}

/* sent_ns is stamped right before the report goes out (http_post calls this
 * once the connection is up): the aggregator measures clock skew from it, and
 * starting this process, connecting and the TLS handshake take time. */
static void restamp(void *arg, char **ret_body, size_t *ret_len)
{
	struct node_report *rep = arg;
	rep->sent_ns = util_now_realtime_ns();
	if (wire_encode_node_report(rep, ret_body, ret_len) < 0)
		*ret_body = NULL; /* the body encoded at the start goes out */
}

/* Whether v can be a header's value as it is: evhttp and the aggregator
 * keep it byte for byte (no control byte, no space at either end, short). */
static bool header_value_ok(const char *v)
{
	size_t n = v ? strlen(v) : 0;
	if (n == 0 || n > 1024 || v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' ||
	    v[n - 1] == '\t')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return false;
	return true;
}

static int job_post(const msgpack_object *m)
{
	_cleanup_free_ char *url = field_str(m, "url");
	_cleanup_free_ char *ca = field_str(m, "ca_file");
	_cleanup_free_ char *token = field_str(m, "token");
	int64_t timeout = field_int(m, "timeout_s", 0);
	int64_t last_rtt = field_int(m, "last_rtt_ns", 0);
	int64_t started_mono = field_int(m, "started_mono_ns", 0);
	const msgpack_object_bin *rb = field_bin(m, "report");
	if (!url || !rb || timeout < 1 || timeout > 600) {
		log_warnx("_helper post: malformed request");
		return 2;
	}
	struct node_report rep;
	char why[WIRE_ERR_LEN];
	if (wire_decode_node_report((const uint8_t *)rb->ptr, rb->size, &rep, why, sizeof(why)) <
	    0) {
		log_warnx("_helper post: malformed report: %s", why);
		return 2;
	}
	rep.sent_ns = util_now_realtime_ns();
	_cleanup_free_ char *body = NULL;
	size_t blen;
	int r = wire_encode_node_report(&rep, &body, &blen);
	if (r < 0) {
		node_report_clear(&rep);
		log_warnx("_helper post: encoding the report: %s", strerror(-r));
		return 2;
	}
	char rtt[24], age[24];
	snprintf(rtt, sizeof(rtt), "%lld", (long long)last_rtt);
	/* How old the report is on the monotonic clock (the same clock in this
	 * process): a report resent after an outage must not look fresher than
	 * its evidence, whatever either wall clock does. */
	int64_t age_ns = started_mono > 0 ? util_now_mono_ns() - started_mono : 0;
	snprintf(age, sizeof(age), "%lld", (long long)(age_ns < 0 ? 0 : age_ns));
	/* The node ahead of the body: the aggregator binds the credential to
	 * it at the headers and refuses another node's before reading the
	 * body (docs/protocol.md §1). Left out for a name a header cannot
	 * carry as it is (control bytes, edge spaces): then the aggregator
	 * decides on the body, as for an older agent. */
	const char *const headers[] = {"Hvready-Last-Rtt-Ns",
				       rtt,
				       "Hvready-Report-Age-Ns",
				       age,
				       header_value_ok(rep.node) ? "Hvready-Node" : NULL,
				       rep.node,
				       NULL};
	struct http_post_request rq = {
	    .url = url,
	    .ca_file = ca,
	    .content_type = WIRE_CONTENT_TYPE,
	    .accept = "application/json",
	    .bearer = token,
	    .headers = headers,
	    .body = body,
	    .len = blen,
	    .timeout_s = (int)timeout,
	    .max_reply = REPLY_BODY_MAX,
	    .restamp = restamp,
	    .restamp_arg = &rep,
	};
	struct http_post_reply reply;
	char err[512] = "";
	r = http_post_run(&rq, &reply, err, sizeof(err));
	node_report_clear(&rep);
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	if (r < 0) {
		msgpack_pack_map(&pk, 2);
		pack_key_int(&pk, "result", r);
		pack_key_str(&pk, "error", err);
	} else {
		msgpack_pack_map(&pk, 4);
		pack_key_int(&pk, "result", 0);
		pack_key_int(&pk, "status", reply.status);
		pack_key_int(&pk, "rtt_ns", reply.rtt_ns);
		pack_key_bin(&pk, "body", reply.body ? reply.body : "", reply.len);
		http_post_reply_clear(&reply);
	}
	return write_packed(&sb);
}

static bool wanted(const msgpack_object *checks, const char *id)
{
	size_t n = strlen(id);
	for (uint32_t i = 0; i < checks->via.array.size; i++) {
		const msgpack_object *c = &checks->via.array.ptr[i];
		if (c->type == MSGPACK_OBJECT_STR && c->via.str.size == n &&
		    memcmp(c->via.str.ptr, id, n) == 0)
			return true;
	}
	return false;
}

static int run_probe(struct agent_opts *o, const msgpack_object *checks)
{
	struct node_report rep = {0};
	struct agent_ctx ctx = {.opts = o, .report = &rep};
	int r = hostroot_open(&ctx.root, o->host_root);
	if (r < 0) {
		log_warnx("_helper probe: --host-root %s: %s", o->host_root, strerror(-r));
		return 2;
	}
	rep.hostname = agent_hostname(&ctx.root);
	rep.node = agent_node_name(o, rep.hostname);
	rep.agent_version = xstrdup(HVREADY_VERSION);
	/* The rows of the check table, so that the checks run as in-process:
	 * in table order, and a check that adds nothing is UNKNOWN. */
	for (size_t i = 0; i < host_checks_len; i++) {
		const char *id = host_checks[i].id;
		if (agent_network_check(id) && wanted(checks, id))
			agent_run_check(&ctx, i);
	}
	hostroot_close(&ctx.root);
	rep.sent_ns = util_now_realtime_ns();
	_cleanup_free_ char *buf = NULL;
	size_t len;
	r = wire_encode_node_report(&rep, &buf, &len);
	node_report_clear(&rep);
	if (r < 0) {
		log_warnx("_helper probe: encoding the findings: %s", strerror(-r));
		return 2;
	}
	r = write_all(STDOUT_FILENO, buf, len);
	if (r < 0) {
		log_warnx("_helper probe: writing the findings: %s", strerror(-r));
		return 2;
	}
	return 0;
}

static int job_probe(const msgpack_object *m)
{
	const msgpack_object *checks = field(m, "checks");
	_cleanup_free_ char *root = field_str(m, "host_root");
	_cleanup_free_ char *targets = field_str(m, "targets");
	int64_t timeout = field_int(m, "timeout_s", 0);
	if (!checks || checks->type != MSGPACK_OBJECT_ARRAY || !root || !targets || timeout < 1 ||
	    timeout > 600) {
		log_warnx("_helper probe: malformed request");
		return 2;
	}
	struct agent_opts o;
	agent_opts_init(&o);
	free(o.host_root);
	o.host_root = xstrdup(root);
	o.node = field_str(m, "node");
	o.probe_targets_file = field_str(m, "probe_targets_file");
	o.probe_netns = field_str(m, "probe_netns");
	o.timeout_s = (int)timeout;
	char err[256];
	int code = 2;
	if (probe_targets_parse((const uint8_t *)targets, strlen(targets), &o.targets, err,
				sizeof(err)) < 0)
		log_warnx("_helper probe: malformed probe targets: %s", err);
	else
		code = run_probe(&o, checks);
	agent_opts_clear(&o);
	return code;
}

int helper_main(int argc, char **argv)
{
	if (argc != 2 || (!streq(argv[1], "probe") && !streq(argv[1], "post"))) {
		log_warnx("_helper: internal command of hvready-agent run (probe or post)");
		return 2;
	}
	/* Die with the daemon: a probe must not outlive the process that waits
	 * for it (were the daemon gone already, the reply's write fails). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	_cleanup_free_ char *in = NULL;
	size_t len = 0;
	int r = read_all(STDIN_FILENO, REQUEST_MAX, &in, &len);
	if (r < 0) {
		log_warnx("_helper %s: reading the request: %s", argv[1], strerror(-r));
		return 2;
	}
	msgpack_zone zone;
	msgpack_object m;
	if (unpack_map(in, len, &zone, &m) < 0) {
		log_warnx("_helper %s: malformed request", argv[1]);
		return 2;
	}
	int code = streq(argv[1], "post") ? job_post(&m) : job_probe(&m);
	msgpack_zone_destroy(&zone);
	return code;
}
