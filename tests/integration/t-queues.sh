#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Queues against the NIC's channels, on veths with 4 queues each
# (numrxqueues/numtxqueues 4: `ethtool -l` shows RX 4, TX 4) and flows
# spread over every queue:
#  (a) the default (queues: auto) runs 4 sockets per port, and 64 flows
#      each way, spread over the 4 queues by the hosts' TX hash, all arrive,
#      every frame through a socket (XDP verdict xsk), none on the
#      failure path, rx_no_socket 0; umem.frames, not written, is raised to
#      what 4 queues need;
#  (b) `queues: 1` on those NICs is refused at start with the reason and
#      the fixes (queues: auto, queues_set_channels, the ethtool command),
#      and the port is left without a program;
#  (c) `queues: 2` with `queues_set_channels: true` sets the gateway's
#      ports to 2 channels (logged; ethtool -l says 2) and traffic crosses
#      on both queues, none on the failure path;
#  (d) the same gateway, running, gets its gw0 raised back to 4 channels
#      (`ethtool -L`, as an operator would): frames that land on RX queues
#      2 and 3, which have no socket, are counted (rx_no_socket), the gauge
#      queues_without_socket says 2 (JSON and /metrics), the log warns
#      (the channel change, then the frames, with the fix), the health turns
#      degraded (queue_without_socket) -- and the frames still cross (the
#      fail-open path).
#
# How the flows spread (veth, kernel 6.18): veth hands a frame to the
# peer's RX queue with the index of the TX queue it was sent on; with no
# XPS map the host stack picks that queue from the socket's random TX hash
# (sk_txhash, drawn at connect()), so 64 connected UDP sockets cover 4
# queues with probability 1 - 4 * (3/4)^64 (a queue left empty fails the
# test). veth only attaches XDP on a device with at least as many RX
# queues as its peer has TX queues, which is why (c) first lowers the
# hosts' TX queues to 2: a real NIC has no such peer.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
CTL="$XDPLANE_BUILD/control/xdplanectl"
XDPLANE="$XDPLANE_BUILD/control/xdplane"
FLOWS=64
PER_FLOW=40

tb_init
SOCK="$TB_DIR/ctl.sock"
tb_build --queues 4
# Exact counts: no ARP and no IPv6 chatter on the wire during the test.
ip -n "$TB_A" neigh replace $TB_IP_B lladdr $TB_MAC_B dev a0 nud permanent
ip -n "$TB_B" neigh replace $TB_IP_A lladdr $TB_MAC_A dev b0 nud permanent
ip netns exec "$TB_A" sysctl -qw net.ipv6.conf.a0.disable_ipv6=1
ip netns exec "$TB_B" sysctl -qw net.ipv6.conf.b0.disable_ipv6=1

channels() { # NS DEV: the current RX channel count
	ip netns exec "$(tb_ns "$1")" ethtool -l "$2" |
		awk '/^Current/ { cur = 1 } cur && $1 == "RX:" { print $2; exit }'
}
[ "$(channels GW gw0)" = 4 ] || tb_fail "gw0 should have 4 RX channels: $(ip netns exec "$TB_GW" ethtool -l gw0)"

cat >"$TB_DIR/flows.py" <<'PY'
# flows.py recv BIND_IP PORT0 N OUT | send DST_IP PORT0 N PER_FLOW
# N connected UDP sockets (one flow each, to PORT0 + i); the receiver
# counts datagrams per port until 2 s pass without one, then writes
# {"got": total, "per_port": {...}} to OUT.
import json, select, socket, sys, time
mode, ip, port0, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if mode == "send":
    per = int(sys.argv[5])
    socks = []
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect((ip, port0 + i))
        socks.append(s)
    for k in range(per):
        for i, s in enumerate(socks):
            s.send(b"%d:%d:" % (i, k) + b"x" * 64)
        time.sleep(0.004)
    sys.exit(0)
socks = {}
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.bind((ip, port0 + i))
    s.setblocking(False)
    socks[s.fileno()] = (s, port0 + i)
count = {p: 0 for _, p in socks.values()}
print("ready", flush=True)
poll = select.poll()
for fd in socks:
    poll.register(fd, select.POLLIN)
last = time.monotonic() + 30 # the first datagram may take a while
while time.monotonic() - last < 2:
    for fd, _ in poll.poll(200):
        s, p = socks[fd]
        while True:
            try:
                s.recv(2048)
            except BlockingIOError:
                break
            count[p] += 1
            last = time.monotonic()
