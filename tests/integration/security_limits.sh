#!/usr/bin/env bash
# The security limits that no other test proves (docs/robustness.md):
# 1. TLS verification is on by default: an agent refuses the aggregator's
#    certificate without --ca-file, with the wrong CA and for a name the
#    certificate does not carry, and reports only with the right CA.
# 2. The aggregator refuses a --token-file or --tls-key that others can read.
# 3. No route changes state without a credential: every method on every path,
#    without a token or with a wrong one, leaves the node list and the
#    accepted-report counter unchanged and gets no 2xx for a write.
# 4. Secrets are never logged or echoed: after all of the above, and a
#    --tokenreview aggregator rejecting unknown tokens, neither the token
#    values nor the private key's material appear in any log or answer.
# The other limits have their tests: the API client's TLS (live_api.sh), the
# registry client's (image_share_manager.sh), report size and content limits
# (live_pipeline.sh, test_wire.c), slow clients (slowloris.sh).
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
AGENT="$HVREADY_BIN/hvready-agent"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
FAIL_TAIL=10
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
SECRET="s3cr3t-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
WRONG="wr0ng-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
ROOT="$HVREADY_SRC/tests/fixtures/hostroots/b-rhel9"
SKIP=host.image.share-manager,host.nfs.probe

# --- PKI: the aggregator's CA and certificate (127.0.0.1 only), another CA ---
mkca() { # name
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$1" \
		-keyout "$TMP/$1.key" -out "$TMP/$1.crt" 2>/dev/null
}
mkca hvready-ca
mkca other-ca
openssl req -newkey rsa:2048 -nodes -subj "/CN=aggregator" -keyout "$TMP/agg.key" \
	-out "$TMP/agg.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$TMP/agg.ext"
openssl x509 -req -in "$TMP/agg.csr" -CA "$TMP/hvready-ca.crt" -CAkey "$TMP/hvready-ca.key" \
	-CAcreateserial -days 1 -extfile "$TMP/agg.ext" -out "$TMP/agg.crt" 2>/dev/null
[ -s "$TMP/agg.crt" ] || fail "openssl made no certificate"
printf '%s\n' "$SECRET" >"$TMP/token"

echo "== 2. secrets others can read are refused"
refuse() { # what file mode args...
	local what=$1 file=$2 mode=$3 rc=0
	shift 3
	chmod "$mode" "$file"
	timeout 10 "$AGG" serve --listen 127.0.0.1:0 --cluster-state "$HVREADY_SRC/examples/cluster" \
		"$@" 2>"$TMP/refuse.err" || rc=$?
	[ "$rc" = 2 ] || fail "$what mode $mode: exit $rc, not 2"
	grep -q "readable by others (mode 0*$mode); chmod o-r it" "$TMP/refuse.err" ||
		fail "$what mode $mode: $(cat "$TMP/refuse.err")"
	echo "  $what mode $mode: exit 2, $(tail -n 1 "$TMP/refuse.err")"
}
refuse "--token-file" "$TMP/token" 644 --token-file "$TMP/token"
refuse "--token-file" "$TMP/token" 604 --token-file "$TMP/token"
chmod 600 "$TMP/token"
refuse "--tls-key" "$TMP/agg.key" 644 --token-file "$TMP/token" --tls-cert "$TMP/agg.crt" --tls-key "$TMP/agg.key"
chmod 640 "$TMP/agg.key" # group-readable (ssl-cert group) is fine

echo "== 1. TLS verification is on by default"
AGG_CURL=(--cacert "$TMP/hvready-ca.crt")
start_aggregator "$TMP/aggregator.log" --token-file "$TMP/token" --tls-cert "$TMP/agg.crt" \
	--tls-key "$TMP/agg.key" --cluster-state "$HVREADY_SRC/examples/cluster" --interval 2 ||
	fail "the aggregator did not start"
