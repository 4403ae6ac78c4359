/*
 * canary.vm.start (docs/checks/canary.vm.start.md): a VirtualMachine with a
 * blank DataVolume (CDI source "blank": no image is downloaded) on the
 * migratable Longhorn class (RWX Block, as Harvester's VM disks), one vCPU
 * and 128Mi, started at once (runStrategy Always); PASS when its VMI is
 * Running on a node. A guest without a bootable disk still runs: QEMU's
 * firmware waits for one, which is all a migration and a snapshot need.
 *
 * Labels reach every object it leads to: KubeVirt copies a
 * dataVolumeTemplate's labels to the DataVolume (kubevirt/kubevirt
 * pkg/virt-controller/watch/vm.go, createDataVolumeManifest), CDI copies the
 * DataVolume's labels to its PVC (kubevirt/containerized-data-importer
 * pkg/controller/datavolume, newPersistentVolumeClaim), the VMI takes
 * spec.template.metadata.labels and its virt-launcher pod the VMI's.
 *
 * Preconditions (SKIP or UNKNOWN, nothing created): KubeVirt installed and
 * Deployed, CDI installed, a migratable Longhorn StorageClass, a Ready
 * schedulable node offering devices.kubevirt.io/kvm.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "canary_kv.h"
#include "storage.h"

#define VM_DISK_SIZE "64Mi"
#define VM_MEMORY    "128Mi"
#define LONGHORN_CSI "driver.longhorn.io"

char *canary_vm_name(const struct canary *c)
{
	return xasprintf("hvready-canary-vm-%s", c->run_id);
}

const struct finding *canary_step_finding(const struct canary *c, const char *id)
{
	for (size_t i = 0; i < c->findings.n; i++)
		if (c->findings.items[i].check && streq(c->findings.items[i].check, id))
			return &c->findings.items[i];
	return NULL;
}

bool canary_step_passed(const struct canary *c, struct finding *f, const char *id,
			const char *needs, const char *not_passed)
{
	const struct finding *sf = canary_step_finding(c, id);
	if (!sf)
		finding_set(f, STATUS_SKIP, "%s", needs);
	else if (sf->status != STATUS_PASS)
		finding_set(f, STATUS_SKIP, "%s (%s is %s)", not_passed, id,
			    status_name(sf->status));
	return sf && sf->status == STATUS_PASS;
}

char *canary_conditions(json_object *obj, bool all)
{
	json_object *conds = cj_get(obj, "status", "conditions", NULL);
	struct strv v = {0};
	for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
		json_object *cd = json_object_array_get_idx(conds, i);
		const char *t = cj_str(cd, "type", NULL), *s = cj_str(cd, "status", NULL);
		const char *reason = cj_str(cd, "reason", NULL), *msg = cj_str(cd, "message", NULL);
		if (!t || !s)
			continue;
		/* healthy: Ready/Running/Bound/LiveMigratable True, Failure/Paused False */
		bool bad = streq(s, "True")
			       ? (streq(t, "Failure") || streq(t, "Paused") || streq(t, "Degraded"))
			       : streq(s, "False") && !streq(t, "Failure") && !streq(t, "Paused") &&
				     !streq(t, "Degraded");
		if (!all && !bad)
			continue;
		_cleanup_free_ char *one =
		    xasprintf("%s=%s%s%s%s%s%s", t, s, reason && *reason ? " (" : "",
			      reason && *reason ? reason : "", reason && *reason ? ")" : "",
			      msg && *msg ? ": " : "", msg && *msg ? msg : "");
		strv_add(&v, one);
	}
	char *out = strv_join(&v, "; ");
	strv_clear(&v);
	return out;
}

static const char *node_unusable(json_object *n)
{
	const char *why = canary_node_unusable(n);
	if (why)
		return why;
	const char *kvm = cj_str(n, "status", "allocatable", CANARY_KVM_RESOURCE, NULL);
	if (!kvm || !*kvm || streq(kvm, "0"))
		return "no " CANARY_KVM_RESOURCE " (KVM) allocatable";
	return NULL;
}

