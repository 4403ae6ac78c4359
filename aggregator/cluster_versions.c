/*
 * Version detection and the support-matrix ranges (docs/support-matrix.md).
 * The ranges are the releases whose upstream code the version-dependent
 * rules were read from; outside them hvready applies the rules of the nearest
 * end and says so.
 */
#include "cluster_versions.h"

#include <stdlib.h>
#include <string.h>

#include "json_query.h"
#include "json_write.h"
#include "semver.h"
#include "util.h"

struct matrix_range {
	struct semver min, max; /* max.patch/minor may be "any": 999 */
	const char *label, *oldest, *newest;
};

static const struct {
	const char *name, *key;
	bool has_range;
	struct matrix_range r;
} components[_VC_MAX] = {
    [VC_HARVESTER] = {"Harvester",
		      "harvester",
		      true,
		      {{1, 4, 0}, {1, 8, 999}, "v1.4–v1.8", "v1.4", "v1.8"}},
    [VC_KUBEVIRT] = {"KubeVirt",
		     "kubevirt",
		     true,
		     {{1, 2, 0}, {1, 9, 999}, "v1.2–v1.9", "v1.2", "v1.9"}},
    /* CDI: detected and shown; no rule of hvready depends on its version. */
    [VC_CDI] = {"CDI", "cdi", false, {{0, 0, 0}, {0, 0, 0}, NULL, NULL, NULL}},
    [VC_LONGHORN] = {"Longhorn",
		     "longhorn",
		     true,
		     {{1, 6, 0}, {1, 11, 999}, "v1.6–v1.11", "v1.6", "v1.11"}},
    [VC_KUBERNETES] = {"Kubernetes",
		       "kubernetes",
		       true,
		       {{1, 29, 0}, {1, 35, 999}, "v1.29–v1.35", "v1.29", "v1.35"}},
    [VC_CONTAINERD] = {"containerd",
		       "containerd",
		       true,
		       {{1, 7, 0}, {2, 999, 999}, "1.7–2.x", "1.7", "2.x"}},
};

const char *version_component_name(enum version_component c)
{
	return c >= 0 && c < _VC_MAX ? components[c].name : "?";
}

const char *version_component_key(enum version_component c)
{
	return c >= 0 && c < _VC_MAX ? components[c].key : "?";
}

bool version_component_has_range(enum version_component c)
{
	return c >= 0 && c < _VC_MAX && components[c].has_range;
}

/* "containerd://1.7.23-k3s2" → "1.7.23-k3s2"; other runtimes: NULL. */
static const char *containerd_of(const char *runtime)
{
	static const char prefix[] = "containerd://";
	if (!runtime || strncmp(runtime, prefix, sizeof(prefix) - 1) != 0)
		return NULL;
	return runtime + sizeof(prefix) - 1;
}

char *versions_matrix_note(enum version_component c, const char *version)
{
	if (c < 0 || c >= _VC_MAX || !components[c].has_range || !version)
		return NULL;
	const char *s =
	    c == VC_CONTAINERD && containerd_of(version) ? containerd_of(version) : version;
	struct semver v;
	if (semver_parse(s, &v) != 0)
		return NULL;
	const struct matrix_range *r = &components[c].r;
	bool older = semver_cmp(&v, &r->min)<0, newer = semver_cmp(&v, &r->max)> 0;
	if (!older && !newer)
		return NULL;
	return xasprintf("%s %s is %s than the support matrix (%s): rules of %s apply",
			 components[c].name, version, newer ? "newer" : "older", r->label,
			 newer ? r->newest : r->oldest);
}

static void set(struct component_version *cv, const char *version, const char *from,
		enum version_component c)
{
	cv->version = xstrdup(version);
	cv->from = xstrdup(from);
	cv->note = versions_matrix_note(c, version);
}

/* The first CR of a kind that reports the field (one KubeVirt/CDI per
 * cluster; a second is refused by its operator). */
static const char *first_status(const struct cluster_state *cs, enum resource_id rid,
				const char *field)
{
	const struct jv *items = cs_items(cs, rid);
	for (size_t i = 0; i < jq_len(items); i++) {
		const char *v = JQS(jq_at(items, i), "status", field);
		if (v && *v)
			return v;
	}
	return NULL;
}

/* An operator's CR (KubeVirt, CDI): the observed version is what runs. Before
 * the operator has observed one (a fresh install), the target is what is
 * being deployed, said as such; during an upgrade (target differs from
 * observed) the rules are the running version's, and the source says where it
 * is going. The operator's own version is the last resort: it deploys its own
 * release (virt-operator's operatorVersion, CDI's operatorVersion). */
