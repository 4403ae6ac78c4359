#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

static enum log_level level = LOG_LEVEL_INFO;
static const char *prefix = "hvready";

void log_set_level(enum log_level lvl)
{
	level = lvl;
}

void log_set_prefix(const char *prog)
{
	prefix = prog;
}

static void vlog(enum log_level lvl, int err, const char *fmt, va_list ap)
{
	if (lvl > level)
		return;
	char msg[2048];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* A URL in a log line (a server, a proxy, a target) loses its credentials. */
	char *shown = redact_text(msg);
	if (err)
		fprintf(stderr, "%s: %s: %s\n", prefix, shown, strerror(err));
	else
		fprintf(stderr, "%s: %s\n", prefix, shown);
	free(shown);
}

#define DEFINE_LOG(name, lvl, with_errno)                                                          \
	void name(const char *fmt, ...)                                                            \
	{                                                                                          \
		int e = with_errno ? errno : 0;                                                    \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		vlog(lvl, e, fmt, ap);                                                             \
		va_end(ap);                                                                        \
	}

DEFINE_LOG(log_info, LOG_LEVEL_INFO, false)
DEFINE_LOG(log_debug, LOG_LEVEL_DEBUG, false)
DEFINE_LOG(log_warn, LOG_LEVEL_WARN, true)
DEFINE_LOG(log_warnx, LOG_LEVEL_WARN, false)

void fatal(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_ERR, e, fmt, ap);
	va_end(ap);
	exit(2);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_ERR, 0, fmt, ap);
	va_end(ap);
	exit(2);
}
