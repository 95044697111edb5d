#!/usr/bin/env bash
# PFC (IEEE 802.1Qbb) on the veth testbed, in real time.
#
# 1. Lossless: class "lossless" (UDP to 5001, priority 3 by default) is
#    shaped to R = 5 Mbit/s on the egress towards hostB; hostA's pfc_peer
#    offers 3 R and honours PFC (it stops priority 3 for the time a PFC
#    frame gives, at the 10 Gbit/s link speed configured for gw0). Asserted:
#    the receiver got every datagram sent (no loss), the class dropped
#    nothing (every drop reason 0), the sender was paused and resumed, the
#    gateway counted XOFF and XON for priority 3 out of gw0, and every PFC
#    frame that reached hostA is well formed, checked byte by byte: 60
#    bytes, DA 01:80:c2:00:00:01, SA gw0's MAC, EtherType 0x8808, opcode
#    0x0101, vector 0x0008 (priority 3 only), time[3] = 65535 (XOFF) or 0
#    (XON), every other time 0, padding 0.
# 2. Received PFC: hostB sends PFC frames for priority 3 into gw1 while
#    hostA sends two slow flows (lossless, default class): XOFF 65535
#    quanta at 100 Mbit/s (ports[1].link_speed) = 335.5 ms; one second
#    later XOFF 65535 then XON 100 ms after it. The receiver's timestamps
#    show the lossless flow stopped ~335 ms and ~100 ms from when the
#    frames were sent, the default flow never stopped for more than 150 ms,
#    and the gateway counted them (pfc_rx, XON, paused time).
# 3. Watchdog: reloaded with pfc.watchdog 150 ms, restore 300 ms; hostB
#    refreshes XOFF every 20 ms for 1.2 s: the watchdog declares storms,
#    drops the queued frames of the class (watchdog_drops = the class's
#    pfc_watchdog drops > 0), and the flow gets through between storms.
#
# Headroom: on this testbed the gateway's response (frames waiting in the
# socket's RX ring while its worker is off the CPU, the PFC frame's way
# back through veth, the sender's wake-up -- two cores shared with the
# hosts and with whatever else runs) takes milliseconds, up to tens of them,
# not 802.1Qbb's microseconds on a wire. The config models it as a 100 km
# cable at 10 Gbit/s: 1 ms round trip = 1.26 MB of headroom of the 2 MB
# limit, i.e. ~670 ms of the 15 Mbit/s offered. (With 100 m and 1 Gbit/s,
# 9 KB of headroom, the class overflows here: lossless_overflow counts it.)
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
PEER=$XDPLANE_BUILD/tests/tools/pfc_peer
CTL=$XDPLANE_BUILD/control/xdplanectl
tb_init
tb_build

R=5000000 # the lossless class's ceiling, bit/s
DUR=${DUR:-4}
config() { # config WATCHDOG_MS RESTORE_MS
	cat <<YAML
ports:
  - interface: gw0
    link_speed: 10Gbit
  - interface: gw1
    link_speed: 100Mbit
workers: {cpus: [0]}
control: {socket: "$TB_DIR/gw.sock", metrics_listen: ""}
classes:
  - name: lossless
    level: 1
    ceil: 5Mbit
    limit_bytes: 2MB
    limit_packets: 4096
    lossless: true
  - name: default
    level: 2
rules:
  - {class: lossless, match: {proto: udp, dport: 5001}}
default_class: default
pfc:
  enabled: true
  cable_length: 100000 # see below
  pause_quanta: 65535
  watchdog: $1
  watchdog_restore: $2
YAML
}
config 2000 300 >"$TB_DIR/pfc.yaml"
tb_start_gw gw "$TB_DIR/pfc.yaml"
GW0_MAC=$(ip -n "$TB_GW" -j link show gw0 | jq -r '.[0].address')
GW1_MAC=$(ip -n "$TB_GW" -j link show gw1 | jq -r '.[0].address')
SEND=(ip netns exec "$TB_A" taskset -c 1 "$PEER" send --ifname a0
	--src-mac $TB_MAC_A --dst-mac $TB_MAC_B --src-ip $TB_IP_A
	--dst-ip $TB_IP_B)