static void detect_operator(const struct cluster_state *cs, enum resource_id rid, const char *res,
			    const char *observed_f, const char *target_f,
			    struct component_version *cv, enum version_component c)
{
	const char *observed = first_status(cs, rid, observed_f);
	const char *target = first_status(cs, rid, target_f);
	const char *op = first_status(cs, rid, "operatorVersion");
	_cleanup_free_ char *from = NULL;
	if (observed && target && !streq(observed, target))
		from = xasprintf("%s status.%s; upgrading to %s (status.%s)", res, observed_f,
				 target, target_f);
	else if (observed)
		from = xasprintf("%s status.%s", res, observed_f);
	else if (target)
		from = xasprintf("%s status.%s (being deployed, not yet observed)", res, target_f);
	else if (op)
		from = xasprintf("%s status.operatorVersion (no deployed version reported)", res);
	const char *v = observed ? observed : target ? target : op;
	if (v)
		set(cv, v, from, c);
}

static void detect_longhorn(const struct cluster_state *cs, struct component_version *cv)
{
	const struct jv *settings = cs_items(cs, RES_LH_SETTINGS);
	for (size_t i = 0; i < jq_len(settings); i++) {
		const struct jv *s = jq_at(settings, i);
		const char *v = JQS(s, "value");
		struct semver sv;
		if (streq(jq_name(s), "current-longhorn-version") && v &&
		    semver_parse(v, &sv) == 0) {
			set(cv, v, "settings.longhorn.io current-longhorn-version", VC_LONGHORN);
			return;
		}
	}
	const struct jv *dss = cs_items(cs, RES_DAEMONSETS);
	for (size_t i = 0; i < jq_len(dss); i++) {
		const struct jv *ds = jq_at(dss, i);
		if (!streq(jq_name(ds), "longhorn-manager"))
			continue;
		const struct jv *cts = JQ(ds, "spec", "template", "spec", "containers");
		for (size_t j = 0; j < jq_len(cts); j++) {
			const struct jv *ct = jq_at(cts, j);
			char buf[128];
			const char *tag = semver_image_tag(JQS(ct, "image"), buf, sizeof(buf));
			struct semver sv;
			if ((streq(JQS(ct, "name"), "longhorn-manager") || jq_len(cts) == 1) &&
			    tag && semver_parse(tag, &sv) == 0) {
				set(cv, tag, "DaemonSet longhorn-manager image tag", VC_LONGHORN);
				return;
			}
		}
	}
}

static void detect_harvester(const struct cluster_state *cs, struct component_version *cv)
{
	const struct jv *s = cs_find(cs, RES_HV_SETTINGS, NULL, "server-version");
	const char *v = JQS(s, "value");
	if (!v || !*v)
		v = JQS(s, "default");
	if (v && *v)
		set(cv, v, "settings.harvesterhci.io server-version", VC_HARVESTER);
}

static const char *distribution_of(const char *kubelet)
{
	if (!kubelet)
		return NULL;
	if (strstr(kubelet, "+rke2"))
		return "rke2";
	if (strstr(kubelet, "+k3s"))
		return "k3s";
	return NULL;
}

