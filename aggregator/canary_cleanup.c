/*
 * canary.cleanup (docs/checks/canary.cleanup.md): delete what the canary
 * labelled, in dependency order (kinds[] below), and wait until each is
 * gone and the Longhorn volumes behind its PVCs too, within the run's
 * --timeout. Whatever is still
 * there at the end is a FAIL that names it. It selects by label only, so it
 * never deletes an object the canary did not create.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "canary.h"

#define POLL_MS 500

/* What KubeVirt makes for a VirtualMachineSnapshot carries no label of the
 * canary: the content (named in spec.virtualMachineSnapshotName, deleted by
 * KubeVirt with its snapshot, deletionPolicy Delete) and its VolumeSnapshots
 * (labelled snapshot.kubevirt.io/source-vm-name, owned by the content;
 * kubevirt/kubevirt pkg/storage/snapshot/snapshot.go). The cleanup waits for
 * them in the canary's namespace, never deletes them itself. */
static bool snapshot_content_ours(const struct canary *c, bool all, json_object *o)
{
	const char *n = cj_str(o, "spec", "virtualMachineSnapshotName", NULL);
	_cleanup_free_ char *want =
	    all ? xstrdup("hvready-canary-snap-") : xasprintf("hvready-canary-snap-%s", c->run_id);
	return n && (all ? startswith(n, want) : streq(n, want));
}

static bool volume_snapshot_ours(const struct canary *c, bool all, json_object *o)
{
	const char *vm =
	    cj_str(o, "metadata", "labels", "snapshot.kubevirt.io/source-vm-name", NULL);
	if (!vm || !startswith(vm, "hvready-canary-"))
		return false;
	return all || (strlen(vm) >= strlen(c->run_id) &&
		       streq(vm + strlen(vm) - strlen(c->run_id), c->run_id));
}

/* In dependency order: a restore before the snapshot it reads, the
 * snapshot (then its content and VolumeSnapshots, which KubeVirt deletes
 * with it) before the VMs (the restored one too: it carries the source VM's
 * labels), a migration before its VMI, the VM (whose
 * DataVolumes and VMI it owns) before those, the DataVolumes before their
 * PVCs. A kind whose API is not served (KubeVirt absent) has no objects. */