json() { grep -a '^{"' "$1" | tail -n1; }
stats_json() { "$CTL" -s "$TB_DIR/gw.sock" stats --json; }

# ---- 1. lossless at 3 R with a sender that honours PFC ----
tb_spawn rx1 B "$PEER" recv --bind $TB_IP_B:5001 --idle-ms 2000
RX1=$TB_LAST_PID
sleep 0.3
"${SEND[@]}" --dport 5001 --rate $((3 * R)) --size 1000 --duration "$DUR" \
	--prio 3 --link-bps 1e10 --pfc-log "$TB_DIR/pfc-frames.log" --linger 2 \
	>"$TB_DIR/tx1.json"
tb_wait_exit "$RX1" 30 || tb_fail "receiver did not finish"
TX1=$(json "$TB_DIR/tx1.json")
RXJ=$(json "$TB_DIR/rx1.log")
sent=$(jq .sent <<<"$TX1")
got=$(jq '.ports[0].received' <<<"$RXJ")
lost=$(jq '.ports[0].lost' <<<"$RXJ")
pauses=$(jq .pauses <<<"$TX1")
resumes=$(jq .resumes <<<"$TX1")
paused_s=$(jq '.paused_ns / 1e9' <<<"$TX1")
secs=$(jq .seconds <<<"$TX1")
rate=$(echo "scale=1; $got * 1000 * 8 / $secs / 1000000" | bc)
S=$(stats_json)
class_drops=$(jq '[.ports[1].classes[] | select(.name == "lossless") | .drops[]] | add' <<<"$S")
xoff=$(jq '.ports[0].pfc.pfc_tx_xoff[3]' <<<"$S")
xon=$(jq '.ports[0].pfc.pfc_tx_xon[3]' <<<"$S")
echo "lossless at 3R: sent $sent, received $got (lost $lost), ~$rate Mbit/s of R=$((R / 1000000));" \
	"sender paused $pauses times ($paused_s s), resumed $resumes;" \
	"gateway: XOFF $xoff, XON $xon out of gw0, class drops $class_drops" >&2
[ "$sent" -gt 1000 ] || tb_fail "sender sent only $sent"
[ "$got" -eq "$sent" ] && [ "$lost" -eq 0 ] ||
	tb_fail "lossless class lost frames: sent $sent, received $got"
[ "$class_drops" -eq 0 ] || tb_fail "lossless class dropped $class_drops frames"
[ "$pauses" -gt 0 ] && [ "$resumes" -gt 0 ] ||
	tb_fail "sender never paused/resumed ($pauses/$resumes)"
[ "$xoff" -gt 0 ] && [ "$xon" -gt 0 ] || tb_fail "gateway sent XOFF $xoff, XON $xon"
# the class really ran at R, not at 3 R (PFC held the sender back)
[ "$(echo "$rate < 1.5 * $R / 1000000 && $rate > 0.4 * $R / 1000000" | bc)" -eq 1 ] ||
	tb_fail "lossless class delivered $rate Mbit/s, R is $((R / 1000000))"
tb_pass "lossless at 3R: 0 lost of $sent, paused $pauses, resumed $resumes"

