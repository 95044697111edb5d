#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Adaptive egress under naps (poll.coalesce_us): the RTT samples are
# measured to the frame's arrival (the steering program's stamp in front
# of it), not to the end of the nap the frame waited out in the ring. A
# TCP flow A -> B at a low rate (iperf3 -b 20M, 1400-byte writes: a
# frame every ~0.5 ms, so they keep coming one at a time and the worker
# naps between them, 1000 us naps) through a port with adaptive on and no
# bottleneck: the ACKs come back from B within tens of microseconds of
# the segment, mostly while the worker naps.
# Shown:
#  - the worker napped (workers_load[0].naps grew by > 100);
#  - gw1's base RTT, smoothed RTT and queueing delay (xdplanectl --json
#    status, ports[1].adaptive.queues[0], sampled every 100 ms for 4 s:
#    their means) stay below a quarter of the nap;
#  - clean stop, frame census clean (tb_stop_gw).
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
CTL=$XDPLANE_BUILD/control/xdplanectl
NAP_US=1000
RUN_S=6
command -v iperf3 >/dev/null || tb_fail "iperf3 missing (.ci/deps installs it)"
tb_init
tb_build

cat >"$TB_DIR/gw.yaml" <<YAML
ports:
  - interface: gw0
    rate: 1Gbit
  - interface: gw1
    rate: 1Gbit
    adaptive: {mode: on}
workers: {cpus: [0]}
poll: {coalesce_us: $NAP_US}
control: {socket: "$TB_DIR/gw.sock"}
YAML
tb_start_gw gw "$TB_DIR/gw.yaml"
tb_spawn iperf-srv B iperf3 -s -p 5201
for _ in $(seq 50); do
	ip netns exec "$TB_B" ss -ltn | grep -q ':5201 ' && break
	sleep 0.1
done
st() {
	"$CTL" -s "$TB_DIR/gw.sock" --json status |
		python3 -c 'import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}
naps0=$(st "s['workers_load'][0]['naps']")
tb_spawn iperf A iperf3 -c "$TB_IP_B" -p 5201 -t $RUN_S -b 20M -l 1400
pid=$TB_LAST_PID
start=$(date +%s%N)
sleep 1
# gw1's RTTs every 100 ms until a second before the flow ends: their means
q="s['ports'][1]['adaptive']['queues'][0]"
: >"$TB_DIR/rtt.txt"
while [ $(($(date +%s%N) - start)) -lt $(((RUN_S - 1) * 1000000000)) ]; do
	st "$q['base_rtt_ns'], $q['srtt_ns'], $q['qdelay_ns']" | tr -d '(),' >>"$TB_DIR/rtt.txt"
	sleep 0.1
done
naps=$(($(st "s['workers_load'][0]['naps']") - naps0))
tb_wait_exit "$pid" 30 || tb_fail "iperf3 did not finish"
mean() { awk -v c="$1" '{s += $c; n++} END {printf "%.0f", n ? s / n : 0}' "$TB_DIR/rtt.txt"; }
base=$(mean 1)
srtt=$(mean 2)
qd=$(mean 3)
tb_log "naps $naps, gw1 means: base RTT $base ns, srtt $srtt ns, queueing delay $qd ns (nap $NAP_US us)"
[ "$naps" -gt 100 ] || tb_fail "the worker napped $naps times (want > 100)"
[ "$base" -gt 0 ] && [ "$srtt" -gt 0 ] || tb_fail "no RTT samples (base $base, srtt $srtt)"
lim=$((NAP_US * 1000 / 4))
[ "$base" -lt "$lim" ] || tb_fail "base RTT $base ns: the naps are in it (want < $lim)"
[ "$srtt" -lt "$lim" ] || tb_fail "srtt $srtt ns: the naps are in it (want < $lim)"
[ "$qd" -lt "$lim" ] || tb_fail "queueing delay $qd ns: the naps are in it (want < $lim)"
tb_pass "$naps naps of $NAP_US us: gw1 base RTT $base ns, srtt $srtt ns, queueing delay $qd ns"
tb_stop_gw || tb_fail "daemon exit status $?"
