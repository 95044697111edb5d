#!/usr/bin/env bash
# Overload: the port towards host B is shaped to 20 Mbit/s and host A
# offers 10x that (200 Mbit/s of low-class UDP, flowgen) for DUR seconds
# (60 by default; a knob), plus a high-class stream at 10 % of the port
# rate (udpcheck, byte-exact) and round-trip probes in the high class
# (udprtt). Shown, with numbers:
#  - memory flat: the daemon's VmRSS, sampled every second, moves by less
#    than RSS_SLACK_KB (256 KiB) over the run. Everything the dataplane
#    uses is allocated and touched at start (UMEM populated, SPSC rings
#    and class queues written once, so that no page is first touched as
#    their indices advance); the hot path never allocates. What may still
#    move: the heap high-water mark of the control thread's requests (the
#    one stats request in mid-run costs 116 KiB, measured). Before the
#    rings were touched at start, the RSS crept up by ~3 KiB/s (pages of
#    the quiet direction's rings, first touched as traffic walked them)
#    and by ~1 MiB in the first seconds (class queues): both fail this.
#    A leak of one small allocation per frame (2500 frames/s leave) fails
#    it within a second;
#  - drops counted: what A offered minus what B received equals the sum
#    of the drop counters on the way (the low class's drops by reason,
#    the gateway's RX drops and AF_XDP socket drops, the veths' kernel
#    drops, host B's UDP receive-buffer drops), within the low class's
#    queue limit;
#  - the high class unaffected: no drop of it in the gateway and every
#    datagram of its stream delivered byte-identical (a datagram B's own
#    socket had no room for -- UDP RcvbufErrors, the host starved of CPU on
#    this shared machine -- or that overflowed gw0's RX ring before it could
#    be classified -- the worker starved of CPU by the machine's other
#    load -- is reported and tolerated: neither is a class decision), and the
#    probes' round-trip time under overload: the median within
#    P50_RATIO (5x) of the unloaded median, or within P50_FLOOR_US (2 ms)
#    of it, whichever is larger (the machine's CPU is shared, so a ratio
#    alone would fail on scheduling noise of a few hundred us); the p99
#    below P99_FIFO_SHARE (1/10) of the wait a FIFO would give the same
#    probe (LIMIT frames of the flood ahead of it at the port's rate,
#    444 ms): a probe queued behind the low class fails both (and its
#    timeouts, which would stretch the probe run past the flood, fail the
#    check that the probes ran under it), while the
#    1 % of probes a 2-core VM stalls for 10-20 ms (host scheduling,
#    seen in 2 of 5 CI runs with the unloaded p99 at 1 ms) fails neither;
#  - the daemon still stops with status 0 and a clean census.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
DUR=${DUR:-60}
RSS_SLACK_KB=${RSS_SLACK_KB:-256}
P50_RATIO=${P50_RATIO:-5}
P50_FLOOR_US=${P50_FLOOR_US:-2000}
P99_FIFO_SHARE=${P99_FIFO_SHARE:-0.1}
PORT_BPS=20000000
FLOOD_FRAME=1084 # 1042-byte payload + UDP, IPv4, Ethernet headers
HIGH_PPS=850 # 200..300-byte payloads, 292-byte frames on average: 2 Mbit/s
LIMIT=1024   # low class queue limit, packets
# The hosts share the machine's two cores with the gateway: the gateway
# gets CPU 0, the traffic tools CPU 1 at low priority (as t-classes.sh).
ON1="taskset -c 1 nice -n 19"
tb_init
tb_build
export TB_DIR
CFG="$TB_DIR/gw.yaml"
cat >"$CFG" <<YAML
ports:
  - interface: gw0
  - interface: gw1
    rate: 20Mbit # PORT_BPS
workers: {cpus: [0]}
control: {socket: "$TB_DIR/gw.sock", metrics_listen: ""}
classes:
  - {name: high, level: 0, ceil: 50%}
  - {name: low, level: 1, limit_packets: $LIMIT}
