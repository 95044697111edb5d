#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Operator verbs on the running daemon:
#  - `xdplanectl config` prints the configuration running: the same text
#    as `xdplane --dump-config` of the file at start and after an applied
#    reload, and still the old one after a refused reload (the file on disk
#    then says something else);
#  - control.readonly_group: a second socket, control.socket + ".ro", of
#    that group; a user in the group (uid nobody, the group as a
#    supplementary one) reads through it (status, stats, classes, flows,
#    config, watch) but reload, congestion and log-level are refused with
#    code read_only (exit 1) and change nothing; the same user cannot open
#    the full socket, a user outside the group cannot open either; root on
#    the read-only socket is read-only too; a non-root member of
#    control.socket_group uses the full socket;
#  - the sockets' directory as the shipped units create it: $TB_DIR plays
#    /run (root, 0755) and the directory is made root:root with the
#    units' RuntimeDirectoryMode (read from the generated units), as
#    systemd makes RuntimeDirectory=; the daemon leaves that mode as it is
#    (the units' mode lets both groups through on its own: a unit back at
#    0750 fails here) and the users above reach their sockets through it;
#  - an existing directory that does not let them through (0750
#    root:root, as from a unit with RuntimeDirectoryMode=0750): the daemon
#    adds search for others (0751), says so, and the reader gets in;
#  - xdplanectl refused by a directory on the way names that directory
#    (not "a member of its group", which it says for the socket's mode).
# The groups are bare gids (no /etc/group entry needed: xdplane.yaml(5),
# the account rule), so the test leaves no account behind.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
CTL="$XDPLANE_BUILD/control/xdplanectl"
XDPLANE="$XDPLANE_BUILD/control/xdplane"
RO_GID=48611
FULL_GID=48612
tb_init
tb_build
# the units' RuntimeDirectoryMode, one for both
RUN_MODE=""
for u in xdplane.service xdplane@.service; do
	m=$(sed -n 's/^RuntimeDirectoryMode=//p' "$XDPLANE_BUILD/config/systemd/$u")
	[ -n "$m" ] || tb_fail "$u: no RuntimeDirectoryMode="
	[ -z "$RUN_MODE" ] || [ "$m" = "$RUN_MODE" ] || tb_fail "$u: RuntimeDirectoryMode=$m, the other unit's $RUN_MODE"
	RUN_MODE=$m
done
chmod 0755 "$TB_DIR" # /run
RUN="$TB_DIR/run"
install -d -o root -g root -m "$RUN_MODE" "$RUN" # as systemd makes RuntimeDirectory=
SOCK="$RUN/ctl.sock"
RO="$SOCK.ro"
write_cfg() { # CEIL [extra line]
	cat >"$TB_DIR/gw.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
    rate: 1Gbit
control: {socket: "$SOCK", metrics_listen: "", socket_group: "$FULL_GID", readonly_group: "$RO_GID"}
classes:
  - {name: roce, level: 1, ceil: $1}
  - {name: default, level: 2}
rules:
  - {class: roce, match: {proto: udp, dport: 4791}}
default_class: default
${2:-}
YAML
}
dump() { tb_exec GW "$XDPLANE" --dump-config -c "$TB_DIR/gw.yaml"; }
write_cfg 50%
tb_start_gw gw "$TB_DIR/gw.yaml"
grep -q "control socket: $RO (mode 0660, read-only)" "$TB_DIR/gw.log" || tb_fail "no read-only socket logged"
[ "$(stat -c '%a %g' "$RO")" = "660 $RO_GID" ] || tb_fail "$RO: $(stat -c '%a %g' "$RO"), want 660 $RO_GID"
[ "$(stat -c '%a %g' "$SOCK")" = "660 $FULL_GID" ] || tb_fail "$SOCK: $(stat -c '%a %g' "$SOCK"), want 660 $FULL_GID"
[ "$(stat -c '%04a %u %g' "$RUN")" = "$RUN_MODE 0 0" ] ||
	tb_fail "the daemon changed the directory the unit makes: $(stat -c '%04a %u %g' "$RUN"), the unit's $RUN_MODE 0 0"

