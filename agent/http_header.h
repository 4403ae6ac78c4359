/*
 * One header line as libcurl hands it to a CURLOPT_HEADERFUNCTION ("Name: value\r\n",
 * not NUL-terminated).
 */
#pragma once
#include "util.h"

/* The value of line when it is the header name (case-insensitive), without the
 * blanks around it and the line end; NULL when it is another header. */
char *http_header_value(const char *line, size_t n, const char *name);
