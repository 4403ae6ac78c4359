#!/usr/bin/env bash
# No credential in any output of either program. Secrets are planted where
# operators put them: the proxy RKE2 gives containerd (HTTP_PROXY with
# user:pass in /etc/default/rke2-server), registries.yaml (a mirror endpoint
# with userinfo, one with a token in its query, configs.auth with username,
# password, auth and identity_token), the Longhorn backup target (BackupTarget
# spec.backupTargetURL and its condition message, the backup-target setting,
# Harvester's backup-target setting JSON), a kubeconfig's bearer token and
# password, and the aggregator's --token-file. Then every output is searched
# for them: the agent's text, JSON and msgpack reports and its stderr; the
# aggregator's report in text, JSON, Markdown and HTML; serve's /v1/nodes/NAME,
# /v1/verdict, the dashboard, /metrics and its log. The redacted values must
# still be there ("***@"), or the test would prove nothing.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"

serve_test_init
FAIL_TAIL=40

closed_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
CLOSED=$(closed_port)
export HVREADY_TEST_DEFAULT_ENDPOINT="docker.io=http://127.0.0.1:$CLOSED"

SECRETS=(S3cretProxyPw S3cretProxyUser S3cretMirrorPw S3cretQueryTok S3cretCfgPass S3cretCfgAuth
	S3cretIdentTok S3cretBackupPw S3cretBackupQuery S3cretHvSecretKey S3cretKubeToken
	S3cretKubePass)

# A node of the fixture with RKE2's proxy and registries.yaml full of credentials.
ROOT=$(host_root_copy a-debian-intel)
mkdir -p "$ROOT/etc/rancher/rke2" "$ROOT/etc/default" "$ROOT/usr/local/bin" \
	"$ROOT/var/lib/rancher/rke2/agent/etc/containerd"
: >"$ROOT/usr/local/bin/rke2"
cat >"$ROOT/etc/default/rke2-server" <<EOT
HTTP_PROXY=http://S3cretProxyUser:S3cretProxyPw@127.0.0.1:$CLOSED
HTTPS_PROXY="http://S3cretProxyUser:S3cretProxyPw@127.0.0.1:$CLOSED"
NO_PROXY=127.0.0.0/8,localhost
EOT
cat >"$ROOT/etc/rancher/rke2/registries.yaml" <<EOT
mirrors:
  docker.io:
    endpoint:
      - "https://mirroruser:S3cretMirrorPw@127.0.0.1:$CLOSED"
      - "http://127.0.0.1:$CLOSED/v2?token=S3cretQueryTok"
configs:
  "127.0.0.1:$CLOSED":
    auth:
      username: S3cretCfgUser
      password: S3cretCfgPass
      auth: S3cretCfgAuth
      identity_token: S3cretIdentTok
EOT
printf '{"share_manager_image": "longhornio/longhorn-share-manager:v1.11.2"}\n' >"$tmp/targets.json"

A=(--host-root "$ROOT" --node harvester-node-1 --skip host.nfs.probe --timeout 5
	--probe-targets "$tmp/targets.json")
for fmt in text json msgpack; do
	rc=0
	"$HVREADY_BIN/hvready-agent" check "${A[@]}" --format "$fmt" --output "$tmp/agent.$fmt" \
		2>"$tmp/agent-$fmt.stderr" || rc=$?
	[ "$rc" -ne 2 ] && [ -s "$tmp/agent.$fmt" ] || fail "agent check --format $fmt (exit $rc)"
done

# The cluster state: the examples with credentials in the backup target settings.
CS=$tmp/cluster
cp -a "$HVREADY_SRC/examples/cluster" "$CS"
python3 - "$CS" <<'PY'
import json, sys, os
d = sys.argv[1]
def edit(name, fn):
    p = os.path.join(d, name)
    doc = json.load(open(p))
    for it in doc["items"]:
        fn(it)
    json.dump(doc, open(p, "w"))
url = "cifs://bkuser:S3cretBackupPw@backup.example.internal/share?secret=S3cretBackupQuery"
def bt(it):
    it["spec"]["backupTargetURL"] = url
    it["status"]["available"] = False
    for c in it["status"]["conditions"]:
        if c["type"] == "Unavailable":
            c.update(status="True", reason="Unavailable",
                     message="failed to init backup target %s: mount error" % url)
edit("backuptargets.longhorn.io.json", bt)
def lhs(it):
    if it["metadata"]["name"] == "backup-target":
        it["value"] = url
