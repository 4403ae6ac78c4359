#!/usr/bin/env bash
# make bench: hvready's performance figures, each measured side by side with its
# peer in the same run, as medians of repeated runs. Writes bench/results.json
# and prints a table. docs/benchmarks.md explains every figure and the method.
#
#   bash bench/run.sh [BUILD_DIR]       (make bench builds first)
#
# Exit status: 0 when every figure was measured (a missed target is reported,
# not an error); 1 when a figure could not be measured (the reason is printed
# and recorded in results.json); 2 when the harness itself cannot run.
#
# Everything talks to loopback only. Every process started here is stopped by
# its PID on exit, even on failure. Generated inputs are cached under
# BUILD/bench/data (keyed on the generator's hash); raw measurements go to
# BUILD/bench/raw.
#
# Knobs (environment): BENCH_RUNS (fast commands, default 20), BENCH_REPORT_RUNS
# (default 5), BENCH_REPORT_TIMEOUT (s per report run, default 120), BENCH_INGEST_ROUNDS
# (default 5), BENCH_INGEST_SECONDS (default 10), BENCH_PREFILL_SECONDS (default 60),
# BENCH_DAEMON_SECONDS (default 60), BENCH_SECTIONS (which figures to measure, default
# "1 2 3 4"; a partial run writes BUILD/bench/results.partial.json, not bench/results.json),
# BENCH_SCALE_NODES (the sizes of the scaling figure, default "50 500 5000"),
# BENCH_SCALE_RUNS (timed runs per size, default 3, fewer past BENCH_REPORT_BUDGET s),
# BENCH_SCALE_TIMEOUT (s per run, default 300), BENCH_GEN_CPUS (the generated
# nodes' CPUs: intel, the default, or amd; mixed makes cluster.cpu.compat stop at
# the vendor comparison, and the figures are then not measured).
set -uo pipefail
export LC_ALL=C

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
bench_dirs "${1:-}" bench
DATA="$WORK/data"
RAW="$WORK/raw"
TOOLS="$WORK/tools"

RUNS=${BENCH_RUNS:-20}
REPORT_RUNS=${BENCH_REPORT_RUNS:-5}
REPORT_TIMEOUT=${BENCH_REPORT_TIMEOUT:-120}
REPORT_BUDGET=${BENCH_REPORT_BUDGET:-90}
ROUNDS=${BENCH_INGEST_ROUNDS:-5}
INGEST_S=${BENCH_INGEST_SECONDS:-10}
DAEMON_S=${BENCH_DAEMON_SECONDS:-60}
CONNS=1000
VERDICT_MS=200
PREFILL_S=${BENCH_PREFILL_SECONDS:-60}
NODES_INGEST=5000
SECTIONS=" ${BENCH_SECTIONS:-1 2 3 4} "
want() { case "$SECTIONS" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
SKIP_PROBES=host.nfs.probe,host.image.share-manager

bench_init hvready-bench
# A figure that could not be measured: recorded for summarize.py, which fails the run.
not_measured() { printf '%s\t%s\n' "$1" "$2" >>"$RAW/not_measured.tsv"; say "NOT MEASURED $1: $2"; }
harness_fail() { echo "bench: $*" >&2; exit 2; }

# Stop one process started here, by PID; SIGKILL if it ignores SIGTERM for 10 s.
stop_pid() {
	local p=$1 i
	kill "$p" 2>/dev/null || return 0
	for i in $(seq 1 100); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	local keep=()
	for i in "${pids[@]}"; do [ "$i" != "$p" ] && keep+=("$i"); done
	pids=("${keep[@]}")
}

# run_timed OUT [-t SECONDS] CMD...: one run; appends
# "wall_s<TAB>peak_rss_kib<TAB>exit<TAB>cpu_s" to OUT (cpu_s: user + system time,
# which other load on the machine changes less). bench/timed_run.c measures: the
# command's own start to its reaping, no wrapper process inside the interval
# (docs/benchmarks.md, "Method"); -t stops it after SECONDS (exit 124).
run_timed() {
	local out=$1 lim=()
	shift
	if [ "$1" = -t ]; then
		lim=(-t "$2")
		shift 2
	fi
	local wall rss rc cpu
	"$TOOLS/timed_run" -o "$tmp/time.out" "${lim[@]}" -- "$@" >/dev/null 2>"$tmp/run.err"
	rc=$?
	read -r wall rss _ cpu <"$tmp/time.out" 2>/dev/null
	case "$wall" in '' | *[!0-9.]*) wall=-1 ;; esac
	case "$rss" in '' | *[!0-9]*) rss=-1 ;; esac
	case "$cpu" in '' | *[!0-9.]*) cpu=-1 ;; esac
	printf '%s\t%s\t%s\t%s\n' "$wall" "$rss" "$rc" "$cpu" >>"$out"
	return "$rc"
}

