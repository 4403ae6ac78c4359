#!/usr/bin/env bash
# Writing results where the disk is full or read-only (docs/robustness.md).
# In a private mount namespace (unshare -m): a tiny tmpfs filled to the last
# byte, and a read-only one. For `hvready-agent check --output FILE` (every
# format), `hvready-aggregator report > FILE` and `collect --output DIR`:
# exit 2 with one line on stderr naming the file and the reason, no temporary
# file left behind, and the previous content of FILE (DIR) intact.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
if [ -z "${HVREADY_IN_MOUNT_NS:-}" ]; then
	# The mounts vanish with the namespace, whatever happens to this script.
	exec unshare --mount --propagation private env HVREADY_IN_MOUNT_NS=1 bash "$0" "$@"
fi
AGENT="$HVREADY_BIN/hvready-agent"
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
test_init
# shellcheck disable=SC2317 # called by test_lib.sh at exit
extra_cleanup() { umount "$TMP/full" "$TMP/ro" 2>/dev/null || true; }
ROOT="$HVREADY_SRC/tests/fixtures/hostroots/b-rhel9"
SKIP=host.image.share-manager,host.nfs.probe

mkdir -p "$TMP/full" "$TMP/ro"
mount -t tmpfs -o size=4m,mode=0755 hvready-full "$TMP/full" || fail "cannot mount a tmpfs"
mount -t tmpfs -o size=256k,mode=0755 hvready-ro "$TMP/ro" || fail "cannot mount a tmpfs"

# The previous results, written while there was room.
for fmt in json msgpack text; do
	printf 'previous %s report\n' "$fmt" >"$TMP/full/report.$fmt"
	printf 'previous %s report\n' "$fmt" >"$TMP/ro/report.$fmt"
done
printf 'previous verdict\n' >"$TMP/full/verdict.txt"
mount -o remount,ro "$TMP/ro" || fail "cannot remount read-only"
# Fill the tmpfs: dd stops at ENOSPC.
dd if=/dev/zero of="$TMP/full/filler" bs=4k 2>/dev/null || true
avail=$(df --output=avail -B1 "$TMP/full" | tail -n 1 | tr -d ' ')
[ "$avail" = 0 ] || fail "the tmpfs is not full ($avail bytes left)"

# expect_refused WHAT DIR FILE REASON COMMAND...: exit 2, one line naming FILE
# and REASON, nothing new in DIR, FILE unchanged.
expect_refused() {
	local what=$1 dir=$2 file=$3 reason=$4 rc=0
	shift 4
	local before
	before=$(ls -A "$dir" | sort | tr '\n' ' ')
	local sum
	sum=$(md5sum <"$file")
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "$what: exit $rc, not 2 (stderr: $(cat "$TMP/err"))"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$what: not one line on stderr: $(cat "$TMP/err")"
	grep -qF "$file" "$TMP/err" || fail "$what: the error does not name $file: $(cat "$TMP/err")"
	grep -qF "$reason" "$TMP/err" || fail "$what: the error does not say \"$reason\": $(cat "$TMP/err")"
	[ "$(ls -A "$dir" | sort | tr '\n' ' ')" = "$before" ] ||
		fail "$what: files left behind: $(ls -A "$dir")"
	[ "$(md5sum <"$file")" = "$sum" ] || fail "$what: the previous content of $file changed"
	echo "  $what: exit 2, $(cat "$TMP/err")"
}

echo "== hvready-agent check --output"
for fmt in json msgpack text; do
	expect_refused "check --format $fmt, full disk" "$TMP/full" "$TMP/full/report.$fmt" \
		"No space left on device" \
		"$AGENT" check --host-root "$ROOT" --node n1 --skip "$SKIP" --format "$fmt" --output "$TMP/full/report.$fmt"
	expect_refused "check --format $fmt, read-only" "$TMP/ro" "$TMP/ro/report.$fmt" \
		"Read-only file system" \
		"$AGENT" check --host-root "$ROOT" --node n1 --skip "$SKIP" --format "$fmt" --output "$TMP/ro/report.$fmt"
