#!/usr/bin/env bash
# The aggregator's transport (docs/robustness.md, security):
# 1. TLS 1.2 offers forward-secret AEAD suites only: a client limited to
#    static RSA (AES128-SHA) or to ECDHE with CBC-SHA1 is refused; one
#    offering ECDHE-RSA-AES128-GCM-SHA256 is served; TLS 1.3 is served.
# 3. Ambiguous framing (request smuggling): two Content-Length headers,
#    "Transfer-Encoding :" (space before the colon), Content-Length with
#    Transfer-Encoding, an obs-folded Transfer-Encoding: one 400 and the
#    connection closed; the request hidden after the body is never answered.
#    Control: two honest requests on one connection get two answers.
# 2. Every answer says X-Content-Type-Options: nosniff; HTML answers (the
#    dashboard, ?format=html) also carry a Content-Security-Policy that allows
#    their one <style> element by its hash (the hash is recomputed here from
#    the page served) and X-Frame-Options: DENY.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
TMP=$tmp

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=agg" \
	-addext "subjectAltName=IP:127.0.0.1" -keyout "$TMP/agg.key" -out "$TMP/agg.crt" 2>/dev/null
chmod 600 "$TMP/agg.key"
printf 'tok-%s\n' "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$TMP/token"
chmod 600 "$TMP/token"
AGG_CURL=(--cacert "$TMP/agg.crt")
start_aggregator "$TMP/aggregator.log" --token-file "$TMP/token" --tls-cert "$TMP/agg.crt" \
	--tls-key "$TMP/agg.key" --cluster-state "$HVREADY_SRC/examples/cluster" --interval 2 ||
	fail "the aggregator did not start"
port=${AGG_URL##*:}

echo "== 1. TLS 1.2 suites"
handshake() { # s_client options...: 0 if a session was established
	timeout 10 openssl s_client -connect "127.0.0.1:$port" -servername 127.0.0.1 "$@" \
		</dev/null >"$TMP/s_client.out" 2>&1 || return 1
	grep -q '^New, TLSv1\.[23], Cipher is [A-Z]' "$TMP/s_client.out"
}
for c in AES128-SHA AES256-SHA AES128-GCM-SHA256 ECDHE-RSA-AES128-SHA ECDHE-RSA-AES256-SHA; do
	if handshake -tls1_2 -cipher "$c"; then
		fail "TLS 1.2 with $c was accepted: $(grep -m1 'Cipher is' "$TMP/s_client.out")"
	fi
	echo "  $c: refused"
done
handshake -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256 ||
	fail "TLS 1.2 ECDHE-RSA-AES128-GCM-SHA256 refused: $(tail -n 3 "$TMP/s_client.out")"
echo "  ECDHE-RSA-AES128-GCM-SHA256: $(grep -m1 'Cipher is' "$TMP/s_client.out")"
handshake -tls1_3 || fail "TLS 1.3 refused: $(tail -n 3 "$TMP/s_client.out")"
echo "  TLS 1.3: $(grep -m1 'Cipher is' "$TMP/s_client.out")"

echo "== 2. response headers"
get() { # path out: headers to out.h, body to out
	curl -sS --max-time 10 --cacert "$TMP/agg.crt" -D "$2.h" -o "$2" "$AGG_URL$1"
}
header() { { grep -i "^$1:" "$2" || true; } | head -n 1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//'; }
wait_for 20 "the dashboard is served" bash -c "curl -fsS -o /dev/null --cacert '$TMP/agg.crt' '$AGG_URL/'"
for spec in /:html /v1/verdict?format=html:html /v1/verdict:json /v1/nodes:json /healthz:text \
	/v1/nodes/nosuch:json "/v1/verdict?format=text:text"; do
	path=${spec%:*}
	kind=${spec##*:}
	get "$path" "$TMP/r"
	[ "$(header X-Content-Type-Options "$TMP/r.h")" = nosniff ] ||
		fail "$path: no X-Content-Type-Options: nosniff: $(cat "$TMP/r.h")"
	csp=$(header Content-Security-Policy "$TMP/r.h")
	xfo=$(header X-Frame-Options "$TMP/r.h")
	if [ "$kind" = html ]; then
		[ "$xfo" = DENY ] || fail "$path: X-Frame-Options is '$xfo'"
		case $csp in "default-src 'none'; style-src 'sha256-"*"frame-ancestors 'none'"*) ;;
		*) fail "$path: Content-Security-Policy is '$csp'" ;;
		esac
		# The one <style> element's text, hashed as a browser does.
		want=$(python3 - "$TMP/r" <<'PY'
import base64, hashlib, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
styles = re.findall(r"<style>(.*?)</style>", page, re.S)
assert len(styles) == 1, len(styles)
assert "<script" not in page and " style=" not in page
print(base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode())
PY
) || fail "$path: the page does not have exactly one <style> and no script or style attribute"
		case $csp in *"'sha256-$want'"*) ;; *) fail "$path: CSP '$csp' does not allow the page's style (sha256-$want)" ;; esac
		echo "  $path: nosniff, DENY, CSP with the style's hash"
	else
		[ -z "$csp" ] && [ -z "$xfo" ] || fail "$path: HTML headers on a $kind answer"
		echo "  $path: nosniff"
	fi
