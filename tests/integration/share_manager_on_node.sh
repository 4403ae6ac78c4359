#!/usr/bin/env bash
# ctest: serial
# host.image.share-manager and the image already on the node: a real containerd
# (Debian's, with its CRI plugin) on a socket under a test host root, loaded
# from a real docker-registry on loopback. Air-gapped nodes have the image
# preloaded and no registry: with Longhorn's pull policy (if-not-present unless
# changed) that is a WARN, not a FAIL; "always" still needs the pull; "never"
# needs only the image on the node. A socket that does not answer is bounded by
# the timeout, and a missing one is said.
set -euo pipefail
: "${HVREADY_SRC:?}" "${HVREADY_BIN:?}"
. "$HVREADY_SRC/tests/integration/lib/registry.sh"

WORK=$(mktemp -d /tmp/hvready-it-smnode.XXXXXX)
CTRD_PID=""
HOLD_PID=""
cleanup() {
	set +e
	[ -n "$HOLD_PID" ] && kill "$HOLD_PID" 2>/dev/null
	if [ -n "$CTRD_PID" ]; then
		kill "$CTRD_PID" 2>/dev/null
		wait "$CTRD_PID" 2>/dev/null
	fi
	registry_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy no_proxy NO_PROXY

# fail (tests/tools/test_lib.sh) shows the tails of $WORK's logs and of the agent's output.
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
TMP=$WORK
FAIL_TAIL=40
FAIL_GLOB="$WORK/out.json"
command -v containerd >/dev/null && command -v ctr >/dev/null ||
	fail "containerd and ctr are not installed (scripts/install-deps.sh installs them)"

IMAGE=longhornio/longhorn-share-manager:v1.11.2
FULL=docker.io/$IMAGE
# Docker Hub's endpoint on a closed loopback port: the registry is unreachable.
CLOSED=$(free_port)
export HVREADY_TEST_DEFAULT_ENDPOINT="docker.io=http://127.0.0.1:$CLOSED"

# An RKE2 node's root; its containerd listens where RKE2's does.
ROOT="$WORK/root"
mkdir -p "$ROOT/etc/rancher/rke2" "$ROOT/run/k3s/containerd"
SOCK="$ROOT/run/k3s/containerd/containerd.sock"
cat >"$WORK/containerd.toml" <<EOF
version = 2
root = "$WORK/containerd-root"
state = "$WORK/containerd-state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs",
  "io.containerd.internal.v1.opt", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
EOF
containerd --config "$WORK/containerd.toml" >"$WORK/containerd.log" 2>&1 &
CTRD_PID=$!
ctr_() { ctr --address "$SOCK" --namespace k8s.io "$@"; }
for _ in $(seq 1 100); do
	ctr_ version >/dev/null 2>&1 && break
	kill -0 "$CTRD_PID" 2>/dev/null || fail "containerd exited"
	sleep 0.1
done
ctr_ version >/dev/null 2>&1 || fail "containerd did not start"
grep -q 'io.containerd.grpc.v1.cri' "$WORK/containerd.log" || fail "containerd has no CRI plugin"

REG_PORT=$(free_port)
start_registry "$WORK/registry" "$REG_PORT" || fail "docker-registry did not start"
push_image "http://127.0.0.1:$REG_PORT" longhornio/longhorn-share-manager v1.11.2 >/dev/null ||
	fail "cannot push the image"

# check [POLICY]: the agent's check on ROOT, JSON in $WORK/out.json.
check() {
	if [ -n "${1:-}" ]; then
		printf '{"share_manager_image": "%s", "share_manager_pull_policy": "%s"}\n' "$IMAGE" "$1"
	else
		printf '{"share_manager_image": "%s"}\n' "$IMAGE"
	fi >"$WORK/targets.json"
	local t0=$SECONDS rc=0
	timeout 60 "$HVREADY_BIN/hvready-agent" check --host-root "${CHECK_ROOT:-$ROOT}" \
		--only host.image.share-manager --probe-targets "$WORK/targets.json" --timeout 2 \
		--format json --output "$WORK/out.json" 2>"$WORK/agent.err" || rc=$?
	TOOK=$((SECONDS - t0))
	# 0 ready, 1 not ready, 3 unknown; anything else (a crash, a sanitizer's report) fails.
	case $rc in
	0 | 1 | 3) ;;
	*) fail "hvready-agent check exited with $rc: $(cat "$WORK/agent.err")" ;;
	esac
}
# holds EXPR: a Python expression over f (the finding) and ev (its evidence).
holds() {
	"$PYTHON" "$HVREADY_SRC/tests/tools/finding_holds.py" "$WORK/out.json" host.image.share-manager "$1"
}
expect() { # STATUS EXPR WHAT
	holds "f['status'] == '$1'" || fail "$3: not $1"
	holds "$2" || fail "$3: $2 does not hold"
	echo "$3: $1"
}

