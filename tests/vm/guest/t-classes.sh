#!/usr/bin/env bash
# Traffic classes on a real driver, zero-copy: the RoCE class ahead of
# storage under load (tests/integration/t-classes.sh on veth). Under TCG
# the hosts send little, so the gateway is made the bottleneck by a low
# port rate: gw1 (towards h2) shaped to $PORT_MBIT Mbit/s, h1 sends a
# storage flow (UDP to 2049) at 3x that and a RoCEv2 flow (UDP 4791, a
# BTH) at 30 % of it, both with flowgen (sequence numbers, one-way
# latency: sender and receiver share the guest's clock). Two runs in one
# guest, side by side:
#  - classes (roce level 1, storage level 3, queues of 64 frames): RoCE
#    arrives whole (>= 98 % of what was sent) while storage loses more
#    than half; RoCE's median latency is below a quarter of storage's and
#    its p99 below storage's median (storage waits in its queue, RoCE
#    does not; a TCG guest's vCPU stalls reach RoCE's tail); storage
#    gets at least 80 % of the rate RoCE leaves of the egress' capacity
#    and both flows together carry at least 85 % of the bytes the FIFO
#    run carried (a storage class stalled during the run and drained at
#    its end would have a high rate over its few last frames)
#    (the shaper stays work-conserving), the capacity being what the
#    FIFO run delivered (on igb the port's two queues each get half of
#    ports[].rate, and both flows hash to one: 2 of the 4 Mbit/s);
#  - one FIFO (a single class, the same 64 frames): RoCE loses as storage
#    does (< 90 % arrives) and waits as long (its median above 4 x its
#    median with classes): the bottleneck is real, so the first run's
#    figures are the classes' doing.
# Only ratios measured in this run are asserted, no absolute rate or
# latency (TCG makes both meaningless).
source /xdplane/tests/lib.sh
PORT_MBIT=${PORT_MBIT:-4}
DUR=${DUR:-4}
STO_BPS=$((PORT_MBIT * 3000000))
ROCE_BPS=$((PORT_MBIT * 300000))

write_cfg() { # classes|fifo
	if [ "$1" = classes ]; then
		vm_config "classes:" \
			"  - {name: roce, level: 1, ceil: 90%, limit_packets: 64}" \
			"  - {name: default, level: 2, limit_packets: 64}" \
			"  - {name: storage, level: 3, limit_packets: 64}" \
			"rules:" \
			"  - {class: roce, match: {proto: udp, dport: 4791}}" \
			"  - {class: storage, match: {proto: udp, dport: 2049}}" \
			"default_class: default"
	else
		vm_config "classes:" \
			"  - {name: fifo, level: 1, limit_packets: 64}" \
			"default_class: fifo"
	fi
	# gw1 shaped: the bottleneck is the gateway's egress towards h2
	sed -i "s/^  - interface: gw1$/  - {interface: gw1, rate: ${PORT_MBIT}Mbit}/" "$TEST_DIR/gw.yaml"
}
# jnum FILE KEY: a number from the last JSON line of FILE
jnum() { grep -a '^{' "$1" | tail -n1 | grep -o "\"$2\":[0-9.]*" | cut -d: -f2; }
# wire_mbit LOG: received rate as the shaper charges it (frame + 24 B)
wire_mbit() {
	awk -v b="$(jnum "$1" frame_bytes)" -v n="$(jnum "$1" received)" \
		-v s="$(jnum "$1" seconds)" 'BEGIN {printf "%.3f", (s > 0 ? (b + 24 * n) * 8 / s / 1e6 : 0)}'
}
# ratio A B: A / B with three decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }
# holds EXPR: an awk condition
holds() { awk "BEGIN {exit !($1)}"; }

# udp_err NS FIELD: a host's UDP counter (/proc/net/snmp)
udp_err() {
	vm_in "$1" cat /proc/net/snmp | awk -v f="$2" '
		$1 == "Udp:" && !h { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1; next }
		$1 == "Udp:" { print $c + 0 }'
}

