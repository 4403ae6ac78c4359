#!/usr/bin/env bash
# ctest: serial
# --probe-netns: the network checks probe from another network namespace, as
# the DaemonSet's agent probes from the host's (Longhorn mounts RWX volumes
# from the host's network namespace), while the daemon still posts from its
# own. An NFS-Ganesha server listens on 127.0.0.1 inside a namespace of this
# test only, where the agent's own loopback has nothing on that port:
#   check, no --probe-netns         FAIL (nothing listens here)
#   check --probe-netns NS          PASS, evidence names the namespace
#   check --probe-netns bad paths   UNKNOWN with the reason (never a probe
#                                   from the wrong namespace); without
#                                   endpoints still SKIP
#   run --probe-netns NS            the aggregator, on this namespace's
#                                   loopback, receives the PASS
set -euo pipefail
: "${HVREADY_SRC:?}" "${HVREADY_BIN:?}"
# shellcheck source=../tools/serve_lib.sh
source "$HVREADY_SRC/tests/tools/serve_lib.sh"
# shellcheck source=lib/ganesha.sh
source "$HVREADY_SRC/tests/integration/lib/ganesha.sh"
serve_test_init
FAIL_GLOB="$tmp/srv/ganesha.log"
NS=hvr-pns-$$
AGENT=$HVREADY_BIN/hvready-agent
PY=$(command -v /usr/bin/python3 || command -v python3)

extra_cleanup() {
	ganesha_stop "$tmp/srv" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
}

ip netns add "$NS"
ip netns exec "$NS" ip link set lo up
# An address besides loopback, or ganesha's getaddrinfo (AI_ADDRCONFIG) does
# not resolve 127.0.0.1: a veth pair with both ends inside the namespace.
ip netns exec "$NS" ip link add pns0 type veth peer name pns1
ip netns exec "$NS" ip addr add 169.254.77.1/30 dev pns0
ip netns exec "$NS" ip link set pns0 up
ip netns exec "$NS" ip link set pns1 up
PORT=$(ganesha_start "$tmp/srv" 127.0.0.1 auto "$NS") || fail "ganesha did not start in netns $NS"
URL="nfs://127.0.0.1:$PORT/pvc-test"
# The port must be closed here, or the first case would not say what it says.
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
	fail "port $PORT is open in this namespace too: cannot tell the two apart"
fi
printf '{"nfs_endpoints": ["%s"]}\n' "$URL" >"$tmp/targets.json"
echo '{}' >"$tmp/no-targets.json"

# nfs_finding FILE -> "STATUS<TAB>network_namespace<TAB>message" of host.nfs.probe
nfs_finding() {
	"$PY" - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
fs = [f for f in doc["results"] if f["check"] == "host.nfs.probe"]
assert len(fs) == 1, fs
f = fs[0]
print("%s\t%s\t%s" % (f["status"], f["evidence"].get("network_namespace", ""), f["message"]))
PY
}

check() { # NAME TARGETS [options...]
	local name=$1 targets=$2
	shift 2
	"$AGENT" check --only host.nfs.probe --format json --timeout 3 --probe-targets "$targets" \
		"$@" >"$tmp/$name.json" 2>"$tmp/$name.log" || true
	nfs_finding "$tmp/$name.json"
}

got=$(check here "$tmp/targets.json")
[[ $got == FAIL$'\t\t'* ]] || fail "without --probe-netns: want FAIL, got: $got"

got=$(check there "$tmp/targets.json" --probe-netns "/run/netns/$NS")
ino=$(stat -L -c %i "/run/netns/$NS")
[[ $got == "PASS"$'\t'"/run/netns/$NS (net:[$ino])"$'\t'* ]] || fail "--probe-netns $NS: want PASS from net:[$ino], got: $got"

got=$(check missing "$tmp/targets.json" --probe-netns "$tmp/no-such-ns")
[[ $got == UNKNOWN$'\t\t'"not probed: cannot enter the network namespace $tmp/no-such-ns" ]] ||
	fail "a missing namespace: want UNKNOWN, got: $got"
got=$(check notns "$tmp/targets.json" --probe-netns "$tmp/targets.json")
[[ $got == UNKNOWN$'\t\t'* ]] || fail "a file that is no namespace: want UNKNOWN, got: $got"
grep -q 'not a network namespace' "$tmp/notns.json" || fail "a file that is no namespace: the reason is missing"
got=$(check none "$tmp/no-targets.json" --probe-netns "$tmp/no-such-ns")
[[ $got == SKIP$'\t\t'* ]] || fail "no endpoints: want SKIP whatever the namespace, got: $got"

# The daemon: it posts to an aggregator on this namespace's loopback, and its
# probe helper probes from $NS.
head -c 24 /dev/urandom | base64 | tr -d '=+/' >"$tmp/token"
chmod 600 "$tmp/token"
start_aggregator "$tmp/agg.log" --token-file "$tmp/token" --interval 2 \
	--cluster-state "$HVREADY_SRC/examples/cluster" || fail "the aggregator did not start"
"$AGENT" run --aggregator "$AGG_URL" --token-file "$tmp/token" --interval 1 --timeout 3 \
	--node pns-node --probe-targets "$tmp/targets.json" --probe-netns "/run/netns/$NS" \
	--skip host.image.share-manager 2>"$tmp/agent.log" &
pids+=($!)
daemon_pass() {
	curl -sf -H "Authorization: Bearer $(cat "$tmp/token")" "$AGG_URL/v1/nodes/pns-node" \
		>"$tmp/node.json" || { echo "no report of pns-node yet" >&2; return 1; }
	"$PY" "$HVREADY_SRC/tests/tools/finding_holds.py" "$tmp/node.json" host.nfs.probe \
		"f['status'] == 'PASS' and f['evidence'].get('network_namespace') == '/run/netns/$NS (net:[$ino])'"
}
wait_for 30 "the daemon's report with host.nfs.probe PASS from $NS" daemon_pass
echo PASS
