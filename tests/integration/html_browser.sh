#!/usr/bin/env bash
# ctest: serial
# The HTML verdict in a real browser (Debian's chromium, headless), three ways:
#  1. `report --format html` for a fixture cluster with FAILs, WARNs, UNKNOWNs,
#     node reports from the agent and a VM table, loaded from a file;
#  2. the unit tests' page full of hostile strings (<script>, quotes, |,
#     newlines, ANSI escapes, bidi overrides, CJK), loaded from a file;
#  3. the dashboard of a running `serve` on loopback (GET /), after the agents'
#     reports were POSTed.
# Each time the browser's DOM (--dump-dom) must say what the JSON verdict says:
# the gates and their statuses, the blockers, every finding with its evidence
# and remediation, a matrix cell per node and host check, the VM rows
# (tests/tools/check_html.py --dom). Screenshots and the printed PDF are left
# in the test's output directory for people to look at; the PDF must carry the
# evidence and remediation of every problem (print expands what is collapsed).
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"

serve_test_init
FAIL_TAIL=200 # the aggregator's whole log
out="${HVREADY_BUILD:-$tmp}/test-output/html_browser"
mkdir -p "$out"
CHECK_HTML="python3 $HVREADY_SRC/tests/tools/check_html.py"

command -v chromium >/dev/null || fail "chromium is not installed (scripts/install-deps.sh)"
command -v pdftotext >/dev/null || fail "pdftotext is not installed (scripts/install-deps.sh)"

# chromium with the flags every run uses, and a profile of its own each time.
browser() {
	local profile
	profile=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" "$@" 2>>"$tmp/chromium.log" ||
		fail "chromium $* (exit $?): $(tail -n 5 "$tmp/chromium.log")"
}

