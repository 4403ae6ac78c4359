/*
 * Longhorn's VolumeSnapshotClasses (docs/checks/api.vsc.*.md):
 *   api.vsc.longhorn             the VolumeSnapshotClass harvester needs
 *   api.vsc.ambiguous            several Longhorn classes of different types
 *   api.vsc.backup-target        a backup class needs a reachable backup target
 *   api.vsc.snap-restore-risk    VM snapshots of type snap
 *
 * Which class a VM snapshot uses: vsc_resolve.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_api.h"
#include "cluster_versions.h"
#include "kubevirt_gates.h"
#include "longhorn.h"
#include "redact.h"
#include "storage.h"
#include "vsc_resolve.h"

#define VSC_RESOURCE "volumesnapshotclasses.snapshot.storage.k8s.io"
#define VSC_LONGHORN_JSON                                                                          \
	"{\"apiVersion\":\"snapshot.storage.k8s.io/v1\",\"kind\":\"VolumeSnapshotClass\","         \
	"\"metadata\":{\"name\":\"longhorn\"},\"driver\":\"driver.longhorn.io\","                  \
	"\"deletionPolicy\":\"Delete\",\"parameters\":{\"type\":\"bak\"}}"

static void vsc_evidence(struct finding *f, const struct vsc *v, size_t n)
{
	struct value_list *l = kv_add_list(&f->evidence, "longhorn_classes");
	for (size_t i = 0; i < n; i++)
		vlist_add_strf(l, "%s: type %s (parameters.type %s)%s", v[i].name,
			       vsc_type_desc(&v[i]), v[i].raw ? v[i].raw : STORAGE_ABSENT,
			       v[i].is_default ? ", default" : "");
}

/* The class checks below judge Longhorn classes wherever they exist, also on a
 * KubeVirt + Longhorn cluster without Harvester; only an unserved API stops
 * them. Returns false when a finding was added. */
static bool vsc_applies(struct agg_ctx *ctx, const char *id)
{
	if (agg_not_installed(ctx, id, RES_VS_CLASSES,
			      ctx->harvester_installed
				  ? "the VolumeSnapshotClass API is not served (api.vsc.longhorn "
				    "reports it)"
				  : "the VolumeSnapshotClass API is not served"))
		return false;
	return true;
}

static char *pick_describe(const struct sc_pick *p)
{
	char *s = NULL;
	switch (p->result) {
	case PICK_OK:
		storage_appendf(&s, "%s: %s (type %s; %s)", p->sc, p->name, vsc_type_desc(p->vsc),
				p->why);
		break;
	case PICK_NONE:
		storage_appendf(&s, "%s: no Longhorn VolumeSnapshotClass", p->sc);
		break;
	case PICK_MISSING:
		storage_appendf(&s, "%s: %s, which does not exist (%s)", p->sc, p->name, p->why);
		break;
	case PICK_FOREIGN:
		storage_appendf(&s, "%s: %s of driver %s (%s)", p->sc, p->name, p->driver, p->why);
		break;
	case PICK_UNDECIDED:
		storage_appendf(&s, "%s: none (several Longhorn classes, none annotated default)",
				p->sc);
		break;
	}
	if (p->spec_ignored)
		storage_appendf(&s, "; spec.snapshotClass %s is not applied", p->spec);
	return s;
}

/* How the class was found, and the answer for every Longhorn StorageClass. */
static void vsc_view_evidence(struct finding *f, const struct cluster_state *cs,
			      const struct vsc_view *w)
{
	const struct resource_data *r = &cs->res[RES_STORAGEPROFILES];
	if (r->status == RES_COLLECTED)
		kv_add_str(&f->evidence, "storage_profiles",
			   "collected: status.snapshotClass is the class KubeVirt uses; without "
			   "one KubeVirt applies its own rule");
	else if (r->status == RES_NOT_INSTALLED)
		kv_add_str(&f->evidence, "storage_profiles",
			   "not installed (no CDI): KubeVirt applies its own rule (the only class, "
			   "else the one annotated default, else none)");
	else
		kv_add_strf(
		    &f->evidence, "storage_profiles",
		    "%s%s%s: emulating CDI's choice (default-annotated, else first by name); "
		    "a StorageProfile spec.snapshotClass would override it",
		    resource_status_name(r->status), r->error ? ": " : "",
		    r->error ? r->error : "");
	struct value_list *l = kv_add_list(&f->evidence, "vm_disk_classes");
	for (size_t i = 0; i < w->np; i++) {
		_cleanup_free_ char *d = pick_describe(&w->p[i]);
		vlist_add_str(l, d);
	}
}

/* "disks on A, B use X (type bak, why); disks on C use Y (…)" over the PICK_OK
 * StorageClasses (only_risky: those whose class is of type snap or invalid). */
static char *picks_summary(const struct vsc_view *w, bool only_risky)
{
	char *s = NULL;
	for (size_t i = 0; i < w->np; i++) {
		const struct sc_pick *p = &w->p[i];
		if (p->result != PICK_OK || (only_risky && streq(p->vsc->type, "bak")) ||
		    (only_risky && streq(p->vsc->type, "bi")))
			continue;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = w->p[j].result == PICK_OK && streq(w->p[j].name, p->name) &&
			       streq(w->p[j].why, p->why);
		if (seen)
			continue;
		storage_appendf(&s, "%sdisks on %s", s ? "; " : "", p->sc);
		for (size_t j = i + 1; j < w->np; j++)
			if (w->p[j].result == PICK_OK && streq(w->p[j].name, p->name) &&
			    streq(w->p[j].why, p->why))
				storage_appendf(&s, ", %s", w->p[j].sc);
		storage_appendf(&s, " use %s (type %s, %s)", p->name, vsc_type_desc(p->vsc),
				p->why);
	}
	return s;
}

