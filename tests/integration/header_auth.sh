#!/usr/bin/env bash
# The credential is decided on a request's headers, before its body is read
# (docs/robustness.md, header phase), in every auth mode: --token-file,
# --node-token-file, --tokenreview, --read-auth token:FILE and
# tokenreview:GROUP, --metrics-auth. For each:
# 1. a wrong token with a whole garbage body gets 401 (with WWW-Authenticate),
#    not the 400 of a body read and decoded first;
# 2. a wrong token announcing a large body (Content-Length) of which only a
#    few bytes are sent gets its 401 at once, and the connection is closed:
#    the server did not wait for (or buffer) the body;
# 3. the right credential still works: a real report is taken (200), a read
#    answered, including a TokenReview held at the headers and resumed.
# Also: a chunked body is refused (411), a body on a GET route (413), a
# Content-Length over the report limit (413) — all before any body byte.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
node_reports "$TMP/reports"
REPORT="$TMP/reports/harvester-node-1.msgpack"
head -c 3000 /dev/urandom >"$TMP/garbage"
rnd() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
AGENT_TOK="agent-$(rnd)"
READ_TOK="reader-$(rnd)"
printf '%s\n' "$AGENT_TOK" >"$TMP/agent-token"
printf '%s\n' "$READ_TOK" >"$TMP/read-token"
printf 'harvester-node-1 %s\nharvester-node-2 n2-%s\n' "$AGENT_TOK" "$(rnd)" >"$TMP/node-tokens"
chmod 600 "$TMP/agent-token" "$TMP/read-token" "$TMP/node-tokens"

# raw METHOD PATH TOKEN [partial]: one request on a fresh connection; the
# whole garbage body, or (partial) a Content-Length of 1 MiB - 1 with 16
# bytes sent and the connection kept open for writing. Prints the status, and
# "closed" when the server closed within 3 s, else "open".
raw() {
	python3 - "${AGG_URL##*:}" "$@" "$TMP/garbage" <<'PY'
import socket, sys, time
port, method, path, tok, mode, garbage = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
body = open(garbage, "rb").read()
head = "%s %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/msgpack\r\n" % (method, path)
if tok:
    head += "Authorization: Bearer %s\r\n" % tok
if mode == "partial":
    head += "Content-Length: %d\r\n\r\n" % ((1 << 20) - 1)
    data = head.encode() + body[:16]
else:
    head += "Content-Length: %d\r\n\r\n" % len(body)
    data = head.encode() + body
s = socket.create_connection(("127.0.0.1", port), timeout=3)
s.sendall(data)
out, closed = b"", False
deadline = time.time() + 3
try:
    while time.time() < deadline:
        b = s.recv(65536)
        if not b:
            closed = True
            break
        out += b
except (socket.timeout, ConnectionError):
    pass
status = out.split(b" ", 2)[1].decode() if out.startswith(b"HTTP/1.1 ") else "none"
www = b"\r\nWWW-Authenticate: Bearer" in out
print("%s %s%s" % (status, "closed" if closed else "open", " www" if www else ""))
PY
}
# framed TAIL: a report POSTed with the agents' token, the rest of the head
# and the body being TAIL (\r\n escapes). Prints the status and "closed" when
# the server closed within 3 s, else "open".
framed() {
	python3 - "${AGG_URL##*:}" "$AGENT_TOK" "$1" <<'PY'
import socket, sys
port, tok, tail = int(sys.argv[1]), sys.argv[2], sys.argv[3].replace("\\r\\n", "\r\n")
s = socket.create_connection(("127.0.0.1", port), timeout=3)
s.sendall(("POST /v1/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n" % tok + tail).encode())
out = b""
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    closed = "closed"
except socket.timeout:
    closed = "open"
status = out.split(b" ", 2)[1].decode() if out.startswith(b"HTTP/1.1 ") else "none"
print(status, closed)
PY
}
expect() { # want what got
	case "$3" in "$1"*) echo "  $2: $3" ;; *) fail "$2: expected '$1', got '$3'" ;; esac
}
refusals() { # method path: the two refusals of a wrong token
	expect "401 closed www" "$1 $2, wrong token, garbage body" "$(raw "$1" "$2" "wrong-$(rnd)" whole)"
	expect "401 closed www" "$1 $2, wrong token, body announced not sent" "$(raw "$1" "$2" "wrong-$(rnd)" partial)"
	expect "401 closed www" "$1 $2, no token, body announced not sent" "$(raw "$1" "$2" "" partial)"
}
post_report() { # token -> status
	curl -s --max-time 10 -o "$TMP/body" -w '%{http_code}' -H "Authorization: Bearer $1" \
		-H "Content-Type: application/msgpack" --data-binary "@$REPORT" "$AGG_URL/v1/reports" || true
}
get() { # path token -> status
	curl -s --max-time 10 -o "$TMP/body" -w '%{http_code}' -H "Authorization: Bearer $2" "$AGG_URL$1" || true
}
STATE=(--cluster-state "$HVREADY_SRC/examples/cluster")

