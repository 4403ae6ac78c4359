#!/usr/bin/env bash
# ctest: serial
# serve --node-conditions end to end, through the fake kube-apiserver (HTTPS,
# Leases with resourceVersion conflicts, node status patches merged into the
# served Nodes, every write recorded with its user):
#  - the PATCH bodies exactly: strategic merge of both condition types, only
#    for nodes that changed; lastTransitionTime kept while the status stays,
#    moved by a transition; one Event per transition (Node, and the gate's on
#    the aggregator's Pod), none for a new reason with the same status;
#  - two aggregators against one API server: only the Lease holder writes;
#    when it stops, the other takes over once the Lease expired, and carries
#    on from what the Nodes say (lastTransitionTime survives the change);
#  - no RBAC for nodes/status: a clear message, one refused patch per round.
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
FAKE="$HVREADY_SRC/tests/tools/fake_apiserver.py"
REPORTER="$HVREADY_SRC/tests/integration/lib/nc_reporter.py"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
# shellcheck source=../tools/serve_lib.sh
. "$HVREADY_SRC/tests/tools/serve_lib.sh"
serve_test_init
FAIL_GLOB="$tmp/record*.jsonl"
INTERVAL=2
LEASE_S=$((3 * INTERVAL))

# --- PKI: one CA for the fake API server and the aggregators ------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=hvready test CA" \
	-keyout "$tmp/ca.key" -out "$tmp/ca.crt" 2>/dev/null
mkcert() { # name
	openssl req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$tmp/$1.key" -out "$tmp/$1.csr" 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$tmp/$1.ext"
	openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial \
		-days 1 -extfile "$tmp/$1.ext" -out "$tmp/$1.crt" 2>/dev/null
	chmod 600 "$tmp/$1.key"
}
mkcert apiserver
mkcert aggregator
[ -s "$tmp/aggregator.crt" ] || fail "openssl made no certificates"

