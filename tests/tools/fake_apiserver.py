#!/usr/bin/env python3
"""A fake kube-apiserver for hvready's tests (python3 standard library only).

It serves a directory of `kubectl get -o json` files through the real list API
paths of every resource hvready reads (/api/v1/pods, /apis/GROUP/VERSION/PLURAL,
also per namespace and single objects), over HTTPS, with paging
(limit/continue, opaque tokens) and faults chosen on the command line. It binds
a free loopback port and prints the port on stdout when it is ready.

Resources are named PLURAL (core) or PLURAL.GROUP, and selectors accept shell
wildcards ('*.longhorn.io'). A collect.json in the fixture directory (as
`hvready-aggregator collect` writes it) marks resources "not-served" (404) and
"forbidden" (403) as they were when collected.

--serve-version GROUP=VERSION serves that group's resources at VERSION only
(as KubeVirt <= 1.2 serves snapshot.kubevirt.io at v1alpha1 only): objects
are listed with that apiVersion, other versions answer 404, and each of
their CRDs (taken from the fixtures, or made up when absent) lists VERSION as
its only served version.

Auth: --token TOKEN (repeatable) accepts a bearer token; --client-ca FILE
accepts client certificates signed by that CA (the user is the CN); with
--require-auth anything else gets 401. A wrong token is 401 in any case.
--read-only-token TOKEN (repeatable) is accepted too, but its user (from
--tokenreview FILE, else system:serviceaccount:hvready-system:hvready-aggregator,
as serve's read-only ServiceAccount) may only read: every write (POST, PUT,
PATCH, DELETE; a TokenReview aside) is 403 Forbidden, a Status as
kube-apiserver's authorizer answers it (k8s.io/apiserver
pkg/endpoints/handlers/responsewriters/errors.go forbiddenMessage: 'pods is
forbidden: User "U" cannot create resource "pods" in API group "" in the
namespace "NS"').

Also: GET /version and the discovery documents (/api, /apis, /api/v1,
/apis/GROUP/VERSION) that kubectl reads; POST /apis/authentication.k8s.io/v1/tokenreviews answered
from --tokenreview FILE ({"TOKEN": {"user", "uid", "groups", "node", "pod",
"pod_uid"}}, each answered after --tokenreview-delay seconds, as a slow
API server would); PATCH /api/v1/nodes/NAME/status and POST
/api/v1/namespaces/NS/events appended to --record FILE (one JSON line each,
with the user who wrote); a node status patch merges its conditions by type
into the served Node, as a strategic merge does ("--forbid nodes/status": 403).
Leases (coordination.k8s.io/v1, GET/POST/PUT) are kept in memory with
resourceVersions: a write with a stale one is 409 Conflict, as leader
election needs ("--forbid leases.coordination.k8s.io": 403).
--log FILE gets one JSON line per request (method, path, query, status).

--writable: objects of every resource can be created (POST: uid, resourceVersion,
creationTimestamp, generateName; 409 AlreadyExists for a name taken), replaced
(PUT: 409 Conflict for a stale metadata.resourceVersion, none is an unconditional
update; the resourceVersion grows with every write; a ConfigMap's data above
1 MiB is 422 Invalid), read one by one and deleted (DELETE: with
finalizers the object keeps a deletionTimestamp until they are removed; pods
terminate gracefully, one controller tick later; an object whose
ownerReferences name a deleted uid is garbage-collected); lists take
labelSelector (=, ==, !=, KEY, !KEY) and fieldSelector (dotted paths, =, !=).
--canary-sim adds a controller for what `hvready-aggregator canary` observes
(fake_canary.py): PVCs bind (with a Longhorn Volume and a share-manager pod),
pods run on their node and end Succeeded or Failed with the termination
message of `hvready-agent canary-io`. Faults: --canary-fault
share-manager-pull|pvc-never-binds|read-mismatch|stuck-finalizer (pods keep a
finalizer nobody removes), the KubeVirt and CDI ones of fake_kubevirt.py
(VirtualMachine -> DataVolume -> VMI Running on a node, migrations; faults
vm-unschedulable|not-migratable|migrate-fails|migrate-stuck|volume-stuck), the
snapshot and restore ones of fake_snapshot.py (VirtualMachineSnapshot ->
content and VolumeSnapshots -> ready, VirtualMachineRestore -> a new VM, the
restored volume's clone; faults snapshot-never-ready|restore-source-gone|restore-clone-stuck|
restore-drops-labels;
--snapshot-seconds SEC),
--fail-post RES:SKIP:N (500 for N POSTs of RES after the first SKIP), --drop
RES:SKIP:N (the connection closed without an answer, for N GETs of RES after
SKIP), --pod-seconds SEC (time Running), --migrate-seconds SEC, --race-put RES:N
(for the first N PUTs of RES another writer updates the object just before, so
their resourceVersion is stale: 409 Conflict).
"""
import argparse
import base64
import fnmatch
import gzip
import hashlib
import http.server
import json
import os
import secrets
import ssl
import sys
import threading
import time
import urllib.parse

