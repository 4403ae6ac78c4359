/*
 * Before installing Harvester onto an existing RKE2 cluster ("promote" mode,
 * docs/checks/api.preinstall.conflicts.md, api.preinstall.cidrs.md):
 * components that conflict with what the chart brings, and the cluster's real
 * network parameters for the chart's promote values.
 */
#include "checks_api.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "cidr.h"
#include "cluster_versions.h"
#include "helm_values.h"
#include "kubevirt_util.h"
#include "semver.h"

/* What Harvester v1.8.2's chart installs (harvester/harvester
 * deploy/charts/harvester/Chart.yaml, values.yaml). */
#define TARGET_HARVESTER "v1.8.2"
#define TARGET_LONGHORN	 "1.11.2"

/* ---- api.preinstall.conflicts --------------------------------------------- */

static const char VSC_MANIFEST[] =
    "kubectl apply -f - <<'EOF'\n"
    "apiVersion: snapshot.storage.k8s.io/v1\n"
    "kind: VolumeSnapshotClass\n"
    "metadata:\n"
    "  name: longhorn\n"
    "driver: driver.longhorn.io\n"
    "deletionPolicy: Delete\n"
    "parameters:\n"
    "  type: bak   # needs a backup target; snap restores depend on the source volume\n"
    "EOF";

static bool is_snapshot_controller(const char *name)
{
	return streq(name, "snapshot-controller") || endswith(name, "-snapshot-controller");
}

static void conflict_snapshot_controller(struct agg_ctx *ctx, const char *id, size_t *n)
{
	struct strv found = {0};
	const struct jv *deps = cs_items(ctx->cs, RES_DEPLOYMENTS);
	for (size_t i = 0; i < jq_len(deps); i++) {
		const struct jv *d = jq_at(deps, i);
		if (is_snapshot_controller(jq_name(d))) {
			_cleanup_free_ char *s = xasprintf(
			    "Deployment %s/%s", kubevirt_util_str(jq_namespace(d)), jq_name(d));
			strv_add(&found, s);
		}
	}
	const struct jv *hcs = cs_items(ctx->cs, RES_HELMCHARTS);
	for (size_t i = 0; i < jq_len(hcs); i++) {
		const struct jv *h = jq_at(hcs, i);
		if (streq(jq_name(h), "rke2-snapshot-controller")) {
			_cleanup_free_ char *s = xasprintf(
			    "HelmChart %s/%s", kubevirt_util_str(jq_namespace(h)), jq_name(h));
			strv_add(&found, s);
		}
	}
	if (found.n == 0)
		return;
	(*n)++;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	struct value_list *l = kv_add_list(&f->evidence, "found");
	for (size_t i = 0; i < found.n; i++)
		vlist_add_str(l, found.items[i]);
	judge_note(&j, STATUS_WARN,
		   "a snapshot-controller already runs (%s): a second one from Harvester's "
		   "csi-snapshotter sub-chart would fight it for the lock and the CRDs",
		   found.items[0]);
	judge_remedy(&j,
		     "set csi-snapshotter.enabled: false in the Harvester values; that sub-chart "
		     "also creates the VolumeSnapshotClass longhorn, so create it by hand right "
		     "after the install (harvester exits fatally without it):\n%s",
		     VSC_MANIFEST);
	strv_clear(&found);
	judge_decide(&j, f, "");
}

static const char *first_image(const struct jv *workload)
{
	return JQS(jq_at(JQ(workload, "spec", "template", "spec", "containers"), 0), "image");
}

