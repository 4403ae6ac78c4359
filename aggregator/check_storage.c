/*
 * StorageClasses, PVCs and cluster DNS (docs/checks/api.storageclass.default.md,
 * api.pvc.rwx-class-mismatch.md, api.dns.replicas.md):
 *   api.storageclass.default    exactly one default class; harvester-longhorn once installed
 *   api.pvc.rwx-class-mismatch  an RWX PVC's volume mode fits its Longhorn class
 *   api.dns.replicas            CoreDNS has ≥ 2 ready replicas (Longhorn RWX depends on DNS)
 */
#include <string.h>

#include "checks_api.h"
#include "longhorn.h"
#include "storage.h"

#define ANN_SC_DEFAULT	    "storageclass.kubernetes.io/is-default-class"
#define ANN_SC_DEFAULT_BETA "storageclass.beta.kubernetes.io/is-default-class"
#define HARVESTER_SC	    "harvester-longhorn"

/* The annotation that makes sc a default class, or NULL. Kubernetes compares
 * the value with "true" exactly (storage/util IsDefaultAnnotation). */
static const char *sc_default_annotation(const struct jv *sc)
{
	if (streq(JQS(sc, "metadata", "annotations", ANN_SC_DEFAULT), "true"))
		return ANN_SC_DEFAULT;
	if (streq(JQS(sc, "metadata", "annotations", ANN_SC_DEFAULT_BETA), "true"))
		return ANN_SC_DEFAULT_BETA;
	return NULL;
}

/* A default annotation Kubernetes ignores ("True", "yes"): an operator who set
 * it believes the class is default. */
static void note_near_miss(struct value_list **ignored, struct kv_list *ev, const struct jv *sc)
{
	static const char *const keys[] = {ANN_SC_DEFAULT, ANN_SC_DEFAULT_BETA};
	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		const char *v = JQS(sc, "metadata", "annotations", keys[i]);
		if (!v || streq(v, "true") || streq(v, "false") || !*v)
			continue;
		if (!*ignored)
			*ignored = kv_add_list(ev, "ignored_default_annotations");
		vlist_add_strf(*ignored, "%s: %s=%s (Kubernetes honours only \"true\")",
			       jq_name(sc) ? jq_name(sc) : "?", keys[i], v);
	}
}

/* "kubectl annotate sc X <annotation>-" for every default except keep. */
static char *unset_defaults_cmd(const struct jv *items, const char *keep)
{
	char *cmd = NULL;
	for (size_t i = 0; i < jq_len(items); i++) {
		const struct jv *sc = jq_at(items, i);
		const char *ann = sc_default_annotation(sc), *name = jq_name(sc);
		if (!ann || streq(name, keep))
			continue;
		storage_appendf(&cmd, "%skubectl annotate sc %s %s-", cmd ? "; " : "", name, ann);
	}
	return cmd;
}

static void sc_default_several(struct agg_ctx *ctx, struct judge *j, const struct jv *items,
			       const struct strv *defaults)
{
	_cleanup_free_ char *names = NULL;
	for (size_t i = 0; i < defaults->n; i++)
		storage_appendf(&names, "%s%s", i ? ", " : "", defaults->items[i]);
	if (!ctx->harvester_installed) {
		/* Before the install nothing is lost yet, but what the chart's
		 * lookup of the existing default then makes of it cannot be told. */
		judge_note(j, STATUS_WARN,
			   "%zu default StorageClasses (%s) before Harvester's install: which "
			   "one the chart's lookup of the default class finds is unpredictable, "
			   "and PVCs without storageClassName may not land on "
			   "harvester-longhorn",
			   defaults->n, names);
	} else {
		judge_note(j, STATUS_FAIL,
			   "%zu default StorageClasses (%s): a PVC or DataVolume without "
			   "storageClassName gets whichever Kubernetes picks, not necessarily "
			   "harvester-longhorn",
			   defaults->n, names);
	}
	if (ctx->harvester_installed) {
		_cleanup_free_ char *unset = unset_defaults_cmd(items, HARVESTER_SC);
		judge_remedy(j,
			     "keep harvester-longhorn as the only default: %s%skubectl annotate sc "
			     "harvester-longhorn %s=true --overwrite; and set "
			     "longhorn.persistence.defaultClass=false in the Harvester values, or "
			     "the next helm upgrade makes longhorn a default again",
			     unset ? unset : "", unset ? "; " : "", ANN_SC_DEFAULT);
	} else {
		_cleanup_free_ char *unset = unset_defaults_cmd(items, NULL);
		judge_remedy(j,
			     "Harvester makes harvester-longhorn the default when it is installed: "
			     "remove the other defaults (%s) and set "
			     "longhorn.persistence.defaultClass=false in the Harvester values",
			     unset ? unset : "");
	}
}

