#!/usr/bin/env bash
# ctest: serial
# collect, then report anywhere: `collect` through the fake kube-apiserver
# writes what `report --cluster-state` reads back into the same state (the same
# findings as the live report), including how the API answered (not installed,
# forbidden, failed); so does the kubectl script in docs/collect.md. A resource file removed from the dump makes the checks
# that need it UNKNOWN "not collected", never FAIL.
set -euo pipefail
source "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
test_init

TOKEN=collect-test-token
kt_pki "$TMP/pki"

report() { # report NAME ARGS...: NAME.json, exit status in NAME.rc; 2 fails the test
	local name=$1 r=0
	shift
	kt_run_timeout 120 "$AGG" report "$@" --format json >"$TMP/$name.json" 2>"$TMP/$name.err" || r=$?
	echo "$r" >"$TMP/$name.rc"
	[ "$r" != 2 ] || kt_fail "$name: $(cat "$TMP/$name.err")"
}
collect() { # collect KUBECONFIG DIR
	kt_run_timeout 120 "$AGG" collect --kubeconfig "$1" --output "$2" 2>"$TMP/collect.err" ||
		kt_fail "collect into $2: $(cat "$TMP/collect.err")"
}

# 1. A Harvester cluster: collect, compare objects and findings.
kt_fake harvester --fixtures "$FIXTURES/harvester" --token "$TOKEN" --require-auth
mkdir -p "$TMP/kc"
kt_kubeconfig "$TMP/kc/config" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"
HVREADY_LIST_LIMIT=3 collect "$TMP/kc/config" "$TMP/dump"
[ "$(stat -c %a "$TMP/dump")" = 700 ] || kt_fail "the dump directory is not 0700"
kt_same_state "$FIXTURES/harvester" "$TMP/dump" "collect"
n=$(ls "$TMP/dump"/*.json | wc -l)
[ "$n" = 37 ] || kt_fail "expected 36 resource files and collect.json, found $n files"
ls -a "$TMP/dump" | grep -q '\.tmp$' && kt_fail "temporary files left in the dump"
"$PY" - "$TMP/dump/collect.json" <<'EOF' || kt_fail "collect.json"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["schema"] == "hvready.collect/v1", c["schema"]
assert c["source"].startswith("https://127.0.0.1:"), c["source"]
assert len(c["resources"]) == 36, len(c["resources"])
for e in c["resources"]:
    assert e["status"] == "served" and e["file"] and e["items"] >= 0, e
    assert set(e) >= {"resource", "group", "version", "plural", "kind", "duration_ms"}, e
EOF
report live --kubeconfig "$TMP/kc/config"
report dump --cluster-state "$TMP/dump"
kt_same "$TMP/live.json" "$TMP/dump.json" "report on the dump vs live"
grep -q '"mode": "offline"' "$TMP/dump.json" || kt_fail "the dump's report is not offline"

# 2. Faults recorded in collect.json come back as the same state: 403,
# 404 (CRD absent), and a resource that keeps failing.
kt_fake faults --fixtures "$FIXTURES/harvester" --token "$TOKEN" --require-auth \
	--forbid volumes.longhorn.io --not-installed '*.snapshot.kubevirt.io' --fail 'engines.longhorn.io:99'
mkdir -p "$TMP/kc-faults"
kt_kubeconfig "$TMP/kc-faults/config" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"
cp -a "$TMP/dump" "$TMP/faults-dump" # collect over an earlier dump: stale files must go
collect "$TMP/kc-faults/config" "$TMP/faults-dump"
for f in volumes.longhorn.io engines.longhorn.io virtualmachinesnapshots.snapshot.kubevirt.io; do
	[ ! -e "$TMP/faults-dump/$f.json" ] || kt_fail "stale $f.json left from the earlier collect"
done
[ "$(kt_collect_status "$TMP/faults-dump" volumes.longhorn.io)" = forbidden ] || kt_fail "403 status"
[ "$(kt_collect_status "$TMP/faults-dump" engines.longhorn.io)" = failed ] || kt_fail "500 status"
[ "$(kt_collect_status "$TMP/faults-dump" virtualmachinerestores.snapshot.kubevirt.io)" = not-served ] ||
	kt_fail "404 status"
report faults-live --kubeconfig "$TMP/kc-faults/config"
report faults-dump --cluster-state "$TMP/faults-dump"
kt_same "$TMP/faults-live.json" "$TMP/faults-dump.json" "faults: report on the dump vs live"
line=$(kt_finding "$TMP/faults-dump.json" api.longhorn.volume-health)
case $line in
"UNKNOWN	volumes.longhorn.io forbidden: forbidden: list longhorn.io/volumes (grant get,list,watch)"*) ;;
*) kt_fail "faults: api.longhorn.volume-health is \"$line\"" ;;
esac

# 3. A resource file removed from the dump: UNKNOWN "not collected", no FAIL.
rm "$TMP/dump/storageclasses.storage.k8s.io.json"
report removed --cluster-state "$TMP/dump"
[ "$(cat "$TMP/removed.rc")" = 3 ] || kt_fail "removed file: exit $(cat "$TMP/removed.rc"), expected 3"
line=$(kt_finding "$TMP/removed.json" api.storageclass.default)
case $line in
"UNKNOWN	storageclasses.storage.k8s.io not collected: $TMP/dump/collect.json says it was collected, but storageclasses.storage.k8s.io.json is missing") ;;
*) kt_fail "removed file: api.storageclass.default is \"$line\"" ;;
esac
"$PY" - "$TMP/removed.json" "$TMP/dump.json" <<'EOF' || kt_fail "removed file: findings"
import json, sys
now = json.load(open(sys.argv[1]))["findings"]
assert not [f for f in now if f["status"] == "FAIL"], "a FAIL on missing data"
ident = lambda f: (f["check"], f.get("node") or "", f.get("object") or "")
before = {ident(f): f for f in json.load(open(sys.argv[2]))["findings"]}
for f in now:
    if "storageclasses.storage.k8s.io not collected" in f["message"]:
        assert f["status"] == "UNKNOWN" and f["evidence"]["status"] == "not collected", f
        assert "collect storageclasses.storage.k8s.io too" in f["remediation"], f
    elif ident(f) in before:
        b = before[ident(f)]
        assert (f["status"], f["message"]) == (b["status"], b["message"]), (f, b)
EOF

# 4. Before Harvester: its CRDs are not served. The fake answers 404 for what
# the fixture's collect.json calls not-served; live and files agree.
kt_fake preinstall --fixtures "$FIXTURES/preinstall" --token "$TOKEN" --require-auth
mkdir -p "$TMP/kc-pre"
kt_kubeconfig "$TMP/kc-pre/config" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"
report pre-live --kubeconfig "$TMP/kc-pre/config"
report pre-files --cluster-state "$FIXTURES/preinstall"
kt_same "$TMP/pre-files.json" "$TMP/pre-live.json" "pre-install: live vs files"
collect "$TMP/kc-pre/config" "$TMP/pre-dump"
kt_same_state "$FIXTURES/preinstall" "$TMP/pre-dump" "pre-install collect"
for r in kubevirts.kubevirt.io volumes.longhorn.io settings.harvesterhci.io; do
	[ "$(kt_collect_status "$TMP/pre-dump" $r)" = not-served ] || kt_fail "pre-install: $r served?"
done
grep -q '"harvester_installed": false' "$TMP/pre-live.json" || kt_fail "pre-install: Harvester installed?"

# 5. The kubectl-only way documented in docs/collect.md gives the same state.
command -v kubectl >/dev/null || kt_fail "kubectl is missing (scripts/install-deps.sh installs it)"
sed -n '/^<!-- kubectl-collect/,/^```$/p' "$HVREADY_SRC/docs/collect.md" | sed '1,2d;$d' >"$TMP/kubectl-collect.sh"
grep -q 'kubectl "\$@" get' "$TMP/kubectl-collect.sh" || kt_fail "no kubectl script found in docs/collect.md"
bash "$TMP/kubectl-collect.sh" "$TMP/kubectl-dump" --kubeconfig "$TMP/kc/config" --cache-dir "$TMP/kcache" ||
	kt_fail "the documented kubectl script failed"
kt_same_state "$FIXTURES/harvester" "$TMP/kubectl-dump" "kubectl collect" any-order
report kubectl --cluster-state "$TMP/kubectl-dump"
kt_same "$TMP/live.json" "$TMP/kubectl.json" "report on the kubectl dump vs live"
bash "$TMP/kubectl-collect.sh" "$TMP/kubectl-faults" --kubeconfig "$TMP/kc-faults/config" \
	--cache-dir "$TMP/kcache2" || kt_fail "the documented kubectl script failed (faults)"
[ "$(kt_collect_status "$TMP/kubectl-faults" volumes.longhorn.io)" = forbidden ] || kt_fail "kubectl: 403"
[ "$(kt_collect_status "$TMP/kubectl-faults" engines.longhorn.io)" = failed ] || kt_fail "kubectl: 500"
[ "$(kt_collect_status "$TMP/kubectl-faults" virtualmachinesnapshots.snapshot.kubevirt.io)" = not-served ] ||
	kt_fail "kubectl: 404"
report kubectl-faults --cluster-state "$TMP/kubectl-faults"
line=$(kt_finding "$TMP/kubectl-faults.json" api.longhorn.volume-health)
[ "$line" = "UNKNOWN	volumes.longhorn.io forbidden" ] || kt_fail "kubectl faults: \"$line\""

# 6. Bad output paths are clear errors.
rc=0
"$AGG" collect --kubeconfig "$TMP/kc/config" --output "$TMP/kc/config" 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] && grep -q "exists and is not a directory" "$TMP/err" ||
	kt_fail "collect into a file: exit $rc: $(cat "$TMP/err")"
rc=0
"$AGG" collect --kubeconfig "$TMP/kc/config" --output "$TMP/no/such/dir" 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] && grep -q "cannot create the directory" "$TMP/err" ||
	kt_fail "collect into a missing parent: exit $rc: $(cat "$TMP/err")"
echo "collect_report: all passed"
