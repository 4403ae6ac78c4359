#!/usr/bin/env python3
"""POST node reports to an aggregator in a loop, from several threads
(python3 standard library only), to keep its ingest path busy while a test
does something to it (SIGKILL, a slowloris attack).

Every POST is a real agent report (--template, as `hvready-agent check
--format msgpack` writes it) under one of --nodes node names (PREFIX1..N),
with a fresh sent_ns, so that each is newer than the one held and takes the
store's replace path. Runs until --duration passes or SIGTERM/SIGINT, then
prints one JSON object on stdout: how many POSTs got each HTTP status, and how
many failed at the connection level, by kind ("refused": nobody listening,
"reset": the server went away in the middle of a request, "timeout", "other").

  report_flood.py --port N --template FILE [--host 127.0.0.1] [--token-file F]
                  [--nodes 50] [--prefix flood-node-] [--threads 4]
                  [--duration 0 (until signalled)] [--pause-ms 0]
"""
import argparse
import http.client
import json
import signal
import struct
import sys
import threading
import time


def msgpack_str(s):
    b = s.encode()
    if len(b) < 32:
        return bytes([0xA0 | len(b)]) + b
    if len(b) < 256:
        return bytes([0xD9, len(b)]) + b
    return b"\xda" + struct.pack(">H", len(b)) + b


def str_span(buf, pos):
    """(start, end) of the msgpack string whose header is at pos."""
    t = buf[pos]
    if 0xA0 <= t <= 0xBF:
        return pos, pos + 1 + (t & 0x1F)
    if t == 0xD9:
        return pos, pos + 2 + buf[pos + 1]
    if t == 0xDA:
        return pos, pos + 3 + struct.unpack(">H", buf[pos + 1:pos + 3])[0]
    raise ValueError("not a msgpack string at byte %d" % pos)


def renamed(template, name):
    """The template report with node (and hostname) replaced by name."""
    out = template
    for key in (b"\xa4node", b"\xa8hostname"):
        k = out.find(key)
        if k < 0:
            continue
        start, end = str_span(out, k + len(key))
        out = out[:start] + msgpack_str(name) + out[end:]
    return out


def sent_ns_offset(report):
    k = report.find(b"\xa7sent_ns")
    if k < 0 or report[k + 8] not in (0xCF, 0xD3):
        raise ValueError("the template's sent_ns is not an 8-byte integer")
    return k + 9


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.status = {}
        self.errors = {"refused": 0, "reset": 0, "timeout": 0, "other": 0}

    def add_status(self, code):
        with self.lock:
            self.status[str(code)] = self.status.get(str(code), 0) + 1

    def add_error(self, kind):
        with self.lock:
            self.errors[kind] += 1


def worker(args, reports, counts, stop, index):
    conn = None
    i = index
    headers = {"Content-Type": "application/msgpack"}
    if args.token:
        headers["Authorization"] = "Bearer " + args.token
    while not stop.is_set():
        body, off = reports[i % len(reports)]
        i += args.threads
        body[off:off + 8] = struct.pack(">Q", time.time_ns())
        try:
            if conn is None:
                conn = http.client.HTTPConnection(args.host, args.port, timeout=args.timeout)
            conn.request("POST", "/v1/reports", body=bytes(body), headers=headers)
            resp = conn.getresponse()
            resp.read()
            counts.add_status(resp.status)
        except ConnectionRefusedError:
            counts.add_error("refused")
            conn = None
            stop.wait(0.05)
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected,
                http.client.IncompleteRead):
            counts.add_error("reset")
            conn = None
        except TimeoutError:
            counts.add_error("timeout")
            conn = None
        except OSError:
            counts.add_error("other")
            conn = None
            stop.wait(0.05)
        if args.pause_ms:
            stop.wait(args.pause_ms / 1000.0)
    if conn is not None:
        conn.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--template", required=True)
    ap.add_argument("--token-file")
    ap.add_argument("--nodes", type=int, default=50)
    ap.add_argument("--prefix", default="flood-node-")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--duration", type=float, default=0)
    ap.add_argument("--pause-ms", type=float, default=0)
    ap.add_argument("--timeout", type=float, default=10)
    args = ap.parse_args()
    args.token = open(args.token_file).read().strip() if args.token_file else None
    template = open(args.template, "rb").read()
    reports = []
    for n in range(1, args.nodes + 1):
        r = bytearray(renamed(template, "%s%d" % (args.prefix, n)))
        reports.append((r, sent_ns_offset(r)))

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    counts = Counts()
    threads = [threading.Thread(target=worker, args=(args, reports, counts, stop, i), daemon=True)
               for i in range(args.threads)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + args.duration if args.duration else None
    while not stop.is_set():
        if deadline and time.monotonic() >= deadline:
            break
        stop.wait(0.1)
    stop.set()
    for t in threads:
        t.join(args.timeout + 1)
    json.dump({"status": counts.status, "errors": counts.errors}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
