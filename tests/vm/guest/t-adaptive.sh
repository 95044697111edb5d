#!/usr/bin/env bash
# Adaptive egress' path measurement on a real driver, zero-copy
# (tests/integration/t-adaptive.sh on veth measures the controller; here
# the measurement it rests on): ports[].adaptive.mode on for both ports,
# a TCP flow h1 -> h2 for FLOW_S seconds. Its data leaves through gw1,
# its ACKs come back in on gw1: gw1's RX tasks post them to gw1's path
# monitor, which takes RTT samples. Shown while the flow runs (sampled
# each second until 2 s before its end from `xdplanectl --json stats`): gw1's rtt_samples grow,
# its no_samples counter stays 0 and a queue's state leaves no_samples;
# /metrics has xdplane_adaptive_rtt_samples_total for gw1 > 0; `xdplanectl
# status` shows the adaptive table with gw1's base RTT and SRTT; after
# the flow the path monitor lost nothing (path_events_lost 0). Without
# traffic before the flow, no RTT sample: the counters start at 0.
source /xdplane/tests/lib.sh
FLOW_S=${FLOW_S:-10}
vm_config
sed -i 's/^  - interface: \(gw[01]\)$/  - {interface: \1, rate: 50Mbit, adaptive: {mode: on, target: 5ms}}/' "$TEST_DIR/gw.yaml"
cat "$TEST_DIR/gw.yaml"
vm_start_gw
# ad KEY: gw1's adaptive counter (the second port's "adaptive" object,
# the one with "mode"; the queues' have none)
ad() {
	xdplanectl --json stats | grep -o '"adaptive":{"path_events[^}]*,"mode"' | sed -n 2p |
		grep -o "\"$1\":[0-9]*" | head -n1 | cut -d: -f2
}
# states: the states of gw1's queues (xdplanectl status' adaptive table)
states() {
	xdplanectl status | awk '/^adaptive egress/ {a = 1}
		a && $1 == "gw1" && $2 ~ /^[0-9]+$/ {printf "%s ", $3}'
}
r0=$(ad rtt_samples)
[ "${r0:-1}" -eq 0 ] || vm_fail "gw1: $r0 RTT samples before any traffic"
vm_in h2 nc -l -p 5003 >"$TEST_DIR/sink" 2>/dev/null &
NC=$!
sleep 0.5
vm_in h1 bash -c "timeout $FLOW_S cat /dev/zero >/dev/tcp/$H2/5003" 2>/dev/null &
FLOW=$!
prev=0
grew=0
left=0
rows=0
# sample each second until 2 s before the flow ends (a sample takes a
# while under TCG: the guest's clock decides, not a count)
t0=$(cut -d' ' -f1 /proc/uptime)
i=0
while sleep 1; do
	i=$(awk -v t0="$t0" '{printf "%.1f", $1 - t0}' /proc/uptime)
	awk -v i="$i" -v f="$FLOW_S" 'BEGIN {exit !(i < f - 2)}' || break
	r=$(ad rtt_samples)
	ns=$(ad no_samples)
	st=$(states)
	echo "t+${i}s: rtt_samples $r no_samples $ns states $st received $(stat -c %s "$TEST_DIR/sink") B"
	[ "${ns:-1}" -eq 0 ] || vm_fail "gw1: no_samples $ns while the flow runs (t+${i}s)"
	[ "${r:-0}" -gt "$prev" ] && grew=$((grew + 1))
	prev=${r:-0}
	rows=$((rows + 1))
	[[ " $st" =~ \ (line|probe|hold|drain)\  ]] && left=$((left + 1))
done
xdplanectl status >"$TEST_DIR/status.txt" || vm_fail "xdplanectl status"
wget -q -O "$TEST_DIR/metrics.txt" "http://$METRICS/metrics" || vm_fail "GET /metrics"
wait $FLOW || true
# the receiver ends at the sender's FIN, once what h1 had buffered has
# crossed: a socket closed with data unsent would go on retransmitting
# into the next test's gateway
for _ in $(seq 150); do kill -0 $NC 2>/dev/null || break; sleep 0.1; done
kill $NC 2>/dev/null && vm_fail "the flow's receiver did not see its end in 15 s"
wait $NC 2>/dev/null || true
rm -f "$TEST_DIR/sink"
grep -A4 'adaptive egress' "$TEST_DIR/status.txt" || vm_fail "status shows no adaptive table"
row=$(awk '/^adaptive egress/ {a = 1} a && $1 == "gw1" && $2 ~ /^[0-9]+$/ && $3 != "no_samples"' \
	"$TEST_DIR/status.txt" | head -n1 | tr -s ' ')
m=$(grep '^xdplane_adaptive_rtt_samples_total{port="gw1"' "$TEST_DIR/metrics.txt" | awk '{s += $2} END {print s + 0}')
lost=$(ad path_events_lost)
ev=$(ad path_events)
vm_note "gw1 rtt_samples $prev (grew in $grew of $rows seconds), no_samples 0 throughout, state out of no_samples in $left of $rows"
vm_note "gw1 status: $row"
vm_note "gw1 /metrics xdplane_adaptive_rtt_samples_total ${m:-none}; path_events $ev lost $lost"
[ "$prev" -gt 0 ] || vm_fail "gw1: no RTT sample"
[ $grew -ge $((rows / 2)) ] || vm_fail "gw1: RTT samples grew in only $grew of $rows seconds"
[ $left -ge $((rows / 2)) ] || vm_fail "gw1: a queue left no_samples in only $left of $rows seconds"
[ "${m:-0}" -gt 0 ] || vm_fail "/metrics: no RTT samples for gw1"
[ -n "$row" ] || vm_fail "status: no adaptive row of gw1 out of no_samples"
[ "${lost:-1}" -eq 0 ] || vm_fail "gw1: $lost path events lost"
vm_stop_gw
vm_ok "adaptive egress measured $prev RTT samples on gw1, no_samples 0 while the flow ran"
