#!/usr/bin/env bash
# The cluster states built from upstream releases (tests/fixtures/upstream/):
# each report names the versions it read from the objects, in every format,
# and on a version outside the support matrix (docs/support-matrix.md) the
# header says so and every finding whose rule depends on that version carries
# the note: never a silent PASS on rules hvready did not read for it.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
up="$HVREADY_SRC/tests/fixtures/upstream"
agg="$HVREADY_BIN/hvready-aggregator"

# The generator is deterministic and the directories are what it writes.
cp -r "$up" "$tmp/regen"
python3 "$tmp/regen/gen_upstream.py"
diff -r "$up" "$tmp/regen" >/dev/null || {
	echo "FAIL: tests/fixtures/upstream differs from what gen_upstream.py writes"
	diff -r "$up" "$tmp/regen" | head -20
	exit 1
}

n=0
for d in "$up"/*/; do
	name=$(basename "$d")
	n=$((n + 1))
	grep -q "$name" "$up/README.md" || { echo "FAIL: $name is not indexed in README.md"; exit 1; }
	[ -s "$d/README.md" ] || { echo "FAIL: $name has no README.md naming its sources"; exit 1; }
	rc=0
	"$agg" report --cluster-state "$d" --format json >"$tmp/$name.json" || rc=$?
	case "$rc" in 0 | 1 | 3) ;; *) echo "FAIL: $name: report exit $rc"; exit 1 ;; esac
	for fmt in text markdown html; do
		"$agg" report --cluster-state "$d" --format "$fmt" >"$tmp/$name.$fmt" || true
	done
	python3 - "$name" "$tmp" <<'PY'
import html, json, re, sys
name, tmp = sys.argv[1], sys.argv[2]
# What each fixture runs, from its README's sources.
expected = {
    "harvester-1.4.3": dict(harvester="v1.4.3", kubevirt="1.3.1-150600.5.9.1", cdi=None,
                            longhorn="v1.7.3", kubernetes="v1.31.7+rke2r1"),
    "harvester-1.6.1": dict(harvester="v1.6.1", kubevirt="1.5.2-150700.3.5.2",
                            cdi="1.62.0-150700.9.3.1", longhorn="v1.9.2",
                            kubernetes="v1.33.5+rke2r1"),
    "harvester-1.5.2": dict(harvester="v1.5.2", kubevirt="1.4.1-150600.5.21.2",
                            cdi="1.61.0-150600.3.12.1", longhorn="v1.8.2",
                            kubernetes="v1.32.7+rke2r1"),
    "harvester-1.7.1": dict(harvester="v1.7.1", kubevirt="1.6.3-150700.3.13.1",
                            cdi="1.62.0-150700.9.3.1", longhorn="v1.10.2",
                            kubernetes="v1.34.3+rke2r3"),
    "rke2-kubevirt-1.2-longhorn-1.6": dict(harvester=None, kubevirt="v1.2.2", cdi="v1.59.0",
                                           longhorn="v1.6.4", kubernetes="v1.29.15+rke2r1"),
    "k3s-kubevirt-1.9-longhorn-1.11": dict(harvester=None, kubevirt="v1.9.0", cdi="v1.64.0",
                                           longhorn="v1.11.2", kubernetes="v1.34.1+k3s1"),
    "k3s-kubevirt-1.10-out-of-matrix": dict(harvester=None, kubevirt="v1.10.0", cdi="v1.65.0",
                                            longhorn="v1.12.0", kubernetes="v1.36.0+k3s1"),
}
# containerd and node OS of each (1.7 and 2.x branches; SLE Micro, Ubuntu, Rocky).
runtime = {
    "harvester-1.4.3": ("2.0.4-k3s2", "Harvester v1.4.3"),
    "harvester-1.5.2": ("2.0.5-k3s2", "Harvester v1.5.2"),
    "harvester-1.6.1": ("2.1.4-k3s2", "Harvester v1.6.1"),
    "harvester-1.7.1": ("2.1.5-k3s1", "Harvester v1.7.1"),
    "rke2-kubevirt-1.2-longhorn-1.6": ("1.7.26-k3s1", "Ubuntu 22.04.5 LTS"),
    "k3s-kubevirt-1.9-longhorn-1.11": ("2.1.4-k3s1", "Ubuntu 24.04.3 LTS"),
    "k3s-kubevirt-1.10-out-of-matrix": ("2.2.0-k3s1", "Rocky Linux 9.6 (Blue Onyx)"),
}
out_of_matrix = {"k3s-kubevirt-1.10-out-of-matrix": {"kubevirt", "longhorn", "kubernetes"}}
# The checks whose rules depend on a component's version (docs/support-matrix.md,
# "Rules that depend on a version"), and the evidence key of a finding that
# applied such a rule (api.preinstall.conflicts judges other components too).
dependent = {
    "kubevirt": ({"api.kubevirt.snapshot-gate", "api.vm.run-strategy"}, "kubevirt_version"),
    "longhorn": ({"api.vsc.backup-target", "api.preinstall.conflicts"}, "longhorn_version"),
}
assert name in expected, name + ": add its expected versions to this test"
v = json.load(open(f"{tmp}/{name}.json"))
vers = v.get("versions")
assert isinstance(vers, dict), name + ": no versions object in the JSON report"
for comp, want in expected[name].items():
    got = vers[comp]["version"]
    assert got == want, f"{name}: {comp} version {got!r}, expected {want!r}"
    if want:
        assert vers[comp]["from"], f"{name}: {comp} without its source"
nodes = vers["nodes"]
assert nodes and all(n["kubelet"] and n["os_image"] for n in nodes), name + ": node versions"
assert name in runtime, name + ": add its containerd and node OS to this test"
assert vers["containerd"]["version"] == runtime[name][0], f"{name}: {vers['containerd']}"
assert all(n["os_image"] == runtime[name][1] for n in nodes), f"{name}: node OS {nodes}"
dist = "k3s" if "k3s" in expected[name]["kubernetes"] else "rke2"
assert all(n["distribution"] == dist for n in nodes), f"{name}: distribution {nodes}"
oom = out_of_matrix.get(name, set())
for comp, c in vers.items():
    if comp == "nodes" or not c["version"] or c["in_matrix"] is None:
        continue
    assert c["in_matrix"] == (comp not in oom), f"{name}: {comp} in_matrix {c['in_matrix']}"
    assert ("note" in c) == (comp in oom), f"{name}: {comp} note {c.get('note')}"
headers = {fmt: open(f"{tmp}/{name}.{fmt}").read() for fmt in ("text", "markdown", "html")}
flat = {fmt: re.sub(r"\s+", " ", h) for fmt, h in headers.items()}
flat["html"] = html.unescape(flat["html"])
for fmt, h in flat.items():
    assert "Versions: " in h, f"{name}: {fmt} report has no Versions line"
    for comp in ("kubevirt", "longhorn"):
        want = expected[name][comp]
        assert want in h, f"{name}: {fmt} header does not name {comp} {want}"
    for comp in oom:
        assert vers[comp]["note"] in h, f"{name}: {fmt} header lacks {vers[comp]['note']!r}"
# The verdicts whose inputs change shape between releases (gen_upstream.py
# longhorn_shapes): each family's is read from its release's objects.
lh_minor = int(expected[name]["longhorn"].split(".")[1])
by = {}
for f in v["findings"]:
    by.setdefault(f["check"], []).append(f)
bt = by.get("api.vsc.backup-target", [])
assert len(bt) == 1 and bt[0]["status"] == "PASS", f"{name}: api.vsc.backup-target {bt}"
ev = bt[0]["evidence"]
url = "nfs://backup.example.internal:/exports/harvester"
if lh_minor < 8:
    assert ev["path"].startswith("Longhorn setting backup-target"), f"{name}: {ev['path']}"
    assert ev.get("backup_target") == url, f"{name}: setting not read: {ev}"
else:
    assert ev["path"].startswith("BackupTarget default"), f"{name}: {ev['path']}"
    assert "backup_target" not in ev, f"{name}: a Longhorn >= 1.8 setting was read: {ev}"
assert ev.get("backup_target_url") == url, f"{name}: {ev}"
# Harvester's own backup-target setting (same name and JSON fields at every tag read)
# is shown beside Longhorn's view; the families without Harvester have none.
want_hv = f"type nfs, endpoint {url}" if expected[name]["harvester"] else None
assert ev.get("harvester_backup_target") == want_hv, f"{name}: {ev.get('harvester_backup_target')}"
nc = by["cluster.nodes.count"][0]
want = "3 (setting value 3)" if lh_minor < 10 else '3 (setting value {"v1":"3","v2":"3"})'
assert nc["status"] == "PASS" and nc["evidence"]["default_replica_count"] == want, \
    f"{name}: cluster.nodes.count {nc['status']} {nc['evidence'].get('default_replica_count')}"
nd = by["api.longhorn.node-disk"][0]
assert nd["status"] == "PASS", f"{name}: api.longhorn.node-disk {nd['status']} {nd['message']}"
# KubeVirt: the Snapshot gate's stage and default at the family's release (Harvester
# families carry their chart's featureGates, none of which is Snapshot).
kv_minor = int(re.match(r"v?1\.(\d+)\.", expected[name]["kubevirt"]).group(1))
sg = by["api.kubevirt.snapshot-gate"][0]
if kv_minor < 9:
    assert sg["status"] == "WARN" and f"in KubeVirt 1.{kv_minor}:" in sg["message"], \
        f"{name}: api.kubevirt.snapshot-gate {sg['status']} {sg['message']}"
elif kv_minor == 9:
    assert sg["status"] == "PASS" and "on by default" in sg["message"], \
        f"{name}: api.kubevirt.snapshot-gate {sg['status']} {sg['message']}"
# The VM, VMI and VMIM shapes of the family's KubeVirt (gen_upstream.py vm_shapes).
import os
fam_dir = os.path.join(os.environ["HVREADY_SRC"], "tests/fixtures/upstream", name)
vmis = json.load(open(f"{fam_dir}/virtualmachineinstances.kubevirt.io.json"))["items"]
for o in vmis:
    types = {c["type"] for c in o["status"]["conditions"]}
    assert ("StorageLiveMigratable" in types) == (kv_minor >= 4), \
        f"{name}: {o['metadata']['name']} conditions {types} at KubeVirt 1.{kv_minor}"
    ms = o["status"].get("migrationState")
    if ms:
        assert ("sourceState" in ms) == (kv_minor >= 6), f"{name}: migrationState {sorted(ms)}"
        assert "failureReason" in ms or not ms.get("failed"), f"{name}: {sorted(ms)}"
vms = {o["metadata"]["name"]: o for o in
       json.load(open(f"{fam_dir}/virtualmachines.kubevirt.io.json"))["items"]}
on_running = sorted(n for n, o in vms.items() if "running" in o["spec"])
rs = by["api.vm.run-strategy"]
if kv_minor < 4:
    # spec.running is the release's own field (deprecated only from v1.4.0).
    assert on_running, f"{name}: no VM on spec.running at KubeVirt 1.{kv_minor}"
    assert len(rs) == 1 and rs[0]["status"] == "PASS", \
        f"{name}: api.vm.run-strategy on KubeVirt 1.{kv_minor}: {[(x['status'], x['message']) for x in rs]}"
    assert "spec.running, which KubeVirt" in rs[0]["message"], rs[0]["message"]
    listed = sorted(l.split("/")[1].split(":")[0] for l in rs[0]["evidence"]["spec_running"])
    assert listed == on_running, f"{name}: spec_running {listed} != {on_running}"
elif on_running:
    assert len(rs) == len(on_running) and all(
        x["status"] == "WARN" and "deprecated from KubeVirt 1.4" in x["message"] for x in rs), \
        f"{name}: api.vm.run-strategy {[(x['status'], x['message']) for x in rs]}"
else:
    assert len(rs) == 1 and rs[0]["status"] == "PASS", f"{name}: api.vm.run-strategy {rs}"
# vm-002's last migration failed with a device error (FAIL, the reason quoted,
# read from its VMIM); vm-001's completed one leaves it migratable.
lm = {f["object"]: f for f in by["api.vm.live-migratable"] if f.get("object")}
assert "VirtualMachineInstance/workloads/vm-001" not in lm, f"{name}: vm-001 {lm}"
f2 = lm.get("VirtualMachineInstance/default/vm-002")
assert f2 and f2["status"] == "FAIL", f"{name}: vm-002 {f2}"
assert "Permission denied" in f2["message"] and \
    "VirtualMachineInstanceMigration vm-002-migration-02, phase Failed" in f2["message"], \
    f"{name}: vm-002 {f2['message']}"
assert ("StorageLiveMigratable" in f2["evidence"]) == (kv_minor >= 4), \
    f"{name}: vm-002 evidence {sorted(f2['evidence'])}"
cdi = by["api.cdi.import-source"][0]
if expected[name]["cdi"]:
    assert cdi["status"] == "PASS" and cdi["evidence"]["datavolumes"] == 1, f"{name}: {cdi}"
else:
    assert cdi["status"] == "SKIP", f"{name}: {cdi}"
checked = 0
for f in v["findings"]:
    note = (f.get("evidence") or {}).get("version_note")
    for comp, (checks, key) in dependent.items():
        if f["check"] not in checks or key not in (f.get("evidence") or {}):
            continue
        if comp in oom:
            checked += 1
            assert note and note == vers[comp]["note"], \
                f"{name}: {f['check']} {f['status']} without the out-of-matrix note"
    if not oom:
        assert note is None, f"{name}: {f['check']} has a version_note inside the matrix"
if oom:
    assert checked >= 2, f"{name}: only {checked} version-dependent findings seen"
print(f"ok {name}: " + ", ".join(f"{k} {c['version']}" for k, c in vers.items()
                                  if k != "nodes" and c["version"]))
PY
done
[ "$n" -ge 7 ] || { echo "FAIL: only $n upstream fixtures"; exit 1; }
echo "PASS: $n upstream cluster states"
