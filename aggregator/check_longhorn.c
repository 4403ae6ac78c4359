/*
 * The Longhorn data plane (docs/checks/api.longhorn.*.md): what PVC Bound and
 * readyToUse=true do not show.
 *   api.longhorn.volume-health  state, robustness, replica modes, clone state
 *   api.longhorn.clone-stuck    a clone whose source is gone never converges
 *   api.longhorn.rwx-share      attached NFS-served RWX volumes have a running share-manager
 *   api.longhorn.node-disk      every node has a schedulable disk with room
 *
 * Replica modes (RW/WO/ERR) live in the volume's Engine, status.replicaModeMap,
 * keyed by Replica name; the Replica object has no mode (longhorn-manager
 * k8s/pkg/apis/longhorn/v1beta2: a `.spec.mode` or `.status.replicas` column
 * read from Replicas is always empty).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checks_api.h"
#include "longhorn.h"
#include "longhorn_engine.h"
#include "storage.h"

/* Async Longhorn states need time to converge before they mean anything
 * (a clone is "initiated" and robustness "unknown" right after creation). */
#define SETTLE_S 120

/* Longhorn not served: before Harvester's install nothing to check; after it,
 * Harvester's storage is missing. Returns false when a finding was added. */
static bool longhorn_applies(struct agg_ctx *ctx, const char *id, enum resource_id res)
{
	if (ctx->cs->res[res].status != RES_NOT_INSTALLED)
		return true;
	_cleanup_free_ char *name = resource_display_name(&resource_defs[res]);
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	if (ctx->harvester_installed) {
		judge_note(&j, STATUS_FAIL,
			   "Harvester is installed but %s is not served: Longhorn "
			   "is missing",
			   name);
		judge_remedy(&j, "kubectl -n longhorn-system get pods; kubectl get crd | grep "
				 "longhorn.io");
	} else {
		judge_note(&j, STATUS_SKIP, "Longhorn is not installed (%s is not served)", name);
	}
	judge_decide(&j, f, "");
	return false;
}

static const char *str_or(const char *s, const char *alt)
{
	return s ? s : alt;
}

/* ---- api.longhorn.volume-health ---- */

struct replica_facts {
	size_t total, rw, wo, err, nomode, failed;
};

/* The volume's engine whose replicaModeMap counts: the active one. */
static const struct jv *volume_engine(const struct cluster_state *cs, const struct jv *vol)
{
	const struct jv *first = NULL;
	const struct cs_entry *es;
	size_t n = cs_lookup(cs, RES_LH_ENGINES, longhorn_volume_of, jq_name(vol), &es);
	for (size_t i = 0; i < n; i++) {
		const struct jv *e = es[i].obj;
		bool active = false;
		if (jq_bool(JQ(e, "spec", "active"), &active) && active)
			return e;
		if (!first)
			first = e;
	}
	return first;
}

static void replica_facts(const struct cluster_state *cs, const struct jv *vol, struct kv_list *ev,
			  struct replica_facts *rf)
{
	const struct jv *modes = JQ(volume_engine(cs, vol), "status", "replicaModeMap");
	struct value_list *l = kv_add_list(ev, "replicas");
	*rf = (struct replica_facts){0};
	const struct cs_entry *rs;
	size_t nr = cs_lookup(cs, RES_LH_REPLICAS, longhorn_volume_of, jq_name(vol), &rs);
	for (size_t i = 0; i < nr; i++) {
		const struct jv *r = rs[i].obj;
		const char *rname = str_or(jq_name(r), "?");
		const char *mode = JQS(modes, rname), *failed = JQS(r, "spec", "failedAt");
		rf->total++;
		if (streq(mode, "RW"))
			rf->rw++;
		else if (streq(mode, "WO"))
			rf->wo++;
		else if (streq(mode, "ERR"))
			rf->err++;
		else
			rf->nomode++;
		if (failed && *failed)
			rf->failed++;
		vlist_add_strf(l, "%s node=%s state=%s mode=%s failedAt=%s", rname,
			       str_or(JQS(r, "spec", "nodeID"), "?"),
			       str_or(JQS(r, "status", "currentState"), STORAGE_ABSENT),
			       str_or(mode, "none"),
			       failed ? (*failed ? failed : "\"\"") : STORAGE_ABSENT);
	}
}

/* Whether a pod still uses the volume: Longhorn keeps the last workloads as history
 * and marks them with lastPodRefAt (pods gone) or lastPVCRefAt (claim gone). */
static bool has_active_workload(const struct jv *ks)
{
	const char *pod_ref = JQS(ks, "lastPodRefAt"), *pvc_ref = JQS(ks, "lastPVCRefAt");
	if ((pod_ref && *pod_ref) || (pvc_ref && *pvc_ref))
		return false;
	const struct jv *ws = JQ(ks, "workloadsStatus");
	for (size_t i = 0; i < jq_len(ws); i++) {
		const char *phase = JQS(jq_at(ws, i), "podStatus");
		if (!streq(phase, "Succeeded") && !streq(phase, "Failed"))
			return true;
	}
	return false;
}

/* "ns/vmi" when a virt-launcher pod uses or used the volume. */
static const char *volume_vm(const struct jv *vol, char *buf, size_t len)
{
	const struct jv *ws = JQ(vol, "status", "kubernetesStatus", "workloadsStatus");
	for (size_t i = 0; i < jq_len(ws); i++)
		if (streq(JQS(jq_at(ws, i), "workloadType"), "VirtualMachineInstance")) {
			snprintf(buf, len, "%s/%s",
				 str_or(JQS(vol, "status", "kubernetesStatus", "namespace"), "?"),
				 str_or(JQS(jq_at(ws, i), "workloadName"), "?"));
			return buf;
		}
	return NULL;
}

struct health_counts {
	size_t total, attached_healthy, detached, deleting, other_ok, problems;
};

static void volume_evidence(struct finding *f, const struct jv *vol, const char *state,
			    const char *robustness, const char *clone, int64_t age)
{
	struct kv_list *ev = &f->evidence;
	const char *pvc_ns = JQS(vol, "status", "kubernetesStatus", "namespace");
	const char *pvc = JQS(vol, "status", "kubernetesStatus", "pvcName");
	int64_t n;
	storage_ev_str(ev, "state", state);
	storage_ev_str(ev, "robustness", robustness);
	storage_ev_str(ev, "clone_state", clone);
	storage_ev_str(ev, "data_source", JQS(vol, "spec", "dataSource"));
	if (jq_int(JQ(vol, "spec", "numberOfReplicas"), &n))
		kv_add_int(ev, "number_of_replicas", n);
	storage_ev_str(ev, "current_node", JQS(vol, "status", "currentNodeID"));
	storage_ev_str(ev, "access_mode", JQS(vol, "spec", "accessMode"));
	if (pvc)
		kv_add_strf(ev, "pvc", "%s/%s", str_or(pvc_ns, "?"), pvc);
	if (age >= 0) {
		char d[32];
		storage_format_duration(age, d, sizeof(d));
		kv_add_str(ev, "age", d);
	}
}

/* What to do about the worst problem found on a volume. */
enum health_fix {
	FIX_NONE,
	FIX_SALVAGE,
	FIX_CLONE,
	FIX_REBUILD,
	FIX_ATTACH_CLONE,
	FIX_NO_REPLICAS,
	FIX_INSPECT
};

