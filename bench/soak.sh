#!/usr/bin/env bash
# make soak: one aggregator under 5,000 simulated agents reporting at twice the
# normal rate (a report per node every 15 s instead of 30 s) for N minutes,
# with a dashboard and a Prometheus scraping it (bench/soak_client.py). The
# cluster state is a generated 5,000-node cluster (examples/gen_cluster.py),
# re-read every 30 s as serve does. Samples the aggregator's RSS and open
# files every 10 s into BUILD/soak/samples.csv and writes BUILD/soak/summary.json.
#
#   bash bench/soak.sh [BUILD_DIR]          (make soak builds first)
#
# Knobs (environment): SOAK_MINUTES (default 10), SOAK_AGENTS (5000),
# SOAK_PERIOD (seconds between a node's reports, 15), SOAK_WARMUP_S (warm-up
# left out of the memory comparison, default a fifth of the run, at least 60),
# SOAK_MEM_TOLERANCE (percent, 10).
#
# Exit status: 0 when every report was accepted (no non-2xx, no connection
# error, every dashboard and scrape answered) and memory stayed flat (the mean
# RSS of the last quarter within SOAK_MEM_TOLERANCE of the mean after the
# warm-up); 1 otherwise (the reason is printed); 2 when it cannot run.
# Loopback only; every process started here is stopped by its PID on exit.
set -uo pipefail
export LC_ALL=C
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
bench_dirs "${1:-}" soak
MINUTES=${SOAK_MINUTES:-10}
AGENTS=${SOAK_AGENTS:-5000}
PERIOD=${SOAK_PERIOD:-15}
TOLERANCE=${SOAK_MEM_TOLERANCE:-10}
DURATION=$((MINUTES * 60))
WARMUP=${SOAK_WARMUP_S:-$((DURATION / 5 > 60 ? DURATION / 5 : 60))}
for v in MINUTES AGENTS PERIOD TOLERANCE WARMUP; do
	case ${!v} in '' | *[!0-9]*)
		echo "soak: $v must be a whole number, not \"${!v}\"" >&2
		exit 2
		;;
	esac
done
[ -x "$BIN/hvready-aggregator" ] || { echo "soak: no $BIN/hvready-aggregator (make build)" >&2; exit 2; }
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

bench_init hvready-soak
die() { echo "soak: $*" >&2; exit 2; }
mkdir -p "$WORK/data"

say "inputs: a node report of this machine cloned $AGENTS times, a generated $AGENTS-node cluster"
bash "$SRC/bench/build_tools.sh" "$BUILD" "$WORK/tools" 2>"$tmp/tools.err" ||
	die "bench/build_tools.sh: $(head -c 300 "$tmp/tools.err")"
# Exit 1 or 3 (a FAIL or UNKNOWN on this machine) still writes the report.
"$BIN/hvready-agent" check --skip host.nfs.probe,host.image.share-manager --node harvester-node-1 \
	--format msgpack --output "$tmp/template.msgpack" 2>"$tmp/template.err"
[ -s "$tmp/template.msgpack" ] || die "hvready-agent check wrote no report: $(head -c 300 "$tmp/template.err")"
"$WORK/tools/clone_reports" --template "$tmp/template.msgpack" --count "$AGENTS" \
	--pack "$tmp/pack" 2>"$tmp/clone.err" || die "clone_reports: $(head -c 300 "$tmp/clone.err")"
gen_hash=$(sha256sum "$SRC/examples/gen_cluster.py" | cut -c1-16)
cluster="$WORK/data/cluster-${AGENTS}n-$gen_hash"
if [ ! -f "$cluster.complete" ]; then
	rm -rf "$WORK"/data/cluster-*
	python3 "$SRC/examples/gen_cluster.py" --nodes "$AGENTS" --vms 1000 --out "$cluster" >/dev/null ||
		die "examples/gen_cluster.py failed"
	touch "$cluster.complete"
fi