/* The distinct classes VM snapshots use, for the evidence. */
static void picks_uses(struct finding *f, const struct vsc_view *w)
{
	_cleanup_free_ char *uses = NULL;
	const char *why = NULL;
	bool one_why = true;
	for (size_t i = 0; i < w->np; i++) {
		const struct sc_pick *p = &w->p[i];
		if (p->result != PICK_OK)
			continue;
		if (!why)
			why = p->why;
		one_why = one_why && streq(why, p->why);
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = w->p[j].result == PICK_OK && streq(w->p[j].name, p->name);
		if (!seen)
			storage_appendf(&uses, "%s%s", uses ? ", " : "", p->name);
	}
	if (uses)
		kv_add_str(&f->evidence, "kubevirt_uses", uses);
	if (why && one_why)
		kv_add_str(&f->evidence, "because", why);
}

/* The finding of a check that judges which class VM snapshots use, with the
 * view and its evidence; NULL when the snapshot API is not served (a finding
 * says so, and w is untouched). */
static struct finding *vsc_view_finding(struct agg_ctx *ctx, const char *id, struct vsc_view *w)
{
	if (!vsc_applies(ctx, id))
		return NULL;
	vsc_view_build(ctx->cs, w);
	struct finding *f = agg_finding(ctx, id);
	vsc_evidence(f, w->v, w->n);
	vsc_view_evidence(f, ctx->cs, w);
	picks_uses(f, w);
	return f;
}

/* ---- api.vsc.longhorn ---- */

void check_vsc_longhorn(struct agg_ctx *ctx, const char *id)
{
	if (!ctx->harvester_installed) {
		agg_not_applicable(
		    ctx, id,
		    "Harvester is not installed: it needs VolumeSnapshotClass longhorn once "
		    "it is (api.preinstall.conflicts tells whether to create it by hand)");
		return;
	}
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	if (ctx->cs->res[RES_VS_CLASSES].status == RES_NOT_INSTALLED) {
		judge_note(
		    &j, STATUS_FAIL,
		    "the VolumeSnapshotClass API (snapshot.storage.k8s.io/v1) is not served: "
		    "harvester cannot find class longhorn and VM snapshots and backups fail");
		judge_remedy(&j,
			     "install the CSI snapshot CRDs and controller (on RKE2 the "
			     "rke2-snapshot-controller charts), then create the class: echo '%s' | "
			     "kubectl apply -f -",
			     VSC_LONGHORN_JSON);
		goto out;
	}
	const struct jv *items = cs_items(ctx->cs, RES_VS_CLASSES);
	struct value_list *all = kv_add_list(&f->evidence, "volume_snapshot_classes");
	for (size_t i = 0; i < jq_len(items); i++)
		vlist_add_strf(all, "%s (driver %s)",
			       jq_name(jq_at(items, i)) ? jq_name(jq_at(items, i)) : "?",
			       JQS(jq_at(items, i), "driver") ? JQS(jq_at(items, i), "driver")
							      : STORAGE_ABSENT);
	const struct jv *c = cs_find(ctx->cs, RES_VS_CLASSES, NULL, "longhorn");
	if (!c) {
		judge_note(
		    &j, STATUS_FAIL,
		    "VolumeSnapshotClass longhorn does not exist: harvester exits at start "
		    "(\"volumesnapshotclasses.snapshot.storage.k8s.io \\\"longhorn\\\" not "
		    "found\") and VM snapshots have no class (docs/checks/api.vsc.longhorn.md)");
		judge_remedy(
		    &j,
		    "echo '%s' | kubectl apply -f - (type bak needs a backup target, see "
		    "api.vsc.backup-target; type snap restores depend on the source volume "
		    "staying); keep the manifest and apply it again after every Harvester "
		    "upgrade that keeps csi-snapshotter disabled",
		    VSC_LONGHORN_JSON);
		goto out;
	}
	const char *driver = JQS(c, "driver"), *raw, *type = vsc_type(c, &raw);
	storage_ev_str(&f->evidence, "driver", driver);
	storage_ev_str(&f->evidence, "deletion_policy", JQS(c, "deletionPolicy"));
	storage_ev_str(&f->evidence, "parameters.type", raw);
	if (!streq(driver, LONGHORN_DRIVER)) {
		judge_note(&j, STATUS_FAIL,
			   "VolumeSnapshotClass longhorn has driver %s, not driver.longhorn.io: "
			   "snapshots of Longhorn volumes cannot use it",
			   driver ? driver : STORAGE_ABSENT);
		judge_remedy(&j,
			     "driver is immutable: kubectl delete %s longhorn; echo '%s' | kubectl "
			     "apply -f -",
			     VSC_RESOURCE, VSC_LONGHORN_JSON);
		goto out;
	}
	if (!type) {
		judge_note(&j, STATUS_FAIL,
			   "VolumeSnapshotClass longhorn has parameters.type %s, which Longhorn "
			   "rejects (\"invalid CSI snapshot type\"): every snapshot with it fails",
			   raw ? raw : "(not a string)");
		judge_remedy(&j,
			     "kubectl patch %s longhorn --type=merge -p "
			     "'{\"parameters\":{\"type\":\"bak\"}}' (or \"snap\": see "
			     "api.vsc.snap-restore-risk)",
			     VSC_RESOURCE);
		goto out;
	}
	kv_add_str(&f->evidence, "type", type);
	judge_note(&j, STATUS_PASS,
		   "VolumeSnapshotClass longhorn exists with driver "
		   "driver.longhorn.io (type %s)",
		   type);
out:
	judge_decide(&j, f, "");
}

