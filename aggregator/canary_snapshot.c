/*
 * canary.snapshot (docs/checks/canary.snapshot.md): a VirtualMachineSnapshot
 * of the VM the vm step started. PASS when it is readyToUse with phase
 * Succeeded, and every VolumeSnapshot of its VirtualMachineSnapshotContent
 * (spec.volumeBackups) is readyToUse, bound to a VolumeSnapshotContent whose
 * snapshotHandle names a Longhorn snapshot (snap://VOL/NAME: a longhorn.io
 * Snapshot, readyToUse) or backup (bak://VOL/NAME: a longhorn.io Backup,
 * state Completed) that exists. Shapes: kubevirt/kubevirt staging/src/
 * kubevirt.io/api/snapshot/v1beta1/types.go (VirtualMachineSnapshotStatus:
 * phase InProgress|Succeeded|Failed, readyToUse, conditions Progressing/
 * Ready/Failure, error; VirtualMachineSnapshotContentSpec.volumeBackups),
 * pkg/storage/snapshot/snapshot.go (content "vmsnapshot-content-UID",
 * VolumeSnapshots "vmsnapshot-UID-volume-VOLUME", owned by the content);
 * kubernetes-csi/external-snapshotter client/apis/volumesnapshot/v1
 * (status.readyToUse, boundVolumeSnapshotContentName, error); Longhorn's CSI
 * snapshot handles (longhorn/longhorn-manager csi/controller_server.go).
 *
 * Preconditions (SKIP or UNKNOWN, nothing created): the vm step passed in
 * this run and its VMI still runs; KubeVirt's Snapshot feature gate is on
 * for the deployed release (kubevirt_gates.c: Beta gates are on by default
 * only from 1.9); snapshot.kubevirt.io is served; a VolumeSnapshotClass
 * resolves for the VM disk's StorageClass as KubeVirt and CDI resolve it
 * (vsc_resolve.c). A snapshot that never becomes ready is a FAIL quoting its
 * phase, conditions, error and the VolumeSnapshots' errors, never a PASS.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "canary_kv.h"
#include "cluster_state.h"
#include "json_query.h"
#include "kubevirt_gates.h"
#include "longhorn.h"
#include "vsc_resolve.h"

char *canary_snapshot_name(const struct canary *c)
{
	return xasprintf("hvready-canary-snap-%s", c->run_id);
}

char *canary_restore_name(const struct canary *c)
{
	return xasprintf("hvready-canary-restore-%s", c->run_id);
}

char *canary_restored_vm_name(const struct canary *c)
{
	return xasprintf("hvready-canary-restored-%s", c->run_id);
}

int canary_snapshot_api(struct canary *c, char *err, size_t errlen)
{
	static const char *const versions[] = {"v1beta1", "v1alpha1"};
	if (*c->snap_api)
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
		_cleanup_free_ char *path =
		    xasprintf(CANARY_SNAP_GROUP "/%s/namespaces/%s/virtualmachinesnapshots",
			      versions[i], c->o->ns);
		json_object *list = NULL;
		int r = canary_api(c, c->steps_end_ns, "GET", path, NULL, &list, err, errlen);
		json_object_put(list);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		snprintf(c->snap_api, sizeof(c->snap_api), CANARY_SNAP_GROUP "/%s", versions[i]);
		return 0;
	}
	return -ENOENT;
}

struct snap {
	struct canary *c;
	struct finding *f;
	char *vm, *name, *class, *vsc, *vsc_type;
	char err[1024];
};

/* The vm step passed and the VMI still runs; the disk's StorageClass. */
static bool vm_ready(struct snap *s)
{
	struct canary *c = s->c;
	struct finding *f = s->f;
	json_object *vmi = NULL;
	if (!canary_vm_step_vmi(c, f, "needs the vm step in the same run (--steps vm,snapshot)",
				&vmi, s->err, sizeof(s->err)))
		return false;
	const char *phase = cj_str(vmi, "status", "phase", NULL);
	bool ok = phase && streq(phase, "Running");
	if (!ok)
		finding_set(f, STATUS_UNKNOWN, "the VMI %s/%s is %s, not Running", c->o->ns, s->vm,
			    phase ? phase : "without a phase");
	json_object_put(vmi);
	if (!ok)
		return false;
	_cleanup_free_ char *pvcpath =
	    xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s-disk", c->o->ns, s->vm);
	json_object *pvc = NULL;
	int r = canary_api(c, c->steps_end_ns, "GET", pvcpath, NULL, &pvc, s->err, sizeof(s->err));
	const char *sc = cj_str(pvc, "spec", "storageClassName", NULL);
	if (r < 0 || !sc)
		finding_set(f, STATUS_UNKNOWN, "cannot read the StorageClass of the VM's disk: %s",
			    r < 0 ? s->err : "the PVC has no spec.storageClassName");
	else
		s->class = xstrdup(sc);
	json_object_put(pvc);
	return s->class != NULL;
}

