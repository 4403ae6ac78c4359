#!/usr/bin/env bash
# ctest: serial
# host.image.share-manager against real registries on loopback: Debian's
# docker-registry (plain HTTP and TLS with a test CA), a Bearer-token front,
# RKE2 registries.yaml mirrors with rewrites, and the default endpoint made
# unreachable so that Docker Hub is never contacted.
set -euo pipefail
: "${HVREADY_SRC:?}" "${HVREADY_BIN:?}"
. "$HVREADY_SRC/tests/integration/lib/registry.sh"

WORK=$(mktemp -d /tmp/hvready-it-image.XXXXXX)
cleanup() {
	set +e
	registry_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

# No proxy from the test environment, and docker.io's default endpoint on a closed
# loopback port: nothing here may leave 127.0.0.1.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy no_proxy NO_PROXY
CLOSED=$(free_port)
export HVREADY_TEST_DEFAULT_ENDPOINT="docker.io=http://127.0.0.1:$CLOSED"
IMAGE=longhornio/longhorn-share-manager
TAG=v1.11.2

# fail (tests/tools/test_lib.sh) shows the tails of $WORK's logs and of the agent's output.
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
TMP=$WORK
FAIL_TAIL=40
FAIL_GLOB="$WORK/out.json"

# new_root NAME: a host root that looks like an RKE2 node.
new_root() {
	local r="$WORK/roots/$1"
	mkdir -p "$r/etc/rancher/rke2" "$r/var/lib/rancher/rke2/agent/etc/containerd" "$r/usr/local/bin"
	: >"$r/usr/local/bin/rke2"
	echo "$1" >"$r/etc/hostname"
	echo "$r"
}

# mirror ENDPOINT...: ROOT's registries.yaml mirrors docker.io to these
# endpoints; a case appends the rest (rewrite, configs) with cat >>.
mirror() {
	local list
	list=$(printf '"%s", ' "$@")
	printf 'mirrors:\n  docker.io:\n    endpoint: [%s]\n' "${list%, }" >"$ROOT/etc/rancher/rke2/registries.yaml"
}

# run_check ROOT IMAGE: the agent's check, JSON in $WORK/out.json; RC is its exit code.
run_check() {
	local root=$1 image=$2
	printf '{"share_manager_image": "%s"}\n' "$image" >"$WORK/targets.json"
	set +e
	timeout 60 "$HVREADY_BIN/hvready-agent" check --host-root "$root" --only host.image.share-manager \
		--probe-targets "$WORK/targets.json" --timeout "${CHECK_TIMEOUT:-5}" --format json \
		--output "$WORK/out.json"
	RC=$?
	set -e
}

# get EXPR: a Python expression over f (the finding) and ev (its evidence).
get() {
	"$PYTHON" - "$WORK/out.json" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
f = [x for x in doc["results"] if x["check"] == "host.image.share-manager"][0]
ev = f["evidence"]
v = eval(sys.argv[2])
print(v if not isinstance(v, (dict, list)) else json.dumps(v))
PY
}

expect() { # STATUS RC
	local st
	st=$(get 'f["status"]')
	[ "$st" = "$1" ] || fail "expected $1, got $st: $(get 'f["message"]')"
	[ "$RC" = "$2" ] || fail "expected exit code $2, got $RC"
	echo "   got $st: $(get 'f["message"]')"
}

contains() { # TEXT NEEDLE WHAT
	case "$1" in
	*"$2"*) ;;
	*) fail "$3 does not contain \"$2\": $1" ;;
	esac
}

# ---- a plain-HTTP registry with the image ----
REG="$WORK/reg"
PORT=$(free_port)
start_registry "$REG" "$PORT" || fail "docker-registry did not start"
BASE="http://127.0.0.1:$PORT"
DIGEST=$(push_image "$BASE" "$IMAGE" "$TAG") || fail "push to $BASE failed"
MDIGEST=$(push_image "$BASE" "mirror/$IMAGE" "$TAG") || fail "push of the mirror copy failed"
echo "registry on $PORT, $IMAGE:$TAG = $DIGEST"

