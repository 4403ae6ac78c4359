#include "osrelease_kv.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

/* Longest value kept; PRETTY_NAME and URLs are far shorter. */
#define VALUE_MAX 1024

static bool valid_key(const char *k, size_t n)
{
	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isupper((unsigned char)k[i]) && !isdigit((unsigned char)k[i]) && k[i] != '_')
			return false;
	return true;
}

/* Unquote v[0..n) into out (at least n + 1 bytes). false for an unterminated quote. */
static bool unquote(const char *v, size_t n, char *out)
{
	size_t o = 0;
	if (n > 0 && (v[0] == '"' || v[0] == '\'')) {
		char q = v[0];
		size_t i = 1;
		for (; i < n && v[i] != q; i++) {
			if (q == '"' && v[i] == '\\' && i + 1 < n && strchr("\\\"$`", v[i + 1]))
				i++;
			out[o++] = v[i];
		}
		if (i >= n)
			return false;
	} else {
		for (size_t i = 0; i < n; i++) {
			if (v[i] == '\\' && i + 1 < n)
				i++;
			out[o++] = v[i];
		}
	}
	out[o] = '\0';
	return true;
}

int osrelease_kv_parse(const uint8_t *buf, size_t len, struct kv_list *ret)
{
	const char *p = (const char *)buf, *end = p + len;
	int n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		while (p < le && isspace((unsigned char)*p))
			p++;
		const char *eq = memchr(p, '=', (size_t)(le - p));
		if (p < le && *p != '#' && eq && valid_key(p, (size_t)(eq - p))) {
			const char *v = eq + 1;
			size_t vn = (size_t)(le - v);
			while (vn > 0 && isspace((unsigned char)v[vn - 1]))
				vn--;
			char key[65], val[VALUE_MAX + 1];
			memcpy(key, p, (size_t)(eq - p));
			key[eq - p] = '\0';
			if (vn <= VALUE_MAX && !memchr(v, '\0', vn) && unquote(v, vn, val)) {
				kv_add_str(ret, key, val);
				n++;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return n;
}

int osrelease_kv_read(const struct hostroot *root, struct kv_list *ret)
{
	static const char *const paths[] = {"etc/os-release", "usr/lib/os-release"};
	int r = -ENOENT;
	for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
		char *buf;
		size_t len;
		r = hostroot_read(root, paths[i], 65536, &buf, &len);
		if (r < 0)
			continue;
		r = osrelease_kv_parse((const uint8_t *)buf, len, ret);
		free(buf);
		return r;
	}
	return r;
}
