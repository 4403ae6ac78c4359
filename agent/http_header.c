#include "http_header.h"

#include <string.h>
#include <strings.h>

char *http_header_value(const char *line, size_t n, const char *name)
{
	size_t nl = strlen(name);
	if (n <= nl || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
		return NULL;
	const char *v = line + nl + 1, *e = line + n;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return xstrndup(v, (size_t)(e - v));
}
