#!/usr/bin/env bash
# Credentials that cannot invent or forge nodes (loopback only):
# 1. --node-token-file: each node's token reports for that node only (another
#    node's report: 403, an unknown token: 401, a node the file does not
#    name: 403); the file is re-read when it changes.
# 2. --max-report-bytes with the shared --token-file: 300 invented nodes
#    (report_flood.py) do not all get in; beyond the budget new nodes get 503
#    with the reason (and a log line), and a node already held keeps reporting.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
AGG_LISTEN=127.0.0.1:0
PY=${PYTHON:-python3}
node_reports "$tmp/reports" b-rhel9 3
post() { # token N -> status; the body in $tmp/body
	curl -sS --max-time 10 -o "$tmp/body" -w '%{http_code}' -H "Authorization: Bearer $1" \
		-H "Content-Type: application/msgpack" --data-binary "@$tmp/reports/harvester-node-$2.msgpack" \
		"$AGG_URL/v1/reports"
}
expect() { # code what got
	[ "$3" = "$1" ] || fail "$2: expected $1, got $3: $(cat "$tmp/body")"
	echo "  $2: $1"
}

echo "== 1. per-node tokens"
T1="node-1-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
T2="node-2-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
printf '# hvready node tokens\nharvester-node-1 %s\nharvester-node-2 %s\n' "$T1" "$T2" >"$tmp/node-tokens"
chmod 644 "$tmp/node-tokens"
if "$HVREADY_BIN/hvready-aggregator" serve --listen 127.0.0.1:0 --node-token-file "$tmp/node-tokens" \
	--cluster-state "$HVREADY_SRC/examples/cluster" 2>"$tmp/bad.log"; then
	fail "serve started with a node token file readable by others"
fi
grep -q "readable by others" "$tmp/bad.log" || fail "no reason: $(cat "$tmp/bad.log")"
chmod 600 "$tmp/node-tokens"
start_aggregator "$tmp/agg.log" --node-token-file "$tmp/node-tokens" \
	--cluster-state "$HVREADY_SRC/examples/cluster" || fail "the aggregator did not start"
expect 200 "node 1's token for node 1" "$(post "$T1" 1)"
expect 200 "node 2's token for node 2" "$(post "$T2" 2)"
expect 403 "node 1's token for node 2" "$(post "$T1" 2)"
grep -q "another node's" "$tmp/body" || fail "403 without the reason: $(cat "$tmp/body")"
expect 403 "node 1's token inventing node 3" "$(post "$T1" 3)"
expect 401 "a token nobody was given" "$(post "$T1-x" 1)"
grep -q "refused a report for node harvester-node-2 (403)" "$tmp/agg.log" || fail "no log line for the 403"
# Re-read on change: node 3 added, node 1's token moved to node 3.
T3="node-3-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
printf 'harvester-node-3 %s\nharvester-node-2 %s\nharvester-node-1 %s\n' "$T1" "$T2" "$T3" >"$tmp/node-tokens"
sleep 2.5
expect 200 "after the re-read, node 1's old token for node 3" "$(post "$T1" 3)"
expect 403 "after the re-read, node 1's old token for node 1" "$(post "$T1" 1)"
expect 200 "after the re-read, node 1's new token" "$(post "$T3" 1)"
grep -q "re-read: 3 node tokens" "$tmp/agg.log" || fail "no log line for the re-read"
for t in "$T1" "$T2" "$T3"; do
	grep -q "$t" "$tmp/agg.log" && fail "a node token in the log"
done
stop_aggregator || fail "the aggregator did not stop cleanly"

echo "== 2. a byte budget for stored reports"
printf 'shared-%s\n' "$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$tmp/token"
chmod 600 "$tmp/token"
TOKEN=$(cat "$tmp/token")
# Room for a few nodes' reports of this size, far fewer than 300.
one=$(stat -c %s "$tmp/reports/harvester-node-1.msgpack")
budget=$((one * 8))
start_aggregator "$tmp/agg2.log" --token-file "$tmp/token" --max-report-bytes "$budget" \
	--cluster-state "$HVREADY_SRC/examples/cluster" || fail "the aggregator did not start"
expect 200 "node 1 with the shared token" "$(post "$TOKEN" 1)"
"$PY" "$HVREADY_SRC/tests/tools/report_flood.py" --port "${AGG_URL##*:}" --template "$tmp/reports/harvester-node-2.msgpack" \
	--token-file "$tmp/token" --nodes 300 --prefix invented-node- --threads 4 --duration 4 \
	>"$tmp/flood.json" 2>"$tmp/flood.err" || fail "report_flood: $(cat "$tmp/flood.err")"
held=$(curl -fsS --max-time 10 "$AGG_URL/v1/nodes" | "$PY" -c 'import json, sys; print(len(json.load(sys.stdin)["nodes"]))')
echo "  300 invented nodes, budget $budget bytes: $held nodes held, $(cat "$tmp/flood.json")"
[ "$held" -lt 300 ] || fail "all 300 invented nodes were stored"
[ "$held" -ge 2 ] || fail "not even one invented node fitted ($held held)"
grep -q '"503"' "$tmp/flood.json" || fail "no 503 in the flood: $(cat "$tmp/flood.json")"
grep -q "over --max-report-bytes $budget: refusing reports from new nodes" "$tmp/agg2.log" ||
	fail "no log line for the budget"
code=$(post "$TOKEN" 3)
expect 503 "a new node past the budget" "$code"
grep -q "max-report-bytes" "$tmp/body" || fail "503 without the reason"
expect 200 "node 1, held, past the budget" "$(post "$TOKEN" 1)"
stop_aggregator || fail "the aggregator did not stop cleanly"
echo "node_credentials: all passed"
