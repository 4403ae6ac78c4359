#!/usr/bin/env bash
# ctest: serial
# host.nfs.probe against real NFS-Ganesha servers (the server inside Longhorn's
# share-manager): PASS, a missing export, a closed port, the canary on a
# read-write and a read-only export, a Longhorn-like server that refuses
# NFSv4.0, a SIGSTOP'd server (bounded by the timeout), and a server in a
# network namespace on the default port 2049, then unreachable.
set -euo pipefail

: "${HVREADY_SRC:?}" "${HVREADY_BIN:?}"
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
# shellcheck source=lib/ganesha.sh
source "$HVREADY_SRC/tests/integration/lib/ganesha.sh"

AGENT=$HVREADY_BIN/hvready-agent
TIMEOUT=3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hvr-nfs-probe.XXXXXX")
NS=hvr-nfs-$$
VETH=hvn$$
failures=0
done_ok=0

cleanup() {
	local d
	if [ "$done_ok" != 1 ]; then
		for d in "$TMP"/srv-*; do
			[ -d "$d" ] && ganesha_log "$d"
		done
	fi
	local stops=()
	for d in "$TMP"/srv-*; do
		[ -d "$d" ] || continue
		ganesha_stop "$d" &
		stops+=($!)
	done
	[ "${#stops[@]}" -eq 0 ] || wait "${stops[@]}"
	ip netns del "$NS" 2>/dev/null || true
	ip link del "${VETH}a" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# run_agent NAME TARGETS_JSON: runs the check; sets RC and ELAPSED_MS, output in $TMP/NAME.json.
AGENT_PREFIX=(env) # a command the agent runs under (the libnfs case below)
run_agent() {
	local name=$1 t0 t1
	printf '%s\n' "$2" >"$TMP/$name.targets.json"
	t0=$(date +%s%N)
	RC=0
	"${AGENT_PREFIX[@]}" "$AGENT" check --only host.nfs.probe --format json \
		--probe-targets "$TMP/$name.targets.json" \
		--timeout "$TIMEOUT" >"$TMP/$name.json" 2>"$TMP/$name.err" || RC=$?
	t1=$(date +%s%N)
	ELAPSED_MS=$(((t1 - t0) / 1000000))
	echo "-- $name: exit $RC in ${ELAPSED_MS} ms"
}

PY=$(command -v /usr/bin/python3 || command -v python3)

# expect NAME URL [canary] -- STATUS [key=value|key~substring]...
# Queues an assertion on the host.nfs.probe finding for URL (the canary one
# when "canary"); key is an evidence key, or message, remediation, object.
expect() {
	local name=$1
	shift
	printf '%s\t' "$@" >>"$TMP/$name.expect"
	printf '\n' >>"$TMP/$name.expect"
}

# verify NAME: checks the queued assertions against $TMP/NAME.json, in one
# interpreter (python start-up is slow on some machines).
verify() {
	"$PY" - "$TMP/$1.json" "$TMP/$1.expect" "$1" <<'EOF' || fail "$1: see above"
import json, sys
out, spec, name = sys.argv[1:]
doc = json.load(open(out))
assert doc["schema"] == "hvready.node/v1"
errors = 0
for line in open(spec):
    args = line.rstrip("\n").rstrip("\t").split("\t")
    url, rest = args[0], args[1:]
    canary = bool(rest) and rest[0] == "canary"
    if canary:
        rest = rest[1:]
    assert rest[0] == "--", rest
    status, conds = rest[1], rest[2:]
    fs = [f for f in doc["results"] if f["check"] == "host.nfs.probe"
          and f["evidence"].get("url") == url and bool(f["evidence"].get("canary")) == canary]
    if len(fs) != 1:
        print(f"{name}: {len(fs)} findings for {url} (canary={canary})")
        print(json.dumps(doc["results"], indent=1))
        errors += 1
        continue
    f = fs[0]
    bad = []
    if f["status"] != status:
        bad.append(f"status {f['status']} != {status}")
    for c in conds:
        key, op, want = c.partition("~") if "~" in c else c.partition("=")
        have = f.get(key) if key in ("message", "object", "remediation") else f["evidence"].get(key)
        ok = want in str(have) if op == "~" else (json.dumps(have) == want or str(have) == want)
        if not ok:
            bad.append(f"{key}: {have!r} does not match {op}{want!r}")
    if not f["message"] or (status not in ("PASS", "SKIP") and not f["remediation"]):
        bad.append("empty message or remediation")
    if bad:
        print(f"{name}: {url}: " + "; ".join(bad))
        print(json.dumps(f, indent=1))
        errors += 1
    else:
        print(f"   ok {status:7} {f['message']}")
sys.exit(1 if errors else 0)
EOF
}

expect_rc() {
	[ "$RC" = "$2" ] || fail "$1: exit code $RC, expected $2"
}

expect_within() { # NAME MAX_MS
	[ "$ELAPSED_MS" -le "$2" ] || fail "$1: took ${ELAPSED_MS} ms, more than $2 ms"
}

# ---------------------------------------------------------------- servers
# L: Longhorn's share-manager configuration (NFSv4.1 and 4.2 only, FSAL VFS).
# A: a plain server (FSAL MEM, NFSv4.0 to 4.2) with a read-only export.
# D: NFSv4.0 only (the libnfs path). E: NFSv4.2 only.
# All start at once; each must come up or the test fails.
ganesha_start "$TMP/srv-l" 127.0.0.1 auto "" "" longhorn >"$TMP/port-l" &
pl=$!
ganesha_start "$TMP/srv-a" 127.0.0.1 auto >"$TMP/port-a" &
pa=$!
ganesha_start "$TMP/srv-d" 127.0.0.1 auto "" "Minor_Versions = 0;" >"$TMP/port-d" &
pd=$!
ganesha_start "$TMP/srv-e" 127.0.0.1 auto "" "Minor_Versions = 2;" >"$TMP/port-e" &
pe=$!
wait "$pl" || { echo "FAIL: ganesha L did not start"; exit 1; }
wait "$pa" || { echo "FAIL: ganesha A did not start"; exit 1; }
wait "$pd" || { echo "FAIL: ganesha D did not start"; exit 1; }
wait "$pe" || { echo "FAIL: ganesha E did not start"; exit 1; }
PL=$(cat "$TMP/port-l")
PA=$(cat "$TMP/port-a")
PD=$(cat "$TMP/port-d")
PE=$(cat "$TMP/port-e")
CLOSED=$(free_port)
echo "ganesha L (Longhorn) :$PL, A :$PA, D (4.0 only) :$PD, E (4.2 only) :$PE, closed port $CLOSED"
L_DIR="$TMP/srv-l/export/pvc-test"
mkdir -p "$L_DIR/sub"

L_URL="nfs://127.0.0.1:$PL/pvc-test"
L_SUB_URL="nfs://127.0.0.1:$PL/pvc-test/sub"
L_DEEP_URL="nfs://127.0.0.1:$PL/pvc-test/sub/missing"
NOENT_URL="nfs://127.0.0.1:$PL/pvc-0a1b2c3d-missing"
A_URL="nfs://127.0.0.1:$PA/pvc-test"
A_RO_URL="nfs://127.0.0.1:$PA/pvc-ro"
D_URL="nfs://127.0.0.1:$PD/pvc-test"
D_RO_URL="nfs://127.0.0.1:$PD/pvc-ro"
E_URL="nfs://127.0.0.1:$PE/pvc-test"
CLOSED_URL="nfs://127.0.0.1:$CLOSED/pvc-test"
BAD_URL="nfs://127.0.0.1:$PL/pvc-test?version=3"

# No canary file may stay in the Longhorn export (FSAL VFS: a real directory).
expect_clean_export() {
	local left
	left=$(find "$L_DIR" -name '.hvready-canary-*' | head -3)
	[ -z "$left" ] || fail "$1: canary files left in the export: $left"
}

# ---------------------------------------------------------------- no targets
run_agent skip '{}'
"$PY" - "$TMP/skip.json" <<'EOF' || fail "skip: expected one SKIP finding"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["results"] if f["check"] == "host.nfs.probe"]
assert len(fs) == 1 and fs[0]["status"] == "SKIP", fs
assert fs[0]["message"] == "no RWX share endpoints to probe", fs
EOF
expect_rc skip 0

