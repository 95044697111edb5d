#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# xdplanectl as the operator of several gateways on one host uses it, on
# the real daemon of an instance of xdplane@.service:
#  - the instance's runtime directory as the template unit makes it
#    (RuntimeDirectory= and RuntimeDirectoryMode= read from the generated
#    xdplane@.service, %i = a test name), control.socket in it and a
#    read-only socket beside it;
#  - `-i NAME` (and `-i xdplane@NAME.service`) reaches that gateway: its
#    status, the counters of pings sent through it; the unit's own
#    ExecReload= line (its %i filled in) reloads the same daemon; `-s` and
#    $XDPLANE_CONTROL_SOCKET still work, `-i` wins over the variable;
#    bash completion offers NAME after -i;
#  - `-r` picks the read-only socket: a member of readonly_group reads
#    with `-i NAME -r`, and without `-r` is told that the read-only socket
#    is there; `-r reload` is refused before connecting;
#  - usage errors say why, with "did you mean" for a mistyped verb,
#    option, log level and instance, and reach nothing: no reload, no log
#    level change, no congestion hint in the daemon;
#  - under --json every failure is one JSON object on stdout,
#    {"error":{"code","message",...}}, with the exit status of its kind:
#    the daemon's error (its code; for a port or class it does not have,
#    its names and the nearest), usage (2), no answer (3).
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
CTL="$XDPLANE_BUILD/control/xdplanectl"
UNIT="$XDPLANE_BUILD/config/systemd/xdplane@.service"
RO_GID=48621
NAME="itest$$"
tb_init
rd=$(sed -n 's/^RuntimeDirectory=//p' "$UNIT")
mode=$(sed -n 's/^RuntimeDirectoryMode=//p' "$UNIT")
[ "${rd%%%i*}" != "$rd" ] || tb_fail "xdplane@.service: RuntimeDirectory=$rd has no %i"
RUN="/run/${rd//%i/$NAME}"
[ ! -e "$RUN" ] || tb_fail "$RUN exists already"
trap 'tb_cleanup; rm -rf "$RUN"' EXIT
tb_build
install -d -o root -g root -m "$mode" "$RUN" # as systemd makes it
SOCK="$RUN/control.sock"
tb_config "$TB_DIR/gw.yaml" \
	"control: {socket: \"$SOCK\", metrics_listen: \"\", readonly_group: \"$RO_GID\"}" \
	"classes: [{name: roce, level: 1}, {name: default, level: 2}]" \
	"rules: [{class: roce, match: {proto: udp, dport: 4791}}]" \
	"default_class: default"
tb_start_gw gw "$TB_DIR/gw.yaml"
[ -S "$SOCK" ] && [ -S "$SOCK.ro" ] || tb_fail "no sockets in $RUN"

jq_ok() { jq -e "$1" >/dev/null || tb_fail "$2"; }
reloads() { "$CTL" -s "$SOCK" --json status | jq '.config.reload.attempts_total'; }

# --- -i reaches the instance ---
"$CTL" -i "$NAME" status >"$TB_DIR/status.txt" 2>"$TB_DIR/i.err" ||
	tb_fail "-i $NAME status: $(cat "$TB_DIR/i.err")"