static void conflict_operator(struct agg_ctx *ctx, const char *id, const char *name,
			      const char *label, enum status level, const char *what,
			      const char *remedy, size_t *n)
{
	const struct jv *deps = cs_items(ctx->cs, RES_DEPLOYMENTS),
			*pods = cs_items(ctx->cs, RES_PODS);
	const struct jv *hit = NULL;
	for (size_t i = 0; i < jq_len(deps) && !hit; i++)
		if (streq(jq_name(jq_at(deps, i)), name))
			hit = jq_at(deps, i);
	size_t pos = 0;
	const struct jv *pod =
	    hit ? NULL : kubevirt_util_next_labelled(pods, &pos, NULL, label, name);
	if (!hit && !pod)
		return;
	(*n)++;
	const struct jv *o = hit ? hit : pod;
	struct finding *f = agg_object_finding(ctx, id, o);
	struct judge j = {0};
	kv_add_str(&f->evidence, "namespace", jq_namespace(o) ? jq_namespace(o) : "");
	if (hit) {
		int64_t ready = 0;
		jq_int(JQ(hit, "status", "readyReplicas"), &ready);
		kv_add_int(&f->evidence, "readyReplicas", ready);
		if (first_image(hit))
			kv_add_str(&f->evidence, "image", first_image(hit));
	}
	judge_note(&j, level, "%s already runs in namespace %s: %s", name,
		   jq_namespace(o) ? jq_namespace(o) : "?", what);
	judge_remedy(&j, "%s", remedy);
	judge_decide(&j, f, "");
}

/* The Harvester releases whose Longhorn chart is minor m or m+1 of an existing
 * Longhorn 1.m and not older than it (Longhorn upgrades one minor at a time and
 * refuses any downgrade, a patch one included). */
static void longhorn_paths(const struct semver *cur, struct kv_list *ev)
{
	static const struct {
		const char *harvester, *longhorn;
	} table[] = {{"v1.4.3", "1.7.3"},
		     {"v1.5.2", "1.8.2"},
		     {"v1.6.1", "1.9.2"},
		     {"v1.7.3", "1.10.2"},
		     {"v1.8.2", "1.11.2"}};
	struct value_list *l = kv_add_list(ev, "harvester_releases_that_fit");
	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
		struct semver v;
		if (semver_parse(table[i].longhorn, &v) == 0 && v.major == cur->major &&
		    (v.minor == cur->minor || v.minor == cur->minor + 1) &&
		    semver_cmp(&v, cur) >= 0)
			vlist_add_strf(l, "Harvester %s (Longhorn %s)", table[i].harvester,
				       table[i].longhorn);
	}
}

static const char *longhorn_version(const struct cluster_state *cs, const struct jv *ds,
				    const char **ret_from, char *buf, unsigned len)
{
	const struct jv *cs_ = JQ(ds, "spec", "template", "spec", "containers");
	for (size_t i = 0; i < jq_len(cs_); i++) {
		const struct jv *c = jq_at(cs_, i);
		if (!streq(JQS(c, "name"), "longhorn-manager") && jq_len(cs_) > 1)
			continue;
		const char *tag = semver_image_tag(JQS(c, "image"), buf, len);
		struct semver v;
		if (tag && semver_parse(tag, &v) == 0) {
			*ret_from = "longhorn-manager image tag";
			return tag;
		}
	}
	const struct jv *s =
	    cs_find(cs, RES_LH_SETTINGS, jq_namespace(ds), "current-longhorn-version");
	const char *v = JQS(s, "value");
	struct semver sv;
	if (v && semver_parse(v, &sv) == 0) {
		*ret_from = "setting current-longhorn-version";
		return v;
	}
	return NULL;
}

