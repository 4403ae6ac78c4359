#!/usr/bin/env bash
# ctest: serial
# The HTML verdict at the bench's scale: the 500-node, 5,000-VM cluster of
# `make bench` (examples/gen_cluster.py, bench/clone_reports --generate), five
# nodes of it without /dev/kvm (host.kvm FAIL). The page must stay usable:
#  - below HTML_MAX_BYTES, and every finding, gate, cell and VM as the JSON
#    says (tests/tools/check_html.py);
#  - the nodes × checks grid's PASS rows, and the VMs that can live-migrate,
#    inside a closed <details> (no JavaScript needed to read or unfold it);
#  - a summary line per gate above the grid;
#  - the status filter (report --status, serve's ?status=) narrows the grid and
#    the VM table too: in the browser's DOM (Debian's chromium, --dump-dom) the
#    filtered views show only the rows of those statuses, every one of them.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	[ -s "$tmp/chromium.log" ] && tail -n 5 "$tmp/chromium.log"
	exit 1
}
# 500 nodes and 5,000 VMs: 7.9 MB today, most of it the "All findings" record
# (every PASS too, with its evidence). A page over this is a regression.
HTML_MAX_BYTES=$((9 * 1024 * 1024))
command -v chromium >/dev/null || fail "chromium is not installed (scripts/install-deps.sh)"
agg="$HVREADY_BIN/hvready-aggregator"

bash "$HVREADY_SRC/bench/build_tools.sh" "$HVREADY_BIN/.." "$tmp/tools" >/dev/null
python3 "$HVREADY_SRC/examples/gen_cluster.py" --nodes 500 --vms 5000 --out "$tmp/cluster" >/dev/null
# seven VMs that cannot move (KubeVirt says LiveMigratable=False), so the VM
# table has rows of more than one status
python3 - "$tmp/cluster/virtualmachineinstances.kubevirt.io.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for vmi in d["items"][:7]:
    for c in vmi["status"]["conditions"]:
        if c["type"] == "LiveMigratable":
            c.update(status="False", reason="DisksNotLiveMigratable",
                     message="cannot migrate VMI: PVC rootdisk is not shared, live migration "
                             "requires that all PVCs must be shared (using ReadWriteMany access mode)")
