#!/usr/bin/env bash
# Token reviews (--tokenreview) that nobody waits for. The fake API server
# answers each TokenReview after DELAY seconds (a slow API server):
# 1. agents give up before their reviews are done (one in the reviewer's
#    hands, one queued behind it): the aggregator answers the closed
#    connections, keeps the reviews (the tokens are cached: the agents'
#    retries are accepted with no new review) and goes on;
# 2. the aggregator is stopped with one review in hand and one queued: it
#    waits for the one in hand, drops both, exits 0 within stop_aggregator's
#    5 s (under ASan: no use after free, no leak).
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
DELAY=3 # seconds per TokenReview; the clients give up after 1

node_reports "$TMP/reports"
kt_pki "$TMP/pki"
cat >"$TMP/reviews.json" <<EOF
{"$(sa_token node-1-token)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-1"},
 "$(sa_token node-2-token)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-2"},
 "$(sa_token node-1-late)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-1"},
 "$(sa_token node-2-late)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-2"}}
EOF
kt_review_api --tokenreview-delay "$DELAY"
start_aggregator "$TMP/aggregator.log" --kubeconfig "$TMP/kc/config" --tokenreview --interval 2 ||
	fail "the --tokenreview aggregator did not start"

post() { # node token max-time: prints the HTTP status (000: the client gave up)
	curl -s -o /dev/null -w '%{http_code}' --max-time "$3" -H "Content-Type: application/msgpack" \
		-H "Authorization: Bearer $2" --data-binary "@$TMP/reports/$1.msgpack" \
		"$AGG_URL/v1/reports" || true
}
reviews() { grep -c '"/apis/authentication.k8s.io/v1/tokenreviews"' "$TMP/api.log" || true; }
both_reviewed() { [ "$(reviews)" -ge 2 ]; }
# Both nodes' reports with tokens node-N-SUFFIX, node-2's 0.2 s after
# node-1's so that it queues behind node-1's review; the HTTP statuses go to
# $TMP/code-N, the curl processes to posting.
posting=()
post_both() { # suffix max-time
	local n
	for n in 1 2; do
		post "harvester-node-$n" "$(sa_token "node-$n-$1")" "$2" >"$TMP/code-$n" &
		posting+=($!)
		sleep 0.2
	done
}

echo "== 1. agents that give up during their reviews"
post_both token 1
wait "${posting[@]}"
posting=()
[ "$(cat "$TMP/code-1")" = 000 ] && [ "$(cat "$TMP/code-2")" = 000 ] ||
	fail "the clients were answered before their reviews were done: $(cat "$TMP/code-1") $(cat "$TMP/code-2")"
# Both reviews are done within 2 x DELAY: the fake logs each as it answers.
wait_for $((2 * DELAY + 5)) "both TokenReviews answered" both_reviewed
# The aggregator takes the answers within milliseconds of the fake's log line.
sleep 0.5
kill -0 "$AGG_PID" 2>/dev/null || fail "the aggregator died once the abandoned reviews were done"
# Their results were cached: the retries need no review.
for n in 1 2; do
	code=$(post "harvester-node-$n" "$(sa_token "node-$n-token")" 2)
	[ "$code" = 200 ] || fail "node-$n's retry after the abandoned review: HTTP $code"
done
[ "$(reviews)" -eq 2 ] || fail "the retries were reviewed again: $(reviews) reviews"
echo "  both clients gone before their reviews; the reviews cached, the retries accepted"

echo "== 2. stopping with a review in hand and one queued"
post_both late 10
sleep 0.3
stop_aggregator || fail "the aggregator did not stop cleanly with reviews pending (exit $?)"
wait "${posting[@]}"
[ "$(cat "$TMP/code-1")" != 200 ] && [ "$(cat "$TMP/code-2")" != 200 ] ||
	fail "a report was accepted while the aggregator stopped"
grep -q 'ERROR: AddressSanitizer\|LeakSanitizer' "$TMP/aggregator.log" &&
	fail "sanitizer report in the aggregator's log"
echo "  stopped in time, both reviews dropped"
echo PASS