static void conflict_longhorn(struct agg_ctx *ctx, const char *id, size_t *n)
{
	const struct jv *dss = cs_items(ctx->cs, RES_DAEMONSETS), *ds = NULL;
	for (size_t i = 0; i < jq_len(dss) && !ds; i++)
		if (streq(jq_name(jq_at(dss, i)), "longhorn-manager"))
			ds = jq_at(dss, i);
	if (!ds)
		return;
	(*n)++;
	char buf[128];
	const char *from = NULL, *ns = jq_namespace(ds) ? jq_namespace(ds) : "";
	const char *ver = longhorn_version(ctx->cs, ds, &from, buf, sizeof(buf));
	struct semver v, target;
	semver_parse(TARGET_LONGHORN, &target);
	bool known = ver && semver_parse(ver, &v) == 0;
	struct finding *f = agg_object_finding(ctx, id, ds);
	struct judge j = {0};
	kv_add_str(&f->evidence, "longhorn_version", ver ? ver : "unknown");
	if (from)
		kv_add_str(&f->evidence, "version_from", from);
	versions_note(&f->evidence, ctx->cs, VC_LONGHORN);
	kv_add_strf(&f->evidence, "harvester_ships", "Longhorn %s (Harvester %s)", TARGET_LONGHORN,
		    TARGET_HARVESTER);
	const char *path = JQS(cs_find(ctx->cs, RES_LH_SETTINGS, ns, "default-data-path"), "value");
	if (path)
		kv_add_str(&f->evidence, "default-data-path", path);
	if (known)
		longhorn_paths(&v, &f->evidence);

	if (!streq(ns, "longhorn-system")) {
		judge_note(&j, STATUS_FAIL,
			   "Longhorn %s runs in namespace %s: Harvester's chart installs its own "
			   "into longhorn-system, two Longhorns would fight over the same CRDs",
			   ver ? ver : "(unknown version)", ns);
		judge_remedy(&j, "migrate the volumes off and uninstall this Longhorn, or move "
				 "it to longhorn-system at a version the chart can upgrade");
	} else if (!known) {
		judge_note(
		    &j, STATUS_WARN,
		    "an existing Longhorn of unknown version: the chart installs Longhorn %s "
		    "over it",
		    TARGET_LONGHORN);
		judge_remedy(&j, "kubectl -n longhorn-system get settings.longhorn.io "
				 "current-longhorn-version; Longhorn upgrades one minor at a time");
	} else if (v.major != target.major || semver_cmp(&v, &target) > 0) {
		judge_note(&j, STATUS_FAIL,
			   "existing Longhorn %s is newer than the %s that Harvester %s ships: "
			   "Longhorn cannot be downgraded",
			   ver, TARGET_LONGHORN, TARGET_HARVESTER);
		judge_remedy(&j, "install a Harvester release whose Longhorn is not older (see "
				 "harvester_releases_that_fit)");
	} else if (v.minor + 1 < target.minor) {
		judge_note(&j, STATUS_FAIL,
			   "existing Longhorn %s is more than one minor release behind the %s that "
			   "Harvester %s ships: Longhorn upgrades one minor at a time",
			   ver, TARGET_LONGHORN, TARGET_HARVESTER);
		judge_remedy(&j,
			     "upgrade the existing Longhorn to 1.%d.x first (one minor at a time), "
			     "or install a Harvester release listed in "
			     "harvester_releases_that_fit",
			     target.minor - 1);
	} else {
		judge_note(&j, STATUS_WARN,
			   "an existing Longhorn %s: the chart takes it over and upgrades it to %s "
			   "(%s)",
			   ver, TARGET_LONGHORN,
			   v.minor == target.minor ? "same minor release"
						   : "a supported one-minor upgrade");
		judge_remedy(&j,
			     "back up the volumes first; keep the data path: set "
			     "longhorn.defaultSettings.defaultDataPath to %s in the Harvester "
			     "values",
			     path ? path : "the current default-data-path setting");
	}
	judge_decide(&j, f, "");
}

static bool ingress_present(const struct cluster_state *cs, const char **ret)
{
	/* A HelmChart counts: helm-controller is about to deploy it. */
	static const enum resource_id rids[] = {RES_DAEMONSETS, RES_DEPLOYMENTS, RES_HELMCHARTS};
	for (size_t r = 0; r < ELEMENTSOF(rids); r++) {
		const struct jv *items = cs_items(cs, rids[r]);
		for (size_t i = 0; i < jq_len(items); i++) {
			const char *name = jq_name(jq_at(items, i));
			if (name && (strstr(name, "ingress-nginx") || strstr(name, "traefik"))) {
				*ret = name;
				return true;
			}
		}
	}
	return false;
}

