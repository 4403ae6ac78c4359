#include "vsc_resolve.h"

#include <stdlib.h>
#include <string.h>

#include "longhorn.h"
#include "storage.h"

/* Longhorn CSI CreateSnapshot: "" and "bak" take a backup, "bs" is the old name of
 * "bak", "snap" an in-cluster snapshot, "bi" a backing image; anything else is
 * rejected with "invalid CSI snapshot type". */
const char *vsc_type(const struct jv *c, const char **ret_raw)
{
	const struct jv *t = JQ(c, "parameters", "type");
	*ret_raw = NULL;
	if (t && !jv_is(t, JV_STRING))
		return NULL;
	const char *raw = t ? jv_str(t) : NULL;
	*ret_raw = raw;
	if (!raw || !*raw || streq(raw, "bak") || streq(raw, "bs"))
		return "bak";
	if (streq(raw, "snap") || streq(raw, "bi"))
		return raw;
	return NULL;
}

const char *vsc_type_desc(const struct vsc *v)
{
	if (!v->type)
		return "invalid";
	return v->type;
}

static int vsc_cmp(const void *a, const void *b)
{
	const struct vsc *x = a, *y = b;
	return strcmp(x->name, y->name);
}

size_t vsc_longhorn_classes(const struct cluster_state *cs, struct vsc **ret)
{
	const struct jv *items = cs_items(cs, RES_VS_CLASSES);
	struct vsc *v = xcalloc(jq_len(items) + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < jq_len(items); i++) {
		const struct jv *c = jq_at(items, i);
		if (!streq(JQS(c, "driver"), LONGHORN_DRIVER))
			continue;
		v[n].obj = c;
		v[n].name = jq_name(c) ? jq_name(c) : "";
		v[n].type = vsc_type(c, &v[n].raw);
		v[n].is_default = streq(JQS(c, "metadata", "annotations", ANN_VSC_DEFAULT), "true");
		n++;
	}
	qsort(v, n, sizeof(*v), vsc_cmp);
	*ret = v;
	return n;
}

/* ---- which class VM snapshots use, per Longhorn StorageClass (see the top comment) ---- */

static const struct vsc *vsc_by_name(const struct vsc *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].name, name))
			return &v[i];
	return NULL;
}

/* CDI GetVolumeSnapshotClass without a named class: the first (by name, the API's list
 * order) annotated is-default-class="true", else the first by name. */
const struct vsc *vsc_cdi_pick(const struct vsc *v, size_t n, const char **why)
{
	if (n == 0)
		return NULL;
	if (n == 1) {
		*why = "the only Longhorn class";
		return &v[0];
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].is_default) {
			*why = "annotated " ANN_VSC_DEFAULT "=true";
			return &v[i];
		}
	*why = "first by name";
	return &v[0];
}

/* KubeVirt getVolumeSnapshotClassName when no StorageProfile gives a class: the only
 * class of the provisioner, else one carrying the default annotation (any value: it
 * tests the key), else an error that fails the VM snapshot. */
static const struct vsc *kubevirt_pick(const struct vsc *v, size_t n, const char **why,
				       enum pick_result *res)
{
	*res = PICK_OK;
	if (n == 0) {
		*res = PICK_NONE;
		return NULL;
	}
	if (n == 1) {
		*why = "the only Longhorn class";
		return &v[0];
	}
	for (size_t i = 0; i < n; i++)
		if (JQ(v[i].obj, "metadata", "annotations", ANN_VSC_DEFAULT)) {
			*why = "annotated " ANN_VSC_DEFAULT;
			return &v[i];
		}
	*res = PICK_UNDECIDED;
	return NULL;
}

static void profile_pick(const struct cluster_state *cs, const struct vsc *v, size_t n,
			 struct sc_pick *p, const char *status)
{
	p->from = FROM_PROFILE;
	p->name = status;
	p->spec_ignored = p->spec && !streq(p->spec, status);
	p->why = p->spec && !p->spec_ignored ? "StorageProfile spec.snapshotClass"
					     : "StorageProfile status.snapshotClass, CDI's choice";
	const struct jv *c = cs_find(cs, RES_VS_CLASSES, NULL, status);
	if (!c) {
		p->result = PICK_MISSING;
		return;
	}
	if (!streq(JQS(c, "driver"), LONGHORN_DRIVER)) {
		p->result = PICK_FOREIGN;
		p->driver = JQS(c, "driver") ? JQS(c, "driver") : STORAGE_ABSENT;
		return;
	}
	p->vsc = vsc_by_name(v, n, status);
	p->result = p->vsc ? PICK_OK : PICK_MISSING;
}

static void sc_pick_resolve(const struct cluster_state *cs, const struct vsc *v, size_t n,
			    struct sc_pick *p)
{
	enum resource_status st = cs->res[RES_STORAGEPROFILES].status;
	if (st == RES_COLLECTED) {
		p->profile = cs_find(cs, RES_STORAGEPROFILES, NULL, p->sc);
		const char *status = JQS(p->profile, "status", "snapshotClass");
		p->spec = JQS(p->profile, "spec", "snapshotClass");
		if (p->spec && !*p->spec)
			p->spec = NULL;
		if (status && *status) {
			profile_pick(cs, v, n, p, status);
			return;
		}
		/* CDI could not use it (a missing class, or another driver's). */
		p->spec_ignored = p->spec != NULL;
	}
	if (st == RES_COLLECTED || st == RES_NOT_INSTALLED) {
		p->from = FROM_KUBEVIRT;
		p->vsc = kubevirt_pick(v, n, &p->why, &p->result);
	} else {
		p->from = FROM_EMULATED;
		p->vsc = vsc_cdi_pick(v, n, &p->why);
		p->result = p->vsc ? PICK_OK : PICK_NONE;
	}
	p->name = p->vsc ? p->vsc->name : NULL;
}

static int pick_cmp(const void *a, const void *b)
{
	const struct sc_pick *x = a, *y = b;
	return strcmp(x->sc, y->sc);
}

void vsc_view_build(const struct cluster_state *cs, struct vsc_view *w)
{
	*w = (struct vsc_view){0};
	w->n = vsc_longhorn_classes(cs, &w->v);
	w->profiles_collected = cs->res[RES_STORAGEPROFILES].status == RES_COLLECTED;
	const struct jv *scs = cs_items(cs, RES_STORAGECLASSES);
	w->p = xcalloc(jq_len(scs) + 1, sizeof(*w->p));
	for (size_t i = 0; i < jq_len(scs); i++) {
		const struct jv *sc = jq_at(scs, i);
		if (streq(JQS(sc, "provisioner"), LONGHORN_DRIVER))
			w->p[w->np++].sc = jq_name(sc) ? jq_name(sc) : "";
	}
	qsort(w->p, w->np, sizeof(*w->p), pick_cmp);
	for (size_t i = 0; i < w->np; i++) {
		sc_pick_resolve(cs, w->v, w->n, &w->p[i]);
		w->n_ok += w->p[i].result == PICK_OK;
		w->n_broken += w->p[i].result != PICK_OK && w->p[i].result != PICK_NONE;
	}
}

void vsc_view_free(struct vsc_view *w)
{
	free(w->v);
	free(w->p);
}