# ---------------------------------------------------------------- endpoints + canary
run_agent main "{\"nfs_endpoints\": [\"$L_URL\", \"$NOENT_URL\", \"$L_SUB_URL\", \"$L_DEEP_URL\",
  \"$A_URL\", \"$D_URL\", \"$E_URL\", \"$CLOSED_URL\", \"$BAD_URL\"],
  \"canary_export\": \"$L_URL\"}"
expect main "$L_URL" -- PASS object=Volume/longhorn-system/pvc-test 'client=hvready nfs4.1' \
	nfs_version=4.1 port="$PL" export=/pvc-test root_type=directory root_mode=0755 root_owner=0 \
	root_uid=0 'message~mounted with NFSv4.1 and read the export root'
expect main "$L_URL" canary -- PASS 'client=hvready nfs4.1' canary_left_behind=false \
	'message~mounted with NFSv4.1; canary file created, written, read back identical and removed'
expect main "$NOENT_URL" -- FAIL nfs_status=NFS4ERR_NOENT failed_step=mount outcome=nfs-error \
	'client=hvready nfs4.1' 'message~mount failed: LOOKUP of "pvc-0a1b2c3d-missing" (component 1 of 1) failed with NFS4ERR_NOENT' \
	'remediation~shareEndpoint'
expect main "$L_SUB_URL" -- PASS "object=$L_SUB_URL" nfs_version=4.1 root_type=directory
expect main "$L_DEEP_URL" -- FAIL nfs_status=NFS4ERR_NOENT \
	'message~LOOKUP of "missing" (component 3 of 3) failed with NFS4ERR_NOENT'
