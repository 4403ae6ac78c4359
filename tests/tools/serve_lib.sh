# Sourced by integration tests: run hvready-aggregator serve on a free
# loopback port. It binds port 0 and logs "listening on 127.0.0.1:PORT"; the
# port is read back from its log, so no other process can take it meanwhile.
#
#   start_aggregator LOG [serve options...]   sets AGG_PID and AGG_URL, waits
#                                             until /readyz answers 200
#   stop_aggregator                           SIGTERM, then SIGKILL after 5 s;
#                                             returns non-zero unless it exited 0
#                                             (under ASan: without a leak)
#
# Both are bounded: start gives up after 10 s (or as soon as the process
# exits) and returns 1.

AGG_PID=""
AGG_URL=""

start_aggregator() {
	local log=$1 port="" i
	shift
	"$HVREADY_BIN/hvready-aggregator" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
	AGG_PID=$!
	for i in $(seq 1 100); do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\) .*/\1/p' "$log" | head -n 1)
		[ -n "$port" ] && break
		kill -0 "$AGG_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	[ -n "$port" ] || return 1
	AGG_URL="http://127.0.0.1:$port"
	for i in $(seq 1 100); do
		if curl -fsS -o /dev/null --max-time 2 "$AGG_URL/readyz" 2>/dev/null; then
			return 0
		fi
		kill -0 "$AGG_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

stop_aggregator() {
	local i rc=0 killed=0
	[ -n "$AGG_PID" ] || return 0
	kill "$AGG_PID" 2>/dev/null || true
	for i in $(seq 1 50); do
		kill -0 "$AGG_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$AGG_PID" 2>/dev/null; then
		kill -9 "$AGG_PID" 2>/dev/null || true
		killed=1
	fi
	wait "$AGG_PID" 2>/dev/null || rc=$?
	AGG_PID=""
	[ "$killed" -eq 0 ] || return 137
	return "$rc"
}
