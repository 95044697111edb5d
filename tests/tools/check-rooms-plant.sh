#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# check-rooms-plant.sh SRC - the include-order check (check_rooms.py)
# fails on each kind of breach, each planted in a copy of dataplane/ and
# control/: an include of a room declared above (control/config ->
# control/daemon; dataplane/pkt -> dataplane/run), of the control plane
# from the dataplane, a source outside every room, and an --allow that
# no longer occurs. Each case must exit 1 with its own message, whatever
# else the copy holds (the known crossings are unit.include_rooms's
# business, listed once in tests/CMakeLists.txt). ctest
# unit.include_rooms_plant.
set -u
SRC=$1
CHECK="$SRC/tests/tools/check_rooms.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

copy() {
	rm -rf "$work/tree"
	mkdir "$work/tree"
	cp -a "$SRC/dataplane" "$SRC/control" "$work/tree/"
}
# plant FILE HEADER: #include "HEADER" before the file's first include
plant() {
	sed -i "0,/^#include \"/s//#include \"$2\"\n#include \"/" "$work/tree/$1"
}
# expect NAME STATUS TEXT [ARGS...]: the check exits STATUS, saying TEXT
expect() {
	local name=$1 want=$2 text=$3 out rc
	shift 3
	out=$(cd "$work/tree" && python3 "$CHECK" "$@" dataplane control 2>&1)
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF -- "$text" <<<"$out"; then
		printf '%s\n' "$out"
		echo "FAIL: $name: exit $rc (want $want), '$text' expected"
		fail=1
	else
		echo "ok: $name: exit $rc: $(grep -F -- "$text" <<<"$out" | head -n1)"
	fi
}

copy
plant control/config/units.c daemon.h
expect "control/config -> daemon/" 1 \
	'includes "daemon.h" (control/daemon), a room above control/config'
copy
plant dataplane/pkt/classify.c gateway.h
expect "dataplane/pkt -> run/" 1 \
	'includes "gateway.h" (dataplane/run), a room above dataplane/pkt'
copy
plant dataplane/run/gateway.c ctl_json.h
expect "dataplane -> control/" 1 \
	'includes "ctl_json.h" (control/api), a room above dataplane/run'
copy
echo 'int stray;' >"$work/tree/control/stray.c"
expect "a source outside every room" 1 \
	"control/stray.c: not in a room"
copy
expect "a stale --allow" 1 "no such crossing any more" --allow control/config/units.c:daemon.h
exit $fail
