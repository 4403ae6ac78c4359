#!/usr/bin/env bash
# The change-board header and waivers through the fake kube-apiserver
# (docs/change-board.md): the header names the API server (redacted), the
# cluster by Namespace kube-system's UID (one GET; 403 gives "unknown" with
# the reason, never a made-up UID), hvready's version, the time, --operator
# and --target-version, in every format; --waivers takes a FAIL off its gate
# (NO-GO becomes GO), never an UNKNOWN, and lists used, unused and expired
# waivers; collect keeps the identity for the offline report; a bad waivers
# file is one line on stderr and exit 2.
set -euo pipefail
source "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
test_init

TOKEN=change-board-token-5d1e
UID_KS=4f6c2d0e-9a51-4c3b-8f21-0d5e3b7a9c10
kt_pki "$TMP/pki"

# The pre-install cluster with CoreDNS down (api.dns.replicas FAILs the rwx
# gate) and its kube-system Namespace.
cp -r "$FIXTURES/preinstall" "$TMP/state"
"$PY" - "$TMP/state" "$UID_KS" <<'EOF'
import json, os, sys
d, uid = sys.argv[1], sys.argv[2]
p = os.path.join(d, "deployments.apps.json")
l = json.load(open(p))
n = 0
for it in l["items"]:
    if it["metadata"]["name"] == "rke2-coredns-rke2-coredns":
        it["status"]["readyReplicas"] = it["status"]["availableReplicas"] = 0
        n += 1
assert n == 1, "no CoreDNS Deployment in the fixture"
json.dump(l, open(p, "w"))
ns = {"apiVersion": "v1", "kind": "Namespace",
      "metadata": {"name": "kube-system", "uid": uid}, "status": {"phase": "Active"}}
other = {"apiVersion": "v1", "kind": "Namespace",
         "metadata": {"name": "default", "uid": "00000000-0000-0000-0000-000000000000"}}
json.dump({"apiVersion": "v1", "kind": "List", "items": [other, ns]},
          open(os.path.join(d, "namespaces.json"), "w"))
EOF

cat >"$TMP/waivers.yaml" <<'EOF'
# CHG-2041: CoreDNS comes back with the RKE2 upgrade in the same window.
- check: api.dns.replicas
  object: Deployment/kube-system/rke2-coredns-rke2-coredns
  reason: CoreDNS is restored by the RKE2 upgrade of this change
  approvedBy: CAB CHG-2041
  expires: 2099-12-31
- check: api.dns.replicas
  reason: an old waiver
  approvedBy: CAB CHG-1000
  expires: 2020-01-31
- check: cluster.nodes.reporting
  reason: the agents are installed after Harvester
  approvedBy: CAB CHG-2041
EOF

kt_fake board --fixtures "$TMP/state" --token "$TOKEN" --require-auth
mkdir -p "$TMP/kc"
kt_kubeconfig "$TMP/kc/config" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"
URL="https://127.0.0.1:$FAKE_PORT"

run() { # run NAME EXPECTED_RC ARGS...: NAME.out, NAME.err
	local name=$1 want=$2 r=0
	shift 2
	kt_run_timeout 120 "$AGG" report "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || r=$?
	[ "$r" = "$want" ] || { cat "$TMP/$name.err" >&2; kt_fail "$name: exit $r, expected $want"; }
}
BOARD=(--operator $'Jane  Doe\n(ops)\t' --target-version v1.5.0)

# 1. Without waivers: the rwx gate is NO-GO (exit 1); the header is complete.
run nogo 1 --kubeconfig "$TMP/kc/config" --only api.dns.replicas --gate rwx "${BOARD[@]}" --format json
"$PY" - "$TMP/nogo.out" "$URL" "$UID_KS" <<'EOF' || kt_fail "header (json)"
import json, sys
d = json.load(open(sys.argv[1]))
h = d["header"]
assert h["api_server"] == sys.argv[2], h
assert h["cluster"] == {"kube_system_uid": sys.argv[3]}, h
assert h["operator"] == "Jane Doe (ops)", h
assert h["target_version"] == "v1.5.0", h
assert h["hvready_version"] and h["report_time"] == d["generated_at"], h
assert d["gates"]["rwx"]["status"] == "FAIL", d["gates"]["rwx"]
assert "waivers" not in d
EOF
[ "$(kt_requests board namespaces 200)" = 1 ] || kt_fail "Namespace kube-system not read with one GET"

# 2. With waivers: the FAIL is waived and keeps its status; the UNKNOWNs are
# not (the gate stays undecided, exit 3); the expired waiver waives nothing.
run waived 3 --kubeconfig "$TMP/kc/config" --only api.dns.replicas,cluster.nodes.reporting \
	--gate rwx "${BOARD[@]}" --waivers "$TMP/waivers.yaml" --format json
"$PY" - "$TMP/waived.out" <<'EOF' || kt_fail "waivers (json)"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["waivers"]
assert [x["check"] for x in w["used"]] == ["api.dns.replicas"], w
assert w["used"][0]["findings_waived"] == 1, w
assert [x["approved_by"] for x in w["expired"]] == ["CAB CHG-1000"], w
assert [x["check"] for x in w["unused"]] == ["cluster.nodes.reporting"], w
assert w["unused"][0]["unknown_not_waived"] >= 1, w
dns = [f for f in d["findings"] if f["check"] == "api.dns.replicas"]
assert len(dns) == 1 and dns[0]["status"] == "FAIL", dns
assert dns[0]["waiver"] == {"reason": "CoreDNS is restored by the RKE2 upgrade of this change",
                            "approved_by": "CAB CHG-2041", "expires": "2099-12-31"}, dns
