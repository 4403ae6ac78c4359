/*
 * KubeVirt itself: is the Snapshot feature gate effectively on, did virt-api
 * read the current gates, are the KubeVirt and CDI operators' CRs Deployed
 * and Available (docs/checks/api.kubevirt.*.md).
 */
#include "checks_api.h"

#include <stdio.h>
#include <string.h>

#include "cluster_versions.h"
#include "helm_values.h"
#include "kubevirt_gates.h"
#include "kubevirt_util.h"
#include "semver.h"

#define SNAPSHOT_GATE	 "Snapshot"
#define VALUES_GATE_PATH "kubevirt.spec.configuration.developerConfiguration.featureGates"

static const char *elem_str(const struct jv *arr, size_t i)
{
	const struct jv *e = jq_at(arr, i);
	return jv_is(e, JV_STRING) ? jv_str(e) : NULL;
}

static bool list_has(const struct jv *arr, const char *s)
{
	for (size_t i = 0; i < jq_len(arr); i++)
		if (streq(elem_str(arr, i), s))
			return true;
	return false;
}

static void evidence_list(struct kv_list *ev, const char *key, const struct jv *arr)
{
	struct value_list *l = kv_add_list(ev, key);
	for (size_t i = 0; i < jq_len(arr); i++) {
		const char *s = elem_str(arr, i);
		_cleanup_free_ char *text = s ? NULL : jv_dump(jq_at(arr, i));
		vlist_add_str(l, s ? s : text);
	}
}

/* "Snapshots", "snapshot", " Snapshot": meant to be the gate, silently ignored
 * by KubeVirt (unknown gate names are not an error; a misspelt gate is the
 * common way a gate that "was added" stays off). */
static bool name_near_miss(const char *g)
{
	static const char *const names[] = {"snapshot",	    "snapshots",
					    "snapshotgate", "vmsnapshot",
					    "vmsnapshots",  "virtualmachinesnapshot",
					    "snapshotapi",  "snapshots-gate"};
	if (!g || streq(g, SNAPSHOT_GATE))
		return false;
	_cleanup_free_ char *t = strstrip(xstrdup(g));
	if (streq(t, SNAPSHOT_GATE))
		return true;
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (strcaseeq(t, names[i]))
			return true;
	return false;
}

/* "LiveMigration,Snapshot" as one name: what a HelmChart's spec.set
 * "{LiveMigration,Snapshot}" renders, since helm-controller escapes the commas
 * (helm_values.c). Returns whether a part of it is the gate or a near miss. */
static bool joined_near_miss(const char *g)
{
	if (!g || !strchr(g, ','))
		return false;
	struct strv parts = {0};
	strv_split(&parts, g, ",");
	bool hit = false;
	for (size_t i = 0; i < parts.n && !hit; i++) {
		_cleanup_free_ char *t = strstrip(xstrdup(parts.items[i]));
		hit = streq(t, SNAPSHOT_GATE) || name_near_miss(t);
	}
	strv_clear(&parts);
	return hit;
}

static void near_misses_in(const struct jv *arr, const char *where, struct strv *out)
{
	for (size_t i = 0; i < jq_len(arr); i++) {
		const char *g = elem_str(arr, i);
		_cleanup_free_ char *s = NULL;
		if (joined_near_miss(g))
			s = xasprintf("gate \"%s\" in %s: one name with commas, not a list of "
				      "gates (a HelmChart spec.set \"{a,b}\" reaches helm with "
				      "its commas escaped); KubeVirt ignores unknown names",
				      g, where);
		else if (name_near_miss(g))
			s = xasprintf("gate \"%s\" in %s: the gate is named \"Snapshot\" "
				      "(singular, exact case); KubeVirt ignores unknown names",
				      g, where);
		if (s)
			strv_add(out, s);
	}
}

/* Every featureGates key under the values' kubevirt tree that the chart never
 * renders (the kubevirt sub-chart renders only .Values.spec: a gate written under
 * kubevirt.configuration never reaches the CR). */
