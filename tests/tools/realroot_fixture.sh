#!/bin/bash
# Copy from a host root built with mmdebstrap (and filled by realroot_synth.sh)
# only the files the agent's host checks read, into a fixture directory:
#   realroot_fixture.sh ROOT DEST
# Text files are copied as the packages installed them; symlinks stay
# symlinks. Binaries whose presence is all the checks look at (iscsiadm,
# mount.nfs, chronyd, containerd, ...) become one-line placeholders with the
# package's file mode. /boot/config-REL keeps only the CONFIG_ lines the
# checks read, and modules.dep only the lines of the modules they look for
# (and their dependencies' own lines), so the fixture stays small.
set -euo pipefail
root=$1 dest=$2
rel=$(ls "$root/usr/lib/modules" 2>/dev/null || ls "$root/lib/modules")
moddir=usr/lib/modules/$rel
[ -L "$root/lib" ] || moddir=lib/modules/$rel
mkdir -p "$dest"
# Start over, keeping the fixture's README.md.
find "$dest" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +

# The merged-/usr symlinks (absent on a bullseye root, where /sbin and /lib are real).
for l in bin sbin lib lib64; do
	if [ -L "$root/$l" ]; then cp -a "$root/$l" "$dest/$l"; fi
done

copy() { # copy one path (file or symlink) as it is, creating its parents
	local p=$1
	[ -e "$root/$p" ] || [ -L "$root/$p" ] || return 0
	mkdir -p "$dest/$(dirname "$p")"
	cp -a "$root/$p" "$dest/$p"
}
placeholder() { # a binary: keep its mode, not its bytes
	local p=$1
	[ -f "$root/$p" ] || return 0
	mkdir -p "$dest/$(dirname "$p")"
	if [ -L "$root/$p" ]; then cp -a "$root/$p" "$dest/$p"; return 0; fi
	printf 'placeholder for /%s (binary not copied)\n' "$p" >"$dest/$p"
	# host.containerd.device-ownership asks whether an ELF binary knows the
	# option: keep those two facts of the real containerd (its ELF magic first).
	if [ "${p##*/}" = containerd ]; then
		{ head -c 4 "$root/$p"; printf '\n'; cat "$dest/$p"; } >"$dest/$p.tmp" && mv "$dest/$p.tmp" "$dest/$p"
	fi
	if grep -q -a device_ownership_from_security_context "$root/$p"; then
		echo device_ownership_from_security_context >>"$dest/$p"
	fi
	chmod "$(stat -c %a "$root/$p")" "$dest/$p"
}

copy etc/os-release
copy usr/lib/os-release
copy etc/hostname
copy etc/iscsi/initiatorname.iscsi
copy etc/iscsi/iscsid.conf
copy etc/multipath.conf
for f in "$root"/etc/multipath/conf.d/*.conf; do
	if [ -f "$f" ]; then copy "etc/multipath/conf.d/${f##*/}"; fi
done
copy etc/containerd/config.toml
# The script that wrote the initiator name (and keeps /var/lib a real directory).
copy var/lib/dpkg/info/open-iscsi.postinst
for f in $(cd "$root" && find etc/chrony -type f -name '*.conf' 2>/dev/null); do copy "$f"; done
copy etc/chrony.conf

# Binaries the checks look for (in both the merged and the split layout).
for p in usr/sbin/iscsiadm sbin/iscsiadm usr/sbin/iscsid sbin/iscsid usr/sbin/mount.nfs sbin/mount.nfs \
	usr/sbin/mount.nfs4 sbin/mount.nfs4 usr/sbin/multipathd sbin/multipathd usr/sbin/chronyd \
	usr/lib/systemd/systemd-timesyncd lib/systemd/systemd-timesyncd usr/bin/containerd; do
	if [ -L "$dest/${p%%/*}" ]; then continue; fi # sbin -> usr/sbin: copied through usr/
	placeholder "$p"
done
for p in usr/lib/open-iscsi/startup-checks.sh lib/open-iscsi/startup-checks.sh; do
	[ -L "$dest/${p%%/*}" ] || copy "$p"
done

# systemd: every enablement link, the unit files they point to, and the units
# the checks read.
(cd "$root" && find etc/systemd/system -type l) | while read -r l; do
	copy "$l"
	t=$(readlink "$root/$l")
	case $t in /dev/null) ;; /*) copy "${t#/}" ;; *) copy "$(dirname "$l")/$t" ;; esac
done
for u in iscsid.service iscsid.socket iscsi-init.service open-iscsi.service multipathd.service \
	multipathd.socket chrony.service systemd-timesyncd.service containerd.service; do
	if [ -L "$dest/lib" ]; then copy "usr/lib/systemd/system/$u"; else copy "lib/systemd/system/$u"; fi
done
# Symlinks in /etc pointing at /lib/... on a merged root resolve through lib -> usr/lib.
(cd "$root" && find etc/systemd/system -type l) | while read -r l; do
	t=$(readlink "$root/$l")
	case $t in /lib/*) if [ -L "$dest/lib" ]; then copy "usr${t}"; fi ;; esac
done

# Kernel: config (the lines the checks read), modules.builtin, modules.dep (the lines they read).
mkdir -p "$dest/boot"
grep -E '^(# )?CONFIG_(MODULES|NFS_FS|NFS_V4|NFS_V4_1|NFS_V4_2|ISCSI_TCP|KVM|KVM_INTEL|KVM_AMD|EXT4_FS|XFS_FS|DM_MULTIPATH)[= ]' \
	"$root/boot/config-$rel" >"$dest/boot/config-$rel"
mkdir -p "$dest/$moddir"
cp "$root/$moddir/modules.builtin" "$dest/$moddir/"
grep -E '^kernel/(fs/nfs/|fs/nfs_common/|fs/lockd/|net/sunrpc/|net/dns_resolver/|fs/netfs/|fs/fscache/|drivers/scsi/(iscsi_tcp|libiscsi|libiscsi_tcp|scsi_transport_iscsi)\.|arch/x86/kvm/|virt/lib/irqbypass|drivers/md/dm-(mod|multipath)\.|fs/ext4/|fs/jbd2/|fs/mbcache|lib/crc16|fs/autofs/)' \
	"$root/$moddir/modules.dep" >"$dest/$moddir/modules.dep"

# What realroot_synth.sh wrote (everything under proc/ and sys/).
cp -a "$root/proc" "$root/sys" "$dest/"
echo "fixture $dest from $root: $(du -sk "$dest" | cut -f1) KiB, $(find "$dest" -type f | wc -l) files"
