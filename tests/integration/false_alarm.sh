#!/usr/bin/env bash
# No false alarm: a checker that cries wolf is worse than none. A healthy
# Harvester v1.8.2 cluster — pretty-printed as kubectl prints it (sorted keys,
# spaces after colons), webhook configurations named harvester-validator /
# harvester-mutator whose entries are validator/mutator.harvesterhci.io, pods
# Running 1/1, Helm-style dates with spaces — must produce no FAIL at all from
# the API and cross-node checks, in every output format, offline and served.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
state="$HVREADY_SRC/examples/cluster"
# The dump as it is in git is kubectl-formatted; the check below proves it.
python3 - "$state" <<'PY'
import json, os, sys
d = sys.argv[1]
for f in os.listdir(d):
    text = open(os.path.join(d, f)).read()
    assert json.dumps(json.loads(text), indent=4, sort_keys=True) + "\n" == text, f + " is not kubectl-formatted"
web = json.load(open(os.path.join(d, "validatingwebhookconfigurations.admissionregistration.k8s.io.json")))
names = {w["metadata"]["name"]: [x["name"] for x in w["webhooks"]] for w in web["items"]}
assert names["harvester-validator"] == ["validator.harvesterhci.io"], names
PY
rc=0
"$HVREADY_BIN/hvready-aggregator" report --cluster-state "$state" --format json >"$tmp/v.json" || rc=$?
[ "$rc" = 3 ] || { echo "FAIL: exit $rc, expected 3 (no node reports: UNKNOWN, not FAIL)"; exit 1; }
python3 - "$tmp/v.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
fails = [f for f in v["findings"] if f["status"] == "FAIL"]
assert not fails, "false alarms on a healthy cluster:\n" + "\n".join("%s %s %s" % (f["check"], f.get("object", ""), f["message"]) for f in fails)
assert all(g["status"] != "FAIL" for g in v["gates"].values()), v["gates"]
checks = {f["check"] for f in v["findings"]}
assert "api.webhooks.harvester" in checks and "api.pods.restarts" in checks
print("no FAIL among %d findings" % len(v["findings"]))
PY
# Each format renders the whole report (exit 3: UNKNOWN without node reports,
# never a crash or an empty page) and shows no FAIL status. The patterns that
# look for a FAIL are proven on a copy of the cluster that has one (a second
# default StorageClass), so an empty or changed rendering cannot pass.
fail_state="$tmp/fail-state"
cp -r "$state" "$fail_state"
python3 - "$fail_state/storageclasses.storage.k8s.io.json" <<'PY'
import copy, json, sys
p = sys.argv[1]
lst = json.load(open(p))
sc = copy.deepcopy(next(i for i in lst["items"] if i["metadata"]["name"] == "harvester-longhorn"))
sc["metadata"]["name"] = "second-default"
sc["metadata"]["uid"] = "00000000-0000-4000-8000-00000000feed"
sc["metadata"].setdefault("annotations", {})["storageclass.kubernetes.io/is-default-class"] = "true"
lst["items"].append(sc)
json.dump(lst, open(p, "w"), indent=4, sort_keys=True)
PY
declare -A fail_pat=([text]=': FAIL ' [markdown]='^\| FAIL \|' [html]='data-status="FAIL"')
declare -A seen_pat=([text]='UNKNOWN' [markdown]='^## Gates' [html]='data-status="UNKNOWN"')
for fmt in text markdown html; do
	rc=0
	"$HVREADY_BIN/hvready-aggregator" report --cluster-state "$state" --format "$fmt" >"$tmp/v.$fmt" || rc=$?
	[ "$rc" = 3 ] || { echo "FAIL: $fmt report exit $rc, expected 3"; exit 1; }
	grep -qE "${seen_pat[$fmt]}" "$tmp/v.$fmt" || { echo "FAIL: the $fmt report lacks ${seen_pat[$fmt]}"; exit 1; }
	grep -q 'api.webhooks.harvester' "$tmp/v.$fmt" || { echo "FAIL: the $fmt report lacks the findings"; exit 1; }
	! grep -E "${fail_pat[$fmt]}" "$tmp/v.$fmt" || { echo "FAIL: the $fmt report shows a FAIL"; exit 1; }
	rc=0
	"$HVREADY_BIN/hvready-aggregator" report --cluster-state "$fail_state" --format "$fmt" >"$tmp/f.$fmt" || rc=$?
	[ "$rc" = 1 ] || { echo "FAIL: $fmt report of the failing copy: exit $rc, expected 1"; exit 1; }
	grep -qE "${fail_pat[$fmt]}" "$tmp/f.$fmt" || { echo "FAIL: the pattern ${fail_pat[$fmt]} does not find the $fmt FAIL"; exit 1; }
done
echo PASS
