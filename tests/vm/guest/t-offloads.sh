#!/usr/bin/env bash
# Checksums with the hosts' offloads at their defaults, on a real driver
# (tests/integration/t-offload.sh on veth). The hosts h1, h2 keep what
# their driver turns on (ethtool -k, printed as figures):
#  - igb: TX checksum offload, TSO and GSO on; QEMU's 82576 model computes
#    the checksums and cuts the TSO segments in the device, as the NIC
#    does: the wire carries full checksums;
#  - virtio-net on a QEMU hub: tx-checksumming off (the hub backend has
#    no virtio-net header, so QEMU offers no VIRTIO_NET_F_CSUM or GSO):
#    the guest's stack computes them. Partial checksums, which veth and
#    virtio-net with a tap/vhost backend hand over, never reach the
#    gateway's wire here.
# The gateway's ports: checksum auto, logged per port (virtio_net:
# complete, every frame checked; igb: trust, a physical NIC). Shown:
# UDP (IPv4 and IPv6, 18..1472 B) byte-identical, 4 MiB of TCP each way
# with equal SHA-256 (the hosts segment with TSO on igb), the gateway's
# checksum.bad and not_completed 0, and the far hosts' UDP and TCP
# InCsumErrors unchanged (/proc/net/snmp in their namespaces).
source /xdplane/tests/lib.sh
for h in h1 h2; do
	f=$(vm_in $h ethtool -k $h | awk -F': ' '
		/^(tx-checksumming|tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload|rx-checksumming):/ {
			printf "%s %s, ", $1, $2 }')
	vm_note "$h offloads (defaults): ${f%, }"
done
case "$XDPLANE_DRIVER" in
igb) want_tx=on want_auto="trust (driver igb" ;;
virtio) want_tx=off want_auto="complete partial TCP/UDP checksums (driver virtio_net" ;;
esac
for h in h1 h2; do
	vm_in $h ethtool -k $h | grep -q "^tx-checksumming: $want_tx" ||
		vm_fail "$h: tx-checksumming is not $want_tx by default on $XDPLANE_DRIVER"
done
# csum_err NS: Udp and Tcp InCsumErrors of a host
csum_err() {
	vm_in "$1" cat /proc/net/snmp | awk '
		$1 == "Udp:" && !u { for (i = 2; i <= NF; i++) if ($i == "InCsumErrors") ui = i; u = 1; next }
		$1 == "Udp:" { us = $ui }
		$1 == "Tcp:" && !t { for (i = 2; i <= NF; i++) if ($i == "InCsumErrors") ti = i; t = 1; next }
		$1 == "Tcp:" { ts = $ti }
		END { print us + ts }'
}
csum() { # PORT KEY: the port's checksum counter
	xdplanectl --json stats | grep -o '"checksum":{[^}]*}' | sed -n "$(($1 + 1))p" |
		grep -o "\"$2\":[0-9]*" | cut -d: -f2
}
vm_config
vm_start_gw
for p in gw0 gw1; do
	grep -aq "$p: checksum auto -> $want_auto" "$TEST_DIR/gw.log" ||
		vm_fail "$p: checksum auto is not '$want_auto': $(grep -a checksum "$TEST_DIR/gw.log")"
done
vm_note "$(grep -a 'gw0: checksum auto' "$TEST_DIR/gw.log" | sed 's/^<[0-9]>//')"
e1=$(csum_err h1)
e2=$(csum_err h2)

udp() { # NAME DST
	local N=3000 res ok corrupt
	vm_in h2 udpcheck recv --bind "$2" --expect $N --seed 13 --timeout-ms 10000 --json >"$TEST_DIR/$1.log" 2>&1 &
	local recv=$!
	for _ in $(seq 50); do grep -q ready "$TEST_DIR/$1.log" && break; sleep 0.1; done
	vm_in h1 udpcheck send --to "$2" --count $N --min 18 --max 1452 --rate 2000 --seed 13 || vm_fail "$1: send"
	wait $recv || true
	res=$(grep -a '^{' "$TEST_DIR/$1.log" | tail -n1)
	ok=$(grep -o '"ok": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
	corrupt=$(grep -o '"corrupt": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
	vm_note "$1 sent $N received ${ok:-?} corrupt ${corrupt:-?}"
	[ "${corrupt:-1}" -eq 0 ] && [ "${ok:-0}" -eq $N ] || vm_fail "$1: ${ok:-0} of $N, ${corrupt:-?} corrupt"
}
tcp() { # NAME FROM TO TO_ADDR
	local want got
	head -c $((4 << 20)) /dev/urandom >"$TEST_DIR/data"
	want=$(sha256sum <"$TEST_DIR/data" | cut -d' ' -f1)
	vm_in "$3" nc -l -p 5002 >"$TEST_DIR/recv.data" 2>/dev/null &
	local nc=$!
	sleep 0.5
	vm_in "$2" bash -c "cat '$TEST_DIR/data' >/dev/tcp/$4/5002" || vm_fail "$1: TCP send"
	for _ in $(seq 300); do kill -0 $nc 2>/dev/null || break; sleep 0.1; done
	kill $nc 2>/dev/null || true
	got=$(sha256sum <"$TEST_DIR/recv.data" | cut -d' ' -f1)
	rm -f "$TEST_DIR/data" "$TEST_DIR/recv.data"
	vm_note "$1 4 MiB sha256 sent $want received $got"
	[ "$want" = "$got" ] || vm_fail "$1: SHA-256 differs"
}
udp udp4 $H2:9000
udp udp6 "[$H2_6]:9000"
tcp tcp-h1-h2 h1 h2 $H2
tcp tcp-h2-h1 h2 h1 $H1
d1=$(($(csum_err h1) - e1))
d2=$(($(csum_err h2) - e2))
for p in 0 1; do
	for k in completed bad not_completed; do
		v=$(csum $p $k)
		vm_note "gw$p checksum.$k $v"
		[ "$k" = completed ] || [ "${v:-1}" -eq 0 ] || vm_fail "gw$p: checksum.$k $v"
	done
done
vm_note "InCsumErrors (UDP + TCP) at h1 +$d1, h2 +$d2"
[ $d1 -eq 0 ] && [ $d2 -eq 0 ] || vm_fail "bad checksums at the far hosts: h1 +$d1, h2 +$d2"
vm_stop_gw
vm_ok "offloads at their defaults: UDP v4/v6 intact, TCP both ways SHA-256 equal, no bad checksum anywhere"