# 1. Not on the node, registry unreachable: FAIL, and the remedy names the import.
check
expect FAIL "ev['on_node']['result'] == 'absent' and 'runtime.v1' in ev['on_node']['api'] \
and 'ctr -n k8s.io images import' in f['remediation'] and ev['pull_policy'] == 'if-not-present' \
and 'default' in ev['pull_policy_source']" "absent, no registry"

# The image preloaded as an air-gapped node has it: pulled, renamed to its
# docker.io name, the registry's name removed.
ctr_ images pull --plain-http "127.0.0.1:$REG_PORT/$IMAGE" >/dev/null || fail "ctr pull"
ctr_ images tag "127.0.0.1:$REG_PORT/$IMAGE" "$FULL" >/dev/null || fail "ctr tag"
ctr_ images rm "127.0.0.1:$REG_PORT/$IMAGE" >/dev/null || fail "ctr rm"

# 2. On the node, registry unreachable, Longhorn's default policy: WARN with the image's id.
check
expect WARN "ev['on_node']['result'] == 'present' and ev['on_node']['id'].startswith('sha256:') \
and '$FULL' in ev['on_node']['repo_tags'] and 'already has it' in f['message'] \
and 'cannot be pulled' in f['message'] and 'Make the image pullable' in f['remediation']" \
	"preloaded, no registry"
check if-not-present
expect WARN "'probe targets' in ev['pull_policy_source']" "preloaded, policy if-not-present"

# 3. Policy always: the pull is needed all the same.
check always
expect FAIL "ev['on_node']['result'] == 'present' and ev['pull_policy'] == 'always' and 'pull policy is always' in f['message']" \
	"preloaded, policy always"

# 4. Policy never: only the image on the node counts.
check never
expect PASS "'pull policy is never' in f['message']" "preloaded, policy never"

# 5. The registry reachable again: PASS from the registry, the image noted.
HVREADY_TEST_DEFAULT_ENDPOINT="docker.io=http://127.0.0.1:$REG_PORT" check
expect PASS "ev['on_node']['result'] == 'present' and 'can be pulled from' in f['message']" \
	"preloaded, registry reachable"

# 5b. RKE2's container-runtime-endpoint names another containerd: that one is asked
# (the same socket, hard-linked where the option points).
OTHER_ROOT="$WORK/other"
mkdir -p "$OTHER_ROOT/etc/rancher/rke2" "$OTHER_ROOT/run/other"
printf 'container-runtime-endpoint: unix:///run/other/containerd.sock\n' >"$OTHER_ROOT/etc/rancher/rke2/config.yaml"
ln "$SOCK" "$OTHER_ROOT/run/other/containerd.sock" || fail "cannot link the socket"
CHECK_ROOT=$OTHER_ROOT check never
expect PASS "ev['on_node']['socket'] == '/run/other/containerd.sock'" \
	"RKE2 container-runtime-endpoint"

# 6. Removed from the node, policy never: FAIL.
ctr_ images rm "$FULL" >/dev/null || fail "ctr rm"
check never
expect FAIL "ev['on_node']['result'] == 'absent' and 'not on this node' in f['message']" \
	"absent, policy never"

# 7. A socket that accepts and never answers: bounded by --timeout, said.
HOLD_ROOT="$WORK/hold"
mkdir -p "$HOLD_ROOT/etc/rancher/rke2" "$HOLD_ROOT/run/k3s/containerd"
"$PYTHON" -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(4)
held = []
while True:
    c, _ = s.accept(); held.append(c)' "$HOLD_ROOT/run/k3s/containerd/containerd.sock" &
HOLD_PID=$!
for _ in $(seq 1 50); do
	[ -S "$HOLD_ROOT/run/k3s/containerd/containerd.sock" ] && break
	sleep 0.1
done
CHECK_ROOT=$HOLD_ROOT check
expect FAIL "ev['on_node']['result'] == 'not asked' and 'imed out' in ev['on_node']['detail']" \
	"a socket that never answers"
[ "$TOOK" -le 20 ] || fail "the check took ${TOOK}s with a silent socket (timeout 2 s)"
CHECK_ROOT=$HOLD_ROOT check never
expect UNKNOWN "'cannot tell whether' in f['message']" "a silent socket, policy never"

# 8. No runtime socket at all: said, the registry's verdict stands.
NONE_ROOT="$WORK/none"
mkdir -p "$NONE_ROOT/etc/rancher/rke2"
CHECK_ROOT=$NONE_ROOT check
expect FAIL "ev['on_node']['result'] == 'not asked' and 'no containerd socket at /run/k3s/containerd/containerd.sock' in ev['on_node']['detail']" \
	"no containerd socket"
echo PASS
