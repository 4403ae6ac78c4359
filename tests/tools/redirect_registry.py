#!/usr/bin/env python3
"""A registry stand-in on loopback for the redirect tests.

redirect_registry.py HOST PORT LOG MODE [TARGET]
  MODE "redirect": GET /v2/ answers 200; the manifest answers 302 to TARGET
  (a URL) + the request path. MODE "same": the manifest answers 302 to
  /v2/alt/... on this server, which has it. MODE "sink": every request is
  logged and answered 200 (the place a refused redirect must not reach).
Every request line is appended to LOG. Prints "ready" when listening.
"""
import http.server
import socketserver
import sys

HOST, PORT, LOG, MODE = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
TARGET = sys.argv[5] if len(sys.argv) > 5 else ""
DIGEST = "sha256:" + "ab" * 32
MANIFEST = b'{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}'


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self, body):
        with open(LOG, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))
        if MODE == "sink" or self.path == "/v2/":
            self.send_response(200)
            self.send_header("Docker-Distribution-API-Version", "registry/2.0")
            self.send_header("Content-Length", "2")
            self.end_headers()
            if body:
                self.wfile.write(b"{}")
            return
        if MODE == "redirect" or (MODE == "same" and not self.path.startswith("/v2/alt/")):
            loc = TARGET + self.path if MODE == "redirect" else "/v2/alt/" + self.path[4:]
            self.send_response(302)
            self.send_header("Location", loc)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.oci.image.index.v1+json")
        self.send_header("Docker-Content-Digest", DIGEST)
        self.send_header("Content-Length", str(len(MANIFEST)))
        self.end_headers()
        if body:
            self.wfile.write(MANIFEST)

    def do_GET(self):
        self.answer(True)

    def do_HEAD(self):
        self.answer(False)


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


s = S((HOST, PORT), H)
print("ready", flush=True)
s.serve_forever()
