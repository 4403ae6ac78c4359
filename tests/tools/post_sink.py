"""A stand-in aggregator for the agent's `run` in tests: answers every POST
with 200 and {}, and appends the body's length, one a line, to OUT, and the
body followed by a "--" line to OUT.raw.

Usage: post_sink.py PORT OUT
"""
import http.server
import sys

port, out = int(sys.argv[1]), sys.argv[2]


class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with open(out, "ab") as f:
            f.write(b"%d\n" % n)
        with open(out + ".raw", "ab") as f:
            f.write(body + b"\n--\n")
        body = b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