done
# A new file (no previous content) on the full disk: nothing is created.
rc=0
"$AGENT" check --host-root "$ROOT" --node n1 --skip "$SKIP" --format json --output "$TMP/full/new.json" \
	>/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] && [ ! -e "$TMP/full/new.json" ] || fail "a new file on a full disk: exit $rc, $(ls -A "$TMP/full")"
# With room again, the same command replaces the file whole.
rm -f "$TMP/full/filler"
rc=0
"$AGENT" check --host-root "$ROOT" --node n1 --skip "$SKIP" --format json --output "$TMP/full/report.json" \
	>/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" != 2 ] || fail "check with room again: $(cat "$TMP/err")"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["node"] == "n1"' "$TMP/full/report.json" ||
	fail "the report written with room again is not whole"
echo "  with room again: the report is replaced whole"

echo "== hvready-aggregator report > FILE"
dd if=/dev/zero of="$TMP/full/filler" bs=4k 2>/dev/null || true
for fmt in text json markdown html; do
	rc=0
	"$AGG" report --cluster-state "$HVREADY_SRC/examples/cluster" --format "$fmt" \
		>"$TMP/full/verdict.txt" 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "report --format $fmt > full disk: exit $rc, not 2 ($(cat "$TMP/err"))"
	[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "stdout.*No space left on device" "$TMP/err" ||
		fail "report --format $fmt > full disk: $(cat "$TMP/err")"
	echo "  report --format $fmt: exit 2, $(cat "$TMP/err")"
done
rc=0
"$AGG" report --cluster-state "$HVREADY_SRC/examples/cluster" >/dev/full 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] && grep -q "stdout.*No space left on device" "$TMP/err" ||
	fail "report > /dev/full: exit $rc, $(cat "$TMP/err")"

echo "== hvready-aggregator collect --output DIR"
TOKEN=full-fs-token
kt_pki "$TMP/pki"
kt_fake api --fixtures "$FIXTURES/harvester" --token "$TOKEN" --require-auth
mkdir -p "$TMP/kc"
kt_kubeconfig "$TMP/kc/config" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"
# A previous dump on the (now full) disk: made with room, then the disk fills.
rm -f "$TMP/full/filler"
"$AGG" collect --kubeconfig "$TMP/kc/config" --output "$TMP/full/dump" 2>"$TMP/err" ||
	fail "collect with room: $(cat "$TMP/err")"
(cd "$TMP/full/dump" && md5sum ./* | sort) >"$TMP/dump.sums"
dd if=/dev/zero of="$TMP/full/filler" bs=4k 2>/dev/null || true
# Refilled to the last byte: the dump's own files need no new blocks, but
# collect writes each one anew.
rc=0
"$AGG" collect --kubeconfig "$TMP/kc/config" --output "$TMP/full/dump" 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "$TMP/full/dump/.*No space left on device" "$TMP/err" ||
	fail "collect on a full disk: exit $rc, $(cat "$TMP/err")"
ls -A "$TMP/full/dump" | grep -q '\.tmp$' && fail "collect left temporary files: $(ls -A "$TMP/full/dump")"
(cd "$TMP/full/dump" && md5sum ./* | sort) | diff -u "$TMP/dump.sums" - >&2 ||
	fail "collect on a full disk changed the previous dump"
echo "  collect, full disk: exit 2, $(cat "$TMP/err")"
rc=0
"$AGG" collect --kubeconfig "$TMP/kc/config" --output "$TMP/ro/dump" 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] && grep -q "$TMP/ro/dump.*Read-only file system" "$TMP/err" ||
	fail "collect on a read-only disk: exit $rc, $(cat "$TMP/err")"
echo "  collect, read-only: exit 2, $(cat "$TMP/err")"
echo PASS