/* KubeVirt's Snapshot feature gate for the deployed release. */
static bool gate_on(struct snap *s)
{
	struct canary *c = s->c;
	struct finding *f = s->f;
	json_object *list = NULL;
	int r = canary_api(c, c->steps_end_ns, "GET", CANARY_KV_API "/kubevirts", NULL, &list,
			   s->err, sizeof(s->err));
	json_object *items = cj_get(list, "items", NULL);
	json_object *kv =
	    items && json_object_array_length(items) ? json_object_array_get_idx(items, 0) : NULL;
	bool ok = false;
	if (r < 0 || !kv) {
		finding_set(f, STATUS_UNKNOWN, "cannot read the KubeVirt CR: %s",
			    r < 0 ? s->err : "none");
		json_object_put(list);
		return false;
	}
	_cleanup_(jv_arena_freep) struct jv_arena *a = jv_arena_new();
	struct jv k = jv_from_json(a, kv);
	struct semver v;
	const char *field = NULL;
	const char *ver = kv_cr_version(&k, &v, &field);
	const struct jv *dev = JQ(&k, "spec", "configuration", "developerConfiguration");
	bool listed = false, disabled = false;
	for (size_t i = 0; i < jq_len(JQ(dev, "featureGates")); i++)
		listed |= streq(jv_str(jq_at(JQ(dev, "featureGates"), i)), "Snapshot");
	for (size_t i = 0; i < jq_len(JQ(dev, "disabledFeatureGates")); i++)
		disabled |= streq(jv_str(jq_at(JQ(dev, "disabledFeatureGates"), i)), "Snapshot");
	struct kv_gate_eval g;
	kv_gate_eval("Snapshot", ver ? &v : NULL, listed, disabled, &g);
	kv_add_str(&f->evidence, "kubevirt_version", ver ? ver : "unknown");
	kv_add_str(&f->evidence, "snapshot_gate", g.why);
	if (*g.assumed)
		kv_add_str(&f->evidence, "snapshot_gate_assumed", g.assumed);
	if (!g.decided)
		finding_set(f, STATUS_UNKNOWN,
			    "cannot tell whether KubeVirt's Snapshot feature "
			    "gate is on: %s",
			    g.why);
	else if (!g.on) {
		finding_set(f, STATUS_SKIP,
			    "KubeVirt %s's Snapshot feature gate is off (%s): a "
			    "VirtualMachineSnapshot would be refused",
			    ver ? ver : "(version unknown)", g.why);
		finding_remedy(f, "See api.kubevirt.snapshot-gate and "
				  "docs/checks/canary.snapshot.md.");
	} else
		ok = true;
	json_object_put(list);
	return ok;
}

/* GET path into cs's resource id: a 404 is "not installed". */
static int read_res(struct snap *s, struct cluster_state *cs, enum resource_id id, const char *path)
{
	json_object *list = NULL;
	int r =
	    canary_api(s->c, s->c->steps_end_ns, "GET", path, NULL, &list, s->err, sizeof(s->err));
	if (r == -ENOENT) {
		cs_set_status(cs, id, RES_NOT_INSTALLED, "not served");
		return r;
	}
	if (r < 0)
		return r;
	cs_set_status(cs, id, RES_COLLECTED, NULL);
	json_object *items = cj_get(list, "items", NULL);
	for (size_t i = 0; items && i < json_object_array_length(items); i++)
		cs_add_object(cs, id, json_object_array_get_idx(items, i));
	json_object_put(list);
	return 0;
}

