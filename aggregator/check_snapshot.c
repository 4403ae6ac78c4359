/*
 * CSI snapshots on Longhorn (docs/checks/api.snapshot.*.md):
 *   api.snapshot.restorable      readyToUse=true but the data is gone
 *   api.snapshot.stuck-deletion  deletion held by finalizers
 */
#include <string.h>

#include "checks_api.h"
#include "longhorn.h"
#include "storage.h"

#define STUCK_DELETION_S 300

/* ---- api.snapshot.restorable ---- */

struct restorable_counts {
	size_t ready, longhorn, snap_ok, backups, backing_images, other_drivers, bad;
};

static void restorable_evidence(struct finding *f, const struct jv *vs, const struct jv *content,
				const char *handle)
{
	storage_ev_str(&f->evidence, "source_pvc",
		       JQS(vs, "spec", "source", "persistentVolumeClaimName"));
	storage_ev_str(&f->evidence, "class", JQS(vs, "spec", "volumeSnapshotClassName"));
	const char *vm = JQS(vs, "metadata", "labels", "snapshot.kubevirt.io/source-vm-name");
	if (vm)
		kv_add_str(&f->evidence, "source_vm", vm);
	storage_ev_str(&f->evidence, "content", content ? jq_name(content) : NULL);
	storage_ev_str(&f->evidence, "snapshot_handle", handle);
	kv_add_bool(&f->evidence, "ready_to_use", true);
}

/* The VirtualMachineSnapshotContent that owns vs (KubeVirt VM snapshots), or NULL. */
static const char *vm_snapshot_content(const struct jv *vs)
{
	return JQS(jq_owner(vs, "VirtualMachineSnapshotContent", false), "name");
}

static void restorable_fail(struct judge *j, const struct jv *vs, const char *why)
{
	const char *ns = jq_namespace(vs) ? jq_namespace(vs) : "?";
	const char *name = jq_name(vs) ? jq_name(vs) : "?";
	const char *owner = vm_snapshot_content(vs);
	judge_note(j, STATUS_FAIL,
		   "VolumeSnapshot %s/%s is readyToUse=true but cannot be restored: %s (the CSI "
		   "layer never notices)",
		   ns, name, why);
	if (owner)
		judge_remedy(
		    j,
		    "do not count on it: a restore creates a volume whose clone never "
		    "converges (api.longhorn.clone-stuck). Delete the VirtualMachineSnapshot "
		    "it belongs to (its VolumeSnapshots go with it): kubectl get "
		    "virtualmachinesnapshots.snapshot.kubevirt.io -n %s -o "
		    "custom-columns=NAME:.metadata.name,CONTENT:.status."
		    "virtualMachineSnapshotContentName | grep %s, then kubectl delete "
		    "virtualmachinesnapshots.snapshot.kubevirt.io -n %s <name>; take "
		    "restorable snapshots with a type bak class and a backup target "
		    "(docs/checks/api.snapshot.restorable.md)",
		    ns, owner, ns);
	else
		judge_remedy(j,
			     "do not count on it: a restore creates a volume whose clone never "
			     "converges (api.longhorn.clone-stuck). Delete it: kubectl delete "
			     "volumesnapshots.snapshot.storage.k8s.io -n %s %s; take restorable "
			     "snapshots with a type bak class and a backup target "
			     "(docs/checks/api.snapshot.restorable.md)",
			     ns, name);
}

