# Helpers for tests that need a real OCI registry (Debian's docker-registry,
# Distribution 2.8) on loopback. Source it; call registry_cleanup from the
# test's EXIT trap. Every wait is bounded; nothing listens beyond 127.0.0.1.

# shellcheck source=../../tools/test_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/test_lib.sh"

REG_PIDS=()
# Debian's interpreter when there is one: wrappers such as pyenv's shims cost seconds per call.
if [ -x /usr/bin/python3 ]; then
	PYTHON=/usr/bin/python3
else
	PYTHON=python3
fi

# A TCP port nobody listens on right now (the kernel picks it).
free_port() {
	"$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_http URL [curl options...]: until it answers at all (any HTTP status), 10 s at most.
wait_http() {
	local url=$1
	shift
	for _ in $(seq 1 100); do
		if curl -s -o /dev/null --max-time 1 "$@" "$url"; then
			return 0
		fi
		sleep 0.1
	done
	echo "no answer from $url" >&2
	return 1
}

# start_registry DIR PORT [CERT KEY [HTPASSWD]]: serve DIR/storage on 127.0.0.1:PORT (TLS
# when given; Basic authentication against a bcrypt htpasswd file when given).
start_registry() {
	local dir=$1 port=$2 cert=${3:-} key=${4:-} htpasswd=${5:-}
	mkdir -p "$dir/storage"
	{
		echo "version: 0.1"
		echo "log: {level: error, accesslog: {disabled: true}}"
		echo "storage: {filesystem: {rootdirectory: $dir/storage}, delete: {enabled: true}}"
		echo "http:"
		echo "  addr: 127.0.0.1:$port"
		if [ -n "$cert" ]; then
			echo "  tls: {certificate: $cert, key: $key}"
		fi
		if [ -n "$htpasswd" ]; then
			echo "auth: {htpasswd: {realm: hvready-test, path: $htpasswd}}"
		fi
	} >"$dir/config.yml"
	docker-registry serve "$dir/config.yml" >"$dir/registry.log" 2>&1 &
	REG_PIDS+=($!)
	local scheme=http opts=()
	if [ -n "$cert" ]; then
		scheme=https
		opts=(-k)
	fi
	if ! wait_http "$scheme://127.0.0.1:$port/v2/" "${opts[@]}"; then
		cat "$dir/registry.log" >&2
		return 1
	fi
}

# push_image BASE REPO TAG [curl options...]: upload a config blob and PUT an OCI manifest
# that references it. Prints the manifest digest.
push_image() {
	local base=$1 repo=$2 tag=$3
	shift 3
	local tmp cfg cdig csize loc man mdig
	tmp=$(mktemp -d)
	cfg="$tmp/config.json"
	printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/share-manager"]},"rootfs":{"type":"layers","diff_ids":[]}}' >"$cfg"
	cdig="sha256:$(sha256sum "$cfg" | cut -d' ' -f1)"
	csize=$(stat -c %s "$cfg")
	loc=$(curl -sS --max-time 10 "$@" -X POST -D - -o /dev/null "$base/v2/$repo/blobs/uploads/" |
		tr -d '\r' | awk 'tolower($1)=="location:" {print $2}')
	if [ -z "$loc" ]; then
		echo "push_image: no upload location for $repo" >&2
		rm -rf "$tmp"
		return 1
	fi
	case "$loc" in
	http*) ;;
	*) loc="$base$loc" ;;
	esac
	case "$loc" in
	*\?*) loc="$loc&digest=$cdig" ;;
	*) loc="$loc?digest=$cdig" ;;
	esac
	curl -sS --max-time 10 "$@" -f -X PUT -H 'Content-Type: application/octet-stream' \
		--data-binary "@$cfg" -o /dev/null "$loc" || { rm -rf "$tmp"; return 1; }
	man="$tmp/manifest.json"
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"%s","size":%s},"layers":[]}' \
		"$cdig" "$csize" >"$man"
	mdig="sha256:$(sha256sum "$man" | cut -d' ' -f1)"
	curl -sS --max-time 10 "$@" -f -X PUT -H 'Content-Type: application/vnd.oci.image.manifest.v1+json' \
		--data-binary "@$man" -o /dev/null "$base/v2/$repo/manifests/$tag" || { rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"
	echo "$mdig"
}

