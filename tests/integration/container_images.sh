#!/usr/bin/env bash
# ctest: serial
# ctest: timeout 1800
# deploy/images/Containerfile.{agent,aggregator}, built for real with podman from
# this tree, on a debian:12-slim equivalent made from Debian's archive
# (scripts/base-image.sh: no image registry is reachable here), then run the
# way deploy/ runs them:
#  - the runtime images hold no compiler and no -dev package, every shared
#    library the binaries load resolves; the aggregator's runs as 65532, the
#    agent's as root (both from the image config and `id -u` inside);
#  - the agent with the host's / read-only at /host writes a hvready.node/v1
#    report, and sees this host as the host build's agent does;
#  - the aggregator under the Deployment's securityContext (--read-only,
#    --cap-drop=ALL, --user 65532, no-new-privileges) gives the offline verdict
#    on examples/cluster plus that node report, the same as the host build's;
#  - `serve` (TLS, loopback, a free port) in one container and the agent's
#    `run` in another: GET /v1/verdict shows the node reporting; both stop
#    cleanly on SIGTERM.
# Podman is confined to this test: storage, state and configuration live in its
# temporary directory (CONTAINERS_CONF, CONTAINERS_STORAGE_CONF), containers use
# the host network or none (no bridge, no iptables rule) and a cgroup parent of
# their own; everything is removed at the end, on failure too. The base image's
# root filesystem is cached for a day in $HVREADY_IMAGE_CACHE (default
# ~/.cache/hvready): `make check` builds the images in its plain and its ASan
# tree, and one bootstrap from the archive is enough for both.
set -euo pipefail
: "${HVREADY_SRC:?}" "${HVREADY_BIN:?}" "${HVREADY_BUILD:?}"
export LC_ALL=C

for tool in podman runc mmdebstrap openssl curl python3; do
	command -v "$tool" >/dev/null || {
		echo "FAIL: $tool is missing (scripts/install-deps.sh installs it)"
		exit 1
	}
done

tmp=$(mktemp -d /tmp/hvready-images.XXXXXX)
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
FAIL_TAIL=25
cgparent="/hvready-images-$$"
started=$SECONDS
timings=()

