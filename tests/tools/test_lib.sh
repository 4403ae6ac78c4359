# shellcheck shell=bash
# The one shell library of the integration tests (sourced; serve_lib.sh and
# kube_test_lib.sh build on it). What every test needs:
#
#   test_init        tmp (also TMP): a fresh directory, removed at exit, with
#                    test_cleanup as the EXIT trap; drops proxy settings, as
#                    tests talk to loopback only
#   pids             processes killed and waited for at exit; a function
#                    extra_cleanup, if the test defines one, runs after them
#   kill_pids        processes killed with SIGKILL at exit (one that may not
#                    stop on SIGTERM: an agent with a blocked read)
#   fail MSG         prints MSG and the tail (FAIL_TAIL lines) of every
#                    $tmp/*.log and of the files FAIL_GLOB (a pattern) names,
#                    to stderr (stdout may be a file being written), exits 1
#   wait_for SECS WHAT CMD...  runs CMD until it succeeds, else fails "WHAT"
#                    with the last line CMD wrote to stderr on its last try
#   stop_pid PID     SIGTERM, SIGKILL after 5 s; returns the process's status
#                    (137 when it had to be killed)
#   stops_within PID SECS MSG  SIGTERM; fails MSG unless the process ends
#                    within SECS
#   post_sink FILE   tests/tools/post_sink.py, the agent's stand-in aggregator,
#                    on a free port (SINK_PORT): a line in FILE a POST, the
#                    bodies in FILE.raw; stopped at exit
[ -n "${HVREADY_TEST_LIB:-}" ] && return 0
HVREADY_TEST_LIB=1

pids=()
kill_pids=()
FAIL_TAIL=${FAIL_TAIL:-12}
FAIL_GLOB=${FAIL_GLOB:-}

test_init() {
	tmp=$(mktemp -d)
	TMP=$tmp
	trap test_cleanup EXIT
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
}

test_cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	for p in "${kill_pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	if declare -F extra_cleanup >/dev/null; then extra_cleanup; fi
	[ -n "${tmp:-}" ] && rm -rf "$tmp"
	return 0
}

fail() {
	local f dir=${tmp:-${TMP:-}}
	{
		echo "FAIL: $*"
		if [ -n "$dir" ]; then
			for f in "$dir"/*.log $FAIL_GLOB; do
				[ -f "$f" ] && { echo "--- $f"; tail -n "$FAIL_TAIL" "$f"; }
			done
		fi
	} >&2
	exit 1
}

# build_shim NAME OUT: tests/tools/NAME.c built as the LD_PRELOAD library OUT.
build_shim() {
	local cc=${CC:-cc}
	command -v "$cc" >/dev/null || fail "no C compiler ($cc) to build the LD_PRELOAD shim"
	"$cc" -shared -fPIC -O1 -o "$2" "$HVREADY_SRC/tests/tools/$1.c" -ldl ||
		fail "cannot build the shim $1"
}

wait_for() {
	local secs=$1 what=$2 why=""
	shift 2
	local end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		{ why=$("$@" 2>&1 1>&3); } 3>&1 && return 0
		sleep 0.3
	done
	fail "$what (within ${secs}s)${why:+: ${why##*$'\n'}}"
}

stops_within() {
	local pid=$1
	kill -TERM "$pid"
	for _ in $(seq 1 $(($2 * 5))); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then fail "$3"; fi
	wait "$pid" || true
}

post_sink() {
	SINK_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	python3 "$HVREADY_SRC/tests/tools/post_sink.py" "$SINK_PORT" "$1" &
	pids+=("$!")
}

stop_pid() {
	local pid=$1 rc=0
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		return 137
	fi
	wait "$pid" 2>/dev/null || rc=$?
	return "$rc"
}