static void health_remedy(struct judge *j, const char *name, enum health_fix fix)
{
	switch (fix) {
	case FIX_SALVAGE:
		judge_remedy(j,
			     "kubectl -n longhorn-system get replicas.longhorn.io -l "
			     "longhornvolume=%s -o wide; Longhorn salvages a faulted volume's "
			     "replicas when it is reattached (setting auto-salvage); if none can "
			     "be salvaged, restore the volume from a backup",
			     name);
		break;
	case FIX_CLONE:
		judge_remedy(j,
			     "see api.longhorn.clone-stuck: if its source is gone, delete the "
			     "restored volume's PVC and restore from a backup (type bak) instead");
		break;
	case FIX_REBUILD:
		judge_remedy(
		    j,
		    "Longhorn rebuilds replicas when a node with a schedulable disk is "
		    "free: watch kubectl -n longhorn-system get volumes.longhorn.io %s -w; "
		    "if it stays degraded, see api.longhorn.node-disk and the volume's "
		    "Scheduled condition",
		    name);
		break;
	case FIX_ATTACH_CLONE:
		judge_remedy(
		    j,
		    "attach the volume once (start its workload, or Longhorn UI → Attach): "
		    "Longhorn then rebuilds the missing replicas and marks the clone completed; "
		    "or let Longhorn rebuild it detached: setting offline-replica-rebuilding "
		    "(Longhorn >= 1.9), or kubectl -n longhorn-system patch volumes.longhorn.io "
		    "%s --type=merge -p '{\"spec\":{\"offlineRebuilding\":\"enabled\"}}'. On "
		    "Longhorn 1.10.1 the attach may fail with \"not ready for workloads\" "
		    "(longhorn#12206): upgrade to 1.10.2",
		    name);
		break;
	case FIX_NO_REPLICAS:
		judge_remedy(j,
			     "kubectl -n longhorn-system get replicas.longhorn.io -l "
			     "longhornvolume=%s; a volume without replicas holds no data: restore "
			     "it from a backup",
			     name);
		break;
	case FIX_INSPECT:
	case FIX_NONE:
		judge_remedy(j,
			     "kubectl -n longhorn-system get volumes.longhorn.io %s -o yaml; "
			     "kubectl -n longhorn-system logs -l app=longhorn-manager --tail=500 | "
			     "grep %s",
			     name, name);
		break;
	}
}

/* The facts a verdict on one volume rests on. */
struct vol_facts {
	const char *state, *rob, *clone, *ds, *vm;
	int64_t want;
	bool young, vm_running; /* vm may be history: running only when its pod is */
	struct replica_facts rf;
};

struct vol_verdict {
	enum status st;
	enum health_fix fix;
	char *msg; /* "; "-separated problems, owned; NULL when healthy */
};

static void add_problem(struct vol_verdict *v, enum status st, enum health_fix fix, const char *fmt,
			...) _printf_(4, 5);
static void add_problem(struct vol_verdict *v, enum status st, enum health_fix fix, const char *fmt,
			...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *m = xvasprintf(fmt, ap);
	va_end(ap);
	storage_appendf(&v->msg, "%s%s", v->msg ? "; " : "", m);
	/* The remedy follows the first, most serious problem. */
	if (v->fix == FIX_NONE || status_severity(st) > status_severity(v->st))
		v->fix = fix;
	v->st = status_worst(v->st, st);
}

static void volume_verdict(const struct jv *vol, const struct vol_facts *x, struct vol_verdict *v)
{
	const struct replica_facts *rf = &x->rf;
	*v = (struct vol_verdict){.st = STATUS_PASS, .fix = FIX_NONE};
	if (streq(x->rob, "faulted"))
		add_problem(v, STATUS_FAIL, FIX_SALVAGE,
			    "faulted: no healthy replica (%zu of %lld RW), the data is unreachable",
			    rf->rw, (long long)x->want);
	if (streq(x->clone, "failed"))
		add_problem(v, STATUS_FAIL, FIX_CLONE,
			    "clone from %s failed: the volume holds no usable data "
			    "(api.longhorn.clone-stuck says why)",
			    str_or(x->ds, "?"));
	if (streq(x->rob, "degraded")) {
		const struct jv *sched = jq_condition(JQ(vol, "status", "conditions"), "Scheduled");
		bool unsched = streq(JQS(sched, "status"), "False");
		add_problem(
		    v, STATUS_WARN, FIX_REBUILD,
		    "degraded: %zu of %lld replicas RW (%zu WO rebuilding, %zu ERR, %zu "
		    "without mode)%s%s%s%s",
		    rf->rw, (long long)x->want, rf->wo, rf->err, rf->nomode,
		    x->vm_running ? "; it blocks live migration of VM " : "",
		    x->vm_running ? x->vm : "", unsched ? "; Scheduled=False: " : "",
		    unsched ? str_or(JQS(sched, "message"), str_or(JQS(sched, "reason"), "")) : "");
	}
	if (x->young)
		return;
	if (streq(x->clone, "initiated") || (x->clone && !*x->clone && x->ds && *x->ds))
		add_problem(v, STATUS_WARN, FIX_CLONE, "clone from %s has not converged (state %s)",
			    str_or(x->ds, "?"), *x->clone ? x->clone : "\"\"");
	/* Longhorn 1.10's efficient clone copies into one replica and detaches; the
	 * clone completes and the other replicas are rebuilt only on the next attach
	 * (longhorn#12341, #12328). Attached, robustness already tells. */
	if (streq(x->clone, "copy-completed-awaiting-healthy") && !streq(x->state, "attached"))
		add_problem(v, STATUS_WARN, FIX_ATTACH_CLONE,
			    "clone from %s is copied but waits in copy-completed-awaiting-healthy "
			    "with %zu of %lld replicas while %s: fewer copies of its data than "
			    "numberOfReplicas until it is attached",
			    str_or(x->ds, "?"), rf->total - rf->failed, (long long)x->want,
			    str_or(x->state, "not attached"));
	if (rf->total == 0 && x->want > 0)
		add_problem(v, STATUS_WARN, FIX_NO_REPLICAS,
			    "no Replica objects although numberOfReplicas is %lld: no copy of the "
			    "data exists",
			    (long long)x->want);
	if (streq(x->state, "attached") && (!x->rob || !*x->rob || streq(x->rob, "unknown")))
		add_problem(v, STATUS_WARN, FIX_INSPECT, "attached but robustness is %s",
			    x->rob ? (*x->rob ? x->rob : "\"\"") : STORAGE_ABSENT);
	if ((!x->state || !x->rob) && !v->msg)
		add_problem(v, STATUS_UNKNOWN, FIX_INSPECT, "reports no %s",
			    !x->state ? "status.state" : "status.robustness");
}

/* Judge one volume: a finding when it has a problem, else a count. */
static void volume_judge(struct agg_ctx *ctx, const char *id, const struct jv *vol,
			 struct health_counts *hc)
{
	const char *name = str_or(jq_name(vol), "?");
	char vmbuf[2 * LONGHORN_NAME_MAX];
	int64_t age = -1;
	/* Its data is being discarded on purpose: a faulted or unknown robustness
	 * while Longhorn tears it down is no health problem. */
	if (storage_deleting(vol)) {
		hc->deleting++;
		return;
	}
	bool have_age = storage_age_s(ctx, JQ(vol, "metadata", "creationTimestamp"), &age);
	struct vol_facts x = {
	    .state = JQS(vol, "status", "state"),
	    .rob = JQS(vol, "status", "robustness"),
	    .clone = JQS(vol, "status", "cloneStatus", "state"),
	    .ds = JQS(vol, "spec", "dataSource"),
	    .vm = volume_vm(vol, vmbuf, sizeof(vmbuf)),
	    .young = have_age && age < SETTLE_S,
	};
	x.vm_running = x.vm && has_active_workload(JQ(vol, "status", "kubernetesStatus"));
	jq_int(JQ(vol, "spec", "numberOfReplicas"), &x.want);
	struct kv_list rev = {0};
	replica_facts(ctx->cs, vol, &rev, &x.rf);
	struct vol_verdict v;
	volume_verdict(vol, &x, &v);
	if (!v.msg) {
		if (streq(x.state, "attached") && streq(x.rob, "healthy"))
			hc->attached_healthy++;
		else if (streq(x.state, "detached"))
			hc->detached++;
		else
			hc->other_ok++;
		kv_list_clear(&rev);
		return;
	}
	struct finding *f = storage_object_finding(ctx, id, "Volume", vol);
	struct judge j = {0};
	volume_evidence(f, vol, x.state, x.rob, x.clone, have_age ? age : -1);
	kv_add_value(&f->evidence, "replicas", &rev.items[0].val);
	kv_list_clear(&rev);
	if (x.vm)
		kv_add_str(&f->evidence, "vm", x.vm);
	judge_note(&j, v.st, "volume %s: %s", name, v.msg);
	health_remedy(&j, name, v.fix);
	free(v.msg);
	hc->problems++;
	judge_decide(&j, f, "");
}

