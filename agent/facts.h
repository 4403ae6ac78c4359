/*
 * The node's facts (docs/design.md#facts), the raw values the aggregator's
 * cross-node checks compare. A check that has read a fact records it here, so
 * the fact is the very sample the check decided on and nothing is read twice;
 * facts_collect() (checks.h) then fills in whatever no check recorded (for
 * instance when a check was left out with --skip). A fact that cannot be read
 * is absent: the aggregator treats absent as unknown. Like the results, the
 * facts belong to one run: give every run a fresh node_report.
 *
 *   cpu            map: arch, vendor, model_name, family, model, stepping
 *                  (arm: implementer, architecture, variant, part, revision), flags
 *   kernel_release string      os_release  map: ID, VERSION_ID, PRETTY_NAME
 *   hostname, boot_id          strings
 *   cpu_cores      online CPUs memory_bytes MemTotal
 *   kvm_modules    list of the KVM modules in the kernel
 *   clock          map: offset_us, maxerror_us, esterror_us, synced
 */
#pragma once
#include "agent.h"
#include "cpuinfo.h"
#include "timesync.h"

/* The KVM modules: kvm itself and every backend (kvm_intel, kvm_amd, kvm_pvm, …). */
extern const char *const facts_kvm_module_patterns[];

void facts_set_cpu(struct agent_ctx *ctx, const struct cpuinfo *ci);
void facts_set_clock(struct agent_ctx *ctx, const struct timesync_clock *c);
void facts_set_kvm_modules(struct agent_ctx *ctx, const struct strv *mods);
void facts_set_cpu_cores(struct agent_ctx *ctx, int64_t cores);
void facts_set_memory(struct agent_ctx *ctx, int64_t bytes);
