#!/usr/bin/env bash
# Misconfiguration is refused, before anything is touched, with an error
# that names the file, the line and column, and the key; exit status != 0.
# A file with several independent errors gets all of them (--check), and
# --dump-config --no-system-check reads a file meant for another host.
# An MTU larger than a UMEM frame can carry is refused at start with a
# message that says what to change.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
# No traffic here: without XDP on the outer peers the ports accept any MTU.
tb_build --no-pass-prog
XD="$XDPLANE_BUILD/control/xdplane"

expect_error() { # expect_error NAME PATTERN [xdplane args]: run, must fail
	local name=$1 pat=$2 rc=0
	shift 2
	tb_exec GW "$XD" "$@" >"$TB_DIR/$name.out" 2>&1 || rc=$?
	[ $rc -ne 0 ] || tb_fail "$name: accepted (exit 0)"
	grep -Eq "$pat" "$TB_DIR/$name.out" ||
		tb_fail "$name: message does not match '$pat': $(cat "$TB_DIR/$name.out")"
	tb_pass "$name: $(head -n1 "$TB_DIR/$name.out")"
}

# 1. An interface that does not exist (line 3, the value of interface).
tb_config "$TB_DIR/noif.yaml"
sed -i 's/gw1/gwX/' "$TB_DIR/noif.yaml"
# on start after port_wait (0: at once), exit 75 (t-port-wait.sh)
tb_config "$TB_DIR/noif0.yaml" "port_wait: 0"
sed -i 's/gw1/gwX/' "$TB_DIR/noif0.yaml"
expect_error missing-interface "noif0.yaml:3:[0-9]+: .*ports\[1\]\.interface.*gwX" -c "$TB_DIR/noif0.yaml"
expect_error missing-interface-check "noif.yaml:3:[0-9]+: .*gwX" --check -c "$TB_DIR/noif.yaml"

# 2. A bad value: line 4 is "queues: 0".
tb_config "$TB_DIR/badval.yaml" "queues: 0"
expect_error bad-value "badval.yaml:4:[0-9]+: .*queues" -c "$TB_DIR/badval.yaml"
tb_config "$TB_DIR/badtype.yaml" "rings:" "  fill: lots"
expect_error bad-type "badtype.yaml:5:[0-9]+: .*fill" --check -c "$TB_DIR/badtype.yaml"
tb_config "$TB_DIR/badenum.yaml" "failure_mode: sometimes"
expect_error bad-enum "badenum.yaml:4:[0-9]+: .*failure_mode" --check -c "$TB_DIR/badenum.yaml"

# 3. An unknown key, reported at the key itself (line 5, column 3).
tb_config "$TB_DIR/unknown.yaml" "rings:" "  fil: 4096"
expect_error unknown-key "unknown.yaml:5:3: .*fil" -c "$TB_DIR/unknown.yaml"

# Nothing was attached by any of the refused starts.
[ -z "$(tb_xdp_prog GW gw0)$(tb_xdp_prog GW gw1)" ] ||
	tb_fail "a refused start left an XDP program attached"

# 4. MTU too large even for AF_XDP multi-buffer (an MTU above one UMEM
# frame crosses as a chain, t-jumbo.sh): 2048-byte frames hold 1792 bytes,
# a chain at most 17 of them: 17 * 1792 - 22 = 30442 at most.
tb_config "$TB_DIR/mtu.yaml" "umem: {frame_size: 2048}"
sed -i 's/^  - interface: gw0$/  - {interface: gw0, mtu: 40000}/' "$TB_DIR/mtu.yaml"
expect_error mtu "gw0: MTU 40000 needs 23 frames .*lower the MTU to 30442" -c "$TB_DIR/mtu.yaml"
[ -z "$(tb_xdp_prog GW gw0)$(tb_xdp_prog GW gw1)" ] ||
	tb_fail "the MTU refusal left an XDP program attached"
[ "$(ip -n "$TB_GW" -j link show gw0 | jq '.[0].mtu')" = 1500 ] ||
	tb_fail "the MTU refusal changed the interface's MTU"

# 5. Every independent error, each at its file:line:col, then exit 78: a
# rate in bytes per second (line 3), an unknown key (line 4), a time out
# of range (line 6), a listener that is no address (line 7).
tb_config "$TB_DIR/three.yaml" "queus: 2" "poll:" "  busy_us: 20ms" \
	"control: {socket: \"$TB_DIR/three.sock\", metrics_listen: nowhere}"
sed -i 's/^  - interface: gw1$/  - {interface: gw1, rate: 100MBps}/' "$TB_DIR/three.yaml"
rc=0
tb_exec GW "$XD" --check -c "$TB_DIR/three.yaml" >"$TB_DIR/three.out" 2>&1 || rc=$?
[ $rc -eq 78 ] || tb_fail "every-error: exit $rc, want 78: $(cat "$TB_DIR/three.out")"
for pat in "three.yaml:4:1: unknown key 'queus' \(did you mean 'queues'\?\)" \
	"three.yaml:6:12: poll.busy_us: must be between 0 and 10000 microseconds" \
	"three.yaml:3:[0-9]+: ports\[1\]\.rate: '100MBps' is bytes per second \(800Mbit\)" \
	"three.yaml:7:[0-9]+: control.metrics_listen: 'nowhere' is not an IPv4 address" \
	"three.yaml: configuration is invalid: 4 errors"; do
	grep -Eq "$pat" "$TB_DIR/three.out" ||
		tb_fail "every-error: no line '$pat' in: $(cat "$TB_DIR/three.out")"
done
[ "$(wc -l <"$TB_DIR/three.out")" -eq 5 ] ||
	tb_fail "every-error: want 4 errors and the summary: $(cat "$TB_DIR/three.out")"
tb_pass "every-error: --check reports all 4 errors with their positions, exit 78"

# 6. --dump-config for another host: --no-system-check skips the
# interfaces there as it does for --check; without it the missing
# interface is an error; the daemon itself refuses the option.
tb_config "$TB_DIR/offbox.yaml"
sed -i 's/gw0/eth7/; s/gw1/eth8/' "$TB_DIR/offbox.yaml"
rc=0
tb_exec GW "$XD" --dump-config --no-system-check -c "$TB_DIR/offbox.yaml" >"$TB_DIR/offbox.out" 2>&1 || rc=$?
[ $rc -eq 0 ] && grep -q "interface: 'eth8'" "$TB_DIR/offbox.out" ||
	tb_fail "dump-offbox: exit $rc: $(head -n3 "$TB_DIR/offbox.out")"
tb_pass "dump-offbox: --dump-config --no-system-check prints a file for another host"
expect_error dump-onbox "offbox.yaml:2:[0-9]+: ports\[0\]\.interface: no such interface 'eth7'" \
	--dump-config -c "$TB_DIR/offbox.yaml"
rc=0
tb_exec GW "$XD" --no-system-check -c "$TB_DIR/offbox.yaml" >"$TB_DIR/nosys-run.out" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q "no-system-check goes with --check or --dump-config" "$TB_DIR/nosys-run.out" ||
	tb_fail "nosys-run: exit $rc: $(cat "$TB_DIR/nosys-run.out")"
tb_pass "nosys-run: the daemon refuses --no-system-check (exit 2, with the reason)"

# A valid file passes --check.
tb_config "$TB_DIR/good.yaml"
tb_exec GW "$XD" --check -c "$TB_DIR/good.yaml" >/dev/null || tb_fail "valid config rejected"
tb_pass "valid config accepted by --check"
