/*
 * canary.rwx (docs/checks/canary.rwx.md): a ReadWriteMany Filesystem PVC on a
 * Longhorn StorageClass that is not migratable, a pod on node A writes a
 * random token to it, a pod on node B reads it back. The pods run
 * `hvready-agent canary-io` from the agent's own image, so nothing new is
 * pulled. Their phase and termination message (or log) carry the result.
 * When a pod does not finish, the first broken link is named, in order: the
 * share-manager pod, the PVC's binding, the pod's mount, the read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "canary.h"

#define RWX_SIZE     "256Mi"
#define RWX_MOUNT    "/canary"
#define RWX_FILE     RWX_MOUNT "/token"
#define LONGHORN_CSI "driver.longhorn.io"

struct rwx {
	struct canary *c;
	struct finding *f;
	char *class, *image, *pvc, *token;
	const char *node_a, *node_b;
	struct strv node_names; /* owns node_a/node_b */
	char err[1024];
};

static int64_t ms_since(int64_t t0)
{
	return (util_now_mono_ns() - t0) / 1000000;
}

/* Two schedulable Ready nodes: --node A --node B, or the first two by name. */
static enum status pick_nodes(struct rwx *w)
{
	struct canary *c = w->c;
	json_object *list = NULL;
	if (canary_step_list(c, w->f, "/api/v1/nodes", "nodes", &list, w->err, sizeof(w->err)) < 0)
		return STATUS_UNKNOWN;
	json_object *items = cj_get(list, "items", NULL);
	size_t n = items ? json_object_array_length(items) : 0;
	struct strv bad = {0};
	enum status st = STATUS_PASS;
	if (c->o->n_nodes) {
		for (size_t k = 0; k < c->o->n_nodes; k++) {
			const char *want = c->o->nodes[k], *why = "not found";
			for (size_t i = 0; i < n; i++) {
				json_object *nd = json_object_array_get_idx(items, i);
				const char *name = cj_str(nd, "metadata", "name", NULL);
				if (name && streq(name, want))
					why = canary_node_unusable(nd);
			}
			if (why) {
				_cleanup_free_ char *s = xasprintf("%s (%s)", want, why);
				strv_add(&bad, s);
			} else
				strv_add(&w->node_names, want);
		}
		if (bad.n) {
			_cleanup_free_ char *s = strv_join(&bad, ", ");
			finding_set(w->f, STATUS_UNKNOWN, "--node: %s cannot run the canary's pods",
				    s);
			st = STATUS_UNKNOWN;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			json_object *nd = json_object_array_get_idx(items, i);
			const char *name = cj_str(nd, "metadata", "name", NULL),
				   *why = canary_node_unusable(nd);
			if (!name)
				continue;
			if (why) {
				_cleanup_free_ char *s = xasprintf("%s (%s)", name, why);
				strv_add(&bad, s);
			} else if (w->node_names.n < 2)
				strv_add(&w->node_names, name);
		}
		if (n < 2) {
			finding_set(
			    w->f, STATUS_SKIP,
			    "the cluster has %zu node%s: a share between two nodes cannot be "
			    "tested",
			    n, n == 1 ? "" : "s");
			st = STATUS_SKIP;
		} else if (w->node_names.n < 2) {
			_cleanup_free_ char *s = strv_join(&bad, ", ");
			finding_set(w->f, STATUS_UNKNOWN,
				    "fewer than two nodes are Ready and schedulable: %s", s);
			finding_remedy(w->f, "Run it when two nodes are Ready and uncordoned, or "
					     "name them with --node A --node B.");
			st = STATUS_UNKNOWN;
		}
	}
	strv_clear(&bad);
	json_object_put(list);
	if (st == STATUS_PASS) {
		w->node_a = w->node_names.items[0];
		w->node_b = w->node_names.items[1];
		if (streq(w->node_a, w->node_b)) {
			finding_set(w->f, STATUS_UNKNOWN, "--node: give two different nodes");
			return STATUS_UNKNOWN;
		}
	}
	return st;
}

