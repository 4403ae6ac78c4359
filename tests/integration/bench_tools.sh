#!/usr/bin/env bash
# The make bench tools still work against this build: clone_reports writes
# reports the aggregator reads (files and pack), generated ones the same bytes on
# every run with every cross-node check doing its work (and check_work.py's
# NOT MEASURED when one does not), loadgen's POSTs are accepted by
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
# shellcheck source=../tools/test_lib.sh
. "$SRC/tests/tools/test_lib.sh"
FAIL_TAIL=20
FAIL_GLOB="$tmp/*.err"
json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

bash "$SRC/bench/build_tools.sh" "$BUILD" "$tmp/tools" 2>"$tmp/build.err" || fail "bench/build_tools.sh"

# timed_run (run.sh's timer): the command's exit, its CPU and peak RSS, 124 at -t,
# 127 when it cannot be started; the line is "wall_s rss_kib exit cpu_s".
T="$tmp/tools/timed_run"
"$T" -o "$tmp/t.out" -- sh -c 'exit 3' && fail "timed_run: exit 3 came back as 0"
read -r w r e c <"$tmp/t.out"
[ "$e" = 3 ] && [ "$r" -gt 0 ] || fail "timed_run: 'exit 3' wrote: $(cat "$tmp/t.out")"
awk -v w="$w" -v c="$c" 'BEGIN { exit !(w > 0 && w < 5 && c >= 0) }' || fail "timed_run: times $w $c"
"$T" -o "$tmp/t.out" -- python3 -c 'x = bytearray(64 << 20); import time; t = time.process_time()
while time.process_time() - t < 0.3: pass' || fail "timed_run: python3 failed"
read -r w r e c <"$tmp/t.out"
[ "$r" -gt 65536 ] || fail "timed_run: a 64 MiB process's peak RSS read $r KiB"
awk -v w="$w" -v c="$c" 'BEGIN { exit !(c >= 0.3 && w >= c * 0.9) }' || fail "timed_run: 0.3 s of CPU read cpu $c wall $w"
"$T" -o "$tmp/t.out" -t 0.5 -- sleep 30
[ "$?" -eq 124 ] || fail "timed_run -t 0.5 -- sleep 30 did not end with 124"
read -r w r e c <"$tmp/t.out"
[ "$e" = 124 ] && awk -v w="$w" 'BEGIN { exit !(w >= 0.5 && w < 10) }' || fail "timed_run -t: $(cat "$tmp/t.out")"
"$T" -o "$tmp/t.out" -- /nonexistent/cmd 2>"$tmp/t.err"
[ "$?" -eq 127 ] && grep -q '/nonexistent/cmd' "$tmp/t.err" || fail "timed_run: a missing command is not 127 with its name"

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

# Generated reports (bench/gen_node.c): the same bytes on every run (and so on
# every machine: nothing is read from this one), accepted by the aggregator,
# and every cross-node check does its full work on them (bench/check_work.py).
gen() { "$tmp/tools/clone_reports" --generate --seed 1 "$@" 2>>"$tmp/gen.err"; }
for n in 5 20; do
	python3 "$SRC/examples/gen_cluster.py" --nodes "$n" --vms $((n * 10)) --out "$tmp/c$n" >/dev/null ||
		fail "examples/gen_cluster.py --nodes $n"
done
for n in 5 20; do
	for cpus in intel amd; do
		g="$tmp/gen-$cpus-$n"
		for run in a b; do
			gen --cpus "$cpus" --count "$n" --out-dir "$g.$run" --manifest "$g.$run.manifest.json" \
				--pack "$g.$run.pack" || fail "clone_reports --generate --cpus $cpus --count $n"
		done
		[ "$(find "$g.a" -name '*.msgpack' | wc -l)" -eq "$n" ] || fail "generate $cpus $n: not $n files"
		diff -r "$g.a" "$g.b" >/dev/null || fail "generate $cpus $n: two runs wrote different reports"
		cmp -s "$g.a.pack" "$g.b.pack" || fail "generate $cpus $n: two runs wrote different packs"
		cmp -s "$g.a.manifest.json" "$g.b.manifest.json" || fail "generate $cpus $n: manifests differ"
	done