# every PFC frame on the wire, byte by byte
python3 - "$TB_DIR/pfc-frames.log" "$GW0_MAC" "$xoff" "$xon" <<'PY' || tb_fail "malformed PFC frame on the wire"
import sys
path, mac, xoff, xon = sys.argv[1], sys.argv[2].replace(":", ""), int(sys.argv[3]), int(sys.argv[4])
n_off = n_on = 0
for i, line in enumerate(open(path)):
    t, ln, hx = line.split()
    b = bytes.fromhex(hx)
    def bad(why):
        sys.exit(f"frame {i}: {why}: {hx}")
    if int(ln) != 60 or len(b) != 60: bad(f"length {ln}, want 60")
    if b[0:6].hex() != "0180c2000001": bad("destination")
    if b[6:12].hex() != mac: bad(f"source {b[6:12].hex()}, want {mac}")
    if b[12:14] != b"\x88\x08": bad("EtherType")
    if b[14:16] != b"\x01\x01": bad("opcode")
    if b[16:18] != b"\x00\x08": bad("class-enable vector, want priority 3 only")
    times = [int.from_bytes(b[18 + 2 * p:20 + 2 * p], "big") for p in range(8)]
    if any(times[p] for p in range(8) if p != 3): bad(f"times {times}")
    if times[3] == 65535: n_off += 1
    elif times[3] == 0: n_on += 1
    else: bad(f"time[3] {times[3]}, want 65535 or 0")
    if any(b[34:60]): bad("padding not zero")
print(f"{n_off + n_on} PFC frames well formed: {n_off} XOFF, {n_on} XON", file=sys.stderr)
if (n_off, n_on) != (xoff, xon):
    sys.exit(f"wire has {n_off} XOFF / {n_on} XON, the gateway counted {xoff} / {xon}")
PY
tb_pass "every PFC frame well formed"

# ---- 2. PFC frames sent to the gateway pause priority 3 on gw1 ----
tb_spawn rx2 B "$PEER" recv --bind $TB_IP_B:5001 --bind $TB_IP_B:5002 \
	--idle-ms 1500 --gap-ms 50
RX2=$TB_LAST_PID
sleep 0.3
"${SEND[@]}" --no-honour --dport 5001 --rate 2e6 --dport2 5002 --rate2 2e6 \
	--size 250 --duration 3.5 >"$TB_DIR/tx2.json" &
TX2=$!
sleep 1
ip netns exec "$TB_B" "$PEER" pfc --ifname b0 --src-mac $TB_MAC_B --prio 3 \
	--quanta 65535 --quanta 65535@1000 --quanta 0@100 >"$TB_DIR/pfc2.json"
wait $TX2
tb_wait_exit "$RX2" 30 || tb_fail "receiver 2 did not finish"
S=$(stats_json)
python3 - "$(json "$TB_DIR/pfc2.json")" "$(json "$TB_DIR/rx2.log")" "$S" <<'PY' || tb_fail "received PFC did not pause exactly priority 3 for the time"
import json, sys
sent = json.loads(sys.argv[1])["sent_at_ns"]
rx = {p["port"]: p for p in json.loads(sys.argv[2])["ports"]}
s = json.loads(sys.argv[3])
gw1 = [p for p in s["ports"] if p["name"] == "gw1"][0]["pfc"]
def gap_near(port, t):
    g = [x for x in rx[port]["gaps"] if abs(x[0] - t) < 60e6]
    return max((x[1] for x in g), default=0) / 1e6
pause1 = gap_near(5001, sent[0])
pause2 = gap_near(5001, sent[1])
other = rx[5002]["max_gap_ns"] / 1e6
print(f"lossless flow stopped {pause1:.1f} ms for XOFF 65535 (335.5 ms at 100 Mbit/s), "
      f"{pause2:.1f} ms for XOFF + XON 100 ms later; default flow's longest gap {other:.1f} ms; "
      f"gateway: pfc_rx[3] {gw1['pfc_rx'][3]}, XON {gw1['pfc_rx_xon'][3]}, "
      f"paused {gw1['paused_ns'][3] / 1e6:.1f} ms", file=sys.stderr)
ok = 300 <= pause1 <= 420 and 80 <= pause2 <= 180 and other < 150
ok = ok and gw1["pfc_rx"][3] == 3 and gw1["pfc_rx_xon"][3] == 1
ok = ok and sum(gw1["pfc_rx"][p] for p in range(8) if p != 3) == 0
ok = ok and 0.9 * 435.5 <= gw1["paused_ns"][3] / 1e6 <= 1.1 * 435.5
ok = ok and rx[5001]["lost"] == 0 and rx[5002]["lost"] == 0
sys.exit(0 if ok else 1)
PY
tb_pass "received PFC paused exactly priority 3 for the time, XON resumed"

