#!/usr/bin/env bash
# UMEM exhaustion (fill-ring starvation) and recovery. The gateway runs
# with the smallest UMEM its rings allow (rings of 512, umem.frames 4096:
# 2048 frames per RX queue) and a class "slow" that holds frames: a 1
# Mbit/s ceiling and a queue limit (4096 packets, 16 MiB) above what the
# partition has. A 20 Mbit/s flood from A into that class parks every
# frame of gw0's RX partition in the class queue, so gw0's RX task has
# nothing left to put on the fill ring. Timestamped streams (gapmeter)
# run A->B and B->A in the default class throughout. Shown:
#  - starvation is visible in the counters: gw0's rx_fill_ring_empty_descs
#    (AF_XDP statistics) moves, and keeps moving, while the slow class
#    holds nearly the whole partition (>= 90 % of 2048 frames);
#  - the starved RX queue takes everything on it down (A->B stalls: the
#    frames have nowhere to land), the other direction is untouched
#    (B->A loses nothing: its partition is its own);
#  - a reload that lifts the ceiling recovers: the first A->B datagram
#    sent after the reload returned arrives within 1 s, and after that
#    nothing is lost; rx_fill_ring_empty_descs stops moving;
#  - not reported as a driver starving the socket (rx_starved_episodes
#    0, xdplane(8) "A starved socket");
#  - at stop: accounting exact, frame census clean (the frames that sat in
#    the queue all came back).
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
RATE=${RATE:-500}
tb_init
tb_build
export TB_DIR
CFG="$TB_DIR/gw.yaml"
SOCK="$TB_DIR/gw.sock"
write_cfg() { # write_cfg SLOW_CEIL
	cat >"$CFG.tmp" <<YAML
ports:
  - interface: gw0
  - interface: gw1
control: {socket: "$SOCK", metrics_listen: ""}
rings: {fill: 512, completion: 512, rx: 512, tx: 512, handoff: 512}
umem: {frames: 4096}
classes:
  - {name: slow, level: 1, ceil: $1, limit_packets: 4096, limit_bytes: 16MB}
  - {name: default, level: 2}
rules:
  - {class: slow, match: {proto: udp, dport: 5001}}
default_class: default
YAML
	mv "$CFG.tmp" "$CFG"
}
write_cfg 1Mbit
tb_start_gw gw "$CFG"
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
X="$XDPLANE_BUILD/control/xdplanectl -s $SOCK"
mono_ms() { python3 -c 'import time; print(time.monotonic_ns() // 1000000)'; }
fill_empty() { $X stats --json | jq '.ports[] | select(.name == "gw0") | .xsk.rx_fill_ring_empty_descs'; }
GM="$XDPLANE_SOURCE/tests/lib/gapmeter.py"
tb_spawn rab B python3 "$GM" recv --bind $TB_IP_B:9100 --out "$TB_DIR/ab.txt"
tb_spawn rba A python3 "$GM" recv --bind $TB_IP_A:9101 --out "$TB_DIR/ba.txt"
for _ in $(seq 50); do
	grep -q ready "$TB_DIR/rab.log" && grep -q ready "$TB_DIR/rba.log" && break
	sleep 0.1
done
tb_spawn sab A python3 "$GM" send --to $TB_IP_B:9100 --rate "$RATE" --duration 16
tb_spawn sba B python3 "$GM" send --to $TB_IP_A:9101 --rate "$RATE" --duration 16
sleep 2

# --- the flood parks the partition in the slow class ---
t_flood=$(mono_ms)
tb_spawn flood A "$XDPLANE_BUILD/tests/tools/flowgen" send --to $TB_IP_B:5001 \
	--rate 20e6 --size 1042 --duration 10