/* The VolumeSnapshotClass KubeVirt takes for the disk's class. */
static bool class_resolves(struct snap *s)
{
	struct finding *f = s->f;
	struct cluster_state cs;
	cluster_state_init(&cs);
	bool ok = false;
	int r = read_res(s, &cs, RES_STORAGECLASSES, "/apis/storage.k8s.io/v1/storageclasses");
	int rv =
	    r < 0 ? r : read_res(s, &cs, RES_VS_CLASSES, CANARY_VS_API "/volumesnapshotclasses");
	int rp =
	    rv < 0 ? rv : read_res(s, &cs, RES_STORAGEPROFILES, CANARY_CDI_API "/storageprofiles");
	if (rv == -ENOENT) {
		finding_set(f, STATUS_SKIP,
			    "VolumeSnapshotClasses are not served (snapshot.storage.k8s.io/v1): "
			    "no CSI snapshot can be taken");
		goto out;
	}
	if (r < 0 || rv < 0 || (rp < 0 && rp != -ENOENT)) {
		finding_set(f, STATUS_UNKNOWN, "cannot read the snapshot classes: %s", s->err);
		goto out;
	}
	struct vsc_view w;
	vsc_view_build(&cs, &w);
	const struct sc_pick *p = NULL;
	for (size_t i = 0; i < w.np; i++)
		if (streq(w.p[i].sc, s->class))
			p = &w.p[i];
	kv_add_str(&f->evidence, "storage_class", s->class);
	if (!p || p->result == PICK_NONE)
		finding_set(f, STATUS_SKIP,
			    "no VolumeSnapshotClass of " LONGHORN_DRIVER
			    ": KubeVirt would leave the VM's disk (StorageClass %s) out of a "
			    "snapshot",
			    s->class);
	else if (p->result != PICK_OK || !p->vsc->type) {
		const char *n = p->name ? p->name : "?";
		_cleanup_free_ char *why =
		    p->result == PICK_MISSING
			? xasprintf("its StorageProfile names VolumeSnapshotClass %s, which does "
				    "not exist",
				    n)
		    : p->result == PICK_FOREIGN
			? xasprintf("its StorageProfile names %s, a class of driver %s", n,
				    p->driver ? p->driver : "?")
		    : p->result == PICK_UNDECIDED
			? xasprintf("several Longhorn VolumeSnapshotClasses, none annotated "
				    "the default")
			: xasprintf("class %s has a parameters.type Longhorn rejects", n);
		finding_set(f, STATUS_UNKNOWN,
			    "no VolumeSnapshotClass resolves for StorageClass %s: %s (see "
			    "api.vsc.* and api.snapshot.*)",
			    s->class, why);
	} else {
		s->vsc = xstrdup(p->vsc->name);
		s->vsc_type = xstrdup(p->vsc->type);
		kv_add_str(&f->evidence, "volume_snapshot_class", s->vsc);
		kv_add_str(&f->evidence, "volume_snapshot_class_type", s->vsc_type);
		kv_add_str(&f->evidence, "volume_snapshot_class_from", p->why ? p->why : "");
		ok = true;
	}
	vsc_view_free(&w);
out:
	cluster_state_clear(&cs);
	return ok;
}

static json_object *snap_body(struct snap *s)
{
	json_object *o = canary_object(s->c, s->c->snap_api + strlen("/apis/"),
				       "VirtualMachineSnapshot", s->name),
		    *spec = json_object_new_object(), *src = json_object_new_object();
	json_object_object_add(src, "apiGroup", json_object_new_string("kubevirt.io"));
	json_object_object_add(src, "kind", json_object_new_string("VirtualMachine"));
	json_object_object_add(src, "name", json_object_new_string(s->vm));
	json_object_object_add(spec, "source", src);
	json_object_object_add(o, "spec", spec);
	return o;
}

/* "phase P; conditions; error: E" of a VirtualMachineSnapshot. */
static char *snap_state(json_object *so)
{
	const char *phase = cj_str(so, "status", "phase", NULL);
	const char *e = cj_str(so, "status", "error", "message", NULL);
	_cleanup_free_ char *conds = canary_conditions(so, true);
	return xasprintf("phase %s%s%s%s%s", phase ? phase : "unset", *conds ? "; " : "", conds,
			 e ? "; error: " : "", e ? e : "");
}