void check_longhorn_volume_health(struct agg_ctx *ctx, const char *id)
{
	if (!longhorn_applies(ctx, id, RES_LH_VOLUMES))
		return;
	const struct jv *vols = cs_items(ctx->cs, RES_LH_VOLUMES);
	struct health_counts hc = {0};
	for (size_t i = 0; i < jq_len(vols); i++) {
		hc.total++;
		volume_judge(ctx, id, jq_at(vols, i), &hc);
	}
	if (hc.problems)
		return;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "volumes", (int64_t)hc.total);
	kv_add_int(&f->evidence, "attached_healthy", (int64_t)hc.attached_healthy);
	kv_add_int(&f->evidence, "detached", (int64_t)hc.detached);
	kv_add_int(&f->evidence, "being_deleted", (int64_t)hc.deleting);
	kv_add_int(&f->evidence, "other", (int64_t)hc.other_ok);
	if (hc.total == hc.deleting)
		judge_note(&j, STATUS_SKIP, "no Longhorn volumes (%zu being deleted)", hc.deleting);
	else
		judge_note(&j, STATUS_PASS,
			   "%zu Longhorn %s: %zu attached and healthy, %zu detached "
			   "(robustness unknown while detached is normal)%s",
			   hc.total, plural((int64_t)hc.total, "volume", "volumes"),
			   hc.attached_healthy, hc.detached,
			   hc.other_ok ? ", others still settling" : "");
	judge_decide(&j, f, "");
}

/* ---- api.longhorn.clone-stuck ---- */

struct clone_counts {
	size_t clones, completed, in_progress, deleting, problems;
};

static void clone_evidence(struct finding *f, const struct jv *vol, const char *state, int64_t age,
			   bool src_exists, int snap_exists)
{
	struct kv_list *ev = &f->evidence;
	const struct jv *cs = JQ(vol, "status", "cloneStatus");
	int64_t n;
	storage_ev_str(ev, "data_source", JQS(vol, "spec", "dataSource"));
	storage_ev_str(ev, "clone_state", state);
	if (jq_int(JQ(cs, "attemptCount"), &n))
		kv_add_int(ev, "attempt_count", n);
	storage_ev_str(ev, "next_allowed_attempt_at", JQS(cs, "nextAllowedAttemptAt"));
	storage_ev_str(ev, "clone_source_volume", JQS(cs, "sourceVolume"));
	kv_add_bool(ev, "source_volume_exists", src_exists);
	if (snap_exists >= 0)
		kv_add_bool(ev, "source_snapshot_exists", snap_exists);
	if (age >= 0) {
		char d[32];
		storage_format_duration(age, d, sizeof(d));
		kv_add_str(ev, "age", d);
	}
	kv_add_str(ev, "age_from",
		   "metadata.creationTimestamp (cloneStatus records no start time)");
	storage_ev_str(ev, "robustness", JQS(vol, "status", "robustness"));
	const char *pvc = JQS(vol, "status", "kubernetesStatus", "pvcName");
	if (pvc)
		kv_add_strf(ev, "pvc", "%s/%s",
			    str_or(JQS(vol, "status", "kubernetesStatus", "namespace"), "?"), pvc);
}

static void clone_never(struct judge *j, const struct jv *vol, const struct longhorn_ref *r,
			bool src_gone, bool snap_gone, const char *state)
{
	const char *ns = str_or(JQS(vol, "status", "kubernetesStatus", "namespace"), "<ns>");
	const char *pvc = str_or(JQS(vol, "status", "kubernetesStatus", "pvcName"), "<pvc>");
	const char *name = str_or(jq_name(vol), "?");
	char vmbuf[2 * LONGHORN_NAME_MAX];
	const char *vm = volume_vm(vol, vmbuf, sizeof(vmbuf));
	_cleanup_free_ char *why = NULL;
	if (src_gone)
		storage_appendf(&why, "source volume %s no longer exists", r->volume);
	if (snap_gone)
		storage_appendf(&why, "%ssnapshot %s no longer exists", why ? ", " : "source ",
				r->name);
	judge_note(j, STATUS_FAIL, "clone %s will never converge: %s (clone state %s)", name, why,
		   *state ? state : "\"\"");
	judge_remedy(
	    j,
	    "nothing can fill this volume any more: delete what uses it and its claim (for "
	    "a VM restore: kubectl delete vm -n %s %s; kubectl delete "
	    "virtualmachinerestores.snapshot.kubevirt.io -n %s <restore>; kubectl delete "
	    "dv,pvc -n %s %s), confirm with kubectl get volumes.longhorn.io -n "
	    "longhorn-system | grep %s, then restore from a type bak snapshot (backup "
	    "target)",
	    ns, vm ? strchr(vm, '/') + 1 : "<vm>", ns, ns, pvc, name);
}

/* state failed, sources present: Longhorn retries with back-off, at most 10 times. */
static void clone_failed_retrying(struct judge *j, const struct jv *vol,
				  const struct longhorn_ref *r, int64_t attempts)
{
	const char *name = str_or(jq_name(vol), "?");
	if (attempts >= 10) {
		judge_note(j, STATUS_FAIL,
			   "clone %s failed %lld times and Longhorn stops retrying (at most 10)",
			   name, (long long)attempts);
		judge_remedy(j, "kubectl -n longhorn-system logs -l app=longhorn-manager "
				"--tail=500 | grep -i clone; recreate the volume from its source");
		return;
	}
	judge_note(
	    j, STATUS_WARN,
	    "clone %s failed (attempt %lld); its source exists and Longhorn retries at %s", name,
	    (long long)attempts,
	    str_or(JQS(vol, "status", "cloneStatus", "nextAllowedAttemptAt"), "the next back-off"));
	judge_remedy(j,
		     "keep the source volume %s and its snapshot until the clone completes; "
		     "kubectl -n longhorn-system logs -l app=longhorn-manager --tail=500 | grep "
		     "-i clone",
		     r->volume);
}

static void clone_judge(struct agg_ctx *ctx, const char *id, const struct jv *vol, const char *ds,
			struct clone_counts *cc)
{
	const struct cluster_state *cs = ctx->cs;
	struct longhorn_ref r;
	const char *state = JQS(vol, "status", "cloneStatus", "state");
	int64_t age = -1, attempts = 0;
	bool have_age = storage_age_s(ctx, JQ(vol, "metadata", "creationTimestamp"), &age);
	if (longhorn_ref_parse((const uint8_t *)ds, strlen(ds), &r) < 0 ||
	    (r.type != LONGHORN_REF_VOLUME && r.type != LONGHORN_REF_SNAPSHOT)) {
		struct finding *f = storage_object_finding(ctx, id, "Volume", vol);
		struct judge j = {0};
		clone_evidence(f, vol, state, have_age ? age : -1, false, -1);
		judge_note(&j, STATUS_UNKNOWN, "spec.dataSource %s is neither vol:// nor snap://",
			   ds);
		cc->problems++;
		judge_decide(&j, f, "");
		return;
	}
	cc->clones++;
	if (streq(state, "completed") || streq(state, "copy-completed-awaiting-healthy")) {
		cc->completed++; /* the data is copied: health is api.longhorn.volume-health's */
		return;
	}
	const struct jv *src = longhorn_volume(cs, r.volume);
	bool src_gone = !src || storage_deleting(src);
	bool snaps_known = cs->res[RES_LH_SNAPSHOTS].status == RES_COLLECTED;
	int snap_exists = -1;
	if (r.type == LONGHORN_REF_SNAPSHOT && snaps_known)
		snap_exists = longhorn_snapshot(cs, r.name) != NULL;
	bool snap_gone = snap_exists == 0;
	jq_int(JQ(vol, "status", "cloneStatus", "attemptCount"), &attempts);
	const char *st = state ? state : STORAGE_ABSENT;

