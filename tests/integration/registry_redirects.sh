#!/usr/bin/env bash
# host.image.share-manager and registry redirects, with real servers on
# loopback: a mirror that redirects the manifest to another host (127.0.0.2,
# a server that logs every request) is not followed there, and the evidence
# says so without what that host would have answered; one that redirects to
# 169.254.169.254 likewise; a redirect on the same host is followed and the
# image found. A mirror endpoint on a cloud metadata address is not contacted
# at all, unless the agent config allows link-local probes.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init

free_port() {
	python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1]); s.close()' "$1"
}
CLOSED=$(free_port 127.0.0.1)
export HVREADY_TEST_DEFAULT_ENDPOINT="docker.io=http://127.0.0.1:$CLOSED"

# server NAME HOST MODE [TARGET]: a redirect_registry.py; sets PORT.
server() {
	PORT=$(free_port "$2")
	python3 "$HVREADY_SRC/tests/tools/redirect_registry.py" "$2" "$PORT" "$tmp/$1.requests" "$3" ${4:+"$4"} \
		>"$tmp/$1.out" 2>"$tmp/$1.log" &
	pids+=($!)
	: >"$tmp/$1.requests"
	wait_for 10 "server $1 ready" grep -q ready "$tmp/$1.out"
}

ROOT=$tmp/root
mkdir -p "$ROOT/etc/rancher/rke2" "$ROOT/usr/local/bin" "$ROOT/var/lib/rancher/rke2/agent/etc/containerd"
: >"$ROOT/usr/local/bin/rke2"
echo node1 >"$ROOT/etc/hostname"
printf '{"share_manager_image": "longhornio/longhorn-share-manager:v1.11.2"}\n' >"$tmp/targets.json"

# check ENDPOINT [CONFIG]: the agent's check with docker.io mirrored to ENDPOINT.
check() {
	printf 'mirrors:\n  docker.io:\n    endpoint: ["%s"]\n' "$1" >"$ROOT/etc/rancher/rke2/registries.yaml"
	local cfg=()
	[ -n "${2:-}" ] && { printf '%s\n' "$2" >"$tmp/agent.yaml"; cfg=(--config "$tmp/agent.yaml"); }
	"$HVREADY_BIN/hvready-agent" check ${cfg[@]+"${cfg[@]}"} --host-root "$ROOT" \
		--only host.image.share-manager --probe-targets "$tmp/targets.json" --timeout 5 \
		--format json --output "$tmp/out.json" 2>"$tmp/agent.log" || true
	[ -s "$tmp/out.json" ] || fail "no report"
}
# mirror_detail: what the evidence says about the mirror endpoint's attempt.
mirror_detail() {
	python3 - "$tmp/out.json" <<'PY'
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["results"] if x["check"] == "host.image.share-manager"][0]
def walk(v):
    if isinstance(v, dict):
        if "endpoint" in v and "mirrors" in str(v.get("from", "")):
            print(v.get("result", ""), "|", v.get("detail", ""))
        for x in v.values():
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(f["evidence"])
PY
}

server sink 127.0.0.2 sink
SINK=$PORT
echo "== a redirect to another host is not followed"
server other 127.0.0.1 redirect "http://127.0.0.2:$SINK"
check "http://127.0.0.1:$PORT"
d=$(mirror_detail)
echo "   $d"
[ ! -s "$tmp/sink.requests" ] || fail "the agent followed the redirect to 127.0.0.2: $(cat "$tmp/sink.requests")"
grep -q manifests "$tmp/other.requests" || fail "the mirror was not asked for the manifest"
case $d in *"not followed"*) ;; *) fail "the evidence does not say the redirect was refused: $d" ;; esac
case $d in *refused*|*"Connection"*|*"Failed to connect"*) fail "the evidence reports how the redirect target answered: $d" ;; esac
st=$(python3 -c 'import json,sys; print([x for x in json.load(open(sys.argv[1]))["results"] if x["check"] == "host.image.share-manager"][0]["status"])' "$tmp/out.json")
[ "$st" = UNKNOWN ] || fail "a refused redirect leaves the pull open (containerd would follow it): got $st"

echo "== a redirect to the metadata service is not followed"
server meta 127.0.0.1 redirect "http://169.254.169.254"
check "http://127.0.0.1:$PORT"
d=$(mirror_detail)
echo "   $d"
case $d in "redirect not followed |"*"not followed"*) ;; *) fail "redirect to 169.254.169.254: $d" ;; esac

echo "== a redirect on the same host is followed"
server same 127.0.0.1 same
check "http://127.0.0.1:$PORT"
d=$(mirror_detail)
echo "   $d"
case $d in found*) ;; *) fail "the same-host redirect was not followed: $d" ;; esac
grep -q '/v2/alt/' "$tmp/same.requests" || fail "no request for the redirected path"

echo "== a mirror on a metadata address is not contacted"
check "http://169.254.169.254:$CLOSED"
d=$(mirror_detail)
echo "   $d"
case $d in *"link-local or cloud metadata"*) ;; *) fail "mirror on 169.254.169.254: $d" ;; esac
echo "== ... unless allowed (then the test network guard stops it instead)"
check "http://169.254.169.254:$CLOSED" "allow_link_local_probes: true"
d=$(mirror_detail)
echo "   $d"
case $d in *"link-local or cloud metadata"*) fail "allowed, but still refused: $d" ;; esac
echo "PASS"
