#!/usr/bin/env python3
"""Flood an aggregator's POST /v1/reports with bearer tokens nobody was given
(python3 standard library only): --conns keep-alive connections, spread over
--sources loopback source addresses (127.0.1.1, 127.0.1.2, ...), each posting
--template (a real report) in a loop with a fresh token every time: one in
two random bytes in hex (cannot be a JWT), the other a random token shaped
as a ServiceAccount JWT for audience "hvready" (passes the aggregator's shape
check, so it costs a TokenReview). Runs for --duration seconds, then prints
one JSON object: how many POSTs got each HTTP status, and connection errors.

  token_flood.py --port N --template FILE [--conns 300] [--sources 100]
                 [--duration 15]
"""
import argparse
import http.client
import json
import secrets
import threading
import time

JWT_HEAD = ("eyJhbGciOiJSUzI1NiIsImtpZCI6InQifQ."
            "eyJhdWQiOlsiaHZyZWFkeSJdLCJleHAiOjQxMDI0NDQ4MDAsImlzcyI6Imh0dHBzOi8va3ViZXJuZXRl"
            "cy5kZWZhdWx0LnN2Yy5jbHVzdGVyLmxvY2FsIn0.")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--template", required=True)
    p.add_argument("--conns", type=int, default=300)
    p.add_argument("--sources", type=int, default=100)
    p.add_argument("--duration", type=float, default=15)
    a = p.parse_args()
    body = open(a.template, "rb").read()
    end = time.monotonic() + a.duration
    counts, lock = {}, threading.Lock()

    def count(k):
        with lock:
            counts[k] = counts.get(k, 0) + 1

    def run(i):
        src = "127.0.1.%d" % (1 + i % a.sources)
        n = 0
        while time.monotonic() < end:
            c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=5,
                                           source_address=(src, 0))
            try:
                while time.monotonic() < end:
                    n += 1
                    tok = secrets.token_hex(24) if n % 2 else JWT_HEAD + secrets.token_urlsafe(32)
                    c.request("POST", "/v1/reports", body,
                              {"Content-Type": "application/msgpack",
                               "Authorization": "Bearer " + tok})
                    r = c.getresponse()
                    r.read()
                    count(str(r.status))
            except (OSError, http.client.HTTPException) as e:
                count(type(e).__name__)
            finally:
                c.close()

    ts = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(a.conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(a.duration + 10)
    print(json.dumps(counts, sort_keys=True))


if __name__ == "__main__":
    main()
