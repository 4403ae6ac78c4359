#!/usr/bin/env bash
# A kubeconfig that points at something other than a kube-apiserver (a web
# server that answers 404 to everything, or an HTML page on /version) is
# refused by `report` and `collect` with one line and exit 2, instead of a full
# report in which every resource is "not installed". A kube-apiserver that hides
# /version (403) but serves the core discovery document is still read.
# Loopback only (TLS from the test PKI); the server is stopped on exit.
set -euo pipefail
export LC_ALL=C
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
test_init
kt_pki "$TMP/pki"

# web MODE: an HTTPS server on loopback; sets WEB_PORT.
#   404      every path 404 (a bare web server, a wrong port behind a proxy)
#   html     200 text/html on every path (a login page, a dashboard)
#   hidden   403 on /version, the core APIVersions on /api, 404 elsewhere
web() {
	local mode=$1 out="$TMP/web-$1.port"
	"$PY" - "$mode" "$TMP/pki/server.crt" "$TMP/pki/server.key" >"$out" 2>"$TMP/web-$mode.err" <<'EOF' &
import http.server, json, ssl, sys
mode, cert, key = sys.argv[1:4]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def answer(self, code, ctype, body):
        b = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_GET(self):
        path = self.path.split("?")[0]
        if mode == "html":
            return self.answer(200, "text/html", "<html><body>Welcome</body></html>")
        if mode == "hidden" and path == "/version":
            return self.answer(403, "application/json", json.dumps({"kind": "Status", "code": 403}))
        if mode == "hidden" and path == "/api":
            return self.answer(200, "application/json", json.dumps(
                {"kind": "APIVersions", "versions": ["v1"],
                 "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]}))
        if mode == "hidden":
            return self.answer(404, "application/json", json.dumps(
                {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404}))
        self.answer(404, "text/html", "<html><body>404 Not Found</body></html>")
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print(srv.server_address[1], flush=True)
srv.serve_forever()
EOF
	KT_PIDS+=("$!")
	local i
	for i in $(seq 1 100); do
		[ -s "$out" ] && break
		sleep 0.1
	done
	[ -s "$out" ] || kt_fail "the $mode web server did not start: $(cat "$TMP/web-$mode.err")"
	WEB_PORT=$(head -n1 "$out")
}

for mode in 404 html; do
	web "$mode"
	kt_kubeconfig "$TMP/$mode.kubeconfig" "https://127.0.0.1:$WEB_PORT" inline-token not-a-secret-token
	for cmd in report collect; do
		args=(--kubeconfig "$TMP/$mode.kubeconfig" --format json)
		[ "$cmd" = collect ] && args=(--kubeconfig "$TMP/$mode.kubeconfig" --output "$TMP/$mode-collect")
		rc=0
		"$AGG" "$cmd" "${args[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
		[ "$rc" = 2 ] || kt_fail "$cmd against a $mode server: exit $rc, want 2 ($(head -c 300 "$TMP/out"))"
		[ "$(wc -l <"$TMP/err")" = 1 ] || kt_fail "$cmd ($mode): want one line, got: $(cat "$TMP/err")"
		grep -q "is not a Kubernetes API server" "$TMP/err" ||
			kt_fail "$cmd ($mode): the line does not say why: $(cat "$TMP/err")"
		grep -q "https://127.0.0.1:$WEB_PORT" "$TMP/err" || kt_fail "$cmd ($mode): the line does not name the server"
		grep -q "not-a-secret-token" "$TMP/err" && kt_fail "$cmd ($mode): the token is in the message"
		[ ! -s "$TMP/out" ] || kt_fail "$cmd ($mode) printed a report: $(head -c 300 "$TMP/out")"
	done
done

# A kube-apiserver that hides /version is read (its lists 404: not installed).
web hidden
kt_kubeconfig "$TMP/hidden.kubeconfig" "https://127.0.0.1:$WEB_PORT" inline-token t
rc=0
"$AGG" report --kubeconfig "$TMP/hidden.kubeconfig" --format json >"$TMP/hidden.json" 2>"$TMP/hidden.err" || rc=$?
[ "$rc" != 2 ] || kt_fail "a kube-apiserver hiding /version was refused: $(cat "$TMP/hidden.err")"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["findings"], d' "$TMP/hidden.json" ||
	kt_fail "no report from the kube-apiserver hiding /version"
echo "not_kubernetes: OK"
