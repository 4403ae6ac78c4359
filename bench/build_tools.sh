#!/usr/bin/env bash
# Build the benchmark tools (bench/*.c) into OUT_DIR, against BUILD_DIR's
# libhvcommon.a. They are built here and not by CMake: they are not part of the
# product, and make bench and tests/integration/bench_tools.sh share this.
#
#   bash bench/build_tools.sh BUILD_DIR OUT_DIR
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$1
OUT=$2
[ -f "$BUILD/libhvcommon.a" ] || { echo "build_tools: $BUILD/libhvcommon.a is missing" >&2; exit 1; }
mkdir -p "$OUT"
DEP_PCS="json-c msgpack yaml-0.1 libcurl libevent libevent_openssl libevent_pthreads libnfs libsystemd openssl zlib"
# shellcheck disable=SC2086 # a list of module names
pkg-config --exists $DEP_PCS || {
	echo "build_tools: pkg-config: a build dependency is missing (scripts/install-deps.sh)" >&2
	exit 1
}
read -ra CFLAGS <<<"-std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter -Wmissing-prototypes -Werror"
# A sanitizer build's libhvcommon.a needs the runtime; the tools get checked too.
if grep -q '^HVREADY_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
	CFLAGS+=('-fsanitize=address,undefined' -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
fi
read -ra EVENT <<<"$(pkg-config --cflags --libs libevent)"
# shellcheck disable=SC2086
read -ra DEPS <<<"$(pkg-config --cflags --libs $DEP_PCS)"
cc "${CFLAGS[@]}" -pthread "$SRC/bench/loadgen.c" -o "$OUT/loadgen" "${EVENT[@]}"
cc "${CFLAGS[@]}" "$SRC/bench/timed_run.c" -o "$OUT/timed_run"
cc "${CFLAGS[@]}" "$SRC/bench/bare_server.c" -o "$OUT/bare_server" "${EVENT[@]}"
# clone_reports (with its generator, gen_node.c) links this build's libhvcommon.a: it
# speaks this build's wire format.
cc "${CFLAGS[@]}" -D_GNU_SOURCE -I"$SRC/common" "$SRC/bench/clone_reports.c" "$SRC/bench/gen_node.c" \
	-o "$OUT/clone_reports" "$BUILD/libhvcommon.a" "${DEPS[@]}" -lpthread -lm
