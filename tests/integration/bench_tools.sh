#!/usr/bin/env bash
# The make bench tools still work against this build: clone_reports writes
# reports the aggregator reads (files and pack), loadgen's POSTs are accepted by
# the real aggregator (auth, content type, a fresh sent_ns on every repeat) and
# by bench/bare_server, and the summary turns raw results into results.json.
# Functional only: no performance assertion here (that is make bench's job).
set -uo pipefail
SRC=${HVREADY_SRC:?}
BIN=${HVREADY_BIN:?}
BUILD=${HVREADY_BUILD:?}
# shellcheck source=../../bench/lib.sh
. "$SRC/bench/lib.sh"
bench_init hvready-bench-tools
fail() {
	echo "FAIL: $*" >&2
	for f in "$tmp"/*.log "$tmp"/*.err; do [ -s "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
	exit 1
}
json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

bash "$SRC/bench/build_tools.sh" "$BUILD" "$tmp/tools" 2>"$tmp/build.err" || fail "bench/build_tools.sh"

# A real report of this machine, cloned under 20 node names.
"$BIN/hvready-agent" check --skip host.nfs.probe,host.image.share-manager --node harvester-node-1 \
	--format msgpack --output "$tmp/template.msgpack" 2>"$tmp/agent.err"
[ -s "$tmp/template.msgpack" ] || fail "hvready-agent check --format msgpack wrote nothing"
"$tmp/tools/clone_reports" --template "$tmp/template.msgpack" --count 20 --out-dir "$tmp/reports" \
	--pack "$tmp/pack" 2>"$tmp/clone.err" || fail "clone_reports"
cloned_at=$(date +%s%N)
[ "$(find "$tmp/reports" -name '*.msgpack' | wc -l)" -eq 20 ] || fail "clone_reports: not 20 files"
"$tmp/tools/clone_reports" --template "$tmp/reports" --count 1 --pack "$tmp/x" 2>"$tmp/bad.err" &&
	fail "clone_reports accepted a directory as --template"
grep -q -- '--template' "$tmp/bad.err" || fail "clone_reports: the error does not name --template"

# The clones as node report files: every one is read, under its own name.
"$BIN/hvready-aggregator" report --cluster-state "$SRC/examples/cluster" --node-reports "$tmp/reports" \
	--format json >"$tmp/report.json" 2>"$tmp/report.err"
rc=$?
if [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then fail "report exited $rc"; fi
[ "$(json "$tmp/report.json" 'len(d["nodes"])')" -ge 20 ] || fail "report: fewer than 20 nodes"
json "$tmp/report.json" '[n for n in d["nodes"] if n.get("name") == "harvester-node-17"][0]["name"]' \
	>/dev/null 2>&1 || fail "report: harvester-node-17 is not among the nodes"

# The pack over HTTP to the aggregator: 20 nodes once (prefill), then repeats.
head -c 32 /dev/urandom | base64 | tr -d '=+/' >"$tmp/token"
chmod 600 "$tmp/token"
bench_aggregator "$tmp/agg.log" 30 --token-file "$tmp/token" --cluster-state "$SRC/examples/cluster" ||
	fail "aggregator did not start"
port=$agg_port
"$tmp/tools/loadgen" --port "$port" --pack "$tmp/pack" --connections 4 --duration 1 --warmup 0.2 \
	--verdict-every-ms 200 --prefill-timeout 60 --token-file "$tmp/token" >"$tmp/agg.json" \
	2>"$tmp/loadgen.err" || fail "loadgen against the aggregator did not complete"
[ "$(json "$tmp/agg.json" 'd["prefill"]["ok"]')" -eq 20 ] || fail "prefill: not 20 reports accepted"
[ "$(json "$tmp/agg.json" 'd["status"]["4xx"] + d["status"]["5xx"]')" -eq 0 ] ||
	fail "the aggregator rejected reports: $(json "$tmp/agg.json" 'd["first_error"]')"
[ "$(json "$tmp/agg.json" 'd["ok"]')" -gt 0 ] || fail "no report answered in the window"
nodes=$(curl -sf --max-time 30 "http://127.0.0.1:$port/v1/nodes" |
	python3 -c 'import json, sys; print(len(json.load(sys.stdin)["nodes"]))') || fail "GET /v1/nodes"
[ "$nodes" -eq 20 ] || fail "the aggregator holds $nodes nodes, not 20"
# loadgen stamps every POST with the time it sends it: the stored report of a
# node is newer than its clone (written before the aggregator started).
sent=$(curl -sf --max-time 30 "http://127.0.0.1:$port/v1/nodes/harvester-node-3" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["sent_ns"])') ||
	fail "GET /v1/nodes/harvester-node-3"
[ "$sent" -gt "$cloned_at" ] || fail "the stored report is the clone's ($sent <= $cloned_at): sent_ns not stamped"
unauth=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/msgpack' \
	--data-binary @"$tmp/template.msgpack" "http://127.0.0.1:$port/v1/reports")
[ "$unauth" = 401 ] || fail "a POST without the token got $unauth, not 401"

# The baseline server answers the same load with 204.
"$tmp/tools/bare_server" --port 0 >"$tmp/bare.out" 2>"$tmp/bare.err" &
pids+=($!)
bport=$(wait_log "$tmp/bare.out" '^listening on 127\.0\.0\.1:([0-9]+)$' 30) || fail "bare_server did not start"
"$tmp/tools/loadgen" --port "$bport" --pack "$tmp/pack" --connections 4 --duration 1 --warmup 0.2 \
	>"$tmp/bare.json" 2>"$tmp/loadgen.err" || fail "loadgen against bare_server did not complete"
[ "$(json "$tmp/bare.json" 'd["status"]["2xx"]')" -gt 0 ] || fail "bare_server answered nothing"
[ "$(json "$tmp/bare.json" 'd["non2xx"] + d["conn_errors"]')" -eq 0 ] || fail "bare_server errors"
"$tmp/tools/loadgen" --port "$bport" --pack "$tmp/template.msgpack" --connections 1 >/dev/null \
	2>"$tmp/badpack.err" && fail "loadgen accepted a file that is not a pack"

# The summary: a raw directory with one figure's data becomes results.json,
# and every figure without data is "not measured" (exit 1), never a pass.
mkdir -p "$tmp/raw"
printf '0.010\t4096\t1\n0.012\t4100\t1\n0.011\t4090\t1\n' >"$tmp/raw/agent_check.tsv"
printf '0.020\t9000\t1\n0.021\t9100\t1\n0.022\t9050\t1\n' >"$tmp/raw/vhv.tsv"
python3 "$SRC/bench/summarize.py" "$tmp/raw" "$tmp/results.json" >"$tmp/table.txt"
[ $? -eq 1 ] || fail "summarize.py: exit status is not 1 with figures missing"
[ "$(json "$tmp/results.json" '[f["result"] for f in d["figures"] if f["id"] == "agent.check.wall"][0]')" = pass ] ||
	fail "summarize.py: 11 ms vs 21 ms is not a pass"
[ "$(json "$tmp/results.json" '[f["result"] for f in d["figures"] if f["id"] == "agent.check.rss"][0]')" = pass ] ||
	fail "summarize.py: 4 MiB is not a pass against 8 MiB"
[ "$(json "$tmp/results.json" 'd["summary"]["not measured"] == len(d["figures"]) - 2')" = True ] ||
	fail "summarize.py: figures without data are not all 'not measured'"
echo "bench tools: OK"