echo "== --token-file"
start_aggregator "$TMP/agg-token.log" --token-file "$TMP/agent-token" "${STATE[@]}" ||
	fail "the aggregator did not start"
refusals POST /v1/reports
expect 200 "the agents' token, a real report" "$(post_report "$AGENT_TOK")"
expect "411 closed" "a chunked body" "$(framed 'Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n')"
expect "413 closed" "a Content-Length over the report limit" "$(framed 'Content-Length: 999999999\r\n\r\nxx')"
expect "413 closed" "a body on a GET route" "$(raw GET /healthz "" partial)"
expect 200 "/healthz still served" "$(get /healthz "")"
grep -q "refused a request at its headers (401 /v1/reports" "$TMP/agg-token.log" ||
	fail "no log line of a refusal at the headers"
grep -q "wrong-" "$TMP/agg-token.log" && fail "a token in the log"
stop_aggregator || fail "the aggregator did not stop cleanly"

echo "== --node-token-file"
start_aggregator "$TMP/agg-nodes.log" --node-token-file "$TMP/node-tokens" "${STATE[@]}" ||
	fail "the aggregator did not start"
refusals POST /v1/reports
expect 200 "node 1's token, node 1's report" "$(post_report "$AGENT_TOK")"
stop_aggregator || fail "the aggregator did not stop cleanly"

echo "== --tokenreview, --read-auth tokenreview:GROUP, --metrics-auth"
kt_pki "$TMP/pki"
cat >"$TMP/reviews.json" <<JSON
{"$(sa_token agent-n1)": {"user": "system:serviceaccount:hvready-system:hvready-agent", "node": "harvester-node-1"},
 "$(sa_token reader)": {"user": "system:serviceaccount:ops:hvready-reader", "groups": ["hvready:readers", "system:authenticated"]}}
JSON
kt_review_api
start_aggregator "$TMP/agg-tr.log" --kubeconfig "$TMP/kc/config" --tokenreview \
	--read-auth tokenreview:hvready:readers --metrics-auth --interval 2 ||
	fail "the aggregator did not start"
refusals POST /v1/reports
expect "401 closed www" "an unknown JWT, garbage body (reviewed at the headers)" \
	"$(raw POST /v1/reports "$(sa_token nobody)" whole)"
expect "401 closed www" "an unknown JWT, body announced not sent" \
	"$(raw POST /v1/reports "$(sa_token nobody2)" partial)"
expect 200 "the agent's reviewed token, a real report (held for its review)" \
	"$(post_report "$(sa_token agent-n1)")"
refusals GET /v1/verdict
refusals GET /metrics
expect "401 closed www" "GET /v1/nodes, unknown JWT, body announced not sent" \
	"$(raw GET /v1/nodes "$(sa_token nobody3)" partial)"
expect 200 "GET /v1/nodes by a reader (held for its review)" "$(get /v1/nodes "$(sa_token reader)")"
expect 200 "GET /metrics by a reader" "$(get /metrics "$(sa_token reader)")"
stop_aggregator || fail "the aggregator did not stop cleanly"

echo "== --read-auth token:FILE"
start_aggregator "$TMP/agg-read.log" --token-file "$TMP/agent-token" \
	--read-auth "token:$TMP/read-token" --metrics-auth "${STATE[@]}" ||
	fail "the aggregator did not start"
refusals GET /v1/verdict
refusals GET /metrics
refusals GET /
expect 200 "GET /v1/verdict with the read token" "$(get /v1/verdict "$READ_TOK")"
stop_aggregator || fail "the aggregator did not stop cleanly"
echo "header_auth: all passed"
