#!/usr/bin/env bash
# Hosts whose veths keep TX checksum offload on (the default, as in
# containers and VMs): their TCP and UDP frames reach the gateway with the
# checksum still partial (the folded pseudo-header sum).
#
# - checksum: auto (the default; gw0 and gw1 are veths: "complete"): ping
#   crosses, UDP datagrams (IPv4 and IPv6) cross byte-identical and the
#   completions on gw0 equal the datagrams delivered (but for the rare one,
#   ~1 in 65535, whose partial value is its full checksum: it verifies as
#   it is and is left alone); a TCP transfer
#   (IPv4, then IPv6) keeps its SHA-256, with at least one completion per
#   segment on gw0 and the ACKs' on gw1; nothing counted bad.
# - checksum: trust: ping still crosses, but the far host drops TCP and
#   UDP as bad checksums (the TCP connect times out, no datagram arrives,
#   the receiver's UdpInCsumErrors grows), nothing completed: the test
#   above can fail. A reload that changes ports[].checksum is refused
#   (restart required) and changes nothing.
#
# OFFLOAD_QUEUES=N (default 1): veths with N queues and the gateway on
# queues: N, flows spread over them (t-offload-mq.sh runs it with 2).
# OFFLOAD_MTU=M (default 1500): every veth at MTU M; above 3818 frames
# cross as multi-buffer chains and the checksum covers all their buffers
# (t-offload-jumbo.sh runs it with 9000).
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
Q=${OFFLOAD_QUEUES:-1}
MTU=${OFFLOAD_MTU:-1500}
N=${N:-20000}
SIZE=${SIZE:-67108864} # TCP bytes per transfer
CTL="$XDPLANE_BUILD/control/xdplanectl"
UC="$XDPLANE_BUILD/tests/tools/udpcheck"
export TB_HOST_OFFLOADS=default # tb_build keeps the hosts' offloads
tb_init
tb_build --queues "$Q" --mtu "$MTU"
for h in A:a0 B:b0; do
	ip netns exec "$(tb_ns "${h%%:*}")" ethtool -k "${h#*:}" |
		grep -q '^tx-checksumming: on' ||
		tb_fail "${h#*:}: tx-checksumming is not on (TB_HOST_OFFLOADS=default)"
done
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
ip -n "$TB_A" neigh replace $TB_IP6_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP6_A lladdr $TB_MAC_A dev b0 nud permanent

# csum PORT RESULT: a port's checksum counter, from the running daemon
csum() {
	"$CTL" -s "$SOCK" --json stats | jq ".ports[$1].checksum.$2"
}

pings() {
	ip netns exec "$TB_A" ping -c 3 -i 0.2 -W 2 $TB_IP_B >/dev/null ||
		tb_fail "$1: IPv4 ping does not cross"
	ip netns exec "$TB_A" ping -6 -c 3 -i 0.2 -W 2 $TB_IP6_B >/dev/null ||
		tb_fail "$1: IPv6 ping does not cross"
}

# udp NAME DST COUNT: COUNT datagrams A -> B; how many arrived intact in
# $UDP_OK
udp() {
	local name=$1 dst=$2 count=$3 res
	tb_spawn "$name" B "$UC" recv --bind "$dst" --expect "$count" --seed 5 \
		--min 18 --max $((MTU - 48)) --timeout-ms 3000 --json
	local pid=$TB_LAST_PID
	for _ in $(seq 50); do grep -q ready "$TB_DIR/$name.log" && break; sleep 0.1; done
	ip netns exec "$TB_A" "$UC" send --to "$dst" --count "$count" \
		--max $((MTU - 48)) --rate 20000 --seed 5 >/dev/null ||
		tb_fail "$name: sender failed"
	tb_wait_exit "$pid" 30 || true
	res=$(grep -a '^{' "$TB_DIR/$name.log" | tail -n1)
	[ -n "$res" ] || tb_fail "$name: no result from the receiver"
	[ "$(jq .corrupt <<<"$res")" -eq 0 ] || tb_fail "$name: corrupted datagrams: $res"
	UDP_OK=$(jq .ok <<<"$res")
}

