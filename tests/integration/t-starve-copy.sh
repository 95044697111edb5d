#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The starvation detector (xdplane(8), "A starved socket") on veth, copy
# mode: no false alarm. (A driver starving a zero-copy socket is shown on
# igb and virtio-net in the guest: tests/vm/guest/t-starve.sh.) Shown:
#  - a quiet link, nothing sent for 6 s (three windows): no socket found
#    starved, /healthz-equivalent health ok;
#  - the fault switch XDPLANE_TEST_STARVE=gw0 (test only: the worker never
#    wakes gw0's driver to take from the fill ring) does not starve a
#    copy-mode socket, whose kernel takes a frame from the fill ring as
#    each one arrives: 2,000 UDP datagrams A -> B cross byte-identical,
#    rx_starved_episodes 0 and rx_starve_kicks 0 on both ports;
#  - clean stop, census clean.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
N=2000
tb_init
tb_build
SOCK="$TB_DIR/gw.sock"
tb_config "$TB_DIR/gw.yaml" "control: {socket: \"$SOCK\", metrics_listen: \"\"}"
X="$XDPLANE_BUILD/control/xdplanectl -s $SOCK"
XDPLANE_TEST_STARVE=gw0 tb_start_gw gw "$TB_DIR/gw.yaml"
grep -q 'TEST FAULT (XDPLANE_TEST_STARVE): gw0 queue 0' "$TB_DIR/gw.log" ||
	tb_fail "the fault switch was not taken"
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent

episodes() { $X stats --json | jq '[.ports[] | .rx_starved_episodes, .rx_starve_kicks] | add'; }
sleep 6
h=$($X --json status | jq -r '.health.state')
e=$(episodes)
echo "quiet link, 6 s: health $h, starvation episodes + kicks $e" >&2
[ "$h" = ok ] || tb_fail "health $h on a quiet link: $($X status | grep health)"
[ "$e" = 0 ] || tb_fail "a quiet link reported starved ($e)"
tb_pass "quiet link: not starvation (health ok, nothing counted)"

UC="$XDPLANE_BUILD/tests/tools/udpcheck"
tb_spawn recv B "$UC" recv --bind $TB_IP_B:9000 --expect $N --seed 3 --timeout-ms 5000 --json
RECV=$TB_LAST_PID
for _ in $(seq 50); do grep -q ready "$TB_DIR/recv.log" && break; sleep 0.1; done
ip netns exec "$TB_A" "$UC" send --to $TB_IP_B:9000 --count $N --min 18 \
	--max 1400 --rate 2000 --seed 3 || tb_fail "sender failed"
rc=0
tb_wait_exit $RECV 30 || rc=$?
sleep 3 # a window after the traffic
e=$(episodes)
h=$($X --json status | jq -r '.health.state')
tb_stop_gw || tb_fail "daemon exit status $?"
res=$(grep -a '^{' "$TB_DIR/recv.log" | tail -n1)
ok=$(jq .ok <<<"$res")
echo "copy mode, muted gw0: $ok of $N datagrams, starvation episodes + kicks $e, health $h" >&2
[ "$ok" -eq "$N" ] && [ $rc -eq 0 ] || tb_fail "only $ok of $N delivered"
[ "$e" = 0 ] || tb_fail "copy mode reported starved ($e)"
[ "$h" = ok ] || tb_fail "health $h"
grep -q 'AF_XDP socket starved' "$TB_DIR/gw.log" && tb_fail "a starvation line in the log"
[ "$(tb_stats gw.log 's["frames"]["missing"]')" = 0 ] || tb_fail "census: frames missing"
tb_pass "copy mode with gw0 muted: $N of $N datagrams, nothing reported, census clean"
