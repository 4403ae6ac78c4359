/*
 * The run's two slow reads, started on a second thread when the run starts:
 * the proc/ scan (procs.h: host.clock, host.iscsi, host.multipathd) and the
 * inflate of proc/config.gz (modules.h: host.nfs.kernel, host.iscsi). The
 * checks run one after another on the run's worker (agent.c); before them
 * come host.kvm (a KVM_CREATE_VM) and host.cpu.virt, which need neither, so on
 * a machine with an idle core the two reads are done by the time a check asks.
 * docs/benchmarks.md ("the agent, fourth round") has the measurement.
 *
 * Only a head start: what a check gets is what it would have read itself —
 * the same scan, the same cached text (kconfig_cache_text's rules), filled by
 * the same functions. A part the prefetch did not do (no proc/config.gz is the
 * config in use, say) is left empty and read on first use as before.
 *
 * A check that takes a part waits for it. Bounded by the check's own deadline
 * (agent.c's runner abandons the worker that waits: UNKNOWN "blocked", with the
 * last host path the prefetch opened as the place). The object is counted:
 * the run, each job it lends it to, and its own thread hold it.
 */
#pragma once
#include <stdbool.h>

#include "hostroot.h"
#include "modules.h"
#include "procs.h"

struct run_prefetch;

/* Start the reads on a thread of their own, with a duplicate of root's fd.
 * NULL when the fd or the thread cannot be had (the checks read lazily). */
struct run_prefetch *run_prefetch_start(const struct hostroot *root);
struct run_prefetch *run_prefetch_ref(struct run_prefetch *p);
void run_prefetch_unref(struct run_prefetch *p);
/* Whether p's thread has ended. */
bool run_prefetch_ended(struct run_prefetch *p);

/* Wait for the proc/ scan and move it into *scan, the first time and only when
 * *scan is unfilled; later calls leave *scan alone. While waiting, the last
 * path the prefetch opened is given to this thread's tracer (hostroot.h). */
void run_prefetch_take_procs(struct run_prefetch *p, struct procs_scan *scan);
/* The same for the inflated kernel config, into an empty *cache. */
void run_prefetch_take_kconfig(struct run_prefetch *p, struct kconfig_cache *cache);