run() { # NAME
	local n=$1 rr rs ss rb0 sb0
	write_cfg "$n"
	rb0=$(udp_err h2 RcvbufErrors)
	sb0=$(udp_err h1 SndbufErrors)
	vm_start_gw
	vm_in h2 timeout 30 flowgen recv --bind $H2:4791 --json --idle-ms 1500 >"$TEST_DIR/roce-rx-$n.log" 2>&1 &
	rr=$!
	vm_in h2 timeout 30 flowgen recv --bind $H2:2049 --json --idle-ms 1500 >"$TEST_DIR/sto-rx-$n.log" 2>&1 &
	rs=$!
	for _ in $(seq 100); do
		grep -q ready "$TEST_DIR/roce-rx-$n.log" && grep -q ready "$TEST_DIR/sto-rx-$n.log" && break
		sleep 0.1
	done
	grep -q ready "$TEST_DIR/sto-rx-$n.log" || vm_fail "$n: receivers not ready"
	# ARP first: the flows' first frames should not wait for it
	vm_in h1 ping -c 1 -W 5 $H2 >/dev/null || vm_fail "$n: ping"
	vm_in h1 flowgen send --to $H2:2049 --rate $STO_BPS --size 1442 --duration "$DUR" \
		>"$TEST_DIR/sto-tx-$n.log" 2>&1 &
	ss=$!
	vm_in h1 flowgen send --to $H2:4791 --rate $ROCE_BPS --size 1042 --duration "$DUR" --roce \
		>"$TEST_DIR/roce-tx-$n.log" 2>&1 || vm_fail "$n: RoCE sender"
	wait $ss || vm_fail "$n: storage sender"
	xdplanectl classes >"$TEST_DIR/classes-$n.txt" 2>&1 || true
	wait $rr || vm_fail "$n: RoCE receiver: $(cat "$TEST_DIR/roce-rx-$n.log")"
	wait $rs || vm_fail "$n: storage receiver: $(cat "$TEST_DIR/sto-rx-$n.log")"
	vm_stop_gw
	# the classes as the senders ended (sent, dropped)
	cat "$TEST_DIR/classes-$n.txt"
	# nothing else crosses: traffic left over from another test (a TCP
	# flow still retransmitting) would be in class default, above storage
	other=$(awk '$1 == "gw1" && $2 == "default" {print $(NF - 4) + $(NF - 3)}' "$TEST_DIR/classes-$n.txt")
	vm_note "$n gw1 default class (other traffic) ${other:-0} frames"
	[ "${other:-0}" -le 20 ] || vm_fail "$n: ${other} frames of other traffic from h1's side"
	vm_note "$n hosts: h1 UDP SndbufErrors +$(($(udp_err h1 SndbufErrors) - sb0))," \
		"h2 RcvbufErrors +$(($(udp_err h2 RcvbufErrors) - rb0))"
	for f in roce sto; do
		R_SENT[$f]=$(jnum "$TEST_DIR/$f-tx-$n.log" sent)
		R_GOT[$f]=$(jnum "$TEST_DIR/$f-rx-$n.log" received)
		R_P50[$f]=$(jnum "$TEST_DIR/$f-rx-$n.log" p50_us)
		R_P99[$f]=$(jnum "$TEST_DIR/$f-rx-$n.log" p99_us)
		R_MBIT[$f]=$(wire_mbit "$TEST_DIR/$f-rx-$n.log")
		R_WIRE[$f]=$(($(jnum "$TEST_DIR/$f-rx-$n.log" frame_bytes) + 24 * R_GOT[$f]))
		R_FRAC[$f]=$(ratio "${R_GOT[$f]}" "${R_SENT[$f]}")
		vm_note "$n $f sent ${R_SENT[$f]} received ${R_GOT[$f]} (${R_FRAC[$f]})" \
			"${R_MBIT[$f]} Mbit/s on the wire, latency p50 ${R_P50[$f]} us p99 ${R_P99[$f]} us"
	done
}

declare -A R_SENT R_GOT R_P50 R_P99 R_MBIT R_FRAC R_WIRE
run classes
c_roce_frac=${R_FRAC[roce]} c_sto_frac=${R_FRAC[sto]}
c_roce_p50=${R_P50[roce]} c_roce_p99=${R_P99[roce]} c_sto_p50=${R_P50[sto]}
c_roce_mbit=${R_MBIT[roce]} c_sto_mbit=${R_MBIT[sto]}
c_bytes=$((R_WIRE[roce] + R_WIRE[sto]))
run fifo
f_roce_frac=${R_FRAC[roce]} f_roce_p50=${R_P50[roce]}
# the egress' capacity: what the FIFO delivered, both flows together
cap=$(awk -v r="${R_MBIT[roce]}" -v s="${R_MBIT[sto]}" 'BEGIN {printf "%.3f", r + s}')
# bytes delivered, both flows: with classes as many as through the FIFO
carried=$(ratio "$c_bytes" $((R_WIRE[roce] + R_WIRE[sto])))

left=$(awk -v r="$c_roce_mbit" -v p="$cap" 'BEGIN {printf "%.3f", p - r}')
use=$(ratio "$c_sto_mbit" "$left")
lat=$(ratio "$c_roce_p50" "$c_sto_p50")
tail=$(ratio "$c_roce_p99" "$c_sto_p50")
vm_note "classes: roce delivered $c_roce_frac, storage $c_sto_frac; roce p50 / storage p50 $lat, roce p99 / storage p50 $tail;" \
	"storage $c_sto_mbit of the $left Mbit/s roce leaves of $cap ($use)"
vm_note "classes carried $c_bytes wire bytes, the FIFO $((R_WIRE[roce] + R_WIRE[sto])) ($carried)"
vm_note "fifo: roce delivered $f_roce_frac, roce p50 $f_roce_p50 us (classes: $c_roce_p50 us)"
holds "$f_roce_frac < 0.9" || vm_fail "fifo: RoCE delivered $f_roce_frac: the gateway was not the bottleneck"
holds "$c_roce_frac >= 0.98" || vm_fail "classes: RoCE delivered only $c_roce_frac"
holds "$c_sto_frac < 0.5" || vm_fail "classes: storage delivered $c_sto_frac: no load"
holds "$lat < 0.25" || vm_fail "classes: RoCE p50 $c_roce_p50 us vs storage p50 $c_sto_p50 us ($lat)"
holds "$tail < 1" || vm_fail "classes: RoCE p99 $c_roce_p99 us vs storage p50 $c_sto_p50 us ($tail)"
holds "$c_roce_p50 * 4 < $f_roce_p50" || vm_fail "classes: RoCE p50 $c_roce_p50 us vs FIFO p50 $f_roce_p50 us"
holds "$use >= 0.8" || vm_fail "classes: storage $c_sto_mbit Mbit/s of $left left ($use)"
holds "$carried >= 0.85" || vm_fail "classes: carried $carried of the bytes the FIFO carried"
vm_ok "RoCE ahead of storage: delivered $c_roce_frac (FIFO $f_roce_frac), p50 $c_roce_p50 us (FIFO $f_roce_p50 us) vs storage p50 $c_sto_p50 us; storage used $use of the rest"