say "the aggregator: --cluster-state of $AGENTS nodes, --interval 30"
head -c 32 /dev/urandom | base64 | tr -d '=+/' >"$tmp/token"
chmod 600 "$tmp/token"
bench_aggregator "$WORK/aggregator.log" 300 --token-file "$tmp/token" --interval 30 \
	--cluster-state "$cluster" ||
	die "the aggregator did not become ready within 5 minutes: $(tail -n 3 "$WORK/aggregator.log")"
port=$agg_port

say "$AGENTS agents, a report each every ${PERIOD}s, for $MINUTES min (samples every 10 s in $WORK/samples.csv)"
python3 "$SRC/bench/soak_client.py" --port "$port" --pack "$tmp/pack" --token-file "$tmp/token" \
	--pid "$agg_pid" --duration "$DURATION" --period "$PERIOD" --samples "$WORK/samples.csv" \
	>"$tmp/client.json" 2>"$tmp/client.err" || die "soak_client.py: $(tail -n 5 "$tmp/client.err")"
kill "$agg_pid"
rc=0
wait "$agg_pid" || rc=$?
pids=()

python3 - "$tmp/client.json" "$WORK/samples.csv" "$WARMUP" "$TOLERANCE" "$rc" "$WORK/summary.json" <<'PY'
import csv, json, statistics, sys
client = json.load(open(sys.argv[1]))
rows = [r for r in csv.DictReader(open(sys.argv[2])) if int(r["rss_kb"]) > 0]
warmup, tolerance, agg_rc = int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
duration = client["duration_s"]
after = [int(r["rss_kb"]) for r in rows if float(r["elapsed_s"]) >= warmup]
last_q = [int(r["rss_kb"]) for r in rows if float(r["elapsed_s"]) >= duration * 0.75]
rss = [int(r["rss_kb"]) for r in rows]
fds = [int(r["open_files"]) for r in rows]
mean_after = statistics.mean(after) if after else 0
mean_last = statistics.mean(last_q) if last_q else 0
growth = (mean_last / mean_after - 1) * 100 if mean_after else 0
failures = []
if client["rejected"]:
    failures.append("%d reports rejected (statuses %s)" % (client["rejected"], client["statuses"]))
if client["conn_errors"]:
    failures.append("%d connection errors" % client["conn_errors"])
if client["view_errors"]:
    failures.append("%d dashboard or metrics requests failed" % client["view_errors"])
if not after or not last_q:
    failures.append("too few RSS samples")
elif growth > tolerance:
    failures.append("memory grew %.1f%% (mean RSS %d kB after the warm-up, %d kB in the last quarter)"
                    % (growth, mean_after, mean_last))
if agg_rc != 0:
    failures.append("the aggregator exited %d on SIGTERM" % agg_rc)
summary = dict(client, rss_kb={"min": min(rss), "max": max(rss), "mean_after_warmup": round(mean_after),
                              "mean_last_quarter": round(mean_last), "growth_pct": round(growth, 1)},
               open_files={"min": min(fds), "max": max(fds)}, warmup_s=warmup,
               samples=len(rows), result="PASS" if not failures else "FAIL", failures=failures)
json.dump(summary, open(sys.argv[6], "w"), indent=1)
print("soak: %d agents every %.0f s for %d s: %d reports sent (%.1f/s), %d accepted, %d rejected, "
      "%d connection errors; POST p50 %s ms, p99 %s ms; worst lag behind schedule %d ms"
      % (client["agents"], client["period_s"], duration, client["sent"], client["rate_per_s"],
         client["accepted"], client["rejected"], client["conn_errors"], client["post_ms_p50"],
         client["post_ms_p99"], client["max_lag_ms"]))
print("soak: RSS %d..%d kB; mean %d kB after the %d s warm-up, %d kB in the last quarter (%+.1f%%); "
      "open files %d..%d" % (min(rss), max(rss), mean_after, warmup, mean_last, growth, min(fds), max(fds)))
for f in failures:
    print("soak: FAIL: " + f)
print("soak: %s (%s)" % (summary["result"], sys.argv[6]))
sys.exit(1 if failures else 0)
PY