# A screenshot and a PDF of URL, named NAME in the output directory.
pictures() {
	local url=$1 name=$2
	browser --window-size=1280,2400 --hide-scrollbars --screenshot="$out/$name.png" "$url" >/dev/null
	[ "$(head -c 8 "$out/$name.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "$out/$name.png is not a PNG"
	echo "screenshot: $out/$name.png"
	browser --no-pdf-header-footer --print-to-pdf="$out/$name.pdf" "$url" >/dev/null
	pdftotext -layout "$out/$name.pdf" "$out/$name.pdf.txt"
	echo "printed:    $out/$name.pdf"
}

# The printed page carries, for every FAIL, UNKNOWN and WARN, its message, its
# evidence and its remediation (whitespace ignored: the PDF wraps lines).
check_print() {
	python3 - "$1" "$2" <<'PY' || fail "the printed page misses problems' details"
import json, re, sys
text = re.sub(r"\s+", "", open(sys.argv[1], encoding="utf-8").read())
v = json.load(open(sys.argv[2], encoding="utf-8"))
missing = []
def gone(s):
    s = re.sub(r"\s+", "", s.replace("`", ""))
    return s and s not in text
for f in v["findings"]:
    if f["status"] not in ("FAIL", "UNKNOWN", "WARN"):
        continue
    if gone(f["message"]):
        missing.append("message of %s: %s" % (f["check"], f["message"]))
    for k, val in f["evidence"].items():
        if isinstance(val, (str, int)) and not isinstance(val, bool) and gone(str(val)):
            missing.append("evidence %s of %s" % (k, f["check"]))
    # every step of the remediation, in order (several are a numbered list)
    at = 0
    for step in f.get("remedy_steps", []):
        s = re.sub(r"\s+", "", step.replace("`", ""))
        i = text.find(s, at)
        if i < 0:
            missing.append("remediation of %s: %s" % (f["check"], step))
            break
        at = i + len(s)
for m in missing:
    print("not printed:", m)
sys.exit(1 if missing else 0)
PY
}

echo "== the fixture cluster"
state=$tmp/state
cp -r "$HVREADY_SRC/examples/cluster" "$state"
rm "$state/backuptargets.longhorn.io.json"
cp "$HVREADY_SRC/tests/fixtures/cluster/operator-views/"*.json "$state/"
python3 - "$state" <<'PY' || fail "cannot build the fixture cluster state"
# The Longhorn volume of default/vm-002 loses a replica and rebuilds it:
# robustness degraded, one replica WO in its engine's replicaModeMap (Longhorn
# reverts a live migration while a replica rebuilds, so vm-002 cannot migrate).
import json, os, sys
d = sys.argv[1]
def load(n):
    return json.load(open(os.path.join(d, n)))
def save(n, o):
    json.dump(o, open(os.path.join(d, n), "w"), indent=1)
pvc = [p for p in load("persistentvolumeclaims.json")["items"]
       if p["metadata"]["namespace"] == "default" and p["metadata"]["name"].startswith("vm-002-")]
vol = pvc[0]["spec"]["volumeName"]
vols = load("volumes.longhorn.io.json")
for v in vols["items"]:
    if v["metadata"]["name"] == vol:
        v["status"]["robustness"] = "degraded"
save("volumes.longhorn.io.json", vols)
engines = load("engines.longhorn.io.json")
for e in engines["items"]:
    if e["spec"].get("volumeName") == vol and e["status"].get("replicaModeMap"):
        first = sorted(e["status"]["replicaModeMap"])[0]
        e["status"]["replicaModeMap"][first] = "WO"
save("engines.longhorn.io.json", engines)
PY

node_reports "$tmp/reports"

report() {
	local rc=0
	"$HVREADY_BIN/hvready-aggregator" report --cluster-state "$state" \
		--node-reports "$tmp/reports" "$@" 2>"$tmp/report.log" || rc=$?
	[ "$rc" -eq 1 ] || fail "report $* exited $rc, not 1 (FAIL): $(cat "$tmp/report.log")"
}
report --format json >"$tmp/verdict.json"
report --format html >"$tmp/report.html"

python3 - "$tmp/verdict.json" <<'PY' || fail "the fixture verdict is not what this test needs"
import json, sys
v = json.load(open(sys.argv[1]))
st = {f["status"] for f in v["findings"]}
for want in ("FAIL", "WARN", "UNKNOWN", "PASS"):
    assert want in st, "no %s finding" % want
assert any(f["check"] == "api.storageclass.default" and f["status"] == "FAIL"
           for f in v["findings"]), "no FAIL for the two default StorageClasses"
assert any(f["check"] == "api.vsc.backup-target" and f["status"] == "UNKNOWN"
           for f in v["findings"]), "backuptargets not collected is not UNKNOWN"
assert any(f["check"] == "api.longhorn.volume-health" and f["status"] == "WARN"
           for f in v["findings"]), "the degraded volume is no WARN"
assert v["vms"], "no VM rows"
assert any(not vm["can_live_migrate"] for vm in v["vms"]), "every VM can migrate"
rep = sorted(n["name"] for n in v["nodes"] if n["reporting"])
assert rep == ["harvester-node-1", "harvester-node-2"], rep
print("fixture verdict: %s; %d findings (%s); %d VMs" % (
    v["status"], len(v["findings"]), ", ".join(sorted(st)), len(v["vms"])))
PY

echo "== 1. report --format html, from a file"
browser --dump-dom "file://$tmp/report.html" >"$tmp/report.dom.html"
$CHECK_HTML --dom "$tmp/report.dom.html" "$tmp/verdict.json" || fail "the report page's DOM"
python3 - "$tmp/report.dom.html" <<'PY' || fail "the report page's DOM"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
# The gates come first, before the matrix and the findings.
order = [dom.find('id="gate-preinstall"'), dom.find('id="gate-live-migration"'),
         dom.find('id="blockers"'), dom.find('id="vms"'), dom.find('id="matrix"'),
         dom.find('id="findings"')]
assert -1 not in order and order == sorted(order), order
# The node without a report is UNKNOWN in every host check; the others have
# real statuses.
cells = re.findall(r'<td class="cell [a-z]+" data-node="([^"]+)" data-check="([^"]+)" '
                   r'data-status="([A-Z]+)"', dom)
n3 = {s for n, c, s in cells if n == "harvester-node-3" and c.startswith("host.")}
assert n3 == {"UNKNOWN"}, n3
n1 = {s for n, c, s in cells if n == "harvester-node-1"}
assert n1 - {"UNKNOWN"}, n1
assert 'http-equiv="refresh"' not in dom
print("report page: %d matrix cells, gates first" % len(cells))
PY
pictures "file://$tmp/report.html" report
check_print "$out/report.pdf.txt" "$tmp/verdict.json"

echo "== 2. hostile strings, from a file"
mkdir -p "$tmp/dump"
HVREADY_RENDER_DUMP="$tmp/dump" "$HVREADY_BIN/test_render" >"$tmp/test_render.log" 2>&1 ||
	fail "test_render: $(tail -n 20 "$tmp/test_render.log")"
browser --dump-dom "file://$tmp/dump/fixture.html" >"$tmp/fixture.dom.html"
$CHECK_HTML --dom "$tmp/fixture.dom.html" "$tmp/dump/fixture.json" || fail "the hostile page's DOM"
python3 - "$tmp/fixture.dom.html" "$HVREADY_SRC/tests/tools" <<'PY' || fail "the hostile page's DOM"
import sys
sys.path.insert(0, sys.argv[2])
from check_html import TreeBuilder
tb = TreeBuilder()
tb.feed(open(sys.argv[1], encoding="utf-8").read())
text = "".join(tb.root.itertext())
for s in ('Pod/harvester-system/<script>alert("x")</script>', "节点重启了 ünïcode ✓",
          "<b>bold</b>", "\\x1b[31mred\\x1b[0m", "abc\\u202edcba", "default/vm-<003>|\"q\""):
    assert s in text, "not shown as text: %r" % s
assert not [e for e in tb.root.iter() if e.tag in ("script", "img", "b") and e.text == "bold"]
print("hostile page: every string shown as text, no element injected")
PY
pictures "file://$tmp/dump/fixture.html" hostile

echo "== 3. the dashboard of serve"
start_aggregator "$tmp/agg.log" --insecure-no-auth --cluster-state "$state" --interval 5 ||
	fail "the aggregator did not start"
for r in "$tmp"/reports/*.msgpack; do
	code=$(curl -sS -o "$tmp/post.out" -w '%{http_code}' --max-time 10 \
		-H 'Content-Type: application/msgpack' --data-binary "@$r" "$AGG_URL/v1/reports")
	[ "$code" = 200 ] || fail "POST $r: $code $(cat "$tmp/post.out")"
done
# The verdict is recomputed within a second of a report.
for _ in $(seq 1 50); do
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$tmp/served.json"
	n=$(python3 -c 'import json,sys; print(sum(n["reporting"] for n in json.load(open(sys.argv[1]))["nodes"]))' "$tmp/served.json")
	[ "$n" = 2 ] && break
	sleep 0.2
done
[ "$n" = 2 ] || fail "the served verdict has $n reporting nodes, not 2"
# The page and the JSON are separate requests: a re-evaluation between them
# (every few seconds: ages move) can change a message, so compare the page
# with the JSON fetched just before it and just after it, a few times if need be.
ok=0
for _ in 1 2 3 4 5 6; do
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$tmp/served.before.json"
	browser --dump-dom "$AGG_URL/" >"$tmp/served.dom.html"
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$tmp/served.json"
	if $CHECK_HTML --dom "$tmp/served.dom.html" "$tmp/served.json" >"$tmp/check.out" ||
		$CHECK_HTML --dom "$tmp/served.dom.html" "$tmp/served.before.json" >"$tmp/check.out"; then
		ok=1
		break
	fi
done
cat "$tmp/check.out"
[ "$ok" = 1 ] || fail "the dashboard's DOM"
grep -q '<meta http-equiv="refresh" content="5">' "$tmp/served.dom.html" ||
	fail "the dashboard does not reload itself every interval"
browser --dump-dom "$AGG_URL/v1/verdict?format=html" >"$tmp/verdict.dom.html"
grep -q 'id="gate-live-migration"' "$tmp/verdict.dom.html" || fail "GET /v1/verdict?format=html"
if grep -q 'http-equiv="refresh"' "$tmp/verdict.dom.html"; then
	fail "GET /v1/verdict?format=html reloads itself"
fi
pictures "$AGG_URL/" dashboard
stop_aggregator || fail "the aggregator did not exit cleanly on SIGTERM (exit $?)"
echo "html_browser: OK"