/* A ready VolumeSnapshot whose content points at an in-cluster Longhorn snapshot. */
static void restorable_snap(struct agg_ctx *ctx, const char *id, const struct jv *vs,
			    const struct jv *content, const char *handle,
			    const struct longhorn_ref *r, struct restorable_counts *c)
{
	const struct cluster_state *cs = ctx->cs;
	const struct jv *vol = longhorn_volume(cs, r->volume);
	bool snaps_known = cs->res[RES_LH_SNAPSHOTS].status == RES_COLLECTED;
	const struct jv *snap = longhorn_snapshot(cs, r->name);
	bool vol_gone = !vol, vol_deleting = vol && storage_deleting(vol);
	bool snap_gone = snaps_known && !snap;
	/* Its finalizer keeps the object only until the engine has dropped the data. */
	bool snap_deleting = snap && storage_deleting(snap);
	bool removed = false;
	jq_bool(JQ(snap, "status", "markRemoved"), &removed);
	if (!vol_gone && !vol_deleting && !snap_gone && !snap_deleting && !removed && snaps_known) {
		c->snap_ok++;
		return;
	}
	struct finding *f = storage_object_finding(ctx, id, "VolumeSnapshot", vs);
	struct judge j = {0};
	restorable_evidence(f, vs, content, handle);
	kv_add_str(&f->evidence, "longhorn_volume", r->volume);
	kv_add_str(&f->evidence, "longhorn_volume_state",
		   vol_gone ? "does not exist" : (vol_deleting ? "being deleted" : "exists"));
	kv_add_str(&f->evidence, "longhorn_snapshot", r->name);
	kv_add_str(&f->evidence, "longhorn_snapshot_state",
		   !snaps_known	   ? "unknown (snapshots.longhorn.io not served)"
		   : snap_gone	   ? "does not exist"
		   : snap_deleting ? "being deleted"
		   : removed	   ? "marked removed"
				   : "exists");
	if (vol_gone || snap_gone || vol_deleting || snap_deleting) {
		_cleanup_free_ char *why = NULL;
		if (vol_gone || vol_deleting)
			storage_appendf(&why, "its Longhorn volume %s %s", r->volume,
					vol_gone ? "no longer exists" : "is being deleted");
		if (snap_gone || snap_deleting)
			storage_appendf(&why, "%s snapshot %s %s",
					why ? "; Longhorn" : "its Longhorn", r->name,
					snap_gone ? "no longer exists" : "is being deleted");
		restorable_fail(&j, vs, why);
		c->bad++;
	} else if (removed) {
		judge_note(&j, STATUS_WARN,
			   "VolumeSnapshot %s/%s: its Longhorn snapshot %s is marked removed and "
			   "disappears at the next purge; restores from it will then fail",
			   jq_namespace(vs) ? jq_namespace(vs) : "?",
			   jq_name(vs) ? jq_name(vs) : "?", r->name);
		judge_remedy(&j, "restore what you need now, or take a new snapshot (type bak for "
				 "one that survives the source volume)");
		c->bad++;
	} else {
		judge_note(&j, STATUS_UNKNOWN,
			   "snapshots.longhorn.io is not served: cannot tell whether Longhorn "
			   "snapshot %s still exists",
			   r->name);
		c->bad++;
	}
	judge_decide(&j, f, "");
}

static void restorable_judge(struct agg_ctx *ctx, const char *id, const struct jv *vs,
			     struct restorable_counts *c)
{
	const char *cname = JQS(vs, "status", "boundVolumeSnapshotContentName");
	if (!cname)
		cname = JQS(vs, "spec", "source", "volumeSnapshotContentName");
	const struct jv *content = cname ? cs_find(ctx->cs, RES_VS_CONTENTS, NULL, cname) : NULL;
	if (!content) {
		struct finding *f = storage_object_finding(ctx, id, "VolumeSnapshot", vs);
		struct judge j = {0};
		restorable_evidence(f, vs, NULL, NULL);
		if (cname) {
			storage_ev_str(&f->evidence, "content", cname);
			judge_note(
			    &j, STATUS_FAIL,
			    "VolumeSnapshot is readyToUse=true but its VolumeSnapshotContent "
			    "%s no longer exists: it cannot be restored",
			    cname);
			judge_remedy(
			    &j, "kubectl delete volumesnapshots.snapshot.storage.k8s.io -n %s %s",
			    jq_namespace(vs) ? jq_namespace(vs) : "?",
			    jq_name(vs) ? jq_name(vs) : "?");
		} else {
			judge_note(&j, STATUS_UNKNOWN,
				   "VolumeSnapshot is readyToUse=true but names no "
				   "VolumeSnapshotContent");
		}
		c->bad++;
		judge_decide(&j, f, "");
		return;
	}
	if (!streq(JQS(content, "spec", "driver"), LONGHORN_DRIVER)) {
		c->other_drivers++;
		return;
	}
	c->longhorn++;
	const char *handle = JQS(content, "status", "snapshotHandle");
	if (!handle)
		handle = JQS(content, "spec", "source", "snapshotHandle");
	struct longhorn_ref r;
	if (!handle || longhorn_ref_parse((const uint8_t *)handle, strlen(handle), &r) < 0 ||
	    r.type == LONGHORN_REF_VOLUME) {
		struct finding *f = storage_object_finding(ctx, id, "VolumeSnapshot", vs);
		struct judge j = {0};
		restorable_evidence(f, vs, content, handle);
		judge_note(&j, STATUS_UNKNOWN,
			   "VolumeSnapshotContent %s has %s: cannot tell what a restore reads",
			   jq_name(content) ? jq_name(content) : "?",
			   handle ? "a snapshot handle that is not a Longhorn handle"
				  : "no snapshot handle");
		c->bad++;
		judge_decide(&j, f, "");
		return;
	}
	if (r.type == LONGHORN_REF_BACKUP)
		c->backups++; /* restored from the backup store: api.vsc.backup-target */
	else if (r.type == LONGHORN_REF_BACKING_IMAGE)
		c->backing_images++;
	else
		restorable_snap(ctx, id, vs, content, handle, &r, c);
}

