#!/usr/bin/env bash
# SIGKILL of the zero-copy daemon under traffic: the XDP program stays and
# forwards in the kernel (failure_mode open), the ports stay promiscuous so
# unicast still passes; a new start replaces the stale program, binds
# zero-copy again and forwards through AF_XDP; the census at its stop
# finds every frame.
source /xdplane/tests/lib.sh
pings() { # pings COUNT: replies received h1 -> h2 at 10/s
	vm_in h1 ping -c "$1" -i 0.1 -W 1 "$H2" 2>/dev/null |
		sed -n 's/.* \([0-9]*\) packets received.*/\1/p'
}
vm_config "failure_mode: open"
vm_start_gw
got=$(pings 10)
[ "${got:-0}" -eq 10 ] || vm_fail "ping through the running gateway: ${got:-0}/10"
kill -KILL "$GW_PID"
wait "$GW_PID" 2>/dev/null || true
GW_PID=
ip -d link show gw0 | grep -q 'prog/xdp' || vm_fail "XDP program gone after SIGKILL"
ip link show gw0 | grep -q PROMISC || vm_fail "gw0 not promiscuous after SIGKILL"
got=$(pings 20)
vm_note "fail-open replies ${got:-0}/20 with the daemon down"
[ "${got:-0}" -ge 19 ] || vm_fail "fail-open: ${got:-0}/20 replies with the daemon down"
vm_ok "fail-open: ${got:-0}/20 replies with the daemon down (XDP redirect in the kernel)"
mv "$TEST_DIR/gw.log" "$TEST_DIR/gw-killed.log"
vm_start_gw
grep -q 'replaced a stale xdplane program' "$TEST_DIR/gw.log" ||
	vm_fail "stale program not reported as replaced"
grep -q 'bind mode: zero-copy' "$TEST_DIR/gw.log" || vm_fail "restart: not zero-copy"
grep -q 'promiscuous mode already on' "$TEST_DIR/gw.log" ||
	vm_fail "restart: the mode left on not reported"
got=$(pings 10)
[ "${got:-0}" -eq 10 ] || vm_fail "ping after the restart: ${got:-0}/10"
vm_stop_gw
xsk=$(grep -a '^final-stats: ' "$TEST_DIR/gw.log" | grep -o '"xsk":[0-9][0-9]*' | head -n1 | cut -d: -f2)
vm_note "after restart frames through AF_XDP on gw0 ${xsk:-0}"
[ "${xsk:-0}" -ge 10 ] || vm_fail "after the restart only ${xsk:-0} frames through AF_XDP"
vm_ok "restart: stale program replaced, zero-copy, ${xsk} frames through AF_XDP on gw0"
# the mode the SIGKILL left on (and the restart left so), off for the next test
ip link set gw0 promisc off
ip link set gw1 promisc off
