#!/usr/bin/env bash
# Traffic classes on the veth testbed, in real time. The egress port towards
# hostB is shaped to 100 Mbit/s; hostA sends a storage flow at 300 Mbit/s
# (UDP to the NFS port) and an all-reduce flow at 30 Mbit/s (RoCEv2 frames,
# UDP 4791 with a BTH). With classes:
#  - the all-reduce class loses nothing and its one-way latency p99 stays
#    within 1 ms of the unloaded figure;
#  - storage receives at least 90 % of the capacity the all-reduce leaves.
# The same run with every rule removed (one FIFO) is printed next to it.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
DUR=${DUR:-8}
# The hosts share this machine's two cores with the gateway; on a real
# network they are other machines. So the gateway gets CPU 0 (one worker,
# workers.cpus [0]) and the hosts get CPU 1, at the lowest priority: their
# sends, and the kernel's receive work they trigger on the gateway's ports,
# run there and not on the gateway's core.
FG="taskset -c 1 nice -n 19 $XDPLANE_BUILD/tests/tools/flowgen"
tb_init
tb_build

cat >"$TB_DIR/classes.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
    rate: 100Mbit
workers: {cpus: [0]}
control: {socket: "$TB_DIR/classes.sock", metrics_listen: ""}
classes:
  - name: roce
    level: 1
    ceil: 90%
  - name: default
    level: 2
  - name: storage
    level: 3
rules:
  - class: roce
    match: {proto: udp, dport: 4791}
  - class: storage
    match: {proto: udp, dport: 2049}
default_class: default
YAML
cat >"$TB_DIR/fifo.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
    rate: 100Mbit
workers: {cpus: [0]}
control: {socket: "$TB_DIR/fifo.sock", metrics_listen: ""}
YAML

# run NAME CONFIG WITH_STORAGE: start the gateway, run the flows, stop it.
run() {
	local name=$1 cfg=$2 storage=$3
	tb_start_gw "gw-$name" "$cfg"
	tb_spawn "roce-rx-$name" B $FG recv --bind $TB_IP_B:4791 --json --idle-ms 1500
	local rx_roce=$TB_LAST_PID rx_sto=""
	if [ "$storage" = 1 ]; then
		tb_spawn "sto-rx-$name" B $FG recv --bind $TB_IP_B:2049 --json --idle-ms 1500
		rx_sto=$TB_LAST_PID
	fi
	sleep 0.5
	local tx_sto=""
	if [ "$storage" = 1 ]; then
		ip netns exec "$TB_A" $FG send --to $TB_IP_B:2049 --rate 300e6 \
			--size 1442 --duration "$DUR" >/dev/null 2>&1 &
		tx_sto=$!
	fi
	ip netns exec "$TB_A" $FG send --to $TB_IP_B:4791 --rate 30e6 --size 1042 \
		--duration "$DUR" --roce >"$TB_DIR/roce-tx-$name.json" 2>/dev/null
	[ -z "$tx_sto" ] || wait "$tx_sto"
	tb_wait_exit "$rx_roce" 20 || tb_fail "$name: RoCE receiver did not finish"
	[ -z "$rx_sto" ] || tb_wait_exit "$rx_sto" 20 || tb_fail "$name: storage receiver did not finish"
	tb_stop_gw || tb_fail "$name: gateway exit status $?"
}
field() { grep -a '^{' "$TB_DIR/$1.log" | tail -n1 | jq -r ".$2"; }
wire_mbit() { # frames + 24 B overhead each, as the shaper charges them
	local f=$1
	echo "scale=3; ($(field "$f" frame_bytes) + 24 * $(field "$f" received)) * 8 / $(field "$f" seconds) / 1000000" | bc
}

# check TAG: the two criteria for run "classes-TAG" against "alone-TAG".
check() {
	local t=$1 lost sent got p99 p99_alone roce_mbit sto_mbit left
	lost=$(field roce-rx-classes-$t lost)
	sent=$(jq -r .sent "$TB_DIR/roce-tx-classes-$t.json")
	got=$(field roce-rx-classes-$t received)
	p99=$(field roce-rx-classes-$t p99_us)
	p99_alone=$(field roce-rx-alone-$t p99_us)
	roce_mbit=$(wire_mbit roce-rx-classes-$t)
	sto_mbit=$(wire_mbit sto-rx-classes-$t)
	left=$(echo "100 - $roce_mbit" | bc)
	VERDICT="all-reduce lost $((sent - got)) of $sent, p99 $p99 us (unloaded $p99_alone); storage $sto_mbit of $left Mbit/s"
	[ "$lost" -eq 0 ] && [ "$got" -eq "$sent" ] || return 1
	[ "$(echo "$sto_mbit >= 0.9 * $left" | bc)" -eq 1 ] || return 1
	[ "$(echo "$p99 <= $p99_alone + 1000" | bc)" -eq 1 ]
}

# Latency on this shared VM is noisy (a vCPU can be descheduled for
# milliseconds): a pair of runs (unloaded, loaded) that misses is measured
# again, up to three times; every attempt is printed.
ok=0
for t in 1 2 3; do
	run "alone-$t" "$TB_DIR/classes.yaml" 0
	run "classes-$t" "$TB_DIR/classes.yaml" 1
	if check $t; then
		ok=1
		break
	fi
	echo "attempt $t missed: $VERDICT" >&2
done
run fifo "$TB_DIR/fifo.yaml" 1

printf '\n%-10s %10s %10s %12s %12s %14s\n' run roce_lost roce_p50 roce_p99_us roce_Mbit storage_Mbit >&2
for r in alone-$t classes-$t fifo; do
	sto="-"
	[ "${r#alone}" != "$r" ] || sto=$(wire_mbit sto-rx-$r)
	printf '%-10s %10s %10s %12s %12s %14s\n' $r "$(field roce-rx-$r lost)" \
		"$(field roce-rx-$r p50_us)" "$(field roce-rx-$r p99_us)" \
		"$(wire_mbit roce-rx-$r)" "$sto" >&2
done
[ $ok -eq 1 ] || tb_fail "classes: $VERDICT"
tb_pass "classes: $VERDICT"
