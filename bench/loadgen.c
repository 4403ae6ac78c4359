/*
 * loadgen: the ingest benchmark's client. Many keep-alive HTTP/1.1
 * connections on loopback POST node reports (from a pack written by
 * clone_reports) as fast as the server answers, one request in flight per
 * connection, the nodes taken round-robin; one more connection GETs
 * /v1/verdict at a fixed rate (asking for gzip, as browsers and curl
 * --compressed do) and times each answer. libevent; the posting connections
 * on the main thread, the prober on a thread and loop of its own.
 *
 *   loadgen --port N --pack FILE [--host 127.0.0.1] [--connections 1000]
 *           [--duration 10] [--warmup 1] [--verdict-every-ms 0]
 *           [--token-file FILE] [--prefill-timeout 120]
 *
 * Every report is stamped with the time it is sent (sent_ns, at the offset
 * the pack gives): the aggregator keeps only reports newer than the one it
 * holds, and a real agent's next report is always newer.
 *
 * The prober has its own thread and event loop, so that a verdict's latency
 * is the server's, not the time the posting loop spends on a thousand
 * reports' answers before it reads the verdict (priorities within one loop
 * were not enough: the loop only sees the verdict's bytes when it polls).
 *
 * Phases: the connections open (64 at a time: evhttp listens with a backlog
 * of 128) and, as they open, send every node's report once (the prefill: the
 * server then holds every node, as an aggregator does after one interval).
 * When all are open and every prefill report is answered (or --prefill-timeout
 * passed), the load runs; counting starts --warmup seconds later and lasts
 * --duration seconds. Prints one JSON object; exits 0 when the window
 * completed (the numbers may still show errors), 1 when it could not
 * (connections refused, timeouts).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#define CONNECT_BATCH	  64
#define CONNECT_TIMEOUT_S 20
#define PREFILL_TIMEOUT_S 120
#define HEADERS_MAX	  (64u << 10)
#define MAX_RECONNECTS	  100
#define ERRBODY_MAX	  240
#define N_PRIOS		  2
#define SLICE_US	  2000 /* poll at least this often while reports queue */
#define PROBER_READ_MAX	  (4 << 20)

struct entry {
	const uint8_t *body;
	uint32_t len, sent_off;
	char *head;
	size_t head_len;
};

struct lat {
	double *v;
	size_t n, cap;
};

struct conn;

struct lg {
	struct event_base *base;
	struct sockaddr_in addr;
	struct entry *e;
	size_t n_entries, next;
	void *map;
	size_t map_len;
	int n_conns, opened, pending, started;
	struct conn *conns;
	struct conn *prober; /* in the prober's lg only */
	const char *verdict_req;
	struct event *ev_start, *ev_end, *ev_verdict, *ev_connect_timeout, *ev_prefill_timeout;
	bool running, measuring, finished, failed, prefill_timed_out;
	double warmup_s, duration_s, prefill_timeout_s;
	int64_t t_begin, t_running, t_measure0, t_measure1;
	size_t prefill_answered;
	uint64_t prefill_ok;
	uint64_t sched0[2], sched1[2]; /* ns on a CPU, ns waiting for one, over the window */
	uint64_t ok, non2xx, conn_errors, reconnects, status[6];
	struct lat post_lat, verdict_lat;
	uint64_t verdict_non200, verdict_skipped, verdict_bytes;
	double verdict_inflight_ms; /* age of an unanswered GET at the window's end */
	char errbody[ERRBODY_MAX + 1];
	int errstatus;
	const char *fail_reason;
	/* The verdict prober runs a loop of its own, on a thread: timed from
	 * this loop, a GET's latency included the time this thread spent on a
	 * thousand connections' answers before it read the verdict's (seen: p99
	 * 0.1-1.1 s here while an idle prober saw 4 ms at the same moments). */
	struct lg *main; /* in the prober's lg: the load's */
	struct lg *plg;	 /* in the load's lg: the prober's */
	pthread_t prober_thread;
	_Atomic int64_t win0, win1; /* the window, published to the prober */
	atomic_bool stop;
};

enum pstate { P_IDLE, P_HEAD, P_BODY };

struct conn {
	struct lg *lg;
	struct bufferevent *bev;
	bool is_prober, opened, close_after;
	enum pstate st;
	int status;
	size_t remaining, body_bytes;
	int64_t sent_at;
	int reconnects;
};

