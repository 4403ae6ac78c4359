/*
 * api.storageclass.default (docs/checks/api.storageclass.default.md): exactly one
 * default StorageClass; harvester-longhorn once Harvester is installed.
 */
#include <string.h>

#include "checks_api.h"
#include "longhorn.h"
#include "storage.h"

#define HARVESTER_SC "harvester-longhorn"

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
		const char *ann = storage_sc_default_annotation(sc), *name = jq_name(sc);
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
		const char *ann = storage_sc_default_annotation(sc), *prov = JQS(sc, "provisioner");
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
