#!/usr/bin/env bash
# Start, stop and crash:
#  - after SIGTERM the XDP program is detached and every UMEM frame is
#    accounted for;
#  - after SIGKILL the program stays; with failure_mode open, traffic keeps
#    flowing in the kernel while the daemon is down; a fresh start under
#    traffic replaces the stale program and forwarding resumes through
#    AF_XDP;
#  - with failure_mode closed, traffic stops while the daemon is down;
#  - the ports are promiscuous while the daemon runs, not after a clean
#    stop, still after SIGKILL (fail-open forwards frames to the hosts),
#    and a start that finds the mode on leaves it on.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build

pings() { # pings COUNT: replies received A -> B at 20/s
	ip netns exec "$TB_A" ping -c "$1" -i 0.05 -W 1 $TB_IP_B 2>/dev/null |
		sed -n 's/.* \([0-9]*\) received.*/\1/p' || true
}

promisc() { # promisc: "gw0 gw1 " for each port in promiscuous mode
	local p
	for p in gw0 gw1; do
		ip -n "$TB_GW" link show "$p" | grep -q PROMISC && printf '%s ' $p
	done
	return 0
}

# --- clean stop ---
tb_config "$TB_DIR/open.yaml" "failure_mode: open"
[ -z "$(promisc)" ] || tb_fail "promiscuous before the start: $(promisc)"
tb_start_gw gw1 "$TB_DIR/open.yaml"
[ -n "$(tb_xdp_prog GW gw0)" ] || tb_fail "no XDP program on gw0 while running"
[ "$(promisc)" = "gw0 gw1 " ] || tb_fail "promiscuous while running: '$(promisc)'"
[ "$(pings 20)" -eq 20 ] || tb_fail "ping through the running gateway"
rc=0
tb_stop_gw || rc=$?
[ $rc -eq 0 ] || tb_fail "clean stop exit status $rc"
[ -z "$(tb_xdp_prog GW gw0)$(tb_xdp_prog GW gw1)" ] ||
	tb_fail "XDP program still attached after SIGTERM"
missing=$(tb_stats gw1.log 's["frames"]["missing"] + s["frames"]["doubles"] + s["frames"]["strays"]')
total=$(tb_stats gw1.log 's["frames"]["total"]')
found=$(tb_stats gw1.log 's["frames"]["found"]')
[ "$missing" -eq 0 ] && [ "$found" -eq "$total" ] ||
	tb_fail "frame accounting: found $found of $total"
[ -z "$(promisc)" ] || tb_fail "still promiscuous after the stop: $(promisc)"
grep -q 'gw1: promiscuous mode off again' "$TB_DIR/gw1.log" ||
	tb_fail "no 'promiscuous mode off again' line"
tb_pass "SIGTERM: detached, promiscuous mode off, $found/$total frames accounted for"

# --- crash with fail-open ---
tb_start_gw gw2 "$TB_DIR/open.yaml"
old_id=$(tb_xdp_prog GW gw0)
kill -KILL "$TB_GW_PID"
tb_wait_exit "$TB_GW_PID" 5 || true
[ "$(tb_xdp_prog GW gw0)" = "$old_id" ] || tb_fail "program gone after SIGKILL"
[ "$(promisc)" = "gw0 gw1 " ] || tb_fail "promiscuous after SIGKILL: '$(promisc)'"
got=$(pings 40)
[ "$got" -ge 39 ] || tb_fail "fail-open: only $got/40 replies while the daemon is down"
tb_pass "fail-open: $got/40 replies with the daemon down"

# --- restart under traffic replaces the stale program ---
tb_spawn flood A ping -i 0.01 -W 1 $TB_IP_B
FLOOD=$TB_LAST_PID
sleep 0.5
tb_start_gw gw3 "$TB_DIR/open.yaml"
grep -q 'replaced a stale xdplane program' "$TB_DIR/gw3.log" ||
	tb_fail "stale program not reported as replaced"
grep -q 'gw0: promiscuous mode already on; left on at stop' "$TB_DIR/gw3.log" ||
	tb_fail "the mode left by SIGKILL not reported as already on"
new_id=$(tb_xdp_prog GW gw0)
[ -n "$new_id" ] && [ "$new_id" != "$old_id" ] || tb_fail "program not replaced ($old_id -> $new_id)"
sleep 1
kill -INT "$FLOOD"
tb_wait_exit "$FLOOD" 5 || true
sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$TB_DIR/flood.log")
recv=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$TB_DIR/flood.log")
# Nothing may be lost across the replacement except what was on the wire
# at the instant of the switch.
[ "$recv" -ge $((sent - 2)) ] || tb_fail "restart under traffic lost $((sent - recv)) of $sent pings"
[ "$(pings 20)" -eq 20 ] || tb_fail "ping after restart"
tb_stop_gw || tb_fail "stop after restart"
xsk=$(tb_stats gw3.log 's["ports"][0]["xdp"]["xsk"]')
[ "$xsk" -ge 20 ] || tb_fail "after restart only $xsk frames went through AF_XDP"
tb_pass "restart under traffic: stale program $old_id replaced by $new_id, $recv/$sent pings"

# --- crash with fail-closed ---
tb_config "$TB_DIR/closed.yaml" "failure_mode: closed"
tb_start_gw gw4 "$TB_DIR/closed.yaml"
[ "$(pings 10)" -eq 10 ] || tb_fail "ping through the fail-closed gateway"
kill -KILL "$TB_GW_PID"
tb_wait_exit "$TB_GW_PID" 5 || true
got=$(pings 10)
[ "$got" -eq 0 ] || tb_fail "fail-closed: $got replies while the daemon is down"
tb_start_gw gw5 "$TB_DIR/closed.yaml"
[ "$(pings 10)" -eq 10 ] || tb_fail "ping after fail-closed restart"
tb_stop_gw || tb_fail "final stop"
tb_pass "fail-closed: no traffic while down, back after restart"