static int64_t now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* On the prober's thread: the load's window and whether it is over. */
static void prober_sync(struct lg *lg)
{
	if (!lg->main)
		return;
	lg->t_measure1 = atomic_load(&lg->main->win1);
	lg->t_measure0 = atomic_load(&lg->main->win0);
	lg->measuring = lg->t_measure0 && now_mono() >= lg->t_measure0;
	lg->finished = atomic_load(&lg->main->stop);
}

static int64_t now_real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static _Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("loadgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void lat_add(struct lat *l, double v)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4096;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			die("out of memory");
	}
	l->v[l->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted samples. */
static double pct(const struct lat *l, double p)
{
	if (!l->n)
		return -1;
	size_t k = (size_t)(p / 100.0 * (double)l->n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > l->n)
		k = l->n;
	return l->v[k - 1];
}

/* ---------- the pack ---------- */

static void load_pack(struct lg *lg, const char *path, const char *host, int port,
		      const char *token)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		die("cannot open --pack %s", path);
	size_t size = (size_t)st.st_size;
	if (size < 12)
		die("--pack %s is truncated", path);
	uint8_t *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		die("cannot map --pack %s", path);
	lg->map = p;
	lg->map_len = size;
	if (memcmp(p, "HVBPACK1", 8) != 0)
		die("--pack %s: not a pack from clone_reports", path);
	uint32_t n;
	memcpy(&n, p + 8, 4);
	if (n == 0)
		die("--pack %s holds no reports", path);
	lg->e = calloc(n, sizeof(*lg->e));
	if (!lg->e)
		die("out of memory");
	size_t off = 12;
	char auth[4200] = "";
	if (token)
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s\r\n", token);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t hdr[2];
		if (off + 8 > size)
			die("--pack %s is truncated", path);
		memcpy(hdr, p + off, 8);
		off += 8;
		if (hdr[0] > size - off || hdr[1] + 8 > hdr[0])
			die("--pack %s is corrupt", path);
		struct entry *e = &lg->e[i];
		e->body = p + off;
		e->len = hdr[0];
		e->sent_off = hdr[1];
		off += hdr[0];
		int hl = asprintf(&e->head,
				  "POST /v1/reports HTTP/1.1\r\nHost: %s:%d\r\n"
				  "User-Agent: hvready-bench-loadgen\r\nAccept: */*\r\n"
				  "Content-Type: application/msgpack\r\n%s"
				  "Content-Length: %u\r\n\r\n",
				  host, port, auth, e->len);
		if (hl < 0)
			die("out of memory");
		e->head_len = (size_t)hl;
	}
	lg->n_entries = n;
}

/* ---------- requests ---------- */

static void send_report(struct conn *c)
{
	struct lg *lg = c->lg;
	const struct entry *e = &lg->e[lg->next++ % lg->n_entries];
	struct evbuffer *out = bufferevent_get_output(c->bev);
	struct evbuffer_iovec v;
	evbuffer_add(out, e->head, e->head_len);
	if (evbuffer_reserve_space(out, e->len, &v, 1) < 1)
		die("out of memory");
	memcpy(v.iov_base, e->body, e->len);
	/* sent_ns: the 8 big-endian bytes of a msgpack (u)int64 */
	uint64_t t = (uint64_t)now_real();
	uint8_t *s = (uint8_t *)v.iov_base + e->sent_off;
	for (int i = 0; i < 8; i++)
		s[i] = (uint8_t)(t >> (56 - 8 * i));
	v.iov_len = e->len;
	evbuffer_commit_space(out, &v, 1);
	c->st = P_HEAD;
	c->sent_at = now_mono();
}

static void send_verdict(struct conn *c)
{
	evbuffer_add(bufferevent_get_output(c->bev), c->lg->verdict_req,
		     strlen(c->lg->verdict_req));
	c->st = P_HEAD;
	c->sent_at = now_mono();
}

static void conn_open(struct conn *c);
static void open_more(struct lg *lg);
static void maybe_start(struct lg *lg);

static void conn_next(struct conn *c)
{
	struct lg *lg = c->lg;
	if (lg->finished || c->is_prober || !c->bev)
		return;
	/* Prefill: each node once; the connection waits for the run to start. */
	if (!lg->running && lg->next >= lg->n_entries)
		return;
	send_report(c);
}

/* ---------- responses ---------- */

