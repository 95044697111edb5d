#!/usr/bin/env bash
# Exit codes for systemd (xdplane(8), EXIT STATUS): a configuration error
# exits with its own status, EX_CONFIG (78), through --check and on start,
# before anything is touched; the generated units carry that same number in
# RestartPreventExitStatus= (so a bad file is not restarted in a loop) and
# have no ExecStartPre= (RestartPreventExitStatus= does not cover it).
# Cases: a YAML syntax error, a missing interface (--check only: on start
# it is waited for, t-port-wait.sh), an unknown key, an MTU
# above what 17 UMEM frames hold, and a
# jumbo MTU on a kernel too old for AF_XDP multi-buffer (the running kernel
# made to report 2.6.x with setarch --uname-2.6), which is refused with the
# largest MTU that works. A valid file exits 0, a usage error 2.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build --no-pass-prog
XD="$XDPLANE_BUILD/control/xdplane"
UNITS="$XDPLANE_BUILD/config/systemd"
EX_CONFIG=78

# run NAME WANT_RC [xdplane args]: run in the gateway namespace, check the
# exit status, keep the output in $TB_DIR/NAME.out
run() {
	local name=$1 want=$2 rc=0
	shift 2
	tb_exec GW timeout 20 "$@" >"$TB_DIR/$name.out" 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] ||
		tb_fail "$name: exit status $rc, want $want: $(head -c 600 "$TB_DIR/$name.out")"
}
untouched() { # nothing attached, the MTUs as tb_build left them
	[ -z "$(tb_xdp_prog GW gw0)$(tb_xdp_prog GW gw1)" ] ||
		tb_fail "$1: an XDP program was left attached"
	local m
	for i in gw0 gw1; do
		m=$(ip -n "$TB_GW" -j link show "$i" | jq '.[0].mtu')
		[ "$m" = 1500 ] || tb_fail "$1: $i's MTU changed to $m"
	done
}

# 1. A syntax error.
tb_config "$TB_DIR/syntax.yaml" "queues: [1"
for mode in check start; do
	args=(-c "$TB_DIR/syntax.yaml")
	[ $mode = check ] && args=(--check "${args[@]}")
	run "syntax-$mode" $EX_CONFIG "$XD" "${args[@]}"
	grep -q "syntax.yaml:[0-9]*:[0-9]*: " "$TB_DIR/syntax-$mode.out" ||
		tb_fail "syntax-$mode: no file:line:col: $(cat "$TB_DIR/syntax-$mode.out")"
done
untouched syntax
tb_pass "YAML syntax error: exit $EX_CONFIG with --check and on start"

# 2. A missing interface, 3. an unknown key.
tb_config "$TB_DIR/noif.yaml"
sed -i 's/gw1/gwX/' "$TB_DIR/noif.yaml"
run noif-check $EX_CONFIG "$XD" --check -c "$TB_DIR/noif.yaml"
# on start a missing interface is waited for (t-port-wait.sh): with
# port_wait 0 the start gives up at once, with EX_TEMPFAIL
tb_config "$TB_DIR/noif0.yaml" "port_wait: 0"
sed -i 's/gw1/gwX/' "$TB_DIR/noif0.yaml"
run noif-start 75 "$XD" -c "$TB_DIR/noif0.yaml"
tb_config "$TB_DIR/unknown.yaml" "rings:" "  fil: 4096"
run unknown-check $EX_CONFIG "$XD" --check -c "$TB_DIR/unknown.yaml"
run unknown-start $EX_CONFIG "$XD" -c "$TB_DIR/unknown.yaml"
# an MTU above what a chain of UMEM frames holds on any kernel (17 frames
# of 1792 B: 30442 at most)
tb_config "$TB_DIR/chain.yaml" "umem: {frame_size: 2048}"
sed -i 's/^  - interface: gw0$/  - {interface: gw0, mtu: 40000}/' "$TB_DIR/chain.yaml"
run chain-check $EX_CONFIG "$XD" --check -c "$TB_DIR/chain.yaml"
run chain-start $EX_CONFIG "$XD" -c "$TB_DIR/chain.yaml"
grep -q "lower the MTU to 30442" "$TB_DIR/chain-start.out" ||
	tb_fail "chain-start: $(cat "$TB_DIR/chain-start.out")"
untouched noif
tb_pass "missing interface: exit $EX_CONFIG with --check, 75 on start; unknown key, MTU above 17 frames: exit $EX_CONFIG with --check and on start"