/* The VolumeSnapshots of the content: each "NAME: readyToUse=B[, error: E]". */
static void volume_snapshots(struct snap *s, int64_t until, json_object *content, struct strv *ret,
			     bool *all_ready, struct strv *handles)
{
	struct canary *c = s->c;
	json_object *vbs = cj_get(content, "spec", "volumeBackups", NULL);
	*all_ready = vbs && json_object_array_length(vbs) > 0;
	for (size_t i = 0; vbs && i < json_object_array_length(vbs); i++) {
		const char *vsn =
		    cj_str(json_object_array_get_idx(vbs, i), "volumeSnapshotName", NULL);
		if (!vsn)
			continue;
		_cleanup_free_ char *p =
		    xasprintf(CANARY_VS_API "/namespaces/%s/volumesnapshots/%s", c->o->ns, vsn);
		json_object *vs = NULL;
		char err[512];
		int r = canary_api(c, until, "GET", p, NULL, &vs, err, sizeof(err));
		bool ready = cj_true(cj_get(vs, "status", "readyToUse", NULL));
		const char *bound = cj_str(vs, "status", "boundVolumeSnapshotContentName", NULL);
		const char *e = cj_str(vs, "status", "error", "message", NULL);
		_cleanup_free_ char *line =
		    r < 0 ? xasprintf("%s: %s", vsn, err)
			  : xasprintf("%s: readyToUse=%s%s%s%s%s", vsn, ready ? "true" : "false",
				      bound ? ", content " : "", bound ? bound : "",
				      e ? ", error: " : "", e ? e : "");
		strv_add(ret, line);
		*all_ready &= ready && bound;
		if (handles && bound) {
			_cleanup_free_ char *cp =
			    xasprintf(CANARY_VS_API "/volumesnapshotcontents/%s", bound);
			if (!strv_contains(&c->made_for, cp))
				strv_add(&c->made_for, cp);
			json_object *vsc = NULL;
			canary_api(c, until, "GET", cp, NULL, &vsc, err, sizeof(err));
			const char *h = cj_str(vsc, "status", "snapshotHandle", NULL);
			strv_add(handles, h ? h : "");
			json_object_put(vsc);
		}
		json_object_put(vs);
	}
}

/* The Longhorn snapshot or backup behind each CSI handle: "" when all are
 * there and ready, else why (a FAIL), with *unknown when they could not be
 * read. */
static char *longhorn_objects(struct snap *s, struct strv *handles, bool *unknown)
{
	struct canary *c = s->c;
	struct strv seen = {0}, bad = {0};
	for (size_t i = 0; i < handles->n; i++) {
		const char *h = handles->items[i];
		struct longhorn_ref ref;
		if (longhorn_ref_parse((const uint8_t *)h, strlen(h), &ref) < 0 ||
		    (ref.type != LONGHORN_REF_SNAPSHOT && ref.type != LONGHORN_REF_BACKUP)) {
			_cleanup_free_ char *b =
			    xasprintf("snapshot handle \"%s\" is neither snap:// nor bak://", h);
			strv_add(&bad, b);
			continue;
		}
		bool snap = ref.type == LONGHORN_REF_SNAPSHOT;
		_cleanup_free_ char *p =
		    xasprintf(CANARY_LH_API "/%s/%s", snap ? "snapshots" : "backups", ref.name);
		if (!strv_contains(&c->made_for, p))
			strv_add(&c->made_for, p);
		json_object *o = NULL;
		char err[512];
		int r = canary_api(c, c->steps_end_ns, "GET", p, NULL, &o, err, sizeof(err));
		const char *state = cj_str(o, "status", "state", NULL);
		bool ok = snap ? cj_true(cj_get(o, "status", "readyToUse", NULL))
			       : state && streq(state, "Completed");
		_cleanup_free_ char *line =
		    xasprintf("%s %s/%s (volume %s): %s", snap ? "Snapshot" : "Backup",
			      CANARY_LONGHORN_NS, ref.name, ref.volume,
			      r == -ENOENT ? "not found"
			      : r < 0	   ? err
			      : snap	   ? (ok ? "readyToUse" : "not readyToUse")
					   : (state ? state : "no state"));
		strv_add(&seen, line);
		json_object_put(o);
		if (r < 0 && r != -ENOENT)
			*unknown = true;
		else if (!ok)
			strv_add(&bad, line);
	}
	canary_evidence_list(s->f, "longhorn", &seen);
	char *out = strv_join(&bad, "; ");
	strv_clear(&seen);
	strv_clear(&bad);
	return out;
}

