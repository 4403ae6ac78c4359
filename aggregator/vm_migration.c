/*
 * The last live migration of a VMI (vm_migration.h). Upstream, kubevirt/kubevirt
 * staging/src/kubevirt.io/api/core/v1/types.go, the same at v1.2.0 through
 * v1.9.0 except where noted:
 * - VMI status.migrationState: startTimestamp, endTimestamp, sourceNode,
 *   targetNode, completed, failed, abortStatus, migrationUid (the VMIM's
 *   metadata.uid), failureReason (new in v1.2.0: absent at v1.1.0; set by
 *   virt-handler from the domain's migration metadata, pkg/virt-handler/vm.go
 *   v1.2.2-v1.9.0). virt-handler sets failed
 *   and completed together; an abort on request ends failed with abortStatus
 *   "Succeeded" (pkg/virt-handler/migration-target.go, v1.9.0: failureReason
 *   "Live migration has been aborted").
 * - VMIM spec.vmiName; status.phase Pending, Scheduling, Scheduled,
 *   PreparingTarget, TargetReady, Running, Succeeded, Failed (v1.6.0 adds
 *   WaitingForSync and Synchronizing, decentralized migrations);
 *   status.phaseTransitionTimestamps[] {phase, phaseTransitionTimestamp};
 *   status.migrationState as on the VMI; status.conditions[] (e.g.
 *   migrationRejectedByResourceQuota).
 * - v1.6.0+: migrationState.sourceState.node / targetState.node
 *   (VirtualMachineInstanceCommonMigrationState), read when the top-level
 *   sourceNode/targetNode are empty.
 */
#include "vm_migration.h"

#include <stdint.h>
#include <string.h>

#include "json_query.h"

static const char *vmim_vmi_name(const struct jv *o)
{
	return JQS(o, "spec", "vmiName");
}

static int64_t time_of(const char *s)
{
	int64_t ns;
	return s && util_parse_rfc3339(s, &ns) == 0 ? ns : INT64_MIN;
}

/* The VMIM for this VMI created last (equal times: the later in the list). */
static const struct jv *latest_vmim(const struct cluster_state *cs, const struct jv *vmi)
{
	const char *name = jq_name(vmi), *ns = jq_namespace(vmi);
	const struct cs_entry *e;
	size_t n = cs_lookup(cs, RES_VM_MIGRATIONS, vmim_vmi_name, name, &e);
	const struct jv *best = NULL;
	int64_t best_t = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		if (!streq(jq_namespace(e[i].obj), ns))
			continue;
		int64_t t = time_of(JQS(e[i].obj, "metadata", "creationTimestamp"));
		if (!best || t >= best_t) {
			best = e[i].obj;
			best_t = t;
		}
	}
	return best;
}

/* When the VMIM entered a phase (phaseTransitionTimestamps), or NULL. */
static const char *phase_time(const struct jv *vmim, const char *phase)
{
	const struct jv *pt = JQ(vmim, "status", "phaseTransitionTimestamps");
	const char *t = NULL;
	for (size_t i = 0; i < jq_len(pt); i++)
		if (streq(JQS(jq_at(pt, i), "phase"), phase))
			t = JQS(jq_at(pt, i), "phaseTransitionTimestamp");
	return t;
}

/* A VMIM condition that is True and says why (the first one), or NULL. */
static const struct jv *vmim_condition(const struct jv *vmim)
{
	const struct jv *cs = JQ(vmim, "status", "conditions");
	for (size_t i = 0; i < jq_len(cs); i++) {
		const struct jv *c = jq_at(cs, i);
		const char *m = JQS(c, "message");
		if (streq(JQS(c, "status"), "True") && m && *m)
			return c;
	}
	return NULL;
}

