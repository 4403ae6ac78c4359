#!/usr/bin/env bash
# The check registry (common/checks.def) against what is written elsewhere:
#  - docs/checks.md's tables are `hvready-aggregator list-checks --markdown`
#    exactly (headings, order, gates, summaries);
#  - every check has its page docs/checks/ID.md, and no page is left without a check;
#  - docs/node-conditions.md names each rwx/live-migration check with its STEM;
#  - docs/collect.md has a row for each resource, and its "checks that need it"
#    are the NEEDS of the registry;
#  - `hvready-agent list-checks` is the host rows of the aggregator's list;
#  - every runner function defined in agent/check_*.c and aggregator/check_*.c
#    is the RUNNER of a row, and every row's runner is defined there (the build
#    enforces both; this catches a prototype written by hand); CANARY rows'
#    runners are the canary's steps in aggregator/canary*.c (docs/canary.md),
#    and canary rows are no node conditions;
#  - each runner is in the file its ID names (host.nfs.client in
#    agent/check_nfs_client.c, api.vsc.* in aggregator/check_vsc.c).
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
AGG="$HVREADY_BIN/hvready-aggregator"

"$AGG" list-checks --markdown >"$tmp/generated.md"
# The part of docs/checks.md from the first table's heading to the next
# section, trailing blank lines dropped.
awk '/^## Host checks/{p=1} /^## How missing data/{p=0} p' "$HVREADY_SRC/docs/checks.md" |
	sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/documented.md"
[ -s "$tmp/documented.md" ] || { echo "FAIL: no check tables found in docs/checks.md"; exit 1; }
if ! diff -u "$tmp/documented.md" "$tmp/generated.md"; then
	echo "FAIL: docs/checks.md differs from 'hvready-aggregator list-checks --markdown'"
	echo "      (- docs, + registry): run scripts/gen_docs.sh"
	exit 1
fi

"$AGG" list-checks >"$tmp/all.tsv"
"$HVREADY_BIN/hvready-agent" list-checks >"$tmp/agent.tsv"
awk -F'\t' '$2 == "host"' "$tmp/all.tsv" >"$tmp/host.tsv"
if ! diff -u "$tmp/host.tsv" "$tmp/agent.tsv"; then
	echo "FAIL: hvready-agent list-checks is not the host rows of hvready-aggregator list-checks"
	exit 1
fi

# Bad usage is a usage error.
rc=0
"$AGG" list-checks --nope >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: list-checks --nope exited $rc, want 2"; exit 1; }

"$AGG" resources >"$tmp/resources.tsv"
/usr/bin/python3 - "$tmp/all.tsv" "$HVREADY_SRC" "$tmp/resources.tsv" <<'PY'
import glob, os, re, sys
tsv, src = sys.argv[1], sys.argv[2]
resources = set()
for line in open(sys.argv[3]):
    g, v, plural, scope = line.rstrip("\n").split("\t")
    resources.add(plural if g == "core" else plural + "." + g)
rows = [l.rstrip("\n").split("\t") for l in open(tsv)]
problems = []
for r in rows:
    if len(r) != 8:
        problems.append("row of %d columns: %r" % (len(r), r))
assert not problems, problems
ids = [r[0] for r in rows]
assert len(ids) == len(set(ids)), "duplicate IDs"

# One page per check, one check per page.
pages = {os.path.basename(p)[:-3] for p in glob.glob(os.path.join(src, "docs/checks/*.md"))}
for cid in ids:
    if cid not in pages:
        problems.append("%s: no docs/checks/%s.md" % (cid, cid))
for p in sorted(pages - set(ids)):
    problems.append("docs/checks/%s.md: no such check in common/checks.def" % p)

# Node-condition stems: the docs table pairs `check` | `Stem`.
nc = open(os.path.join(src, "docs/node-conditions.md")).read()
documented = dict(re.findall(r"\| `([a-z]+\.[a-z0-9.-]+)` \| `([A-Za-z]+)`", nc))
for r in rows:
    cid, gates, stem = r[0], r[2].split(","), r[4]
    feeds = ("rwx" in gates or "live-migration" in gates) and r[1] != "canary"
    if feeds and documented.get(cid) != (stem if stem != "-" else None):
        problems.append("%s: STEM %s, docs/node-conditions.md says %s (scripts/gen_docs.sh)" % (cid, stem, documented.get(cid)))
    if not feeds and cid in documented:
        problems.append("%s: in docs/node-conditions.md but feeds neither rwx nor live-migration" % cid)