# 1. The image on a registry of its own: its default endpoint (http: localhost with a port).
ROOT=$(new_root direct)
run_check "$ROOT" "127.0.0.1:$PORT/$IMAGE:$TAG"
expect PASS 0
[ "$(get 'ev["endpoints"][0]["digest"]')" = "$DIGEST" ] || fail "digest not reported"
[ "$(get 'ev["endpoints"][0]["media_type"]')" = "application/vnd.oci.image.manifest.v1+json" ] ||
	fail "media type not reported"
[ "$(get 'ev["endpoints"][0]["api_status"]')" = "200" ] || fail "GET /v2/ status not reported"
contains "$(get 'f["message"]')" "$BASE/v2" "message"
echo "ok 1 - direct pull: PASS with digest"

# 2. An unknown tag: 404 on the only endpoint.
run_check "$ROOT" "127.0.0.1:$PORT/$IMAGE:v0.0.0-missing"
expect FAIL 1
contains "$(get 'f["message"]')" "404 manifest unknown" "message"
[ "$(get 'ev["endpoints"][0]["manifest_status"]')" = "404" ] || fail "404 not in evidence"
contains "$(get 'f["remediation"]')" "does not have" "remediation"
echo "ok 2 - unknown tag: FAIL with 404"

# 3. docker.io through a mirror with a rewrite; the default endpoint is closed and
#    must not be needed (the mirror answers first).
ROOT=$(new_root mirror)
cat >"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
mirrors:
  docker.io:
    endpoint:
      - "http://127.0.0.1:$PORT"
    rewrite:
      "^longhornio/(.*)": "mirror/longhornio/\$1"
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect PASS 0
[ "$(get 'ev["endpoints"][0]["repository"]')" = "mirror/$IMAGE" ] || fail "rewrite not applied"
[ "$(get 'ev["endpoints"][0]["digest"]')" = "$MDIGEST" ] || fail "mirror digest not reported"
[ "$(get 'len(ev["endpoints"])')" = "1" ] || fail "the default endpoint was tried after a hit"
contains "$(get 'ev["endpoints"][0]["manifest_url"]')" "?ns=docker.io" "manifest URL"
echo "ok 3 - docker.io via mirror + rewrite: PASS, default endpoint untouched"

# 4. The mirror lacks the rewritten name and the default endpoint is unreachable: FAIL naming both.
mirror "http://127.0.0.1:$PORT"
cat >>"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
    rewrite: {"^longhornio/(.*)": "elsewhere/\$1"}
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect FAIL 1
MSG=$(get 'f["message"]')
contains "$MSG" "tried 2 endpoints" "message"
contains "$MSG" "127.0.0.1:$PORT/v2 (404 manifest unknown for elsewhere/longhorn-share-manager)" "message"
contains "$(get 'f["remediation"]')" "Push $IMAGE:$TAG to the mirror" "remediation"
contains "$MSG" "127.0.0.1:$CLOSED/v2" "message"
[ "$(get 'ev["endpoints"][1]["result"]')" = "unreachable" ] || fail "default not unreachable"
[ "$(get 'ev["endpoints"][1]["repository"]')" = "$IMAGE" ] || fail "rewrite applied to the default endpoint"
echo "ok 4 - mirror 404 + unreachable default: FAIL listing both"

# 5. Air-gapped node without any mirror: the remediation suggests one.
ROOT=$(new_root airgap)
run_check "$ROOT" "$IMAGE:$TAG"
expect FAIL 1
contains "$(get 'f["remediation"]')" "mirrors: {\"docker.io\"" "remediation"
contains "$(get 'f["remediation"]')" "/etc/rancher/rke2/registries.yaml" "remediation"
echo "ok 5 - no mirror, unreachable docker.io: FAIL suggesting a registries.yaml mirror"

