#!/usr/bin/env python3
"""A real sd_notify peer: binds an AF_UNIX datagram socket (as systemd does for
NOTIFY_SOCKET), runs a command with NOTIFY_SOCKET pointing at it, and records
every datagram with its arrival time (monotonic seconds) as JSON lines.

    notify_listener.py OUT.jsonl SOCKET -- CMD ARGS...

Optional environment: SIGTERM_AFTER (seconds): send SIGTERM to the command
then; CHECK_PORT_ON_READY (host:port): on READY=1, try to connect there and
record whether it accepted ({"ready_port_open": true|false}).
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time


def main():
    out, path = sys.argv[1], sys.argv[2]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(0.1)
    env = dict(os.environ, NOTIFY_SOCKET=path)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env)
    term_after = float(os.environ.get("SIGTERM_AFTER", "0"))
    port = os.environ.get("CHECK_PORT_ON_READY")
    sent_term = False
    deadline = t0 + float(os.environ.get("MAX_SECONDS", "60"))
    with open(out, "w") as f:
        while time.monotonic() < deadline:
            try:
                data = s.recv(4096).decode(errors="replace")
                rec = {"t": round(time.monotonic() - t0, 3), "msg": data}
                if port and "READY=1" in data:
                    host, pnum = port.rsplit(":", 1)
                    try:
                        socket.create_connection((host, int(pnum)), timeout=1).close()
                        rec["ready_port_open"] = True
                    except OSError:
                        rec["ready_port_open"] = False
                f.write(json.dumps(rec) + "\n")
                f.flush()
            except socket.timeout:
                pass
            if term_after and not sent_term and time.monotonic() - t0 >= term_after:
                p.send_signal(signal.SIGTERM)
                sent_term = True
            if p.poll() is not None:
                # drain what is left
                s.settimeout(0.2)
                try:
                    while True:
                        data = s.recv(4096).decode(errors="replace")
                        f.write(json.dumps({"t": round(time.monotonic() - t0, 3), "msg": data}) + "\n")
                except socket.timeout:
                    pass
                break
        else:
            p.kill()
            p.wait()
            f.write(json.dumps({"t": -1, "msg": "TIMEOUT"}) + "\n")
    os.unlink(path)
    sys.exit(p.returncode if p.returncode is not None else 99)


if __name__ == "__main__":
    main()