# --- a small cluster: three Ready nodes, CoreDNS, KubeVirt and CDI -------------
mkdir "$tmp/cluster"
$PY - "$tmp/cluster/nodes.json" <<'PY'
import json, sys
items = [{"apiVersion": "v1", "kind": "Node",
          "metadata": {"name": "harvester-node-%d" % i,
                       "uid": "0b6f3c1e-%d%d%d%d-4a4e-9d1e-5e2f1a00000%d" % (i, i, i, i, i),
                       "labels": {"kubernetes.io/hostname": "harvester-node-%d" % i}},
          "status": {"conditions": [
              {"type": "Ready", "status": "True", "reason": "KubeletReady",
               "message": "kubelet is posting ready status",
               "lastHeartbeatTime": "2026-09-05T13:19:00Z",
               "lastTransitionTime": "2026-08-01T08:00:00Z"}]}} for i in (1, 2, 3)]
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, open(sys.argv[1], "w"))
PY
cat >"$tmp/cluster/deployments.apps.json" <<'JSON'
{"apiVersion": "apps/v1", "kind": "Deployment",
 "metadata": {"name": "rke2-coredns-rke2-coredns", "namespace": "kube-system", "labels": {"k8s-app": "kube-dns"}},
 "spec": {"replicas": 2}, "status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2}}
JSON
cp "$HVREADY_SRC/examples/cluster/kubevirts.kubevirt.io.json" \
	"$HVREADY_SRC/examples/cluster/cdis.cdi.kubevirt.io.json" "$tmp/cluster/"
# The user of each token shows in the record: who wrote what.
echo '{"tok-a": {"user": "agg-a"}, "tok-b": {"user": "agg-b"}, "tok-c": {"user": "agg-c"}}' >"$tmp/users.json"

start_fake() { # name extra-args...
	local name=$1
	shift
	"$PY" "$FAKE" --fixtures "$tmp/cluster" --cert "$tmp/apiserver.crt" --key "$tmp/apiserver.key" \
		--token tok-a --token tok-b --token tok-c --require-auth --tokenreview "$tmp/users.json" \
		--record "$tmp/record-$name.jsonl" --log "$tmp/api-$name.jsonl" "$@" \
		>"$tmp/$name.port" 2>"$tmp/fake-$name.log" &
	pids+=($!)
	for _ in $(seq 1 100); do [ -s "$tmp/$name.port" ] && break; sleep 0.1; done
	FAKE_PORT=$(head -n1 "$tmp/$name.port" | tr -dc 0-9)
	[ -n "$FAKE_PORT" ] || fail "the fake apiserver $name did not start"
	: >>"$tmp/record-$name.jsonl"
}
kubeconfig() { # file port token
	cat >"$1" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: https://127.0.0.1:$2
    certificate-authority: $tmp/ca.crt
users:
- name: u
  user:
    token: $3
contexts:
- name: fake
  context: {cluster: fake, user: u}
current-context: fake
YAML
}
printf 'agent-secret-token' >"$tmp/agent.token"
chmod 600 "$tmp/agent.token"
declare -A AGGS AGG_PORT
AGG_CURL=(--cacert "$tmp/ca.crt")
# Each aggregator is listed for its reporter as soon as it is ready: its
# start-up grace (2 intervals without writing) must not run out first, or
# every node flaps to Unknown (NoFreshReport) and back.
start_agg() { # name kubeconfig urls-file
	AGG_WRAP=(env POD_NAME="agg-$1" POD_NAMESPACE=hvready-system)
	start_aggregator "$tmp/aggregator-$1.log" --tls-cert "$tmp/aggregator.crt" \
		--tls-key "$tmp/aggregator.key" --kubeconfig "$2" --token-file "$tmp/agent.token" \
		--interval "$INTERVAL" --node-conditions || fail "aggregator $1 did not start"
	AGGS[$1]=$AGG_PID
	AGG_PORT[$1]=${AGG_URL##*:}
	echo "$AGG_URL/v1/reports" >>"$3"
}
start_reporter() { # urls-file
	"$PY" "$REPORTER" "$tmp/state.json" "$1" "$tmp/ca.crt" "$tmp/agent.token" "$INTERVAL" \
		2>>"$tmp/reporter.log" &
	pids+=($!)
}
set_state() { # JSON
	printf '%s\n' "$1" >"$tmp/state.json.new"
	mv "$tmp/state.json.new" "$tmp/state.json"
}

# The checks a healthy node's conditions count as passing: the registry's host
# checks of the gate that nc_reporter.py reports PASS (all but host.nfs.probe,
# SKIP), and the cluster and API checks of the gate that pass on this fixture
# (4 of rwx, 5 of live-migration: a new one that passes here adds one).
host_of_gate() {
	"$HVREADY_BIN/hvready-aggregator" list-checks |
		awk -F'\t' -v g="$1" '$2 == "host" && $1 != "host.nfs.probe" && ("," $3 ",") ~ ("," g ",")' | wc -l
}
RWX_PASS=$(($(host_of_gate rwx) + 4))
LM_PASS=$(($(host_of_gate live-migration) + 5))

# rec: a Python check over the record of fake "main" (lines of {method, path,
# content_type, user, body}); helpers: patches(node), events(), lease().
rec() {
	"$PY" - "$tmp/record-main.jsonl" "$@" <<PY
import json, re, sys, ssl, urllib.request
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
args = sys.argv[2:]
RWX_PASS, LM_PASS = $RWX_PASS, $LM_PASS
def patches(node=None, user=None):
    return [l for l in lines if l["method"] == "PATCH" and
            (node is None or l["path"] == "/api/v1/nodes/%s/status" % node) and
            (user is None or l["user"] == user)]
def events(kind=None):
    return [l for l in lines if l["method"] == "POST" and l["path"].endswith("/events") and
            (kind is None or l["body"]["involvedObject"]["kind"] == kind)]
def cond(line, t):
    return [c for c in line["body"]["status"]["conditions"] if c["type"] == t][0]
def find_patch(node, t, **want):
    """The first patch of node whose condition t has the wanted fields."""
    for p in patches(node):
        if all(cond(p, t)[k] == v for k, v in want.items()):
            return p
    raise AssertionError("no patch of %s with %s %s" % (node, t, want))
def steady(node, t):
    """Heartbeats (patches that change nothing) may come any time."""
    ps = patches(node)
    return all(cond(p, t)["status"] == cond(ps[0], t)["status"] and
               cond(p, t)["lastTransitionTime"] == cond(ps[0], t)["lastTransitionTime"]
               for p in ps)
def lease():
    ctx = ssl.create_default_context(cafile="$tmp/ca.crt")
    req = urllib.request.Request("https://127.0.0.1:$FAKE_MAIN/apis/coordination.k8s.io/v1/"
                                 "namespaces/hvready-system/leases/hvready-aggregator",
                                 headers={"Authorization": "Bearer tok-c"})
    try:
        return json.load(urllib.request.urlopen(req, context=ctx, timeout=5))
    except OSError:
        return None
$(cat)
PY
}

start_fake main
FAKE_MAIN=$FAKE_PORT
kubeconfig "$tmp/kc-a" "$FAKE_MAIN" tok-a
kubeconfig "$tmp/kc-b" "$FAKE_MAIN" tok-b
set_state '{"nodes": ["harvester-node-1", "harvester-node-2", "harvester-node-3"]}'
start_reporter "$tmp/urls-main"
start_agg a "$tmp/kc-a" "$tmp/urls-main"
start_agg b "$tmp/kc-b" "$tmp/urls-main"

# --- first round: both conditions on every node, by the Lease holder only -----
all_three() { rec <<'PY'
assert {l["path"] for l in patches()} == {"/api/v1/nodes/harvester-node-%d/status" % i for i in (1, 2, 3)}
PY
}
wait_for $((8 * INTERVAL)) "both conditions written on the three nodes" all_three
written=$SECONDS
holder=$(rec <<'PY'
print(lease()["spec"]["holderIdentity"])
PY
)
case $holder in agg-a) other=b first=a ;; agg-b) other=a first=b ;; *) fail "Lease holder: '$holder'" ;; esac
echo "Lease hvready-system/hvready-aggregator held by $holder"
rec "agg-$first" "$LEASE_S" <<'PY' || fail "first round's PATCH bodies"
holder, lease_s = args[0], int(args[1])
l = lease()["spec"]
assert l["leaseDurationSeconds"] == lease_s, l
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", l["renewTime"]), l
assert all(p["user"] == holder for p in patches()), [p["user"] for p in patches()]
assert len(patches()) == 3, len(patches())
ts = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
for p in patches():
    assert p["content_type"] == "application/strategic-merge-patch+json", p
    b = p["body"]
    assert list(b) == ["status"] and list(b["status"]) == ["conditions"], b
    conds = b["status"]["conditions"]
    assert [c["type"] for c in conds] == ["HvreadyRWXReady", "HvreadyLiveMigrationReady"], conds
    for c in conds:
        assert list(c) == ["type", "status", "reason", "message", "lastHeartbeatTime",
                           "lastTransitionTime"], c
        assert ts.fullmatch(c["lastHeartbeatTime"]) and c["lastTransitionTime"] == c["lastHeartbeatTime"], c
    assert conds[0]["status"] == "True" and conds[0]["reason"] == "RWXReady", conds
    assert conds[0]["message"] == "all %d checks of the rwx gate pass for this node" % RWX_PASS, conds
    assert conds[1]["status"] == "True" and conds[1]["reason"] == "LiveMigrationReady", conds
    assert conds[1]["message"] == "all %d checks of the live-migration gate pass for this node" % LM_PASS, conds
