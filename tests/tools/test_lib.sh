# shellcheck shell=bash
# The one shell library of the integration tests (sourced; serve_lib.sh and
# kube_test_lib.sh build on it). What every test needs:
#
#   test_init        tmp (also TMP): a fresh directory, removed at exit, with
#                    test_cleanup as the EXIT trap; drops proxy settings, as
#                    tests talk to loopback only
#   pids             processes killed and waited for at exit; then the fake
#                    API servers of kube_test_lib.sh (kt_cleanup), when it is
#                    sourced; a function extra_cleanup, if the test defines
#                    one, runs after them (before tmp is removed)
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
#   sink_posts       how many POSTs post_sink's FILE holds (0 before the first);
#                    sink_has N succeeds once it holds N or more (for wait_for)
#   block_open_shim PATH  tests/tools/block_open.c built as an LD_PRELOAD
#                    library that makes the open of PATH (below a host root)
#                    block while the file HVREADY_TEST_BLOCK_FLAG exists
#                    (created here); BLOCK_WRAP is the command prefix that
#                    runs a program with it
#   host_root_copy HOST  a writable copy of the fixture host root HOST
#                    (tests/fixtures/hostroots/HOST) at $tmp/root; prints its path
#   veth_netns NS HOSTIF NSIF HOST_CIDR NS_CIDR  a network namespace NS (made
#                    here) joined to this host by a veth pair: HOSTIF here
#                    with HOST_CIDR, NSIF in NS with NS_CIDR; both ends and
#                    NS's loopback up (deleting NS deletes the pair)
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

# stop_all PID...: SIGTERM to each, then waits for each (one already gone is no error).
stop_all() {
	local p
	for p in "$@"; do kill "$p" 2>/dev/null || true; done
	for p in "$@"; do wait "$p" 2>/dev/null || true; done
}

test_cleanup() {
	local p
	stop_all ${pids[@]+"${pids[@]}"}
	for p in "${kill_pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	if declare -F kt_cleanup >/dev/null; then kt_cleanup; fi
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
	SINK_FILE=$1
	SINK_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	python3 "$HVREADY_SRC/tests/tools/post_sink.py" "$SINK_PORT" "$1" &
	pids+=("$!")
}

sink_posts() { [ -s "$SINK_FILE" ] && wc -l <"$SINK_FILE" || echo 0; }
sink_has() { [ "$(sink_posts)" -ge "$1" ]; }

block_open_shim() {
	build_shim block_open "$tmp/block_open.so"
	export HVREADY_TEST_BLOCK_OPEN=$1
	export HVREADY_TEST_BLOCK_FLAG="$tmp/blocking"
	touch "$HVREADY_TEST_BLOCK_FLAG"
	# Under ASan the shim is not first in the link order; it needs no ASan.
	# shellcheck disable=SC2034 # the caller's
	BLOCK_WRAP=(env LD_PRELOAD="$tmp/block_open.so"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
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

veth_netns() {
	ip netns add "$1"
	ip link add "$2" type veth peer name "$3"
	ip link set "$3" netns "$1"
	ip addr add "$4" dev "$2"
	ip link set "$2" up
	ip netns exec "$1" ip addr add "$5" dev "$3"
	ip netns exec "$1" ip link set "$3" up
	ip netns exec "$1" ip link set lo up
}

host_root_copy() {
	cp -a "$HVREADY_SRC/tests/fixtures/hostroots/$1" "$tmp/root" || fail "cannot copy the host root $1"
	echo "$tmp/root"
}