void check_snapshot_restorable(struct agg_ctx *ctx, const char *id)
{
	if (agg_not_installed(ctx, id, RES_VS_SNAPSHOTS,
			      "the VolumeSnapshot API is not served: no CSI snapshot exists"))
		return;
	const struct jv *items = cs_items(ctx->cs, RES_VS_SNAPSHOTS);
	struct restorable_counts c = {0};
	for (size_t i = 0; i < jq_len(items); i++) {
		const struct jv *vs = jq_at(items, i);
		bool ready = false;
		if (!jq_bool(JQ(vs, "status", "readyToUse"), &ready) || !ready ||
		    storage_deleting(vs))
			continue;
		c.ready++;
		restorable_judge(ctx, id, vs, &c);
	}
	if (c.bad)
		return;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "volume_snapshots", (int64_t)jq_len(items));
	kv_add_int(&f->evidence, "ready", (int64_t)c.ready);
	kv_add_int(&f->evidence, "longhorn_snapshots_checked", (int64_t)c.snap_ok);
	kv_add_int(&f->evidence, "longhorn_backups", (int64_t)c.backups);
	kv_add_int(&f->evidence, "longhorn_backing_images", (int64_t)c.backing_images);
	kv_add_int(&f->evidence, "other_drivers", (int64_t)c.other_drivers);
	if (c.longhorn == 0)
		judge_note(&j, STATUS_SKIP, "no ready Longhorn VolumeSnapshot (%zu %s)",
			   jq_len(items),
			   plural((int64_t)jq_len(items), "VolumeSnapshot", "VolumeSnapshots"));
	else
		judge_note(&j, STATUS_PASS,
			   "%zu ready Longhorn %s: %zu in-cluster %s whose volume "
			   "and snapshot exist, %zu %s (restored from the backup target)",
			   c.longhorn,
			   plural((int64_t)c.longhorn, "VolumeSnapshot", "VolumeSnapshots"),
			   c.snap_ok, plural((int64_t)c.snap_ok, "snapshot", "snapshots"),
			   c.backups, plural((int64_t)c.backups, "backup", "backups"));
	judge_decide(&j, f, "");
}

/* ---- api.snapshot.stuck-deletion ---- */

/* Deleting for more than STUCK_DELETION_S with finalizers. *ret_age_s gets the
 * age; returns -1 if the deletionTimestamp is unreadable. */
static int stuck_deleting(const struct agg_ctx *ctx, const struct jv *o, int64_t *ret_age_s)
{
	if (!storage_deleting(o) || jq_len(JQ(o, "metadata", "finalizers")) == 0)
		return 0;
	if (!storage_age_s(ctx, JQ(o, "metadata", "deletionTimestamp"), ret_age_s))
		return -1;
	return *ret_age_s > STUCK_DELETION_S ? 1 : 0;
}

static void stuck_common_evidence(struct finding *f, const struct jv *o, int64_t age)
{
	char d[32];
	_cleanup_free_ char *fin = storage_finalizers(o);
	storage_format_duration(age, d, sizeof(d));
	storage_ev_str(&f->evidence, "deletion_timestamp", JQS(o, "metadata", "deletionTimestamp"));
	kv_add_str(&f->evidence, "deleting_for", d);
	storage_ev_str(&f->evidence, "finalizers", fin);
	storage_ev_str(&f->evidence, "error", JQS(o, "status", "error", "message"));
}