	bool failed = streq(state, "failed");
	bool pending = !state || !*state || streq(state, "initiated");
	if (!failed && !pending) {
		struct finding *f = storage_object_finding(ctx, id, "Volume", vol);
		struct judge j = {0};
		clone_evidence(f, vol, state, have_age ? age : -1, !src_gone, snap_exists);
		judge_note(&j, STATUS_UNKNOWN, "clone state %s is not one Longhorn defines", st);
		cc->problems++;
		judge_decide(&j, f, "");
		return;
	}
	if (pending && !have_age) {
		struct finding *f = storage_object_finding(ctx, id, "Volume", vol);
		struct judge j = {0};
		clone_evidence(f, vol, state, -1, !src_gone, snap_exists);
		judge_note(
		    &j, STATUS_UNKNOWN,
		    "clone in state %s, but without creationTimestamp its duration is unknown", st);
		cc->problems++;
		judge_decide(&j, f, "");
		return;
	}
	if (pending && (age <= SETTLE_S || (!src_gone && !snap_gone &&
					    (snaps_known || r.type == LONGHORN_REF_VOLUME)))) {
		cc->in_progress++; /* young, or its sources are there: it can progress */
		return;
	}
	struct finding *f = storage_object_finding(ctx, id, "Volume", vol);
	struct judge j = {0};
	clone_evidence(f, vol, state, have_age ? age : -1, !src_gone, snap_exists);
	cc->problems++;
	if (src_gone || snap_gone)
		clone_never(&j, vol, &r, src_gone, snap_gone, st);
	else if (pending)
		judge_note(&j, STATUS_UNKNOWN,
			   "clone in state %s for more than %ds; snapshots.longhorn.io is not "
			   "served, so whether snapshot %s still exists is unknown",
			   st, SETTLE_S, r.name);
	else
		clone_failed_retrying(&j, vol, &r, attempts);
	judge_decide(&j, f, "");
}

void check_longhorn_clone_stuck(struct agg_ctx *ctx, const char *id)
{
	if (agg_not_installed(ctx, id, RES_LH_VOLUMES, "Longhorn is not installed"))
		return;
	const struct jv *vols = cs_items(ctx->cs, RES_LH_VOLUMES);
	struct clone_counts cc = {0};
	for (size_t i = 0; i < jq_len(vols); i++) {
		const char *ds = JQS(jq_at(vols, i), "spec", "dataSource");
		if (!ds || !*ds)
			continue;
		/* A clone being deleted needs no repair: deleting it is the repair. */
		if (storage_deleting(jq_at(vols, i)))
			cc.deleting++;
		else
			clone_judge(ctx, id, jq_at(vols, i), ds, &cc);
	}
	if (cc.problems)
		return;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "volumes", (int64_t)jq_len(vols));
	kv_add_int(&f->evidence, "clones", (int64_t)cc.clones);
	kv_add_int(&f->evidence, "completed", (int64_t)cc.completed);
	kv_add_int(&f->evidence, "in_progress", (int64_t)cc.in_progress);
	kv_add_int(&f->evidence, "being_deleted", (int64_t)cc.deleting);
	if (cc.clones == 0)
		judge_note(&j, STATUS_SKIP,
			   "no Longhorn volume is a clone (spec.dataSource empty)%s",
			   cc.deleting ? "; clones being deleted are not judged" : "");
	else
		judge_note(&j, STATUS_PASS,
			   "%zu cloned %s: %zu copied, %zu in progress with their source "
			   "present",
			   cc.clones, plural((int64_t)cc.clones, "volume", "volumes"), cc.completed,
			   cc.in_progress);
	judge_decide(&j, f, "");
}

/* ---- api.longhorn.rwx-share ---- */

struct share_counts {
	size_t rwx, migratable, detached, deleting, unexported, attached, ok, problems;
};

static bool vol_flag(const struct jv *vol, const char *where, const char *key)
{
	bool b = false;
	return jq_bool(JQ(vol, where, key), &b) && b;
}

/* Why Longhorn runs no share-manager for an attached RWX volume, or NULL when it
 * must (controller/share_manager_controller.go isShareManagerRequiredForVolume):
 * the share exists only for a pod's CSI attachment, not while the volume is
 * attached for a backup, a snapshot, a clone, maintenance or as a DR standby. */
static const char *share_not_required(const struct jv *vol)
{
	if (streq(JQS(vol, "status", "robustness"), "faulted"))
		return "faulted: auto-salvage first (api.longhorn.volume-health)";
	if (vol_flag(vol, "status", "restoreRequired"))
		return "restoring from a backup";
	if (vol_flag(vol, "spec", "disableFrontend") || vol_flag(vol, "status", "frontendDisabled"))
		return "attached with its frontend disabled (maintenance)";
	if (vol_flag(vol, "spec", "Standby") || vol_flag(vol, "status", "isStandby"))
		return "a DR standby volume";
	/* KubernetesStatus is always written by Longhorn; without it nothing says the
	 * volume is unused, so it is judged. */
	const struct jv *ks = JQ(vol, "status", "kubernetesStatus");
	if (ks && jv_is(ks, JV_OBJECT) && !has_active_workload(ks))
		return "no running pod uses it (attached for a backup, snapshot or clone)";
	return NULL;
}

struct pod_facts {
	const struct jv *pod;
	const char *phase;
	bool ready;
	const char *waiting_reason, *waiting_message, *image;
};

static void pod_facts(const struct jv *pod, struct pod_facts *pf)
{
	*pf = (struct pod_facts){.pod = pod, .phase = JQS(pod, "status", "phase")};
	const struct jv *cst = JQ(pod, "status", "containerStatuses");
	size_t n = jq_len(cst);
	pf->ready = n > 0;
	for (size_t i = 0; i < n; i++) {
		const struct jv *c = jq_at(cst, i);
		bool r = false;
		if (!jq_bool(JQ(c, "ready"), &r) || !r)
			pf->ready = false;
		if (!pf->waiting_reason && JQS(c, "state", "waiting", "reason")) {
			pf->waiting_reason = JQS(c, "state", "waiting", "reason");
			pf->waiting_message = JQS(c, "state", "waiting", "message");
			pf->image = JQS(c, "image");
		}
	}
	if (!pf->image) {
		const struct jv *ctrs = JQ(pod, "spec", "containers");
		pf->image = JQS(jq_at(ctrs, 0), "image");
	}
}

static bool image_pull_error(const char *reason)
{
	return streq(reason, "ErrImagePull") || streq(reason, "ImagePullBackOff") ||
	       streq(reason, "InvalidImageName") || streq(reason, "ErrImageNeverPull");
}

static void share_judge(struct agg_ctx *ctx, const char *id, const struct jv *vol,
			struct share_counts *sc)
{
	const char *name = str_or(jq_name(vol), "?");
	const char *ns = str_or(jq_namespace(vol), "longhorn-system");
	const char *share_state = JQS(vol, "status", "shareState");
	const char *endpoint = JQS(vol, "status", "shareEndpoint");
	const struct jv *sm = cs_find(ctx->cs, RES_LH_SHAREMANAGERS, ns, name);
	_cleanup_free_ char *pod_name = xasprintf("share-manager-%s", name);
	const struct jv *pod = cs_find(ctx->cs, RES_PODS, ns, pod_name);
	struct pod_facts pf;
	pod_facts(pod, &pf);
	int64_t pod_age = -1;
	storage_age_s(ctx, JQ(pod, "metadata", "creationTimestamp"), &pod_age);

