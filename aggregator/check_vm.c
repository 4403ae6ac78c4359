/*
 * Virtual machines: can every running VMI live-migrate now (and every reason
 * why not, for the per-VM table of the live-migration verdict), and VMs still
 * on the deprecated spec.running (docs/checks/api.vm.live-migratable.md,
 * api.vm.run-strategy.md).
 */
#include "checks_api.h"

#include <stdio.h>
#include <string.h>

#include "cluster_versions.h"
#include "kubevirt_gates.h"
#include "kubevirt_util.h"
#include "semver.h"
#include "longhorn.h"
#include "longhorn_engine.h"
#include "storage.h"
#include "vm_migration.h"

#define LONGHORN_DRIVER "driver.longhorn.io"

/* ---- api.vm.live-migratable ----------------------------------------------- */

struct lm_targets;

/* The reasons found for one VMI; level is the worst status they imply. */
struct lm_eval {
	enum status level;
	struct strv reasons;
	struct strv remedies;
	struct value_list *volumes; /* evidence, owned by the finding */
	const char *node;	    /* where the VMI runs */
	const struct lm_targets *targets;
	size_t v2_volumes; /* Longhorn v2 data engine volumes judged */
};

static void lm_reason(struct lm_eval *e, enum status level, const char *remedy, const char *fmt,
		      ...) _printf_(4, 5);
static void lm_reason(struct lm_eval *e, enum status level, const char *remedy, const char *fmt,
		      ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *r = xvasprintf(fmt, ap);
	va_end(ap);
	e->level = status_worst(e->level, level);
	strv_add(&e->reasons, r);
	if (remedy && !strv_contains(&e->remedies, remedy))
		strv_add(&e->remedies, remedy);
}

static bool modes_have(const struct jv *modes, const char *m)
{
	for (size_t i = 0; i < jq_len(modes); i++)
		if (streq(jv_str(jq_at(modes, i)), m))
			return true;
	return false;
}

static char *modes_str(const struct jv *modes)
{
	char *s = xstrdup("");
	for (size_t i = 0; i < jq_len(modes); i++) {
		const struct jv *m = jq_at(modes, i);
		if (!jv_is(m, JV_STRING))
			continue;
		char *n = xasprintf("%s%s%s", s, *s ? "," : "", jv_str(m));
		free(s);
		s = n;
	}
	return s;
}

/* The VMI's own view of a PVC (status.volumeStatus[].persistentVolumeClaimInfo). */
static const struct jv *vmi_claim_info(const struct jv *vmi, const char *claim)
{
	const struct jv *vs = JQ(vmi, "status", "volumeStatus");
	for (size_t i = 0; i < jq_len(vs); i++) {
		const struct jv *info = JQ(jq_at(vs, i), "persistentVolumeClaimInfo");
		if (streq(JQS(info, "claimName"), claim))
			return info;
	}
	return NULL;
}

static const char *const REM_RWO =
    "live migration needs every disk ReadWriteMany: recreate the disk as RWX volumeMode Block "
    "on a migratable Longhorn class (harvester-longhorn), e.g. export the volume to a "
    "VirtualMachineImage and create a new disk from it; until then move the VM by cold "
    "migration (kubectl patch vm -n NS VM --type=merge -p '{\"spec\":{\"runStrategy\":"
    "\"Halted\"}}', then start it on the target node with runStrategy Always)";
static const char *const REM_CLASS =
    "VM disks that live-migrate are RWX Block on a Longhorn class with parameters.migratable: "
    "\"true\" (harvester-longhorn); see api.pvc.rwx-class-mismatch";
static const char *const REM_HEALTH =
    "let Longhorn rebuild the replicas first (kubectl -n longhorn-system get "
    "volumes.longhorn.io VOL -o jsonpath='{.status.robustness}' → healthy); see "
    "api.longhorn.volume-health";

/* Where a migration target pod can go: Ready, not cordoned, and not labelled
 * kubevirt.io/schedulable=false by virt-controller when virt-handler's heartbeat
 * stops (the target pod's nodeSelector asks for "true"). Only when Nodes were
 * collected. */
struct lm_targets {
	bool known;
	struct strv ok;	 /* node names */
	struct strv out; /* "node: why not" */
};

static const char *const REM_V2 =
    "a Longhorn v2 (SPDK) volume migrates only to a node that runs the v2 data engine: Longhorn "
    "setting v2-data-engine \"true\" and no label node.longhorn.io/disable-v2-data-engine=true "
    "on the target (remove it: kubectl label node NODE node.longhorn.io/disable-v2-data-engine-); "
    "until then move the VM by cold migration (runStrategy Halted, then Always)";
static const char *const REM_V2_VERSION =
    "Longhorn live-migrates v2 volumes from 1.8 (longhorn/longhorn#6361): upgrade Longhorn, or "
    "move the VM by cold migration (runStrategy Halted, then Always)";

