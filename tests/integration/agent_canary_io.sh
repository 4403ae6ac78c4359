#!/usr/bin/env bash
# `hvready-agent canary-io write|read PATH TOKEN`, what the canary's pods run
# (docs/canary.md): the written file holds the token, a read of the same token
# is 0 with "read-ok", a different token or a missing file is 1 with the
# reason on stdout, bad usage and tokens outside [A-Za-z0-9-] are 2.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
. "$HVREADY_SRC/tests/tools/test_lib.sh"
test_init
A="$HVREADY_BIN/hvready-agent"

out=$("$A" canary-io write "$tmp/share" tok-1a2b) || fail "write: exit $?"
[ "$out" = "write-ok tok-1a2b" ] || fail "write said: $out"
[ "$(cat "$tmp/share")" = "tok-1a2b" ] || fail "the file holds: $(cat "$tmp/share")"

out=$("$A" canary-io read "$tmp/share" tok-1a2b) || fail "read of the same token: exit $?"
[ "$out" = "read-ok tok-1a2b" ] || fail "read said: $out"

rc=0; out=$("$A" canary-io read "$tmp/share" other-token) || rc=$?
[ $rc -eq 1 ] || fail "read of another token: exit $rc, want 1"
[ "$out" = 'read-mismatch want other-token got "tok-1a2b" (8 bytes)' ] || fail "mismatch said: $out"

rc=0; out=$("$A" canary-io read "$tmp/missing" tok) || rc=$?
[ $rc -eq 1 ] || fail "read of a missing file: exit $rc, want 1"
case $out in "read-error $tmp/missing: open: No such file or directory") ;; *) fail "missing said: $out" ;; esac

rc=0; "$A" canary-io write "$tmp/nodir/x" tok >/dev/null || rc=$?
[ $rc -eq 1 ] || fail "write into a missing directory: exit $rc, want 1"

for bad in "read $tmp/share" "copy $tmp/share tok" "write $tmp/share bad/token" "write $tmp/share ''"; do
	rc=0; eval "\"\$A\" canary-io $bad" >/dev/null 2>&1 || rc=$?
	[ $rc -eq 2 ] || fail "canary-io $bad: exit $rc, want 2"
done
echo PASS
