"""Writes and a simulated cluster for fake_apiserver.py (--writable, --canary-sim).

create/delete/pod_log are request handlers' helpers; start_controller() runs
the controllers `hvready-aggregator canary` observes (docs/canary.md): the
PVC binder with Longhorn's Volume, ShareManager and share-manager pod, the
scheduler and kubelet of the canary's pods (which "run" `hvready-agent
canary-io write|read PATH TOKEN` on a file store per volume), the PVC
protection finalizer and the garbage collector. Faults mimic upstream's
messages (kubelet image pull errors, external-provisioner waiting).
"""
import copy
import datetime
import fnmatch
import json
import secrets
import threading
import time

SM_IMAGE = "longhornio/longhorn-share-manager:v1.9.1"
LH_NS = "longhorn-system"
PVC_PROTECTION = "kubernetes.io/pvc-protection"


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def status(code, reason, message, details=None):
    s = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
         "message": message, "reason": reason, "code": code}
    if details:
        s["details"] = details
    return s


def label_match(sel, obj):
    labels = obj.get("metadata", {}).get("labels") or {}
    for term in [t.strip() for t in sel.split(",") if t.strip()]:
        if "!=" in term:
            k, v = term.split("!=", 1)
            if labels.get(k.strip()) == v.strip():
                return False
        elif "=" in term:
            k, v = term.replace("==", "=").split("=", 1)
            if labels.get(k.strip()) != v.strip():
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def field_get(obj, path):
    v = obj
    for p in path.split("."):
        v = v.get(p) if isinstance(v, dict) else None
    return "" if v is None else str(v)


def field_match(sel, obj):
    for term in [t.strip() for t in sel.split(",") if t.strip()]:
        if "!=" in term:
            k, v = term.split("!=", 1)
            if field_get(obj, k) == v:
                return False
        else:
            k, v = term.replace("==", "=").split("=", 1)
            if field_get(obj, k) != v:
                return False
    return True


def find(res, ns, name):
    for o in res.objects:
        m = o.get("metadata", {})
        if m.get("name") == name and (not res.namespaced or m.get("namespace") == ns):
            return o
    return None


def insert(st, res, obj, ns=None):
    """Add obj (a dict with metadata.name) with the fields the API server sets."""
    st.rv = getattr(st, "rv", 1000) + 1
    m = obj.setdefault("metadata", {})
    if res.namespaced:
        m["namespace"] = ns or m.get("namespace") or "default"
    m["uid"] = secrets.token_hex(16)
    m["resourceVersion"] = str(st.rv)
    m["creationTimestamp"] = now()
    obj["apiVersion"], obj["kind"] = res.api_version, res.kind
    res.objects.append(obj)
    return obj


def take_post_failure(st, res):
    for spec in st.args.fail_post:
        pat, skip, n = spec.rsplit(":", 2)
        if not fnmatch.fnmatchcase(res.name, pat):
            continue
        cnt = st.__dict__.setdefault("post_counts", {})
        i = cnt.get(spec, 0)
        cnt[spec] = i + 1
        if int(skip) <= i < int(skip) + int(n):
            return True
    return False


def create(h, res, ns, body):
    st = h.st
    try:
        obj = json.loads(body)
        meta = obj.setdefault("metadata", {})
    except (ValueError, AttributeError):
        return h.send_json(400, status(400, "BadRequest", "invalid JSON"), res)
    with st.lock:  # answered outside: send_json logs under the same lock
        code, out = create_locked(st, res, ns, obj, meta)
    return h.send_json(code, out, res)


def create_locked(st, res, ns, obj, meta):
    """(code, answer) of a create; st.lock is held."""
    if take_post_failure(st, res):
        return 500, status(500, "InternalError",
                           "Internal error occurred: etcdserver: leader changed")
    if not meta.get("name") and meta.get("generateName"):
        meta["name"] = meta["generateName"] + secrets.token_hex(3)[:5]
    name = meta.get("name")
    if not name:
        return 422, status(422, "Invalid", '%s "" is invalid: metadata.name: Required value: '
                           'name or generateName is required' % res.kind)
    if res.namespaced and ns is None:
        return 404, status(404, "NotFound", "the server could not find the requested resource")
    if res.namespaced and ns != "default":
        nso = find(st.by_kind[("", "Namespace")], None, ns)
        if nso is None:
            return 404, status(404, "NotFound", 'namespaces "%s" not found' % ns)
        if nso["metadata"].get("deletionTimestamp"):
            return 403, status(403, "Forbidden", '%s "%s" is forbidden: unable to create new '
                               'content in namespace %s because it is being terminated'
                               % (res.name, name, ns))
    if find(res, ns, name) is not None:
        return 409, status(409, "AlreadyExists", '%s "%s" already exists' % (res.name, name),
                           {"name": name, "kind": res.plural})
    big = too_large(res, obj, name)
    if big:
        return big
    if res.plural == "persistentvolumeclaims":
        meta.setdefault("finalizers", []).append(PVC_PROTECTION)
        obj["status"] = {"phase": "Pending"}
    elif res.plural == "pods":
        obj["status"] = {"phase": "Pending"}
        if "stuck-finalizer" in st.args.canary_fault:
            # a finalizer no controller removes: the pod stays Terminating
            meta.setdefault("finalizers", []).append("hvready.test/stuck")
    elif res.plural == "namespaces":
        obj.setdefault("spec", {})["finalizers"] = ["kubernetes"]
        obj["status"] = {"phase": "Active"}
    insert(st, res, obj, ns)
    return 201, copy.deepcopy(obj)