URL=$AGG_URL
MAIN_PID=$AGG_PID
port=${URL##*:}
api() { curl -s --max-time 5 --cacert "$TMP/hvready-ca.crt" "$@"; }

# agent_try NAME URL [--ca-file F]: run an agent until it has tried twice.
agent_try() {
	local name=$1 url=$2
	shift 2
	"$AGENT" run --aggregator "$url" --token-file "$TMP/token" --node "$name" --host-root "$ROOT" \
		--interval 1 --timeout 3 --skip "$SKIP" "$@" 2>"$TMP/agent-$name.log" &
	local pid=$!
	pids+=("$pid")
	for _ in $(seq 1 100); do
		[ "$(grep -c -e 'retrying in' -e 'delivered' "$TMP/agent-$name.log")" -ge 1 ] && break
		api "$URL/v1/nodes" | grep -q "\"$name\"" && break
		sleep 0.1
	done
	sleep 1
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}
node_known() { api "$URL/v1/nodes" | grep -q "\"$1\""; }
agent_try no-ca "$URL"
grep -q "TLS: the server's certificate is not trusted" "$TMP/agent-no-ca.log" || fail "no --ca-file: $(cat "$TMP/agent-no-ca.log")"
node_known no-ca && fail "an agent without --ca-file reported"
echo "  no --ca-file: refused ($(grep -o 'TLS: [^;]*' "$TMP/agent-no-ca.log" | head -n 1))"
agent_try wrong-ca "$URL" --ca-file "$TMP/other-ca.crt"
grep -q "TLS: the server's certificate is not trusted" "$TMP/agent-wrong-ca.log" || fail "wrong CA: $(cat "$TMP/agent-wrong-ca.log")"
node_known wrong-ca && fail "an agent trusting another CA reported"
echo "  another CA: refused"
agent_try wrong-name "https://localhost:$port" --ca-file "$TMP/hvready-ca.crt"
grep -Eq "TLS: .*(mismatch|name)" "$TMP/agent-wrong-name.log" || fail "wrong name: $(cat "$TMP/agent-wrong-name.log")"
node_known wrong-name && fail "an agent reported to a name the certificate does not carry"
echo "  a name not in the certificate: refused ($(grep -o 'TLS: [^;]*' "$TMP/agent-wrong-name.log" | head -n 1))"
agent_try right-ca "$URL" --ca-file "$TMP/hvready-ca.crt"
node_known right-ca || fail "the agent with the right CA did not report: $(cat "$TMP/agent-right-ca.log")"
echo "  the right CA: reported"

echo "== 3. nothing changes state without a credential"
"$AGENT" check --node intruder --host-root "$ROOT" --skip "$SKIP" --format msgpack \
	--output "$TMP/report.msgpack" >/dev/null 2>&1 || [ -s "$TMP/report.msgpack" ] || fail "no report"
snapshot() {
	api "$URL/v1/nodes" | python3 -c 'import json,sys; print(sorted(n["name"] for n in json.load(sys.stdin)["nodes"]))'
	api "$URL/metrics" | grep '^hvready_reports_accepted_total'
}
before=$(snapshot)
paths=(/ /v1/reports /v1/verdict /v1/nodes /v1/nodes/right-ca /v1/nodes/intruder /healthz /readyz /metrics
	/v1/nope /v1/reports/x)
n=0
for method in GET HEAD POST PUT DELETE PATCH OPTIONS; do
	for path in "${paths[@]}"; do
		for auth in none wrong; do
			args=(-o "$TMP/body" -w '%{http_code}' -X "$method" -H "Content-Type: application/msgpack"
				--data-binary "@$TMP/report.msgpack")
			[ "$method" = HEAD ] && args=(-o "$TMP/body" -w '%{http_code}' -I)
			[ "$auth" = wrong ] && args+=(-H "Authorization: Bearer $WRONG")
			code=$(api "${args[@]}" "$URL$path" || true)
			n=$((n + 1))
			case "$method:$code" in
			GET:2* | HEAD:2*) ;;
			*:2*) fail "$method $path ($auth credential) answered $code" ;;
			esac
			if grep -q -e "$WRONG" -e "$SECRET" "$TMP/body"; then
				fail "$method $path echoed a token"
			fi
		done
	done
done
[ "$(snapshot)" = "$before" ] || fail "state changed without a credential: $before -> $(snapshot)"
code=$(api -o /dev/null -w '%{http_code}' -H "Content-Type: application/msgpack" \
	-H "Authorization: Bearer $SECRET" --data-binary "@$TMP/report.msgpack" "$URL/v1/reports")
[ "$code" = 200 ] && [ "$(snapshot)" != "$before" ] || fail "the control POST with the token: $code"
echo "  $n requests without a valid credential: no write accepted, node list and counters unchanged"

echo "== 4. no secret in any log or answer"
# A --tokenreview aggregator asked about tokens the API does not know.
kt_pki "$TMP/pki"
# JWT-shaped, so that it is reviewed (tokenreview_precheck); it carries $SECRET.
SA_SECRET=$(sa_token "$SECRET-node")
echo "{\"$SA_SECRET\": {\"user\": \"system:serviceaccount:hvready-system:hvready-agent\", \"node\": \"harvester-node-1\"}}" \
	>"$TMP/reviews.json"
kt_review_api
AGG_CURL=()
start_aggregator "$TMP/aggregator-tr.log" --kubeconfig "$TMP/kc/config" --tokenreview --interval 2 ||
	fail "the --tokenreview aggregator did not start"
TR_URL=$AGG_URL
TR_PID=$AGG_PID
for tok in "$WRONG" "$SECRET" "$SA_SECRET" "$(sa_token "$WRONG")"; do
	curl -s --max-time 10 -o "$TMP/tr-body" -H "Content-Type: application/msgpack" \
		-H "Authorization: Bearer $tok" --data-binary "@$TMP/report.msgpack" \
		"$TR_URL/v1/reports" >/dev/null || true
	grep -q -e "$WRONG" -e "$SECRET" "$TMP/tr-body" && fail "the token review answer echoed a token"
done
api "$URL/v1/verdict" >"$TMP/verdict.out"
api "$URL/metrics" >"$TMP/metrics.out"
kill "$MAIN_PID" "$TR_PID"
wait "$MAIN_PID" "$TR_PID" 2>/dev/null || true
keybits=$(grep -v -- '-----' "$TMP/agg.key" | head -n 3)
for f in "$TMP"/*.log "$TMP/verdict.out" "$TMP/metrics.out"; do
	[ "$f" = "$TMP/api.log" ] && continue # the fake API server's own request log
	grep -q -e "$SECRET" -e "$WRONG" "$f" && fail "a token appears in $f: $(grep -e "$SECRET" -e "$WRONG" "$f" | head -n 2)"
	while read -r line; do
		grep -qF "$line" "$f" && fail "private key material appears in $f"
	done <<<"$keybits"
	grep -q "PRIVATE KEY" "$f" && fail "a private key appears in $f"
done
echo "  no token value and no key material in $(ls "$TMP"/*.log | wc -l) logs, the verdict and the metrics"
echo PASS