static void scan_values(const struct jv *node, const char *path, struct strv *out)
{
	if (!jv_is(node, JV_OBJECT))
		return;
	jv_foreach(node, key, val)
	{
		_cleanup_free_ char *p = xasprintf("%s.%s", path, key);
		if (strcaseeq(key, "featureGates") && !streq(p, VALUES_GATE_PATH)) {
			_cleanup_free_ char *s =
			    xasprintf("values key %s: never rendered; the chart reads %s", p,
				      VALUES_GATE_PATH);
			strv_add(out, s);
		}
		scan_values(val, p, out);
	}
}

static bool helm_managed(const struct jv *o)
{
	return JQS(o, "metadata", "annotations", "meta.helm.sh/release-name") ||
	       streq(kubevirt_util_label(o, "app.kubernetes.io/managed-by"), "Helm");
}

/* The gate list to set: the CR's current gates without near misses, plus Snapshot. */
static char *gate_list(const struct jv *gates, const char *sep, const char *quote)
{
	char *s = xstrdup("");
	for (size_t i = 0; i < jq_len(gates); i++) {
		const char *g = elem_str(gates, i);
		if (!g)
			continue;
		/* a comma-joined name: its parts are the gates that were meant */
		struct strv parts = {0};
		strv_split(&parts, g, ",");
		for (size_t j = 0; j < parts.n; j++) {
			_cleanup_free_ char *t = strstrip(xstrdup(parts.items[j]));
			if (!*t || name_near_miss(t) || streq(t, SNAPSHOT_GATE))
				continue;
			char *n = xasprintf("%s%s%s%s%s", s, *s ? sep : "", quote, t, quote);
			free(s);
			s = n;
		}
		strv_clear(&parts);
	}
	char *n = xasprintf("%s%s%s%s%s", s, *s ? sep : "", quote, SNAPSHOT_GATE, quote);
	free(s);
	return n;
}

/* default_on: the gate is on when listed nowhere (Beta from KubeVirt 1.9): only
 * then does taking it out of disabledFeatureGates switch it on. */
static void remedy_gate_off(struct judge *j, const struct jv *kv, const struct jv *gates,
			    const struct jv *disabled, const struct helm_values *hv,
			    bool default_on)
{
	const char *ns = jq_namespace(kv) ? jq_namespace(kv) : "harvester-system";
	const char *name = jq_name(kv) ? jq_name(kv) : "kubevirt";
	_cleanup_free_ char *set = gate_list(gates, ",", "");
	_cleanup_free_ char *json = gate_list(gates, ",", "\"");
	_cleanup_free_ char *how = NULL;
	if (default_on && list_has(disabled, SNAPSHOT_GATE))
		how = xasprintf("remove \"Snapshot\" from "
				"spec.configuration.developerConfiguration.disabledFeatureGates "
				"(kubectl -n %s edit kubevirt %s, or the same key under "
				"kubevirt.spec in the Helm values)",
				ns, name);
	else if (hv->found)
		how = xasprintf("in %s put the gate under %s: [%s]", hv->source, VALUES_GATE_PATH,
				set);
	else if (helm_managed(kv))
		how = xasprintf("helm upgrade harvester <chart> -n %s --reuse-values --no-hooks "
				"--set '%s={%s}' (a kubectl patch would be undone by the next "
				"helm upgrade)",
				ns, VALUES_GATE_PATH, set);
	else
		how = xasprintf("kubectl -n %s patch kubevirt %s --type=merge -p "
				"'{\"spec\":{\"configuration\":{\"developerConfiguration\":"
				"{\"featureGates\":[%s]}}}}'",
				ns, name, json);
	judge_remedy(
	    j,
	    "1) %s. 2) restart virt-api pod by pod, it reads gates only at start: for p in "
	    "$(kubectl -n %s get pod -l kubevirt.io=virt-api -o "
	    "jsonpath='{.items[*].metadata.name}'); do kubectl -n %s delete pod \"$p\" "
	    "--wait=false; kubectl -n %s rollout status deploy/virt-api --timeout=120s; done. "
	    "3) prove it: kubectl apply --dry-run=server -f a VirtualMachineSnapshot "
	    "(snapshot.kubevirt.io/v1beta1; v1alpha1 on KubeVirt 1.2 and older) of a VM that "
	    "does not exist answers \"not found\", "
	    "no longer \"snapshot feature gate not enabled\"",
	    how, ns, ns, ns);
}