/* ---- api.vsc.ambiguous ---- */

static void ambiguous_broken_message(struct judge *j, const struct vsc_view *w,
				     const struct sc_pick *p, enum status st, const char *tail)
{
	char more[96] = "";
	if (w->n_broken > 1)
		snprintf(more, sizeof(more),
			 " (and %zu more Longhorn StorageClasses, see evidence)", w->n_broken - 1);
	if (p->result == PICK_MISSING)
		judge_note(
		    j, st,
		    "VM snapshots leave out the disks on StorageClass %s: StorageProfile %s "
		    "status.snapshotClass names VolumeSnapshotClass %s, which does not exist, "
		    "so KubeVirt finds no class for them%s%s",
		    p->sc, p->sc, p->name, more, tail);
	else if (p->result == PICK_FOREIGN)
		judge_note(j, st,
			   "VM snapshots of disks on StorageClass %s go to VolumeSnapshotClass %s "
			   "of driver %s (StorageProfile %s status.snapshotClass), which cannot "
			   "snapshot a Longhorn volume%s%s",
			   p->sc, p->name, p->driver, p->sc, more, tail);
	else
		judge_note(j, st,
			   "VM snapshots of disks on StorageClass %s fail: %zu Longhorn "
			   "VolumeSnapshotClasses, none annotated default and no StorageProfile "
			   "class, so KubeVirt refuses (\"%zu matching VolumeSnapshotClasses for "
			   "%s\")%s%s",
			   p->sc, w->n, w->n, p->sc, more, tail);
}

/* A Longhorn StorageClass whose VM disks get no usable class: what KubeVirt does, and
 * how to give it one. */
static void ambiguous_broken(struct judge *j, const struct vsc_view *w, enum status st,
			     const char *tail)
{
	const struct sc_pick *p = NULL;
	for (size_t i = 0; i < w->np && !p; i++)
		if (w->p[i].result != PICK_OK && w->p[i].result != PICK_NONE)
			p = &w->p[i];
	ambiguous_broken_message(j, w, p, st, tail);
	const char *why;
	const struct vsc *suggest = vsc_cdi_pick(w->v, w->n, &why);
	if (p->result == PICK_UNDECIDED)
		judge_remedy(j,
			     "mark the class VM snapshots should use: kubectl annotate %s %s "
			     "%s=true (type bak needs a backup target; type snap restores need "
			     "the source volume: docs/checks/api.vsc.snap-restore-risk.md)%s%s%s",
			     VSC_RESOURCE, suggest->name, ANN_VSC_DEFAULT,
			     w->profiles_collected ? "; CDI has written no status.snapshotClass "
						     "for it: check that cdi-deployment runs, or "
						     "set one: kubectl patch " SP_RESOURCE " "
						   : "",
			     w->profiles_collected ? p->sc : "",
			     w->profiles_collected
				 ? " --type=merge -p '{\"spec\":{\"snapshotClass\":\"<class>\"}}'"
				 : "");
	else if (suggest)
		judge_remedy(j,
			     "point the StorageProfile at a Longhorn class: kubectl patch %s %s "
			     "--type=merge -p '{\"spec\":{\"snapshotClass\":\"%s\"}}' (CDI then "
			     "rewrites status.snapshotClass; %s is of type %s: see "
			     "api.vsc.snap-restore-risk)",
			     SP_RESOURCE, p->sc, suggest->name, suggest->name,
			     vsc_type_desc(suggest));
	else
		judge_remedy(j,
			     "create a Longhorn VolumeSnapshotClass: echo '%s' | kubectl apply -f "
			     "-; then kubectl patch %s %s --type=merge -p "
			     "'{\"spec\":{\"snapshotClass\":\"longhorn\"}}'",
			     VSC_LONGHORN_JSON, SP_RESOURCE, p->sc);
}

/* A class chosen on purpose: named in spec.snapshotClass, or annotated
 * is-default-class="true" (KubeVirt's own rule also takes a class annotated "false"). */
static bool pick_explicit(const struct sc_pick *p)
{
	return p->result == PICK_OK && !p->spec_ignored &&
	       ((p->from == FROM_PROFILE && p->spec) || p->vsc->is_default);
}

static const struct sc_pick *first_spec_ignored(const struct vsc_view *w)
{
	for (size_t i = 0; i < w->np; i++)
		if (w->p[i].spec_ignored)
			return &w->p[i];
	return NULL;
}

/* Several Longhorn classes of different types: WARN unless every StorageClass's class
 * was chosen on purpose. */