assert events() == [], events()
PY
echo "first round: 3 strategic-merge patches with both conditions, by $holder, no event"

# --- an unchanged verdict is not written again --------------------------------
# 3 intervals (+1 s: SECONDS counts whole seconds) from the first patches,
# however long the checks above took on a loaded machine: the first heartbeat
# (NC_HEARTBEAT_MAX) comes 15 s after them at the earliest.
left=$((written + 3 * INTERVAL + 1 - SECONDS))
[ "$left" -le 0 ] || sleep "$left"
rec <<'PY' || fail "unchanged nodes were patched again"
assert len(patches()) == 3, [(p["path"], p["user"]) for p in patches()]
PY
grep -q "Lease hvready-system/hvready-aggregator is held by agg-$first; this replica (agg-$other) does not write" \
	"$tmp/aggregator-$other.log" || fail "agg-$other does not say it waits"
echo "unchanged verdict: no patch for $((3 * INTERVAL))s; agg-$other stands by"

# --- node 2: NFS kernel client missing → rwx False, one Event each ------------
set_state '{"nodes": ["harvester-node-1", "harvester-node-2", "harvester-node-3"],
 "overrides": {"harvester-node-2": {"host.nfs.kernel": ["FAIL", "no NFSv4.1 client: nfsv4 not loaded, not built in, not in modules.dep"]}}}'
