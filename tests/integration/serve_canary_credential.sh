#!/usr/bin/env bash
# serve --canary-interval with the canary's own credential (docs/canary.md#the-scheduled-canarys-credential):
# serve reads with a read-only token (the fake answers its writes 403 Forbidden, as
# kube-apiserver's authorizer does), the canary child writes with its own:
#  - --in-cluster --canary-token-file FILE: the first run, with FILE holding the
#    read-only token, reports the 403 in its finding (serve keeps running); FILE
#    rotated to the canary's token (a rename, as kubelet updates a Secret volume),
#    the next run proves RWX: the token is read again every run; the child's argv
#    holds the file's path, never the token;
#  - --kubeconfig with --canary-kubeconfig FILE: the same out of the cluster;
#  - --in-cluster --canary-interval without either option: exit 2, one line;
#    a missing, FIFO, directory, empty, two-line, oversized or world-readable file, both options,
#    --canary-token-file without --in-cluster or without --canary-interval: exit 2, one
#    line each, at once (a FIFO is never waited on);
#  - neither token is in serve's stdout or log (the child's stderr included), /v1/verdict,
#    the text and HTML verdicts, /metrics, or any error line.
# ctest: serial
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
. "$HVREADY_SRC/tests/tools/canary_test_lib.sh"
canary_test_init
LEFT_PATHS=("/api/v1/pods?$SEL" "/api/v1/persistentvolumeclaims?$SEL" "/api/v1/namespaces?$SEL"
	"/apis/longhorn.io/v1beta2/volumes" "/api/v1/namespaces/longhorn-system/pods")