done
# A report's answer (the agents' hot path) too, and an error's.
curl -sS --max-time 5 --cacert "$TMP/agg.crt" -D "$TMP/p.h" -o /dev/null -X POST \
	-H "Authorization: Bearer wrong" -H "Content-Type: application/msgpack" --data-binary x \
	"$AGG_URL/v1/reports"
[ "$(header X-Content-Type-Options "$TMP/p.h")" = nosniff ] || fail "POST: no nosniff: $(cat "$TMP/p.h")"
echo "  POST /v1/reports (refused): nosniff"
echo "== 3. ambiguous framing"
python3 - "$port" "$TMP/agg.crt" "$(cat "$TMP/token")" <<'PY' || fail "ambiguous framing was answered"
import socket, ssl, sys
port, ca, tok = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(cafile=ca)
hidden = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
def send(raw):
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5),
                        server_hostname="127.0.0.1")
    s.sendall(raw)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ssl.SSLError, ConnectionError):
        out += b"<no close>"
    s.close()
    return out
head = b"POST /v1/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tok.encode() + \
    b"\r\nContent-Type: application/msgpack\r\n"
cases = {
    "two Content-Length": head + b"Content-Length: 5\r\nContent-Length: 44\r\n\r\nhello" + hidden,
    "Transfer-Encoding space colon": head + b"Transfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\nhello" + hidden,
    "Content-Length and Transfer-Encoding": head + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden,
    "obs-fold Transfer-Encoding": head + b"Transfer-Encoding: x\r\n chunked\r\nContent-Length: 5\r\n\r\nhello" + hidden,
    "obs-fold alone": head + b"Transfer-Encoding: x\r\n chunked\r\n\r\n0\r\n\r\n" + hidden,
}
ok = True
for name, raw in cases.items():
    out = send(raw)
    n = out.count(b"HTTP/1.1 ")
    good = n == 1 and out.startswith(b"HTTP/1.1 400") and not out.endswith(b"<no close>")
    print("  %s: %s" % (name, "one 400, closed" if good else "WRONG: %r" % out[:300]))
    ok &= good
out = send(hidden.replace(b"\r\n\r\n", b"\r\n\r\n", 1) + hidden.replace(b"Host: x", b"Host: x\r\nConnection: close"))
good = out.count(b"HTTP/1.1 200") == 2
print("  control, two honest requests: %s" % ("two answers" if good else "WRONG: %r" % out[:300]))
sys.exit(0 if ok and good else 1)
PY
stop_aggregator || fail "the aggregator did not exit cleanly"
echo "PASS"