# A Failure Status as kube-apiserver sends it (metav1.Status), one for the
# reads here and the writes of fake_canary.py.
from fake_canary import status

# group, version, plural, kind, namespaced, crd: aggregator/cluster_state.c
RESOURCES = [
    ("", "v1", "nodes", "Node", False, False),
    ("", "v1", "pods", "Pod", True, False),
    ("", "v1", "services", "Service", True, False),
    ("apps", "v1", "deployments", "Deployment", True, False),
    ("apps", "v1", "daemonsets", "DaemonSet", True, False),
    ("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, False),
    ("", "v1", "persistentvolumes", "PersistentVolume", False, False),
    ("storage.k8s.io", "v1", "storageclasses", "StorageClass", False, False),
    ("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
     "ValidatingWebhookConfiguration", False, False),
    ("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
     "MutatingWebhookConfiguration", False, False),
    ("apiregistration.k8s.io", "v1", "apiservices", "APIService", False, False),
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
     False, False),
    ("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses", "VolumeSnapshotClass", False, True),
    ("snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot", True, True),
    ("snapshot.storage.k8s.io", "v1", "volumesnapshotcontents", "VolumeSnapshotContent", False,
     True),
    ("kubevirt.io", "v1", "kubevirts", "KubeVirt", True, True),
    ("kubevirt.io", "v1", "virtualmachines", "VirtualMachine", True, True),
    ("kubevirt.io", "v1", "virtualmachineinstances", "VirtualMachineInstance", True, True),
    ("kubevirt.io", "v1", "virtualmachineinstancemigrations", "VirtualMachineInstanceMigration",
     True, True),
    ("snapshot.kubevirt.io", "v1beta1", "virtualmachinesnapshots", "VirtualMachineSnapshot", True,
     True),
    ("snapshot.kubevirt.io", "v1beta1", "virtualmachinerestores", "VirtualMachineRestore", True,
     True),
    ("snapshot.kubevirt.io", "v1beta1", "virtualmachinesnapshotcontents",
     "VirtualMachineSnapshotContent", True, True),
    ("cdi.kubevirt.io", "v1beta1", "cdis", "CDI", False, True),
    ("cdi.kubevirt.io", "v1beta1", "datavolumes", "DataVolume", True, True),
    ("cdi.kubevirt.io", "v1beta1", "storageprofiles", "StorageProfile", False, True),
    ("longhorn.io", "v1beta2", "volumes", "Volume", True, True),
    ("longhorn.io", "v1beta2", "replicas", "Replica", True, True),
    ("longhorn.io", "v1beta2", "engines", "Engine", True, True),
    ("longhorn.io", "v1beta2", "snapshots", "Snapshot", True, True),
    ("longhorn.io", "v1beta2", "backups", "Backup", True, True),
    ("longhorn.io", "v1beta2", "sharemanagers", "ShareManager", True, True),
    ("longhorn.io", "v1beta2", "settings", "Setting", True, True),
    ("longhorn.io", "v1beta2", "backuptargets", "BackupTarget", True, True),
    ("longhorn.io", "v1beta2", "nodes", "Node", True, True),
    ("harvesterhci.io", "v1beta1", "settings", "Setting", False, True),
    ("harvesterhci.io", "v1beta1", "virtualmachineimages", "VirtualMachineImage", True, True),
    ("helm.cattle.io", "v1", "helmcharts", "HelmChart", True, True),
    ("helm.cattle.io", "v1", "helmchartconfigs", "HelmChartConfig", True, True),
    # Read by hvready with one GET: Namespace kube-system's UID is the
    # cluster's identity in the report's header (docs/change-board.md); and
    # written by the canary (--writable): its namespace.
    ("", "v1", "namespaces", "Namespace", False, False),
    # Written by hvready's live pipeline (PATCH nodes/status, POST events).
    ("", "v1", "events", "Event", True, False),
    # Written by `canary --result-configmap` (--writable), read by report/serve.
    ("", "v1", "configmaps", "ConfigMap", True, False),
]
# Served, but not among what `hvready-aggregator collect` lists
# (aggregator/cluster_state.c): one object read by name only.
NOT_COLLECTED = {"configmaps"}

