#!/usr/bin/env bash
# A canary's result as proof in report's gates (docs/canary.md#results-in-the-gates):
# results made by real `canary` runs against the fake kube-apiserver's canary
# simulation, then `report --canary-result FILE` of examples/cluster at a chosen
# time (SOURCE_DATE_EPOCH):
#  - a passing canary.rwx: the rwx gate shows "proved by canary run RUN, 2h05m ago"
#    in JSON (gates.rwx.canary, the "canary" member, the finding) and text;
#  - without a result the gates are what they were;
#  - older than --canary-max-age (default 7d): WARN "stale", never PASS; a larger
#    --canary-max-age makes it proof again;
#  - a failing canary.rwx blocks the rwx gate (FAIL, exit 1 for --gate rwx); one the
#    canary could not decide (UNKNOWN) is WARN "not proved";
#  - malformed input (truncated, another schema, a FIFO, a directory, a missing
#    file, a step that is not a canary's, no finished_at): exit 2, one line.
# ctest: serial
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
cd "$HVREADY_SRC"
. "$HVREADY_SRC/tests/tools/canary_test_lib.sh"
canary_test_init

# canary NAME FAKE_ARGS...: a fresh fake and one canary run into $TMP/NAME.json
canary() {
	local name=$1
	shift
	fresh_fake "$name" "$@"
	kt_run_timeout 40 "$AGG" canary --kubeconfig "$TMP/$name.kc" --timeout 30s --format json \
		>"$TMP/$name.json" 2>"$TMP/$name.stderr" || true
	[ -s "$TMP/$name.json" ] || fail "$name: the canary wrote nothing: $(cat "$TMP/$name.stderr")"
}

# report NAME AT_EPOCH ARGS...: report of examples/cluster at that time; RC, $TMP/NAME.out
report() {
	local name=$1 at=$2
	shift 2
	RC=0
	SOURCE_DATE_EPOCH=$at kt_run_timeout 30 "$AGG" report --cluster-state examples/cluster \
		--node-reports examples/node-reports "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || RC=$?
}

canary ok
canary mismatch --canary-fault read-mismatch
canary api500 --fail-post 'pods:1:100'
kt_cleanup
RUN=$(field "$TMP/ok.json" 'd["run"]')
[ "$(field "$TMP/ok.json" 'd["status"]')" = PASS ] || fail "ok: the canary did not pass: $(cat "$TMP/ok.json")"
[ "$(field "$TMP/mismatch.json" '[f["status"] for f in d["findings"] if f["check"] == "canary.rwx"][0]')" = FAIL ] ||
	fail "mismatch: canary.rwx did not fail"
END=$(date -d "$(field "$TMP/ok.json" 'd["finished_at"]')" +%s)
AT=$((END + 2 * 3600 + 5 * 60)) # 2h05m later

# 1. the baseline: no result, the rwx gate PASSes without a canary word
report base "$AT" --format json
[ "$(field "$TMP/base.out" 'd["gates"]["rwx"]["status"]')" = PASS ] || fail "base: rwx is not PASS"
[ "$(field "$TMP/base.out" '"canary" in d or any("canary" in g for g in d["gates"].values())')" = False ] ||
	fail "base: a canary member without a result"
field "$TMP/base.out" '{k: g["status"] for k, g in d["gates"].items()}' >"$TMP/base.gates"

# 2. a fresh pass: proof with its age, in JSON and text
report fresh "$AT" --format json --canary-result "$TMP/ok.json"
[ "$RC" -eq 0 ] || fail "fresh: exit $RC: $(cat "$TMP/fresh.err")"
[ "$(field "$TMP/fresh.out" 'd["gates"]["rwx"]["status"]')" = PASS ] || fail "fresh: rwx is not PASS"
got=$(field "$TMP/fresh.out" 'd["gates"]["rwx"].get("canary")')
[ "$got" = "proved by canary run $RUN, 2h05m ago" ] || fail "fresh: gates.rwx.canary is \"$got\""
[ "$(field "$TMP/fresh.out" 'd["gates"]["preinstall"].get("canary")')" = None ] ||
	fail "fresh: the preinstall gate claims canary proof"
[ "$(field "$TMP/fresh.out" '[d["canary"][k] for k in ("run", "age_seconds", "max_age_seconds", "stale")]')" = \
	"[\"$RUN\", 7500, 604800, false]" ] || fail "fresh: the canary member: $(field "$TMP/fresh.out" 'd["canary"]')"
got=$(field "$TMP/fresh.out" '[(f["status"], f["message"], f["evidence"]["canary_age_seconds"]) for f in d["findings"] if f["check"] == "canary.rwx"]')
[[ $got == "[[\"PASS\", \"proved by canary run $RUN, 2h05m ago: a token written on hv-node-1 was read back on hv-node-2 "*", 7500]]" ]] ||
	fail "fresh: the canary.rwx finding: $got"
report freshtext "$AT" --canary-result "$TMP/ok.json"
grep -Eq "^  rwx +PASS +proved by canary run $RUN, 2h05m ago$" "$TMP/freshtext.out" ||
	fail "fresh text: no proof on the rwx gate line: $(grep -n '^  rwx' "$TMP/freshtext.out")"
grep -q "^Canary: run $RUN (PASS) ended " "$TMP/freshtext.out" || fail "fresh text: no Canary line"
report freshmd "$AT" --format markdown --canary-result "$TMP/ok.json"
grep -Fq "| rwx | **PASS** | 0; proved by canary run $RUN, 2h05m ago |" "$TMP/freshmd.out" ||
	fail "fresh markdown: no proof in the gate table"

