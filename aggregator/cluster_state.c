#include "cluster_state.h"

#include <stdio.h>
#include <string.h>

#include "json_query.h"

#define CORE(id, plural, kind, ns)                                                                 \
	{                                                                                          \
		id, "", "v1", plural, kind, ns, false, NULL                                        \
	}
#define GRP(id, g, v, plural, kind, ns, crd)                                                       \
	{                                                                                          \
		id, g, v, plural, kind, ns, crd, NULL                                              \
	}
/* KubeVirt <= 1.2 (Harvester 1.2-1.3) serves snapshot.kubevirt.io only at
 * v1alpha1; hvready counts those objects, the same in both versions. */
#define GRP_FB(id, g, v, fallback, plural, kind, ns, crd)                                          \
	{                                                                                          \
		id, g, v, plural, kind, ns, crd, fallback                                          \
	}

const struct resource_def resource_defs[_RES_MAX] = {
    CORE(RES_NODES, "nodes", "Node", false),
    CORE(RES_PODS, "pods", "Pod", true),
    CORE(RES_SERVICES, "services", "Service", true),
    GRP(RES_DEPLOYMENTS, "apps", "v1", "deployments", "Deployment", true, false),
    GRP(RES_DAEMONSETS, "apps", "v1", "daemonsets", "DaemonSet", true, false),
    CORE(RES_PVCS, "persistentvolumeclaims", "PersistentVolumeClaim", true),
    CORE(RES_PVS, "persistentvolumes", "PersistentVolume", false),
    GRP(RES_STORAGECLASSES, "storage.k8s.io", "v1", "storageclasses", "StorageClass", false, false),
    GRP(RES_VWEBHOOKS, "admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
	"ValidatingWebhookConfiguration", false, false),
    GRP(RES_MWEBHOOKS, "admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
	"MutatingWebhookConfiguration", false, false),
    GRP(RES_APISERVICES, "apiregistration.k8s.io", "v1", "apiservices", "APIService", false, false),
    GRP(RES_CRDS, "apiextensions.k8s.io", "v1", "customresourcedefinitions",
	"CustomResourceDefinition", false, false),
    GRP(RES_VS_CLASSES, "snapshot.storage.k8s.io", "v1", "volumesnapshotclasses",
	"VolumeSnapshotClass", false, true),
    GRP(RES_VS_SNAPSHOTS, "snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot",
	true, true),
    GRP(RES_VS_CONTENTS, "snapshot.storage.k8s.io", "v1", "volumesnapshotcontents",
	"VolumeSnapshotContent", false, true),
    GRP(RES_KUBEVIRTS, "kubevirt.io", "v1", "kubevirts", "KubeVirt", true, true),
    GRP(RES_VMS, "kubevirt.io", "v1", "virtualmachines", "VirtualMachine", true, true),
    GRP(RES_VMIS, "kubevirt.io", "v1", "virtualmachineinstances", "VirtualMachineInstance", true,
	true),
    GRP(RES_VM_MIGRATIONS, "kubevirt.io", "v1", "virtualmachineinstancemigrations",
	"VirtualMachineInstanceMigration", true, true),
    GRP_FB(RES_VM_SNAPSHOTS, "snapshot.kubevirt.io", "v1beta1", "v1alpha1",
	   "virtualmachinesnapshots", "VirtualMachineSnapshot", true, true),
    GRP_FB(RES_VM_RESTORES, "snapshot.kubevirt.io", "v1beta1", "v1alpha1", "virtualmachinerestores",
	   "VirtualMachineRestore", true, true),
    GRP(RES_CDIS, "cdi.kubevirt.io", "v1beta1", "cdis", "CDI", false, true),
    GRP(RES_DATAVOLUMES, "cdi.kubevirt.io", "v1beta1", "datavolumes", "DataVolume", true, true),
    GRP(RES_STORAGEPROFILES, "cdi.kubevirt.io", "v1beta1", "storageprofiles", "StorageProfile",
	false, true),
    GRP(RES_LH_VOLUMES, "longhorn.io", "v1beta2", "volumes", "Volume", true, true),
    GRP(RES_LH_REPLICAS, "longhorn.io", "v1beta2", "replicas", "Replica", true, true),
    GRP(RES_LH_ENGINES, "longhorn.io", "v1beta2", "engines", "Engine", true, true),
    GRP(RES_LH_SNAPSHOTS, "longhorn.io", "v1beta2", "snapshots", "Snapshot", true, true),
    GRP(RES_LH_SHAREMANAGERS, "longhorn.io", "v1beta2", "sharemanagers", "ShareManager", true,
	true),
    GRP(RES_LH_SETTINGS, "longhorn.io", "v1beta2", "settings", "Setting", true, true),
    GRP(RES_LH_BACKUPTARGETS, "longhorn.io", "v1beta2", "backuptargets", "BackupTarget", true,
	true),
    GRP(RES_LH_NODES, "longhorn.io", "v1beta2", "nodes", "Node", true, true),
    GRP(RES_HV_SETTINGS, "harvesterhci.io", "v1beta1", "settings", "Setting", false, true),
    GRP(RES_HV_VMIMAGES, "harvesterhci.io", "v1beta1", "virtualmachineimages",
	"VirtualMachineImage", true, true),
    GRP(RES_HELMCHARTS, "helm.cattle.io", "v1", "helmcharts", "HelmChart", true, true),
    GRP(RES_HELMCHARTCONFIGS, "helm.cattle.io", "v1", "helmchartconfigs", "HelmChartConfig", true,
	true),
};

