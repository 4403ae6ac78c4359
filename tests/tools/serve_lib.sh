# shellcheck shell=bash
# Sourced by integration tests: run hvready-aggregator serve on a free
# loopback port. It binds port 0 and logs "listening on HOST:PORT (SCHEME)";
# the port is read back from its log, so no other process can take it meanwhile.
#
#   start_aggregator LOG [serve options...]   sets AGG_PID and AGG_URL, waits
#                                             until /readyz answers 200
#   stop_aggregator                           SIGTERM, then SIGKILL after 5 s;
#                                             returns non-zero unless it exited 0
#                                             (under ASan: without a leak)
#   stop_pid PID                              the same for another process
#
# Both are bounded: start gives up after 10 s (or as soon as the process
# exits) and returns 1. Settings read by start_aggregator, kept until changed:
#   AGG_LISTEN  --listen address (127.0.0.1:0; HOST:PORT to restart on a port)
#   AGG_WRAP    a command the aggregator runs under (prlimit ..., env ...)
#   AGG_CURL    options of the readiness probe (--cacert CA for https)
# AGG_URL is always http(s)://127.0.0.1:PORT, the scheme as the server logs it.
#
# tmp, pids, fail, wait_for, stop_pid and the EXIT trap come from test_lib.sh
# (serve_test_init is its test_init; start_aggregator adds to pids). Also:
#   node_reports DIR [HOST N]  the agent's reports (msgpack) of two fixture
#               hosts: DIR/harvester-node-1.msgpack (a-debian-intel) and -2
#               (a-pvm-host); with HOST and N, of the one fixture host HOST as
#               N nodes: DIR/harvester-node-1.msgpack ... -N

# shellcheck source=test_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

AGG_PID=""
AGG_URL=""
AGG_LISTEN=127.0.0.1:0
AGG_WRAP=()
AGG_CURL=()

start_aggregator() {
	local log=$1 line="" port
	shift
	${AGG_WRAP[@]+"${AGG_WRAP[@]}"} "$HVREADY_BIN/hvready-aggregator" serve --listen "$AGG_LISTEN" "$@" 2>"$log" &
	AGG_PID=$!
	pids+=("$AGG_PID")
	for _ in $(seq 1 100); do
		line=$(grep -m 1 -o 'listening on [^ ]*:[0-9][0-9]* (https*)' "$log" || true)
		[ -n "$line" ] && break
		kill -0 "$AGG_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	[ -n "$line" ] || return 1
	port=${line##*:}
	port=${port%% *}
	case $line in
	*"(https)") AGG_URL="https://127.0.0.1:$port" ;;
	*) AGG_URL="http://127.0.0.1:$port" ;;
	esac
	for _ in $(seq 1 100); do
		if curl -fsS -o /dev/null --max-time 2 ${AGG_CURL[@]+"${AGG_CURL[@]}"} "$AGG_URL/readyz" 2>/dev/null; then
			return 0
		fi
		kill -0 "$AGG_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

stop_aggregator() {
	local rc=0
	stop_pid "$AGG_PID" || rc=$?
	AGG_PID=""
	return "$rc"
}

serve_test_init() { test_init; }
serve_test_cleanup() { test_cleanup; }

node_reports() {
	local dir=$1 spec node rc specs=(harvester-node-1:a-debian-intel harvester-node-2:a-pvm-host)
	mkdir -p "$dir"
	if [ $# -eq 3 ]; then
		specs=()
		for node in $(seq 1 "$3"); do specs+=("harvester-node-$node:$2"); done
	fi
	for spec in "${specs[@]}"; do
		node=${spec%%:*}
		rc=0
		"$HVREADY_BIN/hvready-agent" check --host-root "$HVREADY_SRC/tests/fixtures/hostroots/${spec#*:}" \
			--node "$node" --skip host.image.share-manager,host.nfs.probe --timeout 5 \
			--format msgpack --output "$dir/$node.msgpack" 2>"$tmp/agent.log" || rc=$?
		[ "$rc" -ne 2 ] && [ -s "$dir/$node.msgpack" ] ||
			fail "agent check for $node (exit $rc): $(cat "$tmp/agent.log")"
	done
}

# A bearer token shaped as a ServiceAccount JWT for audience "hvready" (RS256
# header; payload {"aud":["hvready"],"exp":4102444800,"iss":
# "https://kubernetes.default.svc.cluster.local"}) whose signature part is $1
# (base64url characters): the aggregator asks the API only about tokens of this
# shape (tokenreview_precheck), and the fake API server knows them by name.
sa_token() {
	printf 'eyJhbGciOiJSUzI1NiIsImtpZCI6InQifQ.%s.%s' \
		eyJhdWQiOlsiaHZyZWFkeSJdLCJleHAiOjQxMDI0NDQ4MDAsImlzcyI6Imh0dHBzOi8va3ViZXJuZXRlcy5kZWZhdWx0LnN2Yy5jbHVzdGVyLmxvY2FsIn0 \
		"$1"
}
