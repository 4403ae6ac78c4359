/*
 * canary.migrate (docs/checks/canary.migrate.md): a
 * VirtualMachineInstanceMigration of the VM the vm step started. PASS when
 * the migration's phase is Succeeded, the VMI's status.migrationState is
 * completed and not failed, and the VMI runs on another node; timed. A
 * failure quotes migrationState.failureReason, the migration's phase and
 * its conditions (kubevirt/kubevirt staging/src/kubevirt.io/api/core/v1
 * types.go: VirtualMachineInstanceMigrationState, VirtualMachineInstance-
 * MigrationPhase; failureReason from v1.3).
 *
 * Preconditions (SKIP or UNKNOWN, nothing created): the vm step passed in
 * this run; another Ready, schedulable node offers devices.kubevirt.io/kvm;
 * the VMI's LiveMigratable condition is not False (a FAIL quoting it: the
 * VM was built to migrate, so the platform refuses what Harvester needs).
 * Deleting the migration (cleanup) aborts one still running.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "canary_kv.h"

struct mig {
	struct canary *c;
	struct finding *f;
	char *vm, *name, *source;
	char *want;	     /* --node B: the target asked for, or NULL */
	char *want_hostname; /* its kubernetes.io/hostname label */
	char err[1024];
};

/* The VMI's condition TYPE when its status is False: "REASON: MESSAGE". */
static char *cond_false(json_object *vmi, const char *type)
{
	json_object *conds = cj_get(vmi, "status", "conditions", NULL);
	for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
		json_object *cd = json_object_array_get_idx(conds, i);
		const char *t = cj_str(cd, "type", NULL), *s = cj_str(cd, "status", NULL);
		if (t && streq(t, type) && s && streq(s, "False"))
			return xasprintf("%s: %s", cj_str(cd, "reason", NULL) ?: "?",
					 cj_str(cd, "message", NULL) ?: "");
	}
	return NULL;
}

static enum status preconditions(struct mig *m)
{
	struct canary *c = m->c;
	struct finding *f = m->f;
	json_object *vmi = NULL;
	if (!canary_vm_step_vmi(c, f, "needs the vm step in the same run (--steps vm,migrate)",
				&vmi, m->err, sizeof(m->err)))
		return f->status;
	const char *node = cj_str(vmi, "status", "nodeName", NULL);
	m->source = node ? xstrdup(node) : NULL;
	_cleanup_free_ char *why = cond_false(vmi, "LiveMigratable");
	json_object_put(vmi);
	if (!m->source) {
		finding_set(f, STATUS_UNKNOWN, "the VMI %s/%s has no node", c->o->ns, m->vm);
		return STATUS_UNKNOWN;
	}
	struct strv nodes = {0}, bad = {0};
	size_t total = 0;
	const char *why_not = NULL;
	enum status st = STATUS_PASS;
	if (canary_kvm_nodes(c, &nodes, &bad, &total, m->err, sizeof(m->err)) < 0) {
		finding_set(f, STATUS_UNKNOWN, "cannot list the nodes: %s", m->err);
		st = STATUS_UNKNOWN;
	} else if (total < 2) {
		finding_set(f, STATUS_SKIP, "the cluster has %zu node: a VM cannot migrate", total);
		st = STATUS_SKIP;
	} else {
		size_t others = 0;
		for (size_t i = 0; i < nodes.n; i++)
			others += !streq(nodes.items[i], m->source);
		if (!others) {
			_cleanup_free_ char *s = strv_join(&bad, ", ");
			finding_set(f, STATUS_UNKNOWN,
				    "no node but %s can take the VM (Ready, schedulable, with "
				    "KVM)%s%s",
				    m->source, bad.n ? ": " : "", s);
			finding_remedy(f, "Run it when two nodes can run VMs "
					  "(docs/checks/canary.migrate.md).");
			st = STATUS_UNKNOWN;
		} else if (m->want &&
			   (why_not = streq(m->want, m->source)
					  ? "(the VM runs there already)"
					  : canary_node_why_not(&nodes, &bad, m->want))) {
			finding_set(f, STATUS_UNKNOWN, "--node %s cannot take the VM %s", m->want,
				    why_not);
			finding_remedy(f,
				       "Name as the second --node a Ready, schedulable node with "
				       "KVM other than the VM's (docs/checks/canary.migrate.md).");
			st = STATUS_UNKNOWN;
		}
	}
	strv_clear(&nodes);
	strv_clear(&bad);
	if (st == STATUS_PASS && m->want) {
		/* addedNodeSelector matches labels, not the node's name. */
		_cleanup_free_ char *np = xasprintf("/api/v1/nodes/%s", m->want);
		json_object *nd = NULL;
		if (canary_api(c, c->steps_end_ns, "GET", np, NULL, &nd, m->err, sizeof(m->err)) <
		    0) {
			finding_set(f, STATUS_UNKNOWN, "cannot read the node %s: %s", m->want,
				    m->err);
			st = STATUS_UNKNOWN;
		} else {
			const char *h =
			    cj_str(nd, "metadata", "labels", "kubernetes.io/hostname", NULL);
			if (h && *h)
				m->want_hostname = xstrdup(h);
			else {
				finding_set(f, STATUS_UNKNOWN,
					    "the node %s has no kubernetes.io/hostname label to "
					    "target the migration with",
					    m->want);
				st = STATUS_UNKNOWN;
			}
		}
		json_object_put(nd);
	}
	if (st == STATUS_PASS && why) {
		finding_set(f, STATUS_FAIL, "the VMI %s/%s is not live-migratable: %s", c->o->ns,
			    m->vm, why);
		finding_remedy(f, "The canary's VM has an RWX Block disk and no pod network, as "
				  "Harvester's VMs: see docs/checks/canary.migrate.md.");
		st = STATUS_FAIL;
	}
	return st;
}