static void snapshot_gate_one(struct agg_ctx *ctx, const char *id, const struct jv *kv,
			      const struct helm_values *hv)
{
	const struct jv *dev = JQ(kv, "spec", "configuration", "developerConfiguration");
	const struct jv *gates = JQ(dev, "featureGates"),
			*disabled = JQ(dev, "disabledFeatureGates");
	struct semver v;
	const char *vfield = NULL, *vs = kv_cr_version(kv, &v, &vfield);
	bool listed = list_has(gates, SNAPSHOT_GATE);
	struct kv_gate_eval g;
	kv_gate_eval(SNAPSHOT_GATE, vs ? &v : NULL, listed, list_has(disabled, SNAPSHOT_GATE), &g);
	struct kv_gate_eval dflt;
	kv_gate_eval(SNAPSHOT_GATE, vs ? &v : NULL, false, false, &dflt);
	size_t n_snap = cs_count(ctx->cs, RES_VM_SNAPSHOTS),
	       n_rest = cs_count(ctx->cs, RES_VM_RESTORES);

	struct strv near = {0};
	near_misses_in(gates, "spec.configuration.developerConfiguration.featureGates", &near);
	const struct jv *values_gates = NULL;
	if (hv->values) {
		values_gates = helm_values_get(hv->values, VALUES_GATE_PATH);
		_cleanup_free_ char *where = xasprintf("the Helm values (%s)", VALUES_GATE_PATH);
		near_misses_in(values_gates, where, &near);
		scan_values(JQ(hv->values, "kubevirt"), "kubevirt", &near);
	}

	struct finding *f = agg_object_finding(ctx, id, kv);
	struct judge j = {0};
	kv_add_str(&f->evidence, "kubevirt_version", vs ? vs : "unknown");
	if (vfield)
		kv_add_strf(&f->evidence, "version_from", "status.%s", vfield);
	versions_note(&f->evidence, ctx->cs, VC_KUBEVIRT);
	evidence_list(&f->evidence, "featureGates", gates);
	evidence_list(&f->evidence, "disabledFeatureGates", disabled);
	kv_add_str(&f->evidence, "snapshot_gate", g.decided ? (g.on ? "on" : "off") : "unknown");
	kv_add_str(&f->evidence, "decided_by", g.why);
	if (g.assumed[0])
		kv_add_str(&f->evidence, "version_rule", g.assumed);
	kv_add_int(&f->evidence, "virtualmachinesnapshots", (int64_t)n_snap);
	kv_add_int(&f->evidence, "virtualmachinerestores", (int64_t)n_rest);
	kv_add_str(&f->evidence, "helm_values",
		   hv->found
		       ? hv->source
		       : "no harvester HelmChart (values of a helm CLI release are not read)");
	if (hv->errors.n > 0) {
		struct value_list *l = kv_add_list(&f->evidence, "helm_values_errors");
		for (size_t i = 0; i < hv->errors.n; i++)
			vlist_add_str(l, hv->errors.items[i]);
	}
	if (near.n > 0) {
		struct value_list *l = kv_add_list(&f->evidence, "near_misses");
		for (size_t i = 0; i < near.n; i++)
			vlist_add_str(l, near.items[i]);
	}

	if (!g.decided) {
		judge_note(&j, STATUS_UNKNOWN, "Snapshot gate: %s", g.why);
		judge_remedy(&j, "check status.observedKubeVirtVersion of KubeVirt %s/%s",
			     jq_namespace(kv) ? jq_namespace(kv) : "",
			     kubevirt_util_str(jq_name(kv)));
	} else if (g.on) {
		/* Only when the values were readable: unparsable values say nothing. */
		if (listed && hv->found && hv->errors.n == 0 && helm_managed(kv) &&
		    !list_has(values_gates, SNAPSHOT_GATE)) {
			judge_note(&j, STATUS_WARN,
				   "Snapshot gate is on now, but the Helm values do not list it at "
				   "%s: the next helm upgrade renders the CR without it",
				   VALUES_GATE_PATH);
			remedy_gate_off(&j, kv, gates, disabled, hv, dflt.on);
		} else {
			judge_note(&j, STATUS_PASS, "Snapshot gate is on (%s)", g.why);
		}
	} else if (near.n > 0) {
		judge_note(&j, STATUS_FAIL, "Snapshot gate is off: %s%s", near.items[0],
			   near.n > 1 ? " (and more, see near_misses)" : "");
		remedy_gate_off(&j, kv, gates, disabled, hv, dflt.on);
	} else if (n_snap + n_rest > 0) {
		judge_note(&j, STATUS_FAIL,
			   "Snapshot gate is off (%s) while %zu VirtualMachineSnapshot and %zu "
			   "VirtualMachineRestore objects exist: new ones are denied with "
			   "\"snapshot feature gate not enabled\"",
			   g.why, n_snap, n_rest);
		remedy_gate_off(&j, kv, gates, disabled, hv, dflt.on);
	} else {
		judge_note(&j, STATUS_WARN,
			   "Snapshot gate is off (%s): VM snapshots through snapshot.kubevirt.io "
			   "are denied; Harvester's own VM backups do not need it",
			   g.why);
		remedy_gate_off(&j, kv, gates, disabled, hv, dflt.on);
	}
	/* A rule taken from another release than the one running is said, never implied. */
	if (g.assumed[0])
		judge_note(&j, j.status, "%s",
			   g.assumed); /* joined to the verdict's notes by "; " */
	strv_clear(&near);
	judge_decide(&j, f, "");
}