int canary_kvm_nodes(struct canary *c, struct strv *ret, struct strv *bad, size_t *total, char *err,
		     size_t errlen)
{
	json_object *list = NULL;
	int r = canary_api(c, c->steps_end_ns, "GET", "/api/v1/nodes", NULL, &list, err, errlen);
	if (r < 0)
		return r;
	json_object *items = cj_get(list, "items", NULL);
	size_t n = items && json_object_is_type(items, json_type_array)
		       ? json_object_array_length(items)
		       : 0;
	*total = n;
	for (size_t i = 0; i < n; i++) {
		json_object *nd = json_object_array_get_idx(items, i);
		const char *name = cj_str(nd, "metadata", "name", NULL), *why = node_unusable(nd);
		if (!name)
			continue;
		if (why) {
			_cleanup_free_ char *s = xasprintf("%s (%s)", name, why);
			strv_add(bad, s);
		} else
			strv_add(ret, name);
	}
	json_object_put(list);
	return 0;
}

const char *canary_node_why_not(const struct strv *nodes, const struct strv *bad, const char *name)
{
	for (size_t i = 0; i < nodes->n; i++)
		if (streq(nodes->items[i], name))
			return NULL;
	size_t n = strlen(name);
	for (size_t i = 0; i < bad->n; i++)
		if (!strncmp(bad->items[i], name, n) && !strncmp(bad->items[i] + n, " (", 2))
			return bad->items[i] + n + 1; /* "(why)" */
	return "(no such node)";
}

bool canary_vm_step_vmi(struct canary *c, struct finding *f, const char *needs, json_object **ret,
			char *err, size_t errlen)
{
	*ret = NULL;
	if (!canary_step_passed(c, f, "canary.vm.start", needs, "the VM did not start"))
		return false;
	_cleanup_free_ char *vm = canary_vm_name(c);
	_cleanup_free_ char *path =
	    xasprintf(CANARY_KV_API "/namespaces/%s/virtualmachineinstances/%s", c->o->ns, vm);
	if (canary_api(c, c->steps_end_ns, "GET", path, NULL, ret, err, errlen) < 0) {
		finding_set(f, STATUS_UNKNOWN, "cannot read the VMI %s/%s: %s", c->o->ns, vm, err);
		return false;
	}
	return true;
}

struct vm {
	struct canary *c;
	struct finding *f;
	char *class, *name;
	char err[1024];
};

static json_object *jstr(const char *s)
{
	return json_object_new_string(s);
}

/* The WHAT CR was read (r of the request): else the finding is ABSENT with
 * absent_msg when its API is not served, UNKNOWN on an API error. */
static bool cr_read(struct vm *v, int r, const char *what, enum status absent,
		    const char *absent_msg)
{
	if (r == -ENOENT)
		finding_set(v->f, absent, "%s", absent_msg);
	else if (r < 0)
		finding_set(v->f, STATUS_UNKNOWN, "cannot read the %s CR: %s", what, v->err);
	return r >= 0;
}

/* KubeVirt and CDI are installed, KubeVirt is Deployed. */
static bool have_kubevirt(struct vm *v)
{
	struct canary *c = v->c;
	json_object *list = NULL;
	int r = canary_api(c, c->steps_end_ns, "GET", CANARY_KV_API "/kubevirts", NULL, &list,
			   v->err, sizeof(v->err));
	if (!cr_read(v, r, "KubeVirt", STATUS_SKIP,
		     "KubeVirt is not installed (kubevirt.io/v1 is not served): there is no VM "
		     "to start"))
		return false;
	json_object *items = cj_get(list, "items", NULL);
	json_object *kv =
	    items && json_object_array_length(items) ? json_object_array_get_idx(items, 0) : NULL;
	const char *phase = cj_str(kv, "status", "phase", NULL);
	bool ok = false;
	if (!kv)
		finding_set(v->f, STATUS_SKIP,
			    "no KubeVirt CR: KubeVirt is not deployed, there is no VM to start");
	else if (!phase || !streq(phase, "Deployed"))
		finding_set(v->f, STATUS_UNKNOWN,
			    "KubeVirt %s/%s is %s, not Deployed: a VM would not start for a reason "
			    "the passive checks report (api.kubevirt.*)",
			    cj_str(kv, "metadata", "namespace", NULL) ?: "?",
			    cj_str(kv, "metadata", "name", NULL) ?: "?",
			    phase ? phase : "without a phase");
	else
		ok = true;
	json_object_put(list);
	if (!ok)
		return false;
	r = canary_api(c, c->steps_end_ns, "GET", CANARY_CDI_API "/cdis", NULL, &list, v->err,
		       sizeof(v->err));
	json_object_put(list);
	return cr_read(v, r, "CDI", STATUS_UNKNOWN,
		       "CDI is not installed (cdi.kubevirt.io/v1beta1 is not served): the VM's "
		       "DataVolume needs it");
}

