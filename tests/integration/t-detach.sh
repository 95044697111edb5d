#!/usr/bin/env bash
# Clean removal after a crash (xdplane(8), --detach): the daemon killed
# with SIGKILL leaves its XDP programs attached and forwarding (fail-open,
# by design); `xdplane --detach -c FILE` removes them and turns promiscuous
# mode off where the daemon had turned it on, so the ports are as before
# the start: gw0 (promiscuous off before) off again, gw1 (on before) still
# on. A foreign program, on another interface or on a port of the file, is
# left attached; a running daemon's ports are refused. A daemon that
# replaces its killed predecessor's program takes over the promiscuous
# record and turns it off at its clean stop.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build
XD="$XDPLANE_BUILD/control/xdplane"
PASS="$XDPLANE_BUILD/tests/tools/xdp_pass.o"
promisc() { ip -n "$TB_GW" -j link show "$1" | jq -r '.[0].flags | index("PROMISC") != null'; }
ping_ab() { ip netns exec "$TB_A" ping -c 3 -i 0.2 -W 2 $TB_IP_B >/dev/null; }
detach() { # detach WANT_RC NAME
	local rc=0
	tb_exec GW "$XD" --detach -c "$TB_DIR/gw.yaml" >"$TB_DIR/$2.out" 2>&1 || rc=$?
	[ "$rc" -eq "$1" ] || tb_fail "$2: --detach exit $rc, want $1: $(cat "$TB_DIR/$2.out")"
}

tb_config "$TB_DIR/gw.yaml"
ip -n "$TB_GW" link set gw1 promisc on
# a foreign program on an interface the file does not name
ip -n "$TB_GW" link add fx0 type veth peer name fx1
ip -n "$TB_GW" link set dev fx0 xdpdrv obj "$PASS" sec xdp || tb_die "xdp on fx0"
fx=$(tb_xdp_prog GW fx0)
[ "$(promisc gw0) $(promisc gw1)" = "false true" ] || tb_die "promisc before: $(promisc gw0) $(promisc gw1)"

# 1. SIGKILL: the programs stay and forward.
tb_start_gw gw "$TB_DIR/gw.yaml"
[ "$(promisc gw0)" = true ] || tb_fail "the daemon did not set gw0 promiscuous"
tb_kill "$TB_GW_PID" KILL
tb_wait_exit "$TB_GW_PID" 5 || true
kill -0 "$TB_GW_PID" 2>/dev/null && tb_fail "daemon survived SIGKILL"
p0=$(tb_xdp_prog GW gw0) p1=$(tb_xdp_prog GW gw1)
[ -n "$p0" ] && [ -n "$p1" ] || tb_fail "no program left after SIGKILL (by design there is)"
ping_ab || tb_fail "no fail-open forwarding after SIGKILL"
tb_log "after SIGKILL: programs $p0 $p1 attached, ping A->B passes"

# 2. --detach: xdplane's programs gone, promiscuous mode as before, fx0's
# program untouched.
detach 0 detach
cat "$TB_DIR/detach.out" >&2
[ -z "$(tb_xdp_prog GW gw0)$(tb_xdp_prog GW gw1)" ] ||
	tb_fail "a program is still attached: $(cat "$TB_DIR/detach.out")"
[ "$(promisc gw0) $(promisc gw1)" = "false true" ] ||
	tb_fail "promisc after --detach: gw0 $(promisc gw0) gw1 $(promisc gw1), want false true"
[ "$(tb_xdp_prog GW fx0)" = "$fx" ] || tb_fail "fx0's program was touched"
grep -q "gw0: xdplane.s XDP program.*detached; promiscuous mode, which xdplane had set, off again" "$TB_DIR/detach.out" ||
	tb_fail "gw0's promiscuous mode not reported"
tb_pass "SIGKILL left programs $p0 $p1 forwarding; --detach removed them, gw0 promisc off again, gw1 still on, fx0's program $fx untouched"

# 3. A foreign program on a port of the file: left; nothing there: fine.
ip -n "$TB_GW" link set dev gw0 xdpdrv obj "$PASS" sec xdp || tb_die "xdp on gw0"
f0=$(tb_xdp_prog GW gw0)
detach 0 foreign
[ "$(tb_xdp_prog GW gw0)" = "$f0" ] || tb_fail "the foreign program on gw0 was removed"
grep -q "gw0: XDP program 'xdp_pass.*not xdplane's; left attached" "$TB_DIR/foreign.out" ||
	tb_fail "foreign: $(cat "$TB_DIR/foreign.out")"
grep -q "gw1: no XDP program attached" "$TB_DIR/foreign.out" ||
	tb_fail "foreign: $(cat "$TB_DIR/foreign.out")"
ip -n "$TB_GW" link set dev gw0 xdpdrv off
tb_pass "a foreign program on a port is left attached"

# 4. A running daemon: refused, its programs stay.
tb_start_gw gw2 "$TB_DIR/gw.yaml"
detach 1 running
grep -q "another xdplane is already running on this interface" "$TB_DIR/running.out" ||
	tb_fail "running: $(cat "$TB_DIR/running.out")"
[ -n "$(tb_xdp_prog GW gw0)" ] || tb_fail "the running daemon's program was removed"
ping_ab || tb_fail "the running daemon stopped forwarding"

# 5. Killed again, then replaced by a new daemon: its clean stop turns the
# promiscuous mode its predecessor set off again.
tb_kill "$TB_GW_PID" KILL
tb_wait_exit "$TB_GW_PID" 5 || true
tb_start_gw gw3 "$TB_DIR/gw.yaml"
grep -q "gw0: promiscuous mode was turned on by the previous run" "$TB_DIR/gw3.log" ||
	tb_fail "the new daemon did not take over gw0's record: $(grep -i promisc "$TB_DIR/gw3.log")"
tb_stop_gw || tb_fail "daemon exit status $?"
[ -z "$(tb_xdp_prog GW gw0)$(tb_xdp_prog GW gw1)" ] || tb_fail "programs left after a clean stop"
[ "$(promisc gw0) $(promisc gw1)" = "false true" ] ||
	tb_fail "promisc after the replacing run: gw0 $(promisc gw0) gw1 $(promisc gw1)"
tb_pass "--detach refused while a daemon runs; a replacing daemon restores its predecessor's promiscuous mode"
