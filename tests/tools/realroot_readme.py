"""Write tests/fixtures/hostroots/NAME/README.md for a fixture cut by
realroot_fixture.sh: the mmdebstrap command, the installed versions (read with
dpkg-query from the built root) and what is real or synthesised.
Usage: realroot_readme.py NAME SUITE ROOT TITLE INCLUDES EXTRA (run from the
repository's top directory)."""
import subprocess, sys
name, suite, rootdir, title, includes, extra = sys.argv[1:7]
pk = subprocess.run(['dpkg-query', f'--admindir={rootdir}/var/lib/dpkg', '-W', '-f=${db:Status-Abbrev} ${Package} ${Version}\n',
  'systemd','systemd-sysv','linux-image-amd64','linux-image-[0-9]*','kmod','open-iscsi','nfs-common','multipath-tools','chrony','systemd-timesyncd','containerd','util-linux','procps'],
  capture_output=True, text=True).stdout
rows = [l.split()[1:] for l in pk.splitlines() if l.startswith('ii') and 'unsigned' not in l]
rel = subprocess.run(['bash','-c',f'ls {rootdir}/usr/lib/modules 2>/dev/null || ls {rootdir}/lib/modules'],capture_output=True,text=True).stdout.strip()
merged = subprocess.run(['test','-L',f'{rootdir}/lib']).returncode == 0
moddir = ('usr/lib/modules/' if merged else 'lib/modules/') + rel
out = f"""# {name}: {title}

A host root cut from a real Debian {suite} system built with mmdebstrap on
2026-12-01 from http://deb.debian.org/debian (nothing else was reachable):

```
mmdebstrap --variant=minbase \\
  --include={includes} \\
  {suite} /work/realroots/ROOT http://deb.debian.org/debian
tests/tools/realroot_synth.sh /work/realroots/ROOT \\
  tests/fixtures/hostroots/a-debian-intel/proc/cpuinfo tests/fixtures/hostroots/a-debian-intel/proc/meminfo
tests/tools/realroot_fixture.sh /work/realroots/ROOT tests/fixtures/hostroots/{name}
```

{extra}

Installed versions (`dpkg-query -W` in the root):

| package | version |
|---|---|
""" + "".join(f"| {p} | {v} |\n" for p, v in rows) + f"""
## What is real

Copied byte for byte from the packages' files (or written by their maintainer
scripts during the install), with symlinks kept as symlinks:

- `/etc/os-release` (-> `../usr/lib/os-release`); `/etc/hostname` is the build machine's (mmdebstrap copies it)
- `/etc/iscsi/iscsid.conf`; `/etc/iscsi/initiatorname.iscsi` as open-iscsi's postinst wrote it (the
  postinst is in `var/lib/dpkg/info/open-iscsi.postinst`), and
  `open-iscsi/startup-checks.sh`, iscsid.service's ExecStartPre
- `/etc/containerd/config.toml` (Debian's conffile), `/etc/chrony/chrony.conf`
  (when chrony is installed)
- every link under `/etc/systemd/system` (what the maintainer scripts
  enabled) and the unit files they point to, plus iscsid, multipathd, chrony,
  systemd-timesyncd and containerd units
- `/boot/config-{rel}` **truncated** to the `CONFIG_` lines the checks read
  (MODULES, NFS_FS, NFS_V4, NFS_V4_1, NFS_V4_2, ISCSI_TCP, KVM*, EXT4_FS,
  XFS_FS, DM_MULTIPATH); the lines kept are unchanged
- `/{moddir}/modules.builtin` whole, and `modules.dep` **truncated** to the
  lines of the NFS, sunrpc, iSCSI, KVM, dm-multipath, ext4 and autofs modules
  (their lines unchanged)
- {'the merged-/usr symlinks `/bin`, `/sbin`, `/lib`, `/lib64`' if merged else 'no merged /usr: `/bin`, `/sbin` and `/lib` are real directories'}

Binaries (iscsiadm, iscsid, mount.nfs, multipathd, chronyd,
systemd-timesyncd, containerd) are one-line placeholders with the package's
file mode: the checks only look for them. The containerd placeholder keeps
two facts of the real binary: its ELF magic (first 4 bytes) and, when the real
binary contains the string `device_ownership_from_security_context`, that
string.

## What is synthesised

A chroot has no kernel, so everything under `proc/` and `sys/` was written by
`tests/tools/realroot_synth.sh`, modelled on this kernel package on a booted
node:

- `proc/sys/kernel/osrelease` = `{rel}` (the installed linux-image),
  `proc/sys/kernel/hostname`, `proc/sys/kernel/random/boot_id`, `proc/cmdline`
- `proc/filesystems`: the built-in filesystems of this config, plus ext4 and
  autofs (modules loaded at boot); no nfs/nfs4 (the NFS client is a module that
  loads at the first mount)
- `proc/modules` and `sys/module/NAME/{{initstate,refcnt}}`: ext4, mbcache,
  jbd2, crc16, autofs4, dm_multipath, dm_mod, kvm_intel, kvm, irqbypass;
  `sys/module/kvm_intel/parameters/nested` = Y; `sys/class/misc/kvm/dev`
- `proc/cpuinfo`, `proc/meminfo`: copied from the `a-debian-intel` fixture
  (Xeon E-2288G, 16 threads, VT-x; 32 GiB); `sys/devices/system/cpu/online`
- `proc/1/mountinfo`: ext4 root on /dev/sda1, no separate Longhorn disk
- processes (`proc/PID/comm`, `stat`): systemd as PID 1, and the daemons the
  enabled units start at boot: multipathd (412), chronyd or systemd-timesyncd
  (598), containerd (733), iscsid (740, only where iscsid.service itself is
  enabled), rpcbind (1022). A socket-activated iscsid is not running.

`/dev/kvm` cannot be in a fixture: `tests/unit/test_real_hostroots.c` replaces
the KVM probe, the clock (adjtimex) and free space (statvfs) with fakes, and
asserts the status and key evidence of every host check on this root.
"""
open(f'tests/fixtures/hostroots/{name}/README.md','w').write(out)
