#!/usr/bin/env python3
"""Write the seed inputs of the fuzz corpora (fuzz/corpus/*/seed-*).

wire: node reports in msgpack, encoded here by hand (msgpack spec,
https://github.com/msgpack/msgpack/blob/master/spec.md) so the seeds do not
come from the encoder under test: realistic reports of the host checks, then
edge cases at and beyond every limit of docs/protocol.md.
probe_targets: JSON as --probe-targets and the aggregator's reply carry it.
agent_config: the agent's YAML config (agent/config.c).

Run from anywhere: python3 fuzz/gen_corpus.py. Inputs the fuzzer found are
kept next to the seeds as found-*; this script only rewrites seed-*.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- a small msgpack encoder ----

class Pairs:
    """A map given as (key, value) pairs: keeps order, allows any key type
    and duplicates."""

    def __init__(self, *pairs):
        self.pairs = list(pairs)


class RawStr:
    """A str whose bytes are given as is (invalid UTF-8, NUL)."""

    def __init__(self, b):
        self.b = b


class Ext:
    def __init__(self, typ, data):
        self.typ, self.data = typ, data


class Wide:
    """An int or str in a wider encoding than needed (valid msgpack)."""

    def __init__(self, v):
        self.v = v


def _str_header(n):
    if n < 32:
        return bytes([0xa0 | n])
    if n < 0x100:
        return b"\xd9" + struct.pack(">B", n)
    if n < 0x10000:
        return b"\xda" + struct.pack(">H", n)
    return b"\xdb" + struct.pack(">I", n)


def _container_header(n, fix, h16, h32):
    if n < 16:
        return bytes([fix | n])
    if n < 0x10000:
        return bytes([h16]) + struct.pack(">H", n)
    return bytes([h32]) + struct.pack(">I", n)


def _int(v):
    if 0 <= v < 0x80:
        return bytes([v])
    if -32 <= v < 0:
        return struct.pack(">b", v)
    if v >= 0:
        for code, fmt, lim in ((0xcc, ">B", 1 << 8), (0xcd, ">H", 1 << 16),
                               (0xce, ">I", 1 << 32), (0xcf, ">Q", 1 << 64)):
            if v < lim:
                return bytes([code]) + struct.pack(fmt, v)
    for code, fmt, lim in ((0xd0, ">b", 1 << 7), (0xd1, ">h", 1 << 15),
                           (0xd2, ">i", 1 << 31), (0xd3, ">q", 1 << 63)):
        if v >= -lim:
            return bytes([code]) + struct.pack(fmt, v)
    raise ValueError(v)


def pack(v):
    if v is None:
        return b"\xc0"
    if v is True:
        return b"\xc3"
    if v is False:
        return b"\xc2"
    if isinstance(v, int):
        return _int(v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        return _str_header(len(b)) + b
    if isinstance(v, RawStr):
        return _str_header(len(v.b)) + v.b
    if isinstance(v, bytes):
        n = len(v)
        hdr = (b"\xc4" + struct.pack(">B", n) if n < 0x100 else
               b"\xc5" + struct.pack(">H", n) if n < 0x10000 else
               b"\xc6" + struct.pack(">I", n))
        return hdr + v
    if isinstance(v, Ext):
        n = len(v.data)
        fixed = {1: 0xd4, 2: 0xd5, 4: 0xd6, 8: 0xd7, 16: 0xd8}
        if n in fixed:
            return bytes([fixed[n]]) + struct.pack(">b", v.typ) + v.data
        return b"\xc7" + struct.pack(">Bb", n, v.typ) + v.data
    if isinstance(v, Wide):
        if isinstance(v.v, int):
            return (b"\xcf" + struct.pack(">Q", v.v) if v.v >= 0 else
                    b"\xd3" + struct.pack(">q", v.v))
        b = v.v.encode()
        return b"\xdb" + struct.pack(">I", len(b)) + b
    if isinstance(v, list):
        return _container_header(len(v), 0x90, 0xdc, 0xdd) + b"".join(map(pack, v))
    if isinstance(v, dict):
        v = Pairs(*v.items())
    if isinstance(v, Pairs):
        return (_container_header(len(v.pairs), 0x80, 0xde, 0xdf) +
                b"".join(pack(k) + pack(x) for k, x in v.pairs))
    raise TypeError(type(v))


# ---- realistic reports ----

def finding(check, status, message, evidence=None, remediation="", node=None, obj=None):
    f = {"check": check, "status": status, "message": message,
         "evidence": evidence or {}, "remediation": remediation}
    if node:
        f["node"] = node
    if obj:
        f["object"] = obj
    return f


def report(node, results, facts, seq=1, sent_ns=1757078444123456789, **extra):
    r = {"schema": "hvready.node/v1", "schema_minor": 0, "node": node,
         "hostname": node, "agent_version": "0.1.0",
         "boot_id": "4f3c2b1a-9d8e-4c7b-a6f5-e4d3c2b1a0%02d" % (seq % 100),
         "sent_ns": sent_ns, "seq": seq, "interval": 30,
         "results": results, "facts": facts}
    r.update(extra)
    return r


INTEL_FLAGS = ["fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce", "cx8", "apic",
               "sep", "mtrr", "pge", "mca", "cmov", "pat", "pse36", "clflush", "mmx",
               "fxsr", "sse", "sse2", "ss", "ht", "syscall", "nx", "pdpe1gb", "rdtscp",
               "lm", "constant_tsc", "vmx", "avx", "avx2", "avx512f", "avx512dq"]


def cpu_facts(vendor="GenuineIntel", model_name="Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz",
              flags=INTEL_FLAGS, cores=64):
    return {"vendor": vendor, "model_name": model_name, "family": 6, "model": 106,
            "stepping": 6, "cores": cores, "flags": flags}


def healthy(node, seq):
    ev_kvm = {"device": "/dev/kvm", "rdev": "10:232", "api_version": 12,
              "create_vm": True, "modules": ["kvm_intel", "kvm"]}
    results = [
        finding("host.kvm", "PASS", "/dev/kvm is usable (KVM API 12)", ev_kvm, node=node),
        finding("host.cpu.virt", "PASS", "vmx present", {"flags": ["vmx"], "hypervisor": False},
                node=node),
        finding("host.clock", "PASS", "clock synchronised (max error 12 ms)",
                {"offset_us": -183, "maxerror_us": 12000, "esterror_us": 35,
                 "sync_daemon": "chronyd", "unsync": False}, node=node),
        finding("host.nfs.client", "PASS", "mount.nfs found", {"helper": "/usr/sbin/mount.nfs"},
                node=node),
        finding("host.nfs.kernel", "PASS", "NFSv4.1 client built in",
                {"source": "/lib/modules/5.14.21-150500.55.19-default/modules.builtin",
                 "modules": ["nfs", "nfsv4"]}, node=node),
        finding("host.iscsi", "PASS", "iscsid active, InitiatorName set",
                {"iscsiadm": "/usr/sbin/iscsiadm",
                 "initiator_name": "iqn.1996-04.de.suse:01:5f3e8a1b2c3d",
                 "iscsid": "active"}, node=node),
        finding("host.multipathd", "PASS", "multipathd not running", {"running": False},
                node=node),
        finding("host.longhorn.path", "PASS", "/var/lib/longhorn: xfs, 71% free",
                {"path": "/var/lib/longhorn", "fstype": "xfs", "mount_point": "/var/lib/longhorn",
                 "free_pct": 71, "min_available_pct": 25, "writable": True}, node=node),
        finding("host.image.share-manager", "PASS",
                "longhornio/longhorn-share-manager:v1.11.2 resolvable",
                {"image": "longhornio/longhorn-share-manager:v1.11.2",
                 "endpoints": [{"url": "https://registry-1.docker.io/v2/", "status": 200}]},
                node=node),
        finding("host.containerd.device-ownership", "PASS",
                "device_ownership_from_security_context = true",
                {"file": "/var/lib/rancher/rke2/agent/etc/containerd/config.toml"}, node=node),
        finding("host.nfs.probe", "SKIP", "no NFS endpoints to probe", node=node),
        finding("host.resources", "PASS", "64 cores, 251 GiB memory",
                {"cores": 64, "memory_bytes": 270582939648, "min_cores": 8,
                 "min_memory_bytes": 34359738368}, node=node),
    ]
    facts = {"cpu": cpu_facts(), "memory_bytes": 270582939648, "kvm": True,
             "kernel": "5.14.21-150500.55.19-default",
             "os_release": {"ID": "sle-micro", "VERSION_ID": "5.5"}}
    return report(node, results, facts, seq=seq)


def broken(node):
    """Modelled on the field cases: NFS kernel support missing, the
    share-manager image not pullable through the mirror, clock unsynchronised,
    device ownership off, multipathd grabbing Longhorn devices."""
    results = [
        finding("host.kvm", "UNKNOWN", "cannot open /dev/kvm: Permission denied",
                {"device": "/dev/kvm", "errno": 13}, "Run the agent as root.", node=node),
        finding("host.cpu.virt", "WARN", "no vmx/svm flag, but KVM works (nested virtualisation)",
                {"hypervisor": True, "nested": "/sys/module/kvm_intel/parameters/nested=Y"},
                "Live migration between nested hosts is fragile.", node=node),
        finding("host.clock", "FAIL", "clock not synchronised (STA_UNSYNC)",
                {"status": ["STA_UNSYNC"], "maxerror_us": 16000000, "offset_us": -2450000,
                 "sync_daemon": "none"},
                "Enable chronyd and point it at a reachable NTP server.", node=node),
        finding("host.nfs.kernel", "FAIL", "no NFSv4 client support in this kernel",
                {"checked": ["/proc/filesystems", "/sys/module/nfs",
                             "/lib/modules/6.8.0-1008-raspi/modules.builtin",
                             "/lib/modules/6.8.0-1008-raspi/modules.dep"]},
                "Install the kernel's NFS modules (linux-modules-extra) and modprobe nfs.",
                node=node),
        finding("host.image.share-manager", "FAIL",
                "longhornio/longhorn-share-manager:v1.11.2: manifest not found on any endpoint",
                {"image": "longhornio/longhorn-share-manager:v1.11.2",
                 "endpoints": [{"url": "https://mirror.corp.example:5000/v2/", "status": 404},
                               {"url": "https://registry-1.docker.io/v2/",
                                "error": "connect timed out after 10 s"}],
                 "registries_yaml": "/etc/rancher/rke2/registries.yaml"},
                "Mirror the image or fix the rewrite in registries.yaml.", node=node),
        finding("host.containerd.device-ownership", "FAIL",
                "device_ownership_from_security_context is not set",
                {"files": ["/etc/rancher/rke2/config.yaml"], "nonroot_devices": False},
                "Set `nonroot-devices: true` in /etc/rancher/rke2/config.yaml and restart rke2.",
                node=node),
        finding("host.multipathd", "WARN", "multipathd runs without a blacklist for Longhorn",
                {"running": True, "conf": "/etc/multipath.conf", "blacklist": []},
                "Add `blacklist { devnode \"^sd[a-z0-9]+\" }` to /etc/multipath.conf.",
                node=node),
        finding("host.nfs.probe", "FAIL", "nfs://10.43.12.7/pvc-1f2e: GETATTR timed out",
                {"endpoint": "nfs://10.43.12.7/pvc-1f2e", "timeout_s": 10},
                "Check the share-manager pod of the volume.", node=node,
                obj="Volume/longhorn-system/pvc-1f2e"),
        finding("host.longhorn.path", "WARN", "/var/lib/longhorn is on the root filesystem",
                {"path": "/var/lib/longhorn", "mount_point": "/", "fstype": "ext4",
                 "free_pct": 18, "min_available_pct": 25},
                "Give Longhorn its own disk.", node=node),
        finding("host.resources", "WARN", "4 cores, 15 GiB memory (Harvester wants 8 / 32 GiB)",
                {"cores": 4, "memory_bytes": 16106127360}, node=node),
    ]
    facts = {"cpu": cpu_facts("AuthenticAMD", "AMD EPYC 7543P 32-Core Processor",
                              ["fpu", "sse2", "svm", "avx2", "hypervisor"], 4),
             "memory_bytes": 16106127360, "kvm": False, "kernel": "6.8.0-1008-raspi"}
    return report(node, results, facts, seq=18446744073709551615, interval=0)


def writer(corpus):
    d = os.path.join(HERE, "corpus", corpus)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith("seed-"):
            os.remove(os.path.join(d, f))

    def write(name, data):
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(d, "seed-" + name), "wb") as f:
            f.write(data)
    return write


def nested(depth, leaf, as_map):
    v = leaf
    for _ in range(depth):
        v = {"l": v} if as_map else [v]
    return v


def wire_seeds():
    w = writer("wire")
    ok = pack(healthy("harvester-01", 1))
    w("healthy", ok)
    w("healthy-2", pack(healthy("harvester-02", 7)))
    w("broken", pack(broken("edge-rpi-03")))
    minimal = {"schema": "hvready.node/v1", "node": "n", "sent_ns": 0, "results": []}
    w("minimal", pack(minimal))
    w("minimal-negative-time", pack(dict(minimal, sent_ns=-1)))
    # Widest encodings of small values: a different byte stream, the same report.
    w("wide-encodings", pack(Pairs(("schema", Wide("hvready.node/v1")), ("node", Wide("n")),
                                   ("sent_ns", Wide(5)), ("seq", Wide(1)),
                                   ("results", [{"check": Wide("host.kvm"), "status": "PASS",
                                                 "message": Wide(""),
                                                 "evidence": {"i": Wide(-1)}}]))))
    ints = {"u8": 200, "u16": 60000, "u32": 4000000000, "i8": -100, "i16": -30000,
            "i32": -2000000000, "i64": -(1 << 63), "max": (1 << 63) - 1, "zero": 0,
            "t": True, "f": False, "empty": "", "list": [], "map": {},
            "unicode": "Zürich ✓ 日本語 🚀", "": "empty key",
            "nested": [[1, [2, {"a": [3]}]], {"b": {"c": "d"}}]}
    w("all-value-types", pack(dict(minimal, facts=ints,
                                   results=[finding("host.clock", "WARN", "x", ints)])))
    w("unknown-keys", pack(Pairs(*[(k, v) for k, v in minimal.items() if k != "results"],
                                 ("schema_minor", 3),
                                 ("future", {"f": 1.5, "n": None, "b": b"\x00\xff",
                                             "e": Ext(5, b"x"), 1: 2, None: [Ext(-1, b"\0" * 8)]}),
                                 ("results", [dict(finding("host.kvm", "PASS", "ok"),
                                                   severity=2, links=["https://x"])]))))
    # Every msgpack format once, under a key v1 does not know (so: accepted),
    # then each header cut short on its own.
    every = [None, False, True, 5, -5, Wide(7), Wide(-7), 200, 60000, 4000000000, 1 << 40,
             -100, -30000, -2000000000, -(1 << 40), 1.5, "s", "x" * 40, "y" * 300, Wide("z"),
             b"b", b"c" * 300, b"d" * 65536, Ext(1, b"1"), Ext(2, b"22"), Ext(3, b"4444"),
             Ext(4, b"8" * 8), Ext(5, b"g" * 16), Ext(6, b"eee"), [0] * 20,
             {"k%d" % i: i for i in range(20)}]
    w("every-format", pack(dict(minimal, future=every)))
    # float 32 (the encoder above writes float 64 only)
    w("float32", pack(dict(minimal, facts={"f": 0}))[:-1] + b"\xca\x3f\x80\x00\x00")
    for code in [0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xd0,
                 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd,
                 0xde, 0xdf]:
        w("cut-%02x" % code, b"\x81\xa1k" + bytes([code]))
    w("schema-v2", pack({"schema": "hvready.node/v2", "node": "n", "results": {}}))
    w("schema-v0", pack(dict(minimal, schema="hvready.node/v0")))
    w("schema-other", pack(dict(minimal, schema="hvready.report/v1")))
    w("schema-huge-major", pack(dict(minimal, schema="hvready.node/v99999999999999999999")))
    w("empty", b"")
    w("truncated-half", ok[:len(ok) // 2])
    w("truncated-last-byte", ok[:-1])
    w("trailing", ok + b"trailing junk")
    w("two-reports", ok + ok)
    w("json-not-msgpack", '{"schema": "hvready.node/v1", "node": "n"}')
    w("reserved-c1", b"\x81\xa1k\xc1")
    w("top-array", pack([minimal]))
    w("top-int", pack(7))
    w("huge-array32", b"\xdd\xff\xff\xff\xff\x01\x02\x03\x04\x05")
    w("huge-map32", b"\xdf\xff\xff\xff\xff\x01\x02\x03\x04\x05")
    w("huge-str32", b"\x81\xa1k\xdb\xff\xff\xff\xff\x01")
    w("huge-bin32", b"\x81\xa1k\xc6\x7f\xff\xff\xff")
    w("huge-ext32", b"\x81\xa1k\xc9\xff\xff\xff\xff\x01")
    w("missing-node", pack({k: v for k, v in minimal.items() if k != "node"}))
    w("missing-sent", pack({k: v for k, v in minimal.items() if k != "sent_ns"}))
    w("empty-node", pack(dict(minimal, node="")))
    w("results-map", pack(dict(minimal, results={})))
    w("status-maybe", pack(dict(minimal, results=[finding("host.kvm", "PASS", "a"),
                                                  finding("host.kvm", "MAYBE", "b")])))
    w("finding-missing-message", pack(dict(minimal, results=[{"check": "c", "status": "PASS"}])))
    w("dup-top", pack(Pairs(*minimal.items(), ("node", "other"))))
    w("dup-evidence", pack(dict(minimal, results=[
        dict(finding("c", "PASS", "m"), evidence=Pairs(("a", 1), ("b", 2), ("a", 3)))])))
    w("dup-facts-large", pack(dict(minimal, facts=Pairs(
        *[("/dev/sd%d" % i, i) for i in range(40)], ("/dev/sd7", 0)))))
    w("invalid-utf8", pack(dict(minimal, results=[finding("c", "PASS", RawStr(b"caf\xe9"))])))
    w("overlong-utf8", pack(dict(minimal, results=[finding("c", "PASS", RawStr(b"\xc0\xaf"))])))
    w("surrogate", pack(dict(minimal, hostname=RawStr(b"\xed\xa0\x80"))))
    w("nul-in-string", pack(dict(minimal, node=RawStr(b"a\x00b"))))
    w("nul-in-key", pack(dict(minimal, facts=Pairs((RawStr(b"k\x00"), 1)))))
    w("int-key", pack(dict(minimal, facts=Pairs((1, 1)))))
    w("float-in-facts", pack(dict(minimal, facts={"load": 0.5})))
    w("nil-in-evidence", pack(dict(minimal, results=[finding("c", "PASS", "m", {"x": None})])))
    w("int-too-big", pack(dict(minimal, facts={"x": 1 << 63})))
    w("seq-negative", pack(dict(minimal, seq=-1)))
    w("interval-too-big", pack(dict(minimal, interval=1 << 32)))
    w("depth-8", pack(dict(minimal, facts={"cpu": nested(7, "leaf", True)})))
    w("depth-9", pack(dict(minimal, facts={"cpu": nested(8, "leaf", True)})))
    w("depth-9-arrays", pack(dict(minimal, results=[
        finding("c", "PASS", "m", {"e": nested(8, 0, False)})])))
    w("depth-40", pack(dict(minimal, facts={"deep": nested(40, 1, False)})))
    w("string-at-limit", pack(dict(minimal, facts={"s": "x" * 65536})))
    w("string-over-limit", pack(dict(minimal, facts={"s": "x" * 65537})))
    w("array-at-limit", pack(dict(minimal, facts={"a": list(range(4096))})))
    w("array-over-limit", pack(dict(minimal, facts={"a": [0] * 4097})))
    w("findings-at-limit", pack(dict(minimal, results=[
        {"check": "c", "status": "PASS", "message": ""}] * 1024)))
    w("findings-over-limit", pack(dict(minimal, results=[
        {"check": "c", "status": "PASS", "message": ""}] * 1025)))


def probe_targets_seeds():
    w = writer("probe_targets")
    w("full", '{"share_manager_image": "longhornio/longhorn-share-manager:v1.11.2",\n'
              ' "nfs_endpoints": ["nfs://10.43.12.7/pvc-1f2e3d4c-5b6a-7980-a1b2-c3d4e5f60718",\n'
              '                   "nfs://pvc-9a8b.longhorn-system.svc.cluster.local:2049/pvc-9a8b"],\n'
              ' "longhorn_data_paths": ["/var/lib/longhorn", "/mnt/disk2/longhorn"],\n'
              ' "canary_export": "nfs://10.43.200.9/hvready-canary"}\n')
    w("empty-object", "{}")
    w("nulls", '{"share_manager_image": null, "nfs_endpoints": null}')
    w("unknown-keys", '{"future": {"a": [1, 2.5, true]}, "longhorn_data_paths": []}')
    w("duplicates", '{"nfs_endpoints": ["nfs://a/x", "nfs://a/x", "nfs://b/y"]}')
    w("unicode-escapes", '{"share_manager_image": "reg\\u00e9.example/\\ud83d\\ude80:v1"}')
    w("wrong-type", '{"nfs_endpoints": "nfs://a/x"}')
    w("wrong-item", '{"longhorn_data_paths": ["/ok", 5]}')
    w("not-object", '["nfs://a/x"]')
    w("trailing", '{} {}')
    w("truncated", '{"nfs_endpoints": ["nfs://a/')
    w("deep", "[" * 2000 + "]" * 2000)
    w("many-items", '{"nfs_endpoints": [%s]}' % ", ".join('"nfs://h/%d"' % i for i in range(1025)))
    w("nul-in-string", b'{"canary_export": "nfs://a/\\u0000x"}')
    w("empty", "")


def agent_config_seeds():
    w = writer("agent_config")
    w("full", """\