# "ns on a CPU<TAB>ns runnable but waiting for one" of a process's main thread
schedstat() { awk '{ printf "%s\t%s\n", $1, $2 }' "/proc/$1/schedstat" 2>/dev/null; }

vm_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; }

# ---------------------------------------------------------------- preflight
for t in "$BIN/hvready-agent" "$BIN/hvready-aggregator" "$BUILD/libhvcommon.a"; do
	[ -e "$t" ] || harness_fail "$t is missing: run make build (or make bench) first"
done
for t in python3 cc pkg-config curl getconf; do
	command -v "$t" >/dev/null || harness_fail "$t is missing: run scripts/install-deps.sh"
done
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null
{ rm -rf "$RAW" && mkdir -p "$RAW" "$DATA" "$TOOLS"; } || harness_fail "cannot create $WORK"
: >"$RAW/not_measured.tsv"
date -u +%Y-%m-%dT%H:%M:%SZ >"$RAW/started_at"
cat /proc/loadavg >"$RAW/loadavg_start"
git -C "$SRC" describe --always --dirty 2>/dev/null >"$RAW/commit" || echo unknown >"$RAW/commit"

# ---------------------------------------------------------------- tools
say "building the benchmark tools in $TOOLS"
bash "$SRC/bench/build_tools.sh" "$BUILD" "$TOOLS" || harness_fail "cannot build the tools in bench/"

# ---------------------------------------------------------------- 1. agent check
say "1. hvready-agent check (no network probes) vs virt-host-validate qemu, $RUNS runs each, interleaved"
agent_check=("$BIN/hvready-agent" check --skip "$SKIP_PROBES")
vhv=(virt-host-validate qemu)
if ! want 1; then
	not_measured agent.check "not asked for (BENCH_SECTIONS)"
elif ! command -v virt-host-validate >/dev/null; then
	not_measured agent.check "virt-host-validate is missing (Debian libvirt-clients: scripts/install-deps.sh)"
else
	for i in 1 2; do # warm the page cache for both
		"${agent_check[@]}" >/dev/null 2>&1
		"${vhv[@]}" >/dev/null 2>&1
	done
	: >"$RAW/agent_check.tsv"
	: >"$RAW/vhv.tsv"
	for i in $(seq 1 "$RUNS"); do
		run_timed "$RAW/agent_check.tsv" "${agent_check[@]}"
		run_timed "$RAW/vhv.tsv" "${vhv[@]}"
	done
	# CPU time (user + system) is counted in clock ticks: summed over RUNS runs
	# of each (the children of a subshell, from its /proc/PID/stat), it has a
	# resolution of a tick over RUNS.
	cpu_of_runs() {
		(
			for i in $(seq 1 "$RUNS"); do "$@" >/dev/null 2>&1; done
			awk -v t="$(getconf CLK_TCK)" -v n="$RUNS" \
				'{ sub(/^.*\) /, ""); printf "%.3f\n", ($14 + $15) * 1000 / t / n }' "/proc/$BASHPID/stat"
		)
	}
	cpu_of_runs "${agent_check[@]}" >"$RAW/agent_check_cpu_ms"
	cpu_of_runs "${vhv[@]}" >"$RAW/vhv_cpu_ms"
	# Each check's cost (HVREADY_TIMINGS, agent/agent.c): 5 runs, medians in the detail.
	: >"$RAW/agent_timings.tsv"
	for i in 1 2 3 4 5; do
		HVREADY_TIMINGS=1 "${agent_check[@]}" 2>&1 >/dev/null | awk -F'\t' '$1 == "timing"' >>"$RAW/agent_timings.tsv"
	done
	# 0/1/3 are verdicts; 2 is an error (usage, input, internal).
	if awk -F'\t' '$3 == 2 || $3 > 3 { bad = 1 } END { exit !bad }' "$RAW/agent_check.tsv"; then
		not_measured agent.check "hvready-agent check failed: $(head -c 300 "$tmp/run.err")"
	fi