/* Add s to the ", "-joined list *acc unless it is there already. */
static void join_distinct(char **acc, const char *s)
{
	if (!s || !*s)
		return;
	if (*acc) {
		size_t n = strlen(s);
		for (const char *p = *acc; (p = strstr(p, s)); p += n)
			if ((p == *acc || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
				return;
		char *j = xasprintf("%s, %s", *acc, s);
		free(*acc);
		*acc = j;
	} else
		*acc = xstrdup(s);
}

/* The first note of any node's version (each node is judged on its own). */
static void note_first(char **note, enum version_component c, const char *version)
{
	if (!*note)
		*note = versions_matrix_note(c, version);
}

static void detect_nodes(const struct cluster_state *cs, struct cluster_versions *ret)
{
	const struct jv *nodes = cs_items(cs, RES_NODES);
	size_t n = jq_len(nodes);
	if (!n)
		return;
	ret->nodes = xcalloc(n, sizeof(*ret->nodes));
	struct component_version *k = &ret->c[VC_KUBERNETES], *ctd = &ret->c[VC_CONTAINERD];
	for (size_t i = 0; i < n; i++) {
		const struct jv *o = jq_at(nodes, i);
		const struct jv *info = JQ(o, "status", "nodeInfo");
		struct node_version *nv = &ret->nodes[ret->n_nodes++];
		const char *kubelet = JQS(info, "kubeletVersion");
		const char *runtime = JQS(info, "containerRuntimeVersion");
		nv->name = xstrdup(jq_name(o) ? jq_name(o) : "");
		nv->kubelet = kubelet ? xstrdup(kubelet) : NULL;
		nv->distribution =
		    distribution_of(kubelet) ? xstrdup(distribution_of(kubelet)) : NULL;
		nv->runtime = runtime ? xstrdup(runtime) : NULL;
		nv->os_image = JQS(info, "osImage") ? xstrdup(JQS(info, "osImage")) : NULL;
		join_distinct(&k->version, kubelet);
		note_first(&k->note, VC_KUBERNETES, kubelet);
		join_distinct(&ctd->version, containerd_of(runtime));
		note_first(&ctd->note, VC_CONTAINERD, containerd_of(runtime));
	}
	if (k->version)
		k->from = xstrdup("nodes status.nodeInfo.kubeletVersion");
	if (ctd->version)
		ctd->from = xstrdup("nodes status.nodeInfo.containerRuntimeVersion");
}

void cluster_versions_detect(const struct cluster_state *cs, struct cluster_versions *ret)
{
	*ret = (struct cluster_versions){0};
	detect_harvester(cs, &ret->c[VC_HARVESTER]);
	detect_operator(cs, RES_KUBEVIRTS, "kubevirts.kubevirt.io", "observedKubeVirtVersion",
			"targetKubeVirtVersion", &ret->c[VC_KUBEVIRT], VC_KUBEVIRT);
	detect_operator(cs, RES_CDIS, "cdis.cdi.kubevirt.io", "observedVersion", "targetVersion",
			&ret->c[VC_CDI], VC_CDI);
	detect_longhorn(cs, &ret->c[VC_LONGHORN]);
	detect_nodes(cs, ret);
}

void cluster_versions_clear(struct cluster_versions *v)
{
	for (int c = 0; c < _VC_MAX; c++) {
		free(v->c[c].version);
		free(v->c[c].from);
		free(v->c[c].note);
	}
	for (size_t i = 0; i < v->n_nodes; i++) {
		free(v->nodes[i].name);
		free(v->nodes[i].kubelet);
		free(v->nodes[i].distribution);
		free(v->nodes[i].runtime);
		free(v->nodes[i].os_image);
	}
	free(v->nodes);
	*v = (struct cluster_versions){0};
}

void versions_note(struct kv_list *evidence, const struct cluster_state *cs,
		   enum version_component c)
{
	struct cluster_versions v;
	cluster_versions_detect(cs, &v);
	if (c >= 0 && c < _VC_MAX && v.c[c].note)
		kv_add_str(evidence, "version_note", v.c[c].note);
	cluster_versions_clear(&v);
}

void cluster_versions_write(struct jw *w, const struct cluster_versions *v)
{
	jw_object_begin(w);
	for (int c = 0; c < _VC_MAX; c++) {
		const struct component_version *cv = &v->c[c];
		jw_key(w, components[c].key);
		jw_object_begin(w);
		jw_member_str(w, "version", cv->version);
		jw_member_str(w, "from", cv->from);
		jw_key(w, "in_matrix");
		if (cv->version && version_component_has_range(c))
			jw_bool(w, !cv->note);
		else
			jw_null(w);
		if (cv->note)
			jw_member_str(w, "note", cv->note);
		jw_object_end(w);
	}
	jw_key(w, "nodes");
	jw_array_begin(w);
	for (size_t i = 0; i < v->n_nodes; i++) {
		const struct node_version *nv = &v->nodes[i];
		jw_object_begin(w);
		jw_member_str(w, "name", nv->name);
		jw_member_str(w, "kubelet", nv->kubelet);
		jw_member_str(w, "distribution", nv->distribution);
		jw_member_str(w, "container_runtime", nv->runtime);
		jw_member_str(w, "os_image", nv->os_image);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_object_end(w);
}

char *cluster_versions_line(const struct cluster_versions *v)
{
	char *line = NULL;
	for (int c = 0; c < _VC_MAX; c++) {
		if (!v->c[c].version)
			continue;
		char *part = xasprintf("%s %s", components[c].name, v->c[c].version);
		char *j = line ? xasprintf("%s, %s", line, part) : part;
		if (line) {
			free(line);
			free(part);
		}
		line = j;
	}
	char *os = NULL;
	for (size_t i = 0; i < v->n_nodes; i++)
		join_distinct(&os, v->nodes[i].os_image);
	if (os) {
		char *j =
		    line ? xasprintf("%s; node OS %s", line, os) : xasprintf("node OS %s", os);
		free(line);
		free(os);
		line = j;
	}
	return line;
}
