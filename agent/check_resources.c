/*
 * host.resources (docs/checks/host.resources.md): logical CPUs and memory against Harvester's
 * minimums (8 CPUs / 32 GiB for testing by default; thresholds in the config).
 *
 * MemTotal is what the kernel manages, a little below the installed RAM (the
 * firmware and the kernel keep some): a 32 GiB server shows about 31.1-31.5 GiB.
 * Like Harvester's own installer (harvester-installer pkg/preflight), memory
 * counts as enough from 95 % of the minimum, so a real 32 GiB node is not warned.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "cpuinfo.h"
#include "facts.h"
#include "judge.h"
#include "meminfo.h"

#define MEM_TOLERANCE_PCT 5

static void fmt_gib(char *buf, size_t len, int64_t bytes)
{
	snprintf(buf, len, "%.1f GiB", (double)bytes / (double)(INT64_C(1) << 30));
}

void check_resources(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = agent_finding(ctx, id);
	const struct agent_thresholds *thr = &ctx->opts->thr;
	int64_t cores = 0, mem = 0;
	const char *cores_src = NULL;
	int rc = cpuinfo_count_cpus(&ctx->root, &cores, &cores_src);
	int rm = meminfo_total(&ctx->root, &mem);
	int64_t mem_floor = thr->min_memory_bytes / 100 * (100 - MEM_TOLERANCE_PCT);
	char have[32], need[32];

	_cleanup_free_ char *cpu_err = NULL, *mem_err = NULL;
	if (rc == 0) {
		kv_add_int(&f->evidence, "cpus", cores);
		_cleanup_free_ char *p = hostroot_display(&ctx->root, cores_src);
		kv_add_str(&f->evidence, "cpus_source", p);
		facts_set_cpu_cores(ctx, cores);
	} else {
		_cleanup_free_ char *p =
		    hostroot_display(&ctx->root, "sys/devices/system/cpu/online");
		cpu_err = xasprintf("%s: %s, and proc/cpuinfo lists no processor", p,
				    rc == -EBADMSG ? "not a CPU list" : util_read_strerror(rc));
		kv_add_strf(&f->evidence, "cpus", "unknown: %s", cpu_err);
	}
	kv_add_int(&f->evidence, "min_cpus", thr->min_cpu_cores);
	if (rm == 0) {
		fmt_gib(have, sizeof(have), mem);
		kv_add_int(&f->evidence, "memory_bytes", mem);
		kv_add_str(&f->evidence, "memory", have);
		facts_set_memory(ctx, mem);
	} else {
		_cleanup_free_ char *p = hostroot_display(&ctx->root, "proc/meminfo");
		mem_err = xasprintf("%s: %s", p,
				    rm == -ENODATA   ? "no MemTotal line"
				    : rm == -EBADMSG ? "MemTotal is not \"N kB\""
						     : util_read_strerror(rm));
		kv_add_strf(&f->evidence, "memory", "unknown: %s", mem_err);
	}
	fmt_gib(need, sizeof(need), thr->min_memory_bytes);
	kv_add_str(&f->evidence, "min_memory", need);
	kv_add_strf(&f->evidence, "memory_tolerance",
		    "%d%% (MemTotal excludes RAM the firmware and kernel reserve)",
		    MEM_TOLERANCE_PCT);

	bool few_cpus = rc == 0 && cores < thr->min_cpu_cores;
	bool little_mem = rm == 0 && mem < mem_floor;
	_cleanup_(judge_clear) struct judge j = {.status = STATUS_PASS};
	if (cpu_err || mem_err) {
		judge_note(&j, STATUS_UNKNOWN, "cannot tell: %s%s%s", cpu_err ? cpu_err : "",
			   cpu_err && mem_err ? "; " : "", mem_err ? mem_err : "");
		judge_remedy(&j, "Give the agent the host's /proc and /sys under its host root.");
	} else if (few_cpus || little_mem) {
		judge_note(&j, STATUS_WARN,
			   "%lld %s and %s memory: below Harvester's minimum of "
			   "%lld %s and %s",
			   (long long)cores, plural(cores, "CPU", "CPUs"), have,
			   (long long)thr->min_cpu_cores, plural(thr->min_cpu_cores, "CPU", "CPUs"),
			   need);
		judge_remedy(&j, "Harvester needs at least 8 CPUs and 32 GiB per node for testing, "
				 "16 CPUs and 64 GiB for production; VMs and Longhorn replicas "
				 "compete for what is left.");
	} else {
		judge_note(&j, STATUS_PASS, "%lld %s and %s memory (minimum %lld %s and %s)",
			   (long long)cores, plural(cores, "CPU", "CPUs"), have,
			   (long long)thr->min_cpu_cores, plural(thr->min_cpu_cores, "CPU", "CPUs"),
			   need);
	}
	judge_apply(&j, f, "");
}
