#!/usr/bin/env bash
# Every host check builds its finding one way: it collects notes and remedies in
# a judge (common/judge.h) and sets the finding's status, message and remedy
# once, with judge_apply() (docs/development.md, "Adding a check"). This fails
# when an agent/check_*.c sets them by hand (finding_set, finding_remedy, or an
# assignment to a finding's status/message/remediation).
#
# Allowed exceptions, "FILE: reason" (none today). Outside agent/check_*.c and
# so not scanned: agent/agent.c and agent/daemon.c, whose findings are the
# runner's own (a check not selected, not finished at its deadline, a network
# namespace or host root that cannot be entered), not a check's judgement.
set -euo pipefail
: "${HVREADY_SRC:?}"
allowed=(
	agent/check_table.c # the table of runners: it builds no finding
)
cd "$HVREADY_SRC"
shopt -s nullglob
files=(agent/check_*.c)
[ ${#files[@]} -gt 0 ] || { echo "checks_judge: no agent/check_*.c under $HVREADY_SRC" >&2; exit 1; }
bad=""
judged=0
for f in "${files[@]}"; do
	skip=0
	for a in "${allowed[@]}"; do [ "$f" = "$a" ] && skip=1; done
	[ $skip = 1 ] && continue
	hits=$(grep -nE '\bfinding_(set|remedy)[[:space:]]*\(|->(status|message|remediation)[[:space:]]*=[^=]' "$f" || true)
	[ -z "$hits" ] || bad+="$f:"$'\n'"$hits"$'\n'
	if grep -q 'judge_apply(' "$f"; then
		judged=$((judged + 1))
	else
		bad+="$f: never calls judge_apply()"$'\n'
	fi
done
if [ -n "$bad" ]; then
	echo "checks_judge: host checks must set their findings through judge.h (judge_note, judge_remedy, judge_apply):" >&2
	printf '%s' "$bad" >&2
	exit 1
fi
echo "checks_judge: $judged host checks judge through judge.h"
