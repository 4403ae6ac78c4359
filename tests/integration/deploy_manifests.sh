#!/usr/bin/env bash
# deploy/: every overlay renders with `kubectl kustomize`, and the rendered
# objects keep the invariants operators rely on (RBAC limited to the resource
# table, probes, resources, non-root aggregator, token audience, justified privileges).
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in standard node-conditions; do
	kubectl kustomize "$HVREADY_SRC/deploy/overlays/$o" >"$tmp/$o.yaml"
done
"$HVREADY_BIN/hvready-aggregator" resources >"$tmp/resources.tsv"
/usr/bin/python3 - "$tmp" "$HVREADY_SRC/deploy" <<'PY'
import os, re, sys, yaml
tmp, src = sys.argv[1], sys.argv[2]
table = set()
for line in open(os.path.join(tmp, "resources.tsv")):
    g, v, plural, scope = line.rstrip("\n").split("\t")
    table.add(("" if g == "core" else g, plural))

def load(o):
    return [d for d in yaml.safe_load_all(open(os.path.join(tmp, o + ".yaml"))) if d]

def find(docs, kind, name):
    for d in docs:
        if d["kind"] == kind and d["metadata"]["name"] == name:
            return d
    raise AssertionError("missing %s/%s" % (kind, name))

for overlay in ("standard", "node-conditions"):
    docs = load(overlay)
    for d in docs:
        if d["kind"] != "Namespace" and not d["kind"].startswith("Cluster"):
            assert d["metadata"].get("namespace") == "hvready-system", d["metadata"]
    role = find(docs, "ClusterRole", "hvready-aggregator")
    granted = set()
    ks_uid = False
    for r in role["rules"]:
        for g in r["apiGroups"]:
            for res in r["resources"]:
                if (g, res) == ("authentication.k8s.io", "tokenreviews"):
                    assert r["verbs"] == ["create"], r
                    continue
                # The cluster's identity for the report's header: one
                # namespace, read with get only (docs/change-board.md).
                if (g, res) == ("", "namespaces"):
                    assert r["verbs"] == ["get"] and r.get("resourceNames") == ["kube-system"], r
                    ks_uid = True
                    continue
                assert "resourceNames" not in r, r
                assert sorted(r["verbs"]) == ["get", "list", "watch"], r
                granted.add((g, res))
    assert ks_uid, "no get on namespaces/kube-system: the header's cluster identity"
    assert granted == table, "RBAC differs from the resource table: extra %s, missing %s" % (
        sorted(granted - table), sorted(table - granted))
    patches = [r for d in docs if d["kind"] == "ClusterRole" for r in d["rules"]
               if "nodes/status" in r["resources"]]
    if overlay == "standard":
        assert not patches, "nodes/status granted in the standard overlay"
    else:
        assert patches and patches[0]["verbs"] == ["patch"], patches
    agg = find(docs, "Deployment", "hvready-aggregator")["spec"]["template"]["spec"]
    c = agg["containers"][0]
    assert agg["securityContext"]["runAsNonRoot"] is True
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert c["securityContext"]["allowPrivilegeEscalation"] is False
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    # Reads need a credential; agents are only their own ServiceAccount.
    assert "--read-auth=tokenreview:system:serviceaccounts:hvready-system" in c["args"], c["args"]
    assert "--tokenreview" in c["args"], c["args"]
    assert find(docs, "ServiceAccount", "hvready-reader")["automountServiceAccountToken"] is False
    ds = find(docs, "DaemonSet", "hvready-agent")["spec"]["template"]["spec"]
    assert {"operator": "Exists"} in ds["tolerations"], "agent must tolerate every taint"
    for spec in (agg, ds):
        for ctr in spec["containers"]:
            assert ctr["resources"]["requests"] and ctr["resources"]["limits"], ctr["name"]
    auds = [s["serviceAccountToken"]["audience"] for v in ds["volumes"] if "projected" in v
            for s in v["projected"]["sources"] if "serviceAccountToken" in s]
    assert auds == ["hvready"], auds
    # The probes run in the host's network namespace (/proc/1 is the host's
    # init only with hostPID); the pod keeps its own network for the reports.
    assert ds.get("hostPID") is True and not ds.get("hostNetwork"), ds
    assert "--probe-netns=/proc/1/ns/net" in ds["containers"][0]["args"], ds["containers"][0]["args"]
    hr = [m for m in ds["containers"][0]["volumeMounts"] if m["mountPath"] == "/host"]
    assert hr and hr[0]["readOnly"] is True
    np = find(docs, "NetworkPolicy", "hvready-aggregator")
    assert np["spec"]["ingress"][0]["from"][0]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "hvready-agent"}

# Every privilege in the sources is justified by a comment right above it.
for root, _, files in os.walk(src):
    for f in files:
        if not f.endswith(".yaml"):
            continue
        lines = open(os.path.join(root, f)).read().splitlines()
        for i, l in enumerate(lines):
            if not l.strip().startswith("#") and re.search(r"privileged:\s*true|hostPID:\s*true|hostNetwork:\s*true", l):
                above = [x.strip() for x in lines[max(0, i - 6):i]]
                assert any(x.startswith("#") for x in above), "%s:%d unjustified: %s" % (f, i + 1, l.strip())
print("deploy manifests: invariants hold for both overlays")
PY
echo PASS
