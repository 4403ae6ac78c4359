#!/usr/bin/env bash
# The node's identity, read before the checks (agent/agent.c identity_step, the run's first step):
# etc/hostname and proc/sys/kernel/random/boot_id take the checks' bounded
# read and their deadline.
# 1. A FIFO at etc/hostname (nobody writes it): `check` does not wait for a
#    writer; the kernel's hostname names the node, and every check decides.
# 2. An open of etc/hostname that blocks (the LD_PRELOAD shim
#    tests/tools/block_open.c, as on a hung mount): `check` ends within
#    --timeout + a margin with every check decided and a warning naming the
#    path; `run` keeps reporting (the next cycles do not start the read again)
#    and stops on SIGTERM.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
test_init
root=$(host_root_copy b-debian12)
mkdir -p "$root/proc/sys/kernel/random"
echo kernel-name >"$root/proc/sys/kernel/hostname"
echo 5b6f0a1c-3d2e-4f10-9a8b-7c6d5e4f3a21 >"$root/proc/sys/kernel/random/boot_id"
skip=host.nfs.probe,host.image.share-manager
agent="$HVREADY_BIN/hvready-agent"
"$agent" check --host-root "$root" --format json --timeout 2 --skip "$skip" \
	>"$tmp/free.json" 2>/dev/null || true

verdicts() { # report free expected-node expected-boot-id start end
	python3 - "$@" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
free = json.load(open(sys.argv[2]))
node, boot, took = sys.argv[3], sys.argv[4], float(sys.argv[6]) - float(sys.argv[5])
assert took < 2 + 4, "took %.1f s with --timeout 2" % took
assert v["node"] == node, (v["node"], node)
assert v.get("boot_id", "") == boot, v.get("boot_id")
want = {c["check"]: c["status"] for c in free["results"]}
got = {c["check"]: c["status"] for c in v["results"]}
assert got == want, {k: (got.get(k), s) for k, s in want.items() if got.get(k) != s}
print("%.1f s, node %s, %d checks as without it" % (took, v["node"], len(got)))
PY
}

echo "== check, a FIFO at etc/hostname"
rm "$root/etc/hostname"
mkfifo "$root/etc/hostname"
rc=0
start=$(date +%s.%N)
timeout 30 "$agent" check --host-root "$root" --format json --timeout 2 --skip "$skip" \
	>"$tmp/fifo.json" 2>"$tmp/fifo.err" || rc=$?
end=$(date +%s.%N)
[ "$rc" != 124 ] || fail "check hung on a FIFO at etc/hostname"
verdicts "$tmp/fifo.json" "$tmp/free.json" kernel-name 5b6f0a1c-3d2e-4f10-9a8b-7c6d5e4f3a21 \
	"$start" "$end" || fail "check verdicts with a FIFO at etc/hostname"
rm "$root/etc/hostname"
cp "$HVREADY_SRC/tests/fixtures/hostroots/b-debian12/etc/hostname" "$root/etc/hostname"

block_open_shim etc/hostname

echo "== check, the open of etc/hostname blocks"
rc=0
start=$(date +%s.%N)
timeout 30 "${BLOCK_WRAP[@]}" "$agent" check --host-root "$root" --format json --timeout 2 \
	--skip "$skip" >"$tmp/blocked.json" 2>"$tmp/blocked.err" || rc=$?
end=$(date +%s.%N)
[ "$rc" != 124 ] || fail "check hung on a blocked etc/hostname"
grep -q "node identity: blocked: last at .*etc/hostname" "$tmp/blocked.err" ||
	{ cat "$tmp/blocked.err"; fail "no warning naming the blocked etc/hostname"; }
verdicts "$tmp/blocked.json" "$tmp/free.json" unknown "" "$start" "$end" ||
	fail "check verdicts with etc/hostname blocked"
rc=0
timeout 30 "${BLOCK_WRAP[@]}" "$agent" check --host-root "$root" --node node-a --format json \
	--timeout 2 --skip "$skip" >"$tmp/named.json" 2>/dev/null || rc=$?
[ "$rc" != 124 ] || fail "check --node hung on a blocked etc/hostname"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert v["node"] == "node-a", v["node"]' \
	"$tmp/named.json" || fail "--node not used while etc/hostname blocks"

echo "== run, the open of etc/hostname blocks"
post_sink "$tmp/posts"
"${BLOCK_WRAP[@]}" "$agent" run --aggregator "http://127.0.0.1:$SINK_PORT" --host-root "$root" \
	--interval 1 --timeout 2 --skip "$skip" 2>"$tmp/run.log" &
pid=$!
kill_pids+=("$pid")
wait_for 20 "run did not report with etc/hostname blocked" sink_has 3
grep -q "node identity: still blocked since an earlier cycle" "$tmp/run.log" ||
	{ cat "$tmp/run.log"; fail "the next cycles started the blocked read again"; }
echo "run: $(sink_posts) reports while etc/hostname blocks"
stops_within "$pid" 5 "run ignored SIGTERM with etc/hostname blocked"
echo "PASS: the node identity reads are bounded"
