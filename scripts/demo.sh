#!/usr/bin/env bash
# make demo: the agent's report of this machine, then the aggregator's verdict
# on the bundled example cluster (examples/cluster) with this machine's report.
set -uo pipefail
BUILD=${1:-build}
BIN="$BUILD/bin"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== hvready-agent check (this machine) =="
"$BIN/hvready-agent" check --timeout 5
echo "(agent exit status $?)"
if [ -d examples/cluster ]; then
	"$BIN/hvready-agent" check --timeout 5 --node harvester-node-1 --format msgpack \
		--output "$tmp/harvester-node-1.msgpack" >/dev/null
	echo
	echo "== hvready-aggregator report (examples/cluster + this machine's report) =="
	"$BIN/hvready-aggregator" report --cluster-state examples/cluster --node-reports "$tmp"
	echo "(aggregator exit status $?)"
fi
exit 0