/* KubeVirt CRD not served, or no CR: nothing to judge here (api.kubevirt.available
 * says whether that is a problem). */
static bool kubevirt_absent(struct agg_ctx *ctx, const char *id)
{
	if (jq_len(cs_items(ctx->cs, RES_KUBEVIRTS)) > 0)
		return false;
	agg_not_applicable(ctx, id,
			   ctx->cs->res[RES_KUBEVIRTS].status == RES_NOT_INSTALLED
			       ? "KubeVirt is not installed (kubevirts.kubevirt.io is not served)"
			       : "no KubeVirt CR exists (see api.kubevirt.available)");
	return true;
}

void check_kubevirt_snapshot_gate(struct agg_ctx *ctx, const char *id)
{
	if (kubevirt_absent(ctx, id))
		return;
	struct helm_values hv;
	helm_values_harvester(ctx->cs, &hv);
	const struct jv *items = cs_items(ctx->cs, RES_KUBEVIRTS);
	for (size_t i = 0; i < jq_len(items); i++)
		snapshot_gate_one(ctx, id, jq_at(items, i), &hv);
	helm_values_clear(&hv);
}

/* ---- api.kubevirt.gate-stale ---------------------------------------------- */

struct spec_change {
	bool known;
	int64_t at;
	const char *manager; /* who made it, when managedFields say */
	const char *how;
};

/*
 * When did the gates last change? metadata.generation counts spec changes but
 * carries no time. managedFields do: the entry of the manager that owns
 * spec.configuration.developerConfiguration has the time of its last write.
 * `kubectl get -o json` strips managedFields; then only generation 1 ("the
 * spec never changed since creation") still gives a time.
 */
