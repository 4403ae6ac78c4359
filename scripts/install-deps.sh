#!/usr/bin/env bash
# Install the Debian packages hvready's build, tests and demo need.
# Idempotent: installs only what is missing. Needs root (or sudo) on Debian 12.
set -euo pipefail

PKGS=(
	# build
	build-essential cmake pkg-config clang clang-format libclang-rt-14-dev
	libevent-dev libcurl4-openssl-dev libmsgpack-dev libjson-c-dev libnfs-dev
	libsystemd-dev libcmocka-dev libyaml-dev libssl-dev zlib1g-dev libdeflate-dev
	# tests: real servers and tools
	nfs-ganesha nfs-ganesha-mem nfs-ganesha-vfs docker-registry iproute2 openssl
	python3 python3-yaml time procps curl
	# tests/integration/clock_step.sh: libfaketime steps the wall clock of running processes
	faketime
	# tests of the operator views: a real browser, GitHub's Markdown renderer, PDF text
	chromium cmark-gfm poppler-utils
	# make bench: virt-host-validate, the peer of `hvready-agent check`
	libvirt-clients
	# tests of deploy/images: podman builds them (with runc: crun refuses hosts with
	# cgroup v1 and v2 controllers side by side), on a base made by mmdebstrap
	podman runc mmdebstrap
	# tests/integration/share_manager_on_node.sh: a real containerd (CRI) with images
	containerd
	# tests/integration/deploy_overlays.sh: promtool checks the shipped PrometheusRule
	# (its npm schema checker comes from the npm registry, pinned in tests/tools/k8s-schema)
	prometheus
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# kubectl: the machine may ship one outside Debian's packaging; kubernetes-client
# would conflict with it (both ship /usr/bin/kubectl), so install it only where none exists.
if ! command -v kubectl >/dev/null 2>&1; then
	missing+=(kubernetes-client)
fi
# node and npm: likewise, the machine's own Node.js (with its npm) is kept if present.
if ! command -v npm >/dev/null 2>&1; then
	missing+=(nodejs npm)
fi

if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-deps: all packages present"
	exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