edit("settings.longhorn.io.json", lhs)
def hvs(it):
    if it["metadata"]["name"] == "backup-target":
        it["value"] = json.dumps({"type": "s3", "endpoint": "https://u:S3cretBackupPw@s3.example",
                                  "accessKeyId": "AKIAEXAMPLE", "secretAccessKey": "S3cretHvSecretKey",
                                  "bucketName": "b", "bucketRegion": "us-east-1"})
edit("settings.harvesterhci.io.json", hvs)
PY
mkdir -p "$tmp/reports"
cp "$tmp/agent.msgpack" "$tmp/reports/harvester-node-1.msgpack"

for fmt in text json markdown html; do
	rc=0
	"$HVREADY_BIN/hvready-aggregator" report --cluster-state "$CS" --node-reports "$tmp/reports" \
		--format "$fmt" >"$tmp/report.$fmt" 2>"$tmp/report-$fmt.stderr" || rc=$?
	[ "$rc" -ne 2 ] && [ -s "$tmp/report.$fmt" ] || fail "report --format $fmt (exit $rc)"
done

# A kubeconfig with a bearer token and a password, its server closed: the
# errors name the server, never the credentials.
cat >"$tmp/kubeconfig" <<EOT
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:$CLOSED"}}]
users:
  - name: u
    user: {token: S3cretKubeToken, username: admin, password: S3cretKubePass}
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
EOT
"$HVREADY_BIN/hvready-aggregator" report --kubeconfig "$tmp/kubeconfig" --format json \
	>"$tmp/kube.json" 2>"$tmp/kube.stderr" || true

# serve: the node's report posted with the --token-file token.
echo S3cretServeToken >"$tmp/token"
chmod 600 "$tmp/token"
SECRETS+=(S3cretServeToken)
start_aggregator "$tmp/agg.log" --token-file "$tmp/token" --cluster-state "$CS" --interval 5 ||
	fail "the aggregator did not start"
code=$(curl -sS -o "$tmp/post.out" -w '%{http_code}' --max-time 10 \
	-H "Authorization: Bearer S3cretServeToken" -H "Content-Type: application/x-msgpack" \
	--data-binary "@$tmp/agent.msgpack" "$AGG_URL/v1/reports")
[ "$code" = 200 ] || [ "$code" = 204 ] || [ "$code" = 202 ] || fail "POST /v1/reports: $code"
wait_for 15 "node harvester-node-1 served" \
	curl -fsS --max-time 5 -o "$tmp/route-node.json" "$AGG_URL/v1/nodes/harvester-node-1"
for route in /v1/verdict / /metrics; do
	name=$(echo "$route" | tr -c 'a-z0-9\n' _)
	curl -fsS --max-time 10 -o "$tmp/route$name.out" "$AGG_URL$route" || fail "GET $route"
done
stop_aggregator || fail "the aggregator did not exit cleanly"

leaks=0
for s in "${SECRETS[@]}"; do
	if grep -l -a -- "$s" "$tmp"/agent.* "$tmp"/*.stderr "$tmp"/report.* "$tmp"/kube.json \
		"$tmp"/route* "$tmp"/agg.log "$tmp"/post.out 2>/dev/null; then
		echo "LEAK: $s is in the files above" >&2
		grep -a -o -- ".\{0,60\}$s.\{0,20\}" "$tmp"/agent.* "$tmp"/*.stderr "$tmp"/report.* \
			"$tmp"/kube.json "$tmp"/route* "$tmp"/agg.log 2>/dev/null | head -5 >&2
		leaks=$((leaks + 1))
	fi
done
[ "$leaks" -eq 0 ] || fail "$leaks secrets found in outputs"
# The values are there, redacted: the search above looked where they are.
grep -q 'http://\*\*\*@127.0.0.1' "$tmp/agent.json" ||
	fail "the proxy is not in the agent's evidence at all: $(grep -o '"proxy"[^}]*' "$tmp/agent.json")"
grep -q 'cifs://\*\*\*@backup.example.internal' "$tmp/report.json" ||
	fail "the backup target URL is not in the report at all"
grep -q '\*\*\*@127.0.0.1' "$tmp/route-node.json" || fail "the node's evidence has no redacted proxy"
grep -q 'mirrors.*endpoint\[0\].*https://\*\*\*@127.0.0.1' "$tmp/agent.json" ||
	fail "the refused mirror endpoint is not in the evidence"
# (the text report wraps messages: read it as one line)
tr -s ' \n' '  ' <"$tmp/report.text" | grep -q 'failed to init backup target cifs://\*\*\*@' ||
	fail "the backup target's condition message is not in the text report"
echo "PASS: ${#SECRETS[@]} planted secrets in none of the outputs"