sleep 3
fe1=$(fill_empty)
sleep 1
st=$($X stats --json)
fe2=$(jq '.ports[] | select(.name == "gw0") | .xsk.rx_fill_ring_empty_descs' <<<"$st")
held=$(jq '.ports[] | select(.name == "gw1") | .classes[] | select(.name == "slow") | .depth_packets' <<<"$st")
echo "starved: slow class holds $held frames; gw0 rx_fill_ring_empty_descs $fe1 -> $fe2 in 1 s" >&2
[ "$held" -ge $((2048 * 9 / 10)) ] || tb_fail "the slow class holds only $held frames"
[ "$fe2" -gt "$fe1" ] && [ "$fe1" -gt 0 ] || tb_fail "fill-ring starvation not visible ($fe1 -> $fe2)"
tb_pass "fill ring starved: rx_fill_ring_empty_descs moves ($fe1 -> $fe2)"
# the gateway's own exhaustion (nothing posted on the fill ring) is not a
# driver starving a socket (xdplane(8), A starved socket)
ep=$(jq '[.ports[] | .rx_starved_episodes] | add' <<<"$st")
[ "$ep" = 0 ] || tb_fail "UMEM exhaustion reported as driver starvation (rx_starved_episodes $ep)"
tb_pass "not reported as driver starvation (rx_starved_episodes 0, 4 s into it)"

# --- lift the ceiling ---
write_cfg 1Gbit
$X reload >/dev/null || tb_fail "reload"
t_reload=$(mono_ms)
sleep 2
fe3=$(fill_empty)
sleep 1
fe4=$(fill_empty)
echo "after the reload: rx_fill_ring_empty_descs $fe3 -> $fe4 in 1 s" >&2
[ "$fe4" -eq "$fe3" ] || tb_fail "the fill ring still starves after the reload ($fe3 -> $fe4)"
sleep 8 # the streams end (16 s)
tb_kill "$(cat "$TB_DIR/rab.pid")"
tb_kill "$(cat "$TB_DIR/rba.pid")"
sleep 0.5
python3 - "$t_flood" "$t_reload" <<'PY' || tb_fail "recovery"
import os, sys
sys.path.insert(0, os.environ["XDPLANE_SOURCE"] + "/tests/lib")
import gapmeter as gm
t_flood, t_reload = int(sys.argv[1]) * 10**6, int(sys.argv[2]) * 10**6
d = os.environ["TB_DIR"]
ab, ba = gm.load(f"{d}/ab.txt"), gm.load(f"{d}/ba.txt")
bad = []
lost_ab, _ = gm.losses(ab, t_flood, t_reload)
first = gm.first_after(ab, t_reload)
rec = (first - t_reload) / 1e6 if first else float("inf")
after = gm.losses_outside(ab, [(0, t_reload + 10**9)])
lost_ba, failed_ba = gm.losses(ba, 0, 2**63)
print(f"A->B: {lost_ab} lost while starved, first datagram {rec:.1f} ms after the "
      f"reload, {after} lost after that", file=sys.stderr)
print(f"B->A: {len(ba)} received, {lost_ba} lost", file=sys.stderr)
if lost_ab == 0:
    bad.append("A->B did not stall: was the RX queue starved?")
if rec > 1000:
    bad.append(f"A->B resumed {rec:.0f} ms after the reload")
if after:
    bad.append(f"A->B lost {after} after recovering")
if lost_ba or failed_ba:
    bad.append(f"B->A lost {lost_ba + failed_ba}: the other partition was hit")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
tb_pass "recovered within 1 s of the reload, other direction untouched"

tb_stop_gw || tb_fail "daemon exit status $?"
for dir in "gw0 gw1" "gw1 gw0"; do
	set -- $dir
	f=$(tb_stats gw.log "__import__('sys').path.insert(0, '$XDPLANE_SOURCE/tests/lib') or __import__('faultlib').in_flight(s, '$1', '$2')")
	[ "$f" -eq 0 ] || tb_fail "$1->$2: $f frames unaccounted at stop"
done
missing=$(tb_stats gw.log 's["frames"]["missing"] + s["frames"]["doubles"] + s["frames"]["strays"]')
[ "$missing" -eq 0 ] || tb_fail "frame census: $missing"
tb_pass "accounting exact at stop, census clean"