/* A v2 data engine volume (docs/support-matrix-longhorn.md): live migration of
 * v2 volumes exists from Longhorn 1.8.0 (longhorn/longhorn-manager 84c5a7990,
 * longhorn/longhorn#6361); the migration engine starts in the target node's v2
 * instance manager, which runs only where setting v2-data-engine is true and
 * the Node lacks node.longhorn.io/disable-v2-data-engine=true
 * (controller/node_controller.go, v1.6.0–v1.11.3). The replicas stay where they
 * are (v2 migration reuses them: volume_controller.go createAndStartMatchingReplicas),
 * so the target needs no block disk of its own. */
static void lm_v2(struct agg_ctx *ctx, struct lm_eval *e, const char *handle, const char *claim)
{
	const struct lm_targets *t = e->targets;
	struct longhorn_version v;
	e->v2_volumes++;
	if (!longhorn_engine_version(ctx->cs, &v)) {
		lm_reason(e, STATUS_UNKNOWN, REM_V2_VERSION,
			  "PVC %s is Longhorn v2 data engine volume %s and the Longhorn version is "
			  "not known: v2 volumes live-migrate from Longhorn 1.8 only",
			  claim, handle);
		return;
	}
	if (!longhorn_version_at_least(&v, 1, 8)) {
		lm_reason(e, STATUS_FAIL, REM_V2_VERSION,
			  "PVC %s is Longhorn v2 data engine volume %s: Longhorn %d.%d.%d does not "
			  "live-migrate v2 volumes (from 1.8 on)",
			  claim, handle, v.major, v.minor, v.patch);
		return;
	}
	const char *raw;
	int on = longhorn_engine_enabled(ctx->cs, LONGHORN_V2, &raw);
	if (on < 0) {
		lm_reason(e, STATUS_UNKNOWN, NULL,
			  "PVC %s is Longhorn v2 data engine volume %s, and whether any node runs "
			  "the v2 engine is not known: the Longhorn settings were not collected",
			  claim, handle);
		return;
	}
	if (!on) {
		lm_reason(e, STATUS_FAIL, REM_V2,
			  "PVC %s is Longhorn v2 data engine volume %s but Longhorn setting "
			  "v2-data-engine is %s: no node runs the v2 engine, so no target can "
			  "attach it",
			  claim, handle, raw ? raw : "absent (default false)");
		return;
	}
	if (!t || !t->known) {
		lm_reason(e, STATUS_UNKNOWN, NULL,
			  "PVC %s is Longhorn v2 data engine volume %s, and which nodes run the v2 "
			  "engine is not known: the Nodes (their label %s) were not collected",
			  claim, handle, LONGHORN_V2_DISABLE_LABEL);
		return;
	}
	_cleanup_(strv_clear) struct strv ok = {0};
	_cleanup_(strv_clear) struct strv out = {0};
	size_t others = 0;
	for (size_t i = 0; i < t->ok.n; i++) {
		const char *n = t->ok.items[i];
		if (streq(n, e->node))
			continue;
		others++;
		int r = longhorn_node_v2_disabled(ctx->cs, n);
		if (r > 0) {
			_cleanup_free_ char *line =
			    xasprintf("%s: label %s=true (no v2 instance manager)", n,
				      LONGHORN_V2_DISABLE_LABEL);
			strv_add(&out, line);
		} else {
			strv_add(&ok, n);
		}
	}
	if (others == 0)
		return; /* lm_target said it: no other node at all */
	if (ok.n == 0) {
		for (size_t i = 0; i < t->out.n; i++)
			strv_add(&out, t->out.items[i]);
		_cleanup_free_ char *why = strv_join(&out, "; ");
		lm_reason(e, STATUS_FAIL, REM_V2,
			  "PVC %s is Longhorn v2 data engine volume %s and no other node runs the "
			  "v2 engine (%s)",
			  claim, handle, why);
		return;
	}
	_cleanup_free_ char *oks = strv_join(&ok, ", ");
	vlist_add_strf(e->volumes, "%s: Longhorn v2 data engine volume %s, v2 engine targets: %s",
		       claim, handle, oks);
}

/* Judge one PVC-backed volume of a VMI. */
/* A degraded volume: longhorn-manager's processMigration goes on for a healthy
 * or degraded volume (skips only other robustness), and
 * prepareReplicasAndEngineForMigration starts the migration with the RW
 * replicas unless one is being rebuilt, when it reverts instead
 * (controller/volume_controller.go, v1.6.0–v1.11.3). So: rebuilding → cannot
 * migrate until the rebuild ends (WARN: it passes); not rebuilding → it can
 * (api.longhorn.volume-health warns about the redundancy); not known → UNKNOWN. */
