#!/usr/bin/env bash
# The agent binary end to end on the storage host checks (host.nfs.client,
# host.nfs.kernel, host.iscsi, host.multipathd, host.longhorn.path): JSON
# output and exit codes on the fixture host roots of real distributions, and
# answers on this machine that must agree with what the machine itself shows.
set -euo pipefail
: "${HVREADY_SRC:?}" "${HVREADY_BIN:?}"
AGENT="$HVREADY_BIN/hvready-agent"
ROOTS="$HVREADY_SRC/tests/fixtures/hostroots"
ONLY=host.nfs.client,host.nfs.kernel,host.iscsi,host.multipathd
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
test_init


# statuses FILE → "check=STATUS ..." for the checks that ran, in table order
statuses() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "hvready.node/v1", d["schema"]
out = []
for r in d["results"]:
    if r["status"] == "SKIP":
        continue
    for k in ("check", "status", "message", "evidence", "remediation"):
        assert k in r, (k, r)
    if r["status"] != "PASS":
        assert r["evidence"], r
    out.append("%s=%s" % (r["check"], r["status"]) + (("@" + r["object"]) if r.get("object") else ""))
print(" ".join(out))
PY
}

# expect ROOT EXIT_CODE "check=STATUS ..."
expect() {
	local root=$1 code=$2 want=$3 rc=0
	"$AGENT" check --host-root "$ROOTS/$root" --only "$ONLY" --format json \
		--output "$TMP/$root.json" || rc=$?
	[ "$rc" -eq "$code" ] || fail "$root: exit code $rc, expected $code"
	local got
	got=$(statuses "$TMP/$root.json")
	[ "$got" = "$want" ] || fail "$root: got '$got', expected '$want'"
	echo "ok: $root: $got (exit $rc)"
}

expect b-debian12 0 "host.nfs.client=PASS host.nfs.kernel=PASS host.iscsi=PASS host.multipathd=PASS"
expect b-rhel9 0 "host.nfs.client=PASS host.nfs.kernel=PASS host.iscsi=PASS host.multipathd=WARN"
expect b-slemicro55-harvester 0 \
	"host.nfs.client=PASS host.nfs.kernel=PASS host.iscsi=PASS host.multipathd=PASS"
expect b-ubuntu2204-nonfs 1 \
	"host.nfs.client=FAIL host.nfs.kernel=PASS host.iscsi=PASS host.multipathd=WARN"
expect b-nomod-nfs 1 "host.nfs.client=FAIL host.nfs.kernel=PASS host.iscsi=FAIL host.multipathd=PASS"
expect b-nomod-nonfs 1 "host.nfs.client=FAIL host.nfs.kernel=FAIL host.iscsi=FAIL host.multipathd=PASS"

# host.longhorn.path with the threshold at 0 (free space here is this disk's, not the fixture's),
# and two paths from --probe-targets: one finding per path.
printf 'thresholds:\n  longhorn_min_available_percent: 0\n' >"$TMP/agent.yaml"
printf '{"longhorn_data_paths": ["/var/lib/harvester/defaultdisk", "/var/lib/longhorn"]}\n' \
	>"$TMP/targets.json"
"$AGENT" check --host-root "$ROOTS/b-slemicro55-harvester" --config "$TMP/agent.yaml" \
	--probe-targets "$TMP/targets.json" --only host.longhorn.path --format json \
	--output "$TMP/lh.json" || true
got=$(statuses "$TMP/lh.json")
[ "$got" = "host.longhorn.path=PASS@path:/var/lib/harvester/defaultdisk host.longhorn.path=WARN@path:/var/lib/longhorn" ] ||
	fail "longhorn paths: got '$got'"
echo "ok: probe-target paths: $got"
"$AGENT" check --host-root "$ROOTS/b-ubuntu2204-nonfs" --config "$TMP/agent.yaml" \
	--only host.longhorn.path --format json --output "$TMP/lh2.json" || true
got=$(statuses "$TMP/lh2.json")
[ "$got" = "host.longhorn.path=WARN@path:/var/lib/longhorn" ] || fail "ubuntu longhorn path: got '$got'"
echo "ok: longhorn path on /: $got"

# This machine: the answers must agree with what the machine shows directly.
"$AGENT" check --only "$ONLY,host.longhorn.path" --format json --output "$TMP/self.json" || true
self=$(statuses "$TMP/self.json")
echo "this machine: $self"
status_of() { tr ' ' '\n' <<<"$self" | sed -n "s/^$1=\([A-Z]*\).*/\1/p" | head -1; }
if [ -x /sbin/mount.nfs ]; then want=PASS; else want=FAIL; fi
[ "$(status_of host.nfs.client)" = "$want" ] || fail "host.nfs.client here: expected $want"
if grep -qw nfs4 /proc/filesystems; then
	[ "$(status_of host.nfs.kernel)" = PASS ] || fail "nfs4 is registered here, but not PASS"
elif [ ! -e /proc/modules ]; then
	[ "$(status_of host.nfs.kernel)" = FAIL ] || fail "no nfs4 and no module support here, but not FAIL"
fi
if ! command -v iscsiadm >/dev/null && [ ! -e /sbin/iscsiadm ] && [ ! -e /usr/sbin/iscsiadm ]; then
	[ "$(status_of host.iscsi)" = FAIL ] || fail "no iscsiadm here, but host.iscsi is not FAIL"
fi
if ! pgrep -x multipathd >/dev/null; then
	case "$(status_of host.multipathd)" in PASS | WARN) ;; *) fail "host.multipathd here" ;; esac
fi
[ -n "$(status_of host.longhorn.path)" ] || fail "no host.longhorn.path finding here"
echo "ok: this machine"
