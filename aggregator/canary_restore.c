/*
 * canary.restore (docs/checks/canary.restore.md): a VirtualMachineRestore of
 * the snapshot step's VirtualMachineSnapshot to a NEW VM, which must run, and
 * whose restored Longhorn volume must converge: state attached (its VM
 * runs), robustness healthy, every replica running (spec.numberOfReplicas
 * Replica CRs labelled longhornvolume=VOL in currentState running), and for
 * a clone (spec.dataSource snap://VOL/SNAP, a type snap class) status.
 * cloneStatus.state completed; restored from a backup (type bak, spec.
 * fromBackup), status.restoreRequired false. Longhorn: longhorn/longhorn-
 * manager k8s/pkg/apis/longhorn/v1beta2/volume.go (VolumeCloneStatus
 * sourceVolume, snapshot, state ""|initiated|completed|failed, and from
 * 1.10 copy-completed-awaiting-healthy), controller/volume_controller.go.
 *
 * Restoring to a VM that does not exist is what KubeVirt does when
 * spec.target names one: in every release hvready knows (kubevirt/kubevirt
 * v0.53.0-v1.4.0 pkg/virt-api/webhooks/validating-webhook/admitters/
 * vmrestore-admitter.go validateCreateVM: "If the target VM does not exist
 * it would be automatically created by the restore controller"; v1.5.0-
 * v1.9.0 pkg/storage/admitters/vmrestore.go validateTargetVM). The restore
 * controller creates it Halted and then applies spec.patches (pkg/storage/
 * snapshot/restore.go, generateRestoredVMSpec and reconcileSpec, v1.2.0-
 * v1.9.0), so a patch of /spec/runStrategy to Always starts it with no
 * further write. It takes the snapshot VM's labels, and the restored PVCs
 * the source PVCs' labels (CreateRestorePVCDef), so the cleanup finds them
 * by the canary's labels; the DataVolumes are the new VM's, owned by it.
 * Every object the restore made is checked for that: one without the
 * canary's labels and not owned by a labelled object is a FAIL naming it.
 *
 * Past 120 s without converging (or when the clone failed for good), the
 * root cause: the clone's source volume gone, its source snapshot gone, and
 * whether the class uses type: snap (a snapshot inside the source volume,
 * which cannot restore once the source is gone).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "canary_kv.h"
#include "longhorn.h"

#define CONVERGE_MS  120000
#define RUN_STRATEGY "{\"op\": \"replace\", \"path\": \"/spec/runStrategy\", \"value\": \"Always\"}"

struct rst {
	struct canary *c;
	struct finding *f;
	char *snap, *name, *target;
	bool failed; /* restore_done(): the restore failed, the finding says so */
	char *node;  /* restored_vm_runs(): the restored VM's node */
	char err[1024];
};

static json_object *restore_body(struct rst *r)
{
	_cleanup_free_ char *fmt = xasprintf(
	    "{\"apiVersion\":\"%s\",\"kind\":\"VirtualMachineRestore\","
	    "\"metadata\":{\"name\":\"%s\"},"
	    "\"spec\":{\"target\":{\"apiGroup\":\"kubevirt.io\",\"kind\":\"VirtualMachine\","
	    "\"name\":\"%s\"},\"virtualMachineSnapshotName\":\"%s\",\"patches\":[]}}",
	    r->c->snap_api + strlen("/apis/"), r->name, r->target, r->snap);
	json_object *o = json_tokener_parse(fmt);
	if (!o)
		abort(); /* a fixed template with checked names */
	json_object_object_add(cj_get(o, "metadata", NULL), "labels", canary_labels(r->c));
	json_object_array_add(cj_get(o, "spec", "patches", NULL),
			      json_object_new_string(RUN_STRATEGY));
	return o;
}

