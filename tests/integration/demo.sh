#!/usr/bin/env bash
# ctest: serial
# `make demo` as shipped: the aggregator over TLS with the example cluster and
# this machine's agent; it must end with the verdict printed and leave no
# process behind. Then the shipped config files: the agent started with a copy
# of systemd/agent.yaml (only the addresses and paths changed) reports to an
# aggregator started with the values of systemd/aggregator.env.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}" "${HVREADY_BUILD:?}"
tmp=$(mktemp -d)
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
FAIL_TAIL=20
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT

(cd "$HVREADY_SRC" && timeout 240 bash scripts/demo.sh "$HVREADY_BUILD") >"$tmp/demo.log" 2>&1 ||
	fail "make demo exited $?"
grep -q '^GATES' "$tmp/demo.log" || fail "the demo printed no verdict"
grep -qE '^  live-migration +(PASS|WARN|FAIL|UNKNOWN)' "$tmp/demo.log" || fail "no live-migration gate in the verdict"
grep -q 'harvester-node-1' "$tmp/demo.log" || fail "the demo's node is not in the verdict"
sleep 0.5
# Everything the demo starts carries its temporary directory in its arguments
# (other tests run hvready processes in parallel: count only the demo's).
left=$(pgrep -f '/tmp/hvready-demo\.' || true)
[ -z "$left" ] || fail "the demo left process(es) behind: $(ps -o pid,args -p $left | tail -n +2)"
echo "demo: verdict printed, no process left behind"

# --- the shipped config files --------------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=t" -keyout "$tmp/ca.key" -out "$tmp/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$tmp/tls.key" -out "$tmp/tls.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$tmp/ext"
openssl x509 -req -in "$tmp/tls.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial -days 1 \
	-extfile "$tmp/ext" -out "$tmp/tls.crt" 2>/dev/null
chmod 600 "$tmp/tls.key"
# The agent's token is its node's line of the aggregator's node-tokens file.
head -c 24 /dev/urandom | base64 >"$tmp/token"
chmod 600 "$tmp/token"
printf 'harvester-node-2 %s\n' "$(cat "$tmp/token")" >"$tmp/node-tokens"
chmod 600 "$tmp/node-tokens"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# aggregator.env, as the unit reads it, with this test's paths.
sed -e "s#^HVREADY_LISTEN=.*#HVREADY_LISTEN=127.0.0.1:$port#" -e "s#/etc/hvready/#$tmp/#" \
	"$HVREADY_SRC/systemd/aggregator.env" >"$tmp/aggregator.env"
# shellcheck disable=SC1091
. "$tmp/aggregator.env"
# The unit's own ExecStart, continuation lines joined, expanded by bash as
# systemd expands it for these values (none but $HVREADY_AUTH holds a space,
# and that one is meant to split). The unit runs with --kubeconfig; here the
# example cluster stands in for the API.
exec_line=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$HVREADY_SRC/systemd/hvready-aggregator.service" |
	sed -e 's/^ExecStart=//' -e 's/\\$//' | tr '\n' ' ')
case $exec_line in *'$HVREADY_AUTH'*) ;; *) fail "the unit does not take its credential from HVREADY_AUTH: $exec_line" ;; esac
exec_line=${exec_line/'--kubeconfig ${HVREADY_KUBECONFIG}'/--cluster-state $HVREADY_SRC/examples/cluster}
exec_line=${exec_line/\/usr\/bin\/hvready-aggregator/$HVREADY_BIN/hvready-aggregator}
eval "set -- $exec_line"
[[ " $* " == *" --node-token-file $tmp/node-tokens "* ]] || fail "the shipped unit does not use per-node tokens: $*"
"$@" 2>"$tmp/aggregator.log" &
pids+=($!)
sed -e "s#https://CONTROL-PLANE-ADDRESS:9443#https://127.0.0.1:$port#" -e "s#/etc/hvready/#$tmp/#" \
	-e 's/^interval: .*/interval: 2/' "$HVREADY_SRC/systemd/agent.yaml" >"$tmp/agent.yaml"
echo "node: harvester-node-2" >>"$tmp/agent.yaml"
echo "skip: [host.image.share-manager, host.nfs.probe]" >>"$tmp/agent.yaml"
"$HVREADY_BIN/hvready-agent" run --config "$tmp/agent.yaml" 2>"$tmp/agent.log" &
pids+=($!)
# The verdict is recomputed at most once a second, after the report arrived:
# wait until it counts the node as reporting.
reporting() {
	curl -sf --cacert "$tmp/ca.crt" "https://127.0.0.1:$port/v1/verdict" >"$tmp/verdict.json" 2>/dev/null &&
		python3 - "$tmp/verdict.json" <<'PY' 2>/dev/null
import json, sys
v = json.load(open(sys.argv[1]))
sys.exit(not [n for n in v["nodes"] if n["name"] == "harvester-node-2" and n["reporting"]])
PY
}
for _ in $(seq 1 60); do
	reporting && break
	sleep 0.5
done
reporting || fail "the agent with the shipped agent.yaml is not reporting in the verdict"
python3 - "$tmp/verdict.json" <<'PY' || fail "no verdict with the shipped configs"
import json, sys
v = json.load(open(sys.argv[1]))
assert set(v["gates"]) == {"preinstall", "platform", "rwx", "live-migration"}, v["gates"]
PY
echo "shipped configs: agent.yaml + aggregator.env give a verdict"
echo PASS
