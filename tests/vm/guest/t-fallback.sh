#!/usr/bin/env bash
# bind_mode auto on NICs that refuse zero-copy: gw2 and gw3 are virtio-net
# devices without VIRTIO_F_ACCESS_PLATFORM, whose zero-copy bind fails
# with EINVAL. The daemon says so, binds in copy mode, and forwards: ping
# and 3,000 UDP datagrams byte-identical between h3 and h4; the census.
source /xdplane/tests/lib.sh
# shellcheck disable=SC2034 # read by vm_config
PORT0=gw2 PORT1=gw3
H4=10.9.1.4
vm_config "bind_mode: auto"
vm_start_gw
why=$(grep -a 'zero-copy not available' "$TEST_DIR/gw.log") ||
	vm_fail "no 'zero-copy not available' line"
echo "$why"
grep -q 'bind mode: copy' "$TEST_DIR/gw.log" || vm_fail "not copy mode after the refusal"
vm_note "fallback: $(sed 's/^<[0-9]>//' <<<"$why")"
vm_in h3 ping -c 3 -W 5 "$H4" >/dev/null || vm_fail "ping $H4"
N=3000
vm_in h4 udpcheck recv --bind "$H4:9000" --expect $N --seed 5 --timeout-ms 10000 --json >"$TEST_DIR/udp.log" 2>&1 &
RECV=$!
for _ in $(seq 50); do grep -q ready "$TEST_DIR/udp.log" && break; sleep 0.1; done
vm_in h3 udpcheck send --to "$H4:9000" --count $N --min 18 --max 1472 --rate 2000 --seed 5 ||
	vm_fail "udpcheck send"
wait $RECV || true
res=$(grep -a '^{' "$TEST_DIR/udp.log" | tail -n1)
ok=$(grep -o '"ok": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
corrupt=$(grep -o '"corrupt": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
vm_note "fallback copy mode udp sent $N received ${ok:-?} corrupt ${corrupt:-?}"
[ "${corrupt:-1}" -eq 0 ] && [ "${ok:-0}" -eq $N ] || vm_fail "UDP: ${ok:-0} of $N, ${corrupt:-?} corrupt"
vm_ok "auto fell back to copy: ping, $N of $N datagrams byte-identical"
vm_stop_gw
