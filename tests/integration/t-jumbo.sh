#!/usr/bin/env bash
# Jumbo frames (AF_XDP multi-buffer) across the gateway, veth testbed at MTU
# 9000 (UMEM frames of 4096 B: a 9014-byte frame is a chain of 3):
#  1. the daemon decides multi-buffer at start: log line, status and stats
#     --json (multibuf, max_frame), Prometheus;
#  2. UDP datagrams of every payload size 18..8972 (IP packets 46..9000)
#     cross byte-identical through a class with a ceiling;
#  3. a TCP transfer (MSS 8948) crosses with the same SHA-256 through a
#     shaped TCP class, in chains (its packets average > 4000 B);
#  4. 8972-byte UDP offered at ~2x the UDP class's ceiling arrives at the
#     ceiling: delivered / ceiling within [0.85, 1.10];
#  5. the frame census adds up at stop, chains counted on both ports;
#  6. with ports[].mtu 1500 the daemon sets the MTU and stays single-buffer;
#  7. an MTU that needs more frames than AF_XDP multi-buffer carries is
#     refused with the message, and the interface keeps its MTU.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
CTL="$XDPLANE_BUILD/control/xdplanectl"
UC="$XDPLANE_BUILD/tests/tools/udpcheck"
UDP_CEIL_MBIT=${UDP_CEIL_MBIT:-200}
TCP_CEIL_MBIT=${TCP_CEIL_MBIT:-400}
TCP_BYTES=${TCP_BYTES:-134217728}
MAXPAY=8972 # 9000 - 20 (IPv4) - 8 (UDP)
# every payload size, twice
N_SWEEP=$((2 * (MAXPAY - 18 + 1)))
tb_init
tb_build --mtu 9000