static void ambiguous_types(struct judge *j, const struct vsc_view *w, size_t n_default)
{
	bool all_explicit = true;
	for (size_t i = 0; i < w->np; i++)
		all_explicit =
		    all_explicit && (w->p[i].result != PICK_OK || pick_explicit(&w->p[i]));
	_cleanup_free_ char *sum = picks_summary(w, false);
	if (all_explicit) {
		judge_note(j, STATUS_PASS,
			   "%zu Longhorn VolumeSnapshotClasses with different types, each chosen "
			   "on purpose: VM snapshots of %s",
			   w->n, sum);
		return;
	}
	judge_note(j, STATUS_WARN,
		   "%zu Longhorn VolumeSnapshotClasses with different types: VM snapshots of %s%s "
		   "(a Harvester backup then gets the snapshot class, or the other way round)",
		   w->n, sum, n_default > 1 ? "; several are marked default" : "");
	judge_remedy(
	    j,
	    "decide what VM snapshots need (type bak: restorable without the source volume, "
	    "needs a backup target; type snap: fast, restores need the source volume — cases "
	    "4, 5, 17), then name that class for each Longhorn StorageClass: kubectl patch %s "
	    "<storageclass> --type=merge -p '{\"spec\":{\"snapshotClass\":\"<class>\"}}' "
	    "(without CDI: kubectl annotate %s <class> %s=true, and remove the annotation "
	    "from the others), or give all Longhorn classes the same type with kubectl patch "
	    "%s <class> --type=merge -p '{\"parameters\":{\"type\":\"bak\"}}'; do not delete "
	    "longhorn-snapshot: Harvester's csi-driver-config setting names it for its own VM "
	    "snapshots",
	    SP_RESOURCE, VSC_RESOURCE, ANN_VSC_DEFAULT, VSC_RESOURCE);
}

/* Is KubeVirt's own snapshot API (snapshot.kubevirt.io) in use, the only path on
 * which KubeVirt refuses several unannotated classes? VirtualMachineSnapshots
 * exist, or the Snapshot gate is on (kubevirt_gates.c). Harvester's VM backups
 * and snapshots name their class in the csi-driver-config setting instead
 * (harvester pkg/settings, pkg/controller/master/backup). 1 yes, 0 no, -1 unknown. */
static int kubevirt_snapshot_api_in_use(const struct cluster_state *cs)
{
	if (cs->res[RES_VM_SNAPSHOTS].status == RES_COLLECTED && cs_count(cs, RES_VM_SNAPSHOTS) > 0)
		return 1;
	const struct jv *kvs = cs_items(cs, RES_KUBEVIRTS);
	if (cs->res[RES_KUBEVIRTS].status != RES_COLLECTED || jq_len(kvs) == 0)
		return -1;
	int in_use = 0;
	for (size_t i = 0; i < jq_len(kvs); i++) {
		int on = kv_gate_on_cr(jq_at(kvs, i), "Snapshot");
		if (on != 0)
			in_use = on > 0 ? 1 : (in_use == 1 ? 1 : -1);
	}
	if (in_use == 0 && cs->res[RES_VM_SNAPSHOTS].status != RES_COLLECTED)
		return -1;
	return in_use;
}

static bool harvester_csi_driver_config(const struct cluster_state *cs)
{
	const struct jv *st = cs_items(cs, RES_HV_SETTINGS);
	for (size_t i = 0; i < jq_len(st); i++)
		if (streq(jq_name(jq_at(st, i)), "csi-driver-config"))
			return true;
	return false;
}

void check_vsc_ambiguous(struct agg_ctx *ctx, const char *id)
{
	struct vsc_view w;
	struct finding *f = vsc_view_finding(ctx, id, &w);
	if (!f)
		return;
	struct judge j = {0};
	size_t n_default = 0;
	bool differ = false;
	for (size_t i = 0; i < w.n; i++) {
		n_default += w.v[i].is_default;
		if (!streq(vsc_type_desc(&w.v[i]), vsc_type_desc(&w.v[0])))
			differ = true;
	}
	const struct sc_pick *ign = first_spec_ignored(&w);
	if (w.np == 0) {
		judge_note(&j, STATUS_SKIP,
			   "no StorageClass of provisioner driver.longhorn.io: no VM disk is a "
			   "Longhorn volume, so no VM snapshot uses these classes");
	} else if (w.n_broken) {
		/* KubeVirt's refusal bites only where its snapshot API is used; Harvester's
		 * own VM backups pick the class from csi-driver-config: at most WARN there. */
		bool unused = harvester_csi_driver_config(ctx->cs) &&
			      kubevirt_snapshot_api_in_use(ctx->cs) == 0;
		ambiguous_broken(&j, &w, unused ? STATUS_WARN : STATUS_FAIL,
				 unused
				     ? "; not used now: the KubeVirt Snapshot gate is off and no "
				       "VirtualMachineSnapshot exists, and Harvester's VM backups "
				       "and snapshots take the class from its csi-driver-config "
				       "setting"
				     : "");
		if (unused)
			kv_add_str(&f->evidence, "kubevirt_snapshot_api", "not in use");
	} else if (w.n_ok == 0) {
		judge_note(
		    &j, STATUS_SKIP,
		    "no VolumeSnapshotClass for driver.longhorn.io (api.vsc.longhorn reports "
		    "it)");
	} else if (differ) {
		ambiguous_types(&j, &w, n_default);
	} else if (ign) {
		judge_note(
		    &j, STATUS_WARN,
		    "StorageProfile %s spec.snapshotClass %s is not applied: VM snapshots of "
		    "its disks use %s (%s)",
		    ign->sc, ign->spec, ign->name, ign->why);
		judge_remedy(&j,
			     "spec.snapshotClass must name an existing class of driver "
			     "driver.longhorn.io: kubectl patch %s %s --type=merge -p "
			     "'{\"spec\":{\"snapshotClass\":\"%s\"}}', or remove it",
			     SP_RESOURCE, ign->sc, ign->name);
	} else if (w.n == 1) {
		judge_note(&j, STATUS_PASS, "one Longhorn VolumeSnapshotClass: %s (type %s)",
			   w.v[0].name, vsc_type_desc(&w.v[0]));
	} else {
		judge_note(
		    &j, STATUS_PASS,
		    "%zu Longhorn VolumeSnapshotClasses, all of type %s: whichever is picked "
		    "behaves the same",
		    w.n, vsc_type_desc(&w.v[0]));
	}
	vsc_view_free(&w);
	judge_decide(&j, f, "");
}