/* The restore's Failure condition when True: "REASON: MESSAGE". */
static char *failure(json_object *ro)
{
	json_object *conds = cj_get(ro, "status", "conditions", NULL);
	for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
		json_object *cd = json_object_array_get_idx(conds, i);
		const char *t = cj_str(cd, "type", NULL), *s = cj_str(cd, "status", NULL);
		if (t && streq(t, "Failure") && s && streq(s, "True"))
			return xasprintf("%s%s%s", cj_str(cd, "reason", NULL) ?: "",
					 cj_str(cd, "message", NULL) ? ": " : "",
					 cj_str(cd, "message", NULL) ?: "");
	}
	return NULL;
}

/* One look: the restore failed (FAIL, *failed) or is complete. */
static int restore_done(struct canary_wait *cw)
{
	struct rst *r = cw->arg;
	_cleanup_free_ char *why = failure(cw->obj);
	if (why) {
		finding_set(r->f, STATUS_FAIL,
			    "the VirtualMachineRestore %s/%s failed after %.1fs: %s", r->c->o->ns,
			    r->name, (double)(util_now_mono_ns() - cw->t0_ns) / 1e9, why);
		r->failed = true;
		return 1;
	}
	return cj_true(cj_get(cw->obj, "status", "complete", NULL));
}

/* The restore to completion: 0 with *ret, or 1 when the finding is set. */
static int wait_complete(struct rst *r, const char *path, int64_t t0, json_object **ret)
{
	struct canary *c = r->c;
	struct finding *f = r->f;
	struct canary_wait cw = {.what = "the restore",
				 .t0_ns = t0,
				 .path = path,
				 .look = restore_done,
				 .arg = r,
				 .err = r->err,
				 .errlen = sizeof(r->err)};
	enum canary_wait_result w = canary_wait(c, f, &cw);
	if (w == CANARY_WAIT_DONE && !r->failed) {
		*ret = cw.obj;
		return 0;
	}
	if (w == CANARY_WAIT_STALL) {
		_cleanup_free_ char *conds = canary_conditions(cw.obj, true);
		struct strv ev = {0};
		canary_events(c, c->o->ns, r->name, false, 3, &ev);
		_cleanup_free_ char *q = canary_quoted(&ev);
		finding_set(f, STATUS_FAIL,
			    "the VirtualMachineRestore %s/%s did not complete within %llds (%s)%s",
			    c->o->ns, r->name, (long long)((util_now_mono_ns() - t0) / 1000000000),
			    *conds ? conds : "no conditions", q);
		finding_remedy(f, "A stall is not a pass: see virt-controller's log and "
				  "docs/checks/canary.restore.md.");
		strv_clear(&ev);
	}
	json_object_put(cw.obj);
	return 1;
}

/* One restored volume, read now. */
struct vol {
	char *pvc, *name, *vs; /* PVC, Longhorn volume (NULL until bound), VolumeSnapshot */
	const char *state, *robustness, *clone, *data_source, *from_backup;
	int64_t replicas, running;
	bool restore_required;
	json_object *obj;
	bool converged;
};

static void vol_clear(struct vol *v)
{
	free(v->pvc);
	free(v->name);
	free(v->vs);
	json_object_put(v->obj);
}

