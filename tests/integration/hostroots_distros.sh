#!/usr/bin/env bash
# The node roots of the support matrix's other OSes (tests/fixtures/hostroots
# b-ubuntu2404, b-rocky9; their READMEs name the sources): each host check's
# verdict on a fresh Longhorn node of that OS, as the agent's `check` reports it.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
roots="$HVREADY_SRC/tests/fixtures/hostroots"
for r in b-ubuntu2404 b-rocky9; do
	[ -s "$roots/$r/README.md" ] || { echo "FAIL: $r has no README.md"; exit 1; }
	rc=0
	"$HVREADY_BIN/hvready-agent" check --host-root "$roots/$r" --format json --timeout 2 \
		--skip host.nfs.probe,host.image.share-manager >"$tmp/$r.json" 2>"$tmp/$r.err" || rc=$?
	case "$rc" in 0 | 1 | 3) ;; *) echo "FAIL: $r: check exit $rc"; cat "$tmp/$r.err"; exit 1 ;; esac
	python3 - "$r" "$tmp/$r.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
v = json.load(open(path))
by = {c["check"]: c for c in v["results"]}
want = {
    "b-ubuntu2404": {
        "os": "Ubuntu 24.04.1 LTS", "kernel": "6.8.0-45-generic",
        # nfs-common installed, the NFS client a zstd-compressed module not loaded yet
        "host.nfs.client": ("PASS", "/sbin/mount.nfs"),
        "host.nfs.kernel": ("PASS", "not loaded yet (kernel/fs/nfs/nfsv4.ko.zst in modules.dep)"),
        "host.iscsi": ("PASS", "initiator iqn.2004-10.com.ubuntu:"),
        # multipath-tools as Ubuntu Server installs it: running, no multipath.conf
        "host.multipathd": ("WARN", "no multipath.conf"),
        "host.longhorn.path": ("PASS", "its own mount point"),
    },
    "b-rocky9": {
        "os": "Rocky Linux 9.5 (Blue Onyx)", "kernel": "5.14.0-503.14.1.el9_5.x86_64",
        "host.nfs.client": ("PASS", "/sbin/mount.nfs"),
        "host.nfs.kernel": ("PASS", "not loaded yet (kernel/fs/nfs/nfsv4.ko.xz in modules.dep)"),
        "host.iscsi": ("PASS", "initiator iqn.1994-05.com.redhat:"),
        # device-mapper-multipath not installed (a minimal install)
        "host.multipathd": ("PASS", "not running and not enabled"),
        "host.longhorn.path": ("PASS", "xfs /dev/sdb1 on /var/lib/longhorn"),
    },
}[name]
facts = v.get("facts", {})
assert want["os"] in json.dumps(facts), f"{name}: facts {facts.get('os_release')}"
assert facts.get("kernel_release") == want["kernel"], f"{name}: {facts.get('kernel_release')}"
for cid in [k for k in want if k.startswith("host.")]:
    st, frag = want[cid]
    c = by[cid]
    assert c["status"] == st and frag in c["message"], f"{name}: {cid} {c['status']} {c['message']}"
print(f"ok {name}: " + ", ".join(f"{k} {by[k]['status']}" for k in want if k.startswith("host.")))
PY
done
echo "PASS: the Ubuntu 24.04 and Rocky 9 node roots"