const char *resource_status_name(enum resource_status s)
{
	switch (s) {
	case RES_NOT_COLLECTED:
		return "not collected";
	case RES_COLLECTED:
		return "collected";
	case RES_NOT_INSTALLED:
		return "not installed";
	case RES_FORBIDDEN:
		return "forbidden";
	case RES_FAILED:
		return "failed";
	}
	return "invalid";
}

void cluster_state_init(struct cluster_state *cs)
{
	*cs = (struct cluster_state){0};
}

struct cs_index {
	cs_key_fn fn;
	size_t n;
	struct cs_entry *e;
};

static void drop_index(struct resource_data *r)
{
	if (r->index) {
		free(r->index->e);
		free(r->index);
		r->index = NULL;
	}
}

static int cmp_entry(const void *a, const void *b)
{
	const struct cs_entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

size_t cs_lookup(const struct cluster_state *cs, enum resource_id id, cs_key_fn key,
		 const char *value, const struct cs_entry **ret)
{
	const struct jv *a = cs_items(cs, id);
	if (!a || !value)
		return 0;
	/* The index is a cache: building it does not change what cs holds. */
	struct resource_data *r = (struct resource_data *)&cs->res[id];
	if (!r->index || r->index->fn != key) {
		drop_index(r);
		r->index = xcalloc(1, sizeof(*r->index));
		r->index->fn = key;
		size_t n = jq_len(a);
		r->index->e = xcalloc(n ? n : 1, sizeof(struct cs_entry));
		for (size_t i = 0; i < n; i++) {
			const struct jv *o = jq_at(a, i);
			const char *k = key(o);
			if (k)
				r->index->e[r->index->n++] = (struct cs_entry){k, o, i};
		}
		qsort(r->index->e, r->index->n, sizeof(struct cs_entry), cmp_entry);
	}
	struct cs_index *ix = r->index;
	size_t lo = 0, hi = ix->n;
	while (lo < hi) { /* the first entry with key >= value */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ix->e[mid].key, value) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < ix->n && streq(ix->e[end].key, value))
		end++;
	*ret = ix->e + lo;
	return end - lo;
}

void cluster_state_clear(struct cluster_state *cs)
{
	for (int i = 0; i < _RES_MAX; i++) {
		drop_index(&cs->res[i]);
		free(cs->res[i].vec);
		free(cs->res[i].error);
	}
	free(cs->source);
	free(cs->api_server);
	free(cs->cluster_uid);
	free(cs->cluster_uid_error);
	jv_arena_free(cs->arena);
	*cs = (struct cluster_state){0};
}

const struct resource_def *resource_find(const char *group, const char *kind)
{
	/* Once per object read: the kind's first byte rules out most rows
	 * without a call (a string compare per row was 1 % of a report). */
	for (int i = 0; i < _RES_MAX; i++) {
		const struct resource_def *d = &resource_defs[i];
		if (kind && d->kind[0] == kind[0] && streq(d->kind, kind) && streq(d->group, group))
			return d;
	}
	return NULL;
}