unk = [f for f in d["findings"] if f["check"] == "cluster.nodes.reporting"]
assert unk and all(f["status"] == "UNKNOWN" and "waiver" not in f for f in unk), unk
EOF
# ...with its only FAIL waived the gate is GO (exit 0), in every format.
run go 0 --kubeconfig "$TMP/kc/config" --only api.dns.replicas --gate rwx "${BOARD[@]}" \
	--waivers "$TMP/waivers.yaml"
grep -q '^rwx: GO$' "$TMP/go.out" || kt_fail "text: no 'rwx: GO' line"
tr -s ' \n' ' ' <"$TMP/go.out" >"$TMP/go.flat" # the text is wrapped to 80 columns
grep -qF 'waived (CoreDNS is restored by the RKE2 upgrade of this change, by CAB CHG-2041, until 2099-12-31)' \
	"$TMP/go.flat" || kt_fail "text: the waived finding does not say so"
grep -q '^  Operator        Jane Doe (ops)$' "$TMP/go.out" || kt_fail "text: no operator line"
grep -q "^  Cluster         kube-system UID $UID_KS\$" "$TMP/go.out" || kt_fail "text: no cluster line"
grep -q "^  API server      $URL\$" "$TMP/go.out" || kt_fail "text: no API server line"
grep -qF 'expired: api.dns.replicas: an old waiver; approved by CAB CHG-1000; expires 2020-01-31' \
	"$TMP/go.flat" || kt_fail "text: expired waiver"
for fmt in markdown html; do
	run "go-$fmt" 0 --kubeconfig "$TMP/kc/config" --only api.dns.replicas --gate rwx \
		"${BOARD[@]}" --waivers "$TMP/waivers.yaml" --format "$fmt"
	for s in "$UID_KS" "Jane Doe (ops)" v1.5.0 "CAB CHG-2041" "CAB CHG-1000"; do
		grep -qF "$s" "$TMP/go-$fmt.out" || kt_fail "$fmt: \"$s\" missing"
	done
done
grep -qF '| FAIL (waived) |' "$TMP/go-markdown.out" || kt_fail "markdown: the finding is not marked waived"
grep -qF 'data-waived="true"' "$TMP/go-html.out" || kt_fail "html: the finding is not marked waived"

# 3. Forbidden: the UID is unknown, with the reason; nothing is made up.
kt_fake forbidden --fixtures "$TMP/state" --token "$TOKEN" --require-auth --forbid namespaces
mkdir -p "$TMP/kc-forbidden"
kt_kubeconfig "$TMP/kc-forbidden/config" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"
run forbidden 1 --kubeconfig "$TMP/kc-forbidden/config" --only api.dns.replicas --gate rwx --format json
"$PY" - "$TMP/forbidden.out" <<'EOF' || kt_fail "forbidden: header"
import json, sys
c = json.load(open(sys.argv[1]))["header"]["cluster"]
assert c["kube_system_uid"] is None, c
assert c["unknown_reason"].startswith("forbidden: get namespaces/kube-system answered 403"), c
assert c["unknown_reason"].count("\n") == 0, c
EOF

# 4. collect keeps the identity; the offline header names the dump.
kt_run_timeout 120 "$AGG" collect --kubeconfig "$TMP/kc/config" --output "$TMP/dump" 2>"$TMP/collect.err" ||
	kt_fail "collect: $(cat "$TMP/collect.err")"
run offline 1 --cluster-state "$TMP/dump" --only api.dns.replicas --gate rwx --format json
"$PY" - "$TMP/offline.out" "$TMP/dump" "$UID_KS" <<'EOF' || kt_fail "offline header"
import json, sys
h = json.load(open(sys.argv[1]))["header"]
assert h["api_server"] == sys.argv[2], h
assert h["cluster"] == {"kube_system_uid": sys.argv[3]}, h
assert h["operator"] is None and h["target_version"] is None, h
EOF

# 5. Bad input: one line on stderr, exit 2, before the API is read.
bad() { # bad NAME EXPECTED-SUBSTRING ARGS...
	local name=$1 want=$2 r=0
	shift 2
	"$AGG" report --kubeconfig "$TMP/kc/config" "$@" >/dev/null 2>"$TMP/$name.err" || r=$?
	[ "$r" = 2 ] || kt_fail "$name: exit $r, expected 2"
	[ "$(wc -l <"$TMP/$name.err")" = 1 ] || kt_fail "$name: not one line: $(cat "$TMP/$name.err")"
	grep -qF -- "$want" "$TMP/$name.err" || kt_fail "$name: \"$(cat "$TMP/$name.err")\" lacks \"$want\""
}
printf -- '- check: api.dns.replica\n  reason: r\n  approvedBy: a\n' >"$TMP/typo.yaml"
bad typo 'did you mean "api.dns.replicas"?' --waivers "$TMP/typo.yaml"
printf -- '- check: api.dns.replicas\n  reason: r\n' >"$TMP/noby.yaml"
bad noby 'approvedBy is required' --waivers "$TMP/noby.yaml"
printf -- '- check: api.dns.replicas\n  reason: r\n  approvedBy: a\n  expires: 2026-02-30\n' >"$TMP/date.yaml"
bad date 'is not an RFC 3339 date' --waivers "$TMP/date.yaml"
printf -- '- check: [unclosed\n' >"$TMP/yaml.yaml"
bad yaml 'yaml.yaml' --waivers "$TMP/yaml.yaml"
bad missing 'No such file' --waivers "$TMP/none.yaml"
bad version 'is not a version' --target-version 'latest'
bad operator '--operator' --operator $' \n\t'
echo PASS