	_cleanup_free_ char *why = NULL;
	if (!pod)
		storage_appendf(&why, "no share-manager pod %s", pod_name);
	else if (!streq(pf.phase, "Running") || !pf.ready)
		storage_appendf(&why, "pod %s is %s%s%s%s%s", pod_name, str_or(pf.phase, "?"),
				pf.ready ? "" : ", not ready", pf.waiting_reason ? " (" : "",
				str_or(pf.waiting_reason, ""), pf.waiting_reason ? ")" : "");
	if (!streq(share_state, "running"))
		storage_appendf(&why, "%sshareState %s", why ? ", " : "",
				share_state ? (*share_state ? share_state : "\"\"")
					    : STORAGE_ABSENT);
	if (!endpoint || !*endpoint)
		storage_appendf(&why, "%sshareEndpoint empty", why ? ", " : "");
	if (!why) {
		sc->ok++;
		return;
	}
	sc->problems++;
	struct finding *f = storage_object_finding(ctx, id, "Volume", vol);
	struct judge j = {0};
	struct kv_list *ev = &f->evidence;
	storage_ev_str(ev, "state", JQS(vol, "status", "state"));
	storage_ev_str(ev, "robustness", JQS(vol, "status", "robustness"));
	storage_ev_str(ev, "access_mode", JQS(vol, "spec", "accessMode"));
	kv_add_bool(ev, "migratable", false);
	storage_ev_str(ev, "share_state", share_state);
	storage_ev_str(ev, "share_endpoint", endpoint);
	storage_ev_str(ev, "share_manager_state", sm ? JQS(sm, "status", "state") : NULL);
	storage_ev_str(ev, "share_manager_image", sm ? JQS(sm, "spec", "image") : NULL);
	kv_add_str(ev, "pod", pod ? pod_name : "does not exist");
	if (pod) {
		storage_ev_str(ev, "pod_phase", pf.phase);
		kv_add_bool(ev, "pod_ready", pf.ready);
	}
	if (pf.waiting_reason)
		kv_add_strf(ev, "pod_waiting", "%s: %s", pf.waiting_reason,
			    str_or(pf.waiting_message, ""));
	const char *pvc = JQS(vol, "status", "kubernetesStatus", "pvcName");
	if (pvc)
		kv_add_strf(ev, "pvc", "%s/%s",
			    str_or(JQS(vol, "status", "kubernetesStatus", "namespace"), "?"), pvc);

	bool starting = streq(share_state, "starting") && pod && pod_age >= 0 &&
			pod_age < SETTLE_S && !image_pull_error(pf.waiting_reason);
	if (image_pull_error(pf.waiting_reason)) {
		judge_note(&j, STATUS_FAIL,
			   "RWX volume %s is attached but its share-manager image %s cannot be "
			   "pulled (%s: %s): no NFS share, writes fail",
			   name, str_or(pf.image, "?"), pf.waiting_reason,
			   str_or(pf.waiting_message, ""));
		judge_remedy(&j,
			     "make %s pullable on every node (mirror it and point RKE2's "
			     "registries.yaml at the mirror); host.image.share-manager tests each "
			     "node; then kubectl -n %s delete pod %s",
			     str_or(pf.image, "the share-manager image"), ns, pod_name);
	} else if (starting) {
		judge_note(&j, STATUS_WARN, "RWX volume %s: share-manager is starting (%s)", name,
			   why);
		judge_remedy(&j, "wait a minute and check again: kubectl -n %s get pod %s", ns,
			     pod_name);
	} else {
		judge_note(&j, STATUS_FAIL,
			   "RWX volume %s is attached but its NFS share is not served: %s; "
			   "pods writing to it fail",
			   name, why);
		judge_remedy(
		    &j,
		    "kubectl -n %s get sharemanagers.longhorn.io %s -o yaml; kubectl -n %s "
		    "describe pod %s; kubectl -n %s logs -l app=longhorn-manager "
		    "--tail=500 --prefix | grep -i share; every node needs an NFSv4.1 "
		    "client (host.nfs.client, host.nfs.kernel)",
		    ns, name, ns, pod_name, ns);
	}
	judge_decide(&j, f, "");
}

void check_longhorn_rwx_share(struct agg_ctx *ctx, const char *id)
{
	if (agg_not_installed(ctx, id, RES_LH_VOLUMES, "Longhorn is not installed"))
		return;
	const struct jv *vols = cs_items(ctx->cs, RES_LH_VOLUMES);
	/* attached, but Longhorn exports none by design */
	struct kv_list unexported = {0};
	struct value_list *ul = kv_add_list(&unexported, "attached_not_exported");
	struct share_counts sc = {0};
	for (size_t i = 0; i < jq_len(vols); i++) {
		const struct jv *v = jq_at(vols, i);
		bool mig = false;
		if (!streq(JQS(v, "spec", "accessMode"), "rwx"))
			continue;
		sc.rwx++;
		/* Migratable RWX volumes (VM disks) have no share-manager by design. */
		if (jq_bool(JQ(v, "spec", "migratable"), &mig) && mig) {
			sc.migratable++;
			continue;
		}
		if (storage_deleting(v)) {
			sc.deleting++;
			continue;
		}
		if (!streq(JQS(v, "status", "state"), "attached")) {
			sc.detached++;
			continue;
		}
		const char *why_not = share_not_required(v);
		if (why_not) {
			vlist_add_strf(ul, "%s: %s", str_or(jq_name(v), "?"), why_not);
			sc.unexported++;
			continue;
		}
		sc.attached++;
		share_judge(ctx, id, v, &sc);
	}
	if (sc.problems) {
		kv_list_clear(&unexported);
		return;
	}
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	kv_add_int(&f->evidence, "rwx_volumes", (int64_t)sc.rwx);
	kv_add_int(&f->evidence, "migratable_rwx", (int64_t)sc.migratable);
	kv_add_int(&f->evidence, "not_attached", (int64_t)sc.detached);
	kv_add_int(&f->evidence, "being_deleted", (int64_t)sc.deleting);
	kv_add_int(&f->evidence, "attached_served", (int64_t)sc.ok);
	kv_add_value(&f->evidence, "attached_not_exported", &unexported.items[0].val);
	kv_list_clear(&unexported);
	if (sc.attached == 0)
		judge_note(&j, STATUS_SKIP,
			   "no RWX volume a pod uses through a share-manager (%zu RWX %s: %zu "
			   "migratable need no share-manager, %zu not attached, %zu attached "
			   "without a pod using them, %zu being deleted)",
			   sc.rwx, plural((int64_t)sc.rwx, "volume", "volumes"), sc.migratable,
			   sc.detached, sc.unexported, sc.deleting);
	else
		judge_note(&j, STATUS_PASS,
			   "%zu attached RWX volumes are served by running share-managers", sc.ok);
	judge_decide(&j, f, "");
}

/* ---- api.longhorn.node-disk ---- */

/* Which disks serve which engine (docs/support-matrix-longhorn.md): the replica
 * scheduler places a v1 replica only on a diskType filesystem disk and a v2
 * replica only on a diskType block disk (scheduler/replica_scheduler.go
 * isV1EngineFilesystemDisk / isV2EngineBlockDisk, v1.5.0–v1.11.3), and a v2
 * replica only on a node without the label node.longhorn.io/disable-v2-data-engine
 * (the same file, v1.6.0+). So each engine in use is judged by its own
 * disks and its own default-replica-count. */