static void record(struct conn *c)
{
	struct lg *lg = c->lg;
	int64_t t = now_mono();
	double ms = (double)(t - c->sent_at) / 1e6;
	if (c->is_prober) {
		prober_sync(lg);
		if (lg->measuring && t <= lg->t_measure1) {
			if (c->status == 200)
				lat_add(&lg->verdict_lat, ms);
			else
				lg->verdict_non200++;
			lg->verdict_bytes = c->body_bytes;
		}
		return;
	}
	if (!lg->running) {
		lg->prefill_answered++;
		if (c->status / 100 == 2)
			lg->prefill_ok++;
		maybe_start(lg);
		return;
	}
	if (!lg->measuring || t > lg->t_measure1)
		return;
	int cls = c->status / 100;
	lg->status[cls >= 1 && cls <= 5 ? cls : 0]++;
	if (cls == 2) {
		lg->ok++;
		lat_add(&lg->post_lat, ms);
	} else {
		lg->non2xx++;
	}
}

/* Whether the header line l (up to end) is name: and its value contains word. */
static bool header_has(const char *l, const char *end, const char *name, const char *word)
{
	size_t nl = strlen(name), wl = strlen(word);
	if ((size_t)(end - l) < nl || strncasecmp(l, name, nl) != 0)
		return false;
	for (const char *p = l + nl; p + wl <= end; p++)
		if (!strncasecmp(p, word, wl))
			return true;
	return false;
}

/* Parse the status line and the headers that frame the body. Returns 0, or -1
 * for a response this client does not speak. */
static int parse_head(struct conn *c, const char *h, size_t len)
{
	int major, minor, status;
	if (sscanf(h, "HTTP/%d.%d %d", &major, &minor, &status) != 3)
		return -1;
	c->status = status;
	c->remaining = 0;
	c->close_after = major == 1 && minor == 0;
	const char *end = h + len;
	for (const char *l = h; l < end;) {
		const char *eol = memchr(l, '\n', (size_t)(end - l));
		if (!eol)
			break;
		if (!strncasecmp(l, "Content-Length:", 15))
			c->remaining = strtoul(l + 15, NULL, 10);
		else if (!strncasecmp(l, "Transfer-Encoding:", 18))
			return -1; /* evhttp_send_reply always sends a Content-Length */
		else if (header_has(l, eol, "Connection:", "close"))
			c->close_after = true;
		else if (header_has(l, eol, "Connection:", "keep-alive"))
			c->close_after = false;
		l = eol + 1;
	}
	if (status == 204 || status == 304 || status / 100 == 1)
		c->remaining = 0;
	return 0;
}

static void keep_errbody(struct lg *lg, struct conn *c, struct evbuffer *in, size_t n)
{
	if (c->is_prober || c->status / 100 == 2 || lg->errbody[0] || !n ||
	    c->status != lg->errstatus)
		return;
	size_t k = n < ERRBODY_MAX ? n : ERRBODY_MAX;
	evbuffer_copyout(in, lg->errbody, k);
	lg->errbody[k] = '\0';
	/* printed inside a JSON string */
	for (size_t i = 0; i < k; i++)
		if ((unsigned char)lg->errbody[i] < 0x20 || lg->errbody[i] == '"' ||
		    lg->errbody[i] == '\\' || (unsigned char)lg->errbody[i] >= 0x7f)
			lg->errbody[i] = ' ';
}

static void conn_drop(struct conn *c, const char *why);

static void on_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct lg *lg = c->lg;
	struct evbuffer *in = bufferevent_get_input(bev);
	for (;;) {
		if (c->st == P_HEAD) {
			struct evbuffer_ptr p = evbuffer_search(in, "\r\n\r\n", 4, NULL);
			if (p.pos < 0) {
				if (evbuffer_get_length(in) > HEADERS_MAX)
					conn_drop(c, "response headers too large");
				return;
			}
			size_t hl = (size_t)p.pos + 4;
			char *h = (char *)evbuffer_pullup(in, (ssize_t)hl);
			if (parse_head(c, h, hl) < 0) {
				conn_drop(c, "unexpected response framing");
				return;
			}
			evbuffer_drain(in, hl);
			c->st = P_BODY;
			c->body_bytes = c->remaining;
			if (!c->is_prober && c->status / 100 != 2 && !lg->errstatus)
				lg->errstatus = c->status;
		}
		if (c->st == P_BODY) {
			size_t have = evbuffer_get_length(in);
			size_t take = have < c->remaining ? have : c->remaining;
			keep_errbody(lg, c, in, take);
			evbuffer_drain(in, take);
			c->remaining -= take;
			if (c->remaining)
				return;
			c->st = P_IDLE;
			record(c);
			if (c->close_after) {
				conn_drop(c, NULL);
				return;
			}
			conn_next(c);
		}
		if (c->st == P_IDLE || !evbuffer_get_length(in))
			return;
	}
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;
	if (what & BEV_EVENT_CONNECTED) {
		int one = 1;
		setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (!c->opened) {
			c->opened = true;
			c->lg->opened++;
			c->lg->pending--;
			open_more(c->lg);
		}
		conn_next(c);
		return;
	}
	conn_drop(c, (what & BEV_EVENT_EOF) ? "closed by the server" : "connection error");
}

