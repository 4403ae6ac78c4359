/* Logging to stderr (the journal under systemd). The OpenBSD families:
 * log_warn()/fatal() append strerror(errno); log_warnx()/fatalx() do not. */
#pragma once
#include "util.h"

enum log_level { LOG_LEVEL_ERR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

void log_set_level(enum log_level lvl);
void log_set_prefix(const char *prog);
void log_info(const char *fmt, ...) _printf_(1, 2);
void log_debug(const char *fmt, ...) _printf_(1, 2);
void log_warn(const char *fmt, ...) _printf_(1, 2);
void log_warnx(const char *fmt, ...) _printf_(1, 2);
_Noreturn void fatal(const char *fmt, ...) _printf_(1, 2);
_Noreturn void fatalx(const char *fmt, ...) _printf_(1, 2);
