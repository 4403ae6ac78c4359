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
for fmt in text markdown html; do
	"$HVREADY_BIN/hvready-aggregator" report --cluster-state "$state" --format "$fmt" >"$tmp/v.$fmt" || true
done
# No format may show a FAIL status either.
! grep -E ': FAIL ' "$tmp/v.text" || { echo "FAIL: the text report shows a FAIL"; exit 1; }
! grep -E '^\| FAIL \|' "$tmp/v.markdown" || { echo "FAIL: the Markdown report shows a FAIL"; exit 1; }
! grep -E 'data-status="FAIL"' "$tmp/v.html" || { echo "FAIL: the HTML report shows a FAIL"; exit 1; }
echo PASS