static void stuck_content(struct agg_ctx *ctx, const char *id, const struct jv *c, int64_t age)
{
	struct finding *f = storage_object_finding(ctx, id, "VolumeSnapshotContent", c);
	struct judge j = {0};
	const char *name = jq_name(c) ? jq_name(c) : "?";
	const char *err = JQS(c, "status", "error", "message");
	const char *vsns = JQS(c, "spec", "volumeSnapshotRef", "namespace");
	const char *vsname = JQS(c, "spec", "volumeSnapshotRef", "name");
	char d[32];
	storage_format_duration(age, d, sizeof(d));
	stuck_common_evidence(f, c, age);
	storage_ev_str(&f->evidence, "driver", JQS(c, "spec", "driver"));
	storage_ev_str(&f->evidence, "class", JQS(c, "spec", "volumeSnapshotClassName"));
	kv_add_strf(&f->evidence, "volume_snapshot", "%s/%s", vsns ? vsns : "?",
		    vsname ? vsname : "?");
	judge_note(&j, STATUS_WARN,
		   "VolumeSnapshotContent %s has been deleting for %s, held by its finalizers; "
		   "last error: %s",
		   name, d, err ? err : "(none recorded)");
	judge_remedy(&j,
		     "in this order: 1) fix the cause of the error first (for \"backup target ... "
		     "not available\": api.vsc.backup-target) — the sidecar's retry may then "
		     "finish the deletion by itself; 2) if it stays stuck: kubectl patch "
		     "volumesnapshotcontents.snapshot.storage.k8s.io %s --type=merge -p "
		     "'{\"metadata\":{\"finalizers\":null}}' — the VolumeSnapshot %s/%s is then "
		     "released by the snapshot controller, no patch needed; 3) removing the "
		     "finalizer skips the driver's cleanup: look for leftover Longhorn snapshots "
		     "or backups (kubectl -n longhorn-system get snapshots.longhorn.io)",
		     name, vsns ? vsns : "?", vsname ? vsname : "?");
	judge_decide(&j, f, "");
}

static bool names_snapshot(const struct jv *src, const char *name)
{
	return src && streq(JQS(src, "kind"), "VolumeSnapshot") && streq(JQS(src, "name"), name);
}

/* A claim in vs's namespace still being restored from it (not Bound yet): while one
 * exists the snapshot controller keeps the finalizer
 * volumesnapshot-as-source-protection and does not delete the content. */
static const struct jv *restoring_pvc(const struct cluster_state *cs, const struct jv *vs)
{
	const struct jv *pvcs = cs_items(cs, RES_PVCS);
	for (size_t i = 0; i < jq_len(pvcs); i++) {
		const struct jv *p = jq_at(pvcs, i);
		if (!streq(jq_namespace(p), jq_namespace(vs)) ||
		    streq(JQS(p, "status", "phase"), "Bound"))
			continue;
		if (names_snapshot(JQ(p, "spec", "dataSource"), jq_name(vs)) ||
		    names_snapshot(JQ(p, "spec", "dataSourceRef"), jq_name(vs)))
			return p;
	}
	return NULL;
}

/* The snapshot's content exists and is not being deleted: either a restore still
 * reads from the snapshot, or the snapshot controller is not doing its part. */
static void stuck_snapshot_held(struct agg_ctx *ctx, struct finding *f, struct judge *j,
				const struct jv *vs, const char *d, const char *cname)
{
	const char *ns = jq_namespace(vs) ? jq_namespace(vs) : "?";
	const char *name = jq_name(vs) ? jq_name(vs) : "?";
	bool pvcs_known = ctx->cs->res[RES_PVCS].status == RES_COLLECTED;
	const struct jv *pvc = pvcs_known ? restoring_pvc(ctx->cs, vs) : NULL;
	if (pvc) {
		const char *pname = jq_name(pvc) ? jq_name(pvc) : "?";
		kv_add_strf(&f->evidence, "restoring_pvc", "%s/%s (phase %s)", ns, pname,
			    JQS(pvc, "status", "phase") ? JQS(pvc, "status", "phase")
							: STORAGE_ABSENT);
		judge_note(j, STATUS_WARN,
			   "VolumeSnapshot %s/%s has been deleting for %s: PVC %s/%s is still "
			   "being restored from it, so the snapshot controller keeps it and its "
			   "content %s",
			   ns, name, d, ns, pname, cname);
		judge_remedy(j,
			     "let the restore finish (kubectl describe pvc -n %s %s), or give it "
			     "up: kubectl delete pvc -n %s %s; the snapshot controller then "
			     "deletes content %s (deletionPolicy Delete) and releases the snapshot",
			     ns, pname, ns, pname, cname);
		return;
	}
	judge_note(j, STATUS_WARN,
		   "VolumeSnapshot %s/%s has been deleting for %s, held by its finalizers; its "
		   "content %s is not being deleted although %s",
		   ns, name, d, cname,
		   pvcs_known ? "no PVC is being restored from it"
			      : "(PersistentVolumeClaims were not collected: a restore from it "
				"would explain it)");
	judge_remedy(j,
		     "the snapshot-controller deletes content %s (deletionPolicy Delete) or "
		     "releases the snapshot (Retain) itself: check that it runs and read its "
		     "log: kubectl get pods -A | grep snapshot-controller; kubectl logs -n "
		     "<namespace> <snapshot-controller pod> | grep %s; kubectl describe "
		     "volumesnapshots.snapshot.storage.k8s.io -n %s %s",
		     cname, name, ns, name);
}

