#include "meminfo.h"

#include <errno.h>
#include <string.h>

int meminfo_parse(const uint8_t *buf, size_t len, const char *key, int64_t *ret_bytes)
{
	const char *p = (const char *)buf, *end = p + len;
	size_t kn = strlen(key);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if ((size_t)(le - p) > kn && !memcmp(p, key, kn) && p[kn] == ':') {
			char tmp[64];
			size_t n = (size_t)(le - p) - kn - 1;
			if (n >= sizeof(tmp))
				return -EBADMSG;
			memcpy(tmp, p + kn + 1, n);
			tmp[n] = '\0';
			char *s = strstrip(tmp);
			size_t sl = strlen(s);
			/* The kernel prints every size in kB (KiB, in fact). */
			if (sl < 3 || strcmp(s + sl - 2, "kB") != 0)
				return -EBADMSG;
			s[sl - 2] = '\0';
			int64_t kib;
			if (util_parse_i64(strstrip(s), &kib) < 0 || kib < 0 ||
			    kib > INT64_MAX / 1024)
				return -EBADMSG;
			*ret_bytes = kib * 1024;
			return 0;
		}
		p = nl ? nl + 1 : end;
	}
	return -ENODATA;
}

int meminfo_total(const struct hostroot *root, int64_t *ret_bytes)
{
	char *buf;
	size_t len;
	int r = hostroot_read(root, "proc/meminfo", 1u << 20, &buf, &len);
	if (r < 0)
		return r;
	r = meminfo_parse((const uint8_t *)buf, len, "MemTotal", ret_bytes);
	free(buf);
	return r;
}