cleanup() {
	set +e
	if [ -f "$tmp/containers.conf" ]; then
		podman rm --all --force --time 0 >/dev/null 2>&1
		podman rmi --all --force >/dev/null 2>&1
	fi
	# What podman keeps mounted under its root (the overlay driver's home).
	awk -v t="$tmp/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m"; done
	for c in /sys/fs/cgroup/*"$cgparent" /sys/fs/cgroup/*/*"$cgparent"; do
		[ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

lap() { # lap NAME START: record how long a step took
	timings+=("$1 $((SECONDS - $2)) s")
}

# --- a podman of this test's own -----------------------------------------------
# runc, not crun: crun refuses hosts whose cgroup v2 hierarchy holds controllers
# next to v1 ("hybrid"), as these machines have. cgroupfs: systemd is not PID 1.
# Ulimits: podman's default (1048576 open files and processes) is above these
# machines' hard limits, which root cannot raise here (no CAP_SYS_RESOURCE);
# podman itself runs the runtime with RLIMIT_NPROC 32768.
hard() { # hard LIMIT CAP: the hard ulimit, at most CAP
	local v
	v=$(ulimit -H "$1")
	if [ "$v" = unlimited ] || [ "$v" -gt "$2" ]; then v=$2; fi
	echo "$v"
}
nofile=$(hard -n 1048576)
nproc=$(hard -u 32768)
mkdir -p "$tmp/podman/tmp" "$tmp/reports" "$tmp/agent" "$tmp/aggregator"
cat >"$tmp/storage.conf" <<EOF
[storage]
driver = "overlay"
runroot = "$tmp/podman/run"
graphroot = "$tmp/podman/root"
EOF
cat >"$tmp/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
cgroups = "no-conmon"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$tmp/podman/events.log"
tmp_dir = "$tmp/podman/libpod"
volume_path = "$tmp/podman/volumes"
[network]
network_config_dir = "$tmp/podman/networks"
EOF
printf '[registries.search]\nregistries = []\n' >"$tmp/registries.conf"
export CONTAINERS_CONF="$tmp/containers.conf" CONTAINERS_STORAGE_CONF="$tmp/storage.conf"
export CONTAINERS_REGISTRIES_CONF="$tmp/registries.conf" TMPDIR="$tmp/podman/tmp"
podman info --format '{{.Store.GraphDriverName}} {{.Host.OCIRuntime.Name}}' >"$tmp/info.log" 2>&1 ||
	fail "podman info"
echo "podman $(podman --version | awk '{print $3}'): $(cat "$tmp/info.log")"

# --- the base image and both builds ---------------------------------------------
base=localhost/hvready-base:bookworm
cache=${HVREADY_IMAGE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/hvready}
t=$SECONDS
bash "$HVREADY_SRC/scripts/base-image.sh" --tar "$cache/debian-bookworm-slim.tar" "$base" \
	>"$tmp/base.log" 2>&1 || fail "scripts/base-image.sh"
lap "base image ($(grep -q reusing "$tmp/base.log" && echo cached || echo bootstrapped))" "$t"
[ "$(podman run --rm --network=none --cgroup-parent="$cgparent" "$base" \
	sh -c '. /etc/os-release; echo "$ID $VERSION_ID"')" = "debian 12" ] || fail "the base image is not Debian 12"

# The two files share their build stage and runtime layer (see their header):
# an edit to one only would silently double the work of building both.
python3 - "$HVREADY_SRC/deploy/images" <<'PY' || fail "Containerfile.agent and .aggregator must be equal up to COPY --from"
import sys
def shared(name):
    text = open("%s/Containerfile.%s" % (sys.argv[1], name)).read()
    return text[text.index("ARG BASE="):text.index("COPY --from=build")]
assert shared("agent") == shared("aggregator")
PY

build() { # build agent|aggregator
	local t=$SECONDS
	# --network=host: apt reaches deb.debian.org without a bridge. --pull=never:
	# nothing may come from a registry. The build stages are identical in both
	# files, so the second build takes them from the layer cache.
	podman build --pull=never --network=host --cgroup-parent="$cgparent" --layers \
		--build-arg BASE="$base" -f "$HVREADY_SRC/deploy/images/Containerfile.$1" \
		-t "localhost/hvready-$1:test" "$HVREADY_SRC" >"$tmp/build-$1.log" 2>&1 ||
		fail "podman build -f deploy/images/Containerfile.$1"
	lap "build $1" "$t"
}
build agent
build aggregator
agent_img=localhost/hvready-agent:test
agg_img=localhost/hvready-aggregator:test
python3 - "$tmp/build-aggregator.log" <<'PY' || fail "the aggregator's build ran a step the agent's had run"
import sys
lines = open(sys.argv[1]).read().splitlines()
for i, l in enumerate(lines):
    if " STEP " in l and ": RUN " in l:
        assert i + 1 < len(lines) and lines[i + 1].startswith("--> Using cache"), l
PY

# --- what the runtime images hold --------------------------------------------------
in_image() { # in_image IMAGE CMD...: run a command in IMAGE, no network, as root
	local img=$1
	shift
	podman run --rm --network=none --cgroup-parent="$cgparent" --user 0:0 --entrypoint "$1" "$img" "${@:2}"
}
for img in "$agent_img" "$agg_img"; do
	bin=${img#localhost/}
	bin=/usr/bin/${bin%:test}
	in_image "$img" dpkg-query -W -f '${Package}\n' >"$tmp/pkgs" || fail "dpkg-query in $img"
	dev=$(grep -E -- '-dev$|^(gcc|gcc-12|cpp|cpp-12|g\+\+|make|cmake|binutils|pkgconf|pkg-config)$' "$tmp/pkgs" || true)
	[ -z "$dev" ] || fail "$img holds build packages: ${dev//$'\n'/ }"
	tools=$(in_image "$img" sh -c 'for t in cc gcc cpp c++ ld as make cmake pkg-config; do command -v $t; done; true')
	[ -z "$tools" ] || fail "$img holds build tools: ${tools//$'\n'/ }"
	in_image "$img" ldd "$bin" >"$tmp/ldd" || fail "ldd $bin in $img"
	! grep -q 'not found' "$tmp/ldd" || fail "$img: $(grep 'not found' "$tmp/ldd")"
	in_image "$img" "$bin" --version >"$tmp/version" || fail "$bin --version in $img"
	grep -q "^$(basename "$bin") " "$tmp/version" || fail "$bin --version printed: $(cat "$tmp/version")"
	other=$(in_image "$img" sh -c 'ls /usr/bin/hvready-*')
	[ "$other" = "$bin" ] || fail "$img holds ${other//$'\n'/ }, want $bin alone"
	echo "$img: $(wc -l <"$tmp/pkgs") packages, none for building; $(cat "$tmp/version")"
done
# The agent dlopen()s these on first use (agent/lazy_libs.c): ldd cannot see them.
for so in libcurl.so.4 libsystemd.so.0; do
	grep -q "$so " <<<"$(in_image "$agent_img" ldconfig -p)" || fail "$agent_img lacks $so (dlopen()ed by the agent)"
done

# Who the images run as: the image config, and id -u inside.
[ "$(podman image inspect --format '{{.Config.User}}' "$agg_img")" = 65532:65532 ] ||
	fail "$agg_img: image user is '$(podman image inspect --format '{{.Config.User}}' "$agg_img")', want 65532:65532"
[ "$(podman run --rm --network=none --cgroup-parent="$cgparent" --entrypoint id "$agg_img" -u)" = 65532 ] ||
	fail "$agg_img does not run as 65532"
if [ -n "$(podman image inspect --format '{{.Config.User}}' "$agent_img")" ] ||
	[ "$(podman run --rm --network=none --cgroup-parent="$cgparent" --entrypoint id "$agent_img" -u)" != 0 ]; then
	fail "$agent_img should run as root (it reads the host and opens /dev/kvm)"
fi
echo "users: aggregator 65532 (image config and id -u), agent root"

# --- the agent's image on this host ----------------------------------------------
# As the DaemonSet runs it: privileged, host PID, the host's / read-only at /host.
skip=host.nfs.probe,host.image.share-manager
agent_run() { # agent_run NAME ARGS...: the agent image as the DaemonSet runs it
	local name=$1
	shift
	podman run --name "$name" --cgroup-parent="$cgparent" --read-only --privileged --pid=host \
		-v /:/host:ro,rslave "$@"
}
t=$SECONDS
rc=0
agent_run hvready-test-check --rm --network=none -v "$tmp/reports:/reports" "$agent_img" \
	check --host-root /host --node harvester-node-1 --skip "$skip" --timeout 10 \
	--format msgpack --output /reports/harvester-node-1.msgpack 2>"$tmp/agent-check.log" || rc=$?
case $rc in 0 | 1 | 3) ;; *) fail "agent check in its image exited $rc" ;; esac
rc=0
agent_run hvready-test-check --rm --network=none "$agent_img" \
	check --host-root /host --node harvester-node-1 --skip "$skip" --timeout 10 \
	--format json >"$tmp/node-container.json" 2>>"$tmp/agent-check.log" || rc=$?
case $rc in 0 | 1 | 3) ;; *) fail "agent check --format json in its image exited $rc" ;; esac
lap "agent check in its image" "$t"
rc=0
"$HVREADY_BIN/hvready-agent" check --host-root / --node harvester-node-1 --skip "$skip" --timeout 10 \
	--format json >"$tmp/node-host.json" 2>"$tmp/agent-host.log" || rc=$?