static void lm_degraded(struct agg_ctx *ctx, struct lm_eval *e, const struct jv *lhv,
			const char *handle, const char *claim)
{
	const char *replica = NULL;
	int r = longhorn_volume_rebuilding(ctx->cs, lhv, &replica);
	if (r > 0)
		lm_reason(e, STATUS_WARN, REM_HEALTH,
			  "Longhorn volume %s of PVC %s is degraded and rebuilding replica %s: "
			  "Longhorn reverts a live migration until the rebuild finishes",
			  handle, claim, replica);
	else if (r < 0)
		lm_reason(e, STATUS_UNKNOWN, REM_HEALTH,
			  "Longhorn volume %s of PVC %s is degraded, and whether a replica is "
			  "being rebuilt (Longhorn then reverts a migration) is not known: its "
			  "Engine's replica modes were not collected",
			  handle, claim);
	else
		vlist_add_strf(e->volumes,
			       "%s: Longhorn volume %s degraded, no rebuild in progress: a live "
			       "migration starts with its RW replicas (see "
			       "api.longhorn.volume-health)",
			       claim, handle);
}

static void lm_claim(struct agg_ctx *ctx, struct lm_eval *e, const struct jv *vmi, const char *ns,
		     const char *claim)
{
	const struct jv *pvc = cs_find(ctx->cs, RES_PVCS, ns, claim);
	const struct jv *info = vmi_claim_info(vmi, claim);
	const struct jv *modes = JQ(pvc, "spec", "accessModes");
	if (jq_len(modes) == 0)
		modes = JQ(info, "accessModes");
	const char *vmode = pvc ? JQS(pvc, "spec", "volumeMode") : NULL;
	if (!vmode)
		vmode = JQS(info, "volumeMode");
	if (!vmode && (pvc || info))
		vmode = "Filesystem"; /* the API default */
	const char *scname = JQS(pvc, "spec", "storageClassName");
	const struct jv *sc = scname ? cs_find(ctx->cs, RES_STORAGECLASSES, NULL, scname) : NULL;
	bool longhorn = streq(JQS(sc, "provisioner"), LONGHORN_DRIVER);
	bool migratable = false;
	storage_go_bool(JQ(sc, "parameters", "migratable"), &migratable);

	/* The Longhorn volume behind the PVC: PV spec.csi.volumeHandle. */
	const char *pvname = JQS(pvc, "spec", "volumeName");
	const struct jv *pv = pvname ? cs_find(ctx->cs, RES_PVS, NULL, pvname) : NULL;
	const char *handle = streq(JQS(pv, "spec", "csi", "driver"), LONGHORN_DRIVER)
				 ? JQS(pv, "spec", "csi", "volumeHandle")
				 : NULL;
	const struct jv *lhv = handle ? cs_find(ctx->cs, RES_LH_VOLUMES, NULL, handle) : NULL;
	const char *robust = JQS(lhv, "status", "robustness");

	_cleanup_free_ char *ms = modes_str(modes);
	vlist_add_strf(e->volumes, "%s: %s %s class=%s%s%s%s%s", claim, *ms ? ms : "?",
		       vmode ? vmode : "?", scname ? scname : "?",
		       longhorn ? (migratable ? " (migratable)" : " (not migratable)") : "",
		       handle ? " longhorn=" : "", handle ? handle : "",
		       robust ? (streq(robust, "healthy")    ? " healthy"
				 : streq(robust, "degraded") ? " DEGRADED"
				 : streq(robust, "faulted")  ? " FAULTED"
							     : " unknown-robustness")
			      : "");

	if (jq_len(modes) == 0) {
		lm_reason(
		    e, STATUS_UNKNOWN, NULL,
		    "PVC %s: neither the PVC nor the VMI's volumeStatus gives its access modes",
		    claim);
		return;
	}
	if (!modes_have(modes, "ReadWriteMany")) {
		lm_reason(e, STATUS_FAIL, REM_RWO,
			  "PVC %s is %s (not ReadWriteMany): KubeVirt refuses to migrate a VMI "
			  "with a non-shared disk",
			  claim, ms);
	} else if (longhorn && streq(vmode, "Block") && !migratable) {
		lm_reason(e, STATUS_FAIL, REM_CLASS,
			  "PVC %s is RWX Block on Longhorn class %s without migratable: \"true\": "
			  "Longhorn attaches it to one node only",
			  claim, scname);
	} else if (longhorn && streq(vmode, "Filesystem") && migratable) {
		lm_reason(e, STATUS_FAIL, REM_CLASS,
			  "PVC %s is RWX Filesystem on migratable Longhorn class %s: such volumes "
			  "never get an NFS share-manager",
			  claim, scname);
	} else if (longhorn && streq(vmode, "Filesystem")) {
		_cleanup_free_ char *note =
		    xasprintf("%s: RWX Filesystem (Longhorn NFS share): migration depends on its "
			      "share-manager, see api.longhorn.rwx-share",
			      claim);
		vlist_add_str(e->volumes, note);
	}
	if (lhv && longhorn_volume_engine(lhv) == LONGHORN_V2)
		lm_v2(ctx, e, handle, claim);
	if (streq(robust, "faulted"))
		lm_reason(e, STATUS_FAIL, REM_HEALTH,
			  "Longhorn volume %s of PVC %s is faulted: no healthy replica", handle,
			  claim);
	else if (streq(robust, "degraded"))
		lm_degraded(ctx, e, lhv, handle, claim);
}