static void vol_read(struct rst *r, int64_t until, struct vol *v)
{
	struct canary *c = r->c;
	char err[512];
	if (!v->name) {
		_cleanup_free_ char *p =
		    xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", c->o->ns, v->pvc);
		json_object *pvc = NULL;
		canary_api(c, until, "GET", p, NULL, &pvc, err, sizeof(err));
		const char *vn = cj_str(pvc, "spec", "volumeName", NULL);
		v->name = vn && *vn ? xstrdup(vn) : NULL;
		json_object_put(pvc);
		if (!v->name)
			return;
	}
	_cleanup_free_ char *vp = xasprintf(CANARY_LH_API "/volumes/%s", v->name);
	json_object_put(v->obj);
	v->obj = NULL;
	canary_api(c, until, "GET", vp, NULL, &v->obj, err, sizeof(err));
	v->state = cj_str(v->obj, "status", "state", NULL);
	v->robustness = cj_str(v->obj, "status", "robustness", NULL);
	v->clone = cj_str(v->obj, "status", "cloneStatus", "state", NULL);
	v->data_source = cj_str(v->obj, "spec", "dataSource", NULL);
	v->from_backup = cj_str(v->obj, "spec", "fromBackup", NULL);
	v->restore_required = cj_true(cj_get(v->obj, "status", "restoreRequired", NULL));
	json_object *nr = cj_get(v->obj, "spec", "numberOfReplicas", NULL);
	v->replicas = nr ? json_object_get_int64(nr) : 0;
	_cleanup_free_ char *sel = xasprintf("longhornvolume=%s", v->name);
	_cleanup_free_ char *q = canary_selector_query("labelSelector", sel);
	_cleanup_free_ char *rp = xasprintf(CANARY_LH_API "/replicas?%s", q);
	json_object *list = NULL;
	v->running = 0;
	if (canary_api(c, until, "GET", rp, NULL, &list, err, sizeof(err)) == 0) {
		json_object *items = cj_get(list, "items", NULL);
		for (size_t i = 0; items && i < json_object_array_length(items); i++) {
			const char *cs = cj_str(json_object_array_get_idx(items, i), "status",
						"currentState", NULL);
			v->running += cs && streq(cs, "running");
		}
	}
	json_object_put(list);
	bool data_ok = v->data_source && *v->data_source ? v->clone && streq(v->clone, "completed")
							 : !v->restore_required;
	v->converged = v->obj && v->state && streq(v->state, "attached") && v->robustness &&
		       streq(v->robustness, "healthy") && v->replicas > 0 &&
		       v->running >= v->replicas && data_ok;
}

/* A failed clone whose source volume is gone never converges (Longhorn
 * retries only while the source is there). */
static bool source_gone(struct rst *r, int64_t until, const struct vol *v)
{
	const char *src = cj_str(v->obj, "status", "cloneStatus", "sourceVolume", NULL);
	if (!src || !*src)
		return false;
	char err[256];
	_cleanup_free_ char *p = xasprintf(CANARY_LH_API "/volumes/%s", src);
	return canary_api(r->c, until, "GET", p, NULL, NULL, err, sizeof(err)) == -ENOENT;
}

/* "state S, robustness R, replicas N/M running, clone C" */
static char *facts(const struct vol *v)
{
	if (!v->name)
		return xasprintf("PVC %s not bound", v->pvc);
	if (!v->obj)
		return xasprintf("Longhorn volume %s not found", v->name);
	return xasprintf(
	    "state %s, robustness %s, replicas %lld/%lld running, %s %s", v->state ?: "unset",
	    v->robustness ?: "unset", (long long)v->running, (long long)v->replicas,
	    v->data_source && *v->data_source	? "clone state"
	    : v->from_backup && *v->from_backup ? "restore from backup"
						: "data",
	    v->data_source && *v->data_source ? (v->clone && *v->clone ? v->clone : "\"\"")
					      : (v->restore_required ? "still required" : "done"));
}

/* The class behind the VolumeSnapshot the volume came from: its type. */
static char *vs_class_type(struct rst *r, const char *vs, char **ret_class)
{
	struct canary *c = r->c;
	char err[256];
	*ret_class = NULL;
	if (!vs)
		return NULL;
	_cleanup_free_ char *p =
	    xasprintf(CANARY_VS_API "/namespaces/%s/volumesnapshots/%s", c->o->ns, vs);
	json_object *o = NULL;
	canary_api(c, c->diag_end_ns, "GET", p, NULL, &o, err, sizeof(err));
	const char *cls = cj_str(o, "spec", "volumeSnapshotClassName", NULL);
	char *type = NULL;
	if (cls) {
		*ret_class = xstrdup(cls);
		_cleanup_free_ char *cp = xasprintf(CANARY_VS_API "/volumesnapshotclasses/%s", cls);
		json_object *k = NULL;
		if (canary_api(c, c->diag_end_ns, "GET", cp, NULL, &k, err, sizeof(err)) == 0) {
			const char *t = cj_str(k, "parameters", "type", NULL);
			type = xstrdup(!t || !*t || streq(t, "bs") ? "bak" : t);
		}
		json_object_put(k);
	}
	json_object_put(o);
	return type;
}

