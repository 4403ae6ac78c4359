#!/usr/bin/env bash
# examples/reports/ (the README's "what a report looks like") and the node
# reports it is made of (examples/node-reports/) are exactly what
# scripts/gen_example_reports.sh makes the programs write today: a change of a
# renderer that does not regenerate them fails here. The files name no path
# of the machine they were made on, and the HTML passes the page checks.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex="$HVREADY_SRC/examples/reports"
fail() { echo "FAIL: $*"; exit 1; }
for f in report.txt report.json report.md report.html; do
	[ -s "$ex/$f" ] || fail "examples/reports/$f is missing"
done
bash "$HVREADY_SRC/scripts/gen_example_reports.sh" "$HVREADY_BIN" "$tmp/regen" "$tmp/nodes"
diff -r "$HVREADY_SRC/examples/node-reports" "$tmp/nodes" >"$tmp/diff" || {
	head -20 "$tmp/diff"
	fail "examples/node-reports differs from what scripts/gen_example_reports.sh writes (run scripts/gen_docs.sh)"
}
diff -r "$ex" "$tmp/regen" >"$tmp/diff" || {
	head -20 "$tmp/diff"
	fail "examples/reports differs from what scripts/gen_example_reports.sh writes (run scripts/gen_docs.sh)"
}
# the same bytes again: nothing of the clock or the machine in them
bash "$HVREADY_SRC/scripts/gen_example_reports.sh" "$HVREADY_BIN" "$tmp/again" "$tmp/nodes2"
diff -r "$tmp/regen" "$tmp/again" >/dev/null || fail "two runs of the generator differ"
leak=$(grep -l -e "$HVREADY_SRC" -e "$HVREADY_BIN" "$ex"/* || true)
[ -z "$leak" ] || fail "a build path in $leak"
grep -q '"generated_at": "2026-09-05T10:00:00Z"' "$ex/report.json" || fail "the clock is not fixed"
# a complete picture: every node of the example cluster reports, fresh at that time
python3 - "$ex/report.json" <<'PY' || fail "examples/reports: not every node reports"
import json, sys
v = json.load(open(sys.argv[1]))
nodes = v["nodes"]
assert len(nodes) == 3 and all(n["reporting"] for n in nodes), nodes
PY
python3 "$HVREADY_SRC/tests/tools/check_html.py" "$ex/report.html" "$ex/report.json" >/dev/null ||
	fail "examples/reports/report.html fails check_html.py"
grep -q 'examples/reports/' "$HVREADY_SRC/README.md" || fail "README.md does not link examples/reports/"
echo PASS
