#!/usr/bin/env bash
# A report's node is bound to its credential at the headers (docs/protocol.md
# §1, Hvready-Node; docs/robustness.md, header phase): a valid credential of
# another identity is refused with 403 before a byte of the body is read.
# 1. --node-token-file: node 2's token with "Hvready-Node: harvester-node-1"
#    announcing 1 MiB - 1 of body, of which 16 bytes are sent, gets 403 at
#    once and the connection is closed (the old server took the token at the
#    headers and waited for the body to learn the node); 200 connections of
#    that at once all get 403; the right token with its node's report is
#    taken (200); a body for another node than the header's is 400; two
#    Hvready-Node headers are 400; an agent without the header (older) is
#    still decided on the body (403 for another node's, 200 for its own).
# 2. --tokenreview: the agent's ServiceAccount token bound to node 1 with
#    "Hvready-Node: harvester-node-2" gets 403 at the headers, both while its
#    review holds the request and once the review is cached.
# 3. A real `hvready-agent run` sends the header: with another node's token
#    its report is refused (403) and the server logged it at the headers;
#    with its own, its node appears in /v1/nodes.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
pids=()
extra_cleanup() {
	local p
	for p in "${pids[@]}"; do stop_pid "$p" || true; done
}
node_reports "$TMP/reports"
rnd() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
TOK1="n1-$(rnd)"
TOK2="n2-$(rnd)"
printf 'harvester-node-1 %s\nharvester-node-2 %s\n' "$TOK1" "$TOK2" >"$TMP/node-tokens"
printf '%s\n' "$TOK1" >"$TMP/tok1"
printf '%s\n' "$TOK2" >"$TMP/tok2"
chmod 600 "$TMP/node-tokens" "$TMP/tok1" "$TMP/tok2"

# raw TOKEN NODE MODE [N]: N (default 1) requests at once, each on its own
# connection, POST /v1/reports with "Hvready-Node: NODE" ("-": none,
# "twice": two of them). MODE partial: a Content-Length of 1 MiB - 1 with 16
# bytes sent and the connection kept open; else MODE is a file sent whole.
# Prints each distinct "STATUS closed|open" with its count.
raw() {
	python3 - "${AGG_URL##*:}" "$@" <<'PY'
import selectors, socket, sys, time
port, tok, node, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
n = int(sys.argv[5]) if len(sys.argv) > 5 else 1
head = "POST /v1/reports HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/msgpack\r\n"
head += "Authorization: Bearer %s\r\n" % tok
if node == "twice":
    head += "Hvready-Node: harvester-node-1\r\nHvready-Node: harvester-node-2\r\n"
elif node != "-":
    head += "Hvready-Node: %s\r\n" % node
if mode == "partial":
    data = (head + "Content-Length: %d\r\n\r\n" % ((1 << 20) - 1)).encode() + b"\x93" * 16
else:
    body = open(mode, "rb").read()
    data = (head + "Content-Length: %d\r\n\r\n" % len(body)).encode() + body
conns = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    s.sendall(data)
    s.setblocking(False)
    conns.append([s, b"", False])
sel = selectors.DefaultSelector()
for c in conns:
    sel.register(c[0], selectors.EVENT_READ, c)
deadline = time.time() + 3
left = n
while left and time.time() < deadline:
    for key, _ in sel.select(timeout=0.1):
        c = key.data
        try:
            b = c[0].recv(65536)
        except (BlockingIOError, InterruptedError):
            continue
        except OSError:
            b = b""
        if b:
            c[1] += b
        else:
            c[2] = True
            sel.unregister(c[0])
            left -= 1
seen = {}
for s, out, closed in conns:
    status = out.split(b" ", 2)[1].decode() if out.startswith(b"HTTP/1.1 ") else "none"
    k = "%s %s" % (status, "closed" if closed else "open")
    seen[k] = seen.get(k, 0) + 1
    s.close()
print(" ".join("%s x%d" % kv for kv in sorted(seen.items())))
PY
}
expect() { # want what got
	case "$3" in "$1") echo "  $2: $3" ;; *) fail "$2: expected '$1', got '$3'" ;; esac
}
R1="$TMP/reports/harvester-node-1.msgpack"
R2="$TMP/reports/harvester-node-2.msgpack"
STATE=(--cluster-state "$HVREADY_SRC/examples/cluster")

echo "== 1. --node-token-file"
start_aggregator "$TMP/agg-nodes.log" --node-token-file "$TMP/node-tokens" "${STATE[@]}" ||
	fail "the aggregator did not start"
