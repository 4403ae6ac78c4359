#include "cpuinfo.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

/* Names for the MIDR_EL1 implementer codes and the parts seen in servers. The
 * raw codes stay in the facts too; the names are for operators. */
static const struct {
	int64_t code;
	const char *name;
} arm_implementers[] = {
    {0x41, "ARM"},	 {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},   {0x50, "APM"},    {0x51, "Qualcomm"},
    {0x53, "Samsung"},	 {0x56, "Marvell"},  {0x61, "Apple"},  {0x6d, "Microsoft"},
    {0x70, "Phytium"},	 {0xc0, "Ampere"},
};

static const struct {
	int64_t implementer, part;
	const char *name;
} arm_parts[] = {
    {0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd07, "Cortex-A57"},	{0x41, 0xd08, "Cortex-A72"},
    {0x41, 0xd0b, "Cortex-A76"},  {0x41, 0xd0c, "Neoverse-N1"}, {0x41, 0xd40, "Neoverse-V1"},
    {0x41, 0xd49, "Neoverse-N2"}, {0x41, 0xd4f, "Neoverse-V2"}, {0x41, 0xd84, "Neoverse-V3"},
    {0x41, 0xd8e, "Neoverse-N3"}, {0x43, 0x0af, "ThunderX2"},	{0x48, 0xd01, "Kunpeng-920"},
    {0xc0, 0xac3, "Ampere-1"},	  {0xc0, 0xac4, "Ampere-1a"},
};

const char *cpuinfo_arch_name(enum cpuinfo_arch a)
{
	switch (a) {
	case CPUINFO_ARCH_X86:
		return "x86";
	case CPUINFO_ARCH_ARM:
		return "arm";
	case CPUINFO_ARCH_S390:
		return "s390";
	case CPUINFO_ARCH_POWER:
		return "powerpc";
	case CPUINFO_ARCH_RISCV:
		return "riscv";
	default:
		return "unknown";
	}
}

void cpuinfo_clear(struct cpuinfo *ci)
{
	free(ci->vendor);
	free(ci->model_name);
	strv_clear(&ci->flags);
	*ci = (struct cpuinfo){0};
}

static bool key_is(const char *k, size_t kn, const char *want)
{
	return kn == strlen(want) && !memcmp(k, want, kn);
}

/* Decimal, or hex with 0x (arm's "CPU part : 0xd0c"), the whole value; -1 otherwise.
 * Not strtoll base 0: a leading zero is not octal here. */
static int64_t parse_num(const char *v, size_t vn)
{
	char tmp[32];
	if (vn == 0 || vn >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, vn);
	tmp[vn] = '\0';
	bool hex = vn > 2 && tmp[0] == '0' && (tmp[1] == 'x' || tmp[1] == 'X');
	const char *digits = hex ? tmp + 2 : tmp;
	/* strtoll would accept a sign or blanks first. */
	if (!isxdigit((unsigned char)digits[0]))
		return -1;
	char *end;
	errno = 0;
	long long n = strtoll(digits, &end, hex ? 16 : 10);
	if (errno || *end || n < 0)
		return -1;
	return n;
}

static void set_str(char **dst, const char *v, size_t vn)
{
	if (!*dst && vn > 0)
		*dst = xstrndup(v, vn);
}

static void set_num(int64_t *dst, const char *v, size_t vn)
{
	if (*dst < 0)
		*dst = parse_num(v, vn);
}