static void lm_volumes(struct agg_ctx *ctx, struct lm_eval *e, const struct jv *vmi, const char *ns)
{
	const struct jv *vols = JQ(vmi, "spec", "volumes");
	for (size_t i = 0; i < jq_len(vols); i++) {
		const struct jv *v = jq_at(vols, i);
		const char *claim = JQS(v, "persistentVolumeClaim", "claimName");
		if (!claim)
			claim = JQS(v, "dataVolume", "name"); /* a DataVolume's PVC has its name */
		if (claim)
			lm_claim(ctx, e, vmi, ns, claim);
		else if (JQ(v, "hostDisk"))
			lm_reason(e, STATUS_FAIL, NULL,
				  "volume %s is a hostDisk: it lives on one node",
				  JQS(v, "name") ? JQS(v, "name") : "?");
	}
}

static char *cond_text(const struct jv *c)
{
	const char *st = JQS(c, "status"), *reason = JQS(c, "reason"), *msg = JQS(c, "message");
	return xasprintf("%s%s%s%s%s", st ? st : "not reported", reason && *reason ? " " : "",
			 reason ? reason : "", msg && *msg ? ": " : "", msg ? msg : "");
}

/* StorageLiveMigratable (KubeVirt v1.4.0+, kubevirt/kubevirt
 * staging/src/kubevirt.io/api/core/v1/types.go; virt-handler's
 * calculateLiveStorageMigrationCondition, pkg/virt-handler/vm.go v1.4.0-v1.9.0)
 * lists every non-disk reason a VMI cannot migrate (interfaces, CPU model,
 * host devices, SEV, persistent reservation, TSC, Hyper-V passthrough) with
 * reason NotMigratable, where LiveMigratable names only the first reason it
 * met. Absent before v1.4: nothing is said. */
static void lm_storage_condition(struct lm_eval *e, struct kv_list *ev, const struct jv *vmi,
				 const struct jv *lm)
{
	const struct jv *c = jq_condition(JQ(vmi, "status", "conditions"), "StorageLiveMigratable");
	if (!c)
		return;
	_cleanup_free_ char *text = cond_text(c);
	kv_add_str(ev, "StorageLiveMigratable", text);
	if (!streq(JQS(c, "status"), "False"))
		return;
	/* The same single reason LiveMigratable already gave: said once. */
	const char *msg = JQS(c, "message");
	_cleanup_free_ char *lm_one =
	    xasprintf("%s: %s", JQS(lm, "reason") ? JQS(lm, "reason") : "",
		      JQS(lm, "message") ? JQS(lm, "message") : "");
	if (streq(JQS(lm, "status"), "False") && msg && streq(msg, lm_one))
		return;
	lm_reason(e, STATUS_FAIL, NULL, "StorageLiveMigratable=False %s%s%s",
		  JQS(c, "reason") ? JQS(c, "reason") : "(no reason)", msg && *msg ? ": " : "",
		  msg ? msg : "");
}

static void lm_condition(struct lm_eval *e, struct kv_list *ev, const struct jv *vmi)
{
	const struct jv *c = jq_condition(JQ(vmi, "status", "conditions"), "LiveMigratable");
	const char *st = JQS(c, "status"), *reason = JQS(c, "reason"), *msg = JQS(c, "message");
	_cleanup_free_ char *text = cond_text(c);
	kv_add_str(ev, "LiveMigratable", text);
	if (streq(st, "False"))
		lm_reason(e, STATUS_FAIL, streq(reason, "DisksNotLiveMigratable") ? REM_RWO : NULL,
			  "LiveMigratable=False %s%s%s", reason ? reason : "(no reason)",
			  msg && *msg ? ": " : "", msg ? msg : "");
	else if (!streq(st, "True"))
		lm_reason(e, STATUS_UNKNOWN, NULL,
			  "virt-handler has not reported the LiveMigratable condition (status %s)",
			  st ? st : "absent");
	lm_storage_condition(e, ev, vmi, c);
}

/* The last migration (vm_migration.c): a failed one is a WARN, not a FAIL
 * unless its reason is a host or device error that repeats (vm_migration_repeats) —
 * KubeVirt still reports the VMI migratable and the cause may have passed
 * (a target pod that did not fit, a timeout under load), but nothing shows it
 * can move now (docs/decisions.md). One aborted on request says nothing
 * about the VMI; one in progress is stated. Returns the running migration's
 * text (caller frees) for the summary. */