/* Did not converge: the root cause, as api.longhorn.clone-stuck finds it. */
static void root_cause(struct rst *r, struct vol *v, int64_t waited_s)
{
	struct canary *c = r->c;
	struct finding *f = r->f;
	char err[256];
	_cleanup_free_ char *fs = facts(v);
	struct strv why = {0};
	struct longhorn_ref ref = {0};
	bool have_ref =
	    v->data_source && *v->data_source &&
	    longhorn_ref_parse((const uint8_t *)v->data_source, strlen(v->data_source), &ref) == 0;
	const char *src =
	    have_ref ? ref.volume : cj_str(v->obj, "status", "cloneStatus", "sourceVolume", NULL);
	if (src && *src) {
		_cleanup_free_ char *p = xasprintf(CANARY_LH_API "/volumes/%s", src);
		json_object *o = NULL;
		int g = canary_api(c, c->diag_end_ns, "GET", p, NULL, &o, err, sizeof(err));
		if (g == -ENOENT || (g == 0 && cj_get(o, "metadata", "deletionTimestamp", NULL))) {
			_cleanup_free_ char *s = xasprintf("its source volume %s is gone", src);
			strv_add(&why, s);
		}
		json_object_put(o);
		kv_add_str(&f->evidence, "clone_source_volume", src);
	}
	if (have_ref && ref.type == LONGHORN_REF_SNAPSHOT) {
		_cleanup_free_ char *p = xasprintf(CANARY_LH_API "/snapshots/%s", ref.name);
		int g = canary_api(c, c->diag_end_ns, "GET", p, NULL, NULL, err, sizeof(err));
		if (g == -ENOENT) {
			_cleanup_free_ char *s =
			    xasprintf("its source snapshot %s is gone", ref.name);
			strv_add(&why, s);
		}
		kv_add_str(&f->evidence, "clone_source_snapshot", ref.name);
	}
	_cleanup_free_ char *cls = NULL;
	_cleanup_free_ char *type = vs_class_type(r, v->vs, &cls);
	if (type && streq(type, "snap")) {
		_cleanup_free_ char *s = xasprintf(
		    "the VolumeSnapshotClass %s uses type: snap (a Longhorn snapshot "
		    "inside the source volume: it cannot restore once the source is gone)",
		    cls);
		strv_add(&why, s);
	}
	if (cls)
		kv_add_str(&f->evidence, "volume_snapshot_class", cls);
	_cleanup_free_ char *ws = strv_join(&why, "; ");
	finding_set(f, STATUS_FAIL,
		    "the restored volume %s (PVC %s/%s) did not converge within %llds (%s): %s%s",
		    v->name ? v->name : "?", c->o->ns, v->pvc, (long long)waited_s, fs,
		    why.n ? "root cause: "
			  : "no root cause found: its source volume and snapshot "
			    "exist",
		    why.n ? ws : "");
	finding_remedy(f, "A stall is not a pass: restore from a type bak class (a backup outlives "
			  "its source) and see api.longhorn.clone-stuck and "
			  "docs/checks/canary.restore.md.");
	strv_clear(&why);
}

/* One look: the restored VM's VMI is Running on a node. */
static int restored_vm_runs(struct canary_wait *cw)
{
	struct rst *r = cw->arg;
	struct canary *c = r->c;
	_cleanup_free_ char *p = xasprintf(
	    CANARY_KV_API "/namespaces/%s/virtualmachineinstances/%s", c->o->ns, r->target);
	json_object_put(cw->obj);
	cw->obj = NULL;
	int e = canary_api(c, c->steps_end_ns, "GET", p, NULL, &cw->obj, r->err, sizeof(r->err));
	if (e < 0 && e != -ENOENT)
		return e;
	const char *phase = cj_str(cw->obj, "status", "phase", NULL);
	const char *n = cj_str(cw->obj, "status", "nodeName", NULL);
	if (!phase || !streq(phase, "Running") || !n)
		return 0;
	r->node = xstrdup(n);
	return 1;
}

