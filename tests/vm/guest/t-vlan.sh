#!/usr/bin/env bash
# 802.1Q-tagged traffic across the gateway: h1 and h2 talk over VLAN 100
# (sub-interfaces h1.100, h2.100). A NIC that strips VLAN tags on receive
# (igb's rx-vlan-offload, on by default) hands XDP the frame without its
# tag, which AF_XDP would then forward untagged; a NIC's VLAN filter drops
# IDs no interface registered. Both must leave the tag on the wire: the
# gateway turns stripping off while it runs (logged) and on again at stop.
# virtio-net has no stripping to turn off.
source /xdplane/tests/lib.sh
for p in gw0 gw1; do
	echo "$p: $(ethtool -k $p | grep -E '^(rx-vlan-offload|rx-vlan-filter|tx-vlan-offload):' | tr -s '\n' ' ')"
done
for h in 1 2; do
	vm_in h$h ip link add link h$h name h$h.100 type vlan id 100
	vm_in h$h ip addr add 10.9.100.$h/24 dev h$h.100
	vm_in h$h ip link set h$h.100 up
done
vm_config
vm_start_gw
grep -a 'rx-vlan-offload off' "$TEST_DIR/gw.log" || [ "$XDPLANE_DRIVER" = virtio ] ||
	vm_fail "no rx-vlan-offload off line in the log"
for p in gw0 gw1; do
	if ethtool -k $p | grep -E '^rx-vlan-offload: on' >/dev/null; then
		vm_fail "$p: rx-vlan-offload still on while running"
	fi
done
vm_in h1 ping -c 3 -W 5 10.9.100.2 >"$TEST_DIR/ping.log" 2>&1 || {
	cat "$TEST_DIR/ping.log"
	xdplanectl counters >"$TEST_DIR/counters.log" 2>&1 || true
	vm_fail "ping over VLAN 100"
}
tail -n 2 "$TEST_DIR/ping.log"
vm_ok "ping over VLAN 100"
N=2000
vm_in h2 udpcheck recv --bind 10.9.100.2:9000 --expect $N --seed 3 --timeout-ms 10000 --json >"$TEST_DIR/udp.log" 2>&1 &
RECV=$!
for _ in $(seq 50); do grep -q ready "$TEST_DIR/udp.log" && break; sleep 0.1; done
vm_in h1 udpcheck send --to 10.9.100.2:9000 --count $N --min 18 --max 1468 --rate 2000 --seed 3 ||
	vm_fail "udpcheck send"
wait $RECV || true
res=$(grep -a '^{' "$TEST_DIR/udp.log" | tail -n1)
ok=$(grep -o '"ok": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
vm_note "vlan udp sent $N received ${ok:-?}"
[ "${ok:-0}" -eq "$N" ] || vm_fail "UDP over VLAN 100: ${ok:-0} of $N delivered"
vm_ok "UDP over VLAN 100: $N of $N byte-identical"
vm_stop_gw
for p in gw0 gw1; do
	ethtool -k $p | grep -E '^rx-vlan-offload: on' >/dev/null || [ "$XDPLANE_DRIVER" = virtio ] ||
		vm_fail "$p: rx-vlan-offload not on again after the stop"
done
vm_ok "VLAN tag stripping as before the start"
# after SIGKILL the fail-open program needs the tags too: stripping stays
# off; `xdplane --detach` turns it on again with the program removed
if [ "$XDPLANE_DRIVER" != virtio ]; then
	vm_start_gw
	kill -9 "$GW_PID"
	wait "$GW_PID" 2>/dev/null || true
	GW_PID=
	ethtool -k gw0 | grep -E '^rx-vlan-offload: off' >/dev/null ||
		vm_fail "gw0: rx-vlan-offload on after SIGKILL"
	vm_in h1 ping -c 2 -W 5 10.9.100.2 >/dev/null || vm_fail "fail-open ping over VLAN 100 after SIGKILL"
	vm_ok "after SIGKILL: stripping still off, VLAN 100 forwarded by the fail-open program"
	xdplane --detach -c "$TEST_DIR/gw.yaml" >"$TEST_DIR/detach.log" 2>&1 || {
		cat "$TEST_DIR/detach.log"
		vm_fail "xdplane --detach"
	}
	cat "$TEST_DIR/detach.log"
	for p in gw0 gw1; do
		ethtool -k $p | grep -E '^rx-vlan-offload: on' >/dev/null ||
			vm_fail "$p: rx-vlan-offload not on again after --detach"
		if ip link show $p | grep -q PROMISC; then vm_fail "$p promiscuous after --detach"; fi
	done
	vm_ok "xdplane --detach: stripping on again, promiscuous mode off"
fi
for h in 1 2; do vm_in h$h ip link del h$h.100; done
