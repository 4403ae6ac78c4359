#!/usr/bin/env python3
"""A Docker-token-protocol front for a test OCI registry.

It answers the distribution API the way Docker Hub and Harbor do when they
want a Bearer token: GET /v2/ and every repository request without a valid
token get 401 with `WWW-Authenticate: Bearer realm=...,service=...[,scope=...]`;
GET /token?service=...&scope=repository:REPO:pull hands out a token bound to
that repository (optionally only for Basic credentials); requests with the
token are proxied to the real registry behind it.

It binds 127.0.0.1 on a free port, writes the port to --port-file, and logs
one line per request to stderr. Loopback only: it is a test tool.
"""
import argparse
import base64
import http.server
import json
import os
import secrets
import sys
import urllib.error
import urllib.parse
import urllib.request

SERVICE = "hvready-test-registry"


class Front(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    tokens = {}  # token -> repository it grants pull on

    def log_message(self, fmt, *args):
        sys.stderr.write("front: %s\n" % (fmt % args))
        sys.stderr.flush()

    def realm(self):
        return "http://127.0.0.1:%d/token" % self.server.server_address[1]

    def send(self, status, body=b"", headers=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def challenge(self, scope=None, error=None):
        value = 'Bearer realm="%s",service="%s"' % (self.realm(), SERVICE)
        if scope:
            value += ',scope="%s"' % scope
        if error:
            value += ',error="%s"' % error
        body = json.dumps({"errors": [{"code": "UNAUTHORIZED",
                                       "message": "authentication required"}]}).encode()
        self.send(401, body, {"WWW-Authenticate": value,
                              "Content-Type": "application/json"})

    def bearer(self):
        h = self.headers.get("Authorization", "")
        return h[7:] if h.startswith("Bearer ") else None

    def do_token(self, query):
        args = self.server.args
        if args.refresh_token:
            self.send(405, b'{"details":"this token server takes refresh tokens by POST"}',
                      {"Content-Type": "application/json"})
            return
        if args.user:
            want = base64.b64encode(("%s:%s" % (args.user, args.password)).encode()).decode()
            if self.headers.get("Authorization", "") != "Basic " + want:
                self.send(401, b'{"details":"incorrect username or password"}',
                          {"Content-Type": "application/json",
                           "WWW-Authenticate": 'Basic realm="token"'})
                return
        q = urllib.parse.parse_qs(query)
        scope = (q.get("scope") or [""])[0]
        parts = scope.split(":")
        if (q.get("service") or [""])[0] != SERVICE or len(parts) != 3 or \
                parts[0] != "repository" or "pull" not in parts[2].split(","):
            self.send(400, b'{"details":"bad service or scope"}',
                      {"Content-Type": "application/json"})
            return
        tok = secrets.token_hex(16)
        Front.tokens[tok] = parts[1]
        self.send(200, json.dumps({"token": tok, "access_token": tok,
                                   "expires_in": 300}).encode(),
                  {"Content-Type": "application/json"})

    def do_POST(self):
        """OAuth2 refresh_token grant, as containerd sends an identity token."""
        args = self.server.args
        length = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(min(length, 65536)).decode())
        if urllib.parse.urlsplit(self.path).path != "/token" or not args.refresh_token:
            self.send(404, b"not found")
            return
        scope = (form.get("scope") or [""])[0].split(":")
        if (form.get("grant_type") or [""])[0] != "refresh_token" or \
                (form.get("refresh_token") or [""])[0] != args.refresh_token or \
                (form.get("client_id") or [""])[0] == "" or len(scope) != 3:
            self.send(401, b'{"error":"invalid_grant"}', {"Content-Type": "application/json"})
            return
        tok = secrets.token_hex(16)
        Front.tokens[tok] = scope[1]
        self.send(200, json.dumps({"access_token": tok, "expires_in": 300}).encode(),
                  {"Content-Type": "application/json"})

    def proxy(self):
        req = urllib.request.Request(self.server.args.backend + self.path, method=self.command)
        if self.headers.get("Accept"):
            req.add_header("Accept", self.headers["Accept"])
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                status, headers, body = r.status, r.headers, r.read(4 << 20)
        except urllib.error.HTTPError as e:
            status, headers, body = e.code, e.headers, e.read(1 << 16)
        keep = {k: headers[k] for k in ("Content-Type", "Docker-Content-Digest")
                if headers.get(k)}
        if self.command == "HEAD":
            self.send_response(status)
            for k, v in keep.items():
                self.send_header(k, v)
            self.send_header("Content-Length", headers.get("Content-Length", "0"))
            self.end_headers()
        else:
            self.send(status, body, keep)

    def handle_any(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/token" and self.command == "GET":
            self.do_token(url.query)
            return
        if not url.path.startswith("/v2/"):
            self.send(404, b"not found")
            return
        tok = self.bearer()
        if url.path == "/v2/":
            if tok in Front.tokens:
                self.send(200, b"{}", {"Content-Type": "application/json"})
            else:
                self.challenge()
            return
        repo = url.path[len("/v2/"):].rsplit("/manifests/", 1)[0]
        scope = "repository:%s:pull" % repo
        if tok not in Front.tokens:
            self.challenge(scope)
            return
        if Front.tokens[tok] != repo:
            self.challenge(scope, "insufficient_scope")
            return
        self.proxy()

    do_GET = handle_any
    do_HEAD = handle_any


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", required=True, help="http://127.0.0.1:PORT of the registry")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--user")
    ap.add_argument("--password", default="")
    ap.add_argument("--refresh-token", help="accept only this identity token (OAuth2 POST)")
    args = ap.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Front)
    srv.args = args
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