const struct resource_def *resource_by_plural(const char *plural, const char *group)
{
	for (int i = 0; i < _RES_MAX; i++)
		if (streq(resource_defs[i].plural, plural) && streq(resource_defs[i].group, group))
			return &resource_defs[i];
	return NULL;
}

char *resource_file_name(const struct resource_def *d)
{
	if (!*d->group)
		return xasprintf("%s.json", d->plural);
	return xasprintf("%s.%s.json", d->plural, d->group);
}

char *resource_display_name(const struct resource_def *d)
{
	if (!*d->group)
		return xstrdup(d->plural);
	return xasprintf("%s.%s", d->plural, d->group);
}

const struct jv *cs_items(const struct cluster_state *cs, enum resource_id id)
{
	if ((unsigned)id >= _RES_MAX || cs->res[id].status != RES_COLLECTED)
		return NULL;
	return &cs->res[id].items;
}

size_t cs_count(const struct cluster_state *cs, enum resource_id id)
{
	return jq_len(cs_items(cs, id));
}

const struct jv *cs_find(const struct cluster_state *cs, enum resource_id id, const char *ns,
			 const char *name)
{
	const struct cs_entry *e;
	size_t n = cs_lookup(cs, id, jq_name, name, &e);
	/* Entries with one name keep the items' order: the first match wins, as
	 * a scan would find it. */
	for (size_t i = 0; i < n; i++)
		if (!ns || streq(jq_namespace(e[i].obj), ns))
			return e[i].obj;
	return NULL;
}

struct jv_arena *cs_arena(struct cluster_state *cs)
{
	if (!cs->arena)
		cs->arena = jv_arena_new();
	return cs->arena;
}

static void set_collected(struct resource_data *r)
{
	free(r->error);
	r->error = NULL;
	r->n = 0;
	r->status = RES_COLLECTED;
	r->items = (struct jv){.type = JV_ARRAY, .n = 0, .u.a = r->vec};
}

void cs_add_jv(struct cluster_state *cs, enum resource_id id, struct jv obj)
{
	struct resource_data *r = &cs->res[id];
	drop_index(r);
	if (r->status != RES_COLLECTED)
		set_collected(r);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->vec = xrealloc(r->vec, r->cap * sizeof(*r->vec));
	}
	r->vec[r->n++] = obj;
	r->items = (struct jv){.type = JV_ARRAY, .n = (uint32_t)r->n, .u.a = r->vec};
}

void cs_add_object(struct cluster_state *cs, enum resource_id id, json_object *obj)
{
	cs_add_jv(cs, id, jv_from_json(cs_arena(cs), obj));
}

void cs_set_status(struct cluster_state *cs, enum resource_id id, enum resource_status st,
		   const char *error_fmt, ...)
{
	struct resource_data *r = &cs->res[id];
	drop_index(r);
	va_list ap;
	va_start(ap, error_fmt);
	xvasprintf_replace(&r->error, error_fmt, ap);
	va_end(ap);
	if (st == RES_COLLECTED && r->status != RES_COLLECTED) {
		char *keep = r->error;
		r->error = NULL;
		set_collected(r);
		r->error = keep;
	}
	r->status = st;
	if (st != RES_COLLECTED)
		r->n = 0;
}

void cs_remove(struct cluster_state *cs, enum resource_id id, size_t i)
{
	struct resource_data *r = &cs->res[id];
	if (r->status != RES_COLLECTED || i >= r->n)
		return;
	drop_index(r);
	memmove(r->vec + i, r->vec + i + 1, (r->n - i - 1) * sizeof(*r->vec));
	r->n--;
	r->items.n = (uint32_t)r->n;
}

void cs_replace_object(struct cluster_state *cs, enum resource_id id, size_t i, json_object *obj)
{
	struct resource_data *r = &cs->res[id];
	if (r->status != RES_COLLECTED || i >= r->n)
		return;
	drop_index(r);
	r->vec[i] = jv_from_json(cs_arena(cs), obj);
}
