#!/usr/bin/env bash
# Make the base image of deploy/images/Containerfile.* from Debian's archive
# alone, for machines that reach deb.debian.org but no image registry:
#
#   scripts/base-image.sh [--mirror URL] [--tar FILE] [--max-age DAYS] [IMAGE]
#   podman build --build-arg BASE=IMAGE -f deploy/images/Containerfile.agent .
#
# IMAGE (default localhost/hvready-base:bookworm) is the equivalent of
# docker.io/library/debian:12-slim: a minbase bookworm (mmdebstrap) with the
# configuration Debian's official images get from debuerreotype
# (debuerreotype-minimizing-config and -slimify): no man pages, docs or
# locales, dpkg's unsafe-io, no apt cache, no translations, gzipped indexes.
#
# --tar FILE keeps the root filesystem tarball; a FILE younger than --max-age
# days (default 1) is imported again instead of bootstrapping anew.
# ENGINE=docker imports into docker instead of podman. Needs root (or
# mmdebstrap's unshare mode: uidmap and /etc/subuid for the user).
set -euo pipefail

mirror=http://deb.debian.org/debian
suite=bookworm
tar=""
max_age=1
image=localhost/hvready-base:bookworm
engine=${ENGINE:-podman}

usage() {
	sed -n '5,6p' "$0" | sed 's/^#  *//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case "$1" in
	--mirror) mirror=${2:?}; shift 2 ;;
	--tar) tar=${2:?}; shift 2 ;;
	--max-age) max_age=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	-*) echo "base-image: unknown option $1" >&2; usage ;;
	*) image=$1; shift ;;
	esac
done
case "$max_age" in '' | *[!0-9]*) echo "base-image: --max-age wants a number of days" >&2; exit 2 ;; esac
for tool in mmdebstrap "$engine"; do
	command -v "$tool" >/dev/null || { echo "base-image: $tool not found (apt-get install $tool)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/hvready-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -n "$tar" ] || tar="$work/rootfs.tar"

# The slim image's dpkg filter (debuerreotype's .slimify-excludes/-includes);
# given to mmdebstrap, it applies while the packages are unpacked and stays in
# the image, so packages installed later are filtered the same way.
slim=(
	'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright'
	'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/linda/*'
	'path-exclude=/usr/share/lintian/overrides/*' 'path-exclude=/usr/share/man/*'
	'path-exclude=/usr/share/locale/*' 'path-include=/usr/share/locale/locale.alias'
	'path-include=/usr/share/locale/languages' 'path-include=/usr/share/locale/all_languages'
	'path-include=/usr/share/locale/currency/*' 'path-include=/usr/share/locale/l10n/*'
	force-unsafe-io
)
dpkgopts=()
for o in "${slim[@]}"; do dpkgopts+=("--dpkgopt=$o"); done

# debuerreotype-minimizing-config: what apt and invoke-rc.d do in a container.
minimize='set -e
printf "exit 101\n" >"$1/usr/sbin/policy-rc.d"; chmod 0755 "$1/usr/sbin/policy-rc.d"
clean="\"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true\";"
printf "DPkg::Post-Invoke { %s };\nAPT::Update::Post-Invoke { %s };\nDir::Cache::pkgcache \"\";\nDir::Cache::srcpkgcache \"\";\n" "$clean" "$clean" >"$1/etc/apt/apt.conf.d/docker-clean"
printf "Apt::AutoRemove::SuggestsImportant \"false\";\n" >"$1/etc/apt/apt.conf.d/docker-autoremove-suggests"
printf "Acquire::GzipIndexes \"true\";\n" >"$1/etc/apt/apt.conf.d/docker-gzip-indexes"
printf "Acquire::Languages \"none\";\n" >"$1/etc/apt/apt.conf.d/docker-no-languages"
rm -f "$1/etc/machine-id" "$1/var/lib/dbus/machine-id" "$1"/var/cache/apt/*.bin'

if [ -s "$tar" ] && [ -n "$(find "$tar" -maxdepth 0 -mtime "-$max_age" 2>/dev/null)" ]; then
	echo "base-image: reusing $tar (younger than $max_age day(s))"
else
	echo "base-image: bootstrapping $suite (minbase) from $mirror"
	mkdir -p "$(dirname "$tar")"
	# A private name until complete: another run may share the same --tar.
	part=$(mktemp "$tar.XXXXXX")
	# merged-usr: /bin, /lib, /sbin as symlinks into /usr, the way debootstrap
	# makes them (Debian's images); mmdebstrap would otherwise install the
	# usrmerge package, and perl with it.
	mmdebstrap --variant=minbase --format=tar "${dpkgopts[@]}" \
		--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
		--customize-hook="$minimize" "$suite" "$part" "$mirror" ||
		{ rm -f "$part"; echo "base-image: mmdebstrap failed" >&2; exit 1; }
	chmod 0644 "$part"
	mv -f "$part" "$tar"
fi

# debian:12-slim's image config: bash as the command, the usual PATH.
"$engine" import --change 'CMD ["bash"]' \
	--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	"$tar" "$image" >/dev/null || { echo "base-image: $engine import of $tar failed" >&2; exit 1; }
echo "base-image: $image ($suite, $(du -h "$tar" | cut -f1) root filesystem)"