/* The restored VM runs: 0, or 1 with the finding set. */
static int wait_vmi(struct rst *r, int64_t t0)
{
	struct canary *c = r->c;
	struct canary_wait cw = {.what = "the restored VM to run",
				 .t0_ns = t0,
				 .look = restored_vm_runs,
				 .arg = r,
				 .err = r->err,
				 .errlen = sizeof(r->err)};
	enum canary_wait_result w = canary_wait(c, r->f, &cw);
	json_object *vmi = cw.obj;
	if (w == CANARY_WAIT_STALL) {
		const char *phase = cj_str(vmi, "status", "phase", NULL);
		_cleanup_free_ char *conds = canary_conditions(vmi, false);
		finding_set(r->f, STATUS_FAIL,
			    "the restore completed, but the restored VM %s/%s does not run after "
			    "%llds (VMI %s)%s%s",
			    c->o->ns, r->target,
			    (long long)((util_now_mono_ns() - t0) / 1000000000),
			    vmi ? (phase ? phase : "without a phase") : "not created",
			    *conds ? ": " : "", conds);
	}
	json_object_put(vmi);
	return w != CANARY_WAIT_DONE;
}

/* Carries the canary's labels of this run. */
static bool labelled(const struct canary *c, json_object *o)
{
	const char *m = cj_str(o, "metadata", "labels", CANARY_LABEL_MANAGED_BY, NULL);
	const char *run = cj_str(o, "metadata", "labels", CANARY_LABEL_RUN, NULL);
	return m && streq(m, CANARY_MANAGED_BY) && run && streq(run, c->run_id);
}

static bool owned_by(json_object *o, const struct strv *uids)
{
	json_object *refs = cj_get(o, "metadata", "ownerReferences", NULL);
	for (size_t i = 0; refs && i < json_object_array_length(refs); i++) {
		const char *u = cj_str(json_object_array_get_idx(refs, i), "uid", NULL);
		if (u && strv_contains(uids, u))
			return true;
	}
	return false;
}

/* The objects the restore made (the VM, its DataVolumes, the PVCs): those
 * the cleanup would not find, in *bad. */
static int residue(struct rst *r, json_object *ro, struct strv *bad)
{
	struct canary *c = r->c;
	struct strv uids = {0};
	_cleanup_free_ char *vp =
	    xasprintf(CANARY_KV_API "/namespaces/%s/virtualmachines/%s", c->o->ns, r->target);
	json_object *vm = NULL;
	int e = canary_api(c, c->steps_end_ns, "GET", vp, NULL, &vm, r->err, sizeof(r->err));
	if (e < 0) {
		json_object_put(vm);
		return e;
	}
	if (labelled(c, vm))
		strv_add(&uids, cj_str(vm, "metadata", "uid", NULL) ?: "");
	else {
		_cleanup_free_ char *s = xasprintf("VirtualMachine/%s/%s", c->o->ns, r->target);
		strv_add(bad, s);
	}
	json_object *dvts = cj_get(vm, "spec", "dataVolumeTemplates", NULL);
	for (size_t i = 0; dvts && i < json_object_array_length(dvts); i++) {
		const char *n =
		    cj_str(json_object_array_get_idx(dvts, i), "metadata", "name", NULL);
		if (!n)
			continue;
		_cleanup_free_ char *p =
		    xasprintf(CANARY_CDI_API "/namespaces/%s/datavolumes/%s", c->o->ns, n);
		json_object *dv = NULL;
		if (canary_api(c, c->steps_end_ns, "GET", p, NULL, &dv, r->err, sizeof(r->err)) ==
		    0) {
			if (labelled(c, dv) || owned_by(dv, &uids))
				strv_add(&uids, cj_str(dv, "metadata", "uid", NULL) ?: "");
			else {
				_cleanup_free_ char *s = xasprintf("DataVolume/%s/%s", c->o->ns, n);
				strv_add(bad, s);
			}
		}
		json_object_put(dv);
	}
	json_object_put(vm);
	json_object *rs = cj_get(ro, "status", "restores", NULL);
	for (size_t i = 0; rs && i < json_object_array_length(rs); i++) {
		const char *n =
		    cj_str(json_object_array_get_idx(rs, i), "persistentVolumeClaim", NULL);
		if (!n)
			continue;
		_cleanup_free_ char *p =
		    xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", c->o->ns, n);
		json_object *pvc = NULL;
		if (canary_api(c, c->steps_end_ns, "GET", p, NULL, &pvc, r->err, sizeof(r->err)) ==
			0 &&
		    !labelled(c, pvc) && !owned_by(pvc, &uids)) {
			_cleanup_free_ char *s =
			    xasprintf("PersistentVolumeClaim/%s/%s", c->o->ns, n);
			strv_add(bad, s);
		}
		json_object_put(pvc);
	}
	strv_clear(&uids);
	return 0;
}

