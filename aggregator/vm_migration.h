/*
 * The last live migration of a VMI, from its own status.migrationState and
 * the VirtualMachineInstanceMigrations (VMIMs) that name it (spec.vmiName).
 * A migration that fails before the handoff to the target (target pod never
 * scheduled, rejected by a quota) is seen only on its VMIM; one whose VMIM was
 * garbage-collected only on the VMI. Field names and the versions that have
 * them: docs/support-matrix-kubevirt.md ("Live migration state").
 */
#pragma once
#include <stdbool.h>

#include "cluster_state.h"

enum vm_migration_kind {
	VM_MIGRATION_NONE,	/* none known */
	VM_MIGRATION_RUNNING,	/* not finished yet */
	VM_MIGRATION_SUCCEEDED, /* completed, not failed */
	VM_MIGRATION_FAILED,	/* failed, not on request */
	VM_MIGRATION_ABORTED,	/* failed because it was aborted on request */
};

/* Strings point into the cluster state's objects (NULL when absent). */
struct vm_migration {
	enum vm_migration_kind kind;
	const char *vmim;	 /* the VMIM's name, when one was found */
	const char *phase;	 /* the VMIM's status.phase */
	const char *source;	 /* node */
	const char *target;	 /* node, NULL before one was chosen */
	const char *start;	 /* RFC 3339 */
	const char *end;	 /* RFC 3339: the end, or the VMIM's Failed/Succeeded transition */
	const char *reason;	 /* failureReason, else a VMIM condition's message */
	const char *reason_type; /* the VMIM condition type the reason came from */
	bool from_vmi;		 /* the VMI's migrationState described it */
};

/* The VMI's last migration. VMIMs are used when cs has them collected. */
void vm_migration_last(const struct cluster_state *cs, const struct jv *vmi,
		       struct vm_migration *ret);

/* Does the failure reason name a host or device error that the next attempt
 * meets again (the disk device not accessible to the target's qemu, the CPU
 * model the target cannot provide)? Returns the matched phrase, or NULL: then
 * the cause may have passed (a timeout, a target pod that did not fit). */
const char *vm_migration_repeats(const struct vm_migration *m);

/* "failed at T from A to B (VMIM x): reason" and the like; caller frees. */
char *vm_migration_describe(const struct vm_migration *m);

/* Whether VMIMs were read: NULL when they were (or are not served: then none
 * exist), else why not ("forbidden: …"), for the finding. Caller frees. */
char *vm_migration_unread(const struct cluster_state *cs);
