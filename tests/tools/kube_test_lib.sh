# Shared by the integration tests of the aggregator's API client (sourced):
# a test PKI, the fake kube-apiserver, kubeconfigs and findings comparison.
# The sourcing test calls test_init (test_lib.sh: TMP, a fresh directory, and
# the EXIT trap, which calls kt_cleanup); a test with an EXIT trap of its own
# sets TMP and calls kt_cleanup from it.

[ -n "${HVREADY_KUBE_TEST_LIB:-}" ] && return 0
HVREADY_KUBE_TEST_LIB=1

# shellcheck source=test_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

KT_PIDS=()
PY=${PYTHON:-python3}
AGG="$HVREADY_BIN/hvready-aggregator"
FAKE="$HVREADY_SRC/tests/tools/fake_apiserver.py"
FIXTURES="$HVREADY_SRC/tests/fixtures/cluster/source"

# Tests talk to loopback only: a proxy from the environment must not apply
# (also for tests that do not call test_init).
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

kt_cleanup() {
	stop_all ${KT_PIDS[@]+"${KT_PIDS[@]}"}
	KT_PIDS=()
}

# The tests of this library name it kt_fail; it is test_lib.sh's fail.
kt_fail() { fail "$@"; }

# kt_pki DIR: a server CA and a server certificate for 127.0.0.1 and
# kubernetes.default.svc (not for localhost or 127.0.0.2: the tls-server-name
# test relies on that), a client CA with an admin certificate as RKE2 issues
# it, and an unrelated CA that must not be trusted.
kt_pki() {
	local d=$1
	mkdir -p "$d"
	(
		cd "$d"
		ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
		openssl req -x509 $ec -keyout server-ca.key -out server-ca.crt -days 3650 \
			-subj "/CN=rke2-server-ca@1788614444" 2>/dev/null
		openssl req $ec -keyout server.key -out server.csr -subj "/CN=kube-apiserver" 2>/dev/null
		printf 'subjectAltName=IP:127.0.0.1,DNS:kubernetes.default.svc,DNS:kubernetes\nextendedKeyUsage=serverAuth\n' >server.ext
		openssl x509 -req -in server.csr -CA server-ca.crt -CAkey server-ca.key -CAcreateserial \
			-out server.crt -days 3650 -extfile server.ext 2>/dev/null
		openssl req -x509 $ec -keyout client-ca.key -out client-ca.crt -days 3650 \
			-subj "/CN=rke2-client-ca@1788614444" 2>/dev/null
		openssl req $ec -keyout client.key -out client.csr -subj "/O=system:masters/CN=system:admin" 2>/dev/null
		printf 'extendedKeyUsage=clientAuth\n' >client.ext
		openssl x509 -req -in client.csr -CA client-ca.crt -CAkey client-ca.key -CAcreateserial \
			-out client.crt -days 3650 -extfile client.ext 2>/dev/null
		openssl req -x509 $ec -keyout other-ca.key -out other-ca.crt -days 3650 \
			-subj "/CN=some-other-ca" 2>/dev/null
	) || kt_fail "cannot create the test PKI with openssl"
	[ -s "$d/server.crt" ] && [ -s "$d/client.crt" ] || kt_fail "openssl made no certificates"
}

# kt_fake NAME ARGS...: start the fake apiserver (TLS from $TMP/pki); sets
# FAKE_PORT. Its log is $TMP/NAME.log (one JSON line per request).
kt_fake() {
	local name=$1
	shift
	local out="$TMP/$name.port"
	: >"$out"
	rm -f "$TMP/$name.log"
	"$PY" "$FAKE" --cert "$TMP/pki/server.crt" --key "$TMP/pki/server.key" \
		--log "$TMP/$name.log" "$@" >"$out" 2>"$TMP/$name.err" &
	local pid=$!
	KT_PIDS+=("$pid")
	local i
	for i in $(seq 1 100); do
		if [ -s "$out" ]; then
			FAKE_PORT=$(head -n1 "$out")
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TMP/$name.err" >&2
	kt_fail "the fake apiserver $name did not start"
}

# kt_review_api [FAKE OPTIONS...]: the fake API server "api" (the harvester
# fixtures; the token admin-token required) answering TokenReviews as
# $TMP/reviews.json says, and $TMP/kc/config, an inline-token kubeconfig for it
# (the aggregator's --kubeconfig). The PKI (kt_pki "$TMP/pki") comes first.
kt_review_api() {
	kt_fake api --fixtures "$FIXTURES/harvester" --token admin-token --require-auth \
		--tokenreview "$TMP/reviews.json" "$@"
	mkdir -p "$TMP/kc"
	kt_kubeconfig "$TMP/kc/config" "https://127.0.0.1:$FAKE_PORT" inline-token admin-token
}

b64() { base64 -w0 <"$1"; }

