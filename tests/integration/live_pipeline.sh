#!/usr/bin/env bash
# ctest: serial
# The live pipeline end to end, with real processes and sockets: a fake
# kube-apiserver (HTTPS, list API, TokenReview), the aggregator over TLS with
# --tokenreview, and three agents in three network namespaces acting as three
# nodes with fixture host roots. Checks: all three report; a token of node 1
# reporting for node 2 is 403; every bad request gets its status and the server
# keeps serving; a stopped agent's node goes UNKNOWN after 3 intervals and no
# gate is PASS; after an aggregator restart every node is back within two
# intervals.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
AGENT="$HVREADY_BIN/hvready-agent"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
FAIL_TAIL=15
tag="hv$$"
nss=()
extra_cleanup() {
	for n in "${nss[@]}"; do ip netns del "$n" 2>/dev/null || true; done
	for i in 1 2 3; do ip link del "${tag}a$i" 2>/dev/null || true; done
}
INTERVAL=3
# The three namespaces are this test's own hosts (netguard.h).
export HVREADY_TEST_NET_ALLOW="${HVREADY_TEST_NET_ALLOW:+$HVREADY_TEST_NET_ALLOW,}10.231.1.0/30,10.231.2.0/30,10.231.3.0/30"

# --- PKI: one CA for the fake API server and the aggregator -------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=hvready test CA" \
	-keyout "$tmp/ca.key" -out "$tmp/ca.crt" 2>/dev/null
mkcert() { # name SAN
	openssl req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$tmp/$1.key" -out "$tmp/$1.csr" 2>/dev/null
	printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$2" >"$tmp/$1.ext"
	openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial \
		-days 1 -extfile "$tmp/$1.ext" -out "$tmp/$1.crt" 2>/dev/null
	chmod 600 "$tmp/$1.key"
}
mkcert apiserver "IP:127.0.0.1,DNS:localhost"
mkcert aggregator "IP:127.0.0.1,IP:10.231.1.1,IP:10.231.2.1,IP:10.231.3.1"

# --- the fake kube-apiserver with the example cluster and token reviews --------
cat >"$tmp/reviews.json" <<JSON
{"$(sa_token tok-node-1)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-1", "pod": "hvready-agent-n1"},
 "$(sa_token tok-node-2)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-2", "pod": "hvready-agent-n2"},
 "$(sa_token tok-node-3)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-3", "pod": "hvready-agent-n3"},
 "$(sa_token tok-other-audience)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-2", "audiences": ["vault"]},
 "$(sa_token tok-other-app)": {"user": "system:serviceaccount:default:other-app", "node": "harvester-node-2", "pod": "other-app-x"},
 "$(sa_token tok-longhorn)": {"user": "system:serviceaccount:longhorn-system:longhorn-service-account", "node": "harvester-node-2", "pod": "longhorn-manager-x"},
 "$(sa_token tok-plain-user)": {"user": "alice", "groups": ["system:authenticated"], "node": "harvester-node-2"},
 "$(sa_token tok-no-pod)": {"user": "system:serviceaccount:hvready-system:hvready-agent"},
 "$(sa_token tok-gone-pod)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "pod": "hvready-agent-gone"}}
JSON
python3 "$HVREADY_SRC/tests/tools/fake_apiserver.py" --fixtures "$HVREADY_SRC/examples/cluster" \
	--cert "$tmp/apiserver.crt" --key "$tmp/apiserver.key" --bind 127.0.0.1 --token admin-token \
	--require-auth --tokenreview "$tmp/reviews.json" --log "$tmp/api.log" >"$tmp/fake.port" 2>"$tmp/fake.log" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$tmp/fake.port" ] && break; sleep 0.1; done
api_port=$(head -n1 "$tmp/fake.port" | tr -dc 0-9)
[ -n "$api_port" ] || fail "the fake apiserver did not start"
cat >"$tmp/kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority: $tmp/ca.crt
users:
- name: admin
  user:
    token: admin-token
contexts:
- name: fake
  context: {cluster: fake, user: admin}
current-context: fake
YAML