expect main "$A_URL" -- PASS nfs_version=4.1 'client=hvready nfs4.1'
expect main "$D_URL" -- PASS 'client=libnfs nfs4.0' nfs_version=4.0 \
	'nfs_versions_tried=["4.1", "4.2", "4.0"]' 'nfs_versions_refused=["4.1", "4.2"]' \
	'message~mounted with NFSv4.0'
expect main "$E_URL" -- PASS 'client=hvready nfs4.1' nfs_version=4.2 'nfs_versions_refused=["4.1"]' \
	'message~mounted with NFSv4.2'
expect main "$CLOSED_URL" -- FAIL outcome=connection-refused errno=ECONNREFUSED failed_step=connect \
	tcp_connected=false 'remediation~share-manager-pvc-test'
expect main "$BAD_URL" -- UNKNOWN "object=$BAD_URL" 'message~malformed NFS endpoint' 'message~query'
verify main
expect_rc main 1
expect_within main $((TIMEOUT * 1000))
expect_clean_export main

# ---------------------------------------------------------------- canaries on NFSv4.0 and read-only exports
run_agent canary40 "{\"canary_export\": \"$D_URL\"}"
expect canary40 "$D_URL" canary -- PASS 'client=libnfs nfs4.0' canary_left_behind=false \
	'message~mounted with NFSv4.0; canary file created'
verify canary40
expect_rc canary40 0

