#!/usr/bin/env bash
# unit.commit_msg_hook: .githooks/commit-msg accepts messages that keep
# the conventions (CONTRIBUTING.md) and refuses each kind of breach.
set -euo pipefail
hook="$1/.githooks/commit-msg"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
check() { # check WANT(0|1) NAME MESSAGE
	printf '%s' "$3" >"$dir/msg"
	local rc=0
	"$hook" "$dir/msg" 2>"$dir/err" || rc=$?
	if [ "$rc" -ne "$1" ]; then
		echo "FAIL: $2: exit $rc, want $1"
		cat "$dir/err"
		fails=$((fails + 1))
	else
		echo "ok: $2 (exit $rc) $(head -n1 "$dir/err")"
	fi
}
long=$(printf 'x%.0s' $(seq 80))
check 0 "subject only" "gw_ports: set the ports promiscuous at start"
check 0 "subject and body" $'pathmon, rx_task: post events to their owner\n\nWhy it matters, wrapped at 72.\n    indented output may be longer than seventy-two characters, like this line here\n'
check 0 "tests/vm area" "tests/vm: a summary per test at the end"
check 0 "merge" "Merge branch 'vm29'"
check 0 "comments ignored" $'ci: run the guest suite\n\n# Please enter the commit message '"$long"$'\n'
check 1 "no area" "Fix the thing"
check 1 "capital area" "Gateway: fix it"
check 1 "subject 73 chars" "area: $(printf 'y%.0s' $(seq 67))"
check 1 "trailing period" "area: do a thing."
check 1 "no blank line" $'area: do a thing\nbody right below'
check 1 "long body line" $'area: do a thing\n\n'"$long"
check 1 "process words" $'area: do a thing\n\nFixed in the seventh session.'
check 1 "today" $'area: do a thing\n\nMeasured today.'
check 0 "a TCP session is no process word" $'area: do a thing\n\nThe BGP session stays up.'
[ $fails -eq 0 ] || exit 1
echo "commit-msg hook: all cases as expected"
