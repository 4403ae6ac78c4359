#!/usr/bin/env bash
# What hvready-agent loads when it starts (CMakeLists.txt, HVREADY_AGENT_STATIC_DEPS):
# the dynamic loader's work was the largest cost of a check run, so json-c,
# msgpack-c, libyaml, libevent and zlib are linked from their static archives,
# and libcurl, OpenSSL, libsystemd (agent/lazy_libs.c) and libnfs
# (agent/lazy_libnfs.c) are opened on first use; it_nfs_probe runs the NFS
# probe through the lazily opened libnfs. Fails when a shared library joins the
# agent's start, and when the statically linked agent's answers differ from
# what the tests expect (the rest of the suite runs this same binary).
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}" "${HVREADY_BUILD:?}"
# shellcheck source=../tools/test_lib.sh
. "$HVREADY_SRC/tests/tools/test_lib.sh"
test_init

command -v readelf >/dev/null || fail "readelf (binutils) is needed"
AGENT=$HVREADY_BIN/hvready-agent
needed=$(readelf -d "$AGENT" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort)
echo "NEEDED: $(echo "$needed" | tr '\n' ' ')"
cache() { sed -n "s/^$1:[A-Z]*=//p" "$HVREADY_BUILD/CMakeCache.txt"; }
static=$(cache HVREADY_AGENT_STATIC_DEPS)
allowed='^(libc\.so\.6|ld-linux-[a-z0-9_-]+\.so\.[0-9]+|libm\.so\.6|libasan\.so\.[0-9]+|libubsan\.so\.[0-9]+)$'
if [ "$static" = ON ] && [ -n "$(cache HV_STATIC_z)" ] && [ "$(cache HV_STATIC_z)" != HV_STATIC_z-NOTFOUND ]; then
	while read -r lib; do
		[[ $lib =~ $allowed ]] || fail "hvready-agent loads $lib at start; expected only libc, the loader, libm (and the sanitizer runtimes in an ASan build)"
	done <<<"$needed"
	echo "ok   statically linked: only $(echo "$needed" | tr '\n' ' ')"
else
	echo "ok   HVREADY_AGENT_STATIC_DEPS=$static or an archive missing: shared libraries allowed"
fi
# Never at start, in either build: what lazy_libs.c and lazy_libnfs.c open on first use.
for lib in libcurl libssl libcrypto libsystemd libnfs; do
	! grep -q "^$lib" <<<"$needed" || fail "hvready-agent links $lib at start; agent/lazy_libs.c or lazy_libnfs.c should open it on first use"
done
echo "ok   libcurl, OpenSSL, libsystemd, libnfs: not loaded at start"
# The statically linked libraries work: YAML (--config), JSON (--format json),
# msgpack (the wire report, read back by the aggregator), zlib (a gzipped
# kernel config, /proc/config.gz, read by host.nfs.kernel).
check() { "$AGENT" check "$@" 2>"$tmp/err" || [ $? -le 1 ] || fail "check $*: $(cat "$tmp/err")"; }
printf 'node: link-test\n' >"$tmp/agent.yaml"
ROOTS=$HVREADY_SRC/tests/fixtures/hostroots
check --config "$tmp/agent.yaml" --host-root "$ROOTS/a-debian-intel" --format json >"$tmp/out.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["node"]=="link-test", d["node"]; assert len(d["results"])>=10' "$tmp/out.json" ||
	fail "check --config --format json: not the report expected"
echo "ok   check --config (YAML) --format json"
mkdir -p "$tmp/reports"
check --node link-test --host-root "$ROOTS/a-debian-intel" --format msgpack --output "$tmp/reports/link-test.msgpack"
"$HVREADY_BIN/hvready-aggregator" report --cluster-state "$HVREADY_SRC/examples/cluster" \
	--node-reports "$tmp/reports" --format json >"$tmp/verdict.json" 2>"$tmp/err" || [ $? -le 1 ] ||
	fail "report --node-reports (the agent's msgpack): $(cat "$tmp/err")"
grep -q '"link-test"' "$tmp/verdict.json" || fail "the agent's msgpack report is not in the verdict"
echo "ok   check --format msgpack, read by report --node-reports"
check --host-root "$ROOTS/b-nomod-nonfs" --only host.nfs.kernel --format json >"$tmp/nfs.json"
grep -q 'config.gz' "$tmp/nfs.json" || fail "host.nfs.kernel did not name proc/config.gz: $(head -c 400 "$tmp/nfs.json")"
echo "ok   host.nfs.kernel read proc/config.gz (zlib)"
echo "PASS"