static char *lm_last_migration(struct agg_ctx *ctx, struct lm_eval *e, struct kv_list *ev,
			       const struct jv *vmi)
{
	struct vm_migration m;
	vm_migration_last(ctx->cs, vmi, &m);
	if (m.kind == VM_MIGRATION_NONE)
		return NULL;
	char *text = vm_migration_describe(&m);
	kv_add_str(ev, m.kind == VM_MIGRATION_RUNNING ? "migration_in_progress" : "last_migration",
		   text);
	if (m.kind == VM_MIGRATION_FAILED) {
		const char *ns = jq_namespace(vmi) ? jq_namespace(vmi) : "",
			   *name = jq_name(vmi) ? jq_name(vmi) : "?";
		_cleanup_free_ char *rem = xasprintf(
		    "see why the last migration failed: kubectl -n %s get vmim -l "
		    "kubevirt.io/vmi-name=%s -o yaml; kubectl -n %s get events "
		    "--field-selector involvedObject.name=%s; once the cause is fixed, prove it "
		    "with a new migration (virtctl migrate %s -n %s)",
		    ns, name, ns, name, name, ns);
		/* A host or device error meets the next attempt again: FAIL. */
		const char *repeats = vm_migration_repeats(&m);
		if (repeats)
			kv_add_strf(ev, "failure_repeats",
				    "the reason names \"%s\": a host or device error that the next "
				    "attempt meets again",
				    repeats);
		lm_reason(e, repeats ? STATUS_FAIL : STATUS_WARN, rem, "its last live migration %s",
			  text);
	}
	if (m.kind == VM_MIGRATION_RUNNING)
		return text;
	free(text);
	return NULL;
}

static const char *const REM_TARGET =
    "a live migration needs a second node that can run the VM: uncordon one (kubectl uncordon "
    "NODE), bring back virt-handler where a node is labelled kubevirt.io/schedulable=false "
    "(kubectl get pods -A -l kubevirt.io=virt-handler -o wide), or add a node";

static void lm_targets_find(const struct cluster_state *cs, struct lm_targets *t)
{
	const struct jv *nodes = cs_items(cs, RES_NODES);
	/* An empty Node list is not a cluster of none: it says nothing. */
	*t = (struct lm_targets){.known = jq_len(nodes) > 0};
	/* virt-handler labels every node it runs on: once some node carries the label,
	 * one without it (a Harvester witness node, a tainted server) cannot host VMs. */
	bool labelled = false;
	for (size_t i = 0; i < jq_len(nodes) && !labelled; i++)
		labelled = kubevirt_util_label(jq_at(nodes, i), "kubevirt.io/schedulable") != NULL;
	for (size_t i = 0; i < jq_len(nodes); i++) {
		const struct jv *n = jq_at(nodes, i);
		const char *name = jq_name(n);
		bool cordoned = false;
		jq_bool(JQ(n, "spec", "unschedulable"), &cordoned);
		const char *label = kubevirt_util_label(n, "kubevirt.io/schedulable");
		const char *why =
		    !jq_node_ready(n) ? "not Ready"
		    : cordoned	      ? "cordoned"
		    : streq(label, "false")
			? "kubevirt.io/schedulable=false (virt-handler not running there)"
		    : labelled && !label
			? "no kubevirt.io/schedulable label (virt-handler never ran there)"
			: NULL;
		if (!name)
			continue;
		if (!why) {
			strv_add(&t->ok, name);
			continue;
		}
		_cleanup_free_ char *line = xasprintf("%s: %s", name, why);
		strv_add(&t->out, line);
	}
}

/* No node but the VMI's own can take it: nothing to migrate to. */
static void lm_target(struct lm_eval *e, const struct lm_targets *t, const char *node)
{
	if (!t->known)
		return;
	for (size_t i = 0; i < t->ok.n; i++)
		if (!streq(t->ok.items[i], node))
			return;
	_cleanup_free_ char *why = strv_join(&t->out, "; ");
	lm_reason(e, STATUS_FAIL, REM_TARGET, "no other node can receive it (%s)",
		  *why ? why : "the cluster has one node");
}

/* What one VMI's evaluation leaves for the summary. */
struct lm_summary {
	size_t n_ok;
	struct strv migrating; /* "ns/name: running since …" */
	const char *unread;    /* why VMIMs were not read, or NULL */
	size_t n_v2;	       /* Longhorn v2 volumes seen */
};

