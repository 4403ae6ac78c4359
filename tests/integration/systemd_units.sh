#!/usr/bin/env bash
# The shipped systemd units: `systemd-analyze verify` passes and the offline
# security exposure stays within budget (agent <= 3.0, aggregator <= 2.0).
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for u in hvready-agent hvready-aggregator; do
	# verify checks that ExecStart exists: point it at the build's binaries.
	sed "s#/usr/bin/$u#$HVREADY_BIN/$u#" "$HVREADY_SRC/systemd/$u.service" >"$tmp/$u.service"
done
systemd-analyze verify --man=no "$tmp/hvready-agent.service" "$tmp/hvready-aggregator.service"
check() {
	local unit=$1 max=$2 got
	got=$(systemd-analyze security --offline=yes "$tmp/$unit.service" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	[ -n "$got" ] || { echo "FAIL: no exposure level for $unit"; exit 1; }
	python3 -c "import sys; sys.exit(0 if float('$got') <= float('$max') else 1)" ||
		{ echo "FAIL: $unit exposure $got > $max"; exit 1; }
	echo "$unit: exposure $got (budget $max)"
}
check hvready-agent 3.0
check hvready-aggregator 2.0
echo PASS