grep -q "config       $TB_DIR/gw.yaml" "$TB_DIR/status.txt" || tb_fail "-i status is not this gateway's"
"$CTL" -i "xdplane@$NAME.service" --json status | jq_ok '.config.generation == 1' "-i xdplane@NAME.service"
ip netns exec "$TB_A" ping -q -c 5 -i 0.1 -W 1 "$TB_IP_B" >/dev/null || tb_fail "no ping through the gateway"
rx=$("$CTL" -i "$NAME" --json stats gw0 | jq '.ports[0].rx_packets')
[ "$rx" -ge 5 ] || tb_fail "-i $NAME stats gw0: rx_packets $rx after 5 pings"
# the unit's ExecReload=, %i filled in, reloads the same daemon
reload=$(sed -n 's/^ExecReload=//p' "$UNIT")
reload=${reload//%i/$NAME}
reload="$CTL ${reload#* }" # the binary of this build
n0=$(reloads)
$reload >/dev/null 2>"$TB_DIR/reload.err" || tb_fail "the unit's ExecReload ($reload): $(cat "$TB_DIR/reload.err")"
[ "$(reloads)" = $((n0 + 1)) ] || tb_fail "ExecReload did not reach the daemon -i reaches"
"$CTL" -i "$NAME" reload >/dev/null || tb_fail "-i reload"
[ "$(reloads)" = $((n0 + 2)) ] || tb_fail "-i reload did not reach the daemon"
"$CTL" -s "$SOCK" status >/dev/null || tb_fail "-s"
XDPLANE_CONTROL_SOCKET=$SOCK "$CTL" status >/dev/null || tb_fail "\$XDPLANE_CONTROL_SOCKET"
XDPLANE_CONTROL_SOCKET=/nonexistent/sock "$CTL" -i "$NAME" status >/dev/null ||
	tb_fail "-i does not win over \$XDPLANE_CONTROL_SOCKET"
# bash completion offers the instance after -i
comp=$(bash -c '. "$1/config/completion/xdplanectl.bash"
	COMP_WORDS=("$2" -i ""); COMP_CWORD=2; _xdplanectl; echo "${COMPREPLY[*]}"' - "$XDPLANE_SOURCE" "$CTL")
[[ " $comp " == *" $NAME "* ]] || tb_fail "completion of -i: '$comp', no $NAME"
tb_pass "-i $NAME = $SOCK: status, stats ($rx pings counted), reload; the unit's ExecReload, -s and the variable agree"

# --- -r: the read-only socket ---
READER="setpriv --reuid=65534 --regid=65534 --groups=$RO_GID"
$READER "$CTL" -i "$NAME" -r --json stats | jq_ok '.ports | length == 2' "-i -r stats as a reader"
rc=0
$READER "$CTL" -i "$NAME" status 2>"$TB_DIR/reader.err" || rc=$?
[ $rc -eq 3 ] && grep -q "$SOCK.ro, the read-only socket, is there: .* add -r" "$TB_DIR/reader.err" ||
	tb_fail "a reader without -r: exit $rc, $(cat "$TB_DIR/reader.err")"
tb_pass "-i $NAME -r: a member of readonly_group reads; without -r it is pointed to it"

# --- usage errors: a reason, a suggestion, nothing reaches the daemon ---
n0=$(reloads)
usage() { # EXPECTED-TEXT ARGS...: exit 2, the text on stderr, JSON on stdout
	local want=$1 rc=0
	shift
	"$CTL" "$@" >"$TB_DIR/u.out" 2>"$TB_DIR/u.err" || rc=$?
	[ $rc -eq 2 ] || tb_fail "xdplanectl $*: exit $rc, want 2"
	grep -qF -- "$want" "$TB_DIR/u.err" || tb_fail "xdplanectl $*: '$(cat "$TB_DIR/u.err")' lacks '$want'"
	echo "  xdplanectl $*: $(head -n1 "$TB_DIR/u.err")" >&2
}
usage "unknown verb 'stauts' (did you mean 'status'?)" -i "$NAME" stauts
usage "unknown option --jsno (did you mean --json?)" -i "$NAME" --jsno status
usage "unknown level 'dbug' (did you mean 'debug'?)" -i "$NAME" log-level dbug
usage "unknown verb 'relaod' (did you mean 'reload'?)" -i "$NAME" relaod
usage "SEVERITY '2' is not a number from 0 to 1" -i "$NAME" congestion gw1 roce 2
usage "CLASS 'ro.ce' is not a class name" -i "$NAME" congestion gw1 ro.ce
usage "PREFIX: 10.1.0.1/16 has host bits set; did you mean 10.1.0.0/16?" -i "$NAME" congestion gw1 roce 1 10.1.0.1/16
usage "-i $NAME and -s $SOCK both name the socket" -i "$NAME" -s "$SOCK" status
usage "reload changes the daemon; the read-only socket (-r) refuses it" -i "$NAME" -r reload
usage "--count wants a whole number from 0 to 4294967295, not '-3'" -i "$NAME" watch --count -3
usage "stats takes at most 1 argument, got 2" -i "$NAME" stats gw0 gw1
usage "no verb given" -i "$NAME"
usage "instance 'a/b' is not an instance name" -i a/b status
[ "$(reloads)" = "$n0" ] || tb_fail "a refused command reached the daemon: reloads $n0 -> $(reloads)"
! grep -q "congestion hint" "$TB_DIR/gw.log" || tb_fail "a refused congestion reached the daemon"
! grep -q "log level set" "$TB_DIR/gw.log" || tb_fail "a refused log-level reached the daemon"
tb_pass "usage errors: each with its reason and suggestion, none reached the daemon"

# --- --json: errors as objects on stdout ---
jerr() { # STATUS CODE ARGS...: exit STATUS, one line {"error":{"code":CODE,"message"}}
	local status=$1 code=$2 rc=0
	shift 2
	"$CTL" --json "$@" >"$TB_DIR/j.out" 2>/dev/null || rc=$?
	[ $rc -eq "$status" ] || tb_fail "--json $*: exit $rc, want $status"
	[ "$(wc -l <"$TB_DIR/j.out")" -eq 1 ] || tb_fail "--json $*: stdout is not one line: $(cat "$TB_DIR/j.out")"
	jq -e --arg c "$code" '(keys == ["error"]) and .error.code == $c and (.error.message | type == "string")' \
		"$TB_DIR/j.out" >/dev/null || tb_fail "--json $*: $(cat "$TB_DIR/j.out")"
	echo "  --json $*: $(cat "$TB_DIR/j.out")" >&2
}
jerr 1 bad_request -i "$NAME" stats gw9
jq -e '.error.details == ["ports: gw0, gw1 (did you mean '"'gw0'"'?)"]' "$TB_DIR/j.out" >/dev/null ||
	tb_fail "no port names in the error: $(cat "$TB_DIR/j.out")"
jerr 1 bad_request -i "$NAME" congestion gw1 rcoe
jq -e '.error.suggestion == "roce"' "$TB_DIR/j.out" >/dev/null || tb_fail "no class suggested"
jerr 1 bad_request -i "$NAME" -r stats gw7 # the names through the read-only socket too
jq -e '.error.suggestion == "gw0"' "$TB_DIR/j.out" >/dev/null || tb_fail "no port suggested on the read-only socket"
jerr 1 read_only -s "$SOCK.ro" log-level debug
jerr 2 usage -i "$NAME" stauts
jq -e '.error.suggestion == "status"' "$TB_DIR/j.out" >/dev/null || tb_fail "no suggestion in the JSON error"
jerr 2 usage -i "$NAME" congestion gw1 roce 150%
jerr 3 unreachable -i "${NAME}x" status
jq -e --arg n "$NAME" '.error.suggestion == $n' "$TB_DIR/j.out" >/dev/null ||
	tb_fail "a mistyped instance is not matched to $NAME: $(cat "$TB_DIR/j.out")"
tb_pass "--json: daemon errors (bad_request), usage (2) and no answer (3) as {\"error\":{\"code\",\"message\"}}"

tb_stop_gw || tb_fail "daemon exit status $?"
jerr 3 unreachable -i "$NAME" status
tb_pass "stopped: -i $NAME answers unreachable"