rules:
  - {class: high, match: {proto: udp, dport: 9000}}
  - {class: high, match: {proto: udp, dport: 7000}}
  - {class: high, match: {proto: udp, sport: 7000}}
default_class: low
YAML
tb_start_gw gw "$CFG"
PID=$TB_GW_PID
# Static neighbours: ARP would ride in the default (low) class, which the
# flood keeps 90 % full; lost ARP probes would make host A drop its own
# datagrams (neighbour unresolved), uncounted by any link.
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
T="$XDPLANE_BUILD/tests/tools"

# --- unloaded round trip of the high class ---
# (the probes above the traffic tools' priority: they measure, the others
# only load)
RTT="taskset -c 1 nice -n -10 $T/udprtt"
tb_spawn echo B $RTT echo --bind $TB_IP_B:7000
sleep 0.3
ip netns exec "$TB_A" $RTT probe --to $TB_IP_B:7000 --count 1000 --timeout-ms 1000 \
	--interval-us 2000 --json >"$TB_DIR/rtt0.json" 2>/dev/null || true

# --- memory samples, every second ---
(
	while kill -0 $PID 2>/dev/null; do
		awk '/^VmRSS/ {print $2}' /proc/$PID/status
		sleep 1
	done
) >"$TB_DIR/rss.txt" 2>/dev/null &
RSSLOOP=$!

# --- overload ---
N_HIGH=$((HIGH_PPS * DUR))
udp_rcvbuf_errors() { # host B's UDP sockets: datagrams the receivers were too slow for
	ip netns exec "$TB_B" awk '/^Udp:/ {n++; if (n == 1) for (i = 1; i <= NF; i++) k[i] = $i;
		else for (i = 1; i <= NF; i++) if (k[i] == "RcvbufErrors") print $i}' /proc/net/snmp
}
rcvbuf0=$(udp_rcvbuf_errors)
# receivers at normal priority on CPU 1: they must keep up with 20 Mbit/s
tb_spawn fgrx B taskset -c 1 "$T/flowgen" recv --bind $TB_IP_B:5001 --json --idle-ms 2000
FGRX=$TB_LAST_PID
tb_spawn ucrx B taskset -c 1 "$T/udpcheck" recv --bind $TB_IP_B:9000 --expect $N_HIGH \
	--seed 7 --timeout-ms 4000 --json
UCRX=$TB_LAST_PID
sleep 0.3
tb_spawn fgtx A $ON1 "$T/flowgen" send --to $TB_IP_B:5001 --rate 200e6 --size 1042 \
	--duration "$DUR"
FGTX=$TB_LAST_PID
tb_spawn uctx A $ON1 "$T/udpcheck" send --to $TB_IP_B:9000 --count $N_HIGH \
	--min 200 --max 300 --rate $HIGH_PPS --seed 7
UCTX=$TB_LAST_PID
(sleep $((DUR / 2)) && "$XDPLANE_BUILD/control/xdplanectl" -s "$TB_DIR/gw.sock" stats --json \
	>"$TB_DIR/mid.json") &
MID=$!
sleep 2
# probes through the middle of the overload, 10 ms apart
probes=$(((DUR - 6) * 100))
ip netns exec "$TB_A" $RTT probe --to $TB_IP_B:7000 --count $probes --timeout-ms 1000 \
	--interval-us 10000 --warmup 10 --json >"$TB_DIR/rtt1.json" 2>/dev/null || true
wait $MID || tb_fail "mid-run stats"
tb_wait_exit $FGTX $((DUR + 30)) || tb_fail "flowgen sender status $?"
tb_wait_exit $UCTX 60 || tb_fail "udpcheck sender status $?"
tb_wait_exit $FGRX 30 || tb_fail "flowgen receiver status $?"
rc=0
tb_wait_exit $UCRX 30 || rc=$?
sleep 1
kill $RSSLOOP 2>/dev/null || true
wait $RSSLOOP 2>/dev/null || true
st=$("$XDPLANE_BUILD/control/xdplanectl" -s "$TB_DIR/gw.sock" stats --json)

