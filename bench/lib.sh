# shellcheck shell=bash
# Sourced by bench/run.sh, bench/soak.sh and tests/integration/bench_tools.sh.
#
#   bench_dirs BUILD SUBDIR
#                          SRC (this checkout), BUILD (default build, relative
#                          to SRC), BIN (BUILD/bin), WORK (BUILD/SUBDIR); a
#                          script that does not call it sets BIN itself
#   bench_init NAME        tmp (a fresh /tmp/NAME.XXXXXX) and pids; at exit
#                          every PID in pids is killed and waited for and tmp
#                          removed; SIGINT and SIGTERM exit 130
#   say MSG...             a progress line on stderr
#   wait_log FILE REGEX SECONDS [PID]
#                          prints group 1 of REGEX's first match (sed -E) in
#                          FILE; 1 after SECONDS, or as soon as PID exited
#   bench_aggregator LOG SECONDS SERVE-ARGS...
#                          hvready-aggregator serve on a free loopback port
#                          (it binds port 0; the port is read from its log):
#                          sets agg_pid (added to pids) and agg_port; returns
#                          1 unless /readyz answers within SECONDS

# shellcheck disable=SC2034 # the sourcing script uses them
bench_dirs() {
	SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	BUILD=${1:-build}
	case "$BUILD" in /*) ;; *) BUILD="$SRC/$BUILD" ;; esac
	BIN="$BUILD/bin"
	WORK="$BUILD/$2"
}

bench_init() {
	pids=()
	tmp=$(mktemp -d "/tmp/$1.XXXXXX")
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

# shellcheck disable=SC2317 # run by the trap
bench_cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}

say() { printf '== %s\n' "$*" >&2; }

wait_log() {
	local _ m
	for _ in $(seq 1 $(($3 * 10))); do
		m=$(sed -nE "s/$2/\\1/p" "$1" 2>/dev/null | head -n 1)
		[ -n "$m" ] && { echo "$m"; return 0; }
		[ -z "${4:-}" ] || kill -0 "$4" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

bench_aggregator() {
	local log=$1 secs=$2
	shift 2
	"$BIN/hvready-aggregator" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
	agg_pid=$!
	pids+=("$agg_pid")
	agg_port=$(wait_log "$log" '.*listening on 127\.0\.0\.1:([0-9]+) .*' "$secs" "$agg_pid") || return 1
	for _ in $(seq 1 $((secs * 5))); do
		curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$agg_port/readyz" && return 0
		kill -0 "$agg_pid" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}