fi

# ---------------------------------------------------------------- inputs
# Node reports are generated (bench/gen_node.c: real server CPU flags, seeded),
# the same bytes on every machine: nothing measured below depends on this
# machine's own report (docs/benchmarks.md, "Inputs").
say "inputs: generated node reports (bench/gen_node.c) and generated cluster states (examples/gen_cluster.py)"
GEN_CPUS=${BENCH_GEN_CPUS:-intel}
SCALE_NODES=${BENCH_SCALE_NODES:-50 500 5000}
SCALE_RUNS=${BENCH_SCALE_RUNS:-3}
SCALE_TIMEOUT=${BENCH_SCALE_TIMEOUT:-300}
gen_hash=$(sha256sum "$SRC/examples/gen_cluster.py" | cut -c1-16)
# gen_reports N DIR [ARGS...]: N generated reports in DIR, DIR.manifest.json beside
gen_reports() {
	local n=$1 dir=$2
	shift 2
	rm -rf "$dir"
	"$TOOLS/clone_reports" --generate --cpus "$GEN_CPUS" --seed 1 --count "$n" --out-dir "$dir" \
		--manifest "$dir.manifest.json" "$@" 2>"$tmp/gen.err"
}
# cluster_for N: a generated cluster of N nodes and 10 VMs per node, cached; sets cluster
cluster_for() {
	local n=$1
	cluster="$DATA/cluster-${n}n-$((n * 10))vm-$gen_hash"
	[ -f "$cluster.complete" ] && return 0
	rm -rf "$DATA"/cluster-"${n}"n-*
	say "generating a ${n}-node, $((n * 10))-VM cluster state (cached in $cluster)"
	python3 "$SRC/examples/gen_cluster.py" --nodes "$n" --vms $((n * 10)) --out "$cluster" >/dev/null &&
		python3 "$SRC/bench/summarize.py" --count-objects "$cluster" >"$cluster.counts.json" &&
		touch "$cluster.complete"
}

reports500="$tmp/reports500"
pack="$tmp/pack$NODES_INGEST"
if want 2; then
	cluster_for 500 || not_measured report.offline "examples/gen_cluster.py failed"
	cluster500=$cluster
	cp "$cluster500.counts.json" "$RAW/cluster_counts.json" 2>/dev/null
	gen_reports 500 "$reports500" ||
		not_measured report.offline "clone_reports --generate: $(head -c 300 "$tmp/gen.err")"
else
	not_measured report.offline "not asked for (BENCH_SECTIONS)"
fi
if want 3; then
	"$TOOLS/clone_reports" --generate --cpus "$GEN_CPUS" --seed 1 --count "$NODES_INGEST" \
		--pack "$pack" --out-dir "$tmp/first-report" 2>"$tmp/gen.err" ||
		not_measured ingest "clone_reports --generate: $(head -c 300 "$tmp/gen.err")"
	stat -c %s "$tmp/first-report/harvester-node-1.msgpack" >"$RAW/report_bytes" 2>/dev/null
	rm -rf "$tmp/first-report"
fi

