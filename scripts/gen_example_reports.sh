#!/usr/bin/env bash
# examples/reports/: what a report looks like — `hvready-aggregator report` of
# the example cluster state (examples/cluster) in every format, written by the
# program itself. The clock is fixed with SOURCE_DATE_EPOCH at the time the
# example's objects are stamped with (2026-09-05T10:00:00Z), so the files are
# the same bytes on every run; it_example_reports holds them equal to what
# this script writes.
#
#   scripts/gen_example_reports.sh [BINDIR [OUTDIR]]   (default build/bin, examples/reports)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$SRC/build/bin}
OUT=${2:-$SRC/examples/reports}
agg="$BIN/hvready-aggregator"
[ -x "$agg" ] || { echo "gen_example_reports: no $agg (build first)" >&2; exit 2; }
mkdir -p "$OUT"
cd "$SRC" # the report names its source as given: a relative path, the same everywhere
export SOURCE_DATE_EPOCH=1788602400
unset NO_COLOR HVREADY_DOCS_URL
for fmt in text:txt json:json markdown:md html:html; do
	rc=0
	"$agg" report --cluster-state examples/cluster --format "${fmt%%:*}" \
		>"$OUT/report.${fmt#*:}" || rc=$?
	# 0 PASS, 1 FAIL, 3 UNKNOWN are verdicts; 2 is an error
	case $rc in 0 | 1 | 3) ;; *) echo "gen_example_reports: report --format ${fmt%%:*}: exit $rc" >&2; exit 2 ;; esac
done