# --- config: the running configuration ---
dump >"$TB_DIR/dump1.yaml" || tb_fail "--dump-config"
"$CTL" -s "$SOCK" config >"$TB_DIR/run1.yaml" || tb_fail "xdplanectl config"
diff -u "$TB_DIR/dump1.yaml" "$TB_DIR/run1.yaml" >&2 || tb_fail "config differs from --dump-config at start"
grep -q "readonly_group: '$RO_GID'" "$TB_DIR/run1.yaml" || tb_fail "readonly_group not in the dump"
write_cfg 40%
"$CTL" -s "$SOCK" reload >/dev/null || tb_fail "reload of a hot change"
dump >"$TB_DIR/dump2.yaml"
"$CTL" -s "$SOCK" config >"$TB_DIR/run2.yaml" || tb_fail "xdplanectl config"
diff -u "$TB_DIR/dump2.yaml" "$TB_DIR/run2.yaml" >&2 || tb_fail "config differs from --dump-config after the reload"
! cmp -s "$TB_DIR/run1.yaml" "$TB_DIR/run2.yaml" || tb_fail "the reload changed nothing in config"
[ "$("$CTL" -s "$SOCK" --json config | jq -r '.generation, .path' | paste -sd ' ')" = "2 $TB_DIR/gw.yaml" ] ||
	tb_fail "config --json: $("$CTL" -s "$SOCK" --json config | jq -c 'del(.text)')"
# a cold change: valid file, refused reload; config stays the old one
write_cfg 40% "failure_mode: closed"
rc=0
"$CTL" -s "$SOCK" reload 2>"$TB_DIR/refused.err" || rc=$?
[ $rc -eq 1 ] && grep -q restart_required "$TB_DIR/refused.err" || tb_fail "cold change: exit $rc"
dump >"$TB_DIR/dump3.yaml"
"$CTL" -s "$SOCK" config >"$TB_DIR/run3.yaml" || tb_fail "xdplanectl config"
diff -u "$TB_DIR/dump2.yaml" "$TB_DIR/run3.yaml" >&2 || tb_fail "after a refused reload, config is not the running one"
! cmp -s "$TB_DIR/dump3.yaml" "$TB_DIR/run3.yaml" || tb_fail "the refused file's dump equals the running one"
# and an invalid file
write_cfg 40% "queues: many"
rc=0
"$CTL" -s "$SOCK" reload 2>/dev/null || rc=$?
[ $rc -eq 1 ] || tb_fail "invalid file: reload exit $rc"
"$CTL" -s "$SOCK" config | diff -u "$TB_DIR/dump2.yaml" - >&2 || tb_fail "after an invalid file, config changed"
write_cfg 40%
tb_pass "config = --dump-config of the running file: at start, after an applied reload, after refused ones"

# --- the read-only socket ---
READER="setpriv --reuid=65534 --regid=65534 --groups=$RO_GID"
OPERATOR="setpriv --reuid=65534 --regid=65534 --groups=$FULL_GID"
STRANGER="setpriv --reuid=65534 --regid=65534 --clear-groups"
reloads() { "$CTL" -s "$SOCK" --json status | jq '.config.reload.attempts_total'; }
n0=$(reloads)
for v in status stats classes flows config; do
	$READER "$CTL" -s "$RO" $v >"$TB_DIR/ro-$v.out" 2>"$TB_DIR/ro-$v.err" ||
		tb_fail "read-only $v: $(cat "$TB_DIR/ro-$v.err")"
done
$READER "$CTL" -s "$RO" --json stats | jq -e '.ports | length == 2' >/dev/null || tb_fail "read-only stats --json"
$READER "$CTL" -s "$RO" watch --interval 0.2 --count 2 >/dev/null || tb_fail "read-only watch"
cmp -s "$TB_DIR/ro-config.out" "$TB_DIR/run2.yaml" || tb_fail "read-only config differs"
for v in "reload" "congestion gw1 roce 0.5" "log-level debug"; do
	rc=0
	# shellcheck disable=SC2086
	$READER "$CTL" -s "$RO" $v 2>"$TB_DIR/ro.err" || rc=$?
	[ $rc -eq 1 ] && grep -q "read_only" "$TB_DIR/ro.err" ||
		tb_fail "read-only $v: exit $rc, $(cat "$TB_DIR/ro.err")"
	rc=0
	# shellcheck disable=SC2086
	"$CTL" -s "$RO" $v 2>/dev/null || rc=$? # root, on the read-only socket
	[ $rc -eq 1 ] || tb_fail "root on the read-only socket: $v exit $rc"