rwx_false() { rec <<'PY'
assert any(cond(p, "HvreadyRWXReady")["status"] == "False" for p in patches("harvester-node-2"))
PY
}
wait_for $((5 * INTERVAL)) "node 2 rwx False" rwx_false
two_events() { rec <<<'assert len(events()) >= 2'; }
wait_for $((4 * INTERVAL)) "two events" two_events
sleep "$INTERVAL"
rec "agg-$first" <<'PY' || fail "the transition"
holder = args[0]
first = patches("harvester-node-2")[0]
last = find_patch("harvester-node-2", "HvreadyRWXReady", status="False")
for n in ("harvester-node-1", "harvester-node-3"):
    assert steady(n, "HvreadyRWXReady") and steady(n, "HvreadyLiveMigrationReady"), patches(n)
r0, r1 = cond(first, "HvreadyRWXReady"), cond(last, "HvreadyRWXReady")
assert r1["status"] == "False" and r1["reason"] == "NFSKernelClientFailed", r1
assert r1["message"] == ("host.nfs.kernel: no NFSv4.1 client: nfsv4 not loaded, not built in, "
                         "not in modules.dep"), r1
assert r1["lastTransitionTime"] > r0["lastTransitionTime"], (r0, r1)
assert r1["lastTransitionTime"] == r1["lastHeartbeatTime"], r1
m0, m1 = cond(first, "HvreadyLiveMigrationReady"), cond(last, "HvreadyLiveMigrationReady")
assert m1["status"] == "True" and m1["lastTransitionTime"] == m0["lastTransitionTime"], (m0, m1)
assert m1["lastHeartbeatTime"] == r1["lastHeartbeatTime"], m1
ev = events("Node")
assert len(ev) == 1, ev
e = ev[0]
assert e["path"] == "/api/v1/namespaces/default/events" and e["user"] == holder, e
b = e["body"]
assert b["involvedObject"] == {"apiVersion": "v1", "kind": "Node", "name": "harvester-node-2",
                               "uid": "0b6f3c1e-2222-4a4e-9d1e-5e2f1a000002"}, b
assert b["metadata"]["namespace"] == "default" and b["metadata"]["name"].startswith("harvester-node-2.")
assert b["reason"] == "HvreadyGateChanged" and b["type"] == "Warning" and b["count"] == 1, b
assert b["message"].startswith("HvreadyRWXReady changed from True to False: NFSKernelClientFailed: "
                               "host.nfs.kernel: no NFSv4.1 client"), b
assert b["reportingComponent"] == "hvready-aggregator" and b["reportingInstance"] == holder, b
pe = events("Pod")
assert len(pe) == 1, pe
p = pe[0]["body"]
assert pe[0]["path"] == "/api/v1/namespaces/hvready-system/events", pe
assert p["involvedObject"]["kind"] == "Pod" and p["involvedObject"]["name"] == holder, p
assert p["involvedObject"]["namespace"] == "hvready-system", p
assert p["message"] == "gate rwx changed from PASS to FAIL: host.nfs.kernel on harvester-node-2", p
assert p["type"] == "Warning", p
PY
echo "node 2 rwx True -> False: one patch, lastTransitionTime moved for rwx only, one Node and one Pod event"

