#!/usr/bin/env bash
# Run every libFuzzer target in BUILD_DIR/bin for SECONDS each, on a copy of its
# committed corpus (fuzz/corpus/NAME, never modified) with fuzz/NAME.dict when
# there is one. Fails if any target finds a crash, leak, timeout or OOM; the
# reproducing input is kept in BUILD_DIR/fuzz-artifacts/NAME/.
# Usage: scripts/fuzz.sh BUILD_DIR [SECONDS]   (make fuzz: FUZZ_SECONDS=60)
# FUZZ_OUT=DIR keeps each grown corpus in DIR/NAME, to pick new seeds from:
#   BUILD_DIR/bin/fuzz_NAME -merge=1 NEW fuzz/corpus/NAME DIR/NAME
# puts in NEW the inputs that add coverage to the committed corpus.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 BUILD_DIR [SECONDS]" >&2
	exit 2
fi
if [ ! -d "$1" ]; then
	echo "fuzz.sh: no build directory $1" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
seconds=${2:-60}
case $seconds in '' | *[!0-9]*)
	echo "fuzz.sh: SECONDS must be a number, not \"$seconds\"" >&2
	exit 2
	;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)

shopt -s nullglob
targets=("$build"/bin/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz.sh: no fuzz_* binaries in $build/bin (configure with CC=clang -DHVREADY_FUZZ=ON)" >&2
	exit 2
fi

if [ -n "${FUZZ_OUT:-}" ]; then
	mkdir -p "$FUZZ_OUT"
	work=$(cd "$FUZZ_OUT" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/hvready-fuzz.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi

failed=()
for bin in "${targets[@]}"; do
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz_}
	corpus="$src/fuzz/corpus/$name"
	if [ ! -d "$corpus" ]; then
		echo "fuzz.sh: $name: no corpus at $corpus" >&2
		failed+=("$name")
		continue
	fi
	mkdir -p "$work/$name" "$build/fuzz-artifacts/$name"
	cp -R "$corpus/." "$work/$name/"
	args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512
		-print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$name/")
	[ -f "$src/fuzz/$name.dict" ] && args+=(-dict="$src/fuzz/$name.dict")
	echo "== fuzz_$name: ${seconds}s on $(ls "$corpus" | wc -l) corpus inputs"
	log="$build/fuzz-artifacts/$name/fuzz.log"
	if ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" "$bin" "${args[@]}" "$work/$name" >"$log" 2>&1; then
		grep -E '^(#[0-9]+[[:space:]]+DONE|stat::new_units_added)' "$log" || true
	else
		echo "fuzz_$name FAILED (log: $log):" >&2
		grep -E 'ERROR|SUMMARY|Test unit written|fuzz_[a-z_]+: ' "$log" | head -20 >&2 || tail -20 "$log" >&2
		failed+=("$name")
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz.sh: failures in: ${failed[*]} (inputs in $build/fuzz-artifacts/)" >&2
	exit 1
fi
echo "fuzz.sh: all ${#targets[@]} targets ran ${seconds}s without a failure"
