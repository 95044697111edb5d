#!/usr/bin/env bash
# 100,000 UDP datagrams of mixed sizes, from a 64-byte frame up to the
# largest frame the UMEM frame allows, cross byte-identical. Anything not
# delivered must be explained by a drop counter with a reason.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
N=${N:-100000}
FRAME=2048
# A 2048-byte UMEM frame carries 2048 - 256 (kernel headroom) = 1792 bytes;
# the gateway reserves 22 for Ethernet + two VLAN tags (QinQ): MTU 1770.
MTU=$((FRAME - 256 - 22))
tb_init
tb_build --mtu $MTU
tb_config "$TB_DIR/gw.yaml" "umem:" "  frame_size: $FRAME" "  frames: 32768"
tb_start_gw gw "$TB_DIR/gw.yaml"

UC="$XDPLANE_BUILD/tests/tools/udpcheck"
tb_spawn recv B "$UC" recv --bind $TB_IP_B:9000 --expect $N --seed 7 --timeout-ms 5000 --json
RECV=$TB_LAST_PID
for _ in $(seq 50); do grep -q ready "$TB_DIR/recv.log" && break; sleep 0.1; done
# min 18: 14 + 20 + 8 + 18 = 60 bytes, a 64-byte frame on the wire with FCS.
ip netns exec "$TB_A" "$UC" send --to $TB_IP_B:9000 --count $N --min 18 \
	--max $((MTU - 28)) --rate 20000 --seed 7 ||
	tb_fail "sender failed"
rc=0
tb_wait_exit $RECV 30 || rc=$?
cat "$TB_DIR/recv.log" >&2
tb_stop_gw || tb_fail "daemon exit status $?"

res=$(grep -a '^{' "$TB_DIR/recv.log" | tail -n1)
ok=$(jq .ok <<<"$res")
corrupt=$(jq .corrupt <<<"$res")
missing=$(jq .missing <<<"$res")
maxsz=$(jq .max_size <<<"$res")
[ "$corrupt" -eq 0 ] || tb_fail "$corrupt datagrams corrupted"
[ "$maxsz" -eq $((MTU - 28)) ] || tb_fail "largest datagram seen $maxsz, expected $((MTU - 28))"
drops=$(tb_stats gw.log 'sum(p["drops"]["handoff_full"] + p["drops"]["invalid_desc"] + p["drops"]["multibuf"] + p["xsk"]["rx_dropped"] + p["xsk"]["rx_ring_full"] + p["xsk"]["rx_fill_ring_empty_descs"] + p["xdp"]["failopen_error"] for p in s["ports"])')
echo "ok=$ok missing=$missing counted_drops=$drops" >&2
[ "$missing" -le "$drops" ] || tb_fail "$missing datagrams missing, only $drops drops counted"
[ "$ok" -eq "$N" ] || tb_fail "only $ok of $N delivered (drops counted: $drops)"
[ $rc -eq 0 ] || tb_fail "udpcheck receiver status $rc"
tb_pass "$N datagrams, 18..$((MTU - 28)) bytes, byte-identical"