struct disk_limits {
	int64_t min_avail_pct, over_pct;
	int64_t replicas[_LONGHORN_ENGINE_MAX];
	bool soft_anti_affinity;
	bool judged[_LONGHORN_ENGINE_MAX];
	bool named; /* v2 judged or block disks present: messages name disk type and engine */
};

/* Read one integer setting into *ret (default when absent). Returns false and
 * adds an UNKNOWN finding when it is present but unreadable. */
static bool read_int_setting(struct agg_ctx *ctx, const char *id, const char *name, int64_t def,
			     int64_t *ret)
{
	const struct jv *s = longhorn_setting(ctx->cs, name);
	const char *v = JQS(s, "value");
	*ret = def;
	if (!s)
		return true;
	if (v && longhorn_int_value_parse((const uint8_t *)v, strlen(v), ret) == 0 && *ret >= 0)
		return true;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	judge_note(&j, STATUS_UNKNOWN, "Longhorn setting %s has an unreadable value", name);
	storage_ev_str(&f->evidence, name, v);
	judge_decide(&j, f, "");
	return false;
}

/* Which engines are in use: enabled by its setting, and with disks of its type
 * or volumes of its own; v1 also when v2 has neither (a cluster before any v2
 * setup), v2 also when v1 is disabled. *why gets the reason an enabled engine
 * is not judged. */
static void engines_judged(const struct cluster_state *cs, struct disk_limits *dl, struct strv *why)
{
	bool en[_LONGHORN_ENGINE_MAX], disks[_LONGHORN_ENGINE_MAX] = {0},
				       vols[_LONGHORN_ENGINE_MAX] = {0};
	for (int e = 0; e < _LONGHORN_ENGINE_MAX; e++) {
		int r = longhorn_engine_enabled(cs, e, NULL);
		en[e] = r < 0 ? e == LONGHORN_V1 : r > 0;
	}
	const struct jv *nodes = cs_items(cs, RES_LH_NODES);
	for (size_t i = 0; i < jq_len(nodes); i++) {
		const struct jv *ds = JQ(jq_at(nodes, i), "spec", "disks");
		if (!ds || !jv_is(ds, JV_OBJECT))
			continue;
		jv_foreach(ds, dname, spec)
		{
			(void)dname;
			disks[longhorn_disk_engine(spec)] = true;
		}
	}
	bool have_vols = cs->res[RES_LH_VOLUMES].status == RES_COLLECTED;
	const struct jv *vs = cs_items(cs, RES_LH_VOLUMES);
	for (size_t i = 0; have_vols && i < jq_len(vs); i++)
		vols[longhorn_volume_engine(jq_at(vs, i))] = true;
	bool v2_used = disks[LONGHORN_V2] || vols[LONGHORN_V2];
	dl->judged[LONGHORN_V1] = en[LONGHORN_V1] && (disks[LONGHORN_V1] || vols[LONGHORN_V1] ||
						      !en[LONGHORN_V2] || !v2_used);
	dl->judged[LONGHORN_V2] = en[LONGHORN_V2] && (v2_used || !en[LONGHORN_V1]);
	if (!dl->judged[LONGHORN_V1] && !dl->judged[LONGHORN_V2])
		dl->judged[LONGHORN_V1] = true; /* both disabled: judge as Longhorn always did */
	for (int e = 0; e < _LONGHORN_ENGINE_MAX; e++) {
		_cleanup_free_ char *line = NULL;
		if (!en[e] && !dl->judged[e])
			line = xasprintf("%s: disabled (setting %s-data-engine)",
					 longhorn_engine_name(e), longhorn_engine_name(e));
		else if (!dl->judged[e])
			line =
			    xasprintf("%s: no %s disk and no %s volume%s", longhorn_engine_name(e),
				      longhorn_engine_disk_type(e), longhorn_engine_name(e),
				      have_vols ? "" : " known (volumes not collected)");
		if (line)
			strv_add(why, line);
	}
	/* Name disk types once a block disk exists: "no disk" would mislead. */
	dl->named = dl->judged[LONGHORN_V2] || disks[LONGHORN_V2];
}

static bool disk_limits(struct agg_ctx *ctx, const char *id, struct disk_limits *dl,
			struct strv *not_judged)
{
	if (!read_int_setting(ctx, id, "storage-minimal-available-percentage", 25,
			      &dl->min_avail_pct) ||
	    !read_int_setting(ctx, id, "storage-over-provisioning-percentage", 100, &dl->over_pct))
		return false;
	engines_judged(ctx->cs, dl, not_judged);
	/* Each engine's own count (Longhorn 1.10+ JSON {"v1":"3","v2":"2"}). */
	for (int e = 0; e < _LONGHORN_ENGINE_MAX; e++) {
		const char *raw;
		if (longhorn_replica_count(ctx->cs, longhorn_engine_name(e), &dl->replicas[e],
					   &raw) != -EINVAL ||
		    !dl->judged[e])
			continue;
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		judge_note(&j, STATUS_UNKNOWN,
			   "Longhorn setting default-replica-count has an unreadable value");
		storage_ev_str(&f->evidence, "default-replica-count", raw);
		judge_decide(&j, f, "");
		return false;
	}
	dl->soft_anti_affinity = false;
	const char *soft = longhorn_setting_value(ctx->cs, "replica-soft-anti-affinity");
	dl->soft_anti_affinity = streq(soft, "true");
	return true;
}

enum disk_verdict { DISK_OK, DISK_LOW, DISK_OVER, DISK_UNSCHEDULABLE, DISK_DISABLED, DISK_UNKNOWN };

struct node_eval {
	size_t disks, schedulable, disabled, unknown, unschedulable, low_or_over;
	char *problems; /* "; "-separated, owned */
};

static enum disk_verdict disk_judge(const struct jv *spec, const struct jv *st, const char *dname,
				    bool node_allows, const struct disk_limits *dl,
				    struct value_list *l, char **problems)
{
	int64_t avail, max, sched, reserved = 0;
	bool allow = true, evict = false;
	jq_bool(JQ(spec, "allowScheduling"), &allow);
	jq_bool(JQ(spec, "evictionRequested"), &evict);
	jq_int(JQ(spec, "storageReserved"), &reserved);
	const char *path = str_or(JQS(spec, "path"), str_or(JQS(st, "diskPath"), "?"));
	const char *type = dl->named ? longhorn_engine_disk_type(longhorn_disk_engine(spec)) : NULL;
	const struct jv *cond = jq_condition(JQ(st, "conditions"), "Schedulable");
	const char *cst = JQS(cond, "status");
	if (!st || !jq_int(JQ(st, "storageAvailable"), &avail) ||
	    !jq_int(JQ(st, "storageMaximum"), &max) ||
	    !jq_int(JQ(st, "storageScheduled"), &sched) || !cst) {
		vlist_add_strf(l, "%s %s%s%s: no status reported", dname, path, type ? " " : "",
			       type ? type : "");
		storage_appendf(problems, "%sdisk %s reports no status", *problems ? "; " : "",
				dname);
		return DISK_UNKNOWN;
	}
	char a[32], m[32], s[32], r[32];
	storage_format_bytes(avail, a, sizeof(a));
	storage_format_bytes(max, m, sizeof(m));
	storage_format_bytes(sched, s, sizeof(s));
	storage_format_bytes(reserved, r, sizeof(r));
	vlist_add_strf(
	    l, "%s %s%s%s: available %s of %s, scheduled %s, reserved %s, Schedulable=%s%s%s",
	    dname, path, type ? " " : "", type ? type : "", a, m, s, r, cst,
	    streq(cst, "True") ? "" : " ",
	    streq(cst, "True") ? ""
			       : str_or(JQS(cond, "message"), str_or(JQS(cond, "reason"), "")));
	if (!allow || evict || !node_allows)
		return DISK_DISABLED;
	if (!streq(cst, "True")) {
		storage_appendf(problems, "%sdisk %s not schedulable: %s", *problems ? "; " : "",
				dname,
				str_or(JQS(cond, "message"), str_or(JQS(cond, "reason"), "?")));
		return DISK_UNSCHEDULABLE;
	}
	/* Longhorn's own formula (scheduler/replica_scheduler.go IsSchedulableToDisk). */
	if ((double)avail * 100.0 <= (double)max * (double)dl->min_avail_pct) {
		storage_appendf(problems, "%sdisk %s: %s available of %s, below the %lld%% minimum",
				*problems ? "; " : "", dname, a, m, (long long)dl->min_avail_pct);
		return DISK_LOW;
	}
	if ((double)sched * 100.0 > (double)(max - reserved) * (double)dl->over_pct) {
		storage_appendf(problems,
				"%sdisk %s: %s scheduled exceeds %lld%% of %s less %s "
				"reserved",
				*problems ? "; " : "", dname, s, (long long)dl->over_pct, m, r);
		return DISK_OVER;
	}
	return DISK_OK;
}

