#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Adaptive egress turned on by a reload (ports[].adaptive.mode off at
# start): the daemon makes its monitors and event rings only then
# (adaptive.h "Memory"), before the workers run the new policy. The FIFO
# beyond the gateway as in t-adaptive (a TBF below the port's rate on B's
# side); TCP A -> B through it after the reload. Shown:
#  - at start, off: `xdplanectl --json status` shows mode off for gw1;
#    after the reload, on (the controllers run: their monitors are there);
#  - after the reload to on: the effective rate of gw1 within 15 % of the
#    FIFO's rate (sampled over the run's second half), the path monitor
#    took RTT samples, the controller decided and cut, no event lost;
#  - clean stop, frame census clean (tb_stop_gw).
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
CTL=$XDPLANE_BUILD/control/xdplanectl
PORT_MBIT=80
FIFO_MBIT=40
RUN_S=10
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
workers: {cpus: [0]}
control: {socket: "$TB_DIR/gw.sock", metrics_listen: "127.0.0.1:9479"}
YAML
}
config off >"$TB_DIR/gw.yaml"
tb_start_gw gw "$TB_DIR/gw.yaml"
mode() {
	"$CTL" -s "$TB_DIR/gw.sock" --json status |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][1]["adaptive"]["mode"])'
}
[ "$(mode)" = "off" ] || tb_fail "at start (mode off): adaptive is $(mode)"

config on >"$TB_DIR/gw.yaml"
"$CTL" -s "$TB_DIR/gw.sock" reload >"$TB_DIR/reload.txt" ||
	tb_fail "reload to mode on refused: $(cat "$TB_DIR/reload.txt")"
[ "$(mode)" = "on" ] ||
	tb_fail "after the reload to mode on: adaptive is $(mode) (no monitor?)"

tb_spawn iperf-srv B iperf3 -s -p 5201
for _ in $(seq 50); do
	ip netns exec "$TB_B" ss -ltn | grep -q ':5201 ' && break
	sleep 0.1
done
tb_spawn iperf A iperf3 -c "$TB_IP_B" -p 5201 -t $RUN_S -P 4 -J
pid=$TB_LAST_PID
start=$(date +%s%N)
sleep $((RUN_S / 2))
: >"$TB_DIR/samples.txt"
while [ $(($(date +%s%N) - start)) -lt $(((RUN_S * 10 - 8) * 100000000)) ]; do
	"$CTL" -s "$TB_DIR/gw.sock" --json status |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][1]["adaptive"]["queues"][0]["rate_bps"])' \
			>>"$TB_DIR/samples.txt"
	sleep 0.1
done
tb_wait_exit "$pid" 30 || tb_fail "iperf3 did not finish"

fifo=$((FIFO_MBIT * 1000000))
rate=$(awk '{s += $1; n++} END {printf "%.0f", n ? s / n : 0}' "$TB_DIR/samples.txt")
tb_log "after the reload to on: rate $rate bit/s (FIFO $fifo)"
awk -v v="$rate" -v w="$fifo" 'BEGIN {exit !(v >= 0.85 * w && v <= 1.15 * w)}' ||
	tb_fail "rate $rate not within 15 % of the FIFO's $fifo"

tb_stop_gw || tb_fail "daemon exit status $?"
a() { tb_stats gw.log "s['ports'][1]['adaptive']['$1']"; }
[ "$(a rtt_samples)" -gt 100 ] || tb_fail "rtt_samples $(a rtt_samples)"
[ "$(a decisions)" -gt 10 ] || tb_fail "decisions $(a decisions)"
[ "$(a cuts)" -gt 0 ] || tb_fail "cuts $(a cuts)"
[ "$(a path_events_lost)" -eq 0 ] || tb_fail "path_events_lost $(a path_events_lost)"
tb_pass "turned on by a reload: rate $rate bit/s (FIFO $fifo), $(a rtt_samples) RTT samples," \
	"$(a decisions) decisions, $(a cuts) cuts"
