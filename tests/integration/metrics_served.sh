#!/usr/bin/env bash
# GET /metrics of a running aggregator (token auth, examples/cluster), scraped
# with curl and checked by the strict exposition parser
# (tests/tools/check_exposition.py, whose self-test runs first): before any
# report; then after rejected POSTs (401 without or with a wrong token, 415
# for another media type, 400 for a body that is no report) and accepted ones
# (two agents' reports, one sent twice): the counters count exactly that, and
# the reporting nodes get their series.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"

serve_test_init
FAIL_TAIL=200 # the aggregator's whole log
CHECK="python3 $HVREADY_SRC/tests/tools/check_exposition.py"

$CHECK --self-test || fail "the exposition checker's self-test"

# Scrape /metrics into NAME.prom, check it strictly, keep its samples in NAME.json.
scrape() {
	curl -fsS --max-time 5 -D "$tmp/$1.headers" -o "$tmp/$1.prom" "$AGG_URL/metrics" ||
		fail "GET /metrics"
	grep -qi '^content-type: text/plain; version=0.0.4; charset=utf-8' "$tmp/$1.headers" ||
		fail "Content-Type of /metrics: $(grep -i '^content-type' "$tmp/$1.headers")"
	$CHECK "$tmp/$1.prom" || fail "scrape $1 is not a valid exposition"
	$CHECK --json "$tmp/$1.prom" >"$tmp/$1.json"
}

# expect NAME 'METRIC' 'LABELS as JSON' VALUE: the sample is there with that value.
expect() {
	has_sample "$@" || fail "scrape $1: $2 $3"
}
has_sample() {
	python3 - "$tmp/$1.json" "$2" "$3" "$4" <<'PY'
import json, sys
samples = json.load(open(sys.argv[1]))
name, labels, want = sys.argv[2], json.loads(sys.argv[3]), float(sys.argv[4])
got = [s["value"] for s in samples if s["name"] == name and s["labels"] == labels]
if got != [want]:
    print("%s%s: want %g, got %s" % (name, labels, want, got or "no such series"))
    sys.exit(1)
PY
}

# POST FILE CONTENT-TYPE TOKEN → the HTTP status.
post() {
	local auth=()
	[ -n "$3" ] && auth=(-H "Authorization: Bearer $3")
	curl -sS -o "$tmp/post.out" -w '%{http_code}' --max-time 10 "${auth[@]}" \
		-H "Content-Type: $2" --data-binary "@$1" "$AGG_URL/v1/reports"
}

(umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/token")
token=$(cat "$tmp/token")
start_aggregator "$tmp/agg.log" --token-file "$tmp/token" \
	--cluster-state "$HVREADY_SRC/examples/cluster" --interval 5 ||
	fail "the aggregator did not start"

echo "== before any report"
scrape s0
expect s0 hvready_reports_received_total '{}' 0
for reason in unauthorized forbidden bad_report unsupported_media_type too_large other; do
	expect s0 hvready_report_rejected_total "{\"reason\": \"$reason\"}" 0
done
python3 - "$tmp/s0.json" <<'PY' || fail "gate and verdict series"
import json, sys
s = json.load(open(sys.argv[1]))
gates = {}
for x in s:
    if x["name"] == "hvready_gate_status":
        gates.setdefault(x["labels"]["gate"], []).append((x["labels"]["status"], x["value"]))
assert sorted(gates) == ["live-migration", "platform", "preinstall", "rwx"], gates
for g, v in gates.items():
    assert sorted(st for st, _ in v) == ["FAIL", "PASS", "UNKNOWN", "WARN"], (g, v)
    assert sum(val for _, val in v) == 1, (g, v)
# No agent has reported: every gate is UNKNOWN, and so is the verdict.
assert all(dict(v)["UNKNOWN"] == 1 for v in gates.values()), gates
vs = [x for x in s if x["name"] == "hvready_verdict_status"]
assert vs == [{"name": "hvready_verdict_status", "labels": {"status": "UNKNOWN"}, "value": 1}], vs
res = [x for x in s if x["name"] == "hvready_resource_status"]
assert len(res) >= 30 and all(x["value"] == 1 for x in res), len(res)
nodes = sorted(x["labels"]["node"] for x in s
               if x["name"] == "hvready_node_reporting" and x["value"] == 0)
assert nodes == ["harvester-node-1", "harvester-node-2", "harvester-node-3"], nodes
print("before any report: %d samples, every gate UNKNOWN" % len(s))
PY

echo "== rejected reports"
node_reports "$tmp/reports"
r1=$tmp/reports/harvester-node-1.msgpack
r2=$tmp/reports/harvester-node-2.msgpack
printf 'not msgpack at all' >"$tmp/garbage"
[ "$(post "$r1" application/msgpack "")" = 401 ] || fail "no token: not 401"
[ "$(post "$r1" application/msgpack "wrong-$token")" = 401 ] || fail "a wrong token: not 401"
[ "$(post "$r1" application/json "$token")" = 415 ] || fail "application/json: not 415"
[ "$(post "$tmp/garbage" application/msgpack "$token")" = 400 ] || fail "garbage: not 400"

echo "== accepted reports"
[ "$(post "$r1" application/msgpack "$token")" = 200 ] || fail "report 1: $(cat "$tmp/post.out")"
[ "$(post "$r2" application/msgpack "$token")" = 200 ] || fail "report 2: $(cat "$tmp/post.out")"
# The same report again: not newer than the one held, so stale.
[ "$(post "$r1" application/msgpack "$token")" = 200 ] || fail "report 1 again"

# The verdict follows within a second or two.
for _ in $(seq 1 50); do
	scrape s1
	if has_sample s1 hvready_node_reporting '{"node": "harvester-node-2"}' 1 >/dev/null; then
		break
	fi
	sleep 0.2
done
expect s1 hvready_reports_received_total '{}' 7
expect s1 hvready_reports_accepted_total '{}' 2
expect s1 hvready_reports_stale_total '{}' 1
expect s1 hvready_report_rejected_total '{"reason": "unauthorized"}' 2
expect s1 hvready_report_rejected_total '{"reason": "unsupported_media_type"}' 1
expect s1 hvready_report_rejected_total '{"reason": "bad_report"}' 1
expect s1 hvready_report_rejected_total '{"reason": "forbidden"}' 0
expect s1 hvready_node_reporting '{"node": "harvester-node-1"}' 1
expect s1 hvready_node_reporting '{"node": "harvester-node-2"}' 1
expect s1 hvready_node_reporting '{"node": "harvester-node-3"}' 0
python3 - "$tmp/s1.json" "$tmp/s0.json" <<'PY' || fail "series after the reports"
import json, sys
s1, s0 = (json.load(open(p)) for p in sys.argv[1:3])
ages = {x["labels"]["node"]: x["value"] for x in s1 if x["name"] == "hvready_node_report_age_seconds"}
assert sorted(ages) == ["harvester-node-1", "harvester-node-2"], ages
assert all(0 <= a < 60 for a in ages.values()), ages
kvm = {x["labels"]["node"] for x in s1
       if x["name"] == "hvready_check_status" and x["labels"]["check"] == "host.kvm"}
assert {"harvester-node-1", "harvester-node-2"} <= kvm, kvm
# Counters never go down.
def counters(s):
    return {(x["name"], tuple(sorted(x["labels"].items()))): x["value"]
            for x in s if x["name"].endswith("_total")}
c0, c1 = counters(s0), counters(s1)
assert all(c1.get(k, -1) >= v for k, v in c0.items()), (c0, c1)
print("after 7 POSTs: %d samples; counters and node series as expected" % len(s1))
PY
stop_aggregator || fail "the aggregator did not exit cleanly on SIGTERM (exit $?)"
echo "metrics_served: OK"
