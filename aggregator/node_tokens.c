/* Per-node bearer tokens (node_tokens.h). */
#include "node_tokens.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "util.h"

#define NODE_TOKENS_FILE_MAX (16u << 20)
#define NODE_NAME_MAX	     253 /* a DNS subdomain, as a Node's name */
#define NODE_TOKEN_MIN	     16	 /* bytes: a guessable token is no credential */
#define NODE_TOKEN_MAX	     4096

struct node_token {
	char *node, *token;
	size_t token_len;
};

struct node_tokens {
	struct node_token *v;
	size_t n;
	/* the file as read, to tell a change */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int64_t checked_ns;
};

static bool const_time_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	unsigned char diff = alen != blen;
	for (size_t i = 0; i < alen && i < blen; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

void node_tokens_free(struct node_tokens *nt)
{
	if (!nt)
		return;
	for (size_t i = 0; i < nt->n; i++) {
		explicit_bzero(nt->v[i].token, nt->v[i].token_len);
		free(nt->v[i].token);
		free(nt->v[i].node);
	}
	free(nt->v);
	free(nt);
}

size_t node_tokens_count(const struct node_tokens *nt)
{
	return nt ? nt->n : 0;
}

static int parse_error(struct node_tokens *nt, char *err, size_t errlen, size_t line,
		       const char *what)
{
	snprintf(err, errlen, "line %zu: %s", line, what);
	node_tokens_free(nt);
	return -EINVAL;
}

int node_tokens_parse(const char *buf, size_t len, struct node_tokens **ret, char *err,
		      size_t errlen)
{
	struct node_tokens *nt = xcalloc(1, sizeof(*nt));
	size_t cap = 0, line = 0;
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		line++;
		/* fields: NODE TOKEN, separated by spaces or tabs; a CR before LF is
		 * not part of the token */
		const char *q = p;
		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		const char *e = le;
		while (e > q && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		p = nl ? nl + 1 : end;
		if (q == e || *q == '#')
			continue;
		if (memchr(q, '\0', (size_t)(e - q)))
			return parse_error(nt, err, errlen, line, "a NUL byte");
		const char *ne = q;
		while (ne < e && *ne != ' ' && *ne != '\t')
			ne++;
		const char *t = ne;
		while (t < e && (*t == ' ' || *t == '\t'))
			t++;
		if (t == e)
			return parse_error(nt, err, errlen, line, "expected NODE TOKEN");
		size_t nlen = (size_t)(ne - q), tlen = (size_t)(e - t);
		if (memchr(t, ' ', tlen) || memchr(t, '\t', tlen))
			return parse_error(nt, err, errlen, line,
					   "expected NODE TOKEN, found more");
		if (nlen > NODE_NAME_MAX)
			return parse_error(nt, err, errlen, line, "node name too long");
		if (tlen < NODE_TOKEN_MIN || tlen > NODE_TOKEN_MAX)
			return parse_error(nt, err, errlen, line,
					   "token shorter than 16 or longer than 4096 bytes");
		for (size_t i = 0; i < nt->n; i++) {
			if (strlen(nt->v[i].node) == nlen && memcmp(nt->v[i].node, q, nlen) == 0)
				return parse_error(nt, err, errlen, line, "node given twice");
			if (nt->v[i].token_len == tlen && memcmp(nt->v[i].token, t, tlen) == 0)
				return parse_error(nt, err, errlen, line,
						   "token given for two nodes");
		}
		if (nt->n == cap) {
			cap = cap ? 2 * cap : 16;
			nt->v = xrealloc(nt->v, cap * sizeof(*nt->v));
		}
		nt->v[nt->n++] = (struct node_token){
		    .node = xstrndup(q, nlen), .token = xstrndup(t, tlen), .token_len = tlen};
	}
	if (!nt->n) {
		node_tokens_free(nt);
		snprintf(err, errlen, "no NODE TOKEN line");
		return -EINVAL;
	}
	*ret = nt;
	return 0;
}

int node_tokens_load(const char *path, struct node_tokens **ret, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	int r = util_secret_mode(st.st_mode, err, errlen);
	if (r < 0)
		return r;
	char *buf;
	size_t len;
	r = util_read_file(path, NODE_TOKENS_FILE_MAX, &buf, &len);
	if (r < 0) {
		snprintf(err, errlen, "%s", util_read_strerror(r));
		return r;
	}
	r = node_tokens_parse(buf, len, ret, err, errlen);
	explicit_bzero(buf, len);
	free(buf);
	if (r < 0)
		return r;
	(*ret)->dev = st.st_dev;
	(*ret)->ino = st.st_ino;
	(*ret)->size = st.st_size;
	(*ret)->mtime = st.st_mtim;
	return 0;
}

int node_tokens_check(const struct node_tokens *nt, const char *token, const char *node,
		      const char **why)
{
	size_t tlen = strlen(token);
	const struct node_token *owner = NULL, *mine = NULL;
	/* Every entry is compared, so the time taken tells nothing of which. */
	for (size_t i = 0; i < nt->n; i++) {
		if (const_time_eq(token, tlen, nt->v[i].token, nt->v[i].token_len))
			owner = &nt->v[i];
		if (streq(nt->v[i].node, node))
			mine = &nt->v[i];
	}
	if (!owner) {
		*why = "invalid bearer token";
		return 401;
	}
	if (owner != mine) {
		*why = mine ? "this node token is another node's"
			    : "no token for this node in --node-token-file";
		return 403;
	}
	return 0;
}

bool node_tokens_known(const struct node_tokens *nt, const char *token)
{
	size_t tlen = strlen(token);
	bool found = false;
	for (size_t i = 0; i < nt->n; i++) /* every entry, as node_tokens_check does */
		found |= const_time_eq(token, tlen, nt->v[i].token, nt->v[i].token_len);
	return found;
}

bool node_tokens_reload(struct node_tokens **nt, const char *path, int64_t now_ns)
{
	struct node_tokens *old = *nt;
	if (old->checked_ns && now_ns - old->checked_ns < NODE_TOKENS_RECHECK_NS)
		return false;
	old->checked_ns = now_ns;
	struct stat st;
	if (stat(path, &st) < 0) {
		log_warn("--node-token-file %s, keeping the %zu %s read before", path, old->n,
			 plural((int64_t)old->n, "token", "tokens"));
		return false;
	}
	if (st.st_dev == old->dev && st.st_ino == old->ino && st.st_size == old->size &&
	    st.st_mtim.tv_sec == old->mtime.tv_sec && st.st_mtim.tv_nsec == old->mtime.tv_nsec)
		return false;
	struct node_tokens *fresh;
	char err[256];
	if (node_tokens_load(path, &fresh, err, sizeof(err)) < 0) {
		log_warnx("--node-token-file %s: %s; keeping the %zu %s read before", path, err,
			  old->n, plural((int64_t)old->n, "token", "tokens"));
		/* Not again until it changes once more. */
		old->dev = st.st_dev;
		old->ino = st.st_ino;
		old->size = st.st_size;
		old->mtime = st.st_mtim;
		return false;
	}
	fresh->checked_ns = now_ns;
	log_info("--node-token-file %s re-read: %zu node tokens", path, fresh->n);
	node_tokens_free(old);
	*nt = fresh;
	return true;
}
