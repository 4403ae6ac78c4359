#!/usr/bin/env bash
# The dashboard and GET /v1/verdict follow ?gate= as `report --gate` does, and
# the dashboard's reload can be paused (?refresh=0) so that what a reader
# opened stays open; an unknown gate is a 400 with the reason. ?status=
# narrows the finding lists (not the gates), with links to the other filters
# that keep the gate and the pause; an unknown status is a 400 too.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
start_aggregator "$tmp/agg.log" --insecure-no-auth --interval 30 \
	--cluster-state "$HVREADY_SRC/examples/cluster" || fail "the aggregator did not start"
get() { curl -s --max-time 10 -o "$tmp/body" -w '%{http_code}' "$AGG_URL$1"; }
[ "$(get /)" = 200 ] || fail "GET /"
grep -q '<meta http-equiv="refresh" content="30"/>' "$tmp/body" || fail "the dashboard does not reload"
grep -q 'href="?refresh=0">pause</a>' "$tmp/body" || fail "no way to pause the reload"
[ "$(get '/?refresh=0')" = 200 ] || fail "GET /?refresh=0"
! grep -q 'http-equiv="refresh"' "$tmp/body" || fail "?refresh=0 still reloads"
grep -q 'reloading paused (<a href="?">resume</a>)' "$tmp/body" || fail "no way to resume"
[ "$(get '/?gate=rwx&refresh=0')" = 200 ] || fail "GET /?gate=rwx"
grep -q 'id="gate-rwx"[^>]*><h3><span>rwx (asked)' "$tmp/body" || fail "?gate=rwx not asked on the dashboard"
grep -q 'href="?gate=rwx">resume</a>' "$tmp/body" || fail "resume loses the gate"
[ "$(get '/v1/verdict?format=text&gate=live-migration')" = 200 ] || fail "GET text verdict for a gate"
head -n1 "$tmp/body" | grep -q '^hvready verdict for live-migration: ' || fail "text verdict not narrowed: $(head -n1 "$tmp/body")"
grep -q '^live-migration: \(GO\|NO-GO\|NO EVIDENCE\)' "$tmp/body" || fail "no go/no-go line for the gate"
[ "$(get '/?gate=rwz')" = 400 ] || fail "an unknown gate is not refused"
grep -q 'gate must be' "$tmp/body" || fail "400 without the reason: $(cat "$tmp/body")"
[ "$(get '/?status=fail&gate=rwx&refresh=0')" = 200 ] || fail "GET /?status=fail"
grep -q 'id="filter">Findings: showing FAIL of [0-9]* findings' "$tmp/body" || fail "?status=fail not said in the header"
grep -q 'href="?gate=rwx&amp;refresh=0&amp;status=fail,warn">fail + warn</a> <b>fail</b>' "$tmp/body" ||
	fail "the filter links lose the gate or the pause"
grep -q 'href="?gate=rwx&amp;refresh=0">all</a>' "$tmp/body" || fail "no link back to all findings"
grep -q 'href="?gate=rwx&amp;status=fail">resume</a>' "$tmp/body" || fail "resume loses the status filter"
! grep -q 'data-status="PASS" data-node=' "$tmp/body" || fail "?status=fail still lists PASS findings"
grep -q 'id="gate-preinstall"' "$tmp/body" || fail "?status=fail hides a gate"
[ "$(get '/')" = 200 ] || fail "GET /"
all=$(grep -c '<details class="finding' "$tmp/body" || true)
[ "$(get '/?status=fail')" = 200 ] || fail "GET /?status=fail"
some=$(grep -c '<details class="finding' "$tmp/body" || true)
[ "$some" -lt "$all" ] || fail "?status=fail shows $some of $all finding cards"
[ "$(get '/v1/verdict?format=text&status=fail,warn')" = 200 ] || fail "GET text verdict with a status filter"
grep -q '^Findings: showing FAIL, WARN of [0-9]* findings\.$' "$tmp/body" || fail "text verdict not filtered"
! grep -q '^PASS ' "$tmp/body" || fail "text verdict lists PASS with ?status=fail,warn"
[ "$(get '/v1/verdict?format=markdown&status=warn')" = 200 ] || fail "GET markdown verdict with a status filter"
grep -q '^Findings: showing WARN of' "$tmp/body" || fail "markdown verdict not filtered"
[ "$(get '/?status=fial')" = 400 ] || fail "an unknown status is not refused"
grep -q 'status must be a comma list' "$tmp/body" || fail "400 without the reason: $(cat "$tmp/body")"
[ "$(get '/v1/verdict?format=text&status=fail,')" = 400 ] || fail "a trailing comma is not refused"
echo PASS