# A ConfigMap's keys and values together hold at most 1 MiB (kubernetes/kubernetes
# pkg/apis/core/validation/validation.go, ValidateConfigMap: MaxConfigMapSize).
MAX_CONFIGMAP_SIZE = 1 << 20


def too_large(res, obj, name):
    if res.plural != "configmaps":
        return None
    total = sum(len(k) + len(v.encode() if isinstance(v, str) else v)
                for part in ("data", "binaryData") for k, v in (obj.get(part) or {}).items())
    if total <= MAX_CONFIGMAP_SIZE:
        return None
    return 422, status(422, "Invalid", 'ConfigMap "%s" is invalid: []: Too long: must have at most '
                       '%d bytes' % (name, MAX_CONFIGMAP_SIZE),
                       {"name": name, "kind": "ConfigMap",
                        "causes": [{"reason": "FieldValueTooLong", "field": "[]"}]})


def take_race(st, res):
    for spec in st.args.race_put:
        pat, n = spec.rsplit(":", 1)
        if not fnmatch.fnmatchcase(res.name, pat):
            continue
        cnt = st.__dict__.setdefault("race_counts", {})
        i = cnt.get(spec, 0)
        cnt[spec] = i + 1
        if i < int(n):
            return True
    return False


def replace(h, res, ns, name, body):
    try:
        obj = json.loads(body)
        meta = obj.setdefault("metadata", {})
    except (ValueError, AttributeError):
        return h.send_json(400, status(400, "BadRequest", "invalid JSON"), res)
    with h.st.lock:  # answered outside: send_json logs under the same lock
        code, out = replace_locked(h.st, res, ns, name, obj, meta)
    return h.send_json(code, out, res)


def replace_locked(st, res, ns, name, obj, meta):
    """(code, answer) of a PUT, as kube-apiserver's update: st.lock is held."""
    if meta.get("name", name) != name:
        return 400, status(400, "BadRequest", 'the name of the object (%s) does not match the '
                           'name on the URL (%s)' % (meta.get("name"), name))
    cur = find(res, ns, name)
    if cur is None:
        return 404, status(404, "NotFound", '%s "%s" not found' % (res.name, name),
                           {"name": name, "kind": res.plural})
    cm = cur["metadata"]
    if take_race(st, res):
        # another writer was first: the stored object moves on
        st.rv = getattr(st, "rv", 1000) + 1
        cm["resourceVersion"] = str(st.rv)
    rv = meta.get("resourceVersion")
    if rv and rv != cm.get("resourceVersion"):
        return 409, status(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the object '
                           'has been modified; please apply your changes to the latest version '
                           'and try again' % (res.name, name), {"name": name, "kind": res.plural})
    big = too_large(res, obj, name)
    if big:
        return big
    st.rv = getattr(st, "rv", 1000) + 1
    for k in ("uid", "creationTimestamp", "namespace", "deletionTimestamp"):
        if k in cm:
            meta[k] = cm[k]
        else:
            meta.pop(k, None)
    meta["name"] = name
    meta["resourceVersion"] = str(st.rv)
    obj["apiVersion"], obj["kind"] = res.api_version, res.kind
    res.objects = [obj if o is cur else o for o in res.objects]
    return 200, copy.deepcopy(obj)


def delete(h, res, ns, name):
    with h.st.lock:  # answered outside: send_json logs under the same lock
        code, out = delete_locked(res, ns, name)
    return h.send_json(code, out, res)