/* --storage-class NAME: it must exist; a Longhorn class must be migratable,
 * since Longhorn serves an RWX volume that is not through a share-manager
 * (NFS), which a VM's Block disk and its live migration cannot use
 * (longhorn/longhorn-manager csi/util.go, getVolumeOptions: "migratable";
 * csi/controller_server.go, ControllerPublishVolume: a "regular RWX volume"
 * is one that is not migratable). Another provisioner is taken as given. */
static bool named_class(struct vm *v, json_object *items)
{
	const char *want = v->c->o->vm_class;
	for (size_t i = 0; items && i < json_object_array_length(items); i++) {
		json_object *sc = json_object_array_get_idx(items, i);
		const char *name = cj_str(sc, "metadata", "name", NULL);
		if (!name || !streq(name, want))
			continue;
		const char *prov = cj_str(sc, "provisioner", NULL);
		const char *mig = cj_str(sc, "parameters", "migratable", NULL);
		if (prov && streq(prov, LONGHORN_CSI) && !(mig && streq(mig, "true"))) {
			finding_set(v->f, STATUS_UNKNOWN,
				    "--storage-class %s: a Longhorn class without parameters."
				    "migratable \"true\": Longhorn would serve the VM's RWX disk "
				    "through a share-manager, which live migration cannot use",
				    want);
			finding_remedy(v->f, "Name a migratable class (Harvester's "
					     "harvester-longhorn is one), or leave --storage-class "
					     "out (docs/checks/canary.vm.start.md).");
			return false;
		}
		v->class = xstrdup(name);
		return true;
	}
	finding_set(v->f, STATUS_UNKNOWN, "--storage-class %s: no such StorageClass", want);
	return false;
}

/* The migratable Longhorn class: the one annotated the default for VMs
 * (storageclass.kubevirt.io/is-default-virt-class, honoured by CDI), else the
 * cluster's default, else the first by name. */
static bool pick_class(struct vm *v)
{
	struct canary *c = v->c;
	json_object *list = NULL;
	if (canary_step_list(c, v->f, "/apis/storage.k8s.io/v1/storageclasses", "StorageClasses",
			     &list, v->err, sizeof(v->err)) < 0)
		return false;
	json_object *items = cj_get(list, "items", NULL);
	if (c->o->vm_class) {
		bool ok = named_class(v, items);
		json_object_put(list);
		return ok;
	}
	const char *best = NULL;
	int best_rank = 0;
	for (size_t i = 0; items && i < json_object_array_length(items); i++) {
		json_object *sc = json_object_array_get_idx(items, i);
		const char *name = cj_str(sc, "metadata", "name", NULL);
		const char *prov = cj_str(sc, "provisioner", NULL);
		const char *mig = cj_str(sc, "parameters", "migratable", NULL);
		if (!name || !prov || !streq(prov, LONGHORN_CSI) || !mig || !streq(mig, "true"))
			continue;
		const char *dv = cj_str(sc, "metadata", "annotations",
					"storageclass.kubevirt.io/is-default-virt-class", NULL);
		/* The cluster's default class, by either annotation Kubernetes reads
		 * (storage.h: IsDefaultAnnotation). */
		const char *dc = cj_str(sc, "metadata", "annotations", ANN_SC_DEFAULT, NULL);
		const char *dcb = cj_str(sc, "metadata", "annotations", ANN_SC_DEFAULT_BETA, NULL);
		bool is_default = (dc && streq(dc, "true")) || (dcb && streq(dcb, "true"));
		int rank = dv && streq(dv, "true") ? 3 : is_default ? 2 : 1;
		if (!best || rank > best_rank || (rank == best_rank && strcmp(name, best) < 0)) {
			best = name;
			best_rank = rank;
		}
	}
	if (best)
		v->class = xstrdup(best);
	else {
		finding_set(v->f, STATUS_UNKNOWN,
			    "no StorageClass of " LONGHORN_CSI
			    " with parameters.migratable \"true\": "
			    "the VM's RWX Block disk needs one");
		finding_remedy(v->f, "Harvester's harvester-longhorn is one; see "
				     "docs/checks/canary.vm.start.md.");
	}
	json_object_put(list);
	return best != NULL;
}