/* Complete and the VM runs: the restored volumes converge, within 120 s. */
static void converge(struct rst *r, json_object *ro, int64_t t_done, const char *node)
{
	struct canary *c = r->c;
	struct finding *f = r->f;
	json_object *rs = cj_get(ro, "status", "restores", NULL);
	size_t n = rs ? json_object_array_length(rs) : 0;
	struct vol *v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		json_object *one = json_object_array_get_idx(rs, i);
		v[i].pvc = xstrdup(cj_str(one, "persistentVolumeClaim", NULL) ?: "?");
		const char *vs = cj_str(one, "volumeSnapshotName", NULL);
		v[i].vs = vs ? xstrdup(vs) : NULL;
	}
	int64_t until = t_done + (int64_t)CONVERGE_MS * 1000000;
	if (until > c->steps_end_ns)
		until = c->steps_end_ns;
	size_t bad = n;
	bool hopeless = false;
	for (;;) {
		bad = 0;
		for (size_t i = 0; i < n; i++) {
			vol_read(r, until, &v[i]);
			bad += !v[i].converged;
			hopeless |= v[i].clone && streq(v[i].clone, "failed") &&
				    source_gone(r, until, &v[i]);
		}
		if (!bad || (hopeless && !canary_signal) || !canary_sleep(c, until, CANARY_POLL_MS))
			break;
	}
	/* The steps' time may be up: the facts of a diagnosis are read within the
	 * cleanup's first third, as every diagnosis is. */
	for (size_t i = 0; bad && !canary_signal && i < n; i++)
		if (!v[i].converged)
			vol_read(r, c->diag_end_ns, &v[i]);
	struct strv fl = {0};
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *s = facts(&v[i]);
		_cleanup_free_ char *line =
		    xasprintf("%s: %s", v[i].name ? v[i].name : v[i].pvc, s);
		strv_add(&fl, line);
	}
	canary_evidence_list(f, "restored_volumes", &fl);
	int64_t waited = (util_now_mono_ns() - t_done) / 1000000000;
	struct strv res = {0};
	int e = 0;
	if (!n)
		finding_set(f, STATUS_FAIL,
			    "the VirtualMachineRestore %s/%s completed without restoring a volume",
			    c->o->ns, r->name);
	else if (bad && canary_signal)
		finding_set(f, STATUS_UNKNOWN,
			    "interrupted by signal %d, waiting for the restored volume to converge",
			    (int)canary_signal);
	else if (bad) {
		for (size_t i = 0; i < n; i++)
			if (!v[i].converged) {
				root_cause(r, &v[i], waited);
				break;
			}
	} else if ((e = residue(r, ro, &res)) < 0)
		finding_set(f, STATUS_UNKNOWN, "cannot read what the restore made: %s", r->err);
	else if (res.n) {
		_cleanup_free_ char *s = strv_join(&res, ", ");
		finding_set(f, STATUS_FAIL,
			    "the restore made object%s the cleanup would not remove (no canary "
			    "labels, not owned by the canary's objects): %s",
			    res.n == 1 ? "" : "s", s);
		canary_evidence_list(f, "unlabelled", &res);
	} else {
		_cleanup_free_ char *s = strv_join(&fl, "; ");
		finding_set(f, STATUS_PASS,
			    "the snapshot %s restored to the new VM %s/%s, which runs on %s; its "
			    "volume%s converged in %.1fs: %s",
			    r->snap, c->o->ns, r->target, node, n == 1 ? "" : "s",
			    (double)(util_now_mono_ns() - t_done) / 1e9, s);
	}
	strv_clear(&res);
	strv_clear(&fl);
	for (size_t i = 0; i < n; i++)
		vol_clear(&v[i]);
	free(v);
}