static void last_gate_change(const struct jv *kv, struct spec_change *c)
{
	*c = (struct spec_change){0};
	const struct jv *mf = JQ(kv, "metadata", "managedFields");
	for (size_t i = 0; i < jq_len(mf); i++) {
		const struct jv *e = jq_at(mf, i);
		const char *sub = JQS(e, "subresource");
		int64_t t;
		if ((sub && *sub) ||
		    !JQ(e, "fieldsV1", "f:spec", "f:configuration", "f:developerConfiguration") ||
		    !jq_time(JQ(e, "time"), &t))
			continue;
		if (!c->known || t > c->at) {
			c->known = true;
			c->at = t;
			c->manager = JQS(e, "manager");
			c->how = "metadata.managedFields: last write by the manager that owns "
				 "spec.configuration.developerConfiguration";
		}
	}
	int64_t gen, t;
	if (!c->known && jq_int(JQ(kv, "metadata", "generation"), &gen) && gen == 1 &&
	    jq_time(JQ(kv, "metadata", "creationTimestamp"), &t)) {
		c->known = true;
		c->at = t;
		c->how = "metadata.generation is 1: the spec has not changed since creation";
	}
}

/* When the virt-api process read its configuration: the start of its running
 * container(s) (a container restart re-reads), else the pod's start. */
static bool process_start(const struct jv *pod, int64_t *ret, const char **ret_src)
{
	const struct jv *cs = JQ(pod, "status", "containerStatuses");
	bool found = false;
	for (size_t i = 0; i < jq_len(cs); i++) {
		int64_t t;
		if (!jq_time(JQ(jq_at(cs, i), "state", "running", "startedAt"), &t))
			continue;
		if (!found || t < *ret)
			*ret = t;
		found = true;
		*ret_src = "containerStatuses[].state.running.startedAt";
	}
	if (found || jq_len(cs) > 0)
		return found;
	if (streq(JQS(pod, "status", "phase"), "Running") &&
	    jq_time(JQ(pod, "status", "startTime"), ret)) {
		*ret_src = "status.startTime";
		return true;
	}
	return false;
}

static void remedy_restart_virt_api(struct judge *j, const char *ns)
{
	judge_remedy(j,
		     "delete the virt-api pods one at a time, waiting for each to be ready "
		     "(the webhook stays served; avoid rollout restart, virt-operator owns the "
		     "Deployment): for p in $(kubectl -n %s get pod -l kubevirt.io=virt-api -o "
		     "jsonpath='{.items[*].metadata.name}'); do kubectl -n %s delete pod \"$p\" "
		     "--wait=false; kubectl -n %s rollout status deploy/virt-api "
		     "--timeout=120s; done",
		     ns, ns, ns);
}

