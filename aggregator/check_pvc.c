/*
 * api.pvc.rwx-class-mismatch (docs/checks/api.pvc.rwx-class-mismatch.md): an RWX
 * PVC's volume mode fits its Longhorn class.
 */
#include <string.h>

#include "checks_api.h"
#include "longhorn.h"
#include "storage.h"

static bool has_access_mode(const struct jv *pvc, const char *mode)
{
	const struct jv *modes = JQ(pvc, "spec", "accessModes");
	for (size_t i = 0; i < jq_len(modes); i++)
		if (jv_is(jq_at(modes, i), JV_STRING) && streq(jv_str(jq_at(modes, i)), mode))
			return true;
	return false;
}

/* The only default class, or NULL (none or several). */
static const struct jv *sole_default_class(const struct jv *scs)
{
	const struct jv *found = NULL;
	for (size_t i = 0; i < jq_len(scs); i++) {
		if (!storage_sc_default_annotation(jq_at(scs, i)))
			continue;
		if (found)
			return NULL;
		found = jq_at(scs, i);
	}
	return found;
}

struct pvc_counts {
	size_t rwx, longhorn, bad, unknown, other, no_class;
};

static void pvc_evidence(struct finding *f, const struct jv *pvc, const char *class,
			 const char *class_source, const struct jv *sc)
{
	const struct jv *modes = JQ(pvc, "spec", "accessModes");
	struct value_list *ml = kv_add_list(&f->evidence, "access_modes");
	for (size_t i = 0; i < jq_len(modes); i++)
		if (jv_is(jq_at(modes, i), JV_STRING))
			vlist_add_str(ml, jv_str(jq_at(modes, i)));
	const char *vm = JQS(pvc, "spec", "volumeMode");
	kv_add_str(&f->evidence, "volume_mode", vm ? vm : "(absent: Filesystem)");
	kv_add_str(&f->evidence, "storage_class", class);
	kv_add_str(&f->evidence, "storage_class_from", class_source);
	if (sc) {
		storage_ev_str(&f->evidence, "provisioner", JQS(sc, "provisioner"));
		storage_ev_str(&f->evidence, "migratable", JQS(sc, "parameters", "migratable"));
	}
	storage_ev_str(&f->evidence, "phase", JQS(pvc, "status", "phase"));
	storage_ev_str(&f->evidence, "volume", JQS(pvc, "spec", "volumeName"));
}