static void conn_open(struct conn *c)
{
	struct lg *lg = c->lg;
	evutil_socket_t fd = -1;
	if (c->is_prober) {
		/* Room for a whole verdict in the socket: the transfer does not
		 * wait for this loop to read each window's worth. Set before
		 * connecting, so that the window scale allows it. */
		int rcvbuf = PROBER_READ_MAX;
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			die("cannot create a socket");
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	}
	c->bev = bufferevent_socket_new(lg->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev)
		die("cannot create a connection");
	c->st = P_IDLE;
	if (c->is_prober) {
		/* It reads the answer in large pieces. */
		bufferevent_set_max_single_read(c->bev, PROBER_READ_MAX);
	}
	bufferevent_setcb(c->bev, on_read, NULL, on_event, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&lg->addr, sizeof(lg->addr)) < 0)
		conn_drop(c, "connect failed");
}

/* A dropped connection is an error if a request was in flight; it is opened
 * again (bounded) so that one server-side close does not shrink the load. */
static void conn_drop(struct conn *c, const char *why)
{
	struct lg *lg = c->lg;
	bool was_busy = c->st != P_IDLE;
	prober_sync(lg);
	bufferevent_free(c->bev);
	c->bev = NULL;
	if (why && (was_busy || !c->opened)) {
		if (lg->measuring && !lg->finished)
			lg->conn_errors++;
		if (!lg->fail_reason)
			lg->fail_reason = why;
	}
	if (!c->opened) {
		/* Refused while opening: the server is not there or not accepting. */
		lg->failed = true;
		event_base_loopbreak(lg->base);
		return;
	}
	if (lg->finished)
		return;
	if (++c->reconnects > MAX_RECONNECTS) {
		lg->failed = true;
		lg->fail_reason = "too many reconnects";
		event_base_loopbreak(lg->base);
		return;
	}
	lg->reconnects++;
	conn_open(c);
}

/* ---------- phases ---------- */

static void open_more(struct lg *lg)
{
	while (lg->pending < CONNECT_BATCH && lg->started < lg->n_conns + 1) {
		struct conn *c = lg->started < lg->n_conns ? &lg->conns[lg->started] : lg->prober;
		lg->started++;
		if (!c)
			continue;
		lg->pending++;
		conn_open(c);
	}
	maybe_start(lg);
}

static struct timeval tv_of(double s)
{
	struct timeval tv = {(time_t)s, (suseconds_t)((s - (double)(time_t)s) * 1e6)};
	return tv;
}

/* All connections open and the prefill answered (or given up on): run. */
static void start_running(struct lg *lg)
{
	lg->running = true;
	lg->t_running = now_mono();
	event_del(lg->ev_prefill_timeout);
	struct timeval w = tv_of(lg->warmup_s);
	event_add(lg->ev_start, &w);
	for (int i = 0; i < lg->n_conns; i++)
		if (lg->conns[i].opened && lg->conns[i].st == P_IDLE)
			conn_next(&lg->conns[i]);
}

static void maybe_start(struct lg *lg)
{
	if (lg->main)
		return; /* the prober's loop has no phases */
	if (lg->running || lg->opened < lg->n_conns)
		return;
	if (event_pending(lg->ev_connect_timeout, EV_TIMEOUT, NULL))
		event_del(lg->ev_connect_timeout);
	if (lg->prefill_answered >= lg->n_entries)
		start_running(lg);
}

/* This thread's time on a CPU and waiting for one (runnable, not running):
 * on a shared machine the second says how much of the figure is contention. */