static void sc_default_one(struct agg_ctx *ctx, struct judge *j, const struct jv *items,
			   const char *name)
{
	const struct jv *sc = cs_find(ctx->cs, RES_STORAGECLASSES, NULL, name);
	const char *prov = JQS(sc, "provisioner");
	if (streq(name, HARVESTER_SC)) {
		judge_note(j, STATUS_PASS, "harvester-longhorn is the only default StorageClass");
		return;
	}
	_cleanup_free_ char *unset = unset_defaults_cmd(items, HARVESTER_SC);
	if (ctx->harvester_installed) {
		/* Harvester's UI lets an operator choose another default; it works,
		 * but volumes without a class then miss harvester-longhorn's
		 * parameters (migratable, replicas): a warning, not a failure. */
		bool has_hl = cs_find(ctx->cs, RES_STORAGECLASSES, NULL, HARVESTER_SC) != NULL;
		judge_note(
		    j, STATUS_WARN,
		    "the default StorageClass is %s (provisioner %s), not harvester-longhorn: "
		    "PVCs and DataVolumes without storageClassName get its parameters%s",
		    name, prov ? prov : STORAGE_ABSENT,
		    has_hl ? "" : "; harvester-longhorn does not exist");
		judge_remedy(
		    j,
		    "if this is not deliberate: %s; kubectl annotate sc harvester-longhorn "
		    "%s=true --overwrite (and longhorn.persistence.defaultClass=false in "
		    "the Harvester values)",
		    unset, ANN_SC_DEFAULT);
		return;
	}
	judge_note(j, STATUS_WARN,
		   "%s (provisioner %s) is already the default StorageClass: installing Harvester "
		   "adds harvester-longhorn (and Longhorn's longhorn) as defaults, leaving several",
		   name, prov ? prov : STORAGE_ABSENT);
	judge_remedy(j,
		     "set longhorn.persistence.defaultClass=false in the Harvester values, and "
		     "remove the existing default before installing: %s",
		     unset);
}

/* Before Harvester's install no default is the normal state of a plain RKE2
 * cluster (RKE2 ships no StorageClass; k3s's local-path is a default), and
 * Harvester's chart creates harvester-longhorn as the default class
 * (harvester/harvester deploy/charts/harvester/templates/harvester-storageclass.yaml:
 * is-default-class "true" when .Values.storageClass.defaultStorageClass). Where Longhorn already
 * runs without Harvester (KubeVirt + Longhorn), PVCs without a class wait for a
 * default that only Harvester's install would bring: WARN. */
static void sc_default_none_preinstall(struct judge *j, const struct jv *items)
{
	const char *lh = NULL;
	for (size_t i = 0; i < jq_len(items) && !lh; i++)
		if (streq(JQS(jq_at(items, i), "provisioner"), LONGHORN_DRIVER))
			lh = jq_name(jq_at(items, i));
	if (!lh) {
		judge_note(j, STATUS_PASS,
			   "no default StorageClass among %zu, as expected before Harvester's "
			   "install: its chart creates harvester-longhorn as the default",
			   jq_len(items));
		return;
	}
	judge_note(j, STATUS_WARN,
		   "no default StorageClass among %zu, and Longhorn's class %s exists without "
		   "Harvester: PVCs and DataVolumes without storageClassName stay Pending "
		   "until Harvester's install makes harvester-longhorn the default",
		   jq_len(items), lh);
	judge_remedy(j,
		     "if Harvester will not be installed here: kubectl annotate sc %s %s=true "
		     "--overwrite",
		     lh, ANN_SC_DEFAULT);
}

void check_storageclass_default(struct agg_ctx *ctx, const char *id)
{
	const struct jv *items = cs_items(ctx->cs, RES_STORAGECLASSES);
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	struct value_list *dl = kv_add_list(&f->evidence, "default_classes");
	struct value_list *ignored = NULL;
	struct strv defaults = {0};
	for (size_t i = 0; i < jq_len(items); i++) {
		const struct jv *sc = jq_at(items, i);
		const char *ann = sc_default_annotation(sc), *prov = JQS(sc, "provisioner");
		note_near_miss(&ignored, &f->evidence, sc);
		if (!ann)
			continue;
		strv_add(&defaults, jq_name(sc) ? jq_name(sc) : "?");
		vlist_add_strf(dl, "%s (provisioner %s, %s)", jq_name(sc) ? jq_name(sc) : "?",
			       prov ? prov : STORAGE_ABSENT, ann);
	}
	kv_add_int(&f->evidence, "storage_classes", (int64_t)jq_len(items));
	kv_add_bool(&f->evidence, "harvester_installed", ctx->harvester_installed);

	if (defaults.n == 0 && !ctx->harvester_installed) {
		sc_default_none_preinstall(&j, items);
	} else if (defaults.n == 0) {
		judge_note(&j, STATUS_FAIL,
			   "no default StorageClass among %zu: PVCs and DataVolumes without "
			   "storageClassName stay Pending",
			   jq_len(items));
		if (ctx->harvester_installed)
			judge_remedy(&j,
				     "kubectl annotate sc harvester-longhorn %s=true --overwrite",
				     ANN_SC_DEFAULT);
		else
			judge_remedy(
			    &j, "install Harvester with longhorn.persistence.defaultClass=false: "
				"its chart makes harvester-longhorn the one default; check "
				"afterwards with kubectl get sc");
	} else if (defaults.n > 1) {
		sc_default_several(ctx, &j, items, &defaults);
	} else {
		sc_default_one(ctx, &j, items, defaults.items[0]);
	}
	judge_decide(&j, f, "");
	strv_clear(&defaults);
}

