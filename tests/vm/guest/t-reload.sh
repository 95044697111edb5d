#!/usr/bin/env bash
# Live reload under traffic, zero-copy: a sequenced UDP stream (udpcheck,
# 2,000 datagrams/s for 10 s) crosses the gateway while the configuration
# is rewritten and reloaded (the roce ceiling and the class of the stream
# change each time) up to 20 times, at least 5 before the stream ends (a
# reload takes longer on a busy host under emulation). Every reload is
# applied (generation +1 each), every datagram arrives byte-identical, and
# the census at stop finds every frame.
source /xdplane/tests/lib.sh
RELOADS=20
write_cfg() { # ROCE_CEIL_MBIT STREAM_CLASS
	vm_config "classes:" \
		"  - {name: roce, level: 1, ceil: ${1}Mbit}" \
		"  - {name: default, level: 2}" \
		"  - {name: storage, level: 3, ceil: $((200 + $1))Mbit}" \
		"rules:" \
		"  - {class: roce, match: {proto: udp, dport: 4791}}" \
		"  - {class: $2, match: {proto: udp, dport: 9000}}" \
		"default_class: default"
}
generation() {
	xdplanectl --json status | grep -o '"generation": *[0-9]*' | head -n1 | grep -o '[0-9]*$'
}
write_cfg 100 roce
vm_start_gw
N=20000
vm_in h2 udpcheck recv --bind "$H2:9000" --expect $N --seed 3 --timeout-ms 10000 --json >"$TEST_DIR/udp.log" 2>&1 &
RECV=$!
for _ in $(seq 50); do grep -q ready "$TEST_DIR/udp.log" && break; sleep 0.1; done
vm_in h1 udpcheck send --to "$H2:9000" --count $N --min 18 --max 600 --rate 2000 --seed 3 >"$TEST_DIR/send.log" 2>&1 &
SEND=$!
sleep 1
gen0=$(generation)
classes=(roce storage default)
done_n=0
for i in $(seq $RELOADS); do
	kill -0 $SEND 2>/dev/null || break
	write_cfg $((20 + (i % 7) * 10)) "${classes[i % 3]}"
	xdplanectl reload >"$TEST_DIR/reload.log" 2>&1 || { cat "$TEST_DIR/reload.log"; vm_fail "reload $i refused"; }
	g=$(generation)
	[ "$g" -eq $((gen0 + i)) ] || vm_fail "reload $i: generation $g, expected $((gen0 + i))"
	done_n=$i
done
[ $done_n -ge 5 ] || vm_fail "only $done_n reloads before the stream ended"
vm_note "reloads $done_n under traffic, generation $gen0 -> $g"
wait $SEND || vm_fail "udpcheck send"
wait $RECV || true
res=$(grep -a '^{' "$TEST_DIR/udp.log" | tail -n1)
echo "$res"
ok=$(grep -o '"ok": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
corrupt=$(grep -o '"corrupt": *[0-9]*' <<<"$res" | grep -o '[0-9]*$')
vm_note "udp under reloads sent $N received ${ok:-?} corrupt ${corrupt:-?}"
[ "${corrupt:-1}" -eq 0 ] && [ "${ok:-0}" -eq $N ] || vm_fail "UDP: ${ok:-0} of $N, ${corrupt:-?} corrupt"
vm_ok "$done_n reloads under traffic, $N of $N datagrams byte-identical"
vm_stop_gw
