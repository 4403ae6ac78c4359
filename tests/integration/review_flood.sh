#!/usr/bin/env bash
# A flood of bearer tokens nobody was given (--tokenreview), from 300
# connections on 100 client addresses: half of them random strings, half
# shaped as ServiceAccount JWTs for our audience (each of those costs a
# TokenReview, answered by the fake API server after DELAY seconds, ~ what a
# loaded API server takes). Meanwhile a known agent (its address had a report
# accepted) renews its token: the report with the new, uncached token is
# accepted within the agent's 10 s timeout (curl --max-time 10 from the
# agent's address), and /healthz answers. The random strings never reach the
# API. (Before: every token was reviewed in arrival order, and the agent
# waited behind ~1,000 reviews.)
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
DELAY=0.05 # seconds per TokenReview
AGENT_ADDR=127.0.0.2

node_reports "$TMP/reports"
kt_pki "$TMP/pki"
cat >"$TMP/reviews.json" <<JSON
{"$(sa_token node-1-old)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-1"},
 "$(sa_token node-1-new)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-1"}}
JSON
kt_review_api --tokenreview-delay "$DELAY"
start_aggregator "$TMP/aggregator.log" --kubeconfig "$TMP/kc/config" --tokenreview --interval 2 ||
	fail "the --tokenreview aggregator did not start"
port=${AGG_URL##*:}

agent_post() { # token: prints the HTTP status and the seconds it took
	curl -s -o "$TMP/agent-body" -w '%{http_code} %{time_total}' --max-time 10 \
		--interface "$AGENT_ADDR" -H "Content-Type: application/msgpack" \
		-H "Authorization: Bearer $1" --data-binary "@$TMP/reports/harvester-node-1.msgpack" \
		"$AGG_URL/v1/reports" || true
}
reviews() { grep -c '"/apis/authentication.k8s.io/v1/tokenreviews"' "$TMP/api.log" || true; }

out=$(agent_post "$(sa_token node-1-old)")
[ "${out%% *}" = 200 ] || fail "the agent's first report: $out $(cat "$TMP/agent-body")"

"$PY" "$HVREADY_SRC/tests/tools/token_flood.py" --port "$port" \
	--template "$TMP/reports/harvester-node-2.msgpack" --conns 300 --sources 100 \
	--duration 14 >"$TMP/flood.json" 2>"$TMP/flood.err" &
flood=$!
pids+=("$flood")
sleep 3 # the queue fills
before=$(reviews)
out=$(agent_post "$(sa_token node-1-new)")
echo "  the agent's report with a renewed token during the flood: $out"
[ "${out%% *}" = 200 ] || fail "the agent with an uncached token during the flood: $out $(cat "$TMP/agent-body")"
h=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$AGG_URL/healthz" || true)
[ "$h" = 200 ] || fail "/healthz during the flood: $h"
[ "$(reviews)" -gt "$before" ] || fail "no review of the renewed token"
wait "$flood" || fail "the flood client failed: $(cat "$TMP/flood.err")"
kill -0 "$AGG_PID" 2>/dev/null || fail "the aggregator died in the flood"
echo "  flood: $(cat "$TMP/flood.json"), $(reviews) reviews asked"
"$PY" - "$TMP/flood.json" "$(reviews)" <<'PY' || fail "the flood's answers"
import json, sys
c = json.load(open(sys.argv[1]))
reviews = int(sys.argv[2])
posts = sum(v for k, v in c.items() if k.isdigit())
assert posts > 1000, c
# Half the tokens were random strings: refused (401) without a review.
assert c.get("401", 0) >= posts // 2 - 300, c
assert "200" not in c, c
# Only JWT-shaped tokens were reviewed: at most half the POSTs (and the agent's two).
assert reviews <= posts // 2 + 300 + 2, (reviews, posts)
PY
grep -q '"503"' "$TMP/flood.json" || fail "the per-client bound never applied: $(cat "$TMP/flood.json")"
stop_aggregator || fail "the aggregator did not stop cleanly (exit $?)"
echo "review_flood: all passed"
