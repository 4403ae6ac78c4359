#!/usr/bin/env bash
# deploy/overlays/monitoring, cert-manager, canary and canary-scheduled: they render with
# `kubectl kustomize`, their custom resources pass the upstream CRDs' schemas
# (tests/tools/k8s-schema: types, enums, required fields and unknown fields), the
# PrometheusRule passes `promtool check rules`, the ServiceMonitor scrapes the port
# and Service the base defines, the NetworkPolicy admits the monitoring namespace,
# and the Certificate issues the Secret the aggregator and the agents mount;
# canary-scheduled mounts the hvready-canary ServiceAccount's token Secret into serve,
# passes it by --canary-token-file, and binds nothing new to serve's ServiceAccount.
# The schema checker is first shown to refuse a typo and a bad enum, so a checker
# that accepts everything cannot pass this test.
set -euo pipefail
: "${HVREADY_SRC:?}" "${HVREADY_BUILD:?}"
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
test_init

# The checker's npm packages (pinned by package-lock.json) live in the build tree.
schema="$HVREADY_BUILD/k8s-schema"
mkdir -p "$schema"
for f in package.json package-lock.json check.mjs; do
	cp "$HVREADY_SRC/tests/tools/k8s-schema/$f" "$schema/$f"
done
if ! cmp -s "$schema/package-lock.json" "$schema/node_modules/.hvready-lock" 2>/dev/null; then
	(cd "$schema" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
		fail "npm ci of tests/tools/k8s-schema failed (the npm registry must be reachable)"
	cp "$schema/package-lock.json" "$schema/node_modules/.hvready-lock"
fi

to_json() { # YAML stream -> JSON array
	python3 -c 'import json,sys,yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d], open(sys.argv[2],"w"))' "$1" "$2"
}

# 1. The checker refuses what the API server would refuse or silently prune.
cat >"$tmp/bad.yaml" <<'EOF'
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: typo}
spec:
  selector: {}
  endpoints: [{port: https, schem: https}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: enum}
spec:
  selector: {}
  endpoints: [{port: https, scheme: htps}]
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: required}
spec: {dnsNames: [a]}
EOF
to_json "$tmp/bad.yaml" "$tmp/bad.json"
if node "$schema/check.mjs" "$tmp/bad.json" >"$tmp/bad.out"; then
	cat "$tmp/bad.out"
	fail "the schema checker accepted invalid objects"
fi
grep -q "schem" "$tmp/bad.out" || fail "unknown field not reported: $(cat "$tmp/bad.out")"
grep -q "allowed values" "$tmp/bad.out" || fail "bad enum not reported: $(cat "$tmp/bad.out")"
grep -q "secretName\|issuerRef" "$tmp/bad.out" || fail "missing required field not reported: $(cat "$tmp/bad.out")"