# ---------------------------------------------------------------- libnfs missing
# The agent opens libnfs only for an NFSv4.0 server (agent/lazy_libnfs.c): in a
# mount namespace of this test's own, the library is /dev/null. The 4.0 server
# is then UNKNOWN with the reason; the agent neither crashes nor guesses.
LIBNFS=$(ldconfig -p | sed -n 's/^[[:space:]]*libnfs\.so\.13 .*=> //p' | head -1)
if [ -n "$LIBNFS" ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded by the inner shell
	AGENT_PREFIX=(unshare -m --propagation private sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$LIBNFS")
	run_agent nolibnfs "{\"nfs_endpoints\": [\"$D_URL\", \"$L_URL\"]}"
	AGENT_PREFIX=(env)
	expect nolibnfs "$D_URL" -- UNKNOWN 'client=libnfs nfs4.0' \
		'message~the probe could not run: could not load libnfs, which the NFSv4.0 probe needs'
	expect nolibnfs "$L_URL" -- PASS 'client=hvready nfs4.1'
	verify nolibnfs
	expect_rc nolibnfs 3
	grep -q 'cannot load libnfs.so.13' "$TMP/nolibnfs.err" ||
		fail "nolibnfs: no reason on stderr: $(head -c 400 "$TMP/nolibnfs.err")"
else
	echo "-- nolibnfs: skipped (no libnfs.so.13 in ld.so.cache, or no mount namespace)"
fi

run_agent ro41 "{\"canary_export\": \"$A_RO_URL\"}"
expect ro41 "$A_RO_URL" canary -- FAIL 'client=hvready nfs4.1' failed_step=create \
	nfs_status=NFS4ERR_ROFS canary_left_behind=false 'message~canary create failed: OPEN failed with NFS4ERR_ROFS' \
	'remediation~read-only'
verify ro41
expect_rc ro41 1

run_agent ro40 "{\"canary_export\": \"$D_RO_URL\"}"
expect ro40 "$D_RO_URL" canary -- FAIL 'client=libnfs nfs4.0' failed_step=create \
	nfs_status=NFS4ERR_ROFS canary_left_behind=false 'message~canary create failed' 'remediation~read-only'
verify ro40
expect_rc ro40 1

# ---------------------------------------------------------------- a hung share-manager
PID_L=$(ganesha_pid "$TMP/srv-l")
kill -STOP "$PID_L"
run_agent stopped "{\"nfs_endpoints\": [\"$L_URL\"]}"
kill -CONT "$PID_L"
expect stopped "$L_URL" -- FAIL outcome=timeout tcp_connected=true failed_step=mount \
	'client=hvready nfs4.1' "message~no answer within $TIMEOUT s" 'remediation~hung'
verify stopped
expect_rc stopped 1
expect_within stopped $(((TIMEOUT + 1) * 1000))
[ "$ELAPSED_MS" -ge $((TIMEOUT * 1000)) ] || fail "stopped: gave up after ${ELAPSED_MS} ms, before the timeout"
# The same server, resumed, passes again: the timeout left nothing behind.
run_agent resumed "{\"nfs_endpoints\": [\"$L_URL\"], \"canary_export\": \"$L_URL\"}"
expect resumed "$L_URL" -- PASS nfs_version=4.1
expect resumed "$L_URL" canary -- PASS canary_left_behind=false
verify resumed
expect_rc resumed 0
expect_clean_export resumed

# ---------------------------------------------------------------- a node behind a veth, port 2049
# A /30 from 10.200.0.0/16 that no interface here uses yet.
for ((i = 0; i < 50; i++)); do
	NET="10.200.$((RANDOM % 256)).$((RANDOM % 64 * 4))"
	base=${NET%.*}
	last=${NET##*.}
	HOST_IP="$base.$((last + 1))"
	NS_IP="$base.$((last + 2))"
	ip -o -4 addr show | grep -q " $base\.$((last + 1))/\| $base\.$((last + 2))/" || break
done
# The namespace is this test's own host: allow the agent to reach it.
export HVREADY_TEST_NET_ALLOW="${HVREADY_TEST_NET_ALLOW:+$HVREADY_TEST_NET_ALLOW,}$NS_IP/32"
veth_netns "$NS" "${VETH}a" "${VETH}b" "$HOST_IP/30" "$NS_IP/30"
ganesha_start "$TMP/srv-ns" "$NS_IP" 2049 "$NS" >/dev/null || { echo "FAIL: ganesha in netns did not start"; exit 1; }
echo "ganesha B in netns $NS on $NS_IP:2049"

NS_URL="nfs://$NS_IP/pvc-test"
run_agent netns "{\"nfs_endpoints\": [\"$NS_URL\"], \"canary_export\": \"$NS_URL\"}"
expect netns "$NS_URL" -- PASS port=2049 "address=$NS_IP" object=Volume/longhorn-system/pvc-test \
	nfs_version=4.1
expect netns "$NS_URL" canary -- PASS
verify netns
expect_rc netns 0

# Packets now vanish (the namespace's link is down): nothing answers the SYN.
ip netns exec "$NS" ip link set "${VETH}b" down
run_agent blackhole "{\"nfs_endpoints\": [\"$NS_URL\"]}"
expect blackhole "$NS_URL" -- FAIL outcome=timeout tcp_connected=false failed_step=connect \
	'message~TCP connection not established' 'message~NetworkPolicy blocks 2049' 'remediation~firewall'
verify blackhole
expect_rc blackhole 1
expect_within blackhole $(((TIMEOUT + 2) * 1000))

# ---------------------------------------------------------------- verdict
if [ "$failures" -ne 0 ]; then
	echo "nfs_probe: $failures assertion(s) failed"
	exit 1
fi
done_ok=1
echo "nfs_probe: all passed"