static const char *class_unfit(json_object *sc)
{
	const char *prov = cj_str(sc, "provisioner", NULL);
	const char *mig = cj_str(sc, "parameters", "migratable", NULL);
	if (!prov || !streq(prov, LONGHORN_CSI))
		return "its provisioner is not " LONGHORN_CSI;
	if (mig && streq(mig, "true"))
		return "it is migratable (parameters.migratable \"true\": Block volumes for live "
		       "migration, not an RWX Filesystem share)";
	return NULL;
}

static enum status pick_class(struct rwx *w)
{
	struct canary *c = w->c;
	if (c->o->rwx_class) {
		_cleanup_free_ char *path =
		    xasprintf("/apis/storage.k8s.io/v1/storageclasses/%s", c->o->rwx_class);
		json_object *sc = NULL;
		int r =
		    canary_api(c, c->steps_end_ns, "GET", path, NULL, &sc, w->err, sizeof(w->err));
		if (r == -ENOENT) {
			finding_set(w->f, STATUS_UNKNOWN,
				    "--rwx-class: StorageClass %s does not exist", c->o->rwx_class);
			return STATUS_UNKNOWN;
		}
		if (r < 0) {
			finding_set(w->f, STATUS_UNKNOWN, "cannot read StorageClass %s: %s",
				    c->o->rwx_class, w->err);
			return STATUS_UNKNOWN;
		}
		const char *why = class_unfit(sc);
		if (why)
			finding_set(w->f, STATUS_UNKNOWN, "--rwx-class %s: %s", c->o->rwx_class,
				    why);
		else
			w->class = xstrdup(c->o->rwx_class);
		json_object_put(sc);
		return why ? STATUS_UNKNOWN : STATUS_PASS;
	}
	json_object *list = NULL;
	if (canary_step_list(c, w->f, "/apis/storage.k8s.io/v1/storageclasses", "StorageClasses",
			     &list, w->err, sizeof(w->err)) < 0)
		return STATUS_UNKNOWN;
	json_object *items = cj_get(list, "items", NULL);
	const char *best = NULL;
	for (size_t i = 0; items && i < json_object_array_length(items); i++) {
		json_object *sc = json_object_array_get_idx(items, i);
		const char *name = cj_str(sc, "metadata", "name", NULL);
		if (name && !class_unfit(sc) && (!best || strcmp(name, best) < 0))
			best = name;
	}
	if (best)
		w->class = xstrdup(best);
	else {
		finding_set(w->f, STATUS_UNKNOWN,
			    "no StorageClass of " LONGHORN_CSI
			    " without parameters.migratable \"true\" to test an RWX share with");
		finding_remedy(w->f, "Create one (docs/canary.md) or name it with --rwx-class.");
	}
	json_object_put(list);
	return best ? STATUS_PASS : STATUS_UNKNOWN;
}

/* --image, else the image of the hvready-agent DaemonSet's agent container. */
static enum status pick_image(struct rwx *w)
{
	struct canary *c = w->c;
	if (c->o->image) {
		w->image = xstrdup(c->o->image);
		return STATUS_PASS;
	}
	_cleanup_free_ char *q =
	    canary_selector_query("labelSelector", "app.kubernetes.io/name=hvready-agent");
	_cleanup_free_ char *path = xasprintf("/apis/apps/v1/daemonsets?%s", q);
	json_object *list = NULL;
	if (canary_api(c, c->steps_end_ns, "GET", path, NULL, &list, w->err, sizeof(w->err)) < 0) {
		finding_set(w->f, STATUS_UNKNOWN, "cannot find the hvready-agent DaemonSet: %s",
			    w->err);
		return STATUS_UNKNOWN;
	}
	json_object *items = cj_get(list, "items", NULL);
	for (size_t i = 0; !w->image && items && i < json_object_array_length(items); i++) {
		json_object *cs = cj_get(json_object_array_get_idx(items, i), "spec", "template",
					 "spec", "containers", NULL);
		for (size_t k = 0; cs && k < json_object_array_length(cs); k++) {
			json_object *ct = json_object_array_get_idx(cs, k);
			const char *name = cj_str(ct, "name", NULL),
				   *img = cj_str(ct, "image", NULL);
			if (img && (k == 0 || (name && streq(name, "agent")))) {
				free(w->image);
				w->image = xstrdup(img);
			}
		}
	}
	json_object_put(list);
	if (!w->image) {
		finding_set(
		    w->f, STATUS_UNKNOWN,
		    "no hvready-agent DaemonSet (label app.kubernetes.io/name=hvready-agent) "
		    "to take the pods' image from");
		finding_remedy(w->f, "Give the agent's image with --image.");
		return STATUS_UNKNOWN;
	}
	return STATUS_PASS;
}

