#!/usr/bin/env python3
"""A stand-in for Harvester's API Service in tests: HTTPS on 127.0.0.1 (a free
port, written to --port-file), routing by SNI like Harvester does (another
name gets 421), answering GET /v1/harvester with a Steve schema collection.
Every SNI it sees is appended to --sni-file, every Host header to
--host-file. It exits by itself after --lifetime seconds so that a crashed
test cannot leave it behind."""
import argparse
import http.server
import json
import os
import ssl
import threading

p = argparse.ArgumentParser()
p.add_argument("--cert", required=True)
p.add_argument("--key", required=True)
p.add_argument("--port-file", required=True)
p.add_argument("--sni-file", required=True)
p.add_argument("--host-file", required=True)
p.add_argument("--mode", default="schemas", choices=["schemas", "empty", "error", "auth"])
p.add_argument("--sni", default="harvester.local")
p.add_argument("--lifetime", type=float, default=60)
a = p.parse_args()

SCHEMAS = ["apps.deployment", "harvesterhci.io.setting", "harvesterhci.io.virtualmachineimage",
           "kubevirt.io.virtualmachine", "snapshot.kubevirt.io.virtualmachinesnapshot",
           "snapshot.kubevirt.io.virtualmachinesnapshotcontent",
           "snapshot.kubevirt.io.virtualmachinerestore", "k3s.cattle.io.etcdsnapshotfile"]


def on_sni(sock, name, ctx):
    sock.sni_name = name
    with open(a.sni_file, "a") as f:
        f.write((name or "") + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with open(a.host_file, "a") as f:
            f.write(self.headers.get("Host", "") + "\n")
        if getattr(self.connection, "sni_name", None) != a.sni:
            return self.reply(421, {"message": "misdirected request"})
        if self.path != "/v1/harvester":
            return self.reply(404, {"message": "not found"})
        if a.mode == "error":
            return self.reply(500, {"message": "internal error"})
        if a.mode == "auth":
            return self.reply(401, {"message": "must authenticate"})
        ids = SCHEMAS if a.mode == "schemas" else SCHEMAS[:4]
        return self.reply(200, {"type": "collection", "resourceType": "schema",
                                "data": [{"id": i, "type": "schema"} for i in ids]})


ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(a.cert, a.key)
ctx.sni_callback = on_sni
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
threading.Timer(a.lifetime, lambda: os._exit(0)).start()
tmp = a.port_file + ".tmp"
with open(tmp, "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(tmp, a.port_file)
srv.serve_forever()