# 5b. A mirror that accepts connections and never answers: bounded by --timeout.
HOLE="$WORK/hole"
mkdir -p "$HOLE"
start_black_hole "$HOLE" || fail "black-hole listener did not start"
ROOT=$(new_root hole)
mirror "http://127.0.0.1:$HOLE_PORT"
T0=$(date +%s)
CHECK_TIMEOUT=2 run_check "$ROOT" "$IMAGE:$TAG"
T1=$(date +%s)
expect FAIL 1
[ "$(get 'ev["endpoints"][0]["result"]')" = "timeout" ] || fail "not reported as a timeout"
contains "$(get 'f["message"]')" "no answer within 2s" "message"
[ $((T1 - T0)) -lt 15 ] || fail "the check took $((T1 - T0))s with --timeout 2"
echo "ok 5b - a silent mirror: FAIL with a timeout, bounded ($((T1 - T0))s)"

# 6. A dead mirror first, then the default endpoint (moved to the registry) has the image:
#    it works through the fallback, with a warning; rewrites do not apply to the default.
ROOT=$(new_root fallback)
mirror "http://127.0.0.1:$CLOSED" "127.0.0.1:$PORT/v2/nothing-here"
cat >>"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
    rewrite: {"^longhornio/(.*)": "mirror/longhornio/\$1"}
YAML
HVREADY_TEST_DEFAULT_ENDPOINT="docker.io=http://127.0.0.1:$PORT" run_check "$ROOT" "$IMAGE:$TAG"
expect WARN 0
[ "$(get 'len(ev["endpoints"])')" = "3" ] || fail "expected 3 endpoints tried"
[ "$(get 'ev["endpoints"][1]["endpoint"]')" = "http://127.0.0.1:$PORT/v2/nothing-here" ] ||
	fail "override path not kept"
[ "$(get 'ev["endpoints"][2]["repository"]')" = "$IMAGE" ] || fail "rewrite applied to default"
[ "$(get 'ev["endpoints"][2]["digest"]')" = "$DIGEST" ] || fail "default endpoint digest"
echo "ok 6 - dead mirror, default endpoint works: WARN, endpoint order and paths as containerd's"

# 7. disable-default-registry-endpoint: only the mirror is tried.
cat >"$ROOT/etc/rancher/rke2/config.yaml" <<YAML
disable-default-registry-endpoint: true
YAML
mirror "http://127.0.0.1:$PORT"
HVREADY_TEST_DEFAULT_ENDPOINT="docker.io=http://127.0.0.1:$PORT" run_check "$ROOT" "$IMAGE:v9.9.9"
expect FAIL 1
[ "$(get 'len(ev["endpoints"])')" = "1" ] || fail "the default endpoint was tried"
contains "$(get 'f["remediation"]')" "disable-default-registry-endpoint" "remediation"
echo "ok 7 - disable-default-registry-endpoint: no fallback"

# ---- Bearer token flow ----
FRONT="$WORK/front"
mkdir -p "$FRONT"
start_token_front "$BASE" "$FRONT" || fail "token front did not start"
ROOT=$(new_root token)
cat >"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
mirrors:
  "*":
    endpoint: ["http://127.0.0.1:$FRONT_PORT"]
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect PASS 0
[ "$(get 'ev["endpoints"][0]["api_status"]')" = "401" ] || fail "no 401 from the front's /v2/"
contains "$(get 'ev["endpoints"][0]["auth"]')" "bearer token (anonymous) from http://127.0.0.1:$FRONT_PORT/token" "auth"
[ "$(get 'ev["mirror"]')" = "*" ] || fail "wildcard mirror not used"
[ "$(get 'ev["endpoints"][0]["digest"]')" = "$DIGEST" ] || fail "digest through the front"
grep -q "GET /token?service=hvready-test-registry&scope=repository%3A${IMAGE//\//%2F}%3Apull" "$FRONT/front.log" ||
	grep -q "GET /token?service=hvready-test-registry&scope=repository:${IMAGE}:pull" "$FRONT/front.log" ||
	fail "no token request with the repository scope: $(cat "$FRONT/front.log")"