json.dump(d, open(sys.argv[1], "w"))
PY
"$tmp/tools/clone_reports" --generate --cpus intel --seed 1 --count 500 --out-dir "$tmp/reports" >/dev/null
"$tmp/tools/clone_reports" --generate --cpus intel --seed 1 --count 5 --no-kvm --out-dir "$tmp/nokvm" >/dev/null
cp "$tmp/nokvm"/* "$tmp/reports/" # harvester-node-1..5: host.kvm FAIL

report() {
	local rc=0
	"$agg" report --cluster-state "$tmp/cluster" --node-reports "$tmp/reports" "$@" || rc=$?
	case $rc in 0 | 1 | 3) ;; *) fail "report $* exited $rc" ;; esac
}
report --format json >"$tmp/all.json"
report --format html >"$tmp/all.html"
size=$(stat -c %s "$tmp/all.html")
echo "HTML verdict, 500 nodes, 5,000 VMs: $size bytes (bound $HTML_MAX_BYTES)"
[ "$size" -le "$HTML_MAX_BYTES" ] || fail "the HTML verdict is $size bytes, over $HTML_MAX_BYTES"
python3 "$HVREADY_SRC/tests/tools/check_html.py" "$tmp/all.html" "$tmp/all.json" ||
	fail "the 500-node page fails check_html.py"

# The grid and the VM table: PASS rows folded in a closed <details>, a line per gate.
python3 - "$tmp/all.html" "$tmp/all.json" <<'PY' || fail "the 500-node grid or VM table"
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
v = json.load(open(sys.argv[2]))
by_id = {el.get("id"): el for el in root.iter() if el.get("id")}
bad = []
def rows(el, cls):
    return [tr for tr in el.iter("tr") if cls in (tr.get("class") or "").split()]
matrix, fold = by_id["matrix"], by_id.get("nodes-clean")
if fold is None or fold.tag != "details" or "open" in fold.attrib:
    bad.append("no closed <details id=nodes-clean> for the PASS rows")
folded = {tr.get("data-node") for tr in rows(fold, "node")} if fold is not None else set()
for tr in rows(matrix, "node"):
    inside = tr.get("data-node") in folded
    if tr.get("data-status") == "PASS" and not inside:
        bad.append("PASS row %s outside the fold" % tr.get("data-node"))
    if tr.get("data-status") != "PASS" and inside:
        bad.append("%s row %s folded" % (tr.get("data-status"), tr.get("data-node")))
fails = {f["node"] for f in v["findings"] if f.get("node") and f["status"] == "FAIL"}
shown = {tr.get("data-node") for tr in rows(matrix, "node")} - folded
if not fails <= shown or len(folded) < 400:
    bad.append("%d rows shown, %d folded; the FAIL nodes %s" % (len(shown), len(folded), sorted(fails)))
gates = [li.get("data-gate") for ul in matrix.iter("ul") if ul.get("class") == "gate-nodes"
         for li in ul.iter("li")]
if sorted(gates) != sorted(v["gates"]):
    bad.append("summary lines for the gates %r, want %r" % (gates, sorted(v["gates"])))
vms, vfold = by_id["vms"], by_id.get("vms-yes")
if vfold is None or vfold.tag != "details" or "open" in vfold.attrib:
    bad.append("no closed <details id=vms-yes> for the VMs that can move")
vfolded = {tr.get("data-vm") for tr in rows(vfold, "vm")} if vfold is not None else set()
for tr in rows(vms, "vm"):
    if tr.get("data-status") == "PASS" and tr.get("data-vm") not in vfolded:
        bad.append("VM %s can move but is not folded" % tr.get("data-vm"))
for b in bad[:20]:
    print(b)
print("grid: %d rows shown, %d folded; VMs: %d folded" % (len(shown), len(folded), len(vfolded)))
sys.exit(1 if bad else 0)
PY

browser() {
	local profile
	profile=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" "$@" 2>>"$tmp/chromium.log" ||
		fail "chromium $* (exit $?)"
}

# The filtered views, as the browser builds them.
for filt in fail fail,warn; do
	report --format html --status "$filt" >"$tmp/view.html"
	browser --dump-dom "file://$tmp/view.html" >"$tmp/view.dom.html"
	python3 - "$tmp/view.dom.html" "$tmp/all.json" "$filt" "$HVREADY_SRC/tests/tools" <<'PY' ||
import json, sys
sys.path.insert(0, sys.argv[4])
from check_html import TreeBuilder
b = TreeBuilder()
b.feed(open(sys.argv[1], encoding="utf-8").read())
root = b.root
v = json.load(open(sys.argv[2]))
want = set(sys.argv[3].upper().split(","))
by_id = {el.get("id"): el for el in root.iter() if el.get("id")}
bad = []
def rows(el, cls):
    return [tr for tr in el.iter("tr") if cls in (tr.get("class") or "").split()]
# The grid: exactly the nodes with a cell of those statuses, the whole row.
cells = {}
for f in v["findings"]:
    if f.get("node"):
        cells.setdefault(f["node"], set()).add(f["status"])
want_nodes = {n for n, sts in cells.items() if sts & want}
got = rows(by_id["matrix"], "node")
for tr in got:
    sts = {td.get("data-status") for td in tr.iter("td")}
    if not sts & want:
        bad.append("grid row %s has no %s cell: %s" % (tr.get("data-node"), want, sts))
if {tr.get("data-node") for tr in got} != want_nodes or len(got) != len(want_nodes):
    bad.append("grid rows %d, want %d (%s)" % (len(got), len(want_nodes), sorted(want_nodes)[:5]))
if by_id.get("nodes-clean") is not None:
    bad.append("the PASS fold is in a %s view" % want)
# The VM table: exactly the VMs of those statuses.
vm_want = {"%s/%s" % (x["namespace"], x["name"]) for x in v["vms"] if x["status"] in want}
vm_got = rows(by_id["vms"], "vm")
for tr in vm_got:
    if tr.get("data-status") not in want:
        bad.append("VM %s is %s" % (tr.get("data-vm"), tr.get("data-status")))
if {tr.get("data-vm") for tr in vm_got} != vm_want or len(vm_got) != len(vm_want) or \
        not vm_want:
    bad.append("VM rows %d, want %d" % (len(vm_got), len(vm_want)))
# The findings too (they were filtered before).
for d in root.iter("details"):
    if "finding" in (d.get("class") or "").split() and d.get("data-status") not in want:
        bad.append("finding %s %s in the view" % (d.get("data-check"), d.get("data-status")))
for line in ("matrix-filter", "vms-filter"):
    if line not in by_id:
        bad.append("no #%s line" % line)
for x in bad[:20]:
    print(x)
print("view %s: %d grid rows, %d VM rows" % (sys.argv[3], len(got), len(vm_got)))
sys.exit(1 if bad else 0)
PY
		fail "the --status $filt view"
done
echo "OK"