/* ---- api.vsc.backup-target ---- */

/* A BackupTarget's availability: `default` (Longhorn ≥ 1.8, and since 1.2 the
 * mirror of the setting) or another one that volumes name. */
static void backup_target_judge(struct finding *f, struct judge *j, const struct jv *bt,
				const char *name, const char *users)
{
	const struct jv *avail = JQ(bt, "status", "available");
	const struct jv *cond = jq_condition(JQ(bt, "status", "conditions"), "Unavailable");
	/* A backup target URL may carry credentials ("cifs://user:pass@host/share", an s3
	 * URL's query); Longhorn's condition message may quote it (common/redact.h). */
	_cleanup_free_ char *url = redact_url(JQS(bt, "spec", "backupTargetURL"));
	const char *cstatus = JQS(cond, "status");
	_cleanup_free_ char *cmsg = redact_text(JQS(cond, "message"));
	const char *creason = JQS(cond, "reason");
	bool is_default = streq(name, "default");
	bool available;
	bool have_avail = avail && jv_is(avail, JV_BOOL);
	available = have_avail && jv_bool(avail);
	storage_ev_str(&f->evidence, "backup_target_url", url);
	if (have_avail)
		kv_add_bool(&f->evidence, "available", available);
	else
		storage_ev_str(&f->evidence, "available", NULL);
	if (cond)
		kv_add_strf(&f->evidence, "unavailable_condition", "%s: %s",
			    cstatus ? cstatus : "?",
			    cmsg && *cmsg ? cmsg : (creason ? creason : ""));
	/* An empty spec.backupTargetURL (absent is Go's "" too) means no target,
	 * whatever status.available says: longhorn-manager can leave a stale
	 * available=true after the URL is reset to "" (longhorn/longhorn#13195). */
	bool no_url = !url || !*url;
	const char *why = cmsg && *cmsg ? cmsg : (no_url ? "spec.backupTargetURL is empty" : NULL);
	if (no_url || streq(cstatus, "True") || (have_avail && !available)) {
		judge_note(j, STATUS_FAIL,
			   "backup target %s is not available (%s): snapshots with %s fail "
			   "and their deletion hangs on the finalizer",
			   name, why ? why : "status.available is false", users);
		if (is_default)
			judge_remedy(
			    j,
			    "configure a reachable backup target (Harvester UI Settings → "
			    "backup-target, NFS or S3) and check kubectl -n longhorn-system get "
			    "backuptargets.longhorn.io default -o "
			    "jsonpath='{.status.available}'; or, without backups, switch to "
			    "in-cluster snapshots: kubectl patch %s %s --type=merge -p "
			    "'{\"parameters\":{\"type\":\"snap\"}}' (restores then depend on the "
			    "source volume: docs/checks/api.vsc.snap-restore-risk.md)",
			    VSC_RESOURCE, users);
		else
			judge_remedy(
			    j,
			    "make backup target %s reachable (Longhorn UI Setting → Backup "
			    "Target: its URL and credential secret) and check kubectl -n "
			    "longhorn-system get backuptargets.longhorn.io %s -o "
			    "jsonpath='{.status.available}'; or move its volumes to a reachable "
			    "target: kubectl -n longhorn-system patch volumes.longhorn.io VOLUME "
			    "--type=merge -p '{\"spec\":{\"backupTargetName\":\"default\"}}'",
			    name, name);
	} else if (have_avail && available) {
		judge_note(j, STATUS_PASS, "backup target %s is available (%s)", name,
			   url ? url : STORAGE_ABSENT);
	} else {
		judge_note(j, STATUS_UNKNOWN,
			   "BackupTarget %s reports no availability yet (status.available "
			   "absent)",
			   name);
		judge_remedy(j,
			     "kubectl -n longhorn-system get backuptargets.longhorn.io %s -o "
			     "yaml",
			     name);
	}
}

/* A backup target other than `default` and who names it. Since Longhorn 1.8 a
 * volume's backups go to the target its spec.backupTargetName names (the Backup
 * takes it from the volume), and a StorageClass's parameters.backupTargetName
 * sets it on the volumes it provisions. */
struct bt_user {
	const char *name;
	size_t n_volumes, n_classes;
	char *volumes, *classes; /* the first few names, "a, b" */
};

#define BT_USER_NAMES 5

static struct bt_user *bt_user_of(struct bt_user **users, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (streq((*users)[i].name, name))
			return &(*users)[i];
	*users = xrealloc(*users, (*n + 1) * sizeof(**users));
	(*users)[*n] = (struct bt_user){.name = name};
	return &(*users)[(*n)++];
}

static void bt_user_add(char **list, size_t *count, const char *name)
{
	if (*count < BT_USER_NAMES)
		storage_appendf(list, "%s%s", *count ? ", " : "", name ? name : "?");
	else if (*count == BT_USER_NAMES)
		storage_appendf(list, ", …");
	(*count)++;
}

static int bt_user_cmp(const void *a, const void *b)
{
	return strcmp(((const struct bt_user *)a)->name, ((const struct bt_user *)b)->name);
}

