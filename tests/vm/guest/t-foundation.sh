#!/usr/bin/env bash
# Unicast between the two hosts across the gateway: ping v4 and v6, UDP
# integrity (udpcheck, mixed sizes, byte-identical), a TCP transfer whose
# SHA-256 matches. The replies are unicast to the far host's MAC, which a
# port's unicast filter drops unless the gateway made it promiscuous.
source /xdplane/tests/lib.sh
vm_config
for p in gw0 gw1; do
	if ip link show $p | grep -q PROMISC; then vm_fail "$p promiscuous before the start"; fi
done
vm_start_gw
grep -a 'promiscuous mode on' "$TEST_DIR/gw.log" || vm_fail "no promiscuous mode line in the log"
for p in gw0 gw1; do
	ip link show $p | grep -q PROMISC || vm_fail "$p not promiscuous while running"
done
vm_ok "gw0, gw1 promiscuous while running"
vm_in h1 ping -c 3 -W 5 $H2 >"$TEST_DIR/ping4.log" 2>&1 || { cat "$TEST_DIR/ping4.log"; vm_fail "ping $H2"; }
tail -n 2 "$TEST_DIR/ping4.log"
vm_ok "ping v4"
vm_in h1 ping -6 -c 3 -W 5 $H2_6 >"$TEST_DIR/ping6.log" 2>&1 || { cat "$TEST_DIR/ping6.log"; vm_fail "ping $H2_6"; }
tail -n 2 "$TEST_DIR/ping6.log"
vm_ok "ping v6"

N=${N:-5000}
vm_in h2 udpcheck recv --bind $H2:9000 --expect $N --seed 7 --timeout-ms 10000 --json >"$TEST_DIR/udp.log" 2>&1 &
RECV=$!
for _ in $(seq 50); do grep -q ready "$TEST_DIR/udp.log" && break; sleep 0.1; done
vm_in h1 udpcheck send --to $H2:9000 --count $N --min 18 --max 1472 --rate 2000 --seed 7 ||
	vm_fail "udpcheck send"
wait $RECV || true
res=$(grep -a '^{' "$TEST_DIR/udp.log" | tail -n1)
echo "$res"
ok=$(grep -o '"ok": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
corrupt=$(grep -o '"corrupt": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
vm_note "udp sent $N received ${ok:-?} corrupt ${corrupt:-?}"
[ "${corrupt:-1}" -eq 0 ] || vm_fail "UDP: $corrupt corrupted"
[ "${ok:-0}" -eq "$N" ] || vm_fail "UDP: ${ok:-0} of $N delivered"
vm_ok "UDP: $N of $N datagrams, 18..1472 bytes, byte-identical"

head -c $((4 << 20)) /dev/urandom >"$TEST_DIR/data"
want=$(sha256sum <"$TEST_DIR/data" | cut -d' ' -f1)
vm_in h2 nc -l -p 5001 >"$TEST_DIR/recv.data" 2>"$TEST_DIR/nc.log" &
NC=$!
sleep 0.5
vm_in h1 bash -c "cat '$TEST_DIR/data' >/dev/tcp/$H2/5001" || vm_fail "TCP send"
for _ in $(seq 300); do kill -0 $NC 2>/dev/null || break; sleep 0.1; done
kill $NC 2>/dev/null || true
got=$(sha256sum <"$TEST_DIR/recv.data" | cut -d' ' -f1)
vm_note "tcp 4 MiB sha256 sent $want received $got"
[ "$want" = "$got" ] || vm_fail "TCP: SHA-256 differs ($(stat -c %s "$TEST_DIR/recv.data") bytes received)"
rm -f "$TEST_DIR/data" "$TEST_DIR/recv.data"
vm_ok "TCP: 4 MiB, SHA-256 equal"
vm_stop_gw
grep -a 'promiscuous mode off again' "$TEST_DIR/gw.log"
for p in gw0 gw1; do
	if ip link show $p | grep -q PROMISC; then vm_fail "$p still promiscuous after the stop"; fi
done
vm_ok "gw0, gw1 not promiscuous after the stop"