static json_object *mig_body(struct mig *m)
{
	json_object *o = canary_object(m->c, "kubevirt.io/v1", "VirtualMachineInstanceMigration",
				       m->name),
		    *spec = json_object_new_object();
	json_object_object_add(spec, "vmiName", json_object_new_string(m->vm));
	if (m->want_hostname) {
		/* VirtualMachineInstanceMigrationSpec.AddedNodeSelector, from
		 * KubeVirt v1.6.0 (staging/src/kubevirt.io/api/core/v1/types.go);
		 * an older CRD's structural schema prunes it. */
		json_object *sel = json_object_new_object();
		json_object_object_add(sel, "kubernetes.io/hostname",
				       json_object_new_string(m->want_hostname));
		json_object_object_add(spec, "addedNodeSelector", sel);
	}
	json_object_object_add(o, "spec", spec);
	return o;
}

/* "(phase P; conditions)" of the migration, for a failure. */
static char *mig_state(json_object *mo)
{
	const char *phase = cj_str(mo, "status", "phase", NULL);
	_cleanup_free_ char *conds = canary_conditions(mo, true);
	return xasprintf("migration phase %s%s%s", phase ? phase : "unset", *conds ? "; " : "",
			 conds);
}

struct mig_wait {
	struct mig *m;
	const char *vpath;
	json_object *vmi; /* the VMI as the last look saw it */
};

/* One look (the migration in cw->obj): it failed (FAIL) or completed (PASS,
 * or FAIL when the VMI did not move). */
static int mig_done(struct canary_wait *cw)
{
	struct mig_wait *mw = cw->arg;
	struct mig *m = mw->m;
	struct canary *c = m->c;
	struct finding *f = m->f;
	json_object *vmi = NULL;
	int r =
	    canary_api(c, c->steps_end_ns, "GET", mw->vpath, NULL, &vmi, m->err, sizeof(m->err));
	if (r < 0)
		return r;
	json_object_put(mw->vmi);
	mw->vmi = vmi;
	json_object *mo = cw->obj;
	const char *phase = cj_str(mo, "status", "phase", NULL);
	const char *uid = cj_str(mo, "metadata", "uid", NULL);
	json_object *ms = cj_get(vmi, "status", "migrationState", NULL);
	const char *ms_uid = cj_str(ms, "migrationUid", NULL);
	bool ours = ms && (!ms_uid || !uid || streq(ms_uid, uid));
	bool failed =
	    (phase && streq(phase, "Failed")) || (ours && cj_true(cj_get(ms, "failed", NULL)));
	bool completed = ours && cj_true(cj_get(ms, "completed", NULL));
	const char *node = cj_str(vmi, "status", "nodeName", NULL);
	const char *target = ours ? cj_str(ms, "targetNode", NULL) : NULL;
	if (failed) {
		const char *reason = ours ? cj_str(ms, "failureReason", NULL) : NULL;
		_cleanup_free_ char *st = mig_state(mo);
		struct strv ev = {0};
		canary_events(c, c->o->ns, m->name, false, 3, &ev);
		_cleanup_free_ char *q = canary_quoted(&ev);
		finding_set(f, STATUS_FAIL,
			    "the live migration of %s/%s from %s%s%s failed after %.1fs: "
			    "%s%s(%s)%s",
			    c->o->ns, m->vm, m->source, target ? " to " : "", target ? target : "",
			    (double)(util_now_mono_ns() - cw->t0_ns) / 1e9,
			    reason ? reason : "no failureReason", " ", st, q);
		finding_remedy(f, "See the target virt-launcher pod's log and the migration "
				  "network (docs/checks/canary.migrate.md).");
		strv_clear(&ev);
		return 1;
	}
	if (!completed || !phase || !streq(phase, "Succeeded"))
		return 0;
	int64_t ms_took = (util_now_mono_ns() - cw->t0_ns) / 1000000;
	kv_add_int(&f->evidence, "migration_ms", ms_took);
	const char *s0 = cj_str(ms, "startTimestamp", NULL), *s1 = cj_str(ms, "endTimestamp", NULL);
	if (s0)
		kv_add_str(&f->evidence, "start_timestamp", s0);
	if (s1)
		kv_add_str(&f->evidence, "end_timestamp", s1);
	if (node)
		kv_add_str(&f->evidence, "target_node", node);
	if (!node || streq(node, m->source)) {
		finding_set(f, STATUS_FAIL,
			    "the migration of %s/%s completed, but the VMI is still on %s",
			    c->o->ns, m->vm, node ? node : "no node");
		return 1;
	}
	const char *note = "";
	if (m->want) {
		kv_add_str(&f->evidence, "target_requested", m->want);
		bool kept = cj_get(mo, "spec", "addedNodeSelector", NULL);
		kv_add_bool(&f->evidence, "target_selector_kept", kept);
		if (!streq(node, m->want))
			note = kept ? "; not to --node B, whose selector the migration kept"
				    : "; --node B was not honoured: this KubeVirt's "
				      "VirtualMachineInstanceMigration has no "
				      "spec.addedNodeSelector (KubeVirt 1.6 and later)";
	}
	finding_set(f, STATUS_PASS, "the VM %s/%s live-migrated from %s to %s in %.1fs%s", c->o->ns,
		    m->vm, m->source, node, (double)ms_took / 1000.0, note);
	return 1;
}