done
echo "  $(cat "$TB_DIR/ro.err")" >&2
[ "$(reloads)" = "$n0" ] || tb_fail "a refused verb reached the daemon: reloads $n0 -> $(reloads)"
grep -q "congestion hint" "$TB_DIR/gw.log" && tb_fail "a congestion hint went through the read-only socket"
grep -q "log level set" "$TB_DIR/gw.log" && tb_fail "log-level went through the read-only socket"
rc=0
$READER "$CTL" -s "$SOCK" status 2>"$TB_DIR/full.err" || rc=$?
[ $rc -eq 3 ] && grep -q "member of its group" "$TB_DIR/full.err" ||
	tb_fail "a reader on the full socket: exit $rc, want 3 (file mode): $(cat "$TB_DIR/full.err")"
$OPERATOR "$CTL" -s "$SOCK" status >/dev/null 2>"$TB_DIR/op.err" ||
	tb_fail "a member of control.socket_group on the full socket: $(cat "$TB_DIR/op.err")"
rc=0
$STRANGER "$CTL" -s "$RO" status 2>"$TB_DIR/stranger.err" || rc=$?
[ $rc -eq 3 ] && grep -qi "permission denied" "$TB_DIR/stranger.err" ||
	tb_fail "outside the group on the read-only socket: exit $rc"
# the daemon's own check when the file mode would let anyone in
chmod 0666 "$RO"
rc=0
$STRANGER "$CTL" -s "$RO" status 2>"$TB_DIR/stranger2.err" || rc=$?
[ $rc -eq 1 ] && grep -q permission "$TB_DIR/stranger2.err" ||
	tb_fail "credential check on the read-only socket: exit $rc ($(cat "$TB_DIR/stranger2.err"))"
"$CTL" -s "$SOCK" reload >/dev/null || tb_fail "root on the full socket can no longer reload"
tb_pass "read-only socket, in a directory of mode $RUN_MODE: the group reads (status, stats, classes, flows, config, watch), reload/congestion/log-level refused (read_only, exit 1, nothing changed); others refused; the control group uses the full socket"

tb_stop_gw || tb_fail "daemon exit status $?"
[ ! -e "$RO" ] && [ ! -e "$SOCK" ] || tb_fail "a control socket was left behind"
tb_pass "clean stop, both sockets removed"

# xdplanectl names a directory on the way that refuses, not the group
install -d -m 0700 "$TB_DIR/closed"
rc=0
$READER "$CTL" -s "$TB_DIR/closed/ctl.sock" status 2>"$TB_DIR/closed.err" || rc=$?
[ $rc -eq 3 ] && grep -q "cannot search $TB_DIR/closed" "$TB_DIR/closed.err" ||
	tb_fail "a socket in a directory the user cannot search: exit $rc, $(cat "$TB_DIR/closed.err")"
tb_pass "xdplanectl: a directory that refuses is named ($(tail -n1 "$TB_DIR/closed.err"))"

# --- an existing directory the groups cannot search ---
chmod 0750 "$RUN"
tb_start_gw gw2 "$TB_DIR/gw.yaml"
[ "$(stat -c '%04a' "$RUN")" = 0751 ] || tb_fail "directory 0750 at start: now $(stat -c '%04a' "$RUN"), want 0751"
grep -q "control socket: $RUN: mode 0750 -> 0751" "$TB_DIR/gw2.log" || tb_fail "the mode change is not logged"
$READER "$CTL" -s "$RO" status >/dev/null 2>"$TB_DIR/ro2.err" || tb_fail "read-only status: $(cat "$TB_DIR/ro2.err")"
$OPERATOR "$CTL" -s "$SOCK" status >/dev/null 2>"$TB_DIR/op2.err" || tb_fail "full socket status: $(cat "$TB_DIR/op2.err")"
tb_stop_gw || tb_fail "daemon exit status $?"
tb_pass "an existing 0750 directory: made 0751 (logged), both groups reach their sockets"
