/*
 * Credentials out of everything hvready shows. A proxy ("http://user:pass@proxy:3128"),
 * a registry mirror, a Longhorn backup target ("cifs://user:pass@host/share",
 * "s3://bucket@region/?AWSAccessKeyId=…&Signature=…") or a DataVolume's import URL
 * can carry a password, and evidence is published by `serve` on its read routes,
 * in dashboards, JSON and Markdown files. Every such value passes through here
 * before it becomes evidence or part of a message.
 */
#pragma once
#include <stdbool.h>

/* What replaces a credential. */
#define REDACTED "***"

/* One URL-like value (a URL, or a proxy given as "user:pass@host:port" without a
 * scheme): the userinfo becomes "***@" and the value of every query parameter
 * whose name looks like a credential (password, secret, token, key, signature,
 * credential, auth, session…) becomes "***". NULL stays NULL. Malloc'd. */
char *redact_url(const char *s);

/* Free text (a message, a curl error, a condition message): every
 * "scheme://…" inside it redacted as by redact_url(). Malloc'd; NULL stays NULL. */
char *redact_text(const char *s);

/* Whether redact_text(s) would change s. */
bool redact_text_needed(const char *s);