json.dump({"got": sum(count.values()), "per_port": count}, open(sys.argv[5], "w"))
PY

jget() { python3 -c 'import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

# traffic NAME: FLOWS flows each way, PER_FLOW datagrams each; fails unless
# every datagram arrives.
traffic() {
	local name=$1 r1 r2
	tb_spawn "$name-rb" B python3 "$TB_DIR/flows.py" recv $TB_IP_B 9400 $FLOWS "$TB_DIR/$name-b.json"
	r1=$TB_LAST_PID
	tb_spawn "$name-ra" A python3 "$TB_DIR/flows.py" recv $TB_IP_A 9500 $FLOWS "$TB_DIR/$name-a.json"
	r2=$TB_LAST_PID
	for f in "$name-rb" "$name-ra"; do
		for _ in $(seq 50); do grep -q ready "$TB_DIR/$f.log" && break; sleep 0.1; done
		grep -q ready "$TB_DIR/$f.log" || tb_fail "receiver $f not ready"
	done
	tb_exec A python3 "$TB_DIR/flows.py" send $TB_IP_B 9400 $FLOWS $PER_FLOW &
	local s1=$!
	tb_exec B python3 "$TB_DIR/flows.py" send $TB_IP_A 9500 $FLOWS $PER_FLOW ||
		tb_fail "sender B -> A"
	wait $s1 || tb_fail "sender A -> B"
	tb_wait_exit $r1 40 || tb_fail "receiver on B did not finish"
	tb_wait_exit $r2 40 || tb_fail "receiver on A did not finish"
	local want=$((FLOWS * PER_FLOW)) ab ba
	ab=$(jget 's["got"]' <"$TB_DIR/$name-b.json")
	ba=$(jget 's["got"]' <"$TB_DIR/$name-a.json")
	echo "  $name: A -> B $ab of $want datagrams, B -> A $ba of $want" >&2
	[ "$ab" -eq $want ] && [ "$ba" -eq $want ] || tb_fail "$name: datagrams lost"
}

# --- (b) queues: 1 on 4-channel NICs: refused --------------------------------
tb_config "$TB_DIR/one.yaml" "queues: 1"
set +e
out=$(tb_exec GW timeout 30 "$XDPLANE" -c "$TB_DIR/one.yaml" 2>&1)
rc=$?
set -e
echo "$out" | grep -a 'gw0 has 4' >&2 || true
[ $rc -ne 0 ] && [ $rc -ne 124 ] || tb_fail "queues: 1 on 4 channels: exit status $rc, want a refusal: $out"
for want in "gw0 has 4 RX channels but queues is 1" "3 channels without an AF_XDP socket" \
	"queues: auto (4)" "queues_set_channels: true" "'ethtool -L gw0 rx 1 tx 1'"; do
	grep -qF -- "$want" <<<"$out" || tb_fail "the refusal does not say '$want': $out"
done
[ -z "$(tb_xdp_prog GW gw0)" ] && [ -z "$(tb_xdp_prog GW gw1)" ] ||
	tb_fail "a refused start left an XDP program on a port"
[ "$(channels GW gw0)" = 4 ] || tb_fail "a refused start changed the channels"
tb_pass "(b) queues: 1 on 4-channel NICs refused (exit $rc) with the reason and the fixes"

# --- (a) the default, queues: auto ------------------------------------------
cat >"$TB_DIR/auto.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
umem: {frame_size: 2048}
control: {socket: "$SOCK", metrics_listen: ""}
YAML
tb_start_gw auto "$TB_DIR/auto.yaml"
grep -a 'queues: 4 per port (auto)' "$TB_DIR/auto.log" >&2 || tb_fail "no 'queues: 4 per port (auto)' in the log"
grep -a 'umem.frames: 131072 (not set' "$TB_DIR/auto.log" >&2 ||
	tb_fail "umem.frames not raised for 4 queues: $(grep -a umem "$TB_DIR/auto.log")"
st=$("$CTL" -s "$SOCK" --json status)
[ "$(jget 's["queues"]' <<<"$st")" = 4 ] || tb_fail "status: queues $(jget 's["queues"]' <<<"$st"), want 4"
before=$("$CTL" -s "$SOCK" --json stats)
traffic auto
sleep 0.3
after=$("$CTL" -s "$SOCK" --json stats)
python3 - "$before" "$after" "$FLOWS" "$PER_FLOW" 4 <<'PY' || tb_fail "(a) counters"
import json, sys
b, a = json.loads(sys.argv[1]), json.loads(sys.argv[2])
flows, per, Q = (int(x) for x in sys.argv[3:6])
bad = 0
for pa, pb in zip(a["ports"], b["ports"]):
    name = pa["name"]
    if len(pa["queues"]) != Q:
        print(f"  {name}: {len(pa['queues'])} queues, want {Q}", file=sys.stderr); bad += 1; continue
    rx = [qa["rx_packets"] - qb["rx_packets"] for qa, qb in zip(pa["queues"], pb["queues"])]
    xsk = pa["xdp"]["xsk"] - pb["xdp"]["xsk"]
    fail = sum(pa["xdp"][k] - pb["xdp"][k] for k in pa["xdp"] if k != "xsk")
    nos = pa["rx_no_socket"]
    print(f"  {name}: rx per queue {rx}, xdp xsk {xsk}, failure path {fail}, "
          f"rx_no_socket {nos}, queues_without_socket {pa['queues_without_socket']}", file=sys.stderr)
    bad += min(rx) <= 0 or sum(rx) != flows * per or xsk != flows * per or fail or nos \
        or pa["queues_without_socket"]
sys.exit(1 if bad else 0)
PY
tb_pass "(a) default queues: auto: 4 sockets per port, $FLOWS flows each way on all 4 queues, every frame through a socket"
tb_stop_gw || tb_fail "(a) daemon exit status $?"

# --- (c) queues: 2, queues_set_channels: true ---------------------------------
# the hosts send on 2 queues (veth: see the header)
ip netns exec "$TB_A" ethtool -L a0 tx 2 || tb_fail "ethtool -L a0 tx 2"
ip netns exec "$TB_B" ethtool -L b0 tx 2 || tb_fail "ethtool -L b0 tx 2"
cat >"$TB_DIR/set.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
queues: 2
queues_set_channels: true
umem: {frame_size: 2048}
control: {socket: "$SOCK", metrics_listen: "127.0.0.1:19471", stats_interval_ms: 200}
YAML
tb_start_gw set "$TB_DIR/set.yaml"
for p in gw0 gw1; do
	grep -a "$p: channels set from 4 to 2 (queues_set_channels: 'ethtool -L $p rx 2 tx 2'" "$TB_DIR/set.log" >&2 ||
		tb_fail "no log line for $p's channels: $(cat "$TB_DIR/set.log")"
	[ "$(channels GW $p)" = 2 ] || tb_fail "$p has $(channels GW $p) RX channels, want 2"
done
before=$("$CTL" -s "$SOCK" --json stats)
traffic set
sleep 0.3
after=$("$CTL" -s "$SOCK" --json stats)
python3 - "$before" "$after" "$FLOWS" "$PER_FLOW" 2 <<'PY' || tb_fail "(c) counters"
import json, sys
b, a = json.loads(sys.argv[1]), json.loads(sys.argv[2])
flows, per, Q = (int(x) for x in sys.argv[3:6])
bad = 0
for pa, pb in zip(a["ports"], b["ports"]):
    rx = [qa["rx_packets"] - qb["rx_packets"] for qa, qb in zip(pa["queues"], pb["queues"])]
    fail = sum(pa["xdp"][k] - pb["xdp"][k] for k in pa["xdp"] if k != "xsk")
    print(f"  {pa['name']}: rx per queue {rx}, failure path {fail}, rx_no_socket {pa['rx_no_socket']}",
          file=sys.stderr)
    bad += len(rx) != Q or min(rx) <= 0 or sum(rx) != flows * per or fail or pa["rx_no_socket"]
sys.exit(1 if bad else 0)
PY
tb_pass "(c) queues: 2 + queues_set_channels: channels set to 2 (logged), traffic on both queues"

# --- (d) running, gw0 raised to 4 channels: queues 2 and 3 have no socket ----
ip netns exec "$TB_GW" ethtool -L gw0 rx 4 tx 4 || tb_fail "ethtool -L gw0 rx 4 tx 4"
ip netns exec "$TB_A" ethtool -L a0 tx 4 || tb_fail "ethtool -L a0 tx 4"
# veth (6.18) gives RX queues added while an XDP program is attached no
# program until the device is opened again (veth_set_channels() enables
# their NAPI, veth_enable_xdp() alone assigns the program): frames on them
# would skip XDP altogether. A NIC runs its program on every queue; a
# down/up here does the same (the sockets stay bound).
ip -n "$TB_GW" link set gw0 down
ip -n "$TB_GW" link set gw0 up
sleep 1 # the link comes back (carrier)
traffic nosock
# /healthz holds a reason for 5 s after its counter last moved; the
# receivers waited 2 s of silence
hz=$(tb_exec GW curl -s --max-time 5 -w ' %{http_code}' http://127.0.0.1:19471/healthz) || tb_fail "/healthz"
echo "  /healthz: $hz" >&2
case "$hz" in
*queue_without_socket*503) ;;
*) tb_fail "/healthz does not say degraded with queue_without_socket: $hz" ;;
esac
sleep 1 # a stats tick or more (stats_interval_ms 200)
after=$("$CTL" -s "$SOCK" --json stats)
python3 - "$after" "$FLOWS" "$PER_FLOW" <<'PY' || tb_fail "(d) counters"
import json, sys
a = json.loads(sys.argv[1])
flows, per = int(sys.argv[2]), int(sys.argv[3])
p = {x["name"]: x for x in a["ports"]}
g0, g1 = p["gw0"], p["gw1"]
print(f"  gw0: rx_no_socket {g0['rx_no_socket']}, queues_without_socket {g0['queues_without_socket']}, "
      f"failopen {g0['xdp']['failopen_redirect']}; gw1: rx_no_socket {g1['rx_no_socket']}, "
      f"queues_without_socket {g1['queues_without_socket']}", file=sys.stderr)
