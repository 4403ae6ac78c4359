#!/usr/bin/env python3
"""The soak test's clients (bench/soak.sh): N simulated agents, each POSTing
its node report every --period seconds (±10% jitter, starts spread over the
first period, as agents started together do), plus a dashboard GETting
/v1/verdict every 30 s and a Prometheus scraping /metrics every 15 s. Python
standard library only, one asyncio loop, loopback only.

Like hvready-agent, every report goes on a new connection that is left open
for the aggregator to close when idle (curl keeps it, the next report comes
after the aggregator's idle timeout), carries a fresh sent_ns and its age
header. The reports come from a pack written by bench/clone_reports
("HVBPACK1" | u32 count | count x (u32 len | u32 sent_ns_offset | bytes)).

Every --sample seconds it appends a line to --samples (CSV): elapsed seconds,
the aggregator's RSS (kB) and open files (from /proc/--pid), reports sent,
accepted (2xx), rejected (non-2xx), connection errors, views failed, and the
worst lag behind schedule (ms). At the end it prints one JSON summary.

  soak_client.py --port N --pack FILE --token-file F --pid PID --duration S
                 --samples FILE [--period 15] [--sample 10] [--agents 0 (all)]
"""
import argparse
import asyncio
import json
import os
import random
import struct
import sys
import time


def load_pack(path, limit):
    data = open(path, "rb").read()
    if data[:8] != b"HVBPACK1":
        raise SystemExit("soak_client: %s is not a pack from clone_reports" % path)
    (n,) = struct.unpack_from("=I", data, 8)
    off, out = 12, []
    for _ in range(n):
        length, sent_off = struct.unpack_from("=II", data, off)
        out.append((bytearray(data[off + 8:off + 8 + length]), sent_off))
        off += 8 + length
    return out[:limit] if limit else out


class Stats:
    def __init__(self):
        self.sent = self.ok = self.rejected = self.conn_errors = self.view_errors = 0
        self.statuses = {}
        self.max_lag_ms = 0.0
        self.window_lag_ms = 0.0
        self.latencies = []


async def read_response(reader):
    """(status, body length) of one HTTP/1.1 response with Content-Length."""
    status_line = await reader.readline()
    parts = status_line.split()
    if len(parts) < 2 or not parts[1].isdigit():
        raise ConnectionError("no HTTP status line: %r" % status_line[:80])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v.strip())
    await reader.readexactly(length)
    return int(parts[1]), length


async def hold_until_closed(reader, writer):
    """Keep the connection as curl does, until the aggregator closes it."""
    try:
        await asyncio.wait_for(reader.read(), 120)
    except (asyncio.TimeoutError, ConnectionError, OSError):
        pass
    writer.close()


async def post(args, stats, report, head):
    body, off = report
    struct.pack_into(">Q", body, off, time.time_ns())
    t0 = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", args.port), 10)
    except (asyncio.TimeoutError, OSError):
        stats.conn_errors += 1
        return
    try:
        writer.write(head + b"Content-Length: %d\r\n\r\n" % len(body) + bytes(body))
        status, _ = await asyncio.wait_for(read_response(reader), 30)
    except (asyncio.TimeoutError, ConnectionError, OSError, asyncio.IncompleteReadError):
        stats.conn_errors += 1
        writer.close()
        return
    stats.latencies.append(time.monotonic() - t0)
    stats.statuses[status] = stats.statuses.get(status, 0) + 1
    if 200 <= status < 300:
        stats.ok += 1
    else:
        stats.rejected += 1
    asyncio.ensure_future(hold_until_closed(reader, writer))


async def agent(args, stats, report, head, first_at, t0, end):
    at = first_at
    while at < end:
        delay = t0 + at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        lag = max(0.0, -delay) * 1000
        stats.max_lag_ms = max(stats.max_lag_ms, lag)
        stats.window_lag_ms = max(stats.window_lag_ms, lag)
        stats.sent += 1
        await post(args, stats, report, head)
        at += args.period * random.uniform(0.9, 1.1)


async def view(args, stats, path, every, t0, end):
    at = every / 2
    while at < end:
        await asyncio.sleep(max(0.0, t0 + at - time.monotonic()))
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", args.port), 10)
            writer.write(b"GET %s HTTP/1.1\r\nHost: aggregator\r\nConnection: close\r\n\r\n"
                         % path.encode())
            status, _ = await asyncio.wait_for(read_response(reader), 60)
            writer.close()
            if status != 200:
                stats.view_errors += 1
        except (asyncio.TimeoutError, ConnectionError, OSError, asyncio.IncompleteReadError):
            stats.view_errors += 1
        at += every


def proc_sample(pid):
    rss = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return rss, len(os.listdir("/proc/%d/fd" % pid))


async def sampler(args, stats, t0, end):
    with open(args.samples, "w") as out:
        out.write("elapsed_s,rss_kb,open_files,sent,accepted,rejected,conn_errors,"
                  "view_errors,max_lag_ms\n")
        at = 0.0
        while at <= end:
            await asyncio.sleep(max(0.0, t0 + at - time.monotonic()))
            try:
                rss, fds = proc_sample(args.pid)
            except OSError:
                rss, fds = -1, -1
            out.write("%.0f,%d,%d,%d,%d,%d,%d,%d,%.0f\n" % (
                time.monotonic() - t0, rss, fds, stats.sent, stats.ok, stats.rejected,
                stats.conn_errors, stats.view_errors, stats.window_lag_ms))
            out.flush()
            stats.window_lag_ms = 0.0
            at += args.sample


async def main_async(args):
    reports = load_pack(args.pack, args.agents)
    token = open(args.token_file).read().strip()
    head = (b"POST /v1/reports HTTP/1.1\r\nHost: aggregator\r\n"
            b"Content-Type: application/msgpack\r\nAuthorization: Bearer " + token.encode() +
            b"\r\nHvready-Report-Age-Ns: 2000000\r\nHvready-Last-Rtt-Ns: 1000000\r\n")
    stats = Stats()
    t0 = time.monotonic()
    end = args.duration
    n = len(reports)
    tasks = [asyncio.ensure_future(agent(args, stats, r, head, args.period * i / n, t0, end))
             for i, r in enumerate(reports)]
    tasks.append(asyncio.ensure_future(view(args, stats, "/v1/verdict", 30, t0, end)))
    tasks.append(asyncio.ensure_future(view(args, stats, "/metrics", 15, t0, end)))
    tasks.append(asyncio.ensure_future(sampler(args, stats, t0, end)))
    await asyncio.gather(*tasks)
    lat = sorted(stats.latencies)

    def pct(p):
        return round(lat[min(len(lat) - 1, int(p / 100 * len(lat)))] * 1000, 1) if lat else None
    return {
        "agents": n, "period_s": args.period, "duration_s": args.duration,
        "sent": stats.sent, "accepted": stats.ok, "rejected": stats.rejected,
        "statuses": {str(k): v for k, v in sorted(stats.statuses.items())},
        "conn_errors": stats.conn_errors, "view_errors": stats.view_errors,
        "max_lag_ms": round(stats.max_lag_ms), "post_ms_p50": pct(50), "post_ms_p99": pct(99),
        "rate_per_s": round(stats.sent / args.duration, 1),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pack", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--duration", type=float, required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--period", type=float, default=15)
    ap.add_argument("--sample", type=float, default=10)
    ap.add_argument("--agents", type=int, default=0)
    args = ap.parse_args()
    random.seed(1)
    summary = asyncio.run(main_async(args))
    json.dump(summary, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