static json_object *vm_body(struct vm *v)
{
	struct canary *c = v->c;
	_cleanup_free_ char *dv = xasprintf("%s-disk", v->name);
	_cleanup_free_ char *fmt = xasprintf(
	    "{\"apiVersion\":\"kubevirt.io/v1\",\"kind\":\"VirtualMachine\","
	    "\"metadata\":{\"name\":\"%s\"},"
	    "\"spec\":{\"runStrategy\":\"Always\","
	    "\"dataVolumeTemplates\":[{\"metadata\":{\"name\":\"%s\"},"
	    "\"spec\":{\"source\":{\"blank\":{}},\"storage\":{\"accessModes\":[\"ReadWriteMany\"],"
	    "\"volumeMode\":\"Block\",\"resources\":{\"requests\":{\"storage\":\"" VM_DISK_SIZE
	    "\"}}}}}],"
	    "\"template\":{\"metadata\":{},\"spec\":{"
	    "\"domain\":{\"cpu\":{\"cores\":1,\"sockets\":1,\"threads\":1},"
	    "\"memory\":{\"guest\":\"" VM_MEMORY "\"},"
	    "\"resources\":{\"requests\":{\"memory\":\"" VM_MEMORY "\",\"cpu\":\"100m\"}},"
	    "\"devices\":{\"disks\":[{\"name\":\"disk0\",\"disk\":{\"bus\":\"virtio\"}}],"
	    "\"autoattachGraphicsDevice\":false}},"
	    "\"evictionStrategy\":\"LiveMigrate\",\"terminationGracePeriodSeconds\":0,"
	    "\"volumes\":[{\"name\":\"disk0\",\"dataVolume\":{\"name\":\"%s\"}}]}}}}",
	    v->name, dv, dv);
	json_object *o = json_tokener_parse(fmt);
	if (!o)
		abort(); /* a fixed template with checked names */
	json_object_object_add(cj_get(o, "metadata", NULL), "labels", canary_labels(c));
	json_object *dvt =
	    json_object_array_get_idx(cj_get(o, "spec", "dataVolumeTemplates", NULL), 0);
	json_object_object_add(cj_get(dvt, "metadata", NULL), "labels", canary_labels(c));
	json_object_object_add(cj_get(dvt, "spec", "storage", NULL), "storageClassName",
			       jstr(v->class));
	json_object_object_add(cj_get(o, "spec", "template", "metadata", NULL), "labels",
			       canary_labels(c));
	if (c->o->n_nodes) {
		/* --node A: preferred, not required, so that the VMI may migrate
		 * away (a required affinity would bind every target to A). */
		_cleanup_free_ char *aff = xasprintf(
		    "{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":"
		    "[{\"weight\":100,\"preference\":{\"matchFields\":[{\"key\":"
		    "\"metadata.name\",\"operator\":\"In\",\"values\":[]}]}}]}}");
		json_object *a = json_tokener_parse(aff);
		if (!a)
			abort(); /* a fixed template */
		json_object *term = json_object_array_get_idx(
		    cj_get(a, "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution",
			   NULL),
		    0);
		json_object *mf =
		    json_object_array_get_idx(cj_get(term, "preference", "matchFields", NULL), 0);
		json_object_array_add(cj_get(mf, "values", NULL), jstr(c->o->nodes[0]));
		json_object_object_add(cj_get(o, "spec", "template", "spec", NULL), "affinity", a);
	}
	return o;
}

/* The VMI did not run in time: the first broken link, DataVolume (and its
 * PVC), then the VM's own status, then the VMI's scheduling. */