jget() { python3 -c 'import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
wait_ready() { # LOG
	for _ in $(seq 50); do grep -q ready "$TB_DIR/$1" && return 0; sleep 0.1; done
	tb_fail "receiver $1 not ready"
}

# overhead 0: the ceilings count the Ethernet frame alone, as the
# receiver-side rate below does. Bursts of 256 KiB (~10 ms at the
# ceilings): the worker shares 2 cores with the hosts, and a bucket must
# hold what arrives between two of its passes (tc_sched.h).
cat >"$TB_DIR/gw.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
overhead: 0
control: {socket: "$TB_DIR/gw.sock", metrics_listen: "127.0.0.1:9470"}
classes:
  - {name: udp, level: 1, ceil: ${UDP_CEIL_MBIT}Mbit, ceil_burst: 256KiB}
  - {name: tcp, level: 1, ceil: ${TCP_CEIL_MBIT}Mbit, ceil_burst: 256KiB}
  - {name: default, level: 2}
rules:
  - {class: udp, match: {proto: udp}}
  - {class: tcp, match: {proto: tcp}}
default_class: default
YAML
tb_start_gw gw "$TB_DIR/gw.yaml"
SOCK="$TB_DIR/gw.sock"

# 1. the decision
grep -q 'gw0: MTU 9000, multi-buffer on, up to 3 frames of 4096 B per packet' "$TB_DIR/gw.log" ||
	tb_fail "no multi-buffer decision line for gw0"
grep -q 'gw1: MTU 9000, multi-buffer on' "$TB_DIR/gw.log" || tb_fail "no decision line for gw1"
grep -q 'gw0: XDP program attached in native mode (multi-buffer, xdp.frags)' "$TB_DIR/gw.log" ||
	tb_fail "the XDP program is not the frags one"
st=$("$CTL" -s "$SOCK" --json status)
[ "$(jget 's["multibuf"]' <<<"$st")" = True ] || tb_fail "status: multibuf not true"
maxf=$(jget 's["max_frame"]' <<<"$st")
[ "$maxf" -ge 9014 ] || tb_fail "status: max_frame $maxf < 9014"
[ "$(jget '[p["mtu"] for p in s["ports"]]' <<<"$st")" = "[9000, 9000]" ] || tb_fail "status: port MTUs"
[ "$("$CTL" -s "$SOCK" --json stats | jget 's["multibuf"]')" = True ] || tb_fail "stats: multibuf"
"$CTL" -s "$SOCK" status | grep -q 'multi-buffer on' || tb_fail "status text lacks multi-buffer"
tb_pass "multi-buffer decided at start (max_frame $maxf)"

# 2. every size, byte-identical, below the UDP ceiling (~90 Mbit/s)
tb_spawn sweep B "$UC" recv --bind $TB_IP_B:9000 --expect $N_SWEEP --seed 3 \
	--min 18 --max $MAXPAY --sweep --timeout-ms 5000 --json
RECV=$TB_LAST_PID
wait_ready sweep.log
ip netns exec "$TB_A" "$UC" send --to $TB_IP_B:9000 --count $N_SWEEP --min 18 \
	--max $MAXPAY --sweep --rate 2500 --seed 3 || tb_fail "sweep sender failed"
rc=0
tb_wait_exit $RECV 60 || rc=$?
res=$(grep -a '^{' "$TB_DIR/sweep.log" | tail -n1)
echo "sweep: $res" >&2
[ "$(jq .corrupt <<<"$res")" -eq 0 ] || tb_fail "corrupt datagrams"
[ "$(jq .max_size <<<"$res")" -eq $MAXPAY ] || tb_fail "largest datagram not $MAXPAY"
[ "$(jq .ok <<<"$res")" -eq $N_SWEEP ] || tb_fail "only $(jq .ok <<<"$res") of $N_SWEEP datagrams intact"
[ $rc -eq 0 ] || tb_fail "udpcheck receiver status $rc"
tb_pass "$N_SWEEP UDP datagrams, every payload size 18..$MAXPAY, byte-identical"

# 3. TCP with jumbo segments through the shaped TCP class
head -c "$TCP_BYTES" /dev/urandom >"$TB_DIR/src.bin"
want=$(sha256sum "$TB_DIR/src.bin" | cut -d' ' -f1)
tb_spawn sink B sh -c "socat -u TCP-LISTEN:9001,reuseaddr - | sha256sum >'$TB_DIR/got.sha'"
SINK=$TB_LAST_PID
for _ in $(seq 50); do
	ip netns exec "$TB_B" ss -ltn | grep -q ':9001 ' && break
	sleep 0.1
done
before=$("$CTL" -s "$SOCK" --json classes)
t0=$(date +%s.%N)
timeout 300 ip netns exec "$TB_A" socat -u FILE:"$TB_DIR/src.bin" TCP:$TB_IP_B:9001 ||
	tb_fail "TCP transfer failed"
tb_wait_exit $SINK 60 || tb_fail "TCP receiver did not finish"
t1=$(date +%s.%N)
rm -f "$TB_DIR/src.bin"
got=$(cut -d' ' -f1 "$TB_DIR/got.sha")
[ "$got" = "$want" ] || tb_fail "TCP SHA-256 differs: sent $want, received $got"
after=$("$CTL" -s "$SOCK" --json classes)
read -r tcp_pkts tcp_bytes < <(python3 - "$before" "$after" <<'PY'
import json, sys
def tcp(doc):
    for p in json.loads(doc)["ports"]:
        if p["name"] == "gw1":
            for c in p["classes"]:
                if c["name"] == "tcp":
                    return c["sent_packets"], c["sent_bytes"]
a, b = tcp(sys.argv[1]), tcp(sys.argv[2])
print(b[0] - a[0], b[1] - a[1])
PY
)
avg=$((tcp_bytes / (tcp_pkts ? tcp_pkts : 1)))
tcp_ratio=$(python3 -c "print(round($TCP_BYTES * 8 / ($t1 - $t0) / ($TCP_CEIL_MBIT * 1e6), 3))")
echo "tcp: $tcp_pkts packets, $tcp_bytes bytes (avg $avg B) through class tcp; goodput/ceiling $tcp_ratio" >&2
[ "$avg" -gt 4000 ] || tb_fail "TCP packets average $avg B: not jumbo"
python3 -c "import sys; sys.exit(0 if $tcp_ratio <= 1.10 else 1)" ||
	tb_fail "TCP goodput $tcp_ratio x the class ceiling: not shaped"
tb_pass "TCP $TCP_BYTES bytes intact ($want), avg packet $avg B, goodput/ceiling $tcp_ratio"

# 4. shaping: 8972-byte datagrams at ~2x the UDP ceiling for 4 s
offered_pps=$((2 * UDP_CEIL_MBIT * 1000000 / 8 / 9014))
count=$((offered_pps * 4))
tb_spawn blast B "$UC" recv --bind $TB_IP_B:9002 --expect $count --seed 5 --timeout-ms 1500 --json
RECV=$TB_LAST_PID
wait_ready blast.log
ip netns exec "$TB_A" "$UC" send --to $TB_IP_B:9002 --count $count --min $MAXPAY \
	--max $MAXPAY --rate $offered_pps --seed 5 || tb_fail "blast sender failed"
tb_wait_exit $RECV 30 || true
res=$(grep -a '^{' "$TB_DIR/blast.log" | tail -n1)
[ "$(jq .corrupt <<<"$res")" -eq 0 ] || tb_fail "corrupt datagrams in the blast"
ok=$(jq .ok <<<"$res")
ms=$(jq .elapsed_ms <<<"$res")
ratio=$(python3 -c "print(round(($ok - 1) * 9014 * 8 / ($ms / 1e3) / ($UDP_CEIL_MBIT * 1e6), 3))")
echo "udp blast: offered $offered_pps pps ($count), delivered $ok in $ms ms: rate/ceiling $ratio" >&2
python3 -c "import sys; sys.exit(0 if 0.85 <= $ratio <= 1.10 else 1)" ||
	tb_fail "UDP class delivered $ratio x its ceiling (want 0.85..1.10)"
tb_pass "shaped UDP class: delivered/ceiling $ratio"

# Prometheus, in the gateway's namespace
m=$(tb_exec GW curl -s --max-time 5 "http://127.0.0.1:9470/metrics")
grep -q '^xdplane_multibuf 1$' <<<"$m" || tb_fail "metrics: xdplane_multibuf is not 1"
grep -q '^xdplane_rx_chains_total{port="gw0",queue="0"} [1-9]' <<<"$m" ||
	tb_fail "metrics: no RX chains on gw0"

# 5. census
tb_stop_gw || tb_fail "daemon exit status $?"
grep -q 'frame accounting: all [0-9]* frames accounted for' "$TB_DIR/gw.log" ||
	tb_fail "frame census failed"
[ "$(tb_stats gw.log 's["frames"]["missing"] + s["frames"]["doubles"] + s["frames"]["strays"]')" = 0 ] ||
	tb_fail "frame census: missing/doubles/strays"
rxc=$(tb_stats gw.log 'sum(p["rx_chains"] for p in s["ports"])')
txc=$(tb_stats gw.log 'sum(p["tx_chains"] for p in s["ports"])')
bad=$(tb_stats gw.log 'sum(p["drops"]["chain_long"] + p["drops"]["chain_head"] + p["drops"]["chain_room"] + p["drops"]["chain_tx"] + p["drops"]["multibuf"] for p in s["ports"])')
echo "chains: rx $rxc tx $txc, chain drops $bad" >&2
[ "$rxc" -gt "$N_SWEEP" ] || tb_fail "only $rxc chains received"
[ "$bad" -eq 0 ] || tb_fail "$bad chain drops"
tb_pass "frame census adds up with $rxc chains received, $txc sent"

# 6. ports[].mtu 1500: the daemon sets it, single-buffer
tb_config "$TB_DIR/small.yaml"
sed -i 's/^  - interface: gw\([01]\)$/  - {interface: gw\1, mtu: 1500}/' "$TB_DIR/small.yaml"
tb_start_gw small "$TB_DIR/small.yaml"
grep -q 'gw0: MTU set to 1500 (was 9000)' "$TB_DIR/small.log" || tb_fail "MTU not set by ports[].mtu"
grep -q 'gw0: MTU 1500, single-buffer (multi-buffer off' "$TB_DIR/small.log" ||
	tb_fail "no single-buffer decision line"
grep -q 'multi-buffer, xdp.frags' "$TB_DIR/small.log" && tb_fail "frags program loaded at MTU 1500"
[ "$(ip -n "$TB_GW" -j link show gw1 | jq '.[0].mtu')" = 1500 ] || tb_fail "gw1 MTU not 1500"
st=$("$CTL" -s "$TB_DIR/small.sock" --json status)
[ "$(jget 's["multibuf"]' <<<"$st")" = False ] || tb_fail "status: multibuf on at MTU 1500"
tb_spawn small-rx B "$UC" recv --bind $TB_IP_B:9003 --expect 2000 --seed 9 --timeout-ms 3000 --json
RECV=$TB_LAST_PID
wait_ready small-rx.log
ip -n "$TB_A" link set a0 mtu 1500
ip -n "$TB_B" link set b0 mtu 1500
ip netns exec "$TB_A" "$UC" send --to $TB_IP_B:9003 --count 2000 --max 1472 --seed 9 ||
	tb_fail "small sender failed"
tb_wait_exit $RECV 20 || tb_fail "MTU 1500: not every datagram arrived"
tb_stop_gw || tb_fail "daemon (MTU 1500) exit status $?"
[ "$(tb_stats small.log 'sum(p["rx_chains"] for p in s["ports"])')" = 0 ] || tb_fail "chains at MTU 1500"
tb_pass "ports[].mtu 1500: MTU set, single-buffer, 2000 datagrams up to 1472 B"

# 7. more frames than multi-buffer carries: 2048-byte frames hold 1792 B,
# MTU 40000 needs 23 of them (at most 17): refused, the MTU untouched
tb_config "$TB_DIR/big.yaml" "umem: {frame_size: 2048}"
sed -i 's/^  - interface: gw0$/  - {interface: gw0, mtu: 40000}/' "$TB_DIR/big.yaml"
rc=0
timeout 30 ip netns exec "$TB_GW" "$XDPLANE_BUILD/control/xdplane" -c "$TB_DIR/big.yaml" \
	>"$TB_DIR/big.log" 2>&1 || rc=$?
cat "$TB_DIR/big.log" >&2
[ $rc -ne 0 ] || tb_fail "MTU 40000 with 2048-byte frames was accepted"
grep -q 'gw0: MTU 40000 needs 23 frames of 2048 B per packet, but AF_XDP multi-buffer carries at most 17' \
	"$TB_DIR/big.log" || tb_fail "refusal message missing"
[ "$(ip -n "$TB_GW" -j link show gw0 | jq '.[0].mtu')" = 1500 ] || tb_fail "refused MTU applied anyway"
tb_pass "MTU 40000 refused with the reason (exit $rc)"
