"""Agent reports for tests/integration/node_conditions.sh: msgpack node
reports (docs/protocol.md) whose check statuses come from a JSON state file
the test edits, {"nodes": [...], "overrides": {NODE: {CHECK: [STATUS, MSG]}}},
posted to each aggregator URL listed in a file (one a line; one that is down
is skipped). Posted every interval on a fixed schedule, and at once when
either file changes: an aggregator gets its first reports as soon as the
test lists it, long before its start-up grace (2 intervals) runs out, however
slow the machine is."""
import json
import os
import ssl
import struct
import sys
import time
import urllib.request


def pack(v):
    if isinstance(v, bool):
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        if 0 <= v < 128:
            return bytes([v])
        if -32 <= v < 0:
            return struct.pack("b", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(v, str):
        b = v.encode()
        if len(b) < 32:
            return bytes([0xa0 | len(b)]) + b
        return b"\xda" + struct.pack(">H", len(b)) + b
    if isinstance(v, list):
        return b"\xdc" + struct.pack(">H", len(v)) + b"".join(pack(x) for x in v)
    if isinstance(v, dict):
        return (b"\xde" + struct.pack(">H", len(v))
                + b"".join(pack(k) + pack(x) for k, x in v.items()))
    raise TypeError(v)


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "scripts"))
from checks_registry import host_checks  # noqa: E402

# Every host check of the registry (common/checks.def) but the NFS probe, which
# reports SKIP below.
CHECKS = [c for c in host_checks() if c != "host.nfs.probe"]


def report(node, overrides, interval):
    results = []
    for c in CHECKS:
        st, msg = overrides.get(c, ["PASS", c + " is fine on " + node])
        results.append({"check": c, "status": st, "message": msg, "evidence": {}})
    results.append({"check": "host.nfs.probe", "status": "SKIP",
                    "message": "no NFS endpoints to probe", "evidence": {}})
    return pack({"schema": "hvready.node/v1", "schema_minor": 0, "node": node,
                 "hostname": node, "agent_version": "0.1.0", "sent_ns": time.time_ns(),
                 "seq": 1, "interval": interval, "results": results,
                 "facts": {"cpu": {"vendor": "GenuineIntel",
                                   "flags": ["vmx", "sse4_2", "avx2", "aes"]}}})


def read(path):
    """The file's text, None while it is missing."""
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


def post_all(state, urls, ctx, token, interval):
    for url in urls.split():
        for n in state["nodes"]:
            req = urllib.request.Request(
                url, data=report(n, state.get("overrides", {}).get(n, {}), interval),
                headers={"Content-Type": "application/msgpack",
                         "Authorization": "Bearer " + token})
            try:
                urllib.request.urlopen(req, context=ctx, timeout=5).read()
            except OSError as e:
                print("report for %s to %s: %s" % (n, url, e), file=sys.stderr, flush=True)


def main():
    state_file, urls_file, cafile, token_file, interval = sys.argv[1:6]
    interval = int(interval)
    with open(token_file) as f:
        token = f.read().strip()
    ctx = ssl.create_default_context(cafile=cafile)
    posted = None
    due = time.monotonic()
    while True:
        now = (read(state_file), read(urls_file) or "")
        if now[0] is not None and (now != posted or time.monotonic() >= due):
            post_all(json.loads(now[0]), now[1], ctx, token, interval)
            posted = now
            # On the schedule, not interval after the last post: slow posts
            # must not age the reports past the 3 intervals they stay fresh.
            while due <= time.monotonic():
                due += interval
        time.sleep(0.1)


if __name__ == "__main__":
    main()