static json_object *jstr(const char *s)
{
	return json_object_new_string(s);
}

static json_object *pvc_body(struct rwx *w)
{
	json_object *o = canary_object(w->c, "v1", "PersistentVolumeClaim", w->pvc),
		    *spec = json_object_new_object(), *modes = json_object_new_array(),
		    *res = json_object_new_object(), *req = json_object_new_object();
	json_object_array_add(modes, jstr("ReadWriteMany"));
	json_object_object_add(spec, "accessModes", modes);
	json_object_object_add(spec, "volumeMode", jstr("Filesystem"));
	json_object_object_add(spec, "storageClassName", jstr(w->class));
	json_object_object_add(req, "storage", jstr(RWX_SIZE));
	json_object_object_add(res, "requests", req);
	json_object_object_add(spec, "resources", res);
	json_object_object_add(o, "spec", spec);
	return o;
}

static json_object *pod_body(struct rwx *w, const char *name, const char *node, const char *op)
{
	struct canary *c = w->c;
	_cleanup_free_ char *fmt = xasprintf(
	    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},"
	    "\"spec\":{\"restartPolicy\":\"Never\",\"automountServiceAccountToken\":false,"
	    "\"terminationGracePeriodSeconds\":1,\"enableServiceLinks\":false,"
	    "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
	    "{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\","
	    "\"operator\":\"In\",\"values\":[]}]}]}}},"
	    "\"containers\":[{\"name\":\"canary-io\",\"imagePullPolicy\":\"IfNotPresent\","
	    "\"args\":[\"canary-io\",\"%s\",\"" RWX_FILE "\",\"%s\"],"
	    "\"terminationMessagePolicy\":\"FallbackToLogsOnError\","
	    "\"volumeMounts\":[{\"name\":\"share\",\"mountPath\":\"" RWX_MOUNT "\"}],"
	    "\"resources\":{\"requests\":{\"cpu\":\"10m\",\"memory\":\"16Mi\"},"
	    "\"limits\":{\"memory\":\"64Mi\"}}}],"
	    "\"volumes\":[{\"name\":\"share\",\"persistentVolumeClaim\":{\"claimName\":\"%s\"}}]}}",
	    name, op, w->token, w->pvc);
	json_object *o = json_tokener_parse(fmt);
	if (!o)
		abort(); /* a fixed template with checked names */
	json_object_object_add(cj_get(o, "metadata", NULL), "labels", canary_labels(c));
	json_object *ct = json_object_array_get_idx(cj_get(o, "spec", "containers", NULL), 0);
	json_object_object_add(ct, "image", jstr(w->image));
	json_object *term = json_object_array_get_idx(
	    cj_get(o, "spec", "affinity", "nodeAffinity",
		   "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", NULL),
	    0);
	json_object *mf = json_object_array_get_idx(cj_get(term, "matchFields", NULL), 0);
	json_object_array_add(cj_get(mf, "values", NULL), jstr(node));
	/* The kubelet ends the pod even when the canary cannot. */
	int64_t left_s = (c->steps_end_ns - util_now_mono_ns()) / 1000000000 + 1;
	json_object_object_add(cj_get(o, "spec", NULL), "activeDeadlineSeconds",
			       json_object_new_int64(left_s > 1 ? left_s : 1));
	return o;
}