static void gate_stale_one(struct agg_ctx *ctx, const char *id, const struct jv *kv)
{
	const char *ns = jq_namespace(kv) ? jq_namespace(kv) : "harvester-system";
	struct spec_change ch;
	last_gate_change(kv, &ch);
	int64_t gen = 0, obs = 0;
	bool have_gen = jq_int(JQ(kv, "metadata", "generation"), &gen);
	bool have_obs = jq_int(JQ(kv, "status", "observedGeneration"), &obs);

	struct finding *f = agg_object_finding(ctx, id, kv);
	struct judge j = {0};
	char ts[64];
	if (have_gen)
		kv_add_int(&f->evidence, "generation", gen);
	if (have_obs)
		kv_add_int(&f->evidence, "observedGeneration", obs);
	if (ch.known) {
		util_format_rfc3339(ch.at, ts, sizeof(ts));
		kv_add_str(&f->evidence, "gates_changed_at", ts);
		kv_add_str(&f->evidence, "changed_at_from", ch.how);
		if (ch.manager)
			kv_add_str(&f->evidence, "changed_by", ch.manager);
	}

	const struct jv *pods = cs_items(ctx->cs, RES_PODS);
	struct value_list *lp = kv_add_list(&f->evidence, "virt_api_pods");
	size_t n_running = 0, n_stale = 0, pos = 0;
	const char *first_stale = NULL;
	int64_t first_stale_at = 0;
	const struct jv *p;
	while ((p = kubevirt_util_next_labelled(pods, &pos, ns, "kubevirt.io", "virt-api"))) {
		int64_t start;
		const char *src = NULL;
		if (kubevirt_util_deleting(p) || !process_start(p, &start, &src))
			continue;
		n_running++;
		util_format_rfc3339(start, ts, sizeof(ts));
		bool stale = ch.known && start < ch.at;
		vlist_add_strf(lp, "%s started=%s%s", jq_name(p) ? jq_name(p) : "?", ts,
			       stale ? " (before the change)" : "");
		if (stale && !n_stale++) {
			first_stale = jq_name(p);
			first_stale_at = start;
		}
	}

	if (n_running == 0) {
		judge_note(&j, STATUS_UNKNOWN,
			   "no running virt-api pod (label kubevirt.io=virt-api) in %s to compare "
			   "with the KubeVirt CR",
			   ns);
		judge_remedy(&j,
			     "kubectl -n %s get pod -l kubevirt.io=virt-api; see "
			     "api.kubevirt.available",
			     ns);
	} else if (!ch.known) {
		judge_note(&j, STATUS_UNKNOWN,
			   "cannot tell when the feature gates last changed: the KubeVirt CR has "
			   "no managedFields (kubectl get -o json leaves them out unless given "
			   "--show-managed-fields) and generation %lld > 1",
			   (long long)gen);
		judge_remedy(&j,
			     "collect with hvready-aggregator collect (or kubectl get kubevirt -n "
			     "%s -o json --show-managed-fields); if the gates changed after the "
			     "virt-api pods' start times shown here, restart them: for p in "
			     "$(kubectl -n %s get pod -l kubevirt.io=virt-api -o "
			     "jsonpath='{.items[*].metadata.name}'); do kubectl -n %s delete pod "
			     "\"$p\" --wait=false; kubectl -n %s rollout status deploy/virt-api "
			     "--timeout=120s; done",
			     ns, ns, ns, ns);
	} else if (n_stale > 0) {
		char started[64], changed[64];
		util_format_rfc3339(first_stale_at, started, sizeof(started));
		util_format_rfc3339(ch.at, changed, sizeof(changed));
		judge_note(&j, STATUS_FAIL,
			   "%zu of %zu virt-api pods started before the feature gates last changed "
			   "(%s started=%s, gates changed at %s): they still run with the old "
			   "gates",
			   n_stale, n_running, first_stale ? first_stale : "?", started, changed);
		remedy_restart_virt_api(&j, ns);
	} else if (have_gen && have_obs && obs < gen) {
		judge_note(
		    &j, STATUS_WARN,
		    "virt-api pods started after the last gate change, but virt-operator has "
		    "not yet observed generation %lld (observedGeneration %lld)",
		    (long long)gen, (long long)obs);
		judge_remedy(&j,
			     "wait until status.observedGeneration equals metadata.generation and "
			     "phase is Deployed: kubectl -n %s get kubevirt %s -o "
			     "jsonpath='{.metadata.generation} {.status.observedGeneration} "
			     "{.status.phase}'",
			     ns, jq_name(kv) ? jq_name(kv) : "kubevirt");
	} else {
		judge_note(&j, STATUS_PASS,
			   "%s %zu virt-api %s started after the feature gates last changed",
			   n_running == 1 ? "the" : "all", n_running,
			   plural((int64_t)n_running, "pod", "pods"));
	}
	judge_decide(&j, f, "");
}

void check_kubevirt_gate_stale(struct agg_ctx *ctx, const char *id)
{
	if (kubevirt_absent(ctx, id))
		return;
	const struct jv *items = cs_items(ctx->cs, RES_KUBEVIRTS);
	for (size_t i = 0; i < jq_len(items); i++)
		gate_stale_one(ctx, id, jq_at(items, i));
}

/* ---- api.kubevirt.available ----------------------------------------------- */

static void evidence_condition(struct kv_list *ev, const struct jv *conds, const char *type)
{
	const struct jv *c = jq_condition(conds, type);
	if (!c)
		return;
	const char *reason = JQS(c, "reason"), *msg = JQS(c, "message");
	kv_add_strf(ev, type, "%s%s%s%s%s", JQS(c, "status") ? JQS(c, "status") : "?",
		    reason && *reason ? " " : "", reason ? reason : "", msg && *msg ? ": " : "",
		    msg ? msg : "");
}

