/*
 * The host's CPUs from /proc/cpuinfo and /sys/devices/system/cpu/online.
 *
 * /proc/cpuinfo has one block of "key<TAB>: value" lines per logical CPU, and its
 * keys differ per architecture:
 *   x86      vendor_id, cpu family, model, model name, stepping, flags
 *   arm64    CPU implementer, CPU architecture, CPU variant, CPU part, CPU revision,
 *            Features (no vendor string, no model name, no virtualization flag)
 *   s390x    vendor_id, "# processors", features
 *   ppc64le  cpu, revision;  riscv64: isa, uarch
 * The identity is taken from the first CPU (the kernel prints the boot CPU's
 * capabilities for every CPU); every field may be missing.
 */
#pragma once
#include "hostroot.h"
#include "kv.h"

/* Only the first MiB of /proc/cpuinfo is read (about 650 x86 CPUs): the identity
 * is in the first block, and the CPU count comes from sys/devices/system/cpu/online. */
#define CPUINFO_MAX_BYTES (1u << 20)
/* More distinct flags than any CPU has (x86 has about 300): garbage beyond. */
#define CPUINFO_MAX_FLAGS 2048

enum cpuinfo_arch {
	CPUINFO_ARCH_UNKNOWN,
	CPUINFO_ARCH_X86,
	CPUINFO_ARCH_ARM,
	CPUINFO_ARCH_S390,
	CPUINFO_ARCH_POWER,
	CPUINFO_ARCH_RISCV,
};

struct cpuinfo {
	enum cpuinfo_arch arch;
	char *vendor; /* x86/s390 vendor_id; arm: the implementer's name ("ARM", "Ampere") */
	char *
	    model_name; /* x86 "model name"; arm: the part's name when known; ppc "cpu"; riscv "uarch" */
	int64_t family, model, stepping; /* x86; -1 when absent */
	/* arm64 identification registers (MIDR_EL1 fields); -1 when absent */
	int64_t implementer, architecture, variant, part, revision;
	struct strv flags; /* x86 "flags", arm "Features", s390 "features": sorted, unique */
	size_t processors; /* "processor" entries seen (0: none) */
	bool truncated;	   /* the file was longer than CPUINFO_MAX_BYTES: processors is a floor */
};

/* Parse /proc/cpuinfo content. Returns 0, or -EBADMSG when nothing in it looks
 * like cpuinfo (ret is then empty but still needs cpuinfo_clear()). */
int cpuinfo_parse(const uint8_t *buf, size_t len, struct cpuinfo *ret);
/* Read and parse proc/cpuinfo under the root. Returns 0, -errno or -EBADMSG. */
int cpuinfo_read(const struct hostroot *root, struct cpuinfo *ret);
void cpuinfo_clear(struct cpuinfo *ci);

bool cpuinfo_has_flag(const struct cpuinfo *ci, const char *flag);
const char *cpuinfo_arch_name(enum cpuinfo_arch a);

/* The cpu facts: vendor, model_name, family, model, stepping (or the arm
 * fields), flags. Absent fields are left out. */
void cpuinfo_to_kv(const struct cpuinfo *ci, struct kv_list *map);

/* A kernel CPU list ("0-3,8,10-11\n") → number of CPUs. 0 or -EBADMSG. */
int cpuinfo_parse_cpulist(const uint8_t *buf, size_t len, int64_t *ret_count);
/* Online CPUs from sys/devices/system/cpu/online. 0 or -errno/-EBADMSG. */
int cpuinfo_online_count(const struct hostroot *root, int64_t *ret_count);
/* Logical CPUs: online CPUs, else the processors listed in proc/cpuinfo.
 * *ret_source is the path used ("sys/devices/system/cpu/online" or
 * "proc/cpuinfo"). Returns 0, or the error of the sysfs file (both failed). */
int cpuinfo_count_cpus(const struct hostroot *root, int64_t *ret_count, const char **ret_source);