static void pvc_judge(struct agg_ctx *ctx, const char *id, const struct jv *pvc,
		      const struct jv *scs, struct pvc_counts *c)
{
	const struct jv *cls = JQ(pvc, "spec", "storageClassName");
	const char *class = NULL, *source = "spec.storageClassName";
	const struct jv *sc = NULL;
	struct finding *f = NULL; /* the PVC's finding, when it has a problem */
	struct judge j = {0};
	if (cls && jv_is(cls, JV_STRING)) {
		class = jv_str(cls);
		if (!*class) { /* "" binds to class-less PVs only: not Longhorn by class */
			c->no_class++;
			return;
		}
		sc = cs_find(ctx->cs, RES_STORAGECLASSES, NULL, class);
	} else {
		/* Not set: the default class (admission, or retroactive since 1.28). */
		sc = sole_default_class(scs);
		if (!sc) {
			c->no_class++;
			return;
		}
		class = jq_name(sc);
		source = "the default StorageClass (spec.storageClassName absent)";
	}
	if (!sc) {
		f = storage_object_finding(ctx, id, "PersistentVolumeClaim", pvc);
		judge_note(&j, STATUS_UNKNOWN,
			   "RWX PVC's StorageClass %s does not exist: cannot tell whether it is a "
			   "Longhorn class and of which form",
			   class);
		pvc_evidence(f, pvc, class, source, NULL);
		judge_remedy(&j,
			     "kubectl get pv %s -o jsonpath='{.spec.csi.driver}' shows the "
			     "driver; recreate the StorageClass or the PVC",
			     JQS(pvc, "spec", "volumeName") ? JQS(pvc, "spec", "volumeName")
							    : "<pv>");
		c->unknown++;
		goto out;
	}
	if (!streq(JQS(sc, "provisioner"), LONGHORN_DRIVER)) {
		c->other++;
		return;
	}
	c->longhorn++;
	const char *vm = JQS(pvc, "spec", "volumeMode");
	bool block = streq(vm, "Block"), mig;
	if (vm && !block && !streq(vm, "Filesystem")) {
		f = storage_object_finding(ctx, id, "PersistentVolumeClaim", pvc);
		judge_note(&j, STATUS_UNKNOWN,
			   "RWX PVC has volumeMode %s, neither Block nor Filesystem", vm);
		pvc_evidence(f, pvc, class, source, sc);
		c->unknown++;
		goto out;
	}
	if (storage_go_bool(JQ(sc, "parameters", "migratable"), &mig) < 0) {
		f = storage_object_finding(ctx, id, "PersistentVolumeClaim", pvc);
		judge_note(&j, STATUS_UNKNOWN,
			   "StorageClass %s has a migratable parameter Longhorn cannot parse: "
			   "volumes of this class fail to provision",
			   class);
		pvc_evidence(f, pvc, class, source, sc);
		judge_remedy(&j,
			     "recreate the class with parameters.migratable \"true\" or \"false\"");
		c->unknown++;
		goto out;
	}
	if (!block && mig) {
		f = storage_object_finding(ctx, id, "PersistentVolumeClaim", pvc);
		judge_note(&j, STATUS_FAIL,
			   "RWX Filesystem PVC on StorageClass %s (migratable: \"true\"): Longhorn "
			   "makes a migratable block volume, no NFS share-manager will serve it "
			   "and writes to it fail",
			   class);
		pvc_evidence(f, pvc, class, source, sc);
		judge_remedy(
		    &j,
		    "recreate the PVC on a Longhorn StorageClass with parameters.migratable "
		    "\"false\" (docs/checks/api.pvc.rwx-class-mismatch.md has one); a VM "
		    "disk that must live-migrate uses volumeMode: Block on %s instead",
		    class);
		c->bad++;
	} else if (block && !mig) {
		f = storage_object_finding(ctx, id, "PersistentVolumeClaim", pvc);
		judge_note(
		    &j, STATUS_FAIL,
		    "RWX Block PVC on StorageClass %s without migratable: \"true\": RWX Block "
		    "is the live-migration form of a VM disk, and only a migratable Longhorn "
		    "volume can attach to two nodes during a migration (a non-migratable one "
		    "is served by an NFS share-manager, which exports no block device)",
		    class);
		pvc_evidence(f, pvc, class, source, sc);
		judge_remedy(
		    &j, "recreate the disk on harvester-longhorn or another Longhorn class with "
			"parameters.migratable \"true\"; for a shared filesystem keep this "
			"class and use volumeMode: Filesystem");
		c->bad++;
	}
out:
	judge_decide(&j, f, ""); /* f is NULL when the PVC has no problem */
}

void check_pvc_rwx_class_mismatch(struct agg_ctx *ctx, const char *id)
{
	const struct jv *pvcs = cs_items(ctx->cs, RES_PVCS),
			*scs = cs_items(ctx->cs, RES_STORAGECLASSES);
	struct pvc_counts c = {0};
	for (size_t i = 0; i < jq_len(pvcs); i++) {
		const struct jv *pvc = jq_at(pvcs, i);
		if (!has_access_mode(pvc, "ReadWriteMany"))
			continue;
		c.rwx++;
		pvc_judge(ctx, id, pvc, scs, &c);
	}
	if (c.bad || c.unknown)
		return;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "pvcs", (int64_t)jq_len(pvcs));
	kv_add_int(&f->evidence, "rwx_pvcs", (int64_t)c.rwx);
	kv_add_int(&f->evidence, "rwx_on_longhorn", (int64_t)c.longhorn);
	kv_add_int(&f->evidence, "rwx_on_other_drivers", (int64_t)c.other);
	kv_add_int(&f->evidence, "rwx_without_class", (int64_t)c.no_class);
	if (c.rwx == 0)
		judge_note(&j, STATUS_SKIP, "no ReadWriteMany PVC among %zu %s", jq_len(pvcs),
			   plural((int64_t)jq_len(pvcs), "PVC", "PVCs"));
	else
		judge_note(&j, STATUS_PASS,
			   "%zu RWX %s, %zu on Longhorn classes: each has the volume mode its "
			   "class serves (Filesystem: non-migratable, Block: migratable)",
			   c.rwx, plural((int64_t)c.rwx, "PVC", "PVCs"), c.longhorn);
	judge_decide(&j, f, "");
}
