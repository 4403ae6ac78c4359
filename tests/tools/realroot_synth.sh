#!/bin/bash
# Fill the kernel-provided files (/proc, /sys) of a host root built with
# mmdebstrap, modelled on what its own kernel package shows on a booted node:
# the release of the installed linux-image, the filesystems and modules a
# Debian node has after boot (ext4 root, multipathd's dm_multipath, KVM on a
# VT-x CPU; NFS and iscsi_tcp not loaded until first use), an 8-core VT-x CPU
# and 32 GiB. Processes: systemd, and the daemons its enabled units start at
# boot (iscsid is socket-activated, so it is not running). Usage:
#   realroot_synth.sh ROOT CPUINFO_FROM MEMINFO_FROM
# Everything this script writes is synthesised; everything else in ROOT is
# what the packages installed.
set -euo pipefail
root=$1 cpuinfo=$2 meminfo=$3
rel=$(ls "$root/usr/lib/modules" 2>/dev/null || ls "$root/lib/modules")
[ "$(wc -w <<<"$rel")" = 1 ] || { echo "expected one kernel in $root, got: $rel" >&2; exit 1; }
cfg="$root/boot/config-$rel"
m() { mkdir -p "$(dirname "$1")"; cat >"$1"; }

m "$root/proc/sys/kernel/osrelease" <<<"$rel"
m "$root/proc/sys/kernel/hostname" <<<"node1"
m "$root/proc/sys/kernel/random/boot_id" <<<"3f2b8c1e-7d4a-4b6e-9c0f-1a2b3c4d5e6f"
m "$root/proc/cmdline" <<<"BOOT_IMAGE=/boot/vmlinuz-$rel root=UUID=6b3c1f0e-2a4d-4e5f-9a8b-7c6d5e4f3a21 ro quiet"
cp "$cpuinfo" "$root/proc/cpuinfo"
cp "$meminfo" "$root/proc/meminfo"
m "$root/sys/devices/system/cpu/online" <<<"0-15"
m "$root/sys/class/misc/kvm/dev" <<<"10:232"

# /proc/filesystems: the built-in filesystems of this config, then the module
# ones loaded at boot (ext4 for the root filesystem, autofs4 by systemd).
{
	for fs in sysfs tmpfs bdev proc cgroup cgroup2 cpuset devtmpfs configfs debugfs tracefs \
		securityfs sockfs bpf pipefs ramfs hugetlbfs devpts; do printf 'nodev\t%s\n' "$fs"; done
	if grep -q '^CONFIG_FUSE_FS=y' "$cfg"; then printf '\tfuseblk\nnodev\tfuse\nnodev\tfusectl\n'; fi
	printf 'nodev\tmqueue\nnodev\tpstore\nnodev\tefivarfs\n'
	printf '\text3\n\text2\n\text4\nnodev\tautofs\n'
} | m "$root/proc/filesystems"

# Loaded modules (proc/modules and sys/module/NAME/{initstate,refcnt}).
mods="ext4 mbcache jbd2 crc16 autofs4 dm_multipath dm_mod kvm_intel kvm irqbypass"
: >"$root/proc/modules"
for mod in $mods; do
	printf '%s 16384 1 - Live 0x0000000000000000\n' "$mod" >>"$root/proc/modules"
	m "$root/sys/module/$mod/initstate" <<<"live"
	m "$root/sys/module/$mod/refcnt" <<<"1"
done
m "$root/sys/module/kvm_intel/parameters/nested" <<<"Y"

# Mount table of PID 1: the root filesystem on ext4; no separate Longhorn disk.
m "$root/proc/1/mountinfo" <<'MI'
22 28 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
23 28 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
24 28 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=16380912k,nr_inodes=4095228,mode=755,inode64
26 28 0:24 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs rw,size=3282816k,mode=755,inode64
28 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro
32 22 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
MI

# Processes: PID 1 and the daemons that the enabled units start at boot.
proc() { # pid comm
	m "$root/proc/$1/comm" <<<"$2"
	m "$root/proc/$1/stat" <<<"$1 ($2) S 1 $1 $1 0 -1 4194560 1502 0 12 0 41 87 0 0 20 0 1 0 2154 23764992 1637 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0"
}
proc 1 systemd
wants="$root/etc/systemd/system"
ls "$wants"/*.wants/multipathd.service >/dev/null 2>&1 && proc 412 multipathd
ls "$wants"/*.wants/chrony.service >/dev/null 2>&1 && proc 598 chronyd
ls "$wants"/*.wants/systemd-timesyncd.service >/dev/null 2>&1 && proc 598 systemd-timesyn
ls "$wants"/*.wants/containerd.service >/dev/null 2>&1 && proc 733 containerd
ls "$wants"/*.wants/iscsid.service >/dev/null 2>&1 && proc 740 iscsid
ls "$wants"/*.wants/rpcbind.service >/dev/null 2>&1 && proc 1022 rpcbind
echo "synthesised /proc and /sys of $root for kernel $rel"