kdrops() { # rx + tx dropped of a veth
	ip -n "$(tb_ns "$1")" -s -j link show "$2" | jq '.[0].stats64 | .rx.dropped + .tx.dropped'
}
python3 - "$st" "$(cat "$TB_DIR/mid.json")" "$(kdrops A a0)" "$(kdrops GW gw0)" \
	$(($(udp_rcvbuf_errors) - rcvbuf0)) <<PY || tb_fail "overload"
import json, os, sys
sys.path.insert(0, os.environ["XDPLANE_SOURCE"] + "/tests/lib")
import faultlib as fl
d = os.environ["TB_DIR"]
st, mid = json.loads(sys.argv[1]), json.loads(sys.argv[2])
kdrops = int(sys.argv[3]) + int(sys.argv[4])
rcvbuf = int(sys.argv[5])  # host B's receivers too slow (shared CPU)
def last_json(name):
    for line in reversed(open(f"{d}/{name}").read().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    sys.exit(f"FAIL: no JSON in {name}")
bad = []
# memory
rss = [int(x) for x in open(f"{d}/rss.txt").read().split()]
span = max(rss) - min(rss)
print(f"VmRSS: {len(rss)} samples, min {min(rss)} kB, max {max(rss)} kB, "
      f"max - min {span} kB (bound $RSS_SLACK_KB)", file=sys.stderr)
print("VmRSS samples (kB): " + " ".join(map(str, rss)), file=sys.stderr)
if len(rss) < $DUR * 0.8 or span >= $RSS_SLACK_KB:
    bad.append(f"memory not flat: {span} kB over {len(rss)} samples")
# drops counted
tx, rx = last_json("fgtx.log"), last_json("fgrx.log")
gw0, gw1 = fl.port(st, "gw0"), fl.port(st, "gw1")
low = [c for c in gw1["classes"] if c["name"] == "low"][0]
# flowgen's "sent" also counts datagrams its socket refused (ENOBUFS):
# what left A is what its frame_bytes count
accepted = tx["frame_bytes"] // 1042
high = [c for c in gw1["classes"] if c["name"] == "high"][0]
cls_drops = sum(low["drops"].values())
x = gw0["xsk"]
xsk = x["rx_dropped"] + x["rx_ring_full"] + x["rx_fill_ring_empty_descs"]
uc = last_json("ucrx.log")
# a frame the AF_XDP socket refuses (RX ring full, fill ring empty) fails
# the XDP redirect and is counted by the veth as well (gw0 rx_dropped):
# count the kernel's figure, show the socket's
counted = cls_drops + fl.rx_drops(gw0) + max(xsk, kdrops) + rcvbuf
offered, got = accepted, rx["received"]
egress_mbit = low["sent_bytes"] * 8 / $DUR / 1e6
offered_mbit = tx["frame_bytes"] * 8 / $DUR / 1e6
print(f"low class: offered {offered} ({offered_mbit:.0f} Mbit/s; {tx['sent'] - accepted} more "
      f"refused by A's socket), delivered {got} "
      f"({egress_mbit:.1f} Mbit/s), lost {offered - got}; counted {counted} = class drops "
      f"{cls_drops} {low['drops']} + RX drops {fl.rx_drops(gw0)} + kernel veth {kdrops} "
      f"(of which the AF_XDP socket refused {xsk}) + host B UDP RcvbufErrors {rcvbuf} "
      f"(both streams)", file=sys.stderr)
# host B's receive-buffer drops are shared by the two streams: compare the
# sums (the high stream's own loss is checked against the gateway below)
lost = offered - got + uc["missing"]
if abs(lost - counted) > $LIMIT:
    bad.append(f"drops not accounted: lost {lost}, counted {counted}")
if offered_mbit < 5 * egress_mbit:
    bad.append(f"not an overload: offered {offered_mbit:.0f} Mbit/s for {egress_mbit:.1f}")
if sum(high["drops"].values()):
    bad.append(f"high class dropped {high['drops']}")
mid_low = [c for c in fl.port(mid, "gw1")["classes"] if c["name"] == "low"][0]
print(f"mid-run: low class queue {mid_low['depth_packets']} packets (limit $LIMIT), "
      f"drops so far {sum(mid_low['drops'].values())}", file=sys.stderr)
# high class: the gateway sent every frame it got (no class drop, checked
# above); a datagram missing at B is lost in B's socket buffer, if at all
print(f"high class stream: {uc['ok']} of $N_HIGH delivered, missing {uc['missing']}, "
      f"corrupt {uc['corrupt']}; gateway: enq {high['enq_packets']} sent "
      f"{high['sent_packets']}", file=sys.stderr)
# A high-class frame can also be lost before it is classified: the flood
# shares gw0's RX ring, and a worker starved of CPU (this machine is
# shared) lets it overflow; the socket counts those (rx_ring_full...).
if uc["corrupt"] or uc["missing"] > rcvbuf + xsk:
    bad.append(f"high class lost frames beyond host B's socket drops and gw0's "
               f"RX ring overflows: {uc}")
r0 = json.loads(open(f"{d}/rtt0.json").read())
r1 = json.loads(open(f"{d}/rtt1.json").read())
m0, m1 = r0["p50_us"], r1["p50_us"]
p0, p1 = r0["p99_us"], r1["p99_us"]
m_limit = max($P50_RATIO * m0, m0 + $P50_FLOOR_US)
fifo_us = $LIMIT * $FLOOD_FRAME * 8 / $PORT_BPS * 1e6
p_limit = $P99_FIFO_SHARE * fifo_us
print(f"high class RTT: median unloaded {m0:.0f} us, overloaded {m1:.0f} us "
      f"(bound {m_limit:.0f} us); p99 unloaded {p0:.0f} us, overloaded {p1:.0f} us "
      f"(bound {p_limit:.0f} us, behind a FIFO {fifo_us:.0f} us); "
      f"probes lost {r1.get('lost')}, warmup lost {r1.get('warmup_lost')}, "
      f"measured over {r1.get('measured_us', 0) / 1e6:.1f} s", file=sys.stderr)
# the probes must have run under the overload: a warmup probe that timed
# out, or a measured run stretched past the flood (each timeout costs 1 s),
# would put them after it, unloaded (with the probes in the low class, the
# 100 warmup probes of the default timed out one by one for 100 s, and the
# 600 measured ones saw 300 us: this check was blind before)
span_s = r1.get("measured_us", 0) / 1e6
if r1.get("warmup_lost", 0) or span_s > $DUR - 4:
    bad.append(f"probes not under the overload: warmup lost {r1.get('warmup_lost')}, "
               f"measured over {span_s:.1f} s (bound {$DUR - 4} s)")
if m1 > m_limit:
    bad.append(f"high class median RTT {m1:.0f} us > {m_limit:.0f} us")
if p1 > p_limit:
    bad.append(f"high class p99 RTT {p1:.0f} us > {p_limit:.0f} us")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
# 1: datagrams missing -- judged above, against the counters
[ $rc -le 1 ] || tb_fail "udpcheck receiver status $rc"
tb_pass "10x overload for $DUR s: memory flat, drops counted, high class intact"

tb_stop_gw || tb_fail "daemon exit status $?"
missing=$(tb_stats gw.log 's["frames"]["missing"] + s["frames"]["doubles"] + s["frames"]["strays"]')
[ "$missing" -eq 0 ] || tb_fail "frame census: $missing"
tb_pass "clean stop after the overload, census clean"