/* The finalizer that holds vs: the one the operator must act on. Names and
 * when the snapshot controller removes each: kubernetes-csi/external-snapshotter
 * pkg/utils/util.go and pkg/common-controller/snapshot_controller.go
 * (as-source: once no PVC is Pending with the snapshot as dataSource,
 * isVolumeBeingCreatedFromSnapshot; bound: once its content is deleted or,
 * deletionPolicy Retain, released). */
#define FIN_AS_SOURCE "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection"
#define FIN_BOUND     "snapshot.storage.kubernetes.io/volumesnapshot-bound-protection"
#define FIN_IN_GROUP  "snapshot.storage.kubernetes.io/volumesnapshot-in-group-protection"

static bool has_finalizer(const struct jv *o, const char *name)
{
	const struct jv *l = JQ(o, "metadata", "finalizers");
	for (size_t i = 0; i < jq_len(l); i++) {
		const struct jv *e = jq_at(l, i);
		if (jv_is(e, JV_STRING) && streq(jv_str(e), name))
			return true;
	}
	return false;
}

static const char *holding_finalizer(const struct jv *vs)
{
	static const char *const order[] = {FIN_AS_SOURCE, FIN_IN_GROUP, FIN_BOUND};
	for (size_t i = 0; i < ELEMENTSOF(order); i++)
		if (has_finalizer(vs, order[i]))
			return order[i];
	const struct jv *l = JQ(vs, "metadata", "finalizers");
	for (size_t i = 0; i < jq_len(l); i++) {
		const struct jv *e = jq_at(l, i);
		if (jv_is(e, JV_STRING))
			return jv_str(e);
	}
	return NULL;
}

/* Name the holding finalizer in the message and say what removes it. */
/* restoring: 1 a Pending PVC restores from vs, 0 none, -1 PVCs not collected. */
static void name_finalizer(struct finding *f, struct judge *j, const struct jv *vs, bool content,
			   int restoring)
{
	const char *fin = holding_finalizer(vs);
	if (!fin)
		return;
	const char *ns = jq_namespace(vs) ? jq_namespace(vs) : "?";
	const char *name = jq_name(vs) ? jq_name(vs) : "?";
	kv_add_str(&f->evidence, "holding_finalizer", fin);
	const char *what;
	if (streq(fin, FIN_AS_SOURCE))
		what = restoring
			   ? "removed by the snapshot-controller once that restore PVC is "
			     "Bound or deleted"
			   : "orphaned: no Pending PVC restores from the snapshot any more (a "
			     "deleted restore PVC), so the snapshot-controller should drop it on "
			     "its next sync; if it stays, remove it by hand";
	else if (streq(fin, FIN_BOUND))
		what = content ? "removed by the snapshot-controller after the content is "
				 "deleted (deletionPolicy Delete) or released (Retain)"
			       : "its content is gone, so nothing is left to protect: remove it "
				 "by hand";
	else if (streq(fin, FIN_IN_GROUP))
		what = "removed when its VolumeGroupSnapshot is deleted";
	else
		what = "not the snapshot-controller's: the controller that set it must remove it";
	/* a second note of the verdict's status and a second step of the remedy */
	judge_note(j, j->status, "held by finalizer %s", fin);
	judge_remedy(j,
		     "finalizer %s is %s (by hand: kubectl patch "
		     "volumesnapshots.snapshot.storage.k8s.io -n %s %s --type=json -p "
		     "'[{\"op\":\"remove\",\"path\":\"/metadata/finalizers/<index of %s>\"}]')",
		     fin, what, ns, name, fin);
}

