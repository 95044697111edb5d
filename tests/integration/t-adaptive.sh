#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Adaptive egress (ports[].adaptive): the bottleneck lies BEYOND the
# gateway. Host B's side of the link carries a FIFO below the gateway's
# port rate: b0's ingress is redirected to an IFB whose root is a TBF
# (FIFO_MBIT, a 1 MiB buffer), so the frames the gateway sends to B queue
# there, one hop beyond it, where its classes cannot order them. TCP
# A -> B (iperf3, the hosts' own congestion control) runs through it
# twice in one daemon: with mode on, then (hot reload) with mode off
# (4 parallel flows: one flow's window alone may not fill the FIFO).
# Shown, side by side in the same run:
#  - on: the effective rate of gw1 (xdplanectl --json status,
#    ports[1].adaptive.queues[0].rate_bps, sampled every 100 ms over the
#    last seconds) is within 15 % of the FIFO's rate; off: it is the
#    port's rate, not within 15 %;
#  - the queue in the FIFO beyond (tc -s qdisc backlog, sampled alike):
#    its mean with on is below a quarter of its mean with off;
#  - the flow's throughput with on is at least 80 % of the FIFO rate (the
#    queue moved into the gateway, the path stays full);
#  - while the samples flow (the on run's measured half), the controller
#    never lost them (adaptive.no_samples of gw1 stays 0);
#  - the path monitor took RTT samples, the controller decided and cut,
#    /metrics has the adaptive gauges, `xdplanectl status` shows the
#    table and the last decisions, --dump-config shows the keys;
#  - clean stop, frame census clean (tb_stop_gw).
# T_ADAPTIVE_CPUS (default 0): workers.cpus; with two CPUs (t-adaptive-2w)
# the two units are on two workers, so gw1's RX task and gw1's egress
# task (its path monitor) run on different workers: checked from `stats`.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
CTL=$XDPLANE_BUILD/control/xdplanectl
PORT_MBIT=80
FIFO_MBIT=40
RUN_S=10
CPUS=${T_ADAPTIVE_CPUS:-0}
command -v iperf3 >/dev/null || tb_fail "iperf3 missing (.ci/deps installs it)"
tb_init
tb_build

tb_fifo_beyond $FIFO_MBIT

config() { # config MODE
	cat <<YAML
ports:
  - interface: gw0
    rate: ${PORT_MBIT}Mbit
    adaptive: {mode: $1}
  - interface: gw1
    rate: ${PORT_MBIT}Mbit
    adaptive: {mode: $1, target: 500us, floor: 10%, probe_gain: 0.1}
workers: {cpus: [$CPUS]}
control: {socket: "$TB_DIR/gw.sock", metrics_listen: "127.0.0.1:9478"}
YAML
}
config on >"$TB_DIR/gw.yaml"
ip netns exec "$TB_GW" "$XDPLANE_BUILD/control/xdplane" --dump-config -c "$TB_DIR/gw.yaml" \
	>"$TB_DIR/dump.txt"
grep -A4 "adaptive:" "$TB_DIR/dump.txt" | grep -q "mode: on" ||
	tb_fail "--dump-config does not show adaptive.mode: on"
grep -q "target: 500us" "$TB_DIR/dump.txt" || tb_fail "--dump-config: no target"
tb_start_gw gw "$TB_DIR/gw.yaml"
# gw_stat EXPR: a value of `xdplanectl --json stats` (s: the result)
gw_stat() {
	"$CTL" -s "$TB_DIR/gw.sock" --json stats |
		python3 -c 'import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}
w0=$(gw_stat "s['ports'][0]['queues'][0]['worker']")
w1=$(gw_stat "s['ports'][1]['queues'][0]['worker']")
tb_log "workers.cpus [$CPUS]: gw0's queue 0 on worker $w0, gw1's on worker $w1"
if [[ $CPUS == *,* ]]; then
	[ "$w0" != "$w1" ] || tb_fail "two workers, but both units on worker $w0"
fi
tb_spawn iperf-srv B iperf3 -s -p 5201
for _ in $(seq 50); do
	ip netns exec "$TB_B" ss -ltn | grep -q ':5201 ' && break
	sleep 0.1
done

# run NAME: 4 TCP flows A -> B for RUN_S seconds; samples of the
# adaptive rate of gw1 and of the FIFO's backlog over its second half
run() {
	local name=$1 t
	tb_spawn "iperf-$name" A iperf3 -c "$TB_IP_B" -p 5201 -t $RUN_S -P 4 -J
	local pid=$TB_LAST_PID start
	start=$(date +%s%N)
	sleep $((RUN_S / 2))
	: >"$TB_DIR/samples-$name.txt"
	# until 0.8 s before the flow ends (each sample takes a while)
	while [ $(($(date +%s%N) - start)) -lt $(((RUN_S * 10 - 8) * 100000000)) ]; do
		local rate backlog
		rate=$("$CTL" -s "$TB_DIR/gw.sock" --json status |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][1]["adaptive"]["queues"][0]["rate_bps"])')
		backlog=$(ip netns exec "$TB_B" tc -s qdisc show dev ifb0 |
			sed -n 's/.*backlog \([0-9]*\)b.*/\1/p' | head -1)
		echo "$rate ${backlog:-0}" >>"$TB_DIR/samples-$name.txt"
		sleep 0.1
	done
	# the samples flowed all along: the controller never lost them
	gw_stat "s['ports'][1]['adaptive']['no_samples']" >"$TB_DIR/no-samples-$name.txt"
	tb_wait_exit "$pid" 30 || tb_fail "$name: iperf3 did not finish"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["end"]["sum_received"]["bits_per_second"])' \
		"$TB_DIR/iperf-$name.log" >"$TB_DIR/tput-$name.txt" ||
		tb_fail "$name: no iperf3 result: $(tail -5 "$TB_DIR/iperf-$name.log")"
}

