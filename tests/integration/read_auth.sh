#!/usr/bin/env bash
# --read-auth: the read routes (/v1/*, the dashboard) need a credential, the
# probes (/healthz, /readyz) do not, and /metrics is open unless --metrics-auth.
# 1. token:FILE; 2. tokenreview:GROUP against the fake API server (a member of
#    the group reads; another authenticated user gets 403). Loopback only.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
AGG_LISTEN=127.0.0.1:0
get() { # path [token] -> status
	local auth=()
	[ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
	curl -s --max-time 10 -o "$TMP/body" -w '%{http_code}' "${auth[@]}" "$AGG_URL$1" || true
}
expect() { # code what got
	[ "$3" = "$1" ] || fail "$2: expected $1, got $3: $(head -c 300 "$TMP/body")"
	echo "  $2: $1"
}
printf 'agent-%s\n' "$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$TMP/agent-token"
READ="reader-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
printf '%s\n' "$READ" >"$TMP/read-token"
chmod 600 "$TMP/agent-token" "$TMP/read-token"

echo "== 1. --read-auth token:FILE"
start_aggregator "$TMP/agg.log" --token-file "$TMP/agent-token" --read-auth "token:$TMP/read-token" \
	--cluster-state "$HVREADY_SRC/examples/cluster" || fail "the aggregator did not start"
expect 401 "GET /v1/verdict without a token" "$(get /v1/verdict)"
grep -q "read-auth" "$TMP/body" || fail "401 without the reason"
expect 401 "GET /v1/verdict with the agents' token" "$(get /v1/verdict "$(cat "$TMP/agent-token")")"
expect 200 "GET /v1/verdict with the read token" "$(get /v1/verdict "$READ")"
expect 401 "GET /v1/nodes without a token" "$(get /v1/nodes)"
expect 401 "GET /v1/nodes/x without a token" "$(get /v1/nodes/harvester-node-1)"
expect 401 "the dashboard without a token" "$(get /)"
expect 200 "the dashboard with the read token" "$(get / "$READ")"
expect 200 "/healthz, open" "$(get /healthz)"
expect 200 "/readyz, open" "$(get /readyz)"
expect 200 "/metrics, open without --metrics-auth" "$(get /metrics)"
stop_aggregator || fail "the aggregator did not stop cleanly"
start_aggregator "$TMP/agg-m.log" --token-file "$TMP/agent-token" --read-auth "token:$TMP/read-token" \
	--metrics-auth --cluster-state "$HVREADY_SRC/examples/cluster" || fail "the aggregator did not start"
expect 401 "/metrics with --metrics-auth, without a token" "$(get /metrics)"
expect 200 "/metrics with --metrics-auth and the read token" "$(get /metrics "$READ")"
expect 200 "/healthz with --metrics-auth, open" "$(get /healthz)"
stop_aggregator || fail "the aggregator did not stop cleanly"
# --read-auth given before --node-token-file or --agent-serviceaccount keeps its file: each
# option frees only its own earlier copy (the read token file was once freed by the later
# option and then used, a use-after-free that read the node tokens' path as the read token's).
printf 'harvester-node-1 node-%s\n' "$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$TMP/node-tokens"
chmod 600 "$TMP/node-tokens"
start_aggregator "$TMP/agg-n.log" --read-auth "token:$TMP/read-token" --node-token-file "$TMP/node-tokens" \
	--cluster-state "$HVREADY_SRC/examples/cluster" ||
	fail "the aggregator did not start with --read-auth before --node-token-file"
expect 200 "GET /v1/verdict with the read token, --node-token-file after --read-auth" "$(get /v1/verdict "$READ")"
expect 401 "GET /v1/verdict with a node's token" "$(get /v1/verdict "$(cut -d' ' -f2 "$TMP/node-tokens")")"
stop_aggregator || fail "the aggregator did not stop cleanly"
if "$HVREADY_BIN/hvready-aggregator" serve --listen 127.0.0.1:0 --token-file "$TMP/agent-token" \
	--read-auth "bogus" --cluster-state "$HVREADY_SRC/examples/cluster" 2>"$TMP/bad.log"; then
	fail "serve started with --read-auth bogus"
fi
grep -q "expected token:FILE or tokenreview:GROUP" "$TMP/bad.log" || fail "no reason: $(cat "$TMP/bad.log")"

echo "== 2. --read-auth tokenreview:GROUP"
kt_pki "$TMP/pki"
cat >"$TMP/reviews.json" <<JSON
{"$(sa_token reader)": {"user": "system:serviceaccount:ops:hvready-reader", "groups": ["hvready:readers", "system:authenticated"]},
 "$(sa_token someone)": {"user": "system:serviceaccount:default:someone", "groups": ["system:authenticated"]}}
JSON
kt_review_api
start_aggregator "$TMP/agg-tr.log" --kubeconfig "$TMP/kc/config" --token-file "$TMP/agent-token" \
	--read-auth tokenreview:hvready:readers --interval 2 || fail "the aggregator did not start"
expect 401 "GET /v1/verdict without a token" "$(get /v1/verdict)"
expect 401 "GET /v1/verdict with a token that is no JWT" "$(get /v1/verdict "$READ")"
expect 200 "GET /v1/verdict by a member of hvready:readers" "$(get /v1/verdict "$(sa_token reader)")"
expect 200 "… again (cached)" "$(get /v1/verdict "$(sa_token reader)")"
expect 403 "GET /v1/verdict by someone outside the group" "$(get /v1/verdict "$(sa_token someone)")"
grep -q "not in group hvready:readers" "$TMP/body" || fail "403 without the reason"
expect 401 "GET /v1/nodes by an unknown JWT" "$(get /v1/nodes "$(sa_token nobody)")"
expect 200 "/healthz, open" "$(get /healthz)"
stop_aggregator || fail "the aggregator did not stop cleanly"
# --agent-serviceaccount after --read-auth keeps the group (it once freed it, then read it).
start_aggregator "$TMP/agg-sa.log" --kubeconfig "$TMP/kc/config" --tokenreview \
	--read-auth tokenreview:hvready:readers \
	--agent-serviceaccount system:serviceaccount:hvready-system:hvready-agent --interval 2 ||
	fail "the aggregator did not start with --agent-serviceaccount after --read-auth"
expect 200 "GET /v1/verdict by a member, --agent-serviceaccount after --read-auth" \
	"$(get /v1/verdict "$(sa_token reader)")"
expect 403 "… and by someone outside the group" "$(get /v1/verdict "$(sa_token someone)")"
stop_aggregator || fail "the aggregator did not stop cleanly"
echo "read_auth: all passed"