/* Ready: the content's VolumeSnapshots and the Longhorn objects behind them. */
static void ready(struct snap *s, json_object *so, int64_t ms)
{
	struct canary *c = s->c;
	struct finding *f = s->f;
	const char *cn = cj_str(so, "status", "virtualMachineSnapshotContentName", NULL);
	kv_add_int(&f->evidence, "ready_ms", ms);
	const char *ct = cj_str(so, "status", "creationTime", NULL);
	if (ct)
		kv_add_str(&f->evidence, "creation_time", ct);
	_cleanup_free_ char *conds = canary_conditions(so, true);
	kv_add_str(&f->evidence, "conditions", conds);
	if (!cn) {
		finding_set(f, STATUS_FAIL,
			    "the VirtualMachineSnapshot %s/%s is ready but names no "
			    "VirtualMachineSnapshotContent",
			    c->o->ns, s->name);
		return;
	}
	kv_add_str(&f->evidence, "content", cn);
	_cleanup_free_ char *cp = xasprintf("%s/namespaces/%s/virtualmachinesnapshotcontents/%s",
					    c->snap_api, c->o->ns, cn);
	json_object *content = NULL;
	int r = canary_api(c, c->steps_end_ns, "GET", cp, NULL, &content, s->err, sizeof(s->err));
	if (r < 0) {
		finding_set(f, STATUS_UNKNOWN,
			    "cannot read the VirtualMachineSnapshotContent %s: %s", cn, s->err);
		return;
	}
	struct strv vss = {0}, handles = {0};
	bool all_ready = false, unknown = false;
	volume_snapshots(s, c->steps_end_ns, content, &vss, &all_ready, &handles);
	json_object_put(content);
	canary_evidence_list(f, "volume_snapshots", &vss);
	_cleanup_free_ char *vs_s = strv_join(&vss, "; ");
	_cleanup_free_ char *bad = all_ready ? longhorn_objects(s, &handles, &unknown) : NULL;
	if (!vss.n)
		finding_set(f, STATUS_FAIL,
			    "the VirtualMachineSnapshot %s/%s is ready but its content %s has no "
			    "volumeBackups: the VM's disk is not in it",
			    c->o->ns, s->name, cn);
	else if (!all_ready)
		finding_set(
		    f, STATUS_FAIL,
		    "the VirtualMachineSnapshot %s/%s is ready but not every VolumeSnapshot "
		    "is: %s",
		    c->o->ns, s->name, vs_s);
	else if (bad && *bad)
		finding_set(f, STATUS_FAIL,
			    "the VolumeSnapshots of %s/%s are ready, but Longhorn does not have "
			    "what they name: %s",
			    c->o->ns, s->name, bad);
	else if (unknown)
		finding_set(
		    f, STATUS_UNKNOWN,
		    "the VirtualMachineSnapshot %s/%s is ready; the Longhorn objects behind "
		    "it cannot be read (longhorn.io snapshots/backups)",
		    c->o->ns, s->name);
	else
		finding_set(f, STATUS_PASS,
			    "the VirtualMachineSnapshot %s/%s of VM %s is ready in %.1fs: %zu "
			    "VolumeSnapshot%s of class %s (type %s) ready, each with its Longhorn "
			    "%s",
			    c->o->ns, s->name, s->vm, (double)ms / 1000.0, vss.n,
			    vss.n == 1 ? "" : "s", s->vsc, s->vsc_type,
			    streq(s->vsc_type, "snap") ? "snapshot" : "backup");
	strv_clear(&vss);
	strv_clear(&handles);
}

/* Never ready within the step's time, or Failed (KubeVirt's failureDeadline,
 * 5 min by default, passed: pkg/storage/snapshot/snapshot.go,
 * vmSnapshotDeadlineExceeded): what it and its VolumeSnapshots say. */