# --- the aggregator -----------------------------------------------------------
# On all addresses: the agents reach it from their namespaces over the veths.
AGG_LISTEN=0.0.0.0:0
AGG_CURL=(--cacert "$tmp/ca.crt")
start() { # log
	start_aggregator "$tmp/$1" --tls-cert "$tmp/aggregator.crt" \
		--tls-key "$tmp/aggregator.key" --kubeconfig "$tmp/kubeconfig" --tokenreview \
		--interval "$INTERVAL" || fail "the aggregator did not become ready"
	agg_port=${AGG_URL##*:}
	AGG_LISTEN="0.0.0.0:$agg_port" # a restart keeps the port
}
start aggregator.log
api() { curl -s --cacert "$tmp/ca.crt" "$@"; }

# --- three nodes: network namespaces with a veth each ---------------------------
roots=(a-debian-intel b-rhel9 b-slemicro55-harvester)
declare -A agent_pid
start_agent() { # i
	local i=$1 ns="${tag}n$1"
	sa_token "tok-node-$i" >"$tmp/token-$i"
	ip netns exec "$ns" "$AGENT" run --aggregator "https://10.231.$i.1:$agg_port" \
		--ca-file "$tmp/ca.crt" --token-file "$tmp/token-$i" --node "harvester-node-$i" \
		--host-root "$HVREADY_SRC/tests/fixtures/hostroots/${roots[$((i - 1))]}" \
		--interval "$INTERVAL" --timeout 5 --skip host.image.share-manager,host.nfs.probe \
		2>>"$tmp/agent-$i.log" &
	agent_pid[$i]=$!
	pids+=($!)
}
for i in 1 2 3; do
	ns="${tag}n$i"
	nss+=("$ns")
	veth_netns "$ns" "${tag}a$i" "${tag}b$i" "10.231.$i.1/30" "10.231.$i.2/30"
	start_agent "$i"
done

all_three() { [ "$(api "https://127.0.0.1:$agg_port/v1/nodes" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["nodes"]))')" = 3 ]; }
wait_for 60 "three nodes reporting" all_three
echo "three agents in three namespaces report over TLS with reviewed tokens"

verdict_check() { # python assertion on the verdict JSON
	api "https://127.0.0.1:$agg_port/v1/verdict" >"$tmp/verdict.json"
	python3 - "$tmp/verdict.json" "$@"
}
sleep 1.2
verdict_check <<'PY' || fail "verdict with three nodes"
import json, sys
v = json.load(open(sys.argv[1]))
rep = [f for f in v["findings"] if f["check"] == "cluster.nodes.reporting" and "node" not in f]
assert rep and rep[0]["status"] == "PASS", rep
nodes = {f.get("node") for f in v["findings"] if f["check"].startswith("host.")}
assert nodes == {"harvester-node-1", "harvester-node-2", "harvester-node-3"}, nodes
skew = [f for f in v["findings"] if f["check"] == "cluster.clock.skew" and "node" not in f]
assert skew[0]["status"] == "PASS", skew
PY

# --- every bad request, and the server keeps serving ---------------------------
"$AGENT" check --node harvester-node-2 --host-root "$HVREADY_SRC/tests/fixtures/hostroots/b-rhel9" \
	--skip host.image.share-manager,host.nfs.probe --format msgpack --output "$tmp/node2.msgpack" >/dev/null || true
post() { # token content-type file -> prints HTTP status and body
	local auth=()
	[ -n "$1" ] && auth=(-H "Authorization: Bearer $1")
	api -o "$tmp/body" -w '%{http_code}' "${auth[@]}" -H "Content-Type: $2" --data-binary "@$3" \
		"https://127.0.0.1:$agg_port/v1/reports"
	echo " $(head -c 300 "$tmp/body")"
}
expect() { # code what output
	case "$3" in "$1 "*) echo "  $2: $1" ;; *) fail "$2: expected $1, got: $3" ;; esac
}
expect 403 "token of node 1 reporting for node 2" "$(post $(sa_token tok-node-1) application/msgpack "$tmp/node2.msgpack")"
grep -q "cannot report for node harvester-node-2" "$tmp/body" || fail "403 without the reason: $(cat "$tmp/body")"
expect 200 "token of node 2 for node 2" "$(post $(sa_token tok-node-2) application/msgpack "$tmp/node2.msgpack")"
expect 401 "no token" "$(post "" application/msgpack "$tmp/node2.msgpack")"
expect 401 "unknown token" "$(post $(sa_token tok-nobody) application/msgpack "$tmp/node2.msgpack")"
expect 401 "token for another audience" "$(post $(sa_token tok-other-audience) application/msgpack "$tmp/node2.msgpack")"
# Identities bound to node 2 that are not its agent (issue: any identity bound
# to a node could report for it), each refused with its reason in the log.
expect 403 "another application's ServiceAccount on node 2" "$(post $(sa_token tok-other-app) application/msgpack "$tmp/node2.msgpack")"
grep -q "not of the agent's ServiceAccount" "$tmp/body" || fail "403 without the reason: $(cat "$tmp/body")"
expect 403 "Longhorn's ServiceAccount on node 2" "$(post $(sa_token tok-longhorn) application/msgpack "$tmp/node2.msgpack")"
expect 403 "a plain user with a node-name extra" "$(post $(sa_token tok-plain-user) application/msgpack "$tmp/node2.msgpack")"
expect 403 "the agent's ServiceAccount bound to no pod" "$(post $(sa_token tok-no-pod) application/msgpack "$tmp/node2.msgpack")"
# A server before node-name extras (Kubernetes < 1.30): the pod decides, and
# one not in the cluster state is refused, not guessed.
expect 403 "a pod the cluster state does not hold" "$(post $(sa_token tok-gone-pod) application/msgpack "$tmp/node2.msgpack")"
grep -q "hvready-system/hvready-agent-gone" "$tmp/body" || fail "403 without the pod: $(cat "$tmp/body")"
reviews_before=$(grep -c tokenreviews "$tmp/api.log" || true)
expect 401 "not a ServiceAccount JWT" "$(post tok-node-2 application/msgpack "$tmp/node2.msgpack")"
grep -q "not a ServiceAccount token for audience hvready" "$tmp/body" || fail "401 without the reason: $(cat "$tmp/body")"
expect 401 "a JWT for another audience" "$(post eyJhbGciOiJSUzI1NiIsImtpZCI6InQifQ.eyJhdWQiOlsidmF1bHQiXSwiZXhwIjo0MTAyNDQ0ODAwLCJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9.sig application/msgpack "$tmp/node2.msgpack")"
[ "$(grep -c tokenreviews "$tmp/api.log" || true)" = "$reviews_before" ] ||
	fail "the API was asked about tokens that cannot pass"
for why in "not of the agent's ServiceAccount" "cannot report for node harvester-node-2"; do
	grep -q "refused a report for node harvester-node-2 (.*$why" "$tmp/aggregator.log" ||
		fail "no log line saying: $why"
done
# A token that is no credential at all is refused at the request's headers,
# before the report (and the node it names) is read.
grep -q "refused a request at its headers (401 /v1/reports .*not a ServiceAccount token" \
	"$tmp/aggregator.log" || fail "no log line saying: not a ServiceAccount token"
grep -q "eyJhbGci" "$tmp/aggregator.log" && fail "a token in the aggregator's log"
expect 415 "wrong content type" "$(post $(sa_token tok-node-2) application/json "$tmp/node2.msgpack")"
printf '\x93\x01\x02' >"$tmp/garbage"
expect 400 "not a report" "$(post $(sa_token tok-node-2) application/msgpack "$tmp/garbage")"
python3 - "$tmp/v2.msgpack" <<'PY'
import sys
def s(x):
    b = x.encode()
    return bytes([0xa0 | len(b)]) + b
# {"schema": "hvready.node/v2", "node": "harvester-node-2"}
open(sys.argv[1], "wb").write(bytes([0x82]) + s("schema") + s("hvready.node/v2") + s("node") + s("harvester-node-2"))
PY
out=$(post $(sa_token tok-node-2) application/msgpack "$tmp/v2.msgpack")
expect 400 "unknown major version" "$out"
grep -q "hvready.node/v2" "$tmp/body" || fail "no version in the 400: $(cat "$tmp/body")"
head -c $((1024 * 1024 + 10)) /dev/zero >"$tmp/big"
code=$(api -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(sa_token tok-node-2)" \
	-H "Content-Type: application/msgpack" --data-binary "@$tmp/big" "https://127.0.0.1:$agg_port/v1/reports" || true)
[ "$code" = 413 ] || fail "over 1 MiB: expected 413, got $code"
echo "  body over 1 MiB: 413"
code=$(api -o /dev/null -w '%{http_code}' -X POST "https://127.0.0.1:$agg_port/v1/verdict")
[ "$code" = 405 ] || fail "POST /v1/verdict: expected 405, got $code"
code=$(api -o /dev/null -w '%{http_code}' "https://127.0.0.1:$agg_port/v1/nope")
[ "$code" = 404 ] || fail "GET /v1/nope: expected 404, got $code"
api -sf "https://127.0.0.1:$agg_port/healthz" >/dev/null || fail "the server stopped serving"
api -sf "https://127.0.0.1:$agg_port/metrics" | grep 'hvready_report_rejected_total{reason="forbidden"} [1-9]' >/dev/null ||
	fail "rejections not counted in /metrics"

# --- a stopped agent: its node is UNKNOWN after 3 intervals, no gate PASS -------
kill "${agent_pid[3]}"
wait "${agent_pid[3]}" 2>/dev/null || true
t0=$SECONDS
node3_unknown() {
	verdict_check <<'PY' 2>/dev/null
import json, sys
v = json.load(open(sys.argv[1]))
f = [f for f in v["findings"] if f["check"] == "cluster.nodes.reporting" and f.get("node") == "harvester-node-3"]
assert f and f[0]["status"] == "UNKNOWN", f
assert all(g["status"] != "PASS" for g in v["gates"].values()), v["gates"]
PY
}
wait_for $((3 * INTERVAL + 8)) "node 3 UNKNOWN after its agent stopped" node3_unknown
[ $((SECONDS - t0)) -ge $((2 * INTERVAL)) ] || fail "node 3 went UNKNOWN too early ($((SECONDS - t0))s)"
echo "stopped agent: harvester-node-3 UNKNOWN after $((SECONDS - t0))s, no gate PASS"

# --- aggregator restart: every running agent is back within two intervals ------
kill "$AGG_PID"
wait "$AGG_PID" 2>/dev/null || true
sleep 1
start aggregator-restarted.log
t0=$SECONDS
two_back() { [ "$(api "https://127.0.0.1:$agg_port/v1/nodes" | python3 -c 'import json,sys; print(" ".join(sorted(n["name"] for n in json.load(sys.stdin)["nodes"])))' 2>/dev/null)" = "harvester-node-1 harvester-node-2" ]; }
wait_for $((2 * INTERVAL + 6)) "nodes 1 and 2 back after the aggregator restart" two_back
echo "aggregator restart: nodes back after $((SECONDS - t0))s"
echo PASS