static const char *cond_status(const struct jv *conds, const char *type)
{
	return JQS(jq_condition(conds, type), "status");
}

static const char *cond_text(const struct jv *conds, const char *type, const char *fallback)
{
	const struct jv *c = jq_condition(conds, type);
	const char *m = JQS(c, "message"), *r = JQS(c, "reason");
	return m && *m ? m : r && *r ? r : fallback;
}

/* The version an operator is moving to: KubeVirt's target, CDI's target. */
static const char *target_version(const struct jv *o)
{
	const char *v = JQS(o, "status", "targetKubeVirtVersion");
	return v ? v : JQS(o, "status", "targetVersion");
}

static void operator_cr_evidence(struct kv_list *ev, const struct jv *o, const struct jv *conds,
				 const char *phase)
{
	static const char *const types[] = {"Available", "Progressing", "Degraded", "Synchronized"};
	static const char *const versions[] = {"observedKubeVirtVersion", "targetKubeVirtVersion",
					       "observedVersion", "targetVersion",
					       "operatorVersion"};
	kv_add_str(ev, "phase", phase ? phase : "(none)");
	for (size_t i = 0; i < ELEMENTSOF(types); i++)
		evidence_condition(ev, conds, types[i]);
	for (size_t i = 0; i < ELEMENTSOF(versions); i++)
		if (JQS(o, "status", versions[i]))
			kv_add_str(ev, versions[i], JQS(o, "status", versions[i]));
}

/* One operator CR (KubeVirt or CDI): phase Deployed and Available=True. An
 * upgrade keeps it Available: virt-operator keeps phase Deployed and sets
 * Available, Progressing and Degraded True (reason UpdateInProgress); CDI's
 * operator sets phase Upgrading with the same three conditions True. */
static void judge_operator_cr(struct agg_ctx *ctx, const char *id, const struct jv *o,
			      const char *what, const char *remedy)
{
	const struct jv *conds = JQ(o, "status", "conditions");
	const char *phase = JQS(o, "status", "phase");
	const char *avail = cond_status(conds, "Available");
	const char *target = target_version(o) ? target_version(o) : "?";
	bool available = streq(avail, "True");
	struct finding *f = agg_object_finding(ctx, id, o);
	struct judge j = {0};
	operator_cr_evidence(&f->evidence, o, conds, phase);

	if (kubevirt_util_deleting(o))
		judge_note(&j, STATUS_FAIL, "%s CR is being deleted", what);
	else if (streq(phase, "Upgrading") && available)
		judge_note(&j, STATUS_WARN,
			   "%s is upgrading to %s and still Available (phase Upgrading: %s)", what,
			   target, cond_text(conds, "Degraded", "no message"));
	else if (!streq(phase, "Deployed") && streq(cond_status(conds, "Synchronized"), "False"))
		judge_note(&j, STATUS_FAIL, "%s is not deployed (phase %s): %s", what,
			   phase && *phase ? phase : "not set",
			   cond_text(conds, "Synchronized", "Synchronized=False"));
	else if (!streq(phase, "Deployed"))
		judge_note(&j, STATUS_FAIL, "%s is not deployed: phase %s", what,
			   phase && *phase ? phase
					   : "not set (the operator has not reconciled it)");
	else if (!available)
		judge_note(&j, STATUS_FAIL, "%s is Deployed but not Available (Available=%s)", what,
			   avail ? avail : "not reported");
	else if (streq(cond_status(conds, "Progressing"), "True"))
		judge_note(&j, STATUS_WARN, "%s is Available, an update is in progress (to %s)",
			   what, target);
	else if (streq(cond_status(conds, "Degraded"), "True"))
		judge_note(&j, STATUS_WARN, "%s is Available but Degraded: %s", what,
			   cond_text(conds, "Degraded", "no reason given"));
	else
		judge_note(&j, STATUS_PASS, "%s is Deployed and Available", what);
	if (j.status != STATUS_PASS)
		judge_remedy(&j, "%s", remedy);
	judge_decide(&j, f, "");
}

