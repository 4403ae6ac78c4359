#!/usr/bin/env bash
# tests/fixtures/hostroots/README.md lists every host root, and only those
# that exist, so a newcomer can find which root models what.
set -euo pipefail
: "${HVREADY_SRC:?}"
dir="$HVREADY_SRC/tests/fixtures/hostroots"
python3 - "$dir" <<'PY'
import os, re, sys
d = sys.argv[1]
roots = {n for n in os.listdir(d) if os.path.isdir(os.path.join(d, n))}
listed = set(re.findall(r"^\| `([^`]+)` \|", open(os.path.join(d, "README.md")).read(), re.M))
listed -= {"a-", "b-", "c-", "d-"}
missing, stale = sorted(roots - listed), sorted(listed - roots)
assert not missing, "host roots missing from README.md: %s" % missing
assert not stale, "README.md lists host roots that do not exist: %s" % stale
print("%d host roots indexed" % len(roots))
PY