expect "403 closed x1" "node 2's token for node 1, body announced not sent" \
	"$(raw "$TOK2" harvester-node-1 partial)"
expect "403 closed x1" "node 2's token for a node without a token, body announced not sent" \
	"$(raw "$TOK2" harvester-node-9 partial)"
expect "401 closed x1" "a wrong token for node 1, body announced not sent" \
	"$(raw "wrong-$(rnd)" harvester-node-1 partial)"
expect "403 closed x200" "200 connections of node 2's token for node 1, bodies announced not sent" \
	"$(raw "$TOK2" harvester-node-1 partial 200)"
expect "200 closed x1" "node 1's token, Hvready-Node and report of node 1" "$(raw "$TOK1" harvester-node-1 "$R1")"
expect "400 closed x1" "node 1's token and header, node 2's report" "$(raw "$TOK1" harvester-node-1 "$R2")"
expect "400 closed x1" "two Hvready-Node headers" "$(raw "$TOK1" twice "$R1")"
expect "403 closed x1" "no header (an older agent): node 2's token, node 1's report, decided on the body" \
	"$(raw "$TOK2" - "$R1")"
expect "200 closed x1" "no header (an older agent): node 1's own report" "$(raw "$TOK1" - "$R1")"
grep -q "refused a request at its headers (403 /v1/reports .*another node's (node harvester-node-1)" \
	"$TMP/agg-nodes.log" || fail "no log line of a 403 at the headers: $(cat "$TMP/agg-nodes.log")"
grep -q -e "$TOK1" -e "$TOK2" "$TMP/agg-nodes.log" && fail "a token in the log"

echo "== 3. a real agent sends Hvready-Node"
run_agent() { # token-file log
	"$HVREADY_BIN/hvready-agent" run --aggregator "$AGG_URL" --token-file "$1" \
		--host-root "$HVREADY_SRC/tests/fixtures/hostroots/a-debian-intel" --node harvester-node-2 \
		--skip host.image.share-manager,host.nfs.probe --interval 60 2>"$2" &
	pids+=($!)
}
run_agent "$TMP/tok1" "$TMP/agent-wrong.log"
wait_for 20 "the agent with node 1's token for node 2 refused" \
	grep -q "HTTP 403" "$TMP/agent-wrong.log"
stop_pid "${pids[-1]}" || true
# "(node NAME)": the refusal's reason at the headers (on the body it has none)
grep -q "HTTP 403: this node token is another node's (node harvester-node-2)" "$TMP/agent-wrong.log" ||
	fail "the agent's report was not refused at its headers: $(cat "$TMP/agent-wrong.log")"
echo "  the agent with another node's token: refused at the headers"
run_agent "$TMP/tok2" "$TMP/agent-right.log"
nodes() { curl -s --max-time 5 "$AGG_URL/v1/nodes" || true; }
for _ in $(seq 1 40); do
	case "$(nodes)" in *'"harvester-node-2"'*) break ;; esac
	sleep 0.5
done
case "$(nodes)" in *'"harvester-node-2"'*) echo "  the agent with its own token: taken" ;;
*) fail "the agent's own report was not taken: $(cat "$TMP/agent-right.log")" ;; esac
stop_pid "${pids[-1]}" || true
stop_aggregator || fail "the aggregator did not stop cleanly"

echo "== 2. --tokenreview"
kt_pki "$TMP/pki"
AGENT_JWT=$(sa_token agent-n1)
cat >"$TMP/reviews.json" <<JSON
{"$AGENT_JWT": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-1"}}
JSON
kt_review_api
start_aggregator "$TMP/agg-tr.log" --kubeconfig "$TMP/kc/config" --tokenreview --interval 2 ||
	fail "the aggregator did not start"
expect "403 closed x1" "node 1's agent token for node 2, held for its review, body announced not sent" \
	"$(raw "$AGENT_JWT" harvester-node-2 partial)"
expect "403 closed x1" "the same, its review cached" "$(raw "$AGENT_JWT" harvester-node-2 partial)"
expect "200 closed x1" "node 1's agent token for node 1, its own report" "$(raw "$AGENT_JWT" harvester-node-1 "$R1")"
expect "400 closed x1" "node 1's agent token and header, node 2's report" "$(raw "$AGENT_JWT" harvester-node-1 "$R2")"
grep -q "refused a request at its headers (403 /v1/reports .*credential of node harvester-node-1 cannot report for node harvester-node-2" \
	"$TMP/agg-tr.log" || fail "no log line of a 403 at the headers: $(cat "$TMP/agg-tr.log")"
stop_aggregator || fail "the aggregator did not stop cleanly"
echo "node_header: all passed"
