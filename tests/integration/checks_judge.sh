#!/usr/bin/env bash
# Every check, the agent's on a host (agent/check_*.c) and the aggregator's on
# the cluster (aggregator/check_*.c), builds its findings one way: it collects
# notes and remedies in a judge (common/judge.h) and sets each finding's
# status, message and remedy once, with judge_apply() or judge_decide()
# (docs/development.md, "Adding a check"). This fails when a check file sets
# them by hand (finding_set, finding_remedy, or an assignment to a status/
# message/remediation), or never calls judge_apply() or judge_decide().
#
# Outside the check files and so not scanned: agent/agent.c, agent/daemon.c and
# aggregator/engine.c, whose findings are the runner's own (a check not
# selected, not finished at its deadline, that produced no result), not a
# check's judgement; aggregator/engine.c's agg_not_applicable() judges too.
set -euo pipefail
: "${HVREADY_SRC:?}"
# Files that build no finding: "FILE # reason".
allowed_files=(
	agent/check_table.c # the table of runners: it builds no finding
)
# Lines that match the pattern but set no finding: "FILE:TEXT" (TEXT a fixed
# string of the line), each with its reason.
allowed_lines=(
	# The VM table's row (struct vm_row, the report's per-VM section), not a
	# finding: lm_one() collects a VMI's reasons, worst level and remedies once
	# (struct lm_eval) and gives them to both the row and the VMI's finding;
	# the finding itself is judged through judge.h.
	'aggregator/check_vm.c:row->status = e.level;'
	# The importer's last error (struct import_state), read from the pod and the
	# DataVolume's conditions: evidence, not a finding's message.
	'aggregator/check_cdi.c:st->message = m;'
)
cd "$HVREADY_SRC"
shopt -s nullglob
files=(agent/check_*.c aggregator/check_*.c)
for dir in agent aggregator; do
	set -- "$dir"/check_*.c
	[ -e "$1" ] || { echo "checks_judge: no $dir/check_*.c under $HVREADY_SRC" >&2; exit 1; }
done
bad=""
judged=0
for f in "${files[@]}"; do
	skip=0
	for a in "${allowed_files[@]}"; do [ "$f" = "$a" ] && skip=1; done
	[ $skip = 1 ] && continue
	hits=$(grep -nE '\bfinding_(set|remedy)[[:space:]]*\(|->(status|message|remediation)[[:space:]]*=[^=]' "$f" || true)
	left=""
	while IFS= read -r h; do
		[ -n "$h" ] || continue
		ok=0
		for a in "${allowed_lines[@]}"; do
			[ "${a%%:*}" = "$f" ] || continue
			case "$h" in *"${a#*:}"*) ok=1 ;; esac
		done
		[ $ok = 1 ] || left+="$h"$'\n'
	done <<<"$hits"
	[ -z "$left" ] || bad+="$f:"$'\n'"$left"
	if grep -qE 'judge_(apply|decide)\(' "$f"; then
		judged=$((judged + 1))
	else
		bad+="$f: never calls judge_apply() or judge_decide()"$'\n'
	fi
done
if [ -n "$bad" ]; then
	echo "checks_judge: checks must set their findings through judge.h (judge_note, judge_remedy, judge_apply/judge_decide):" >&2
	printf '%s' "$bad" >&2
	exit 1
fi
echo "checks_judge: $judged check files judge through judge.h"