static void diagnose(struct vm *v, json_object *vmi, int64_t waited_s)
{
	struct canary *c = v->c;
	struct finding *f = v->f;
	int64_t until = c->diag_end_ns;
	char err[512];
	_cleanup_free_ char *dvname = xasprintf("%s-disk", v->name);
	_cleanup_free_ char *dvpath =
	    xasprintf(CANARY_CDI_API "/namespaces/%s/datavolumes/%s", c->o->ns, dvname);
	json_object *dv = NULL;
	canary_api(c, until, "GET", dvpath, NULL, &dv, err, sizeof(err));
	const char *dvphase = cj_str(dv, "status", "phase", NULL);
	if (!dvphase || !streq(dvphase, "Succeeded")) {
		_cleanup_free_ char *conds = canary_conditions(dv, false);
		struct strv ev = {0};
		canary_events(c, c->o->ns, dvname, false, 3, &ev);
		_cleanup_free_ char *q = canary_quoted(&ev);
		finding_set(f, STATUS_FAIL, "the VM's DataVolume %s/%s is %s after %llds%s%s%s",
			    c->o->ns, dvname,
			    dv ? (dvphase ? dvphase : "without a phase") : "not created",
			    (long long)waited_s, *conds ? ": " : "", conds, q);
		finding_remedy(f,
			       "CDI or Longhorn did not provide the VM's disk on StorageClass %s: "
			       "see the DataVolume's PVC, CDI's and Longhorn's logs "
			       "(docs/checks/canary.vm.start.md).",
			       v->class);
		canary_evidence_list(f, "datavolume_events", &ev);
		strv_clear(&ev);
		json_object_put(dv);
		return;
	}
	json_object_put(dv);
	if (!vmi) {
		_cleanup_free_ char *vmpath =
		    xasprintf(CANARY_KV_API "/namespaces/%s/virtualmachines/%s", c->o->ns, v->name);
		json_object *vm = NULL;
		canary_api(c, until, "GET", vmpath, NULL, &vm, err, sizeof(err));
		const char *ps = cj_str(vm, "status", "printableStatus", NULL);
		_cleanup_free_ char *conds = canary_conditions(vm, false);
		finding_set(f, STATUS_FAIL, "the VM %s/%s has no VMI after %llds (%s)%s%s",
			    c->o->ns, v->name, (long long)waited_s, ps ? ps : "no status",
			    *conds ? ": " : "", conds);
		finding_remedy(f, "virt-controller did not start the VM: see its log "
				  "(docs/checks/canary.vm.start.md).");
		json_object_put(vm);
		return;
	}
	const char *phase = cj_str(vmi, "status", "phase", NULL);
	_cleanup_free_ char *conds = canary_conditions(vmi, false);
	struct strv ev = {0};
	canary_events(c, c->o->ns, v->name, false, 3, &ev);
	_cleanup_free_ char *q = canary_quoted(&ev);
	finding_set(f, STATUS_FAIL, "the VMI %s/%s is %s after %llds, not Running%s%s%s", c->o->ns,
		    v->name, phase ? phase : "without a phase", (long long)waited_s,
		    *conds ? ": " : "", conds, q);
	finding_remedy(f, "A stall is not a pass: see the VMI's virt-launcher pod and its events "
			  "(docs/checks/canary.vm.start.md).");
	canary_evidence_list(f, "vmi_events", &ev);
	strv_clear(&ev);
}

struct vm_wait {
	struct vm *v;
	const char *vmipath, *dvpath;
	int64_t dv_ms;	  /* when the DataVolume Succeeded, or -1 */
	json_object *vmi; /* the last VMI seen */
};