void check_preinstall_conflicts(struct agg_ctx *ctx, const char *id)
{
	size_t n = 0;
	const char *ingress = NULL;
	conflict_snapshot_controller(ctx, id, &n);
	conflict_operator(
	    ctx, id, "virt-operator", "kubevirt.io", STATUS_FAIL,
	    "one cluster must have one virt-operator, or the KubeVirt CRs overwrite "
	    "each other",
	    "remove the existing KubeVirt before installing Harvester (its VMs stop): "
	    "kubectl delete kubevirt --all -A, wait until the KubeVirt components are "
	    "gone, then delete the operator (kubectl delete -f kubevirt-operator.yaml "
	    "or its Deployment) — or install Harvester into a cluster without KubeVirt",
	    &n);
	conflict_operator(
	    ctx, id, "cdi-operator", "cdi.kubevirt.io", STATUS_WARN,
	    "Harvester brings its own CDI; two CDI operators contend for the "
	    "cluster-wide CDI CR",
	    "remove the existing CDI (kubectl delete cdi --all, then its operator) or "
	    "make sure the chart's CDI adopts it",
	    &n);
	conflict_longhorn(ctx, id, &n);
	if (!ingress_present(ctx->cs, &ingress)) {
		n++;
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		kv_add_str(
		    &f->evidence, "looked_for",
		    "DaemonSet kube-system/rke2-ingress-nginx-controller, any *ingress-nginx* "
		    "or *traefik* workload");
		judge_note(
		    &j, STATUS_WARN,
		    "no ingress controller: Harvester's UI/API will not be reachable through "
		    "an Ingress");
		judge_remedy(&j,
			     "expose the harvester Service as NodePort (values: "
			     "service.harvester.type: NodePort) and access it with the SNI host "
			     "name: curl -k --resolve harvester.local:PORT:NODE_IP "
			     "https://harvester.local:PORT/dashboard/; ssl-certificates requeue "
			     "messages are then expected and harmless");
		judge_decide(&j, f, "");
	}
	if (n == 0) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		if (ingress)
			kv_add_strf(&f->evidence, "ingress",
				    "%s (it holds 80/443: expose Harvester "
				    "by NodePort to avoid it)",
				    ingress);
		judge_note(&j, STATUS_PASS,
			   "no conflicting snapshot-controller, KubeVirt, CDI or Longhorn; an "
			   "ingress controller is present");
		judge_decide(&j, f, "");
	}
}

/* ---- api.preinstall.cidrs ------------------------------------------------- */

struct net_pick {
	bool found, estimate;
	struct cidr c;
	char how[320];
};

static bool service_ip(const struct jv *svc, struct cidr *ret)
{
	const char *ip = JQS(svc, "spec", "clusterIP");
	return ip && !streq(ip, "None") && cidr_parse(ip, ret) == 0;
}

/* Whether svc can be the cluster DNS: it lists port 53, or no ports at all. The
 * CoreDNS chart's metrics Service carries the same k8s-app=kube-dns label with
 * only port 9153 and a ClusterIP of its own. */
static bool serves_dns(const struct jv *svc)
{
	const struct jv *ports = JQ(svc, "spec", "ports");
	for (size_t i = 0; i < jq_len(ports); i++) {
		int64_t port;
		if (jq_int(JQ(jq_at(ports, i), "port"), &port) && port == 53)
			return true;
	}
	return jq_len(ports) == 0;
}

static void pick_dns(const struct cluster_state *cs, struct net_pick *p)
{
	const struct jv *svc =
	    cs_find(cs, RES_SERVICES, "kube-system", "rke2-coredns-rke2-coredns");
	if (svc && service_ip(svc, &p->c)) {
		p->found = true;
		snprintf(p->how, sizeof(p->how), "Service kube-system/rke2-coredns-rke2-coredns");
		return;
	}
	const struct jv *items = cs_items(cs, RES_SERVICES);
	size_t pos = 0;
	const struct jv *s;
	while ((s = kubevirt_util_next_labelled(items, &pos, NULL, "k8s-app", "kube-dns")))
		if (serves_dns(s) && service_ip(s, &p->c)) {
			p->found = true;
			snprintf(p->how, sizeof(p->how), "Service %s/%s (k8s-app=kube-dns)",
				 kubevirt_util_str(jq_namespace(s)), kubevirt_util_str(jq_name(s)));
			return;
		}
	snprintf(p->how, sizeof(p->how),
		 "no Service kube-system/rke2-coredns-rke2-coredns nor one labelled "
		 "k8s-app=kube-dns");
}

