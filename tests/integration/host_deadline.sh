#!/usr/bin/env bash
# A host read that blocks although it opened O_NONBLOCK (a hung NFS mount
# under the host root, a stuck procfs file) must not stall the report: each
# check runs in its own thread, bounded by --timeout (agent/agent.c). An
# LD_PRELOAD shim (tests/tools/block_open.c) makes the open of host.iscsi's
# etc/iscsi/initiatorname.iscsi block while a flag file exists.
# 1. `check` ends within --timeout + a margin: host.iscsi UNKNOWN "blocked",
#    every other check decided as without the shim. With proc/meminfo blocked,
#    host.resources is, and so are the facts read after the checks (a warning).
# 2. `run` keeps reporting: the next cycles say "still blocked since"; once the
#    read returns, the check runs again and decides; SIGTERM stops it at once.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
test_init
root=$(host_root_copy b-debian12)
skip=host.nfs.probe,host.image.share-manager
"$HVREADY_BIN/hvready-agent" check --host-root "$root" --format json --timeout 2 --skip "$skip" \
	>"$tmp/free.json" 2>/dev/null || true

block_open_shim etc/iscsi/initiatorname.iscsi

echo "== check"
rc=0
start=$(date +%s.%N)
timeout 30 "${BLOCK_WRAP[@]}" "$HVREADY_BIN/hvready-agent" check --host-root "$root" --format json \
	--timeout 2 --skip "$skip" >"$tmp/check.json" 2>"$tmp/check.err" || rc=$?
end=$(date +%s.%N)
[ "$rc" != 124 ] || fail "check hung on a blocked read"
python3 - "$tmp/check.json" "$tmp/free.json" "$start" "$end" <<'PY' || fail "check verdicts"
import json, sys
v = json.load(open(sys.argv[1]))
free = {c["check"]: c["status"] for c in json.load(open(sys.argv[2]))["results"]}
took = float(sys.argv[4]) - float(sys.argv[3])
assert took < 2 + 4, "took %.1f s with --timeout 2" % took
by = {c["check"]: c for c in v["results"]}
c = by["host.iscsi"]
assert c["status"] == "UNKNOWN" and c["message"].startswith("blocked: "), c
assert "initiatorname.iscsi" in c["message"], c
for cid, st in free.items():
    if cid != "host.iscsi":
        assert by[cid]["status"] == st, (cid, by[cid]["status"], st)
print("check: %.1f s, host.iscsi: %s" % (took, c["message"]))
PY

echo "== check, proc/meminfo blocked (host.resources, then the facts read it again)"
rc=0
start=$(date +%s.%N)
HVREADY_TEST_BLOCK_OPEN=proc/meminfo timeout 30 "${BLOCK_WRAP[@]}" "$HVREADY_BIN/hvready-agent" check \
	--host-root "$root" --format json --timeout 2 --skip "$skip" >"$tmp/mem.json" 2>"$tmp/mem.err" || rc=$?
end=$(date +%s.%N)
[ "$rc" != 124 ] || fail "check hung on a blocked proc/meminfo"
grep -q "facts: blocked: last at .*proc/meminfo" "$tmp/mem.err" || { cat "$tmp/mem.err"; fail "no warning for the blocked facts"; }
python3 - "$tmp/mem.json" "$start" "$end" <<'PY' || fail "check verdicts with proc/meminfo blocked"
import json, sys
v = json.load(open(sys.argv[1]))
took = float(sys.argv[3]) - float(sys.argv[2])
assert took < 2 * 2 + 4, "took %.1f s with --timeout 2" % took
by = {c["check"]: c for c in v["results"]}
c = by["host.resources"]
assert c["status"] == "UNKNOWN" and "proc/meminfo" in c["message"], c
assert "memory_bytes" not in v.get("facts", {}), v.get("facts")
print("check: %.1f s, host.resources: %s" % (took, c["message"]))
PY

echo "== run"
post_sink "$tmp/posts"
"${BLOCK_WRAP[@]}" "$HVREADY_BIN/hvready-agent" run --aggregator "http://127.0.0.1:$SINK_PORT" \
	--host-root "$root" --interval 1 --timeout 2 --skip "$skip" 2>"$tmp/run.log" &
pid=$!
kill_pids+=("$pid")
wait_for 20 "run did not keep reporting with a blocked read" sink_has 3

grep -aq "still blocked since" "$tmp/posts.raw" || fail "no cycle reported host.iscsi still blocked"
echo "run: $(sink_posts) reports while blocked"
# The read returns: the check runs again and decides.
rm -f "$HVREADY_TEST_BLOCK_FLAG"
: >"$tmp/posts.raw"
for _ in $(seq 1 60); do
	grep -aq "iscsiadm at" "$tmp/posts.raw" && break
	sleep 0.2
done
grep -aq "iscsiadm at" "$tmp/posts.raw" || fail "host.iscsi was not run again once the read returned"
echo "run: host.iscsi decided again once the read returned"
touch "$HVREADY_TEST_BLOCK_FLAG"
sleep 3
stops_within "$pid" 5 "run ignored SIGTERM with a blocked check"
echo "run: stopped on SIGTERM"
