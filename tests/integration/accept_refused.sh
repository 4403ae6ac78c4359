#!/usr/bin/env bash
# A connection the aggregator cannot set up (SSL_new or the header phase out
# of memory) is refused, never served another way: evhttp would otherwise
# make a plain bufferevent of its own and serve the TLS port in clear text,
# without the header phase (docs/robustness.md). SSL_new is made to fail by an
# LD_PRELOAD shim (tests/tools/fail_ssl_new.c) while a flag file exists.
# 1. TLS works; 2. with SSL_new failing, a plain-HTTP request to the TLS port
#    gets no answer (it did: 200 /healthz in clear text) and a TLS client
#    fails; 3. once memory "returns", TLS is served again.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
build_shim fail_ssl_new "$tmp/fail_ssl_new.so"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
	-keyout "$tmp/agg.key" -out "$tmp/agg.crt" 2>/dev/null
chmod 600 "$tmp/agg.key"
printf 'tok-%s\n' "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$tmp/token"
chmod 600 "$tmp/token"
export HVREADY_TEST_FAIL_SSL_NEW="$tmp/fail-now"
# Under ASan the shim is not first in the link order; it needs no ASan.
AGG_WRAP=(env LD_PRELOAD="$tmp/fail_ssl_new.so"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
AGG_CURL=(--cacert "$tmp/agg.crt")
start_aggregator "$tmp/agg.log" --token-file "$tmp/token" --tls-cert "$tmp/agg.crt" \
	--tls-key "$tmp/agg.key" --cluster-state "$HVREADY_SRC/examples/cluster" ||
	fail "the aggregator did not start"
port=${AGG_URL##*:}
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$tmp/agg.crt" "$AGG_URL/healthz")
[ "$code" = 200 ] || fail "TLS /healthz before: $code"
echo "1. TLS served"

touch "$HVREADY_TEST_FAIL_SSL_NEW"
code=$(curl -s -o "$tmp/plain.body" -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port/healthz" || true)
[ "$code" = 000 ] || fail "plain HTTP on the TLS port while SSL_new fails: got $code $(head -c 200 "$tmp/plain.body")"
grep -q "SSL_new failed" "$tmp/agg.log" || fail "no log line for the refused connection"
kill -0 "$AGG_PID" || fail "the aggregator died"
echo "2. plain HTTP on the TLS port refused while SSL_new fails"

rm -f "$HVREADY_TEST_FAIL_SSL_NEW"
served() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 --cacert "$tmp/agg.crt" "$AGG_URL/healthz")" = 200 ]
}
# The listener was paused at the failure; the sweep resumes it.
wait_for 20 "TLS served again after the failure" served
stop_aggregator || fail "the aggregator did not exit cleanly"
echo "3. TLS served again; PASS"
