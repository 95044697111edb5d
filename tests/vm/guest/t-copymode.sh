#!/usr/bin/env bash
# bind_mode copy on the zero-copy capable driver: the copy path the product
# falls back to when zero-copy is refused, on the same NICs: the bind mode
# in the log and in xdplanectl status, unicast UDP integrity and ping, and
# the census.
source /xdplane/tests/lib.sh
vm_config "bind_mode: copy"
vm_start_gw
grep -q 'bind mode: copy' "$TEST_DIR/gw.log" || vm_fail "start-up log: not copy"
xdplanectl --json status | grep -q '"bind_mode": *"copy"' || vm_fail "xdplanectl status: not copy"
ss --xdp -a -e | grep -o 'zc:[01]' | sort | uniq -c
vm_in h1 ping -c 3 -W 5 "$H2" >/dev/null || vm_fail "ping $H2"
N=3000
vm_in h2 udpcheck recv --bind "$H2:9000" --expect $N --seed 9 --timeout-ms 10000 --json >"$TEST_DIR/udp.log" 2>&1 &
RECV=$!
for _ in $(seq 50); do grep -q ready "$TEST_DIR/udp.log" && break; sleep 0.1; done
vm_in h1 udpcheck send --to "$H2:9000" --count $N --min 18 --max 1472 --rate 2000 --seed 9 ||
	vm_fail "udpcheck send"
wait $RECV || true
res=$(grep -a '^{' "$TEST_DIR/udp.log" | tail -n1)
ok=$(grep -o '"ok": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
corrupt=$(grep -o '"corrupt": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
vm_note "copy mode udp sent $N received ${ok:-?} corrupt ${corrupt:-?}"
[ "${corrupt:-1}" -eq 0 ] && [ "${ok:-0}" -eq $N ] || vm_fail "UDP: ${ok:-0} of $N, ${corrupt:-?} corrupt"
vm_ok "copy mode: ping, $N of $N datagrams byte-identical"
vm_stop_gw