# check_run NAME CLUSTER REPORTS [TIMEOUT]: one untimed run with the per-check timings
# (HVREADY_TIMINGS, aggregator/engine.c); RAW/NAME.json is the verdict,
# RAW/NAME_timings.tsv the timings, RAW/NAME_work.txt and _work.json which
# checks did their full work (bench/check_work.py). 1 when a cross-node check
# did not: the figure is then not measured.
check_run() {
	local name=$1 state=$2 reports=$3 limit=${4:-$REPORT_TIMEOUT}
	HVREADY_TIMINGS=1 timeout "$limit" "$BIN/hvready-aggregator" report --cluster-state "$state" \
		--node-reports "$reports" --format json >"$RAW/$name.json" 2>"$tmp/timings.err"
	grep '^timing' "$tmp/timings.err" | cut -f2- >"$RAW/${name}_timings.tsv"
	cp "$reports.manifest.json" "$RAW/${name}_manifest.json"
	python3 "$SRC/bench/check_work.py" "$RAW/$name.json" "$reports.manifest.json" \
		--summary "$RAW/${name}_work.json" >"$RAW/${name}_work.txt" 2>&1 && return 0
	grep -q '^NOT MEASURED' "$RAW/${name}_work.txt" ||
		echo "NOT MEASURED the verdict: unreadable (the run timed out or failed: $(head -c 200 "$tmp/timings.err"))" \
			>>"$RAW/${name}_work.txt"
	return 1
}

