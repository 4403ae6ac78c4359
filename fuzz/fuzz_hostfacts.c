/*
 * The host-fact parsers the agent feeds with files of the host root:
 * /proc/cpuinfo, CPU lists, /proc/meminfo, os-release, /proc/modules and
 * modules.dep lines. The first byte picks the parser, the rest is the input.
 */
#include <stdint.h>
#include <string.h>

#include "cpuinfo.h"
#include "meminfo.h"
#include "modules.h"
#include "osrelease_kv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every line of buf through a line parser. */
static void lines(const uint8_t *buf, size_t len,
		  bool (*parse)(const char *, size_t, char *, size_t))
{
	const char *p = (const char *)buf, *end = p + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char name[64];
		if (parse(p, (size_t)(le - p), name, sizeof(name)))
			(void)strlen(name);
		p = nl ? nl + 1 : end;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1u << 20))
		return 0;
	const uint8_t *buf = data + 1;
	size_t len = size - 1;
	switch (data[0] % 6) {
	case 0: {
		struct cpuinfo ci;
		cpuinfo_parse(buf, len, &ci);
		(void)cpuinfo_has_flag(&ci, "vmx");
		struct kv_list m = {0};
		cpuinfo_to_kv(&ci, &m);
		kv_list_clear(&m);
		cpuinfo_clear(&ci);
		break;
	}
	case 1: {
		int64_t n;
		cpuinfo_parse_cpulist(buf, len, &n);
		break;
	}
	case 2: {
		int64_t b;
		meminfo_parse(buf, len, "MemTotal", &b);
		break;
	}
	case 3: {
		struct kv_list l = {0};
		osrelease_kv_parse(buf, len, &l);
		kv_list_clear(&l);
		break;
	}
	case 4:
		lines(buf, len, modules_parse_proc_line);
		break;
	default:
		lines(buf, len, modules_parse_path_line);
		break;
	}
	return 0;
}