# ---- 3. the watchdog on a pause storm ----
config 150 300 >"$TB_DIR/pfc.yaml"
"$CTL" -s "$TB_DIR/gw.sock" reload >/dev/null || tb_fail "reload"
tb_spawn rx3 B "$PEER" recv --bind $TB_IP_B:5001 --idle-ms 1500 --gap-ms 50
RX3=$TB_LAST_PID
sleep 0.3
"${SEND[@]}" --no-honour --dport 5001 --rate 2e6 --size 250 --duration 2.5 \
	>"$TB_DIR/tx3.json" &
TX3=$!
sleep 0.5
storm=()
for _ in $(seq 60); do storm+=(--quanta 65535@20); done
ip netns exec "$TB_B" "$PEER" pfc --ifname b0 --src-mac $TB_MAC_B --prio 3 \
	"${storm[@]}" >/dev/null
wait $TX3
tb_wait_exit "$RX3" 30 || tb_fail "receiver 3 did not finish"
S=$(stats_json)
storms=$(jq '[.ports[] | select(.name == "gw1") | .pfc.watchdog_storms[3]] | add' <<<"$S")
wd_drops=$(jq '[.ports[] | select(.name == "gw1") | .pfc.watchdog_drops[3]] | add' <<<"$S")
cls_wd=$(jq '[.ports[1].classes[] | select(.name == "lossless") | .drops.pfc_watchdog] | add' <<<"$S")
ignored=$(jq '[.ports[] | select(.name == "gw1") | .pfc.ignored[3]] | add' <<<"$S")
got3=$(jq '.ports[0].received' <<<"$(json "$TB_DIR/rx3.log")")
sent3=$(jq .sent <<<"$(json "$TB_DIR/tx3.json")")
echo "storm (XOFF every 20 ms for 1.2 s, watchdog 150 ms, restore 300 ms):" \
	"$storms storms, $wd_drops frames dropped by the watchdog (class: $cls_wd)," \
	"$ignored PFC frames ignored; received $got3 of $sent3" >&2
[ "$storms" -ge 1 ] || tb_fail "no watchdog storm"
[ "$wd_drops" -gt 0 ] && [ "$wd_drops" -eq "$cls_wd" ] ||
	tb_fail "watchdog drops $wd_drops, class pfc_watchdog drops $cls_wd"
[ "$ignored" -gt 0 ] || tb_fail "no PFC frame ignored during the restore time"
[ $((got3 + wd_drops)) -eq "$sent3" ] ||
	tb_fail "received $got3 + watchdog drops $wd_drops != sent $sent3"
tb_pass "watchdog: $storms storms, $wd_drops frames dropped"

# the operator's views: the PFC table and the class's lossless/pcp columns
"$CTL" -s "$TB_DIR/gw.sock" stats >"$TB_DIR/stats.txt" || tb_fail "xdplanectl stats"
"$CTL" -s "$TB_DIR/gw.sock" classes >"$TB_DIR/classes.txt" || tb_fail "xdplanectl classes"
cat "$TB_DIR/stats.txt" "$TB_DIR/classes.txt" >&2
grep -Eq '^gw0 +3 +0 +0 +[0-9.]+k? +[0-9]+ ' "$TB_DIR/stats.txt" ||
	tb_fail "no PFC row for gw0 priority 3 in xdplanectl stats"
grep -Eq '^gw1 +3 +[0-9]+ ' "$TB_DIR/stats.txt" ||
	tb_fail "no PFC row for gw1 priority 3 in xdplanectl stats"
grep -Eq '^gw1 +lossless .* yes +3 ' "$TB_DIR/classes.txt" ||
	tb_fail "xdplanectl classes does not show lossless/pcp 3"

tb_stop_gw || tb_fail "gateway exit status $?"
[ "$(tb_stats gw.log 's["frames"]["missing"]')" -eq 0 ] || tb_fail "frames leaked"
tb_pass "t-pfc"