# --- another reason, same status: patched, lastTransitionTime kept, no event ---
set_state '{"nodes": ["harvester-node-1", "harvester-node-2", "harvester-node-3"],
 "overrides": {"harvester-node-2": {"host.nfs.client": ["FAIL", "no mount.nfs or mount.nfs4 in /sbin, /usr/sbin, /usr/local/sbin"]}}}'
new_reason() { rec <<'PY'
assert cond(patches("harvester-node-2")[-1], "HvreadyRWXReady")["reason"] == "NFSClientFailed"
PY
}
wait_for $((5 * INTERVAL)) "node 2 rwx reason NFSClientFailed" new_reason
sleep "$INTERVAL"
rec <<'PY' || fail "reason change"
a = cond(find_patch("harvester-node-2", "HvreadyRWXReady", reason="NFSKernelClientFailed"), "HvreadyRWXReady")
b = cond(find_patch("harvester-node-2", "HvreadyRWXReady", reason="NFSClientFailed"), "HvreadyRWXReady")
assert b["status"] == "False" and b["lastTransitionTime"] == a["lastTransitionTime"], (a, b)
assert b["lastHeartbeatTime"] > a["lastHeartbeatTime"], (a, b)
assert len(events("Node")) == 1 and len(events("Pod")) == 1, events()
PY
echo "node 2 reason NFSKernelClientFailed -> NFSClientFailed: patched, lastTransitionTime kept, no event"

# --- the holder stops: the other takes over after the Lease expired ------------
kill "${AGGS[$first]}"
wait "${AGGS[$first]}" 2>/dev/null || true
# Counted once it exited: a round in flight at SIGTERM still completes.
before=$(wc -l <"$tmp/record-main.jsonl")
t0=$SECONDS
took_over() { rec "agg-$other" <<<'assert lease()["spec"]["holderIdentity"] == args[0]'; }
wait_for $((3 * LEASE_S + 10)) "agg-$other holds the Lease" took_over
took=$((SECONDS - t0))
[ "$took" -ge $((LEASE_S - INTERVAL)) ] || fail "agg-$other took the Lease after ${took}s, before it expired"
rec "agg-$first" "$before" <<'PY' || fail "someone else wrote while agg-$first held the Lease"
assert all(l["user"] == args[0] for l in lines[:int(args[1])]), [l["user"] for l in lines]
PY
echo "agg-$first stopped: agg-$other holds the Lease after ${took}s (lease ${LEASE_S}s)"
# It waits for a list of the Nodes made after the takeover, then compares with
# what they carry: nothing changed, nothing to write but due heartbeats.
sleep $((3 * INTERVAL))
rec "agg-$other" "$before" <<'PY' || fail "after the takeover"
after = lines[int(args[1]):]
assert all(l["user"] == args[0] for l in after), after
for l in after:
    assert l["method"] == "PATCH", l  # heartbeats at most: no transition, no event
for n in ("harvester-node-1", "harvester-node-2", "harvester-node-3"):
    assert steady(n, "HvreadyLiveMigrationReady"), patches(n)
PY