case $rc in 0 | 1 | 3) ;; *) fail "the host build's agent check exited $rc" ;; esac
python3 - "$tmp/node-container.json" "$tmp/node-host.json" <<'PY' || fail "the agent's report in its image"
import json, sys
c = json.load(open(sys.argv[1]))
h = json.load(open(sys.argv[2]))
assert c["schema"] == "hvready.node/v1", c.get("schema")
assert c["node"] == "harvester-node-1", c["node"]
assert c["results"] and "facts" in c, "no results or facts"
for f in c["results"]:
    assert f["status"] in ("PASS", "WARN", "FAIL", "UNKNOWN", "SKIP"), f
cs = {f["check"]: f["status"] for f in c["results"]}
hs = {f["check"]: f["status"] for f in h["results"]}
assert set(cs) == set(hs), "checks differ: %s" % sorted(set(cs) ^ set(hs))
# Through /host the agent must see what it sees running on the host itself.
diff = {k: (cs[k], hs[k]) for k in cs if cs[k] != hs[k]}
assert not diff, "in the image vs on the host: %s" % diff
unknown = sorted(k for k, s in cs.items() if s == "UNKNOWN")
print("agent image: %d checks, same statuses as on the host (UNKNOWN here: %s)"
      % (len(cs), ", ".join(unknown) or "none"))