/* Every node's podCIDRs (or podCIDR) of the primary family, into l. */
static size_t node_pod_cidrs(const struct cluster_state *cs, int *family, struct cidr *super,
			     struct value_list *l, bool *dual)
{
	const struct jv *nodes = cs_items(cs, RES_NODES);
	size_t n = 0;
	for (size_t i = 0; i < jq_len(nodes); i++) {
		const struct jv *node = jq_at(nodes, i), *list = JQ(node, "spec", "podCIDRs");
		size_t m = jq_len(list) ? jq_len(list) : 1;
		for (size_t j = 0; j < m; j++) {
			const char *s =
			    jq_len(list) ? jv_str(jq_at(list, j)) : JQS(node, "spec", "podCIDR");
			struct cidr c;
			if (!s || cidr_parse(s, &c) < 0)
				continue;
			vlist_add_strf(l, "%s: %s", jq_name(node) ? jq_name(node) : "?", s);
			if (!*family)
				*family = c.family; /* the first one listed is the primary */
			if (c.family != *family) {
				*dual = true;
				continue;
			}
			if (n++ == 0)
				*super = c;
			else
				cidr_supernet(super, &c, super);
		}
	}
	return n;
}

static void pick_pod(const struct cluster_state *cs, struct net_pick *p, struct kv_list *ev)
{
	struct cidr super, rke2;
	int family = 0;
	bool dual = false;
	struct value_list *l = kv_add_list(ev, "node_podCIDRs");
	size_t n = node_pod_cidrs(cs, &family, &super, l, &dual);
	if (dual)
		kv_add_str(ev, "dual_stack",
			   "nodes have podCIDRs of two families; promote gets the primary "
			   "(first-listed) family");
	if (n == 0) {
		snprintf(p->how, sizeof(p->how),
			 "no node carries spec.podCIDR(s): the CNI allocates pod addresses itself");
		return;
	}
	char s[CIDR_STRLEN];
	cidr_format(&super, true, s, sizeof(s));
	kv_add_str(ev, "smallest_common_supernet", s);
	p->found = true;
	cidr_parse("10.42.0.0/16", &rke2);
	if (cidr_contains(&rke2, &super)) {
		p->c = rke2;
		snprintf(p->how, sizeof(p->how),
			 "RKE2's default cluster-cidr 10.42.0.0/16 covers %s %zu node %s",
			 n == 1 ? "the" : "all", n, plural((int64_t)n, "podCIDR", "podCIDRs"));
		return;
	}
	p->estimate = true;
	/* A node gets a /24 (IPv4) or /64 (IPv6) out of the cluster CIDR; the cluster CIDR
	 * itself is not in the API. RKE2/kubeadm clusters use a /16 for IPv4. */
	int widest = family == AF_INET ? 16 : 48;
	p->c = super.prefix > widest ? cidr_widen(&super, widest) : super;
	snprintf(p->how, sizeof(p->how),
		 "estimate: the /%d around all %zu node podCIDRs (smallest common supernet %s); "
		 "the real cluster-cidr is in the RKE2 config, not in the API",
		 p->c.prefix, n, s);
}

static void pick_service(const struct cluster_state *cs, struct net_pick *p)
{
	const struct jv *k = cs_find(cs, RES_SERVICES, "default", "kubernetes");
	struct cidr kip, rke2;
	if (!k || !service_ip(k, &kip)) {
		snprintf(p->how, sizeof(p->how), "no ClusterIP on Service default/kubernetes");
		return;
	}
	p->found = true;
	/* Every ClusterIP lies in the service CIDR: their supernet is a lower bound. */
	struct cidr all = kip;
	const struct jv *svcs = cs_items(cs, RES_SERVICES);
	for (size_t i = 0; i < jq_len(svcs); i++) {
		struct cidr c;
		if (service_ip(jq_at(svcs, i), &c) && c.family == kip.family)
			cidr_supernet(&all, &c, &all);
	}
	cidr_parse("10.43.0.0/16", &rke2);
	char ip[CIDR_STRLEN];
	cidr_format(&kip, false, ip, sizeof(ip));
	if (streq(ip, "10.43.0.1") && cidr_contains(&rke2, &all)) {
		p->c = rke2;
		snprintf(p->how, sizeof(p->how),
			 "Service default/kubernetes is 10.43.0.1: RKE2's default service-cidr "
			 "10.43.0.0/16");
		return;
	}
	p->estimate = true;
	int widest = kip.family == AF_INET ? 16 : 108;
	struct cidr est = cidr_widen(&kip, widest);
	cidr_supernet(&est, &all, &p->c);
	snprintf(p->how, sizeof(p->how),
		 "estimate: Service default/kubernetes is %s (the first address of the service "
		 "CIDR); the /%d around it covering every ClusterIP",
		 ip, p->c.prefix);
}