# 4. A kernel that predates AF_XDP multi-buffer (6.6), asked for MTU 9000.
# setarch --uname-2.6 makes uname(2) report 2.6.(60 + minor) to xdplane.
command -v setarch >/dev/null || tb_die "setarch (util-linux) missing"
old=$(setarch --uname-2.6 uname -r)
case "$old" in 2.6.*) ;; *) tb_die "setarch --uname-2.6 reports $old" ;; esac
tb_config "$TB_DIR/jumbo.yaml"
sed -i 's/^  - interface: gw0$/  - {interface: gw0, mtu: 9000}/' "$TB_DIR/jumbo.yaml"
want="Linux $old cannot carry.*ports\[0\]\.mtu 9000 \(gw0\) needs AF_XDP multi-buffer.*Linux >= 6\.6.*largest MTU this kernel carries is 3818"
run jumbo-check $EX_CONFIG setarch --uname-2.6 "$XD" --check -c "$TB_DIR/jumbo.yaml"
grep -Eq "$want" "$TB_DIR/jumbo-check.out" ||
	tb_fail "jumbo-check: $(cat "$TB_DIR/jumbo-check.out")"
run jumbo-start $EX_CONFIG setarch --uname-2.6 "$XD" -c "$TB_DIR/jumbo.yaml"
grep -Eq "$want" "$TB_DIR/jumbo-start.out" ||
	tb_fail "jumbo-start: $(cat "$TB_DIR/jumbo-start.out")"
untouched jumbo
# a file checked for another host (--no-system-check) is not held to this
# kernel; the same file on the running kernel is valid
run jumbo-nosys 0 setarch --uname-2.6 "$XD" --check --no-system-check -c "$TB_DIR/jumbo.yaml"
case "$(uname -r)" in
[0-5].* | 6.[0-5].* | 6.[0-5]-*) tb_log "running kernel $(uname -r) < 6.6: skipping the 9000 accepted case" ;;
*) run jumbo-here 0 "$XD" --check -c "$TB_DIR/jumbo.yaml" ;;
esac
tb_pass "MTU 9000 on Linux $old: exit $EX_CONFIG, '$(grep -o 'the largest MTU[^:]*' "$TB_DIR/jumbo-check.out" | head -n1)'"

# 5. Valid: 0; a usage error: 2 (not the configuration's code).
tb_config "$TB_DIR/good.yaml"
run good 0 "$XD" --check -c "$TB_DIR/good.yaml"
run usage 2 "$XD" --no-such-option
tb_pass "valid file: exit 0; usage error: exit 2"

# 6. The units: RestartPreventExitStatus= is the status seen above, one
# source (CMakeLists.txt's XDPLANE_EXIT_CONFIG) for both.
for u in xdplane.service xdplane@.service; do
	f="$UNITS/$u"
	[ -f "$f" ] || tb_fail "no generated unit $f"
	got=$(sed -n 's/^RestartPreventExitStatus=//p' "$f")
	[ "$got" = "$EX_CONFIG" ] ||
		tb_fail "$u: RestartPreventExitStatus='$got', the daemon exits $EX_CONFIG"
	grep -qx 'Restart=on-failure' "$f" || tb_fail "$u: no Restart=on-failure"
	! grep -q '^ExecStartPre=' "$f" ||
		tb_fail "$u: ExecStartPre= would restart in a loop (RestartPreventExitStatus= does not cover it)"
	! grep -q '@[A-Z_]*@' "$f" || tb_fail "$u: unsubstituted $(grep -o '@[A-Z_]*@' "$f" | head -n1)"
done
grep -q "^XDPLANE_EXIT_CONFIG:\|set(XDPLANE_EXIT_CONFIG $EX_CONFIG)" "$XDPLANE_SOURCE/CMakeLists.txt" ||
	tb_fail "CMakeLists.txt does not set XDPLANE_EXIT_CONFIG to $EX_CONFIG"
sed -n '/^\.SH EXIT STATUS/,/^\.SH FILES/p' "$XDPLANE_SOURCE/control/man/xdplane.8" |
	grep -qw "$EX_CONFIG" ||
	tb_fail "xdplane(8) EXIT STATUS does not document $EX_CONFIG"
tb_pass "both units: RestartPreventExitStatus=$EX_CONFIG, Restart=on-failure, no ExecStartPre="