mean_col() { awk -v c="$2" '{s += $c; n++} END {printf "%.0f", n ? s / n : 0}' "$1"; }

run on
"$CTL" -s "$TB_DIR/gw.sock" status >"$TB_DIR/status.txt" || tb_fail "xdplanectl status"
grep -q "adaptive egress" "$TB_DIR/status.txt" || tb_fail "status shows no adaptive table"
grep -q "last decisions" "$TB_DIR/status.txt" || tb_fail "status shows no decisions"
tb_exec GW curl -s --max-time 5 "http://127.0.0.1:9478/metrics" >"$TB_DIR/metrics.txt" ||
	tb_fail "GET /metrics"
grep -q '^xdplane_adaptive_rate_bytes_per_second{port="gw1",queue="0"}' "$TB_DIR/metrics.txt" ||
	tb_fail "/metrics has no xdplane_adaptive_rate_bytes_per_second"
grep -q '^xdplane_adaptive_enabled{port="gw1"} 1' "$TB_DIR/metrics.txt" ||
	tb_fail "/metrics: adaptive not enabled on gw1"

config off >"$TB_DIR/gw.yaml"
"$CTL" -s "$TB_DIR/gw.sock" reload >"$TB_DIR/reload.txt" ||
	tb_fail "reload to mode off refused: $(cat "$TB_DIR/reload.txt")"
sleep 2 # the FIFO of the last run drains
run off

fifo=$((FIFO_MBIT * 1000000))
rate_on=$(mean_col "$TB_DIR/samples-on.txt" 1)
rate_off=$(mean_col "$TB_DIR/samples-off.txt" 1)
q_on=$(mean_col "$TB_DIR/samples-on.txt" 2)
q_off=$(mean_col "$TB_DIR/samples-off.txt" 2)
tput_on=$(cut -d. -f1 <"$TB_DIR/tput-on.txt")
tput_off=$(cut -d. -f1 <"$TB_DIR/tput-off.txt")
lost_on=$(cat "$TB_DIR/no-samples-on.txt")
tb_log "on:  rate $rate_on bit/s, FIFO backlog mean $q_on B, throughput $tput_on bit/s, no_samples $lost_on"
tb_log "off: rate $rate_off bit/s, FIFO backlog mean $q_off B, throughput $tput_off bit/s"
within() { awk -v v="$1" -v w="$2" 'BEGIN {exit !(v >= 0.85 * w && v <= 1.15 * w)}'; }
within "$rate_on" "$fifo" || tb_fail "on: rate $rate_on not within 15 % of the FIFO's $fifo"
within "$rate_off" "$fifo" && tb_fail "off: rate $rate_off within 15 % of the FIFO's (should be the port's)"
[ "$rate_off" -eq $((PORT_MBIT * 1000000)) ] || tb_fail "off: rate $rate_off, not the port's"
[ "$q_off" -gt 0 ] && [ $((q_on * 4)) -lt "$q_off" ] ||
	tb_fail "FIFO beyond: backlog mean $q_on B with on, $q_off B with off (want < 1/4)"
[ "$tput_on" -ge $((fifo * 8 / 10)) ] || tb_fail "on: throughput $tput_on below 80 % of $fifo"
[ "$lost_on" -eq 0 ] || tb_fail "on: the controller lost its samples $lost_on times while they flowed"
tb_pass "FIFO ${FIFO_MBIT} Mbit/s beyond a ${PORT_MBIT} Mbit/s port: rate on $rate_on / off $rate_off," \
	"FIFO backlog mean on $q_on B / off $q_off B, throughput on $tput_on / off $tput_off," \
	"no_samples $lost_on, workers.cpus [$CPUS]"

tb_stop_gw || tb_fail "daemon exit status $?"
a() { tb_stats gw.log "s['ports'][1]['adaptive']['$1']"; }
[ "$(a rtt_samples)" -gt 100 ] || tb_fail "rtt_samples $(a rtt_samples)"
[ "$(a decisions)" -gt 10 ] || tb_fail "decisions $(a decisions)"
[ "$(a cuts)" -gt 0 ] || tb_fail "cuts $(a cuts)"
[ "$(a path_events_lost)" -eq 0 ] || tb_fail "path_events_lost $(a path_events_lost)"
tb_pass "gw1: $(a path_events) path events, $(a rtt_samples) RTT samples, $(a decisions) decisions, $(a cuts) cuts"
