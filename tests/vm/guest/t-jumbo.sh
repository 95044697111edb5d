#!/usr/bin/env bash
# Jumbo frames on a real driver (tests/integration/t-jumbo.sh on veth).
# Which driver does what (Linux 7.3 guest, 4 KiB UMEM frames):
#  - MTU 3000 (a jumbo frame that fits one UMEM frame, <= 3818 B): zero-copy
#    on virtio-net and igb, single-buffer.
#  - MTU 9000 needs multi-buffer (a chain of 3 frames). Neither driver has
#    multi-buffer zero-copy (NETDEV_XDP_ACT_ZC_SG): the bind with
#    XDP_ZEROCOPY | XDP_USE_SG fails with EOPNOTSUPP. bind_mode auto falls
#    back to copy mode, multi-buffer, and says why: the driver has no
#    zero-copy for multi-buffer packets, and the MTU that fits one frame
#    (3818). virtio-net runs the
#    xdp.frags program natively; igb has no XDP multi-buffer at all (its
#    XDP RX buffer is 3072 B: "RX buffer size is too small"), so the
#    daemon attaches it in generic mode, logged as a warning.
#  - bind_mode zerocopy at MTU 9000: the start is refused (exit status 1)
#    with the bind that failed, the reason and the MTU that keeps
#    zero-copy, and nothing is left attached.
# Each forwarding case: UDP datagrams of every size up to the MTU
# byte-identical (udpcheck) and a TCP transfer with equal SHA-256, and the
# census at stop.
source /xdplane/tests/lib.sh
# mtu_all MTU: the gateway's ports and the hosts' NICs; igb resets the
# NIC on an MTU change (its link goes down for a second or two and the
# hosts' neighbours go with it): wait until every link is up again.
mtu_all() {
	ip link set gw0 mtu "$1"
	ip link set gw1 mtu "$1"
	vm_in h1 ip link set h1 mtu "$1"
	vm_in h2 ip link set h2 mtu "$1"
	for _ in $(seq 150); do
		ip link show gw0 | grep -q LOWER_UP && ip link show gw1 | grep -q LOWER_UP &&
			vm_in h1 ip link show h1 | grep -q LOWER_UP &&
			vm_in h2 ip link show h2 | grep -q LOWER_UP && return 0
		sleep 0.1
	done
	vm_fail "links not up 15 s after the MTU change to $1"
}
stat_sum() { # KEY: the sum over both ports of a top-level port counter
	xdplanectl --json stats | grep -o "\"ports\":.*" |
		grep -o "\"$1\":[0-9]*" | head -n2 | cut -d: -f2 | awk '{s += $1} END {print s + 0}'
}
# xfer MTU NAME: UDP 18..MTU-28 byte-identical, 4 MiB of TCP intact
xfer() {
	local n=$2 max=$(($1 - 28)) N=1500 res ok corrupt maxs want got
	# the neighbours first: datagrams queued for an ARP reply are dropped
	# oldest first once the queue is full
	vm_in h1 ping -c 1 -W 5 $H2 >/dev/null || vm_in h1 ping -c 1 -W 5 $H2 >/dev/null ||
		vm_fail "$n: ping"
	vm_in h2 udpcheck recv --bind $H2:9000 --expect $N --seed 11 --min 18 --max $max \
		--timeout-ms 10000 --json >"$TEST_DIR/udp-$n.log" 2>&1 &
	local recv=$!
	for _ in $(seq 50); do grep -q ready "$TEST_DIR/udp-$n.log" && break; sleep 0.1; done
	vm_in h1 udpcheck send --to $H2:9000 --count $N --min 18 --max $max --rate 1000 --seed 11 ||
		vm_fail "$n: udpcheck send"
	wait $recv || true
	res=$(grep -a '^{' "$TEST_DIR/udp-$n.log" | tail -n1)
	ok=$(grep -o '"ok": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
	corrupt=$(grep -o '"corrupt": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
	maxs=$(grep -o '"max_size": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
	vm_note "$n udp 18..$max sent $N received ${ok:-?} corrupt ${corrupt:-?} largest ${maxs:-?}"
	[ "${corrupt:-1}" -eq 0 ] && [ "${ok:-0}" -eq $N ] || vm_fail "$n: UDP ${ok:-0} of $N, ${corrupt:-?} corrupt: $res"
	[ "${maxs:-0}" -eq $max ] || vm_fail "$n: largest datagram ${maxs:-?}, not $max"
	head -c $((4 << 20)) /dev/urandom >"$TEST_DIR/data"
	want=$(sha256sum <"$TEST_DIR/data" | cut -d' ' -f1)
	vm_in h2 nc -l -p 5001 >"$TEST_DIR/recv.data" 2>/dev/null &
	local nc=$!
	sleep 0.5
	vm_in h1 bash -c "cat '$TEST_DIR/data' >/dev/tcp/$H2/5001" || vm_fail "$n: TCP send"
	for _ in $(seq 300); do kill -0 $nc 2>/dev/null || break; sleep 0.1; done
	kill $nc 2>/dev/null || true
	got=$(sha256sum <"$TEST_DIR/recv.data" | cut -d' ' -f1)
	rm -f "$TEST_DIR/data" "$TEST_DIR/recv.data"
	vm_note "$n tcp 4 MiB sha256 sent $want received $got"
	[ "$want" = "$got" ] || vm_fail "$n: TCP SHA-256 differs"
	vm_ok "$n: $N UDP datagrams up to $max B intact, TCP 4 MiB SHA-256 equal"
}

# 1. MTU 3000: zero-copy, single-buffer
mtu_all 3000
vm_config
vm_start_gw
grep -aq 'AF_XDP bind mode: zero-copy' "$TEST_DIR/gw.log" || vm_fail "MTU 3000: not zero-copy"
grep -aq 'gw0: MTU 3000, single-buffer' "$TEST_DIR/gw.log" || vm_fail "MTU 3000: no single-buffer line"
xfer 3000 mtu3000
chains=$(stat_sum rx_chains)
[ "$chains" -eq 0 ] || vm_fail "MTU 3000: $chains chains"
vm_stop_gw
vm_ok "MTU 3000 in zero-copy, single-buffer"

# 2. MTU 9000, bind_mode auto: multi-buffer in copy mode
mtu_all 9000
cp "$TEST_DIR/gw.log" "$TEST_DIR/gw-3000.log"
vm_config
vm_start_gw
WHY='gw0 queue 0: AF_XDP bind (zero-copy, multi-buffer): Operation not supported: the driver has no zero-copy for multi-buffer packets (or none at all); gw0 at MTU 9000 needs up to 3 frames per packet, an MTU up to 3818 fits one frame'
grep -aqF "zero-copy not available ($WHY); using copy mode" "$TEST_DIR/gw.log" ||
	vm_fail "MTU 9000: no fallback line with the reason: $(grep -a 'zero-copy not' "$TEST_DIR/gw.log")"
grep -aq 'AF_XDP bind mode: copy, multi-buffer' "$TEST_DIR/gw.log" || vm_fail "MTU 9000: not copy, multi-buffer"
grep -aq 'gw0: MTU 9000, multi-buffer on, up to 3 frames of 4096 B per packet' "$TEST_DIR/gw.log" ||
	vm_fail "MTU 9000: no multi-buffer line"
case "$XDPLANE_DRIVER" in
virtio) xdp='gw0: XDP program attached in native mode (multi-buffer, xdp.frags)' ;;
igb) xdp='gw0: XDP program attached in generic mode (multi-buffer, xdp.frags)'
	grep -aq 'gw0: native XDP refused (Invalid argument), trying generic' "$TEST_DIR/gw.log" ||
		vm_fail "igb MTU 9000: no warning for the generic mode" ;;
esac
grep -aq "$xdp" "$TEST_DIR/gw.log" || vm_fail "MTU 9000: not '$xdp'"
vm_note "mtu9000 $(grep -a 'zero-copy not available' "$TEST_DIR/gw.log" | sed 's/^<[0-9]>//')"
vm_note "mtu9000 ${xdp#gw0: }"
xfer 9000 mtu9000
chains=$(stat_sum rx_chains)
vm_note "mtu9000 chains received $chains"
[ "$chains" -gt 0 ] || vm_fail "MTU 9000: no chain received"
vm_stop_gw

# 3. MTU 9000, bind_mode zerocopy: refused with the reason
cp "$TEST_DIR/gw.log" "$TEST_DIR/gw-9000.log"
vm_config "bind_mode: zerocopy"
rc=0
timeout 60 xdplane -c "$TEST_DIR/gw.yaml" >"$TEST_DIR/gw.log" 2>&1 || rc=$?
grep -a 'AF_XDP\|refused\|error' "$TEST_DIR/gw.log" | head -n5
[ $rc -ne 0 ] || vm_fail "bind_mode zerocopy at MTU 9000: started"
grep -aqF "$WHY" "$TEST_DIR/gw.log" || vm_fail "bind_mode zerocopy at MTU 9000: refused without the reason"
if ip -d link show gw0 | grep -q 'prog/xdp'; then vm_fail "an XDP program left on gw0"; fi
vm_note "mtu9000 bind_mode zerocopy: exit $rc, $(grep -a 'Operation not supported' "$TEST_DIR/gw.log" | tail -n1 | sed 's/^<[0-9]>//')"
mtu_all 1500
vm_ok "MTU 9000: copy mode, multi-buffer (auto); zerocopy refused (exit $rc)"
