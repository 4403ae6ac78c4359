# shellcheck shell=bash
# Real NFS-Ganesha servers for integration tests (source this file).
#
# Each server lives in its own directory (config, log, pid file, recovery
# directory), serves NFSv4 only, and listens on a port picked at run time, so
# that tests can run in parallel (ctest -j, plain + ASan). Two flavours:
#   mem       FSAL MEM; exports /pvc-test (read-write) and /pvc-ro (read-only);
#             NFSv4 minor versions as ganesha defaults (0, 1, 2) unless the
#             extra NFSV4 line says otherwise.
#   longhorn  the configuration Longhorn's share-manager writes
#             (longhorn-share-manager pkg/server/nfs/nfs_server.go and
#             export.go): NFSv4.1/4.2 only, Graceless, numeric owners, one
#             volume export /pvc-test on FSAL VFS, served from DIR/export/pvc-test.
#             Only the port, bind address and recovery directory differ.
#
# What ganesha needs on a fresh machine: only the packages (nfs-ganesha,
# nfs-ganesha-mem). It creates /var/run/ganesha itself; everything else it
# writes (pid file, log, NFSv4 recovery state, which defaults to
# /var/lib/nfs/ganesha) is pointed into the server's directory here. Without
# D-Bus and Kerberos it logs CRIT lines about both; they are harmless.
# The config path must be absolute: ganesha changes to / when it daemonizes.

# A TCP port nothing listens on right now (in netns $1 if given).
free_port() {
	local ns=${1:-} p i
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + RANDOM % 40000))
		if [ -z "$(${ns:+ip netns exec "$ns"} ss -Htanl "sport = :$p" 2>/dev/null)" ]; then
			echo "$p"
			return 0
		fi
	done
	echo "free_port: no free port found" >&2
	return 1
}

# ganesha_config DIR BIND_ADDR PORT [EXTRA_NFSV4_LINE] [FLAVOR]
ganesha_config() {
	local dir=$1 bind=$2 port=$3 extra=${4:-} flavor=${5:-mem}
	mkdir -p "$dir/recovery"
	if [ "$flavor" = longhorn ]; then
		ganesha_config_longhorn "$dir" "$bind" "$port"
		return
	fi
	cat >"$dir/ganesha.conf" <<EOF
NFS_CORE_PARAM { Protocols = 4; NFS_Port = $port; Bind_addr = $bind; Enable_RQUOTA = false; Enable_NLM = false; Enable_UDP = false; }
NFSV4 { Graceless = true; Lease_Lifetime = 10; Grace_Period = 10; RecoveryBackend = fs; RecoveryRoot = "$dir/recovery"; $extra }
NFS_KRB5 { Active_krb5 = false; }
# FSAL MEM keeps only Inode_Size bytes of each file (0 by default: reads return 'a's).
MEM { Inode_Size = 65536; }
EXPORT { Export_Id = 1; Path = /export; Pseudo = /pvc-test; Access_Type = RW; Squash = No_Root_Squash;
         SecType = sys; Protocols = 4; Transports = TCP; FSAL { Name = MEM; } }
EXPORT { Export_Id = 2; Path = /export-ro; Pseudo = /pvc-ro; Access_Type = RO; Squash = No_Root_Squash;
         SecType = sys; Protocols = 4; Transports = TCP; FSAL { Name = MEM; } }
EOF
}