done
for g in "$tmp"/gen-intel-20.a "$tmp"/gen-amd-20.a "$tmp"/gen-intel-5.a "$tmp"/gen-amd-5.a; do
	n=${g%.a}
	n=${n##*-}
	"$BIN/hvready-aggregator" report --cluster-state "$tmp/c$n" --node-reports "$g" --format json \
		>"$g.json" 2>"$tmp/report.err"
	rc=$?
	if [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then fail "report on $(basename "$g") exited $rc"; fi
	[ "$(json "$g.json" '[f["status"] for f in d["findings"] if f["check"].startswith("cluster.") and not f.get("node")].count("UNKNOWN")')" -eq 0 ] ||
		fail "report on $(basename "$g"): a cross-node check is UNKNOWN"
	[ "$(json "$g.json" '[f["status"] for f in d["findings"] if f["check"] == "cluster.cpu.compat"][0]')" = WARN ] ||
		fail "report on $(basename "$g"): cluster.cpu.compat found no flag difference"
done
# HVREADY_TIMINGS=1: one "timing<TAB>ID<TAB>ms" line per check on stderr, the
# verdict unchanged; without it, none.
HVREADY_TIMINGS=1 "$BIN/hvready-aggregator" report --cluster-state "$tmp/c20" \
	--node-reports "$tmp/gen-intel-20.a" --format json >"$tmp/timed.json" 2>"$tmp/timings.err"
grep -Eq '^timing	cluster\.cpu\.compat	[0-9]+\.[0-9]{3}$' "$tmp/timings.err" ||
	fail "HVREADY_TIMINGS=1: no timing line for cluster.cpu.compat"
[ "$(grep -c '^timing	' "$tmp/timings.err")" -ge 20 ] || fail "HVREADY_TIMINGS=1: fewer than 20 timing lines"
grep -q '^timing' "$tmp/report.err" && fail "timing lines without HVREADY_TIMINGS"
[ "$(json "$tmp/timed.json" 'len(d["findings"])')" = "$(json "$tmp/gen-intel-20.a.json" 'len(d["findings"])')" ] ||
	fail "HVREADY_TIMINGS=1 changed the verdict"
grep -Eq '^timing	\(render json\)	[0-9]+\.[0-9]{3}$' "$tmp/timings.err" ||
	fail "HVREADY_TIMINGS=1: no timing line for the rendering"
# Figure 2g's inputs: one host failure on every node (--no-kvm), grouped into one
# card, and with HVREADY_BENCH_NO_GROUPING=1 a card per node, the verdict the same.
"$tmp/tools/clone_reports" --generate --cpus intel --seed 1 --count 20 --no-kvm \
	--out-dir "$tmp/nokvm" 2>"$tmp/clone.err" || fail "clone_reports --generate --no-kvm"
for nog in "" 1; do
	HVREADY_BENCH_NO_GROUPING=$nog "$BIN/hvready-aggregator" report --cluster-state "$tmp/c20" \
		--node-reports "$tmp/nokvm" --format text >"$tmp/nokvm$nog.txt" 2>"$tmp/report.err"
	rc=$?
	if [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then fail "report on --no-kvm reports exited $rc"; fi
done
grep -q 'host.kvm.*20 nodes' "$tmp/nokvm.txt" || fail "20 host.kvm FAILs are not one card"
grep -q 'host.kvm.*20 nodes' "$tmp/nokvm1.txt" && fail "HVREADY_BENCH_NO_GROUPING=1 still groups"
[ "$(grep -c 'host.kvm' "$tmp/nokvm1.txt")" -ge 20 ] || fail "HVREADY_BENCH_NO_GROUPING=1: not a card per node"
[ "$(wc -l <"$tmp/nokvm1.txt")" -gt "$(wc -l <"$tmp/nokvm.txt")" ] || fail "ungrouped is not longer"
python3 "$SRC/bench/check_work.py" "$tmp/gen-intel-20.a.json" "$tmp/gen-intel-20.a.manifest.json" \
	>"$tmp/work.out" || fail "check_work.py: not every check did its work on 20 generated nodes: $(grep NOT "$tmp/work.out")"
grep -q '^  cluster.cpu.compat .* full$' "$tmp/work.out" || fail "check_work.py: cluster.cpu.compat is not 'full'"
grep -q '^  cluster.clock.skew .* n/a offline$' "$tmp/work.out" || fail "check_work.py: clock.skew is not 'n/a offline'"
python3 "$SRC/bench/check_work.py" "$tmp/gen-amd-5.a.json" "$tmp/gen-amd-5.a.manifest.json" \
	>"$tmp/work.out" 2>&1 || fail "check_work.py: 5 AMD nodes: $(grep NOT "$tmp/work.out")"
# The guard: without KVM (and with mixed vendors) cluster.cpu.compat compares
# nothing, and the figure must say NOT MEASURED, not pass.
for mode in no-kvm mixed; do
	g="$tmp/gen-$mode"
	if [ "$mode" = no-kvm ]; then args=(--no-kvm); else args=(--cpus mixed); fi
	gen "${args[@]}" --count 20 --out-dir "$g" --manifest "$g.manifest.json" || fail "generate $mode"
	"$BIN/hvready-aggregator" report --cluster-state "$tmp/c20" --node-reports "$g" --format json \
		>"$g.json" 2>"$tmp/report.err"
	python3 "$SRC/bench/check_work.py" "$g.json" "$g.manifest.json" >"$tmp/work.out"
	[ $? -eq 1 ] || fail "check_work.py: $mode: exit status is not 1"
	grep -q '^NOT MEASURED cluster.cpu.compat: ' "$tmp/work.out" || fail "check_work.py: $mode: no NOT MEASURED line"
done
[ "$(json "$tmp/gen-no-kvm.manifest.json" 'd["kvm_nodes"]')" -eq 0 ] || fail "--no-kvm: the manifest counts KVM nodes"

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
# The target is 0.3 x virt-host-validate's wall time (issue #22): 11 ms vs 21 ms misses it.
[ "$(json "$tmp/results.json" '[f["result"] for f in d["figures"] if f["id"] == "agent.check.wall"][0]')" = fail ] ||
	fail "summarize.py: 11 ms vs 21 ms is not a fail against 0.3 x the peer"
printf '0.006\t4096\t1\n0.005\t4100\t1\n0.006\t4090\t1\n' >"$tmp/raw/agent_check.tsv"
printf '4.500\n' >"$tmp/raw/agent_check_cpu_ms"
printf '15.000\n' >"$tmp/raw/vhv_cpu_ms"
printf 'timing\thost.kvm\t2.000\t0.500\ntiming\thost.kvm\t4.000\t0.700\ntiming\thost.kvm\t3.000\t0.600\ntiming\tfacts\t0.100\t0.050\n' \
	>"$tmp/raw/agent_timings.tsv"
python3 "$SRC/bench/summarize.py" "$tmp/raw" "$tmp/results.json" >"$tmp/table.txt"
[ "$(json "$tmp/results.json" '[f["result"] for f in d["figures"] if f["id"] == "agent.check.wall"][0]')" = pass ] ||
	fail "summarize.py: 6 ms vs 21 ms is not a pass against 0.3 x the peer"
[ "$(json "$tmp/results.json" '[f["detail"]["cpu_ratio"] for f in d["figures"] if f["id"] == "agent.check.wall"][0]')" = 0.3 ] ||
	fail "summarize.py: CPU 4.5 ms vs 15 ms is not a ratio of 0.3"
grep -Eq '^  host\.kvm +wall +3\.00 ms  CPU +0\.60 ms$' "$tmp/table.txt" ||
	fail "summarize.py: no per-check line with host.kvm's medians: $(cat "$tmp/table.txt")"
grep -q '^agent check, CPU time .*4\.5 ms, virt-host-validate 15\.0 ms (0\.30 x)' "$tmp/table.txt" ||
	fail "summarize.py: no CPU time line"
[ "$(json "$tmp/results.json" '[f["result"] for f in d["figures"] if f["id"] == "agent.check.rss"][0]')" = pass ] ||
	fail "summarize.py: 4 MiB is not a pass against 8 MiB"
[ "$(json "$tmp/results.json" 'd["summary"]["not measured"] == len(d["figures"]) - 2')" = True ] ||
	fail "summarize.py: figures without data are not all 'not measured'"
echo "bench tools: OK"
