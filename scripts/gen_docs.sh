#!/usr/bin/env bash
# Everything the check registry (common/checks.def) decides outside the code,
# rewritten from the built programs: the tables of docs/checks.md,
# docs/collect.md and docs/node-conditions.md (scripts/gen_docs.py) and the
# example reports (scripts/gen_example_reports.sh). Run after adding or
# changing a check (docs/development.md, "Adding a check"); it_list_checks and
# it_example_reports fail until it has been.
#
#   scripts/gen_docs.sh [BINDIR]   (default build/bin)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$SRC/build/bin}
python3 "$SRC/scripts/gen_docs.py" "$BIN"
bash "$SRC/scripts/gen_example_reports.sh" "$BIN"