static void add_flags(struct cpuinfo *ci, const char *v, size_t vn)
{
	const char *end = v + vn;
	while (v < end && ci->flags.n < CPUINFO_MAX_FLAGS) {
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		const char *s = v;
		while (v < end && *v != ' ' && *v != '\t')
			v++;
		if (v > s) {
			_cleanup_free_ char *w = xstrndup(s, (size_t)(v - s));
			if (*w)
				strv_add(&ci->flags, w);
		}
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_unique(struct strv *v)
{
	if (v->n < 2)
		return;
	qsort(v->items, v->n, sizeof(char *), cmp_str);
	size_t o = 1;
	for (size_t i = 1; i < v->n; i++) {
		if (streq(v->items[i], v->items[o - 1]))
			free(v->items[i]);
		else
			v->items[o++] = v->items[i];
	}
	v->n = o;
}

static void trim(const char **s, size_t *n)
{
	while (*n > 0 && (**s == ' ' || **s == '\t'))
		(*s)++, (*n)--;
	while (*n > 0 && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
}

/* One "key : value" line. Returns true when the key is one we know. */
static bool parse_line(struct cpuinfo *ci, const char *k, size_t kn, const char *v, size_t vn,
		       bool *flags_seen)
{
	if (key_is(k, kn, "processor")) {
		if (parse_num(v, vn) >= 0)
			ci->processors++;
		return true;
	}
	if (key_is(k, kn, "# processors")) { /* s390x: one line for all */
		int64_t n = parse_num(v, vn);
		if (n > 0 && ci->processors == 0)
			ci->processors = (size_t)n;
		return true;
	}
	if (key_is(k, kn, "vendor_id")) {
		set_str(&ci->vendor, v, vn);
	} else if (key_is(k, kn, "model name") || key_is(k, kn, "uarch")) {
		set_str(&ci->model_name, v, vn);
	} else if (key_is(k, kn, "cpu family")) {
		set_num(&ci->family, v, vn);
	} else if (key_is(k, kn, "model") && ci->arch != CPUINFO_ARCH_POWER) {
		set_num(&ci->model, v, vn);
	} else if (key_is(k, kn, "stepping")) {
		set_num(&ci->stepping, v, vn);
	} else if (key_is(k, kn, "CPU implementer")) {
		set_num(&ci->implementer, v, vn);
	} else if (key_is(k, kn, "CPU architecture")) {
		set_num(&ci->architecture, v, vn);
	} else if (key_is(k, kn, "CPU variant")) {
		set_num(&ci->variant, v, vn);
	} else if (key_is(k, kn, "CPU part")) {
		set_num(&ci->part, v, vn);
	} else if (key_is(k, kn, "CPU revision")) {
		set_num(&ci->revision, v, vn);
	} else if (key_is(k, kn, "cpu") && ci->arch == CPUINFO_ARCH_UNKNOWN) {
		ci->arch = CPUINFO_ARCH_POWER; /* "cpu : POWER9 (architected), altivec supported" */
		set_str(&ci->model_name, v, vn);
	} else if (key_is(k, kn, "isa")) {
		ci->arch = CPUINFO_ARCH_RISCV;
	} else if (key_is(k, kn, "flags") || key_is(k, kn, "Features") ||
		   key_is(k, kn, "features")) {
		if (*flags_seen)
			return true;
		*flags_seen = true;
		add_flags(ci, v, vn);
	} else {
		return false;
	}
	return true;
}

static void finish(struct cpuinfo *ci)
{
	if (ci->implementer >= 0) {
		ci->arch = CPUINFO_ARCH_ARM;
		for (size_t i = 0; !ci->vendor && i < ELEMENTSOF(arm_implementers); i++)
			if (arm_implementers[i].code == ci->implementer)
				ci->vendor = xstrdup(arm_implementers[i].name);
		if (!ci->vendor)
			ci->vendor = xasprintf("0x%02llx", (unsigned long long)ci->implementer);
		for (size_t i = 0; !ci->model_name && i < ELEMENTSOF(arm_parts); i++)
			if (arm_parts[i].implementer == ci->implementer &&
			    arm_parts[i].part == ci->part)
				ci->model_name = xstrdup(arm_parts[i].name);
	} else if (ci->vendor && startswith(ci->vendor, "IBM/S390")) {
		ci->arch = CPUINFO_ARCH_S390;
	} else if (ci->vendor && ci->family >= 0) {
		ci->arch = CPUINFO_ARCH_X86;
	}
	sort_unique(&ci->flags);
}

int cpuinfo_parse(const uint8_t *buf, size_t len, struct cpuinfo *ret)
{
	struct cpuinfo ci = {
	    .family = -1,
	    .model = -1,
	    .stepping = -1,
	    .implementer = -1,
	    .architecture = -1,
	    .variant = -1,
	    .part = -1,
	    .revision = -1,
	};
	const char *p = (const char *)buf, *end = p + len;
	bool flags_seen = false;
	size_t known = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(le - p));
		if (colon) {
			const char *k = p, *v = colon + 1;
			size_t kn = (size_t)(colon - p), vn = (size_t)(le - v);
			trim(&k, &kn);
			trim(&v, &vn);
			if (parse_line(&ci, k, kn, v, vn, &flags_seen))
				known++;
		}
		p = nl ? nl + 1 : end;
	}
	finish(&ci);
	*ret = ci;
	return known > 0 && (ci.processors > 0 || ci.vendor || ci.flags.n > 0) ? 0 : -EBADMSG;
}

int cpuinfo_read(const struct hostroot *root, struct cpuinfo *ret)
{
	char *buf = NULL;
	size_t len = 0;
	bool truncated = false;
	/* Only the first CPUINFO_MAX_BYTES: a longer file is not an error here. */
	int r =
	    hostroot_read_prefix(root, "proc/cpuinfo", CPUINFO_MAX_BYTES, &buf, &len, &truncated);
	if (r < 0) {
		*ret = (struct cpuinfo){0};
		return r;
	}
	r = cpuinfo_parse((const uint8_t *)buf, len, ret);
	ret->truncated = truncated;
	free(buf);
	return r;
}

bool cpuinfo_has_flag(const struct cpuinfo *ci, const char *flag)
{
	const char *key = flag;
	return ci->flags.n > 0 &&
	       bsearch(&key, ci->flags.items, ci->flags.n, sizeof(char *), cmp_str) != NULL;
}

void cpuinfo_to_kv(const struct cpuinfo *ci, struct kv_list *map)
{
	kv_add_str(map, "arch", cpuinfo_arch_name(ci->arch));
	if (ci->vendor)
		kv_add_str(map, "vendor", ci->vendor);
	if (ci->model_name)
		kv_add_str(map, "model_name", ci->model_name);
	if (ci->family >= 0)
		kv_add_int(map, "family", ci->family);
	if (ci->model >= 0)
		kv_add_int(map, "model", ci->model);
	if (ci->stepping >= 0)
		kv_add_int(map, "stepping", ci->stepping);
	if (ci->implementer >= 0)
		kv_add_strf(map, "implementer", "0x%02llx", (unsigned long long)ci->implementer);
	if (ci->architecture >= 0)
		kv_add_int(map, "architecture", ci->architecture);
	if (ci->variant >= 0)
		kv_add_strf(map, "variant", "0x%llx", (unsigned long long)ci->variant);
	if (ci->part >= 0)
		kv_add_strf(map, "part", "0x%03llx", (unsigned long long)ci->part);
	if (ci->revision >= 0)
		kv_add_int(map, "revision", ci->revision);
	struct value_list *fl = kv_add_list(map, "flags");
	for (size_t i = 0; i < ci->flags.n; i++)
		vlist_add_str(fl, ci->flags.items[i]);
}

/* CPU lists are decimal only. */
static int64_t parse_dec(const char *v, size_t vn)
{
	for (size_t i = 0; i < vn; i++)
		if (!isdigit((unsigned char)v[i]))
			return -1;
	return parse_num(v, vn);
}

/* Larger than any CPU number the kernel supports (NR_CPUS is at most 8192). */
#define CPULIST_MAX_CPU (1 << 16)

int cpuinfo_parse_cpulist(const uint8_t *buf, size_t len, int64_t *ret_count)
{
	const char *p = (const char *)buf, *end = p + len;
	int64_t count = 0;
	while (end > p && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\0'))
		end--;
	if (p == end)
		return -EBADMSG;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *fe = comma ? comma : end;
		const char *dash = memchr(p, '-', (size_t)(fe - p));
		int64_t a = parse_dec(p, (size_t)((dash ? dash : fe) - p));
		int64_t b = dash ? parse_dec(dash + 1, (size_t)(fe - dash - 1)) : a;
		if (a < 0 || b < a || b >= CPULIST_MAX_CPU)
			return -EBADMSG;
		count += b - a + 1;
		p = comma ? comma + 1 : end;
		if (comma && p == end)
			return -EBADMSG;
	}
	if (count > CPULIST_MAX_CPU)
		return -EBADMSG;
	*ret_count = count;
	return 0;
}

int cpuinfo_online_count(const struct hostroot *root, int64_t *ret_count)
{
	char *buf;
	size_t len;
	int r = hostroot_read(root, "sys/devices/system/cpu/online", 65536, &buf, &len);
	if (r < 0)
		return r;
	r = cpuinfo_parse_cpulist((const uint8_t *)buf, len, ret_count);
	free(buf);
	return r;
}

int cpuinfo_count_cpus(const struct hostroot *root, int64_t *ret_count, const char **ret_source)
{
	int r = cpuinfo_online_count(root, ret_count);
	if (r == 0) {
		*ret_source = "sys/devices/system/cpu/online";
		return 0;
	}
	struct cpuinfo ci;
	if (cpuinfo_read(root, &ci) == 0 && ci.processors > 0) {
		*ret_count = (int64_t)ci.processors;
		*ret_source = "proc/cpuinfo";
		cpuinfo_clear(&ci);
		return 0;
	}
	cpuinfo_clear(&ci);
	return r;
}