static void read_schedstat(uint64_t v[2])
{
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	unsigned long long run = 0, wait = 0;
	if (f) {
		if (fscanf(f, "%llu %llu", &run, &wait) != 2)
			run = wait = 0;
		fclose(f);
	}
	v[0] = run;
	v[1] = wait;
}

static void on_start(evutil_socket_t fd, short what, void *arg)
{
	struct lg *lg = arg;
	read_schedstat(lg->sched0);
	lg->measuring = true;
	lg->t_measure0 = now_mono();
	lg->t_measure1 = lg->t_measure0 + (int64_t)(lg->duration_s * 1e9);
	atomic_store(&lg->win1, lg->t_measure1);
	atomic_store(&lg->win0, lg->t_measure0);
	struct timeval d = tv_of(lg->duration_s);
	event_add(lg->ev_end, &d);
}

static void on_end(evutil_socket_t fd, short what, void *arg)
{
	struct lg *lg = arg;
	read_schedstat(lg->sched1);
	lg->finished = true;
	atomic_store(&lg->stop, true);
	event_base_loopbreak(lg->base);
}

static void on_verdict_tick(evutil_socket_t fd, short what, void *arg)
{
	struct lg *lg = arg;
	struct conn *c = lg->prober;
	prober_sync(lg);
	if (lg->finished) {
		/* A GET still unanswered at the window's end took at least this
		 * long: a lower bound that a blocked server must not turn into "no
		 * sample". */
		if (c->bev && c->st != P_IDLE && c->sent_at <= lg->t_measure1)
			lg->verdict_inflight_ms = (double)(lg->t_measure1 - c->sent_at) / 1e6;
		event_base_loopbreak(lg->base);
		return;
	}
	if (!lg->measuring || !c->bev)
		return;
	if (c->st != P_IDLE) {
		/* The previous answer has not arrived: its latency is still growing
		 * and will be recorded; count the tick it cost. */
		lg->verdict_skipped++;
		return;
	}
	send_verdict(c);
}

static void on_prefill_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct lg *lg = arg;
	lg->prefill_timed_out = true;
	if (lg->opened >= lg->n_conns)
		start_running(lg);
}

static void on_connect_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct lg *lg = arg;
	lg->failed = true;
	lg->fail_reason = "timed out opening the connections";
	event_base_loopbreak(lg->base);
}

/* ---------- main ---------- */

static void print_lat(const char *name, struct lat *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_double);
	printf("\"%s\": {\"samples\": %zu, \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, "
	       "\"max_ms\": %.3f}",
	       name, l->n, pct(l, 50), pct(l, 90), pct(l, 99), l->n ? l->v[l->n - 1] : -1.0);
}

static void report(struct lg *lg)
{
	double window = lg->t_measure0 ? lg->duration_s : 0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	printf("{\"completed\": %s, \"connections\": %d, \"opened\": %d, \"nodes\": %zu, "
	       "\"window_s\": %.3f, \"ok\": %llu, \"reports_per_s\": %.1f, \"non2xx\": %llu, "
	       "\"conn_errors\": %llu, \"reconnects\": %llu, "
	       "\"status\": {\"1xx\": %llu, \"2xx\": %llu, \"3xx\": %llu, \"4xx\": %llu, "
	       "\"5xx\": %llu, \"other\": %llu}, \"first_error\": {\"status\": %d, \"body\": "
	       "\"%s\"}, \"fail_reason\": \"%s\", \"loadgen_cpu_s\": %.2f, "
	       "\"loadgen_window_cpu_s\": %.3f, \"loadgen_window_runqueue_wait_s\": %.3f, ",
	       lg->finished && !lg->failed ? "true" : "false", lg->n_conns, lg->opened,
	       lg->n_entries, window, (unsigned long long)lg->ok,
	       window > 0 ? (double)lg->ok / window : 0.0, (unsigned long long)lg->non2xx,
	       (unsigned long long)lg->conn_errors, (unsigned long long)lg->reconnects,
	       (unsigned long long)lg->status[1], (unsigned long long)lg->status[2],
	       (unsigned long long)lg->status[3], (unsigned long long)lg->status[4],
	       (unsigned long long)lg->status[5], (unsigned long long)lg->status[0], lg->errstatus,
	       lg->errbody, lg->fail_reason ? lg->fail_reason : "", cpu,
	       (double)(lg->sched1[0] - lg->sched0[0]) / 1e9,
	       (double)(lg->sched1[1] - lg->sched0[1]) / 1e9);
	double pf = lg->t_running ? (double)(lg->t_running - lg->t_begin) / 1e9 : 0;
	printf("\"prefill\": {\"answered\": %zu, \"ok\": %llu, \"seconds\": %.3f, "
	       "\"timed_out\": %s}, ",
	       lg->prefill_answered, (unsigned long long)lg->prefill_ok, pf,
	       lg->prefill_timed_out ? "true" : "false");
	print_lat("post_latency", &lg->post_lat);
	printf(", ");
	print_lat("verdict_latency", &lg->verdict_lat);
	/* few (one per tick): kept whole, so that rounds can be pooled */
	printf(", \"verdict_samples_ms\": [");
	for (size_t i = 0; i < lg->verdict_lat.n; i++)
		printf("%s%.3f", i ? ", " : "", lg->verdict_lat.v[i]);
	printf("], \"verdict_unanswered_at_end_ms\": %.3f, \"verdict_non200\": %llu, "
	       "\"verdict_skipped_ticks\": %llu, "
	       "\"verdict_bytes\": %llu}\n",
	       lg->verdict_inflight_ms, (unsigned long long)lg->verdict_non200,
	       (unsigned long long)lg->verdict_skipped, (unsigned long long)lg->verdict_bytes);
}