/* The targets other than `default` that live volumes and Longhorn StorageClasses
 * name, sorted by name. */
static size_t backup_target_users(const struct cluster_state *cs, struct bt_user **ret)
{
	struct bt_user *u = NULL;
	size_t n = 0;
	const struct jv *vols = cs_items(cs, RES_LH_VOLUMES);
	for (size_t i = 0; i < jq_len(vols); i++) {
		const struct jv *v = jq_at(vols, i);
		const char *t = JQS(v, "spec", "backupTargetName");
		if (!t || !*t || streq(t, "default") || storage_deleting(v))
			continue;
		struct bt_user *e = bt_user_of(&u, &n, t);
		bt_user_add(&e->volumes, &e->n_volumes, jq_name(v));
	}
	const struct jv *scs = cs_items(cs, RES_STORAGECLASSES);
	for (size_t i = 0; i < jq_len(scs); i++) {
		const struct jv *c = jq_at(scs, i);
		const char *t = JQS(c, "parameters", "backupTargetName");
		if (!streq(JQS(c, "provisioner"), LONGHORN_DRIVER) || !t || !*t ||
		    streq(t, "default"))
			continue;
		struct bt_user *e = bt_user_of(&u, &n, t);
		bt_user_add(&e->classes, &e->n_classes, jq_name(c));
	}
	if (n)
		qsort(u, n, sizeof(*u), bt_user_cmp);
	*ret = u;
	return n;
}

/* One finding per other target in use: its volumes' backups fail with it. */
static void backup_targets_in_use(struct agg_ctx *ctx, const char *id, const char *classes)
{
	const struct cluster_state *cs = ctx->cs;
	struct bt_user *u;
	size_t n = backup_target_users(cs, &u);
	for (size_t i = 0; i < n; i++) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		finding_set_object(f, "BackupTarget/longhorn-system/%s", u[i].name);
		kv_add_str(&f->evidence, "path",
			   "BackupTarget named by volumes' spec.backupTargetName or Longhorn "
			   "StorageClasses' parameters.backupTargetName (Longhorn >= 1.8)");
		if (u[i].n_volumes) {
			kv_add_int(&f->evidence, "volumes_naming_it", (int64_t)u[i].n_volumes);
			kv_add_str(&f->evidence, "volumes", u[i].volumes);
		}
		if (u[i].n_classes)
			kv_add_str(&f->evidence, "storage_classes", u[i].classes);
		_cleanup_free_ char *users = NULL;
		if (u[i].n_volumes)
			storage_appendf(&users, "%zu volume%s (%s)", u[i].n_volumes,
					u[i].n_volumes == 1 ? "" : "s", u[i].volumes);
		if (u[i].n_classes)
			storage_appendf(&users, "%sStorageClass%s %s", users ? " and " : "",
					u[i].n_classes == 1 ? "" : "es", u[i].classes);
		const struct jv *bt = cs_find(cs, RES_LH_BACKUPTARGETS, NULL, u[i].name);
		if (!bt) {
			judge_note(&j, STATUS_FAIL,
				   "BackupTarget %s does not exist, but %s name it: their backups "
				   "(snapshots with %s) fail",
				   u[i].name, users, classes);
			judge_remedy(
			    &j,
			    "create backup target %s (Longhorn UI Setting → Backup Target), or "
			    "point the volumes at an existing one: kubectl -n longhorn-system "
			    "patch volumes.longhorn.io VOLUME --type=merge -p "
			    "'{\"spec\":{\"backupTargetName\":\"default\"}}' (and the "
			    "StorageClass's parameters.backupTargetName for new volumes: "
			    "StorageClass parameters are immutable, recreate it)",
			    u[i].name);
		} else {
			_cleanup_free_ char *what = NULL;
			storage_appendf(&what, "%s of %s", classes, users);
			backup_target_judge(f, &j, bt, u[i].name, what);
		}
		free(u[i].volumes);
		free(u[i].classes);
		judge_decide(&j, f, "");
	}
	free(u);
}

/* Longhorn < 1.8: the backup-target setting (no availability is reported there). */
static void backup_setting_judge(struct agg_ctx *ctx, struct finding *f, struct judge *j,
				 const char *classes)
{
	const struct jv *s = longhorn_setting(ctx->cs, "backup-target");
	_cleanup_free_ char *value = redact_url(JQS(s, "value"));
	kv_add_str(&f->evidence, "path", "Longhorn setting backup-target");
	storage_ev_str(&f->evidence, "backup_target", s ? value : NULL);
	if (!s || !value || !*value) {
		judge_note(j, STATUS_FAIL,
			   "no backup target configured (%s): snapshots with %s fail with "
			   "\"backup target default is not available\"",
			   s ? "setting backup-target is empty"
			     : "no BackupTarget default and no backup-target setting",
			   classes);
		judge_remedy(j, "configure a backup target (Harvester UI Settings → backup-target, "
				"NFS or S3), then check kubectl get settings.longhorn.io -n "
				"longhorn-system backup-target -o jsonpath='{.value}'");
		return;
	}
	judge_note(j, STATUS_UNKNOWN,
		   "backup-target is set to %s, but no BackupTarget object reports whether it "
		   "is reachable",
		   value);
	judge_remedy(j, "test a backup from the Longhorn UI, or upgrade Longhorn");
}