echo "ok 8 - 401 + Bearer token flow (wildcard mirror): PASS"

# 9. A token server that wants credentials: without them FAIL (unauthorized), with them PASS.
FRONT2="$WORK/front2"
mkdir -p "$FRONT2"
start_token_front "$BASE" "$FRONT2" puller 's3cret:pass' || fail "second token front did not start"
CRED_PORT=$FRONT_PORT
mirror "http://127.0.0.1:$CRED_PORT"
run_check "$ROOT" "$IMAGE:$TAG"
expect FAIL 1
[ "$(get 'ev["endpoints"][0]["result"]')" = "unauthorized" ] || fail "not reported as unauthorized"
contains "$(get 'f["remediation"]')" "auth" "remediation"
cat >>"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
configs:
  "127.0.0.1:$CRED_PORT":
    auth:
      username: puller
      password: "s3cret:pass"
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect PASS 0
contains "$(get 'ev["endpoints"][0]["auth"]')" "with credentials" "auth"
echo "ok 9 - token server with Basic credentials from registries.yaml configs: FAIL without, PASS with"

# 9b. An identity token (OAuth2 refresh token), as registries.yaml's auth.identitytoken.
FRONT3="$WORK/front3"
mkdir -p "$FRONT3"
start_token_front "$BASE" "$FRONT3" --refresh-token 'rt-0123456789' || fail "third token front did not start"
mirror "http://127.0.0.1:$FRONT_PORT"
cat >>"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
configs:
  "127.0.0.1:$FRONT_PORT":
    auth: {identitytoken: "rt-0123456789"}
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect PASS 0
contains "$(get 'ev["endpoints"][0]["auth"]')" "identity token" "auth"
sed -i 's/rt-0123456789/rt-wrong/' "$ROOT/etc/rancher/rke2/registries.yaml"
run_check "$ROOT" "$IMAGE:$TAG"
expect FAIL 1
contains "$(get 'ev["endpoints"][0]["detail"]')" "answered 401 to the identity token" "detail"
echo "ok 9b - identity token (OAuth2 POST): PASS, and FAIL with a wrong one"

# ---- real TLS ----
TLS="$WORK/tls"
mkdir -p "$TLS"
make_ca "$TLS" || fail "openssl could not make the test CA"
TPORT=$(free_port)
start_registry "$TLS" "$TPORT" "$TLS/server.pem" "$TLS/server.key" || fail "TLS registry did not start"
TDIGEST=$(push_image "https://127.0.0.1:$TPORT" "$IMAGE" "$TAG" --cacert "$TLS/ca.pem") ||
	fail "push to the TLS registry failed"
ROOT=$(new_root tls)
mkdir -p "$ROOT/etc/pki/site"
cp "$TLS/ca.pem" "$ROOT/etc/pki/site/registry-ca.pem"
mirror "https://127.0.0.1:$TPORT"
cat >>"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
configs:
  "127.0.0.1:$TPORT":
    tls:
      ca_file: /etc/pki/site/registry-ca.pem
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect PASS 0
[ "$(get 'ev["endpoints"][0]["digest"]')" = "$TDIGEST" ] || fail "TLS digest"
[ "$(get 'ev["endpoints"][0]["ca_file"]')" = "/etc/pki/site/registry-ca.pem" ] || fail "ca_file not in evidence"
echo "ok 10 - TLS with the CA from registries.yaml: PASS"

# 11. Same registry without the CA: verification stays on and fails.
mirror "https://127.0.0.1:$TPORT"
run_check "$ROOT" "$IMAGE:$TAG"
expect FAIL 1
[ "$(get 'ev["endpoints"][0]["result"]')" = "TLS error" ] || fail "not a TLS error"
contains "$(get 'ev["endpoints"][0]["detail"]')" "certificate" "TLS detail"
contains "$(get 'f["remediation"]')" "tls.ca_file" "remediation"
echo "ok 11 - TLS without the CA: FAIL with a certificate verification error"