# 3. stale: eight days later it proves nothing (WARN, never PASS); --canary-max-age 30d: proof
report stale $((END + 8 * 86400)) --format json --canary-result "$TMP/ok.json"
got=$(field "$TMP/stale.out" '[(f["status"], f["message"]) for f in d["findings"] if f["check"] == "canary.rwx"][0]')
[[ $got == "[\"WARN\", \"stale: canary run $RUN ended 8d0h ago, past --canary-max-age 7d0h, so it proves nothing now; it was PASS: "* ]] ||
	fail "stale: canary.rwx is $got"
[ "$(field "$TMP/stale.out" 'd["gates"]["rwx"]["status"]')" = WARN ] || fail "stale: rwx is not WARN"
[ "$(field "$TMP/stale.out" 'd["gates"]["rwx"]["canary"]')" = "canary run $RUN is stale (8d0h ago), no proof" ] ||
	fail "stale: gates.rwx.canary: $(field "$TMP/stale.out" 'd["gates"]["rwx"]')"
[ "$(field "$TMP/stale.out" 'd["canary"]["stale"]')" = True ] || fail "stale: canary.stale is not true"
report staletext $((END + 8 * 86400)) --canary-result "$TMP/ok.json"
grep -q "proved by" "$TMP/staletext.out" && fail "stale text: stale proof shown as proof"
report longer $((END + 8 * 86400)) --format json --canary-result "$TMP/ok.json" --canary-max-age 30d
[ "$(field "$TMP/longer.out" 'd["gates"]["rwx"]["canary"]')" = "proved by canary run $RUN, 8d0h ago" ] ||
	fail "--canary-max-age 30d: $(field "$TMP/longer.out" 'd["gates"]["rwx"]')"

# 4. a failing step blocks its gate like any FAIL
MRUN=$(field "$TMP/mismatch.json" 'd["run"]')
report failed "$AT" --format json --canary-result "$TMP/mismatch.json" --gate rwx
[ "$RC" -eq 1 ] || fail "failed: exit $RC, want 1 for --gate rwx"
[ "$(field "$TMP/failed.out" 'd["gates"]["rwx"]["status"]')" = FAIL ] || fail "failed: rwx is not FAIL"
got=$(field "$TMP/failed.out" '[(b["check"], b["status"], b["message"][:40]) for b in d["gates"]["rwx"]["blockers"]]')
[[ $got == *"[\"canary.rwx\", \"FAIL\", \"canary run $MRUN, "* ]] || fail "failed: the rwx blockers: $got"
# the other gates are as without the result
field "$TMP/failed.out" '{k: g["status"] for k, g in d["gates"].items() if k != "rwx"}' >"$TMP/failed.gates"
"$PY" -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("rwx")
sys.exit(a != b)' "$TMP/base.gates" "$TMP/failed.gates" || fail "failed: other gates changed: $(cat "$TMP/failed.gates")"

# 4b. a step the canary could not decide (a 500 mid-run): no proof, WARN, never PASS nor UNKNOWN
[ "$(field "$TMP/api500.json" '[f["status"] for f in d["findings"] if f["check"] == "canary.rwx"][0]')" = UNKNOWN ] ||
	fail "api500: canary.rwx is not UNKNOWN"
report undecided "$AT" --format json --canary-result "$TMP/api500.json"
got=$(field "$TMP/undecided.out" '[(f["status"], f["message"][:18]) for f in d["findings"] if f["check"] == "canary.rwx"][0]')
[ "$got" = '["WARN", "not proved: canary"]' ] || fail "undecided: canary.rwx is $got"
[ "$(field "$TMP/undecided.out" 'd["gates"]["rwx"]["status"]')" = WARN ] || fail "undecided: rwx is not WARN"

# 5. bad input: exit 2, one line naming the file and why
bad() {
	local name=$1 file=$2 want=$3
	report "bad-$name" "$AT" --canary-result "$file"
	[ "$RC" -eq 2 ] || fail "bad $name: exit $RC, want 2"
	[ "$(wc -l <"$TMP/bad-$name.err")" -eq 1 ] || fail "bad $name: not one line: $(cat "$TMP/bad-$name.err")"
	# shellcheck disable=SC2053
	[[ $(cat "$TMP/bad-$name.err") == $want ]] || fail "bad $name: says $(cat "$TMP/bad-$name.err")"
	[ ! -s "$TMP/bad-$name.out" ] || fail "bad $name: a report was printed"
}
head -c 200 "$TMP/ok.json" >"$TMP/trunc.json"
bad truncated "$TMP/trunc.json" "*--canary-result $TMP/trunc.json: not JSON: *"
bad schema "$TMP/base.out" "*--canary-result $TMP/base.out: not a canary result (schema \"hvready.report/v1\"*"
mkfifo "$TMP/fifo"
bad fifo "$TMP/fifo" "*--canary-result $TMP/fifo: not a regular file"
bad dir "$TMP" "*--canary-result $TMP: not a regular file"
bad missing "$TMP/nope.json" "*--canary-result $TMP/nope.json: No such file or directory"
sed 's/"canary.rwx"/"host.kvm"/' "$TMP/ok.json" >"$TMP/notstep.json"
bad notstep "$TMP/notstep.json" "*findings\[0\]: \"host.kvm\" is not a canary step"
grep -v '"finished_at"' "$TMP/ok.json" >"$TMP/noend.json"
bad noend "$TMP/noend.json" "*no \"finished_at\": the result cannot be aged*"
report badage "$AT" --canary-result "$TMP/ok.json" --canary-max-age 0
[ "$RC" -eq 2 ] || fail "--canary-max-age 0: exit $RC, want 2"
echo "PASS: canary results in report's gates"