/* Every disk of the node, counted under the engine its type serves; disks of an
 * engine not judged (here or on this node) are listed only. */
static void node_evaluate(const struct jv *node, const struct disk_limits *dl,
			  const bool judged[_LONGHORN_ENGINE_MAX], struct kv_list *ev,
			  struct node_eval ne[_LONGHORN_ENGINE_MAX])
{
	bool node_allows = true;
	jq_bool(JQ(node, "spec", "allowScheduling"), &node_allows);
	/* Schedulable=False (cordoned, data engine upgrade): the scheduler skips the
	 * node as it skips one with allowScheduling false. */
	if (streq(JQS(jq_condition(JQ(node, "status", "conditions"), "Schedulable"), "status"),
		  "False"))
		node_allows = false;
	const struct jv *disks = JQ(node, "spec", "disks"),
			*dstat = JQ(node, "status", "diskStatus");
	struct value_list *l = kv_add_list(ev, "disks");
	kv_add_bool(ev, "allow_scheduling", node_allows);
	if (!disks || !jv_is(disks, JV_OBJECT))
		return;
	jv_foreach(disks, dname, spec)
	{
		enum longhorn_engine e = longhorn_disk_engine(spec);
		struct node_eval *n = &ne[e];
		if (!judged[e]) {
			vlist_add_strf(l, "%s %s %s: not judged (the %s engine is not in use%s)",
				       dname, str_or(JQS(spec, "path"), "?"),
				       longhorn_engine_disk_type(e), longhorn_engine_name(e),
				       dl->judged[e] ? " on this node" : "");
			continue;
		}
		n->disks++;
		switch (
		    disk_judge(spec, JQ(dstat, dname), dname, node_allows, dl, l, &n->problems)) {
		case DISK_OK:
			n->schedulable++;
			break;
		case DISK_LOW:
		case DISK_OVER:
			n->schedulable++;
			n->low_or_over++;
			break;
		case DISK_DISABLED:
			n->disabled++;
			break;
		case DISK_UNKNOWN:
			n->unknown++;
			break;
		case DISK_UNSCHEDULABLE:
			n->unschedulable++;
			break;
		}
	}
}

/* One engine's disks on a Ready, schedulable node. kind is "" (only v1 is
 * judged: the messages of old) or " block"/" filesystem". */
static enum status engine_verdict(const char *name, const struct node_eval *ne,
				  enum longhorn_engine e, bool named, char **msg, char **remedy)
{
	const char *kind = named ? (e == LONGHORN_V2 ? " block" : " filesystem") : "";
	const char *eng = named ? (e == LONGHORN_V2 ? " v2" : " v1") : "";
	if (ne->disks == 0) {
		*msg = xasprintf("Longhorn node %s has no%s disk: no%s replica can be placed on it",
				 name, kind, eng);
		*remedy = xasprintf("add a%s disk in the Longhorn UI (Node → Edit node and disks) "
				    "if this node should store%s replicas",
				    kind, eng);
		return STATUS_WARN;
	}
	if (ne->schedulable == 0 && ne->unschedulable == 0 && ne->unknown == 0) {
		*msg =
		    xasprintf("Longhorn node %s: scheduling is disabled on the node or on all its "
			      "%zu%s %s by configuration",
			      name, ne->disks, kind, plural((int64_t)ne->disks, "disk", "disks"));
		*remedy = xstrdup("if this node should store replicas, allow scheduling on it and "
				  "its disks (Longhorn UI: Node → Edit node and disks)");
		return STATUS_WARN;
	}
	if (ne->schedulable == 0 && ne->unschedulable == 0) {
		*msg = xasprintf("Longhorn node %s: %s", name, ne->problems);
		return STATUS_UNKNOWN;
	}
	if (ne->schedulable == 0) {
		*msg = xasprintf("Longhorn node %s has no schedulable%s disk: %s", name, kind,
				 ne->problems);
		*remedy =
		    xasprintf("free space on the disk or add one (Longhorn UI: Node → Edit node "
			      "and disks); kubectl -n longhorn-system get nodes.longhorn.io %s "
			      "-o yaml shows each disk's Schedulable condition",
			      name);
		return STATUS_FAIL;
	}
	if (ne->low_or_over || ne->unschedulable || ne->unknown) {
		*msg = xasprintf("Longhorn node %s: %s", name, ne->problems);
		*remedy =
		    xasprintf("free space or add disks before new volumes need room; kubectl -n "
			      "longhorn-system get nodes.longhorn.io %s -o yaml",
			      name);
		return STATUS_WARN;
	}
	return STATUS_PASS;
}

/* Judge a node: a finding when something is wrong, else its disks go to
 * summary. ret_sched[e]: whether it has a schedulable disk for engine e;
 * *ret_problem whether it got a finding. */