/* ---- api.pvc.rwx-class-mismatch ---- */

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
		if (!sc_default_annotation(jq_at(scs, i)))
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

/* ---- api.dns.replicas ---- */

#define RKE2_COREDNS "rke2-coredns-rke2-coredns"

static bool is_coredns(const struct jv *d)
{
	if (!streq(jq_namespace(d), "kube-system"))
		return false;
	const char *name = jq_name(d);
	return streq(name, RKE2_COREDNS) || streq(name, "coredns") ||
	       streq(JQS(d, "metadata", "labels", "k8s-app"), "kube-dns");
}

static void dns_remedy(struct judge *j, const char *name, bool none_ready)
{
	if (none_ready)
		judge_remedy(j,
			     "find why no pod is ready: kubectl -n kube-system describe deployment "
			     "%s; kubectl -n kube-system get pods -l k8s-app=kube-dns -o wide",
			     name);
	else if (streq(name, RKE2_COREDNS))
		judge_remedy(j,
			     "RKE2: keep two replicas with a HelmChartConfig rke2-coredns in "
			     "kube-system setting autoscaler.min: 2 (manifest in "
			     "docs/checks/api.dns.replicas.md); a kubectl scale is undone by the "
			     "CoreDNS autoscaler");
	else
		judge_remedy(j, "kubectl -n kube-system scale deployment %s --replicas=2", name);
}

static void dns_judge(struct agg_ctx *ctx, const char *id, const struct jv *d)
{
	struct finding *f = storage_object_finding(ctx, id, "Deployment", d);
	struct judge j = {0};
	const char *name = jq_name(d) ? jq_name(d) : "?";
	const struct jv *st = JQ(d, "status");
	int64_t ready = 0, desired = 1;
	jq_int(JQ(d, "spec", "replicas"), &desired); /* absent: Kubernetes defaults to 1 */
	kv_add_int(&f->evidence, "desired_replicas", desired);
	/* readyReplicas is omitted when 0; without a status object it is unknown. */
	if (!st || !jv_is(st, JV_OBJECT) ||
	    (JQ(st, "readyReplicas") && !jq_int(JQ(st, "readyReplicas"), &ready))) {
		judge_note(&j, STATUS_UNKNOWN, "CoreDNS Deployment %s has no readable status",
			   name);
		storage_ev_str(&f->evidence, "ready_replicas", NULL);
		goto out;
	}
	kv_add_int(&f->evidence, "ready_replicas", ready);
	if (ready >= 2) {
		judge_note(&j, STATUS_PASS, "CoreDNS %s: %lld of %lld replicas ready", name,
			   (long long)ready, (long long)desired);
		goto out;
	}
	if (ready == 1)
		judge_note(
		    &j, STATUS_WARN,
		    "only 1 CoreDNS replica ready (%s): when its node goes down, cluster DNS "
		    "stops and Longhorn RWX volumes (share-manager) cannot be mounted",
		    name);
	else
		judge_note(
		    &j, STATUS_FAIL,
		    "no CoreDNS replica ready (%s): cluster DNS is down, Longhorn RWX volumes "
		    "(share-manager) cannot be mounted",
		    name);
	dns_remedy(&j, name, ready < 1);
out:
	judge_decide(&j, f, "");
}

void check_dns_replicas(struct agg_ctx *ctx, const char *id)
{
	const struct jv *deps = cs_items(ctx->cs, RES_DEPLOYMENTS);
	size_t found = 0;
	for (size_t i = 0; i < jq_len(deps); i++) {
		if (!is_coredns(jq_at(deps, i)))
			continue;
		dns_judge(ctx, id, jq_at(deps, i));
		found++;
	}
	if (found)
		return;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	judge_note(&j, STATUS_FAIL,
		   "no CoreDNS Deployment in kube-system (%s, coredns, or label "
		   "k8s-app=kube-dns): Longhorn RWX volumes need cluster DNS",
		   RKE2_COREDNS);
	kv_add_int(&f->evidence, "deployments", (int64_t)jq_len(deps));
	judge_remedy(&j, "kubectl -n kube-system get deploy,ds -l k8s-app=kube-dns; on RKE2 the "
			 "rke2-coredns chart must not be disabled (--disable rke2-coredns)");
	judge_decide(&j, f, "");
}
