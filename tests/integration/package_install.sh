#!/usr/bin/env bash
# `make install` puts binaries, units, default configs and man pages where
# Debian expects them, and CPack builds a .deb holding the same.
set -euo pipefail
: "${HVREADY_BUILD:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DESTDIR="$tmp/root" cmake --install "$HVREADY_BUILD" --prefix /usr >/dev/null
for f in usr/bin/hvready-agent usr/bin/hvready-aggregator \
	usr/lib/systemd/system/hvready-agent.service usr/lib/systemd/system/hvready-aggregator.service \
	etc/hvready/agent.yaml etc/hvready/aggregator.env \
	usr/share/man/man8/hvready-agent.8 usr/share/man/man8/hvready-aggregator.8; do
	[ -f "$tmp/root/$f" ] || { echo "FAIL: make install did not install /$f"; exit 1; }
done
"$tmp/root/usr/bin/hvready-agent" --version | grep -q '^hvready-agent '
man -l "$tmp/root/usr/share/man/man8/hvready-agent.8" >/dev/null 2>&1 || command -v man >/dev/null || true
cpack --config "$HVREADY_BUILD/CPackConfig.cmake" -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 ||
	{ cat "$tmp/cpack.log"; echo "FAIL: cpack"; exit 1; }
deb=$(ls "$tmp"/pkg/*.deb)
dpkg-deb -c "$deb" >"$tmp/contents"
for f in ./usr/bin/hvready-agent ./usr/bin/hvready-aggregator ./usr/lib/systemd/system/hvready-agent.service \
	./usr/share/man/man8/hvready-aggregator.8 ./etc/hvready/agent.yaml; do
	grep -q " $f\$" "$tmp/contents" || { cat "$tmp/contents"; echo "FAIL: $f not in $deb"; exit 1; }
done
dpkg-deb -f "$deb" Depends | grep -q libjson-c || { echo "FAIL: no shlib Depends in $deb"; exit 1; }
echo "PASS: $(basename "$deb")"