/* Harvester's backup-target setting, when collected: a JSON value such as
 * {"type":"nfs","endpoint":"nfs://…"} (harvester pkg/settings/settings.go,
 * BackupTarget; type "" means none) that Harvester's setting controller copies
 * into Longhorn's BackupTarget default. Shown beside Longhorn's view so that a
 * mismatch (one set, the other empty) is visible; Longhorn's object decides,
 * as its controller is what takes the backups. */
static void harvester_backup_target_evidence(struct agg_ctx *ctx, struct finding *f)
{
	const struct jv *s = cs_find(ctx->cs, RES_HV_SETTINGS, NULL, "backup-target");
	if (!s)
		return;
	const char *value = JQS(s, "value");
	if (!value || !*value) {
		kv_add_str(&f->evidence, "harvester_backup_target", "(empty: none configured)");
		return;
	}
	_cleanup_(jv_arena_freep) struct jv_arena *ar = jv_arena_new();
	const struct jv *o = jv_parse(ar, value);
	const char *type = JQS(o, "type"), *endpoint = JQS(o, "endpoint");
	if (!o || !jv_is(o, JV_OBJECT)) {
		kv_add_str(&f->evidence, "harvester_backup_target", "(not a JSON object)");
		return;
	}
	kv_add_strf(&f->evidence, "harvester_backup_target", "type %s, endpoint %s",
		    type && *type ? type : "(empty)", endpoint && *endpoint ? endpoint : "(empty)");
}

void check_vsc_backup_target(struct agg_ctx *ctx, const char *id)
{
	if (!vsc_applies(ctx, id))
		return;
	struct vsc *v;
	size_t n = vsc_longhorn_classes(ctx->cs, &v), n_bak = 0;
	_cleanup_free_ char *classes = NULL;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	struct value_list *bl = kv_add_list(&f->evidence, "backup_classes");
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].type, "bak")) {
			vlist_add_strf(bl, "%s (parameters.type %s)", v[i].name,
				       v[i].raw ? v[i].raw : STORAGE_ABSENT);
			storage_appendf(&classes, "%s%s", n_bak ? " " : "", v[i].name);
			n_bak++;
		}
	free(v);
	if (n_bak == 0) {
		judge_note(&j, STATUS_SKIP,
			   "no Longhorn VolumeSnapshotClass of type bak (or without a type): no "
			   "backup target is needed for CSI snapshots");
		goto out;
	}
	const struct cluster_state *cs = ctx->cs;
	if (cs->res[RES_LH_SETTINGS].status == RES_NOT_INSTALLED &&
	    cs->res[RES_LH_BACKUPTARGETS].status == RES_NOT_INSTALLED) {
		judge_note(
		    &j, STATUS_FAIL,
		    "Longhorn is not installed (settings and backuptargets.longhorn.io are not "
		    "served): the backup classes cannot take backups");
		judge_remedy(&j,
			     "install Longhorn (Harvester ships it) and configure a backup target");
		goto out;
	}
	struct longhorn_version ver;
	bool have_ver = longhorn_version_get(cs, &ver);
	if (have_ver)
		kv_add_strf(&f->evidence, "longhorn_version",
			    "%d.%d.%d (setting "
			    "current-longhorn-version)",
			    ver.major, ver.minor, ver.patch);
	else
		kv_add_str(&f->evidence, "longhorn_version",
			   "unknown (no current-longhorn-version)");
	versions_note(&f->evidence, cs, VC_LONGHORN);
	harvester_backup_target_evidence(ctx, f);
	const struct jv *bt = cs_find(cs, RES_LH_BACKUPTARGETS, NULL, "default");
	const struct jv *bts = longhorn_setting(cs, "backup-target");
	bool old_lh = have_ver && !longhorn_version_at_least(&ver, 1, 8);
	if (bt && old_lh && bts) {
		/* Longhorn < 1.8: the setting is the source and BackupTarget default
		 * its copy (longhorn-manager v1.6.4/v1.7.3 controller/setting_controller.go
		 * syncBackupTarget sets spec.backupTargetURL from the setting). A copy
		 * not yet synced still shows the old target's availability. */
		_cleanup_free_ char *sv = redact_url(JQS(bts, "value"));
		_cleanup_free_ char *cv = redact_url(JQS(bt, "spec", "backupTargetURL"));
		if (!sv || !*sv) {
			backup_setting_judge(ctx, f, &j, classes);
			goto others;
		}
		kv_add_str(&f->evidence, "path",
			   "Longhorn setting backup-target (Longhorn < 1.8), copied to "
			   "BackupTarget default: status.available and condition Unavailable");
		storage_ev_str(&f->evidence, "backup_target", sv);
		if (!streq(sv, cv ? cv : "")) {
			storage_ev_str(&f->evidence, "backup_target_url", cv);
			judge_note(&j, STATUS_UNKNOWN,
				   "setting backup-target is %s but BackupTarget default still has "
				   "%s: longhorn-manager has not copied the setting yet, so its "
				   "availability is the old target's",
				   sv, cv && *cv ? cv : "no URL");
			judge_remedy(&j,
				     "wait for the copy, then check kubectl -n longhorn-system get "
				     "backuptargets.longhorn.io default -o "
				     "jsonpath='{.spec.backupTargetURL} {.status.available}'");
		} else {
			backup_target_judge(f, &j, bt, "default", classes);
		}
	} else if (bt) {
		kv_add_str(&f->evidence, "path",
			   "BackupTarget default: status.available and condition Unavailable");
		backup_target_judge(f, &j, bt, "default", classes);
	} else if (have_ver && longhorn_version_at_least(&ver, 1, 8)) {
		kv_add_str(&f->evidence, "path", "BackupTarget default (Longhorn >= 1.8)");
		judge_note(&j, STATUS_FAIL,
			   "Longhorn %d.%d keeps its backup target in BackupTarget default, which "
			   "does not exist: snapshots with %s cannot take backups",
			   ver.major, ver.minor, classes);
		judge_remedy(&j,
			     "configure a backup target (Harvester UI Settings → backup-target); "
			     "longhorn-manager then creates BackupTarget default");
	} else {
		backup_setting_judge(ctx, f, &j, classes);
	}