static void add_pick(struct kv_list *ev, const char *key, const struct net_pick *p, bool prefix)
{
	char s[CIDR_STRLEN];
	struct kv_list *m = kv_add_map(ev, key);
	if (p->found) {
		cidr_format(&p->c, prefix, s, sizeof(s));
		kv_add_str(m, "value", s);
		kv_add_bool(m, "estimate", p->estimate);
	}
	kv_add_str(m, "from", p->how);
}

/* RKE2's dual-stack form "10.42.0.0/16,2001:cafe:42::/56": the part of the
 * detected (primary) family is compared; every other part is noted as not
 * verifiable from the API. Returns the part to compare (in buf) or s itself. */
static const char *dual_stack_part(const char *path, const char *s, const struct net_pick *p,
				   char *buf, size_t len, struct value_list *out, bool *ret_extra)
{
	*ret_extra = false;
	if (!strchr(s, ','))
		return s;
	struct strv parts = {0};
	strv_split(&parts, s, ",");
	const char *pick = NULL;
	for (size_t i = 0; i < parts.n; i++) {
		_cleanup_free_ char *t = strstrip(xstrdup(parts.items[i]));
		struct cidr c;
		bool primary = cidr_parse(t, &c) == 0 && (!p->found || c.family == p->c.family);
		if (primary && !pick) {
			snprintf(buf, len, "%s", t);
			pick = buf;
		} else if (*t) {
			vlist_add_strf(out,
				       "%s: %s of the list \"%s\" not verified (only the primary "
				       "family is visible in the API)",
				       path, t, s);
			*ret_extra = true;
		}
	}
	strv_clear(&parts);
	return pick ? pick : s;
}

/* Compare one promote value of the harvester HelmChart with what was found. */
static enum status compare_value(const struct jv *values, const char *key, const struct net_pick *p,
				 bool prefix, struct value_list *out)
{
	_cleanup_free_ char *path = xasprintf("promote.%s", key);
	const struct jv *v = helm_values_get(values, path);
	const char *s = jv_is(v, JV_STRING) ? jv_str(v) : NULL;
	char found[CIDR_STRLEN] = "", part[CIDR_STRLEN];
	bool extra = false;
	if (p->found)
		cidr_format(&p->c, prefix, found, sizeof(found));
	if (!s) {
		vlist_add_strf(out, "%s: not set in the values (the chart's default would be used)",
			       path);
		return STATUS_FAIL;
	}
	s = dual_stack_part(path, s, p, part, sizeof(part), out, &extra);
	struct cidr c;
	if (cidr_parse(s, &c) < 0) {
		vlist_add_strf(out, "%s: %s is not an %s", path, s, prefix ? "IP prefix" : "IP");
		return STATUS_FAIL;
	}
	if (!p->found) {
		vlist_add_strf(out, "%s: %s (nothing detected to compare with)", path, s);
		return STATUS_PASS;
	}
	if (c.family == p->c.family && c.prefix == p->c.prefix &&
	    !memcmp(c.addr, p->c.addr, sizeof(c.addr))) {
		vlist_add_strf(out, "%s: %s matches", path, s);
		return extra ? STATUS_WARN : STATUS_PASS;
	}
	/* An estimate is only a lower bound: a value covering it may be right. */
	if (p->estimate && cidr_contains(&c, &p->c)) {
		vlist_add_strf(out, "%s: %s differs from the estimate %s but covers it: confirm",
			       path, s, found);
		return STATUS_WARN;
	}
	vlist_add_strf(out, "%s: %s, but the cluster has %s", path, s, found);
	return STATUS_FAIL;
}