/* Harvester ships CDI since v1.5 (harvester/harvester
 * deploy/charts/harvester/values.yaml: v1.4.3 has none). */
static bool harvester_ships_cdi(const struct cluster_state *cs, const char **ret_version)
{
	const struct jv *d = cs_find(cs, RES_DEPLOYMENTS, "harvester-system", "harvester");
	const struct jv *containers = JQ(d, "spec", "template", "spec", "containers");
	char buf[128];
	for (size_t i = 0; i < jq_len(containers); i++) {
		const char *tag =
		    semver_image_tag(JQS(jq_at(containers, i), "image"), buf, sizeof(buf));
		struct semver v, v15 = {1, 5, 0};
		if (tag && semver_parse(tag, &v) == 0) {
			*ret_version = JQS(jq_at(containers, i), "image");
			return semver_cmp(&v, &v15) >= 0;
		}
	}
	*ret_version = NULL;
	return true;
}

static void missing_operator_cr(struct agg_ctx *ctx, const char *id, enum resource_id rid,
				const char *what, const char *remedy)
{
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	const char *hv_version = NULL;
	kv_add_str(&f->evidence, "resource", resource_status_name(ctx->cs->res[rid].status));
	if (!ctx->harvester_installed) {
		judge_note(&j, STATUS_SKIP, "%s is not installed (Harvester is not installed yet)",
			   what);
	} else if (rid == RES_CDIS && !harvester_ships_cdi(ctx->cs, &hv_version)) {
		kv_add_str(&f->evidence, "harvester_image", hv_version);
		versions_note(&f->evidence, ctx->cs, VC_HARVESTER);
		judge_note(&j, STATUS_SKIP, "no CDI: this Harvester release (%s) ships none",
			   hv_version);
	} else {
		judge_note(&j, STATUS_FAIL, "Harvester is installed but there is no %s CR", what);
		judge_remedy(&j, "%s", remedy);
	}
	judge_decide(&j, f, "");
}

void check_kubevirt_available(struct agg_ctx *ctx, const char *id)
{
	static const char kv_remedy[] =
	    "kubectl -n harvester-system get kubevirt kubevirt -o jsonpath='{range "
	    ".status.conditions[*]}{.type}={.status} {.reason}: {.message}{\"\\n\"}{end}'; "
	    "kubectl -n harvester-system logs deploy/virt-operator --tail=50; kubectl -n "
	    "harvester-system get pod -l 'kubevirt.io in (virt-api,virt-controller,virt-handler)'";
	static const char cdi_remedy[] =
	    "kubectl get cdi -o jsonpath='{range .items[*].status.conditions[*]}{.type}={.status} "
	    "{.reason}: {.message}{\"\\n\"}{end}'; kubectl -n harvester-system logs "
	    "deploy/cdi-operator --tail=50; kubectl -n harvester-system get pod -l "
	    "app.kubernetes.io/component=storage";
	const struct jv *kvs = cs_items(ctx->cs, RES_KUBEVIRTS),
			*cdis = cs_items(ctx->cs, RES_CDIS);
	if (jq_len(kvs) == 0 && jq_len(cdis) == 0 && !ctx->harvester_installed) {
		agg_not_applicable(
		    ctx, id,
		    "neither KubeVirt nor CDI is installed (Harvester is not installed yet)");
		return;
	}
	if (jq_len(kvs) == 0)
		missing_operator_cr(ctx, id, RES_KUBEVIRTS, "KubeVirt", kv_remedy);
	for (size_t i = 0; i < jq_len(kvs); i++)
		judge_operator_cr(ctx, id, jq_at(kvs, i), "KubeVirt", kv_remedy);
	if (jq_len(cdis) == 0)
		missing_operator_cr(ctx, id, RES_CDIS, "CDI", cdi_remedy);
	for (size_t i = 0; i < jq_len(cdis); i++)
		judge_operator_cr(ctx, id, jq_at(cdis, i), "CDI", cdi_remedy);
}