# ---------------------------------------------------------------- 2. offline report
if want 2 && [ -f "${cluster500:-}.complete" ] && [ -d "$reports500" ]; then
	say "2. hvready-aggregator report: 500 nodes, 5,000 VMs (up to $REPORT_RUNS runs, ${REPORT_TIMEOUT}s each)"
	if check_run report500 "$cluster500" "$reports500"; then
		say "   checks of the 500-node report (findings, statuses, work done):"
		sed 's/^/   /' "$RAW/report500_work.txt" >&2
	else
		sed 's/^/   /' "$RAW/report500_work.txt" >&2
		not_measured report.offline "$(grep '^NOT MEASURED' "$RAW/report500_work.txt" | head -n 3 | tr '\n' ' ')"
	fi
	: >"$RAW/report.tsv"
	report_cmd=("$BIN/hvready-aggregator" report --cluster-state "$cluster500"
		--node-reports "$reports500" --format json)
	spent=0
	for i in $(seq 1 "$REPORT_RUNS"); do
		run_timed "$RAW/report.tsv" -t "$REPORT_TIMEOUT" "${report_cmd[@]}"
		rc=$?
		if [ "$rc" -eq 124 ]; then
			say "   run $i: still running after ${REPORT_TIMEOUT}s, stopped (recorded as a lower bound)"
			break
		fi
		if [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then
			not_measured report.offline "hvready-aggregator report exited $rc: $(head -c 300 "$tmp/run.err")"
			break
		fi
		spent=$(awk -F'\t' '{ s += $1 } END { printf "%d", s }' "$RAW/report.tsv")
		# Slow runs are repeated less: the whole make bench stays within minutes.
		[ "$spent" -ge "$REPORT_BUDGET" ] && break
	done
fi

# 2s. Scaling: the offline report at 50, 500 and 5,000 nodes, 10 VMs per node
# and the objects that go with them; the fitted exponent (summarize.py).
# ---------------------------------------------------------------- 2s. scaling
if want 2; then
	for n in $SCALE_NODES; do
		if ! cluster_for "$n"; then
			not_measured report.scale "examples/gen_cluster.py --nodes $n failed"
			break
		fi
		cp "$cluster.counts.json" "$RAW/scale_${n}_counts.json"
		gen_reports "$n" "$tmp/reports$n" || {
			not_measured report.scale "clone_reports --generate --count $n: $(head -c 300 "$tmp/gen.err")"
			break
		}
		say "2s. report at $n nodes, $((n * 10)) VMs: up to $SCALE_RUNS timed runs"
		if check_run "scale_$n" "$cluster" "$tmp/reports$n" "$SCALE_TIMEOUT"; then
			grep '^checks: ' "$RAW/scale_${n}_work.txt" | sed 's/^/   /' >&2
		else
			grep '^NOT MEASURED' "$RAW/scale_${n}_work.txt" | sed 's/^/   /' >&2
			not_measured report.scale "$n nodes: $(grep '^NOT MEASURED' "$RAW/scale_${n}_work.txt" | head -n 3 | tr '\n' ' ')"
		fi
		: >"$RAW/scale_$n.tsv"
		spent=0
		for i in $(seq 1 "$SCALE_RUNS"); do
			run_timed "$RAW/scale_$n.tsv" -t "$SCALE_TIMEOUT" "$BIN/hvready-aggregator" report \
				--cluster-state "$cluster" --node-reports "$tmp/reports$n" --format json
			rc=$?
			if [ "$rc" -eq 124 ] || [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then
				not_measured report.scale "$n nodes: hvready-aggregator report exited $rc: $(head -c 300 "$tmp/run.err")"
				break
			fi
			spent=$(awk -F'\t' '{ s += $1 } END { printf "%d", s }' "$RAW/scale_$n.tsv")
			[ "$spent" -ge "$REPORT_BUDGET" ] && break
		done
		awk -F'\t' -v n="$n" '{ printf "   %s nodes: %.2f s (CPU %.2f s), %.0f MiB\n", n, $1, $4, $2 / 1024 }' \
			"$RAW/scale_$n.tsv" >&2
		[ "$n" = 500 ] || rm -rf "$tmp/reports$n"
	done
fi

# 2b. The shape the target names (nodes, VMs, VMIs, PVCs, Longhorn volumes:
# ~20,000 objects), out of the same generated cluster. The resources left out
# are "not collected", so the checks needing them are UNKNOWN: a smaller job.
# ---------------------------------------------------------------- 2b. report, ~20k objects
if want 2 && [ -f "${cluster500:-}.complete" ] && [ -d "$reports500" ]; then
	shape="$tmp/shape20k"
	mkdir -p "$shape"
	for f in nodes.json virtualmachines.kubevirt.io.json virtualmachineinstances.kubevirt.io.json \
		persistentvolumeclaims.json volumes.longhorn.io.json; do
		ln -s "$cluster500/$f" "$shape/$f"
	done
	python3 "$SRC/bench/summarize.py" --count-objects "$shape" >"$RAW/shape_counts.json"
	say "2b. hvready-aggregator report: the target's shape, ~20,000 objects ($REPORT_RUNS runs)"
	: >"$RAW/report_shape.tsv"
	for i in $(seq 1 "$REPORT_RUNS"); do
		run_timed "$RAW/report_shape.tsv" -t "$REPORT_TIMEOUT" "$BIN/hvready-aggregator" \
			report --cluster-state "$shape" --node-reports "$reports500" --format json
		rc=$?
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then
			not_measured report.shape "hvready-aggregator report exited $rc: $(head -c 300 "$tmp/run.err")"
			break
		fi
	done
fi

# 2g. Grouping: the text and HTML verdict of the 500-node cluster with one host
# failure on every node (generated reports without /dev/kvm: host.kvm FAIL
# everywhere), grouped as the reports are (one card for the 500 nodes) and
# ungrouped (HVREADY_BENCH_NO_GROUPING, a card per node, as before grouping):
# bytes, lines and the rendering's time (HVREADY_TIMINGS' "(render FORMAT)").
# ---------------------------------------------------------------- 2g. grouping
if want 2 && [ -f "${cluster500:-}.complete" ]; then
	say "2g. grouping: text and HTML of 500 nodes with host.kvm FAIL on every one, grouped and not ($REPORT_RUNS runs each)"
	reports_nokvm="$tmp/reports500-nokvm"
	if gen_reports 500 "$reports_nokvm" --no-kvm; then
		: >"$RAW/grouping.tsv"
		for mode in grouped ungrouped; do
			nog=
			[ "$mode" = ungrouped ] && nog=1
			for fmt in text html; do
				for i in $(seq 1 "$REPORT_RUNS"); do
					rc=0
					HVREADY_BENCH_NO_GROUPING=$nog HVREADY_TIMINGS=1 timeout "$REPORT_TIMEOUT" \
						"$BIN/hvready-aggregator" report --cluster-state "$cluster500" \
						--node-reports "$reports_nokvm" --format "$fmt" \
						>"$tmp/grouping.out" 2>"$tmp/grouping.err" || rc=$?
					if [ "$rc" -eq 124 ] || [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then
						not_measured report.grouping "report --format $fmt ($mode) exited $rc: $(grep -v '^timing' "$tmp/grouping.err" | head -c 300)"
						break 3
					fi
					ms=$(awk -F'\t' -v id="(render $fmt)" '$1 == "timing" && $2 == id { print $3 }' "$tmp/grouping.err")
					printf '%s\t%s\t%s\t%s\t%s\n' "$mode" "$fmt" "$(stat -c %s "$tmp/grouping.out")" \
						"$(wc -l <"$tmp/grouping.out")" "${ms:--1}" >>"$RAW/grouping.tsv"
				done
			done
		done
		rm -f "$tmp/grouping.out"
	else
		not_measured report.grouping "clone_reports --generate --no-kvm: $(head -c 300 "$tmp/gen.err")"
	fi
	rm -rf "$reports_nokvm"
else
	not_measured report.grouping "no 500-node cluster state (section 2)"
fi

# 2c. The same cluster read live: the fake kube-apiserver of the tests serves
# it over TLS through the list API, pages of 500 (HVREADY_LIST_LIMIT's default).
# ---------------------------------------------------------------- 2c. live report
start_fake_apiserver() { # DIR FIXTURES -> sets api_pid, api_port, api_token; DIR/kubeconfig
	local d=$1 fixtures=$2 i
	(
		cd "$d" || exit 1
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
			-out ca.crt -days 2 -subj /CN=bench-ca 2>/dev/null &&
			openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout srv.key \
				-out srv.csr -subj /CN=kube-apiserver 2>/dev/null &&
			printf 'subjectAltName=IP:127.0.0.1\n' >srv.ext &&
			openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt \
				-days 2 -extfile srv.ext 2>/dev/null
	) || return 1
	api_token=$(head -c 24 /dev/urandom | base64 | tr -d '=+/')
	python3 "$SRC/tests/tools/fake_apiserver.py" --fixtures "$fixtures" --cert "$d/srv.crt" \
		--key "$d/srv.key" --token "$api_token" --require-auth >"$d/port" 2>"$d/err" &
	api_pid=$!
	pids+=("$api_pid")
	for i in $(seq 1 600); do
		[ -s "$d/port" ] && break
		kill -0 "$api_pid" 2>/dev/null || return 1
		sleep 0.1
	done
	api_port=$(head -n 1 "$d/port" 2>/dev/null)
	[ -n "$api_port" ] || return 1
	printf '%s\n' "apiVersion: v1" "kind: Config" "clusters:" "- name: bench" "  cluster:" \
		"    server: https://127.0.0.1:$api_port" "    certificate-authority: $d/ca.crt" \
		"users:" "- name: bench" "  user:" "    token: $api_token" "contexts:" "- name: bench" \
		"  context: {cluster: bench, user: bench}" "current-context: bench" >"$d/kubeconfig"
}
# The target's shape again (2b), listed through the API in pages of 500: the
# resources 2b leaves out answer 404 here, so they are "not installed".
if want 2 && [ -d "$reports500" ] && [ -d "${shape:-}" ]; then
	say "2c. hvready-aggregator report --kubeconfig: the same ~20,000 objects through the fake apiserver"
	mkdir -p "$tmp/live"
	if ! start_fake_apiserver "$tmp/live" "$shape"; then
		not_measured report.live "the fake apiserver did not start: $(head -c 300 "$tmp/live/err" 2>/dev/null)"
	else
		: >"$RAW/report_live.tsv"
		for i in $(seq 1 "$REPORT_RUNS"); do
			run_timed "$RAW/report_live.tsv" -t "$REPORT_TIMEOUT" "$BIN/hvready-aggregator" \
				report --kubeconfig "$tmp/live/kubeconfig" --node-reports "$reports500" --format json
			rc=$?
			if [ "$rc" -eq 124 ] || [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then
				not_measured report.live "hvready-aggregator report exited $rc: $(head -c 300 "$tmp/run.err")"
				break
			fi
		done
		stop_pid "$api_pid"
	fi
fi

# ---------------------------------------------------------------- 3. ingest
start_aggregator() { # STATE_DIR LOG -> sets agg_pid, agg_port
	bench_aggregator "$2" 20 --token-file "$tmp/token" --interval 30 --cluster-state "$1"
}

head -c 32 /dev/urandom | base64 | tr -d '=+/' >"$tmp/token"
chmod 600 "$tmp/token"
if ! want 3; then
	not_measured ingest "not asked for (BENCH_SECTIONS)"
elif [ -s "$pack" ] && [ "$(ulimit -n)" -lt $((CONNS + 100)) ]; then
	not_measured ingest "ulimit -n is $(ulimit -n), below the $((CONNS + 100)) descriptors $CONNS connections need"
elif [ -s "$pack" ]; then
	say "3. ingest: $NODES_INGEST nodes over $CONNS connections, ${INGEST_S}s windows, $ROUNDS rounds (aggregator, bare evhttp)"
	for r in $(seq 1 "$ROUNDS"); do
		if ! start_aggregator "$SRC/examples/cluster" "$tmp/agg$r.log"; then
			not_measured ingest "the aggregator did not become ready: $(tail -n 3 "$tmp/agg$r.log" | tr '\n' ' ')"
			break
		fi
		vm_kib "$agg_pid" VmRSS >"$RAW/agg_rss_idle_$r"
		schedstat "$agg_pid" >"$RAW/agg_sched_$r"
		curl -sf --max-time 20 "http://127.0.0.1:$agg_port/metrics" >"$RAW/agg_metrics_before_$r" 2>/dev/null
		"$TOOLS/loadgen" --port "$agg_port" --pack "$pack" --connections "$CONNS" \
			--duration "$INGEST_S" --warmup 1 --verdict-every-ms "$VERDICT_MS" --prefill-timeout "$PREFILL_S" \
			--token-file "$tmp/token" >"$RAW/ingest_agg_$r.json" 2>"$tmp/loadgen.err" ||
			say "   loadgen against the aggregator: incomplete ($(head -c 200 "$tmp/loadgen.err"))"
		schedstat "$agg_pid" >>"$RAW/agg_sched_$r"
		vm_kib "$agg_pid" VmRSS >"$RAW/agg_rss_$r"
		vm_kib "$agg_pid" VmHWM >"$RAW/agg_hwm_$r"
		# the last evaluation's wall and CPU time and the nodes it took
		# (hvready_verdict_evaluation_*): a re-evaluation at 5,000 nodes
		# while the reports keep coming
		curl -sf --max-time 20 "http://127.0.0.1:$agg_port/metrics" >"$RAW/agg_metrics_after_$r" 2>/dev/null
		curl -sf --max-time 20 "http://127.0.0.1:$agg_port/v1/nodes" 2>/dev/null |
			python3 -c 'import json, sys; print(len(json.load(sys.stdin)["nodes"]))' \
				>"$RAW/agg_nodes_$r" 2>/dev/null
		stop_pid "$agg_pid"

		"$TOOLS/bare_server" --port 0 >"$tmp/bare$r.out" 2>"$tmp/bare$r.err" &
		bare_pid=$!
		pids+=("$bare_pid")
		bare_port=$(wait_log "$tmp/bare$r.out" '^listening on 127\.0\.0\.1:([0-9]+)$' 10) || {
			not_measured ingest "bench/bare_server did not start: $(head -c 200 "$tmp/bare$r.err")"
			break
		}
		schedstat "$bare_pid" >"$RAW/bare_sched_$r"
		"$TOOLS/loadgen" --port "$bare_port" --pack "$pack" --connections "$CONNS" \
			--duration "$INGEST_S" --warmup 1 --prefill-timeout "$PREFILL_S" >"$RAW/ingest_bare_$r.json" 2>"$tmp/loadgen.err" ||
			say "   loadgen against bare_server: incomplete ($(head -c 200 "$tmp/loadgen.err"))"
		schedstat "$bare_pid" >>"$RAW/bare_sched_$r"
		stop_pid "$bare_pid"
		# An aggregator that needs most of the prefill time to take every
		# node once is orders of magnitude off: another round would cost a
		# minute and say the same. One round is then the figure.
		pf=$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["prefill"]; print(int(p["timed_out"] or 2 * p["seconds"] > float(sys.argv[2])))' \
			"$RAW/ingest_agg_$r.json" "$PREFILL_S" 2>/dev/null)
		if [ "$r" -lt "$ROUNDS" ] && [ "${pf:-0}" = 1 ]; then
			say "   the aggregator took over $((PREFILL_S / 2))s to take all $NODES_INGEST nodes once: no further rounds"
			break
		fi
	done
fi

# ---------------------------------------------------------------- 4. agent daemon
say "4. hvready-agent run --interval 30 against a local aggregator, ${DAEMON_S}s"
if ! want 4; then
	not_measured agent.daemon "not asked for (BENCH_SECTIONS)"
elif start_aggregator "$SRC/examples/cluster" "$tmp/agg-daemon.log"; then
	"$BIN/hvready-agent" run --aggregator "http://127.0.0.1:$agg_port" --token-file "$tmp/token" \
		--interval 30 --node bench-agent --skip "$SKIP_PROBES" 2>"$tmp/agent.log" &
	agent_pid=$!
	pids+=("$agent_pid")
	t0=$EPOCHREALTIME
	: >"$RAW/daemon_samples.tsv"
	for i in $(seq 1 "$DAEMON_S"); do
		sleep 1
		kill -0 "$agent_pid" 2>/dev/null || break
		# elapsed, VmRSS kiB, utime+stime ticks of the daemon and of its helper
		# processes (cutime+cstime: the POST of each cycle runs in one)
		printf '%s\t%s\t%s\n' "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')" \
			"$(vm_kib "$agent_pid" VmRSS)" \
			"$(awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$agent_pid/stat")" \
			>>"$RAW/daemon_samples.tsv"
	done
	if kill -0 "$agent_pid" 2>/dev/null; then
		vm_kib "$agent_pid" VmHWM >"$RAW/daemon_hwm"
		getconf CLK_TCK >"$RAW/clk_tck"
		curl -sf "http://127.0.0.1:$agg_port/v1/nodes/bench-agent" >"$RAW/daemon_node.json" 2>/dev/null ||
			not_measured agent.daemon "the aggregator holds no report from the agent: $(grep -v '^$' "$tmp/agent.log" | tail -n 2 | tr '\n' ' ')"
	else
		not_measured agent.daemon "hvready-agent run exited: $(tail -n 3 "$tmp/agent.log" | tr '\n' ' ')"
	fi
	stop_pid "$agent_pid"
	stop_pid "$agg_pid"
else
	not_measured agent.daemon "the aggregator did not become ready: $(tail -n 3 "$tmp/agg-daemon.log" | tr '\n' ' ')"
fi

# ---------------------------------------------------------------- results
cat /proc/loadavg >"$RAW/loadavg_end"
echo "$VERDICT_MS" >"$RAW/verdict_interval_ms"
results="$SRC/bench/results.json"
[ "$SECTIONS" = " 1 2 3 4 " ] || results="$WORK/results.partial.json"
python3 "$SRC/bench/summarize.py" "$RAW" "$results.tmp"
rc=$?
[ "$rc" -le 1 ] || harness_fail "summarize.py failed"
mv "$results.tmp" "$results"
echo "results: $results"
# 1: some figure could not be measured (a missed target alone is exit 0)
exit "$rc"