static void stalled(struct snap *s, json_object *so, int64_t waited_s, bool failed)
{
	struct canary *c = s->c;
	struct finding *f = s->f;
	_cleanup_free_ char *st = snap_state(so);
	struct strv vss = {0}, ev = {0};
	bool all_ready = false;
	const char *cn = cj_str(so, "status", "virtualMachineSnapshotContentName", NULL);
	if (cn) {
		_cleanup_free_ char *cp =
		    xasprintf("%s/namespaces/%s/virtualmachinesnapshotcontents/%s", c->snap_api,
			      c->o->ns, cn);
		json_object *content = NULL;
		char err[256];
		if (canary_api(c, c->diag_end_ns, "GET", cp, NULL, &content, err, sizeof(err)) == 0)
			volume_snapshots(s, c->diag_end_ns, content, &vss, &all_ready, NULL);
		json_object_put(content);
	}
	canary_events(c, c->o->ns, s->name, false, 3, &ev);
	_cleanup_free_ char *vs_s = strv_join(&vss, "; ");
	_cleanup_free_ char *q = canary_quoted(&ev);
	finding_set(f, STATUS_FAIL, "the VirtualMachineSnapshot %s/%s %s %llds (%s)%s%s%s",
		    c->o->ns, s->name, failed ? "failed after" : "did not become ready within",
		    (long long)waited_s, st, vss.n ? "; VolumeSnapshots: " : "", vs_s, q);
	finding_remedy(f,
		       "A stall is not a pass: see the VolumeSnapshots' errors, the class %s (type "
		       "%s; bak needs a backup target) and docs/checks/canary.snapshot.md.",
		       s->vsc, s->vsc_type);
	canary_evidence_list(f, "volume_snapshots", &vss);
	canary_evidence_list(f, "events", &ev);
	strv_clear(&vss);
	strv_clear(&ev);
}

/* One look: the snapshot Failed (FAIL) or is ready (judged by ready()). */
static int snap_done(struct canary_wait *cw)
{
	struct snap *s = cw->arg;
	const char *phase = cj_str(cw->obj, "status", "phase", NULL);
	if (phase && streq(phase, "Failed")) {
		stalled(s, cw->obj, (util_now_mono_ns() - cw->t0_ns) / 1000000000, true);
		return 1;
	}
	if (phase && streq(phase, "Succeeded") &&
	    cj_true(cj_get(cw->obj, "status", "readyToUse", NULL))) {
		ready(s, cw->obj, (util_now_mono_ns() - cw->t0_ns) / 1000000);
		return 1;
	}
	return 0;
}

static void snap_run(struct snap *s, int64_t t0)
{
	struct canary *c = s->c;
	struct finding *f = s->f;
	_cleanup_free_ char *path =
	    xasprintf("%s/namespaces/%s/virtualmachinesnapshots", c->snap_api, c->o->ns);
	int r = canary_step_create(c, f, path, "VirtualMachineSnapshot", s->name, snap_body(s),
				   "the VirtualMachineSnapshot", s->err, sizeof(s->err));
	kv_add_str(&f->evidence, "snapshot", s->name);
	kv_add_str(&f->evidence, "api", c->snap_api + strlen("/apis/"));
	if (r < 0)
		return;
	_cleanup_free_ char *spath = xasprintf("%s/%s", path, s->name);
	struct canary_wait cw = {.what = "the snapshot",
				 .t0_ns = t0,
				 .path = spath,
				 .look = snap_done,
				 .arg = s,
				 .err = s->err,
				 .errlen = sizeof(s->err)};
	if (canary_wait(c, f, &cw) == CANARY_WAIT_STALL)
		stalled(s, cw.obj, (util_now_mono_ns() - t0) / 1000000000, false);
	json_object_put(cw.obj);
}

void canary_step_snapshot(struct canary *c, struct finding *f)
{
	struct snap s = {.c = c, .f = f, .vm = canary_vm_name(c), .name = canary_snapshot_name(c)};
	int64_t t0 = util_now_mono_ns();
	if (vm_ready(&s) && gate_on(&s) && class_resolves(&s)) {
		int r = canary_snapshot_api(c, s.err, sizeof(s.err));
		if (r == -ENOENT)
			finding_set(f, STATUS_SKIP,
				    "snapshot.kubevirt.io is not served (neither v1beta1 nor "
				    "v1alpha1): KubeVirt's snapshot CRDs are not installed");
		else if (r < 0)
			finding_set(f, STATUS_UNKNOWN, "cannot read snapshot.kubevirt.io: %s",
				    s.err);
		else
			snap_run(&s, t0);
	}
	kv_add_int(&f->evidence, "duration_ms", (util_now_mono_ns() - t0) / 1000000);
	free(s.vm);
	free(s.name);
	free(s.class);
	free(s.vsc);
	free(s.vsc_type);
}