ok = (0 < g0["rx_no_socket"] < flows * per and g0["queues_without_socket"] == 2
      and g0["xdp"]["failopen_redirect"] >= g0["rx_no_socket"]
      and g1["rx_no_socket"] == 0 and g1["queues_without_socket"] == 0)
sys.exit(0 if ok else 1)
PY
m=$(tb_exec GW curl -s --max-time 5 http://127.0.0.1:19471/metrics) || tb_fail "/metrics"
grep -E '^xdplane_port_queues_without_socket\{port="gw0"\} 2$' <<<"$m" >&2 ||
	tb_fail "/metrics: no xdplane_port_queues_without_socket{port=\"gw0\"} 2: $(grep queues_without <<<"$m")"
grep -E '^xdplane_rx_no_socket_total\{port="gw0"\} [1-9]' <<<"$m" >&2 ||
	tb_fail "/metrics: xdplane_rx_no_socket_total{port=\"gw0\"} not above 0"
"$CTL" -s "$SOCK" stats | awk 'NR == 1 { print; next } $1 == "gw0" { print; exit }' >&2
"$CTL" -s "$SOCK" stats | awk '$1 == "PORT" { for (i = 1; i <= NF; i++) if ($i == "NO_SOCKET") c = i }
	c && $1 == "gw0" { exit !($c > 0) } END { if (!c) exit 1 }' ||
	tb_fail "xdplanectl stats: no NO_SOCKET column above 0 for gw0"
grep -a 'gw0: the NIC now has 4 channels (2 before), the gateway has sockets on 2 queues' "$TB_DIR/set.log" >&2 ||
	tb_fail "no warning about gw0's channel change"
grep -aE 'gw0: [0-9]+ frames? arrived on RX queue (2|3|2-3), which has no AF_XDP socket.*ethtool -L gw0 rx 2 tx 2' \
	"$TB_DIR/set.log" >&2 || tb_fail "no warning about frames on queues without a socket: $(grep -a 'no AF_XDP' "$TB_DIR/set.log")"
[ "$(grep -ac 'which has no AF_XDP socket' "$TB_DIR/set.log")" -eq 1 ] ||
	tb_fail "the warning is not rate-limited (once a minute)"
tb_pass "(d) frames on queues without a socket: counted, gauge 2, warned once, /healthz 503 queue_without_socket, still forwarded"

tb_stop_gw || tb_fail "(c/d) daemon exit status $?"
missing=$(tb_stats set.log 's["frames"]["missing"] + s["frames"]["doubles"]')
[ "$missing" -eq 0 ] || tb_fail "frame census: $missing"
tb_pass "clean stop, census clean"