static const struct {
	const char *api, *plural, *kind;
	bool namespaced;
	const char *fallback; /* the API's older version: KubeVirt <= 1.2 serves v1alpha1 only */
	/* Not labelled: which are the canary's (in its namespace); waited for only. */
	bool (*ours)(const struct canary *c, bool all, json_object *o);
} kinds[] = {
    {"/apis/snapshot.kubevirt.io/v1beta1", "virtualmachinerestores", "VirtualMachineRestore", true,
     "/apis/snapshot.kubevirt.io/v1alpha1", NULL},
    {"/apis/snapshot.kubevirt.io/v1beta1", "virtualmachinesnapshots", "VirtualMachineSnapshot",
     true, "/apis/snapshot.kubevirt.io/v1alpha1", NULL},
    {"/apis/snapshot.kubevirt.io/v1beta1", "virtualmachinesnapshotcontents",
     "VirtualMachineSnapshotContent", true, "/apis/snapshot.kubevirt.io/v1alpha1",
     snapshot_content_ours},
    {"/apis/snapshot.storage.k8s.io/v1", "volumesnapshots", "VolumeSnapshot", true, NULL,
     volume_snapshot_ours},
    {"/apis/kubevirt.io/v1", "virtualmachineinstancemigrations", "VirtualMachineInstanceMigration",
     true, NULL, NULL},
    {"/apis/kubevirt.io/v1", "virtualmachines", "VirtualMachine", true, NULL, NULL},
    {"/apis/kubevirt.io/v1", "virtualmachineinstances", "VirtualMachineInstance", true, NULL, NULL},
    {"/apis/cdi.kubevirt.io/v1beta1", "datavolumes", "DataVolume", true, NULL, NULL},
    {"/api/v1", "pods", "Pod", true, NULL, NULL},
    {"/api/v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, NULL, NULL},
    {"/api/v1", "namespaces", "Namespace", false, NULL, NULL},
};

/* Longhorn's Volume behind a PVC is named after its PV (spec.volumeName) and
 * lives in longhorn-system; the CSI driver deletes it after the PV
 * (reclaimPolicy Delete). */
#define LONGHORN_VOLUMES "/apis/longhorn.io/v1beta2/namespaces/" CANARY_LONGHORN_NS "/volumes"

/* The labelled objects of kinds[k] as "Kind/namespace/name" in *ret; with
 * paths, those not yet being deleted as their API paths, and their names in
 * *todo (the same order); -errno on an API error. */
static int list_kind(struct canary *c, int64_t until, size_t k, const char *selector,
		     struct strv *ret, struct strv *paths, struct strv *todo, struct strv *volumes,
		     char *err, size_t errlen)
{
	bool all = !strstr(selector, CANARY_LABEL_RUN "=");
	_cleanup_free_ char *q = canary_selector_query("labelSelector", selector);
	const char *api = kinds[k].api;
	json_object *list = NULL;
	int r;
	for (;;) {
		_cleanup_free_ char *path =
		    kinds[k].ours ? xasprintf("%s/namespaces/%s/%s", api, c->o->ns, kinds[k].plural)
				  : xasprintf("%s/%s?%s", api, kinds[k].plural, q);
		r = canary_api(c, until, "GET", path, NULL, &list, err, errlen);
		if (r != -ENOENT || !kinds[k].fallback || api == kinds[k].fallback)
			break;
		api = kinds[k].fallback;
	}
	if (r == -ENOENT && !streq(kinds[k].api, "/api/v1"))
		return 0; /* the CRD is not installed: nothing of this kind */
	if (r < 0)
		return r;
	if (kinds[k].ours)
		paths = NULL; /* waited for, never deleted */
	json_object *items = cj_get(list, "items", NULL);
	for (size_t i = 0; items && i < json_object_array_length(items); i++) {
		json_object *o = json_object_array_get_idx(items, i);
		const char *name = cj_str(o, "metadata", "name", NULL);
		const char *ns = cj_str(o, "metadata", "namespace", NULL);
		bool deleting = cj_get(o, "metadata", "deletionTimestamp", NULL) != NULL;
		if (!name || (kinds[k].ours && !kinds[k].ours(c, all, o)))
			continue;
		const char *vol = cj_str(o, "spec", "volumeName", NULL);
		if (volumes && vol && streq(kinds[k].plural, "persistentvolumeclaims") &&
		    !strv_contains(volumes, vol))
			strv_add(volumes, vol);
		/* "Kind/namespace/name", "Kind/name" for cluster-scoped objects */
		_cleanup_free_ char *id =
		    xasprintf("%s/%s%s%s%s", kinds[k].kind, ns ? ns : "", ns ? "/" : "", name,
			      deleting ? " (Terminating)" : "");
		strv_add(ret, id);
		if (paths && !deleting) {
			_cleanup_free_ char *p =
			    kinds[k].namespaced ? xasprintf("%s/namespaces/%s/%s/%s", api,
							    ns ? ns : "", kinds[k].plural, name)
						: xasprintf("%s/%s/%s", api, kinds[k].plural, name);
			strv_add(paths, p);
			_cleanup_free_ char *t = xasprintf("%s/%s%s%s", kinds[k].kind, ns ? ns : "",
							   ns ? "/" : "", name);
			strv_add(todo, t);
		}
	}
	json_object_put(list);
	return 0;
}

/* A signal during cleanup does not stop it: only time does. */
static bool sleep_until(int64_t until_ns, int ms)
{
	int64_t left = until_ns - util_now_mono_ns();
	if (left <= 0)
		return false;
	int64_t ns = (int64_t)ms * 1000000 < left ? (int64_t)ms * 1000000 : left;
	struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return util_now_mono_ns() < until_ns;
}

void canary_cleanup(struct canary *c, bool all, struct finding *f)
{
	int64_t t0 = util_now_mono_ns();
	/* Every object a run makes carries a run id: with all, any run id. A
	 * namespace made for the canary by its deployment (deploy/overlays/canary
	 * labels it managed-by only) is not a run's, nor is what it holds, such as
	 * the result ConfigMap (canary_result_cm.h): --cleanup leaves them. */
	_cleanup_free_ char *selector =
	    all ? xstrdup(CANARY_LABEL_MANAGED_BY "=" CANARY_MANAGED_BY "," CANARY_LABEL_RUN)
		: xasprintf(CANARY_LABEL_MANAGED_BY "=" CANARY_MANAGED_BY "," CANARY_LABEL_RUN
						    "=%s",
			    c->run_id);
	kv_add_str(&f->evidence, "selector", selector);
	if (c->o->keep && !all) {
		_cleanup_free_ char *s = strv_join(&c->created, ", ");
		finding_set(f, STATUS_SKIP, "--keep: left %zu object%s: %s", c->created.n,
			    c->created.n == 1 ? "" : "s", c->created.n ? s : "none");
		finding_remedy(f, "Remove them with `hvready-aggregator canary --cleanup`.");
		return;
	}
	char err[1024] = "";
	struct strv deleted = {0}, volumes = {0};
	int api_errors = 0;
	/* Each kind may wait for up to half of what is left, the last for all of
	 * it but the final listing's share (a quarter, at most 2 s). */
	int64_t reserve = (c->end_ns - t0) / 4;
	if (reserve > 2000000000LL)
		reserve = 2000000000LL;
	int64_t wait_end = c->end_ns - reserve;
	/* The PVCs' volumes first: deleting a VM takes its DataVolumes' PVCs with
	 * it (ownerReferences), before their kind's turn comes. */
	for (size_t k = 0; k < ELEMENTSOF(kinds); k++)
		if (streq(kinds[k].plural, "persistentvolumeclaims")) {
			struct strv seen = {0};
			char lerr[256];
			list_kind(c, wait_end, k, selector, &seen, NULL, NULL, &volumes, lerr,
				  sizeof(lerr));
			strv_clear(&seen);
		}
	for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
		int64_t now = util_now_mono_ns();
		int64_t until = k + 1 == ELEMENTSOF(kinds) ? wait_end : now + (wait_end - now) / 2;
		for (;;) {
			struct strv left = {0}, paths = {0}, todo = {0};
			int r = list_kind(c, until, k, selector, &left, &paths, &todo, &volumes,
					  err, sizeof(err));
			for (size_t i = 0; r == 0 && i < paths.n; i++) {
				char derr[512];
				_cleanup_free_ char *q =
				    xasprintf("%s?propagationPolicy=Background", paths.items[i]);
				int d = canary_api(c, wait_end, "DELETE", q, NULL, NULL, derr,
						   sizeof(derr));
				if (d < 0 && d != -ENOENT) {
					api_errors++;
					snprintf(err, sizeof(err), "%s", derr);
				} else if (d == 0 && !strv_contains(&deleted, todo.items[i]))
					strv_add(&deleted, todo.items[i]);
			}
			bool done = r == 0 && left.n == 0;
			strv_clear(&left);
			strv_clear(&paths);
			strv_clear(&todo);
			if (done || !sleep_until(until, POLL_MS))
				break;
		}
	}
	/* Longhorn's volumes behind the PVCs, until they are gone too. */
	int r = 0;
	for (size_t i = 0; i < volumes.n; i++) {
		_cleanup_free_ char *vp = xasprintf(LONGHORN_VOLUMES "/%s", volumes.items[i]);
		for (;;) {
			r = canary_api(c, wait_end, "GET", vp, NULL, NULL, err, sizeof(err));
			if (r < 0 || !sleep_until(wait_end, POLL_MS))
				break;
		}
	}
	/* What was made for the snapshot step without a label goes with its
	 * VolumeSnapshot when the class's deletionPolicy is Delete. */
	for (size_t i = 0; i < c->made_for.n; i++)
		for (;;) {
			r = canary_api(c, wait_end, "GET", c->made_for.items[i], NULL, NULL, err,
				       sizeof(err));
			if (r < 0 || !sleep_until(wait_end, POLL_MS))
				break;
		}
	/* What is left, of every kind. */
	struct strv left = {0};
	r = 0;
	for (size_t k = 0; r == 0 && k < ELEMENTSOF(kinds); k++)
		r = list_kind(c, c->end_ns, k, selector, &left, NULL, NULL, &volumes, err,
			      sizeof(err));
	bool retained = false;
	for (size_t i = 0; r == 0 && i < c->made_for.n; i++) {
		json_object *o = NULL;
		int g = canary_api(c, c->end_ns, "GET", c->made_for.items[i], NULL, &o, err,
				   sizeof(err));
		if (g == 0) {
			const char *kind = cj_str(o, "kind", NULL);
			const char *name = cj_str(o, "metadata", "name", NULL);
			const char *ns = cj_str(o, "metadata", "namespace", NULL);
			const char *pol = cj_str(o, "spec", "deletionPolicy", NULL);
			retained |= pol && streq(pol, "Retain");
			_cleanup_free_ char *id = xasprintf(
			    "%s/%s%s%s%s%s%s", kind ? kind : "?", ns ? ns : "", ns ? "/" : "",
			    name ? name : c->made_for.items[i], pol ? " (deletionPolicy " : "",
			    pol ? pol : "", pol ? ")" : "");
			strv_add(&left, id);
		} else if (g != -ENOENT)
			r = g;
		json_object_put(o);
	}
	for (size_t i = 0; r == 0 && i < volumes.n; i++) {
		_cleanup_free_ char *vp = xasprintf(LONGHORN_VOLUMES "/%s", volumes.items[i]);
		int g = canary_api(c, c->end_ns, "GET", vp, NULL, NULL, err, sizeof(err));
		if (g == 0) {
			_cleanup_free_ char *id = xasprintf(
			    "Volume/" CANARY_LONGHORN_NS "/%s (Longhorn)", volumes.items[i]);
			strv_add(&left, id);
		} else if (g != -ENOENT)
			r = g;
	}
	int64_t ms = (util_now_mono_ns() - t0) / 1000000;
	kv_add_int(&f->evidence, "duration_ms", ms);
	struct value_list *dl = kv_add_list(&f->evidence, "deleted");
	for (size_t i = 0; i < deleted.n; i++)
		vlist_add_str(dl, deleted.items[i]);
	if (r < 0) {
		_cleanup_free_ char *s = strv_join(&c->created, ", ");
		finding_set(f, STATUS_FAIL,
			    "cannot confirm that the canary's objects are gone: %s%s%s", err,
			    c->created.n ? "; this run created: " : "", s);
		finding_remedy(f,
			       "Run `hvready-aggregator canary --cleanup` when the API answers.");
	} else if (left.n) {
		_cleanup_free_ char *s = strv_join(&left, ", ");
		finding_set(f, STATUS_FAIL, "%zu object%s left after %.1fs: %s%s%s", left.n,
			    left.n == 1 ? "" : "s", (double)ms / 1000.0, s,
			    api_errors ? "; last error: " : "", api_errors ? err : "");
		const char *again =
		    "Run `hvready-aggregator canary --cleanup` again; an object that stays "
		    "Terminating waits for its finalizers (docs/checks/canary.cleanup.md).";
		if (retained)
			finding_remedy(
			    f,
			    "The VolumeSnapshotClass keeps what its snapshots made (deletionPolicy "
			    "Retain): delete the VolumeSnapshotContent named here after setting "
			    "its "
			    "`spec.deletionPolicy` to Delete, so that the Longhorn snapshot or "
			    "backup goes with it: `kubectl patch volumesnapshotcontent NAME --type "
			    "merge -p '{\"spec\":{\"deletionPolicy\":\"Delete\"}}'`, then "
			    "`kubectl delete volumesnapshotcontent NAME`; the canary never deletes "
			    "what it did not label." REMEDY_STEP_SEP "%s",
			    again);
		else
			finding_remedy(f, "%s", again);
		struct value_list *ll = kv_add_list(&f->evidence, "left");
		for (size_t i = 0; i < left.n; i++)
			vlist_add_str(ll, left.items[i]);
	} else if (deleted.n)
		finding_set(f, STATUS_PASS, "removed %zu object%s in %.1fs", deleted.n,
			    deleted.n == 1 ? "" : "s", (double)ms / 1000.0);
	else
		finding_set(f, STATUS_PASS, "nothing to remove%s",
			    all ? ": no objects of earlier runs" : "");
	strv_clear(&left);
	strv_clear(&deleted);
	strv_clear(&volumes);
}

/* The canary.cleanup step: the run's own objects, or with --cleanup every run's. */
void canary_step_cleanup(struct canary *c, struct finding *f)
{
	canary_cleanup(c, c->o->cleanup_only, f);
}