EXPIRED_MSG = ("The provided continue parameter is too old to display a consistent list result. "
               "You can start a new list without the continue parameter, or use the continue "
               "token in this response to retrieve the remainder of the results. Continuing with "
               "the provided token results in an inconsistent list - objects that were created, "
               "modified, or deleted between the time the first chunk was returned and now may "
               "show up in the list.")


class Resource:
    def __init__(self, group, version, plural, kind, namespaced, crd):
        self.group, self.version, self.plural, self.kind = group, version, plural, kind
        self.namespaced, self.crd = namespaced, crd
        self.name = plural if not group else plural + "." + group
        self.api_version = version if not group else group + "/" + version
        self.objects = []


def json_values(text):
    """Every JSON value in text (kubectl output may be several, one after another)."""
    dec = json.JSONDecoder()
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            return
        v, i = dec.raw_decode(text, i)
        yield v


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.resources = [Resource(*r) for r in RESOURCES]
        self.by_kind = {(r.group, r.kind): r for r in self.resources}
        self.versions = {}
        for spec in args.serve_version:
            group, sep, version = spec.partition("=")
            if not sep or not group or not version:
                sys.exit("fake_apiserver: --serve-version wants GROUP=VERSION, not %r" % spec)
            self.versions[group] = version
        for r in self.resources:
            if r.group in self.versions:
                r.version = self.versions[r.group]
                r.api_version = r.group + "/" + r.version
        self.key = secrets.token_hex(8)
        self.not_installed = list(args.not_installed)
        self.forbidden = list(args.forbid)
        self.fail_left = {}
        for spec in args.fail:
            pat, _, n = spec.rpartition(":")
            self.fail_left[pat] = int(n)
        self.slow = []
        for spec in args.slow:
            pat, _, sec = spec.rpartition(":")
            self.slow.append((pat, float(sec)))
        self.expire_left = {}
        self.tokens = set(args.token) | set(args.read_only_token)
        self.read_only = set(args.read_only_token)
        self.leases = {}
        self.lease_rv = 100
        self.reviews = {}
        if args.tokenreview:
            with open(args.tokenreview) as f:
                self.reviews = json.load(f)
        if args.fixtures:
            self.load(args.fixtures)
        self.crds_for_versions()
        for r in self.resources:
            r.objects.sort(key=lambda o: (o.get("metadata", {}).get("namespace", ""),
                                          o.get("metadata", {}).get("name", "")))

    def add(self, obj):
        if not isinstance(obj, dict):
            return
        if obj.get("kind", "").endswith("List") and "items" in obj:
            for it in obj.get("items") or []:
                self.add(it)
            return
        api = obj.get("apiVersion", "")
        group = api.rpartition("/")[0]
        r = self.by_kind.get((group, obj.get("kind")))
        if r is not None:
            r.objects.append(obj)

    def load(self, d):
        paths = [d] if os.path.isfile(d) else [os.path.join(d, f) for f in sorted(os.listdir(d))
                                                if f.endswith(".json") and f != "collect.json"]
        for p in paths:
            with open(p) as f:
                for v in json_values(f.read()):
                    self.add(v)
        cj = os.path.join(d, "collect.json")
        if os.path.isdir(d) and os.path.exists(cj):
            with open(cj) as f:
                for e in json.load(f).get("resources", []):
                    name = e["plural"] + ("." + e["group"] if e["group"] else "")
                    if e.get("status") == "not-served":
                        self.not_installed.append(name)
                    elif e.get("status") == "forbidden":
                        self.forbidden.append(name)

    def crds_for_versions(self):
        """The CRDs of --serve-version groups list only that version as served."""
        crds = self.by_kind[("apiextensions.k8s.io", "CustomResourceDefinition")]
        for r in self.resources:
            if not r.crd or r.group not in self.versions:
                continue
            versions = [{"name": r.version, "served": True, "storage": True}]
            have = [i for i, o in enumerate(crds.objects)
                    if o.get("metadata", {}).get("name") == r.name]
            if have:
                o = json.loads(json.dumps(crds.objects[have[0]]))
                o.setdefault("spec", {})["versions"] = versions
                crds.objects[have[0]] = o
                continue
            crds.objects.append({
                "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": r.name},
                "spec": {"group": r.group, "names": {"plural": r.plural, "kind": r.kind,
                                                     "listKind": r.kind + "List"},
                         "scope": "Namespaced" if r.namespaced else "Cluster",
                         "versions": versions},
                "status": {"acceptedNames": {"plural": r.plural, "kind": r.kind},
                           "storedVersions": [r.version]}})

    @staticmethod
    def match(pats, name):
        return any(fnmatch.fnmatchcase(name, p) for p in pats)

    def take_failure(self, name):
        with self.lock:
            for pat, n in self.fail_left.items():
                if n > 0 and fnmatch.fnmatchcase(name, pat):
                    self.fail_left[pat] = n - 1
                    return True
        return False

    def take_expiry(self, name):
        with self.lock:
            n = self.expire_left.get(name, self.args.expire_continue)
            if n > 0:
                self.expire_left[name] = n - 1
                return True
            self.expire_left[name] = 0
        return False

    def token_for(self, res, offset):
        raw = json.dumps({"r": res.name, "o": offset, "rv": "12345"}).encode()
        mac = hashlib.sha256(self.key.encode() + raw).hexdigest()[:16]
        return base64.urlsafe_b64encode(raw + b"|" + mac.encode()).decode()

    def offset_of(self, res, token):
        try:
            raw, _, mac = base64.urlsafe_b64decode(token.encode()).rpartition(b"|")
            if hashlib.sha256(self.key.encode() + raw).hexdigest()[:16].encode() != mac:
                return None
            d = json.loads(raw)
            return d["o"] if d["r"] == res.name else None
        except (ValueError, KeyError, TypeError):
            return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-kube-apiserver"
    disable_nagle_algorithm = True
    timeout = 60

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        super().setup()
        # A failed handshake raises here; the server drops the connection.
        self.connection.do_handshake()

    @property
    def st(self):
        return self.server.state

    def send_json(self, code, obj, res=None):
        body = json.dumps(obj).encode()
        gz = "gzip" in (self.headers.get("Accept-Encoding") or "")
        if gz:
            body = gzip.compress(body)
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            if gz:
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            if code in (429, 503) and self.st.args.retry_after:
                self.send_header("Retry-After", str(self.st.args.retry_after))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.close_connection = True
        self.log_request_line(code, res)

    def log_request_line(self, code, res):
        if not self.st.args.log:
            return
        u = urllib.parse.urlsplit(self.path)
        line = json.dumps({"method": self.command, "path": u.path, "query": u.query,
                           "status": code, "resource": res.name if res else None})
        with self.st.lock, open(self.st.args.log, "a") as f:
            f.write(line + "\n")

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    # -- authentication
    def user(self):
        """The authenticated user name, "system:anonymous", or None (401)."""
        auth = self.headers.get("Authorization") or ""
        if auth:
            tok = auth[7:].strip() if auth.startswith("Bearer ") else None
            if tok is None or tok not in self.st.tokens:
                return None
            rev = self.st.reviews.get(tok)
            if rev:
                return rev.get("user", "token-user")
            if tok in self.st.read_only:
                return "system:serviceaccount:hvready-system:hvready-aggregator"
            return "token-user"
        try:
            cert = self.connection.getpeercert()
        except (ValueError, AttributeError):
            cert = None
        if cert:
            for rdn in cert.get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        return v
            return "cert-user"
        return None if self.st.args.require_auth else "system:anonymous"

    def read_only_refused(self):
        """A write with a --read-only-token: 403 sent (True), else False."""
        auth = self.headers.get("Authorization") or ""
        tok = auth[7:].strip() if auth.startswith("Bearer ") else None
        if tok is None or tok not in self.st.read_only:
            return False
        user = self.user()
        route = self.parse()
        verb = {"POST": "create", "PUT": "update", "PATCH": "patch",
                "DELETE": "delete"}[self.command]
        if route is None:
            lease = self.lease_route()
            if not lease:
                self.send_json(403, status(403, "Forbidden", 'User "%s" cannot %s path "%s"'
                                           % (user, verb, urllib.parse.urlsplit(self.path).path)))
                return True
            group, plural, ns, name, sub = "coordination.k8s.io", "leases", lease[0], lease[1], None
        else:
            res, ns, name, sub = route
            group, plural = res.group, res.plural
        qualified = plural + ("." + group if group else "")
        resource = plural + ("/" + sub if sub else "")
        scope = ('in the namespace "%s"' % ns) if ns else "at the cluster scope"
        what = ('%s "%s"' % (qualified, name)) if name else qualified
        msg = ('%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s" %s'
               % (what, user, verb, resource, group, scope))
        details = {"group": group, "kind": plural}
        if name:
            details["name"] = name
        self.send_json(403, status(403, "Forbidden", msg, details), route[0] if route else None)
        return True

    # -- routing
    def parse(self):
        """(resource, namespace, name, subresource) for an API path, or None."""
        parts = [p for p in urllib.parse.urlsplit(self.path).path.split("/") if p]
        if len(parts) >= 2 and parts[0] == "api":
            group, version, rest = "", parts[1], parts[2:]
        elif len(parts) >= 3 and parts[0] == "apis":
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return None
        ns = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            ns, rest = rest[1], rest[2:]
        if not rest or len(rest) > 3:
            return None
        for r in self.st.resources:
            if r.group == group and r.version == version and r.plural == rest[0]:
                if ns is not None and not r.namespaced:
                    return None
                return (r, ns, rest[1] if len(rest) > 1 else None,
                        rest[2] if len(rest) > 2 else None)
        return None

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        user = self.user()
        if user is None:
            return self.send_json(401, status(401, "Unauthorized", "Unauthorized"))
        if path == "/version":
            return self.send_json(200, {"major": "1", "minor": "34",
                                        "gitVersion": self.st.args.version_string,
                                        "platform": "linux/amd64"})
        disc = self.discovery(path)
        if disc is not None:
            return self.send_json(200, disc)
        if self.lease_route():
            return self.lease_request(b"", user)
        route = self.parse()
        if route is None:
            return self.send_json(404, status(404, "NotFound",
                                              "the server could not find the requested resource"))
        res, ns, name, sub = route
        if self.st.match(self.st.not_installed, res.name):
            return self.send_json(404, status(404, "NotFound",
                                              "the server could not find the requested resource"),
                                  res)
        for pat, sec in self.st.slow:
            if fnmatch.fnmatchcase(res.name, pat):
                time.sleep(sec)
        if self.st.match(self.st.forbidden, res.name):
            verb = "get" if name else "list"
            scope = ('in the namespace "%s"' % ns) if ns else "at the cluster scope"
            msg = ('%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s" %s'
                   % (res.name, user, verb, res.plural, res.group, scope))
            return self.send_json(403, status(403, "Forbidden", msg,
                                              {"group": res.group, "kind": res.plural}), res)
        if self.take_drop(res.name):
            self.close_connection = True  # mid-run: no answer at all
            return
        if self.st.take_failure(res.name):
            return self.send_json(500, status(500, "InternalError",
                                              "Internal error occurred: etcdserver: request "
                                              "timed out"), res)
        if sub == "log" and self.st.args.writable and res.plural == "pods":
            import fake_canary
            return fake_canary.pod_log(self, res, ns, name)
        if name:
            return self.get_one(res, ns, name)
        return self.list(res, ns)

    def take_drop(self, name):
        for spec in self.st.args.drop:
            pat, skip, n = spec.rsplit(":", 2)
            if not fnmatch.fnmatchcase(name, pat):
                continue
            with self.st.lock:
                cnt = self.st.__dict__.setdefault("drop_counts", {})
                i = cnt.get(spec, 0)
                cnt[spec] = i + 1
            if int(skip) <= i < int(skip) + int(n):
                return True
        return False

    def discovery(self, path):
        """The legacy discovery documents kubectl reads before a get."""
        served = [r for r in self.st.resources if not self.st.match(self.st.not_installed, r.name)]
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]}
        if path == "/apis":
            groups = {}
            for r in served:
                if r.group:
                    groups.setdefault(r.group, r.version)
            return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                {"name": g, "versions": [{"groupVersion": g + "/" + v, "version": v}],
                 "preferredVersion": {"groupVersion": g + "/" + v, "version": v}}
                for g, v in sorted(groups.items())]}
        parts = [p for p in path.split("/") if p]
        if parts[:1] == ["api"] and len(parts) == 2:
            gv = ("", parts[1])
        elif parts[:1] == ["apis"] and len(parts) == 3:
            gv = (parts[1], parts[2])
        else:
            return None
        rs = [r for r in served if (r.group, r.version) == gv]
        if not rs:
            return None
        return {"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": gv[1] if not gv[0] else gv[0] + "/" + gv[1],
                "resources": [{"name": r.plural, "singularName": r.kind.lower(),
                               "namespaced": r.namespaced, "kind": r.kind,
                               "verbs": ["get", "list", "watch"]} for r in rs]}

    def get_one(self, res, ns, name):
        for o in res.objects:
            m = o.get("metadata", {})
            if m.get("name") == name and (ns is None or m.get("namespace") == ns):
                return self.send_json(200, o, res)
        return self.send_json(404, status(404, "NotFound", '%s "%s" not found' % (res.name, name),
                                          {"name": name, "kind": res.plural}), res)

    def list(self, res, ns):
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        objs = [o for o in res.objects
                if ns is None or o.get("metadata", {}).get("namespace") == ns]
        if "labelSelector" in q or "fieldSelector" in q:
            import fake_canary
            objs = [o for o in objs
                    if fake_canary.label_match(q.get("labelSelector", [""])[0], o)
                    and fake_canary.field_match(q.get("fieldSelector", [""])[0], o)]
        offset = 0
        if "continue" in q:
            offset = self.st.offset_of(res, q["continue"][0])
            if offset is None:
                return self.send_json(400, status(400, "BadRequest",
                                                  "continue key is not valid"), res)
            if self.st.take_expiry(res.name):
                return self.send_json(410, status(410, "Expired", EXPIRED_MSG), res)
        limit = int(q["limit"][0]) if "limit" in q and q["limit"][0].isdigit() else 0
        end = len(objs) if limit <= 0 else min(len(objs), offset + limit)
        items = []
        for o in objs[offset:end]:
            o = dict(o)
            o["apiVersion"] = res.api_version
            if not res.crd:
                # The API leaves apiVersion and kind out of built-in list items.
                o.pop("apiVersion", None)
                o.pop("kind", None)
            items.append(o)
        meta = {"resourceVersion": "12345"}
        if end < len(objs):
            meta["continue"] = self.st.token_for(res, end)
            meta["remainingItemCount"] = len(objs) - end
        self.send_json(200, {"kind": res.kind + "List", "apiVersion": res.api_version,
                             "metadata": meta, "items": items}, res)

    def record(self, body):
        if not self.st.args.record:
            return
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = body.decode(errors="replace")
        line = json.dumps({"method": self.command, "path": urllib.parse.urlsplit(self.path).path,
                           "content_type": self.headers.get("Content-Type"), "user": self.user(),
                           "body": parsed})
        with self.st.lock, open(self.st.args.record, "a") as f:
            f.write(line + "\n")

    def do_POST(self):
        body = self.read_body()
        if self.user() is None:
            return self.send_json(401, status(401, "Unauthorized", "Unauthorized"))
        path = urllib.parse.urlsplit(self.path).path
        if path == "/apis/authentication.k8s.io/v1/tokenreviews":
            return self.token_review(body)
        if self.read_only_refused():
            return
        if self.lease_route():
            return self.lease_request(body, self.user())
        route = self.parse()
        if route and route[0].plural == "events" and route[1] and not route[2]:
            self.record(body)
            try:
                ev = json.loads(body)
            except ValueError:
                return self.send_json(400, status(400, "BadRequest", "invalid JSON"))
            meta = ev.setdefault("metadata", {})
            if not meta.get("name"):
                meta["name"] = (meta.get("generateName") or "event.") + secrets.token_hex(4)
            meta["uid"] = secrets.token_hex(16)
            return self.send_json(201, ev, route[0])
        if route and self.st.args.writable and not route[2]:
            import fake_canary
            return fake_canary.create(self, route[0], route[1], body)
        return self.send_json(404, status(404, "NotFound",
                                          "the server could not find the requested resource"))

    def do_DELETE(self):
        self.read_body()
        if self.user() is None:
            return self.send_json(401, status(401, "Unauthorized", "Unauthorized"))
        if self.read_only_refused():
            return
        route = self.parse()
        if route and self.st.args.writable and route[2] and not route[3]:
            import fake_canary
            return fake_canary.delete(self, route[0], route[1], route[2])
        return self.send_json(404, status(404, "NotFound",
                                          "the server could not find the requested resource"))

    def token_review(self, body):
        if self.st.args.tokenreview_delay:
            time.sleep(self.st.args.tokenreview_delay)
        try:
            spec = json.loads(body)["spec"]
            tok = spec["token"]
            want = spec.get("audiences") or []
        except (ValueError, KeyError, TypeError):
            return self.send_json(400, status(400, "BadRequest", "invalid TokenReview"))
        rev = self.st.reviews.get(tok)
        # As the real API server: with spec.audiences, a token is authenticated
        # only for the audiences it was minted for ("audiences" in the review
        # file, default ["hvready"]), and status.audiences is the intersection.
        token_auds = (rev or {}).get("audiences", ["hvready"])
        auds = [a for a in want if a in token_auds] if want else token_auds
        if want and not auds:
            rev = None
        out = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
               "metadata": {"creationTimestamp": None}, "spec": {"token": tok},
               "status": {"authenticated": False}}
        if rev:
            extra = {}
            if rev.get("node"):
                extra["authentication.kubernetes.io/node-name"] = [rev["node"]]
            if rev.get("pod"):
                extra["authentication.kubernetes.io/pod-name"] = [rev["pod"]]
                extra["authentication.kubernetes.io/pod-uid"] = [rev.get("pod_uid", "uid-" + rev["pod"])]
            out["status"] = {"authenticated": True,
                             "user": {"username": rev.get("user", ""), "uid": rev.get("uid", ""),
                                      "groups": rev.get("groups", ["system:serviceaccounts",
                                                                   "system:authenticated"]),
                                      "extra": extra},
                             "audiences": auds}
        else:
            out["status"]["error"] = "invalid bearer token"
        self.send_json(201, out)

    def do_PATCH(self):
        body = self.read_body()
        if self.user() is None:
            return self.send_json(401, status(401, "Unauthorized", "Unauthorized"))
        if self.read_only_refused():
            return
        route = self.parse()
        if route and route[0].plural == "nodes" and route[0].group == "" and route[3] == "status":
            self.record(body)
            if self.st.match(self.st.forbidden, "nodes/status"):
                return self.send_json(403, status(
                    403, "Forbidden", 'nodes "%s" is forbidden: User "%s" cannot patch resource '
                    '"nodes/status" in API group "" at the cluster scope' % (route[2], self.user()),
                    {"name": route[2], "kind": "nodes"}))
            self.merge_node_conditions(route[0], route[2], body)
            return self.get_one(route[0], None, route[2])
        return self.send_json(404, status(404, "NotFound",
                                          "the server could not find the requested resource"))


    def do_PUT(self):
        body = self.read_body()
        user = self.user()
        if user is None:
            return self.send_json(401, status(401, "Unauthorized", "Unauthorized"))
        if self.read_only_refused():
            return
        if self.lease_route():
            return self.lease_request(body, user)
        route = self.parse()
        if route and self.st.args.writable and route[2] and not route[3]:
            import fake_canary
            return fake_canary.replace(self, route[0], route[1], route[2], body)
        return self.send_json(404, status(404, "NotFound",
                                          "the server could not find the requested resource"))

    # -- node status patches: conditions merge by type (patchMergeKey)
    def merge_node_conditions(self, res, name, body):
        try:
            conds = json.loads(body)["status"]["conditions"]
        except (ValueError, KeyError, TypeError):
            return
        with self.st.lock:
            for o in res.objects:
                if o.get("metadata", {}).get("name") != name:
                    continue
                have = o.setdefault("status", {}).setdefault("conditions", [])
                for c in conds:
                    old = [i for i, h in enumerate(have) if h.get("type") == c.get("type")]
                    if old:
                        have[old[0]] = dict(have[old[0]], **c)
                    else:
                        have.append(c)

    # -- coordination.k8s.io/v1 Leases, for leader election
    def lease_route(self):
        """(namespace, name or None) for a Lease path, else None."""
        parts = [p for p in urllib.parse.urlsplit(self.path).path.split("/") if p]
        if (len(parts) in (6, 7) and parts[:3] == ["apis", "coordination.k8s.io", "v1"]
                and parts[3] == "namespaces" and parts[5] == "leases"):
            return parts[4], parts[6] if len(parts) == 7 else None
        return None

    def lease_request(self, body, user):
        ns, name = self.lease_route()
        verb = {"GET": "get", "POST": "create", "PUT": "update"}[self.command]
        if self.st.match(self.st.forbidden, "leases.coordination.k8s.io"):
            return self.send_json(403, status(
                403, "Forbidden", 'leases.coordination.k8s.io "%s" is forbidden: User "%s" '
                'cannot %s resource "leases" in API group "coordination.k8s.io" in the '
                'namespace "%s"' % (name or "", user, verb, ns)))
        if self.command == "GET":
            with self.st.lock:
                obj = self.st.leases.get((ns, name))
            if obj is None:
                return self.send_json(404, status(404, "NotFound",
                                                  'leases.coordination.k8s.io "%s" not found'
                                                  % name))
            return self.send_json(200, obj)
        try:
            obj = json.loads(body)
            meta = obj.setdefault("metadata", {})
        except (ValueError, AttributeError):
            return self.send_json(400, status(400, "BadRequest", "invalid Lease"))
        if self.command == "POST":
            name = meta.get("name")
        elif meta.get("name") != name:
            return self.send_json(400, status(400, "BadRequest", "name does not match the path"))
        with self.st.lock:
            cur = self.st.leases.get((ns, name))
            if self.command == "POST" and cur is not None:
                code, out = 409, status(409, "AlreadyExists",
                                        'leases.coordination.k8s.io "%s" already exists' % name)
            elif self.command == "PUT" and cur is None:
                code, out = 404, status(404, "NotFound",
                                        'leases.coordination.k8s.io "%s" not found' % name)
            elif (self.command == "PUT"
                  and meta.get("resourceVersion") != cur["metadata"]["resourceVersion"]):
                code, out = 409, status(
                    409, "Conflict", 'Operation cannot be fulfilled on leases.coordination.k8s.io '
                    '"%s": the object has been modified; please apply your changes to the latest '
                    'version and try again' % name)
            else:
                self.st.lease_rv += 1
                meta.update({"namespace": ns, "resourceVersion": str(self.st.lease_rv)})
                meta.setdefault("uid", secrets.token_hex(16))
                obj.update({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease"})
                self.st.leases[(ns, name)] = obj
                code, out = (201 if self.command == "POST" else 200), obj
        return self.send_json(code, out)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, state, ctx):
        self.state = state
        self.ctx = ctx
        super().__init__(addr, Handler)

    def get_request(self):
        sock, addr = self.socket.accept()
        # The handshake happens in the handler's thread, so a stuck client
        # cannot hold up accept().
        return self.ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def handle_error(self, request, client_address):
        pass


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fixtures", help="file or directory of kubectl get -o json files")
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--client-ca", help="accept client certificates signed by this CA")
    p.add_argument("--bind", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--token", action="append", default=[], help="an accepted bearer token")
    p.add_argument("--read-only-token", action="append", default=[], metavar="TOKEN",
                   help="an accepted bearer token whose writes are 403 Forbidden")
    p.add_argument("--require-auth", action="store_true",
                   help="401 without a valid token or client certificate")
    p.add_argument("--not-installed", action="append", default=[], metavar="RES",
                   help="404: its CRD is not installed")
    p.add_argument("--forbid", action="append", default=[], metavar="RES", help="403")
    p.add_argument("--fail", action="append", default=[], metavar="RES:N",
                   help="500 the first N times")
    p.add_argument("--slow", action="append", default=[], metavar="RES:SECONDS",
                   help="sleep before answering")
    p.add_argument("--expire-continue", type=int, default=0, metavar="N",
                   help="410 Gone for the first N continue requests of each resource")
    p.add_argument("--retry-after", type=int, default=0)
    p.add_argument("--serve-version", action="append", default=[], metavar="GROUP=VERSION",
                   help="serve that group at VERSION only (its CRDs list only VERSION)")
    p.add_argument("--tokenreview", metavar="FILE")
    p.add_argument("--tokenreview-delay", type=float, default=0, metavar="SECONDS",
                   help="answer each TokenReview after this long")
    p.add_argument("--record", metavar="FILE")
    p.add_argument("--log", metavar="FILE")
    p.add_argument("--version-string", default="v1.34.4+rke2r1")
    p.add_argument("--writable", action="store_true", help="POST/DELETE of any resource")
    p.add_argument("--canary-sim", action="store_true",
                   help="simulate the controllers the canary observes (implies --writable)")
    p.add_argument("--canary-fault", action="append", default=[],
                   choices=["share-manager-pull", "pvc-never-binds", "read-mismatch",
                            "stuck-finalizer", "vm-unschedulable", "not-migratable",
                            "migrate-fails", "migrate-stuck", "volume-stuck",
                            "snapshot-never-ready", "restore-source-gone",
                            "restore-clone-stuck", "restore-drops-labels", "snapshot-retain",
                            "snapshot-deadline",
                            "prune-added-node-selector"])
    p.add_argument("--snapshot-seconds", type=float, default=0.3,
                   help="how long a simulated VolumeSnapshot takes to become ready")
    p.add_argument("--migrate-seconds", type=float, default=0.5,
                   help="how long a simulated live migration runs")
    p.add_argument("--drop", action="append", default=[], metavar="RES:SKIP:N",
                   help="close the connection without an answer for N GETs of RES after SKIP")
    p.add_argument("--fail-post", action="append", default=[], metavar="RES:SKIP:N",
                   help="500 for N POSTs of RES after the first SKIP")
    p.add_argument("--race-put", action="append", default=[], metavar="RES:N",
                   help="another writer updates the object before each of the first N PUTs of "
                   "RES (409 Conflict)")
    p.add_argument("--pod-seconds", type=float, default=0.3,
                   help="how long a canary pod stays Running")
    args = p.parse_args()
    if args.canary_sim:
        args.writable = True
    if args.bind not in ("127.0.0.1", "::1", "localhost") and not args.bind.startswith("127."):
        sys.exit("fake_apiserver: binds to loopback only")

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(args.cert, args.key)
    if args.client_ca:
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.load_verify_locations(args.client_ca)
    state = State(args)
    if args.canary_sim:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import fake_canary
        fake_canary.start_controller(state)
    if ":" in args.bind:
        Server.address_family = __import__("socket").AF_INET6
    srv = Server((args.bind, args.port), state, ctx)
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