static void restore_run(struct rst *r, int64_t t0)
{
	struct canary *c = r->c;
	struct finding *f = r->f;
	_cleanup_free_ char *path =
	    xasprintf("%s/namespaces/%s/virtualmachinerestores", c->snap_api, c->o->ns);
	int e = canary_step_create(c, f, path, "VirtualMachineRestore", r->name, restore_body(r),
				   "the VirtualMachineRestore", r->err, sizeof(r->err));
	kv_add_str(&f->evidence, "restore", r->name);
	kv_add_str(&f->evidence, "target_vm", r->target);
	kv_add_str(&f->evidence, "snapshot", r->snap);
	if (e < 0)
		return;
	/* The restore makes the VM: the cleanup finds it by its labels, and
	 * --keep names it. */
	_cleanup_free_ char *id = xasprintf("VirtualMachine/%s/%s", c->o->ns, r->target);
	strv_add(&c->created, id);
	_cleanup_free_ char *rpath = xasprintf("%s/%s", path, r->name);
	json_object *ro = NULL;
	if (wait_complete(r, rpath, t0, &ro))
		return;
	int64_t t_done = util_now_mono_ns();
	kv_add_int(&f->evidence, "complete_ms", (t_done - t0) / 1000000);
	const char *rt = cj_str(ro, "status", "restoreTime", NULL);
	if (rt)
		kv_add_str(&f->evidence, "restore_time", rt);
	_cleanup_free_ char *conds = canary_conditions(ro, true);
	kv_add_str(&f->evidence, "conditions", conds);
	if (wait_vmi(r, t0) == 0) {
		kv_add_int(&f->evidence, "running_ms", (util_now_mono_ns() - t0) / 1000000);
		kv_add_str(&f->evidence, "node", r->node);
		converge(r, ro, util_now_mono_ns(), r->node);
	}
	json_object_put(ro);
}

void canary_step_restore(struct canary *c, struct finding *f)
{
	struct rst r = {.c = c,
			.f = f,
			.snap = canary_snapshot_name(c),
			.name = canary_restore_name(c),
			.target = canary_restored_vm_name(c)};
	int64_t t0 = util_now_mono_ns();
	if (canary_step_passed(
		c, f, "canary.snapshot",
		"needs the snapshot step in the same run (--steps vm,snapshot,restore)",
		"the snapshot was not taken")) {
		if (canary_snapshot_api(c, r.err, sizeof(r.err)) < 0)
			finding_set(f, STATUS_UNKNOWN, "cannot read snapshot.kubevirt.io: %s",
				    r.err);
		else
			restore_run(&r, t0);
	}
	kv_add_int(&f->evidence, "duration_ms", (util_now_mono_ns() - t0) / 1000000);
	free(r.snap);
	free(r.name);
	free(r.target);
	free(r.node);
}
