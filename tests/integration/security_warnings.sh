#!/usr/bin/env bash
# One-line warnings for credentials sent where they can be taken: the agent's
# run with a --token-file over plain http:// to a host that is not loopback,
# and a kubeconfig with insecure-skip-tls-verify: true. No warning for https://,
# for loopback, or for a kubeconfig that verifies the server. The hosts named
# are never contacted (192.0.2.0/24 is TEST-NET-1, and the test network guard
# refuses it).
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init

echo sometoken >"$tmp/token"
chmod 600 "$tmp/token"
ROOT=$HVREADY_SRC/tests/fixtures/hostroots/a-debian-intel

# run_agent URL: the agent's run for a moment; its stderr in $tmp/run.err.
run_agent() {
	# Removed here, not truncated by the child's redirection: the child may
	# open it only after wait_for has read the previous run's lines.
	rm -f "$tmp/run.err"
	"$HVREADY_BIN/hvready-agent" run --aggregator "$1" --token-file "$tmp/token" \
		--host-root "$ROOT" --node n1 --skip host.image.share-manager,host.nfs.probe --interval 60 2>"$tmp/run.err" &
	local pid=$!
	pids+=("$pid")
	wait_for 10 "the agent logs where it reports ($1)" grep -q 'reporting every' "$tmp/run.err"
	stop_pid "$pid" || true
}

warned() { grep -c 'WARNING: .*plain http://' "$tmp/run.err" || true; }

for url in http://192.0.2.1:8080 "http://[2001:db8::1]:8080" http://aggregator.example:8080; do
	run_agent "$url"
	[ "$(warned)" = 1 ] || fail "no (or more than one) warning for $url: $(cat "$tmp/run.err")"
	grep 'WARNING' "$tmp/run.err" | grep -qF -- "$url" || fail "the warning does not name $url"
	grep -q sometoken "$tmp/run.err" && fail "the token itself is in the log"
done
for url in http://127.0.0.1:9 http://localhost:9 "http://[::1]:9" https://192.0.2.1:8443; do
	run_agent "$url"
	[ "$(warned)" = 0 ] || fail "a warning for $url: $(cat "$tmp/run.err")"
done
echo "ok: plain-http token warning"

# kubeconfig(INSECURE): a kubeconfig for a closed loopback port.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
kubeconfig() {
	cat >"$tmp/kc" <<EOT
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:$port"$1}}]
users: [{name: u, user: {token: kubetoken}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
EOT
}
kubeconfig ", insecure-skip-tls-verify: true"
"$HVREADY_BIN/hvready-aggregator" report --kubeconfig "$tmp/kc" >/dev/null 2>"$tmp/kc.err" || true
[ "$(grep -c 'WARNING: .*insecure-skip-tls-verify' "$tmp/kc.err")" = 1 ] ||
	fail "no warning for insecure-skip-tls-verify: $(cat "$tmp/kc.err")"
grep -q kubetoken "$tmp/kc.err" && fail "the kubeconfig's token is in the log"
kubeconfig ""
"$HVREADY_BIN/hvready-aggregator" report --kubeconfig "$tmp/kc" >/dev/null 2>"$tmp/kc.err" || true
grep -q 'insecure-skip-tls-verify' "$tmp/kc.err" && fail "a warning without insecure-skip-tls-verify"
echo "ok: insecure-skip-tls-verify warning"