others:; /* a label names a statement: the declaration below is not one before C23 */
	/* The targets other than default that volumes name (the targets
	 * themselves are a need of the check: listed when it runs). Without the
	 * volumes or StorageClasses that is not known: said beside the default's
	 * verdict. */
	static const enum resource_id users_from[] = {RES_LH_VOLUMES, RES_STORAGECLASSES};
	for (size_t i = 0; i < ELEMENTSOF(users_from); i++) {
		enum resource_status rs = cs->res[users_from[i]].status;
		if (rs == RES_COLLECTED || rs == RES_NOT_INSTALLED)
			continue;
		_cleanup_free_ char *res = resource_display_name(&resource_defs[users_from[i]]);
		kv_add_strf(&f->evidence, "other_targets_not_judged", "%s %s", res,
			    resource_status_name(rs));
		break;
	}
	backup_targets_in_use(ctx, id, classes);
out:
	judge_decide(&j, f, "");
}

/* ---- api.vsc.snap-restore-risk ---- */

/* The first class of type snap (or of a type Longhorn rejects) a StorageClass's VM
 * disks get, or NULL. */
static const struct sc_pick *first_risky(const struct vsc_view *w, bool invalid)
{
	for (size_t i = 0; i < w->np; i++) {
		const struct sc_pick *p = &w->p[i];
		if (p->result == PICK_OK && (invalid ? !p->vsc->type : streq(p->vsc->type, "snap")))
			return p;
	}
	return NULL;
}

static void snap_risk_warn(struct judge *j, const struct vsc_view *w, const struct sc_pick *p)
{
	_cleanup_free_ char *sum = picks_summary(w, true);
	const struct vsc *bak = NULL;
	for (size_t i = 0; i < w->n && !bak; i++)
		if (streq(w->v[i].type, "bak"))
			bak = &w->v[i];
	judge_note(j, STATUS_WARN,
		   "VM snapshots of %s: restoring a type snap snapshot clones from the source "
		   "volume, which the restore itself deletes — the restored disk may never "
		   "converge (docs/checks/api.vsc.snap-restore-risk.md)",
		   sum);
	if (bak)
		judge_remedy(
		    j,
		    "for restorable VM snapshots use backups: point the StorageProfile at a "
		    "type bak class, kubectl patch %s %s --type=merge -p "
		    "'{\"spec\":{\"snapshotClass\":\"%s\"}}', or change the class: kubectl "
		    "patch %s %s --type=merge -p '{\"parameters\":{\"type\":\"bak\"}}'; "
		    "configure a backup target (api.vsc.backup-target); keep type snap only for "
		    "short-lived rollback points whose source VM stays",
		    SP_RESOURCE, p->sc, bak->name, VSC_RESOURCE, p->name);
	else
		judge_remedy(j,
			     "for restorable VM snapshots use backups: kubectl patch %s %s "
			     "--type=merge -p '{\"parameters\":{\"type\":\"bak\"}}' and configure "
			     "a backup target (api.vsc.backup-target); keep type snap only for "
			     "short-lived rollback points whose source VM stays",
			     VSC_RESOURCE, p->name);
}

void check_vsc_snap_restore_risk(struct agg_ctx *ctx, const char *id)
{
	struct vsc_view w;
	struct finding *f = vsc_view_finding(ctx, id, &w);
	if (!f)
		return;
	struct judge j = {0};
	const struct sc_pick *snap = first_risky(&w, false), *bad = first_risky(&w, true);
	if (w.np == 0) {
		judge_note(&j, STATUS_SKIP,
			   "no StorageClass of provisioner driver.longhorn.io: no VM disk is a "
			   "Longhorn volume");
	} else if (w.n_ok == 0) {
		judge_note(&j, STATUS_SKIP,
			   "no Longhorn StorageClass gets a usable VolumeSnapshotClass for VM "
			   "snapshots (%s)",
			   w.n_broken ? "api.vsc.ambiguous says why"
				      : "no VolumeSnapshotClass for driver.longhorn.io");
	} else if (snap) {
		snap_risk_warn(&j, &w, snap);
	} else if (bad) {
		judge_note(&j, STATUS_WARN,
			   "VM snapshots of disks on %s use VolumeSnapshotClass %s whose "
			   "parameters.type %s Longhorn rejects: every VM snapshot of them fails",
			   bad->sc, bad->name, bad->vsc->raw ? bad->vsc->raw : "(not a string)");
		judge_remedy(&j,
			     "kubectl patch %s %s --type=merge -p "
			     "'{\"parameters\":{\"type\":\"bak\"}}'",
			     VSC_RESOURCE, bad->name);
	} else {
		_cleanup_free_ char *sum = picks_summary(&w, false);
		judge_note(&j, STATUS_PASS,
			   "VM snapshots of %s: restores do not depend on the source volume%s", sum,
			   w.n_broken ? " (other Longhorn StorageClasses: api.vsc.ambiguous)" : "");
	}
	vsc_view_free(&w);
	judge_decide(&j, f, "");
}
