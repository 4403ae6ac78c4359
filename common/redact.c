#include "redact.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "util.h"

struct buf {
	char *p;
	size_t n, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	util_grow((void **)&b->p, &b->cap, b->n + n + 1, 1);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

/* A query parameter name that may carry a secret: AWS's AWSAccessKeyId,
 * Signature, X-Amz-Credential, X-Amz-Signature, X-Amz-Security-Token, Azure's
 * sig, and the usual password/token/secret/auth/apikey/session spellings. Too
 * many redacted is harmless; one too few is a leak. */
static bool credential_name(const char *s, size_t n)
{
	static const char *const words[] = {"pass", "pwd",  "secret", "token",	 "sig",
					    "cred", "auth", "key",    "session", "otp"};
	char low[64];
	size_t m = 0;
	for (size_t i = 0; i < n && m + 1 < sizeof(low); i++)
		low[m++] = (char)tolower((unsigned char)s[i]);
	low[m] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(words); i++)
		if (strstr(low, words[i]))
			return true;
	return false;
}

/* Characters that end a URL inside free text. */
static bool text_end(char c)
{
	return c == '\0' || isspace((unsigned char)c) || c == '"' || c == '\'' || c == '<' ||
	       c == '>' || c == '`' || c == ',' || c == ')' || c == ']' || c == '}' || c == '\\' ||
	       c == ';';
}

/* Appends the redacted URL that starts at s (its authority at s + auth) and
 * returns how many bytes of s it covered. in_text: the URL ends at text_end(). */
static size_t redact_one(struct buf *b, const char *s, size_t auth, bool in_text)
{
	size_t len = 0;
	if (in_text)
		while (!text_end(s[len]))
			len++;
	else
		len = strlen(s);
	put(b, s, auth);
	/* The authority ends at the first '/', '?' or '#'; its userinfo at the last '@'. */
	size_t ae = auth;
	while (ae < len && s[ae] != '/' && s[ae] != '?' && s[ae] != '#')
		ae++;
	const char *at = NULL;
	for (size_t i = auth; i < ae; i++)
		if (s[i] == '@')
			at = s + i;
	/* Longhorn's S3 target is "s3://BUCKET@REGION/path": a bucket, not a credential
	 * (longhorn/backupstore s3 driver); with a ':' it would be one. */
	if (at && auth == 5 && strncasecmp(s, "s3", 2) == 0 &&
	    !memchr(s + auth, ':', (size_t)(at - s) - auth))
		at = NULL;
	if (at) {
		put(b, REDACTED, strlen(REDACTED));
		auth = (size_t)(at - s);
	}
	size_t q = ae;
	while (q < len && s[q] != '?' && s[q] != '#')
		q++;
	put(b, s + auth, q - auth);
	if (q >= len || s[q] == '#') {
		put(b, s + q, len - q);
		return len;
	}
	/* The query: name=value pairs separated by '&' (or ';'), up to a '#'. */
	size_t i = q;
	put(b, s + i++, 1);
	while (i < len && s[i] != '#') {
		size_t e = i;
		while (e < len && s[e] != '&' && s[e] != ';' && s[e] != '#')
			e++;
		const char *eq = memchr(s + i, '=', e - i);
		if (eq && credential_name(s + i, (size_t)(eq - (s + i)))) {
			put(b, s + i, (size_t)(eq - (s + i)) + 1);
			put(b, REDACTED, strlen(REDACTED));
		} else {
			put(b, s + i, e - i);
		}
		i = e;
		if (i < len && s[i] != '#')
			put(b, s + i++, 1);
	}
	put(b, s + i, len - i);
	return len;
}

char *redact_url(const char *s)
{
	if (!s)
		return NULL;
	struct buf b = {0};
	put(&b, "", 0);
	const char *sep = strstr(s, "://");
	redact_one(&b, s, sep ? (size_t)(sep - s) + 3 : 0, false);
	return b.p;
}

static bool scheme_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

char *redact_text(const char *s)
{
	if (!s)
		return NULL;
	struct buf b = {0};
	put(&b, "", 0);
	const char *p = s;
	for (;;) {
		const char *sep = strstr(p, "://");
		if (!sep) {
			put(&b, p, strlen(p));
			return b.p;
		}
		const char *start = sep;
		while (start > p && scheme_char(start[-1]))
			start--;
		put(&b, p, (size_t)(start - p));
		p = start + redact_one(&b, start, (size_t)(sep - start) + 3, true);
	}
}

bool redact_text_needed(const char *s)
{
	if (!s || !strstr(s, "://"))
		return false;
	_cleanup_free_ char *r = redact_text(s);
	return !streq(r, s);
}