# tcp NAME DST: SIZE random bytes A -> B; 0 if their SHA-256 arrived
# intact, seconds taken in $TCP_SECS
tcp() {
	local name=$1 dst=$2 port=$3 want got start
	head -c "$SIZE" /dev/urandom >"$TB_DIR/src.bin"
	want=$(sha256sum "$TB_DIR/src.bin" | cut -d' ' -f1)
	rm -f "$TB_DIR/$name.sha"
	tb_spawn "$name" B sh -c "socat -u TCP-LISTEN:$port,reuseaddr,pf=$4 - | sha256sum >'$TB_DIR/$name.sha'"
	local pid=$TB_LAST_PID
	for _ in $(seq 50); do
		ip netns exec "$TB_B" ss -ltn | grep -q ":$port " && break
		sleep 0.1
	done
	start=$(date +%s.%N)
	if ! timeout 60 ip netns exec "$TB_A" socat -u FILE:"$TB_DIR/src.bin" \
		"TCP:$dst:$port,connect-timeout=3"; then
		tb_kill "$pid" KILL
		wait "$pid" 2>/dev/null || true
		rm -f "$TB_DIR/src.bin"
		return 1
	fi
	tb_wait_exit "$pid" 30 || tb_fail "$name: receiver did not finish"
	TCP_SECS=$(echo "$(date +%s.%N) - $start" | bc)
	got=$(cut -d' ' -f1 "$TB_DIR/$name.sha")
	rm -f "$TB_DIR/src.bin"
	[ "$got" = "$want" ] || tb_fail "$name: SHA-256 differs: sent $want, received $got"
}

# ---- checksum: auto ----
tb_config "$TB_DIR/auto.yaml" "queues: $Q"
SOCK="$TB_DIR/auto.sock"
tb_start_gw gw "$TB_DIR/auto.yaml"
for p in gw0 gw1; do
	grep -q "$p: checksum auto -> complete" "$TB_DIR/gw.log" ||
		tb_fail "$p: auto did not resolve to complete on a veth: $(grep checksum "$TB_DIR/gw.log")"
done
pings auto

c0=$(csum 0 completed)
udp udp4 $TB_IP_B:9000 "$N"
ok=$UDP_OK
[ "$ok" -eq "$N" ] || tb_fail "auto: $ok of $N IPv4 datagrams arrived"
udp udp6 "[$TB_IP6_B]:9000" "$N"
ok6=$UDP_OK
[ "$ok6" -eq "$N" ] || tb_fail "auto: $ok6 of $N IPv6 datagrams arrived"
c1=$(csum 0 completed)
# Each datagram left A partial; one in 65535 or so has a pseudo-header sum
# that is also its full checksum: it verifies as it is, and is left alone.
[ $((c1 - c0)) -le $((ok + ok6)) ] && [ $((c1 - c0)) -ge $((ok + ok6 - 5)) ] ||
	tb_fail "auto: gw0 completed $((c1 - c0)) checksums for $((ok + ok6)) datagrams"
tb_pass "auto: $((ok + ok6)) UDP datagrams (IPv4, IPv6) intact, $((c1 - c0)) checksums completed on gw0"

a1=$(csum 1 completed)
tcp tcp4 $TB_IP_B 9001 ip4 || tb_fail "auto: the IPv4 TCP transfer failed"
secs4=$TCP_SECS
tcp tcp6 "[$TB_IP6_B]" 9002 ip6 || tb_fail "auto: the IPv6 TCP transfer failed"
c2=$(csum 0 completed)
a2=$(csum 1 completed)
segs=$((2 * SIZE / (MTU - 52))) # MSS with timestamps, IPv4's (IPv6: more)
[ $((c2 - c1)) -ge $segs ] ||
	tb_fail "auto: gw0 completed $((c2 - c1)) checksums for >= $segs TCP segments"