/* One look: the pod is Succeeded or Failed. */
static int pod_ended(struct canary_wait *cw)
{
	const char *phase = cj_str(cw->obj, "status", "phase", NULL);
	return phase && (streq(phase, "Succeeded") || streq(phase, "Failed"));
}

/* The result line of canary-io: the termination message, else the log. */
static char *pod_result(struct rwx *w, json_object *pod, const char *name)
{
	json_object *cs = cj_get(pod, "status", "containerStatuses", NULL);
	const char *msg =
	    cs ? cj_str(json_object_array_get_idx(cs, 0), "state", "terminated", "message", NULL)
	       : NULL;
	char *text = NULL;
	if (msg && *msg)
		text = xstrdup(msg);
	else {
		_cleanup_free_ char *path =
		    xasprintf("/api/v1/namespaces/%s/pods/%s/log", w->c->o->ns, name);
		char err[256];
		if (canary_api_text(w->c, w->c->diag_end_ns, path, &text, err, sizeof(err)) < 0)
			return xstrdup("");
	}
	/* the last non-empty line */
	strstrip(text);
	char *nl = strrchr(text, '\n');
	char *line = xstrdup(nl ? nl + 1 : text);
	free(text);
	if (strlen(line) > 300)
		line[300] = '\0';
	return line;
}

/* The pod did not finish within the time: the first broken link. */
static void diagnose_stall(struct rwx *w, const char *role, const char *pod_name, const char *node,
			   json_object *pod)
{
	struct canary *c = w->c;
	struct finding *f = w->f;
	int64_t waited_s = ms_since(c->start_ns) / 1000;
	int64_t until = c->diag_end_ns;
	_cleanup_free_ char *pvc_path =
	    xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", c->o->ns, w->pvc);
	json_object *pvc = NULL;
	char err[512];
	canary_api(c, until, "GET", pvc_path, NULL, &pvc, err, sizeof(err));
	const char *vol = cj_str(pvc, "spec", "volumeName", NULL);
	const char *pvc_phase = cj_str(pvc, "status", "phase", NULL);
	/* 1. Longhorn's share-manager pod, which serves the volume over NFS: the
	 * ShareManager is named after the volume and its pod "share-manager-" +
	 * that name (longhorn/longhorn-manager types/types.go,
	 * GetShareManagerPodNameFromShareManagerName; docs/checks/canary.rwx.md). */
	if (vol) {
		_cleanup_free_ char *smname = xasprintf("share-manager-%s", vol);
		_cleanup_free_ char *smpath =
		    xasprintf("/api/v1/namespaces/" CANARY_LONGHORN_NS "/pods/%s", smname);
		json_object *sm = NULL;
		if (canary_api(c, until, "GET", smpath, NULL, &sm, err, sizeof(err)) == 0) {
			const char *phase = cj_str(sm, "status", "phase", NULL);
			json_object *cs = cj_get(sm, "status", "containerStatuses", NULL);
			json_object *cs0 = cs ? json_object_array_get_idx(cs, 0) : NULL;
			const char *waiting = cj_str(cs0, "state", "waiting", "reason", NULL);
			const char *img = cj_str(cs0, "image", NULL);
			if (!phase || !streq(phase, "Running") || waiting) {
				struct strv ev = {0};
				canary_events(c, CANARY_LONGHORN_NS, smname, false, 3, &ev);
				_cleanup_free_ char *q = canary_quoted(&ev);
				finding_set(f, STATUS_FAIL,
					    "the share-manager pod " CANARY_LONGHORN_NS
					    "/%s is not running (%s%s%s)%s",
					    smname, phase ? phase : "no phase", waiting ? ", " : "",
					    waiting ? waiting : "", q);
				finding_remedy(
				    f,
				    "The RWX share is served by this pod: make its image "
				    "(%s) pullable on the nodes (host.image.share-manager) "
				    "and see docs/checks/canary.rwx.md.",
				    img ? img : "longhornio/longhorn-share-manager");
				kv_add_str(&f->evidence, "share_manager_pod", smname);
				if (img)
					kv_add_str(&f->evidence, "share_manager_image", img);
				canary_evidence_list(f, "share_manager_events", &ev);
				strv_clear(&ev);
				json_object_put(sm);
				json_object_put(pvc);
				return;
			}
		}
		json_object_put(sm);
	}
	/* 2. The PVC's binding. */
	if (!pvc_phase || !streq(pvc_phase, "Bound")) {
		struct strv ev = {0};
		canary_events(c, c->o->ns, w->pvc, true, 3, &ev);
		_cleanup_free_ char *q = canary_quoted(&ev);
		finding_set(f, STATUS_FAIL, "the PVC %s/%s is not Bound after %llds (%s)%s",
			    c->o->ns, w->pvc, (long long)waited_s,
			    pvc_phase ? pvc_phase : "no phase", q);
		finding_remedy(f,
			       "Longhorn's CSI provisioner did not create the volume: see "
			       "longhorn-manager and csi-provisioner (docs/checks/canary.rwx.md).");
		canary_evidence_list(f, "pvc_events", &ev);
		strv_clear(&ev);
		json_object_put(pvc);
		return;
	}
	json_object_put(pvc);
	/* 3. The pod's own events: scheduling, attach and mount. */
	struct strv ev = {0};
	canary_events(c, c->o->ns, pod_name, false, 3, &ev);
	const char *phase = cj_str(pod, "status", "phase", NULL);
	_cleanup_free_ char *q = strv_join(&ev, "\"; \"");
	if (ev.n)
		finding_set(f, STATUS_FAIL,
			    "the %s pod on %s did not start after %llds (%s): \"%s\"", role, node,
			    (long long)waited_s, phase ? phase : "no phase", q);
	else
		finding_set(f, STATUS_FAIL, "the %s pod on %s did not finish within %llds (%s)",
			    role, node, (long long)waited_s, phase ? phase : "no phase");
	finding_remedy(f, "A stall is not a pass: see the pod's events and the node's kubelet log "
			  "(docs/checks/canary.rwx.md).");
	canary_evidence_list(f, "pod_events", &ev);
	strv_clear(&ev);
}