static void node_judge(struct agg_ctx *ctx, const char *id, const struct jv *node,
		       const struct disk_limits *dl, struct strv *summary,
		       bool ret_sched[_LONGHORN_ENGINE_MAX], bool *ret_problem)
{
	struct kv_list ev = {0};
	struct node_eval ne[_LONGHORN_ENGINE_MAX] = {0};
	const char *name = str_or(jq_name(node), "?");
	bool judged[_LONGHORN_ENGINE_MAX];
	for (int e = 0; e < _LONGHORN_ENGINE_MAX; e++)
		judged[e] = dl->judged[e];
	/* No v2 replica where the Kubernetes Node opts out of the v2 engine. */
	if (judged[LONGHORN_V2] && longhorn_node_v2_disabled(ctx->cs, jq_name(node)) > 0) {
		judged[LONGHORN_V2] = false;
		kv_add_str(&ev, "v2_data_engine",
			   "disabled on this node (label " LONGHORN_V2_DISABLE_LABEL "=true)");
	}
	node_evaluate(node, dl, judged, &ev, ne);
	const struct jv *conds = JQ(node, "status", "conditions");
	const struct jv *ready = jq_condition(conds, "Ready"),
			*sched = jq_condition(conds, "Schedulable");
	const char *rst = JQS(ready, "status"), *sst = JQS(sched, "status");
	storage_ev_str(&ev, "ready", rst);
	storage_ev_str(&ev, "schedulable", sst);
	kv_add_int(&ev, "minimal_available_percentage", dl->min_avail_pct);
	kv_add_int(&ev, "over_provisioning_percentage", dl->over_pct);
	enum status st = STATUS_PASS;
	_cleanup_free_ char *msg = NULL, *remedy = NULL;
	size_t judged_disks = 0;
	for (int e = 0; e < _LONGHORN_ENGINE_MAX; e++)
		judged_disks += judged[e] ? ne[e].disks : 0;
	/* The replica scheduler takes only Ready nodes (datastore
	 * ListReadyAndSchedulableNodesRO); a down node's disk conditions are stale. */
	bool usable = streq(rst, "True");
	if (!usable) {
		st = streq(rst, "False") ? STATUS_FAIL : STATUS_UNKNOWN;
		msg = xasprintf(
		    "Longhorn node %s is not Ready (Ready=%s%s%s%s%s): Longhorn places no "
		    "replica on it and its replicas are unreachable",
		    name, rst ? rst : "not reported", JQS(ready, "reason") ? " " : "",
		    str_or(JQS(ready, "reason"), ""), JQS(ready, "message") ? ": " : "",
		    str_or(JQS(ready, "message"), ""));
		remedy =
		    xasprintf("kubectl get node %s; kubectl -n longhorn-system get pods -o wide "
			      "--field-selector spec.nodeName=%s | grep longhorn-manager",
			      name, name);
	} else if (judged_disks > 0 && streq(sst, "False")) {
		st = STATUS_WARN;
		msg =
		    xasprintf("Longhorn node %s takes no new replica: Schedulable=False %s%s%s",
			      name, str_or(JQS(sched, "reason"), ""),
			      JQS(sched, "message") ? ": " : "", str_or(JQS(sched, "message"), ""));
		remedy = xasprintf("kubectl uncordon %s once its maintenance is over (Longhorn "
				   "setting disable-scheduling-on-cordoned-node)",
				   name);
	} else {
		for (int e = 0; e < _LONGHORN_ENGINE_MAX; e++) {
			if (!judged[e])
				continue;
			_cleanup_free_ char *m = NULL, *r = NULL;
			enum status es = engine_verdict(name, &ne[e], e, dl->named, &m, &r);
			if (es == STATUS_PASS)
				continue;
			storage_appendf(&msg, "%s%s", msg ? "; " : "", m);
			if (r && (!remedy || status_severity(es) > status_severity(st))) {
				free(remedy);
				remedy = r;
				r = NULL;
			}
			st = status_worst(st, es);
		}
	}
	*ret_problem = st != STATUS_PASS;
	if (*ret_problem) {
		struct finding *f = storage_object_finding(ctx, id, "Node", node);
		struct judge j = {0};
		kv_list_clear(&f->evidence);
		f->evidence = ev;
		judge_note(&j, st, "%s", msg);
		if (remedy)
			judge_remedy(&j, "%s", remedy);
		judge_decide(&j, f, "");
	} else {
		const struct value_list *dl_lines = kv_get_list(&ev, "disks");
		for (size_t i = 0; dl_lines && i < dl_lines->n; i++)
			if (dl_lines->items[i].type == VALUE_STR) {
				_cleanup_free_ char *line =
				    xasprintf("%s: %s", name, dl_lines->items[i].s);
				strv_add(summary, line);
			}
		kv_list_clear(&ev);
	}
	for (int e = 0; e < _LONGHORN_ENGINE_MAX; e++) {
		ret_sched[e] = usable && judged[e] && ne[e].schedulable > 0;
		free(ne[e].problems);
	}
}

/* Fewer nodes with a schedulable disk for an engine than its replica count:
 * new volumes of that engine stay degraded. Returns whether it warned. */
static bool replica_room(struct agg_ctx *ctx, const char *id, const struct disk_limits *dl,
			 enum longhorn_engine e, size_t n_nodes, size_t schedulable_nodes)
{
	if (!dl->judged[e] || n_nodes == 0 || schedulable_nodes >= (size_t)dl->replicas[e] ||
	    dl->soft_anti_affinity)
		return false;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	if (dl->named)
		judge_note(&j, STATUS_WARN,
			   "%zu Longhorn %s a schedulable %s disk for the %s data engine "
			   "but its default-replica-count is %lld: new %s volumes stay degraded "
			   "(one replica per node)",
			   schedulable_nodes,
			   plural((int64_t)schedulable_nodes, "node has", "nodes have"),
			   longhorn_engine_disk_type(e), longhorn_engine_name(e),
			   (long long)dl->replicas[e], longhorn_engine_name(e));
	else
		judge_note(&j, STATUS_WARN,
			   "%zu Longhorn %s a schedulable disk but default-replica-count "
			   "is %lld: new volumes stay degraded (one replica per node)",
			   schedulable_nodes,
			   plural((int64_t)schedulable_nodes, "node has", "nodes have"),
			   (long long)dl->replicas[e]);
	kv_add_str(&f->evidence, "data_engine", longhorn_engine_name(e));
	kv_add_int(&f->evidence, "schedulable_nodes", (int64_t)schedulable_nodes);
	kv_add_int(&f->evidence, "default_replica_count", dl->replicas[e]);
	judge_remedy(&j, "add nodes or disks, or lower default-replica-count (Longhorn UI "
			 "Settings) and the StorageClasses' numberOfReplicas");
	judge_decide(&j, f, "");
	return true;
}

void check_longhorn_node_disk(struct agg_ctx *ctx, const char *id)
{
	if (!longhorn_applies(ctx, id, RES_LH_NODES))
		return;
	struct disk_limits dl = {0};
	_cleanup_(strv_clear) struct strv not_judged = {0};
	if (!disk_limits(ctx, id, &dl, &not_judged))
		return;
	const struct jv *nodes = cs_items(ctx->cs, RES_LH_NODES);
	size_t schedulable_nodes[_LONGHORN_ENGINE_MAX] = {0}, problems = 0;
	_cleanup_(strv_clear) struct strv ok = {0};
	for (size_t i = 0; i < jq_len(nodes); i++) {
		bool problem, sched[_LONGHORN_ENGINE_MAX];
		node_judge(ctx, id, jq_at(nodes, i), &dl, &ok, sched, &problem);
		for (int e = 0; e < _LONGHORN_ENGINE_MAX; e++)
			schedulable_nodes[e] += sched[e];
		problems += problem;
	}
	for (int e = 0; e < _LONGHORN_ENGINE_MAX; e++)
		problems += replica_room(ctx, id, &dl, e, jq_len(nodes), schedulable_nodes[e]);
	if (problems > 0)
		return;
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	if (jq_len(nodes) == 0) {
		judge_note(&j, STATUS_FAIL,
			   "Longhorn is installed but no Longhorn node is registered");
		judge_remedy(&j,
			     "kubectl -n longhorn-system get pods -l app=longhorn-manager -o wide");
		goto out;
	}
	struct value_list *l = kv_add_list(&f->evidence, "disks");
	for (size_t i = 0; i < ok.n; i++)
		vlist_add_str(l, ok.items[i]);
	kv_add_int(&f->evidence, "minimal_available_percentage", dl.min_avail_pct);
	kv_add_int(&f->evidence, "over_provisioning_percentage", dl.over_pct);
	if (dl.judged[LONGHORN_V1])
		kv_add_int(&f->evidence, "default_replica_count", dl.replicas[LONGHORN_V1]);
	if (dl.judged[LONGHORN_V2])
		kv_add_int(&f->evidence, "v2_default_replica_count", dl.replicas[LONGHORN_V2]);
	struct value_list *nj = kv_add_list(&f->evidence, "engines_not_judged");
	for (size_t i = 0; i < not_judged.n; i++)
		vlist_add_str(nj, not_judged.items[i]);
	const char *which = !dl.named		      ? ""
			    : !dl.judged[LONGHORN_V2] ? " (v1 engine: filesystem)"
			    : dl.judged[LONGHORN_V1]  ? " (v1: filesystem, v2: block)"
						      : " (v2 engine: block)";
	judge_note(&j, STATUS_PASS,
		   "%zu Longhorn %s, each with a schedulable disk%s above %lld%% free and "
		   "within %lld%% over-provisioning",
		   jq_len(nodes), plural((int64_t)jq_len(nodes), "node", "nodes"), which,
		   (long long)dl.min_avail_pct, (long long)dl.over_pct);
out:
	judge_decide(&j, f, "");
}
