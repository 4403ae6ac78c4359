#!/usr/bin/env bash
# collect and a live report show their progress on a terminal (a pty made by
# script(1)): the forbidden resource on a line of its own with what to grant,
# the failed one with its reason, and a summary with the counts. Into a pipe,
# or with --quiet, they print nothing but what they printed before.
# Loopback only; the fake kube-apiserver is stopped on exit.
set -euo pipefail
export LC_ALL=C
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
test_init
kt_pki "$TMP/pki"
TOKEN=progress-test-token-91c2

# pods answer 500 more often than the client retries (3 attempts): failed.
kt_fake progress --fixtures "$FIXTURES/harvester" --token "$TOKEN" --require-auth \
	--forbid volumes.longhorn.io --fail pods:9
mkdir -p "$TMP/kc"
kt_kubeconfig "$TMP/kc/config" "https://127.0.0.1:$FAKE_PORT" inline-token "$TOKEN"

# on_tty FILE CMD...: run CMD with stdin, stdout and stderr on a pty; FILE gets
# what the terminal showed.
on_tty() {
	local f=$1
	shift
	local cmd
	printf -v cmd '%q ' "$@"
	script -qefc "$cmd" /dev/null </dev/null >"$f" 2>&1 || true
}

# 1. collect on a terminal.
on_tty "$TMP/collect.tty" "$AGG" collect --kubeconfig "$TMP/kc/config" --output "$TMP/out1"
tr '\r' '\n' <"$TMP/collect.tty" | sed 's/\x1b\[K//g' >"$TMP/collect.txt"
grep -q "^forbidden: longhorn.io/volumes — grant get, list, watch on longhorn.io/volumes" "$TMP/collect.txt" ||
	kt_fail "collect: no line for the forbidden resource: $(cat "$TMP/collect.txt")"
grep -q "^failed: pods — " "$TMP/collect.txt" ||
	kt_fail "collect: no line for the failed resource: $(cat "$TMP/collect.txt")"
grep -q "reading the API: [0-9]*/[0-9]* resources, " "$TMP/collect.txt" ||
	kt_fail "collect: no status line: $(cat "$TMP/collect.txt")"
grep -Eq "^read [0-9]+ resources from https://127.0.0.1:$FAKE_PORT in [0-9.]+ s: [0-9]+ collected \([0-9,]+ objects\).*, 1 forbidden, 1 failed$" \
	"$TMP/collect.txt" || kt_fail "collect: no summary: $(cat "$TMP/collect.txt")"
grep -q "$TOKEN" "$TMP/collect.tty" && kt_fail "collect: the token is on the terminal"
[ -s "$TMP/out1/collect.json" ] || kt_fail "collect on a terminal wrote no collect.json"

# 2. The same with --quiet, and into a pipe: nothing on stderr.
on_tty "$TMP/quiet.tty" "$AGG" collect --quiet --kubeconfig "$TMP/kc/config" --output "$TMP/out2"
[ ! -s "$TMP/quiet.tty" ] || kt_fail "collect --quiet printed: $(cat "$TMP/quiet.tty")"
"$AGG" collect --kubeconfig "$TMP/kc/config" --output "$TMP/out3" 2>"$TMP/pipe.err" >/dev/null ||
	kt_fail "collect into a pipe failed: $(cat "$TMP/pipe.err")"
[ ! -s "$TMP/pipe.err" ] || kt_fail "collect into a pipe printed progress: $(cat "$TMP/pipe.err")"

# 3. A live report on a terminal: progress on stderr, and the JSON on stdout
# still parses when stdout is a file.
script -qefc "$(printf '%q ' "$AGG" report --kubeconfig "$TMP/kc/config" --format json) 2>$TMP/report.err >$TMP/report.json" \
	/dev/null </dev/null >/dev/null 2>&1 || true
"$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/report.json" ||
	kt_fail "report's JSON is not clean: $(head -c 300 "$TMP/report.json")"
echo "collect_progress: OK"