/* Run one pod to its end. Returns true when it ended and *line is its result. */
static bool run_pod(struct rwx *w, const char *role, const char *op, const char *node, char **line,
		    int64_t *took_ms)
{
	struct canary *c = w->c;
	_cleanup_free_ char *name = xasprintf("hvready-canary-rwx-%s-%s", role, c->run_id);
	_cleanup_free_ char *path = xasprintf("/api/v1/namespaces/%s/pods", c->o->ns);
	_cleanup_free_ char *what = xasprintf("the %s pod", role);
	int64_t t0 = util_now_mono_ns();
	int r = canary_step_create(c, w->f, path, "Pod", name, pod_body(w, name, node, op), what,
				   w->err, sizeof(w->err));
	kv_add_str(&w->f->evidence, streq(role, "write") ? "writer_pod" : "reader_pod", name);
	if (r < 0)
		return false;
	_cleanup_free_ char *pod_path = xasprintf("%s/%s", path, name);
	_cleanup_free_ char *on = xasprintf("%s on %s", what, node);
	struct canary_wait cw = {.what = on,
				 .t0_ns = c->start_ns,
				 .path = pod_path,
				 .look = pod_ended,
				 .err = w->err,
				 .errlen = sizeof(w->err)};
	enum canary_wait_result wr = canary_wait(c, w->f, &cw);
	*took_ms = ms_since(t0);
	if (wr == CANARY_WAIT_DONE)
		*line = pod_result(w, cw.obj, name);
	else if (wr == CANARY_WAIT_STALL)
		diagnose_stall(w, role, name, node, cw.obj);
	json_object_put(cw.obj);
	return wr == CANARY_WAIT_DONE;
}

