#!/usr/bin/env python3
"""A TCP proxy for ONC RPC over TCP that records the server's replies.

    rpc_capture.py UPSTREAM_HOST UPSTREAM_PORT OUTDIR PORTFILE

Listens on 127.0.0.1 (a free port, written to PORTFILE once listening),
forwards every connection to UPSTREAM, and writes each reply record the
server sends, with its record marks, to OUTDIR/NNN-mMINOR-OPS[-STATUS].bin,
where MINOR is the call's NFSv4 minor version, OPS its first operations and
STATUS the COMPOUND status when it is not NFS4_OK. The files are the corpus of fuzz/fuzz_nfs41_reply.c (see
fuzz/capture_nfs41_corpus.sh). Runs until killed.
"""
import os
import socket
import struct
import sys
import threading

OPS = {3: "ACCESS", 4: "CLOSE", 9: "GETATTR", 10: "GETFH", 15: "LOOKUP", 18: "OPEN",
       22: "PUTFH", 24: "PUTROOTFH", 25: "READ", 28: "REMOVE", 38: "WRITE",
       42: "EXCHANGE_ID", 43: "CREATE_SESSION", 44: "DESTROY_SESSION", 53: "SEQUENCE",
       57: "DESTROY_CLIENTID", 58: "RECLAIM_COMPLETE", 35: "SETCLIENTID",
       36: "SETCLIENTID_CONFIRM", 30: "RENEW"}
STATUS = {2: "NOENT", 13: "ACCESS", 17: "EXIST", 30: "ROFS", 10021: "MINOR_VERS_MISMATCH",
          10013: "GRACE", 10008: "DELAY", 10071: "OP_NOT_IN_SESSION"}

counter = 0
lock = threading.Lock()


def records(sock):
    """Yield (record_with_marks, payload) for each record read from sock."""
    buf = b""
    while True:
        marks, payload = b"", b""
        while True:
            while len(buf) < 4:
                data = sock.recv(65536)
                if not data:
                    return
                buf += data
            hdr = struct.unpack(">I", buf[:4])[0]
            n = hdr & 0x7FFFFFFF
            while len(buf) < 4 + n:
                data = sock.recv(65536)
                if not data:
                    return
                buf += data
            marks += buf[:4 + n]
            payload += buf[4:4 + n]
            buf = buf[4 + n:]
            if hdr & 0x80000000:
                break
        yield marks, payload


def call_ops(payload):
    """mMINOR-OPS: the minor version and first operations of a COMPOUND call."""
    try:
        off = 24
        for _ in range(2):  # credential, verifier
            off += 8 + (struct.unpack(">I", payload[off + 4:off + 8])[0] + 3) // 4 * 4
        taglen = struct.unpack(">I", payload[off:off + 4])[0]
        off += 4 + (taglen + 3) // 4 * 4
        minor = struct.unpack(">I", payload[off:off + 4])[0]
        off += 8  # minorversion, count
        op = struct.unpack(">I", payload[off:off + 4])[0]
        names = [f"m{minor}", OPS.get(op, str(op))]
        if op == 53:  # SEQUENCE: 36 bytes with its arguments
            op2 = struct.unpack(">I", payload[off + 36:off + 40])[0]
            names.append(OPS.get(op2, str(op2)))
            if op2 == 22:  # PUTFH: the operation after the file handle
                fhlen = struct.unpack(">I", payload[off + 40:off + 44])[0]
                at = off + 44 + (fhlen + 3) // 4 * 4
                op3 = struct.unpack(">I", payload[at:at + 4])[0]
                names.append(OPS.get(op3, str(op3)))
        return "-".join(names)
    except struct.error:
        return "UNKNOWN"


def reply_status(payload):
    try:
        off = 12
        off += 8 + (struct.unpack(">I", payload[off + 4:off + 8])[0] + 3) // 4 * 4
        if struct.unpack(">I", payload[off:off + 4])[0] != 0:
            return "RPCERR"
        status = struct.unpack(">I", payload[off + 4:off + 8])[0]
        return "" if status == 0 else STATUS.get(status, str(status))
    except struct.error:
        return "SHORT"


def pump_calls(src, dst, pending):
    for marks, payload in records(src):
        pending.append(call_ops(payload))
        dst.sendall(marks)
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def pump_replies(src, dst, pending, outdir):
    global counter
    for marks, payload in records(src):
        name = pending.pop(0) if pending else "UNKNOWN"
        st = reply_status(payload)
        with lock:
            counter += 1
            n = counter
        fname = f"{n:03d}-{name}{'-' + st if st else ''}.bin"
        with open(os.path.join(outdir, fname), "wb") as f:
            f.write(marks)
        dst.sendall(marks)
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def serve(client, upstream, outdir):
    with client, socket.create_connection(upstream, timeout=10) as server:
        server.settimeout(None)
        pending = []
        t = threading.Thread(target=pump_calls, args=(client, server, pending), daemon=True)
        t.start()
        try:
            pump_replies(server, client, pending, outdir)
        except OSError:
            pass
        t.join(timeout=5)


def main():
    host, port, outdir, portfile = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    os.makedirs(outdir, exist_ok=True)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    with open(portfile + ".tmp", "w") as f:
        f.write(f"{ls.getsockname()[1]}\n")
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = ls.accept()
        threading.Thread(target=serve, args=(c, (host, port), outdir), daemon=True).start()


if __name__ == "__main__":
    main()