PY

# --- the aggregator's image, offline, as the Deployment confines it --------------
agg_confined=(--cgroup-parent="$cgparent" --read-only --cap-drop=ALL --user 65532:65532
	--security-opt=no-new-privileges)
t=$SECONDS
rc=0
podman run --rm --network=none "${agg_confined[@]}" \
	-v "$HVREADY_SRC/examples/cluster:/examples/cluster:ro" -v "$tmp/reports:/reports:ro" "$agg_img" \
	report --cluster-state /examples/cluster --node-reports /reports --format json \
	>"$tmp/verdict-container.json" 2>"$tmp/report.log" || rc=$?
lap "aggregator report in its image" "$t"
hrc=0
"$HVREADY_BIN/hvready-aggregator" report --cluster-state "$HVREADY_SRC/examples/cluster" \
	--node-reports "$tmp/reports" --format json >"$tmp/verdict-host.json" 2>"$tmp/report-host.log" || hrc=$?
[ "$rc" = "$hrc" ] || fail "aggregator report exits $rc in its image, $hrc on the host"
python3 - "$tmp/verdict-container.json" "$tmp/verdict-host.json" <<'PY' || fail "the aggregator's verdict in its image"
import json, sys
c = json.load(open(sys.argv[1]))
h = json.load(open(sys.argv[2]))
assert c["schema"] == "hvready.report/v1", c.get("schema")
assert set(c["gates"]) == {"preinstall", "platform", "rwx", "live-migration"}, list(c["gates"])
n = [x for x in c["nodes"] if x["name"] == "harvester-node-1"]
assert n and n[0]["reporting"], "the agent image's report is not in the verdict: %s" % c["nodes"]
key = lambda v: sorted((f["check"], f["status"], f.get("node", ""), f.get("object", "")) for f in v["findings"])
assert key(c) == key(h), "findings differ from the host build's"
assert {g: x["status"] for g, x in c["gates"].items()} == {g: x["status"] for g, x in h["gates"].items()}
print("aggregator image (read-only, no capabilities, uid 65532): %d findings, gates %s, same as the host build's"
      % (len(c["findings"]), ", ".join("%s %s" % (g, x["status"]) for g, x in c["gates"].items())))
PY

# --- live: serve in one container, the agent's run in another --------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=hvready test CA" \
	-keyout "$tmp/ca.key" -out "$tmp/agent/ca.crt" 2>/dev/null || fail "openssl CA"
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$tmp/aggregator/tls.key" \
	-out "$tmp/tls.csr" 2>/dev/null || fail "openssl CSR"
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$tmp/ext.cnf"
openssl x509 -req -in "$tmp/tls.csr" -CA "$tmp/agent/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial \
	-days 1 -extfile "$tmp/ext.cnf" -out "$tmp/aggregator/tls.crt" 2>/dev/null || fail "openssl sign"
