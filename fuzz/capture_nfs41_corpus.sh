#!/usr/bin/env bash
# Regenerate fuzz/corpus/nfs41_reply/ganesha-*.bin: the NFSv4.1/4.2 replies
# real NFS-Ganesha servers send to hvready's NFSv4.1 client, record marks
# included, captured by a recording proxy (tests/integration/lib/rpc_capture.py)
# between the agent and the server. Servers: Longhorn's share-manager
# configuration (L), a plain server with a read-only export (A), an
# NFSv4.0-only server (D: the NFS4ERR_MINOR_VERS_MISMATCH replies) and an
# NFSv4.2-only one (E). tests/unit/test_nfs41.c requires every ganesha-* file
# to decode. Needs root (ganesha's FSAL VFS) and a build (HVREADY_BIN, default
# build/bin).
#
#   fuzz/capture_nfs41_corpus.sh
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${HVREADY_BIN:-$SRC/build/bin}
OUT=$SRC/fuzz/corpus/nfs41_reply
# shellcheck source=../tests/integration/lib/ganesha.sh
source "$SRC/tests/integration/lib/ganesha.sh"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hvr-nfs41-capture.XXXXXX")
proxies=()
cleanup() {
	local d p
	for p in "${proxies[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for d in "$TMP"/srv-*; do
		[ -d "$d" ] && ganesha_stop "$d"
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

ganesha_start "$TMP/srv-l" 127.0.0.1 auto "" "" longhorn >"$TMP/port-l"
ganesha_start "$TMP/srv-a" 127.0.0.1 auto >"$TMP/port-a"
ganesha_start "$TMP/srv-d" 127.0.0.1 auto "" "Minor_Versions = 0;" >"$TMP/port-d"
ganesha_start "$TMP/srv-e" 127.0.0.1 auto "" "Minor_Versions = 2;" >"$TMP/port-e"
mkdir -p "$TMP/srv-l/export/pvc-test/sub"

# proxy NAME: a recording proxy in front of server NAME; its port in $TMP/proxy-NAME.
proxy() {
	local name=$1 i
	python3 "$SRC/tests/integration/lib/rpc_capture.py" 127.0.0.1 "$(cat "$TMP/port-$name")" \
		"$TMP/cap-$name" "$TMP/proxy-$name" </dev/null >/dev/null 2>&1 &
	proxies+=($!)
	for ((i = 0; i < 100; i++)); do
		[ -s "$TMP/proxy-$name" ] && return 0
		sleep 0.1
	done
	echo "capture: the proxy for $name did not start" >&2
	return 1
}

# probe NAME TARGETS_JSON (with @ for the proxy's host:port)
probe() {
	local name=$1 hp
	proxy "$name"
	hp=127.0.0.1:$(cat "$TMP/proxy-$name")
	printf '%s\n' "${2//@/$hp}" >"$TMP/$name.json"
	"$BIN/hvready-agent" check --only host.nfs.probe --format text --timeout 5 \
		--probe-targets "$TMP/$name.json" | grep '^host.nfs.probe' || true
}

probe l '{"nfs_endpoints": ["nfs://@/pvc-test", "nfs://@/pvc-missing", "nfs://@/pvc-test/sub",
  "nfs://@/pvc-test/sub/missing", "nfs://@/"], "canary_export": "nfs://@/pvc-test"}'
probe a '{"nfs_endpoints": ["nfs://@/pvc-test"], "canary_export": "nfs://@/pvc-ro"}'
probe d '{"nfs_endpoints": ["nfs://@/pvc-test"]}'
probe e '{"nfs_endpoints": ["nfs://@/pvc-test"], "canary_export": "nfs://@/pvc-test"}'
sleep 0.5

# The NFSv4.1/4.2 replies (libnfs's NFSv4.0 ones are not for this decoder),
# the first of each kind and size per server: the others differ in ids only.
mkdir -p "$OUT"
rm -f "$OUT"/ganesha-*.bin
n=0
declare -A seen
for name in l a d e; do
	for f in "$TMP/cap-$name"/*-m[12]-*.bin; do
		[ -e "$f" ] || continue
		base=$(basename "$f")
		kind=${base#*-}-$(stat -c %s "$f")
		[ -z "${seen[$name-$kind]:-}" ] || continue
		seen[$name-$kind]=1
		cp "$f" "$OUT/ganesha-$name-$base"
		n=$((n + 1))
	done
done
echo "capture: $n replies in $OUT"

# Edge cases derived from them: fragments, two records in one read, RPC
# rejections, a record over the 1 MiB limit.
python3 - "$OUT" <<'EOF'
import glob, os, struct, sys
out = sys.argv[1]
for f in glob.glob(os.path.join(out, "synthetic-*.bin")):
    os.remove(f)
def w(name, data):
    with open(os.path.join(out, "synthetic-" + name + ".bin"), "wb") as f:
        f.write(data)
def payload(name):
    data = open(sorted(glob.glob(os.path.join(out, name)))[0], "rb").read()
    return data[4:]
def rec(p, last=True):
    return struct.pack(">I", (0x80000000 if last else 0) | len(p)) + p
eid = payload("ganesha-l-*-m1-EXCHANGE_ID.bin")
look = payload("ganesha-l-*-m1-SEQUENCE-PUTROOTFH.bin")
w("fragments", rec(eid[:5], False) + rec(b"", False) + rec(eid[5:40], False) + rec(eid[40:]))
w("two-records", rec(eid) + rec(look))
xid = eid[:4]
accepted = xid + struct.pack(">IIII", 1, 0, 0, 0)
w("prog-mismatch", rec(accepted + struct.pack(">III", 2, 2, 3)))
w("prog-unavail", rec(accepted + struct.pack(">I", 1)))
w("auth-tooweak", rec(xid + struct.pack(">IIII", 1, 1, 1, 5)))
w("rpc-mismatch", rec(xid + struct.pack(">IIIII", 1, 1, 0, 2, 2)))
w("oversized", struct.pack(">I", 0x80000000 | (2 << 20)) + eid)
w("call-not-reply", rec(xid + struct.pack(">I", 0) + eid[8:]))
w("trailing-byte", rec(eid + b"\0\0\0\0"))
EOF
echo "capture: edge cases in $OUT/synthetic-*.bin"
