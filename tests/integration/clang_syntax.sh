#!/usr/bin/env bash
# Every C file of the build, as CMake compiles it (compile_commands.json), parsed
# by clang as well: `make fuzz` builds with clang, which holds to C11 where GCC
# accepts its own extensions silently (a declaration right after a label was one,
# and broke the fuzz build unnoticed). Errors only: warnings are GCC's to judge.
set -euo pipefail
: "${HVREADY_SRC:?}" "${HVREADY_BUILD:?}"
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
test_init

command -v clang >/dev/null || fail "clang is needed (scripts/install-deps.sh)"
[ -f "$HVREADY_BUILD/compile_commands.json" ] || fail "no compile_commands.json in $HVREADY_BUILD"
python3 - "$HVREADY_BUILD/compile_commands.json" "$HVREADY_SRC" <<'PY' || fail "clang rejects C that GCC accepted (above)"
import json, os, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

db, src = sys.argv[1], os.path.realpath(sys.argv[2])
# GCC-only options clang does not know; sanitizers and -Werror are not what is checked.
DROP = ("-fsanitize", "-fno-sanitize", "-Werror", "-fanalyzer")
jobs = []
for e in json.load(open(db)):
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    if not f.startswith(src + os.sep) or not f.endswith(".c"):
        continue
    args = e.get("arguments") or shlex.split(e["command"])
    out, skip = ["clang", "-fsyntax-only", "-w"], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a == "-c" or a.startswith(DROP):
            continue
        out.append(a)
    jobs.append((e["directory"], out))

def run(job):
    d, cmd = job
    p = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    return p.returncode, p.stderr

bad = 0
with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
    for rc, err in ex.map(run, jobs):
        if rc != 0:
            bad += 1
            sys.stderr.write(err[:2000])
print(f"clang -fsyntax-only: {len(jobs)} files, {bad} rejected")
if not jobs:
    sys.exit("no C file of the tree in compile_commands.json")
sys.exit(1 if bad else 0)
PY
echo "PASS"