# start_token_front BACKEND DIR [USER PASSWORD | --refresh-token TOKEN]: the Bearer-token
# front in tests/tools; sets FRONT_PORT.
start_token_front() {
	local backend=$1 dir=$2 user=${3:-} pass=${4:-}
	local args=(--backend "$backend" --port-file "$dir/front.port")
	if [ "$user" = "--refresh-token" ]; then
		args+=(--refresh-token "$pass")
	elif [ -n "$user" ]; then
		args+=(--user "$user" --password "$pass")
	fi
	"$PYTHON" "$HVREADY_SRC/tests/tools/oci_token_front.py" "${args[@]}" 2>"$dir/front.log" &
	REG_PIDS+=($!)
	for _ in $(seq 1 100); do
		[ -s "$dir/front.port" ] && break
		sleep 0.1
	done
	FRONT_PORT=$(cat "$dir/front.port" 2>/dev/null)
	if [ -z "$FRONT_PORT" ]; then
		cat "$dir/front.log" >&2
		return 1
	fi
	wait_http "http://127.0.0.1:$FRONT_PORT/v2/"
}

# start_black_hole DIR: a listener on loopback that accepts connections and never answers;
# sets HOLE_PORT.
start_black_hole() {
	local dir=$1
	"$PYTHON" -c 'import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    c, _ = s.accept()
    held.append(c)' "$dir/hole.port" &
	REG_PIDS+=($!)
	for _ in $(seq 1 100); do
		[ -s "$dir/hole.port" ] && break
		sleep 0.1
	done
	HOLE_PORT=$(cat "$dir/hole.port" 2>/dev/null)
	[ -n "$HOLE_PORT" ]
}

# start_slow_proxy DIR UPSTREAM_PORT DELAY_S: a TCP forwarder on loopback that holds
# every new connection DELAY_S seconds before it connects it to UPSTREAM_PORT;
# sets SLOW_PORT. A client of it lives at least that long, so a test can catch it.
start_slow_proxy() {
	local dir=$1 upstream=$2 delay=$3
	rm -f "$dir/slow.port"
	"$PYTHON" -c 'import socket, sys, threading, time, os
up, delay, port_file = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
def serve(c):
    time.sleep(delay)
    try:
        u = socket.create_connection(("127.0.0.1", up), timeout=5)
        u.settimeout(None)
    except OSError:
        c.close()
        return
    threading.Thread(target=pump, args=(c, u), daemon=True).start()
    pump(u, c)
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open(port_file + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()' "$upstream" "$delay" "$dir/slow.port" &
	REG_PIDS+=($!)
	for _ in $(seq 1 100); do
		[ -s "$dir/slow.port" ] && break
		sleep 0.1
	done
	SLOW_PORT=$(cat "$dir/slow.port" 2>/dev/null)
	[ -n "$SLOW_PORT" ]
}

# make_htpasswd FILE USER PASSWORD: a bcrypt entry (the only format docker-registry takes).
make_htpasswd() {
	"$PYTHON" -W ignore -c 'import crypt, sys
print("%s:%s" % (sys.argv[1], crypt.crypt(sys.argv[2], crypt.mksalt(crypt.METHOD_BLOWFISH))))' "$2" "$3" >"$1"
	grep -q '\$2b\$' "$1"
}

# make_ca DIR: a test CA and a server certificate for 127.0.0.1 (DIR/ca.pem, server.pem, server.key).
make_ca() {
	local d=$1
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=hvready test CA" \
		-keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null || return 1
	openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
		-keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null || return 1
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$d/ext.cnf"
	openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
		-days 2 -extfile "$d/ext.cnf" -out "$d/server.pem" 2>/dev/null
}

registry_cleanup() {
	stop_all ${REG_PIDS[@]+"${REG_PIDS[@]}"}
	REG_PIDS=()
}