static void teardown(struct lg *lg)
{
	for (int i = 0; i < lg->n_conns; i++)
		if (lg->conns[i].bev)
			bufferevent_free(lg->conns[i].bev);
	event_free(lg->ev_start);
	event_free(lg->ev_end);
	event_free(lg->ev_connect_timeout);
	event_free(lg->ev_prefill_timeout);
	event_base_free(lg->base);
	for (size_t i = 0; i < lg->n_entries; i++)
		free(lg->e[i].head);
	free(lg->e);
	free(lg->conns);
	free(lg->post_lat.v);
	free(lg->verdict_lat.v);
	free((char *)lg->verdict_req);
	munmap(lg->map, lg->map_len);
}

static void *prober_main(void *arg)
{
	struct lg *p = arg;
	open_more(p);
	event_base_dispatch(p->base);
	return NULL;
}

/* The prober: the same connection code, on a loop and a thread of its own. */
static void prober_start(struct lg *lg, double verdict_ms)
{
	struct lg *p = calloc(1, sizeof(*p));
	if (!p)
		die("out of memory");
	p->main = lg;
	p->addr = lg->addr;
	p->verdict_req = lg->verdict_req;
	p->base = event_base_new();
	if (!p->base)
		die("cannot create the prober's event loop");
	p->prober = calloc(1, sizeof(*p->prober));
	if (!p->prober)
		die("out of memory");
	p->prober->lg = p;
	p->prober->is_prober = true;
	p->ev_verdict = event_new(p->base, -1, EV_PERSIST, on_verdict_tick, p);
	long ms = (long)verdict_ms;
	struct timeval iv = {ms / 1000, (suseconds_t)(ms % 1000) * 1000};
	event_add(p->ev_verdict, &iv);
	lg->plg = p;
	if (pthread_create(&lg->prober_thread, NULL, prober_main, p) != 0)
		die("cannot start the prober's thread");
}

/* After the load's loop: stop the prober and take its figures. */
static void prober_collect(struct lg *lg)
{
	struct lg *p = lg->plg;
	if (!p)
		return;
	atomic_store(&lg->stop, true);
	pthread_join(lg->prober_thread, NULL);
	lg->verdict_lat = p->verdict_lat;
	lg->verdict_non200 = p->verdict_non200;
	lg->verdict_skipped = p->verdict_skipped;
	lg->verdict_bytes = p->verdict_bytes;
	lg->verdict_inflight_ms = p->verdict_inflight_ms;
	lg->opened += p->opened;
	lg->reconnects += p->reconnects;
	lg->conn_errors += p->conn_errors;
	if (p->failed && !lg->failed) {
		lg->failed = true;
		lg->fail_reason = p->fail_reason ? p->fail_reason : "the verdict prober failed";
	}
	if (p->prober->bev)
		bufferevent_free(p->prober->bev);
	free(p->prober);
	event_free(p->ev_verdict);
	event_base_free(p->base);
	free(p);
	lg->plg = NULL;
}

static char *read_token(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "re");
	if (!f)
		die("cannot read --token-file %s", path);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return buf;
}