static void random_hex(char *out, size_t n_bytes)
{
	unsigned char b[32];
	if (n_bytes > sizeof(b) || getrandom(b, n_bytes, 0) != (ssize_t)n_bytes)
		abort();
	for (size_t i = 0; i < n_bytes; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* After the preconditions: the namespace, the PVC, the writer, the reader. */
static void rwx_run(struct rwx *w, int64_t t0)
{
	struct canary *c = w->c;
	struct finding *f = w->f;
	if (!canary_step_namespace(c, f, w->err, sizeof(w->err)))
		return;
	char tok[33];
	random_hex(tok, 16);
	w->token = xstrdup(tok);
	w->pvc = xasprintf("hvready-canary-rwx-%s", c->run_id);
	_cleanup_free_ char *pvc_path =
	    xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims", c->o->ns);
	int r = canary_step_create(c, f, pvc_path, "PersistentVolumeClaim", w->pvc, pvc_body(w),
				   "the PVC", w->err, sizeof(w->err));
	kv_add_str(&f->evidence, "pvc", w->pvc);
	if (r < 0)
		return;
	char *wline = NULL, *rline = NULL;
	int64_t wms = 0, rms = 0;
	if (!run_pod(w, "write", "write", w->node_a, &wline, &wms))
		return;
	kv_add_int(&f->evidence, "write_ms", wms);
	kv_add_str(&f->evidence, "writer_result", wline);
	_cleanup_free_ char *want_w = xasprintf("write-ok %s", w->token);
	if (!streq(wline, want_w)) {
		finding_set(f, STATUS_FAIL, "the writer pod on %s could not write to the share: %s",
			    w->node_a, *wline ? wline : "(no result line)");
		finding_remedy(f, "See docs/checks/canary.rwx.md.");
		free(wline);
		return;
	}
	free(wline);
	if (!run_pod(w, "read", "read", w->node_b, &rline, &rms))
		return;
	kv_add_int(&f->evidence, "read_ms", rms);
	kv_add_str(&f->evidence, "reader_result", rline);
	_cleanup_free_ char *want_r = xasprintf("read-ok %s", w->token);
	if (streq(rline, want_r))
		finding_set(f, STATUS_PASS,
			    "a token written on %s was read back on %s through an RWX volume of "
			    "StorageClass %s (%.1fs)",
			    w->node_a, w->node_b, w->class, (double)ms_since(t0) / 1000.0);
	else if (startswith(rline, "read-mismatch")) {
		finding_set(f, STATUS_FAIL,
			    "the reader on %s did not see what the writer on %s wrote: %s",
			    w->node_b, w->node_a, rline);
		finding_remedy(f, "The share lost or did not propagate a fsync()ed write: see "
				  "docs/checks/canary.rwx.md.");
	} else {
		finding_set(f, STATUS_FAIL, "the reader pod on %s could not read the share: %s",
			    w->node_b, *rline ? rline : "(no result line)");
		finding_remedy(f, "See docs/checks/canary.rwx.md.");
	}
	free(rline);
}

void canary_step_rwx(struct canary *c, struct finding *f)
{
	struct rwx w = {.c = c, .f = f};
	int64_t t0 = util_now_mono_ns();
	if (pick_nodes(&w) == STATUS_PASS && pick_class(&w) == STATUS_PASS &&
	    pick_image(&w) == STATUS_PASS) {
		kv_add_str(&f->evidence, "storage_class", w.class);
		kv_add_str(&f->evidence, "node_a", w.node_a);
		kv_add_str(&f->evidence, "node_b", w.node_b);
		kv_add_str(&f->evidence, "image", w.image);
		rwx_run(&w, t0);
	}
	kv_add_int(&f->evidence, "duration_ms", ms_since(t0));
	free(w.class);
	free(w.image);
	free(w.pvc);
	free(w.token);
	strv_clear(&w.node_names);
}
