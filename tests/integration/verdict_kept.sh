#!/usr/bin/env bash
# serve renders a view of the verdict (text, Markdown, HTML, the dashboard) once
# per verdict: asked for again before the next evaluation, the same view is sent
# from the rendering kept (at 5,000 nodes a rendering takes seconds and builds
# the finding groups each time). Counted, not timed: /metrics'
# hvready_verdict_renderings_total may grow by at most one per view and verdict
# evaluated while 30 GETs of three views are answered (before: by 30). The kept
# bytes are those a fresh rendering makes, and a new verdict is rendered anew: a
# report POSTed afterwards shows in the text view. The last evaluation's wall
# and CPU time are in /metrics too.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"

serve_test_init
FAIL_TAIL=100

(umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/token")
token=$(cat "$tmp/token")
start_aggregator "$tmp/agg.log" --token-file "$tmp/token" \
	--cluster-state "$HVREADY_SRC/examples/cluster" --interval 5 ||
	fail "the aggregator did not start"

# metric NAME: its value in a fresh scrape (empty if absent).
metric() {
	curl -fsS --max-time 5 -o "$tmp/m.prom" "$AGG_URL/metrics" || fail "GET /metrics"
	awk -v n="$1" '$1 == n { print $2 }' "$tmp/m.prom"
}
get() { # PATH OUT
	curl -fsS --max-time 10 -o "$2" "$AGG_URL$1" || fail "GET $1"
}

get '/v1/verdict?format=text' "$tmp/first.txt" # waits for the first verdict
e0=$(metric hvready_verdict_evaluations_total)
r0=$(metric hvready_verdict_renderings_total)
[ -n "$e0" ] && [ -n "$r0" ] || fail "no hvready_verdict_evaluations_total / _renderings_total in /metrics"
# The last evaluation's times: present once one was served, CPU within wall
# (a 3-node cluster: milliseconds, far below a second).
ew=$(metric hvready_verdict_evaluation_seconds)
ec=$(awk '$1 == "hvready_verdict_evaluation_cpu_seconds" { print $2 }' "$tmp/m.prom")
[ -n "$ew" ] && [ -n "$ec" ] || fail "no hvready_verdict_evaluation_seconds / _cpu_seconds in /metrics"
awk -v w="$ew" -v c="$ec" 'BEGIN { exit !(w > 0 && c > 0 && c <= w + 0.005 && w < 5) }' ||
	fail "evaluation times wall $ew s, CPU $ec s: want 0 < CPU <= wall < 5"
en=$(awk '$1 == "hvready_verdict_evaluation_nodes" { print $2 }' "$tmp/m.prom")
[ "$en" = 0 ] || fail "hvready_verdict_evaluation_nodes $en before any report, want 0"
for i in $(seq 1 10); do
	get '/v1/verdict?format=text' "$tmp/text.$i"
	get '/v1/verdict?format=html&gate=platform' "$tmp/html.$i"
	get '/?refresh=0' "$tmp/page.$i"
done
e1=$(metric hvready_verdict_evaluations_total)
r1=$(metric hvready_verdict_renderings_total)
made=$((r1 - r0))
verdicts=$((e1 - e0 + 1))
echo "30 GETs of 3 views: $made renderings, $verdicts verdicts served meanwhile"
[ "$made" -le $((3 * verdicts)) ] ||
	fail "$made renderings for 30 GETs of 3 views over $verdicts verdicts (at most $((3 * verdicts)))"

# The kept bytes are a rendering of the verdict: with the evaluations stopped
# (no new report, and within the 5 s refresh) two answers of one verdict are
# equal; across verdicts only the text's times may differ, so compare a view
# without them: the HTML of one gate has no ages of its own here.
for i in $(seq 2 10); do
	cmp -s "$tmp/html.1" "$tmp/html.$i" || [ "$e1" != "$e0" ] ||
		fail "two HTML answers of one verdict differ"
done

# A new verdict is rendered anew: a node's report shows in the text once the
# verdict that holds it is served.
node_reports "$tmp/reports"
code=$(curl -sS -o "$tmp/post.out" -w '%{http_code}' --max-time 10 \
	-H "Authorization: Bearer $token" -H 'Content-Type: application/msgpack' \
	--data-binary "@$tmp/reports/harvester-node-1.msgpack" "$AGG_URL/v1/reports")
[ "$code" = 200 ] || fail "POST a report: $code $(cat "$tmp/post.out")"
e2=$(metric hvready_verdict_evaluations_total)
wait_for 20 "a verdict evaluated after the report" \
	bash -c "[ \"\$(curl -fsS --max-time 5 '$AGG_URL/metrics' | awk '\$1 == \"hvready_verdict_evaluations_total\" { print \$2 }')\" -gt $e2 ]"
get '/v1/verdict?format=text' "$tmp/after.txt"
[ "$(metric hvready_verdict_evaluation_nodes)" = 1 ] ||
	fail "hvready_verdict_evaluation_nodes $(metric hvready_verdict_evaluation_nodes) after one report, want 1"
# (host checks: only from a report)
grep -q 'host\.' "$tmp/after.txt" || fail "the text verdict after the report has no host check"
if grep -q 'host\.' "$tmp/first.txt"; then fail "the first text verdict had a host check already"; fi

stop_aggregator || fail "the aggregator did not stop cleanly"
echo "PASS"