static double parse_num(const char *s, const char *opt, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);
	if (*end || end == s || v < lo || v > hi)
		die("bad value for %s", opt);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"host", required_argument, NULL, 'H'},
	    {"port", required_argument, NULL, 'p'},
	    {"pack", required_argument, NULL, 'k'},
	    {"connections", required_argument, NULL, 'c'},
	    {"duration", required_argument, NULL, 'd'},
	    {"warmup", required_argument, NULL, 'w'},
	    {"verdict-every-ms", required_argument, NULL, 'v'},
	    {"token-file", required_argument, NULL, 't'},
	    {"prefill-timeout", required_argument, NULL, 'P'},
	    {0},
	};
	const char *host = "127.0.0.1", *pack = NULL, *token = NULL;
	int port = 0, conns = 1000, c;
	double verdict_ms = 0;
	struct lg lg = {.warmup_s = 1, .duration_s = 10, .prefill_timeout_s = PREFILL_TIMEOUT_S};
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'H':
			host = optarg;
			break;
		case 'p':
			port = (int)parse_num(optarg, "--port", 1, 65535);
			break;
		case 'k':
			pack = optarg;
			break;
		case 'c':
			conns = (int)parse_num(optarg, "--connections", 1, 60000);
			break;
		case 'd':
			lg.duration_s = parse_num(optarg, "--duration", 0.1, 600);
			break;
		case 'w':
			lg.warmup_s = parse_num(optarg, "--warmup", 0, 600);
			break;
		case 'v':
			verdict_ms = parse_num(optarg, "--verdict-every-ms", 0, 60000);
			break;
		case 't':
			token = read_token(optarg);
			break;
		case 'P':
			lg.prefill_timeout_s = parse_num(optarg, "--prefill-timeout", 0, 3600);
			break;
		default:
			return 2;
		}
	}
	if (!port || !pack)
		die("usage: loadgen --port N --pack FILE [options]");
	lg.addr.sin_family = AF_INET;
	lg.addr.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &lg.addr.sin_addr) != 1)
		die("--host %s: not an IPv4 address", host);
	if (((ntohl(lg.addr.sin_addr.s_addr) >> 24) & 0xff) != 127)
		die("--host %s: loopback only", host);
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)conns + 64) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)conns + 64 ? rl.rlim_max : (rlim_t)conns + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < (rlim_t)conns + 16)
			die("ulimit -n is too low for --connections");
	}
	load_pack(&lg, pack, host, port, token);
	if (asprintf((char **)&lg.verdict_req,
		     "GET /v1/verdict HTTP/1.1\r\nHost: %s:%d\r\n"
		     "User-Agent: hvready-bench-loadgen\r\nAccept: application/json\r\n"
		     "Accept-Encoding: gzip\r\n\r\n",
		     host, port) < 0)
		die("out of memory");

	struct event_config *cfg = event_config_new();
	struct timeval slice = {0, SLICE_US};
	if (!cfg || event_config_set_max_dispatch_interval(cfg, &slice, -1, 1) < 0)
		die("cannot configure the event loop");
	lg.base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (!lg.base || event_base_priority_init(lg.base, N_PRIOS) < 0)
		die("cannot create the event loop");
	lg.n_conns = conns;
	lg.conns = calloc((size_t)conns, sizeof(*lg.conns));
	if (!lg.conns)
		die("out of memory");
	for (int i = 0; i < conns; i++)
		lg.conns[i].lg = &lg;
	if (verdict_ms > 0)
		prober_start(&lg, verdict_ms);
	lg.ev_start = evtimer_new(lg.base, on_start, &lg);
	lg.ev_end = evtimer_new(lg.base, on_end, &lg);
	lg.ev_connect_timeout = evtimer_new(lg.base, on_connect_timeout, &lg);
	lg.ev_prefill_timeout = evtimer_new(lg.base, on_prefill_timeout, &lg);
	struct timeval ct = {CONNECT_TIMEOUT_S, 0}, pt = tv_of(lg.prefill_timeout_s);
	event_add(lg.ev_connect_timeout, &ct);
	event_add(lg.ev_prefill_timeout, &pt);
	lg.t_begin = now_mono();
	open_more(&lg);
	event_base_dispatch(lg.base);
	prober_collect(&lg);
	report(&lg);
	int rc = lg.finished && !lg.failed ? 0 : 1;
	teardown(&lg);
	return rc;
}
