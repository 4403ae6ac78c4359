#!/usr/bin/env bash
# A named pipe where either program expects one of its own input files (a
# token, a kubeconfig, waivers, the cluster state, TLS files, a CA bundle) must
# not hang it: open() of a FIFO with no writer blocks for good, so every reader
# opens with O_NONBLOCK (common/util.c util_read_file, aggregator/source_files.c)
# or refuses anything but a regular file before a library opens the path
# (OpenSSL's *_file calls: aggregator/server.c tls_setup, agent/http_post.c).
# Each case ends with exit 2 and a one-line reason. A pipe with data
# (`--token-file <(...)`) keeps working; a writer that never writes is waited
# for UTIL_PIPE_WAIT_MS (5 s), then named.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
# shellcheck source=../tools/kube_test_lib.sh
. "$HVREADY_SRC/tests/tools/kube_test_lib.sh"
test_init

AGG=$HVREADY_BIN/hvready-aggregator
AGENT=$HVREADY_BIN/hvready-agent
CLUSTER=$HVREADY_SRC/examples/cluster
fifo=$tmp/fifo
mkfifo -m 600 "$fifo"
kt_pki "$tmp/pki"
chmod 600 "$tmp/pki"/*.key
head -c 32 /dev/urandom | base64 | tr -d '=+/' >"$tmp/token"
chmod 600 "$tmp/token"

# refused NAME PATTERN CMD...: exits 2 within 15 s, one line on stderr that
# matches PATTERN (extended regex).
refused() {
	local name=$1 pattern=$2 rc=0
	shift 2
	timeout 15 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	[ "$rc" != 124 ] || fail "$name: hung on a FIFO (killed after 15 s)"
	[ "$rc" = 2 ] || fail "$name: exit $rc, expected 2: $(head -c 300 "$tmp/err")"
	local line
	line=$(grep -v 'WARNING: --insecure-no-auth' "$tmp/err" || true)
	[ "$(printf '%s\n' "$line" | wc -l)" = 1 ] || fail "$name: not one line: $line"
	grep -Eq -- "$pattern" <<<"$line" || fail "$name: '$line' does not match '$pattern'"
	echo "ok   $name: $line"
}
NOTHING='a pipe or FIFO with nothing written to it'
SERVE=("$AGG" serve --listen 127.0.0.1:0 --cluster-state "$CLUSTER")

echo "== a FIFO with no writer"
refused "report --cluster-state FIFO" "$fifo: not a file or a directory" \
	"$AGG" report --cluster-state "$fifo"
mkdir "$tmp/state"
cp "$CLUSTER"/*.json "$tmp/state/"
rm "$tmp/state/nodes.json"
mkfifo "$tmp/state/nodes.json"
refused "report --cluster-state DIR with a FIFO in it" "nodes.json: not a regular file" \
	"$AGG" report --cluster-state "$tmp/state"
rm "$tmp/state/nodes.json"
cp "$CLUSTER/nodes.json" "$tmp/state/"
mkfifo "$tmp/state/collect.json"
refused "report --cluster-state DIR with a FIFO collect.json" "collect.json: not a regular file" \
	"$AGG" report --cluster-state "$tmp/state"
refused "report --waivers FIFO" "--waivers $fifo: $NOTHING" \
	"$AGG" report --cluster-state "$CLUSTER" --waivers "$fifo"
refused "report --kubeconfig FIFO" "$fifo: cannot read the kubeconfig: $NOTHING" \
	"$AGG" report --kubeconfig "$fifo"
refused "canary --kubeconfig FIFO" "$fifo: cannot read the kubeconfig: $NOTHING" \
	"$AGG" canary --kubeconfig "$fifo"
refused "report --canary-result FIFO" "--canary-result $fifo: not a regular file" \
	"$AGG" report --cluster-state "$CLUSTER" --canary-result "$fifo"
# A kubeconfig whose certificate-authority is a FIFO: read by the client, not by libcurl.
cat >"$tmp/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:9", certificate-authority: "$fifo"}
users:
- name: u
  user: {token: not-a-real-token}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
EOF
refused "kubeconfig certificate-authority FIFO" "certificate-authority $fifo: cannot read: $NOTHING" \
	"$AGG" report --kubeconfig "$tmp/kubeconfig"
refused "serve --token-file FIFO" "--token-file $fifo: $NOTHING" \
	"${SERVE[@]}" --token-file "$fifo"
refused "serve --node-token-file FIFO" "--node-token-file $fifo: $NOTHING" \
	"${SERVE[@]}" --node-token-file "$fifo"
refused "serve --read-auth token:FIFO" "--read-auth token: $fifo: $NOTHING" \
	"${SERVE[@]}" --token-file "$tmp/token" --read-auth "token:$fifo"
refused "serve --tls-cert FIFO" "--tls-cert $fifo: not a regular file" \
	"${SERVE[@]}" --token-file "$tmp/token" --tls-cert "$fifo" --tls-key "$tmp/pki/server.key"
refused "serve --tls-key FIFO" "--tls-key $fifo: not a regular file" \
	"${SERVE[@]}" --token-file "$tmp/token" --tls-cert "$tmp/pki/server.crt" --tls-key "$fifo"
refused "agent check --config FIFO" "$fifo: $NOTHING" "$AGENT" check --config "$fifo"
refused "agent check --probe-targets FIFO" "$fifo: $NOTHING" "$AGENT" check --probe-targets "$fifo"

echo "== a FIFO whose writer never writes"
sleep 60 >"$fifo" &
writer=$!
kill_pids+=("$writer")
t0=$(date +%s)
refused "report --waivers FIFO, silent writer" "--waivers $fifo: a pipe or FIFO whose writer did not finish within 5 s" \
	"$AGG" report --cluster-state "$CLUSTER" --waivers "$fifo"
t=$(($(date +%s) - t0))
{ [ "$t" -ge 4 ] && [ "$t" -le 12 ]; } || fail "the silent writer was waited for ${t} s, expected about 5"
kill "$writer" 2>/dev/null || true
wait "$writer" 2>/dev/null || true

echo "== the agent's daemon: a FIFO --ca-file and --token-file are named, the daemon goes on"
post_sink "$tmp/posts"
# daemon_names OPTION SCHEME REASON: `run` with OPTION set to the FIFO logs
# "OPTION FIFO: REASON" and still stops on SIGTERM.
daemon_names() {
	local opt=$1 scheme=$2 reason=$3 log=$tmp/run${1//-/_}.log
	"$AGENT" run --aggregator "$scheme://127.0.0.1:$SINK_PORT" "$opt" "$fifo" --interval 30 \
		--skip host.nfs.probe,host.image.share-manager 2>"$log" &
	local pid=$!
	kill_pids+=("$pid")
	wait_for 15 "run $opt FIFO: the reason in the log" grep -qF -- "$opt $fifo: $reason" "$log"
	stops_within "$pid" 10 "run with a FIFO $opt ignored SIGTERM"
	echo "ok   run $opt FIFO: $(grep -m 1 -- "$opt" "$log")"
}
daemon_names --ca-file https "no CA certificate could be read (not a regular file)"
daemon_names --token-file http "$NOTHING"

echo "== a pipe with data still works"
start_aggregator "$tmp/serve.log" --cluster-state "$CLUSTER" --token-file <(cat "$tmp/token") ||
	fail "serve --token-file <(cat token) did not start"
curl -fsS -o /dev/null -H "Authorization: Bearer $(cat "$tmp/token")" "$AGG_URL/v1/verdict" ||
	fail "serve --token-file <(...): the token read from the pipe is refused"
stop_aggregator
echo "ok   serve --token-file <(cat token)"
rc=0
"$AGG" report --cluster-state "$CLUSTER" --format json --waivers <(
	printf -- '- check: cluster.nodes.reporting\n  reason: read from a pipe\n  approvedBy: CAB PIPE-1\n  expires: 2099-12-31\n'
) >"$tmp/waived.json" 2>"$tmp/err" || rc=$?
[ "$rc" != 2 ] || fail "report --waivers <(...): $(cat "$tmp/err")"
grep -q 'CAB PIPE-1' "$tmp/waived.json" || fail "report --waivers <(...): the waiver read from the pipe is not in the verdict"
echo "ok   report --waivers <(...) (exit $rc, the waiver in the verdict)"
echo "PASS"