[ $((a2 - a1)) -gt 0 ] || tb_fail "auto: no ACK checksum completed on gw1"
for p in 0 1; do
	[ "$(csum $p bad)" -eq 0 ] || tb_fail "auto: port $p counted bad checksums"
	[ "$(csum $p not_completed)" -eq 0 ] || tb_fail "auto: port $p counted not_completed"
done
mbps=$(echo "$SIZE * 8 / $secs4 / 1000000" | bc)
tb_pass "auto: 2 x $SIZE bytes of TCP (IPv4 ${mbps} Mbit/s, IPv6) intact; completed gw0 $((c2 - c1)), gw1 $((a2 - a1))"
if [ "$MTU" -gt 3818 ]; then
	chains=$("$CTL" -s "$SOCK" --json stats | jq '.ports[0].rx_chains')
	[ "$chains" -gt 0 ] || tb_fail "MTU $MTU: no multi-buffer packet received"
	tb_log "MTU $MTU: $chains chains received on gw0"
fi
per_q=$("$CTL" -s "$SOCK" --json stats |
	jq -c '[.ports[] | [.queues[].checksum.completed]]')
tb_log "completed per queue (gw0, gw1): $per_q"
tb_stop_gw || tb_fail "daemon exit status $?"
done_total=$(tb_stats gw.log 's["ports"][0]["checksum"]["completed"]')
[ "$done_total" -ge "$c2" ] || tb_fail "final report: gw0 completed $done_total, live $c2"

# ---- checksum: trust: the far host drops TCP and UDP ----
SOCK="$TB_DIR/trust.sock"
cat >"$TB_DIR/trust.yaml" <<YAML
ports:
  - {interface: gw0, checksum: trust}
  - {interface: gw1, checksum: trust}
queues: $Q
control: {socket: "$SOCK", metrics_listen: ""}
YAML
tb_start_gw gwt "$TB_DIR/trust.yaml"
grep -q "gw0: checksum trust -> trust" "$TB_DIR/gwt.log" || tb_fail "trust not logged"
# a restart setting: a reload that changes it is refused, nothing changes
sed 's/checksum: trust}/checksum: complete}/' "$TB_DIR/trust.yaml" >"$TB_DIR/t2.yaml"
cp "$TB_DIR/t2.yaml" "$TB_DIR/trust.yaml"
if out=$("$CTL" -s "$SOCK" reload 2>&1); then
	tb_fail "trust: a reload changing ports[].checksum was applied: $out"
fi
grep -q 'restart required: .*ports\[0\]\.checksum, ports\[1\]\.checksum' <<<"$out" ||
	tb_fail "trust: reload refused without naming ports[].checksum: $out"
pings trust
errs0=$(ip netns exec "$TB_B" nstat -az UdpInCsumErrors | awk '/UdpInCsumErrors/ {print $2}')
udp udpt $TB_IP_B:9000 1000
ok=$UDP_OK
# A partial field equals the full checksum by chance about once in 65535
# datagrams (the source port is ephemeral, so which one changes from run
# to run): up to 3 of 1000 accepted is chance (Poisson, p < 1e-6 for 4),
# more is trust completing checksums
[ "$ok" -le 3 ] || tb_fail "trust: $ok partial-checksum datagrams were accepted by the far host"
errs1=$(ip netns exec "$TB_B" nstat -az UdpInCsumErrors | awk '/UdpInCsumErrors/ {print $2}')
[ $((errs1 - errs0)) -ge 900 ] ||
	tb_fail "trust: the far host counted $((errs1 - errs0)) UDP checksum errors for 1000 datagrams"
SIZE=65536
if tcp tcpt $TB_IP_B 9003 ip4; then
	tb_fail "trust: a TCP connection crossed with partial checksums"
fi
[ "$(csum 0 completed)" -eq 0 ] || tb_fail "trust: checksums completed"
tb_stop_gw || tb_fail "daemon exit status $?"
tb_pass "trust: ping crosses; TCP and UDP dropped by the far host ($((errs1 - errs0)) UdpInCsumErrors)"