static bool get_bool(const struct jv *o, const char *key)
{
	bool b = false;
	return jq_bool(JQ(o, key), &b) && b;
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* Fill from a migrationState object (the VMI's or the VMIM's). */
static void from_state(struct vm_migration *m, const struct jv *ms)
{
	if (!ms)
		return;
	if (!m->source)
		m->source = nonempty(JQS(ms, "sourceNode"));
	if (!m->target)
		m->target = nonempty(JQS(ms, "targetNode"));
	if (!m->start)
		m->start = nonempty(JQS(ms, "startTimestamp"));
	if (!m->end)
		m->end = nonempty(JQS(ms, "endTimestamp"));
	if (!m->reason)
		m->reason = nonempty(JQS(ms, "failureReason"));
	/* Decentralized migrations (v1.6.0+): each side's node in its own state. */
	if (!m->source)
		m->source = nonempty(JQS(ms, "sourceState", "node"));
	if (!m->target)
		m->target = nonempty(JQS(ms, "targetState", "node"));
}

static enum vm_migration_kind state_kind(const struct jv *ms)
{
	if (get_bool(ms, "failed"))
		return streq(JQS(ms, "abortStatus"), "Succeeded") ? VM_MIGRATION_ABORTED
								  : VM_MIGRATION_FAILED;
	if (get_bool(ms, "completed"))
		return VM_MIGRATION_SUCCEEDED;
	return VM_MIGRATION_RUNNING;
}

static enum vm_migration_kind vmim_kind(const struct jv *vmim, const struct jv *vmi_ms)
{
	const char *phase = JQS(vmim, "status", "phase");
	const struct jv *ms = vmi_ms ? vmi_ms : JQ(vmim, "status", "migrationState");
	if (streq(phase, "Failed"))
		return state_kind(ms) == VM_MIGRATION_ABORTED ? VM_MIGRATION_ABORTED
							      : VM_MIGRATION_FAILED;
	if (streq(phase, "Succeeded"))
		return VM_MIGRATION_SUCCEEDED;
	/* Not finished by its phase; the VMI may know better (the VMIM's phase
	 * follows the VMI's state a moment later). */
	if (ms && (get_bool(ms, "failed") || get_bool(ms, "completed")))
		return state_kind(ms);
	return VM_MIGRATION_RUNNING;
}

void vm_migration_last(const struct cluster_state *cs, const struct jv *vmi,
		       struct vm_migration *ret)
{
	*ret = (struct vm_migration){0};
	const struct jv *ms = JQ(vmi, "status", "migrationState");
	if (ms && !jv_is(ms, JV_OBJECT))
		ms = NULL;
	const struct jv *vmim = latest_vmim(cs, vmi);
	const char *ms_uid = nonempty(JQS(ms, "migrationUid"));
	bool same = vmim && ms_uid && streq(ms_uid, JQS(vmim, "metadata", "uid"));
	/* A VMIM newer than the VMI's state: its own migration is the last one
	 * (one that failed before the handoff never reaches the VMI). */
	bool vmim_last = vmim && !same &&
			 (!ms || time_of(JQS(vmim, "metadata", "creationTimestamp")) >
				     time_of(JQS(ms, "startTimestamp")));
	if (vmim && (same || vmim_last)) {
		const struct jv *own = same ? ms : NULL;
		ret->kind = vmim_kind(vmim, own);
		ret->vmim = jq_name(vmim);
		ret->phase = nonempty(JQS(vmim, "status", "phase"));
		ret->from_vmi = same;
		from_state(ret, own);
		from_state(ret, JQ(vmim, "status", "migrationState"));
		if (!ret->end && ret->phase &&
		    (streq(ret->phase, "Failed") || streq(ret->phase, "Succeeded")))
			ret->end = phase_time(vmim, ret->phase);
		if (!ret->start)
			ret->start = nonempty(JQS(vmim, "metadata", "creationTimestamp"));
		const struct jv *c = vmim_condition(vmim);
		if (!ret->reason && c) {
			ret->reason = JQS(c, "message");
			ret->reason_type = nonempty(JQS(c, "type"));
		}
	} else if (ms) {
		ret->kind = state_kind(ms);
		ret->from_vmi = true;
		from_state(ret, ms);
	} else {
		return;
	}
	/* Not moved (still running there, or failed): the VMI's node is the source. */
	if (!ret->source && ret->kind != VM_MIGRATION_SUCCEEDED)
		ret->source = nonempty(JQS(vmi, "status", "nodeName"));
}

char *vm_migration_describe(const struct vm_migration *m)
{
	static const char *const words[] = {
	    [VM_MIGRATION_NONE] = "none",
	    [VM_MIGRATION_RUNNING] = "running",
	    [VM_MIGRATION_SUCCEEDED] = "succeeded",
	    [VM_MIGRATION_FAILED] = "failed",
	    [VM_MIGRATION_ABORTED] = "aborted on request",
	};
	const char *when = m->kind == VM_MIGRATION_RUNNING ? m->start : m->end ? m->end : m->start;
	_cleanup_free_ char *vmim =
	    m->vmim ? xasprintf(" (VirtualMachineInstanceMigration %s%s%s)", m->vmim,
				m->phase ? ", phase " : "", m->phase ? m->phase : "")
		    : xstrdup(" (VMI status.migrationState)");
	_cleanup_free_ char *why =
	    m->reason ? xasprintf(": %s%s%s", m->reason_type ? m->reason_type : "",
				  m->reason_type ? ": " : "", m->reason)
	    : m->kind != VM_MIGRATION_FAILED ? xstrdup("")
	    : m->from_vmi
		? xstrdup(": no failure reason recorded in status.migrationState.failureReason "
			  "(the VMI's events say why)")
		: xstrdup(": no failure reason recorded (it never reached the VMI: the "
			  "VMIM's and the VMI's events say why)");
	return xasprintf("%s%s%s from %s to %s%s%s", words[m->kind],
			 !when				   ? ""
			 : m->kind == VM_MIGRATION_RUNNING ? " since "
							   : " at ",
			 when ? when : "", m->source ? m->source : "an unknown node",
			 m->target ? m->target : "a target not chosen yet", vmim, why);
}

char *vm_migration_unread(const struct cluster_state *cs)
{
	const struct resource_data *d = &cs->res[RES_VM_MIGRATIONS];
	if (d->status == RES_COLLECTED || d->status == RES_NOT_INSTALLED)
		return NULL;
	_cleanup_free_ char *res = resource_display_name(&resource_defs[RES_VM_MIGRATIONS]);
	return xasprintf("%s %s%s%s", res, resource_status_name(d->status), d->error ? ": " : "",
			 d->error ? d->error : "");
}

/* Errors libvirt/qemu report on the target that do not go away by retrying:
 * access to the disk's device node or file (device ownership, SELinux,
 * a missing device), and a CPU the target host cannot provide (libvirt
 * "the CPU is incompatible with host CPU", "guest CPU doesn't match
 * specification"). Lower case; matched case-insensitively. */
static const char *const repeating[] = {
    "permission denied", "operation not permitted",	  "cannot access storage file",
    "no such device",	 "is incompatible with host cpu", "guest cpu doesn't match specification",
};

const char *vm_migration_repeats(const struct vm_migration *m)
{
	if (m->kind != VM_MIGRATION_FAILED || !m->reason)
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(repeating); i++)
		if (strcasestr(m->reason, repeating[i]))
			return repeating[i];
	return NULL;
}
