#!/usr/bin/env bash
# The bound on the nodes whose reports serve holds (HVREADY_MAX_NODES,
# docs/robustness.md): with room for 2, reports of two nodes are taken, a third
# node gets 503 with a one-line JSON reason and changes nothing, and the two
# known nodes keep reporting. An invalid value stops serve at start (exit 2).
# Loopback only.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
FAIL_TAIL=5
printf 'node-limit-token-%s\n' "$RANDOM$RANDOM" >"$TMP/token"
chmod 600 "$TMP/token"
TOKEN=$(cat "$TMP/token")

node_reports "$TMP/reports" b-rhel9 3

if HVREADY_MAX_NODES=0 "$HVREADY_BIN/hvready-aggregator" serve --listen 127.0.0.1:0 \
	--token-file "$TMP/token" --cluster-state "$HVREADY_SRC/examples/cluster" 2>"$TMP/bad.log"; then
	fail "serve started with HVREADY_MAX_NODES=0"
else
	rc=$?
	[ "$rc" = 2 ] || fail "HVREADY_MAX_NODES=0: exit $rc, expected 2"
	grep -q 'HVREADY_MAX_NODES=0' "$TMP/bad.log" || fail "no reason for HVREADY_MAX_NODES=0: $(cat "$TMP/bad.log")"
fi

HVREADY_MAX_NODES=2 start_aggregator "$TMP/agg.log" --token-file "$TMP/token" \
	--cluster-state "$HVREADY_SRC/examples/cluster" || fail "the aggregator did not start"
post() { # N -> status; the body in $TMP/body
	curl -sS --max-time 10 -o "$TMP/body" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
		-H "Content-Type: application/msgpack" --data-binary "@$TMP/reports/harvester-node-$1.msgpack" \
		"$AGG_URL/v1/reports"
}
nodes() { curl -fsS --max-time 10 "$AGG_URL/v1/nodes" | python3 -c 'import json, sys; print(" ".join(sorted(n["name"] for n in json.load(sys.stdin)["nodes"])))'; }

[ "$(post 1)" = 200 ] || fail "node 1: $(cat "$TMP/body")"
[ "$(post 2)" = 200 ] || fail "node 2: $(cat "$TMP/body")"
code=$(post 3)
[ "$code" = 503 ] || fail "node 3 (beyond the bound): status $code, expected 503"
python3 - "$TMP/body" <<'EOF' || fail "node 3: the answer is not a one-line JSON error: $(cat "$TMP/body")"
import json, sys
e = json.load(open(sys.argv[1]))
assert e["code"] == 503 and "\n" not in e["error"] and "HVREADY_MAX_NODES" in e["error"], e
EOF
[ "$(nodes)" = "harvester-node-1 harvester-node-2" ] || fail "nodes held: $(nodes)"
[ "$(post 1)" = 200 ] || fail "node 1 again, at the bound: $(cat "$TMP/body")"
[ "$(post 2)" = 200 ] || fail "node 2 again, at the bound: $(cat "$TMP/body")"
stop_aggregator || fail "the aggregator did not stop cleanly"
echo "PASS: node_limit (2 nodes held, the third refused with 503)"