/* One look: the VMI runs on a node (PASS) or ended (FAIL). */
static int vm_done(struct canary_wait *cw)
{
	struct vm_wait *vw = cw->arg;
	struct vm *v = vw->v;
	int64_t t0 = cw->t0_ns;
	struct canary *c = v->c;
	struct finding *f = v->f;
	int r;
	if (vw->dv_ms < 0) {
		json_object *dv = NULL;
		r = canary_api(c, c->steps_end_ns, "GET", vw->dvpath, NULL, &dv, v->err,
			       sizeof(v->err));
		const char *ph = cj_str(dv, "status", "phase", NULL);
		if (ph && streq(ph, "Succeeded"))
			vw->dv_ms = (util_now_mono_ns() - t0) / 1000000;
		json_object_put(dv);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	json_object *got = NULL;
	r = canary_api(c, c->steps_end_ns, "GET", vw->vmipath, NULL, &got, v->err, sizeof(v->err));
	if (r < 0 && r != -ENOENT)
		return r;
	if (r == 0) {
		json_object_put(vw->vmi);
		vw->vmi = got;
	}
	const char *phase = cj_str(vw->vmi, "status", "phase", NULL);
	const char *node = cj_str(vw->vmi, "status", "nodeName", NULL);
	if (phase && streq(phase, "Running") && node && *node) {
		int64_t ms = (util_now_mono_ns() - t0) / 1000000;
		kv_add_str(&f->evidence, "node", node);
		kv_add_int(&f->evidence, "running_ms", ms);
		if (vw->dv_ms >= 0)
			kv_add_int(&f->evidence, "datavolume_ms", vw->dv_ms);
		const char *want = c->o->n_nodes ? c->o->nodes[0] : NULL;
		if (want)
			kv_add_str(&f->evidence, "node_preferred", want);
		finding_set(f, STATUS_PASS,
			    "the VM %s/%s runs on %s (VMI Running after %.1fs; its blank "
			    "DataVolume on StorageClass %s)%s%s%s",
			    c->o->ns, v->name, node, (double)ms / 1000.0, v->class,
			    want && !streq(want, node) ? "; the scheduler did not take --node "
						       : "",
			    want && !streq(want, node) ? want : "",
			    want && !streq(want, node) ? ", a preference" : "");
		return 1;
	}
	if (phase && (streq(phase, "Failed") || streq(phase, "Succeeded"))) {
		_cleanup_free_ char *conds = canary_conditions(vw->vmi, false);
		finding_set(f, STATUS_FAIL, "the VMI %s/%s ended %s instead of running%s%s",
			    c->o->ns, v->name, phase, *conds ? ": " : "", conds);
		finding_remedy(f, "See the virt-launcher pod's log "
				  "(docs/checks/canary.vm.start.md).");
		return 1;
	}
	return 0;
}

static void vm_run(struct vm *v, int64_t t0)
{
	struct canary *c = v->c;
	struct finding *f = v->f;
	if (!canary_step_namespace(c, f, v->err, sizeof(v->err)))
		return;
	_cleanup_free_ char *path =
	    xasprintf(CANARY_KV_API "/namespaces/%s/virtualmachines", c->o->ns);
	int r = canary_step_create(c, f, path, "VirtualMachine", v->name, vm_body(v), "the VM",
				   v->err, sizeof(v->err));
	kv_add_str(&f->evidence, "vm", v->name);
	if (r < 0)
		return;
	_cleanup_free_ char *vmipath =
	    xasprintf(CANARY_KV_API "/namespaces/%s/virtualmachineinstances/%s", c->o->ns, v->name);
	_cleanup_free_ char *dvpath =
	    xasprintf(CANARY_CDI_API "/namespaces/%s/datavolumes/%s-disk", c->o->ns, v->name);
	struct vm_wait vw = {.v = v, .vmipath = vmipath, .dvpath = dvpath, .dv_ms = -1};
	struct canary_wait cw = {.what = "the VM to run",
				 .t0_ns = t0,
				 .look = vm_done,
				 .arg = &vw,
				 .err = v->err,
				 .errlen = sizeof(v->err)};
	if (canary_wait(c, f, &cw) == CANARY_WAIT_STALL)
		diagnose(v, vw.vmi, (util_now_mono_ns() - t0) / 1000000000);
	json_object_put(vw.vmi);
}

void canary_step_vm(struct canary *c, struct finding *f)
{
	struct vm v = {.c = c, .f = f, .name = canary_vm_name(c)};
	int64_t t0 = util_now_mono_ns();
	struct strv nodes = {0}, bad = {0};
	size_t total = 0;
	const char *why = NULL;
	if (have_kubevirt(&v) && pick_class(&v)) {
		if (canary_kvm_nodes(c, &nodes, &bad, &total, v.err, sizeof(v.err)) < 0)
			finding_set(f, STATUS_UNKNOWN, "cannot list the nodes: %s", v.err);
		else if (!nodes.n) {
			_cleanup_free_ char *s = strv_join(&bad, ", ");
			finding_set(f, STATUS_UNKNOWN,
				    "no Ready, schedulable node offers " CANARY_KVM_RESOURCE "%s%s",
				    bad.n ? ": " : "", s);
			finding_remedy(f, "See the passive checks of KVM and virt-handler "
					  "(docs/checks/canary.vm.start.md).");
		} else if (c->o->n_nodes &&
			   (why = canary_node_why_not(&nodes, &bad, c->o->nodes[0]))) {
			finding_set(f, STATUS_UNKNOWN, "--node %s cannot run a VM %s",
				    c->o->nodes[0], why);
			finding_remedy(f, "Name a Ready, schedulable node with KVM as the first "
					  "--node (docs/checks/canary.vm.start.md).");
		} else {
			kv_add_str(&f->evidence, "storage_class", v.class);
			vm_run(&v, t0);
		}
	}
	kv_add_int(&f->evidence, "duration_ms", (util_now_mono_ns() - t0) / 1000000);
	strv_clear(&nodes);
	strv_clear(&bad);
	free(v.class);
	free(v.name);
}