head -c 32 /dev/urandom | base64 | tr -d '=+/' >"$tmp/agent/token"
cp "$tmp/agent/token" "$tmp/aggregator/token"
# The secrets belong to the user the aggregator runs as, readable by it alone.
chown 65532:65532 "$tmp/aggregator/tls.key" "$tmp/aggregator/token"
chmod 600 "$tmp/aggregator/tls.key" "$tmp/aggregator/token" "$tmp/agent/token"
chmod 755 "$tmp/aggregator" "$tmp/agent"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url="https://127.0.0.1:$port"
get() { curl -sf --max-time 5 --cacert "$tmp/agent/ca.crt" "$url$1"; }

t=$SECONDS
podman run -d --name hvready-test-aggregator --network=host "${agg_confined[@]}" \
	-v "$tmp/aggregator:/etc/hvready:ro" -v "$HVREADY_SRC/examples/cluster:/examples/cluster:ro" "$agg_img" \
	serve --listen "127.0.0.1:$port" --tls-cert /etc/hvready/tls.crt --tls-key /etc/hvready/tls.key \
	--token-file /etc/hvready/token --cluster-state /examples/cluster --interval 2 \
	>/dev/null 2>"$tmp/serve.log" || fail "podman run (aggregator serve)"
ok=""
for _ in $(seq 1 60); do
	get /readyz >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.5
done
[ -n "$ok" ] || { podman logs hvready-test-aggregator >"$tmp/serve.log" 2>&1; fail "the aggregator's container did not become ready on $url"; }
agent_run hvready-test-agent -d --network=host -v "$tmp/agent:/etc/hvready:ro" "$agent_img" \
	run --aggregator "$url" --ca-file /etc/hvready/ca.crt --token-file /etc/hvready/token \
	--host-root /host --node harvester-node-1 --interval 2 --timeout 5 --skip "$skip" \
	>/dev/null 2>"$tmp/run.log" || fail "podman run (agent run)"
ok=""
for _ in $(seq 1 90); do
	get /v1/nodes/harvester-node-1 >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.5
done
if [ -z "$ok" ]; then
	podman logs hvready-test-aggregator >"$tmp/serve.log" 2>&1
	podman logs hvready-test-agent >"$tmp/run.log" 2>&1
	fail "no report from the agent's container within 45 s"
fi
# The verdict is re-evaluated on its own schedule (rate-limited by the time an
# evaluation takes: slow on a loaded machine); wait for one that has the report.
check_live() {
	python3 - "$tmp/live.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["schema"] == "hvready.report/v1", v.get("schema")
n = [x for x in v["nodes"] if x["name"] == "harvester-node-1"]
assert n and n[0]["reporting"], v["nodes"]
assert [f for f in v["findings"] if f.get("node") == "harvester-node-1" and f["check"].startswith("host.")], \
    "no host finding of the reporting node"
PY
}
ok=""
for _ in $(seq 1 60); do
	get /v1/verdict >"$tmp/live.json" 2>/dev/null && check_live >"$tmp/live.log" 2>&1 && { ok=1; break; }
	sleep 1
done
[ -n "$ok" ] || fail "GET /v1/verdict did not show harvester-node-1 reporting within 60 s"
echo "live: the agent's container reports to the aggregator's over TLS; GET /v1/verdict shows harvester-node-1"
# SIGTERM (podman stop) ends both cleanly.
podman stop --time 10 hvready-test-agent hvready-test-aggregator >/dev/null 2>&1 || fail "podman stop"
for c in hvready-test-agent hvready-test-aggregator; do
	code=$(podman inspect --format '{{.State.ExitCode}}' "$c")
	[ "$code" = 0 ] || { podman logs "$c" >"$tmp/$c.log" 2>&1; fail "$c exited $code on SIGTERM"; }
done
lap "live pipeline in containers" "$t"
podman rm --all --force --time 0 >/dev/null 2>&1
left=$(pgrep -f "$tmp/" || true)
[ -z "$left" ] || fail "process(es) left behind: $(ps -o pid,args -p "${left//$'\n'/,}" | tail -n +2)"

for s in "${timings[@]}"; do echo "time: $s"; done
echo "time: total $((SECONDS - started)) s"
echo PASS