# /etc/hvready/agent.yaml
node: harvester-01
host_root: /host
aggregator: https://hvready-aggregator.hvready-system.svc:8443
ca_file: /etc/hvready/ca.crt
token_file: /var/run/secrets/hvready/token
probe_targets: /etc/hvready/probe-targets.json
timeout: 10
interval: 30
skip: [host.nfs.probe, host.image.share-manager]
thresholds:
  clock_maxerror_warn_ms: 500
  min_cpu_cores: 8
  min_memory_gib: 32
  longhorn_min_available_percent: 25
""")
    w("skip-string", "skip: host.nfs.probe, host.iscsi\nonly: host.kvm\n")
    w("only-list", "only:\n  - host.kvm\n  - host.cpu.virt\n")
    w("empty", "")
    w("comment-only", "# nothing set\n")
    w("unknown-keys", "future: {a: 1}\nthresholds: {future: 2}\n")
    w("bad-int", "timeout: ten\n")
    w("out-of-range", "interval: 0\n")
    w("huge-int", "thresholds:\n  min_memory_gib: 99999999999999999999\n")
    w("negative", "thresholds: {longhorn_min_available_percent: -1}\n")
    w("not-mapping", "- node: a\n")
    w("node-list", "node: [a, b]\n")
    w("skip-map", "skip: {a: 1}\n")
    w("thresholds-scalar", "thresholds: 5\n")
    w("anchors", "x: &a [host.kvm, host.kvm]\nskip: *a\nonly: *a\n")
    w("alias-bomb", "a: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\n"
                    "skip: *c\n")
    w("invalid-yaml", "node: [unclosed\n")
    w("tabs", "node:\tharvester-01\n\ttimeout: 5\n")
    w("two-documents", "node: a\n---\nnode: b\n")
    w("non-scalar-key", "? [a, b]\n: c\nnode: n\n")
    w("utf8-bom", "\ufeffnode: n\n")


def main():
    wire_seeds()
    probe_targets_seeds()
    agent_config_seeds()
    return 0


if __name__ == "__main__":
    sys.exit(main())
