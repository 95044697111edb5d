#!/usr/bin/env bash
# ARP and IPv4 ping, IPv6 ping with neighbour discovery, and 802.1Q-tagged
# frames (and QinQ) cross the gateway byte for byte, through its AF_XDP
# sockets (not the fail-open path).
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build
tb_config "$TB_DIR/gw.yaml" "failure_mode: closed"
tb_start_gw gw "$TB_DIR/gw.yaml"

# Nothing learned beforehand: ARP and ND must cross the gateway too.
ip -n "$TB_A" neigh flush dev a0
ip -n "$TB_B" neigh flush dev b0
ip netns exec "$TB_A" ping -c 5 -i 0.2 -W 2 $TB_IP_B >/dev/null ||
	tb_fail "IPv4 ping A -> B"
ip -n "$TB_A" neigh show $TB_IP_B | grep -q "$TB_MAC_B" ||
	tb_fail "ARP did not resolve B's MAC"
tb_pass "ARP + IPv4 ping"
ip netns exec "$TB_B" ping -6 -c 5 -i 0.2 -W 2 $TB_IP6_A >/dev/null ||
	tb_fail "IPv6 ping B -> A"
ip -n "$TB_B" -6 neigh show $TB_IP6_A | grep -q "$TB_MAC_A" ||
	tb_fail "neighbour discovery did not resolve A's MAC"
tb_pass "ND + IPv6 ping"

# 802.1Q and QinQ: hand-made tagged frames (every PCP, DEI, two tag
# layers), sent raw on a0, must arrive on b0 byte for byte.
L2="$XDPLANE_SOURCE/tests/tools/l2frames.py"
tb_spawn l2recv B python3 "$L2" recv b0 21 "$TB_DIR/l2.got"
for _ in $(seq 50); do grep -q ready "$TB_DIR/l2recv.log" && break; sleep 0.1; done
ip netns exec "$TB_A" python3 "$L2" send a0 $TB_MAC_B $TB_MAC_A "$TB_DIR/l2.sent"
tb_wait_exit "$TB_LAST_PID" 15 || tb_fail "tagged frames missing: $(wc -l <"$TB_DIR/l2.got") of 21 arrived"
diff <(sort "$TB_DIR/l2.sent") <(sort "$TB_DIR/l2.got") >&2 ||
	tb_fail "tagged frames changed on the way"
tb_pass "21 802.1Q/QinQ/untagged frames crossed byte-identical"

tb_stop_gw || tb_fail "daemon exit status $?"
xsk=$(tb_stats gw.log 's["ports"][0]["xdp"]["xsk"] + s["ports"][1]["xdp"]["xsk"]')
fo=$(tb_stats gw.log 's["ports"][0]["xdp"]["failopen_redirect"] + s["ports"][1]["xdp"]["failopen_redirect"]')
[ "$xsk" -ge 30 ] || tb_fail "only $xsk frames went through the AF_XDP sockets"
[ "$fo" -eq 0 ] || tb_fail "$fo frames took the fail-open path"
tb_pass "all $xsk frames went through AF_XDP"
