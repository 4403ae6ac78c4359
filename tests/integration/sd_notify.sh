#!/usr/bin/env bash
# ctest: serial
# sd_notify through a real NOTIFY_SOCKET datagram socket, for both daemons:
# READY=1 (the aggregator only once it listens), WATCHDOG=1 at half of
# WATCHDOG_USEC, STATUS=, and STOPPING=1 then a clean exit on SIGTERM.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
test_init
FAIL_GLOB="$tmp/*.jsonl"
L="python3 $HVREADY_SRC/tests/tools/notify_listener.py"


# A free port for the aggregator (bind 0, read it back).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

echo "== aggregator"
WATCHDOG_USEC=400000 SIGTERM_AFTER=2 CHECK_PORT_ON_READY=127.0.0.1:$port MAX_SECONDS=20 \
	$L "$tmp/agg.jsonl" "$tmp/agg.sock" -- "$HVREADY_BIN/hvready-aggregator" serve \
	--insecure-no-auth --listen "127.0.0.1:$port" --cluster-state "$HVREADY_SRC/examples/cluster" \
	2>"$tmp/agg.log" || fail "aggregator exited non-zero ($?)"
python3 - "$tmp/agg.jsonl" <<'PY' || fail "aggregator notifications"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
msgs = [r["msg"] for r in recs]
ready = [r for r in recs if "READY=1" in r["msg"]]
assert ready, "no READY=1"
assert ready[0].get("ready_port_open") is True, "READY=1 before the port accepted connections"
wd = [r["t"] for r in recs if r["msg"] == "WATCHDOG=1"]
assert len(wd) >= 5, "too few WATCHDOG=1: %d" % len(wd)
gaps = [b - a for a, b in zip(wd, wd[1:])]
assert max(gaps) < 0.45, "watchdog gap %.3fs exceeds WATCHDOG_USEC" % max(gaps)
assert any(m.startswith("STATUS=") or "\nSTATUS=" in m for m in msgs), "no STATUS="
assert any("STOPPING=1" in m for m in msgs), "no STOPPING=1"
assert "TIMEOUT" not in msgs
print("aggregator: READY after listen, %d watchdog pings (max gap %.3fs), STOPPING" % (len(wd), max(gaps)))
PY

echo "== agent"
# The aggregator is down on purpose: the agent must still be READY, keep its
# watchdog going while it backs off, and stop cleanly.
WATCHDOG_USEC=400000 SIGTERM_AFTER=3 MAX_SECONDS=30 \
	$L "$tmp/agent.jsonl" "$tmp/agent.sock" -- "$HVREADY_BIN/hvready-agent" run \
	--aggregator "http://127.0.0.1:$port" --interval 1 --timeout 2 \
	--skip host.nfs.probe,host.image.share-manager \
	2>"$tmp/agent.log" || fail "agent exited non-zero ($?)"
python3 - "$tmp/agent.jsonl" <<'PY' || fail "agent notifications"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
msgs = [r["msg"] for r in recs]
assert any("READY=1" in m for m in msgs), "no READY=1"
wd = [r["t"] for r in recs if r["msg"] == "WATCHDOG=1"]
assert len(wd) >= 5, "too few WATCHDOG=1: %d" % len(wd)
gaps = [b - a for a, b in zip(wd, wd[1:])]
assert max(gaps) < 0.45, "watchdog gap %.3fs" % max(gaps)
st = [m for m in msgs if m.startswith("STATUS=")]
assert any("aggregator:" in m for m in st), "no STATUS naming the aggregator failure: %r" % st
assert any("STOPPING=1" in m for m in msgs), "no STOPPING=1"
print("agent: READY, %d watchdog pings (max gap %.3fs), %d STATUS, STOPPING" % (len(wd), max(gaps), len(st)))
PY
grep -q "retrying in" "$tmp/agent.log" || fail "agent did not back off: $(cat "$tmp/agent.log")"
echo "PASS"