# 11b. insecure_skip_verify: containerd skips verification there, and so does the check (saying so).
mirror "https://127.0.0.1:$TPORT"
cat >>"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
configs:
  "127.0.0.1:$TPORT":
    tls:
      insecure_skip_verify: true
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect PASS 0
contains "$(get 'f["message"]')" "TLS not verified: insecure_skip_verify" "message"
echo "ok 11b - insecure_skip_verify: PASS, reported"

# 12. A ca_file that does not exist: that endpoint cannot be used (as in containerd).
mirror "https://127.0.0.1:$TPORT"
cat >>"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
configs:
  "127.0.0.1:$TPORT":
    tls: {ca_file: /etc/pki/site/missing.pem}
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect FAIL 1
contains "$(get 'ev["endpoints"][0]["detail"]')" "cannot read ca_file /etc/pki/site/missing.pem" "detail"
echo "ok 12 - missing ca_file: FAIL naming it"

# 13. A broken registries.yaml: UNKNOWN naming the file and line.
printf 'mirrors:\n  docker.io:\n    endpoint: "https://not-a-list"\n' >"$ROOT/etc/rancher/rke2/registries.yaml"
run_check "$ROOT" "$IMAGE:$TAG"
expect UNKNOWN 3
contains "$(get 'f["message"]')" "/etc/rancher/rke2/registries.yaml:3" "message"
echo "ok 13 - broken registries.yaml: UNKNOWN with file:line"

# 14. A registry with Basic authentication (htpasswd) over TLS: 401 with a Basic challenge;
#     registries.yaml's auth (the base64 "auth" form) answers it.
BAS="$WORK/basic"
mkdir -p "$BAS"
make_htpasswd "$BAS/htpasswd" puller 'pa ss' || fail "cannot make a bcrypt htpasswd"
BPORT=$(free_port)
start_registry "$BAS" "$BPORT" "$TLS/server.pem" "$TLS/server.key" "$BAS/htpasswd" ||
	fail "registry with htpasswd did not start"
push_image "https://127.0.0.1:$BPORT" "$IMAGE" "$TAG" --cacert "$TLS/ca.pem" -u 'puller:pa ss' >/dev/null ||
	fail "push to the htpasswd registry failed"
mirror "https://127.0.0.1:$BPORT"
cat >>"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
configs:
  "127.0.0.1:$BPORT":
    tls: {ca_file: /etc/pki/site/registry-ca.pem}
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect FAIL 1
contains "$(get 'ev["endpoints"][0]["detail"]')" "requires credentials (Basic realm" "detail"
cat >>"$ROOT/etc/rancher/rke2/registries.yaml" <<YAML
    auth: {auth: "$(printf 'puller:pa ss' | base64)"}
YAML
run_check "$ROOT" "$IMAGE:$TAG"
expect PASS 0
[ "$(get 'ev["endpoints"][0]["auth"]')" = "basic" ] || fail "Basic credentials not used"
echo "ok 14 - Basic authentication with registries.yaml auth: FAIL without, PASS with"

# 15. RKE2 installed by the RPM method (/usr/bin/rke2) or into /opt/rke2 (a read-only
#     /usr/local), never configured nor started: still RKE2, whose registries.yaml
#     path the remedy names (agent/k8s_distro.h).
for bin in usr/bin/rke2 opt/rke2/bin/rke2; do
	ROOT="$WORK/roots/rpm-${bin//\//-}"
	mkdir -p "$ROOT/$(dirname "$bin")"
	: >"$ROOT/$bin"
	run_check "$ROOT" "$IMAGE:$TAG"
	[ "$(get 'ev["runtime"]')" = "RKE2" ] || fail "/$bin: runtime read as $(get 'ev["runtime"]')"
done
echo "ok 15 - RKE2 from the RPM or under /opt/rke2: recognised as RKE2"

echo "all image share-manager checks passed"