static char *values_block(const struct net_pick *dns, const struct net_pick *pod,
			  const struct net_pick *svc, bool oneline)
{
	char d[CIDR_STRLEN] = "<unknown>", p[CIDR_STRLEN] = "<unknown>",
	     s[CIDR_STRLEN] = "<unknown>";
	if (dns->found)
		cidr_format(&dns->c, false, d, sizeof(d));
	if (pod->found)
		cidr_format(&pod->c, true, p, sizeof(p));
	if (svc->found)
		cidr_format(&svc->c, true, s, sizeof(s));
	if (oneline)
		return xasprintf("clusterDNS %s, clusterPodCIDR %s, clusterServiceCIDR %s", d, p,
				 s);
	return xasprintf("promote:\n  clusterDNS: %s\n  clusterPodCIDR: %s\n  clusterServiceCIDR: "
			 "%s\n",
			 d, p, s);
}

void check_preinstall_cidrs(struct agg_ctx *ctx, const char *id)
{
	struct net_pick dns = {0}, pod = {0}, svc = {0};
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	pick_dns(ctx->cs, &dns);
	pick_pod(ctx->cs, &pod, &f->evidence);
	pick_service(ctx->cs, &svc);
	add_pick(&f->evidence, "clusterDNS", &dns, false);
	add_pick(&f->evidence, "clusterPodCIDR", &pod, true);
	add_pick(&f->evidence, "clusterServiceCIDR", &svc, true);
	_cleanup_free_ char *block = values_block(&dns, &pod, &svc, false);
	_cleanup_free_ char *line = values_block(&dns, &pod, &svc, true);
	kv_add_str(&f->evidence, "values", block);

	enum status st = STATUS_PASS;
	struct helm_values hv;
	helm_values_harvester(ctx->cs, &hv);
	bool have_values = hv.found, parse_errors = false;
	if (hv.found) {
		kv_add_str(&f->evidence, "helm_values", hv.source);
		struct value_list *cmp = kv_add_list(&f->evidence, "helm_values_compared");
		for (size_t i = 0; i < hv.errors.n; i++)
			vlist_add_str(cmp, hv.errors.items[i]);
		st = status_worst(st, compare_value(hv.values, "clusterDNS", &dns, false, cmp));
		st = status_worst(st, compare_value(hv.values, "clusterPodCIDR", &pod, true, cmp));
		st = status_worst(st,
				  compare_value(hv.values, "clusterServiceCIDR", &svc, true, cmp));
		parse_errors = hv.errors.n > 0;
	}
	helm_values_clear(&hv);

	const char *what = !dns.found	? "clusterDNS"
			   : !pod.found ? "clusterPodCIDR"
			   : !svc.found ? "clusterServiceCIDR"
					: NULL;
	if (parse_errors) {
		judge_note(&j, STATUS_FAIL,
			   "the harvester HelmChart's values cannot be parsed: the chart would not "
			   "get what they seem to say (see helm_values_compared)");
	} else if (st == STATUS_FAIL) {
		judge_note(&j, STATUS_FAIL,
			   "the harvester HelmChart's promote values do not match this cluster "
			   "(see helm_values_compared)");
	} else if (what) {
		judge_note(&j, STATUS_UNKNOWN, "cannot detect %s: %s", what,
			   !dns.found	? dns.how
			   : !pod.found ? pod.how
					: svc.how);
	} else if (pod.estimate || svc.estimate) {
		judge_note(&j, STATUS_WARN, "promote values: %s; %s is an estimate: confirm it",
			   line, pod.estimate ? "clusterPodCIDR" : "clusterServiceCIDR");
	} else if (st == STATUS_WARN) {
		judge_note(&j, STATUS_WARN,
			   "promote values: %s; part of the harvester HelmChart's values could not "
			   "be verified (see helm_values_compared)",
			   line);
	} else {
		judge_note(&j, STATUS_PASS, "promote values: %s", line);
	}
	if (j.status != STATUS_PASS || !have_values)
		judge_remedy(&j,
			     "put exactly this into the Harvester values (confirm estimates and "
			     "unknowns with: grep -E 'cluster-cidr|service-cidr|cluster-dns' "
			     "/etc/rancher/rke2/config.yaml /etc/rancher/rke2/config.yaml.d/* on a "
			     "server node; a node's /24 is never the cluster CIDR):\n%s",
			     block);
	judge_decide(&j, f, "");
}