# Needs: docs/collect.md's resource table, last column ("—" first: needed by none).
need = {}
for r in rows:
    for res in (r[6].split(",") if r[6] != "-" else []):
        need.setdefault(res, set()).add(r[0])
collect = open(os.path.join(src, "docs/collect.md")).read()
table = {}
for m in re.finditer(r"^\| `([a-z0-9.-]+)` \|(?:[^|\n]*\|){4} ([^|\n]*) \|$", collect, re.M):
    cell = m.group(2)
    table[m.group(1)] = set() if cell.startswith("—") else set(re.findall(r"`([a-z0-9.-]+)`", cell))
if not table:
    problems.append("docs/collect.md: no resource table found")
for res in sorted(set(table) - resources):
    problems.append("docs/collect.md: %s is not in the resource table (hvready-aggregator resources)" % res)
for res in sorted(set(table) | set(need) | resources):
    if res not in table:
        problems.append("docs/collect.md: no row for %s (needed by %s)" % (res, ", ".join(sorted(need.get(res, ()))) or "none"))
    elif table[res] != need.get(res, set()):
        problems.append("docs/collect.md %s: documented %s, NEEDS in common/checks.def %s (scripts/gen_docs.sh)" % (
            res, ", ".join(sorted(table[res])) or "none", ", ".join(sorted(need.get(res, set()))) or "none"))

# Runners: the functions with a runner's signature in the check files.
sig = re.compile(r"^void (\w+)\(struct (agent|agg)_ctx \*ctx, const char \*id\)$", re.M)
defined = {}
for f in glob.glob(os.path.join(src, "agent/check_*.c")) + glob.glob(os.path.join(src, "aggregator/check_*.c")):
    for m in sig.finditer(open(f).read()):
        defined[m.group(1)] = ("host" if m.group(2) == "agent" else "agg", os.path.relpath(f, src))
canary_sig = re.compile(r"^void (\w+)\(struct canary \*c, struct finding \*f\)$", re.M)
for f in glob.glob(os.path.join(src, "aggregator/canary*.c")):
    for m in canary_sig.finditer(open(f).read()):
        defined[m.group(1)] = ("canary", os.path.relpath(f, src))
runners = {r[5]: r for r in rows}
for fn, (side, f) in sorted(defined.items()):
    if fn not in runners:
        problems.append("%s (%s): a runner without a row in common/checks.def" % (fn, f))
    elif (runners[fn][1] == "host") != (side == "host") or (runners[fn][1] == "canary") != (side == "canary"):
        problems.append("%s (%s): row %s is %s" % (fn, f, runners[fn][0], runners[fn][1]))
for fn, r in sorted(runners.items()):
    if fn not in defined:
        problems.append("%s: RUNNER %s is not defined in a check_*.c" % (r[0], fn))
# The ID says which file to open (docs/development.md, "Adding a check"):
# host.A.B -> agent/check_A_B.c, cluster.* -> aggregator/check_cluster.c,
# api.AREA.* -> aggregator/check_AREA.c, canary.AREA.* -> aggregator/canary_AREA.c.
def named_file(cid, prog):
    parts = cid.split(".")
    if prog == "host":
        return "agent/check_%s.c" % "_".join(parts[1:]).replace("-", "_")
    if prog == "cluster":
        return "aggregator/check_cluster.c"
    return "aggregator/%s_%s.c" % ("check" if prog == "api" else "canary", parts[1].replace("-", "_"))
for r in rows:
    want = named_file(r[0], r[1])
    if r[5] in defined and defined[r[5]][1] != want:
        problems.append("%s: RUNNER %s is in %s; its ID names %s" % (r[0], r[5], defined[r[5]][1], want))
if problems:
    print("FAIL:\n  " + "\n  ".join(problems))
    sys.exit(1)
print("list-checks: %d checks, docs and runners agree" % len(rows))
PY
# The generator writes exactly what the checks above hold (and the stems and
# needs tables besides): the docs an author regenerates pass this test.
python3 "$HVREADY_SRC/scripts/gen_docs.py" --check "$HVREADY_BIN" ||
	{ echo "FAIL: the docs are not what scripts/gen_docs.sh writes from the registry"; exit 1; }
echo PASS
