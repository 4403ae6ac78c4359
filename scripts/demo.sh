#!/usr/bin/env bash
# make demo: the live pipeline on this machine.
#  1. a throwaway CA, server certificate and bearer token;
#  2. hvready-aggregator serve over TLS on loopback, with examples/cluster as the cluster state;
#  3. hvready-agent run on this machine (as node harvester-node-1) reporting to it;
#  4. wait for the verdict, print it as text; stop everything it started.
set -uo pipefail
BUILD=${1:-build}
BIN="$BUILD/bin"
SRC=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/hvready-demo.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

die() { echo "demo: $*" >&2; for f in "$tmp"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done; exit 1; }

echo "== 1. throwaway CA, server certificate and token in $tmp"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=hvready demo CA" \
	-keyout "$tmp/ca.key" -out "$tmp/ca.crt" 2>/dev/null || die "openssl CA"
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$tmp/server.key" \
	-out "$tmp/server.csr" 2>/dev/null || die "openssl CSR"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$tmp/ext.cnf"
openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial \
	-days 1 -extfile "$tmp/ext.cnf" -out "$tmp/server.crt" 2>/dev/null || die "openssl sign"
chmod 600 "$tmp/server.key"
head -c 32 /dev/urandom | base64 | tr -d '=+/' >"$tmp/token"
chmod 600 "$tmp/token"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url="https://127.0.0.1:$port"

echo "== 2. hvready-aggregator serve on $url (cluster state: examples/cluster)"
"$BIN/hvready-aggregator" serve --listen "127.0.0.1:$port" --tls-cert "$tmp/server.crt" \
	--tls-key "$tmp/server.key" --token-file "$tmp/token" --interval 5 \
	--cluster-state "$SRC/examples/cluster" 2>"$tmp/aggregator.log" &
pids+=($!)
for _ in $(seq 1 50); do
	curl -sf --cacert "$tmp/ca.crt" "$url/readyz" >/dev/null 2>&1 && break
	sleep 0.2
done
curl -sf --cacert "$tmp/ca.crt" "$url/readyz" >/dev/null || die "the aggregator did not become ready"

echo "== 3. hvready-agent run on this machine, as node harvester-node-1"
# Two probes are left out of the demo, because they would reach beyond this
# machine: the example cluster's RWX share endpoint (a Service IP of a cluster
# that is not here) and the share-manager image on Docker Hub. Try them with
#   hvready-agent check --only host.image.share-manager,host.nfs.probe --probe-targets FILE
echo "   (host.nfs.probe and host.image.share-manager skipped: they would leave this machine)"
"$BIN/hvready-agent" run --aggregator "$url" --ca-file "$tmp/ca.crt" --token-file "$tmp/token" \
	--node harvester-node-1 --interval 5 --timeout 5 \
	--skip host.nfs.probe,host.image.share-manager 2>"$tmp/agent.log" &
pids+=($!)

echo "== 4. waiting for this node's report in the verdict"
# The verdict is recomputed at most once a second, after the report arrived:
# wait until it counts this node as reporting.
in_verdict() {
	curl -sf --cacert "$tmp/ca.crt" "$url/v1/verdict" 2>/dev/null | python3 -c '
import json, sys
v = json.load(sys.stdin)
sys.exit(not [n for n in v["nodes"] if n["name"] == "harvester-node-1" and n["reporting"]])' 2>/dev/null
}
ok=""
for _ in $(seq 1 120); do
	in_verdict && { ok=1; break; }
	sleep 0.5
done
[ -n "$ok" ] || die "this node is not reporting in the verdict within 60 s"

echo "== the verdict (GET /v1/verdict?format=text)"
curl -sf --cacert "$tmp/ca.crt" "$url/v1/verdict?format=text" || die "GET /v1/verdict"
echo
echo "Dashboard while it ran: $url/ ; metrics: $url/metrics"
exit 0