static void lm_one(struct agg_ctx *ctx, const char *id, const struct jv *vmi,
		   const struct lm_targets *t, struct lm_summary *sum)
{
	const char *ns = jq_namespace(vmi) ? jq_namespace(vmi) : "", *name = jq_name(vmi);
	const char *node = JQS(vmi, "status", "nodeName");
	if (!node)
		node = kubevirt_util_label(vmi, "kubevirt.io/nodeName");
	struct lm_eval e = {.level = STATUS_PASS, .node = node, .targets = t};
	struct kv_list ev = {0};
	kv_add_str(&ev, "node", node ? node : "");
	if (JQS(vmi, "status", "migrationMethod"))
		kv_add_str(&ev, "migrationMethod", JQS(vmi, "status", "migrationMethod"));
	lm_condition(&e, &ev, vmi);
	lm_target(&e, t, node);
	_cleanup_free_ char *running = lm_last_migration(ctx, &e, &ev, vmi);
	if (running) {
		_cleanup_free_ char *line = xasprintf("%s/%s: %s", ns, name ? name : "?", running);
		strv_add(&sum->migrating, line);
	}
	if (sum->unread)
		kv_add_str(&ev, "migrations_not_read", sum->unread);
	e.volumes = kv_add_list(&ev, "volumes"); /* last: later kv_add_* would move it */
	lm_volumes(ctx, &e, vmi, ns);
	sum->n_v2 += e.v2_volumes;

	struct vm_row *row = vm_table_add(ctx->vms, ns, name ? name : "?", node);
	if (e.reasons.n == 0) {
		sum->n_ok++;
		kv_list_clear(&ev);
		return;
	}
	row->can_migrate = false;
	row->status = e.level;
	for (size_t i = 0; i < e.reasons.n; i++)
		strv_add(&row->reasons, e.reasons.items[i]);

	struct finding *f = agg_object_finding(ctx, id, vmi);
	struct judge j = {0};
	if (node)
		finding_set_node(f, node);
	kv_list_clear(&f->evidence);
	f->evidence = ev;
	struct value_list *rl = kv_add_list(&f->evidence, "reasons");
	for (size_t i = 0; i < e.reasons.n; i++)
		vlist_add_str(rl, e.reasons.items[i]);
	judge_note(&j, e.level, "%s/%s %s live-migrate: %s%s", ns, name ? name : "?",
		   e.level == STATUS_UNKNOWN ? "may not be able to"
		   : e.level == STATUS_WARN  ? "may not"
					     : "cannot",
		   e.reasons.items[0], e.reasons.n > 1 ? " (and more, see reasons)" : "");
	_cleanup_free_ char *rem = strv_join(&e.remedies, "; ");
	if (!*rem) {
		free(rem);
		rem = xasprintf("kubectl -n %s get vmi %s -o jsonpath='{range "
				".status.conditions[*]}{.type}={.status} {.reason}: "
				"{.message}{\"\\n\"}{end}'",
				ns, name ? name : "?");
	}
	judge_remedy(&j, "%s", rem);
	strv_clear(&e.reasons);
	strv_clear(&e.remedies);
	judge_decide(&j, f, "");
}

void check_vm_live_migratable(struct agg_ctx *ctx, const char *id)
{
	const struct jv *vmis = agg_items_or_skip(
	    ctx, id, RES_VMIS,
	    "KubeVirt is not installed (virtualmachineinstances.kubevirt.io is not served)", NULL);
	if (!vmis)
		return;
	size_t n_running = 0;
	_cleanup_free_ char *unread = vm_migration_unread(ctx->cs);
	struct lm_summary sum = {.unread = unread};
	struct lm_targets t;
	lm_targets_find(ctx->cs, &t);
	for (size_t i = 0; i < jq_len(vmis); i++) {
		const struct jv *vmi = jq_at(vmis, i);
		if (!streq(JQS(vmi, "status", "phase"), "Running"))
			continue;
		n_running++;
		lm_one(ctx, id, vmi, &t, &sum);
	}
	size_t n_targets = t.ok.n;
	bool targets_known = t.known;
	strv_clear(&t.ok);
	strv_clear(&t.out);
	if (n_running == 0) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		kv_add_int(&f->evidence, "virtualmachineinstances", (int64_t)jq_len(vmis));
		kv_add_int(&f->evidence, "virtualmachines", (int64_t)cs_count(ctx->cs, RES_VMS));
		judge_note(&j, STATUS_SKIP, "no running VMI: nothing to live-migrate");
		judge_decide(&j, f, "");
		return;
	}
	/* A migration that failed before it reached the VMI is on its VMIM only:
	 * without them "every VMI can migrate" is not known. */
	static const char *const unread_part =
	    "whether a recent migration failed before it reached the VMI (target pod never "
	    "scheduled, rejected by a quota) is not known";
	if (sum.n_ok == n_running) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		struct value_list *l = kv_add_list(&f->evidence, "vmis");
		for (size_t i = 0; i < ctx->vms->n; i++)
			vlist_add_strf(l, "%s/%s on %s", ctx->vms->items[i].namespace,
				       ctx->vms->items[i].name, ctx->vms->items[i].node);
		if (sum.migrating.n > 0) {
			struct value_list *m = kv_add_list(&f->evidence, "migrations_in_progress");
			for (size_t i = 0; i < sum.migrating.n; i++)
				vlist_add_str(m, sum.migrating.items[i]);
		}
		if (targets_known)
			kv_add_int(&f->evidence, "migration_target_nodes", (int64_t)n_targets);
		_cleanup_free_ char *now = sum.migrating.n > 0
					       ? xasprintf(" (%zu migrating now)", sum.migrating.n)
					       : xstrdup("");
		if (unread) {
			kv_add_str(&f->evidence, "migrations_not_read", unread);
			judge_note(&j, STATUS_UNKNOWN,
				   "%s %zu running %s live-migrate by %s own status%s, but "
				   "%s: %s",
				   n_running == 1 ? "the" : "all", n_running,
				   plural((int64_t)n_running, "VMI can", "VMIs can"),
				   plural((int64_t)n_running, "its", "their"), now, unread_part,
				   unread);
			judge_remedy(&j,
				     "grant get/list/watch on "
				     "virtualmachineinstancemigrations.kubevirt.io (deploy/base/"
				     "rbac.yaml does) or collect them: docs/collect.md");
		} else {
			if (sum.n_v2)
				kv_add_int(&f->evidence, "longhorn_v2_volumes", (int64_t)sum.n_v2);
			judge_note(&j, STATUS_PASS, "%s %zu running %s can live-migrate%s",
				   n_running == 1 ? "the" : "all", n_running,
				   plural((int64_t)n_running, "VMI", "VMIs"), now);
		}
		judge_decide(&j, f, "");
	} else if (unread && sum.n_ok > 0) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		kv_add_str(&f->evidence, "migrations_not_read", unread);
		judge_note(&j, STATUS_UNKNOWN,
			   "for the %zu running %s without a finding of their own, %s: %s",
			   sum.n_ok, plural((int64_t)sum.n_ok, "VMI", "VMIs"), unread_part, unread);
		judge_remedy(&j,
			     "grant get/list/watch on "
			     "virtualmachineinstancemigrations.kubevirt.io (deploy/base/rbac.yaml "
			     "does) or collect them: docs/collect.md");
		judge_decide(&j, f, "");
	}
	strv_clear(&sum.migrating);
}