static void stuck_snapshot(struct agg_ctx *ctx, const char *id, const struct jv *vs, int64_t age,
			   const struct jv *content)
{
	struct finding *f = storage_object_finding(ctx, id, "VolumeSnapshot", vs);
	struct judge j = {0};
	const char *ns = jq_namespace(vs) ? jq_namespace(vs) : "?";
	const char *name = jq_name(vs) ? jq_name(vs) : "?";
	const char *cname = JQS(vs, "status", "boundVolumeSnapshotContentName");
	char d[32];
	storage_format_duration(age, d, sizeof(d));
	stuck_common_evidence(f, vs, age);
	storage_ev_str(&f->evidence, "content", cname);
	kv_add_str(&f->evidence, "content_state",
		   !cname ? "none bound" : (content ? "exists, not deleting" : "does not exist"));
	if (content) {
		storage_ev_str(&f->evidence, "content_deletion_policy",
			       JQS(content, "spec", "deletionPolicy"));
		stuck_snapshot_held(ctx, f, &j, vs, d, cname);
		name_finalizer(f, &j, vs, true,
			       ctx->cs->res[RES_PVCS].status != RES_COLLECTED ? -1
			       : restoring_pvc(ctx->cs, vs)		      ? 1
									      : 0);
		goto out;
	}
	judge_note(&j, STATUS_WARN,
		   "VolumeSnapshot %s/%s has been deleting for %s, held by its finalizers; its "
		   "content %s does not exist",
		   ns, name, d, cname ? cname : "(none bound)");
	judge_remedy(&j,
		     "nothing is left to clean up: kubectl patch "
		     "volumesnapshots.snapshot.storage.k8s.io -n %s %s --type=merge -p "
		     "'{\"metadata\":{\"finalizers\":null}}'",
		     ns, name);
	name_finalizer(f, &j, vs, false, 0);
out:
	judge_decide(&j, f, "");
}

void check_snapshot_stuck_deletion(struct agg_ctx *ctx, const char *id)
{
	const struct cluster_state *cs = ctx->cs;
	if (cs->res[RES_VS_SNAPSHOTS].status == RES_NOT_INSTALLED &&
	    cs->res[RES_VS_CONTENTS].status == RES_NOT_INSTALLED) {
		agg_not_applicable(ctx, id,
				   "the VolumeSnapshot API is not served: no CSI snapshot exists");
		return;
	}
	const struct jv *contents = cs_items(cs, RES_VS_CONTENTS),
			*snaps = cs_items(cs, RES_VS_SNAPSHOTS);
	size_t stuck = 0, recent = 0;
	int64_t age;
	for (size_t i = 0; i < jq_len(contents); i++) {
		const struct jv *c = jq_at(contents, i);
		int r = stuck_deleting(ctx, c, &age);
		if (r < 0) {
			struct finding *f =
			    storage_object_finding(ctx, id, "VolumeSnapshotContent", c);
			struct judge j = {0};
			judge_note(&j, STATUS_UNKNOWN, "unreadable metadata.deletionTimestamp");
			judge_decide(&j, f, "");
			stuck++;
		} else if (r > 0) {
			stuck_content(ctx, id, c, age);
			stuck++;
		} else if (storage_deleting(c)) {
			recent++;
		}
	}
	for (size_t i = 0; i < jq_len(snaps); i++) {
		const struct jv *vs = jq_at(snaps, i);
		int r = stuck_deleting(ctx, vs, &age);
		if (r < 0) {
			struct finding *f = storage_object_finding(ctx, id, "VolumeSnapshot", vs);
			struct judge j = {0};
			judge_note(&j, STATUS_UNKNOWN, "unreadable metadata.deletionTimestamp");
			judge_decide(&j, f, "");
			stuck++;
			continue;
		}
		if (r == 0) {
			recent += storage_deleting(vs);
			continue;
		}
		const char *cname = JQS(vs, "status", "boundVolumeSnapshotContentName");
		const struct jv *content = cname ? cs_find(cs, RES_VS_CONTENTS, NULL, cname) : NULL;
		/* A content that is itself deleting carries the finding and the repair:
		 * removing its finalizer releases this snapshot. */
		if (content && storage_deleting(content))
			continue;
		stuck_snapshot(ctx, id, vs, age, content);
		stuck++;
	}
	if (stuck)
		return;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "volume_snapshots", (int64_t)jq_len(snaps));
	kv_add_int(&f->evidence, "volume_snapshot_contents", (int64_t)jq_len(contents));
	kv_add_int(&f->evidence, "deleting_less_than_5m", (int64_t)recent);
	judge_note(&j, STATUS_PASS,
		   "no VolumeSnapshot or VolumeSnapshotContent deleting for more than 5m "
		   "(%zu %s, %zu %s)",
		   jq_len(snaps), plural((int64_t)jq_len(snaps), "snapshot", "snapshots"),
		   jq_len(contents), plural((int64_t)jq_len(contents), "content", "contents"));
	judge_decide(&j, f, "");
}