def delete_locked(res, ns, name):
    o = find(res, ns, name)
    if o is None:
        return 404, status(404, "NotFound", '%s "%s" not found' % (res.name, name),
                           {"name": name, "kind": res.plural})
    m = o["metadata"]
    if m.get("finalizers") or res.plural in ("pods", "namespaces"):
        # pods terminate gracefully, namespaces empty first: the controller ends them
        m.setdefault("deletionTimestamp", now())
        if res.plural == "namespaces":
            o["status"]["phase"] = "Terminating"
        return 200, copy.deepcopy(o)
    res.objects = [x for x in res.objects if x is not o]
    return 200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                 "details": {"name": name, "kind": res.plural, "uid": m.get("uid")}}


def pod_log(h, res, ns, name):
    o = find(res, ns, name)
    if o is None:
        return h.send_json(404, status(404, "NotFound", 'pods "%s" not found' % name), res)
    text = o.get("_log", "")
    body = text.encode()
    h.send_response(200)
    h.send_header("Content-Type", "text/plain")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)
    h.log_request_line(200, res)


class Sim:
    def __init__(self, st):
        self.st = st
        self.r = lambda g, k: st.by_kind[(g, k)]
        self.files = {}  # volume name -> {path: content}
        self.started = {}  # pod uid -> time it went Running

    def event(self, ns, kind, name, uid, reason, message, typ="Warning"):
        ev = {"metadata": {"name": "%s.%s" % (name, secrets.token_hex(8))},
              "involvedObject": {"kind": kind, "namespace": ns, "name": name, "uid": uid},
              "reason": reason, "message": message, "type": typ, "count": 1,
              "firstTimestamp": now(), "lastTimestamp": now()}
        insert(self.st, self.r("", "Event"), ev, ns)

    def faults(self):
        return self.st.args.canary_fault

    def longhorn_class(self, name):
        sc = find(self.r("storage.k8s.io", "StorageClass"), None, name)
        return sc is not None and sc.get("provisioner") == "driver.longhorn.io"

    def bind(self, pvc):
        m = pvc["metadata"]
        if pvc["status"].get("phase") != "Pending" or m.get("deletionTimestamp"):
            return
        cls = (pvc.get("spec") or {}).get("storageClassName")
        if "pvc-never-binds" in self.faults() or not self.longhorn_class(cls or ""):
            if not m.get("_waited"):
                m["_waited"] = True
                self.event(m["namespace"], "PersistentVolumeClaim", m["name"], m["uid"],
                           "ExternalProvisioning",
                           "Waiting for a volume to be created either by the external "
                           "provisioner 'driver.longhorn.io' or manually by the system "
                           "administrator. If volume creation is delayed, please verify that "
                           "the provisioner is running and correctly registered.", "Normal")
            return
        vol = "pvc-" + m["uid"][:8] + "-" + m["uid"][8:12] + "-" + m["uid"][12:16]
        pvc["spec"]["volumeName"] = vol
        pvc["status"] = {"phase": "Bound", "accessModes": pvc["spec"].get("accessModes"),
                         "capacity": (pvc["spec"].get("resources") or {}).get("requests")}
        sc = find(self.r("storage.k8s.io", "StorageClass"), None, cls)
        if ((sc.get("parameters") or {}).get("migratable") == "true"
                or pvc["spec"].get("volumeMode") == "Block"):
            # a migratable RWX Block volume: no share-manager, attached to the VM's node
            n = int((sc.get("parameters") or {}).get("numberOfReplicas") or 3)
            v = insert(self.st, self.r("longhorn.io", "Volume"),
                       {"metadata": {"name": vol, "_pvc": m["uid"]},
                        "spec": {"accessMode": "rwx", "migratable": True, "frontend": "blockdev",
                                 "numberOfReplicas": n},
                        "status": {"state": "detached", "robustness": "unknown"}}, LH_NS)
            self.kubevirt.snap.restore_source(pvc, v)
            for i in range(n):
                insert(self.st, self.r("longhorn.io", "Replica"),
                       {"metadata": {"name": "%s-r-%s" % (vol, secrets.token_hex(4)),
                                     "labels": {"longhornvolume": vol}, "_pvc": m["uid"]},
                        "spec": {"volumeName": vol, "nodeID": "hv-node-%d" % (i + 1)},
                        "status": {"currentState": "running"}}, LH_NS)
            return
        v = insert(self.st, self.r("longhorn.io", "Volume"),
                   {"metadata": {"name": vol, "_pvc": m["uid"]},
                    "spec": {"accessMode": "rwx", "migratable": False},
                    "status": {"state": "detached", "robustness": "unknown"}}, LH_NS)
        sm = insert(self.st, self.r("longhorn.io", "ShareManager"),
                    {"metadata": {"name": vol, "_pvc": m["uid"]},
                     "spec": {"image": SM_IMAGE}, "status": {"state": "starting"}}, LH_NS)
        pull_fails = "share-manager-pull" in self.faults()
        pod = {"metadata": {"name": "share-manager-" + vol,
                            "labels": {"longhorn.io/component": "share-manager",
                                       "longhorn.io/share-manager": vol},
                            "ownerReferences": [{"apiVersion": "longhorn.io/v1beta2",
                                                 "kind": "ShareManager", "name": vol,
                                                 "uid": sm["metadata"]["uid"],
                                                 "controller": True}]},
               "spec": {"containers": [{"name": "share-manager", "image": SM_IMAGE}]},
               "status": {"phase": "Running"}}
        if pull_fails:
            pod["status"] = {"phase": "Pending", "containerStatuses": [{
                "name": "share-manager", "image": SM_IMAGE, "ready": False, "restartCount": 0,
                "state": {"waiting": {"reason": "ErrImagePull", "message":
                          'failed to pull and unpack image "docker.io/%s": failed to resolve '
                          'reference "docker.io/%s": docker.io/%s: not found'
                          % (SM_IMAGE, SM_IMAGE, SM_IMAGE)}}}]}
        p = insert(self.st, self.r("", "Pod"), pod, LH_NS)
        if pull_fails:
            pm = p["metadata"]
            self.event(LH_NS, "Pod", pm["name"], pm["uid"], "Failed",
                       'Failed to pull image "%s": rpc error: code = NotFound desc = failed to '
                       'pull and unpack image "docker.io/%s": failed to resolve reference '
                       '"docker.io/%s": docker.io/%s: not found'
                       % (SM_IMAGE, SM_IMAGE, SM_IMAGE, SM_IMAGE))
            self.event(LH_NS, "Pod", pm["name"], pm["uid"], "Failed", "Error: ErrImagePull")
        else:
            sm["status"]["state"] = "running"
            v["status"].update({"state": "attached", "robustness": "healthy"})

    def node_of(self, pod):
        spec = pod.get("spec") or {}
        if spec.get("nodeName"):
            return spec["nodeName"]
        try:
            terms = spec["affinity"]["nodeAffinity"][
                "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
            for f in terms[0].get("matchFields") or []:
                if f.get("key") == "metadata.name" and f.get("operator") == "In":
                    return f["values"][0]
        except (KeyError, IndexError, TypeError):
            pass
        return (spec.get("nodeSelector") or {}).get("kubernetes.io/hostname")

    def claim_of(self, pod):
        for v in (pod.get("spec") or {}).get("volumes") or []:
            c = v.get("persistentVolumeClaim")
            if c:
                return c.get("claimName")
        return None

    def run_pod(self, pod):
        m, stt = pod["metadata"], pod["status"]
        if m.get("namespace") == LH_NS or stt.get("phase") in ("Succeeded", "Failed"):
            return
        if (m.get("labels") or {}).get("kubevirt.io") == "virt-launcher":
            return  # the KubeVirt simulation (fake_kubevirt.py) runs these
        if m.get("deletionTimestamp"):
            return
        node = self.node_of(pod)
        if stt.get("phase") == "Pending" and not (pod.get("spec") or {}).get("nodeName"):
            if not node or find(self.r("", "Node"), None, node) is None:
                return
            pod["spec"]["nodeName"] = node
            self.event(m["namespace"], "Pod", m["name"], m["uid"], "Scheduled",
                       "Successfully assigned %s/%s to %s" % (m["namespace"], m["name"], node),
                       "Normal")
        claim = self.claim_of(pod)
        pvc = find(self.r("", "PersistentVolumeClaim"), m["namespace"], claim) if claim else None
        if claim and (pvc is None or pvc["status"].get("phase") != "Bound"):
            return
        vol = pvc["spec"]["volumeName"] if pvc else None
        if vol and "share-manager-pull" in self.faults():
            if not m.get("_mountfail"):
                m["_mountfail"] = True
                self.event(m["namespace"], "Pod", m["name"], m["uid"], "FailedMount",
                           'MountVolume.MountDevice failed for volume "%s" : rpc error: code = '
                           'Internal desc = failed to stage volume %s: volume %s share not '
                           'yet available' % (vol, vol, vol))
            return
        if stt.get("phase") == "Pending":
            stt.update({"phase": "Running", "startTime": now()})
            self.started[m["uid"]] = time.monotonic()
            return
        if time.monotonic() - self.started.get(m["uid"], 0) < self.st.args.pod_seconds:
            return
        args = ((pod["spec"].get("containers") or [{}])[0]).get("args") or []
        code, msg = self.canary_io(vol, args)
        m["_log"] = msg + "\n"
        stt.update({"phase": "Succeeded" if code == 0 else "Failed",
                    "containerStatuses": [{"name": pod["spec"]["containers"][0]["name"],
                                           "ready": False, "restartCount": 0,
                                           "state": {"terminated": {
                                               "exitCode": code,
                                               "reason": "Completed" if code == 0 else "Error",
                                               "message": msg + "\n",
                                               "finishedAt": now()}}}]})

    def canary_io(self, vol, args):
        if len(args) != 4 or args[0] != "canary-io":
            return 2, "Usage: hvready-agent canary-io write|read PATH TOKEN"
        files = self.files.setdefault(vol, {})
        op, path, token = args[1:]
        if op == "write":
            files[path] = token + "\n"
            if "read-mismatch" in self.faults():
                files[path] = "stale\n"
            return 0, "write-ok " + token
        got = files.get(path)
        if got is None:
            return 1, "read-error %s: open: No such file or directory" % path
        got = got.rstrip("\n")
        if got == token:
            return 0, "read-ok " + token
        return 1, 'read-mismatch want %s got "%s" (%d bytes)' % (token, got, len(got))

    def collect(self):
        """Finalizers, graceful deletion, namespace deletion, garbage collection."""
        pods = self.r("", "Pod")
        pvcs = self.r("", "PersistentVolumeClaim")
        nss = self.r("", "Namespace")
        for p in pods.objects:
            if p["metadata"].get("deletionTimestamp") and not p["metadata"].get("finalizers"):
                p["_gone"] = True
        pods.objects = [p for p in pods.objects if not p.get("_gone")]
        for c in pvcs.objects:
            m = c["metadata"]
            if m.get("deletionTimestamp") and PVC_PROTECTION in (m.get("finalizers") or []):
                users = [p for p in pods.objects if p["metadata"].get("namespace") == m["namespace"]
                         and self.claim_of(p) == m["name"]
                         and p["status"].get("phase") not in ("Succeeded", "Failed")]
                if not users:
                    m["finalizers"].remove(PVC_PROTECTION)
        pvcs.objects = [c for c in pvcs.objects if not (c["metadata"].get("deletionTimestamp")
                                                        and not c["metadata"].get("finalizers"))]
        cms = self.r("", "ConfigMap")
        cms.objects = [c for c in cms.objects if not (c["metadata"].get("deletionTimestamp")
                                                      and not c["metadata"].get("finalizers"))]
        live = {c["metadata"]["uid"] for c in pvcs.objects}
        for g, k in (("longhorn.io", "Volume"), ("longhorn.io", "ShareManager"),
                     ("longhorn.io", "Replica")):
            if k == "Volume" and "volume-stuck" in self.faults():
                continue  # longhorn-manager never deletes the volume
            r = self.r(g, k)
            r.objects = [o for o in r.objects
                         if "_pvc" not in o["metadata"] or o["metadata"]["_pvc"] in live]
        for n in nss.objects:
            m = n["metadata"]
            if m.get("deletionTimestamp"):
                for r in self.st.resources:
                    if r.namespaced and r.plural != "events":
                        for o in r.objects:
                            if o["metadata"].get("namespace") == m["name"]:
                                o["metadata"].setdefault("deletionTimestamp", now())
                left = any(o["metadata"].get("namespace") == m["name"]
                           for r in self.st.resources if r.namespaced and r.plural != "events"
                           for o in r.objects)
                if not left:
                    n["_gone"] = True
        nss.objects = [n for n in nss.objects if not n.get("_gone")]
        uids = {o["metadata"].get("uid") for r in self.st.resources for o in r.objects}
        for r in self.st.resources:
            r.objects = [o for o in r.objects
                         if not any(ref.get("uid") not in uids
                                    for ref in o.get("metadata", {}).get("ownerReferences") or [])]

    def tick(self):
        with self.st.lock:
            self.kubevirt.tick()
            for c in list(self.r("", "PersistentVolumeClaim").objects):
                self.bind(c)
            for p in list(self.r("", "Pod").objects):
                self.run_pod(p)
            self.collect()


def start_controller(st):
    import fake_kubevirt
    sim = Sim(st)
    sim.kubevirt = fake_kubevirt.KubeVirtSim(sim)

    def loop():
        while True:
            time.sleep(0.1)
            try:
                sim.tick()
            except Exception as e:  # a bug in the simulation must be seen, not hang a test
                import sys
                print("fake_canary: %r" % e, file=sys.stderr, flush=True)

    threading.Thread(target=loop, daemon=True).start()