/* ---- api.vm.run-strategy -------------------------------------------------- */

/* What the cluster's KubeVirt release says about the two fields (kubevirt/kubevirt
 * staging/src/kubevirt.io/api/core/v1/types.go and pkg/virt-api/webhooks/
 * validating-webhook/admitters/vms-admitter.go at v1.2.2 … v1.9.0):
 * - spec.running is deprecated from v1.4.0 (the "Deprecated:" comment, the
 *   admission warning "spec.running is deprecated, please use spec.runStrategy
 *   instead."); at v1.2 and v1.3 it is the field KubeVirt's own
 *   examples/vm-cirros.yaml uses, so a VM on it is not a finding there.
 * - RunStrategy WaitAsReceiver exists from v1.6.0 (decentralized migration). */
struct rs_release {
	bool known;
	struct semver v;
	const char *text; /* the version string, or NULL */
};

static void rs_release_find(const struct cluster_state *cs, struct rs_release *r)
{
	*r = (struct rs_release){0};
	const struct jv *kvs = cs_items(cs, RES_KUBEVIRTS);
	for (size_t i = 0; i < jq_len(kvs) && !r->known; i++) {
		r->text = kv_cr_version(jq_at(kvs, i), &r->v, NULL);
		r->known = r->text != NULL;
	}
}

static bool rs_before(const struct rs_release *r, int major, int minor)
{
	struct semver at = {major, minor, 0};
	return r->known && semver_cmp(&r->v, &at) < 0;
}

static bool valid_run_strategy(const char *s, const struct rs_release *r)
{
	static const char *const v[] = {"Always", "Halted", "Manual", "RerunOnFailure", "Once"};
	for (size_t i = 0; i < ELEMENTSOF(v); i++)
		if (streq(s, v[i]))
			return true;
	return streq(s, "WaitAsReceiver") && !rs_before(r, 1, 6);
}

/* Returns 1 when the VM has a finding, 2 when it is on spec.running at a
 * release where that is not deprecated (no finding), 0 otherwise. */