# Longhorn's share-manager configuration, block for block: its defaultConfig
# (NFS_Core_Param, NFSV4, Export_defaults; the pseudo root export is left to
# ganesha, as there) and the EXPORT block generateExportBlock() appends for a
# volume. Test-only: NFS_Port, Bind_addr, RecoveryRoot, NFS_KRB5.
ganesha_config_longhorn() {
	local dir=$1 bind=$2 port=$3
	mkdir -p "$dir/export/pvc-test"
	cat >"$dir/ganesha.conf" <<EOF
NFS_Core_Param
{
    NLM_Port = 0;
    MNT_Port = 0;
    RQUOTA_Port = 0;
    Enable_NLM = false;
    Enable_RQUOTA = false;
    Enable_UDP = false;
    fsid_device = false;
    Protocols = 4;
    NFS_Port = $port;
    Bind_addr = $bind;
}

NFS_KRB5 { Active_krb5 = false; }

NFSV4
{
    Lease_Lifetime = 60;
    Graceless = true;
    Grace_Period = 0;
    Minor_Versions = 1, 2;
    RecoveryBackend = fs_ng;
    RecoveryRoot = "$dir/recovery";
    Only_Numeric_Owners = true;
}

Export_defaults
{
    Protocols = 4;
    Transports = TCP;
    Access_Type = None;
    SecType = sys;
    Squash = None;
}

EXPORT
{
	Export_Id = 1;#Volume=pvc-test
	Path = $dir/export/pvc-test;
	Pseudo = /pvc-test;
	Protocols = 4;
	Transports = TCP;
	Access_Type = RW;
	Squash = None;
	SecType = sys;
	Filesystem_id = 1.0;
	FSAL {
		Name = VFS;
	}
}
EOF
}

# The process runs (a zombie, not yet reaped by the shell that started it, does not).
alive() {
	local st
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

ganesha_pid() {
	cat "$1/ganesha.pid" 2>/dev/null
}

ganesha_listening() { # DIR PORT [NETNS]
	local ns=${3:-}
	[ -n "$(${ns:+ip netns exec "$ns"} ss -Htanl "sport = :$2" 2>/dev/null)" ]
}

# ganesha_start DIR BIND_ADDR PORT|auto [NETNS] [EXTRA_NFSV4_LINE] [FLAVOR]
# Starts the server and waits (at most 10 s) until it listens; "auto" picks a
# free port and retries with another one if the port was taken meanwhile.
# Prints the port. Fails, printing ganesha's log, when the server does not come up.
ganesha_start() {
	local dir=$1 bind=$2 want=$3 ns=${4:-} extra=${5:-} flavor=${6:-mem} port try pid end
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	for ((try = 0; try < 5; try++)); do
		port=$want
		[ "$want" = auto ] && port=$(free_port "$ns")
		ganesha_config "$dir" "$bind" "$port" "$extra" "$flavor"
		rm -f "$dir/ganesha.pid"
		# In the foreground (-F), like the share-manager runs it: no
		# daemon(3), which needs a sane /dev/null, and the PID is known.
		${ns:+ip netns exec "$ns"} ganesha.nfsd -F -f "$dir/ganesha.conf" -L "$dir/ganesha.log" \
			-p "$dir/ganesha.nfsd.pid" -N NIV_EVENT </dev/null >"$dir/ganesha.out" 2>&1 &
		pid=$!
		echo "$pid" >"$dir/ganesha.pid"
		end=$(($(date +%s) + 10))
		while [ "$(date +%s)" -le "$end" ]; do
			if ganesha_listening "$dir" "$port" "$ns"; then
				echo "$port" >"$dir/port"
				echo "$port"
				return 0
			fi
			# Gone before listening: a bind race (retry) or a real failure.
			alive "$pid" || break
			sleep 0.1
		done
		ganesha_stop "$dir"
		if [ "$want" != auto ] ||
			! grep -qi "address already in use\|cannot bind" "$dir/ganesha.log" 2>/dev/null; then
			break
		fi
	done
	echo "ganesha_start: ganesha did not listen on $bind:$port${ns:+ in netns $ns}; its log:" >&2
	ganesha_log "$dir" >&2
	return 1
}

# Stop the server (also when it is stopped with SIGSTOP), waiting for it to exit.
ganesha_stop() {
	local dir=$1 pid i
	pid=$(ganesha_pid "$dir") || return 0
	[ -n "$pid" ] || return 0
	kill -CONT "$pid" 2>/dev/null || true
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		alive "$pid" || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	rm -f "$dir/ganesha.pid"
}

ganesha_log() {
	echo "----- $1/ganesha.log"
	tail -n 60 "$1/ganesha.log" 2>/dev/null || echo "(no log)"
	if [ -s "$1/ganesha.out" ]; then
		echo "----- $1/ganesha.out"
		tail -n 20 "$1/ganesha.out"
	fi
}