static void migrate_run(struct mig *m, int64_t t0)
{
	struct canary *c = m->c;
	struct finding *f = m->f;
	_cleanup_free_ char *path =
	    xasprintf(CANARY_KV_API "/namespaces/%s/virtualmachineinstancemigrations", c->o->ns);
	int r = canary_step_create(c, f, path, "VirtualMachineInstanceMigration", m->name,
				   mig_body(m), "the migration", m->err, sizeof(m->err));
	kv_add_str(&f->evidence, "migration", m->name);
	kv_add_str(&f->evidence, "source_node", m->source);
	if (r < 0)
		return;
	_cleanup_free_ char *mpath = xasprintf("%s/%s", path, m->name);
	_cleanup_free_ char *vpath =
	    xasprintf(CANARY_KV_API "/namespaces/%s/virtualmachineinstances/%s", c->o->ns, m->vm);
	struct mig_wait mw = {.m = m, .vpath = vpath};
	struct canary_wait cw = {.what = "the migration",
				 .t0_ns = t0,
				 .path = mpath,
				 .look = mig_done,
				 .arg = &mw,
				 .err = m->err,
				 .errlen = sizeof(m->err)};
	if (canary_wait(c, f, &cw) == CANARY_WAIT_STALL) {
		_cleanup_free_ char *st = mig_state(cw.obj);
		struct strv ev = {0};
		canary_events(c, c->o->ns, m->name, false, 3, &ev);
		_cleanup_free_ char *q = canary_quoted(&ev);
		finding_set(
		    f, STATUS_FAIL,
		    "the live migration of %s/%s from %s did not finish within %llds (%s)%s",
		    c->o->ns, m->vm, m->source, (long long)((util_now_mono_ns() - t0) / 1000000000),
		    st, q);
		finding_remedy(f, "A stall is not a pass; the cleanup deletes the migration, which "
				  "aborts it (docs/checks/canary.migrate.md).");
		strv_clear(&ev);
	}
	json_object_put(cw.obj);
	json_object_put(mw.vmi);
}

void canary_step_migrate(struct canary *c, struct finding *f)
{
	struct mig m = {.c = c,
			.f = f,
			.vm = canary_vm_name(c),
			.name = xasprintf("hvready-canary-migrate-%s", c->run_id)};
	int64_t t0 = util_now_mono_ns();
	if (c->o->n_nodes == 2)
		m.want = xstrdup(c->o->nodes[1]);
	if (preconditions(&m) == STATUS_PASS)
		migrate_run(&m, t0);
	kv_add_int(&f->evidence, "duration_ms", (util_now_mono_ns() - t0) / 1000000);
	free(m.vm);
	free(m.name);
	free(m.source);
	free(m.want);
	free(m.want_hostname);
}