static int run_strategy_one(struct agg_ctx *ctx, const char *id, const struct jv *vm,
			    const struct rs_release *rel)
{
	const struct jv *running = JQ(vm, "spec", "running");
	const struct jv *rsj = JQ(vm, "spec", "runStrategy");
	const char *rs = JQS(vm, "spec", "runStrategy");
	bool has_running = running && !jv_is(running, JV_NULL);
	bool has_rs = rsj && !jv_is(rsj, JV_NULL);
	const char *ns = jq_namespace(vm) ? jq_namespace(vm) : "";
	const char *name = kubevirt_util_str(jq_name(vm));
	bool run = false;
	jq_bool(running, &run);
	if (!has_running && (!has_rs || valid_run_strategy(rs, rel)))
		return 0;
	if (has_running && !has_rs && rs_before(rel, 1, 4))
		return 2;

	struct finding *f = agg_object_finding(ctx, id, vm);
	struct judge j = {0};
	_cleanup_free_ char *running_text = jv_dump(running), *rs_text = jv_dump(rsj);
	if (has_running)
		kv_add_str(&f->evidence, "spec.running", running_text);
	if (has_rs)
		kv_add_str(&f->evidence, "spec.runStrategy", rs_text);
	if (JQS(vm, "status", "printableStatus"))
		kv_add_str(&f->evidence, "printableStatus", JQS(vm, "status", "printableStatus"));
	kv_add_str(&f->evidence, "kubevirt_version", rel->known ? rel->text : "unknown");
	versions_note(&f->evidence, ctx->cs, VC_KUBEVIRT);
	if (has_running && has_rs) {
		judge_note(&j, STATUS_FAIL,
			   "VM sets both spec.running and spec.runStrategy: every update is "
			   "rejected (\"running and runstrategy are mutually exclusive\")");
		judge_remedy(&j,
			     "remove the deprecated field (it is present, so the JSON patch "
			     "applies): kubectl patch vm -n %s %s --type=json -p "
			     "'[{\"op\":\"remove\",\"path\":\"/spec/running\"}]'",
			     ns, name);
	} else if (has_rs) {
		judge_note(&j, STATUS_FAIL,
			   "VM has an invalid spec.runStrategy %s: valid values are Always, "
			   "Halted, Manual, RerunOnFailure, Once%s (stop is Halted, not Stopped)",
			   rs_text,
			   rs_before(rel, 1, 6) ? " (WaitAsReceiver only from KubeVirt 1.6)"
						: ", WaitAsReceiver");
		judge_remedy(&j,
			     "kubectl patch vm -n %s %s --type=merge -p "
			     "'{\"spec\":{\"runStrategy\":\"Halted\"}}'   # stop; \"Always\" to "
			     "start",
			     ns, name);
	} else {
		judge_note(&j, STATUS_WARN,
			   "VM uses spec.running=%s, deprecated from KubeVirt 1.4%s: patching "
			   "spec.running is rejected once runStrategy exists; stop is runStrategy "
			   "Halted, not Stopped",
			   running_text, rel->known ? "" : " (the KubeVirt version is not known)");
		judge_remedy(
		    &j,
		    "switch to runStrategy in one request: kubectl patch vm -n %s %s --type=json "
		    "-p '[{\"op\":\"remove\",\"path\":\"/spec/running\"},{\"op\":\"add\",\"path\":"
		    "\"/spec/runStrategy\",\"value\":\"%s\"}]'; afterwards stop with "
		    "'{\"spec\":{\"runStrategy\":\"Halted\"}}' and start with "
		    "'{\"spec\":{\"runStrategy\":\"Always\"}}' (kubectl patch vm --type=merge)",
		    ns, name, run ? "Always" : "Halted");
	}
	judge_decide(&j, f, "");
	return 1;
}

void check_vm_run_strategy(struct agg_ctx *ctx, const char *id)
{
	const struct jv *vms = agg_items_or_skip(
	    ctx, id, RES_VMS,
	    "KubeVirt is not installed (virtualmachines.kubevirt.io is not served)",
	    "no VirtualMachines");
	if (!vms)
		return;
	struct rs_release rel;
	rs_release_find(ctx->cs, &rel);
	size_t flagged = 0;
	_cleanup_(strv_clear) struct strv on_running = {0};
	for (size_t i = 0; i < jq_len(vms); i++) {
		const struct jv *vm = jq_at(vms, i);
		int r = run_strategy_one(ctx, id, vm, &rel);
		flagged += r == 1;
		if (r == 2) {
			_cleanup_free_ char *val = jv_dump(JQ(vm, "spec", "running"));
			_cleanup_free_ char *line =
			    xasprintf("%s/%s: spec.running=%s", kubevirt_util_str(jq_namespace(vm)),
				      kubevirt_util_str(jq_name(vm)), val);
			strv_add(&on_running, line);
		}
	}
	if (flagged == 0) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		size_t n = jq_len(vms);
		kv_add_int(&f->evidence, "virtualmachines", (int64_t)n);
		if (on_running.n == 0) {
			judge_note(&j, STATUS_PASS, "%s %zu %s spec.runStrategy",
				   n == 1 ? "the" : "all", n,
				   plural((int64_t)n, "VM uses", "VMs use"));
		} else {
			kv_add_str(&f->evidence, "kubevirt_version", rel.text);
			struct value_list *l = kv_add_list(&f->evidence, "spec_running");
			for (size_t i = 0; i < on_running.n; i++)
				vlist_add_str(l, on_running.items[i]);
			judge_note(&j, STATUS_PASS,
				   "%zu of %zu VMs %s spec.running, which KubeVirt %s supports "
				   "(deprecated only from 1.4: switch to spec.runStrategy before "
				   "upgrading), the others spec.runStrategy",
				   on_running.n, n, on_running.n == 1 ? "uses" : "use", rel.text);
		}
		judge_decide(&j, f, "");
	}
}