# --- the new holder writes the next transition, from the Nodes' own history ----
set_state '{"nodes": ["harvester-node-1", "harvester-node-2", "harvester-node-3"]}'
rwx_true() { rec <<'PY'
assert cond(patches("harvester-node-2")[-1], "HvreadyRWXReady")["status"] == "True"
PY
}
wait_for $((5 * INTERVAL)) "node 2 rwx True again" rwx_true
sleep "$INTERVAL"
rec "agg-$other" <<'PY' || fail "the transition by the new holder"
p = patches("harvester-node-2")
last = [x for x in p if x["user"] == args[0] and cond(x, "HvreadyRWXReady")["status"] == "True"][0]
assert cond(last, "HvreadyRWXReady")["message"] == "all %d checks of the rwx gate pass for this node" % RWX_PASS, last
r, m = cond(last, "HvreadyRWXReady"), cond(last, "HvreadyLiveMigrationReady")
assert r["reason"] == "RWXReady" and r["lastTransitionTime"] == r["lastHeartbeatTime"], r
# live-migration never changed: its lastTransitionTime is the first holder's first one
assert m["lastTransitionTime"] == cond(p[0], "HvreadyLiveMigrationReady")["lastTransitionTime"], (m, p[0])
ev = events("Node")
assert len(ev) == 2, ev
b = ev[1]["body"]
assert ev[1]["user"] == args[0] and b["type"] == "Normal", ev[1]
assert b["message"].startswith("HvreadyRWXReady changed from False to True: RWXReady: all %d checks" % RWX_PASS), b
pe = events("Pod")
assert len(pe) == 2 and pe[1]["user"] == args[0], pe
assert pe[1]["body"]["message"] == "gate rwx changed from FAIL to PASS", pe[1]
assert pe[1]["body"]["type"] == "Normal" and pe[1]["body"]["involvedObject"]["name"] == args[0], pe[1]
PY
echo "agg-$other: node 2 rwx False -> True, lastTransitionTime of live-migration carried over, one event"
rec <<'PY' || fail "a lastTransitionTime moved without a change of status"
beats = 0
for n in ("harvester-node-1", "harvester-node-2", "harvester-node-3"):
    ps = patches(n)
    for a, b in zip(ps, ps[1:]):
        for t in ("HvreadyRWXReady", "HvreadyLiveMigrationReady"):
            ca, cb = cond(a, t), cond(b, t)
            assert (ca["status"] == cb["status"]) == (ca["lastTransitionTime"] == cb["lastTransitionTime"]), (n, ca, cb)
        beats += a["body"] == b["body"] or all(
            cond(a, t)["status"] == cond(b, t)["status"] and cond(a, t)["reason"] == cond(b, t)["reason"]
            for t in ("HvreadyRWXReady", "HvreadyLiveMigrationReady"))
print("%d patches in all, %d of them heartbeats; lastTransitionTime moved only with the status" % (len(patches()), beats))
PY

# --- no RBAC for nodes/status: one refused patch per round, a clear message -----
start_fake denied --forbid nodes/status
kubeconfig "$tmp/kc-c" "$FAKE_PORT" tok-c
start_reporter "$tmp/urls-denied"
start_agg c "$tmp/kc-c" "$tmp/urls-denied"
denied() { grep -q 'node harvester-node-[123]: HTTP 403 (nodes "harvester-node-[123]" is forbidden: User "agg-c" cannot patch resource "nodes/status" in API group "" at the cluster scope); the aggregator needs patch on nodes/status (deploy/overlays/node-conditions)' "$tmp/aggregator-c.log"; }
wait_for $((8 * INTERVAL)) "the 403 message" denied
sleep "$INTERVAL"
rounds=$(grep -c 'needs patch on nodes/status' "$tmp/aggregator-c.log")
tries=$(grep -c '"PATCH"' "$tmp/record-denied.jsonl")
[ "$tries" -le $((rounds + 1)) ] || fail "$tries patches refused in $rounds rounds: it should stop at the first 403"
grep -q "2 nodes left for the next round (access denied)" "$tmp/aggregator-c.log" || fail "no word of the nodes left"
curl -sf --cacert "$tmp/ca.crt" "https://127.0.0.1:${AGG_PORT[c]}/healthz" >/dev/null || fail "aggregator c stopped serving"
echo "no RBAC: '$(grep -m1 -o 'the aggregator needs patch on nodes/status[^,]*' "$tmp/aggregator-c.log")', $tries patches in $rounds rounds"

# --- a clean stop (under sanitizers: no leak, no error report) ------------------
for n in "$other" c; do
	stop_pid "${AGGS[$n]}" || fail "aggregator $n exited with $? on SIGTERM"
done
if grep -l "Sanitizer" "$tmp"/aggregator-*.log; then
	fail "sanitizer reports in the aggregators' logs"
fi
echo PASS