# 2. Every overlay renders; the CRD objects of the new ones pass the schemas.
for o in "$HVREADY_SRC"/deploy/overlays/*/; do
	o=$(basename "$o")
	kubectl kustomize "$HVREADY_SRC/deploy/overlays/$o" >"$tmp/$o.yaml" || fail "kustomize $o"
	to_json "$tmp/$o.yaml" "$tmp/$o.json"
	node "$schema/check.mjs" "$tmp/$o.json" >"$tmp/$o.schema" || {
		cat "$tmp/$o.schema"
		fail "overlay $o: schema problems"
	}
done
grep -q "ServiceMonitor/hvready-aggregator" "$tmp/monitoring.schema" || fail "monitoring: no ServiceMonitor checked"
grep -q "PrometheusRule/hvready" "$tmp/monitoring.schema" || fail "monitoring: no PrometheusRule checked"
grep -q "Certificate/hvready-aggregator" "$tmp/cert-manager.schema" || fail "cert-manager: no Certificate checked"

# 3. promtool on the rules, and the references between objects.
python3 - "$tmp" <<'PY'
import json, os, sys, yaml
tmp = sys.argv[1]
def load(o):
    return json.load(open(os.path.join(tmp, o + ".json")))
def find(docs, kind, name):
    for d in docs:
        if d["kind"] == kind and d["metadata"]["name"] == name:
            return d
    raise AssertionError("missing %s/%s" % (kind, name))
mon = load("monitoring")
rule = find(mon, "PrometheusRule", "hvready")
yaml.safe_dump({"groups": rule["spec"]["groups"]}, open(os.path.join(tmp, "rules.yaml"), "w"))
alerts = {r["alert"] for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r}
# The alerts docs/outputs.md describes are the ones shipped.
doc = open(os.path.join(os.environ["HVREADY_SRC"], "docs", "outputs.md")).read()
for a in ("HvreadyLiveMigrationNotReady", "HvreadyGateFailing", "HvreadyUndecided",
          "HvreadyVMCannotLiveMigrate", "HvreadyHostCheckFailing", "HvreadyNodeNotReporting",
          "HvreadyReportsRejected", "HvreadyClusterStateStale", "HvreadyResourceForbidden"):
    assert a in alerts, "alert %s missing from the PrometheusRule" % a
    assert a in doc, "alert %s not in docs/outputs.md" % a
sm = find(mon, "ServiceMonitor", "hvready-aggregator")
svc = find(mon, "Service", "hvready-aggregator")
ports = {p["name"] for p in svc["spec"]["ports"]}
for ep in sm["spec"]["endpoints"]:
    assert ep["port"] in ports, "ServiceMonitor port %s not on the Service (%s)" % (ep["port"], ports)
    assert ep["scheme"] == "https" and ep["path"] == "/metrics", ep
    assert ep["tlsConfig"]["ca"]["secret"]["name"] == "hvready-aggregator-tls", ep
sel = sm["spec"]["selector"]["matchLabels"]
assert all(svc["metadata"]["labels"].get(k) == v for k, v in sel.items()), (sel, svc["metadata"]["labels"])
pols = [d for d in mon if d["kind"] == "NetworkPolicy"]
admitted = [f for p in pols for r in p["spec"]["ingress"] for f in r["from"]
            if f.get("namespaceSelector", {}).get("matchLabels", {}).get("kubernetes.io/metadata.name") == "cattle-monitoring-system"]
assert admitted, "no NetworkPolicy admits cattle-monitoring-system"
cm = load("cert-manager")
cert = find(cm, "Certificate", "hvready-aggregator")
dep = find(cm, "Deployment", "hvready-aggregator")["spec"]["template"]["spec"]
ds = find(cm, "DaemonSet", "hvready-agent")["spec"]["template"]["spec"]
mounted = {v["secret"]["secretName"] for v in dep["volumes"] + ds["volumes"] if "secret" in v}
assert cert["spec"]["secretName"] in mounted, (cert["spec"]["secretName"], mounted)
assert "hvready-aggregator.hvready-system.svc" in cert["spec"]["dnsNames"], cert["spec"]["dnsNames"]
issuer = find(cm, "Issuer", cert["spec"]["issuerRef"]["name"])
assert "ca" in issuer["spec"], issuer
find(cm, "Certificate", "hvready-ca")
can = load("canary")
role = find(can, "Role", "hvready-canary")
assert role["metadata"]["namespace"] == "hvready-canary", role["metadata"]
CM, CM_NS = "hvready-canary-result", "hvready-canary"
for r in role["rules"]:
    if "configmaps" in r["resources"]:
        continue
    assert set(r["verbs"]) <= {"get", "list", "watch", "create", "delete"}, r
# the result ConfigMap: create (RBAC cannot restrict a create by name), get and
# update only of its name, nothing else of configmaps, and configmaps alone in
# those rules
cm_rules = sorted(([sorted(r["verbs"]), r.get("resourceNames")] for r in role["rules"]
                   if "configmaps" in r["resources"]), key=str)
assert cm_rules == [[["create"], None], [["get", "update"], [CM]]], cm_rules
for r in role["rules"]:
    if "configmaps" in r["resources"]:
        assert r["resources"] == ["configmaps"] and r["apiGroups"] == [""], r
# serve's ServiceAccount: get of that one ConfigMap in the canary's namespace, by
# a Role of its own; no other binding of the overlay gives it anything of
# configmaps or of the canary's namespace
agg = {"kind": "ServiceAccount", "name": "hvready-aggregator", "namespace": "hvready-system"}
res_role = find(can, "Role", "hvready-aggregator-canary-result")
assert res_role["metadata"]["namespace"] == CM_NS, res_role["metadata"]
assert res_role["rules"] == [{"apiGroups": [""], "resources": ["configmaps"],
                              "resourceNames": [CM], "verbs": ["get"]}], res_role["rules"]
res_rb = find(can, "RoleBinding", "hvready-aggregator-canary-result")
assert res_rb["metadata"]["namespace"] == CM_NS, res_rb["metadata"]
assert res_rb["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                             "name": "hvready-aggregator-canary-result"}, res_rb["roleRef"]
assert res_rb["subjects"] == [agg], res_rb["subjects"]
agg_bindings = sorted("%s/%s" % (b["kind"], b["metadata"]["name"]) for b in can
                      if b["kind"] in ("RoleBinding", "ClusterRoleBinding")
                      and agg in b.get("subjects", []))
assert agg_bindings == ["ClusterRoleBinding/hvready-aggregator",
                        "RoleBinding/hvready-aggregator-canary-result"], agg_bindings
for r in find(can, "ClusterRole", "hvready-aggregator")["rules"]:
    assert "configmaps" not in r["resources"] and "*" not in r["resources"], r
    assert "*" not in r["verbs"], r
cr = find(can, "ClusterRole", "hvready-canary-read")
for r in cr["rules"]:
    assert set(r["verbs"]) <= {"get", "list"}, ("cluster-wide writes", r)
rb = find(can, "RoleBinding", "hvready-canary")
assert rb["roleRef"]["name"] == "hvready-canary" and rb["subjects"][0]["name"] == "hvready-canary", rb
job = find(can, "CronJob", "hvready-canary")
pod = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]
assert pod["serviceAccountName"] == "hvready-canary", pod
args = pod["containers"][0]["args"]
assert args[:2] == ["canary", "--in-cluster"], args
# the CronJob writes its result where serve reads it
assert args[args.index("--result-configmap") + 1] == CM, args
assert args[args.index("--namespace") + 1] == CM_NS, args
serve = find(can, "Deployment", "hvready-aggregator")["spec"]["template"]["spec"]["containers"][0]["args"]
assert "--canary-result=configmap:%s/%s" % (CM_NS, CM) in serve, serve
assert "--in-cluster" in serve, serve
assert job["spec"]["suspend"] is True and job["spec"]["concurrencyPolicy"] == "Forbid", job["spec"]
# canary-scheduled: serve runs the canary with the hvready-canary ServiceAccount's token
# (a Secret mounted read-only), and serve's own ServiceAccount gains nothing over the canary
# overlay's (whose one extra right, get of the result ConfigMap, is asserted above).
cs = load("canary-scheduled")
def bound_rules(docs, sa, ns):
    out = []
    for b in docs:
        if b["kind"] not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        if not any(s.get("kind") == "ServiceAccount" and s.get("name") == sa
                   and s.get("namespace") == ns for s in b.get("subjects") or []):
            continue
        ref = b["roleRef"]
        role = find(docs, ref["kind"], ref["name"])
        where = b["metadata"].get("namespace", "*") if b["kind"] == "RoleBinding" else "*"
        out += [json.dumps([where, r], sort_keys=True) for r in role["rules"]]
    return sorted(out)
assert bound_rules(cs, "hvready-aggregator", "hvready-system") == \
    bound_rules(can, "hvready-aggregator", "hvready-system"), "serve's ServiceAccount gained rules"
assert any('"create"' in r for r in bound_rules(cs, "hvready-canary", "hvready-system")), \
    "the canary's ServiceAccount cannot create"
sec = find(cs, "Secret", "hvready-canary-token")
assert sec["type"] == "kubernetes.io/service-account-token", sec
assert sec["metadata"]["namespace"] == "hvready-system", sec["metadata"]
assert sec["metadata"]["annotations"]["kubernetes.io/service-account.name"] == "hvready-canary", sec
sa = find(cs, "ServiceAccount", "hvready-canary")
assert sa["metadata"]["namespace"] == sec["metadata"]["namespace"], sa["metadata"]
assert "data" not in sec and "stringData" not in sec, "a token in the manifests"
dep = find(cs, "Deployment", "hvready-aggregator")
pod = dep["spec"]["template"]["spec"]
assert pod["serviceAccountName"] == "hvready-aggregator", pod["serviceAccountName"]
vol = [v for v in pod["volumes"] if v.get("secret", {}).get("secretName") == sec["metadata"]["name"]]
assert len(vol) == 1, pod["volumes"]
ctr = pod["containers"][0]
mnt = [m for m in ctr["volumeMounts"] if m["name"] == vol[0]["name"]]
assert len(mnt) == 1 and mnt[0].get("readOnly") is True, mnt
args = ctr["args"]
assert args[0] == "serve" and "--in-cluster" in args, args
assert any(a.startswith("--canary-interval=") for a in args), args
assert "--canary-token-file=%s/token" % mnt[0]["mountPath"] in args, (args, mnt)
assert not any(a.startswith("--canary-kubeconfig") for a in args), args
# a rollout lets the running canary clean up: grace above its --canary-timeout plus 30 s
tmo = [a.split("=", 1)[1] for a in args if a.startswith("--canary-timeout=")]
secs = int(tmo[0][:-1]) * {"s": 1, "m": 60, "h": 3600}[tmo[0][-1]] if tmo else 300
assert pod.get("terminationGracePeriodSeconds", 30) >= secs + 30, (pod.get("terminationGracePeriodSeconds"), tmo)
# only serve mounts the canary's token; the rest of the Deployment is the base's
for d in cs:
    if d["kind"] in ("DaemonSet", "CronJob") and sec["metadata"]["name"] in json.dumps(d):
        raise AssertionError("%s/%s mounts the canary's token" % (d["kind"], d["metadata"]["name"]))
base_dep = find(load("standard"), "Deployment", "hvready-aggregator")["spec"]["template"]["spec"]
assert [v for v in pod["volumes"] if v is not vol[0]] == base_dep["volumes"], pod["volumes"]
assert [a for a in args if not a.startswith("--canary-")] == base_dep["containers"][0]["args"], args
print("deploy_overlays: references OK")
PY
promtool check rules "$tmp/rules.yaml" || fail "promtool check rules"
echo "deploy_overlays: OK"