rnd() { head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
RO="serve-ro-$(rnd)"
CAN="canary-sa-$(rnd)"

# rwx_is NAME STATUS-AND-MESSAGE-GLOB: /v1/verdict's canary.rwx, "STATUS message"
rwx_is() {
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$TMP/$1.verdict.json" 2>/dev/null || return 1
	local got
	got=$(field "$TMP/$1.verdict.json" '" ".join(["%s %s" % (f["status"], f["message"]) for f in d["findings"] if f["check"] == "canary.rwx"])')
	# shellcheck disable=SC2053
	[[ $got == $2 ]]
}
# no_token NAME FILE...: neither token in the files
no_token() {
	local n=$1 f
	shift
	for f in "$@"; do
		[ -f "$f" ] || fail "$n: no $f to look in"
		if grep -qF -e "$RO" -e "$CAN" "$f"; then
			fail "$n: a bearer token in $(basename "$f"): $(grep -F -e "$RO" -e "$CAN" "$f" | head -3)"
		fi
	done
}
# outputs NAME: everything serve shows, into $TMP/NAME.out.*
outputs() {
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict" >"$TMP/$1.out.verdict"
	curl -fsS --max-time 5 "$AGG_URL/v1/verdict?format=text" >"$TMP/$1.out.text"
	curl -fsS --max-time 5 "$AGG_URL/" >"$TMP/$1.out.html"
	curl -fsS --max-time 5 "$AGG_URL/metrics" >"$TMP/$1.out.metrics"
}

kt_fake cred --fixtures "$FIX" --canary-sim --pod-seconds 3 --require-auth \
	--read-only-token "$RO" --token "$CAN" --client-ca "$TMP/pki/client-ca.crt"
# the fake itself: the read-only token reads, and its writes are 403 as kube-apiserver says it
mkdir -p "$TMP/sa" "$TMP/canary"
cp "$TMP/pki/server-ca.crt" "$TMP/sa/ca.crt"
printf '%s' "$RO" >"$TMP/sa/token"
printf 'hvready-system' >"$TMP/sa/namespace"
ro_call() {
	curl -sS --max-time 5 --cacert "$TMP/pki/server-ca.crt" -H "Authorization: Bearer $RO" \
		-H 'Content-Type: application/json' -o "$TMP/ro.body" -w '%{http_code}' "$@"
}
[ "$(ro_call "https://127.0.0.1:$FAKE_PORT/api/v1/nodes")" = 200 ] || fail "fake: the read-only token cannot read"
code=$(ro_call -X POST -d '{"metadata":{"name":"x"}}' "https://127.0.0.1:$FAKE_PORT/api/v1/namespaces/hvready-canary/pods")
[ "$code" = 403 ] || fail "fake: a write with the read-only token is $code, want 403"
[ "$(field "$TMP/ro.body" '[d[k] for k in ("kind", "status", "reason", "code")]')" = '["Status", "Failure", "Forbidden", 403]' ] ||
	fail "fake: the 403 is not a Forbidden Status: $(cat "$TMP/ro.body")"
[ "$(field "$TMP/ro.body" 'd["message"]')" = 'pods is forbidden: User "system:serviceaccount:hvready-system:hvready-aggregator" cannot create resource "pods" in API group "" in the namespace "hvready-canary"' ] ||
	fail "fake: the 403's message: $(cat "$TMP/ro.body")"

export KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$FAKE_PORT HVREADY_SA_DIR="$TMP/sa"

# serve's stdout too (start_aggregator takes its stderr as the log)
# shellcheck disable=SC2016 # $@ and $0 are the inner shell's
AGG_WRAP=(bash -c 'exec "$@" >>"$0"' "$TMP/serve.stdout")

# 1. --in-cluster --canary-token-file, first holding the read-only token: the 403 in the finding
printf '%s\n' "$RO" >"$TMP/canary/token"
chmod 0440 "$TMP/canary/token" # as the manifests mount it
start_aggregator "$TMP/tok.serve.log" --in-cluster --insecure-no-auth --canary-interval 10s \
	--canary-timeout 30s --canary-steps rwx --canary-token-file "$TMP/canary/token" ||
	fail "tok: serve did not start: $(cat "$TMP/tok.serve.log")"
wait_for 30 "the first run's 403 in canary.rwx" rwx_is tok1 \
	'WARN not proved: canary run *, could not decide: *: HTTP 403: *is forbidden: User "system:serviceaccount:hvready-system:hvready-aggregator" cannot create resource *'
kill -0 "$AGG_PID" || fail "tok: serve died on the canary's 403"
[ "$(field "$TMP/tok1.verdict.json" 'd["canary"]["source"]')" = "serve --canary-interval" ] ||
	fail "tok: the canary member: $(field "$TMP/tok1.verdict.json" 'd["canary"]')"
# serve's own collection works with its read-only token
[ "$(field "$TMP/tok1.verdict.json" 'len([f for f in d["findings"] if f["check"].startswith("api.")]) > 0')" = True ] ||
	fail "tok: serve read nothing with its own token"
outputs tok1
# 2. rotated (a new file renamed over the old, as kubelet does): the next run uses it
printf '%s\n' "$CAN" >"$TMP/canary/token.new"
chmod 0440 "$TMP/canary/token.new"
mv "$TMP/canary/token.new" "$TMP/canary/token"
two_runs() { [ "$(grep -c 'canary: run started' "$TMP/tok.serve.log")" -ge 2 ]; }
wait_for 30 "the second run" two_runs
CPID=$(grep -o 'canary: run started (pid [0-9]*' "$TMP/tok.serve.log" | tail -1 | grep -o '[0-9]*$')
tr '\0' ' ' </proc/"$CPID"/cmdline >"$TMP/child.argv" 2>/dev/null || true
[ -s "$TMP/child.argv" ] || fail "tok: the running canary (pid $CPID) has no argv to read"
grep -qF -- "--in-cluster --in-cluster-token-file $TMP/canary/token" "$TMP/child.argv" ||
	fail "tok: the child's argv: $(cat "$TMP/child.argv")"
tr '\0' '\n' </proc/"$CPID"/environ >"$TMP/child.env" 2>/dev/null || true
no_token tok-child "$TMP/child.argv" "$TMP/child.env"
wait_for 40 "canary.rwx PASS with the rotated token" rwx_is tok2 \
	'PASS proved by canary run *: a token written on hv-node-1 was read back on hv-node-2 *'
outputs tok2
# (a third run may be going: serve's SIGTERM stops it, and it cleans up)
stop_aggregator || fail "tok: serve did not exit cleanly: $(tail -5 "$TMP/tok.serve.log")"
[ -z "$(left)" ] || fail "tok: objects left: $(left)"
no_token tok "$TMP/serve.stdout" "$TMP/tok.serve.log" "$TMP"/tok?.out.* "$TMP"/tok?.verdict.json

# 3. out of the cluster: --kubeconfig (read-only) and --canary-kubeconfig (the canary's)
mkdir -p "$TMP/kc-ro" "$TMP/kc-can"
kt_kubeconfig "$TMP/kc-ro/kubeconfig" "https://127.0.0.1:$FAKE_PORT" token-file "$RO"
kt_kubeconfig "$TMP/kc-can/kubeconfig" "https://127.0.0.1:$FAKE_PORT" token-file "$CAN"
start_aggregator "$TMP/kc.serve.log" --kubeconfig "$TMP/kc-ro/kubeconfig" --insecure-no-auth \
	--canary-interval 1h --canary-timeout 30s --canary-steps rwx \
	--canary-kubeconfig "$TMP/kc-can/kubeconfig" ||
	fail "kc: serve did not start: $(cat "$TMP/kc.serve.log")"
wait_for 40 "canary.rwx PASS with --canary-kubeconfig" rwx_is kc \
	'PASS proved by canary run *: a token written on hv-node-1 was read back on hv-node-2 *'
outputs kc
stop_aggregator || fail "kc: serve did not exit cleanly: $(tail -5 "$TMP/kc.serve.log")"
no_token kc "$TMP/serve.stdout" "$TMP/kc.serve.log" "$TMP"/kc.out.* "$TMP/kc.verdict.json"
[ -z "$(left)" ] || fail "kc: objects left: $(left)"

# 4. usage: exit 2 at once, one line, no token
mkfifo "$TMP/fifo"
printf '%s\n%s\n' "$CAN" "$RO" >"$TMP/two-lines"
: >"$TMP/empty"
head -c $((70 * 1024)) /dev/zero | tr '\0' a >"$TMP/big"
chmod 0600 "$TMP/two-lines" "$TMP/empty" "$TMP/big"
printf '%s\n' "$CAN" >"$TMP/readable"
chmod 0644 "$TMP/readable"
usage() { # NAME WANT-IN-STDERR ARGS...
	local n=$1 want=$2 rc=0
	shift 2
	kt_run_timeout 10 "$AGG" serve --insecure-no-auth --listen 127.0.0.1:0 "$@" \
		>"$TMP/usage.out" 2>"$TMP/usage.$n.err" || rc=$?
	[ $rc -eq 2 ] || fail "usage $n: exit $rc, want 2: $(cat "$TMP/usage.$n.err")"
	[ "$(wc -l <"$TMP/usage.$n.err")" -eq 1 ] || fail "usage $n: not one line: $(cat "$TMP/usage.$n.err")"
	grep -qF -- "$want" "$TMP/usage.$n.err" || fail "usage $n: says $(cat "$TMP/usage.$n.err")"
	no_token "usage $n" "$TMP/usage.$n.err" "$TMP/usage.out"
}
IC=(--in-cluster --canary-interval 1m)
usage neither "--canary-token-file FILE" "${IC[@]}"
usage missing "$TMP/nope: No such file or directory" "${IC[@]}" --canary-token-file "$TMP/nope"
usage fifo "a FIFO, not a regular file" "${IC[@]}" --canary-token-file "$TMP/fifo"
usage dir "a directory, not a regular file" "${IC[@]}" --canary-token-file "$TMP/canary"
usage empty "not a bearer token" "${IC[@]}" --canary-token-file "$TMP/empty"
usage two-lines "not a bearer token" "${IC[@]}" --canary-token-file "$TMP/two-lines"
usage big "larger than 64 KiB" "${IC[@]}" --canary-token-file "$TMP/big"
usage readable "is readable by others (mode 0644); chmod o-r it" "${IC[@]}" --canary-token-file "$TMP/readable"
usage kc-fifo "a FIFO, not a regular file" "${IC[@]}" --canary-kubeconfig "$TMP/fifo"
usage both "give one of --canary-kubeconfig, --canary-token-file" "${IC[@]}" \
	--canary-token-file "$TMP/canary/token" --canary-kubeconfig "$TMP/kc-can/kubeconfig"
usage not-in-cluster "--canary-token-file goes with --in-cluster" --kubeconfig "$TMP/kc-ro/kubeconfig" \
	--canary-interval 1m --canary-token-file "$TMP/canary/token"
usage no-interval "go with --canary-interval" --in-cluster --canary-token-file "$TMP/canary/token"
echo "PASS: serve's canary runs with its own credential"
