#!/usr/bin/env bash
# A named pipe where a host file is expected (a FIFO left by a broken tool, a
# test harness, an attacker) must not stall the agent: every host read opens
# with O_NONBLOCK and reads regular files only (common/hostroot.c,
# hostroot_open_file). `check` ends promptly with UNKNOWN + the reason for the
# checks that needed the file; `run` still reports, and stops on SIGTERM.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
test_init

root=$(host_root_copy b-debian12)
# The files behind host.cpu.virt, host.resources, host.longhorn.path, host.iscsi, host.nfs.kernel.
fifos="proc/cpuinfo proc/meminfo proc/1/mountinfo etc/iscsi/initiatorname.iscsi proc/filesystems etc/os-release"
for p in $fifos; do
	mkdir -p "$(dirname "$root/$p")"
	rm -f "$root/$p"
	mkfifo "$root/$p"
done

echo "== check"
rc=0
timeout 20 "$HVREADY_BIN/hvready-agent" check --host-root "$root" --format json --timeout 2 \
	--skip host.nfs.probe,host.image.share-manager >"$tmp/check.json" 2>"$tmp/check.err" || rc=$?
[ "$rc" != 124 ] || fail "check hung on a FIFO"
python3 - "$tmp/check.json" <<'PY' || fail "check verdicts"
import json, sys
v = json.load(open(sys.argv[1]))
by = {c["check"]: c for c in v["results"]}
for cid in ("host.cpu.virt", "host.resources", "host.longhorn.path"):
    c = by[cid]
    assert c["status"] == "UNKNOWN", (cid, c["status"], c["message"])
    assert "not a regular file" in json.dumps(c), (cid, c)
print("check: " + ", ".join("%s %s" % (k, by[k]["status"]) for k in sorted(by)))
PY

echo "== run"
post_sink "$tmp/posts"
"$HVREADY_BIN/hvready-agent" run --aggregator "http://127.0.0.1:$SINK_PORT" --host-root "$root" \
	--interval 1 --timeout 2 --skip host.nfs.probe,host.image.share-manager 2>"$tmp/run.log" &
pid=$!
kill_pids+=("$pid")
for _ in $(seq 1 100); do
	[ -s "$tmp/posts" ] && break
	sleep 0.2
done
[ -s "$tmp/posts" ] || { cat "$tmp/run.log"; fail "run never reported with FIFOs in the host root"; }
stops_within "$pid" 10 "run ignored SIGTERM"
echo "run: reported ($(wc -l <"$tmp/posts") POSTs), stopped on SIGTERM"