# kt_kubeconfig FILE SERVER MODE [TOKEN]: MODE is
#   inline-token   CA data + token
#   inline-cert    CA data + client cert/key data (as RKE2's rke2.yaml)
#   files-cert     relative paths to CA, client cert and key next to FILE
#   token-file     CA path + tokenFile
#   none           CA data, no user credentials
kt_kubeconfig() {
	local f=$1 server=$2 mode=$3 token=${4:-}
	local dir
	dir=$(dirname "$f")
	local cluster user
	case $mode in
	files-cert | token-file)
		cp "$TMP/pki/server-ca.crt" "$dir/ca.crt"
		cluster="    certificate-authority: ca.crt"
		;;
	*) cluster="    certificate-authority-data: $(b64 "$TMP/pki/server-ca.crt")" ;;
	esac
	case $mode in
	inline-token) user="    token: $token" ;;
	inline-cert) user="    client-certificate-data: $(b64 "$TMP/pki/client.crt")
    client-key-data: $(b64 "$TMP/pki/client.key")" ;;
	files-cert)
		mkdir -p "$dir/certs"
		cp "$TMP/pki/client.crt" "$TMP/pki/client.key" "$dir/certs/"
		user="    client-certificate: certs/client.crt
    client-key: certs/client.key"
		;;
	token-file)
		printf '%s\n' "$token" >"$dir/token"
		user="    tokenFile: token"
		;;
	none) user="    {}" ;;
	esac
	cat >"$f" <<EOF
apiVersion: v1
clusters:
- cluster:
$cluster
    server: $server
  name: default
contexts:
- context:
    cluster: default
    user: default
  name: default
current-context: default
kind: Config
preferences: {}
users:
- name: default
  user:
$user
EOF
}

# kt_findings REPORT.json: one line per finding, sorted: check, status,
# object, node, message. api.harvester.endpoint is left out: it runs only
# live (docs/checks/api.harvester.endpoint.md) and so differs between live and offline by design.
kt_findings() {
	"$PY" - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
rows = []
for f in r["findings"]:
    if f["check"] == "api.harvester.endpoint":
        continue
    rows.append("\t".join([f["check"], f["status"], f.get("object") or "", f.get("node") or "",
                           f.get("message") or ""]))
print("\n".join(sorted(rows)))
EOF
}

# kt_same A.json B.json WHAT: the two reports have the same findings.
kt_same() {
	# the reference side is usually the same file: read it once
	[ "$1.findings" -nt "$1" ] || kt_findings "$1" >"$1.findings" || kt_fail "$3: cannot read $1"
	kt_findings "$2" >"$2.findings" || kt_fail "$3: cannot read $2"
	[ -s "$1.findings" ] || kt_fail "$3: no findings in $1"
	if ! diff -u "$1.findings" "$2.findings" >&2; then
		kt_fail "$3: findings differ"
	fi
}

# kt_finding REPORT.json CHECK: "STATUS<TAB>message" of the check's first finding.
kt_finding() {
	"$PY" - "$1" "$2" <<'EOF'
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["check"] == sys.argv[2]:
        print(f["status"] + "\t" + f["message"])
        break
EOF
}

# kt_requests NAME RESOURCE [STATUS]: how many requests the fake answered for
# RESOURCE (with that status).
kt_requests() {
	"$PY" - "$TMP/$1.log" "$2" "${3:-}" <<'EOF'
import json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["resource"] == sys.argv[2] and (not sys.argv[3] or str(e["status"]) == sys.argv[3]):
        n += 1
print(n)
EOF
}

# kt_same_state WANT_DIR GOT_DIR WHAT [any-order]: every resource file of
# WANT_DIR (a fixture) holds the same objects (in any order) as GOT_DIR's, and
# every item in GOT_DIR begins with apiVersion and kind, as collect writes
# them (kubectl sorts keys instead: any-order).
kt_same_state() {
	"$PY" - "$1" "$2" "$3" "${4:-}" <<'EOF'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["HVREADY_SRC"], "tests/tools"))
from fake_apiserver import NOT_COLLECTED, RESOURCES
want_dir, got_dir, what, any_order = sys.argv[1:5]
bad = []
for group, _, plural, *_ in RESOURCES:
    if plural + ("." + group if group else "") in NOT_COLLECTED:
        continue
    fn = plural + ("." + group if group else "") + ".json"
    w, g = os.path.join(want_dir, fn), os.path.join(got_dir, fn)
    if not os.path.exists(w):
        continue
    if not os.path.exists(g):
        bad.append("%s: missing from %s" % (fn, got_dir))
        continue
    got = json.load(open(g))
    if got.get("kind") != "List" or got.get("apiVersion") != "v1":
        bad.append("%s: not a v1 List" % fn)
    for it in got["items"]:
        if not isinstance(it.get("apiVersion"), str) or not isinstance(it.get("kind"), str):
            bad.append("%s: an item lacks apiVersion or kind" % fn)
        elif not any_order and list(it)[:2] != ["apiVersion", "kind"]:
            bad.append("%s: item %s does not begin with apiVersion, kind"
                       % (fn, it.get("metadata", {}).get("name")))
    canon = lambda items: sorted(json.dumps(i, sort_keys=True) for i in items)
    if canon(json.load(open(w))["items"]) != canon(got["items"]):
        bad.append("%s: objects differ" % fn)
if bad:
    print("FAIL: %s:\n  %s" % (what, "\n  ".join(bad)), file=sys.stderr)
    sys.exit(1)
EOF
}

# kt_collect_status DIR RESOURCE: the resource's status in DIR/collect.json.
kt_collect_status() {
	"$PY" - "$1/collect.json" "$2" <<'EOF'
import json, sys
for e in json.load(open(sys.argv[1]))["resources"]:
    if e["plural"] + ("." + e["group"] if e["group"] else "") == sys.argv[2]:
        print(e["status"])
EOF
}

# kt_run_timeout SECONDS CMD...: run with a bound; prints nothing extra.
kt_run_timeout() {
	local t=$1
	shift
	timeout --kill-after=5 "$t" "$@"
}
